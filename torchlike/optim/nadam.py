"""``NAdam``: mirrors ``torch.optim.NAdam``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .adam import _check_adam_args
from .optimizer import Optimizer, ParamsT, ZEROS, _to_scalar

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum), mirroring ``torch.optim.NAdam``, with its
    ``momentum_decay`` schedule and ``decoupled_weight_decay`` (NAdamW). State: ``step``,
    ``mu_product``, ``exp_avg``, ``exp_avg_sq``. ``foreach``, ``capturable`` and
    ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            keys = self._init_state(params, [("step", 0.0), ("mu_product", 1.0),
                                             ("exp_avg", ZEROS), ("exp_avg_sq", ZEROS)])
            beta1, beta2 = group["betas"]
            self._apply_update(
                F.nadam_update, params, keys,
                dict(lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                     weight_decay=group["weight_decay"],
                     momentum_decay=group["momentum_decay"]),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0,
                decoupled=bool(group["decoupled_weight_decay"]))
        return loss
