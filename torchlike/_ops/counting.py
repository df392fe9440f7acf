"""Counting ops and ops whose output size depends on the values: histc, bincount,
unique, unique_consecutive, nonzero and argwhere. Each is declared once; see spec.py.

# Note [Data-dependent output shapes]
# unique, unique_consecutive, nonzero, argwhere and bincount have output sizes that depend
# on the values. Their binders read the input on the host first (an eager step) and pass
# the size on as a static parameter, so the pure function stays jit-compatible. Under
# tracing the value is unknown and ``concretization_error`` is raised.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .._core.traced import concretization_error
from .reduction_common import _is_int_like, _overloaded, _short
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


def _host(t: Tensor) -> np.ndarray:
    """The value of ``t`` on the host; raises under tracing (see Note [Data-dependent
    output shapes])."""
    v = t._value
    if isinstance(v, jax.core.Tracer):
        raise concretization_error()
    return np.asarray(v)


# ---------------------------------------------------------------------------
# histc, bincount
def _histc_fn(input, bins=100, min=0, max=0):
    x = input.reshape(-1)
    dt = x.dtype
    if min == max:
        if x.size:
            lo, hi = jnp.min(x), jnp.max(x)
        else:
            lo, hi = jnp.asarray(min, dt), jnp.asarray(max, dt)
        same = lo == hi
        lo = jnp.where(same, lo - 1, lo)
        hi = jnp.where(same, hi + 1, hi)
    else:
        lo, hi = jnp.asarray(min, dt), jnp.asarray(max, dt)
    valid = (x >= lo) & (x <= hi)
    pos = ((x - lo) * jnp.asarray(bins, dt) / (hi - lo)).astype(jnp.int64)
    pos = jnp.clip(jnp.where(pos == bins, bins - 1, pos), 0, bins - 1)
    return jnp.zeros(bins, dt).at[pos].add(valid.astype(dt))


def _histc_check(input, bins=100, min=0, max=0):
    if _is_int_like(input.dtype):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{_short(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                           "dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")


register(OpSpec(
    "histc", _histc_fn, "input, bins=100, min=0, max=0", promote="none", check=_histc_check,
    differentiable=False, doc="Mirrors ``torch.histc``: equal-width bins, elements outside "
                              "[min, max] ignored; min == max uses the data's range.",
    samples=lambda: [S(arr(50)), S(arr(3, 4), 4), S(arr(20), 5, -1.0, 1.0),
                     S(np.array([1.0, 2.0, 1.0], np.float32), 4, 0, 3),
                     S(np.array([2.0, 2.0], np.float32), 3), S(arr(0), 3),
                     S(arr(10, dtype="float64"), 7), S(arr(3, dtype="int64"), 3),
                     S(arr(3), 0), S(arr(3), 3, 3, 1)]))


def _bincount_fn(input, weights=None, minlength=0, length=0):
    if weights is None:
        return jnp.bincount(input, length=length).astype(jnp.int64)
    w = weights if jnp.issubdtype(weights.dtype, jnp.floating) else weights.astype(jnp.float64)
    return jnp.bincount(input, w, length=length).astype(w.dtype)


def _bincount_binder(input, weights=None, minlength=0):
    length = minlength
    if isinstance(input, Tensor) and input.numel():
        if not input.dtype.is_floating_point and input.dtype is not _dt.bool:
            length = max(minlength, int(_host(input).max()) + 1)
    return (input, weights, minlength, length)


def _bincount_check(input, weights=None, minlength=0, length=0):
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is _dt.bool:
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{_short(input.dtype)}'")
    if input.dim() != 1 or (input.numel() and int(_host(input).min()) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")


_overloaded(OpSpec(
    "bincount", _bincount_fn, "input, weights=None, minlength=0, length=0",
    tensor_args=("input", "weights"), promote="none", check=_bincount_check,
    differentiable=False,
    doc="Mirrors ``torch.bincount`` (eager only: the length depends on the values).",
    samples=lambda: [S(np.array([1, 2, 2, 5], np.int64)), S(np.array([0, 0, 3], np.int64),
                                                            minlength=6),
                     S(np.array([1, 2, 2], np.int64), np.array([0.5, 1.0, 2.0], np.float32)),
                     S(np.array([1, 2, 2], np.int64), np.array([1, 2, 3], np.int64)),
                     S(np.array([1, 2, 2], np.int32), np.array([1., 2, 3], np.float64)),
                     S(np.array([], np.int64)), S(np.array([], np.int64), minlength=3),
                     S(np.array([-1, 2], np.int64)), S(np.array([1.0, 2.0], np.float32)),
                     S(np.array([[1, 2]], np.int64)),
                     S(np.array([1, 2], np.int64), np.array([1.0], np.float32)),
                     S(np.array([1, 2], np.int64), minlength=-1),
                     S(np.array([3, 1], np.uint8), grad=False)]), _bincount_binder)


# ---------------------------------------------------------------------------
# unique, unique_consecutive, nonzero, argwhere (see Note [Data-dependent output shapes])
def _unique_binder(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    size = 0
    if isinstance(input, Tensor):
        h = _host(input)
        if dim is None:
            size = int(np.unique(h.reshape(-1), equal_nan=False).size)
        else:
            d = wrap_dim(dim, h.ndim)
            if h.ndim and h.shape[d]:
                size = int(np.unique(np.moveaxis(h, d, 0).reshape(h.shape[d], -1),
                                     axis=0, equal_nan=False).shape[0])
    return (input, sorted, return_inverse, return_counts, dim, size)


def _unique_fn(input, sorted=True, return_inverse=False, return_counts=False, dim=None,
               size=0):
    if dim is None:
        flat = input.reshape(-1)
        # NaNs are all distinct, as in PyTorch
        out, inv, cnt = jnp.unique(flat, return_inverse=True, return_counts=True, size=size,
                                   equal_nan=False)
        inv = inv.reshape(input.shape)
    else:
        d = wrap_dim(dim, input.ndim)
        x = jnp.moveaxis(input, d, 0)
        if x.shape[0] == 0:
            out = x
            inv = jnp.zeros((0,), jnp.int64)
            cnt = jnp.zeros((0,), jnp.int64)
        else:
            flat = x.reshape(x.shape[0], -1)
            u, inv, cnt = jnp.unique(flat, axis=0, return_inverse=True, return_counts=True,
                                     size=size, equal_nan=False)
            out = u.reshape((size,) + x.shape[1:])
            inv = inv.reshape(-1)
        out = jnp.moveaxis(out, 0, d)
    res = [out]
    if return_inverse:
        res.append(inv.astype(jnp.int64))
    if return_counts:
        res.append(cnt.astype(jnp.int64))
    return tuple(res) if len(res) > 1 else out


def _unique_check(input, sorted=True, return_inverse=False, return_counts=False, dim=None,
                  size=0):
    if dim is not None:
        wrap_dim(dim, input.dim())


_overloaded(OpSpec(
    "unique", _unique_fn,
    "input, sorted=True, return_inverse=False, return_counts=False, dim=None, size=0",
    promote="none", check=_unique_check, differentiable=False,
    doc="Mirrors ``torch.unique``: sorted unique values (or slices along ``dim``), plus the "
        "inverse indices and counts when asked. Eager only (the size depends on the values); "
        "the result does not require grad (PyTorch's cannot be differentiated either).",
    samples=lambda: [
        S(np.array([3, 1, 2, 3, 1], np.int64)), S(np.array([[3., 1], [1, 2]], np.float32),
                                                  grad=False),
        S(np.array([3, 1, 2, 3, 1], np.int64), return_inverse=True),
        S(np.array([3, 1, 2, 3, 1], np.int64), return_counts=True, sorted=False),
        S(np.array([[1, 2], [1, 2], [0, 3]], np.int64), True, True, True, dim=0),
        S(np.array([[1, 2, 1], [0, 3, 0]], np.int64), return_inverse=True, dim=1),
        S(np.array([[1, 2, 1], [0, 3, 0]], np.int64), dim=-1),
        S(np.array([], np.float32), return_inverse=True, return_counts=True, grad=False),
        S(np.array(2.0, np.float32), return_inverse=True, grad=False),
        S(arr(4, dtype="bool"), return_counts=True),
        S(np.array([[1, 2]], np.int64), dim=2),
        S(np.array([np.nan, 3.0, np.nan, 1.0, 3.0], np.float32), return_inverse=True,
          return_counts=True, grad=False),
        S(np.array([[np.nan, 1.0], [np.nan, 1.0]], np.float32), True, True, True, dim=0,
          grad=False)]), _unique_binder)


def _unique_consecutive_binder(input, return_inverse=False, return_counts=False, dim=None):
    size = 0
    if isinstance(input, Tensor):
        h = _host(input)
        if dim is None:
            f = h.reshape(-1)
            size = int(f.size and 1 + np.count_nonzero(f[1:] != f[:-1]))
        else:
            d = wrap_dim(dim, h.ndim)
            x = np.moveaxis(h, d, 0).reshape(h.shape[d] if h.ndim else 1, -1)
            size = int(x.shape[0] and 1 + np.count_nonzero(np.any(x[1:] != x[:-1], axis=1)))
    return (input, return_inverse, return_counts, dim, size)


def _unique_consecutive_fn(input, return_inverse=False, return_counts=False, dim=None,
                           size=0):
    if dim is None:
        x = input.reshape(-1, 1)
        d = 0
    else:
        d = wrap_dim(dim, input.ndim)
        x = jnp.moveaxis(input, d, 0)
        x = x.reshape(x.shape[0], -1)
    n = x.shape[0]
    if n == 0:
        starts = jnp.zeros((0,), jnp.int64)
        run = jnp.zeros((0,), jnp.int64)
    else:
        change = jnp.concatenate([jnp.ones((1,), bool), jnp.any(x[1:] != x[:-1], axis=1)])
        starts = jnp.nonzero(change, size=size)[0].astype(jnp.int64)
        run = jnp.cumsum(change).astype(jnp.int64) - 1
    if dim is None:
        out = input.reshape(-1)[starts]
        inv = run.reshape(input.shape)
    else:
        out = jnp.moveaxis(jnp.take(jnp.moveaxis(input, d, 0), starts, axis=0), 0, d)
        inv = run
    res = [out]
    if return_inverse:
        res.append(inv)
    if return_counts:
        res.append(jnp.diff(jnp.concatenate([starts, jnp.array([n], jnp.int64)])))
    return tuple(res) if len(res) > 1 else out


_overloaded(OpSpec(
    "unique_consecutive", _unique_consecutive_fn,
    "input, return_inverse=False, return_counts=False, dim=None, size=0", promote="none",
    check=lambda input, r=False, c=False, dim=None, size=0: _unique_check(input, dim=dim),
    differentiable=False,
    doc="Mirrors ``torch.unique_consecutive``; eager only (see ``unique``).",
    samples=lambda: [
        S(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int64)),
        S(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int64), return_inverse=True,
          return_counts=True),
        S(np.array([[1, 1, 2], [1, 1, 2], [0, 1, 2]], np.int64), True, True, dim=0),
        S(np.array([[1, 1, 2], [1, 1, 2]], np.int64), return_counts=True, dim=1),
        S(np.array([], np.int64), return_counts=True), S(np.array([[1., 1.], [2., 2.]],
                                                                  np.float32), grad=False)]),
    _unique_consecutive_binder)


def _nonzero_binder(input, *, as_tuple=False):
    size = 0
    if isinstance(input, Tensor):
        size = int(np.count_nonzero(_host(input)))
    return (input, as_tuple, size)


def _nonzero_fn(input, as_tuple=False, size=0):
    x = input.reshape(1) if input.ndim == 0 else input
    idx = [i.astype(jnp.int64) for i in jnp.nonzero(x, size=size)]
    if as_tuple:
        return tuple(idx)
    if input.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    return jnp.stack(idx, axis=1)


def _nonzero_samples():
    return [S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32)),
            S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32), as_tuple=True),
            S(arr(2, 3, 4, dtype="bool")), S(arr(5, dtype="int64"), as_tuple=True),
            S(np.array(5.0, np.float32)), S(np.array(0.0, np.float32)),
            S(np.array(5.0, np.float32), as_tuple=True),
            S(np.array(0.0, np.float32), as_tuple=True), S(arr(0, 3)),
            S(np.zeros((2, 2), np.float32), as_tuple=True)]


_overloaded(OpSpec(
    "nonzero", _nonzero_fn, "input, as_tuple=False, size=0", promote="none",
    differentiable=False, doc="Mirrors ``torch.nonzero``; eager only (the size depends on "
                              "the values).", samples=_nonzero_samples), _nonzero_binder)


def _argwhere_binder(input):
    return _nonzero_binder(input)[::2]


def _argwhere_fn(input, size=0):
    return _nonzero_fn(input, False, size)


_overloaded(OpSpec(
    "argwhere", _argwhere_fn, "input, size=0", promote="none", differentiable=False,
    doc="Mirrors ``torch.argwhere``: ``nonzero(input)``; eager only.",
    samples=lambda: [s for s in _nonzero_samples() if not s.kwargs]), _argwhere_binder)
