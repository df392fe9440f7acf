"""``Adam``: mirrors ``torch.optim.Adam``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, ZEROS, _check_fused, _to_scalar

__all__ = ["Adam"]


def _check_adam_args(lr, betas, eps, weight_decay) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    """Adam, mirroring ``torch.optim.Adam`` and its update rule: L2 ``weight_decay`` added
    to the gradient (or decoupled, AdamW-style, with ``decoupled_weight_decay=True``),
    ``amsgrad`` keeping the running maximum of the raw second moment, ``maximize``.

    Per-parameter state: ``step`` (a 0-d float32 tensor), ``exp_avg``, ``exp_avg_sq`` and,
    with amsgrad, ``max_exp_avg_sq``. ``foreach``, ``fused``, ``capturable`` and
    ``differentiable`` are accepted and have no effect.
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            amsgrad = bool(group["amsgrad"])
            keys = self._init_state(params, [("step", 0.0), ("exp_avg", ZEROS),
                                             ("exp_avg_sq", ZEROS)]
                                    + ([("max_exp_avg_sq", ZEROS)] if amsgrad else []))
            beta1, beta2 = group["betas"]
            self._apply_update(
                F.adam_update, params, keys,
                dict(lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                     weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]), amsgrad=amsgrad,
                has_wd=_to_scalar(group["weight_decay"]) != 0,
                decoupled=bool(group["decoupled_weight_decay"]))
        return loss
