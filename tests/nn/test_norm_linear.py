"""Normalization, linear, dropout, flatten and embedding layers, their functional forms
and ``nn.init``: parity with PyTorch (outputs, gradients, running statistics, printed
text, errors) and statistics of the random parts (dropout masks, initialisers)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as nn
import torchlike.nn.functional as F

from .._parity import HAVE_TORCH, assert_same, normalize_error, torch
from ._layers import check_module, copy_state

rng = np.random.default_rng(0)


def A(*shape, dtype="float32", low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(dtype)


def I(*shape, high=10):  # noqa: E743 (integer inputs; pairs with A)
    return rng.integers(0, high, shape).astype(np.int64)


def both(name, *args, **kwargs):
    """The same layer built in torchlike and in PyTorch (None without PyTorch)."""
    mod = nn
    for part in name.split("."):
        mod = getattr(mod, part)
    if not HAVE_TORCH:
        return mod(*args, **kwargs), None
    ref = torch.nn
    for part in name.split("."):
        ref = getattr(ref, part)
    return mod(*args, **kwargs), ref(*args, **kwargs)


def same_error(fn_tl, fn_torch):
    """Both raise the same exception type with the same message (without PyTorch:
    torchlike raises)."""
    if not HAVE_TORCH:
        with pytest.raises(Exception):  # noqa: B017 (type varies by caller)
            fn_tl()
        return
    with pytest.raises(Exception) as ref:
        fn_torch()
    with pytest.raises(Exception) as got:
        fn_tl()
    assert type(got.value).__name__ == type(ref.value).__name__, (got.value, ref.value)
    assert normalize_error(str(got.value)) == str(ref.value)


# ---------------------------------------------------------------------------
# layers vs torch: outputs and every gradient, train and eval
LAYER_CASES = [
    ("Linear", (5, 4), {}, [A(3, 5)]),
    ("Linear", (5, 4), {"bias": False}, [A(3, 5)]),
    ("Linear", (5, 4), {}, [A(2, 3, 5)]),
    ("Linear", (5, 4), {}, [A(5)]),
    ("Linear", (5, 4), {"bias": False}, [A(2, 2, 3, 5)]),
    ("Linear", (5, 4), {"dtype": "float64"}, [A(3, 5, dtype="float64")]),
    ("Bilinear", (3, 4, 2), {}, [A(5, 3), A(5, 4)]),
    ("Bilinear", (3, 4, 2), {"bias": False}, [A(2, 5, 3), A(2, 5, 4)]),
    ("BatchNorm1d", (3,), {}, [A(6, 3)]),
    ("BatchNorm1d", (3,), {"affine": False}, [A(4, 3, 5)]),
    ("BatchNorm1d", (3,), {"momentum": None}, [A(4, 3, 5)]),
    ("BatchNorm2d", (3,), {}, [A(2, 3, 4, 4)]),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, [A(2, 3, 4, 4)]),
    ("BatchNorm2d", (3,), {"bias": False, "eps": 1e-3}, [A(2, 3, 4, 4)]),
    ("BatchNorm3d", (2,), {}, [A(2, 2, 3, 3, 3)]),
    ("SyncBatchNorm", (3,), {}, [A(4, 3, 2)]),
    ("InstanceNorm1d", (3,), {}, [A(2, 3, 6)]),
    ("InstanceNorm1d", (3,), {"affine": True}, [A(3, 6)]),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, [A(2, 3, 4, 4)]),
    ("InstanceNorm3d", (2,), {"track_running_stats": True}, [A(2, 2, 3, 3, 3)]),
    ("LayerNorm", (5,), {}, [A(3, 5)]),
    ("LayerNorm", ((3, 5),), {"bias": False}, [A(2, 3, 5)]),
    ("LayerNorm", (5,), {"elementwise_affine": False, "eps": 1e-3}, [A(4, 2, 5)]),
    ("GroupNorm", (2, 4), {}, [A(3, 4, 5)]),
    ("GroupNorm", (4, 4), {"affine": False}, [A(2, 4, 3, 3)]),
    ("GroupNorm", (1, 6), {"bias": False}, [A(2, 6)]),
    ("RMSNorm", (5,), {}, [A(3, 5)]),
    ("RMSNorm", ((2, 5),), {"eps": 1e-4}, [A(3, 2, 5)]),
    ("RMSNorm", (5,), {"elementwise_affine": False}, [A(3, 5)]),
    ("LocalResponseNorm", (3,), {}, [A(2, 5, 4)]),
    ("LocalResponseNorm", (2,), {"alpha": 0.1, "beta": 0.5, "k": 2.0}, [A(2, 5, 3, 3)]),
    ("LocalResponseNorm", (4,), {}, [A(1, 6, 2, 2, 2)]),
    ("CrossMapLRN2d", (3,), {}, [A(2, 5, 3, 3)]),
    ("Flatten", (), {}, [A(2, 3, 4)]),
    ("Flatten", (0, 1), {}, [A(2, 3, 4)]),
    ("Unflatten", (1, (2, 3)), {}, [A(4, 6)]),
    ("Identity", (3, "x"), {"k": 1}, [A(2, 3)]),
    ("Embedding", (10, 3), {}, [I(4, 5)]),
    ("Embedding", (10, 3), {"padding_idx": 0}, [np.array([[0, 1, 2, 0], [3, 0, 9, 9]])]),
    ("Embedding", (10, 3), {"padding_idx": -1, "scale_grad_by_freq": True},
     [np.array([1, 1, 1, 4, 9, 9])]),
    ("EmbeddingBag", (10, 3), {}, [I(4, 3)]),
    ("EmbeddingBag", (10, 3), {"mode": "sum"}, [I(8), np.array([0, 3, 3, 5])]),
    ("EmbeddingBag", (10, 3), {"mode": "max"}, [I(8), np.array([0, 2, 5])]),
    ("EmbeddingBag", (10, 3), {"mode": "mean", "padding_idx": 2},
     [np.array([2, 1, 2, 3, 4, 2]), np.array([0, 2, 3])]),
    # The last offset is len(input), as PyTorch documents; indices past it would leave
    # PyTorch's backward reading uninitialised memory (tested without torch below).
    ("EmbeddingBag", (10, 3), {"mode": "sum", "include_last_offset": True},
     [I(7), np.array([0, 3, 5, 7])]),
    ("EmbeddingBag", (10, 3), {"mode": "sum", "scale_grad_by_freq": True},
     [np.array([1, 1, 2, 2]), np.array([0, 2])]),
]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def _build(name, args, kwargs):
    kw = dict(kwargs)
    if "dtype" in kw:
        dt = kw.pop("dtype")
        a, b = both(name, *args, **kw)
        return a.to(getattr(tl, dt)), b.to(getattr(torch, dt)) if HAVE_TORCH else None
    return both(name, *args, **kw)


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name,args,kwargs,inputs", LAYER_CASES, ids=_ids(LAYER_CASES))
def test_layer_parity(name, args, kwargs, inputs, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, ref = _build(name, args, kwargs)
    rtol = 1e-4 if "Norm" in name or "LRN" in name else 1e-5
    check_module(m, ref, inputs, train=train, rtol=rtol, atol=1e-5)
    if not HAVE_TORCH:
        return
    # buffers (running statistics, counters) moved the same way
    for (k, v), (rk, rv) in zip(m.state_dict().items(), ref.state_dict().items()):
        assert k == rk
        assert_same(v, rv, 1e-4, 1e-5, k)


def test_embedding_bag_per_sample_weights():
    m, ref = both("EmbeddingBag", 10, 3, mode="sum")
    idx, off, w = I(6), np.array([0, 2, 4]), A(6)
    check_module(m, ref, [idx, off, w], train=True)


def test_embedding_bag_include_last_offset_ignores_trailing_indices():
    # Indices after the last offset belong to no bag: no output row, no gradient.
    m = nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
    idx = tl.tensor([9, 7, 7, 6, 8, 8, 6])
    out = m(idx, tl.tensor([0, 3, 5, 6]))
    assert out.shape == (3, 3)
    w = m.weight.detach()
    expected = tl.stack([w[9] + 2 * w[7], w[6] + w[8], w[8]])
    assert tl.allclose(out, expected)
    out.sum().backward()
    counts = tl.zeros(10).index_add_(0, idx[:6], tl.ones(6))
    assert tl.equal(m.weight.grad, counts[:, None].expand(10, 3))


# ---------------------------------------------------------------------------
# batch norm running statistics over several steps
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (8, 3)), ("BatchNorm2d", (4, 3, 2, 2)),
                                       ("InstanceNorm1d", (4, 3, 5))])
def test_running_stats_over_steps(cls, shape, momentum):
    kw = {"track_running_stats": True} if cls.startswith("Instance") else {}
    m, ref = both(cls, 3, momentum=momentum, **kw)
    if HAVE_TORCH:
        copy_state(m, ref)
    means = []
    for step in range(5):
        x = A(*shape) * (step + 1) + step
        out = m(tl.tensor(x))
        means.append(x.mean(axis=tuple(i for i in range(x.ndim) if i != 1)))
        if HAVE_TORCH:
            rout = ref(torch.tensor(x))
            assert_same(out, rout, 1e-4, 1e-5, f"step {step}")
    if HAVE_TORCH:
        for k, v in ref.state_dict().items():
            assert_same(m.state_dict()[k], v, 1e-5, 1e-6, k)
    elif not cls.startswith("Instance"):
        # running_mean: exponential (or, for momentum None, cumulative) average
        want = np.zeros(3)
        for i, mu in enumerate(means):
            mom = 1 / (i + 1) if momentum is None else momentum
            want = (1 - mom) * want + mom * mu
        np.testing.assert_allclose(np.asarray(m.running_mean), want, rtol=1e-4, atol=1e-5)
    if not cls.startswith("Instance"):
        assert m.num_batches_tracked.dtype is tl.int64 and m.num_batches_tracked.dim() == 0
        assert int(m.num_batches_tracked) == 5
    m.eval()
    if HAVE_TORCH:
        ref.eval()
    x = A(*shape)
    out = m(tl.tensor(x))
    assert out.shape == x.shape
    if HAVE_TORCH:
        assert_same(out, ref(torch.tensor(x)), 1e-4, 1e-5)


def test_batchnorm_buffers_and_names():
    bn = nn.BatchNorm2d(4)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var",
                                                  "num_batches_tracked"]
    assert bn.num_batches_tracked.dtype is tl.int64 and bn.num_batches_tracked.shape == ()
    nb = nn.BatchNorm1d(4, track_running_stats=False)
    assert nb.running_mean is None and nb.running_var is None
    assert nb.num_batches_tracked is None
    assert list(nb.state_dict()) == ["weight", "bias"]
    # eval without running stats normalises with the batch statistics
    x = tl.randn(6, 4) * 3 + 2
    y = nb.eval()(x)
    np.testing.assert_allclose(np.asarray(y.mean(0).detach()), 0, atol=1e-5)
    bn.train()(tl.randn(2, 4, 3, 3))
    bn.reset_running_stats()
    assert int(bn.num_batches_tracked) == 0
    assert float(bn.running_var.sum()) == 4.0


def test_batchnorm_eval_uses_running_stats():
    bn = nn.BatchNorm1d(2)
    with tl.no_grad():
        bn.running_mean.copy_(tl.tensor([1.0, -1.0]))
        bn.running_var.copy_(tl.tensor([4.0, 0.25]))
    bn.eval()
    y = bn(tl.tensor([[3.0, 0.0], [1.0, -1.0]]))
    np.testing.assert_allclose(np.asarray(y.detach()), [[1.0, 2.0], [0.0, 0.0]], atol=1e-4)
    assert int(bn.num_batches_tracked) == 0


def test_convert_sync_batchnorm():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.BatchNorm1d(4)))
    model[1].eval()
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(conv[1], nn.SyncBatchNorm) and isinstance(conv[2][0], nn.SyncBatchNorm)
    assert conv[1].weight is model[1].weight if conv is not model else True
    assert conv[1].training is False
    y = conv(tl.randn(5, 3))
    assert y.shape == (5, 4)
    if HAVE_TORCH:
        assert repr(conv) == repr(torch.nn.SyncBatchNorm.convert_sync_batchnorm(
            torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                torch.nn.Sequential(torch.nn.BatchNorm1d(4)))))


# ---------------------------------------------------------------------------
# autograd node names
def test_grad_fn_names():
    cases = [
        lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
        lambda m, x, w, b: m.nn.functional.layer_norm(x, (5,), None, None),
        lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b),
        lambda m, x, w, b: m.nn.functional.instance_norm(x),
        lambda m, x, w, b: m.nn.functional.rms_norm(x, (5,)),
        lambda m, x, w, b: m.nn.functional.local_response_norm(x, 2),
        lambda m, x, w, b: m.nn.functional.dropout(x, 0.5),
        lambda m, x, w, b: m.nn.functional.dropout(x, 1.0),
        lambda m, x, w, b: m.nn.functional.alpha_dropout(x, 0.5, True),
        lambda m, x, w, b: m.nn.functional.dropout2d(x.unsqueeze(-1), 0.5),
        lambda m, x, w, b: m.nn.functional.embedding(m.tensor([[1, 2]]), x.reshape(-1, 3)),
    ]
    W = A(6, 5)
    for shp in [(5,), (2, 5), (3, 2, 5), (2, 3, 2, 5)]:
        xs = A(*shp)
        for bias in (True, False):
            cases.append(lambda m, x, w, b, xs=xs, bias=bias: m.nn.functional.linear(
                m.tensor(xs).requires_grad_(), m.tensor(W), b.new_ones(6) if bias else None))
    cases.append(lambda m, x, w, b: m.nn.functional.bilinear(x[0], x[0], m.ones(2, 5, 5)))
    cases.append(lambda m, x, w, b: m.nn.functional.bilinear(x[0], x[0], m.ones(2, 5, 5),
                                                             m.ones(2)))
    x = A(4, 3, 5)
    w, b = A(3), A(3)
    for i, c in enumerate(cases):
        outs = []
        for m in (tl, torch) if HAVE_TORCH else (tl,):
            xt = m.tensor(x).requires_grad_()
            outs.append(c(m, xt, m.tensor(w).requires_grad_(), m.tensor(b).requires_grad_()))
        assert outs[0].grad_fn is not None, i
        if HAVE_TORCH:
            assert outs[0].grad_fn.name() == outs[1].grad_fn.name(), i


# ---------------------------------------------------------------------------
# dropout: statistics, scaling, identity in eval, reproducibility
def test_dropout_train_scales_and_frequency():
    x = tl.ones(200, 500)
    p = 0.3
    y = F.dropout(x, p, training=True)
    a = np.asarray(y)
    kept = a != 0
    np.testing.assert_allclose(a[kept], 1 / (1 - p), rtol=1e-6)
    freq = 1 - kept.mean()
    assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / a.size)
    assert y.dtype is tl.float32


def test_dropout_eval_is_identity_and_masks_differ():
    d = nn.Dropout(0.5)
    x = tl.randn(64, 64)
    d.eval()
    assert d(x) is x
    d.train()
    m1, m2 = np.asarray(d(x)) != 0, np.asarray(d(x)) != 0
    assert (m1 != m2).any()
    assert F.dropout(x, 0.0) is x
    assert (np.asarray(F.dropout(x, 1.0)) == 0).all()


def test_dropout_reproducible_after_manual_seed():
    x = tl.ones(1000)
    tl.manual_seed(123)
    a = np.asarray(F.dropout(x, 0.4))
    b = np.asarray(F.dropout(x, 0.4))
    tl.manual_seed(123)
    c = np.asarray(F.dropout(x, 0.4))
    np.testing.assert_array_equal(a, c)
    assert (a != b).any()


def test_feature_dropout_zeros_whole_channels():
    x = tl.ones(16, 32, 3, 3)
    y = np.asarray(F.dropout2d(x, 0.5))
    per_channel = y.reshape(16, 32, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    y1 = np.asarray(F.dropout1d(tl.ones(8, 5), 0.5))     # unbatched (C, L)
    assert ((y1 == 0).all(-1) | (y1 == 2).all(-1)).all()
    y3 = np.asarray(nn.Dropout3d(0.25)(tl.ones(2, 8, 2, 2, 2)))
    assert np.isclose(y3, 0).sum() + np.isclose(y3, 4.0 / 3).sum() == y3.size


def test_alpha_dropout_keeps_moments():
    x = tl.randn(400, 400)
    y = F.alpha_dropout(x, 0.2, training=True)
    a = np.asarray(y)
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02
    assert nn.AlphaDropout(0.2).eval()(x) is x
    fy = np.asarray(F.feature_alpha_dropout(tl.randn(200, 50, 4), 0.2, training=True))
    assert abs(fy.mean()) < 0.05


def test_dropout_inplace_and_grad():
    x = tl.randn(50, 50)
    y = x.clone()
    out = F.dropout(y, 0.5, inplace=True)
    assert out is y
    a = np.asarray(out)
    ref = np.asarray(x)
    np.testing.assert_allclose(a[a != 0], 2 * ref[a != 0], rtol=1e-6)
    w = tl.randn(10, requires_grad=True)
    o = F.dropout(w, 0.5)
    o.sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad), (np.asarray(o.detach()) != 0) * 2.0)
    assert o.grad_fn.name() == "MulBackward0"


def test_dropout_errors():
    for fn in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
               "feature_alpha_dropout"):
        same_error(lambda: getattr(F, fn)(tl.ones(2, 3, 4), 1.5),
                   lambda: getattr(torch.nn.functional, fn)(torch.ones(2, 3, 4), 1.5))
    same_error(lambda: nn.Dropout(-0.1), lambda: torch.nn.Dropout(-0.1))
    same_error(lambda: F.dropout1d(tl.ones(2, 3, 4, 5)),
               lambda: torch.nn.functional.dropout1d(torch.ones(2, 3, 4, 5)))
    same_error(lambda: F.dropout(tl.arange(4), 0.5),
               lambda: torch.nn.functional.dropout(torch.arange(4), 0.5))
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        F.dropout2d(tl.ones(2, 3, 4))


def test_torch_level_dropout_functions():
    x = tl.ones(10, 4)
    assert tl.dropout(x, 0.5, False) is x
    assert tl.feature_dropout(x, 0.0, True) is x
    y = tl.dropout(x, 0.5, True)
    assert set(np.unique(np.asarray(y))) <= {0.0, 2.0}


# ---------------------------------------------------------------------------
# printing
@pytest.mark.parametrize("expr", [
    "Linear(120, 84, bias=False)", "Linear(3, 4)", "Bilinear(2, 3, 4)",
    "BatchNorm2d(6)", "BatchNorm1d(3, momentum=None, affine=False)",
    "BatchNorm3d(2, eps=1e-3, track_running_stats=False, bias=False)", "SyncBatchNorm(3)",
    "InstanceNorm2d(3)", "InstanceNorm1d(4, affine=True, track_running_stats=True)",
    "LayerNorm(4)", "LayerNorm([2, 3], eps=1e-6, elementwise_affine=False)",
    "LayerNorm(4, bias=False)", "GroupNorm(2, 4)", "GroupNorm(1, 3, affine=False)",
    "RMSNorm(4)", "RMSNorm([2, 4], eps=1e-5)", "LocalResponseNorm(2)", "CrossMapLRN2d(3)",
    "Dropout()", "Dropout(p=0.2, inplace=True)", "Dropout2d(0.1)", "AlphaDropout(0.2)",
    "FeatureAlphaDropout()", "Dropout1d()", "Dropout3d()", "Identity()", "Flatten()",
    "Unflatten(1, (2, 2))", "Embedding(10, 3, padding_idx=0)",
    "Embedding(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)",
    "EmbeddingBag(10, 3)", "EmbeddingBag(10, 3, mode='sum', padding_idx=1, max_norm=2.0)",
    "Sequential(Linear(4, 8), BatchNorm1d(8), ReLU(), Dropout(0.5), Linear(8, 2))",
])
def test_repr_matches_torch(expr):
    got = repr(eval("nn." + expr.replace("Sequential(", "Sequential(nn.")
                    .replace("), ", "), nn."), {"nn": nn}))
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the printed text is compared")
    want = repr(eval("nn." + expr.replace("Sequential(", "Sequential(nn.")
                     .replace("), ", "), nn."), {"nn": torch.nn}))
    assert got == want


def test_repr_texts():
    assert repr(nn.Linear(120, 84, bias=False)) == \
        "Linear(in_features=120, out_features=84, bias=False)"
    assert repr(nn.Dropout()) == "Dropout(p=0.5, inplace=False)"
    assert repr(nn.Embedding(10, 3, padding_idx=0)) == "Embedding(10, 3, padding_idx=0)"
    # PyTorch 2.x also prints bias=
    assert repr(nn.BatchNorm2d(6)) == ("BatchNorm2d(6, eps=1e-05, momentum=0.1, affine=True, "
                                       "bias=True, track_running_stats=True)")


# ---------------------------------------------------------------------------
# error paths
@pytest.mark.parametrize("call", [
    "F.linear(X(2, 3), X(5, 4))", "F.linear(X(2, 2, 3), X(5, 4), X(5))",
    "F.linear(X(3), X(5, 4))", "F.linear(X(), X(4, 3))",
    "F.linear(X(2, 3).double(), X(4, 3))",
    "F.bilinear(X(3, 5), X(3, 3), X(2, 5, 4))", "F.bilinear(X(3, 5), X(2, 4), X(2, 5, 4))",
    "F.bilinear(X(3, 5), X(3, 4), X(2, 5, 4), X(3))",
    "F.layer_norm(X(4, 3, 6), (5,))", "F.layer_norm(X(4, 3, 6), (3, 6), X(6))",
    "F.layer_norm(X(4, 3), ())", "F.rms_norm(X(4, 3, 6), (5,))",
    "F.group_norm(X(4, 3, 6), 2)", "F.group_norm(X(4, 3, 6), 3, X(4))",
    "F.group_norm(X(1, 3), 3)", "F.group_norm(X(3), 1)",
    "F.batch_norm(X(1, 3), None, None, training=True)",
    "F.batch_norm(X(4, 3), m.zeros(4), m.ones(4), training=True)",
    "F.batch_norm(X(4, 3), m.zeros(3), m.ones(3), X(4), training=True)",
    "F.batch_norm(X(4, 3), None, None, training=False)",
    "F.batch_norm(X(4, 3), None, None, training=True, eps=0.0)",
    "F.instance_norm(X(2, 3, 1))", "F.local_response_norm(X(2, 3), 2)",
    "F.embedding(m.tensor([10]), X(10, 3))", "F.embedding(m.tensor([-1]), X(10, 3))",
    "F.embedding(m.tensor([1.0]), X(10, 3))",
    "F.embedding(m.tensor([1]), X(10, 3), padding_idx=10)",
    "F.embedding_bag(m.tensor([1, 2]), X(10, 3), m.tensor([1]))",
    "F.embedding_bag(m.tensor([1, 12]), X(10, 3), m.tensor([0]))",
    "F.embedding_bag(m.tensor([1, 2]), X(10, 3), m.tensor([0, 3]))",
    "F.embedding_bag(m.tensor([1, 2]), X(10, 3), m.tensor([0]), mode='max', "
    "per_sample_weights=X(2))",
    "F.embedding_bag(m.tensor([1, 2]), X(10, 3), m.tensor([0]), mode='median')",
    "F.embedding_bag(m.tensor([[1, 2]]), X(10, 3), m.tensor([0]))",
    "F.embedding_bag(m.tensor([1, 2]), X(10, 3))",
    "nn.BatchNorm1d(3)(X(2, 3, 4, 5))", "nn.BatchNorm2d(3)(X(2, 3, 4))",
    "nn.BatchNorm3d(3)(X(2, 3, 4))", "nn.BatchNorm1d(3)(X(2, 4))",
    "nn.InstanceNorm1d(3, affine=True)(X(2, 4, 5))", "nn.InstanceNorm2d(3)(X(2, 3))",
    "nn.Linear(3, 4)(X(2, 5))", "nn.GroupNorm(2, 3)", "nn.Embedding(10, 3, padding_idx=10)",
    "nn.Embedding(10, 3)(m.tensor([[1, 10]]))", "nn.Unflatten(1, 2)",
    "nn.Unflatten(1, (2, 2.0))", "nn.SyncBatchNorm(3)(X(3))",
    "nn.Bilinear(0, 2, 3)", "nn.init.xavier_uniform_(X(3))",
    "nn.init.kaiming_uniform_(X(3, 4), mode='fan_avg')",
    "nn.init.calculate_gain('gelu')", "nn.init.calculate_gain('leaky_relu', 'x')",
    "nn.init.eye_(X(3))", "nn.init.dirac_(X(3, 3))", "nn.init.dirac_(X(3, 3, 3), groups=2)",
    "nn.init.orthogonal_(X(3))", "nn.init.sparse_(X(3, 3, 3), 0.5)",
])
def test_errors_match_torch(call):
    def run(m):
        ns = {"F": m.nn.functional, "nn": m.nn, "m": m,
              "X": lambda *s: m.ones(*s) if s else m.tensor(1.0)}
        return lambda: eval(call, ns)
    same_error(run(tl), run(torch) if HAVE_TORCH else None)


# ---------------------------------------------------------------------------
# functional parity not covered by the layers
def test_functional_batch_norm_updates_given_stats():
    x = A(6, 3, 2)
    rm, rv = A(3), A(3, low=0.5, high=2)
    out = F.batch_norm(tl.tensor(x), trm := tl.tensor(rm), trv := tl.tensor(rv),
                       training=True, momentum=0.3)
    if HAVE_TORCH:
        ref = torch.nn.functional.batch_norm(torch.tensor(x), orm := torch.tensor(rm),
                                             orv := torch.tensor(rv), training=True,
                                             momentum=0.3)
        assert_same(out, ref, 1e-5, 1e-5)
        assert_same(trm, orm, 1e-5, 1e-6)
        assert_same(trv, orv, 1e-5, 1e-6)
    else:
        np.testing.assert_allclose(np.asarray(trm), 0.7 * rm + 0.3 * x.mean((0, 2)),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(trv), 0.7 * rv + 0.3 * x.var((0, 2), ddof=1),
                                   rtol=1e-5, atol=1e-6)
    out = tl.batch_norm(tl.tensor(x), None, None, trm, trv, False, 0.1, 1e-5, True)
    if HAVE_TORCH:
        ref = torch.batch_norm(torch.tensor(x), None, None, orm, orv, False, 0.1, 1e-5, True)
        assert_same(out, ref, 1e-5, 1e-5)
    else:
        want = (x - np.asarray(trm)[:, None]) / np.sqrt(np.asarray(trv)[:, None] + 1e-5)
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-5)


def test_batch_norm_backward_after_stats_update():
    bn = nn.BatchNorm1d(3)
    x = tl.randn(5, 3, requires_grad=True)
    y = bn(x)
    bn(x)     # the buffers change again before backward: no version error
    y.sum().backward()
    assert x.grad is not None and bn.weight.grad is not None


def test_embedding_max_norm_renormalises_weight_in_place():
    w = A(10, 4, low=-3, high=3)
    idx = np.array([[1, 2, 2], [5, 1, 0]])
    tw = tl.tensor(w).requires_grad_()
    out = F.embedding(tl.tensor(idx), tw, max_norm=1.5, norm_type=2.0)
    if HAVE_TORCH:
        ow = torch.tensor(w).requires_grad_()
        ref = torch.nn.functional.embedding(torch.tensor(idx), ow, max_norm=1.5, norm_type=2.0)
        assert_same(out, ref, 1e-5, 1e-6)
        assert_same(tw, ow, 1e-5, 1e-6, "weight after renorm")
    else:
        # the looked-up rows were scaled down to norm 1.5 in place, the others kept
        norms = np.linalg.norm(np.asarray(tw.detach()), axis=1)
        used = np.unique(idx)
        assert (norms[used] <= 1.5 + 1e-5).all()
        rest = np.setdiff1d(np.arange(10), used)
        np.testing.assert_array_equal(np.asarray(tw.detach())[rest], w[rest])
        np.testing.assert_allclose(np.asarray(out.detach()), np.asarray(tw.detach())[idx])
    out.sum().backward()
    if HAVE_TORCH:
        ref.sum().backward()
        assert_same(tw.grad, ow.grad)
    else:
        counts = np.bincount(idx.ravel(), minlength=10)[:, None]
        np.testing.assert_allclose(np.asarray(tw.grad), np.broadcast_to(counts, (10, 4)))
    m, r = both("Embedding", 10, 4, max_norm=1.0, norm_type=1.0)
    check_module(m, r, [idx])
    if HAVE_TORCH:
        assert_same(m.weight, r.weight, 1e-5, 1e-6)
    else:
        assert (np.abs(np.asarray(m.weight.detach()))[np.unique(idx)].sum(1) <= 1 + 1e-5).all()


def test_embedding_from_pretrained():
    w = A(5, 3)
    e = nn.Embedding.from_pretrained(tl.tensor(w))
    assert e.weight.requires_grad is False
    if HAVE_TORCH:
        r = torch.nn.Embedding.from_pretrained(torch.tensor(w))
        assert_same(e(tl.tensor([[0, 4]])), r(torch.tensor([[0, 4]])))
    else:
        np.testing.assert_array_equal(np.asarray(e(tl.tensor([[0, 4]]))), w[[[0, 4]]])
    e2 = nn.Embedding.from_pretrained(tl.tensor(w), freeze=False, padding_idx=1)
    assert e2.weight.requires_grad and e2.padding_idx == 1
    np.testing.assert_allclose(np.asarray(e2.weight.detach()), w)   # not zeroed
    b = nn.EmbeddingBag.from_pretrained(tl.tensor(w), mode="max")
    out = b(tl.tensor([[0, 4], [1, 1]]))
    if HAVE_TORCH:
        rb = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), mode="max")
        assert_same(out, rb(torch.tensor([[0, 4], [1, 1]])))
    else:
        np.testing.assert_array_equal(np.asarray(out.detach()),
                                      [np.maximum(w[0], w[4]), w[1]])


def test_embedding_padding_row_gets_no_gradient():
    e = nn.Embedding(6, 2, padding_idx=3)
    assert float(e.weight[3].abs().sum()) == 0.0
    e(tl.tensor([3, 3, 1])).sum().backward()
    g = np.asarray(e.weight.grad)
    assert (g[3] == 0).all() and (g[1] == 1).all()


def test_functional_norms_half_and_double():
    for dt in ("float64", "float16"):
        x = A(3, 4, 5, dtype=dt)
        tol = 1e-2 if dt == "float16" else 1e-6
        for f in (lambda m, t: m.nn.functional.layer_norm(t, (5,)),
                  lambda m, t: m.nn.functional.group_norm(t, 2),
                  lambda m, t: m.nn.functional.rms_norm(t, (4, 5)),
                  lambda m, t: m.nn.functional.instance_norm(t),
                  lambda m, t: m.nn.functional.batch_norm(t, None, None, training=True)):
            out = f(tl, tl.tensor(x))
            assert out.dtype is getattr(tl, dt) and tuple(out.shape) == x.shape
            if HAVE_TORCH:
                assert_same(out, f(torch, torch.tensor(x)), tol, tol)


# ---------------------------------------------------------------------------
# default initialisation statistics vs PyTorch's
def _draws(make, n):
    return np.concatenate([np.asarray(make().detach()).ravel() for _ in range(n)])


@pytest.mark.parametrize("what", ["Linear.weight", "Linear.bias", "Bilinear.weight",
                                  "Bilinear.bias", "Embedding.weight", "Conv-like.weight"])
def test_default_init_statistics(what):
    cls, attr = what.split(".")
    makers = {
        "Linear": lambda m: m.nn.Linear(50, 30),
        "Bilinear": lambda m: m.nn.Bilinear(20, 10, 30),
        "Embedding": lambda m: m.nn.Embedding(100, 20, padding_idx=7),
    }
    if cls == "Conv-like":
        def mk(m):
            t = m.empty(16, 8, 3, 3)
            m.nn.init.kaiming_uniform_(t, a=math.sqrt(5))
            return t
        a = _draws(lambda: mk(tl), 20)
        b = _draws(lambda: mk(torch), 20) if HAVE_TORCH else None
    else:
        a = _draws(lambda: getattr(makers[cls](tl), attr), 20)
        b = _draws(lambda: getattr(makers[cls](torch), attr), 20) if HAVE_TORCH else None
    if not HAVE_TORCH:
        # the documented laws: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), Embedding N(0, 1)
        if cls == "Embedding":
            assert abs(a.mean()) < 0.05 and abs(a.std() - 1) < 0.05
        else:
            bound = 1 / math.sqrt({"Linear": 50, "Bilinear": 20, "Conv-like": 72}[cls])
            assert a.min() >= -bound and a.max() <= bound
            assert a.min() < -0.9 * bound and a.max() > 0.9 * bound
            assert abs(a.std() - bound / math.sqrt(3)) < 0.1 * bound
        return
    if cls != "Embedding":     # uniform draws: the same bounds
        # the extreme of n uniform draws falls short of the bound by about width / n (an
        # exponential law): ten times that fails once in e**10 runs
        slack = 10 * (b.max() - b.min()) / b.size
        assert abs(a.min() - b.min()) < slack
        assert abs(a.max() - b.max()) < slack
    assert abs(a.mean() - b.mean()) < 6 * b.std() / math.sqrt(b.size)
    assert abs(a.std() - b.std()) < 6 * b.std() / math.sqrt(2 * b.size)
    if cls == "Linear":
        bound = 1 / math.sqrt(50)
        assert a.min() >= -bound and a.max() <= bound


def test_embedding_default_init_zero_padding_row_and_norm_layers():
    e = nn.Embedding(50, 8, padding_idx=-2)
    assert e.padding_idx == 48
    w = np.asarray(e.weight.detach())
    assert (w[48] == 0).all() and abs(w.std() - 1) < 0.15
    ln, bn, gn = nn.LayerNorm(4), nn.BatchNorm1d(4), nn.GroupNorm(2, 4)
    for m in (ln, bn, gn):
        assert (np.asarray(m.weight.detach()) == 1).all()
        assert (np.asarray(m.bias.detach()) == 0).all()
    assert (np.asarray(nn.RMSNorm(3).weight.detach()) == 1).all()


# ---------------------------------------------------------------------------
# nn.init: fans, gains, statistics, in-place semantics
@pytest.mark.parametrize("shape", [(3, 4), (8, 4, 3), (16, 8, 3, 3), (4, 2, 2, 3, 5), (5, 0)])
def test_fan_in_and_fan_out(shape):
    rf = math.prod(shape[2:])
    assert nn.init._calculate_fan_in_and_fan_out(tl.empty(*shape)) == \
        (shape[1] * rf, shape[0] * rf)
    if not HAVE_TORCH:
        return
    assert nn.init._calculate_fan_in_and_fan_out(tl.empty(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    for mode in ("fan_in", "fan_out"):
        assert nn.init._calculate_correct_fan(tl.empty(*shape), mode) == \
            torch.nn.init._calculate_correct_fan(torch.empty(*shape), mode)


def test_calculate_gain():
    for (nl, p), want in zip(
            [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
             ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
             ("leaky_relu", 1), ("selu", None), ("conv_transpose3d", None)],
            [1, 1, 1, 5 / 3, math.sqrt(2), math.sqrt(2 / (1 + 0.01 ** 2)),
             math.sqrt(2 / 1.04), 1, 3 / 4, 1]):
        assert math.isclose(nn.init.calculate_gain(nl, p), want, rel_tol=1e-12)
        if HAVE_TORCH:
            assert nn.init.calculate_gain(nl, p) == torch.nn.init.calculate_gain(nl, p)


INIT_CASES = [
    ("uniform_", {"a": -0.5, "b": 2.0}),
    ("normal_", {"mean": 1.0, "std": 0.3}),
    ("trunc_normal_", {}),
    ("trunc_normal_", {"mean": 0.5, "std": 2.0, "a": -1.0, "b": 1.0}),
    ("trunc_normal_", {"mean": 0.0, "std": 0.02, "a": -0.04, "b": 0.04}),
    ("xavier_uniform_", {}), ("xavier_uniform_", {"gain": 2.0}),
    ("xavier_normal_", {"gain": 0.5}),
    ("kaiming_uniform_", {}), ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"}),
    ("orthogonal_", {}), ("orthogonal_", {"gain": 2.0}),
    ("sparse_", {"sparsity": 0.3, "std": 0.5}),
]


@pytest.mark.parametrize("name,kw", INIT_CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                      enumerate(INIT_CASES)])
def test_init_statistics(name, kw):
    shape = (64, 32) if name in ("sparse_",) else (64, 16, 3)

    def draw(m):
        t = m.empty(*shape)
        out = getattr(m.nn.init, name)(t, **kw)
        assert out is t
        return np.asarray(t.detach()).ravel()
    a = np.concatenate([draw(tl) for _ in range(4)])
    b = np.concatenate([draw(torch) for _ in range(4)]) if HAVE_TORCH else None
    if HAVE_TORCH:
        se = b.std() / math.sqrt(b.size)
        assert abs(a.mean() - b.mean()) < 6 * se + 1e-6
        assert abs(a.std() - b.std()) < 6 * b.std() / math.sqrt(2 * b.size) + 1e-7
    if "uniform" in name and HAVE_TORCH:
        assert abs(a.min() - b.min()) < 0.02 * b.std()
        assert abs(a.max() - b.max()) < 0.02 * b.std()
    if name == "trunc_normal_":
        lo, hi = kw.get("a", -2.0), kw.get("b", 2.0)
        assert a.min() >= lo and a.max() <= hi
    if name == "sparse_":
        zeros = (a.reshape(4, *shape) == 0).sum(1)
        assert (zeros == math.ceil(0.3 * 64)).all()


def test_orthogonal_is_orthogonal():
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        t = nn.init.orthogonal_(tl.empty(*shape), gain=2.0)
        q = np.asarray(t).reshape(shape[0], -1)
        small = min(q.shape)
        g = q @ q.T if q.shape[0] == small else q.T @ q
        np.testing.assert_allclose(g, 4 * np.eye(small), atol=1e-5)


def _dirac(shape, groups=1):
    w = np.zeros(shape, np.float32)
    per = shape[0] // groups
    for g in range(groups):
        for d in range(min(per, shape[1])):
            w[(g * per + d, d) + tuple(s // 2 for s in shape[2:])] = 1
    return w


def test_deterministic_inits_match_torch():
    expected = {"eye_": lambda s, kw: np.eye(*s), "dirac_": lambda s, kw: _dirac(s, **kw),
                "constant_": lambda s, kw: np.full(s, kw["val"]),
                "ones_": lambda s, kw: np.ones(s), "zeros_": lambda s, kw: np.zeros(s)}
    for f, shape, kw in [("eye_", (3, 5), {}), ("dirac_", (4, 2, 3), {}),
                         ("dirac_", (6, 3, 3, 3), {"groups": 2}),
                         ("dirac_", (2, 2, 3, 3, 3), {}), ("constant_", (2, 3), {"val": 0.7}),
                         ("ones_", (2, 3), {}), ("zeros_", (4,), {})]:
        a = getattr(nn.init, f)(tl.empty(*shape), **kw)
        np.testing.assert_allclose(np.asarray(a), expected[f](shape, kw), rtol=1e-6)
        if HAVE_TORCH:
            b = getattr(torch.nn.init, f)(torch.empty(*shape), **kw)
            assert_same(a, b)


def test_init_writes_in_place_on_parameters_and_views():
    lin = nn.Linear(4, 3)
    w = lin.weight
    out = nn.init.constant_(lin.weight, 0.25)
    assert out is w and lin.weight.requires_grad and lin.weight.grad_fn is None
    assert (np.asarray(lin.weight.detach()) == 0.25).all()
    nn.init.zeros_(lin.weight[0])
    assert (np.asarray(lin.weight.detach())[0] == 0).all()
    g1, g2 = tl.Generator().manual_seed(3), tl.Generator().manual_seed(3)
    a = nn.init.kaiming_normal_(tl.empty(5, 4), generator=g1)
    b = nn.init.kaiming_normal_(tl.empty(5, 4), generator=g2)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.warns(UserWarning, match="zero-element"):
        nn.init.kaiming_uniform_(tl.empty(0, 3))
    with pytest.warns(FutureWarning, match="nn.init.uniform_"):
        nn.init.uniform(tl.empty(2))


def test_manual_seed_reproduces_default_init():
    tl.manual_seed(7)
    a = nn.Linear(5, 3)
    tl.manual_seed(7)
    b = nn.Linear(5, 3)
    np.testing.assert_array_equal(np.asarray(a.weight.detach()), np.asarray(b.weight.detach()))
    np.testing.assert_array_equal(np.asarray(a.bias.detach()), np.asarray(b.bias.detach()))


# ---------------------------------------------------------------------------
# the seed notes' recipes
class _Seed000Model(nn.Module):
    """Seed 000: weights re-assigned as new Parameters under no_grad."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(4, 1)
        self.initialize()

    def initialize(self):
        with tl.no_grad():
            self.fc1.weight = tl.nn.Parameter(
                tl.Tensor([[1., 2., 3.],
                           [-4., -5., -6.],
                           [7., 8., 9.],
                           [-10., -11., -12.]]))
            self.fc1.bias = tl.nn.Parameter(tl.Tensor([1.0, 2.0, 3.0, 4.0]))
            self.fc2.weight = tl.nn.Parameter(tl.Tensor([[1.0, 2.0, 3.0, 4.0]]))
            self.fc2.bias = tl.nn.Parameter(tl.Tensor([1.0]))

    def forward(self, x):
        return self.fc2(self.relu1(self.fc1(x)))


