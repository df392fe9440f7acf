"""``torch.nn.ChannelShuffle``."""

from __future__ import annotations

from ..._core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Mirrors ``torch.nn.ChannelShuffle``: split the channels of (N, C, *) into
    ``groups`` groups and interleave them (``F.channel_shuffle``).

    >>> import torchlike as torch, torchlike.nn as nn
    >>> nn.ChannelShuffle(2)(torch.arange(4.).reshape(1, 4, 1)).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
