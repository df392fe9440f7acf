"""Mirrors ``torch.utils``: data loading (``torchlike.utils.data``)."""

from . import data as data

__all__ = ["data"]
