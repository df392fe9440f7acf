"""``F.gumbel_softmax``, channel shuffle (``F.channel_shuffle``, ``native_channel_shuffle``,
``nn.ChannelShuffle``), fractional max pooling (``F.fractional_max_pool2d/3d``,
``nn.FractionalMaxPool2d/3d``) and ``nn.AdaptiveLogSoftmaxWithLoss`` against PyTorch.

Random draws differ from PyTorch's (another generator), so gumbel_softmax is checked for
its distribution and structure, and its deterministic part exactly: the same noise,
rebuilt from the same seed, fed through PyTorch's formula. Fractional pooling with
explicit ``_random_samples`` must equal PyTorch's values and indices. torchlike's
behaviour is checked always; only the comparisons are skipped without PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as tnn
import torchlike.nn.functional as TF

from .._parity import HAVE_TORCH, assert_same, error_like_torch, torch, torchify_repr


def _x(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run_both(fn):
    """``fn(torchlike)`` and, with PyTorch, ``fn(torch)`` (else None)."""
    return fn(tl), (fn(torch) if HAVE_TORCH else None)


def _check(out, ref, rtol=1e-5, atol=1e-6):
    if ref is not None:
        assert_same(out, ref, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------
# 1. gumbel_softmax
def _gumbel_noise(seed, shape):
    """The Gumbel noise torchlike's gumbel_softmax draws right after ``manual_seed``."""
    tl.manual_seed(seed)
    u = tl.rand(shape).numpy().astype(np.float64)
    e = np.maximum(-np.log1p(-u), np.finfo(np.float32).tiny)
    return (-np.log(e)).astype(np.float32)


@pytest.mark.parametrize("hard,tau,dim", [(False, 1.0, -1), (True, 1.0, -1),
                                          (True, 0.5, 0), (False, 2.0, 1)])
def test_gumbel_softmax_matches_pytorch_formula_on_same_noise(hard, tau, dim):
    logits = _x(4, 6, seed=1)
    weights = _x(4, 6, seed=2)
    tl.manual_seed(7)
    x = tl.tensor(logits, requires_grad=True)
    y = TF.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)
    (y * tl.tensor(weights)).sum().backward()
    assert y.grad_fn.name() == ("AddBackward0" if hard else "SoftmaxBackward0")
    if hard:
        assert set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
        assert (y.detach().numpy().sum(dim) == 1).all()
    else:
        np.testing.assert_allclose(y.detach().numpy().sum(dim), 1, rtol=1e-5)
    if not HAVE_TORCH:
        return
    g = torch.tensor(_gumbel_noise(7, (4, 6)))
    xt = torch.tensor(logits, requires_grad=True)
    y_soft = ((xt + g) / tau).softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_ref = torch.zeros_like(xt).scatter_(dim, index, 1.0) - y_soft.detach() + y_soft
    else:
        y_ref = y_soft
    (y_ref * torch.tensor(weights)).sum().backward()
    assert_same(y.detach(), y_ref.detach())
    assert_same(x.grad, xt.grad, atol=1e-6)


def test_gumbel_softmax_straight_through_gradient_is_the_soft_gradient():
    logits = _x(3, 5, seed=3)
    w = tl.tensor(_x(3, 5, seed=4))
    grads = []
    for hard in (False, True):
        tl.manual_seed(11)
        x = tl.tensor(logits, requires_grad=True)
        (TF.gumbel_softmax(x, hard=hard) * w).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)


def test_gumbel_softmax_is_reproducible_and_fresh_per_call():
    x = tl.zeros(3, 8)
    tl.manual_seed(0)
    a, b = TF.gumbel_softmax(x), TF.gumbel_softmax(x)
    tl.manual_seed(0)
    c = TF.gumbel_softmax(x)
    assert tl.equal(a, c) and not tl.equal(a, b)


