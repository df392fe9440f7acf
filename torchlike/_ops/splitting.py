"""Splitting ops: split, split_with_sizes, chunk, tensor_split, hsplit / vsplit / dsplit
and unbind. Each result is a view of its input (Note [Views over immutable arrays]):
slices along one dimension, with PyTorch's (shape, strides, storage offset)."""

from __future__ import annotations

import jax.numpy as jnp

from .._core.tensor import Tensor, wrap_dim
from .samples import S, arr
from .spec import OpSpec, register
from .views import jax_slice, normalize_args, slice_meta

__all__ = ["split_sizes"]


def split_sizes(n: int, split_size_or_sections) -> list:
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={s}")
        if s == 0:
            if n != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {n}")
            return [0]
        return [min(s, n - i) for i in range(0, n, s)] or [0]
    sizes = list(split_size_or_sections)
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                           f"(input tensor's size at dimension {{dim}}), but got "
                           f"split_sizes={sizes}")
    return sizes


def _split_meta(input, split_size_or_sections, dim=0):
    d = wrap_dim(dim, input.dim())
    try:
        sizes = split_sizes(input._shape[d], split_size_or_sections)
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("{dim}", str(d))) from None
    metas, start = [], 0
    for s in sizes:
        metas.append(slice_meta(input._shape, input.stride(), input._offset, d, start,
                                start + s, 1))
        start += s
    return metas


def _split_fn(input, split_size_or_sections, dim=0):
    d = dim % input.ndim
    sizes = split_sizes(input.shape[d], split_size_or_sections)
    out, start = [], 0
    for s in sizes:
        out.append(jax_slice(input, d, start, start + s, 1))
        start += s
    return tuple(out)


def _split_name(input, split_size_or_sections, dim=0):
    return "SplitBackward0" if isinstance(split_size_or_sections, int) else \
        "SplitWithSizesBackward0"


register(OpSpec(
    "split", _split_fn, "input, split_size_or_sections, dim=0", promote="none",
    view=_split_meta, check=_split_meta, saves=False, grad_name=_split_name,
    samples=lambda: [S(arr(5, 2), 2), S(arr(5, 2), [1, 4]), S(arr(3, 6), 4, 1),
                     S(arr(3, 6), (2, 2, 2), -1)]))


def _split_with_sizes_meta(input, split_sizes, dim=0):
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 1) must be "
                        f"tuple of ints, not {type(split_sizes).__name__}")
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(split_sizes)}")
    return _split_meta(input, split_sizes, dim)


register(OpSpec(
    "split_with_sizes", _split_fn, "input, split_sizes, dim=0", promote="none",
    view=_split_with_sizes_meta, check=_split_with_sizes_meta, saves=False,
    grad_name="SplitWithSizesBackward0",
    doc="Mirrors ``torch.split_with_sizes``: ``split`` with a list of sizes.",
    samples=lambda: [S(arr(5, 2), [1, 4]), S(arr(3, 6), (2, 0, 4), -1),
                     S(arr(3, 6), [3, 3], 1, method=True), S(arr(3, 6), [2, 3], 1),
                     S(arr(3, 6), [2, -1, 5], 1), S(arr(3, 6), 2, 1)]))


