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
``RelaxedBernoulli``, ``RelaxedOneHotCategorical``, ``TransformedDistribution`` with the
transforms of ``torchlike.distributions.transforms``, ``biject_to`` and ``transform_to``,
``kl_divergence`` and ``register_kl``. PyTorch's other families (Binomial, Multinomial,
NegativeBinomial, ContinuousBernoulli, Kumaraswamy, VonMises, Wishart, LKJCholesky, ...)
are not provided yet.

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
from .categorical import Categorical
from .cauchy import Cauchy
from .constraint_registry import biject_to, transform_to
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .geometric import Geometric
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import _add_kl_info, kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
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
from .weibull import Weibull

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Chi2",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Geometric",
    "Gumbel",
    "HalfNormal",
    "Independent",
    "Laplace",
    "LogNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "MultivariateNormal",
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
    "Weibull",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)
