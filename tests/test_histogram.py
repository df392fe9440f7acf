"""``histogram``/``Tensor.histogram`` and ``histogramdd``: hist and bin edges against
PyTorch bit for bit (values on and next to the edges included, where PyTorch's way of
binning differs from NumPy's), weights and densities, named tuples, errors, the missing
derivative and compiled runs. Without PyTorch the same calls are checked against
hand-computed histograms, NumPy and the returned edges themselves."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl

from ._parity import FWS, HAVE_TORCH, assert_same, both, torch
from ._parity import fw_module as _mod
from ._parity import raises_in_both as raises_like


def _t(m, a):
    """A tensor of framework ``m`` holding the NumPy array ``a`` (bfloat16 via float32)."""
    if m is tl:
        return tl.tensor(a)
    return torch.tensor(a)


def exact(a, b):
    """``a`` (torchlike) and ``b`` (torch) have the same dtype, shape and bits."""
    assert_same(a, b)
    x, y = np.asarray(a.detach().float()), b.detach().float().numpy()
    np.testing.assert_array_equal(x, y)


def consistent_with_edges(x, hist, edges, weight=None):
    """``hist`` counts each value of ``x`` in the bin its own returned ``edges`` give
    (left edges included, the last bin also its right edge), as PyTorch promises."""
    x = np.asarray(x, np.float64).reshape(-1)
    e = np.asarray(edges, np.float64)
    w = np.ones_like(x) if weight is None else np.asarray(weight, np.float64).reshape(-1)
    keep = (x >= e[0]) & (x <= e[-1])
    pos = np.searchsorted(e, x[keep], side="right") - 1
    pos = np.minimum(pos, len(e) - 2)
    ref = np.bincount(pos, w[keep], minlength=len(e) - 1)
    np.testing.assert_allclose(np.asarray(hist, np.float64), ref, rtol=1e-6)


# ---------------------------------------------------------------------------
# values
def test_hand_computed():
    r = tl.histogram(tl.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
    assert type(r).__name__ == "histogram" and r._fields == ("hist", "bin_edges")
    assert r.hist.tolist() == [0.0, 2.0, 1.0, 0.0]
    assert r.bin_edges.tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert r.hist.dtype is tl.float32 and r.bin_edges.dtype is tl.float32
    assert repr(r).startswith("torchlike.return_types.histogram(\nhist=tensor(")
    # the last bin includes its right edge; values outside the range and NaN are ignored
    x = tl.tensor([0.0, 1.0, 2.0, 5.0, -1.0, float("nan")])
    r = tl.histogram(x, 2, range=(0.0, 2.0))
    assert r.hist.tolist() == [1.0, 2.0]
    # default range: the data's min and max; a single value is widened by 0.5 each way
    r = tl.histogram(tl.tensor([2.0, 2.0]), 2)
    assert r.bin_edges.tolist() == [1.5, 2.0, 2.5] and r.hist.tolist() == [0.0, 2.0]
    # empty input: numpy's default range [0, 1]
    r = tl.histogram(tl.tensor([]), 2)
    assert r.bin_edges.tolist() == [0.0, 0.5, 1.0] and r.hist.tolist() == [0.0, 0.0]
    # weights and densities
    r = tl.histogram(tl.tensor([0.5, 1.5, 1.5]), 2, range=(0.0, 2.0),
                     weight=tl.tensor([1.0, 2.0, 4.0]))
    assert r.hist.tolist() == [1.0, 6.0]
    r = tl.histogram(tl.tensor([0.5, 1.5, 1.5, 3.5]), 2, range=(0.0, 4.0), density=True)
    assert r.hist.tolist() == [0.375, 0.125]   # 3/4 and 1/4 over bins of width 2


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bins", [1, 3, 10, 37])
def test_random_against_numpy_and_torch(dtype, bins):
    rng = np.random.default_rng(bins)
    x = rng.normal(size=200).astype(dtype)
    w = rng.uniform(0, 2, size=200).astype(dtype)
    for kw in ({}, {"range": (-1.0, 2.5)}, {"weight": w}, {"density": True},
               {"weight": w, "density": True, "range": (-3.0, 0.5)}):
        def f(m):
            k = dict(kw)
            if "weight" in k:
                k["weight"] = _t(m, k["weight"])
            return m.histogram(_t(m, x), bins, **k)
        out, ref = both(f)
        if HAVE_TORCH:
            exact(out.bin_edges, ref.bin_edges)
            if "weight" in kw or kw.get("density"):
                assert_same(out.hist, ref.hist, rtol=1e-5, atol=1e-7)
            else:
                exact(out.hist, ref.hist)
        e, h = np.asarray(out.bin_edges), np.asarray(out.hist)
        rng_ = kw.get("range", (float(x.min()), float(x.max())))
        hn, en = np.histogram(x.astype(np.float64), bins, range=rng_,
                              weights=kw.get("weight"), density=kw.get("density", False))
        np.testing.assert_allclose(e, en, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(h, hn, rtol=1e-4, atol=1e-4)
        if not kw.get("density"):
            consistent_with_edges(x, h, e, kw.get("weight"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_on_and_next_to_edges(dtype):
    """Values equal to the edges, and one ulp either side, land where PyTorch puts
    them: in the bins the returned edges define (not always NumPy's bins)."""
    for lo, hi, bins in ((0.0, 1.0, 10), (-3.3, 7.1, 13), (0.1, 0.7, 6), (1e3, 1e3 + 1, 7)):
        edges = tl.linspace(lo, hi, bins + 1, dtype=getattr(tl, dtype))
        if HAVE_TORCH:   # PyTorch's own edges, computed with its fused multiply-adds
            e = torch.linspace(lo, hi, bins + 1, dtype=getattr(torch, dtype)).numpy()
        else:
            e = np.asarray(edges)
        vals = np.concatenate([e, np.nextafter(e, np.inf), np.nextafter(e, -np.inf)])
        vals = vals.astype(dtype)
        # XLA's CPU code flushes subnormal numbers to zero: leave them out
        vals = vals[(vals == 0) | (np.abs(vals) >= np.finfo(dtype).tiny)]
        for kw in ({}, {"range": (lo, hi)}):
            out, ref = both(lambda m: m.histogram(_t(m, vals), bins, **kw))
            if HAVE_TORCH:
                exact(out.hist, ref.hist)
                exact(out.bin_edges, ref.bin_edges)
            consistent_with_edges(vals, out.hist, out.bin_edges)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_with_range(dtype):
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 300).astype(np.float32)
    weight = rng.uniform(0, 1, 300).astype(np.float32)

    def f(m):
        t = _t(m, x).to(getattr(m, dtype))
        w = _t(m, weight).to(getattr(m, dtype))
        return (m.histogram(t, 7, range=(-0.9, 0.8)),
                m.histogram(t, 5, range=(-1.0, 1.0), weight=w, density=True),
                m.histogram(t, _t(m, np.float32([-1, -0.3, 0.25, 1])).to(getattr(m, dtype))))
    out, ref = both(f)
    assert out[0].hist.dtype is getattr(tl, dtype)
    if HAVE_TORCH:
        for a, b in zip(out, ref):
            exact(a.bin_edges, b.bin_edges)
        exact(out[0].hist, ref[0].hist)
        exact(out[2].hist, ref[2].hist)
        assert_same(out[1].hist, ref[1].hist, rtol=1e-2, atol=1e-2)
    assert float(out[0].hist.sum()) == float(((x >= -0.9) & (x <= 0.8)).sum()) or HAVE_TORCH


