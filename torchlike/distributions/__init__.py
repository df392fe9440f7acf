r"""Probability distributions and their KL divergences; mirrors ``torch.distributions``.

Every distribution is written in torchlike tensor operations, so its ``log_prob``,
``entropy``, moments and ``rsample`` are differentiable on the autograd tape, run on
the device of their parameters and trace into ``torchlike.compile`` programs. Samples
come from torchlike's generators (``torchlike.manual_seed`` makes them reproducible);
their values differ from PyTorch's, whose generator is different.

Provided: ``Distribution``, ``ExponentialFamily``, ``Normal``, ``Uniform``,
``Bernoulli``, ``Categorical``, ``OneHotCategorical``,
``OneHotCategoricalStraightThrough``, ``Exponential``, ``Laplace``, ``Independent``,
``MultivariateNormal``, ``Beta``, ``Gamma``, ``Dirichlet``, ``Chi2``, ``StudentT``,
``LogNormal``, ``HalfNormal``, ``Gumbel``, ``Cauchy``, ``Poisson``, ``Geometric``,
``Pareto``, ``Weibull``, ``LowRankMultivariateNormal``, ``MixtureSameFamily``,
``RelaxedBernoulli``, ``RelaxedOneHotCategorical``, ``Binomial``, ``Multinomial``,
``NegativeBinomial``, ``ContinuousBernoulli``, ``FisherSnedecor``, ``GeneralizedPareto``,
``HalfCauchy``, ``InverseGamma``, ``Kumaraswamy``, ``LogisticNormal``, ``VonMises``,
``Wishart``, ``LKJCholesky``, ``TransformedDistribution`` with the transforms of
``torchlike.distributions.transforms``, ``biject_to`` and ``transform_to``,
``kl_divergence`` and ``register_kl``: every family of ``torch.distributions``.

Example::

    >>> import torchlike as torch
    >>> from torchlike.distributions import Normal, kl_divergence
    >>> p = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
    >>> p.log_prob(torch.tensor([0.5]))
    tensor([-1.0439])
"""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .geometric import Geometric
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import _add_kl_info, kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)
