"""``ASGD``: mirrors ``torch.optim.ASGD``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, ZEROS, _to_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD, mirroring ``torch.optim.ASGD`` (``lambd``, ``alpha``, ``t0``). State:
    ``step``, ``eta``, ``mu`` (0-d float32 tensors) and ``ax`` (the running average).
    ``foreach``, ``capturable`` and ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            keys = self._init_state(params, [("step", 0.0), ("eta", _to_scalar(group["lr"])),
                                             ("mu", 1.0), ("ax", ZEROS)])
            self._apply_update(
                F.asgd_update, params, keys,
                dict(lr=group["lr"], lambd=group["lambd"], alpha=group["alpha"],
                     t0=group["t0"], weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0)
        return loss
