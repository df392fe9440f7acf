"""``Rprop``: mirrors ``torch.optim.Rprop``."""

from __future__ import annotations

from typing import Any, Callable

from . import _functional as F
from .optimizer import Optimizer, ParamsT, ZEROS, _full_like, _to_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation, mirroring ``torch.optim.Rprop`` (``etas`` =
    (etaminus, etaplus), ``step_sizes`` = (min, max)). State: ``step``, ``prev``,
    ``step_size`` (initialised to ``lr``). ``foreach``, ``capturable`` and
    ``differentiable`` have no effect."""

    def __init__(self, params: ParamsT, lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            lr = _to_scalar(group["lr"])
            self._init_state(params, [("step", 0.0), ("prev", ZEROS),
                                    ("step_size", lambda p: _full_like(p, lr))])
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            self._apply_update(
                F.rprop_update, params, ["step", "prev", "step_size"],
                dict(etaminus=etaminus, etaplus=etaplus, step_size_min=step_size_min,
                     step_size_max=step_size_max),
                maximize=bool(group["maximize"]))
        return loss
