"""Random sampling and generators. Values cannot equal PyTorch's (a different generator),
so these tests check shapes and dtypes against torch, reproducibility, independence of
successive draws, statistics over large draws, and error messages against torch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, normalize_error, torch


def _np(t):
    return np.asarray(t.detach())


def _same_meta(fn):
    """Call ``fn(module)`` in torchlike and torch; same shape and dtype name."""
    out = fn(tl)
    if HAVE_TORCH:
        ref = fn(torch)
        assert tuple(out.shape) == tuple(ref.shape)
        assert str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
        assert out.requires_grad == ref.requires_grad
    return out


@pytest.mark.parametrize("make", [
    lambda m: m.rand(2, 3), lambda m: m.rand((4,)), lambda m: m.randn(3, 2),
    lambda m: m.randn(2, dtype=m.float64), lambda m: m.rand(5, dtype=m.bfloat16),
    lambda m: m.randn(3, dtype=m.complex64), lambda m: m.randint(10, (3, 4)),
    lambda m: m.randint(-5, 5, (6,), dtype=m.int32), lambda m: m.randint(0, 5, (3,),
                                                                         dtype=m.float32),
    lambda m: m.randperm(7), lambda m: m.randperm(4, dtype=m.float32),
    lambda m: m.normal(m.zeros(2, 3), m.ones(3)), lambda m: m.normal(0.0, m.ones(4)),
    lambda m: m.normal(m.zeros(4), 2.0), lambda m: m.normal(2.0, 3.0, (2, 3)),
    lambda m: m.normal(2, 3, size=(5,)), lambda m: m.bernoulli(m.full((4,), 0.3)),
    lambda m: m.bernoulli(m.zeros(3, dtype=m.float64), p=0.5),
    lambda m: m.multinomial(m.ones(5), 3), lambda m: m.multinomial(m.ones(2, 5), 4, True),
    lambda m: m.poisson(m.ones(3) * 2), lambda m: m.rand_like(m.zeros(2, dtype=m.float64)),
    lambda m: m.randn_like(m.zeros(3, 1)), lambda m: m.randint_like(m.zeros(3), 10),
    lambda m: m.randint_like(m.zeros(3, dtype=m.int32), 3, 10),
    lambda m: m.randn(2, 2, requires_grad=True), lambda m: m.rand(0, 3),
], ids=lambda f: "")
def test_shapes_and_dtypes_like_torch(make):
    _same_meta(make)


def test_manual_seed_reproduces_every_sampler():
    def draw():
        return [tl.rand(4), tl.randn(4), tl.randint(0, 100, (4,)), tl.randperm(6),
                tl.normal(tl.zeros(3), 1.0), tl.bernoulli(tl.full((8,), 0.5)),
                tl.multinomial(tl.ones(6), 3), tl.poisson(tl.ones(4)),
                tl.zeros(3).normal_(), tl.zeros(3).uniform_(-1, 1),
                tl.zeros(3).exponential_(), tl.zeros(3).random_(0, 50),
                tl.zeros(3).cauchy_(), tl.zeros(3).log_normal_(), tl.zeros(3).geometric_(0.3),
                tl.zeros(4).bernoulli_(0.5)]
    g = tl.manual_seed(1234)
    assert g is tl.default_generator
    first = draw()
    tl.manual_seed(1234)
    second = draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(_np(a), _np(b))
    assert tl.initial_seed() == 1234


def test_successive_draws_differ():
    tl.manual_seed(0)
    a, b = tl.rand(100), tl.rand(100)
    assert not np.array_equal(_np(a), _np(b))
    c, d = tl.zeros(50).normal_(), tl.zeros(50).normal_()
    assert not np.array_equal(_np(c), _np(d))


def test_explicit_generators_are_independent_of_the_default():
    g1 = tl.Generator().manual_seed(7)
    g2 = tl.Generator().manual_seed(7)
    a = tl.randn(5, generator=g1)
    tl.randn(10)           # draws from the default generator don't disturb g2
    b = tl.randn(5, generator=g2)
    np.testing.assert_array_equal(_np(a), _np(b))
    assert g1.initial_seed() == 7
    assert tl.Generator().initial_seed() == (torch.Generator().initial_seed() if HAVE_TORCH
                                             else 67280421310721)
    assert str(tl.Generator().device) == "cpu"


def test_seed_and_state_round_trip():
    s = tl.seed()
    assert isinstance(s, int) and tl.initial_seed() == s
    state = tl.get_rng_state()
    assert state.dtype is tl.uint8 and state.dim() == 1
    a = tl.rand(5)
    tl.set_rng_state(state)
    b = tl.rand(5)
    np.testing.assert_array_equal(_np(a), _np(b))
    g = tl.Generator().manual_seed(3)
    st = g.get_state()
    x = tl.rand(3, generator=g)
    g.set_state(st)
    np.testing.assert_array_equal(_np(x), _np(tl.rand(3, generator=g)))


def test_negative_seed_wraps_like_torch():
    tl.manual_seed(-1)
    if HAVE_TORCH:
        torch.manual_seed(-1)
        assert tl.initial_seed() == torch.initial_seed()
    assert tl.initial_seed() == 2 ** 64 - 1


def test_next_key_and_state_are_explicit():
    g = tl.Generator().manual_seed(5)
    k1, k2 = g._next_key(), g._next_key()
    assert g._counter == 2
    import jax
    assert not np.array_equal(jax.random.key_data(k1), jax.random.key_data(k2))
    key, counter = g._state_leaves()
    g2 = tl.Generator()
    g2._set_state_leaves(key, counter)
    np.testing.assert_array_equal(_np(tl.rand(4, generator=g)), _np(tl.rand(4, generator=g2)))


def test_fork_rng_restores_state():
    from torchlike._core.random import fork_rng
    tl.manual_seed(11)
    with fork_rng():
        tl.rand(10)
    a = tl.rand(3)
    tl.manual_seed(11)
    np.testing.assert_array_equal(_np(a), _np(tl.rand(3)))


# ---------------------------------------------------------------------------
# statistics
def test_uniform_and_normal_statistics():
    tl.manual_seed(0)
    u = _np(tl.rand(200_000))
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.std() - 12 ** -0.5) < 0.01
    n = _np(tl.randn(200_000, dtype=tl.float64))
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1) < 0.01
    m = _np(tl.normal(3.0, 2.0, (200_000,)))
    assert abs(m.mean() - 3) < 0.03 and abs(m.std() - 2) < 0.03
    z = _np(tl.randn(100_000, dtype=tl.complex64))
    assert abs(z.real.var() - 0.5) < 0.02 and abs(z.imag.var() - 0.5) < 0.02
    v = _np(tl.zeros(100_000).uniform_(-2, 3))
    assert v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.03


def test_inplace_distribution_statistics():
    tl.manual_seed(1)
    x = _np(tl.zeros(200_000).normal_(1.0, 0.5))
    assert abs(x.mean() - 1) < 0.01 and abs(x.std() - 0.5) < 0.01
    e = _np(tl.zeros(200_000).exponential_(2.0))
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.01
    g = _np(tl.zeros(200_000).geometric_(0.25))
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4) < 0.05
    ln = _np(tl.zeros(200_000, dtype=tl.float64).log_normal_(0.0, 0.5))
    assert ln.min() > 0 and abs(np.log(ln).std() - 0.5) < 0.01
    c = _np(tl.zeros(200_000).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1) < 0.05
    r = _np(tl.zeros(10_000).random_(3, 9))
    assert set(np.unique(r)) == set(range(3, 9))
    r2 = _np(tl.zeros(10_000, dtype=tl.int64).random_(5))
    assert set(np.unique(r2)) == set(range(5))
    b = _np(tl.zeros(100, dtype=tl.bool).random_())
    assert b.dtype == np.bool_ and b.any() and not b.all()
    big = _np(tl.zeros(10_000).random_())
    assert big.min() >= 0 and big.max() <= 2 ** 24 and np.all(big == np.round(big))


def test_randint_bounds_and_randperm():
    tl.manual_seed(2)
    r = _np(tl.randint(-3, 4, (50_000,)))
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 3
    assert abs(np.bincount(r + 3).min() / len(r) - 1 / 7) < 0.01
    for n in (0, 1, 10, 1000):
        p = _np(tl.randperm(n))
        np.testing.assert_array_equal(np.sort(p), np.arange(n))
    assert not np.array_equal(_np(tl.randperm(50)), np.arange(50))


def test_bernoulli_and_multinomial_frequencies():
    tl.manual_seed(3)
    p = tl.tensor([0.1, 0.5, 0.9]).expand(100_000, 3)
    f = _np(tl.bernoulli(p)).mean(0)
    np.testing.assert_allclose(f, [0.1, 0.5, 0.9], atol=0.01)
    f2 = _np(tl.zeros(100_000).bernoulli_(0.3)).mean()
    assert abs(f2 - 0.3) < 0.01
    probs = tl.tensor([0.1, 0.2, 0.7])
    s = _np(tl.multinomial(probs, 100_000, replacement=True))
    np.testing.assert_allclose(np.bincount(s, minlength=3) / 1e5, [0.1, 0.2, 0.7], atol=0.01)
    rows = _np(tl.multinomial(tl.rand(200, 10) + 0.01, 10))
    for row in rows:
        assert sorted(row) == list(range(10))   # without replacement: distinct
    firsts = _np(tl.multinomial(tl.tensor([1.0, 0.0, 3.0]).expand(20_000, 3), 1))[:, 0]
    assert set(np.unique(firsts)) == {0, 2} and abs((firsts == 2).mean() - 0.75) < 0.02
    pois = _np(tl.poisson(tl.full((100_000,), 4.0)))
    assert abs(pois.mean() - 4) < 0.05 and np.all(pois == np.round(pois))


# ---------------------------------------------------------------------------
# writes through views, autograd
def test_inplace_random_writes_through_views():
    w = tl.zeros(4, 5, requires_grad=True)
    w.data.normal_(0, 0.02)
    assert np.any(_np(w) != 0) and abs(_np(w)).max() < 0.2
    base = tl.zeros(4, 4)
    base[1:3].uniform_(5, 6)
    b = _np(base)
    assert np.all(b[[0, 3]] == 0) and np.all((b[1:3] >= 5) & (b[1:3] < 6))
    t = tl.zeros(3, 3)
    col = t[:, 1]
    col.bernoulli_(1.0)
    np.testing.assert_array_equal(_np(t)[:, 1], 1)
    assert _np(t)[:, [0, 2]].sum() == 0


def test_inplace_on_leaf_requiring_grad_raises_like_torch():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        tl.zeros(2, requires_grad=True).normal_()
    with tl.no_grad():
        tl.zeros(2, requires_grad=True).normal_()


def test_normal_tensor_arguments_have_zero_gradients_like_torch():
    mean = tl.zeros(3, requires_grad=True)
    std = tl.ones(3, requires_grad=True)
    out = tl.normal(mean, std)
    assert out.requires_grad and out.grad_fn.name() == "NormalBackward3"
    out.sum().backward()
    np.testing.assert_array_equal(_np(mean.grad), 0)
    np.testing.assert_array_equal(_np(std.grad), 0)


# ---------------------------------------------------------------------------
# errors, compared with torch
ERRORS = [
    lambda m: m.rand(3, dtype=m.int64), lambda m: m.randn(3, dtype=m.int64),
    lambda m: m.randint(5, 5, (3,)), lambda m: m.randperm(-1), lambda m: m.rand(-1),
    lambda m: m.normal(0.0, -1.0, (2,)), lambda m: m.normal(m.zeros(2), m.tensor([1.0, -1.0])),
    lambda m: m.normal(m.zeros(5), m.ones(2, 3)),
    lambda m: m.zeros(3, dtype=m.int64).normal_(), lambda m: m.zeros(3).uniform_(2, 1),
    lambda m: m.bernoulli(m.tensor([1.5])), lambda m: m.bernoulli(m.zeros(3), p=1.5),
    lambda m: m.zeros(3).bernoulli_(1.5), lambda m: m.bernoulli(m.ones(3, dtype=m.int64)),
    lambda m: m.multinomial(m.tensor([0.5, -0.1]), 1),
    lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    lambda m: m.multinomial(m.tensor([float("nan"), 1.0]), 1),
    lambda m: m.multinomial(m.tensor([0.5, 0.5]), 3),
    lambda m: m.multinomial(m.ones(2, 2, 2), 1),
    lambda m: m.multinomial(m.ones(2, dtype=m.int64), 1), lambda m: m.multinomial(m.ones(2), 0),
    lambda m: m.zeros(3).exponential_(-1), lambda m: m.zeros(3).geometric_(1.5),
    lambda m: m.zeros(3).random_(5, 2), lambda m: m.zeros(3, dtype=m.int64).cauchy_(),
    lambda m: m.zeros(3).log_normal_(1, -2), lambda m: m.poisson(m.ones(3, dtype=m.int64)),
    lambda m: m.poisson(-m.ones(3)), lambda m: m.set_rng_state(m.zeros(3)),
    lambda m: m.zeros(2, requires_grad=True).uniform_(),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    with pytest.raises(Exception) as info:
        ERRORS[i](tl)
    if not HAVE_TORCH:
        return
    with pytest.raises(Exception) as ref:
        ERRORS[i](torch)
    assert type(info.value).__name__ == type(ref.value).__name__, (info.value, ref.value)
    msg, rmsg = normalize_error(str(info.value)), str(ref.value)
    assert msg == rmsg or i in (28,), (msg, rmsg)


@pytest.mark.parametrize("shape", [(6, 3, 5, 5), (0, 3, 2)])
def test_flat_draws_equal_shaped_draws(shape):
    # Note [Random draws are flat]: drawing a vector and reshaping it gives the values of
    # the shaped draw, bit for bit, for every sampler that draws flat
    import jax

    from torchlike._core.random import drawn_flat
    k = jax.random.fold_in(jax.random.PRNGKey(7), 3)
    draws = [lambda s: jax.random.uniform(k, s, np.float32, -0.5, 2.0),
             lambda s: jax.random.normal(k, s, np.float32),
             lambda s: jax.random.randint(k, s, -3, 10, np.int64),
             lambda s: jax.random.gumbel(k, s, np.float32)]
    for draw in draws:
        a, b = np.asarray(draw(shape)), np.asarray(drawn_flat(draw, shape))
        assert a.shape == b.shape == shape
        assert np.array_equal(a, b)


def _exact_draws(monkeypatch):
    from torchlike._ops import random as R
    monkeypatch.setattr(R, "_BUCKETED", frozenset())


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16", "complex64"])
def test_bucketed_eager_draws_equal_exact_draws(dtype, monkeypatch):
    # Note [Eager draws share executables]: an eager draw of n elements keeps the first n
    # of a bucket-sized draw; the values are the exact draw's, bit for bit
    dt = getattr(tl, dtype)
    shapes = [(6, 3, 5, 5), (150,), (10,), (7, 1000), (3,), (2, 0)]
    got, want = [], []
    for out, exact in ((got, False), (want, True)):
        with monkeypatch.context() as m:
            if exact:
                _exact_draws(m)
            tl.manual_seed(11)
            for s in shapes:
                out.append(tl.rand(*s, dtype=dt))
                out.append(tl.randn(*s, dtype=dt))
                w = tl.empty(s, dtype=dt)
                out.append(w.uniform_(-0.3, 0.7))
                out.append(tl.empty(s, dtype=dt).normal_(2.0, 0.5))
                if not dt.is_complex:
                    out.append(tl.randint(-5, 100, s))
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.array_equal(a.float().numpy() if a.dtype == tl.bfloat16 else a.numpy(),
                              b.float().numpy() if b.dtype == tl.bfloat16 else b.numpy())


def test_eager_draws_of_one_bucket_share_an_executable():
    from torchlike._ops import random as R
    tl.manual_seed(0)
    tl.rand(5, 7)            # compiles the 4096-element bucket (or finds it)
    before = R._uniform._cache_size()
    for s in [(150,), (6, 3, 5, 5), (84, 10), (1000, 3)]:
        tl.rand(*s)
    assert R._uniform._cache_size() == before


def test_repeated_eager_draws_move_to_their_own_executable():
    # a size drawn again and again stops drawing the unused part of its bucket
    from torchlike._ops import random as R
    tl.manual_seed(0)
    shape = (3, 331)
    for _ in range(R._EXACT_AFTER):
        tl.rand(*shape)
    before = R._uniform._cache_size()
    a = tl.rand(*shape)
    assert R._uniform._cache_size() == before + 1
    assert a.shape == shape and float(a.min()) >= 0 and float(a.max()) < 1