def test_seed_000_linear_weight_reassignment_under_no_grad():
    model = _Seed000Model()
    assert model.fc1.weight.requires_grad and model.fc1.weight.is_leaf
    assert [n for n, _ in model.named_parameters()] == ["fc1.weight", "fc1.bias",
                                                        "fc2.weight", "fc2.bias"]
    x = tl.Tensor([[1.0, 1.0, 1.0]]).requires_grad_()
    o = model(x)
    # fc1: [7, -13, 27, -29] -> relu [7, 0, 27, 0] -> fc2: 7 + 81 + 1
    assert o.tolist() == [[89.0]]
    o.backward()
    assert model.fc1.weight.grad.tolist() == [[1.0] * 3, [0.0] * 3, [3.0] * 3, [0.0] * 3]
    assert model.fc2.weight.grad.tolist() == [[7.0, 0.0, 27.0, 0.0]]
    assert model.fc1.bias.grad.tolist() == [1.0, 0.0, 3.0, 0.0]
    assert x.grad.tolist() == [[22.0, 26.0, 30.0]]


class _Seed003Net(nn.Module):
    """Seed 003: layers built after a freezing loop stay trainable."""

    def __init__(self):
        super().__init__()
        self.fc0 = nn.Linear(6, 5)
        self.bn = nn.BatchNorm1d(5)
        for p in self.parameters():
            p.requires_grad = False
        self.fc1 = nn.Linear(5, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(self.bn(self.fc0(x)))))


