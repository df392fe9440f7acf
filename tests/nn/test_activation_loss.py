"""Activations, losses and distances vs PyTorch: functional forms (values, dtypes,
gradients, autograd node names, warnings, errors) and layer classes (outputs, gradients,
state_dict keys, printed text)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as tnn
import torchlike.nn.functional as TF

from .._parity import HAVE_TORCH, assert_same, convert, normalize_error, torch
from ._layers import check_module

if HAVE_TORCH:
    import torch.nn as nn
    import torch.nn.functional as F
else:  # only the comparisons need them
    nn = F = None


def a(*shape, low=-2.0, high=2.0, dtype="float32", seed=0):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape).astype(dtype)


def idx(*shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.int64)


def _run(fw, name, args, kwargs, leaves, nograd=()):
    mod = TF if fw == "tl" else F
    args = [convert(x, fw, i not in nograd, leaves) for i, x in enumerate(args)]
    kwargs = convert(kwargs, fw)  # PyTorch refuses gradients for weight / pos_weight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(mod, name)(*args, **kwargs)


def cmp(name, *args, rtol=1e-5, atol=1e-6, grad=True, node=True, nograd=(), **kwargs):
    """Call F.<name> in both frameworks; compare output, grad_fn name and gradients
    w.r.t. the floating-point positional arguments (except those in ``nograd``)."""
    tleaves, rleaves = [], []
    out = _run("tl", name, args, kwargs, tleaves, nograd)
    if not HAVE_TORCH:
        # torchlike alone: the same weighted backward runs, each gradient has its
        # input's shape
        if grad and isinstance(out, tl.Tensor) and out.requires_grad:
            w = np.random.default_rng(1).uniform(0.5, 1.5, tuple(out.shape))
            g = tl.autograd.grad((out.double() * tl.tensor(w)).sum(), tleaves,
                                 allow_unused=True)
            for i, (x, leaf) in enumerate(zip(g, tleaves)):
                assert x is None or tuple(x.shape) == tuple(leaf.shape), f"grad[{i}]"
        return out
    ref = _run("torch", name, args, kwargs, rleaves, nograd)
    assert_same(out, ref, rtol, atol)
    if not grad or not ref.requires_grad:
        return out
    if node:
        assert type(out.grad_fn).__name__ == type(ref.grad_fn).__name__ or \
            out.grad_fn.name() == type(ref.grad_fn).__name__, \
            f"{out.grad_fn.name()} vs {type(ref.grad_fn).__name__}"
    w = np.random.default_rng(1).uniform(0.5, 1.5, tuple(ref.shape))
    rg = torch.autograd.grad((ref.double() * torch.tensor(w)).sum(), rleaves,
                             allow_unused=True)
    g = tl.autograd.grad((out.double() * tl.tensor(w)).sum(), tleaves, allow_unused=True)
    for i, (x, y) in enumerate(zip(g, rg)):
        if y is None:
            assert x is None or np.allclose(np.asarray(x), 0)
            continue
        assert_same(x, y, max(rtol, 1e-4) * 10, max(atol, 1e-5) * 10, f"grad[{i}]")
    return out


def tl_same(a, b):
    """Two torchlike results agree (dtype, shape, values)."""
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(np.asarray(a.detach()), np.asarray(b.detach()), rtol=1e-6,
                               atol=1e-7)


def raises_like(fn_tl, fn_torch):
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
# activations
EDGE = np.array([-25.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 25.0], np.float32)

ACTS = [
    ("relu", {}), ("relu6", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 2.0}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}),
    ("sigmoid", {}), ("tanh", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5,
                                                                 "max_val": 2.0}),
    ("hardsigmoid", {}), ("hardswish", {}), ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 1.0}), ("softsign", {}), ("tanhshrink", {}),
    ("softshrink", {}), ("softshrink", {"lambd": 1.0}), ("hardshrink", {}),
    ("hardshrink", {"lambd": 1.0}), ("logsigmoid", {}),
    ("threshold", {"threshold": 0.5, "value": -2.0}), ("rrelu", {}),
]


@pytest.mark.parametrize("name,kw", ACTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ACTS)])
@pytest.mark.parametrize("x", [a(3, 4), EDGE, a(2, 3, 4, dtype="float64"), a(0, 3),
                               np.array(0.7, np.float32)], ids=["2d", "edge", "f64", "empty", "0d"])
def test_activation(name, kw, x):
    cmp(name, x, **kw)


@pytest.mark.parametrize("name", ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "silu",
                                  "mish", "hardtanh", "hardsigmoid", "hardswish", "rrelu"])
def test_activation_inplace(name):
    x = a(3, 4)
    t = tl.tensor(x)
    out = getattr(TF, name)(t, inplace=True)
    assert out is t
    if HAVE_TORCH:
        r = torch.tensor(x)
        ref = getattr(F, name)(r, inplace=True)
        assert_same(t, r)
    else:
        ref = None
        tl_same(t, getattr(TF, name)(tl.tensor(x)))
    # a leaf that requires grad is refused, an intermediate result is written
    leaf = tl.tensor(x).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        getattr(TF, name)(leaf, inplace=True)
    y = leaf * 2
    getattr(TF, name)(y, inplace=True)
    y.sum().backward()
    if HAVE_TORCH:
        rl = torch.tensor(x).requires_grad_()
        ry = rl * 2
        getattr(F, name)(ry, inplace=True)
        ry.sum().backward()
        assert_same(leaf.grad, rl.grad, 1e-5, 1e-5)
    else:
        other = tl.tensor(x).requires_grad_()
        getattr(TF, name)(other * 2).sum().backward()
        tl_same(leaf.grad, other.grad)
    del ref


def test_threshold_underscore_and_int_inputs():
    x = np.array([-2, 0, 3, 5], np.int64)
    cmp("threshold", x, 1, 7, grad=False)
    cmp("relu6", x, grad=False)
    cmp("hardtanh", x, grad=False)
    t = tl.tensor(a(4))
    TF.threshold_(t, 0.0, 9.0)
    if HAVE_TORCH:
        r = torch.tensor(a(4))
        F.threshold_(r, 0.0, 9.0)
        assert_same(t, r)
    else:
        np.testing.assert_array_equal(np.asarray(t), np.where(a(4) > 0, a(4), 9.0))


def test_glu_prelu_rrelu_eval():
    cmp("glu", a(3, 4))
    cmp("glu", a(4, 6, 2), dim=0)
    cmp("glu", a(2, 6, 3, dtype="float64"), 1)
    cmp("prelu", a(3, 4), np.array([0.25], np.float32))
    cmp("prelu", a(2, 3, 4), a(3, seed=5))
    cmp("prelu", a(5), np.array([0.1], np.float32))
    cmp("rrelu", EDGE, 0.1, 0.3, training=False)


def test_rrelu_training_draws_slopes_in_range():
    x = tl.tensor(np.linspace(-3, 3, 61).astype(np.float32)).requires_grad_()
    y = TF.rrelu(x, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    xv, yv = np.asarray(x.detach()), np.asarray(y.detach())
    neg = xv < 0
    ratio = yv[neg] / xv[neg]
    assert np.all((ratio >= 0.1) & (ratio <= 0.3)) and len(set(ratio.round(6))) > 5
    np.testing.assert_array_equal(yv[~neg], xv[~neg])
    y.sum().backward()
    g = np.asarray(x.grad)
    np.testing.assert_allclose(g[neg], ratio, rtol=1e-6)
    np.testing.assert_array_equal(g[xv > 0], 1.0)


def test_activation_errors():
    i = np.array([1, -2, 3, 4])
    for name in ["leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "hardsigmoid",
                 "hardswish", "softplus", "softshrink", "hardshrink", "logsigmoid", "glu"]:
        raises_like(lambda: getattr(TF, name)(tl.tensor(i)),
                    lambda: getattr(F, name)(torch.tensor(i)))
    raises_like(lambda: TF.glu(tl.randn(2, 5), 1), lambda: F.glu(torch.randn(2, 5), 1))
    raises_like(lambda: TF.glu(tl.tensor(1.0)), lambda: F.glu(torch.tensor(1.0)))
    raises_like(lambda: TF.softshrink(tl.randn(3), -1.0),
                lambda: F.softshrink(torch.randn(3), -1.0))
    raises_like(lambda: TF.hardtanh(tl.randn(3), 2.0, 1.0),
                lambda: F.hardtanh(torch.randn(3), 2.0, 1.0))
    raises_like(lambda: TF.prelu(tl.randn(2, 3), tl.tensor([0.25, 1.0])),
                lambda: F.prelu(torch.randn(2, 3), torch.tensor([0.25, 1.0])))
    raises_like(lambda: TF.prelu(tl.randn(2, 3), tl.ones(1, 3)),
                lambda: F.prelu(torch.randn(2, 3), torch.ones(1, 3)))
    raises_like(lambda: TF.gelu(tl.randn(2), approximate="fast"),
                lambda: F.gelu(torch.randn(2), approximate="fast"))


# ---------------------------------------------------------------------------
# softmax family
@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
def test_softmax_family(name):
    for x, dim in [(a(3, 4), 1), (a(3, 4), 0), (a(2, 3, 4, dtype="float64"), -1),
                   (a(0, 3), 1), (np.array([[-np.inf, 1.0, 2.0]], np.float32), 1)]:
        cmp(name, x, dim)
    cmp(name, a(3, 4), 1, dtype=tl.float64)
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        x = a(*shape)
        with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been "
                                             "deprecated"):
            out = getattr(TF, name)(tl.tensor(x))
        if not HAVE_TORCH:   # the implicit dim is 0 for 0-, 1- and 3-d inputs, else 1
            tl_same(out, getattr(TF, name)(tl.tensor(x), 0 if x.ndim in (0, 1, 3) else 1))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = getattr(F, name)(torch.tensor(x))
        assert_same(out, ref)


def test_softmax_node_names():
    x = tl.randn(3, 4, requires_grad=True)
    assert TF.softmax(x, 1).grad_fn.name() == "SoftmaxBackward0"
    assert TF.log_softmax(x, 1).grad_fn.name() == "LogSoftmaxBackward0"
    assert TF.softmin(x, 1).grad_fn.name() == "SoftmaxBackward0"


# ---------------------------------------------------------------------------
# distances, normalize, one_hot
def test_distances():
    cmp("normalize", a(3, 4))
    cmp("normalize", a(3, 4), p=1.0, dim=0)
    cmp("normalize", np.zeros((2, 3), np.float32))
    cmp("cosine_similarity", a(3, 4), a(3, 4, seed=1))
    cmp("cosine_similarity", a(3, 4), a(4, seed=1), dim=1)
    cmp("cosine_similarity", a(2, 5, dtype="float64"), a(2, 5, dtype="float64", seed=2), 0)
    cmp("cosine_similarity", np.zeros((2, 3), np.float32), a(2, 3))
    cmp("pairwise_distance", a(3, 4), a(3, 4, seed=1))
    cmp("pairwise_distance", a(3, 4), a(3, 4, seed=1), p=1.0, keepdim=True)
    cmp("pairwise_distance", a(3, 4), a(3, 4, seed=1), p=float("inf"))
    cmp("pdist", a(5, 3))
    cmp("pdist", a(4, 3, dtype="float64"), p=1.0)
    cmp("pdist", a(4, 3), 3.0)
    raises_like(lambda: TF.pdist(tl.randn(2, 3, 4)), lambda: F.pdist(torch.randn(2, 3, 4)))
    raises_like(lambda: TF.cosine_similarity(tl.randn(2, 3), tl.randn(2, 4)),
                lambda: F.cosine_similarity(torch.randn(2, 3), torch.randn(2, 4)))


def test_one_hot():
    x = np.array([[0, 2], [1, 4]])
    if HAVE_TORCH:
        assert_same(TF.one_hot(tl.tensor(x)), F.one_hot(torch.tensor(x)))
        assert_same(TF.one_hot(tl.tensor(x), 6), F.one_hot(torch.tensor(x), 6))
        assert_same(TF.one_hot(tl.tensor(np.zeros(0, np.int64)), 3),
                    F.one_hot(torch.tensor(np.zeros(0, np.int64)), 3))
    else:
        for n in (5, 6):
            out = TF.one_hot(tl.tensor(x), n if n == 6 else -1)
            assert out.dtype is tl.int64
            np.testing.assert_array_equal(np.asarray(out), np.eye(n, dtype=np.int64)[x])
        assert TF.one_hot(tl.tensor(np.zeros(0, np.int64)), 3).shape == (0, 3)
    for args in [([0, -1],), ([0, 3], 3), ([],), ([1.0],)]:
        dt = {} if args[0] and isinstance(args[0][0], float) else {"dtype": "int64"}
        raises_like(lambda: TF.one_hot(tl.tensor(args[0], **{k: getattr(tl, v)
                                                            for k, v in dt.items()}), *args[1:]),
                    lambda: F.one_hot(torch.tensor(args[0], **{k: getattr(torch, v)
                                                               for k, v in dt.items()}),
                                      *args[1:]))


# ---------------------------------------------------------------------------
# classification losses
CE_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=a(5, low=0.2, high=1.5, seed=3)),
    dict(weight=a(5, low=0.2, high=1.5, seed=3), reduction="none"),
    dict(ignore_index=1),
    dict(ignore_index=1, weight=a(5, low=0.2, high=1.5, seed=3)),
    dict(label_smoothing=0.1),
    dict(label_smoothing=0.2, weight=a(5, low=0.2, high=1.5, seed=3), ignore_index=2),
    dict(label_smoothing=0.3, reduction="sum", ignore_index=0),
    dict(label_smoothing=0.3, reduction="none"),
]


@pytest.mark.parametrize("kw", CE_CASES)
def test_cross_entropy_class_indices(kw):
    target = np.array([1, 0, 4, 2, 1, 3])
    cmp("cross_entropy", a(6, 5), target, **kw)
    # K-dimensional input (N, C, d1, d2)
    cmp("cross_entropy", a(2, 5, 3, 2), idx(2, 3, 2, high=5), **kw)
    # unbatched (C,) input with a 0-d target
    if "ignore_index" not in kw:
        cmp("cross_entropy", a(5), np.array(3), **kw)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(label_smoothing=0.2),
                                dict(weight=a(5, low=0.2, high=1.5, seed=3)),
                                dict(weight=a(5, low=0.2, high=1.5, seed=3),
                                     reduction="none", label_smoothing=0.1)])
def test_cross_entropy_probabilities(kw):
    p = np.random.default_rng(4).dirichlet(np.ones(5), size=4).astype(np.float32)
    # PyTorch names tensor / Python-number division DivBackward1; the table's div op
    # says DivBackward0, so only the values and gradients are compared here
    cmp("cross_entropy", a(4, 5), p, node=False, **kw)
    pk = np.moveaxis(np.random.default_rng(5).dirichlet(np.ones(5), size=(2, 3)), -1, 1)
    cmp("cross_entropy", a(2, 5, 3), pk.astype(np.float32), node=False, **kw)


def test_cross_entropy_empty_batch_and_all_ignored():
    cmp("cross_entropy", a(0, 5), np.zeros(0, np.int64))
    cmp("cross_entropy", a(0, 5), np.zeros(0, np.int64), reduction="sum")
    cmp("cross_entropy", a(0, 5), np.zeros(0, np.int64), reduction="none")
    cmp("cross_entropy", a(3, 5), np.array([1, 1, 1]), ignore_index=1, grad=False)


def test_cross_entropy_is_log_softmax_then_nll():
    """CrossEntropyLoss combines LogSoftmax and NLLLoss in one single class."""
    x = tl.tensor(a(4, 5)).requires_grad_()
    t = tl.tensor([1, 0, 4, 2])
    ce = tnn.CrossEntropyLoss()(x, t)
    nll = tnn.NLLLoss()(tnn.LogSoftmax(dim=1)(x), t)
    np.testing.assert_allclose(float(ce), float(nll), rtol=1e-6)
    assert ce.grad_fn.name() == "NllLossBackward0"
    assert ce.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"
    g1, = tl.autograd.grad(ce, [x])
    g2, = tl.autograd.grad(nll, [x])
    np.testing.assert_allclose(np.asarray(g1), np.asarray(g2), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=a(5, low=0.2, high=1.5, seed=3)),
                                dict(ignore_index=4)])
def test_nll_loss(kw):
    cmp("nll_loss", a(6, 5), np.array([1, 0, 4, 2, 4, 3]), **kw)
    kw64 = {k: v.astype(np.float64) if k == "weight" else v for k, v in kw.items()}
    cmp("nll_loss", a(2, 5, 3, dtype="float64"), idx(2, 3, high=5), **kw64)
    if "weight" in kw:
        raises_like(lambda: TF.nll_loss(tl.randn(2, 5, dtype=tl.float64), tl.tensor([1, 2]),
                                        tl.tensor(kw["weight"])),
                    lambda: F.nll_loss(torch.randn(2, 5, dtype=torch.float64),
                                       torch.tensor([1, 2]), torch.tensor(kw["weight"])))


def test_class_target_errors():
    x, xr = tl.randn(3, 5), torch.randn(3, 5) if HAVE_TORCH else None
    for name in ["nll_loss", "cross_entropy"]:
        for tgt in ([1, 5, 0], [1, -1, 0], [1, 2]):
            raises_like(lambda: getattr(TF, name)(x, tl.tensor(tgt)),
                        lambda: getattr(F, name)(xr, torch.tensor(tgt)))
        raises_like(lambda: getattr(TF, name)(x, tl.tensor([1, 2, 0], dtype=tl.int32)),
                    lambda: getattr(F, name)(xr, torch.tensor([1, 2, 0], dtype=torch.int32)))
        raises_like(lambda: getattr(TF, name)(x, tl.tensor([1, 2, 0]), weight=tl.ones(3)),
                    lambda: getattr(F, name)(xr, torch.tensor([1, 2, 0]),
                                             weight=torch.ones(3)))
        raises_like(lambda: getattr(TF, name)(tl.randn(2, 3, 4), tl.zeros(2, 5, dtype=tl.int64)),
                    lambda: getattr(F, name)(torch.randn(2, 3, 4),
                                             torch.zeros(2, 5, dtype=torch.long)))
    raises_like(lambda: TF.cross_entropy(x, tl.zeros(3, 5, dtype=tl.int64)),
                lambda: F.cross_entropy(xr, torch.zeros(3, 5, dtype=torch.long)))
    raises_like(lambda: TF.cross_entropy(x, tl.rand(3, 5), ignore_index=1),
                lambda: F.cross_entropy(xr, torch.rand(3, 5), ignore_index=1))
    raises_like(lambda: TF.cross_entropy(x, tl.tensor([1, 2, 0]), label_smoothing=1.5),
                lambda: F.cross_entropy(xr, torch.tensor([1, 2, 0]), label_smoothing=1.5))
    raises_like(lambda: TF.cross_entropy(x, tl.tensor([1, 2, 0]), reduction="foo"),
                lambda: F.cross_entropy(xr, torch.tensor([1, 2, 0]), reduction="foo"))
    raises_like(lambda: TF.nll_loss(tl.tensor(1.0), tl.tensor(0)),
                lambda: F.nll_loss(torch.tensor(1.0), torch.tensor(0)))


def test_target_check_skipped_under_tracing():
    import jax

    def f(xv, tv):
        x, t = tl.Tensor._wrap(xv), tl.Tensor._wrap(tv)
        return TF.cross_entropy(x, t)._value
    out = jax.jit(f)(np.asarray(a(3, 5)), np.array([1, 0, 4]))
    if HAVE_TORCH:
        ref = F.cross_entropy(torch.tensor(a(3, 5)), torch.tensor([1, 0, 4])).item()
    else:
        ref = TF.cross_entropy(tl.tensor(a(3, 5)), tl.tensor([1, 0, 4])).item()
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=a(3, 4, low=0.2, high=1.5, seed=3))])
def test_binary_cross_entropy(kw):
    p = a(3, 4, low=0.02, high=0.98)
    y = a(3, 4, low=0.0, high=1.0, seed=9)
    cmp("binary_cross_entropy", p, y, **kw)
    if "weight" in kw:
        cmp("binary_cross_entropy", p, y, weight=a(4, low=0.2, high=1.5))
    # the logs are clamped at -100 (probabilities of exactly 0 and 1)
    cmp("binary_cross_entropy", np.array([0.0, 1.0, 0.5], np.float32),
        np.array([1.0, 0.0, 0.5], np.float32), reduction="none", grad=False)


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=a(4, low=0.2, high=1.5, seed=3)),
                                dict(pos_weight=a(4, low=0.2, high=3.0, seed=4)),
                                dict(pos_weight=a(4, low=0.2, high=3.0, seed=4),
                                     weight=a(3, 4, low=0.2, high=1.5), reduction="none")])
def test_bce_with_logits(kw):
    x = a(3, 4, low=-30, high=30)
    y = a(3, 4, low=0.0, high=1.0, seed=9)
    out = cmp("binary_cross_entropy_with_logits", x, y, **kw)
    assert out.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"


def test_bce_errors():
    raises_like(lambda: TF.binary_cross_entropy(tl.tensor([1.5]), tl.tensor([1.0])),
                lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
    raises_like(lambda: TF.binary_cross_entropy(tl.rand(3), tl.rand(2)),
                lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(2)))
    raises_like(lambda: TF.binary_cross_entropy_with_logits(tl.rand(3), tl.rand(2)),
                lambda: F.binary_cross_entropy_with_logits(torch.rand(3), torch.rand(2)))


@pytest.mark.parametrize("kw", [dict(), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=a(5, low=0.2, high=1.5, seed=3))])
def test_margin_classification_losses(kw):
    x = a(4, 5)
    cmp("multi_margin_loss", x, np.array([1, 0, 4, 2]), **kw)
    cmp("multi_margin_loss", x, np.array([1, 0, 4, 2]), p=2, margin=0.5, **kw)
    cmp("multi_margin_loss", a(5), np.array(2), **kw)
    ml = np.array([[1, 2, -1, 0, 0], [4, -1, 2, 2, 2], [0, 1, 2, 3, 4], [-1, 1, 1, 1, 1]])
    mw = {k: v for k, v in kw.items() if k != "weight"}
    cmp("multilabel_margin_loss", x, ml, **mw)
    cmp("multilabel_margin_loss", a(5), ml[0], **mw)
    cmp("multilabel_soft_margin_loss", x, (a(4, 5, seed=2) > 0).astype(np.float32), **kw)
    cmp("soft_margin_loss", x, np.sign(a(4, 5, seed=3)), nograd=(1,), **mw)


def test_margin_errors():
    x, xr = tl.randn(3, 5), torch.randn(3, 5) if HAVE_TORCH else None
    raises_like(lambda: TF.multi_margin_loss(x, tl.tensor([1, 2, 0]), p=3),
                lambda: F.multi_margin_loss(xr, torch.tensor([1, 2, 0]), p=3))
    raises_like(lambda: TF.multi_margin_loss(x, tl.tensor([1, 7, 0])),
                lambda: F.multi_margin_loss(xr, torch.tensor([1, 7, 0])))
    raises_like(lambda: TF.multilabel_margin_loss(x, tl.zeros(3, 4, dtype=tl.int64)),
                lambda: F.multilabel_margin_loss(xr, torch.zeros(3, 4, dtype=torch.long)))
    raises_like(lambda: TF.multilabel_margin_loss(x, tl.full((3, 5), 7)),
                lambda: F.multilabel_margin_loss(xr, torch.full((3, 5), 7)))


# ---------------------------------------------------------------------------
# regression losses
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}),
                                     ("smooth_l1_loss", {"beta": 0.5}),
                                     ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}),
                                     ("huber_loss", {"delta": 0.3})])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(name, kw, reduction):
    cmp(name, a(3, 4), a(3, 4, seed=1), reduction=reduction, **kw)
    cmp(name, a(2, 3, dtype="float64"), a(2, 3, dtype="float64", seed=1), reduction=reduction,
        **kw)
    cmp(name, a(0, 3), a(0, 3), reduction=reduction, **kw)
    if name != "huber_loss":  # PyTorch's huber_loss keeps the input dtype, then fails
        cmp(name, a(3, 4), a(3, 4, dtype="float64", seed=2), reduction=reduction, **kw)


def test_regression_node_names():
    x = tl.randn(3, 4, requires_grad=True)
    y = tl.randn(3, 4)
    assert TF.mse_loss(x, y).grad_fn.name() == "MseLossBackward0"
    assert TF.l1_loss(x, y).grad_fn.name() == "MeanBackward0"
    assert TF.smooth_l1_loss(x, y).grad_fn.name() == "SmoothL1LossBackward0"
    assert TF.huber_loss(x, y).grad_fn.name() == "HuberLossBackward0"


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_weight_and_broadcast_warning(name):
    if name != "smooth_l1_loss":
        for red in ["mean", "sum", "none"]:
            cmp(name, a(3, 4), a(3, 4, seed=1), weight=a(3, 4, low=0.1, high=2.0, seed=2),
                reduction=red, node=False)
    with pytest.warns(UserWarning) as rec:
        TF.__dict__[name](tl.tensor(a(3)), tl.tensor(a(2, 3)))
    msg = str(rec[0].message)
    assert msg == ("Using a target size (torchlike.Size([2, 3])) that is different to the "
                   "input size (torchlike.Size([3])). This will likely lead to incorrect "
                   "results due to broadcasting. Please ensure they have the same size.")
    cmp(name, a(3), a(2, 3))
    raises_like(lambda: TF.__dict__[name](tl.randn(3), tl.randn(2)),
                lambda: F.__dict__[name](torch.randn(3), torch.randn(2)))


def test_regression_errors():
    raises_like(lambda: TF.smooth_l1_loss(tl.rand(3), tl.rand(3), beta=-1.0),
                lambda: F.smooth_l1_loss(torch.rand(3), torch.rand(3), beta=-1.0))
    raises_like(lambda: TF.huber_loss(tl.rand(3), tl.rand(3), delta=0.0),
                lambda: F.huber_loss(torch.rand(3), torch.rand(3), delta=0.0))
    raises_like(lambda: TF.mse_loss(tl.tensor([1, 2]), tl.tensor([1, 2])),
                lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 2])))


@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=4)).astype(np.float32)
    p = np.random.default_rng(1).dirichlet(np.ones(5), size=4).astype(np.float32)
    p[0, 0] = 0.0
    tgt = np.log(p + 1e-3).astype(np.float32) if log_target else p
    cmp("kl_div", x, tgt, reduction=reduction, log_target=log_target, node=False)


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss"):
        TF.kl_div(tl.randn(3), tl.rand(3))


@pytest.mark.parametrize("kw", [dict(), dict(log_input=False), dict(full=True),
                                dict(log_input=False, full=True, reduction="none"),
                                dict(reduction="sum", eps=1e-3)])
def test_poisson_nll_loss(kw):
    x = a(3, 4) if kw.get("log_input", True) else a(3, 4, low=0.1, high=3.0)
    cmp("poisson_nll_loss", x, a(3, 4, low=0.0, high=4.0, seed=1).round(), **kw)


@pytest.mark.parametrize("kw", [dict(), dict(full=True), dict(reduction="sum"),
                                dict(reduction="none", eps=0.5)])
def test_gaussian_nll_loss(kw):
    x, y = a(4, 3), a(4, 3, seed=1)
    cmp("gaussian_nll_loss", x, y, a(4, 3, low=0.1, high=2.0, seed=2), **kw)
    cmp("gaussian_nll_loss", x, y, a(4, low=0.1, high=2.0, seed=2), **kw)
    cmp("gaussian_nll_loss", x, y, a(4, 1, low=0.1, high=2.0, seed=2), **kw)
    cmp("gaussian_nll_loss", x, y, 0.7, **kw)
    raises_like(lambda: TF.gaussian_nll_loss(tl.randn(4, 3), tl.randn(4, 3), tl.ones(3, 2)),
                lambda: F.gaussian_nll_loss(torch.randn(4, 3), torch.randn(4, 3),
                                            torch.ones(3, 2)))
    raises_like(lambda: TF.gaussian_nll_loss(tl.randn(4, 3), tl.randn(4, 3), -tl.ones(4, 3)),
                lambda: F.gaussian_nll_loss(torch.randn(4, 3), torch.randn(4, 3),
                                            -torch.ones(4, 3)))


# ---------------------------------------------------------------------------
# embedding and ranking losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_embedding_losses(reduction):
    x1, x2, x3 = a(4, 5), a(4, 5, seed=1), a(4, 5, seed=2)
    y = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    cmp("cosine_embedding_loss", x1, x2, y, reduction=reduction, node=False)
    cmp("cosine_embedding_loss", x1, x2, y, margin=0.3, reduction=reduction, node=False)
    cmp("cosine_embedding_loss", x1[0], x2[0], np.array(-1.0, np.float32),
        reduction=reduction, node=False)
    cmp("margin_ranking_loss", x1[:, 0], x2[:, 0], y, reduction=reduction, node=False)
    cmp("margin_ranking_loss", x1[:, 0], x2[:, 0], y, margin=0.5, reduction=reduction,
        node=False)
    cmp("hinge_embedding_loss", x1, np.sign(a(4, 5, seed=7)), reduction=reduction, node=False)
    cmp("hinge_embedding_loss", x1, np.sign(a(4, 5, seed=7)), margin=0.5,
        reduction=reduction, node=False)
    cmp("triplet_margin_loss", x1, x2, x3, reduction=reduction, node=False)
    cmp("triplet_margin_loss", x1, x2, x3, margin=2.0, p=1.0, swap=True, reduction=reduction,
        node=False)
    cmp("triplet_margin_with_distance_loss", x1, x2, x3, reduction=reduction, node=False)
    cmp("triplet_margin_with_distance_loss", x1, x2, x3, swap=True, margin=0.5,
        reduction=reduction, node=False)


def test_triplet_with_custom_distance():
    x1, x2, x3 = a(4, 5), a(4, 5, seed=1), a(4, 5, seed=2)
    out = TF.triplet_margin_with_distance_loss(
        tl.tensor(x1), tl.tensor(x2), tl.tensor(x3),
        distance_function=lambda u, v: 1.0 - TF.cosine_similarity(u, v))
    if not HAVE_TORCH:
        d = lambda u, v: 1.0 - (u * v).sum(1) / np.linalg.norm(u, axis=1) / \
            np.linalg.norm(v, axis=1)  # noqa: E731
        want = np.maximum(d(x1, x2) - d(x1, x3) + 1.0, 0).mean()
        np.testing.assert_allclose(out.item(), want, rtol=1e-5)
        return
    ref = F.triplet_margin_with_distance_loss(
        torch.tensor(x1), torch.tensor(x2), torch.tensor(x3),
        distance_function=lambda u, v: 1.0 - F.cosine_similarity(u, v))
    assert_same(out, ref)


def test_embedding_errors():
    x, xr = tl.randn(3, 5), torch.randn(3, 5) if HAVE_TORCH else None
    raises_like(lambda: TF.cosine_embedding_loss(x, x, tl.ones(3, 1)),
                lambda: F.cosine_embedding_loss(xr, xr, torch.ones(3, 1)))
    raises_like(lambda: TF.cosine_embedding_loss(x, x, tl.ones(())),
                lambda: F.cosine_embedding_loss(xr, xr, torch.ones(())))
    raises_like(lambda: TF.triplet_margin_loss(x, x, x[0]),
                lambda: F.triplet_margin_loss(xr, xr, xr[0]))
    raises_like(lambda: TF.triplet_margin_loss(x, x, x, margin=0),
                lambda: F.triplet_margin_loss(xr, xr, xr, margin=0))
    raises_like(lambda: TF.margin_ranking_loss(x, x, tl.ones(3)),
                lambda: F.margin_ranking_loss(xr, xr, torch.ones(3)))
    raises_like(lambda: TF.poisson_nll_loss(x, x, reduction="x"),
                lambda: F.poisson_nll_loss(xr, xr, reduction="x"))


# ---------------------------------------------------------------------------
# CTC
def _ctc_inputs(seed=0, t=7, n=3, c=5):
    logits = np.random.default_rng(seed).normal(size=(t, n, c)).astype(np.float32)
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return logits, lp.astype(np.float32)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_padded_and_concatenated(reduction, zero_infinity):
    _, lp = _ctc_inputs()
    targets = np.array([[1, 2, 2], [3, 0, 0], [4, 1, 3]])
    il, tlen = np.array([7, 5, 6]), np.array([3, 1, 3])
    kw = dict(reduction=reduction, zero_infinity=zero_infinity)
    cmp("ctc_loss", lp, targets, il, tlen, **kw, rtol=1e-4, atol=1e-5, node=False)
    flat = np.concatenate([targets[i, :tlen[i]] for i in range(3)])
    cmp("ctc_loss", lp, flat, [7, 5, 6], [3, 1, 3], **kw, rtol=1e-4, atol=1e-5, node=False)
    # blank not 0, a target of length 0, an infeasible alignment (3 repeats need 5 steps)
    cmp("ctc_loss", lp, np.array([[0, 1, 1], [2, 2, 2], [1, 1, 1]]), np.array([7, 4, 6]),
        np.array([3, 3, 0]), blank=4, **kw, rtol=1e-4, atol=1e-5, node=False)


def test_ctc_loss_unbatched_node_and_logit_gradients():
    logits, lp = _ctc_inputs(t=6, n=1, c=4)
    cmp("ctc_loss", lp[:, 0], np.array([1, 2]), np.array(6), np.array(2), rtol=1e-4,
        atol=1e-5, node=False)
    x = tl.tensor(logits).requires_grad_()
    loss = TF.ctc_loss(TF.log_softmax(x, 2), tl.tensor([[1, 2]]), [6], [2], reduction="none")
    assert loss.grad_fn.name() == "CtcLossBackward0"
    loss.sum().backward()
    assert x.grad.shape == x.shape
    if not HAVE_TORCH:
        return
    xr = torch.tensor(logits).requires_grad_()
    F.ctc_loss(F.log_softmax(xr, 2), torch.tensor([[1, 2]]), [6], [2],
               reduction="none").sum().backward()
    assert_same(x.grad, xr.grad, 1e-4, 1e-5)


def test_ctc_errors():
    _, lp = _ctc_inputs(t=6, n=2, c=4)
    t2 = np.array([[1, 2], [3, 3]])
    for il, tlen, kw in [([7, 5], [2, 2], {}), ([6, 5], [3, 2], {}), ([6, 5, 3], [2, 2], {}),
                         ([6, 5], [2, 2], {"blank": 4})]:
        raises_like(lambda: TF.ctc_loss(tl.tensor(lp), tl.tensor(t2), il, tlen, **kw),
                    lambda: F.ctc_loss(torch.tensor(lp), torch.tensor(t2), il, tlen, **kw))


# ---------------------------------------------------------------------------
# deprecated size_average / reduce
def test_legacy_reduction_arguments():
    x, y = a(3, 4), a(3, 4, seed=1)
    for sa, rd, red in [(False, None, "sum"), (None, False, "none"), (True, True, "mean")]:
        with pytest.warns(UserWarning, match=f"size_average and reduce args will be deprecated, "
                                             f"please use reduction='{red}' instead."):
            m = tnn.MSELoss(size_average=sa, reduce=rd)
        assert m.reduction == red
        with pytest.warns(UserWarning, match="size_average and reduce"):
            out = TF.l1_loss(tl.tensor(x), tl.tensor(y), size_average=sa, reduce=rd)
        if not HAVE_TORCH:
            tl_same(out, TF.l1_loss(tl.tensor(x), tl.tensor(y), reduction=red))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = F.l1_loss(torch.tensor(x), torch.tensor(y), size_average=sa, reduce=rd)
        assert_same(out, ref)


# ---------------------------------------------------------------------------
# layers
ACT_LAYERS = [
    ("ReLU", (), {}), ("ReLU", (True,), {}), ("ReLU6", (), {}), ("LeakyReLU", (), {}),
    ("LeakyReLU", (0.2, True), {}), ("ELU", (), {}), ("ELU", (0.5,), {}), ("SELU", (), {}),
    ("CELU", (1.5,), {}), ("GELU", (), {}), ("GELU", ("tanh",), {}), ("SiLU", (), {}),
    ("Mish", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}), ("Hardtanh", (), {}),
    ("Hardtanh", (-2.0, 3.0), {}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}),
    ("Softplus", (), {}), ("Softplus", (2.0, 5.0), {}), ("Softsign", (), {}),
    ("Softmax", (), {"dim": 1}), ("Softmin", (), {"dim": 0}), ("LogSoftmax", (), {"dim": -1}),
    ("Softmax2d", (), {}), ("Threshold", (0.1, 20.0), {}), ("Threshold", (0.1, 20.0, True), {}),
    ("GLU", (), {}), ("GLU", (1,), {}), ("Tanhshrink", (), {}), ("Softshrink", (), {}),
    ("Softshrink", (1.0,), {}), ("Hardshrink", (), {}), ("Hardshrink", (1.0,), {}),
    ("LogSigmoid", (), {}), ("RReLU", (), {}), ("RReLU", (0.1, 0.2, True), {}),
    ("PReLU", (), {}), ("PReLU", (4,), {}), ("PReLU", (4, 0.1), {}),
]


@pytest.mark.parametrize("cls,args,kw", ACT_LAYERS,
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ACT_LAYERS)])
def test_activation_layers(cls, args, kw):
    m = getattr(tnn, cls)(*args, **kw)
    r = getattr(nn, cls)(*args, **kw) if HAVE_TORCH else None
    if HAVE_TORCH:
        assert repr(m) == repr(r)
    inplace = getattr(r if HAVE_TORCH else m, "inplace", False)
    x = a(2, 4, 3, 2)
    check_module(m, r, [x], train=False, grad=not inplace)


def test_prelu_parameter():
    m, r = tnn.PReLU(3, init=0.3), nn.PReLU(3, init=0.3) if HAVE_TORCH else None
    assert list(dict(m.named_parameters())) == ["weight"]
    if HAVE_TORCH:
        assert_same(m.weight, r.weight.detach())
        with torch.no_grad():
            r.weight.copy_(torch.tensor([0.1, 0.2, 0.3]))
    else:
        np.testing.assert_allclose(np.asarray(m.weight.detach()), [0.3] * 3)
    check_module(m, r, [a(2, 3, 4)])


LOSS_LAYERS = [
    ("CrossEntropyLoss", {}, lambda: [a(4, 5), np.array([1, 0, 4, 2])]),
    ("CrossEntropyLoss", {"weight": a(5, low=0.2, high=1.5), "ignore_index": 0,
                          "label_smoothing": 0.1},
     lambda: [a(4, 5), np.array([1, 0, 4, 2])]),
    ("CrossEntropyLoss", {"reduction": "none"}, lambda: [a(2, 5, 3), idx(2, 3, high=5)]),
    ("NLLLoss", {"weight": a(5, low=0.2, high=1.5)}, lambda: [a(4, 5), np.array([1, 0, 4, 2])]),
    ("MSELoss", {}, lambda: [a(3, 4), a(3, 4, seed=1)]),
    ("L1Loss", {"reduction": "sum"}, lambda: [a(3, 4), a(3, 4, seed=1)]),
    ("SmoothL1Loss", {"beta": 0.5}, lambda: [a(3, 4), a(3, 4, seed=1)]),
    ("HuberLoss", {"delta": 0.5}, lambda: [a(3, 4), a(3, 4, seed=1)]),
    ("BCELoss", {"weight": a(4, low=0.2, high=1.5)},
     lambda: [a(3, 4, low=0.05, high=0.95), a(3, 4, low=0, high=1, seed=1)]),
    ("BCEWithLogitsLoss", {"weight": a(4, low=0.2, high=1.5),
                           "pos_weight": a(4, low=0.5, high=2.0, seed=4)},
     lambda: [a(3, 4), a(3, 4, low=0, high=1, seed=1)]),
    ("KLDivLoss", {"reduction": "batchmean"},
     lambda: [a(3, 4, low=-3, high=-0.1), a(3, 4, low=0, high=1, seed=1)]),
    ("KLDivLoss", {"reduction": "sum", "log_target": True},
     lambda: [a(3, 4, low=-3, high=-0.1), a(3, 4, low=-3, high=-0.1, seed=1)]),
    ("PoissonNLLLoss", {"full": True}, lambda: [a(3, 4), a(3, 4, low=0, high=4, seed=1)]),
    ("GaussianNLLLoss", {}, lambda: [a(3, 4), a(3, 4, seed=1), a(3, 4, low=0.1, high=2.0)]),
    ("CosineEmbeddingLoss", {"margin": 0.2},
     lambda: [a(4, 5), a(4, 5, seed=1), np.array([1.0, -1.0, 1.0, -1.0], np.float32)]),
    ("MarginRankingLoss", {"margin": 0.3},
     lambda: [a(4), a(4, seed=1), np.array([1.0, -1.0, 1.0, -1.0], np.float32)]),
    ("HingeEmbeddingLoss", {}, lambda: [a(3, 4), np.sign(a(3, 4, seed=1))]),
    ("MultiLabelMarginLoss", {},
     lambda: [a(2, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1]])]),
    ("MultiLabelSoftMarginLoss", {"weight": a(4, low=0.2, high=1.5)},
     lambda: [a(3, 4), (a(3, 4, seed=2) > 0).astype(np.float32)]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.7, "weight": a(5, low=0.2, high=1.5)},
     lambda: [a(4, 5), np.array([1, 0, 4, 2])]),
    ("SoftMarginLoss", {}, lambda: [a(3, 4), np.sign(a(3, 4, seed=1)).astype(np.int64)]),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True},
     lambda: [a(3, 4), a(3, 4, seed=1), a(3, 4, seed=2)]),
    ("TripletMarginWithDistanceLoss", {},
     lambda: [a(3, 4), a(3, 4, seed=1), a(3, 4, seed=2)]),
    ("CTCLoss", {"blank": 0, "zero_infinity": True},
     lambda: [_ctc_inputs()[1], np.array([[1, 2, 2], [3, 0, 0], [4, 1, 3]]),
              [7, 5, 6], [3, 1, 3]]),
    ("PairwiseDistance", {"p": 1.0, "keepdim": True}, lambda: [a(3, 4), a(3, 4, seed=1)]),
    ("CosineSimilarity", {"dim": 0}, lambda: [a(3, 4), a(3, 4, seed=1)]),
]


def _mk(cls, kw, fw):
    kw = {k: (tl.tensor(v) if fw == "tl" else torch.tensor(v)) if isinstance(v, np.ndarray)
          else v for k, v in kw.items()}
    return getattr(tnn if fw == "tl" else nn, cls)(**kw)


@pytest.mark.parametrize("cls,kw,inputs", LOSS_LAYERS,
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(LOSS_LAYERS)])
def test_loss_layers(cls, kw, inputs):
    m, r = _mk(cls, kw, "tl"), _mk(cls, kw, "torch") if HAVE_TORCH else None
    if HAVE_TORCH:
        assert repr(m) == repr(r)
        assert list(m.state_dict()) == list(r.state_dict())
        assert [n for n, _ in m.named_buffers()] == [n for n, _ in r.named_buffers()]
    check_module(m, r, inputs(), rtol=1e-4, atol=1e-5)


def test_loss_buffers_registered_even_when_none():
    assert tnn.CrossEntropyLoss().weight is None
    assert "weight" in tnn.CrossEntropyLoss()._buffers
    m = tnn.BCEWithLogitsLoss(pos_weight=tl.ones(3))
    assert list(m.state_dict()) == ["pos_weight"]


def test_layer_reprs():
    cases = [("ReLU", (True,)), ("LeakyReLU", ()), ("GELU", ()), ("Softmax", (1,)),
             ("Threshold", (0.1, 2.0, True)), ("Hardtanh", (-2.0, 2.0)), ("RReLU", ()),
             ("Softplus", ()), ("PReLU", (3,)), ("Hardshrink", (0.3,)), ("Softmax2d", ()),
             ("CrossEntropyLoss", ()), ("CTCLoss", ()), ("PairwiseDistance", ()),
             ("CosineSimilarity", ()), ("TripletMarginWithDistanceLoss", ())]
    for cls, args in cases:
        got = repr(getattr(tnn, cls)(*args))
        assert got.startswith(cls + "("), cls
        if HAVE_TORCH:
            assert got == repr(getattr(nn, cls)(*args)), cls
    assert repr(tnn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(tnn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(tnn.GELU()) == "GELU(approximate='none')"
    assert repr(tnn.Softmax(dim=1)) == "Softmax(dim=1)"


def test_layer_constructor_errors():
    for fn in [lambda nnm: nnm.MultiMarginLoss(p=3),
               lambda nnm: nnm.TripletMarginLoss(margin=0),
               lambda nnm: nnm.TripletMarginWithDistanceLoss(margin=-1.0),
               lambda nnm: nnm.Hardtanh(1.0, 1.0)]:
        raises_like(lambda: fn(tnn), lambda: fn(nn))
    raises_like(lambda: tnn.Softmax2d()(tl.randn(2, 3)), lambda: nn.Softmax2d()(torch.randn(2, 3)))


_NAN, _INF = float("nan"), float("inf")
_EDGES = [_NAN, -0.0, 0.0, -1.0, 0.5, 2.0, -0.5]
_BOUNDS = [_NAN, -0.0, _INF, -_INF, -3.0, 3.0, 6.0]
# PyTorch's values and gradients at NaN, signed zeros, infinities and the thresholds
# themselves. PyTorch's CPU kernels run vectorized over whole SIMD registers and the
# leftover elements one by one, and the two disagree at NaN for some of these (the
# vectorized hardtanh_backward gives NaN a zero gradient, the scalar one passes it):
# seven elements are always the scalar path, which torchlike follows.
_EDGE_EXPECTED = {
    "relu": ((), _EDGES, [np.nan, -0.0, 0.0, 0.0, 0.5, 2.0, 0.0], [1, 0, 0, 0, 1, 1, 0]),
    "threshold": ((0.5, 0.0), _EDGES, [np.nan, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
                  [1, 0, 0, 0, 0, 1, 0]),
    "softshrink": ((0.5,), _EDGES, [np.nan, -0.0, 0.0, -0.5, 0.0, 1.5, -0.0],
                   [1, 0, 0, 1, 0, 1, 0]),
    "hardshrink": ((0.5,), _EDGES, [np.nan, 0.0, 0.0, -1.0, 0.0, 2.0, 0.0],
                   [1, 0, 0, 1, 0, 1, 0]),
    "relu6": ((), _BOUNDS, [np.nan, -0.0, 6.0, 0.0, 0.0, 3.0, 6.0], [1, 0, 0, 0, 0, 1, 0]),
    "hardtanh": ((-0.0, 1.0), _EDGES, [np.nan, -0.0, 0.0, -0.0, 0.5, 1.0, -0.0],
                 [1, 0, 0, 0, 1, 0, 0]),
    "hardsigmoid": ((), _BOUNDS, [np.nan, 0.5, 1.0, 0.0, 0.0, 1.0, 1.0],
                    [0, 1 / 6, 0, 0, 0, 0, 0]),
    "hardswish": ((), _BOUNDS, [np.nan, -0.0, np.inf, np.nan, -0.0, 3.0, 6.0],
                  [1, 0.5, 1, 0, 0, 1, 1]),
    "elu": ((), _EDGES, [np.nan, -0.0, 0.0, -0.63212055, 0.5, 2.0, -0.39346933],
            [1, 1, 1, 0.36787945, 1, 1, 0.60653066]),
    "softplus": ((2.0, 5.0), _BOUNDS, [np.nan, 0.34657359, np.inf, 0.0, 0.0012378426, 3.0, 6.0],
                 [np.nan, 0.5, 1, 0, 0.0024726233, 1, 1]),
    "clamp_min": ((0.0,), _BOUNDS, [np.nan, -0.0, np.inf, 0.0, 0.0, 3.0, 6.0],
                  [0, 1, 1, 0, 0, 1, 1]),
    "clamp_max": ((1.0,), _BOUNDS, [np.nan, -0.0, 1.0, -np.inf, -3.0, 1.0, 1.0],
                  [0, 1, 0, 1, 1, 0, 0]),
}


def _edge_fn(lib, name):
    return getattr(lib, name) if name.startswith("clamp") else getattr(lib.nn.functional, name)


def _assert_same_edges(got, want):
    want = np.asarray(want, np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=0)   # NaN where NaN, inf alike
    signed = ~np.isnan(want)   # (a NaN's sign bit means nothing)
    np.testing.assert_array_equal(np.signbit(got)[signed], np.signbit(want)[signed])


@pytest.mark.parametrize("name", sorted(_EDGE_EXPECTED))
def test_nan_and_signed_zero_edges(name):
    extra, inputs, values, grads = _EDGE_EXPECTED[name]
    x = tl.tensor(inputs, requires_grad=True)
    y = _edge_fn(tl, name)(x, *extra)
    y.sum().backward()
    _assert_same_edges(y.detach().numpy(), values)
    _assert_same_edges(x.grad.numpy(), grads)
    if HAVE_TORCH:   # the table above is PyTorch's
        px = torch.tensor(inputs, requires_grad=True)
        py = _edge_fn(torch, name)(px, *extra)
        py.sum().backward()
        _assert_same_edges(y.detach().numpy(), py.detach().numpy())
        _assert_same_edges(x.grad.numpy(), px.grad.numpy())


@pytest.mark.parametrize("case", ["soft_margin_target", "bce_weight", "bce_logits_pos_weight",
                                  "nll_weight", "cross_entropy_weight", "multi_margin_weight",
                                  "batch_norm_running_mean", "instance_norm_running_var"])
def test_arguments_without_a_derivative_refuse_requires_grad(case):
    # PyTorch's derivative formulas mark these arguments non-differentiable: with grad
    # mode on, a tensor that requires grad there is refused; under no_grad it is used
    def call(lib, F_):
        x = lib.tensor([[0.5, -0.2, 0.3]], requires_grad=True)
        w = lib.tensor([[1.0, 0.5, 2.0]], requires_grad=True)
        p = lib.tensor([[0.5, 0.2, 0.3]])
        if case == "soft_margin_target":
            return F_.soft_margin_loss(x, w)
        if case == "bce_weight":
            return F_.binary_cross_entropy(p.requires_grad_(), p, weight=w)
        if case == "bce_logits_pos_weight":
            return F_.binary_cross_entropy_with_logits(x, p, pos_weight=w)
        y, w1 = lib.tensor([2]), w[0]
        if case == "nll_weight":
            return F_.nll_loss(x.log_softmax(1), y, weight=w1)
        if case == "cross_entropy_weight":
            return F_.cross_entropy(x, y, weight=w1, label_smoothing=0.1)
        if case == "multi_margin_weight":
            return F_.multi_margin_loss(x, y, weight=w1)
        x2 = lib.cat([x, 2 * x]).detach().requires_grad_()
        if case == "batch_norm_running_mean":
            return F_.batch_norm(x2, w1, lib.ones(3), training=True).sum()
        return F_.instance_norm(x2[None], lib.zeros(2), w[0, :2], use_input_stats=True).sum()
    raises_like(lambda: call(tl, TF), lambda: call(torch, F))
    with pytest.raises(RuntimeError, match="is not differentiable with respect to argument"):
        call(tl, TF)
    with tl.no_grad():
        got = call(tl, TF)
    assert got.shape == () and np.isfinite(got.item())
    if HAVE_TORCH:
        with torch.no_grad():
            assert_same(got, call(torch, F))
