"""Histograms that return their bin edges: ``histogram`` and ``histogramdd``.

``histc`` (counting.py) is the legacy equal-width histogram without edges; these follow
PyTorch's newer kernel (aten/src/ATen/native/cpu/HistogramKernel.cpp), which ``histc``
also uses.

# Note [Where a value lands]
# PyTorch builds equal-width edges with ``linspace`` in the input's dtype and then bins
# each value in two steps: a guess ``pos = int((x - left) * bins / (right - left))``
# computed in that dtype, corrected by a search among the edges ``pos - 1 .. pos + 1``
# (``std::upper_bound``), so that the returned histogram agrees with the returned
# edges. Explicit edge tensors are searched with ``std::upper_bound`` over all edges.
# Both are reproduced step by step: the edges with PyTorch's linspace formula, which
# its CPU kernel computes with fused multiply-adds (``start + step * i`` for the lower
# half, ``end - step * (n - 1 - i)`` for the upper half), the guess with the same
# rounding, and the search as libstdc++'s loop (also for unsorted edges). A value close
# to an edge can therefore land in a different bin than with ``numpy.histogram``, but
# in the same bin as with PyTorch. float16/bfloat16 arithmetic rounds after every
# operation, as ``c10::Half`` does (XLA would otherwise keep float32 intermediates).
# The last bin includes its right edge; values outside the edges and NaN are ignored.
#
# Note [Histograms have no derivative]
# PyTorch records histograms with a ``NotImplemented`` node when an input requires
# grad: the results require grad, and a backward through them raises
# "derivative for aten::histogram is not implemented". The values are computed from
# ``stop_gradient`` inputs and then passed, with the inputs, through ``_no_derivative``
# (an identity for JAX that depends on the inputs and whose VJP raises that error), so
# the dispatcher records the op as usual and the error comes at backward time, as in
# PyTorch. ``histogramdd`` with equal-width bins is two ops in PyTorch, the edges
# (``_histogramdd_bin_edges``) and the histogram (``_histogramdd_from_bin_cts``), and
# here too, so each names its own op.
"""

from __future__ import annotations

import math
import operator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import invalid_arguments, shape_str
from .bind import FUNCTIONS
from .dispatch import call_op
from .reduction_common import _overloaded, _short
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["histogramdd"]

_NOT_IMPLEMENTED = "torch::autograd::NotImplemented"

_cpp = _dt.cpp_name   # the dtype names PyTorch's histogram messages print
_KERNEL_DTYPES = ("float32", "float64", "float16", "bfloat16")
_LOW_PRECISION = (jnp.float16, jnp.bfloat16)


def _g(v: float) -> str:
    """A double as C++'s ``operator<<`` prints it (``%g``)."""
    return format(float(v), "g")


# ---------------------------------------------------------------------------
# Note [Histograms have no derivative]
def _no_derivative(op: str):
    """``f(out, inputs) -> out`` whose VJP raises PyTorch's error: ``out`` depends on
    ``inputs`` for JAX, so any backward through ``out`` reaches it."""
    @jax.custom_vjp
    def f(out, inputs):
        return out

    def fwd(out, inputs):
        return out, None

    def bwd(_, g):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    f.defvjp(fwd, bwd)
    return f


_ND = {op: _no_derivative(op) for op in (
    "histogram", "_histogramdd_bin_edges", "_histogramdd_from_bin_cts",
    "_histogramdd_from_bin_tensors")}


def _nd(op: str, out, *inputs):
    return _ND[op](out, tuple(x for x in inputs if x is not None))


# ---------------------------------------------------------------------------
# arithmetic in the input's dtype (Note [Where a value lands])
def _rounder(dt):
    """Rounds a float32 intermediate to ``dt`` (float16/bfloat16), as each ``c10::Half``
    operation does; the barrier keeps XLA from dropping the round trip."""
    if dt not in _LOW_PRECISION:
        return lambda v: v
    return lambda v: lax.optimization_barrier(v.astype(dt)).astype(jnp.float32)


