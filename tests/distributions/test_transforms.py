"""Transforms against PyTorch: forward, inverse, log|det J| and their gradients, and
event dimensions, for the elementwise and the structured transforms."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, convert, torch

R = np.random.default_rng(4)

# name -> (build(T, M), x); x is in the domain, and forward(x) in the codomain
CASES = {
    "Affine-Exp": (lambda T, M: T.ComposeTransform([T.AffineTransform(0.5, 2.0),
                                                    T.ExpTransform()]), R.normal(size=(2, 3))),
    "Sigmoid": (lambda T, M: T.SigmoidTransform(), R.normal(size=(2, 3))),
    "Tanh": (lambda T, M: T.TanhTransform(), R.normal(size=(2, 3)) * 0.5),
    "Softplus": (lambda T, M: T.SoftplusTransform(), R.normal(size=(2, 3))),
    "Power": (lambda T, M: T.PowerTransform(M.tensor(1.5)), R.uniform(0.5, 2, (2, 3))),
    "StickBreaking": (lambda T, M: T.StickBreakingTransform(), R.normal(size=(2, 3))),
    "LowerCholesky": (lambda T, M: T.LowerCholeskyTransform(),
                      np.tril(R.normal(size=(2, 3, 3)))),
    "CorrCholesky": (lambda T, M: T.CorrCholeskyTransform(), R.normal(size=(2, 3)) * 0.5),
    "Cat": (lambda T, M: T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1,
                                        lengths=[1, 2]), R.normal(size=(2, 3))),
    "Stack": (lambda T, M: T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=0),
              R.normal(size=(2, 3)) * 0.5),
    "CumulativeDistribution": (lambda T, M: T.CumulativeDistributionTransform(
        M.distributions.Normal(0.0, 1.0)), R.normal(size=(2, 3))),
    "Independent": (lambda T, M: T.IndependentTransform(T.ExpTransform(), 1),
                    R.normal(size=(2, 3))),
}


def _run(M, case):
    fw = "tl" if M is tl else "torch"
    build, x = CASES[case]
    x = convert(x.astype("float32"), fw, grad=True)
    t = build(M.distributions.transforms, M)
    y = t(x)
    out = [y, t.inv(y), t.domain.event_dim, t.codomain.event_dim, repr(t.inv).split("(")[0]]
    try:
        ladj = t.log_abs_det_jacobian(x, y)
        out.append(ladj)
        out.append(M.autograd.grad((y.sum() + ladj.sum()), x)[0])
    except NotImplementedError:
        out.append(M.autograd.grad(y.sum(), x)[0])
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_transform_matches_torch(case):
    got = _run(tl, case)
    np.testing.assert_allclose(got[1].detach().numpy(), CASES[case][1].astype("float32"),
                               rtol=1e-3, atol=1e-4)   # inv(forward(x)) == x
    if HAVE_TORCH:
        assert_same(got, _run(torch, case), rtol=1e-5, atol=1e-5)


X = np.random.default_rng(6).normal(size=(2, 3)).astype("float32")
A = np.tril(np.random.default_rng(7).normal(size=(3, 3))).astype("float32") + 2 * np.eye(3,
                                                                                   dtype="f4")


def test_softmax_transform_and_positive_definite():
    def run(M):
        T = M.distributions.transforms
        x, a = M.tensor(X), M.tensor(A)
        s, p = T.SoftmaxTransform(), T.PositiveDefiniteTransform()
        return [s(x), s.inv(s(x)), p(a), p.inv(p(a))]

    got = run(tl)
    if HAVE_TORCH:
        assert_same(got, run(torch), rtol=1e-5, atol=1e-5)


def test_biject_to_and_transform_to_match_torch():
    def run(M):
        D = M.distributions
        c = D.constraints
        x = M.tensor(X)
        out = []
        for con in [c.positive, c.unit_interval, c.interval(-1.0, 2.0), c.simplex,
                    c.greater_than(1.5), c.real_vector]:
            for reg in (D.biject_to, D.transform_to):
                t = reg(con)
                y = t(x)
                out += [repr(t).split("(")[0], y, bool(con.check(y).all())]
        return out

    got = run(tl)
    assert all(v is True for v in got[2::3])
    if HAVE_TORCH:
        assert_same(got, run(torch), rtol=1e-5, atol=1e-5)
