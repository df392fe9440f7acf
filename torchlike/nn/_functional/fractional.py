"""``torch.nn.functional`` fractional max pooling: ``fractional_max_pool2d``/``3d`` and
their ``_with_indices`` forms.

Each function mirrors the ``torch.nn.functional`` function of the same name (signature,
errors, autograd node names). The kernels are the table ops of
``_ops/nn_fractional.py`` (Note [Fractional pooling intervals]). Given ``_random_samples``
the result equals PyTorch's (values and indices); without it the samples are drawn from
the default torchlike generator, as PyTorch draws them from its own (so the windows
repeat after ``torchlike.manual_seed``, also in compiled code, but differ from
PyTorch's).
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op
from ..._ops.random import rand

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

_Size = Union[int, Sequence[int]]
_Ratio = Union[float, Sequence[float]]


def _ntuple(v, n: int) -> tuple:
    """``torch.nn.modules.utils._ntuple``: an iterable as a tuple, a scalar repeated."""
    try:
        return tuple(v)
    except TypeError:
        return (v,) * n


def _fractional(nd: int, input: Tensor, kernel_size, output_size, output_ratio,
                random_samples) -> tuple:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an "
                         "output_ratio")
    if output_size is None:
        if nd == 2 and len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a "
                             "single Int or tuple of Ints.")
        ratio = _ntuple(output_ratio, nd)
        output_size = [int(input.size(j - nd) * ratio[j]) for j in range(nd)]
    if random_samples is None:
        n_batch = 1 if input.dim() == nd + 1 else input.size(0)
        random_samples = rand(n_batch, input.size(-nd - 1), nd, dtype=input.dtype,
                              device=input.device)
    return call_op(name, input, kernel_size, output_size, random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: _Size,
                                       output_size: Optional[_Size] = None,
                                       output_ratio: Optional[_Ratio] = None,
                                       return_indices: bool = False,
                                       _random_samples: Optional[Tensor] = None) -> tuple:
    """Mirrors ``torch.nn.functional.fractional_max_pool2d_with_indices``: (values,
    int64 indices into each H*W plane) of 2-D fractional max pooling over (N, C, H, W)
    or (C, H, W). ``output_ratio`` must be a tuple here (PyTorch calls ``len`` on it)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: _Size,
                                       output_size: Optional[_Size] = None,
                                       output_ratio: Optional[_Ratio] = None,
                                       return_indices: bool = False,
                                       _random_samples: Optional[Tensor] = None) -> tuple:
    """Mirrors ``torch.nn.functional.fractional_max_pool3d_with_indices`` over
    (N, C, T, H, W) or (C, T, H, W)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input: Tensor, kernel_size: _Size,
                          output_size: Optional[_Size] = None,
                          output_ratio: Optional[_Ratio] = None, return_indices: bool = False,
                          _random_samples: Optional[Tensor] = None):
    """Mirrors ``torch.nn.functional.fractional_max_pool2d``: max over ``kernel_size``
    windows at pseudo-random steps that map the input onto ``output_size`` (or
    ``output_ratio`` of it); (values, indices) with ``return_indices``.

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> x = torch.arange(25.).reshape(1, 1, 5, 5)
    >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=torch.zeros(1, 1, 2))
    tensor([[[[ 6.,  9.],
              [21., 24.]]]])
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input: Tensor, kernel_size: _Size,
                          output_size: Optional[_Size] = None,
                          output_ratio: Optional[_Ratio] = None, return_indices: bool = False,
                          _random_samples: Optional[Tensor] = None):
    """Mirrors ``torch.nn.functional.fractional_max_pool3d``."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]
