"""``torch.nn.functional.embedding`` and ``embedding_bag`` (kernels in
``_ops/nn_norm.py``).

Differences from PyTorch: ``sparse=True`` is refused (torchlike has no sparse gradient
tensors); the dense gradient is what ``sparse=False`` gives. With
``scale_grad_by_freq=True``, ``embedding_bag`` (modes sum and mean) divides each row's
gradient by its own index's count in ``input``, as PyTorch's CUDA kernel and ``embedding``
do; PyTorch's CPU kernel can divide by another index's count (see Note [embedding_bag and
scale_grad_by_freq] in ``_ops/nn_norm.py``).
"""

from __future__ import annotations

import warnings

from ... import _ops  # noqa: F401  (declares the table)
from ..._core import dtype as _dt
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op
from ..._ops.nn_norm import check_indices

__all__ = ["embedding", "embedding_bag"]


def _no_grad_embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float,
                               norm_type: float) -> None:
    """``torch.embedding_renorm_`` under no_grad: rows of ``weight`` named in ``input``
    with a ``norm_type``-norm above ``max_norm`` are rescaled in place."""
    check_indices(input, weight.size(0))
    with no_grad():
        new = call_op("_embedding_renorm", weight.detach(), input, float(max_norm),
                      float(norm_type))
        weight._set_value(new._value)


def _type_str(v) -> str:
    return "<class 'torchlike.Tensor'>" if isinstance(v, Tensor) else str(type(v))


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.embedding``: the rows of ``weight`` at ``input``.
    Row ``padding_idx`` gets no gradient; ``max_norm`` renormalises the looked-up rows
    of ``weight`` in place first; ``scale_grad_by_freq`` divides each row's gradient by
    the index's count in the batch. Out-of-range indices raise ``IndexError``."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return call_op("embedding", weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.embedding_bag``: sums, means or maxima of bags of
    embeddings. A 2-D ``input`` is a batch of equal-length bags; a 1-D one is cut at
    ``offsets``. ``per_sample_weights`` (mode ``'sum'`` only) weight each looked-up row;
    entries equal to ``padding_idx`` are left out (and out of the mean's count).
    ``scale_grad_by_freq`` divides each row's gradient by its index's count in ``input``
    (refused for ``'max'``, as PyTorch)."""
    if weight.dtype is _dt.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is "
                             f"treated is a mini-batch of fixed length sequences. However, "
                             f"found offsets of type {_type_str(offsets)}")
        from ..._ops.creation import arange
        offsets = arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype,
                         device=input.device)
        if input.size(1) == 0:
            offsets = arange(0, input.size(0), dtype=input.dtype) * 0
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if sparse:
        raise NotImplementedError("torchlike has no sparse tensors: sparse=True gradients "
                                  "are not supported; use sparse=False (dense gradients)")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = weight.size(0) + padding_idx
    return call_op("_embedding_bag", weight, input, offsets, per_sample_weights,
                   bool(scale_grad_by_freq), mode_enum, bool(include_last_offset),
                   padding_idx)