def _div(a, b):
    """``a / b`` correctly rounded: XLA's CPU compiler turns a division by a broadcast
    value into a multiplication by its reciprocal, which can differ in the last bit."""
    b = jnp.broadcast_to(b, jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b)))
    return a / lax.optimization_barrier(b)


def _two_sum(a, b):
    """``s + err == a + b`` exactly (the barrier keeps XLA from simplifying the terms)."""
    s = lax.optimization_barrier(a + b)
    bp = s - a
    return s, (a - (s - bp)) + (b - bp)


def _fma(a, b, c, dt):
    """``a * b + c`` with one rounding, as the fused multiply-add of PyTorch's linspace
    kernel (``b`` holds small integers)."""
    if dt == jnp.float32:
        return (a.astype(jnp.float64) * b.astype(jnp.float64) + c).astype(jnp.float32)
    # float64: split ``a`` so that both partial products are exact, then add the three
    # terms with error-free sums
    bits = lax.bitcast_convert_type(a, jnp.int64)
    a_hi = lax.bitcast_convert_type(bits & jnp.int64(~((1 << 27) - 1)), jnp.float64)
    a_lo = a - a_hi
    s1, e1 = _two_sum(a_hi * b, a_lo * b)
    s2, e2 = _two_sum(c, s1)
    exact = s2 + (e1 + e2)
    return jnp.where(jnp.isfinite(a) & jnp.isfinite(c), exact, a * b + c)


def _linspace(start, end, steps: int, dt):
    """PyTorch's CPU ``linspace(start, end, steps)`` in ``dt`` (start/end: doubles)."""
    i = np.arange(steps)
    half = steps // 2
    if dt in _LOW_PRECISION:   # start and end are static here (a range, or 0 and 1)
        r = _rounder(dt)
        s = jnp.asarray(np.asarray(start, np.float64).astype(dt), jnp.float32)
        e = jnp.asarray(np.asarray(end, np.float64).astype(dt), jnp.float32)
        step = r(_div(r(e - s), r(jnp.float32(steps - 1))))
        lo = r(s + r(step * r(jnp.asarray(i, jnp.float32))))
        hi = r(e - r(step * r(jnp.asarray(steps - 1 - i, jnp.float32))))
        return jnp.where(i < half, lo, hi).astype(dt)
    s = jnp.asarray(start, jnp.float64).astype(dt)
    e = jnp.asarray(end, jnp.float64).astype(dt)
    step = _div(e - s, jnp.asarray(steps - 1, dt))
    if steps > 1 << 26:   # beyond the exact-split range of ``_fma``
        return jnp.where(i < half, s + step * i.astype(dt), e - step * (steps - 1 - i))
    lo = _fma(step, jnp.asarray(i, dt), s, dt)
    hi = _fma(-step, jnp.asarray(steps - 1 - i, dt), e, dt)
    return jnp.where(i < half, lo, hi)


def _upper_bound(edges, v, first, length, rounds: int):
    """libstdc++'s ``std::upper_bound(edges + first, edges + first + length, v)`` for
    every element of ``v``, as indices into ``edges``."""
    last = edges.shape[0] - 1
    for _ in range(rounds):
        active = length > 0
        half = length >> 1
        middle = first + half
        left = v < edges[jnp.clip(middle, 0, last)]
        first = jnp.where(active & ~left, middle + 1, first)
        length = jnp.where(active, jnp.where(left, half, length - half - 1), length)
    return first


