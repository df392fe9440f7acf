"""Argument helpers shared by the nn kernel families (``nn_conv.py``, ``nn_pool.py``):
PyTorch's ``_ntuple`` and dtype names in its error messages. They declare no ops."""

from __future__ import annotations

__all__: list = []


def _nt(v, n: int) -> tuple:
    """PyTorch's ``_ntuple``: an int or a 1-element list is repeated ``n`` times."""
    if isinstance(v, (tuple, list)):
        v = tuple(v)
        return v * n if len(v) == 1 else v
    return (v,) * n


def _title(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)