def test_seed_003_freezing_and_clamp_weights():
    net = _Seed003Net()
    trainable = [n for n, p in net.named_parameters() if p.requires_grad]
    assert trainable == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    net(tl.randn(8, 6)).sum().backward()
    assert net.fc0.weight.grad is None and net.bn.weight.grad is None
    assert net.fc1.weight.grad is not None
    # the filter(lambda p: p.requires_grad, ...) idiom for the optimizer
    assert len(list(filter(lambda p: p.requires_grad, net.parameters()))) == 4
    # freezing by children count, as in the notes
    count = 0
    for k in net.children():
        count += 1
        for param in k.parameters():
            param.requires_grad = count > 2
    assert [p.requires_grad for p in net.parameters()] == [False] * 4 + [True] * 4

    # clamp_weights: module.weight.data = torch.clamp(module.weight.data, min=0)
    def clamp_weights(model):
        for module in model.modules():
            if hasattr(module, "weight") and isinstance(module, nn.Linear):
                module.weight.data = tl.clamp(module.weight.data, min=0)
    w_before = net.fc1.weight
    clamp_weights(net)
    for m in (net.fc0, net.fc1, net.fc2):
        assert float(m.weight.min()) >= 0
    assert net.fc1.weight is w_before and net.fc1.weight.requires_grad
    assert isinstance(net.fc1.weight, nn.Parameter)
    out = net(tl.randn(3, 6))
    out.sum().backward()
    assert net.fc1.weight.grad.shape == (4, 5)