def test_gumbel_softmax_hard_samples_follow_the_softmax():
    logits = tl.tensor([[1.0, 0.0, -1.0, 2.0]]).expand(20000, 4)
    tl.manual_seed(1)
    y = TF.gumbel_softmax(logits, tau=0.7, hard=True)
    freq = y.numpy().mean(0)
    p = np.exp([1.0, 0.0, -1.0, 2.0])
    p /= p.sum()
    np.testing.assert_allclose(freq, p, atol=0.015)   # ~5 standard errors
    soft = TF.gumbel_softmax(logits, tau=0.7)
    np.testing.assert_array_equal(soft.numpy().argmax(1) >= 0, True)
    assert soft.dtype == tl.float32 and tuple(soft.shape) == (20000, 4)


def test_gumbel_softmax_dtypes_eps_warning_and_errors():
    for dt in ("float64", "float16", "bfloat16"):
        y = TF.gumbel_softmax(tl.zeros(2, 3, dtype=getattr(tl, dt)), hard=True)
        assert y.dtype == getattr(tl, dt)
        assert (y.float().sum(-1).numpy() == 1).all()
    for m in ([tl] + ([torch] if HAVE_TORCH else [])):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            m.nn.functional.gumbel_softmax(m.zeros(2, 3), eps=1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m.nn.functional.gumbel_softmax(m.zeros(2, 3))
    error_like_torch(lambda m: m.nn.functional.gumbel_softmax(m.ones(2, 3, dtype=m.int64)))


def test_gumbel_softmax_compiled_matches_eager():
    @tl.compile
    def f(x):
        return TF.gumbel_softmax(x, tau=0.5, hard=True)

    x = tl.tensor(_x(4, 5))
    tl.manual_seed(3)
    a = [f(x) for _ in range(2)]
    tl.manual_seed(3)
    b = [TF.gumbel_softmax(x, tau=0.5, hard=True) for _ in range(2)]
    for u, v in zip(a, b):
        assert tl.equal(u, v)


# ---------------------------------------------------------------------------
# 2. channel shuffle
@pytest.mark.parametrize("shape,groups,dtype", [((2, 6, 3, 4), 3, "float32"),
                                                ((1, 6, 5), 2, "float64"),
                                                ((2, 4, 2, 2, 2), 4, "float32"),
                                                ((3, 5, 2), 1, "float32"),
                                                ((2, 6, 3), 3, "int64"),
                                                ((0, 6, 2), 2, "float32")])
def test_channel_shuffle_matches_pytorch(shape, groups, dtype):
    a = _x(*shape, seed=5).astype(dtype)
    grad = dtype.startswith("float")

    def run(m):
        x = m.tensor(a, requires_grad=grad)
        outs = [m.channel_shuffle(x, groups), m.nn.functional.channel_shuffle(x, groups),
                m.nn.ChannelShuffle(groups)(x)]
        if grad:
            (outs[0] * m.arange(outs[0].numel()).reshape(outs[0].shape)).sum().backward()
            assert outs[0].grad_fn.name() == "ChannelShuffleBackward0"
        with m.no_grad():
            outs.append(m.native_channel_shuffle(x, groups))
        return outs + [x.grad]

    out, ref = _run_both(run)
    n, c = shape[:2]
    k = c // groups
    expect = a.reshape(n, groups, k, int(np.prod(shape[2:]))).swapaxes(1, 2).reshape(shape)
    for o in out[:4]:
        np.testing.assert_array_equal(o.detach().numpy(), expect)
    _check(out, ref)


def test_native_channel_shuffle_has_no_derivative():
    def run(m):
        x = m.ones(1, 4, 2, requires_grad=True)
        y = m.native_channel_shuffle(x, 2)
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        y.sum().backward()
    error_like_torch(run)


@pytest.mark.parametrize("case", [
    lambda m: m.channel_shuffle(m.ones(1, 6, 2), 4),
    lambda m: m.channel_shuffle(m.ones(1, 6, 2), 0),
    lambda m: m.native_channel_shuffle(m.ones(1, 6, 2), -2),
    lambda m: m.nn.functional.channel_shuffle(m.ones(6), 2),
    lambda m: m.nn.functional.native_channel_shuffle(m.ones(2, 6), 3),
    lambda m: m.channel_shuffle(m.ones(6), 0),
    lambda m: m.channel_shuffle(m.ones(1, 6, 2), 2.5),
    lambda m: m.channel_shuffle(3, 2),
    lambda m: m.nn.ChannelShuffle(0)(m.ones(1, 6, 2)),
])
def test_channel_shuffle_errors(case):
    error_like_torch(case)


def test_channel_shuffle_module_repr_and_compile():
    mod = tnn.ChannelShuffle(3)
    assert repr(mod) == "ChannelShuffle(groups=3)" and mod.extra_repr() == "groups=3"
    assert list(mod.state_dict()) == []
    f = tl.compile(lambda x: TF.channel_shuffle(x, 3) * 2)
    x = tl.tensor(_x(2, 6, 4))
    assert tl.equal(f(x), TF.channel_shuffle(x, 3) * 2)


# ---------------------------------------------------------------------------
# 3. fractional max pooling
_FRACTIONAL = [
    (2, (2, 3, 9, 8), (2, 2), (4, 5), "float32"),
    (2, (3, 7, 10), 3, (3, 4), "float64"),
    (2, (1, 2, 6, 6), (3, 2), 4, "float16"),
    (2, (2, 2, 11, 7), (2, 3), (10, 5), "bfloat16"),
    (3, (2, 2, 6, 7, 8), (2, 2, 2), (3, 4, 5), "float32"),
    (3, (2, 5, 6, 7), 2, (2, 3, 4), "float64"),
]


@pytest.mark.parametrize("nd,shape,kernel,osize,dtype", _FRACTIONAL)
def test_fractional_max_pool_with_samples_matches_pytorch(nd, shape, kernel, osize, dtype):
    a = np.round(_x(*shape, seed=nd) * 2) / 2     # ties: the first maximum wins
    n = shape[0] if len(shape) == nd + 2 else 1
    s = np.random.default_rng(9).random((n + 1, shape[-nd - 1], nd)).astype(np.float32)
    w = _x(*shape[:-nd], *((osize,) * nd if isinstance(osize, int) else osize), seed=3)

    def run(m):
        dt = getattr(m, dtype)
        x = m.tensor(a).to(dt).requires_grad_()
        f = getattr(m.nn.functional, f"fractional_max_pool{nd}d")
        v, i = f(x, kernel, output_size=osize, return_indices=True,
                 _random_samples=m.tensor(s).to(dt))
        (v * m.tensor(w).to(dt)).sum().backward()
        assert v.grad_fn.name() == f"FractionalMaxPool{nd}DBackward0"
        assert i.dtype == m.int64 and not i.requires_grad
        flat = x.detach().reshape(*x.shape[:-nd], -1)
        picked = flat.gather(-1, i.reshape(*i.shape[:-nd], -1)).reshape(v.shape)
        assert m.equal(picked, v.detach())
        return v, i, x.grad

    out, ref = _run_both(run)
    _check(out, ref)
    if ref is not None:   # indices and values exactly
        assert np.array_equal(out[1].numpy(), ref[1].numpy())
        assert np.array_equal(out[0].detach().float().numpy(), ref[0].detach().float().numpy())


def test_fractional_max_pool_known_value():
    x = tl.arange(25.).reshape(1, 1, 5, 5)
    v, i = TF.fractional_max_pool2d(x, 2, output_size=2, return_indices=True,
                                    _random_samples=tl.zeros(1, 1, 2))
    assert v.tolist() == [[[[6.0, 9.0], [21.0, 24.0]]]]
    assert i.tolist() == [[[[6, 9], [21, 24]]]]


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_random_samples_from_generator(nd):
    shape = (2, 3) + (9,) * nd
    x = tl.tensor(_x(*shape, seed=1), requires_grad=True)
    f = getattr(TF, f"fractional_max_pool{nd}d")
    ratio = (0.5,) * nd
    tl.manual_seed(4)
    v, i = f(x, 2, output_ratio=ratio, return_indices=True)
    tl.manual_seed(4)
    v2 = f(x, 2, output_ratio=ratio)
    assert tl.equal(v, v2) and tuple(v.shape) == (2, 3) + (4,) * nd
    flat = x.detach().reshape(2, 3, -1)
    assert tl.equal(flat.gather(-1, i.reshape(2, 3, -1)).reshape(v.shape), v.detach())
    v.sum().backward()
    # each output's gradient lands on its maximum
    g = x.grad.reshape(2, 3, -1)
    counts = tl.zeros(2, 3, 9 ** nd).scatter_add(-1, i.reshape(2, 3, -1),
                                                 tl.ones(2, 3, 4 ** nd))
    assert tl.equal(g, counts)
    if nd == 2:   # the same samples as ``torch.rand(N, C, 2)`` drawn first after the seed
        tl.manual_seed(4)
        s = tl.rand(2, 3, 2)
        assert tl.equal(f(x, 2, output_ratio=ratio, _random_samples=s), v)


def test_fractional_max_pool_compiled_matches_eager():
    pool = tnn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True)

    @tl.compile
    def f(x):
        return pool(x)

    x = tl.tensor(_x(2, 3, 10, 11))
    tl.manual_seed(2)
    a = f(x)
    tl.manual_seed(2)
    b = pool(x)
    assert tl.equal(a[0], b[0]) and tl.equal(a[1], b[1])
    s = tl.rand(2, 3, 3)
    g = tl.compile(lambda x, s: TF.fractional_max_pool3d(x, 2, output_size=3,
                                                         _random_samples=s))
    y = tl.tensor(_x(2, 3, 6, 6, 6))
    assert tl.equal(g(y, s), TF.fractional_max_pool3d(y, 2, output_size=3, _random_samples=s))


