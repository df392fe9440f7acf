"""Student's t distribution; mirrors ``torch.distributions.studentT``."""

from __future__ import annotations

import math

import torchlike
from torchlike import Tensor, inf, nan
from torchlike.distributions import Chi2, constraints
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all
from .utils import _size


__all__ = ["StudentT"]


class StudentT(Distribution):
    r"""
    Creates a Student's t-distribution parameterized by degree of
    freedom :attr:`df`, mean :attr:`loc` and scale :attr:`scale`.

    Example::
        >>> m = StudentT(torchlike.tensor([2.0]))
        >>> m.sample()  # Student's t-distributed with degrees of freedom=2
        tensor([ 0.1046])

    Args:
        df (float or Tensor): degrees of freedom
        loc (float or Tensor): mean of the distribution
        scale (float or Tensor): scale of the distribution
    """
    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        return self.loc.masked_fill(self.df <= 1, nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        # where() instead of PyTorch's masked writes; the safe denominator keeps the
        # gradient of the entries with df <= 2 at zero, as the masked writes do
        finite = self.df > 2
        denom = torchlike.where(finite, self.df - 2, torchlike.ones_like(self.df))
        m = torchlike.where(finite, self.scale.pow(2) * self.df / denom,
                            torchlike.full_like(self.df, inf))
        return m.masked_fill(self.df <= 1, nan)

    def __init__(
        self,
        df: Tensor | float,
        loc: Tensor | float = 0.0,
        scale: Tensor | float = 1.0,
        validate_args: bool | None = None,
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: _size = ()) -> Tensor:
        #   X ~ Normal(0, 1)
        #   Z ~ Chi2(df)
        #   Y = X / sqrt(Z / df) ~ StudentT(df)
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * torchlike.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + torchlike.lgamma(0.5 * self.df)
            - torchlike.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * torchlike.log1p(y**2.0 / self.df) - Z

    def entropy(self):
        lbeta = (
            torchlike.lgamma(0.5 * self.df)
            + math.lgamma(0.5)
            - torchlike.lgamma(0.5 * (self.df + 1))
        )
        return (
            self.scale.log()
            + 0.5
            * (self.df + 1)
            * (torchlike.digamma(0.5 * (self.df + 1)) - torchlike.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
