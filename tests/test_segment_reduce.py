"""``torchlike.segment_reduce`` against ``torch.segment_reduce``: every reduction with and
without ``initial``, empty segments, ties, zeros and NaNs, lengths and offsets, segments
along an inner axis, the gradients (ATen's formula), the dtypes and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, same_error, torch

REDUCTIONS = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def _run(fw, data, reduce, seg, kind="lengths", grad_out=None, dtype=None, **kw):
    x = fw.tensor(data, requires_grad=True)
    if dtype is not None:
        x = x.detach().to(getattr(fw, dtype)).requires_grad_(True)
    out = fw.segment_reduce(x, reduce, **{kind: fw.tensor(seg)}, **kw)
    g = fw.tensor(grad_out if grad_out is not None else np.ones(tuple(out.shape)),
                  dtype=out.dtype)
    (gx,) = fw.autograd.grad(out, x, g)
    return out, gx


def _compare(data, reduce, seg, rtol=1e-5, atol=1e-6, **kw):
    out = _run(tl, data, reduce, seg, **kw)
    if HAVE_TORCH:
        assert_same(out, _run(torch, data, reduce, seg, **kw), rtol=rtol, atol=atol)
    return out


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("initial", [None, 2.0, -1])
def test_lengths_with_empty_segments(reduce, initial):
    data = np.array([1.5, -2, 3, 4, -0.5, 6, 7], np.float32)
    out, gx = _compare(data, reduce, np.array([2, 0, 3, 0, 2]), initial=initial,
                       grad_out=np.array([1.0, 2, -3, 4, 0.5], np.float32))
    empty = out.detach().numpy()[[1, 3]]
    if initial is not None:
        assert (empty == initial).all()
    else:
        expect = {"sum": 0, "mean": np.nan, "max": -np.inf, "amax": -np.inf,
                  "min": np.inf, "amin": np.inf, "prod": 1}[reduce]
        np.testing.assert_array_equal(empty, expect)
    assert out.grad_fn.name() == "SegmentReduceBackward0"


@pytest.mark.parametrize("reduce", ["max", "min", "prod", "mean", "sum"])
def test_ties_zeros_and_nans(reduce):
    """Ties (with positive and negative gradients), zeros and NaNs: ATen's backward."""
    data = np.array([2., 0, 3, 0, 0, 5, 1, -2, -2, 4, np.nan, 3, 3, 0, np.nan], np.float64)
    lengths = np.array([3, 3, 4, 2, 1, 2])
    g = np.array([1., -2., 3., 0.5, 2., -1.])
    _compare(data, reduce, lengths, grad_out=g)
    _compare(data, reduce, lengths, grad_out=g, initial=3.0)


@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_offsets_and_inner_axis(reduce):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 7, 3)).astype(np.float32)
    data[0, 2, 1] = data[0, 3, 1]                       # a tie
    lengths = np.array([[2, 0, 5], [4, 3, 0]])
    g = rng.standard_normal((2, 3, 3)).astype(np.float32)
    out, gx = _compare(data, reduce, lengths, axis=1, grad_out=g)
    offsets = np.concatenate([np.zeros((2, 1), np.int64), lengths.cumsum(-1)], -1)
    out2, gx2 = _compare(data, reduce, offsets, kind="offsets", axis=-2, grad_out=g)
    np.testing.assert_array_equal(out.detach().numpy(), out2.detach().numpy())
    np.testing.assert_array_equal(gx.numpy(), gx2.numpy())
    # segments along the first axis, several trailing dimensions
    _compare(rng.standard_normal((5, 2, 2)), reduce, np.array([1, 4, 0]),
             grad_out=rng.standard_normal((3, 2, 2)))


