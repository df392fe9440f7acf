"""Reductions and sorting: sum, mean, prod, max/min, argmax/argmin, std/var, norm,
all/any, cumulative ops, logsumexp, softmax, median, mode, sort, topk, kthvalue,
quantile, unique, nonzero, histograms and searches. Each is declared once; see spec.py.

# Note [Subgradient conventions]
# Gradients come from ``jax.vjp`` of each pure function, so where PyTorch's derivative
# formula picks a particular subgradient the function is written to produce it:
#  - value-selecting reductions with a ``dim`` (max/min/median/mode/kthvalue/sort/topk/
#    cummax) compute indices first and gather the values with ``take_along_axis``, so the
#    gradient goes to the returned index only;
#  - full max/min/median and amax/amin/aminmax split the gradient evenly among ties
#    (PyTorch's ``evenly_distribute_backward`` / ``scale_grad_by_count``), written as a
#    ``jax.custom_vjp`` because NaNs need PyTorch's masks;
#  - vector norms use PyTorch's ``norm_backward`` (gradient 0 where the norm is 0),
#    and ``std`` gives 0 where the standard deviation is 0.

# Note [Data-dependent output shapes]
# unique, unique_consecutive, nonzero, argwhere and bincount have output sizes that depend
# on the values. Their binders read the input on the host first (an eager step) and pass
# the size on as a static parameter, so the pure function stays jit-compatible. Under
# tracing the value is unknown and ``concretization_error`` is raised.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from ._common import check_broadcast, shape_str
from .dispatch import concretization_error, prepare
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["reduce_dims"]

_MISSING = object()


# ---------------------------------------------------------------------------
# helpers
def reduce_dims(ndim: int, dim) -> tuple | None:
    """Normalise ``dim`` (None, int, or sequence) into a sorted tuple of axes.

    Raises PyTorch's IndexError for an out-of-range dim and RuntimeError for a dim
    repeated in the list; ``None`` or an empty sequence mean "all dims"."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if not dims:
        return None
    seen: list = []
    for d in dims:
        w = wrap_dim(int(d), ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.append(w)
    return tuple(sorted(seen))


def _axes(x, dim) -> tuple | None:
    """jnp axes for ``dim`` on array ``x`` (a 0-d array accepts dim 0 / -1 as "all")."""
    axes = reduce_dims(x.ndim, dim)
    if axes is not None and x.ndim == 0:
        return None
    return axes


def _is_int_like(dt) -> bool:
    return not (dt.is_floating_point or dt.is_complex)


def _short(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


def _host(t: Tensor) -> np.ndarray:
    """The value of ``t`` on the host; raises under tracing (see Note [Data-dependent
    output shapes])."""
    v = t._value
    if isinstance(v, jax.core.Tracer):
        raise concretization_error()
    return np.asarray(v)


def _overloaded(spec: OpSpec, binder) -> OpSpec:
    """Register ``spec`` with a hand-written binder for ops with several PyTorch
    overloads (``max(input)``, ``max(input, dim)``, ``max(input, other)``). The binder
    returns the values of ``spec.signature``'s parameters, in order."""
    register(spec)
    prepare(spec)
    binder.__name__ = binder.__qualname__ = spec.name
    spec.binder = binder
    return spec


def _check_dims(input, dim=None, *rest, **kw):
    if dim is not None and isinstance(input, Tensor):
        reduce_dims(input.dim(), dim)


def _int_dim(name: str, dim):
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")


def _check_nonempty_dim(name: str, input: Tensor, dim, sep: str = "()") -> None:
    """PyTorch's IndexError for a value-selecting reduction over a zero-size dim."""
    d = wrap_dim(dim, input.dim())
    if input.dim() > 0 and input.shape[d] == 0:
        raise IndexError(f"{name}{sep}: Expected reduction dim {d} to have non-zero size.")


def _as_1d_row(x, axis):
    """Move ``axis`` to the end (0-d arrays become shape (1,))."""
    if x.ndim == 0:
        return x.reshape(1)
    return jnp.moveaxis(x, axis, -1)


def _from_row(y, axis, ndim, keepdim):
    """Inverse of ``_as_1d_row`` for a result with a size-1 last axis."""
    if ndim == 0:
        return y.reshape(())
    y = jnp.moveaxis(y, -1, axis)
    return y if keepdim else jnp.squeeze(y, axis)


def _gather_dim(x, idx_row, axis, keepdim):
    """values, indices for indices ``idx_row`` (shape [..., 1], along the last axis of
    ``_as_1d_row(x, axis)``); values are gathered so the gradient follows the index."""
    vals = jnp.take_along_axis(_as_1d_row(x, axis), idx_row, axis=-1)
    return (_from_row(vals, axis, x.ndim, keepdim),
            _from_row(idx_row.astype(jnp.int64), axis, x.ndim, keepdim))


def _sort_key(x):
    """A key with PyTorch's order: -0.0 == 0.0, NaN above everything."""
    if x.dtype == jnp.bool_:
        return x.astype(jnp.uint8)
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.where(x == 0, jnp.zeros_like(x), x)
        return jnp.where(jnp.isnan(x), jnp.full_like(x, jnp.nan), x)
    return x


def _argsort_last(x, descending: bool):
    """Stable argsort along the last axis with PyTorch's order (NaN largest); ties keep
    their original order in both directions."""
    key = _sort_key(x)
    iota = lax.broadcasted_iota(jnp.int64, key.shape, key.ndim - 1)
    if descending:
        _, _, idx = lax.sort((key, -iota, iota), dimension=key.ndim - 1, num_keys=2)
        return jnp.flip(idx, -1)
    _, idx = lax.sort((key, iota), dimension=key.ndim - 1, num_keys=1, is_stable=True)
    return idx


def _grad_name(full: str, with_dim: str, dim_pos: int = 1):
    def name(*vals):
        return with_dim if vals[dim_pos] is not None else full
    return name


def _ties():
    return np.array([[1., 3, 3, 2], [2, 2, 0, 2], [5, 1, 5, 5]], np.float32)


# ---------------------------------------------------------------------------
# Note [Even split among ties]: see the module docstring.
@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3, 4))
def _even_reduce(x, kind, axes, keepdim, nan_mask):
    return _even_forward(x, kind, axes, keepdim)