def _bin_of(v, edges, local_search: bool, r):
    """(in range, bin index) of each value of ``v`` among ``edges`` (compute dtype)."""
    n = edges.shape[0]
    left, right = edges[0], edges[n - 1]
    inside = (v >= left) & (v <= right)
    if local_search:
        guess = r(_div(r(r(v - left) * r(jnp.asarray(n - 1, v.dtype))), r(right - left)))
        guess = jnp.clip(jnp.where(jnp.isnan(guess), 0, guess), 0, n - 1)
        pos = jnp.trunc(guess).astype(jnp.int64)
        first = jnp.maximum(pos - 1, 0)
        length = jnp.minimum(pos + 2, n) - first
        found = _upper_bound(edges, v, first, length, 2)
    else:
        zeros = jnp.zeros(v.shape, jnp.int64)
        found = _upper_bound(edges, v, zeros, zeros + n, int(n).bit_length())
    pos = found - 1
    pos = jnp.where(pos == n - 1, pos - 1, pos)   # the last bin includes its right edge
    return inside, pos


def _histogram_core(x2, edges, weight, density: bool, local_search: bool):
    """PyTorch's ``histogramdd_out_cpu_template``: ``x2`` (M, N), ``edges`` N 1-d
    arrays, ``weight`` (M,) or None, all of ``x2``'s dtype."""
    dt = x2.dtype
    ct = jnp.float32 if dt in _LOW_PRECISION else dt
    r = _rounder(dt)
    sizes = tuple(int(e.shape[0]) - 1 for e in edges)
    total = math.prod(sizes)
    valid = jnp.ones(x2.shape[0], bool)
    index = jnp.zeros(x2.shape[0], jnp.int64)
    stride = total
    for d, e in enumerate(edges):
        stride //= max(sizes[d], 1)
        inside, pos = _bin_of(x2[:, d].astype(ct), e.astype(ct), local_search, r)
        valid = valid & inside
        index = index + pos * stride
    w = jnp.ones(x2.shape[0], dt) if weight is None else weight
    if edges:
        hist = jnp.zeros(total, dt).at[jnp.where(valid, index, total)].add(w, mode="drop")
        hist = hist.reshape(sizes)
    else:   # no dimensions: PyTorch leaves the 0-d histogram at zero
        hist = jnp.zeros((), dt)
    if density:
        h = hist.astype(ct)
        h = r(_div(h, r(jnp.sum(h))))
        for d, e in enumerate(edges):
            e = e.astype(ct)
            shape = [1] * len(edges)
            shape[d] = sizes[d]
            h = r(_div(h, r(e[1:] - e[:-1]).reshape(shape)))
        hist = h.astype(dt)
    return hist


def _outer_edges(x2, ranges):
    """PyTorch's ``select_outer_bin_edges``: per dimension the (left, right) doubles
    (a range, the data's min and max, or (0, 1) for empty input), an empty span widened
    by 0.5 each way; and whether the data gave a non-finite range (checked eagerly; when
    traced, the histogram becomes NaN instead of raising)."""
    n = x2.shape[1]
    if ranges is not None:
        lo = np.asarray(ranges[0::2], np.float64)
        hi = np.asarray(ranges[1::2], np.float64)
        same = lo == hi
        return np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi), None
    if x2.shape[0] == 0:
        return np.zeros(n), np.ones(n), None
    lo = jnp.min(x2, axis=0).astype(jnp.float64)
    hi = jnp.max(x2, axis=0).astype(jnp.float64)
    same = lo == hi
    bad = ~jnp.all(jnp.isfinite(lo) & jnp.isfinite(hi))
    return jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi), bad


def _equal_width(x2, bin_cts, ranges):
    """The edges of ``bin_cts`` equal-width bins per dimension, in ``x2``'s dtype."""
    lo, hi, bad = _outer_edges(lax.stop_gradient(x2), ranges)
    edges = [_linspace(lo[d], hi[d], b + 1, x2.dtype) for d, b in enumerate(bin_cts)]
    return edges, bad


def _poison(hist, bad):
    return hist if bad is None else jnp.where(bad, jnp.nan, hist).astype(hist.dtype)


