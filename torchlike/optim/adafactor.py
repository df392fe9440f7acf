"""``Adafactor``: mirrors ``torch.optim.Adafactor``."""

from __future__ import annotations

from typing import Any, Callable

from .._core.dtype_info import finfo
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from . import _functional as F
from .optimizer import Optimizer, ParamsT, _scalar, _to_scalar

__all__ = ["Adafactor"]

_STATE_KEYS = ("step", "row_var", "col_var", "variance")


class Adafactor(Optimizer):
    """Adafactor, mirroring ``torch.optim.Adafactor`` and its update rule: the relative step
    ``rho_t = min(lr, 1 / sqrt(t))`` scaled by ``max(eps2, rms(param))``, the second-moment
    decay ``1 - t ** beta2_decay``, factored row/column second moments for parameters of two
    or more dimensions (over the last two), update clipping by ``d``, decoupled
    ``weight_decay`` (scaled by ``lr``) and ``maximize``. ``eps=(eps1, eps2)``; ``eps1=None``
    means the machine epsilon of the group's first stepped parameter, as in PyTorch.

    Per-parameter state, in PyTorch's order: ``step`` (a 0-d float32 tensor), then
    ``row_var`` and ``col_var`` (the gradient's shape with the last, respectively the
    second-to-last, dimension 1) for a parameter of two or more dimensions, or ``variance``
    (the parameter's shape) otherwise.

    Raises, as PyTorch: ``ValueError`` for a negative ``lr``, positive ``beta2_decay``,
    negative ``eps1``/``eps2`` or ``weight_decay``, ``d < 1`` or a tensor ``lr`` of more than
    one element; ``RuntimeError`` in ``step`` for complex parameters and sparse gradients.
    ``foreach`` is accepted and selects nothing: both of PyTorch's implementations compute
    the same rule, and here the whole group is one XLA program either way.

    Example::

        >>> import torchlike as torch
        >>> model = torch.nn.Linear(3, 2)
        >>> opt = torch.optim.Adafactor(model.parameters(), lr=1e-2)
        >>> model(torch.ones(1, 3)).sum().backward()
        >>> opt.step()
        >>> sorted(opt.state[model.weight])
        ['col_var', 'row_var', 'step']
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = _scalar(float(p_state["step"]))

    def _init_group(self, group: dict[str, Any]) -> list[Tensor]:
        """The group's parameters with a gradient, their state created on first use."""
        params = []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if getattr(p.grad, "is_sparse", False):
                raise RuntimeError("Adafactor does not support sparse gradients")
            params.append(p)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar(0.0)
                g = p.grad
                with no_grad():
                    if g.dim() > 1:
                        state["row_var"] = g.new_zeros(list(g.shape[:-1]) + [1])
                        state["col_var"] = g.new_zeros(list(g.shape[:-2]) + [1, g.shape[-1]])
                    else:
                        state["variance"] = g.new_zeros(list(g.shape))
        return params

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._init_group(group)
            if not params:
                continue
            eps1, eps2 = group["eps"]
            if eps1 is None:
                eps1 = finfo(params[0].dtype).eps
            self._apply_update(
                F.adafactor_update, params, _STATE_KEYS,
                dict(lr=group["lr"], beta2_decay=group["beta2_decay"], eps1=eps1, eps2=eps2,
                     d=group["d"], weight_decay=group["weight_decay"]),
                maximize=bool(group["maximize"]),
                has_wd=_to_scalar(group["weight_decay"]) != 0)
        return loss
