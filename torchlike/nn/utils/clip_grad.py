"""``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``, ``clip_grads_with_norm_``,
mirroring ``torch.nn.utils``."""

from __future__ import annotations

import math
from typing import Iterable

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _params(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


@no_grad()
def get_total_norm(tensors: Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Mirrors ``torch.nn.utils.get_total_norm``: the norm of the per-tensor norms."""
    import torchlike
    tensors = [t for t in _params(tensors) if t is not None]
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torchlike.tensor(0.0)
    if norm_type == math.inf:
        norms = [t.detach().abs().max() for t in tensors]
        total = norms[0] if len(norms) == 1 else torchlike.stack(norms).max()
    else:
        norms = [torchlike.linalg.vector_norm(t.detach(), norm_type) for t in tensors]
        total = torchlike.linalg.vector_norm(torchlike.stack(norms), norm_type)
    if error_if_nonfinite and bool(torchlike.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


@no_grad()
def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor,
                          foreach=None) -> None:
    """Mirrors ``torch.nn.utils.clip_grads_with_norm_``."""
    import torchlike
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return
    clip_coef = float(max_norm) / (total_norm + 1e-6)
    clip_coef_clamped = torchlike.clamp(clip_coef, max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Mirrors ``torch.nn.utils.clip_grad_norm_``: scales gradients in place so their total
    norm is at most ``max_norm``; returns the total norm before clipping."""
    params = _params(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None) -> Tensor:
    """The deprecated spelling of ``clip_grad_norm_``."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Mirrors ``torch.nn.utils.clip_grad_value_``: clamps every gradient in place."""
    clip_value = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