def test_seed_003_weights_init_recipes():
    # m.weight.data.normal_(0, 0.02); m.bias.data.zero_(); BatchNorm: normal_(1.0, 0.02)
    net = nn.Sequential(nn.Linear(20, 30), nn.BatchNorm1d(30), nn.Linear(30, 2))

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Linear") != -1:
            m.weight.data.normal_(0.0, 0.02)
            m.bias.data.zero_()
        elif classname.find("BatchNorm") != -1:
            m.weight.data.normal_(1.0, 0.02)
            m.bias.data.fill_(0)
    net.apply(weights_init)
    w = np.asarray(net[0].weight.detach())
    assert abs(w.std() - 0.02) < 0.004 and (np.asarray(net[0].bias.detach()) == 0).all()
    assert abs(np.asarray(net[1].weight.detach()).mean() - 1.0) < 0.02
    seen = []

    def init_weights(m):
        seen.append(type(m).__name__)
        if type(m) is nn.Linear:
            m.weight.data.fill_(1.0)
    nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)).apply(init_weights)
    assert seen == ["Linear", "Linear", "Sequential"]


def test_train_eval_switch_changes_bn_and_dropout():
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 1))
    x = tl.randn(16, 4)
    model.train()
    model(x)
    rm = np.asarray(model[1].running_mean).copy()
    model.eval()
    y1, y2 = model(x), model(x)
    np.testing.assert_array_equal(np.asarray(y1.detach()), np.asarray(y2.detach()))
    np.testing.assert_array_equal(np.asarray(model[1].running_mean), rm)