def _even_forward(x, kind, axes, keepdim):
    if kind == "max":
        return jnp.max(x, axis=axes, keepdims=keepdim)
    if kind == "min":
        return jnp.min(x, axis=axes, keepdims=keepdim)
    flat = x.reshape(-1)
    s = jnp.sort(_sort_key(flat))
    if kind == "median":
        n = flat.shape[0]
        v = s[(n - 1) // 2] if n else jnp.array(jnp.nan, x.dtype)
        return jnp.where(jnp.any(jnp.isnan(flat)), jnp.nan, v).astype(x.dtype)
    # nanmedian
    cnt = jnp.sum(~jnp.isnan(flat))
    k = jnp.maximum((cnt - 1) // 2, 0)
    return (s[k] if flat.shape[0] else jnp.array(jnp.nan, x.dtype)).astype(x.dtype)


def _even_fwd(x, kind, axes, keepdim, nan_mask):
    out = _even_forward(x, kind, axes, keepdim)
    return out, (x, out)


def _even_bwd(kind, axes, keepdim, nan_mask, res, g):
    x, out = res
    if axes is None:
        axes_ = tuple(range(x.ndim))
    else:
        axes_ = axes
    if not keepdim:
        out = jnp.expand_dims(out, axes_)
        g = jnp.expand_dims(g, axes_)
    mask = x == out
    if nan_mask:
        mask = mask | (jnp.isnan(x) & jnp.isnan(out))
    count = jnp.sum(mask, axis=axes_, keepdims=True).astype(g.dtype)
    if nan_mask:   # evenly_distribute_backward: masked_fill
        return (jnp.where(mask, g / count, jnp.zeros_like(g)).astype(x.dtype),)
    # scale_grad_by_count: (grad / count) * mask, NaN when nothing matched (a NaN result)
    # (spelled with where: XLA folds a product with a converted mask into a select)
    nan = jnp.full_like(g, jnp.nan)
    return (jnp.where(count == 0, nan, jnp.where(mask, g / count, 0)).astype(x.dtype),)


_even_reduce.defvjp(_even_fwd, _even_bwd)


# ---------------------------------------------------------------------------
# sum, nansum, mean, nanmean, prod
def _sum_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    elif jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
        input = input.astype(jnp.int64)
    return jnp.sum(input, axis=axes, keepdims=keepdim)


register(OpSpec(
    "sum", _sum_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_check_dims, saves=False, grad_name=_grad_name("SumBackward0", "SumBackward1"),
    doc="Mirrors ``torch.sum``: integer and bool inputs sum to int64 unless ``dtype``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()), S(arr(0, 3), 0),
                     S(arr(), 0), S(arr(2, 3), (0, 0)), S(arr(2, 3), 2),
                     S(arr(3, 4, dtype="int32"), grad=False),
                     S(arr(3, dtype="bool"), grad=False),
                     S(arr(3, 4), dtype=_dt.float64), S(arr(3, 4, dtype="int64"), 0,
                                                        dtype=_dt.float32, grad=False),
                     S(arr(3, 4), dtype=None)]))


@jax.custom_vjp
def _zero_nans(x):
    return jnp.where(jnp.isnan(x), jnp.zeros_like(x), x)


def _zero_nans_fwd(x):
    return _zero_nans(x), x


def _zero_nans_bwd(x, g):
    # PyTorch's nansum backward multiplies: an infinite grad gives NaN at NaN inputs
    # (spelled with where: XLA folds a product with a converted mask into a select)
    return (jnp.where(jnp.isnan(x), jnp.where(jnp.isfinite(g), 0, jnp.nan), g).astype(
        g.dtype),)


_zero_nans.defvjp(_zero_nans_fwd, _zero_nans_bwd)


def _nansum_fn(input, dim=None, keepdim=False, dtype=None):
    if jnp.issubdtype(input.dtype, jnp.inexact):
        input = _zero_nans(input)
    return _sum_fn(input, dim, keepdim, dtype)


def _nansum_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    if input.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs")


register(OpSpec(
    "nansum", _nansum_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_nansum_check, doc="Mirrors ``torch.nansum``: NaNs count as zero.",
    samples=lambda: [S(np.array([1.0, np.nan, 2.0], np.float32)),
                     S(np.array([[1.0, np.nan], [np.nan, 3.0]], np.float64), 1, True),
                     S(arr(3, 4), -1), S(arr()), S(arr(3, dtype="int32"), grad=False)]))


def _mean_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    return jnp.mean(input, axis=axes, keepdims=keepdim)


def _mean_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    d = dtype or input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {_short(d)}")


register(OpSpec(
    "mean", _mean_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_mean_check, saves=False, grad_name=_grad_name("MeanBackward0", "MeanBackward1"),
    doc="Mirrors ``torch.mean``; integer inputs need ``dtype=``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()), S(arr(0, 3), 1),
                     S(arr(3, 4, dtype="int64"), dtype=_dt.float32, grad=False),
                     S(arr(3, 4, dtype="int64"), grad=False)]))


def _nanmean_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    ok = ~jnp.isnan(input)
    total = jnp.sum(_zero_nans(input), axis=axes, keepdims=keepdim)
    return total / jnp.sum(ok, axis=axes, keepdims=keepdim).astype(total.dtype)


def _nanmean_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_short(input.dtype)}")


register(OpSpec(
    "nanmean", _nanmean_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_nanmean_check, grad_name="DivBackward0",
    doc="Mirrors ``torch.nanmean``: the mean of the non-NaN elements.",
    samples=lambda: [S(np.array([1.0, np.nan, 2.0], np.float32)),
                     S(np.array([[1.0, np.nan], [np.nan, np.nan]], np.float32), 1),
                     S(arr(3, 4), 0, keepdim=True), S(arr()),
                     S(arr(3, dtype="int64"), grad=False)]))


def _prod_fn(input, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.np)
    elif jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
        input = input.astype(jnp.int64)
    if dim is None:
        return jnp.prod(input)
    return jnp.prod(input, axis=_axes(input, dim), keepdims=keepdim)


def _prod_check(input, dim=None, keepdim=False, dtype=None):
    if dim is not None:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"prod() received an invalid combination of arguments - got "
                            f"(Tensor, {type(dim).__name__}), but expected one of:\n"
                            " * (Tensor input, *, torch.dtype dtype = None)\n"
                            " * (Tensor input, int dim, bool keepdim = False, *, "
                            "torch.dtype dtype = None)")
        wrap_dim(dim, input.dim())


register(OpSpec(
    "prod", _prod_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_prod_check, grad_name=_grad_name("ProdBackward0", "ProdBackward1"),
    doc="Mirrors ``torch.prod`` (a single ``dim``); integer inputs give int64.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(2, 3, 4), -1, True), S(arr()),
                     S(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [1.5, 2.0, -1.0]],
                                np.float32), 1),
                     S(np.array([2.0, 0.0, 3.0], np.float32)), S(arr(0, 3), 0),
                     S(arr(4, dtype="int32"), grad=False),
                     S(arr(3, 4), 0, dtype=_dt.float64)]))


# ---------------------------------------------------------------------------
# max / min (three overloads), amax / amin, aminmax, argmax / argmin
def _max_min_fn(kind):
    def fn(input, other=None, dim=None, keepdim=False):
        if other is not None:
            return jnp.maximum(input, other) if kind == "max" else jnp.minimum(input, other)
        if dim is None:
            return _even_reduce(input, kind, None, False, True)
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        key = row.astype(jnp.uint8) if row.dtype == jnp.bool_ else row
        idx = (jnp.argmax if kind == "max" else jnp.argmin)(key, axis=-1, keepdims=True)
        return _gather_dim(input, idx, axis, keepdim)
    return fn


def _max_min_binder(kind):
    def bind(input, dim=_MISSING, keepdim=_MISSING, *, other=_MISSING):
        if other is not _MISSING or isinstance(dim, Tensor):
            if other is not _MISSING and dim is not _MISSING or keepdim is not _MISSING:
                raise TypeError(f"{kind}() received an invalid combination of arguments")
            return (input, dim if other is _MISSING else other, None, False)
        if dim is _MISSING:
            if keepdim is not _MISSING:
                raise TypeError(f"{kind}() received an invalid combination of arguments - got "
                                f"(Tensor, keepdim=bool), but expected one of:\n"
                                f" * (Tensor input, *, Tensor out = None)\n"
                                f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                                f" * (Tensor input, int dim, bool keepdim = False, *, "
                                f"tuple of Tensors out = None)")
            return (input, None, None, False)
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{kind}() received an invalid combination of arguments - got "
                            f"(Tensor, {type(dim).__name__}), but expected one of:\n"
                            f" * (Tensor input, *, Tensor out = None)\n"
                            f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            f" * (Tensor input, int dim, bool keepdim = False, *, "
                            f"tuple of Tensors out = None)")
        return (input, None, int(dim), False if keepdim is _MISSING else bool(keepdim))
    return bind


def _max_min_check(kind):
    def check(input, other=None, dim=None, keepdim=False):
        if other is not None:
            check_broadcast(input, other)
            return
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return
        _check_nonempty_dim(kind, input, dim)
    return check


def _max_min_grad_name(kind):
    def name(input, other=None, dim=None, keepdim=False):
        if other is not None:
            return ("Maximum" if kind == "max" else "Minimum") + "Backward0"
        return kind.capitalize() + ("Backward1" if dim is None else "Backward0")
    return name


def _max_min_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), -1, True), S(arr(2, 3, 4), 0),
            S(arr()), S(arr(), 0), S(arr(), -1, keepdim=True),
            S(_ties()), S(_ties(), 1), S(_ties(), 0, keepdim=True), S(_ties().T, -1),
            S(np.array([2.0, 2.0, 2.0], np.float32)),
            S(np.array([1.0, np.nan, 3.0, np.nan], np.float32), 0),
            S(arr(0, 3), 1), S(arr(0, 3), 0), S(arr(0)), S(arr(3, 4), 2),
            S(arr(3, 4), arr(3, 4)), S(arr(3, 1), arr(4)), S(_ties(), _ties()[::-1].copy()),
            S(arr(3, dtype="int64"), arr(3, dtype="int32"), grad=False),
            S(arr(3, 4, dtype="int64"), 1, grad=False), S(arr(5, dtype="bool"), grad=False),
            S(arr(2, 5, dtype="bool"), 1, grad=False),
            S(arr(3, 4), method=True), S(arr(3, 4), 0, method=True),
            S(arr(3, 4), dim=1, keepdim=True)]


