"""Helpers shared by the nn kernel families (``nn_activation.py``, ``nn_loss.py``,
``nn_conv.py``, ``nn_pool.py``...): PyTorch's ``_ntuple``, dtype names in its error
messages, its float-only checks, and host reads of values. They declare no ops."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor

__all__ = ["host", "is_traced", "refuse_grad"]


def _nt(v, n: int) -> tuple:
    """PyTorch's ``_ntuple``: an int or a 1-element list is repeated ``n`` times."""
    if isinstance(v, (tuple, list)):
        v = tuple(v)
        return v * n if len(v) == 1 else v
    return (v,) * n


def _title(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


def is_traced(t) -> bool:
    """Whether ``t``'s value is being traced (host-side value checks must be skipped)."""
    return isinstance(t, Tensor) and isinstance(t._value, jax.core.Tracer)


def host(t) -> np.ndarray:
    return np.asarray(t._value)


def _float_only(kernel: str, args: tuple = (0,)):
    """PyTorch's ``"<kernel>" not implemented for 'Long'`` on non-floating inputs."""
    def chk(*vals):
        for i in args:
            v = vals[i]
            if isinstance(v, Tensor) and not (v.dtype.is_floating_point or v.dtype.is_complex):
                raise NotImplementedError(f'"{kernel}" not implemented for '
                                          f"'{_title(v.dtype)}'")
    return chk


def _float_promoted(kernel: str, out_is_input: bool = False):
    """PyTorch's ``"<kernel>" not implemented for 'Long'`` when the promoted dtype of the
    two tensor arguments is not floating (a float input with an integer target promotes
    and runs). ``out_is_input``: the kernel writes into the input's dtype, so an integer
    input with a floating target cannot take the result (huber_loss)."""
    def chk(input, target, *rest):
        if not (isinstance(input, Tensor) and isinstance(target, Tensor)):
            return
        d = _dt.promote_types(input.dtype, target.dtype)
        if not (d.is_floating_point or d.is_complex):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_title(d)}\'')
        if out_is_input and not (input.dtype.is_floating_point or input.dtype.is_complex):
            raise RuntimeError(f"result type {_title(d)} can't be cast to the desired output "
                               f"type {_title(input.dtype)}")
    return chk


def _zero(x):
    return jnp.zeros((), x.dtype)


def _c(v, x):
    """A Python scalar as a 0-d array of ``x``'s dtype (keeps float32 math in float32)."""
    return jnp.asarray(v, x.dtype)


def refuse_grad(kernel: str, **args) -> None:
    """PyTorch's error for a tensor that requires grad where its derivative formula
    marks the argument non-differentiable (only while grad mode is on, as there)."""
    if not _grad_state.enabled:
        return
    for name, v in args.items():
        if isinstance(v, Tensor) and v.requires_grad:
            raise RuntimeError(f"The function '{kernel}' is not differentiable with respect to "
                               f"argument '{name}'. This input cannot have requires_grad True.")
