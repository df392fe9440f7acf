"""Normal, Uniform, Bernoulli, Categorical, OneHotCategorical, Exponential, Laplace:
log_prob, cdf, icdf, entropy and moments, with their gradients, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, convert, torch

from ._common import TOLS, evaluate

R = np.random.default_rng(0)
U = R.uniform(0.05, 0.95, (2, 3))   # values in (0, 1) for icdf

# name -> (build, params, value): params broadcast to batch (2, 3) or (3,)
CASES = {
    "Normal": (lambda D, loc, scale: D.Normal(loc, scale),
               dict(loc=R.normal(size=(2, 3)), scale=R.uniform(0.5, 2, (3,))),
               R.normal(size=(2, 3))),
    "Uniform": (lambda D, low, high: D.Uniform(low, high),
                dict(low=R.uniform(-2, -1, (2, 3)), high=R.uniform(1, 2, (2, 3))),
                R.uniform(-0.9, 0.9, (2, 3))),
    "Exponential": (lambda D, rate: D.Exponential(rate),
                    dict(rate=R.uniform(0.5, 2, (2, 3))), R.uniform(0.1, 3, (2, 3))),
    "Laplace": (lambda D, loc, scale: D.Laplace(loc, scale),
                dict(loc=R.normal(size=(2, 3)), scale=R.uniform(0.5, 2, (2, 3))),
                R.normal(size=(2, 3))),
    "Bernoulli-probs": (lambda D, probs: D.Bernoulli(probs=probs),
                        dict(probs=np.array([[0.2, 0.5, 0.9], [0.3, 0.7, 0.5]])),
                        np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])),
    "Bernoulli-logits": (lambda D, logits: D.Bernoulli(logits=logits),
                         dict(logits=R.normal(size=(2, 3))),
                         np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])),
    "Categorical-probs": (lambda D, probs: D.Categorical(probs=probs),
                          dict(probs=R.uniform(0.1, 1, (2, 4))), np.array([0, 3])),
    "Categorical-logits": (lambda D, logits: D.Categorical(logits=logits),
                           dict(logits=R.normal(size=(2, 4))), np.array([[1, 2], [3, 0]])),
    "OneHotCategorical": (lambda D, probs: D.OneHotCategorical(probs=probs),
                          dict(probs=R.uniform(0.1, 1, (2, 4))),
                          np.eye(4)[[1, 3]]),
}


# float32 for every family, float64 for a few (each dtype compiles its own executables)
PARAMS = [(c, "float32") for c in sorted(CASES)] + [
    (c, "float64") for c in ("Normal", "Categorical-probs")]


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_quantities_and_gradients_match_torch(case, dtype):
    build, params, value = CASES[case]
    params = {k: v.astype(dtype) for k, v in params.items()}
    if value.dtype.kind == "f":
        value = value.astype(dtype)
    unit = U.astype(dtype)
    got = evaluate(tl, build, params, value, unit)
    # every quantity either computes or raises NotImplementedError, in float dtype
    for k, v in got.items():
        if isinstance(v, tl.Tensor) and k not in ("mode",) and v.is_floating_point():
            assert str(v.dtype) == f"torchlike.{dtype}", (k, v.dtype)
    if HAVE_TORCH:
        ref = evaluate(torch, build, params, value, unit)
        assert sorted(got) == sorted(ref)
        for k in ref:
            assert_same(got[k], ref[k], path=k, **TOLS[dtype])


def test_categorical_enumerate_support_and_params():
    def run(M):
        D = M.distributions
        c = D.Categorical(logits=M.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]))
        b = D.Bernoulli(probs=M.tensor([0.2, 0.6]))
        o = D.OneHotCategorical(probs=M.tensor([0.2, 0.3, 0.5]))
        return [c.enumerate_support(), c.enumerate_support(expand=False), c.probs, c.logits,
                b.enumerate_support(), b.logits, o.enumerate_support(), o.probs,
                tuple(c.param_shape), c.has_enumerate_support, o.has_enumerate_support]

    got = run(tl)
    assert tuple(got[0].shape) == (3, 2) and str(got[0].dtype) == "torchlike.int64"
    if HAVE_TORCH:
        assert_same(got, run(torch))


def test_exponential_family_entropy_by_autograd_matches_closed_form():
    # ExponentialFamily.entropy differentiates the log normalizer with autograd.grad
    loc = tl.tensor([0.5, -1.0], dtype=tl.float64, requires_grad=True)
    scale = tl.tensor([1.5, 0.3], dtype=tl.float64, requires_grad=True)
    n = tl.distributions.Normal(loc, scale)
    h = tl.distributions.ExponentialFamily.entropy(n)
    np.testing.assert_allclose(h.detach().numpy(), n.entropy().detach().numpy(), rtol=1e-12)


EXPAND = ["Normal", "Bernoulli-logits", "Categorical-probs", "OneHotCategorical", "Laplace"]


@pytest.mark.parametrize("case", EXPAND)
def test_expand_matches_torch(case):
    build, params, value = CASES[case]
    params = {k: v.astype("float32") for k, v in params.items()}
    value = value.astype("float32") if value.dtype.kind == "f" else value

    def run(M):
        fw = "tl" if M is tl else "torch"
        d = build(M.distributions, **{k: convert(v, fw) for k, v in params.items()})
        e = d.expand((4,) + tuple(d.batch_shape))
        e2 = e.expand(M.Size([4]) + d.batch_shape)
        return [tuple(e.batch_shape), tuple(e.event_shape), e.log_prob(convert(value, fw)),
                e.mean, type(e).__name__, e._validate_args, tuple(e2.batch_shape)]

    got = run(tl)
    assert got[0][0] == 4 and tuple(got[2].shape) == got[0]
    if HAVE_TORCH:
        assert_same(got, run(torch))