for _k in ("max", "min"):
    _overloaded(OpSpec(
        _k, _max_min_fn(_k), "input, other=None, dim=None, keepdim=False",
        tensor_args=("input", "other"), check=_max_min_check(_k),
        grad_name=_max_min_grad_name(_k), out_names=("values", "indices"),
        nondiff_outputs=(1,),
        doc=f"Mirrors ``torch.{_k}``: ``{_k}(input)`` (gradient split evenly among ties), "
            f"``{_k}(input, dim, keepdim=False)`` -> ``(values, indices)`` (gradient to the "
            f"returned index; the first index among ties), ``{_k}(input, other)`` "
            f"elementwise.",
        samples=_max_min_samples), _max_min_binder(_k))


def _amax_fn(kind):
    def fn(input, dim=(), keepdim=False):
        return _even_reduce(input, kind, _axes(input, dim), keepdim, False)
    return fn


def _amax_check(kind):
    def check(input, dim=(), keepdim=False):
        axes = reduce_dims(input.dim(), dim)
        if input.numel() == 0:
            if axes is None:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            for a in axes:
                if input.dim() and input.shape[a] == 0:
                    raise IndexError(f"{kind}(): Expected reduction dim {a} to have "
                                     "non-zero size.")
    return check


def _amax_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True), S(arr(2, 3, 4), -1),
            S(_ties()), S(_ties(), 1), S(_ties(), 0, True), S(arr()), S(arr(), 0),
            S(np.array([1.0, np.nan, 2.0], np.float32), 0), S(arr(0, 3), 1), S(arr(0, 3)),
            S(arr(0, 3), 0), S(arr(3, 4, dtype="int32"), 1, grad=False)]


for _k in ("max", "min"):
    register(OpSpec(
        "a" + _k, _amax_fn(_k), "input, dim=(), keepdim=False", check=_amax_check("a" + _k),
        doc=f"Mirrors ``torch.a{_k}``: the gradient is split evenly among ties.",
        samples=_amax_samples))


def _aminmax_fn(input, dim=None, keepdim=False):
    axes = None if dim is None else _axes(input, dim)
    kd = keepdim if dim is not None else False
    out = (_even_reduce(input, "min", axes, kd, False),
           _even_reduce(input, "max", axes, kd, False))
    if dim is None and keepdim:
        out = tuple(o.reshape((1,) * input.ndim) for o in out)
    return out


def _aminmax_check(input, dim=None, keepdim=False):
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        return
    _int_dim("aminmax", dim)
    _check_nonempty_dim("aminmax", input, dim, sep="")


register(OpSpec(
    "aminmax", _aminmax_fn, "input, *, dim=None, keepdim=False", check=_aminmax_check,
    out_names=("min", "max"), doc="Mirrors ``torch.aminmax`` -> ``(min, max)``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), dim=1), S(arr(3, 4), dim=-1, keepdim=True),
                     S(_ties(), dim=1), S(_ties()), S(arr()), S(arr(0)), S(arr(0, 3), dim=0),
                     S(arr(0, 3), dim=1), S(arr(4, dtype="int64"), grad=False),
                     S(arr(3, 4), keepdim=True)]))


def _argmax_fn(kind):
    def fn(input, dim=None, keepdim=False):
        f = jnp.argmax if kind == "max" else jnp.argmin
        if dim is None:
            i = f(input.reshape(-1)).astype(jnp.int64)
            return i.reshape((1,) * input.ndim) if keepdim else i
        axis = wrap_dim(dim, input.ndim)
        idx = f(_as_1d_row(input, axis), axis=-1, keepdims=True)
        return _from_row(idx.astype(jnp.int64), axis, input.ndim, keepdim)
    return fn


def _argmax_check(kind):
    def check(input, dim=None, keepdim=False):
        if input.dtype is _dt.bool:
            raise RuntimeError(f"{kind}(): does not support bool input")
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"{kind}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            return
        _int_dim(kind, dim)
        _check_nonempty_dim(kind, input, dim)
    return check


for _k in ("max", "min"):
    register(OpSpec(
        "arg" + _k, _argmax_fn(_k), "input, dim=None, keepdim=False",
        check=_argmax_check("arg" + _k), differentiable=False,
        doc=f"Mirrors ``torch.arg{_k}``: the first index among ties; NaN wins.",
        samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), 0, True), S(_ties()),
                         S(_ties(), 1), S(arr()), S(arr(), 0), S(arr(3, 4), keepdim=True),
                         S(np.array([1.0, np.nan, 3.0], np.float32)),
                         S(arr(5, dtype="int64")), S(arr(0)), S(arr(0, 3), 0),
                         S(arr(0, 3), 1), S(arr(3, dtype="bool"))]))


# ---------------------------------------------------------------------------
# var / std and their _mean variants
def _var_binder(name):
    def bind(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):          # var(input, unbiased)
            if unbiased is not None or keepdim or correction is not None:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "both 'unbiased' and 'correction'")
        if correction is None:
            correction = 0 if unbiased is False else 1
        return (input, dim, correction, keepdim)
    return bind


def _var_core(x, dim, correction, keepdim):
    axes = _axes(x, dim)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    dev = x - mean
    sq = (dev.real ** 2 + dev.imag ** 2) if jnp.iscomplexobj(x) else dev * dev
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    denom = max(n - correction, 0)
    var = jnp.sum(sq, axis=axes, keepdims=keepdim) / jnp.asarray(denom, sq.dtype)
    return var, (mean if keepdim else jnp.squeeze(mean, axes if axes is not None
                                                  else tuple(range(x.ndim))))


def _safe_sqrt(v):
    # PyTorch's std_backward masks the gradient to 0 where the result is 0.
    zero = v == 0
    return jnp.where(zero, jnp.zeros_like(v), jnp.sqrt(jnp.where(zero, jnp.ones_like(v), v)))


def _var_fn(input, dim=None, correction=1, keepdim=False):
    return _var_core(input, dim, correction, keepdim)[0]


def _std_fn(input, dim=None, correction=1, keepdim=False):
    return _safe_sqrt(_var_core(input, dim, correction, keepdim)[0])


def _var_mean_fn(input, dim=None, correction=1, keepdim=False):
    return _var_core(input, dim, correction, keepdim)


def _std_mean_fn(input, dim=None, correction=1, keepdim=False):
    v, m = _var_core(input, dim, correction, keepdim)
    return _safe_sqrt(v), m


def _var_check(input, dim=None, correction=1, keepdim=False):
    if _is_int_like(input.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    _check_dims(input, dim)


def _var_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), keepdim=True),
            S(arr(3, 4), 1, False), S(arr(3, 4), 1, True, True), S(arr(3, 4), False),
            S(arr(3, 4), dim=0, correction=0), S(arr(3, 4), -1, correction=2, keepdim=True),
            S(arr(3, 4), 1, unbiased=False), S(np.full((2, 3), 1.5, np.float32), 1),
            S(arr(2, 3, 4, dtype="float64"), (0, 2)), S(arr()), S(arr(5, dtype="int64")),
            S(arr(3, 4), method=True), S(arr(3, 4), 1, method=True)]


for _n, _f, _g in (("var", _var_fn, "VarBackward0"), ("std", _std_fn, "StdBackward0")):
    _overloaded(OpSpec(
        _n, _f, "input, dim=None, correction=1, keepdim=False", check=_var_check,
        grad_name=_g, doc=f"Mirrors ``torch.{_n}``: ``{_n}(input, dim, unbiased, keepdim)`` "
        f"and ``{_n}(input, dim=None, *, correction=1, keepdim=False)``.",
        samples=_var_samples), _var_binder(_n))
for _n, _f, _g in (("var_mean", _var_mean_fn, "VarMeanBackward0"),
                   ("std_mean", _std_mean_fn, "StdMeanBackward0")):
    _overloaded(OpSpec(
        _n, _f, "input, dim=None, correction=1, keepdim=False", check=_var_check,
        grad_name=_g, method=False,
        doc=f"Mirrors ``torch.{_n}``: a plain tuple of the two results.",
        samples=lambda: [s for s in _var_samples() if not s.method]), _var_binder(_n))


