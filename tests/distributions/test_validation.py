"""Argument validation, reprs and construction errors, with PyTorch's exception types
and messages (``torchlike`` read as ``torch``)."""

from __future__ import annotations

import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, error_like_torch, torch, torchify_repr

# name -> build(M) with an invalid parameter
INVALID_PARAMS = {
    "Normal scale": lambda M: M.distributions.Normal(M.zeros(2), M.tensor([1.0, -1.0])),
    "Uniform low >= high": lambda M: M.distributions.Uniform(M.tensor([0.0, 2.0]),
                                                              M.tensor([1.0, 1.0])),
    "Bernoulli probs": lambda M: M.distributions.Bernoulli(probs=M.tensor([0.5, 1.5])),
    "Categorical probs": lambda M: M.distributions.Categorical(probs=M.tensor([0.5, -0.5])),
    "Exponential rate": lambda M: M.distributions.Exponential(M.tensor(0.0)),
    "Gamma concentration": lambda M: M.distributions.Gamma(-1.0, 1.0),
    "Beta": lambda M: M.distributions.Beta(M.tensor([1.0, 0.0]), 1.0),
    "Dirichlet": lambda M: M.distributions.Dirichlet(M.tensor([[1.0, -1.0]])),
    "MVN covariance": lambda M: M.distributions.MultivariateNormal(
        M.zeros(2), covariance_matrix=M.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "MVN scale_tril": lambda M: M.distributions.MultivariateNormal(
        M.zeros(2), scale_tril=M.tensor([[1.0, 0.0], [1.0, -1.0]])),
    "Laplace scale": lambda M: M.distributions.Laplace(0.0, M.tensor([-2.0])),
    "StudentT df": lambda M: M.distributions.StudentT(M.tensor([0.0, 2.0])),
    "Poisson rate": lambda M: M.distributions.Poisson(M.tensor([-1.0])),
}


@pytest.mark.parametrize("name", sorted(INVALID_PARAMS))
def test_invalid_parameter_raises_torch_value_error(name):
    err = error_like_torch(INVALID_PARAMS[name])
    assert isinstance(err, ValueError)
    assert str(err).startswith("Expected parameter ")


# name -> (build(M), value(M)) with a value outside the support
OUTSIDE_SUPPORT = {
    "Normal shape": (lambda M: M.distributions.Normal(M.zeros(3), 1.0),
                     lambda M: M.zeros(2)),
    "Uniform": (lambda M: M.distributions.Uniform(0.0, 1.0), lambda M: M.tensor([0.5, 1.5])),
    "Bernoulli": (lambda M: M.distributions.Bernoulli(0.3), lambda M: M.tensor(0.5)),
    "Categorical": (lambda M: M.distributions.Categorical(logits=M.zeros(3)),
                    lambda M: M.tensor(3)),
    "Gamma": (lambda M: M.distributions.Gamma(2.0, 1.0), lambda M: M.tensor([-1.0])),
    "Poisson": (lambda M: M.distributions.Poisson(2.0), lambda M: M.tensor([1.5])),
    "HalfNormal": (lambda M: M.distributions.HalfNormal(2.0), lambda M: M.tensor([-1.5])),
    "Dirichlet": (lambda M: M.distributions.Dirichlet(M.ones(2)),
                  lambda M: M.tensor([0.3, 0.3])),
    "event shape": (lambda M: M.distributions.MultivariateNormal(M.zeros(3), M.eye(3)),
                    lambda M: M.zeros(2)),
    "not a tensor": (lambda M: M.distributions.Normal(0.0, 1.0), lambda M: 0.5),
}


@pytest.mark.parametrize("name", sorted(OUTSIDE_SUPPORT))
def test_value_outside_support_raises_torch_value_error(name):
    build, value = OUTSIDE_SUPPORT[name]
    err = error_like_torch(lambda M: build(M).log_prob(value(M)))
    assert isinstance(err, ValueError)


def test_construction_errors():
    for case in [lambda M: M.distributions.Bernoulli(),
                 lambda M: M.distributions.Categorical(probs=M.ones(3), logits=M.ones(3)),
                 lambda M: M.distributions.Categorical(probs=M.tensor(1.0)),
                 lambda M: M.distributions.Dirichlet(M.tensor(1.0)),
                 lambda M: M.distributions.MultivariateNormal(M.zeros(2)),
                 lambda M: M.distributions.MultivariateNormal(M.zeros(2), M.eye(2),
                                                              scale_tril=M.eye(2)),
                 lambda M: M.distributions.MultivariateNormal(M.tensor(0.0), M.eye(2)),
                 lambda M: M.distributions.Independent(M.distributions.Normal(0.0, 1.0), 1),
                 lambda M: M.distributions.Normal("a", 1.0)]:
        assert isinstance(error_like_torch(case), ValueError)


def test_validation_can_be_turned_off():
    D = tl.distributions
    d = D.Normal(0.0, -1.0, validate_args=False)
    assert d.log_prob(tl.tensor(0.0)).isnan().item()
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Bernoulli(1.5).probs.item() == 1.5
        assert D.Bernoulli(0.3).log_prob(tl.tensor(0.5)).shape == ()
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Bernoulli(1.5)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


REPRS = {
    "Normal": lambda M: M.distributions.Normal(0.0, 1.0),
    "Normal batched": lambda M: M.distributions.Normal(M.zeros(2, 3), 1.0),
    "Uniform": lambda M: M.distributions.Uniform(M.tensor([0.0]), M.tensor([2.5])),
    "Bernoulli logits": lambda M: M.distributions.Bernoulli(logits=M.tensor(0.25)),
    "Categorical": lambda M: M.distributions.Categorical(probs=M.tensor([0.25, 0.75])),
    "OneHotCategorical": lambda M: M.distributions.OneHotCategorical(logits=M.zeros(3)),
    "MultivariateNormal": lambda M: M.distributions.MultivariateNormal(
        M.zeros(2), precision_matrix=M.eye(2)),
    "Gamma": lambda M: M.distributions.Gamma(M.tensor([2.0]), 3.0),
    "Beta": lambda M: M.distributions.Beta(0.5, 0.5),
    "Dirichlet": lambda M: M.distributions.Dirichlet(M.ones(4)),
    "Independent": lambda M: M.distributions.Independent(
        M.distributions.Laplace(M.zeros(2, 2), 1.0), 1),
    "StudentT": lambda M: M.distributions.StudentT(M.tensor([3.0, 4.0]), 0.0, 2.0),
    "LogNormal": lambda M: M.distributions.LogNormal(0.0, 1.0),
    "Transformed": lambda M: M.distributions.TransformedDistribution(
        M.distributions.Exponential(1.0), [M.distributions.transforms.ExpTransform()]),
    "constraints": lambda M: [M.distributions.constraints.interval(0.0, 1.0),
                              M.distributions.Normal.support,
                              M.distributions.Categorical(logits=M.zeros(2)).support,
                              M.distributions.Dirichlet.arg_constraints],
    "transforms": lambda M: [M.distributions.transforms.AffineTransform(1.0, 2.0),
                             M.distributions.transforms.SigmoidTransform().inv,
                             M.distributions.transforms.TanhTransform().codomain],
}


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr_matches_torch(name):
    got = repr(REPRS[name](tl))
    assert got.split("(")[0]
    if HAVE_TORCH:
        # torchlike prints its Size as torchlike.Size
        assert torchify_repr(got) == repr(REPRS[name](torch))


def test_batch_and_event_shapes_are_sizes():
    # as in PyTorch, whether the parameters are numbers or tensors
    D = tl.distributions
    for d in [D.Normal(0.0, 1.0), D.Bernoulli(0.5), D.Exponential(1.0), D.Gamma(1.0, 1.0),
              D.Uniform(0.0, 1.0), D.StudentT(1.0), D.Beta(1.0, 1.0), D.Geometric(0.5),
              D.Categorical(logits=tl.zeros(2)), D.Dirichlet(tl.ones(2)),
              D.MultivariateNormal(tl.zeros(2), tl.eye(2)), D.Distribution(validate_args=False)]:
        shapes = [d.batch_shape, d.event_shape]
        if type(d) is not D.Distribution:
            shapes += [d.expand((2,)).batch_shape, d.expand((2,)).event_shape]
        assert all(type(s) is tl.Size for s in shapes), type(d).__name__