def test_edge_tensor():
    x = np.array([-3.0, -1.0, -0.5, 0.0, 0.2, 1.0, 2.0, 2.5, np.nan], np.float32)
    e = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    out, ref = both(lambda m: m.histogram(_t(m, x), _t(m, e)))
    assert out.hist.tolist() == [2.0, 2.0, 2.0]
    assert out.bin_edges.tolist() == e.tolist()
    if HAVE_TORCH:
        exact(out.hist, ref.hist)
        exact(out.bin_edges, ref.bin_edges)
    # the edges are copied, as in PyTorch
    bins = tl.tensor(e)
    r = tl.histogram(tl.tensor(x), bins)
    assert r.bin_edges is not bins and r.bin_edges.data_ptr() != bins.data_ptr()
    # weights, density, a 2-d input (flattened) and the method form
    w = np.arange(9, dtype=np.float32)
    out, ref = both(lambda m: _t(m, x.reshape(3, 3)).histogram(
        _t(m, e), weight=_t(m, w.reshape(3, 3)), density=True))
    if HAVE_TORCH:
        assert_same(out, ref)


@pytest.mark.skipif(not HAVE_TORCH, reason="unsorted edges: PyTorch's search is the oracle")
def test_unsorted_edges_follow_pytorchs_search():
    rng = np.random.default_rng(5)
    x = rng.normal(size=100).astype(np.float32)
    for e in ([0.0, -1.0, 1.0, 0.5], [2.0, 1.0], [-2.0, 1.0, -1.0, 0.5, 3.0, 0.0, 4.0]):
        e = np.array(e, np.float32)
        out, ref = both(lambda m: m.histogram(_t(m, x), _t(m, e)))
        exact(out.hist, ref.hist)


