"""LogNormal, HalfNormal, Gumbel, Cauchy, Chi2, StudentT, Poisson, Geometric, Pareto,
Weibull, LowRankMultivariateNormal, MixtureSameFamily and the relaxed families:
quantities and gradients against PyTorch, their KL pairs, and sampling shapes, support
and moments."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, convert, torch

from ._common import TOLS, evaluate

R = np.random.default_rng(3)
U = R.uniform(0.05, 0.95, (2, 3))
POS = R.uniform(0.5, 2.0, (2, 3))

CASES = {
    "LogNormal": (lambda D, loc, scale: D.LogNormal(loc, scale),
                  dict(loc=R.normal(size=(2, 3)) * 0.5, scale=R.uniform(0.5, 1, (3,))), POS),
    "HalfNormal": (lambda D, scale: D.HalfNormal(scale), dict(scale=R.uniform(0.5, 2, (2, 3))),
                   POS),
    "Gumbel": (lambda D, loc, scale: D.Gumbel(loc, scale),
               dict(loc=R.normal(size=(2, 3)), scale=R.uniform(0.5, 2, (2, 3))),
               R.normal(size=(2, 3))),
    "Cauchy": (lambda D, loc, scale: D.Cauchy(loc, scale),
               dict(loc=R.normal(size=(2, 3)), scale=R.uniform(0.5, 2, (2, 3))),
               R.normal(size=(2, 3))),
    "Chi2": (lambda D, df: D.Chi2(df), dict(df=R.uniform(1, 5, (2, 3))), POS),
    # df on each side of 1 and 2: the mean and variance are nan, inf or finite
    "StudentT": (lambda D, df, loc, scale: D.StudentT(df, loc, scale),
                 dict(df=np.array([[0.5, 1.5, 3.0], [2.0, 4.0, 10.0]]),
                      loc=R.normal(size=(2, 3)), scale=R.uniform(0.5, 2, (2, 3))),
                 R.normal(size=(2, 3))),
    "Poisson": (lambda D, rate: D.Poisson(rate), dict(rate=R.uniform(0.5, 4, (2, 3))),
                np.array([[0.0, 1.0, 2.0], [5.0, 3.0, 1.0]])),
    "Geometric": (lambda D, probs: D.Geometric(probs=probs),
                  dict(probs=np.array([[0.2, 0.5, 1.0], [0.9, 0.1, 0.3]])),
                  np.array([[0.0, 1.0, 0.0], [5.0, 3.0, 1.0]])),
    "Pareto": (lambda D, scale, alpha: D.Pareto(scale, alpha),
               dict(scale=R.uniform(0.5, 1, (2, 3)), alpha=R.uniform(0.5, 3, (2, 3))),
               R.uniform(1.0, 3.0, (2, 3))),
    "Weibull": (lambda D, scale, c: D.Weibull(scale, c),
                dict(scale=R.uniform(0.5, 2, (2, 3)), c=R.uniform(0.5, 3, (2, 3))), POS),
    "LowRankMVN": (lambda D, loc, f, d: D.LowRankMultivariateNormal(loc, f, d),
                   dict(loc=R.normal(size=(2, 3)), f=R.normal(size=(3, 2)),
                        d=R.uniform(0.5, 2, (3,))), R.normal(size=(2, 3))),
    "MixtureSameFamily": (lambda D, logits, loc, scale: D.MixtureSameFamily(
        D.Categorical(logits=logits), D.Normal(loc, scale)),
        dict(logits=R.normal(size=(2, 3)), loc=R.normal(size=(2, 3)),
             scale=R.uniform(0.5, 2, (2, 3))), R.normal(size=(2,))),
    "RelaxedBernoulli": (lambda D, t, logits: D.RelaxedBernoulli(t, logits=logits),
                         dict(t=np.array(0.7), logits=R.normal(size=(2, 3))), U),
    "RelaxedOneHotCategorical": (
        lambda D, t, probs: D.RelaxedOneHotCategorical(t, probs=probs),
        dict(t=np.array(0.7), probs=R.uniform(0.1, 1, (2, 3))),
        np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_quantities_and_gradients_match_torch(case):
    build, params, value = CASES[case]
    params = {k: v.astype("float32") for k, v in params.items()}
    unit = U.astype("float32")
    got = evaluate(tl, build, params, value.astype("float32"), unit)
    if HAVE_TORCH:
        ref = evaluate(torch, build, params, value.astype("float32"), unit)
        assert sorted(got) == sorted(ref)
        for k in ref:
            if case == "Chi2" and k == "cdf.grad":   # see test_multivariate's Gamma case
                assert "not implemented" in ref[k] and isinstance(got[k], list)
                continue
            assert_same(got[k], ref[k], path=k, **TOLS["float32"])


PAIRS = {
    "Gumbel-Gumbel": (lambda D, a: D.Gumbel(a["l1"], a["s1"]),
                      lambda D, a: D.Gumbel(a["l2"], a["s2"])),
    "Normal-Gumbel": (lambda D, a: D.Normal(a["l1"], a["s1"]),
                      lambda D, a: D.Gumbel(a["l2"], a["s2"])),
    "HalfNormal-HalfNormal": (lambda D, a: D.HalfNormal(a["s1"]),
                              lambda D, a: D.HalfNormal(a["s2"])),
    "Cauchy-Cauchy": (lambda D, a: D.Cauchy(a["l1"], a["s1"]),
                      lambda D, a: D.Cauchy(a["l2"], a["s2"])),
    "Poisson-Poisson": (lambda D, a: D.Poisson(a["s1"]), lambda D, a: D.Poisson(a["s2"])),
    "Bernoulli-Poisson": (lambda D, a: D.Bernoulli(a["p"]), lambda D, a: D.Poisson(a["s2"])),
    "Geometric-Geometric": (lambda D, a: D.Geometric(a["p"]), lambda D, a: D.Geometric(a["p2"])),
    "Pareto-Pareto": (lambda D, a: D.Pareto(a["s1"], a["s2"]),
                      lambda D, a: D.Pareto(a["s1"] * 0.5, a["s2"] + 1)),
    "LowRank-LowRank": (lambda D, a: D.LowRankMultivariateNormal(a["l1"], a["f"], a["s1"]),
                        lambda D, a: D.LowRankMultivariateNormal(a["l2"], a["f"] * 0.5,
                                                                 a["s2"])),
    "MVN-LowRank": (lambda D, a: D.MultivariateNormal(a["l1"], scale_tril=a["tril"]),
                    lambda D, a: D.LowRankMultivariateNormal(a["l2"], a["f"], a["s2"])),
}
KL_PARAMS = dict(l1=R.normal(size=(2, 3)), s1=R.uniform(0.5, 2, (2, 3)),
                 l2=R.normal(size=(2, 3)), s2=R.uniform(0.5, 2, (2, 3)),
                 p=R.uniform(0.1, 0.9, (2, 3)), p2=R.uniform(0.1, 0.9, (2, 3)),
                 f=R.normal(size=(3, 2)),
                 tril=np.tril(R.normal(size=(3, 3)), -1) + np.diag(R.uniform(1, 2, 3)))


def _kl(M, pair):
    fw = "tl" if M is tl else "torch"
    leaves: list = []
    a = {k: convert(v.astype("float32"), fw, grad=True, leaves=leaves)
         for k, v in KL_PARAMS.items()}
    bp, bq = PAIRS[pair]
    kl = M.distributions.kl_divergence(bp(M.distributions, a), bq(M.distributions, a))
    return [kl, list(M.autograd.grad(kl.sum(), leaves, allow_unused=True))]


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_kl_matches_torch(pair):
    got = _kl(tl, pair)
    if HAVE_TORCH:
        tol = 1e-4 if "LowRank" in pair else 1e-5   # Cholesky factorizations round apart
        assert_same(got, _kl(torch, pair), rtol=tol, atol=tol)


# moments over 20k draws for the families whose draws are not a transform of a Normal or
# uniform one already checked elsewhere (each family's ops compile for the draw shape)
MOMENTS = {"StudentT", "Poisson", "Geometric", "Weibull", "Pareto",
           "MixtureSameFamily"}


def test_sampling_shapes_support_and_moments():
    D = tl.distributions
    fams = {
        "LogNormal": D.LogNormal(tl.tensor([0.0, 0.3]), tl.tensor([0.5, 0.25])),
        "HalfNormal": D.HalfNormal(tl.tensor([1.0, 2.0])),
        "Gumbel": D.Gumbel(tl.tensor([0.0, 1.0]), tl.tensor([1.0, 0.5])),
        "Chi2": D.Chi2(tl.tensor([2.0, 5.0])),
        "StudentT": D.StudentT(tl.tensor([5.0, 8.0])),
        "Poisson": D.Poisson(tl.tensor([0.5, 4.0])),
        "Cauchy": D.Cauchy(tl.tensor([0.0, 1.0]), tl.tensor([1.0, 0.5])),
        "Geometric": D.Geometric(tl.tensor([0.3, 0.8])),
        "Weibull": D.Weibull(tl.tensor([1.0, 2.0]), tl.tensor([1.5, 3.0])),
        "Pareto": D.Pareto(tl.tensor([1.0, 2.0]), tl.tensor([5.0, 6.0])),
        "MixtureSameFamily": D.MixtureSameFamily(
            D.Categorical(probs=tl.tensor([[0.3, 0.7], [0.5, 0.5]])),
            D.Normal(tl.tensor([[-1.0, 1.0], [0.0, 2.0]]), tl.tensor([[0.5, 1.0], [1.0, 1.0]]))),
        "RelaxedBernoulli": D.RelaxedBernoulli(tl.tensor(0.5), probs=tl.tensor([0.3, 0.6])),
    }
    tl.manual_seed(11)
    for name, d in fams.items():
        x = d.sample((2, 3))
        assert tuple(x.shape) == (2, 3, 2) and x.dtype == tl.float32 and not x.requires_grad
        assert bool(d.support.check(x).all()), name
        if name not in MOMENTS:
            continue
        x = d.sample((20000,)).double().numpy()
        mean, var = d.mean.double().numpy(), d.variance.double().numpy()
        assert np.all(np.abs(x.mean(0) - mean) <= 0.045 * np.sqrt(var)), name
        assert np.all(np.abs(x.var(0) - var) <= 0.15 * var), (name, x.var(0), var)
