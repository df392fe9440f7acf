"""Shape and indexing ops that make new tensors: joining (``cat``, ``stack`` and the
``*stack`` family), gathering and scattering along a dimension (``gather``,
``scatter*``, ``index_*``, ``take*``, ``put``, ``masked_*``), repetition and
rearrangement (``repeat``, ``repeat_interleave``, ``tile``, ``flip``, ``roll``,
``rot90``), triangles and diagonals (``tril``, ``triu``, ``diag*``), and the
in-place-only writers ``fill_``, ``zero_``, ``copy_``, ``fill_diagonal_``.

Composite helpers built from these and from the view ops (``broadcast_tensors``,
``meshgrid``, ``atleast_*d``, ``fliplr``/``flipud``) are plain functions at the end.

# Note [Indices are checked eagerly]
# JAX clamps or drops out-of-range gather/scatter indices silently; PyTorch raises.
# Every op taking an index tensor checks its range on the host in ``check`` (before
# compute) and raises PyTorch's error. Under tracing the values are unknown and the
# check is skipped, as for ``__getitem__``.

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
from .._core.size import Size
from .._core.storage import contiguous_strides
from .._core.tensor import Tensor, _host, wrap_dim
from ._common import check_broadcast, shape_str
from .bind import FUNCTIONS, check_inplace_target, dtype_short_name, inplace_apply
from .samples import S, arr
from .spec import OPS, OpSpec, register
from .views import (_expand_meta, _expand_shape, _narrow_check, _reshape_meta, _sizes,
                    jax_slice, normalize_args, shape_arg)

__all__ = ["broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d",
           "fliplr", "flipud", "broadcast_shapes"]


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


def _dtname(d) -> str:
    return dtype_short_name(d)


def _mask_dtname(d) -> str:
    return _dtname(d).lower()


def _nd(t: Tensor) -> int:
    return max(t.dim(), 1)


def _size1(t: Tensor, d: int) -> int:
    return t._shape[d] if t.dim() else 1


def _is_int_tensor(t) -> bool:
    return isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex
                                          or t.dtype is _dt.bool)


# ---------------------------------------------------------------------------
# cat / stack and friends
def _cat_skipped(shape) -> bool:
    # PyTorch's legacy rule: 1-D empty tensors are ignored by cat.
    return len(shape) == 1 and shape[0] == 0


def _cat_check(tensors, dim=0):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError("cat() received an invalid combination of arguments - expected a "
                        "tuple or list of Tensors")
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if not _cat_skipped(t._shape)]
    if not kept:
        wrap_dim(dim, 1)
        return
    ref = kept[0][1]
    d = wrap_dim(dim, ref.dim())
    for i, t in kept[1:]:
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref.dim()} and {t.dim()}")
        for j in range(ref.dim()):
            if j != d and t._shape[j] != ref._shape[j]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref._shape[j]} but got size "
                                   f"{t._shape[j]} for tensor number {i} in the list.")
    devs = {t.device for t in tensors}
    if len(devs) > 1:
        raise RuntimeError("Expected all tensors to be on the same device, but found at "
                           "least two devices, " + ", ".join(sorted(str(x) for x in devs)) +
                           "!")


def _cat_fn(tensors, dim=0):
    kept = [t for t in tensors if not _cat_skipped(t.shape)]
    if not kept:
        return tensors[0]
    return jnp.concatenate(kept, axis=dim % kept[0].ndim)


_SEQ = (list, tuple)


def _tensor_list(vals):
    v = vals[0]
    return list(v) if isinstance(v, _SEQ) else v


register(OpSpec(
    "cat", _cat_fn, "tensors, dim=0", tensor_args=("tensors",), method=False,
    aliases=("concat", "concatenate"), check=_cat_check, saves=False,
    doc="Mirrors ``torch.cat``: PyTorch's dtype promotion across the inputs; 1-D empty "
        "tensors are skipped (legacy rule).",
    samples=lambda: [
        S([arr(2, 3), arr(4, 3)]), S([arr(2, 3), arr(2, 1), arr(2, 2)], 1),
        S([arr(2, 3), arr(2, 3)], -1), S([arr(2, 3), arr(0)]),
        S([arr(3, dtype="int64"), arr(2)]),
        S([arr(2, dtype="int32"), arr(2, dtype="int64")], grad=False),
        S([arr(0, 3), arr(2, 3, dtype="float64")]), S([arr(0), arr(0)]),
        S([arr(2, 3), arr(2)], 1), S([arr(2, 3), arr(3, 4)], 1), S([arr(2, 3)], 2),
        S([arr(), arr()])]))
normalize_args("cat", tensors=_tensor_list)


def _stack_check(tensors, dim=0):
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != ref._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{shape_str(ref._shape)} at entry 0 and "
                               f"{shape_str(t._shape)} at entry {i}")
    wrap_dim(dim, ref.dim() + 1)


register(OpSpec(
    "stack", lambda tensors, dim=0: jnp.stack(tensors, axis=dim % (tensors[0].ndim + 1)),
    "tensors, dim=0", tensor_args=("tensors",), method=False, check=_stack_check,
    saves=False,
    samples=lambda: [S([arr(2, 3), arr(2, 3)]), S([arr(2, 3), arr(2, 3)], -1),
                     S([arr(3), arr(3, dtype="float64")], 1), S([arr(), arr()]),
                     S([arr(0, 2), arr(0, 2)], 1), S([arr(2, 3), arr(2, 4)]),
                     S([arr(3, dtype="int64"), arr(3, dtype="int64")], grad=False)]))
normalize_args("stack", tensors=_tensor_list)


def _atleast(a, n):
    if a.ndim >= n:
        return a
    if n == 1 or a.ndim == 0:
        return jnp.reshape(a, (1,) * n)
    if n == 2:
        return a[None]
    return a[None, :, None] if a.ndim == 1 else a[..., None]


def _hstack(tensors):
    ts = [_atleast(t, 1) for t in tensors]
    return _cat_fn(ts, 0 if ts[0].ndim == 1 else 1)


def _vstack(tensors):
    return _cat_fn([_atleast(t, 2) for t in tensors], 0)


def _dstack(tensors):
    return _cat_fn([_atleast(t, 3) for t in tensors], 2)


def _column_stack(tensors):
    ts = [jnp.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors]
    return _cat_fn(ts, 1)


def _meta_atleast(shape, n):
    if len(shape) >= n:
        return tuple(shape)
    if n == 1 or len(shape) == 0:
        return (1,) * n
    if n == 2:
        return (1,) + tuple(shape)
    return (1, shape[0], 1) if len(shape) == 1 else tuple(shape) + (1,)


def _stack_like_check(name, reshape, dim_of):
    def check(tensors):
        if len(tensors) == 0:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        shapes = [reshape(t._shape) for t in tensors]
        d = dim_of(shapes[0])
        for i, s in enumerate(shapes[1:], 1):
            if _cat_skipped(s) or _cat_skipped(shapes[0]):
                continue
            if len(s) != len(shapes[0]):
                raise RuntimeError(f"Tensors must have same number of dimensions: got "
                                   f"{len(shapes[0])} and {len(s)}")
            for j in range(len(s)):
                if j != d and s[j] != shapes[0][j]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension "
                                       f"{d}. Expected size {shapes[0][j]} but got size "
                                       f"{s[j]} for tensor number {i} in the list.")
    return check


def _stack_samples(extra=()):
    return lambda: [S([arr(3), arr(2)]), S([arr(2, 3), arr(2, 1)]), S([arr(), arr()]),
                    S([arr(2, 3), arr(2, 3, dtype="float64")]),
                    S([arr(2, 3, 2), arr(2, 3, 2)]),
                    S([arr(2, dtype="int64"), arr(2, dtype="int64")], grad=False),
                    *[S(*a) for a in extra]]


for _name, _fn, _reshape, _dim, _al in (
        ("hstack", _hstack, lambda s: _meta_atleast(s, 1),
         lambda s: 0 if len(s) == 1 else 1, ()),
        ("vstack", _vstack, lambda s: _meta_atleast(s, 2), lambda s: 0, ("row_stack",)),
        ("dstack", _dstack, lambda s: _meta_atleast(s, 3), lambda s: 2, ()),
        ("column_stack", _column_stack,
         lambda s: (int(np.prod(s, dtype=np.int64)), 1) if len(s) <= 1 else tuple(s),
         lambda s: 1, ())):
    register(OpSpec(
        _name, _fn, "tensors", tensor_args=("tensors",), method=False, aliases=_al,
        check=_stack_like_check(_name, _reshape, _dim), saves=False,
        grad_name="CatBackward0", samples=_stack_samples(
            [([arr(2, 3), arr(3, 3)],)] if _name == "vstack" else
            [([arr(3), arr(3, 2)],)] if _name == "column_stack" else ())))
    normalize_args(_name, tensors=_tensor_list)


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
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
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


# ---------------------------------------------------------------------------
# index_* along one dimension
def _check_vector_index(name, index, *, vector_msg=None, allow_int32=True):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): index must be a Tensor")
    ok = (_dt.int64, _dt.int32) if allow_int32 else (_dt.int64,)
    if index.dtype not in ok:
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index" if
                           allow_int32 else f"{name}(): Expected dtype int64 for index")
    if index.dim() > 1:
        raise IndexError(vector_msg or f"{name}(): Index is supposed to be a vector")


def _index_select_check(input, dim, index):
    _check_vector_index("index_select", index)
    d = wrap_dim(dim, input.dim())
    if _first_out_of_range(index, _size1(input, d)) is not None:
        raise IndexError("index out of range in self")


def _index_select_fn(input, dim, index):
    index = jnp.reshape(index, (-1,))
    if input.ndim == 0:
        return jnp.reshape(input, (1,))[index].reshape(())
    return jnp.take(input, index, axis=dim % input.ndim)


register(OpSpec(
    "index_select", _index_select_fn, "input, dim, index", tensor_args=("input", "index"),
    promote_args=("input",), check=_index_select_check,
    samples=lambda: [S(arr(3, 4), 0, np.array([0, 2])), S(arr(3, 4), 1, np.array([3, 0, 3])),
                     S(arr(2, 3, 4, dtype="float64"), -1, np.array([1])),
                     S(arr(3, 4), 0, np.array(1)), S(arr(3, 4), 0, np.zeros(0, np.int64)),
                     S(arr(5, dtype="int64"), 0, np.array([4, 0], np.int32), grad=False),
                     S(arr(3, 4), 0, np.array([5])), S(arr(3, 4), 0, np.array([[0]])),
                     S(arr(3, 4), 0, np.array([0.0], np.float32))]))


def _along(d, index):
    return (slice(None),) * d + (jnp.reshape(index, (-1,)),)


def _source_check(name, input, d, index, source, dtype_msg):
    if source.dtype is not input.dtype:
        raise RuntimeError(dtype_msg.format(self=_dtname(input.dtype),
                                            source=_dtname(source.dtype)))
    n = index.numel()
    if source.dim() and n != source._shape[d if source.dim() > d else 0]:
        raise RuntimeError(f"{name}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim) ({source._shape[d]})")
    for j in range(input.dim()):
        if j != d and source.dim() == input.dim() and source._shape[j] != input._shape[j]:
            raise RuntimeError(f"{name}(): source ({shape_str(source._shape)}) and self "
                               f"({shape_str(input._shape)}) must match in all dimensions "
                               f"except dim {d}")


def _index_add_check(input, dim, index, source, alpha=1):
    _check_vector_index("index_add", index, vector_msg="index_add_(): Index is supposed to "
                        "be a vector")
    d = wrap_dim(dim, input.dim())
    _source_check("index_add_", input, d, index, source,
                  "index_add_(): self ({self}) and source ({source}) must have the same "
                  "scalar type")
    _check_range(index, _size1(input, d), d)


def _index_add_fn(input, dim, index, source, alpha=1):
    if input.ndim == 0:
        return input + alpha * jnp.sum(jnp.reshape(source, (-1,)))
    d = dim % input.ndim
    src = source if alpha == 1 else source * alpha
    return input.at[_along(d, index)].add(src)


register(OpSpec(
    "index_add", _index_add_fn, "input, dim, index, source, *, alpha=1",
    tensor_args=("input", "index", "source"), promote="none", inplace=True,
    check=_index_add_check,
    samples=lambda: [
        S(arr(5, 3), 0, np.array([0, 4, 2, 0]), arr(4, 3)),
        S(arr(5, 3), 1, np.array([2, 0]), arr(5, 2), alpha=-1.5),
        S(arr(2, 3, 4, dtype="float64"), -1, np.array([3]), arr(2, 3, 1, dtype="float64")),
        S(np.zeros(4, np.int64), 0, np.array([1, 1], np.int32), np.array([3, 4]), alpha=2,
          grad=False),
        S(arr(2, 3), 0, np.array([0]), arr(1, 3, dtype="float64")),
        S(arr(2, 3), 0, np.array([5]), arr(1, 3))]))


def _index_copy_check(input, dim, index, source):
    _check_vector_index("index_copy_", index, allow_int32=False,
                        vector_msg="index_copy_(): Index should have dimension 1 or 0 (got "
                        f"{index.dim()})")
    d = wrap_dim(dim, input.dim())
    _source_check("index_copy_", input, d, index, source,
                  "index_copy_(): self and source expected to have the same dtype, but got "
                  "(self) {self} and (source) {source}")
    _check_range(index, _size1(input, d), d, exc=IndexError, prefix="index_copy_(): ")


def _index_copy_fn(input, dim, index, source):
    if input.ndim == 0:
        return jnp.reshape(source, ())
    d = dim % input.ndim
    x = jnp.moveaxis(input, d, 0)
    s = jnp.moveaxis(jnp.reshape(source, x.shape[:0] + (-1,) + x.shape[1:])
                     if source.ndim == 0 else source, d, 0)
    rows = x.shape[0]
    rest = x.shape[1:]
    m = int(np.prod(rest, dtype=np.int64))
    t = jnp.reshape(index, (-1,))
    out = _set_rows(jnp.reshape(x, (rows, m)), t, jnp.reshape(s, (t.shape[0], m)))
    return jnp.moveaxis(jnp.reshape(out, x.shape), 0, d)


def _set_rows(base, t, rows):
    # Row-wise _set_flat: duplicates resolved in index order (the last one wins).
    m = base.shape[1]
    if m == 0 or t.shape[0] == 0:
        return base
    tt = (t[:, None] * m + jnp.arange(m)[None, :]).reshape(-1)
    return jnp.reshape(_set_flat(jnp.reshape(base, (-1,)), tt, jnp.reshape(rows, (-1,))),
                       base.shape)


register(OpSpec(
    "index_copy", _index_copy_fn, "input, dim, index, source",
    tensor_args=("input", "index", "source"), promote="none", inplace=True,
    check=_index_copy_check,
    samples=lambda: [
        S(arr(5, 3), 0, np.array([0, 4, 2]), arr(3, 3)),
        S(arr(5, 3), -1, np.array([2, 0]), arr(5, 2)),
        S(arr(4, dtype="int64"), 0, np.array([3, 0]), np.array([7, 8]), grad=False),
        S(arr(2, 3), 0, np.array([0]), arr(1, 3, dtype="float64")),
        S(arr(2, 3), 0, np.array([5]), arr(1, 3))]))


def _index_fill_check(input, dim, index, value):
    _check_vector_index("index_fill_", index, allow_int32=False,
                        vector_msg="index_fill_(): Index is supposed to be a vector")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    d = wrap_dim(dim, input.dim())
    _check_range(index, _size1(input, d), d, exc=IndexError)


def _index_fill_fn(input, dim, index, value):
    if input.ndim == 0:
        return jnp.broadcast_to(jnp.asarray(value).astype(input.dtype), ())
    d = dim % input.ndim
    hit = jnp.zeros((input.shape[d],), bool).at[jnp.reshape(index, (-1,))].set(True)
    hit = hit.reshape((-1,) + (1,) * (input.ndim - d - 1))
    return jnp.where(hit, jnp.asarray(value).astype(input.dtype), input)


register(OpSpec(
    "index_fill", _index_fill_fn, "input, dim, index, value",
    tensor_args=("input", "index", "value"), promote="none", inplace=True,
    check=_index_fill_check,
    grad_name=lambda i, d, x, v: "IndexFillBackward1" if isinstance(v, Tensor) else
    "IndexFillBackward0",
    samples=lambda: [
        S(arr(3, 4), 1, np.array([0, 2]), -1.0), S(arr(3, 4), 0, np.array([1, 1]), arr()),
        S(arr(2, 3, 4, dtype="float64"), -1, np.array([3]), 2),
        S(arr(4, dtype="int64"), 0, np.array([3]), 9, grad=False),
        S(arr(3, 4), 0, np.array([5]), 1.0), S(arr(3, 4), 0, np.array([0]), arr(2))]))

_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def _index_reduce_check(input, dim, index, source, reduce, include_self=True):
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax "
                           f"or amin, got {reduce}.")
    _check_vector_index("index_reduce_", index)
    d = wrap_dim(dim, input.dim())
    _source_check("index_reduce_", input, d, index, source,
                  "index_reduce_(): self ({self}) and source ({source}) must have the same "
                  "scalar type")
    _check_range(index, _size1(input, d), d)


def _index_reduce_fn(input, dim, index, source, reduce, include_self=True):
    if input.ndim == 0:
        input, source = jnp.reshape(input, (1,)), jnp.reshape(source, (-1,))
        return jnp.reshape(_index_reduce_fn(input, 0, index, source, reduce, include_self),
                           ())
    d = dim % input.ndim
    x = jnp.moveaxis(input, d, 0)
    s = jnp.moveaxis(source, d, 0)
    t = jnp.reshape(index, (-1,)).astype(jnp.int64)
    out = _reduce_into(x, t, s, reduce, include_self)
    return jnp.moveaxis(out, 0, d)


register(OpSpec(
    "index_reduce", _index_reduce_fn,
    "input, dim, index, source, reduce, *, include_self=True",
    tensor_args=("input", "index", "source"), promote="none", inplace=True,
    check=_index_reduce_check,
    samples=lambda: [
        *[S(arr(4, 3, positive=True), 0, np.array([0, 3, 0, 1]), arr(4, 3, positive=True), r)
          for r in _INDEX_REDUCES],
        *[S(arr(4, 3, positive=True), 1, np.array([2, 0]), arr(4, 2, positive=True), r,
            include_self=False) for r in _INDEX_REDUCES],
        S(np.ones((2, 3), np.float32), 0, np.array([0, 0]), np.full((2, 3), 3, np.float32),
          "mean"),
        S(np.arange(6).reshape(2, 3), 0, np.array([1, 1]), np.array([[1, 2, 3], [4, 5, 6]]),
          "prod", grad=False),
        S(arr(2, 3), 0, np.array([0]), arr(1, 3), "sum")]))


# ---------------------------------------------------------------------------
# masked ops
def _check_mask(name, mask):
    if not isinstance(mask, Tensor) or mask.dtype is not _dt.bool:
        d = _mask_dtname(mask.dtype) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {d}")


def _masked_fill_check(input, mask, value):
    _check_mask("masked_fill_", mask)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    check_broadcast(input, mask)


def _masked_fill_fn(input, mask, value):
    return jnp.where(mask, jnp.asarray(value).astype(input.dtype), input)


register(OpSpec(
    "masked_fill", _masked_fill_fn, "input, mask, value",
    tensor_args=("input", "mask", "value"), promote="none", inplace=True,
    check=_masked_fill_check,
    grad_name=lambda i, m, v: "MaskedFillBackward1" if isinstance(v, Tensor) else
    "MaskedFillBackward0",
    samples=lambda: [
        S(arr(3, 4), arr(3, 4, dtype="bool"), -1.0), S(arr(3, 4), arr(4, dtype="bool"), arr()),
        S(arr(3, 4), arr(3, 1, dtype="bool"), arr(dtype="float64")),
        S(arr(2, 3), arr(4, 2, 3, dtype="bool"), 2), S(arr(), np.array(True), 5.0),
        S(arr(5, dtype="int64"), arr(5, dtype="bool"), 3.7, grad=False),
        S(arr(0, 3), arr(0, 3, dtype="bool"), 1.0), S(arr(2, 3), arr(2, 3), 1.0),
        S(arr(2, 3), arr(2, 3, dtype="bool"), arr(2))]))


def _masked_scatter_check(input, mask, source):
    _check_mask("masked_scatter_", mask)
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes "
                           f"but got{_dtname(input.dtype)} and {_dtname(source.dtype)}")
    check_broadcast(input, mask)
    shape = np.broadcast_shapes(input._shape, mask._shape)
    h = _host_values(mask)
    if h is not None:
        n = int(np.broadcast_to(h, shape).sum())
        if n > source.numel():
            raise RuntimeError("Number of elements of source < number of ones in mask")


def _masked_scatter_fn(input, mask, source):
    shape = jnp.broadcast_shapes(input.shape, mask.shape)
    x = jnp.broadcast_to(input, shape).reshape(-1)
    m = jnp.broadcast_to(mask, shape).reshape(-1)
    src = jnp.reshape(source, (-1,))
    if src.shape[0] == 0:
        return jnp.reshape(x, shape)
    pos = jnp.clip(jnp.cumsum(m.astype(jnp.int64)) - 1, 0, src.shape[0] - 1)
    return jnp.reshape(jnp.where(m, src[pos], x), shape)


register(OpSpec(
    "masked_scatter", _masked_scatter_fn, "input, mask, source",
    tensor_args=("input", "mask", "source"), promote="none", inplace=True,
    check=_masked_scatter_check,
    samples=lambda: [
        S(arr(3, 4), arr(3, 4, dtype="bool"), arr(12)), S(arr(3, 4), arr(4, dtype="bool"),
                                                         arr(4, 5)),
        S(arr(4, dtype="int64"), np.array([True, False, True, False]),
          np.array([9, 8, 7]), grad=False),
        S(arr(2, 3), np.ones((2, 3), bool), arr(2)),
        S(arr(2, 3), np.ones((2, 3), bool), arr(6, dtype="float64")),
        S(arr(2, 3), np.ones((2, 3), np.float32), arr(6))]))


def _masked_select_check(input, mask, _count=None):
    if not isinstance(mask, Tensor) or mask.dtype is not _dt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    check_broadcast(input, mask)


def _masked_select_count(vals):
    input, mask = vals[0], vals[1]
    if not isinstance(mask, Tensor) or not isinstance(input, Tensor) or \
            mask.dtype is not _dt.bool:
        return None
    h = _host_values(mask)
    if h is None:
        from .dispatch import concretization_error
        raise concretization_error()
    shape = np.broadcast_shapes(input._shape, mask._shape)
    return int(np.broadcast_to(h, shape).sum())


def _masked_select_fn(input, mask, _count=None):
    shape = jnp.broadcast_shapes(input.shape, mask.shape)
    x = jnp.broadcast_to(input, shape).reshape(-1)
    (pos,) = jnp.nonzero(jnp.broadcast_to(mask, shape).reshape(-1), size=_count)
    return x[pos]


register(OpSpec(
    "masked_select", _masked_select_fn, "input, mask, *, _count=None",
    tensor_args=("input", "mask"), promote="none", check=_masked_select_check,
    doc="Mirrors ``torch.masked_select``. The output size depends on the mask's values: "
        "it is read on the host (so it cannot run inside a compiled function).",
    samples=lambda: [S(arr(3, 4), arr(3, 4, dtype="bool")), S(arr(3, 4), arr(4, dtype="bool")),
                     S(arr(4), arr(3, 1, dtype="bool")), S(arr(), np.array(True)),
                     S(arr(5, dtype="int64"), np.zeros(5, bool), grad=False),
                     S(arr(3), arr(3))]))
normalize_args("masked_select", _count=_masked_select_count)


# ---------------------------------------------------------------------------
# flat take / put and take_along_dim
def _take_check(input, index):
    if not isinstance(index, Tensor) or index.dtype is not _dt.int64:
        d = _dtname(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {d}")
    n = input.numel()
    bad = _first_out_of_range(index, n, allow_negative=True)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")


def _take_fn(input, index):
    flat = jnp.reshape(input, (-1,))
    n = flat.shape[0]
    return flat[jnp.where(index < 0, index + n, index)] if n else \
        jnp.zeros(index.shape, input.dtype)


register(OpSpec(
    "take", _take_fn, "input, index", tensor_args=("input", "index"), promote_args=("input",),
    check=_take_check,
    samples=lambda: [S(arr(2, 3), np.array([0, 5, -1, 2])), S(arr(2, 3), np.array([[1], [4]])),
                     S(arr(), np.array(0)), S(arr(4, dtype="int64"), np.array([3, 3]),
                                              grad=False),
                     S(arr(2, 3), np.zeros(0, np.int64)), S(arr(2, 3), np.array([10])),
                     S(arr(2, 3), np.array([-7]))]))


def _put_check(input, index, source, accumulate=False):
    if not isinstance(index, Tensor) or index.dtype is not _dt.int64:
        d = _dtname(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {d}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_dtname(input.dtype)} and source.dtype = "
                           f"{_dtname(source.dtype)}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    n = input.numel()
    bad = _first_out_of_range(index, n, allow_negative=True)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")


def _put_fn(input, index, source, accumulate=False):
    flat = jnp.reshape(input, (-1,))
    n = flat.shape[0]
    t = jnp.reshape(jnp.where(index < 0, index + n, index), (-1,)).astype(jnp.int64)
    v = jnp.reshape(source, (-1,))
    out = flat.at[t].add(v) if accumulate else _set_flat(flat, t, v)
    return jnp.reshape(out, input.shape)


register(OpSpec(
    "put", _put_fn, "input, index, source, accumulate=False",
    tensor_args=("input", "index", "source"), promote="none", inplace=True, check=_put_check,
    samples=lambda: [S(arr(2, 3), np.array([0, 5, -1]), arr(3)),
                     S(arr(2, 3), np.array([[1, 1]]), arr(1, 2), accumulate=True),
                     S(arr(4, dtype="int64"), np.array([3]), np.array([9]), grad=False),
                     S(arr(2, 3), np.array([10]), arr(1)),
                     S(arr(2, 3), np.array([1]), arr(1, dtype="float64"))]))


def _take_along_dim_check(input, indices, dim=None):
    if not isinstance(indices, Tensor) or indices.dtype is not _dt.int64:
        d = _dtname(indices.dtype) if isinstance(indices, Tensor) else "?"
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{d}")
    if dim is None:
        _check_range(indices, input.numel(), 0)
        return
    d = wrap_dim(dim, input.dim())
    if input.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.dim()} dimensions for input,"
                           f" and {indices.dim()} dimensions for indices")
    a = list(input._shape)
    b = list(indices._shape)
    a[d] = b[d] = 1
    from ._common import broadcast_shapes_or_raise
    broadcast_shapes_or_raise(tuple(a), tuple(b))
    _check_range(indices, _size1(input, d), d)


def _take_along_dim_fn(input, indices, dim=None):
    if dim is None:
        return jnp.reshape(input, (-1,))[jnp.reshape(indices, (-1,))]
    if input.ndim == 0:
        return jnp.reshape(input, (1,))[indices]
    d = dim % input.ndim
    a, b = list(input.shape), list(indices.shape)
    a[d] = b[d] = 1
    shape = jnp.broadcast_shapes(tuple(a), tuple(b))
    xs, ixs = list(shape), list(shape)
    xs[d], ixs[d] = input.shape[d], indices.shape[d]
    return jnp.take_along_axis(jnp.broadcast_to(input, xs), jnp.broadcast_to(indices, ixs),
                               axis=d)


register(OpSpec(
    "take_along_dim", _take_along_dim_fn, "input, indices, dim=None",
    tensor_args=("input", "indices"), promote_args=("input",), check=_take_along_dim_check,
    grad_name=lambda i, x, d=None: "TakeBackward0" if d is None else "GatherBackward0",
    samples=lambda: [S(arr(3, 4), np.array([[0], [3], [1]]), 1),
                     S(arr(3, 4), np.array([[0, 2, 1, 1]]), 0),
                     S(arr(3, 4), np.array([0, 11, 5])),
                     S(arr(2, 1, 3, dtype="float64"), np.array([[[0], [2]]]), -1),
                     S(arr(3, 4), np.array([[0]], np.int32), 1),
                     S(arr(3, 4), np.array([[0]]), 3)]))


# ---------------------------------------------------------------------------
# repeat / repeat_interleave / tile
def _repeat_check(input, sizes):
    if len(sizes) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    lead = len(sizes) - input.dim()
    shape = [s * (input._shape[i - lead] if i >= lead else 1) for i, s in enumerate(sizes)]
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{shape_str(shape)}")


def _repeat_fn(input, sizes):
    lead = len(sizes) - input.ndim
    x = jnp.reshape(input, (1,) * lead + input.shape)
    return jnp.tile(x, sizes)


register(OpSpec(
    "repeat", _repeat_fn, "input, *sizes", function=False, promote="none",
    check=_repeat_check,
    samples=lambda: [S(np.array([1, 2, 3]), 4, 2, method=True, grad=False),
                     S(np.array([1, 2, 3]), 4, 2, 1, method=True, grad=False),
                     S(arr(2, 3), 2, 1, method=True), S(arr(2, 3), (1, 2, 2), method=True),
                     S(arr(), 3, method=True), S(arr(2, 3), 0, 2, method=True),
                     S(arr(2, 3), 2, method=True), S(arr(2, 3), -1, 2, method=True)]))
normalize_args("repeat", keyword=("repeats",), sizes=lambda vals: _sizes(vals))


def _repeats_value(repeats):
    if isinstance(repeats, Tensor):
        h = _host_values(repeats)
        return None if h is None else h
    return np.asarray(repeats)


def _ri_check(input, repeats=None, dim=None, output_size=None):
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if not _is_int_tensor(input):
            raise RuntimeError("repeats has to be Long or Int tensor")
        h = _repeats_value(input)
        if h is not None and (h < 0).any():
            raise RuntimeError("repeats can not be negative")
        return
    if dim is not None:
        wrap_dim(dim, input.dim())
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        n = input._shape[wrap_dim(dim, input.dim())] if dim is not None and input.dim() \
            else input.numel()
        if repeats.numel() != 1 and repeats.numel() != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size("
                               f"{0 if dim is None else wrap_dim(dim, input.dim())}) = {n}")
        h = _repeats_value(repeats)
        if h is not None and (h < 0).any():
            raise RuntimeError("repeats can not be negative")
    elif repeats < 0:
        raise RuntimeError("Repeats must be non-negative")


def _ri_output_size(vals):
    input, repeats, dim, output_size = vals
    if output_size is not None:
        return output_size
    if repeats is None:
        h = _repeats_value(input) if isinstance(input, Tensor) else None
        return None if h is None else int(h.sum())
    if not isinstance(input, Tensor):
        return None
    if not isinstance(repeats, Tensor):
        n = input._shape[dim % input.dim()] if dim is not None and input.dim() else \
            input.numel()
        return int(repeats) * n
    h = _repeats_value(repeats)
    if h is None:
        from .dispatch import concretization_error
        raise concretization_error()
    if h.size == 1:
        n = input._shape[dim % input.dim()] if dim is not None and input.dim() else \
            input.numel()
        return int(h.reshape(-1)[0]) * n
    return int(h.sum())


def _ri_fn(input, repeats=None, dim=None, output_size=None):
    if repeats is None:
        r = jnp.reshape(input, (-1,))
        return jnp.repeat(jnp.arange(r.shape[0], dtype=input.dtype), r,
                          total_repeat_length=output_size)
    if dim is None:
        input = jnp.reshape(input, (-1,))
        axis = 0
    else:
        axis = dim % max(input.ndim, 1)
        if input.ndim == 0:
            input = jnp.reshape(input, (1,))
    r = jnp.reshape(jnp.asarray(repeats, jnp.int64), (-1,))
    if r.shape[0] == 1:
        r = jnp.broadcast_to(r, (input.shape[axis],))
    return jnp.repeat(input, r, axis=axis, total_repeat_length=output_size)


register(OpSpec(
    "repeat_interleave", _ri_fn, "input, repeats=None, dim=None, *, output_size=None",
    tensor_args=("input", "repeats"), promote_args=("input",), check=_ri_check,
    doc="Mirrors ``torch.repeat_interleave``. With tensor ``repeats`` and no "
        "``output_size`` the output size is read on the host.",
    samples=lambda: [
        S(np.array([1, 2, 3]), 2, grad=False), S(np.array([[1, 2], [3, 4]]), 2, grad=False),
        S(np.array([[1, 2], [3, 4]]), 3, dim=1, grad=False),
        S(np.array([[1, 2], [3, 4]]), np.array([1, 2]), dim=0, grad=False),
        S(np.array([[1, 2], [3, 4]]), np.array([1, 2]), dim=0, output_size=3, grad=False),
        S(arr(2, 3), np.array([2, 0, 1]), dim=-1), S(arr(2, 3), 2, 0), S(arr(2, 3), 3),
        S(arr(2, 3), np.array([3]), 0), S(arr(), 2), S(np.array([1, 0, 2])),
        S(arr(2, 3), np.array([1, 2, 3]), dim=0), S(arr(2, 3), -1)]))
normalize_args("repeat_interleave", output_size=_ri_output_size)


def _tile_fn(input, dims):
    dims = tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return _repeat_fn(input, dims)


register(OpSpec(
    "tile", _tile_fn, "input, dims", promote="none", grad_name="RepeatBackward0",
    check=lambda input, dims: _repeat_check(
        input, (1,) * max(input.dim() - len(dims), 0) + tuple(dims)),
    samples=lambda: [S(arr(3), (2,)), S(arr(2, 2), (2,)), S(arr(2, 3), (1, 2, 2)),
                     S(np.array([1, 2]), (2, 2), grad=False), S(arr(), (3,))]))
normalize_args("tile", dims=lambda vals: shape_arg(vals[1]))


# ---------------------------------------------------------------------------
# flip / roll / rot90
def _flip_dims(input, dims):
    nd = input.dim()
    out = []
    for d in dims:
        w = wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def _flip_fn(input, dims):
    if input.ndim == 0:
        return input
    return jnp.flip(input, tuple(d % input.ndim for d in dims)) if dims else input


register(OpSpec(
    "flip", _flip_fn, "input, *dims", promote="none", saves=False,
    check=lambda input, dims: _flip_dims(input, dims),
    samples=lambda: [S(arr(2, 3), (0,)), S(arr(2, 3, 4), (0, -1)), S(arr(2, 3), [1]),
                     S(arr(2, 3), 0, 1, method=True), S(arr(), (0,)),
                     S(arr(3, dtype="int64"), (0,), grad=False), S(arr(2, 3), (0, 0))]))
normalize_args("flip", keyword=("dims",), dims=lambda vals: _sizes(vals))


def _roll_check(input, shifts, dims=None):
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, "
                           f"dims:{len(ds)}")
    for d in ds:
        wrap_dim(d, input.dim())


def _roll_fn(input, shifts, dims=None):
    if dims is None:
        sh = shifts if isinstance(shifts, int) else shifts[0]
        return jnp.reshape(jnp.roll(jnp.reshape(input, (-1,)), sh), input.shape)
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    return jnp.roll(input, sh, tuple(d % max(input.ndim, 1) for d in ds))


register(OpSpec(
    "roll", _roll_fn, "input, shifts, dims=None", promote="none", saves=False,
    check=_roll_check,
    samples=lambda: [S(arr(4, 2), 1), S(arr(4, 2), 1, 0), S(arr(4, 2), -1, 0),
                     S(arr(4, 2), (2, 1), (0, 1)), S(arr(2, 3, dtype="int64"), 5, -1, grad=False),
                     S(arr(2, 3), 1, (0, 1))]))


def _rot90_check(input, k=1, dims=None):
    dims = (0, 1) if dims is None else tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = wrap_dim(dims[0], input.dim()), wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")


def _rot90_fn(input, k=1, dims=None):
    dims = (0, 1) if dims is None else dims
    return jnp.rot90(input, k, axes=tuple(d % input.ndim for d in dims))


register(OpSpec(
    "rot90", _rot90_fn, "input, k=1, dims=None", promote="none", saves=False, check=_rot90_check,
    samples=lambda: [S(arr(2, 3)), S(arr(2, 3), 2), S(arr(2, 3), -1), S(arr(2, 3, 4), 1, (2, 0)),
                     S(arr(2, 3), 0), S(arr(2, 3), 5, [1, 0]), S(arr(2, 3), 1, (0, 0)),
                     S(arr(3), 1)]))


# ---------------------------------------------------------------------------
# triangles and diagonals
def _tri_check(name):
    def check(input, diagonal=0):
        if input.dim() < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return check


for _name, _f in (("tril", jnp.tril), ("triu", jnp.triu)):
    register(OpSpec(
        _name, lambda input, diagonal=0, _f=_f: _f(input, diagonal), "input, diagonal=0",
        promote="none", inplace=True, saves=False, check=_tri_check(_name),
        samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(4, 3), -1),
                         S(arr(2, 3, 3, dtype="float64"), diagonal=2),
                         S(arr(3, 3, dtype="int64"), grad=False), S(arr(0, 3)), S(arr(3), 0),
                         S(arr(3, 3), 10)]))


def _diag_check(input, diagonal=0):
    if input.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def _diag_fn(input, diagonal=0):
    if input.ndim == 1:
        return jnp.diag(input, diagonal)
    return jnp.diagonal(input, diagonal)


register(OpSpec(
    "diag", _diag_fn, "input, diagonal=0", promote="none", saves=False, check=_diag_check,
    grad_name=lambda i, d=0: "DiagEmbedBackward0" if i.dim() == 1 else "DiagonalBackward0",
    samples=lambda: [S(arr(3)), S(arr(3), 1), S(arr(3), -2), S(arr(3, 4)), S(arr(3, 4), 2),
                     S(arr(3, 4), -1), S(arr(3, 4), 7), S(arr(2, dtype="int64"), grad=False),
                     S(arr(2, 2, 2)), S(arr())]))


def _diag_embed_dims(nd, offset, dim1, dim2):
    d1, d2 = wrap_dim(dim1, nd + 1), wrap_dim(dim2, nd + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_embed_fn(input, offset=0, dim1=-2, dim2=-1):
    nd = input.ndim
    d1, d2 = _diag_embed_dims(nd, offset, dim1, dim2)
    m = input.shape[-1] if nd else 1
    x = jnp.reshape(input, (1,)) if nd == 0 else input
    n = m + abs(offset)
    rows = jnp.arange(m) + max(-offset, 0)
    cols = jnp.arange(m) + max(offset, 0)
    out = jnp.zeros(x.shape[:-1] + (n, n), input.dtype).at[..., rows, cols].set(x)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


register(OpSpec(
    "diag_embed", _diag_embed_fn, "input, offset=0, dim1=-2, dim2=-1", promote="none",
    saves=False, check=lambda i, o=0, a=-2, b=-1: _diag_embed_dims(i.dim(), o, a, b),
    samples=lambda: [S(arr(3)), S(arr(2, 3)), S(arr(2, 3), 1), S(arr(2, 3), -2, 0, 2),
                     S(arr(2, 3), 0, 2, 0), S(arr(2, 3, dtype="int64"), grad=False),
                     S(arr(2, 3), 0, 0, 0)]))
register(OpSpec(
    "diagflat", lambda input, offset=0: jnp.diag(jnp.reshape(input, (-1,)), offset),
    "input, offset=0", promote="none", saves=False, grad_name="DiagEmbedBackward0",
    samples=lambda: [S(arr(3)), S(arr(2, 2), 1), S(arr(2, 2), -1), S(arr()),
                     S(arr(3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# broadcast_to / ravel / narrow_copy
def _broadcast_to_meta(input, size):
    return _expand_meta(input, size)


def _broadcast_to_check(input, size):
    size = tuple(size)
    if -1 in size[:len(size) - input.dim()]:
        raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                           f"non-existing dimension {size.index(-1)}")
    _expand_meta(input, size)


register(OpSpec(
    "broadcast_to", lambda input, size: jnp.broadcast_to(input, _expand_shape(input.shape,
                                                                             tuple(size))),
    "input, *size", promote="none", view=_broadcast_to_meta, check=_broadcast_to_check,
    saves=False, grad_name="ExpandBackward0",
    samples=lambda: [S(arr(3, 1), (2, 3, 4)), S(arr(3), (2, 3)), S(arr(), (2,)),
                     S(arr(3, 1), (3, -1)), S(arr(3), (4,))]))
normalize_args("broadcast_to", keyword=("size",), size=lambda vals: _sizes(vals))


def _ravel_meta(input):
    return _reshape_meta(input, (-1,))


register(OpSpec(
    "ravel", lambda input: jnp.reshape(input, (-1,)), "input", promote="none",
    view=_ravel_meta, saves=False,
    grad_name=lambda i: "ViewBackward0" if _ravel_meta(i) is not None else
    "UnsafeViewBackward0",
    samples=lambda: [S(arr(2, 3)), S(arr()), S(arr(0, 3)), S(arr(2, 3, dtype="int64"),
                                                            grad=False)]))


def _narrow_copy_fn(input, dim, start, length):
    d = dim % input.ndim
    s = start + input.shape[d] if start < 0 else start
    return jax_slice(input, d, s, s + length, 1)


register(OpSpec(
    "narrow_copy", _narrow_copy_fn, "input, dim, start, length", promote="none", saves=False,
    check=lambda i, d, s, n: _narrow_check(i, d, s, n),
    samples=lambda: [S(arr(4, 5), 0, 1, 2), S(arr(4, 5), -1, -3, 2), S(arr(4, 5), 1, 0, 0),
                     S(arr(2, 3), 0, 1, 5)]))


# ---------------------------------------------------------------------------
# in-place writers: fill_, zero_, fill_diagonal_, copy_
def _fill_check(input, value):
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")


register(OpSpec(
    "fill", lambda input, value: jnp.broadcast_to(jnp.asarray(value).astype(input.dtype),
                                                  input.shape),
    "input, value", tensor_args=("input", "value"), promote="none", method=False,
    inplace=True, check=_fill_check, saves=False,
    grad_name=lambda i, v: "FillBackward1" if isinstance(v, Tensor) else "FillBackward0",
    doc="Mirrors ``torch.fill`` and ``Tensor.fill_`` (a number or a 0-d tensor).",
    samples=lambda: [S(arr(2, 3), 1.5), S(arr(2, 3), arr()), S(arr(3, dtype="int64"), 2.7,
                                                               grad=False),
                     S(arr(), 3), S(arr(0, 2), 1.0), S(arr(2, 3), arr(2))]))
register(OpSpec(
    "zero", lambda input: jnp.zeros_like(input), "input", promote="none", method=False,
    function=False, inplace="zero_", saves=False, grad_name="ZeroBackward0",
    doc="``Tensor.zero_``: fills with zeros in place.", samples=lambda: []))


def _fill_diagonal_check(input, fill_value, wrap=False):
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.dim() > 2 and len(set(input._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")


def _fill_diagonal_fn(input, fill_value, wrap=False):
    shape = input.shape
    n = int(np.prod(shape, dtype=np.int64))
    if input.ndim == 2:
        rows, cols = shape
        step = cols + 1
        end = n if (wrap and rows > cols + 1) else min(rows, cols) * cols
        pos = np.arange(0, end, step)
        if not wrap:
            pos = pos[:min(rows, cols)]
    else:
        step = int(sum(contiguous_strides(shape)))
        pos = np.arange(shape[0]) * step
    flat = jnp.reshape(input, (-1,))
    v = jnp.asarray(fill_value).astype(input.dtype)
    return jnp.reshape(flat.at[jnp.asarray(pos, jnp.int64)].set(v), shape)


register(OpSpec(
    "fill_diagonal", _fill_diagonal_fn, "input, fill_value, wrap=False",
    tensor_args=("input", "fill_value"), promote="none", method=False, function=False,
    inplace="fill_diagonal_", check=_fill_diagonal_check, saves=False,
    grad_name="FillBackward0", doc="``Tensor.fill_diagonal_`` (numpy's wrap rule).",
    samples=lambda: []))


def _copy_fn(input, src):
    return jnp.broadcast_to(src.astype(input.dtype), input.shape)


def _copy_check(input, src):
    from ._common import broadcast_shapes_or_raise
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    out = broadcast_shapes_or_raise(input._shape, src._shape)
    if out != input._shape:
        raise RuntimeError(f"output with shape {shape_str(input._shape)} doesn't match the "
                           f"broadcast shape {shape_str(out)}")


register(OpSpec(
    "_copy_from", _copy_fn, "input, src", tensor_args=("input", "src"), promote="none",
    method=False, function=False, check=_copy_check, saves=False,
    grad_name="CopyBackwards", samples=lambda: []))


def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Mirrors ``Tensor.copy_``: ``src`` is broadcast to ``self``'s shape, cast to its
    dtype and moved to its device; writes through views reach the base."""
    from .dispatch import call_op
    check_inplace_target(self)
    if isinstance(src, Tensor) and src.device != self.device:
        src = src.to(self.device)
    return inplace_apply(self, call_op("_copy_from", self, src), "copy_")


