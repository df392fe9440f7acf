"""Sampling: shapes and dtypes for several sample shapes, support, reproducibility under
``torchlike.manual_seed``, gradients of ``rsample`` (and none from ``sample``), and the
first two moments over 20k draws (fixed seed, tolerances far above the sampling error).
Samples cannot be compared with PyTorch's (a different generator)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

D = tl.distributions


def _families():
    f32 = tl.float32
    return {
        "Normal": D.Normal(tl.tensor([0.5, -1.0]), tl.tensor([1.0, 2.0])),
        "Uniform": D.Uniform(tl.tensor([0.0, -1.0]), tl.tensor([1.0, 3.0])),
        "Bernoulli": D.Bernoulli(probs=tl.tensor([0.2, 0.7])),
        "Categorical": D.Categorical(probs=tl.tensor([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])),
        "OneHotCategorical": D.OneHotCategorical(logits=tl.tensor([[0.0, 1.0, 2.0],
                                                                   [1.0, 1.0, 1.0]])),
        "Exponential": D.Exponential(tl.tensor([0.5, 2.0])),
        "Laplace": D.Laplace(tl.tensor([0.5, -1.0]), tl.tensor([1.0, 0.5])),
        "Gamma": D.Gamma(tl.tensor([0.5, 3.0]), tl.tensor([1.0, 2.0])),
        "Beta": D.Beta(tl.tensor([0.5, 3.0]), tl.tensor([2.0, 1.5])),
        "Dirichlet": D.Dirichlet(tl.tensor([[0.5, 1.0, 2.0], [3.0, 3.0, 3.0]])),
        "MultivariateNormal": D.MultivariateNormal(
            tl.tensor([[1.0, -1.0], [0.0, 0.0]]),
            covariance_matrix=tl.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=f32)),
        "Independent": D.Independent(D.Normal(tl.zeros(2, 3), tl.ones(2, 3)), 1),
        "Transformed": D.TransformedDistribution(
            D.Normal(tl.tensor([0.0, 0.5]), tl.tensor([0.3, 0.2])), [D.ExpTransform()]),
    }


FAMILIES = sorted(_families())


@pytest.mark.parametrize("name", FAMILIES)
def test_shapes_dtypes_support_and_reproducibility(name):
    d = _families()[name]
    bs, es = tuple(d.batch_shape), tuple(d.event_shape)
    for ss in [(), (2, 3)]:
        x = d.sample(ss)
        assert tuple(x.shape) == ss + bs + es, (ss, tuple(x.shape))
        expected = tl.int64 if name == "Categorical" else tl.float32
        assert x.dtype == expected
        assert not x.requires_grad
        assert bool(d.support.check(x).all())
    e = d.expand((3,) + bs)
    assert tuple(e.sample((2,)).shape) == (2, 3) + bs + es   # draws as d.sample((2, 3))
    tl.manual_seed(7)
    a = d.sample((2, 3))
    b = d.sample((2, 3))
    tl.manual_seed(7)
    np.testing.assert_array_equal(d.sample((2, 3)).numpy(), a.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())   # the stream moves on


def test_sample_n_warns_and_has_the_shape():
    d = D.Normal(tl.zeros(2), tl.ones(2))
    with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
        x = d.sample_n(3)
    assert tuple(x.shape) == (3, 2)


def _rsample_leaves():
    loc = tl.tensor([0.5, -1.0], requires_grad=True)
    scale = tl.tensor([1.0, 2.0], requires_grad=True)
    conc = tl.tensor([[0.5, 1.0, 2.0], [3.0, 3.0, 3.0]], requires_grad=True)
    a = tl.tensor([0.7, 3.0], requires_grad=True)
    return {
        "Normal": (lambda: D.Normal(loc, scale), [loc, scale]),
        "Laplace": (lambda: D.Laplace(loc, scale), [loc, scale]),
        "Uniform": (lambda: D.Uniform(loc, loc + scale), [loc, scale]),
        "Exponential": (lambda: D.Exponential(scale), [scale]),
        "Gamma": (lambda: D.Gamma(a, scale), [a, scale]),
        "Beta": (lambda: D.Beta(a, scale), [a, scale]),
        "Dirichlet": (lambda: D.Dirichlet(conc), [conc]),
        "MultivariateNormal": (lambda: D.MultivariateNormal(
            loc, scale_tril=tl.diag_embed(scale)), [loc, scale]),
    }


@pytest.mark.parametrize("name", sorted(_rsample_leaves()))
def test_rsample_gradients_flow_and_sample_has_none(name):
    build, leaves = _rsample_leaves()[name]
    d = build()
    assert d.has_rsample
    tl.manual_seed(0)
    x = d.rsample((2, 3))
    assert x.requires_grad
    grads = tl.autograd.grad(x.sum(), leaves)
    for g, leaf in zip(grads, leaves):
        assert tuple(g.shape) == tuple(leaf.shape)
        assert np.isfinite(g.numpy()).all() and np.abs(g.numpy()).sum() > 0
    assert not d.sample((2, 3)).requires_grad


def test_gamma_rsample_gradient_is_the_implicit_derivative():
    # E[x] = a / r, so d E[x] / d a = 1 / r: the mean of the per-draw gradients matches
    # (the same shapes as test_moments_over_20k_draws, so the sampler compiles once)
    a = tl.tensor([0.5, 3.0], requires_grad=True)
    tl.manual_seed(3)
    x = D.Gamma(a, tl.tensor([1.0, 2.0])).rsample((20000,))
    (g,) = tl.autograd.grad(x.mean(0).sum(), a)
    np.testing.assert_allclose(g.numpy(), [1.0, 0.5], rtol=0.05)


MOMENTS = ["Normal", "Uniform", "Bernoulli", "OneHotCategorical", "Exponential", "Laplace",
           "Gamma", "Beta", "Dirichlet", "MultivariateNormal"]


def test_moments_over_20k_draws():
    fams = _families()
    tl.manual_seed(1234)
    for name in MOMENTS:
        d = fams[name]
        x = d.sample((20000,)).double().numpy()
        mean, var = d.mean.double().numpy(), d.variance.double().numpy()
        sd = np.sqrt(var)
        # the standard error of the mean is sd / sqrt(20000) < 0.0071 sd: 6 of them
        assert np.all(np.abs(x.mean(0) - mean) <= 0.045 * sd + 1e-6), (name, x.mean(0), mean)
        assert np.all(np.abs(x.var(0) - var) <= 0.1 * var + 1e-6), (name, x.var(0), var)
    cat = fams["Categorical"]
    x = cat.sample((20000,)).numpy()
    freq = np.stack([(x == k).mean(0) for k in range(3)], -1)
    np.testing.assert_allclose(freq, cat.probs.numpy(), atol=0.02)
    assert (x[:, 1] != 1).all()   # a zero-probability class is never drawn
