"""``SGD``: mirrors ``torch.optim.SGD``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, _check_fused, _to_scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov momentum,
    L2 weight decay and ``maximize``; mirrors ``torch.optim.SGD`` and its update rule
    (``momentum_buffer`` starts as a copy of the first decayed gradient).

    ``foreach``, ``fused`` and ``differentiable`` are accepted for compatibility and have no
    effect: every step runs one compiled update per parameter group.

    >>> import torchlike as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000, 0.8000], requires_grad=True)
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _check_fused(fused, differentiable, foreach)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            momentum = _to_scalar(group["momentum"])
            keys = ["momentum_buffer"] if momentum != 0 else []
            self._apply_update(
                F.sgd_update, params, keys,
                dict(lr=group["lr"], momentum=momentum, dampening=group["dampening"],
                     weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]), nesterov=bool(group["nesterov"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0, has_momentum=momentum != 0,
                has_dampening=_to_scalar(group["dampening"]) != 0)
        return loss
