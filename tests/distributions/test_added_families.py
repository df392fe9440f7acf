"""Binomial, Multinomial, NegativeBinomial, ContinuousBernoulli, FisherSnedecor,
GeneralizedPareto, HalfCauchy, InverseGamma, Kumaraswamy, LogisticNormal, VonMises,
Wishart, LKJCholesky and ``torchlike.binomial``: quantities and gradients against
PyTorch, ``expand``, validation errors, their KL pairs, and sampling shapes, support and
moments, eagerly and inside ``torchlike.compile``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, convert, error_like_torch, torch

from ._common import evaluate

R = np.random.default_rng(7)
U = R.uniform(0.05, 0.95, (2, 3))
POS = R.uniform(0.5, 2.0, (2, 3))
COUNTS = np.array([[0.0, 2.0, 5.0], [1.0, 3.0, 4.0]])
SPD = np.array([[[2.0, 0.3], [0.3, 1.0]], [[1.0, -0.2], [-0.2, 0.5]]])
TRIL = np.array([[[1.2, 0.0], [0.4, 0.9]], [[0.8, 0.0], [-0.3, 1.1]]])
CORR_CHOL = np.linalg.cholesky(np.array([[[1.0, 0.3, -0.2], [0.3, 1.0, 0.1],
                                          [-0.2, 0.1, 1.0]]] * 2))
ALL = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")
NO_ICDF = tuple(n for n in ALL if n not in ("icdf", "cdf"))

# name -> (build, params, value, names compared)
CASES = {
    "Binomial probs": (lambda D, n, p: D.Binomial(n, probs=p),
                       dict(n=np.full((2, 3), 5.0), p=R.uniform(0.1, 0.9, (2, 3))),
                       COUNTS, ALL),
    "Multinomial": (lambda D, p: D.Multinomial(4, probs=p),
                    dict(p=R.uniform(0.1, 1, (2, 3))),
                    np.array([[1.0, 1.0, 2.0], [0.0, 4.0, 0.0]]), NO_ICDF),
    "NegativeBinomial": (lambda D, n, lg: D.NegativeBinomial(n, logits=lg),
                         dict(n=R.uniform(0.5, 4, (2, 3)), lg=R.normal(size=(2, 3))),
                         COUNTS, ALL),
    # probs on each side of the unstable region around 0.5 and inside it
    "ContinuousBernoulli": (lambda D, p: D.ContinuousBernoulli(probs=p),
                            dict(p=np.array([[0.2, 0.4995, 0.7], [0.05, 0.5, 0.95]])),
                            U, ALL),
    "FisherSnedecor": (lambda D, d1, d2: D.FisherSnedecor(d1, d2),
                       dict(d1=np.array([[1.5, 3.0, 6.0], [2.0, 5.0, 9.0]]),
                            d2=np.array([[1.5, 3.0, 6.0], [4.5, 2.5, 12.0]])), POS, ALL),
    "GeneralizedPareto": (lambda D, loc, s, c: D.GeneralizedPareto(loc, s, c),
                          dict(loc=R.normal(size=(2, 3)) * 0.1, s=R.uniform(0.5, 2, (2, 3)),
                               c=np.array([[0.0, 0.3, -0.2], [0.7, -0.5, 0.1]])),
                          U, ALL),
    "HalfCauchy": (lambda D, s: D.HalfCauchy(s), dict(s=R.uniform(0.5, 2, (2, 3))), POS, ALL),
    "InverseGamma": (lambda D, c, r: D.InverseGamma(c, r),
                     dict(c=np.array([[0.5, 1.5, 2.5], [3.0, 1.0, 4.0]]),
                          r=R.uniform(0.5, 2, (2, 3))), POS,
                     ("log_prob", "entropy", "mean", "mode", "variance")),
    "Kumaraswamy": (lambda D, a, b: D.Kumaraswamy(a, b),
                    dict(a=np.array([[0.5, 1.5, 2.5], [3.0, 1.2, 4.0]]),
                         b=np.array([[2.0, 0.7, 2.5], [1.5, 3.0, 1.1]])), U,
                    ("log_prob", "entropy", "mean", "mode", "variance")),
    "LogisticNormal": (lambda D, loc, s: D.LogisticNormal(loc, s),
                       dict(loc=R.normal(size=(2, 3)) * 0.5, s=R.uniform(0.5, 1.5, (2, 3))),
                       np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.2, 0.2, 0.1]]),
                       ("log_prob", "mean", "mode", "variance", "entropy")),
    # concentrations on each side of 3.75, where the Bessel approximation switches
    "VonMises": (lambda D, loc, k: D.VonMises(loc, k),
                 dict(loc=R.normal(size=(2, 3)), k=np.array([[0.5, 2.0, 4.0], [8.0, 1.0, 20.0]])),
                 R.normal(size=(2, 3)), ("log_prob", "mean", "mode", "variance", "entropy")),
    "Wishart scale_tril": (lambda D, df, L: D.Wishart(df, scale_tril=L),
                           dict(df=np.array([2.5, 4.0]), L=TRIL), SPD, NO_ICDF),
    "LKJCholesky": (lambda D, c: D.LKJCholesky(3, c), dict(c=np.array([0.5, 2.0])),
                    CORR_CHOL, NO_ICDF),
}


# the cases whose gradients are compared too (each backward compiles its own programs)
GRADS = {"ContinuousBernoulli", "GeneralizedPareto", "Kumaraswamy", "VonMises",
         "Wishart scale_tril", "Binomial probs"}


def test_quantities_and_gradients_match_torch():
    for case, (build, params, value, names) in CASES.items():
        params = {k: v.astype("float32") for k, v in params.items()}
        value, unit = value.astype("float32"), U.astype("float32")
        grads = case in GRADS
        got = evaluate(tl, build, params, value, unit, names=names, grads=grads)
        if HAVE_TORCH:
            ref = evaluate(torch, build, params, value, unit, names=names, grads=grads)
            assert sorted(got) == sorted(ref), case
            # the variance's gradient near the unstable region cancels in float32
            atol = 2e-3 if case.startswith("ContinuousBernoulli") else 1e-5
            for k in ref:
                assert_same(got[k], ref[k], path=f"{case}: {k}", rtol=1e-4, atol=atol)


# (the expanded parameters are compared through log_prob for a few families only: each new
# shape compiles every op again)
_SCORED = {"Binomial", "Wishart"}
_HAS_MEAN = {"Binomial", "Multinomial", "NegativeBinomial", "ContinuousBernoulli",
             "FisherSnedecor", "InverseGamma", "Kumaraswamy", "VonMises", "Wishart"}


def _expanded(M):
    D = M.distributions
    t = M.tensor
    fams = [(D.Binomial(t([3.0]), probs=t([0.3])), t(2.0)),
            (D.Multinomial(3, logits=t([0.1, 0.2, 0.3])), t([1.0, 0.0, 2.0])),
            (D.NegativeBinomial(t([2.0]), probs=t([0.4])), t(3.0)),
            (D.ContinuousBernoulli(t([0.3])), t(0.2)),
            (D.FisherSnedecor(t([3.0]), t([5.0])), t(1.5)),
            (D.GeneralizedPareto(t([0.0]), 1.0, 0.2), t(0.5)),
            (D.HalfCauchy(t([1.0])), t(0.5)), (D.InverseGamma(t([2.0]), t([3.0])), t(0.5)),
            (D.Kumaraswamy(t([2.0]), t([3.0])), t(0.5)),
            (D.LogisticNormal(t([0.0, 1.0]), t([1.0, 2.0])), t([0.2, 0.3, 0.5])),
            (D.VonMises(t([0.5]), t([2.0])), t(0.1)),
            (D.Wishart(t([3.0]), M.eye(2)[None]), M.eye(2)),
            (D.LKJCholesky(2, t([1.5])), M.eye(2))]
    out = []
    for d, x in fams:
        e = d.expand((4, 1) if type(d).__name__ != "LogisticNormal" else (4,))
        name = type(d).__name__
        out.append([tuple(e.batch_shape), tuple(e.event_shape), name,
                    e.log_prob(x) if name in _SCORED else None,
                    e.mean if name in _SCORED and name in _HAS_MEAN else None])
    return out


def test_expand_matches_torch():
    got = _expanded(tl)
    if HAVE_TORCH:
        assert_same(got, _expanded(torch), rtol=1e-5, atol=1e-6)


# name -> build(M) that raises (an invalid parameter, a value outside the support, ...)
ERRORS = {
    "Binomial probs": lambda M: M.distributions.Binomial(3, M.tensor([1.5])),
    "Binomial both": lambda M: M.distributions.Binomial(3, M.tensor([0.5]), M.tensor([0.1])),
    "Binomial count": lambda M: M.distributions.Binomial(M.tensor([2.5]), M.tensor([0.5])),
    "Binomial value": lambda M: M.distributions.Binomial(3, M.tensor([0.5])).log_prob(
        M.tensor([4.0])),
    "Multinomial count": lambda M: M.distributions.Multinomial(M.tensor(3), M.ones(2)),
    "Multinomial value": lambda M: M.distributions.Multinomial(3, M.ones(2)).log_prob(
        M.tensor([2.0, 2.0])),
    "NegativeBinomial probs": lambda M: M.distributions.NegativeBinomial(
        2.0, M.tensor([1.0])),
    "ContinuousBernoulli probs": lambda M: M.distributions.ContinuousBernoulli(
        M.tensor([1.5]), validate_args=True),
    "ContinuousBernoulli value": lambda M: M.distributions.ContinuousBernoulli(
        M.tensor([0.3])).log_prob(M.tensor([1.5])),
    "FisherSnedecor df": lambda M: M.distributions.FisherSnedecor(M.tensor([-1.0]), 2.0),
    "GeneralizedPareto scale": lambda M: M.distributions.GeneralizedPareto(
        0.0, M.tensor([-1.0]), 0.1),
    "HalfCauchy value": lambda M: M.distributions.HalfCauchy(1.0).log_prob(M.tensor(-1.0)),
    "InverseGamma rate": lambda M: M.distributions.InverseGamma(M.tensor([1.0]), -1.0),
    "Kumaraswamy": lambda M: M.distributions.Kumaraswamy(M.tensor([1.0]), M.tensor([0.0])),
    "LogisticNormal value": lambda M: M.distributions.LogisticNormal(
        M.zeros(2), M.ones(2)).log_prob(M.tensor([0.5, 0.5, 0.5])),
    "VonMises concentration": lambda M: M.distributions.VonMises(M.tensor([0.0]),
                                                                 M.tensor([-1.0])),
    "Wishart df": lambda M: M.distributions.Wishart(M.tensor([0.5]), M.eye(2)[None]),
    "Wishart two": lambda M: M.distributions.Wishart(M.tensor(3.0), M.eye(2),
                                                      scale_tril=M.eye(2)),
    "Wishart dim": lambda M: M.distributions.Wishart(M.tensor(3.0), M.ones(2)),
    "Wishart value": lambda M: M.distributions.Wishart(M.tensor(3.0), M.eye(2)).log_prob(
        M.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "LKJCholesky dim": lambda M: M.distributions.LKJCholesky(1, 1.0),
    "LKJCholesky value": lambda M: M.distributions.LKJCholesky(2, 1.0).log_prob(M.eye(2) * 2),
    "Binomial entropy": lambda M: M.distributions.Binomial(
        M.tensor([2.0, 3.0]), M.tensor([0.5, 0.5])).entropy(),
    "Binomial KL": lambda M: M.distributions.kl_divergence(
        M.distributions.Binomial(2, M.tensor([0.5])), M.distributions.Binomial(
            3, M.tensor([0.5]))),
    "binomial dtype": lambda M: M.binomial(M.tensor([5, 3]), M.tensor([0.5, 0.2])),
    "binomial mixed": lambda M: M.binomial(M.tensor([5.0, 3.0]),
                                           M.tensor([0.5, 0.2], dtype=M.float64)),
    "binomial half": lambda M: M.binomial(M.tensor([5.0], dtype=M.float16),
                                          M.tensor([0.5], dtype=M.float16)),
    "binomial shapes": lambda M: M.binomial(M.tensor([5.0, 3.0]), M.tensor([0.5, 0.2, 0.1])),
    "binomial backward": lambda M: M.binomial(
        M.tensor([5.0]), M.tensor([0.5], requires_grad=True)).sum().backward(),
}


def test_errors_match_torch():
    for name, case in ERRORS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            err = error_like_torch(case)
        assert isinstance(err, (ValueError, RuntimeError, NotImplementedError,
                                AssertionError)), name


def test_wishart_low_df_warns_as_torch():
    with pytest.warns(UserWarning, match="Low df values detected"):
        tl.distributions.Wishart(tl.tensor(1.5), tl.eye(2))


PAIRS = {
    "Binomial": (lambda D, a: D.Binomial(a["n"], a["p"]),
                 lambda D, a: D.Binomial(a["n2"], a["p2"])),
    "CB-CB": (lambda D, a: D.ContinuousBernoulli(a["p"]),
              lambda D, a: D.ContinuousBernoulli(a["p2"])),
    "Beta-CB": (lambda D, a: D.Beta(a["s1"], a["s2"]), lambda D, a: D.ContinuousBernoulli(a["p"])),
    "CB-Exponential": (lambda D, a: D.ContinuousBernoulli(a["p"]),
                       lambda D, a: D.Exponential(a["s1"])),
    "CB-Normal": (lambda D, a: D.ContinuousBernoulli(a["p"]),
                  lambda D, a: D.Normal(a["l1"], a["s1"])),
    "CB-Uniform": (lambda D, a: D.ContinuousBernoulli(a["p"]),
                   lambda D, a: D.Uniform(a["l1"] - 2, a["s1"] + 1)),
    "Uniform-CB": (lambda D, a: D.Uniform(a["p"] * 0.5, a["p"] * 0.5 + 0.4),
                   lambda D, a: D.ContinuousBernoulli(a["p2"])),
    "CB-Pareto": (lambda D, a: D.ContinuousBernoulli(a["p"]), lambda D, a: D.Pareto(1.0, a["s1"])),
    "Normal-CB": (lambda D, a: D.Normal(a["l1"], a["s1"]),
                  lambda D, a: D.ContinuousBernoulli(a["p"])),
    "Gamma-CB": (lambda D, a: D.Gamma(a["s1"], a["s2"]),
                 lambda D, a: D.ContinuousBernoulli(a["p"])),
    "Poisson-Binomial": (lambda D, a: D.Poisson(a["s1"]), lambda D, a: D.Binomial(3, a["p"])),
}
KL_PARAMS = dict(n=np.array([[4.0, 5.0, 5.0], [6.0, 4.0, 7.0]]),
                 n2=np.array([[4.0, 3.0, 5.0], [6.0, 2.0, 7.0]]),
                 p=R.uniform(0.1, 0.9, (2, 3)), p2=R.uniform(0.1, 0.9, (2, 3)),
                 l1=R.normal(size=(2, 3)), s1=R.uniform(0.5, 2, (2, 3)),
                 s2=R.uniform(0.5, 2, (2, 3)))


def _kl(M):
    fw = "tl" if M is tl else "torch"
    out = {}
    for pair, (bp, bq) in PAIRS.items():
        leaves: list = []
        a = {k: convert(v.astype("float32"), fw, grad=True, leaves=leaves)
             for k, v in KL_PARAMS.items()}
        kl = M.distributions.kl_divergence(bp(M.distributions, a), bq(M.distributions, a))
        grads = M.autograd.grad(kl.sum(), leaves, allow_unused=True) if kl.requires_grad \
            else None
        out[pair] = [kl, grads and [g if g is None else g.nan_to_num(0.0) for g in grads]]
    return out


def test_kl_matches_torch():
    got = _kl(tl)
    if HAVE_TORCH:
        ref = _kl(torch)
        for pair in PAIRS:
            assert_same(got[pair], ref[pair], path=pair, rtol=1e-4, atol=1e-5)


def _families():
    D = tl.distributions
    t = tl.tensor
    return {
        "Binomial": D.Binomial(t([4.0, 10.0]), probs=t([0.3, 0.6])),
        "Multinomial": D.Multinomial(5, probs=t([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])),
        "NegativeBinomial": D.NegativeBinomial(t([2.0, 5.0]), probs=t([0.3, 0.6])),
        "ContinuousBernoulli": D.ContinuousBernoulli(t([0.2, 0.8])),
        "FisherSnedecor": D.FisherSnedecor(t([6.0, 10.0]), t([12.0, 15.0])),
        "GeneralizedPareto": D.GeneralizedPareto(t([0.0, 1.0]), t([1.0, 2.0]), t([0.1, -0.3])),
        "HalfCauchy": D.HalfCauchy(t([1.0, 2.0])),
        "InverseGamma": D.InverseGamma(t([6.0, 8.0]), t([3.0, 5.0])),
        "Kumaraswamy": D.Kumaraswamy(t([2.0, 3.0]), t([2.5, 1.5])),
        "LogisticNormal": D.LogisticNormal(t([0.0, 1.0]), t([1.0, 0.5])),
        "VonMises": D.VonMises(t([0.5, -1.0]), t([0.01, 4.0])),
        "Wishart": D.Wishart(t([4.0, 6.0]), covariance_matrix=t(SPD.astype("float32"))),
        "LKJCholesky": D.LKJCholesky(3, t([0.5, 2.0])),
    }


# families whose first two moments are compared over 2000 draws: those with samplers of
# their own (the others transform draws checked elsewhere, or have heavy tails); every
# family's draws are checked for shape and support on 4 draws (small shapes share the
# programs already compiled, draws of many shapes would each compile their own)
MOMENTS = {"Binomial", "NegativeBinomial", "ContinuousBernoulli", "VonMises"}


def test_sampling_shapes_support_and_moments():
    tl.manual_seed(5)
    for name, d in _families().items():
        x = d.rsample((2, 2)) if d.has_rsample else d.sample((2, 2))
        shape = (2, 2) + tuple(d.batch_shape) + tuple(d.event_shape)
        assert tuple(x.shape) == shape and x.dtype == tl.float32, name
        assert not x.requires_grad, name
        assert bool(d.support.check(x).all()), name
        if name not in MOMENTS:
            continue
        x = d.sample((2000,)).double().numpy()
        mean, var = d.mean.double().numpy(), d.variance.double().numpy()
        if name == "VonMises":   # the circular mean and variance
            c, s = np.cos(x).mean(0), np.sin(x).mean(0)
            assert abs(np.arctan2(s[1], c[1]) + 1.0) < 0.1
            assert np.allclose(1 - np.hypot(c, s), var, atol=0.05)
            continue
        assert np.all(np.abs(x.mean(0) - mean) <= 0.1 * np.sqrt(var) + 1e-6), name
        assert np.all(np.abs(x.var(0) - var) <= 0.25 * var + 1e-6), (name, x.var(0), var)


def test_rsample_gradients_flow_to_parameters():
    D = tl.distributions
    tl.manual_seed(0)
    # (the families whose rsample is not a transform of another family's)
    for build in [lambda a: D.ContinuousBernoulli(a.sigmoid()),
                  lambda a: D.FisherSnedecor(a + 2, a + 3),
                  lambda a: D.Kumaraswamy(a + 2, a + 3)]:
        a = tl.tensor([0.3, 0.7], requires_grad=True)
        d = build(a)
        assert d.has_rsample
        (g,) = tl.autograd.grad(d.rsample((3,)).pow(2).sum(), [a])
        assert bool(g.isfinite().all()) and bool((g != 0).any()), type(d).__name__
    for d in [D.Binomial(3, tl.tensor([0.5])), D.VonMises(0.0, 1.0),
              D.LKJCholesky(2, 1.0), D.Multinomial(2, tl.ones(2))]:
        assert not d.has_rsample
        with pytest.raises(NotImplementedError):
            d.rsample()


def test_binomial_op():
    tl.manual_seed(2)
    count = tl.tensor([[0.0, 1.0, 10.0], [1e6, 3.0, 7.0]])
    prob = tl.tensor([0.3, 1.0, 0.0])
    x = tl.binomial(count, prob)
    assert x.shape == (2, 3) and x.dtype == tl.float32 and not x.requires_grad
    x = x.numpy()
    assert x[0, 0] == 0 and x[0, 1] == 1 and x[0, 2] == 0 and x[1, 1] == 3 and x[1, 2] == 0
    assert abs(x[1, 0] - 3e5) < 5 * np.sqrt(1e6 * 0.21)
    g = tl.Generator().manual_seed(3)
    a = tl.binomial(count.double(), prob.double(), generator=g)
    b = tl.binomial(count.double(), prob.double(),
                    generator=tl.Generator().manual_seed(3))
    assert a.dtype == tl.float64 and np.array_equal(a.numpy(), b.numpy())
    y = tl.binomial(tl.tensor([5.0]), tl.tensor([0.5], requires_grad=True))
    assert y.requires_grad                 # as in PyTorch, a node without a derivative
    with pytest.raises(TypeError):
        tl.binomial(tl.tensor([5.0]), tl.tensor([0.5]), generator=3)


def _sample_all(r):
    """Draws and log densities of every added family from a positive parameter vector."""
    D = tl.distributions
    p = r / 4
    # (families with samplers of their own; the others transform draws traced elsewhere)
    fams = [D.Binomial(r.round() + 3, probs=p), D.Multinomial(3, probs=p),
            D.ContinuousBernoulli(probs=p), D.VonMises(r, r),
            D.Wishart(r + 2, tl.eye(2) * r[0])]
    out = []
    for d in fams:
        x = d.rsample() if d.has_rsample else d.sample()
        out += [x, d.log_prob(x)]
    return out


def test_every_added_family_samples_and_scores_when_compiled():
    r = tl.tensor([0.7, 1.6])
    fn = tl.compile(_sample_all)
    first = [t.numpy() for t in fn(r)]
    for x, lp in zip(first[::2], first[1::2]):
        assert np.isfinite(x).all() and np.isfinite(lp).all()
    again = [t.numpy() for t in fn(r)]
    assert not np.array_equal(again[0], first[0])   # the RNG state moved on
    assert fn.stats.traces <= 2
