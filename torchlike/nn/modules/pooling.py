"""Pooling layers mirroring ``torch.nn.MaxPool*``, ``MaxUnpool*``, ``AvgPool*``,
``AdaptiveAvgPool*``, ``AdaptiveMaxPool*``, ``FractionalMaxPool2d``/``3d`` and
``LPPool*`` (arguments stored and printed exactly as PyTorch's)."""

from __future__ import annotations

from typing import Optional, Sequence, Union

from ..._core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d"]

_Size = Union[int, Sequence[int]]


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 dilation: _Size = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    """Mirrors ``torch.nn.MaxPool1d``; input (N, C, L) or (C, L)."""

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Mirrors ``torch.nn.MaxPool2d``; input (N, C, H, W) or (C, H, W).

    >>> import torchlike.nn as nn
    >>> nn.MaxPool2d(2, 2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Mirrors ``torch.nn.MaxPool3d``; input (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input: Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None,
                 padding: _Size = 0) -> None:
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor,
                output_size: Optional[Sequence[int]] = None) -> Tensor:
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._nd - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """Mirrors ``torch.nn.MaxUnpool1d``: ``forward(input, indices, output_size=None)``."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Mirrors ``torch.nn.MaxUnpool2d``: ``forward(input, indices, output_size=None)``."""

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Mirrors ``torch.nn.MaxUnpool3d``: ``forward(input, indices, output_size=None)``."""

    _nd = 3


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mirrors ``torch.nn.AvgPool1d`` (stores 1-tuples, as PyTorch)."""

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """Mirrors ``torch.nn.AvgPool2d``."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]
    _fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Optional[int] = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return self._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                        self.count_include_pad, self.divisor_override)


class AvgPool3d(AvgPool2d):
    """Mirrors ``torch.nn.AvgPool3d``."""

    _fn = staticmethod(F.avg_pool3d)


class _AdaptivePoolNd(Module):
    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveAvgPoolNd(_AdaptivePoolNd):
    __constants__ = ["output_size"]

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mirrors ``torch.nn.AdaptiveAvgPool1d``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mirrors ``torch.nn.AdaptiveAvgPool2d`` (``None`` keeps a dimension's size)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mirrors ``torch.nn.AdaptiveAvgPool3d``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Mirrors ``torch.nn.AdaptiveMaxPool1d``."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Mirrors ``torch.nn.AdaptiveMaxPool2d``."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Mirrors ``torch.nn.AdaptiveMaxPool3d``."""

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _nd = 2

    def __init__(self, kernel_size: _Size, output_size: Optional[_Size] = None,
                 output_ratio=None, return_indices: bool = False,
                 _random_samples: Optional[Tensor] = None) -> None:
        super().__init__()
        n = self._nd
        name = type(self).__name__
        if n == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < self.output_ratio[j] < 1 for j in range(n)):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Mirrors ``torch.nn.FractionalMaxPool2d(kernel_size, output_size=None,
    output_ratio=None, return_indices=False, _random_samples=None)``; input (N, C, H, W)
    or (C, H, W). ``_random_samples`` (N, C, 2), when given, is a buffer (in the state
    dict, as in PyTorch) and fixes the pooling windows; otherwise each call draws new
    ones from the default torchlike generator.

    >>> import torchlike as torch, torchlike.nn as nn
    >>> nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(torch.randn(1, 2, 10, 8)).shape
    torchlike.Size([1, 2, 5, 4])
    """

    _nd = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Mirrors ``torch.nn.FractionalMaxPool3d``; input (N, C, T, H, W) or (C, T, H, W),
    ``_random_samples`` (N, C, 3)."""

    _nd = 3


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type: float, kernel_size: _Size, stride: Optional[_Size] = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    """Mirrors ``torch.nn.LPPool1d``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Mirrors ``torch.nn.LPPool2d``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Mirrors ``torch.nn.LPPool3d``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)