# ---------------------------------------------------------------------------
# checks (PyTorch's order: prepare_out, select_outer_bin_edges, linspace,
# histogramdd_check_inputs, then the kernel's dtype dispatch)
def _check_bins_positive(bin_cts) -> None:
    for d, b in enumerate(bin_cts):
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for "
                               f"dimension {d}")


def _check_outer(input: Tensor, n: int, ranges) -> None:
    """``select_outer_bin_edges``: range length, dtype of a data range, finiteness."""
    if ranges is not None:
        if len(ranges) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range "
                               f"should have {2 * n} elements, but got {len(ranges)}")
        lo, hi = list(ranges[0::2]), list(ranges[1::2])
    elif input.numel() > 0:
        if input.dtype.name not in ("float32", "float64"):
            raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                      f"'{_short(input.dtype)}'")
        x2 = input._value.reshape(-1, n) if n else None
        if x2 is None or isinstance(x2, jax.core.Tracer):
            return   # traced: a non-finite data range makes the result NaN
        lo = np.asarray(jnp.min(x2, axis=0)).astype(np.float64).tolist()
        hi = np.asarray(jnp.max(x2, axis=0)).astype(np.float64).tolist()
    else:
        lo, hi = [0.0] * n, [1.0] * n
    for d in range(n):
        a, b = float(lo[d]), float(hi[d])
        if not (math.isfinite(a) and math.isfinite(b)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_g(a)}, "
                               f"{_g(b)}] is not finite")
        if not a <= b:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{_g(a)} max {_g(b)} for dimension {d}")


def _check_linspace(input: Tensor, bin_cts) -> None:
    for b in bin_cts:
        if b + 1 < 0:
            raise RuntimeError("number of steps must be non-negative")
    if input.dtype is _dt.bool and bin_cts:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")


def _check_edges(input: Tensor, edges, n_sizes: int | None = None) -> None:
    """The bins part of ``histogramdd_check_inputs`` (``edges``: tensors)."""
    for d, e in enumerate(edges):
        if e.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should "
                               f"have the same dtype, but got input with dtype "
                               f"{_cpp(input.dtype)} and bins for dimension {d} with dtype "
                               f"{_cpp(e.dtype)}")
        if e.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, "
                               f"but got {e.dim()} dimensions in the bins tensor for "
                               f"dimension {d}")
        if e.numel() == 0:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 "
                               f"element, but got 0 elements in the bins tensor for "
                               f"dimension {d}")


def _check_edge_counts(bin_cts) -> None:
    """The same checks for equal-width edges (``bin_cts[d] + 1`` of them)."""
    for d, b in enumerate(bin_cts):
        if b + 1 == 0:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 "
                               f"element, but got 0 elements in the bins tensor for "
                               f"dimension {d}")


def _check_weight(input: Tensor, weight, in_shape, w_shape) -> None:
    if weight is None:
        return
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                           f"and weight tensor should have the same dtype, but got "
                           f"input({_cpp(input.dtype)}), and weight({_cpp(weight.dtype)})")
    if tuple(in_shape[:-1]) != (tuple(w_shape) or (1,)):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                           f"the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {shape_str(in_shape)} and "
                           f"weight with shape {shape_str(w_shape)}")


def _check_kernel(input: Tensor) -> None:
    if input.dtype.name not in _KERNEL_DTYPES:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{_short(input.dtype)}'")


# ---------------------------------------------------------------------------
# argument parsing, with PyTorch's TypeErrors
_HISTOGRAM_OVERLOADS = (
    "(Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, "
    "tuple of Tensors out = None)",
    "(Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = "
    "None, bool density = False, tuple of Tensors out = None)")
