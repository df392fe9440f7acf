"""Mirrors ``torch.utils``: data loading (``torchlike.utils.data``), DLPack exchange
(``torchlike.utils.dlpack``), activation checkpointing (``torchlike.utils.checkpoint``)
and hook handles (``torchlike.utils.hooks``)."""

from . import checkpoint as checkpoint
from . import data as data
from . import dlpack as dlpack
from . import hooks as hooks

__all__ = ["checkpoint", "data", "dlpack", "hooks"]
