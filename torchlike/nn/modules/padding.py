"""Padding layers mirroring ``torch.nn.{Zero,Constant,Reflection,Replication,Circular}
Pad{1,2,3}d``: ``padding`` is an int or a tuple of (left, right[, top, bottom[, front,
back]]) from the last dimension, stored as a tuple as PyTorch does."""

from __future__ import annotations

from typing import Sequence, Union

from ..._core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]

_Pad = Union[int, Sequence[int]]


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ModePadNd(Module):
    __constants__ = ["padding"]
    _mode = "reflect"
    _n = 2

    def __init__(self, padding: _Pad) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(Module):
    __constants__ = ["padding", "value"]
    _n = 2

    def __init__(self, padding: _Pad, value: float) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._n)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


def _mode_pad(name: str, mode: str, n: int, torch_name: str):
    cls = type(name, (_ModePadNd,), {"_mode": mode, "_n": n, "__module__": __name__,
                                     "__doc__": f"Mirrors ``torch.nn.{torch_name}``."})
    return cls


ReflectionPad1d = _mode_pad("ReflectionPad1d", "reflect", 2, "ReflectionPad1d")
ReflectionPad2d = _mode_pad("ReflectionPad2d", "reflect", 4, "ReflectionPad2d")
ReflectionPad3d = _mode_pad("ReflectionPad3d", "reflect", 6, "ReflectionPad3d")
ReplicationPad1d = _mode_pad("ReplicationPad1d", "replicate", 2, "ReplicationPad1d")
ReplicationPad2d = _mode_pad("ReplicationPad2d", "replicate", 4, "ReplicationPad2d")
ReplicationPad3d = _mode_pad("ReplicationPad3d", "replicate", 6, "ReplicationPad3d")
CircularPad1d = _mode_pad("CircularPad1d", "circular", 2, "CircularPad1d")
CircularPad2d = _mode_pad("CircularPad2d", "circular", 4, "CircularPad2d")
CircularPad3d = _mode_pad("CircularPad3d", "circular", 6, "CircularPad3d")


class ConstantPad1d(_ConstantPadNd):
    """Mirrors ``torch.nn.ConstantPad1d``."""

    _n = 2


class ConstantPad2d(_ConstantPadNd):
    """Mirrors ``torch.nn.ConstantPad2d``."""

    _n = 4


class ConstantPad3d(_ConstantPadNd):
    """Mirrors ``torch.nn.ConstantPad3d``."""

    _n = 6


class ZeroPad1d(ConstantPad1d):
    """Mirrors ``torch.nn.ZeroPad1d``."""

    def __init__(self, padding: _Pad) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Mirrors ``torch.nn.ZeroPad2d``."""

    def __init__(self, padding: _Pad) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Mirrors ``torch.nn.ZeroPad3d``."""

    def __init__(self, padding: _Pad) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
