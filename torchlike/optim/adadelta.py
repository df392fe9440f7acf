"""``Adadelta``: mirrors ``torch.optim.Adadelta``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, ZEROS, _to_scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta, mirroring ``torch.optim.Adadelta`` (``rho``, ``eps``, and the ``lr`` that
    scales the delta). State: ``step``, ``square_avg``, ``acc_delta``. ``foreach``,
    ``capturable`` and ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            keys = self._init_state(params, [("step", 0.0), ("square_avg", ZEROS),
                                             ("acc_delta", ZEROS)])
            self._apply_update(
                F.adadelta_update, params, keys,
                dict(lr=group["lr"], rho=group["rho"], eps=group["eps"],
                     weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0)
        return loss