_HISTOGRAMDD_OVERLOADS = (
    "(Tensor input, int bins, tuple of floats range = None, Tensor weight = None, "
    "bool density = False)",
    "(Tensor input, tuple of ints bins, tuple of floats range = None, Tensor weight = "
    "None, bool density = False)",
    "(Tensor input, tuple of Tensors bins, tuple of floats range = None, Tensor weight "
    "= None, bool density = False)")


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _floats(v):
    """A ``tuple of floats`` argument (numbers, bools included), or None if it is not."""
    if v is None:
        return None
    if not isinstance(v, (tuple, list)):
        raise TypeError
    out = []
    for x in v:
        if isinstance(x, Tensor) or not isinstance(x, (int, float, np.number, bool)):
            raise TypeError
        out.append(float(x))
    return tuple(out)


def _histogram_binder(*args, **kwargs):
    """``histogram(input, bins=100, *, range=None, weight=None, density=False)`` ->
    the op's ``(input, bins, range, weight, density, edges)``."""
    def parse(input, bins=100, *, range=None, weight=None, density=False):
        if not isinstance(input, Tensor) or not isinstance(density, bool) or not (
                weight is None or isinstance(weight, Tensor)):
            raise TypeError
        if isinstance(bins, Tensor):
            if range is not None:
                raise TypeError
            return (input, None, None, weight, density, bins)
        if not _is_int(bins):
            raise TypeError
        return (input, int(bins), _floats(range), weight, density, None)
    try:
        return parse(*args, **kwargs)
    except TypeError:
        raise invalid_arguments("histogram", args, kwargs, _HISTOGRAM_OVERLOADS) from None


# ---------------------------------------------------------------------------
# histogram
def _histogram_fn(input, bins, range_, weight, density, edges):
    x2 = input.reshape(-1, 1)
    w = None if weight is None else weight.reshape(-1)
    bad = None
    if edges is None:
        (out_edges,), bad = _equal_width(x2, (bins,), range_)
        local = True
    else:
        out_edges, local = edges, False
    hist = _histogram_core(lax.stop_gradient(x2), [lax.stop_gradient(out_edges)],
                           None if w is None else lax.stop_gradient(w), density, local)
    hist = _nd("histogram", _poison(hist, bad), x2, w, edges)
    return hist, _nd("histogram", out_edges, x2, edges)


def _histogram_check(input, bins, range_, weight, density, edges):
    n = input.numel()
    w_shape = None if weight is None else (weight.numel(),)
    if edges is None:
        _check_bins_positive((bins,))
        _check_outer(input, 1, range_)
        _check_linspace(input, (bins,))
        _check_weight(input, weight, (n, 1), w_shape)
    else:
        _check_edges(input, [edges])
        _check_weight(input, weight, (n, 1), w_shape)
        _check_bins_positive((edges.numel() - 1,))
    _check_kernel(input)


def _histogram_samples():
    sorted_edges = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], np.float32)
    on_edges = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], np.float32)
    return [
        S(arr(50), 10, grad=False),
        S(arr(3, 4), 4, range=(-1.0, 1.0), grad=False),
        S(arr(20), 5, weight=arr(20, positive=True), grad=False),
        S(arr(20), 5, density=True, grad=False),
        S(arr(20), 5, weight=arr(20, positive=True), density=True, grad=False),
        S(arr(30), sorted_edges, grad=False),
        S(arr(30), sorted_edges, weight=arr(30), density=True, grad=False),
        S(on_edges, 10, grad=False, note="values on the edges"),
        S(on_edges, 10, range=(0.0, 1.0), grad=False),
        S(arr(25, dtype="float64"), 7, grad=False),
        S(arr(25, dtype="float64"), np.array([-1.0, 0.0, 1.0]), grad=False),
        S(arr(2, 3), 3, grad=False, method=True),
        S(arr(10), 4, range=(0.5, 0.5), grad=False),
        S(np.array(1.5, np.float32), 3, grad=False),
        S(arr(0), 3, grad=False),
        S(arr(10, dtype="float16"), 4, range=(-1.0, 1.0), grad=False),
        # PyTorch's errors
        S(arr(5, dtype="int64"), 3, grad=False),
        S(arr(5, dtype="float16"), 3, grad=False),
        S(arr(5), 0, grad=False),
        S(arr(5), 3, range=(1.0, 0.0), grad=False),
        S(arr(5), 3, range=(0.0, float("inf")), grad=False),
        S(np.array([1.0, np.inf], np.float32), 3, grad=False),
        S(arr(5), np.array([[0.0, 1.0]], np.float32), grad=False),
        S(arr(5), np.array([0.0, 1.0]), grad=False),
        S(arr(5), np.array([1.0], np.float32), grad=False),
        S(arr(5), 3, weight=arr(4), grad=False),
        S(arr(5), 3, weight=arr(5, dtype="float64"), grad=False),
    ]