# ---------------------------------------------------------------------------
# norm
def _abs_pow_norm(a, p, axes, keepdim):
    if p == math.inf:
        return jnp.max(a, axis=axes, keepdims=keepdim)
    if p == -math.inf:
        return jnp.min(a, axis=axes, keepdims=keepdim)
    if p == 0:
        return jnp.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=axes, keepdims=keepdim))
    return jnp.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


@partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _vector_norm(x, p, axes, keepdim):
    return _abs_pow_norm(jnp.abs(x), p, axes, keepdim)


def _vector_norm_fwd(x, p, axes, keepdim):
    out = _vector_norm(x, p, axes, keepdim)
    return out, (x, out)


def _vector_norm_bwd(p, axes, keepdim, res, g):
    # PyTorch's norm_backward, case by case.
    x, norm = res
    axes_ = tuple(range(x.ndim)) if axes is None else axes
    if not keepdim:
        norm = jnp.expand_dims(norm, axes_)
        g = jnp.expand_dims(g, axes_)
    a = jnp.abs(x)
    sgn = jnp.where(a == 0, jnp.zeros_like(x), x / jnp.where(a == 0, 1, a).astype(x.dtype))
    zero = jnp.zeros_like(x)
    if p == 0:
        return (zero,)
    if p == 1:
        return (sgn * g,)
    if p == 2:
        return (g * jnp.where(norm == 0, zero, x / norm),)
    if math.isinf(p):
        mask = (a == norm) | jnp.isnan(a)
        cnt = jnp.sum(mask, axis=axes_, keepdims=True).astype(g.dtype)
        return (sgn * jnp.where(mask, g / cnt, 0).astype(x.dtype),)
    if p < 1:
        scaled = sgn * jnp.where(x == 0, 0, a ** (p - 1)).astype(x.dtype)
        return (scaled * g * norm ** (1 - p),)
    scaled = sgn * a ** (p - 1) if p < 2 else x * a ** (p - 2)
    scale = jnp.where(norm == 0, 0, g / norm ** (p - 1))
    return (scaled * scale,)


_vector_norm.defvjp(_vector_norm_fwd, _vector_norm_bwd)


def _nuclear_norm(x, axes, keepdim):
    a = jnp.moveaxis(x, axes, (-2, -1))
    out = jnp.sum(jnp.linalg.svd(a, compute_uv=False), axis=-1)
    if keepdim:
        out = jnp.expand_dims(out, axes)
    return out


def _norm_plan(input_ndim, p, dim):
    """('vector', p, axes) or ('nuc', axes) following ``torch.norm``'s dispatch."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return ("vector", 2.0, dim)
        dims = tuple(range(input_ndim)) if dim is None else tuple(dim)
        return ("matrix", p, dims)
    return ("vector", 2.0 if p is None else float(p), dim)


def _norm_fn(input, p="fro", dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.np)
    kind, q, dims = _norm_plan(input.ndim, p, dim)
    if kind == "matrix":
        axes = tuple(wrap_dim(d, input.ndim) for d in dims)
        return _nuclear_norm(input, axes, keepdim)
    axes = _axes(input, dims)
    return _vector_norm(input, q, axes, keepdim)


def _norm_check(input, p="fro", dim=None, keepdim=False, dtype=None):
    kind, q, dims = _norm_plan(input.dim(), p, dim)
    name = "linalg.vector_norm" if kind == "vector" else "linalg.matrix_norm"
    d = dtype or input.dtype
    if _is_int_like(d):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_short(d)}")
    if kind == "matrix":
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                               f"{' '.join(str(x) for x in dims)}")
        if q != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {q} not supported.")
        a = [wrap_dim(x, input.dim()) for x in dims]
        if a[0] == a[1]:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, "
                               f"{dims[1]})")
        return
    axes = reduce_dims(input.dim(), dims)
    if input.numel() == 0 and (q < 0 or math.isinf(q)):
        if axes is None or any(input.shape[a] == 0 for a in axes if input.dim()):
            qs = f"{q:g}"
            raise RuntimeError(f"linalg.vector_norm cannot compute the {qs} norm on an empty "
                               "tensor because the operation does not have an identity")


register(OpSpec(
    "norm", _norm_fn, "input, p='fro', dim=None, keepdim=False, dtype=None",
    check=_norm_check, promote="none",
    grad_name=lambda input, p="fro", *r: "SumBackward1" if p == "nuc"
    else "LinalgVectorNormBackward0",
    doc="Mirrors ``torch.norm``: numeric ``p`` and ``'fro'`` are vector norms "
        "(``torch.linalg.vector_norm``), ``'nuc'`` the nuclear norm over two dims. "
        "The gradient is PyTorch's (0 where the norm is 0; for inf norms split evenly).",
    samples=lambda: [
        S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), 2, 1), S(arr(3, 4), float("inf")),
        S(arr(3, 4), -math.inf, 0), S(arr(3, 4), 0), S(arr(3, 4), 1.5, -1, True),
        S(arr(3, 4), 3.0, (0, 1)), S(arr(3, 4), 0.5), S(arr(3, 4), -1.0, 1),
        S(arr(3, 4), "fro", (0, 1)), S(arr(3, 4), "nuc"), S(arr(2, 3, 4), "nuc", (1, 2)),
        S(arr(2, 3, 4), "nuc", (0, 2), True), S(np.zeros((2, 3), np.float32)),
        S(np.zeros((2, 3), np.float32), 1, 1), S(np.zeros((2, 3), np.float32), 3.0),
        S(np.zeros((2, 3), np.float32), 0.5), S(np.zeros((2, 3), np.float32), math.inf),
        S(np.array([[0.0, 1.0], [-2.0, 0.0]], np.float32), 1),
        S(np.array([[3.0, -3.0], [1.0, 0.0]], np.float32), math.inf, 1),
        S(arr()), S(arr(), 1), S(arr(0)), S(arr(0), math.inf), S(arr(2, 3, 4), "fro"),
        S(arr(2, 3, 4), "fro", (0, 1, 2)), S(arr(2, 3), "abc"), S(arr(3, dtype="int64")),
        S(arr(3, 4, dtype="float64"), 2, dtype=_dt.float64), S(arr(3, 4), dim=1),
        S(arr(3, dtype="complex64"), grad=False), S(arr(3, 4), 2, method=True)]))


# ---------------------------------------------------------------------------
# all / any / count_nonzero
def _all_any_fn(kind):
    def fn(input, dim=None, keepdim=False):
        f = jnp.all if kind == "all" else jnp.any
        out = f(input != 0, axis=_axes(input, dim), keepdims=keepdim)
        return out.astype(jnp.uint8) if input.dtype == jnp.uint8 else out
    return fn


for _k in ("all", "any"):
    register(OpSpec(
        _k, _all_any_fn(_k), "input, dim=None, keepdim=False", check=_check_dims,
        differentiable=False, promote="none",
        doc=f"Mirrors ``torch.{_k}``: bool results (uint8 for uint8 input).",
        samples=lambda: [S(arr(3, 4, dtype="bool")), S(arr(3, 4, dtype="bool"), 1),
                         S(arr(3, 4, dtype="bool"), (0, 1), True), S(arr(3, 4), 0),
                         S(np.array([[1, 0], [2, 3]], np.int64), -1),
                         S(np.array([1, 2], np.uint8)), S(np.array([1, 0], np.uint8), 0),
                         S(arr(0, dtype="bool")), S(arr(0, 3), 1), S(arr()), S(arr(), 0),
                         S(np.array([0.0, np.nan], np.float32))]))


def _count_nonzero_fn(input, dim=None):
    return jnp.sum(input != 0, axis=_axes(input, dim)).astype(jnp.int64)


register(OpSpec(
    "count_nonzero", _count_nonzero_fn, "input, dim=None", check=_check_dims,
    differentiable=False, promote="none", doc="Mirrors ``torch.count_nonzero``.",
    samples=lambda: [S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32)),
                     S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32), 1),
                     S(arr(2, 3, 4, dtype="int64"), (0, 2)), S(arr(3, dtype="bool")),
                     S(arr()), S(arr(0, 3), 0), S(arr(2, 3), (0, 0))]))


# ---------------------------------------------------------------------------
# cumulative ops
def _cum_fn(kind):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.astype(dtype.np)
        elif jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
            input = input.astype(jnp.int64)
        if input.ndim == 0:
            return input
        axis = wrap_dim(dim, input.ndim)
        return (jnp.cumsum if kind == "sum" else jnp.cumprod)(input, axis=axis)
    return fn


def _cum_check(input, dim, dtype=None):
    _int_dim("cumsum", dim)
    wrap_dim(dim, input.dim())


def _cum_samples():
    return [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4), -1), S(arr(), 0), S(arr(0, 3), 0),
            S(np.array([2.0, 0.0, 3.0, 0.0, 1.5], np.float32), 0),
            S(arr(4, dtype="int32"), 0, grad=False), S(arr(4, dtype="bool"), 0, grad=False),
            S(arr(3, 4), 1, dtype=_dt.float64), S(arr(3, 4), 2), S(arr(3, 4), dim=-1)]


for _k in ("sum", "prod"):
    register(OpSpec(
        "cum" + _k, _cum_fn(_k), "input, dim, *, dtype=None", promote="none",
        check=_cum_check, saves=_k == "prod",
        doc=f"Mirrors ``torch.cum{_k}``: integer and bool inputs give int64 unless ``dtype``.",
        samples=_cum_samples))

_TYPEMETA = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}


def _cum_inplace(kind: str):
    def method(self: Tensor, dim: int, *, dtype=None) -> Tensor:
        from .bind import check_inplace_target, inplace_apply
        from .dispatch import dispatch
        from .spec import OPS
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{_TYPEMETA[self.dtype.name]} and output tensor dtype "
                               f"{_TYPEMETA[dtype.name]} should match")
        if self.dtype is _dt.bool:
            raise NotImplementedError(f'"cum{kind}_out_cpu" not implemented for \'Bool\'')
        check_inplace_target(self)
        spec = OPS["cum" + kind]
        return inplace_apply(self, dispatch(spec, method, (self, dim), {"dtype": self.dtype}))
    method.__name__ = f"cum{kind}_"
    method.__qualname__ = f"Tensor.cum{kind}_"
    method.__doc__ = (f"Mirrors ``torch.Tensor.cum{kind}_``: computed in this tensor's dtype "
                      f"(no int64 promotion).")
    return method


Tensor.cumsum_ = _cum_inplace("sum")
Tensor.cumprod_ = _cum_inplace("prod")


def _cum_extreme_idx(row, kind):
    """Indices of the running max/min along the last axis: later ties win and NaN
    propagates (the latest NaN), as PyTorch's cummax/cummin."""
    n = row.shape[-1]
    iota = lax.broadcasted_iota(jnp.int64, row.shape, row.ndim - 1)
    floating = jnp.issubdtype(row.dtype, jnp.floating)
    v = row.astype(jnp.uint8) if row.dtype == jnp.bool_ else row

    def combine(a, b):
        va, ia = a
        vb, ib = b
        better = vb >= va if kind == "max" else vb <= va
        if floating:
            better = jnp.isnan(vb) | (~jnp.isnan(va) & better)
        return jnp.where(better, vb, va), jnp.where(better, ib, ia)

    if n == 0:
        return iota
    _, idx = lax.associative_scan(combine, (v, iota), axis=row.ndim - 1)
    return idx