Tensor.copy_ = _copy_


# ---------------------------------------------------------------------------
# composites over the ops above and the view ops
def _call(name, *args):
    from .dispatch import call_op
    return call_op(name, *args)


def _tensors_arg(tensors) -> tuple:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tuple(tensors)


def broadcast_shapes(*shapes) -> Size:
    """Mirrors ``torch.broadcast_shapes``."""
    from ._common import broadcast_shapes_or_raise
    out: tuple = ()
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        out = broadcast_shapes_or_raise(out, s)
    return Size(out)


def broadcast_tensors(*tensors) -> tuple:
    """Mirrors ``torch.broadcast_tensors``: expanded views (stride 0 where broadcast)."""
    ts = _tensors_arg(tensors)
    from ._common import broadcast_shapes_or_raise
    shape: tuple = ()
    for t in ts:
        shape = broadcast_shapes_or_raise(shape, t._shape)
    return tuple(_call("broadcast_to", t, shape) for t in ts)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Mirrors ``torch.meshgrid``; ``indexing`` defaults to ``'ij'`` (PyTorch warns that
    the default will change; torchlike does not warn). Results are expanded views."""
    ts = _tensors_arg(tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    if len({t.dtype for t in ts}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    order = list(ts)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    out = []
    for i, t in enumerate(order):
        view_shape = [1] * len(order)
        view_shape[i] = -1
        out.append(_call("expand", _call("view", t, tuple(view_shape)), shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _atleast_nd(n):
    def f(*tensors):
        ts = _tensors_arg(tensors)
        res = []
        for t in ts:
            if t.dim() >= n:
                res.append(t)
            elif n == 3 and t.dim() == 2:
                res.append(_call("unsqueeze", t, -1))
            elif n == 3 and t.dim() == 1:
                res.append(_call("unsqueeze", _call("unsqueeze", t, 0), -1))
            else:
                res.append(_call("reshape", t, (1,) * (n - t.dim()) + t._shape))
        single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
        return res[0] if single else tuple(res)
    f.__name__ = f.__qualname__ = f"atleast_{n}d"
    f.__doc__ = (f"Mirrors ``torch.atleast_{n}d``: the input itself when it has at least "
                 f"{n} dimensions, else a view with size-1 dimensions added.")
    return f


atleast_1d = _atleast_nd(1)
atleast_2d = _atleast_nd(2)
atleast_3d = _atleast_nd(3)


def fliplr(input: Tensor) -> Tensor:
    """Mirrors ``torch.fliplr``: flips dimension 1 (a copy)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _call("flip", input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Mirrors ``torch.flipud``: flips dimension 0 (a copy)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _call("flip", input, (0,))


for _f in (broadcast_tensors, meshgrid, atleast_1d, atleast_2d, atleast_3d, fliplr, flipud,
           broadcast_shapes):
    FUNCTIONS[_f.__name__] = _f
for _f in (fliplr, flipud):
    setattr(Tensor, _f.__name__, _f)

_ = OPS
