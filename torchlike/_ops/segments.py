"""``torch.segment_reduce``: sum, mean, max, min or prod over consecutive segments of an
axis, the segments given by their lengths or offsets.

The kernel is one table op, ``_segment_reduce`` (data, offsets): each position of the
reduced axis gets the id of its segment, and ``jax.ops.segment_*`` reduce all rows at
once; its gradient is ATen's ``_segment_reduce_backward`` formula (Note [Segment
reduction's gradient]). ``segment_reduce`` checks the arguments as ATen's
``segment_reduce_kernel`` does and turns lengths into offsets.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .dispatch import call_op
from .nn_common import host, is_traced
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["segment_reduce"]

_REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
               "amin": "min", "prod": "prod"}
_CHECK_SUFFIX = ("  (Could this error message be improved?  If so, please report an "
                 "enhancement request to PyTorch.)")

# Note [Segment reduction's gradient]
# ATen's backward is not the plain derivative in two places, and torchlike keeps both:
# - max/min: every element equal to its segment's result, or NaN, gets the segment's
#   gradient; when a segment has two or more such elements, only the *positive*
#   gradients among them are divided by their count (a negative one stays whole).
# - prod: an element that is neither 0 nor NaN gets grad * result / x; a 0 or NaN gets
#   grad times the product of the other elements (and ``initial``), computed here from
#   the segment's counts of zeros and NaNs and its product of the other elements.
# mean divides the gradient by the segment's length (``initial`` is not counted).
# The gradient is a jax.custom_vjp of the kernel; ATen's backward has no derivative of
# its own (a second backward raises there), while here it is differentiable again: the
# products are a segmented associative scan, since XLA's scatter-multiply has no
# gradient.


def _segments(offsets, n: int, outer: int, s: int):
    """Each position's flat segment id (``outer * s`` for a position in no segment)."""
    off = offsets.reshape(outer, s + 1).astype(jnp.int64)
    pos = jnp.arange(n, dtype=jnp.int64)
    seg = jax.vmap(lambda o: jnp.searchsorted(o, pos, side="right"))(off) - 1
    valid = (seg >= 0) & (seg < s)
    ids = jnp.where(valid, jnp.arange(outer, dtype=jnp.int64)[:, None] * s + seg, outer * s)
    return ids.reshape(-1), jnp.diff(off, axis=-1).reshape(-1)


def _segment_reduce_kernel(data, offsets, reduce, axis, initial):
    outer_shape, n, inner_shape = data.shape[:axis], data.shape[axis], data.shape[axis + 1:]
    outer, inner = math.prod(outer_shape), math.prod(inner_shape)
    s = offsets.shape[-1] - 1
    ids, length = _segments(offsets, n, outer, s)
    nseg = outer * s + 1
    dt = data.dtype

    def seg_sum(v):
        return jax.ops.segment_sum(v, ids, nseg)[:-1]

    def seg_prod(v):
        # a segmented scan rather than jax.ops.segment_prod, whose scatter-multiply has
        # no gradient: the backward of prod must be differentiable again
        if v.shape[0] == 0:
            return jnp.ones((nseg - 1, inner), dt)
        first = jnp.concatenate([jnp.ones(1, bool), ids[1:] != ids[:-1]])

        def combine(a, b):
            return jnp.where(b[1][:, None], b[0], a[0] * b[0]), a[1] | b[1]

        scanned, _ = jax.lax.associative_scan(combine, (v, first))
        last = jax.ops.segment_max(jnp.arange(v.shape[0]), ids, nseg)[:-1]
        count = seg_sum(jnp.ones(v.shape[0], jnp.int32))
        return jnp.where((count > 0)[:, None], scanned[jnp.clip(last, 0)],
                         jnp.ones((), dt))

    def forward(x):
        x = x.reshape(outer * n, inner)
        if reduce in ("sum", "mean"):
            r = seg_sum(x)
            if initial is not None:
                r = r + jnp.asarray(initial, dt)
            if reduce == "mean":
                lens = length[:, None]
                empty = jnp.asarray(jnp.nan if initial is None else initial, dt)
                r = jnp.where(lens > 0, r / jnp.maximum(lens, 1).astype(dt), empty)
        elif reduce == "prod":
            r = seg_prod(x)
            if initial is not None:
                r = r * jnp.asarray(initial, dt)
        else:
            red = jax.ops.segment_max if reduce == "max" else jax.ops.segment_min
            r = red(x, ids, nseg)[:-1]
            r = jnp.where(seg_sum(jnp.isnan(x).astype(jnp.int32)) > 0,
                          jnp.asarray(jnp.nan, dt), r)
            if initial is not None:
                pick = jnp.maximum if reduce == "max" else jnp.minimum
                r = pick(r, jnp.asarray(initial, dt))
        return r

    def backward(x, r, g):
        x = x.reshape(outer * n, inner)
        pad = jnp.zeros((1, inner), dt)
        at = lambda v: jnp.concatenate([v, pad])[ids]            # per-element gather
        inside = (ids < outer * s)[:, None]
        if reduce == "sum":
            gx = at(g)
        elif reduce == "mean":
            gx = at(g / jnp.maximum(length, 1)[:, None].astype(dt))
        elif reduce in ("max", "min"):
            tie = (jnp.isnan(x) | (x == at(r))) & inside
            gx = jnp.where(tie, at(g), jnp.zeros((), dt))
            count = at(seg_sum(tie.astype(dt)))
            gx = jnp.where((count >= 2) & (gx > 0), gx / jnp.maximum(count, 1), gx)
        else:
            special = (x == 0) | jnp.isnan(x)
            regular = seg_prod(jnp.where(special, jnp.ones((), dt), x))
            if initial is not None:
                regular = regular * jnp.asarray(initial, dt)
            zeros = seg_sum((x == 0).astype(jnp.int32))
            nans = seg_sum(jnp.isnan(x).astype(jnp.int32))
            other_nan = at(nans) - jnp.isnan(x) > 0
            other_zero = at(zeros) - (x == 0) > 0
            exclusive = jnp.where(other_nan, jnp.asarray(jnp.nan, dt),
                                  jnp.where(other_zero, jnp.zeros((), dt), at(regular)))
            safe = jnp.where(special, jnp.ones((), dt), x)
            gx = jnp.where(special, at(g) * exclusive, at(g * r) / safe)
        return jnp.where(inside, gx, jnp.zeros((), dt)).reshape(data.shape)

    @jax.custom_vjp
    def f(x):
        return forward(x)

    def fwd(x):
        r = forward(x)
        return r, (x, r)

    def bwd(res, g):
        return (backward(*res, g),)

    f.defvjp(fwd, bwd)
    return f(data).reshape(*outer_shape, s, *inner_shape)


