"""``torchlike.functional``: mirrors ``torch.functional``, the module PyTorch defines
``einsum``, ``stft``, ``meshgrid``, ``norm``, ``unique`` and a few more in; code that
imports them from there (``from torch.functional import einsum``) finds torchlike's.
``F`` is ``torchlike.nn.functional``, as in PyTorch."""

from __future__ import annotations

from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes,
               broadcast_tensors, cartesian_prod, cdist, chain_matmul, einsum, istft, lu,
               meshgrid, norm, pca_lowrank, split, stft, svd_lowrank, tensordot, unique,
               unique_consecutive, unravel_index)
from .nn import functional as F

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "broadcast_tensors", "cartesian_prod", "cdist", "chain_matmul", "einsum",
           "istft", "lu", "meshgrid", "norm", "pca_lowrank", "split", "stft",
           "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index", "F"]
