"""Gathering and scattering along a dimension: ``gather``, ``scatter`` (with
``src``, ``value`` or ``reduce``), ``scatter_add`` and ``scatter_reduce``. Each is
declared once; see spec.py. Their range checks follow Note [Indices are checked eagerly]
in shape_common.py; ``_set_flat`` and ``_reduce_into`` also serve the ``index_*`` and
``put`` writers in index_ops.py.

# Note [Deterministic scatter]
# PyTorch's CPU scatter writes index elements in row-major order, so among duplicate
# targets the last one wins (the seed's ``scatter_`` example relies on it). XLA leaves
# the winner unspecified. ``_set_flat`` picks the last writer explicitly and keeps
# PyTorch's gradient (``grad_src = grad.gather(index)`` for every element, winners
# and losers alike) with a custom VJP.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.storage import contiguous_strides
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .samples import S, arr
from .shape_common import _check_range, _size1
from .spec import OpSpec, register
from .views import normalize_args

__all__: list = []


def _nd(t: Tensor) -> int:
    return max(t.dim(), 1)


# ---------------------------------------------------------------------------
# gather
def _check_index_dims(name, input, index, d, src=None):
    if _nd(index) != _nd(input) and index.numel() > 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    if index.dim() == 0 or index.numel() == 0:
        return
    for j in range(index.dim()):
        if name == "gather":
            if j != d and index._shape[j] > _size1(input, j):
                raise RuntimeError(f"Size does not match at dimension {j} expected index "
                                   f"{shape_str(index._shape)} to be no larger than self "
                                   f"{shape_str(input._shape)} apart from dimension {d}")
        else:
            too_big = (j != d and index._shape[j] > _size1(input, j)) or (
                src is not None and index._shape[j] > _size1(src, j))
            if too_big:
                msg = (f"Expected index {shape_str(index._shape)} to be no larger than self "
                       f"{shape_str(input._shape)} apart from dimension {d}")
                if src is not None:
                    msg += f" and to be no larger size than src {shape_str(src._shape)}"
                raise RuntimeError(msg)


def _gather_check(input, dim, index, sparse_grad=False):
    d = wrap_dim(dim, input.dim())
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    _check_index_dims("gather", input, index, d)
    _check_range(index, _size1(input, d), d)


def _gather_fn(input, dim, index, sparse_grad=False):
    if input.ndim == 0:
        return jnp.reshape(input, (1,))[jnp.reshape(index, (-1,))].reshape(index.shape)
    d = dim % input.ndim
    if index.ndim == 0:
        index = jnp.reshape(index, (1,) * input.ndim)
    crop = tuple(slice(None) if j == d else slice(0, index.shape[j])
                 for j in range(input.ndim))
    return jnp.take_along_axis(input[crop], index, axis=d)


def _gather_samples():
    seed_a = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3)
    seed_i = np.array([[1, 1, 1, 1, 1], [2, 0, 1, 2, 0], [1, 2, 0, 0, 2]])
    return [S(seed_a, 1, seed_i), S(seed_a, dim=1, index=seed_i, method=True),
            S(np.array([[1, 2], [3, 4]]), 1, np.array([[0, 0], [1, 0]]), grad=False),
            S(arr(3, 4), 0, np.array([[0, 2, 1], [2, 2, 0]])),
            S(arr(2, 3, 4, dtype="float64"), -1, np.array([[[3], [0], [1]]])),
            S(arr(), 0, np.array(0)), S(arr(3, 4), 1, np.zeros((0, 2), np.int64)),
            S(arr(2, 3), 1, np.array([[5, 0], [1, 1]])),
            S(arr(2, 3), 1, np.array([[-1, 0]])),
            S(arr(2, 3), 1, np.array([[0, 1]], np.int32)),
            S(arr(2, 3), 1, np.zeros((3, 3), np.int64)), S(arr(2, 3), 1, np.array([0, 1]))]


register(OpSpec(
    "gather", _gather_fn, "input, dim, index, *, sparse_grad=False",
    tensor_args=("input", "index"), promote_args=("input",), check=_gather_check,
    doc="Mirrors ``torch.gather``. Out-of-range indices raise eagerly (JAX would clamp).",
    samples=_gather_samples))


# ---------------------------------------------------------------------------
# scatter family
def _targets(shape, dim, index):
    """Flat (row-major) positions in an array of ``shape`` written by each element of
    ``index`` when scattering along ``dim``."""
    strides = contiguous_strides(shape)
    pos = index.astype(jnp.int64) * strides[dim]
    for j in range(index.ndim):
        if j != dim:
            ar = jnp.arange(index.shape[j], dtype=jnp.int64) * strides[j]
            pos = pos + ar.reshape((-1,) + (1,) * (index.ndim - j - 1))
    return jnp.reshape(pos, (-1,))


@jax.custom_vjp
def _set_flat(base, targets, values):
    """``base.at[targets].set(values)`` where the last of duplicate targets wins."""
    n = targets.shape[0]
    if n == 0:
        return base
    order = jnp.arange(1, n + 1, dtype=jnp.int64)
    last = jnp.zeros(base.shape[:1], jnp.int64).at[targets].max(order)
    winner = last[targets] == order
    t = jnp.where(winner, targets, base.shape[0])
    return base.at[t].set(values, mode="drop")


def _set_flat_fwd(base, targets, values):
    return _set_flat(base, targets, values), targets


def _set_flat_bwd(targets, g):
    return g.at[targets].set(0), None, g[targets]


_set_flat.defvjp(_set_flat_fwd, _set_flat_bwd)


def _seg_mul(a, b):
    fa, va = a
    fb, vb = b
    fbb = fb.reshape(fb.shape + (1,) * (vb.ndim - fb.ndim))
    return fa | fb, jnp.where(fbb, vb, va * vb)


def _extreme(dtype, largest: bool):
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.inf if largest else -jnp.inf
    if dtype == jnp.bool_:
        return largest
    info = jnp.iinfo(dtype)
    return info.max if largest else info.min


def _reduce_into(base, t, v, reduce, include_self=True):
    """Reduce rows ``v[n]`` into ``base[t[n]]`` (first axis) with PyTorch's
    ``scatter_reduce``/``index_reduce`` semantics."""
    n = t.shape[0]
    size = base.shape[0]
    if n == 0:
        return base
    hit = jnp.zeros((size,), bool).at[t].set(True)
    hitb = hit.reshape((size,) + (1,) * (base.ndim - 1))
    if reduce == "sum":
        start = base if include_self else base.at[t].set(0)
        return start.at[t].add(v)
    if reduce == "prod":
        # Segmented products (scatter_mul has no gradient for repeated indices in JAX).
        order = jnp.argsort(t, stable=True)
        ts, vs = t[order], v[order]
        brk = ts[1:] != ts[:-1]
        first = jnp.concatenate([jnp.ones((1,), bool), brk])
        last = jnp.concatenate([brk, jnp.ones((1,), bool)])
        _, cp = jax.lax.associative_scan(_seg_mul, (first, vs))
        prod = jnp.ones_like(base).at[jnp.where(last, ts, size)].set(cp, mode="drop")
        return base * prod if include_self else jnp.where(hitb, prod, base)
    if reduce in ("amax", "amin"):
        start = base if include_self else base.at[t].set(
            _extreme(base.dtype, reduce == "amin"))
        return start.at[t].max(v) if reduce == "amax" else start.at[t].min(v)
    if reduce == "mean":
        total = (base if include_self else base.at[t].set(0)).at[t].add(v)
        ones = jnp.ones((size,), jnp.int64)
        cnt = (ones if include_self else ones.at[t].set(0)).at[t].add(1)
        cnt = jnp.maximum(cnt, 1).reshape(hitb.shape)
        if jnp.issubdtype(base.dtype, jnp.floating) or jnp.issubdtype(base.dtype,
                                                                     jnp.complexfloating):
            return total / cnt.astype(base.dtype)
        return jnp.floor_divide(total, cnt).astype(base.dtype)
    raise ValueError(reduce)


def _flat_scatter_args(input, dim, index, src):
    """Input as a flat vector, flat targets and flat values for a scatter along dim."""
    if input.ndim == 0:
        input = jnp.reshape(input, (1,))
        dim = 0
    d = dim % input.ndim
    if index.ndim == 0:
        index = jnp.reshape(index, (1,) * input.ndim)
    t = _targets(input.shape, d, index)
    if jnp.ndim(src) == 0:
        vals = jnp.broadcast_to(jnp.asarray(src, input.dtype), index.shape)
    else:
        if src.ndim == 0:
            src = jnp.reshape(src, (1,) * input.ndim)
        vals = src[tuple(slice(0, s) for s in index.shape)]
    return jnp.reshape(input, (-1,)), t, jnp.reshape(vals, (-1,))


@jax.custom_vjp
def _no_derivative(x):
    return x


def _no_derivative_fwd(x):
    return x, None


def _no_derivative_bwd(_, g):
    raise RuntimeError("derivative for aten::scatter is not implemented")


_no_derivative.defvjp(_no_derivative_fwd, _no_derivative_bwd)


def _scatter_fn(input, dim, index, src=None, value=None, reduce=None):
    v = src if src is not None else value
    flat, t, vals = _flat_scatter_args(input, dim, index, v)
    if reduce is None:
        out = _set_flat(flat, t, vals)
    else:
        flat, vals = _no_derivative(flat), _no_derivative(vals)
        out = flat.at[t].add(vals) if reduce == "add" else flat.at[t].multiply(vals)
    return jnp.reshape(out, input.shape)


def _scatter_common_check(name, input, dim, index, src):
    d = wrap_dim(dim, input.dim())
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_index_dims(name, input, index, d, src if isinstance(src, Tensor) else None)
    _check_range(index, _size1(input, d), d)


def _scatter_check(input, dim, index, src=None, value=None, reduce=None):
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError("scatter(): value must be a Python scalar or a 0-dim tensor")
    _scatter_common_check("scatter", input, dim, index, src)


def _scatter_src(vals):
    # ``scatter(dim, index, 1.5)``: a number in the ``src`` position is the value.
    src = vals[3]
    return None if not isinstance(src, Tensor) and src is not None else src


def _scatter_value(vals):
    src, value = vals[3], vals[4]
    if src is not None and not isinstance(src, Tensor):
        return src
    return value


def _scatter_samples():
    seed_src = np.arange(1.0, 16.0, dtype=np.float32).reshape(3, 5)
    seed_i = np.array([[1, 1, 1, 1], [2, 0, 1, 2], [2, 0, 1, 2]])
    src = np.arange(1, 11).reshape(2, 5)
    return [
        S(np.zeros((3, 3), np.float32), 1, seed_i, seed_src, grad=False),
        S(np.zeros((3, 3), np.float32), dim=1, index=seed_i, src=seed_src, grad=False),
        S(arr(3, 3), 1, seed_i, arr(3, 4)), S(arr(3, 4), 0, np.array([[2, 0, 1, 1]]), arr(1, 4)),
        S(np.zeros((3, 5), np.float32), 0, np.array([[0, 1]]), 2.0, grad=False),
        S(np.zeros((3, 5), np.float32), 0, np.array([[0, 1]]), value=2),
        S(np.zeros((3, 5), np.int64), 0, np.array([[0, 1, 2, 0]]), src),
        S(np.zeros((3, 5), np.int64), 1, np.array([[0, 1, 2], [0, 1, 4]]), src),
        S(np.full((2, 4), 2.0, np.float32), 1, np.array([[2], [3]]), 1.23, reduce="multiply",
          grad=False),
        S(np.full((2, 4), 2.0, np.float32), 1, np.array([[2], [3]]), 1.23, reduce="add",
          grad=False),
        S(arr(3, 4, dtype="float64"), -1, np.array([[3, 0], [1, 1], [2, 0]]),
          arr(3, 2, dtype="float64"), reduce="add", grad=False),
        S(arr(), 0, np.array(0), arr()), S(arr(2, 3), 1, np.zeros((2, 0), np.int64),
                                          arr(2, 2), grad=False),
        S(arr(2, 3), 1, np.array([[0, 0]], np.int32), 1.5),
        S(arr(2, 3), 1, np.array([[5, 0], [1, 1]]), arr(2, 2)),
        S(arr(2, 3), 1, np.array([[0, 0]]), arr(1, 2, dtype="float64")),
        S(arr(2, 3), 1, np.zeros((2, 4), np.int64), arr(2, 2)),
        S(arr(2, 3), 1, np.array([[0, 0]]), arr(1, 2), reduce="max")]


register(OpSpec(
    "scatter", _scatter_fn, "input, dim, index, src=None, value=None, *, reduce=None",
    tensor_args=("input", "index", "src", "value"), promote="self",
    promote_args=("input", "src", "value"), inplace=True, check=_scatter_check,
    grad_name=lambda i, d, x, s=None, v=None, r=None:
        "ScatterBackward0" if s is not None else "ScatterBackward1",
    doc="Mirrors ``torch.scatter``/``Tensor.scatter_`` (``src`` tensor or scalar "
        "``value``; ``reduce='add'|'multiply'``). Among duplicate indices the last "
        "write wins, as on PyTorch's CPU.",
    samples=_scatter_samples))
normalize_args("scatter", src=_scatter_src, value=_scatter_value)


def _scatter_add_check(input, dim, index, src):
    _scatter_common_check("scatter_add", input, dim, index, src)


def _scatter_add_fn(input, dim, index, src):
    flat, t, vals = _flat_scatter_args(input, dim, index, src)
    return jnp.reshape(flat.at[t].add(vals), input.shape)


register(OpSpec(
    "scatter_add", _scatter_add_fn, "input, dim, index, src",
    tensor_args=("input", "index", "src"), promote="self", promote_args=("input", "src"),
    inplace=True, check=_scatter_add_check,
    samples=lambda: [
        S(arr(3, 5), 0, np.array([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]), arr(2, 5)),
        S(arr(2, 3, dtype="float64"), -1, np.array([[0, 0, 2], [1, 1, 1]]),
          arr(2, 4, dtype="float64"), grad=False),
        S(arr(2, 3, dtype="float64"), -1, np.array([[0, 0, 2], [1, 1, 1]]),
          arr(2, 3, dtype="float64")),
        S(np.zeros(4, np.int64), 0, np.array([0, 0, 3]), np.array([1, 2, 3]), grad=False),
        S(arr(2, 3), 1, np.array([[3]]), arr(1, 1))]))

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # accepted by PyTorch too


def _scatter_reduce_check(input, dim, index, src, reduce, include_self=True):
    if _REDUCE_ALIASES.get(reduce, reduce) not in _SCATTER_REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    _scatter_common_check("scatter_reduce", input, dim, index, src)


def _scatter_reduce_fn(input, dim, index, src, reduce, include_self=True):
    flat, t, vals = _flat_scatter_args(input, dim, index, src)
    reduce = _REDUCE_ALIASES.get(reduce, reduce)
    return jnp.reshape(_reduce_into(flat, t, vals, reduce, include_self), input.shape)


def _scatter_reduce_samples():
    i2 = np.array([[0, 0, 2], [1, 2, 2]])
    out = []
    for r in _SCATTER_REDUCES:
        out.append(S(arr(2, 3, positive=True), 1, i2, arr(2, 3, positive=True), r))
        out.append(S(arr(2, 3, positive=True), 1, i2, arr(2, 3, positive=True), r,
                     include_self=False))
    x = np.array([[1, 2, 3], [4, 5, 6]])
    out += [S(x, 1, i2[:, :2], np.array([[7, 8], [9, 10]]), "mean", grad=False),
            S(x, 1, i2[:, :2], np.array([[7, 8], [9, 10]]), "mean", include_self=False,
              grad=False),
            S(np.array([-7, 7]), 0, np.array([0, 1]), np.array([0, 0]), "mean", grad=False),
            S(x, 0, np.array([[1, 0, 1]]), np.array([[3, 0, 9]]), "amin", include_self=False,
              grad=False),
            S(arr(3, 4, dtype="float64"), 0, np.array([[0, 1, 2, 0], [0, 0, 0, 0]]),
              arr(2, 4, dtype="float64"), "prod"),
            S(arr(2, 3), 1, i2, arr(2, 3), "max", grad=False)]
    return out


register(OpSpec(
    "scatter_reduce", _scatter_reduce_fn, "input, dim, index, src, reduce, *, include_self=True",
    tensor_args=("input", "index", "src"), promote="self", promote_args=("input", "src"),
    inplace=True, check=_scatter_reduce_check, samples=_scatter_reduce_samples))