def _cummax_fn(kind):
    def fn(input, dim):
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        idx = _cum_extreme_idx(row, kind)
        vals = jnp.take_along_axis(row, idx, axis=-1)
        if input.ndim == 0:
            return vals.reshape(()), idx.reshape(())
        return jnp.moveaxis(vals, -1, axis), jnp.moveaxis(idx, -1, axis)
    return fn


for _k in ("max", "min"):
    register(OpSpec(
        "cum" + _k, _cummax_fn(_k), "input, dim", check=lambda input, dim: wrap_dim(
            dim, input.dim()), out_names=("values", "indices"), nondiff_outputs=(1,),
        doc=f"Mirrors ``torch.cum{_k}`` -> ``(values, indices)``; among ties the latest "
            f"index wins, as in PyTorch.",
        samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(_ties(), 1), S(_ties(), 0),
                         S(arr(), 0), S(arr(0, 3), 0),
                         S(np.array([1.0, np.nan, 3.0, np.nan, 0.0], np.float32), 0),
                         S(arr(5, dtype="int64"), 0, grad=False),
                         S(arr(5, dtype="bool"), 0, grad=False), S(arr(3, 4), -1)]))


def _logcumsumexp_fn(input, dim):
    if input.ndim == 0:
        return input
    return lax.cumlogsumexp(input, axis=wrap_dim(dim, input.ndim))


def _float_only(kernel):
    def check(input, *rest, **kw):
        if _is_int_like(input.dtype):
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_short(input.dtype)}'")
    return check


register(OpSpec(
    "logcumsumexp", _logcumsumexp_fn, "input, dim", promote="none",
    check=lambda input, dim: (_float_only("logcumsumexp_out_cpu")(input),
                              wrap_dim(dim, input.dim())),
    doc="Mirrors ``torch.logcumsumexp``.",
    samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4, dtype="float64"), -1),
                     S(arr(), 0), S(arr(0, 3), 1), S(arr(3, dtype="int64"), 0)]))


# ---------------------------------------------------------------------------
# logsumexp, softmax, log_softmax
def _logsumexp_fn(input, dim, keepdim=False):
    return jax.nn.logsumexp(input, axis=_axes(input, dim), keepdims=keepdim)


register(OpSpec(
    "logsumexp", _logsumexp_fn, "input, dim, keepdim=False", promote="float",
    check=_check_dims, doc="Mirrors ``torch.logsumexp`` (integers compute in the default "
                           "float dtype).",
    samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), (0, 1)), S(arr(3, 4), -1, True),
                     S(arr(), 0), S(arr(0, 3), 0), S(arr(0, 3), 1),
                     S(np.array([[-np.inf, 1.0], [-np.inf, -np.inf]], np.float32), 1,
                       grad=False),
                     S(arr(3, dtype="int64"), 0, grad=False), S(arr(3, 4), dim=0)]))


def _softmax_fn(log):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.astype(dtype.np)
        f = jax.nn.log_softmax if log else jax.nn.softmax
        if input.ndim == 0:
            return f(input.reshape(1), axis=0).reshape(())
        return f(input, axis=wrap_dim(dim, input.ndim))
    return fn


def _softmax_check(log):
    def check(input, dim, dtype=None):
        wrap_dim(dim, input.dim())
        if _is_int_like(dtype or input.dtype):
            last = input.dim() == 0 or wrap_dim(dim, input.dim()) == input.dim() - 1
            k = ("log_" if log else "") + "softmax" + ("_lastdim" if last else "")
            raise NotImplementedError(f'"{k}_kernel_impl" not implemented for '
                                      f"'{_short(dtype or input.dtype)}'")
    return check


for _n, _log in (("softmax", False), ("log_softmax", True)):
    register(OpSpec(
        _n, _softmax_fn(_log), "input, dim, dtype=None", promote="none",
        check=_softmax_check(_log),
        grad_name="LogSoftmaxBackward0" if _log else "SoftmaxBackward0",
        doc=f"Mirrors ``torch.{_n}(input, dim, dtype=None)`` and ``Tensor.{_n}``.",
        samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4), -1), S(arr(), 0),
                         S(arr(0, 3), 1), S(arr(3, 4), 1, dtype=_dt.float64),
                         S(arr(3, 4), dim=-1, method=True),
                         S(np.array([[-np.inf, 1.0, 2.0]], np.float32), 1),
                         S(arr(3, dtype="int64"), 0, grad=False),
                         S(arr(3, dtype="int64"), 0, _dt.float32, grad=False)]))


# ---------------------------------------------------------------------------
# median, nanmedian, mode
def _median_binder(name):
    def bind(input, dim=_MISSING, keepdim=False):
        if dim is _MISSING:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return (input, None, False)
        _int_dim(name, dim)
        return (input, int(dim), bool(keepdim))
    return bind


