"""``torch.nn.Fold`` (col2im) and ``torch.nn.Unfold`` (im2col)."""

from __future__ import annotations

from typing import Sequence, Union

from ..._core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]

_Size = Union[int, Sequence[int]]


class Fold(Module):
    """Mirrors ``torch.nn.Fold``: combines sliding blocks (N, C*kH*kW, L) into
    (N, C, *output_size), summing overlaps."""

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size: _Size, kernel_size: _Size, dilation: _Size = 1,
                 padding: _Size = 0, stride: _Size = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return ("output_size={output_size}, kernel_size={kernel_size}, "
                "dilation={dilation}, padding={padding}, stride={stride}".format(**self.__dict__))


class Unfold(Module):
    """Mirrors ``torch.nn.Unfold``: extracts sliding blocks (N, C, H, W) ->
    (N, C*kH*kW, L)."""

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size: _Size, dilation: _Size = 1, padding: _Size = 0,
                 stride: _Size = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, dilation={dilation}, padding={padding},"
                " stride={stride}".format(**self.__dict__))