def _fr2(m, *a, **k):
    return m.nn.functional.fractional_max_pool2d(*a, **k)


def _fr3(m, *a, **k):
    return m.nn.functional.fractional_max_pool3d(*a, **k)


def _k2(m, x, k, o, s):
    return m._C._nn.fractional_max_pool2d(x, k, o, s) if m is not tl else \
        TF.fractional_max_pool2d_with_indices(x, k, o, _random_samples=s)


def _k3(m, x, k, o, s):
    return m._C._nn.fractional_max_pool3d(x, k, o, s) if m is not tl else \
        TF.fractional_max_pool3d_with_indices(x, k, o, _random_samples=s)


@pytest.mark.parametrize("case", [
    lambda m: _fr2(m, m.ones(2, 3, 7, 8), 2),
    lambda m: _fr2(m, m.ones(2, 3, 7, 8), 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda m: _fr2(m, m.ones(2, 3, 7, 8), 2, output_ratio=0.5),
    lambda m: _fr2(m, m.ones(3, 7, 8), 2, output_ratio=(0.5,)),
    lambda m: _fr2(m, m.ones(7, 8), 2, output_size=3),
    lambda m: _fr2(m, m.ones(3, 7, 8), 2.5, output_size=3),
    lambda m: _fr2(m, m.ones(3, 7, 8), 2, output_size=3.5),
    lambda m: _fr2(m, m.ones(3, 7, 8), (2, 2, 2), output_size=3),
    lambda m: _fr2(m, m.ones(1, 2, 5, 5, dtype=m.int64), 2, output_size=3),
    lambda m: _fr3(m, m.ones(3, 7, 8), 2, output_size=3),
    lambda m: _fr3(m, m.ones(3, 4, 7, 8), 2, output_size=3),
    lambda m: _fr3(m, m.ones(2, 3, 6, 7, 8), 2, output_ratio=(0.5, 0.5)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 3), m.rand(1, 3, 2)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 3), m.rand(2, 2, 2)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 3), m.rand(2, 3, 3)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 3), m.rand(2, 3)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 3), m.rand(2, 3, 2).double()),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (7, 3), m.rand(2, 3, 2)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (3, 8), m.rand(2, 3, 2)),
    lambda m: _k2(m, m.ones(2, 3, 7, 8), (2, 2), (-1, 3), m.rand(2, 3, 2)),
    lambda m: _k2(m, m.ones(2, 0, 7, 8), (2, 2), (3, 3), m.rand(2, 0, 2)),
    lambda m: _k2(m, m.ones(1, 1, 5, 5), (2, 2), (9, 9), m.rand(1, 1)),
    lambda m: _k2(m, m.ones(1, 2, 5, 5, dtype=m.int64), (2, 2), (3, 3),
                  m.ones(1, 2, 2, dtype=m.int64)),
    lambda m: _k2(m, m.ones(1, 1, 5, 5), (2, 2), (2, 2), m.rand(1, 1, 2).requires_grad_()),
    lambda m: _k2(m, m.ones(1, 2, 5, 5), (2, 2), (3, 3), np.ones((1, 2, 2), np.float32)),
    lambda m: _k3(m, m.ones(1, 1, 5, 5, 5), (2, 2, 2), (4, 4, 4), m.rand(1, 1, 3)),
    lambda m: _k3(m, m.ones(1, 1, 5, 5, 5), (1, 1, 2), (5, 5, 4), m.rand(1, 1, 3)),
    lambda m: _k3(m, m.ones(2, 3, 6, 7, 8), (2, 2, 2), (3, 3, 3), m.rand(2, 3, 2)),
    lambda m: _k3(m, m.ones(2, 3, 0, 7, 8), (2, 2, 2), (3, 3, 3), m.rand(2, 3, 3)),
    lambda m: _k3(m, m.ones(5, 5, 5), (2, 2, 2), (2, 2, 2), m.rand(0, 1, 3)),
    lambda m: m.nn.FractionalMaxPool2d(2),
    lambda m: m.nn.FractionalMaxPool2d(2, 3, 0.5),
    lambda m: m.nn.FractionalMaxPool2d(2, output_ratio=1.0),
    lambda m: m.nn.FractionalMaxPool2d(2, output_ratio=(0.5,)),
    lambda m: m.nn.FractionalMaxPool3d(0, output_ratio=0.5),
    lambda m: m.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.5)),
])
def test_fractional_max_pool_errors(case):
    error_like_torch(case)


