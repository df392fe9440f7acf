
"""The Gamma distribution; mirrors ``torch.distributions.gamma``.

# Note [Gamma draws]
# PyTorch draws with ``torch._standard_gamma`` and differentiates a draw x with respect
# to the concentration a by implicit reparameterization: dx/da = -(dF/da) / (dF/dx) at x,
# F the Gamma(a, 1) CDF (``_standard_gamma_grad``). Here the draw is
# ``jax.random.gamma`` with a key taken from a torchlike generator (so
# ``torchlike.manual_seed`` makes it reproducible and a compiled step carries the state),
# and the derivative is ``jax.lax.random_gamma_grad``, the same implicit derivative JAX
# uses for its own gamma draws. As in PyTorch, the backward itself is not differentiable.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import torchlike
from torchlike import Tensor
from torchlike._ops.creation import _target_device
from torchlike._ops.random import _draw
from torchlike.autograd.function import Function, once_differentiable

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _Number, _size, broadcast_all

__all__ = ["Gamma"]


# Note [Gamma draws, padded]
# ``jax.random.gamma`` and ``random_gamma_grad`` are large programs (rejection sampling,
# series expansions) that take seconds to compile, once per shape. Eager draws and
# gradients therefore run on the flattened values padded to a power of two (at least
# 64), so that a handful of executables serve every shape; the padding lanes draw with
# concentration 1 and are dropped. Inside a compiled step the padding is traced too, and
# the draws are the eager ones.
def _bucket(n: int) -> int:
    return max(64, 1 << max(n - 1, 0).bit_length())


def _padded(fn, *arrays):
    """``fn`` over ``arrays`` (one shape) flattened and padded to a bucket size."""
    shape = arrays[0].shape
    n = int(np.prod(shape, dtype=np.int64))
    flat = [jnp.pad(jnp.ravel(a), (0, _bucket(n) - n), constant_values=1) for a in arrays]
    return fn(*flat)[:n].reshape(shape)


@jax.jit
def _gamma_draw(key, counter, concentration):
    k = jax.random.fold_in(jax.random.wrap_key_data(key, impl="threefry2x32"), counter)
    x = jax.random.gamma(k, concentration, concentration.shape, concentration.dtype)
    # as PyTorch's Gamma.rsample: a draw that underflows to 0 becomes the smallest normal
    return jnp.maximum(x, jnp.finfo(concentration.dtype).tiny)


_gamma_grad = jax.jit(jax.lax.random_gamma_grad)


class _StandardGammaGrad(Function):
    """Identity on a Gamma(a, 1) draw x, whose backward is dx/da (Note [Gamma draws])."""

    @staticmethod
    def forward(ctx, concentration: Tensor, x: Tensor) -> Tensor:
        ctx.save_for_backward(concentration, x)
        return x.clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: Tensor):
        concentration, x = ctx.saved_tensors
        dx = _padded(_gamma_grad, concentration._value, x._value)
        return grad * Tensor._wrap(dx), None


def _standard_gamma(concentration: Tensor, generator=None) -> Tensor:
    """Gamma(concentration, 1) draws of ``concentration``'s shape and dtype, on its
    device, differentiable with respect to ``concentration`` (mirrors
    ``torch._standard_gamma``; see Note [Gamma draws])."""
    device = _target_device(concentration.device)
    arr = _padded(lambda c: _draw(_gamma_draw, generator, device, c),
                  concentration.detach()._value)
    x = Tensor._wrap(arr)
    if concentration.requires_grad and torchlike.is_grad_enabled():
        return _StandardGammaGrad.apply(concentration, x)
    return x


class Gamma(ExponentialFamily):
    r"""
    Creates a Gamma distribution parameterized by shape :attr:`concentration` and :attr:`rate`.

    Example::

        >>> m = Gamma(torchlike.tensor([1.0]), torchlike.tensor([1.0]))
        >>> m.sample()  # Gamma distributed with concentration=1 and rate=1
        tensor([ 0.1046])

    Args:
        concentration (float or Tensor): shape parameter of the distribution
            (often referred to as alpha)
        rate (float or Tensor): rate parameter of the distribution
            (often referred to as beta), rate = 1 / scale
    """
    arg_constraints = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def __init__(
        self,
        concentration: Tensor | float,
        rate: Tensor | float,
        validate_args: bool | None = None,
    ) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, _Number) and isinstance(rate, _Number):
            batch_shape = torchlike.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = torchlike.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: _size = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # the draw is already at least finfo.tiny (Note [Gamma draws])
        return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value):
        value = torchlike.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            torchlike.xlogy(self.concentration, self.rate)
            + torchlike.xlogy(self.concentration - 1, value)
            - self.rate * value
            - torchlike.lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - torchlike.log(self.rate)
            + torchlike.lgamma(self.concentration)
            + (1.0 - self.concentration) * torchlike.digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.concentration - 1, -self.rate)
    def _log_normalizer(self, x, y):
        return torchlike.lgamma(x + 1) + (x + 1) * torchlike.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlike.special.gammainc(self.concentration, self.rate * value)
