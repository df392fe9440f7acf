"""``RMSprop``: mirrors ``torch.optim.RMSprop``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, ZEROS, _to_scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, mirroring ``torch.optim.RMSprop``: ``alpha`` smoothing, ``eps`` added after
    the square root, ``centered`` (divide by the estimated standard deviation) and
    ``momentum``. State: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0),
    ``grad_avg`` (centered). ``foreach``, ``capturable`` and ``differentiable`` have no
    effect."""

    def __init__(self, params: ParamsT, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            momentum = _to_scalar(group["momentum"])
            centered = bool(group["centered"])
            keys = self._init_state(params, [("step", 0.0), ("square_avg", ZEROS)]
                                    + ([("momentum_buffer", ZEROS)] if momentum > 0 else [])
                                    + ([("grad_avg", ZEROS)] if centered else []))
            self._apply_update(
                F.rmsprop_update, params, keys,
                dict(lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                     weight_decay=group["weight_decay"], momentum=momentum),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0, centered=centered,
                has_momentum=momentum > 0)
        return loss
