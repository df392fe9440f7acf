"""Mirrors ``torch.utils``: data loading (``torchlike.utils.data``) and DLPack exchange
(``torchlike.utils.dlpack``)."""

from . import data as data
from . import dlpack as dlpack

__all__ = ["data", "dlpack"]