def test_fractional_max_pool_edge_shapes():
    def run(m):
        s = m.tensor(np.random.default_rng(0).random((2, 3, 2)).astype(np.float32))
        x = m.tensor(_x(2, 3, 7, 8))
        return [m.nn.functional.fractional_max_pool2d_with_indices(
                    x, k, o, _random_samples=s) for k, o in
                (((0, 2), (3, 3)), ((2, 2), (0, 3)), ((2, 2), (6, 7)), ((1, 1), (7, 8)))] + [
            m.nn.functional.fractional_max_pool2d_with_indices(
                m.ones(0, 3, 7, 8), 2, 3, _random_samples=m.rand(0, 3, 2))]

    out, ref = _run_both(run)
    assert tuple(out[0][0].shape) == (2, 3, 3, 3)
    assert (out[0][0].numpy() == -np.inf).all()
    _check(out, ref)


def test_fractional_max_pool_modules():
    s = tl.rand(2, 3, 2)
    mod = tnn.FractionalMaxPool2d(2, output_size=(3, 4), _random_samples=s)
    assert repr(mod) == "FractionalMaxPool2d()"
    assert mod.kernel_size == (2, 2) and mod.output_size == (3, 4) and mod.output_ratio is None
    assert list(mod.state_dict()) == ["_random_samples"]
    x = tl.tensor(_x(2, 3, 8, 9))
    assert tl.equal(mod(x), TF.fractional_max_pool2d(x, 2, (3, 4), _random_samples=s))
    m3 = tnn.FractionalMaxPool3d((2, 1, 2), output_ratio=0.5, return_indices=True)
    assert m3.output_ratio == (0.5, 0.5, 0.5) and list(m3.state_dict()) == []
    v, i = m3(tl.tensor(_x(1, 2, 6, 6, 8)))
    assert tuple(v.shape) == tuple(i.shape) == (1, 2, 3, 3, 4)
    if HAVE_TORCH:
        ref = torch.nn.FractionalMaxPool2d(2, output_size=(3, 4),
                                           _random_samples=torch.tensor(s.numpy()))
        assert repr(ref) == repr(mod)
        assert list(ref.state_dict()) == list(mod.state_dict())
        assert_same(mod(x), ref(torch.tensor(x.numpy())))
        assert repr(torch.nn.FractionalMaxPool3d(2, output_ratio=0.5)) == \
            repr(tnn.FractionalMaxPool3d(2, output_ratio=0.5))


