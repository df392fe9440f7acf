"""Helpers shared by the reduction families (``reduction.py``, ``statistics.py``,
``sorting.py``, ``cumulative.py``, ``counting.py``): dim normalisation and checks, the
row layout along which value-selecting reductions pick and gather, a sort key with
PyTorch's order, and the kernel that splits a full max/min/median's gradient evenly
among ties. They declare no ops.

# Note [Subgradient conventions]
# Gradients come from ``jax.vjp`` of each pure function, so where PyTorch's derivative
# formula picks a particular subgradient the function is written to produce it:
#  - value-selecting reductions with a ``dim`` (max/min/median/mode/kthvalue/sort/topk/
#    cummax) compute indices first and gather the values with ``take_along_axis``, so the
#    gradient goes to the returned index only;
#  - full max/min/median and amax/amin/aminmax split the gradient evenly among ties
#    (PyTorch's ``evenly_distribute_backward`` / ``scale_grad_by_count``), written as a
#    ``jax.custom_jvp`` whose tangent is the transpose of that backward (Note [Tangent
#    rules as the transpose of the VJP]) because NaNs need PyTorch's masks;
#  - vector norms use PyTorch's ``norm_backward`` (gradient 0 where the norm is 0),
#    and ``std`` gives 0 where the standard deviation is 0.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.tensor import Tensor, wrap_dim
from .dispatch import prepare
from .spec import OpSpec, register
from .transposed_jvp import custom_jvp_from_vjp

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


def _pick_row(input, axis, row, idx):
    """``(values, indices)`` of ``row`` (``_as_1d_row(input, axis)``) at the indices
    ``idx`` along its last axis, moved back to ``axis`` of ``input``'s layout."""
    vals = jnp.take_along_axis(row, idx, axis=-1)
    if input.ndim == 0:
        return vals.reshape(()), idx.reshape(())
    return jnp.moveaxis(vals, -1, axis), jnp.moveaxis(idx, -1, axis)


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
    out = _even_reduce(x, kind, axes, keepdim, nan_mask)
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
    # scale_grad_by_count: (grad / count) * mask, NaN when nothing matched (a NaN result).
    # The mask is spelled as a select, not a converted bool, which XLA would fold with
    # the product into a select that drops the NaN; a product rather than a where keeps
    # it in the transpose too (the tangent, NaN there as PyTorch's amaxamin_jvp)
    factor = jnp.where(count == 0, jnp.nan, jnp.where(mask, 1, 0)).astype(g.dtype)
    return ((g / count * factor).astype(x.dtype),)


# a custom_jvp whose tangent is bwd's transpose: Note [Tangent rules as the transpose
# of the VJP] in transposed_jvp.py
_even_reduce = custom_jvp_from_vjp(
    lambda x, kind, axes, keepdim, nan_mask: _even_forward(x, kind, axes, keepdim),
    _even_fwd, _even_bwd, nondiff_argnums=(1, 2, 3, 4))