def _median_fn(ignore_nan):
    def fn(input, dim=None, keepdim=False):
        if dim is None:
            return _even_reduce(input, "nanmedian" if ignore_nan else "median", None, False,
                                True)
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        n = row.shape[-1]
        order = _argsort_last(row, False)       # (value, index) order, NaN last
        if jnp.issubdtype(row.dtype, jnp.floating):
            nan = jnp.isnan(row)
            if ignore_nan:
                k = jnp.maximum((n - jnp.sum(nan, -1, keepdims=True) - 1) // 2, 0)
                pos = jnp.take_along_axis(order, k, axis=-1)
            else:
                first_nan = jnp.argmax(nan, axis=-1, keepdims=True)
                pos = jnp.where(jnp.any(nan, -1, keepdims=True), first_nan,
                                order[..., (n - 1) // 2:(n - 1) // 2 + 1])
        else:
            pos = order[..., (n - 1) // 2:(n - 1) // 2 + 1]
        return _gather_dim(input, pos, axis, keepdim)
    return fn


def _median_check(name):
    def check(input, dim=None, keepdim=False):
        if dim is not None:
            _check_nonempty_dim(name, input, dim)
    return check


def _median_samples():
    return [S(arr(3, 4)), S(arr(3, 5)), S(arr(3, 4), 1), S(arr(3, 5), 0, True), S(_ties()),
            S(_ties(), 1), S(_ties(), 0), S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 0),
            S(np.full(8, 2.0, np.float32), 0), S(np.full(8, 2.0, np.float32)),
            S(np.array([[1.0, np.nan, 0.5], [np.nan, np.nan, 2.0], [1.0, 2.0, 3.0]],
                       np.float32), 1),
            S(np.array([1.0, np.nan, 0.5, 3.0], np.float32)),
            S(np.array([np.nan, np.nan], np.float32)), S(np.array([np.nan, np.nan],
                                                                  np.float32), 0),
            S(arr()), S(arr(), 0), S(arr(0)), S(arr(0, 3), 0), S(arr(0, 3), 1),
            S(arr(7, dtype="int64"), grad=False), S(arr(3, 5, dtype="int32"), 1, grad=False),
            S(arr(3, 4), dim=-1, keepdim=True)]


for _n, _ign in (("median", False), ("nanmedian", True)):
    _overloaded(OpSpec(
        _n, _median_fn(_ign), "input, dim=None, keepdim=False", check=_median_check(_n),
        out_names=("values", "indices"), nondiff_outputs=(1,),
        grad_name=_grad_name(f"{_n.capitalize()}Backward0", f"{_n.capitalize()}Backward1"),
        doc=f"Mirrors ``torch.{_n}``: the lower median. Without ``dim`` a tensor (gradient "
            f"split evenly among equal elements); with ``dim`` ``(values, indices)``, the "
            f"index being the k-th in (value, index) order, as PyTorch's CPU kernel.",
        samples=_median_samples), _median_binder(_n))


def _mode_row_index(row):
    """Index (shape [..., 1]) of PyTorch's mode: the smallest most frequent value, at its
    last occurrence."""
    n = row.shape[-1]
    order = _argsort_last(row, False)
    s = jnp.take_along_axis(_sort_key(row), order, axis=-1)
    new = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], -1)
    run = jnp.cumsum(new, axis=-1) - 1
    flat_run = run.reshape(-1, n)
    counts = jax.vmap(lambda r: jnp.zeros(n, jnp.int64).at[r].add(1))(flat_run)
    cnt = jnp.take_along_axis(counts, flat_run, axis=-1).reshape(run.shape)
    best = jnp.argmax(cnt, axis=-1, keepdims=True)          # first: smallest value
    best_run = jnp.take_along_axis(run, best, axis=-1)
    last = jnp.max(jnp.where(run == best_run, lax.broadcasted_iota(jnp.int64, run.shape,
                                                                     run.ndim - 1), -1),
                   axis=-1, keepdims=True)
    return jnp.take_along_axis(order, last, axis=-1)


def _mode_fn(input, dim=-1, keepdim=False):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    if row.shape[-1] == 0:
        idx = jnp.zeros(row.shape[:-1] + (1,), jnp.int64)[..., :0]
        return (_from_row(row[..., :0], axis, input.ndim, False),
                _from_row(idx, axis, input.ndim, False))
    return _gather_dim(input, _mode_row_index(row), axis, keepdim)


def _mode_check(input, dim=-1, keepdim=False):
    _int_dim("mode", dim)
    _check_nonempty_dim("mode", input, dim)


register(OpSpec(
    "mode", _mode_fn, "input, dim=-1, keepdim=False", check=_mode_check,
    out_names=("values", "indices"), nondiff_outputs=(1,),
    doc="Mirrors ``torch.mode`` -> ``(values, indices)``: the smallest most frequent value "
        "and the index of its last occurrence.",
    samples=lambda: [S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32)),
                     S(np.array([[1., 2, 2, 1, 3], [5, 5, 1, 1, 5]], np.float32), 1),
                     S(np.array([[1., 2, 2, 1, 3], [5, 5, 1, 1, 5]], np.float32), 0, True),
                     S(_ties(), 1), S(_ties(), 0), S(arr()), S(arr(3, 4)), S(arr(0, 3), 1),
                     S(arr(0, 3), 0), S(np.array([[1, 1, 2], [3, 2, 2]], np.int64), 1,
                                        grad=False)]))


# ---------------------------------------------------------------------------
# sort, argsort, msort, topk, kthvalue
def _sort_fn(input, dim=-1, descending=False, stable=False):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    idx = _argsort_last(row, descending)
    vals = jnp.take_along_axis(row, idx, axis=-1)
    if input.ndim == 0:
        return vals.reshape(()), idx.reshape(())
    return jnp.moveaxis(vals, -1, axis), jnp.moveaxis(idx, -1, axis)


def _sort_check(input, dim=-1, descending=False, stable=False):
    if input.dtype.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    wrap_dim(dim, input.dim())


def _sort_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 0), S(arr(3, 4), descending=True), S(_ties()),
            S(_ties(), 0, True), S(_ties(), descending=True, stable=True), S(arr()),
            S(arr(0, 3)), S(arr(2, 3, 4), -2),
            S(np.array([2.0, np.nan, 1.0, 2.0, np.nan, -np.inf], np.float32)),
            S(np.array([2.0, np.nan, 1.0, 2.0, np.nan, -np.inf], np.float32),
              descending=True),
            S(np.array([0.0, -0.0, 0.0, -0.0, -1.0], np.float32)),
            S(arr(6, dtype="int64"), grad=False), S(arr(6, dtype="bool"), grad=False),
            S(arr(3, 4), dim=1, stable=True), S(arr(3, 4), 2),
            S(arr(3, 4), method=True), S(arr(3, dtype="complex64"), grad=False)]


register(OpSpec(
    "sort", _sort_fn, "input, dim=-1, descending=False, *, stable=False",
    check=_sort_check, out_names=("values", "indices"), nondiff_outputs=(1,),
    doc="Mirrors ``torch.sort`` -> ``(values, indices)``. Always stable (as PyTorch's CPU "
        "sort); NaN sorts as the largest value; the gradient follows the indices.",
    samples=_sort_samples))


def _argsort_fn(input, dim=-1, descending=False, stable=False):
    return _sort_fn(input, dim, descending, stable)[1]


register(OpSpec(
    "argsort", _argsort_fn, "input, dim=-1, descending=False, *, stable=False",
    check=_sort_check, differentiable=False, doc="Mirrors ``torch.argsort`` (stable).",
    samples=lambda: [s for s in _sort_samples() if "complex" not in str(s.args[0].dtype)]))


def _msort_fn(input):
    return _sort_fn(input, 0)[0]


register(OpSpec(
    "msort", _msort_fn, "input", check=lambda input: _sort_check(input, 0),
    grad_name="SortBackward0", doc="Mirrors ``torch.msort``: sorted along dim 0.",
    samples=lambda: [S(arr(3, 4)), S(_ties()), S(arr(5)), S(arr()),
                     S(arr(4, dtype="int64"), grad=False)]))


def _topk_fn(input, k, dim=-1, largest=True, sorted=True):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    idx = _argsort_last(row, largest)[..., :k]
    vals = jnp.take_along_axis(row, idx, axis=-1)
    if input.ndim == 0:
        return vals.reshape(()), idx.reshape(())
    return jnp.moveaxis(vals, -1, axis), jnp.moveaxis(idx, -1, axis)


def _topk_check(input, k, dim=-1, largest=True, sorted=True):
    axis = wrap_dim(dim, input.dim())
    size = input.shape[axis] if input.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")