# ---------------------------------------------------------------------------
# 4. AdaptiveLogSoftmaxWithLoss
def _asm(m, head_bias=True, dtype="float32"):
    m.manual_seed(0)
    asm = m.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs=[5, 12], div_value=2.0,
                                          head_bias=head_bias, dtype=getattr(m, dtype))
    g = np.random.default_rng(3)
    asm.load_state_dict({k: m.tensor(g.standard_normal(tuple(v.shape)).astype(dtype))
                         for k, v in asm.state_dict().items()})
    return asm


@pytest.mark.parametrize("head_bias,dtype", [(True, "float32"), (False, "float64")])
def test_adaptive_log_softmax_matches_pytorch(head_bias, dtype):
    x = _x(7, 16, seed=1, dtype=dtype)
    target = np.array([0, 4, 5, 11, 12, 19, 3])

    def run(m):
        asm = _asm(m, head_bias, dtype)
        xi = m.tensor(x, requires_grad=True)
        out = asm(xi, m.tensor(target))
        out.loss.backward()
        assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
        assert out.output.grad_fn.name() == "AddBackward0"
        assert out.loss.grad_fn.name() == "MeanBackward0"
        single = asm(m.tensor(x[2]), m.tensor(target[2]))
        return ([out.output, out.loss, xi.grad] + [p.grad for p in asm.parameters()] +
                [single.output, single.loss, asm.log_prob(m.tensor(x)),
                 asm.predict(m.tensor(x)), list(asm.state_dict()), repr(asm)])

    out, ref = _run_both(run)
    np.testing.assert_allclose(out[-4].detach().exp().sum(1).numpy(), 1, rtol=1e-5)
    np.testing.assert_allclose(out[0].detach().numpy(),
                               out[-4].detach().numpy()[np.arange(7), target], rtol=1e-5)
    if ref is not None:
        assert out[-1] == torchify_repr(ref[-1])
        _check(out[:-1], ref[:-1], rtol=1e-5, atol=1e-5)