def test_offsets_not_covering_and_unsafe_lengths():
    data = np.arange(1, 7, dtype=np.float32)
    _compare(data, "sum", np.array([1, 3, 6]), kind="offsets")
    _compare(data, "mean", np.array([0, 3, 5]), kind="offsets")
    _compare(data, "sum", np.array([2, 2]), unsafe=True)
    # offsets take precedence over lengths, as in PyTorch
    out = tl.segment_reduce(tl.tensor(data), "sum", offsets=tl.tensor([0, 2]),
                            lengths=tl.tensor([6]))
    assert out.tolist() == [3.0]


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_dtypes(dtype):
    data = np.array([1., 2, 3, 4, 5, 6], np.float32)
    out, gx = _compare(data, "mean", np.array([2, 4], np.int32), dtype=dtype,
                       rtol=1e-2, atol=1e-2)
    assert out.dtype == getattr(tl, dtype) and gx.dtype == getattr(tl, dtype)


def test_initial_bool_and_int_lengths_dtype():
    data = np.arange(6, dtype=np.float32)
    out, _ = _compare(data, "sum", np.array([3, 3]), initial=True)
    assert out.tolist() == [4.0, 13.0]


def test_compiled_and_second_order():
    data = tl.tensor([1., 2, 3, 4], dtype=tl.float64, requires_grad=True)
    lengths = tl.tensor([1, 3])

    @tl.compile
    def f(x, lens):
        return tl.segment_reduce(x, "prod", lengths=lens, unsafe=True).sum()

    assert f(data, lengths).item() == pytest.approx(1 + 24)
    out = tl.segment_reduce(data, "prod", lengths=lengths).sum()
    (g,) = tl.autograd.grad(out, data, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [1, 12, 8, 6])
    (h,) = tl.autograd.grad(g.sum(), data)       # d/dx of sum of the exclusive products
    np.testing.assert_allclose(h.numpy(), [0, 7, 6, 5])


def _err(fw, data, reduce="sum", **kw):
    def call():
        conv = {k: fw.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        return fw.segment_reduce(fw.tensor(data), reduce, **conv)
    return call if fw is not None else None


@pytest.mark.parametrize("exc, data, kw", [
    (RuntimeError, np.zeros(6, np.float32), dict(lengths=np.array([2, 4]),
                                                  indices=np.array([0]))),
    (RuntimeError, np.zeros(6, np.float32), dict()),
    (RuntimeError, np.zeros(6, np.float32), dict(reduce="foo", lengths=np.array([6]))),
    (RuntimeError, np.zeros(6, np.float32), dict(lengths=np.array([2, 2]))),
    (RuntimeError, np.zeros(6, np.float32), dict(lengths=np.array([2, -2, 6]))),
    (RuntimeError, np.zeros(6, np.float32), dict(lengths=np.array([], np.int64))),
    (RuntimeError, np.zeros(6, np.float32), dict(offsets=np.array([0, 4, 3, 6]))),
    (RuntimeError, np.zeros((2, 3), np.float32), dict(lengths=np.array([1, 2]), axis=1)),
    (RuntimeError, np.zeros(6, np.float32), dict(lengths=np.array([[1, 2]]))),
    (IndexError, np.zeros((2, 3), np.float32), dict(lengths=np.array([2]), axis=5)),
    (NotImplementedError, np.zeros(6, np.float32), dict(lengths=np.array([2., 4.]))),
    (NotImplementedError, np.zeros(6, np.float32), dict(offsets=np.array([0., 6.]))),
    (NotImplementedError, np.arange(6), dict(lengths=np.array([2, 4]))),
    (NotImplementedError, np.zeros(6, np.complex64), dict(lengths=np.array([2, 4]))),
])
def test_errors(exc, data, kw):
    reduce = kw.pop("reduce", "sum")
    same_error(_err(tl, data, reduce, **kw),
               _err(torch if HAVE_TORCH else None, data, reduce, **kw), exc,
               match_text=True)


def test_lengths_must_be_a_tensor_and_outer_shape():
    with pytest.raises(TypeError, match="argument 'lengths' must be Tensor, not list"):
        tl.segment_reduce(tl.zeros(6), "sum", lengths=[2, 4])
    # PyTorch reads out of bounds here (lengths' leading shape differs from data's)
    with pytest.raises(RuntimeError, match=r"Expected lengths of shape \(2,\)"):
        tl.segment_reduce(tl.zeros(2, 3), "sum", lengths=tl.tensor([[1, 2]]), axis=1)