def _chunk_sizes(n, chunks):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = -(-n // chunks) if n else 0
    return size


def _chunk_meta(input, chunks, dim=0):
    d = wrap_dim(dim, input.dim())
    size = _chunk_sizes(input._shape[d], chunks)
    # an empty dimension gives ``chunks`` empty pieces, as ATen's chunk
    return _split_meta(input, size if size else [0] * chunks, d)


def _chunk_fn(input, chunks, dim=0):
    d = dim % input.ndim
    size = _chunk_sizes(input.shape[d], chunks)
    return _split_fn(input, size if size else [0] * chunks, d)


register(OpSpec(
    "chunk", _chunk_fn, "input, chunks, dim=0", promote="none", view=_chunk_meta,
    check=_chunk_meta, saves=False, grad_name="SplitBackward0",
    samples=lambda: [S(arr(5, 2), 2), S(arr(6, 2), 3), S(arr(3, 7), 3, 1), S(arr(2, 2), 5),
                     S(arr(0), 3), S(arr(0, 2), 2), S(arr(0, 2), 2, 1), S(arr(2, 0), 4, -1)]))


def _tensor_split_bounds(n, indices_or_sections):
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds, start = [], 0
        for i in range(k):
            size = q + (1 if i < r else 0)
            bounds.append((start, start + size))
            start += size
        return bounds
    # as ATen: piece k is ``slice(idx[k - 1], idx[k])`` with slice's own rules (a negative
    # bound counts from the end, both are clamped to [0, n], an end before the start
    # gives an empty piece there), each start being the previous index as given
    def norm(i):
        return min(max(i + n if i < 0 else i, 0), n)
    bounds, start = [], 0
    for i in list(indices_or_sections) + [n]:
        a = norm(start)
        bounds.append((a, max(a, norm(i))))
        start = i
    return bounds


def _norm_sections(v):
    if isinstance(v, Tensor):
        v = v.tolist()
    return v


def _tensor_split_meta(input, indices_or_sections, dim=0):
    d = wrap_dim(dim, input.dim())
    bounds = _tensor_split_bounds(input._shape[d], _norm_sections(indices_or_sections))
    return [slice_meta(input._shape, input.stride(), input._offset, d, a, b, 1)
            for a, b in bounds]


def _tensor_split_fn(input, indices_or_sections, dim=0):
    d = dim % input.ndim
    bounds = _tensor_split_bounds(input.shape[d], indices_or_sections)
    return tuple(jax_slice(input, d, a, b, 1) for a, b in bounds)


register(OpSpec(
    "tensor_split", lambda input, ios, dim=0: _tensor_split_fn(input, ios, dim),
    "input, indices_or_sections, dim=0", promote="none", view=_tensor_split_meta,
    check=_tensor_split_meta, saves=False, grad_name="SliceBackward0",
    samples=lambda: [S(arr(8), 3), S(arr(7), [1, 5]), S(arr(3, 7), (2, 3), 1),
                     S(arr(8), [2, 10]), S(arr(6), [3, 1]), S(arr(6), [-2, 3]),
                     S(arr(6, 2), [-10]), S(arr(2, 6), [-1, -3, 2], 1)]))
normalize_args("tensor_split", indices_or_sections=lambda vals: _norm_sections(vals[1]))


# hsplit / vsplit / dsplit: tensor_split along a fixed dimension (hsplit: the first of a
# 1-d tensor), a number of sections having to divide it
_FIXED_SPLITS = {"hsplit": (1, 1), "vsplit": (2, 0), "dsplit": (3, 2)}   # min dims, dim


def _fixed_dim(name, ndim):
    return 0 if name == "hsplit" and ndim == 1 else _FIXED_SPLITS[name][1]


def _fixed_split_dim(name, input, ios):
    need = _FIXED_SPLITS[name][0]
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    dim = _fixed_dim(name, input.dim())
    if isinstance(ios, int):
        n = input._shape[dim]
        if ios == 0 or n % ios:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but "
                               f"the size of the dimension {n} is not divisible by the "
                               f"split_size {ios}!")
    return dim


for _name in _FIXED_SPLITS:
    def _fixed_meta(input, indices_or_sections, _name=_name):
        ios = _norm_sections(indices_or_sections)
        return _tensor_split_meta(input, ios, _fixed_split_dim(_name, input, ios))

    def _fixed_fn(input, ios, _name=_name):
        return _tensor_split_fn(input, ios, _fixed_dim(_name, input.ndim))

    register(OpSpec(
        _name, _fixed_fn, "input, indices_or_sections", promote="none", view=_fixed_meta,
        check=_fixed_meta, saves=False, grad_name="SliceBackward0",
        doc=f"Mirrors ``torch.{_name}``: ``tensor_split`` along dimension "
            f"{_FIXED_SPLITS[_name][1]}" + (" (0 for a 1-d tensor)" if _name == "hsplit"
                                           else "") + "; a number of sections must divide it.",
        samples=lambda: [S(arr(2, 4, 6), 2), S(arr(2, 4, 6), [1, 3]), S(arr(4, 6, 2), (1,)),
                         S(arr(6), 3), S(arr(2, 4, 6), 2, method=True), S(arr(5, 5, 5), 2),
                         S(arr(), 1), S(arr(2, 4, 6), 0)]))
    normalize_args(_name, indices_or_sections=lambda vals: _norm_sections(vals[1]))


def _unbind_meta(input, dim=0):
    nd = input.dim()
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, nd)
    metas = []
    for i in range(input._shape[d]):
        shape, stride = list(input._shape), list(input.stride())
        off = input._offset + i * stride[d]
        del shape[d], stride[d]
        metas.append((shape, stride, off))
    return metas


def _unbind_fn(input, dim=0):
    d = dim % input.ndim
    return tuple(jnp.take(input, i, axis=d) for i in range(input.shape[d]))


register(OpSpec(
    "unbind", _unbind_fn, "input, dim=0", promote="none", view=_unbind_meta,
    check=_unbind_meta, saves=False,
    samples=lambda: [S(arr(3, 2)), S(arr(3, 2), 1), S(arr(2, 3, 4), -1)]))
