"""kl_divergence and register_kl against PyTorch: values and gradients for the
registered pairs, infinite divergences, and the error for an unregistered pair."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, convert, error_like_torch, torch

R = np.random.default_rng(2)
_A = R.normal(size=(2, 3, 3))
COV = _A @ _A.transpose(0, 2, 1) + 3 * np.eye(3)


def _pos(*shape):
    return R.uniform(0.5, 2.0, shape)


# name -> (build p, build q, params): builders take (D, params dict of tensors)
PAIRS = {
    "Normal-Normal": (lambda D, a: D.Normal(a["l1"], a["s1"]),
                      lambda D, a: D.Normal(a["l2"], a["s2"]),
                      dict(l1=R.normal(size=(2, 3)), s1=_pos(2, 3), l2=R.normal(size=(3,)),
                           s2=_pos(3))),
    "Bernoulli-Bernoulli": (lambda D, a: D.Bernoulli(probs=a["p"]),
                            lambda D, a: D.Bernoulli(logits=a["q"]),
                            dict(p=R.uniform(0.1, 0.9, (2, 3)), q=R.normal(size=(2, 3)))),
    "Categorical-Categorical": (lambda D, a: D.Categorical(probs=a["p"]),
                                lambda D, a: D.Categorical(logits=a["q"]),
                                dict(p=_pos(2, 4), q=R.normal(size=(2, 4)))),
    "OneHotCategorical-OneHotCategorical": (
        lambda D, a: D.OneHotCategorical(probs=a["p"]),
        lambda D, a: D.OneHotCategorical(probs=a["q"]), dict(p=_pos(2, 4), q=_pos(2, 4))),
    "MVN-MVN": (lambda D, a: D.MultivariateNormal(a["l1"], covariance_matrix=a["c1"]),
                lambda D, a: D.MultivariateNormal(a["l2"], scale_tril=a["t2"]),
                dict(l1=R.normal(size=(2, 3)), c1=COV, l2=R.normal(size=(3,)),
                     t2=np.linalg.cholesky(COV[1]))),
    "Independent-Independent": (
        lambda D, a: D.Independent(D.Normal(a["l1"], a["s1"]), 1),
        lambda D, a: D.Independent(D.Normal(a["l2"], a["s2"]), 1),
        dict(l1=R.normal(size=(2, 3)), s1=_pos(2, 3), l2=R.normal(size=(2, 3)),
             s2=_pos(2, 3))),
    "Uniform-Normal": (lambda D, a: D.Uniform(a["lo"], a["hi"]),
                       lambda D, a: D.Normal(a["l"], a["s"]),
                       dict(lo=R.uniform(-2, -1, (2, 3)), hi=R.uniform(0, 1, (2, 3)),
                            l=R.normal(size=(2, 3)), s=_pos(2, 3))),
    "Uniform-Uniform": (lambda D, a: D.Uniform(a["lo"], a["hi"]),
                        lambda D, a: D.Uniform(a["lo2"], a["hi2"]),
                        dict(lo=np.array([-1.0, -0.5]), hi=np.array([1.0, 0.5]),
                             lo2=np.array([-2.0, 0.0]), hi2=np.array([2.0, 1.0]))),
    "Beta-Beta": (lambda D, a: D.Beta(a["a1"], a["b1"]), lambda D, a: D.Beta(a["a2"], a["b2"]),
                  dict(a1=_pos(2, 3), b1=_pos(2, 3), a2=_pos(3), b2=_pos(3))),
    "Gamma-Gamma": (lambda D, a: D.Gamma(a["c1"], a["r1"]),
                    lambda D, a: D.Gamma(a["c2"], a["r2"]),
                    dict(c1=_pos(2, 3), r1=_pos(2, 3), c2=_pos(2, 3), r2=_pos(3))),
    "Dirichlet-Dirichlet": (lambda D, a: D.Dirichlet(a["c1"]), lambda D, a: D.Dirichlet(a["c2"]),
                            dict(c1=_pos(2, 3), c2=_pos(3))),
    "Normal-Laplace": (lambda D, a: D.Normal(a["l1"], a["s1"]),
                       lambda D, a: D.Laplace(a["l2"], a["s2"]),
                       dict(l1=R.normal(size=(2, 3)), s1=_pos(2, 3), l2=R.normal(size=(2, 3)),
                            s2=_pos(2, 3))),
    "Normal-Uniform (infinite)": (lambda D, a: D.Normal(a["l"], a["s"]),
                                  lambda D, a: D.Uniform(a["lo"], a["hi"]),
                                  dict(l=R.normal(size=(2, 3)), s=_pos(2, 3),
                                       lo=-_pos(2, 3), hi=_pos(2, 3))),
}


def _kl(M, pair, dtype):
    build_p, build_q, params = PAIRS[pair]
    fw = "tl" if M is tl else "torch"
    leaves: list = []
    a = {k: convert(v.astype(dtype), fw, grad=True, leaves=leaves) for k, v in params.items()}
    kl = M.distributions.kl_divergence(build_p(M.distributions, a),
                                       build_q(M.distributions, a))
    out = [kl]
    if kl.requires_grad:
        out.append(list(M.autograd.grad(kl.sum(), leaves, allow_unused=True)))
    return out


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_kl_matches_torch(pair):
    got = _kl(tl, pair, "float32")
    assert str(got[0].dtype) == "torchlike.float32"
    kl = got[0].detach().numpy()
    if pair == "Uniform-Uniform":   # q's support misses part of p's in the second
        assert np.isfinite(kl[0]) and np.isinf(kl[1])
    else:
        assert np.isinf(kl).all() if "infinite" in pair else np.isfinite(kl).all()
    if HAVE_TORCH:
        tol = dict(rtol=1e-4, atol=1e-5) if pair == "MVN-MVN" else dict(rtol=1e-5, atol=1e-5)
        assert_same(got, _kl(torch, pair, "float32"), **tol)


def test_unregistered_pair_raises_torch_error():
    def case(M):
        D = M.distributions
        D.kl_divergence(D.Categorical(probs=M.ones(3) / 3), D.Normal(0.0, 1.0))

    err = error_like_torch(case)
    assert isinstance(err, NotImplementedError)
    assert str(err) == ("No KL(p || q) is implemented for p type Categorical and q type "
                        "Normal")


def test_register_kl_dispatches_to_most_specific():
    D = tl.distributions

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl_my(p, q):
        return tl.zeros(p.batch_shape)

    p, q = MyNormal(tl.zeros(2), tl.ones(2)), D.Normal(tl.ones(2), tl.ones(2))
    assert D.kl_divergence(p, q).tolist() == [0.0, 0.0]
    assert D.kl_divergence(q, p).tolist() == [0.5, 0.5]   # Normal-Normal still applies
