"""Tensor printing (placeholder, replaced by the port of PyTorch's formatter)."""

from __future__ import annotations

import numpy as np

__all__ = ["tensor_repr", "set_printoptions"]


def set_printoptions(**kw):
    pass


def tensor_repr(t) -> str:
    a = np.asarray(t._value)
    return f"tensor({a.tolist()})"