def _samples():
    off = np.array([0, 2, 2, 5, 6])
    off2 = np.array([[0, 1, 3], [0, 3, 3]])
    return [S(arr(6), off, "sum", 0, None), S(arr(6), off, "mean", 0, 2.0),
            S(arr(6, 3), off, "max", 0, None), S(arr(6, 3), off, "min", 0, -1.0),
            S(arr(6, 2, dtype="float64"), off, "prod", 0, None),
            S(arr(2, 3, 2), off2, "sum", 1, None)]


register(OpSpec(
    "_segment_reduce", _segment_reduce_kernel, "data, offsets, reduce, axis, initial",
    tensor_args=("data", "offsets"), promote="none", function=False, method=False,
    grad_name="SegmentReduceBackward0",
    doc="Kernel of ``torch.segment_reduce`` over int64 ``offsets`` of shape "
        "``(*data.shape[:axis], S + 1)``.",
    samples=_samples))


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise RuntimeError(f"Expected {what} to be true, but got false.{_CHECK_SUFFIX}")


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None,
                   indices: Tensor | None = None, offsets: Tensor | None = None,
                   axis: int = 0, unsafe: bool = False,
                   initial: float | complex | None = None) -> Tensor:
    """Mirrors ``torch.segment_reduce``: reduce ``data`` along ``axis`` over consecutive
    segments given by ``lengths`` (or ``offsets``, which take precedence), the last
    dimension of which is ``axis``; ``reduce`` is ``sum``, ``mean``, ``max``/``amax``,
    ``min``/``amin`` or ``prod``. An empty segment gives ``initial`` if given, else 0
    (sum), 1 (prod), NaN (mean), -inf (max) or inf (min). Without ``unsafe`` the lengths
    must be non-negative and sum to ``data.size(axis)``. Differentiable with ATen's
    gradient (Note [Segment reduction's gradient]); ``indices`` is not supported, as in
    PyTorch. Floating ``data`` only, int32/int64 lengths and offsets.

    >>> import torchlike as torch
    >>> torch.segment_reduce(torch.tensor([1., 2, 3, 4]), "sum", lengths=torch.tensor([1, 3]))
    tensor([1., 9.])
    """
    axis = wrap_dim(axis, data.dim())
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    for name, t in (("lengths", lengths), ("offsets", offsets)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"segment_reduce(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    from .linalg import dtype_title
    kind = "offsets" if offsets is not None else "lengths"
    seg = offsets if offsets is not None else lengths
    _check(data.dim() >= seg.dim(), f"data.dim() >= {kind}_value.dim()")
    if axis != seg.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"{kind} but got {axis}.")
    checked = not is_traced(seg)
    if kind == "lengths" and not unsafe and checked:
        lv = host(lengths)
        if lv.size == 0:
            raise RuntimeError("min(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the "
                               "'dim' argument.")
        if lv.min() < 0:
            raise RuntimeError("lengths contains negative value!")
        if not (lv.sum(-1) == data.shape[axis]).all():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis "
                               "to sum to data.size(lengths.dim()-1) when !unsafe.")
    if seg.dtype not in (_dt.int32, _dt.int64):
        raise NotImplementedError(f"\"_segment_reduce_{kind}_cpu_kernel1\" not implemented "
                                  f"for '{dtype_title(seg.dtype)}'")
    if data.dtype not in (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64):
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{dtype_title(data.dtype)}'")
    if tuple(seg.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError(f"segment_reduce(): Expected {kind} of shape "
                           f"{tuple(data.shape[:axis])} + (segments,), got "
                           f"{tuple(seg.shape)}")
    if kind == "lengths":
        if unsafe and checked:
            _check(bool((host(lengths) >= 0).all()), "lengths_data[dim] >= 0")
        from .. import cat, cumsum, zeros
        start = zeros((*seg.shape[:-1], 1), dtype=seg.dtype, device=seg.device)
        offsets = cat([start, cumsum(lengths, -1)], -1)
    elif checked:
        _check(bool((np.diff(host(offsets), axis=-1) >= 0).all()), "segment_length >= 0")
    if isinstance(initial, bool):
        initial = int(initial)
    return call_op("_segment_reduce", data, offsets.to(_dt.int64), _REDUCTIONS[reduce],
                   axis, initial)
