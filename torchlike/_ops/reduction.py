"""Reductions: sum, mean, prod, max/min, argmax/argmin, std/var, norm, all/any,
cumulative ops, logsumexp, median, mode, sort, topk, kthvalue, unique, nonzero."""

from __future__ import annotations

import jax.numpy as jnp

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


def reduce_dims(ndim: int, dim) -> tuple | None:
    """Normalise ``dim`` (None, int, or sequence) into a sorted tuple of axes."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return None
    return tuple(sorted({wrap_dim(d, ndim) for d in dims}))


def _sum_fn(input, dim=None, keepdim=False, dtype=None):
    axes = reduce_dims(input.ndim, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    elif jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
        input = input.astype(jnp.int64)
    return jnp.sum(input, axis=axes, keepdims=keepdim)


def _check_dims(input, dim=None, *rest, **kw):
    if dim is not None and isinstance(input, Tensor):
        reduce_dims(input.dim(), dim)


register(OpSpec(
    "sum", _sum_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_check_dims, saves=False,
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()), S(arr(0, 3), 0),
                     S(arr(3, 4, dtype="int32"), grad=False),
                     S(arr(3, dtype="bool"), grad=False),
                     S(arr(3, 4), dtype=None)]))


def _mean_fn(input, dim=None, keepdim=False, dtype=None):
    axes = reduce_dims(input.ndim, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    return jnp.mean(input, axis=axes, keepdims=keepdim)


def _mean_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    d = dtype or input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {_title(d)}")


def _title(d):
    from .bind import dtype_short_name
    return dtype_short_name(d)


register(OpSpec(
    "mean", _mean_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_mean_check, saves=False,
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()),
                     S(arr(3, 4, dtype="int64"), grad=False)]))

_ = _dt