_overloaded(OpSpec(
    "histogram", _histogram_fn, "input, bins, range, weight, density, edges",
    tensor_args=("input", "edges", "weight"), promote="none", check=_histogram_check,
    grad_name=_NOT_IMPLEMENTED, out_names=("hist", "bin_edges"), saves=False,
    doc="""Mirrors ``torch.histogram(input, bins, *, range=None, weight=None,
    density=False)`` and ``Tensor.histogram``: ``(hist, bin_edges)`` of the flattened
    input, ``bins`` equal-width bins over ``range`` (default: the data's min and max) or
    the edges in the 1-d tensor ``bins``. Values are binned as PyTorch's kernel does
    (Note [Where a value lands] in ``_ops/histogram.py``); float32/float64 inputs, and
    float16/bfloat16 with a ``range`` or edge tensor, as on PyTorch's CPU. The results
    have no derivative (PyTorch's ``NotImplemented`` node).

    Difference: in a compiled function the data's range cannot be checked for infinities
    and NaN; there the histogram is NaN instead of PyTorch's error.

    >>> import torchlike as torch
    >>> torch.histogram(torch.tensor([1., 2, 1]), bins=4, range=(0., 3.)).hist.tolist()
    [0.0, 2.0, 1.0, 0.0]
    """,
    samples=_histogram_samples), _histogram_binder)


# ---------------------------------------------------------------------------
# histogramdd: a function over the internal table op ``_histogramdd``
def _histogramdd_fn(input, bins, range_, weight, density, edges, part):
    """``part`` "edges": PyTorch's ``_histogramdd_bin_edges`` (the equal-width edges);
    "hist": ``_histogramdd_from_bin_cts`` or ``_from_bin_tensors`` (the histogram)."""
    n = input.shape[-1]
    x2 = input.reshape(math.prod(input.shape[:-1]), n)
    if part == "edges":
        edges = _equal_width(x2, bins, range_)[0]
        return tuple(_nd("_histogramdd_bin_edges", e, x2) for e in edges)
    w = None if weight is None else weight.reshape(-1)
    if edges is None:
        use, bad = _equal_width(x2, bins, range_)
        op, local = "_histogramdd_from_bin_cts", True
    else:
        use, bad = list(edges), None
        op, local = "_histogramdd_from_bin_tensors", False
    hist = _histogram_core(lax.stop_gradient(x2), [lax.stop_gradient(e) for e in use],
                           None if w is None else lax.stop_gradient(w), density, local)
    return (_nd(op, _poison(hist, bad), x2, w, *(edges or ())),)


def _histogramdd_check(input, bins, range_, weight, density, edges, part):
    shape = input._shape
    n = shape[-1]
    w_shape = None if weight is None else weight._shape
    if edges is None:
        _check_outer(input, n, range_)
        if len(bins) != n:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")
        _check_linspace(input, bins)
        if part == "edges":
            return
        _check_edge_counts(bins)
        _check_weight(input, weight, shape, w_shape)
        _check_bins_positive(bins)
    else:
        if len(edges) != n:
            raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a "
                               f"{n}-dimensional histogram but got {len(edges)}")
        _check_edges(input, edges)
        _check_weight(input, weight, shape, w_shape)
        _check_bins_positive([e.numel() - 1 for e in edges])
    _check_kernel(input)