register(OpSpec(
    "topk", _topk_fn, "input, k, dim=-1, largest=True, sorted=True", check=_topk_check,
    out_names=("values", "indices"), nondiff_outputs=(1,),
    doc="Mirrors ``torch.topk`` -> ``(values, indices)``, always in sorted order. "
        "Difference: among equal values the lower index comes first, where PyTorch's CPU "
        "kernel (a partial sort) may pick others; values are the same.",
    samples=lambda: [S(arr(3, 5), 2), S(arr(3, 5), 3, 0), S(arr(3, 5), 2, largest=False),
                     S(arr(3, 5), 5, -1, False, True), S(arr(3, 5), 0), S(arr(), 1),
                     S(arr(0, 3), 0, 0), S(arr(3, 5), 6),
                     S(np.array([1.0, np.nan, 3.0, 2.0], np.float32), 2),
                     S(arr(6, dtype="int64"), 3, grad=False),
                     S(arr(2, 3, 4), 2, dim=1)]))


def _quickselect_row(arr, k):
    """PyTorch's ``quick_select_template`` (median-of-three quickselect) on one row:
    returns the permutation it leaves behind, so ties resolve to the index PyTorch's CPU
    kthvalue returns."""
    n = arr.shape[0]
    floating = jnp.issubdtype(arr.dtype, jnp.floating)

    def gt(a, b):
        r = a > b
        if floating:
            r = r | (jnp.isnan(a) & ~jnp.isnan(b))
        return r

    def swap(a, ix, p, q, do=True):
        ap, aq, ip, iq = a[p], a[q], ix[p], ix[q]
        a = a.at[p].set(jnp.where(do, aq, ap)).at[q].set(jnp.where(do, ap, aq))
        ix = ix.at[p].set(jnp.where(do, iq, ip)).at[q].set(jnp.where(do, ip, iq))
        return a, ix

    def body(s):
        a, ix, L, R, _ = s
        one = R <= L
        two = R == L + 1
        general = ~one & ~two
        # two elements
        a2, ix2 = swap(a, ix, L, R, two & gt(a[L], a[R]))
        # median of three, then partition around a[L]
        P = L + (R - L) // 2
        g, gi = swap(a2, ix2, P, L + 1, general)
        g, gi = swap(g, gi, L + 1, R, general & gt(g[L + 1], g[R]))
        g, gi = swap(g, gi, L, R, general & gt(g[L], g[R]))
        g, gi = swap(g, gi, L + 1, L, general & gt(g[L + 1], g[L]))
        piv = g[L]

        def pbody(ps):
            pa, pix, i, j, _ = ps
            i = lax.while_loop(lambda i: (i < R) & gt(piv, pa[i]), lambda i: i + 1, i + 1)
            j = lax.while_loop(lambda j: (j > L) & gt(pa[j], piv), lambda j: j - 1, j - 1)
            stop = j < i
            pa, pix = swap(pa, pix, i, j, ~stop)
            return pa, pix, i, j, stop

        g, gi, i, j, _ = lax.while_loop(lambda ps: ~ps[4], pbody,
                                        (g, gi, L + 1, R, ~general))
        g, gi = swap(g, gi, L, j, general)
        newL = jnp.where(general & (j <= k), i, L)
        newR = jnp.where(general & (j >= k), j - 1, R)
        return g, gi, newL, newR, ~general

    init = (arr, jnp.arange(n, dtype=jnp.int64), jnp.int64(0), jnp.int64(n - 1),
            jnp.array(False))
    _, ix, _, _, _ = lax.while_loop(lambda s: ~s[4], body, init)
    return ix


def _kthvalue_fn(input, k, dim=-1, keepdim=False):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    flat = _sort_key(row).reshape(-1, row.shape[-1])
    perm = jax.vmap(lambda r: _quickselect_row(r, k - 1))(flat)
    pos = perm[:, k - 1].reshape(row.shape[:-1] + (1,))
    return _gather_dim(input, pos, axis, keepdim)


def _kthvalue_check(input, k, dim=-1, keepdim=False):
    axis = wrap_dim(dim, input.dim())
    size = input.shape[axis] if input.dim() else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")


register(OpSpec(
    "kthvalue", _kthvalue_fn, "input, k, dim=-1, keepdim=False", check=_kthvalue_check,
    out_names=("values", "indices"), nondiff_outputs=(1,),
    doc="Mirrors ``torch.kthvalue`` -> ``(values, indices)`` of the k-th smallest; among "
        "ties the index is the one PyTorch's CPU quickselect returns.",
    samples=lambda: [S(arr(3, 5), 2), S(arr(3, 5), 1, 0), S(arr(3, 5), 5, -1, True),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 2),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 5),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 4),
                     S(np.ones(5, np.float32), 3), S(np.full(9, 2.0, np.float32), 4),
                     S(_ties(), 2), S(_ties(), 2, 0), S(arr(), 1), S(arr(3, 5), 6),
                     S(arr(3, 5), 0), S(np.array([1.0, np.nan, 0.5, np.nan], np.float32), 3),
                     S(arr(9, dtype="int64", low=-1, high=1), 4, grad=False),
                     S(arr(2, 3, 4), 2, dim=1)]))


# ---------------------------------------------------------------------------
# quantile, nanquantile
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(a, b, w):
    return jnp.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile_fn(ignore_nan):
    def fn(input, q, dim=None, keepdim=False, interpolation="linear"):
        qa = jnp.asarray(q, dtype=input.dtype)
        scalar_q = qa.ndim == 0
        qa = qa.reshape(-1)
        if dim is None:
            x = input.reshape(-1)
            axis = 0
        else:
            axis = wrap_dim(dim, input.ndim)
            x = _as_1d_row(input, axis)
        n = x.shape[-1]
        s = jnp.take_along_axis(x, _argsort_last(x, False), axis=-1)
        nan = jnp.isnan(s)
        if ignore_nan:
            cnt = jnp.sum(~nan, -1, keepdims=True).astype(qa.dtype)
            ranks = qa * (cnt - 1)
            ranks = jnp.where(ranks < 0, jnp.zeros_like(ranks), ranks)
        else:
            ranks = jnp.broadcast_to(qa * (n - 1), s.shape[:-1] + qa.shape)
            ranks = jnp.where(jnp.any(nan, -1, keepdims=True), jnp.asarray(n - 1, qa.dtype),
                              ranks)
        if interpolation == "lower":
            ranks = jnp.floor(ranks)
        elif interpolation == "higher":
            ranks = jnp.ceil(ranks)
        elif interpolation == "nearest":
            ranks = jnp.round(ranks)
        below = ranks.astype(jnp.int64)
        out = jnp.take_along_axis(s, below, axis=-1)
        if interpolation in ("linear", "midpoint"):
            w = jnp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
            above = jnp.take_along_axis(s, jnp.ceil(ranks).astype(jnp.int64), axis=-1)
            out = _lerp(out, above, w.astype(out.dtype))
        # out: reduced shape + (Q,)
        if keepdim:
            if dim is None:
                out = out.reshape((1,) * input.ndim + out.shape[-1:])
            elif input.ndim:
                out = jnp.expand_dims(out, axis)
        out = jnp.moveaxis(out, -1, 0)
        return out[0] if scalar_q else out
    return fn


def _quantile_check(name):
    def check(input, q, dim=None, keepdim=False, interpolation="linear"):
        if input.numel() == 0:
            raise RuntimeError(f"{name}() input tensor must be non-empty")
        if isinstance(q, Tensor) and q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if input.dtype not in (_dt.float32, _dt.float64):
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        if isinstance(q, Tensor) and q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if interpolation not in _INTERP:
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest, but got {interpolation}")
        if dim is not None:
            wrap_dim(dim, input.dim())
        if isinstance(q, Tensor):
            if isinstance(q._value, jax.core.Tracer):
                return
            qv = np.asarray(q._value)
            if not np.all((qv >= 0) & (qv <= 1)):
                raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        elif not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    return check