def test_adaptive_log_softmax_predict_mixed_and_state_dict_interchange():
    asm = _asm(tl)
    x = tl.tensor(_x(64, 16, seed=5))
    pred = asm.predict(x)
    full = asm.log_prob(x).argmax(1)
    head = asm.head(x).argmax(1)
    assert (head < asm.shortlist_size).any().item() and (head >= asm.shortlist_size).any().item()
    assert tl.equal(pred, tl.where(head < asm.shortlist_size, head, full))
    if HAVE_TORCH:
        ref = torch.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs=[5, 12], div_value=2.0,
                                                  head_bias=True)
        ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in asm.state_dict().items()})
        assert np.array_equal(ref.predict(torch.tensor(x.numpy())).numpy(), pred.numpy())


@pytest.mark.parametrize("case", [
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 2]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 4]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2.5, 4]),
    lambda m: _asm(m)(m.ones(3, 16), m.tensor([1, 2])),
    lambda m: _asm(m)(m.ones(3, 2, 16), m.tensor([1, 2, 3])),
    lambda m: _asm(m)(m.ones(3, 16), m.tensor(1)),
    lambda m: _asm(m)(m.ones(3, 16), m.tensor([[1, 2, 3]])),
    lambda m: _asm(m)(m.ones(3, 16), m.tensor([1, 20, 3])),
    lambda m: _asm(m)(m.ones(3, 16), m.tensor([-1, 2, 3])),
])
def test_adaptive_log_softmax_errors(case):
    error_like_torch(case)


def test_adaptive_log_softmax_compiled_training_step_matches_eager():
    def setup():
        asm = _asm(tl)
        opt = tl.optim.SGD(asm.parameters(), lr=0.1)

        def step(x, t):
            opt.zero_grad()
            out = asm(x, t)
            out.loss.backward()
            opt.step()
            return out.loss, asm.predict(x)
        return asm, step

    x = tl.tensor(_x(6, 16, seed=2))
    t = tl.tensor([0, 6, 13, 19, 2, 7])
    a_mod, a_step = setup()
    b_mod, b_step = setup()
    compiled = tl.compile(b_step)
    for _ in range(2):
        la, pa = a_step(x, t)
        lb, pb = compiled(x, t)
        np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-5)
        assert tl.equal(pa, pb)
    for p, q in zip(a_mod.parameters(), b_mod.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
