"""``torch.nn.utils.memory_format``: convert the weights of a model's convolutions to a
memory format (Note [Memory formats over immutable arrays] in _core/memory_formats.py)."""

from __future__ import annotations

from typing import TypeVar

from ..._core.memory_formats import memory_format as _memory_format
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound=Module)


def _convert(module: _M, memory_format: _memory_format, kinds: tuple) -> _M:
    if isinstance(module, kinds):
        weight_data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight_data.resize_(weight_data.size(),
                                                 memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: _M, memory_format: _memory_format) -> _M:
    """Mirrors ``torch.nn.utils.convert_conv2d_weight_memory_format``: the weights of
    every ``Conv2d``/``ConvTranspose2d`` in ``module`` (itself included) take the strides
    of ``memory_format`` (e.g. ``channels_last``), values unchanged; returns ``module``.
    Strides are bookkeeping in torchlike (XLA picks the physical layout), so this changes
    what ``stride()`` and ``is_contiguous`` report, not the speed.

    >>> import torchlike as torch
    >>> m = convert_conv2d_weight_memory_format(torch.nn.Conv2d(3, 4, 3), torch.channels_last)
    >>> m.weight.stride()
    (27, 1, 9, 3)
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: _M, memory_format: _memory_format) -> _M:
    """Mirrors ``torch.nn.utils.convert_conv3d_weight_memory_format``: as
    ``convert_conv2d_weight_memory_format`` for ``Conv3d``/``ConvTranspose3d``
    (e.g. ``channels_last_3d``)."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
