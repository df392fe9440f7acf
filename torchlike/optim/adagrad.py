"""``Adagrad``: mirrors ``torch.optim.Adagrad``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, _full_like, _scalar, _to_scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, mirroring ``torch.optim.Adagrad``: ``lr_decay``,
    ``initial_accumulator_value``, ``eps`` added after the square root. As in PyTorch the
    state (``step``, ``sum``) of every parameter is created in the constructor.
    ``foreach``, ``fused`` and ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar(0.0)
                state["sum"] = _full_like(p, initial_accumulator_value)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            self._apply_update(
                F.adagrad_update, params, ["step", "sum"],
                dict(lr=group["lr"], lr_decay=group["lr_decay"], eps=group["eps"],
                     weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0)
        return loss
