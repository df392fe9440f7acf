"""Mirrors ``torch.utils``: data loading (``torchlike.utils.data``), DLPack exchange
(``torchlike.utils.dlpack``) and activation checkpointing (``torchlike.utils.checkpoint``)."""

from . import checkpoint as checkpoint
from . import data as data
from . import dlpack as dlpack

__all__ = ["checkpoint", "data", "dlpack"]
