"""Reductions and sorting: behaviours the op-table harness cannot express — named-tuple
results and their reprs, ``unique``'s optional outputs, error types and messages,
gradient conventions at ties, in-place cumulative ops and the seed-note examples."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, normalize_error, torch


def both(a: np.ndarray, requires_grad: bool = False):
    """The same data as a torchlike tensor and (when installed) a torch tensor."""
    t = tl.tensor(a).requires_grad_(requires_grad)
    r = torch.tensor(a).requires_grad_(requires_grad) if HAVE_TORCH else None
    return t, r


def raises_like(fn_tl, fn_torch, same_text: bool = True):
    """Run both; they must raise the same exception type (and the same message)."""
    with pytest.raises(Exception) as ei:
        fn_tl()
    if HAVE_TORCH:
        with pytest.raises(Exception) as er:
            fn_torch()
        assert type(ei.value).__name__ == type(er.value).__name__, (ei.value, er.value)
        got = normalize_error(str(ei.value)).split("\n")[0]
        want = str(er.value).split("\n")[0]
        if same_text:
            assert got == want
    return ei.value


TIES = np.array([[1., 3, 3, 2], [2, 2, 0, 2], [5, 1, 5, 5]], np.float32)


# ---------------------------------------------------------------------------
# named tuples
@pytest.mark.parametrize("name,args", [("max", (1,)), ("min", (0, True)), ("sort", ()),
                                       ("topk", (2, 0)), ("kthvalue", (2, 1)),
                                       ("median", (1,)), ("nanmedian", (0,)),
                                       ("mode", (1,)), ("cummax", (1,)), ("cummin", (0,))])
def test_named_tuple_fields_and_repr(name, args):
    x, rx = both(TIES)
    res = getattr(tl, name)(x, *args)
    assert type(res).__name__ == name
    assert type(res).__module__ == "torchlike.return_types"
    assert res._fields == ("values", "indices")
    assert res.values is res[0] and res.indices is res[1]
    values, indices = res
    assert indices.dtype is tl.int64
    assert repr(res).startswith(f"torchlike.return_types.{name}(\nvalues=tensor(")
    assert "\nindices=tensor(" in repr(res)
    if HAVE_TORCH:
        ref = getattr(torch, name)(rx, *args)
        assert repr(res).replace("torchlike.", "torch.") == repr(ref)


def test_aminmax_fields():
    x, rx = both(TIES)
    res = tl.aminmax(x, dim=1)
    assert res._fields == ("min", "max")
    assert type(res) is tl.return_types.aminmax
    if HAVE_TORCH:
        assert_same(res, torch.aminmax(rx, dim=1))


def test_max_three_forms():
    x, rx = both(TIES)
    y, ry = both(TIES[::-1].copy())
    full = x.max()
    assert isinstance(full, tl.Tensor) and full.shape == ()
    assert isinstance(tl.max(x, y), tl.Tensor)
    assert isinstance(tl.max(x, other=y), tl.Tensor)
    assert tl.max(x, dim=1, keepdim=True).values.shape == (3, 1)
    if HAVE_TORCH:
        assert_same(full, rx.max())
        assert_same(tl.max(x, y), torch.max(rx, ry))
        assert_same(x.min(1), rx.min(1))


def test_seed_abs_max_usage():
    """``x_max, _ = tensor.view(-1, tensor.shape[tensor.dim() - 1]).abs().max(1)``."""
    a = np.random.default_rng(0).standard_normal((4, 5, 6)).astype(np.float32)
    t, rt = both(a)
    x_max, _ = t.view(-1, t.shape[t.dim() - 1]).abs().max(1)
    x_max = x_max.unsqueeze(1)
    assert tuple(x_max.shape) == (20, 1)
    np.testing.assert_allclose(np.asarray(x_max)[:, 0], np.abs(a).reshape(20, 6).max(1))
    if HAVE_TORCH:
        r_max, _ = rt.view(-1, rt.shape[rt.dim() - 1]).abs().max(1)
        assert_same(x_max, r_max.unsqueeze(1))


def test_seed_sort_unpacking():
    """``grad_output_sorted, grad_output_indices = torch.sort(grad_output)`` then
    ``.double()`` and ``torch.where`` on the sorted values."""
    g = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    t, rt = both(g)
    grad_output = t.view(-1)
    grad_output_sorted, grad_output_indices = tl.sort(grad_output)
    grad_output_sorted = grad_output_sorted.double()
    assert grad_output_sorted.dtype is tl.float64
    assert grad_output_indices.dtype is tl.int64
    np.testing.assert_array_equal(np.asarray(grad_output_sorted), np.sort(g.reshape(-1)))
    clipped = tl.where(grad_output_sorted > 0.5, 0., grad_output_sorted)
    if HAVE_TORCH:
        rs, ri = torch.sort(rt.view(-1))
        assert_same(grad_output_indices, ri)
        assert_same(clipped, torch.where(rs.double() > 0.5, 0., rs.double()))


# ---------------------------------------------------------------------------
# unique and friends
@pytest.mark.parametrize("kw", [{}, {"return_inverse": True}, {"return_counts": True},
                                {"return_inverse": True, "return_counts": True},
                                {"dim": 0, "return_counts": True},
                                {"dim": 1, "return_inverse": True}])
def test_unique_optional_outputs(kw):
    a = np.array([[3, 1, 3], [3, 1, 3], [0, 2, 0]], np.int64)
    x, rx = both(a)
    res = tl.unique(x, **kw)
    n_extra = bool(kw.get("return_inverse")) + bool(kw.get("return_counts"))
    if n_extra:
        assert type(res) is tuple and len(res) == 1 + n_extra
    else:
        assert isinstance(res, tl.Tensor)
    if HAVE_TORCH:
        assert_same(res, torch.unique(rx, **kw))
    assert_same_method = x.unique(**kw)
    assert type(assert_same_method) is type(res)


def test_unique_consecutive_and_nonzero_seed():
    t = tl.tensor([1., 2., 3.])
    idx = (t == 2).nonzero(as_tuple=True)[0]
    assert idx.tolist() == [1]
    a = np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int64)
    x, rx = both(a)
    out, inv, cnt = tl.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert out.tolist() == [1, 2, 3, 1, 2] and cnt.tolist() == [2, 2, 1, 2, 1]
    if HAVE_TORCH:
        assert_same((out, inv, cnt), torch.unique_consecutive(rx, return_inverse=True,
                                                              return_counts=True))


def test_data_dependent_ops_refuse_tracing():
    import jax

    from torchlike._core.tensor import Tensor
    from torchlike._core.traced import TracedValueError

    def f(v):
        return tl.unique(Tensor._wrap(v))._value

    with pytest.raises(TracedValueError):
        jax.jit(f)(np.array([1, 2, 2]))


# ---------------------------------------------------------------------------
# gradient conventions
# what PyTorch gives for each (the weights are drawn with seed 0, as in the test)
TIE_GRADIENTS = [
    (lambda m, x: m.max(x),
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.378987, 0.0, 0.378987, 0.378987]]),
    (lambda m, x: m.min(x),
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.13696, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    (lambda m, x: m.amax(x, 1),
     [[0.0, 0.568481, 0.568481, 0.0], [0.256596, 0.256596, 0.0, 0.256596],
      [0.180325, 0.0, 0.180325, 0.180325]]),
    (lambda m, x: m.median(x),
     [[0.0, 0.0, 0.0, 0.28424], [0.28424, 0.28424, 0.0, 0.28424], [0.0, 0.0, 0.0, 0.0]]),
    (lambda m, x: m.max(x, 1).values,
     [[0.0, 1.13696, 0.0, 0.0], [0.769787, 0.0, 0.0, 0.0], [0.540974, 0.0, 0.0, 0.0]]),
    (lambda m, x: m.sort(x, 1, descending=True).values[:, :2],
     [[0.0, 1.13696, 0.769787, 0.0], [0.540974, 0.516528, 0.0, 0.0],
      [1.31327, 0.0, 1.41276, 0.0]]),
    (lambda m, x: m.topk(x * m.arange(1, 5), 2).values,
     [[0.0, 0.0, 3.41089, 3.07915], [0.0, 1.03306, 0.0, 2.16389],
      [0.0, 0.0, 4.23827, 5.25308]]),
    (lambda m, x: m.kthvalue(x, 2, 1).values,
     [[0.0, 0.0, 0.0, 1.13696], [0.0, 0.769787, 0.0, 0.0], [0.540974, 0.0, 0.0, 0.0]]),
    (lambda m, x: m.median(x, 1).values,
     [[0.0, 0.0, 0.0, 1.13696], [0.769787, 0.0, 0.0, 0.0], [0.540974, 0.0, 0.0, 0.0]]),
    (lambda m, x: m.cummax(x, 1).values,
     [[1.13696, 0.769787, 1.0575, 0.0], [1.31327, 2.51939, 0.0, 1.2295],
      [2.4787, 0.0, 1.31585, 0.502738]]),
    (lambda m, x: m.norm(x * 0), [[0.0] * 4] * 3),
    (lambda m, x: m.std(x * 0, 1), [[0.0] * 4] * 3),
    (lambda m, x: m.norm(x, float("inf"), 1),
     [[0.0, 0.568481, 0.568481, 0.0], [0.256596, 0.256596, 0.0, 0.256596],
      [0.180325, 0.0, 0.180325, 0.180325]]),
    (lambda m, x: m.prod(x * (x != 2), 1),
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [13.5243, 67.6217, 13.5243, 13.5243]]),
]


@pytest.mark.parametrize("call,want", TIE_GRADIENTS)
def test_tie_gradients_match_torch(call, want):
    x, rx = both(TIES, requires_grad=True)
    out = call(tl, x)
    w = np.random.default_rng(0).uniform(0.5, 1.5, tuple(out.shape)).astype(np.float32)
    (g,) = tl.autograd.grad((out * tl.tensor(w)).sum(), [x])
    np.testing.assert_allclose(np.asarray(g), np.array(want, np.float32), rtol=1e-5,
                               atol=1e-6)
    if HAVE_TORCH:
        ref = call(torch, rx)
        assert tuple(out.shape) == tuple(ref.shape)
        (rg,) = torch.autograd.grad((ref * torch.tensor(w)).sum(), [rx])
        assert_same(g, rg)


@pytest.mark.parametrize("call,name", [
    (lambda m, x: m.sum(x), "SumBackward0"), (lambda m, x: m.sum(x, 1), "SumBackward1"),
    (lambda m, x: m.mean(x), "MeanBackward0"), (lambda m, x: m.mean(x, 0), "MeanBackward1"),
    (lambda m, x: m.max(x), "MaxBackward1"), (lambda m, x: m.max(x, 1)[0], "MaxBackward0"),
    (lambda m, x: m.min(x, x), "MinimumBackward0"), (lambda m, x: m.sort(x)[0],
                                                     "SortBackward0"),
    (lambda m, x: m.topk(x, 2)[0], "TopkBackward0"), (lambda m, x: m.prod(x, 1),
                                                      "ProdBackward1"),
    (lambda m, x: m.norm(x), "LinalgVectorNormBackward0"),
    (lambda m, x: m.median(x), "MedianBackward0"),
    (lambda m, x: m.median(x, 1)[0], "MedianBackward1"),
    (lambda m, x: m.softmax(x, 1), "SoftmaxBackward0"),
    (lambda m, x: x.log_softmax(1), "LogSoftmaxBackward0"),
    (lambda m, x: m.std(x, 1), "StdBackward0"), (lambda m, x: m.var_mean(x)[0],
                                                 "VarMeanBackward0"),
    (lambda m, x: m.cumsum(x, 1), "CumsumBackward0"),
    (lambda m, x: m.logsumexp(x, 1), "LogsumexpBackward0"),
    (lambda m, x: m.amax(x), "AmaxBackward0"), (lambda m, x: m.aminmax(x).min,
                                                "AminmaxBackward0")])
def test_grad_fn_names(call, name):
    x, rx = both(TIES, requires_grad=True)
    if HAVE_TORCH:
        assert type(call(torch, rx).grad_fn).__name__ == name
    assert call(tl, x).grad_fn.name() == name


def test_cumsum_inplace():
    x, rx = both(np.array([1, 2, 3], np.int32))
    assert x.cumsum_(0) is x
    assert x.dtype is tl.int32 and x.tolist() == [1, 3, 6]
    y = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = y * 1
    z.cumprod_(0)
    assert z.grad_fn.name() == "CumprodBackward0"
    (g,) = tl.autograd.grad(z.sum(), [y])
    assert g.tolist() == [9.0, 4.0, 2.0]
    if HAVE_TORCH:
        rx.cumsum_(0)
        assert_same(x, rx)


def test_topk_unsorted_has_the_same_set():
    a = np.random.default_rng(3).standard_normal((4, 9)).astype(np.float32)
    x, rx = both(a)
    v, i = tl.topk(x, 3, sorted=False)
    got = np.sort(np.asarray(v), axis=1)
    np.testing.assert_array_equal(got, np.sort(a, axis=1)[:, -3:])
    if HAVE_TORCH:
        rv, _ = torch.topk(rx, 3, sorted=False)
        np.testing.assert_array_equal(got, np.sort(rv.numpy(), axis=1))


# ---------------------------------------------------------------------------
# errors
E0 = np.zeros((0, 3), np.float32)
ERRORS = [
    ("max", lambda m, x, e: m.max(m.zeros(0))),
    ("max dim", lambda m, x, e: m.max(e, 0)),
    ("min dim", lambda m, x, e: m.min(e, 0)),
    ("amax", lambda m, x, e: m.amax(e)),
    ("argmax", lambda m, x, e: m.argmax(e)),
    ("argmax bool", lambda m, x, e: m.argmax(x > 0)),
    ("aminmax", lambda m, x, e: m.aminmax(e)),
    ("dim range", lambda m, x, e: m.sum(x, 2)),
    ("dim range max", lambda m, x, e: x.max(2)),
    ("dim repeat", lambda m, x, e: m.amax(x, (0, 0))),
    ("max keepdim", lambda m, x, e: m.max(x, keepdim=True)),
    ("max float dim", lambda m, x, e: m.max(x, 2.5)),
    ("var int", lambda m, x, e: m.var(m.arange(3))),
    ("norm int", lambda m, x, e: m.norm(m.arange(3))),
    ("norm inf empty", lambda m, x, e: m.norm(m.zeros(0), float("inf"))),
    ("norm order", lambda m, x, e: m.norm(x, "abc")),
    ("median empty dim", lambda m, x, e: m.median(e, 0)),
    ("mode empty dim", lambda m, x, e: m.mode(e, 0)),
    ("topk k", lambda m, x, e: m.topk(x, 5)),
    ("kthvalue k", lambda m, x, e: m.kthvalue(x, 0)),
    ("softmax int", lambda m, x, e: m.softmax(m.arange(3), 0)),
    ("softmax no dim", lambda m, x, e: m.softmax(x)),
    ("logsumexp no dim", lambda m, x, e: m.logsumexp(x)),
    ("logcumsumexp int", lambda m, x, e: m.logcumsumexp(m.arange(3), 0)),
    ("diff 0-d", lambda m, x, e: m.diff(m.tensor(3.0))),
    ("histc int", lambda m, x, e: m.histc(m.arange(3))),
    ("histc range", lambda m, x, e: m.histc(x, 4, 3, 1)),
    ("bincount neg", lambda m, x, e: m.bincount(m.tensor([-1, 2]))),
    ("bincount float", lambda m, x, e: m.bincount(m.tensor([1.0]))),
    ("quantile q", lambda m, x, e: m.quantile(x, 1.5)),
    ("quantile int", lambda m, x, e: m.quantile(m.arange(3), 0.5)),
    ("quantile interp", lambda m, x, e: m.quantile(x, 0.5, interpolation="foo")),
    ("searchsorted shape", lambda m, x, e: m.searchsorted(m.zeros(2, 3), m.zeros(1, 3))),
    ("sort complex", lambda m, x, e: m.sort(m.zeros(2, dtype=m.complex64))),
    ("mean int", lambda m, x, e: m.mean(m.arange(3))),
    ("nanmean int", lambda m, x, e: m.nanmean(m.arange(3))),
    ("cumsum_ bool", lambda m, x, e: (x > 0).cumsum_(0)),
    ("cumsum_ dtype", lambda m, x, e: x.clone().cumsum_(0, dtype=m.float64)),
]


# Python's own wording for a missing argument differs from PyTorch's parser.
_TYPE_ONLY = {"softmax no dim", "logsumexp no dim"}


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_match_torch(case):
    name, call = case
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x, rx = both(a)
    e, re_ = both(E0)
    raises_like(lambda: call(tl, x, e), lambda: call(torch, rx, re_),
                same_text=name not in _TYPE_ONLY)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_cumulative_half_accumulates_in_float32(op, dtype):
    """PyTorch's cumulative kernels keep a float32 running value for half types and round
    only each output; accumulating in half drifts (a cumsum of 3000 values in [0, 1) ends
    near 1493, not several units lower)."""
    x = np.random.default_rng(0).random(3000).astype(np.float32)
    if op == "cumprod":
        x = 1 + x / 1000
    t, r = both(x)
    got = getattr(t.to(getattr(tl, dtype)), op)(0)
    assert got.dtype == getattr(tl, dtype)
    exact = {"cumsum": np.cumsum, "cumprod": np.cumprod,
             "logcumsumexp": np.logaddexp.accumulate}[op](
        tl.tensor(x).to(getattr(tl, dtype)).double().numpy())
    rel = np.abs(got.double().numpy() - exact) / np.abs(exact)
    assert rel.max() <= 2 ** -7   # one half-type rounding of each output, not a drift
    if HAVE_TORCH:
        want = getattr(r.to(getattr(torch, dtype)), op)(0)
        np.testing.assert_allclose(got.double().numpy(), want.double().numpy(),
                                   rtol=2 ** -7, atol=0)