def test_zero_d_input_and_method():
    out, ref = both(lambda m: _t(m, np.float32(3.0)).histogram(3))
    assert out.hist.tolist() == [0.0, 1.0, 0.0]
    assert out.bin_edges.tolist() == pytest.approx([2.5, 2.5 + 1 / 3, 3.5 - 1 / 3, 3.5])
    if HAVE_TORCH:
        exact(out.hist, ref.hist)
        exact(out.bin_edges, ref.bin_edges)


# ---------------------------------------------------------------------------
# errors
def _x(m):
    return _t(m, np.array([1.0, 2.0, 3.0], np.float32))


HISTOGRAM_ERRORS = [
    (lambda m: m.histogram(_t(m, np.array([1, 2])), 3), NotImplementedError),
    (lambda m: m.histogram(_t(m, np.array([1, 2])), 3, range=(0.0, 1.0)), NotImplementedError),
    (lambda m: m.histogram(_x(m).half(), 3), NotImplementedError),
    (lambda m: m.histogram(_x(m).bool(), 3, range=(0.0, 1.0)), NotImplementedError),
    (lambda m: m.histogram(_x(m).to(m.complex64), 3, range=(0.0, 1.0)), NotImplementedError),
    (lambda m: m.histogram(_x(m), 0), RuntimeError),
    (lambda m: m.histogram(_x(m), -2), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, range=(3.0, 1.0)), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, range=(0.0, 1.0, 2.0)), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, range=(0.0, float("inf"))), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, range=(float("nan"), 1.0)), RuntimeError),
    (lambda m: m.histogram(_t(m, np.array([np.nan, 1.0], np.float32)), 3), RuntimeError),
    (lambda m: m.histogram(_t(m, np.array([-np.inf, 1.0], np.float32)), 3), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.array([[0.0, 1.0]], np.float32))), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.array([0.0, 1.0]))), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.array([0, 1]))), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.array([1.0], np.float32))), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.array([], np.float32))), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, weight=m.ones(2)), RuntimeError),
    (lambda m: m.histogram(_x(m), 3, weight=m.ones(3, dtype=m.float64)), RuntimeError),
    (lambda m: m.histogram(_x(m), 0, weight=m.ones(2)), RuntimeError),
    (lambda m: m.histogram(_x(m), _t(m, np.float32([0, 1])), weight=m.ones(2)), RuntimeError),
    (lambda m: m.histogram(_x(m), 3.0), TypeError),
    (lambda m: m.histogram(_x(m), True), TypeError),
    (lambda m: m.histogram([1.0, 2.0], 3), TypeError),
    (lambda m: m.histogram(_x(m), _t(m, np.float32([0, 1])), range=(0.0, 1.0)), TypeError),
    (lambda m: m.histogram(_x(m), 3, density=1), TypeError),
]


@pytest.mark.parametrize("i", range(len(HISTOGRAM_ERRORS)))
def test_histogram_errors(i):
    fn, exc = HISTOGRAM_ERRORS[i]
    raises_like(fn, exc)


