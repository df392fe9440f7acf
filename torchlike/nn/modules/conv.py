"""Convolution layers mirroring ``torch.nn.Conv1d/2d/3d`` and
``torch.nn.ConvTranspose1d/2d/3d``: parameters ``weight`` (and ``bias``), PyTorch's
argument checks, ``extra_repr`` and default initialisation (``kaiming_uniform_`` with
``a=sqrt(5)``, i.e. uniform in +-1/sqrt(fan_in), for the weight and the bias)."""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..._ops.creation import empty
from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d"]

_Size = Union[int, Sequence[int]]


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """Shared bookkeeping of the convolution layers (``torch.nn.modules.conv._ConvNd``)."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]
    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple,
                 padding, dilation: tuple, transposed: bool, output_padding: tuple,
                 groups: int, bias: bool, padding_mode: str, device=None, dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size,
                                   range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [
                p for p in reversed(self.padding) for _ in range(2)]
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups)) + tuple(kernel_size)
        self.weight = Parameter(empty(*shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: ``kaiming_uniform_(weight, a=sqrt(5))`` (bound
        1/sqrt(fan_in)) and bias uniform in +-1/sqrt(fan_in), fan_in taken from the
        weight's dim 1 times the kernel size."""
        fan_in = self.weight.shape[1] * math.prod(self.weight.shape[2:])
        with no_grad():
            # kaiming_uniform_(a=sqrt(5)): gain sqrt(2/(1+5)), bound gain*sqrt(3/fan_in)
            bound = math.sqrt(2.0 / 6.0) * math.sqrt(3.0 / fan_in) if fan_in else 0.0
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                b = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                self.bias.uniform_(-b, b)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _fn = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size,
                 stride: _Size = 1, padding: Union[str, _Size] = 0, dilation: _Size = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n),
                         _ntuple(stride, n),
                         padding if isinstance(padding, str) else _ntuple(padding, n),
                         _ntuple(dilation, n), False, _ntuple(0, n), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Optional[Tensor]) -> Tensor:
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice,
                            mode=self.padding_mode), weight, bias, self.stride,
                      _ntuple(0, self._nd), self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """Mirrors ``torch.nn.Conv1d``: input (N, C_in, L) or (C_in, L)."""

    _nd = 1


class Conv2d(_Conv):
    """Mirrors ``torch.nn.Conv2d``: input (N, C_in, H, W) or (C_in, H, W).

    >>> import torchlike.nn as nn
    >>> nn.Conv2d(3, 6, 5, bias=False)
    Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1), bias=False)
    """

    _nd = 2


class Conv3d(_Conv):
    """Mirrors ``torch.nn.Conv3d``: input (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _nd = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size,
                 stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                 groups: int = 1, bias: bool = True, dilation: _Size = 1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{self.__class__.__name__}")
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n),
                         _ntuple(stride, n), _ntuple(padding, n), _ntuple(dilation, n), True,
                         _ntuple(output_padding, n), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def _output_padding(self, input: Tensor, output_size, stride, padding, kernel_size,
                        num_spatial_dims: int, dilation=None) -> list:
        """PyTorch's ``_ConvTransposeNd._output_padding``: the output padding that makes
        the output ``output_size``."""
        if output_size is None:
            return list(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{num_non_spatial_dims + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = ((input.size(d + num_non_spatial_dims) - 1) * stride[d]
                        - 2 * padding[d]
                        + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                        + 1)
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            size, min_size, max_size = output_size[i], min_sizes[i], max_sizes[i]
            if size < min_size or size > max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        n = self._nd
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, n, self.dilation)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                  self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Mirrors ``torch.nn.ConvTranspose1d``; ``forward(input, output_size=None)``."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Mirrors ``torch.nn.ConvTranspose2d``; ``forward(input, output_size=None)``."""

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Mirrors ``torch.nn.ConvTranspose3d``; ``forward(input, output_size=None)``."""

    _nd = 3