register(OpSpec(
    "_histogramdd", _histogramdd_fn, "input, bins, range, weight, density, edges, part",
    tensor_args=("input", "edges", "weight"), promote="none", method=False,
    function=False, check=_histogramdd_check, grad_name=_NOT_IMPLEMENTED, saves=False,
    samples=lambda: []))


def _histogramdd_bins(input: Tensor, bins):
    """(bin counts or None, edge tensors or None) from ``bins`` (int, ints, tensors)."""
    if _is_int(bins):
        if input.dim() == 0:
            raise IndexError("Dimension specified as -1 but tensor has no dimensions")
        return (int(bins),) * input._shape[-1], None
    if isinstance(bins, (tuple, list)) and bins and isinstance(bins[0], Tensor):
        for i, b in enumerate(bins):
            if not isinstance(b, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                                f"{type(b).__name__}")
        return None, list(bins)
    if isinstance(bins, (tuple, list)):
        for _i, b in enumerate(bins):
            if not (_is_int(b) or isinstance(b, (bool, np.bool_))):
                raise TypeError(f"histogramdd(): argument 'bins' failed to unpack the object "
                                f"at pos 2 with error \"type must be tuple of ints,but got "
                                f"{type(b).__name__}\"")
        return tuple(operator.index(b) for b in bins), None
    raise TypeError


def histogramdd(input: Tensor, bins, *, range=None, weight=None, density: bool = False):
    """Mirrors ``torch.histogramdd(input, bins, *, range=None, weight=None,
    density=False)``: the rows of ``input`` (all dimensions but the last flattened) as
    points in ``N = input.shape[-1]`` dimensions, binned into ``bins`` (an int, N ints,
    or N 1-d edge tensors). Returns ``(hist, bin_edges)`` with ``bin_edges`` a tuple of
    N tensors (the given tensors themselves, as PyTorch, when edges are given; ``range``
    is then ignored). Values are binned as PyTorch's kernel does (Note [Where a value
    lands] in ``_ops/histogram.py``); no derivative, as in PyTorch.

    Difference: in a compiled function the data's range cannot be checked for
    infinities and NaN; there the histogram is NaN instead of PyTorch's error.

    >>> import torchlike as torch
    >>> points = torch.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
    >>> torch.histogramdd(points, bins=[2, 2]).hist.tolist()
    [[0.0, 1.0], [2.0, 1.0]]
    """
    if type(input) is not Tensor:
        from .torch_function import _overloaded_args, handle_torch_function
        rel = _overloaded_args([input])
        if rel:
            return handle_torch_function(histogramdd, rel, (input, bins),
                                         dict(range=range, weight=weight, density=density))
    args, kwargs = (input, bins), dict(range=range, weight=weight, density=density)
    try:
        if not isinstance(input, Tensor) or not isinstance(density, bool) or not (
                weight is None or isinstance(weight, Tensor)):
            raise TypeError
        ranges = _floats(range)
        bin_cts, edges = _histogramdd_bins(input, bins)
    except TypeError as e:
        if str(e):
            raise
        raise invalid_arguments("histogramdd", args, {k: v for k, v in kwargs.items()
                                             if v is not None and v is not False},
                       _HISTOGRAMDD_OVERLOADS) from None
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 "
                           "dimensions")
    # PyTorch's two ops for equal-width bins: the edges, then the histogram
    out_edges = edges if edges is not None else call_op(
        "_histogramdd", input, bin_cts, ranges, None, False, None, "edges")
    hist = call_op("_histogramdd", input, bin_cts, ranges, weight, density, edges, "hist")
    from ..return_types import make
    return make("histogramdd", ("hist", "bin_edges"))(hist[0], tuple(out_edges))


histogramdd.__module__ = "torchlike"
FUNCTIONS["histogramdd"] = histogramdd