# ---------------------------------------------------------------------------
# autograd: PyTorch records a NotImplemented node
def test_no_derivative():
    for fw in FWS:
        m = _mod(fw)
        x = m.tensor([1.0, 2.0, 1.0, 4.0], requires_grad=True)
        r = m.histogram(x, 3)
        assert r.hist.requires_grad and r.bin_edges.requires_grad
        assert r.hist.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::histogram is not "
                                               "implemented"):
            r.hist.sum().backward()
        w = m.tensor([1.0, 2.0, 1.0, 4.0], requires_grad=True)
        r = m.histogram(x.detach(), 3, weight=w)
        with pytest.raises(RuntimeError, match="not implemented"):
            r.hist.sum().backward()
        with m.no_grad():
            assert not m.histogram(x, 3).hist.requires_grad
        r = m.histogramdd(x.reshape(2, 2), 2)
        assert r.hist.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match=r"derivative for aten::_histogramdd_from_bin_"
                                               r"cts is not implemented"):
            r.hist.sum().backward()


# ---------------------------------------------------------------------------
# histogramdd
POINTS = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], np.float32)


def test_histogramdd_hand_computed():
    r = tl.histogramdd(tl.tensor(POINTS), bins=[3, 3], weight=tl.tensor([1.0, 2, 4, 8]))
    assert type(r).__name__ == "histogramdd" and r._fields == ("hist", "bin_edges")
    assert r.hist.tolist() == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]
    assert isinstance(r.bin_edges, tuple) and len(r.bin_edges) == 2
    assert r.bin_edges[0].tolist() == pytest.approx([0.0, 2 / 3, 4 / 3, 2.0])
    r = tl.histogramdd(tl.tensor(POINTS), 2)
    assert r.hist.tolist() == [[0.0, 1.0], [2.0, 1.0]]
    r = tl.histogramdd(tl.tensor(POINTS), (2, 2), range=[0.0, 1.0, 0.0, 1.0], density=True)
    assert r.hist.tolist() == [[0.0, 2.0], [2.0, 0.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd_against_numpy_and_torch(dtype):
    rng = np.random.default_rng(11)
    x = rng.normal(size=(300, 3)).astype(dtype)
    w = rng.uniform(0, 1, 300).astype(dtype)
    cases = [dict(bins=4), dict(bins=[2, 3, 5]), dict(bins=3, weight=w),
             dict(bins=(3, 2, 4), range=[-1.0, 1.0, -2.0, 0.5, 0.0, 3.0], density=True)]
    for kw in cases:
        def f(m):
            k = dict(kw)
            if "weight" in k:
                k["weight"] = _t(m, k["weight"])
            return m.histogramdd(_t(m, x), **k)
        out, ref = both(f)
        if HAVE_TORCH:
            assert_same(out, ref, rtol=1e-5, atol=1e-7)
            for a, b in zip(out.bin_edges, ref.bin_edges):
                exact(a, b)
        rng_ = kw.get("range")
        hn, en = np.histogramdd(x.astype(np.float64), kw["bins"],
                                range=None if rng_ is None else np.reshape(rng_, (3, 2)),
                                weights=kw.get("weight"), density=kw.get("density", False))
        np.testing.assert_allclose(np.asarray(out.hist), hn, rtol=1e-4, atol=1e-4)
        for a, b in zip(out.bin_edges, en):
            np.testing.assert_allclose(np.asarray(a), b, rtol=1e-6, atol=1e-6)


def test_histogramdd_edge_tensors():
    e0, e1 = np.float32([0, 1, 2]), np.float32([0, 2])
    out, ref = both(lambda m: m.histogramdd(_t(m, POINTS), [_t(m, e0), _t(m, e1)],
                                            range=[5.0, 6.0, 5.0, 6.0]))
    assert out.hist.tolist() == [[1.0], [3.0]]
    if HAVE_TORCH:
        assert_same(out, ref)
    # the given tensors are returned themselves, as in PyTorch
    bins = [tl.tensor(e0), tl.tensor(e1)]
    r = tl.histogramdd(tl.tensor(POINTS), bins)
    assert r.bin_edges[0] is bins[0] and r.bin_edges[1] is bins[1]


def test_histogramdd_shapes():
    rng = np.random.default_rng(2)
    x3 = rng.uniform(size=(2, 3, 2)).astype(np.float32)
    out, ref = both(lambda m: m.histogramdd(_t(m, x3), 2, weight=m.ones(2, 3)))
    assert tuple(out.hist.shape) == (2, 2) and float(out.hist.sum()) == 6.0
    empty, ref_e = both(lambda m: m.histogramdd(m.zeros(0, 2), 2))
    assert empty.hist.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert empty.bin_edges[0].tolist() == [0.0, 0.5, 1.0]
    no_dims, ref_n = both(lambda m: m.histogramdd(m.zeros(3, 0), 2))
    assert tuple(no_dims.hist.shape) == () and float(no_dims.hist) == 0.0
    assert no_dims.bin_edges == ()
    one, ref_o = both(lambda m: m.histogramdd(m.zeros(1, 2), 2, weight=m.tensor(3.0)))
    assert one.hist.tolist() == [[0.0, 0.0], [0.0, 3.0]]
    if HAVE_TORCH:
        assert_same(out, ref)
        assert_same(empty, ref_e)
        assert_same(no_dims.hist, ref_n.hist)
        assert_same(one, ref_o)


HISTOGRAMDD_ERRORS = [
    (lambda m: m.histogramdd(m.tensor([1.0, 2.0]), 3), RuntimeError),
    (lambda m: m.histogramdd(m.tensor(1.0), 2), IndexError),
    (lambda m: m.histogramdd(_t(m, POINTS), [2, 2, 2]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), []), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, range=[0.0, 1.0]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), [2, 2, 2], range=[0.0]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, range=[0.0, 1.0, 3.0, 2.0]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, range=[0.0, 1.0, 0.0, float("inf")]),
     RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS).long(), 2), NotImplementedError),
    (lambda m: m.histogramdd(_t(m, POINTS).half(), 2), NotImplementedError),
    (lambda m: m.histogramdd(_t(m, POINTS).bool(), 2, range=[0.0, 1.0, 0.0, 1.0]),
     NotImplementedError),
    (lambda m: m.histogramdd(_t(m, POINTS), [0, 2]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), -1), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), -2), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, weight=m.ones(3)), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, weight=m.ones(4, 1)), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2, weight=m.ones(4, dtype=m.float64)),
     RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), [m.tensor([0.0, 1.0])]), RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), [m.tensor([0.0, 1.0]), m.tensor([[1.0]])]),
     RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), [m.tensor([0.0, 1.0]), m.tensor([1.0])]),
     RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS), [m.tensor([0.0, 1.0]), m.tensor([0, 1])]),
     RuntimeError),
    (lambda m: m.histogramdd(_t(m, POINTS).long(), [m.tensor([0, 1])] * 2),
     NotImplementedError),
    (lambda m: m.histogramdd(_t(m, POINTS), (m.tensor([0.0, 1.0]), 2)), TypeError),
    (lambda m: m.histogramdd(_t(m, POINTS), 2.0), TypeError),
    (lambda m: m.histogramdd(_t(m, POINTS), (2, 2.0)), TypeError),
]


@pytest.mark.parametrize("i", range(len(HISTOGRAMDD_ERRORS)))
def test_histogramdd_errors(i):
    fn, exc = HISTOGRAMDD_ERRORS[i]
    raises_like(fn, exc)


# ---------------------------------------------------------------------------
# compiled
def test_compiled_histograms():
    x = tl.tensor(np.random.default_rng(4).normal(size=50).astype(np.float32))

    def f(t):
        return (tl.histogram(t, 6).hist, tl.histogram(t, 4, range=(-1.0, 1.0)).hist,
                tl.histogramdd(t.reshape(25, 2), 3).hist)
    eager = f(x)
    compiled = tl.compile(f)(x)
    for a, b in zip(eager, compiled):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # a non-finite data range cannot raise in a compiled function: the result is NaN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bad = tl.compile(lambda t: tl.histogram(t, 3).hist)(tl.tensor([1.0, float("inf")]))
    assert np.isnan(np.asarray(bad)).all()
    with pytest.raises(RuntimeError, match="is not finite"):
        tl.histogram(tl.tensor([1.0, float("inf")]), 3)
