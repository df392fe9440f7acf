"""Sorting and searching in sorted order: sort, argsort, msort, topk, kthvalue,
searchsorted and bucketize. Each is declared once; see spec.py. Values are gathered at
the sorted indices, so gradients follow them (Note [Subgradient conventions] in
reduction_common.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .reduction_common import (_argsort_last, _as_1d_row, _gather_dim, _pick_row, _sort_key,
                               _ties)
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# sort, argsort, msort, topk, kthvalue
def _sort_fn(input, dim=-1, descending=False, stable=False):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    idx = _argsort_last(row, descending)
    return _pick_row(input, axis, row, idx)


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
    return _pick_row(input, axis, row, idx)


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
    # Every sample's gradient compiles quickselect twice (over a second): the gradient
    # is a gather at the returned index, which the forward samples' index parity
    # covers, so only the first sample, the ties and the 3-d one are differentiated.
    samples=lambda: [S(arr(3, 5), 2), S(arr(3, 5), 1, 0, grad=False),
                     S(arr(3, 5), 5, -1, True, grad=False),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 2, grad=False),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 5, grad=False),
                     S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 4, grad=False),
                     S(np.ones(5, np.float32), 3, grad=False),
                     S(np.full(9, 2.0, np.float32), 4, grad=False),
                     S(_ties(), 2), S(_ties(), 2, 0, grad=False), S(arr(), 1, grad=False),
                     S(arr(3, 5), 6), S(arr(3, 5), 0),
                     S(np.array([1.0, np.nan, 0.5, np.nan], np.float32), 3, grad=False),
                     S(arr(9, dtype="int64", low=-1, high=1), 4, grad=False),
                     S(arr(2, 3, 4), 2, dim=1)]))


# ---------------------------------------------------------------------------
# searchsorted, bucketize
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
