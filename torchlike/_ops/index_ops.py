"""Ops indexed along one dimension or by a mask or flat index: ``index_select``,
``index_add``, ``index_copy``, ``index_fill``, ``index_reduce``, ``masked_fill``,
``masked_scatter``, ``masked_select``, ``take``, ``put`` and ``take_along_dim``. Each is
declared once; see spec.py. Their range checks follow Note [Indices are checked eagerly]
in shape_common.py; duplicate targets are written as in Note [Deterministic scatter] in
scatter.py.

``Tensor.__getitem__``/``__setitem__`` and ``index_put`` are in indexing.py."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from ._common import check_broadcast, shape_str
from .bind import dtype_short_name
from .samples import S, arr
from .scatter import _reduce_into, _set_flat
from .shape_common import _check_range, _first_out_of_range, _host_values, _size1
from .spec import OpSpec, register
from .views import normalize_args

__all__: list = []


def _dtname(d) -> str:
    return dtype_short_name(d)


def _mask_dtname(d) -> str:
    return _dtname(d).lower()


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
    bad = _first_out_of_range(index, _size1(input, d))
    if bad is not None:
        if input.dim() == 2 and d == 1:   # PyTorch's kernel for columns words it so
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} "
                               f"axis_dim={input._shape[1]}")
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


def _same_dtype(input, source, dtype_msg):
    if source.dtype is not input.dtype:
        raise RuntimeError(dtype_msg.format(self=_dtname(input.dtype),
                                            source=_dtname(source.dtype)))


def _source_check(name, input, d, index, source, dtype_msg):
    """ATen's checks of ``source`` in index_add_ / index_reduce_, in their order and
    words (index_copy_'s are ``_index_copy_source_check``)."""
    _same_dtype(input, source, dtype_msg)
    n = index.numel()
    self_rest, source_rest = list(input._shape), list(source._shape)
    if n != (1 if source.dim() == 0 else source.size(d)):
        # (for a 0-d source PyTorch's message itself fails to read source.size(dim))
        raise RuntimeError(f"{name}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({source.size(d)}), for dim: {d}")
    if source.dim() and input.dim():
        del self_rest[d], source_rest[d]
    if self_rest != source_rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {shape_str(input._shape)} "
                           f"source.shape = {shape_str(source._shape)}")


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


def _index_copy_source_check(input, d, index, source):
    # ATen's index_copy_ checks, in its order and words
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one "
                         f"element (got {n})")
    if source.dim() != input.dim() and source.dim() and input.dim():
        raise IndexError(f"index_copy_(): When source and destination are not scalars, "
                         f"their dimensionality must match. Source dimensionality "
                         f"({source.dim()}), destination dimensionality ({input.dim()})")
    _same_dtype(input, source, "index_copy_(): self and source expected to have the same "
                "dtype, but got (self) {self} and (source) {source}")
    self_rest, source_rest = list(input._shape), list(source._shape)
    for rest in (self_rest, source_rest):
        if rest:
            del rest[d]
    if self_rest != source_rest:
        raise RuntimeError(
            f"index_copy_(): Source/destination tensor must have same slice shapes. "
            f"Destination slice shape: {' '.join(map(str, self_rest))} at dimension {d} "
            f"and source slice shape: {' '.join(map(str, source_rest))} at dimension 0.")
    if source.dim() and n != source.size(d):
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source.size(d)})")


def _index_copy_check(input, dim, index, source):
    if isinstance(index, Tensor):   # ATen's order (dimensionality first) and words
        if index.dim() > 1:
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                             f"{index.dim()})")
        if index.dtype is not _dt.int64:
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{_dtname(index.dtype)}")
    _check_vector_index("index_copy_", index, allow_int32=False)
    d = wrap_dim(dim, input.dim())
    _index_copy_source_check(input, d, index, source)
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
    if isinstance(index, Tensor) and index.dtype is not _dt.int64:   # in ATen's words
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
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
def _check_mask(name, mask, dtype_name=_mask_dtname):
    # (masked_fill_'s message prints the dtype's C++ name, masked_scatter_'s its name)
    if not isinstance(mask, Tensor) or mask.dtype is not _dt.bool:
        d = dtype_name(mask.dtype) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {d}")


def _masked_fill_check(input, mask, value):
    _check_mask("masked_fill_", mask, _dt.cpp_name)
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
        from .._core.traced import concretization_error
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
