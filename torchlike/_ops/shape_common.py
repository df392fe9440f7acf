"""Checks shared by the ops that take index tensors (``scatter.py``, ``index_ops.py``,
``shape.py``): index ranges read on the host, and sizes of 0-d tensors seen as 1-d. They
declare no ops.

# Note [Indices are checked eagerly]
# JAX clamps or drops out-of-range gather/scatter indices silently; PyTorch raises.
# Every op taking an index tensor checks its range on the host in ``check`` (before
# compute) and raises PyTorch's error. Under tracing the values are unknown and the
# check is skipped, as for ``__getitem__``.
"""

from __future__ import annotations

import jax
import numpy as np

from .._core.tensor import Tensor, _host

__all__: list = []


# ---------------------------------------------------------------------------
# shared checks
def _host_values(t: Tensor):
    """The values of ``t`` on the host, or None while tracing (see Note [Indices are
    checked eagerly])."""
    if isinstance(t._value, jax.core.Tracer):
        return None
    return _host(t._value)


def _first_out_of_range(index: Tensor, size: int, allow_negative: bool = False):
    h = _host_values(index)
    if h is None or h.size == 0:
        return None
    lo = -size if allow_negative else 0
    bad = (h < lo) | (h >= size)
    if bad.any():
        return int(h.reshape(-1)[np.argmax(bad.reshape(-1))])
    return None


def _check_range(index: Tensor, size: int, dim: int, exc=RuntimeError, prefix: str = ""):
    bad = _first_out_of_range(index, size)
    if bad is not None:
        raise exc(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}")


def _size1(t: Tensor, d: int) -> int:
    return t._shape[d] if t.dim() else 1