def _quantile_samples():
    f = np.float32
    return [S(arr(3, 5), 0.3), S(arr(3, 5), 0.5, 1), S(arr(3, 5), np.array([0.1, 0.5, 1.0], f),
                                                          0, True),
            S(arr(7), np.array(0.25, f)), S(arr(3, 5), 0.4, -1, interpolation="lower"),
            S(arr(3, 5), 0.4, -1, interpolation="higher"),
            S(arr(3, 5), 0.4, 1, interpolation="midpoint"),
            S(arr(3, 5), np.array([0.125, 0.375, 0.625], f), 1, interpolation="nearest"),
            S(arr(3, 5), 0.5, keepdim=True), S(arr(), 0.5), S(arr(), 0.5, 0),
            S(_ties(), 0.5, 1), S(_ties(), 0.0), S(_ties(), 1.0, 0),
            S(np.array([[1.0, np.nan, 2.0], [0.5, 3.0, 1.0], [np.nan] * 3], f), 0.5, 1),
            S(arr(3, 5, dtype="float64"), np.array([0.2, 0.8])),
            S(arr(3), 1.5), S(arr(0), 0.5), S(arr(3, dtype="int64"), 0.5),
            S(arr(3), np.array([0.5])), S(arr(3), 0.5, interpolation="foo"),
            S(arr(3), np.array([[0.5]], f))]


for _n, _ign in (("quantile", False), ("nanquantile", True)):
    register(OpSpec(
        _n, _quantile_fn(_ign), "input, q, dim=None, keepdim=False, *, "
        "interpolation='linear'", tensor_args=("input", "q"), promote="none",
        check=_quantile_check(_n), grad_name="SqueezeBackward4",
        doc=f"Mirrors ``torch.{_n}`` with PyTorch's rank arithmetic and interpolation modes.",
        samples=_quantile_samples))


# ---------------------------------------------------------------------------
# diff
def _diff_fn(input, n=1, dim=-1, prepend=None, append=None):
    axis = wrap_dim(dim, input.ndim)
    parts = [p for p in (prepend, input, append) if p is not None]
    x = jnp.concatenate(parts, axis=axis) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[axis]
        if m == 0:
            break
        hi = lax.slice_in_dim(x, 1, m, axis=axis)
        lo = lax.slice_in_dim(x, 0, m - 1, axis=axis)
        x = hi != lo if x.dtype == jnp.bool_ else hi - lo
    return x


def _diff_check(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = wrap_dim(dim, input.dim())
    for name, p in (("prepend", prepend), ("append", append)):
        if isinstance(p, Tensor):
            if p.dim() != input.dim() or any(a != b for i, (a, b) in
                                              enumerate(zip(p.shape, input.shape))
                                              if i != axis):
                raise RuntimeError(f"diff expects {name} to have the same number of "
                                   f"dimensions as input and the same shape except along "
                                   f"dim {axis}; got {shape_str(p.shape)} and "
                                   f"{shape_str(input.shape)}")


register(OpSpec(
    "diff", _diff_fn, "input, n=1, dim=-1, prepend=None, append=None",
    tensor_args=("input", "prepend", "append"), check=_diff_check, grad_name="SubBackward0",
    doc="Mirrors ``torch.diff`` (bool inputs use xor).",
    samples=lambda: [S(arr(5)), S(arr(3, 4)), S(arr(3, 4), 2, 0), S(arr(3, 4), 0),
                     S(arr(3, 4), 1, -1, arr(3, 1), arr(3, 2)), S(arr(3, 4), 5),
                     S(arr(4, dtype="int64"), grad=False), S(arr(5, dtype="bool"), grad=False),
                     S(arr(4), 1, 0, arr(1, dtype="float64")), S(arr(0)), S(arr()),
                     S(arr(4), -1)]))


# ---------------------------------------------------------------------------
# histc, bincount, searchsorted, bucketize
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


def _searchsorted_core(seq, values, out_int32, side):
    v = jnp.asarray(values)
    if seq.ndim == 1:
        out = jnp.searchsorted(seq, v, side=side)
    else:
        lead = seq.shape[:-1]
        s2 = seq.reshape(-1, seq.shape[-1])
        v2 = v.reshape(s2.shape[0], -1)
        out = jax.vmap(lambda s, x: jnp.searchsorted(s, x, side=side))(s2, v2)
        out = out.reshape(lead + v.shape[-1:])
    return out.astype(jnp.int32 if out_int32 else jnp.int64)


def _searchsorted_fn(sorted_sequence, input, out_int32=False, right=False, side=None,
                     sorter=None):
    if sorter is not None:
        sorted_sequence = jnp.take_along_axis(sorted_sequence, sorter, axis=-1)
    s = "right" if (side == "right" or (side is None and right)) else "left"
    return _searchsorted_core(sorted_sequence, input, out_int32, s)


def _searchsorted_check(sorted_sequence, input, out_int32=False, right=False, side=None,
                        sorter=None):
    if side not in (None, "left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                           f"got {side}")
    if side == "left" and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                           "got side of left while right was True")
    bs = tuple(sorted_sequence.shape)
    vs = tuple(input.shape) if isinstance(input, Tensor) else ()
    if len(bs) != 1 and (len(vs) != len(bs) or vs[:-1] != bs[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{shape_str(bs)} and input value tensor {shape_str(vs)}")
    if sorter is not None and tuple(sorter.shape) != bs:
        raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, "
                           f"but got boundary tensor {shape_str(bs)}and got sorter tensor "
                           f"{shape_str(tuple(sorter.shape))}")


register(OpSpec(
    "searchsorted", _searchsorted_fn,
    "sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None",
    tensor_args=("sorted_sequence", "input", "sorter"),
    promote_args=("sorted_sequence", "input"), method=False, differentiable=False,
    check=_searchsorted_check, doc="Mirrors ``torch.searchsorted``.",
    samples=lambda: [
        S(np.array([1., 3, 5, 7, 9], np.float32), np.array([3., 6, 9, 0, 10], np.float32)),
        S(np.array([1., 3, 5, 7, 9], np.float32), np.array([3., 6, 9], np.float32),
          right=True),
        S(np.array([1., 3, 5, 7, 9], np.float32), np.array([3., 6, 9], np.float32),
          side="right"),
        S(np.array([[1, 3, 5], [2, 4, 6]], np.int64), np.array([[3, 6], [1, 4]], np.int64),
          out_int32=True),
        S(np.array([1, 2, 3], np.int64), 2), S(np.array([1, 2, 3], np.int64),
                                                np.array([2.5], np.float32)),
        S(np.array([5., 1, 3], np.float32), np.array([2., 4], np.float32),
          sorter=np.array([1, 2, 0], np.int64)),
        S(np.array([[1, 2, 3], [1, 2, 3]], np.int64), np.array([[1, 2, 3]], np.int64))]))


def _bucketize_fn(input, boundaries, out_int32=False, right=False):
    return _searchsorted_core(boundaries, input, out_int32, "right" if right else "left")


def _bucketize_check(input, boundaries, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")


register(OpSpec(
    "bucketize", _bucketize_fn, "input, boundaries, *, out_int32=False, right=False",
    tensor_args=("input", "boundaries"), method=False, differentiable=False,
    check=_bucketize_check, doc="Mirrors ``torch.bucketize``.",
    samples=lambda: [
        S(np.array([[1., 6, 9], [3, 5, 10]], np.float32), np.array([1., 3, 5, 7, 9],
                                                                   np.float32)),
        S(np.array([1., 6, 9], np.float32), np.array([1., 3, 5, 7, 9], np.float32),
          right=True),
        S(np.array([1, 6, 9], np.int64), np.array([1, 3, 5], np.int64), out_int32=True),
        S(2, np.array([1, 2, 3], np.int64)), S(arr(0), np.array([1., 2], np.float32)),
        S(np.array([2], np.int64), np.array([[1, 2, 3]], np.int64))]))


# ---------------------------------------------------------------------------
# unique, unique_consecutive, nonzero, argwhere (see Note [Data-dependent output shapes])
def _unique_binder(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    size = 0
    if isinstance(input, Tensor):
        h = _host(input)
        if dim is None:
            size = int(np.unique(h.reshape(-1)).size)
        else:
            d = wrap_dim(dim, h.ndim)
            if h.ndim and h.shape[d]:
                size = int(np.unique(np.moveaxis(h, d, 0).reshape(h.shape[d], -1),
                                     axis=0).shape[0])
    return (input, sorted, return_inverse, return_counts, dim, size)


def _unique_fn(input, sorted=True, return_inverse=False, return_counts=False, dim=None,
               size=0):
    if dim is None:
        flat = input.reshape(-1)
        out, inv, cnt = jnp.unique(flat, return_inverse=True, return_counts=True, size=size)
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
                                     size=size)
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
        S(np.array([[1, 2]], np.int64), dim=2)]), _unique_binder)


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
