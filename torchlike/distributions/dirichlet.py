"""The Dirichlet distribution; mirrors ``torch.distributions.dirichlet``.

Difference from PyTorch: ``rsample`` normalizes Gamma draws and differentiates through
them (Note [Gamma draws] in ``gamma.py``); PyTorch uses its own Dirichlet sampler and
``_dirichlet_grad``. Both are unbiased reparameterized gradients; their per-draw values
differ."""

from __future__ import annotations

import torchlike
from torchlike import Tensor
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import _standard_gamma
from .utils import _size


__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    r"""
    Creates a Dirichlet distribution parameterized by concentration :attr:`concentration`.

    Example::

        >>> m = Dirichlet(torchlike.tensor([0.5, 0.5]))
        >>> m.sample()  # Dirichlet distributed with concentration [0.5, 0.5]
        tensor([ 0.1046,  0.8954])

    Args:
        concentration (Tensor): concentration parameter of the distribution
            (often referred to as alpha)
    """
    arg_constraints = {
        "concentration": constraints.independent(constraints.positive, 1)
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(
        self,
        concentration: Tensor,
        validate_args: bool | None = None,
    ) -> None:
        if concentration.dim() < 1:
            raise ValueError(
                "`concentration` parameter must be at least one-dimensional."
            )
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(
            batch_shape, self.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: _size = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        # normalized Gamma draws; the gradient flows through the Gamma draws'
        # implicit derivative and the normalization (Note [Gamma draws] in gamma.py)
        x = _standard_gamma(concentration)
        return x / x.sum(-1, True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            torchlike.xlogy(self.concentration - 1.0, value).sum(-1)
            + torchlike.lgamma(self.concentration.sum(-1))
            - torchlike.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1, keepdim=True)
        one_hot = torchlike.nn.functional.one_hot(
            mode.argmax(dim=-1), concentrationm1.shape[-1]
        ).to(mode)
        return torchlike.where(mask, one_hot, mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return (
            self.concentration
            * (con0 - self.concentration)
            / (con0.pow(2) * (con0 + 1))
        )

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (
            torchlike.lgamma(self.concentration).sum(-1)
            - torchlike.lgamma(a0)
            - (k - a0) * torchlike.digamma(a0)
            - ((self.concentration - 1.0) * torchlike.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)
    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torchlike.lgamma(x.sum(-1))
