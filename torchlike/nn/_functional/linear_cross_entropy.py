"""``torch.nn.functional.linear_cross_entropy`` and ``torch.nn.LinearCrossEntropyOptions``.

``linear_cross_entropy(input, W, target)`` is ``cross_entropy(linear(input, W), target)``
with a K-dimensional weight ``(C, d_1, ..., d_K, in_features)`` giving K-dimensional
logits. Without ``options`` it reuses ``linear`` and ``cross_entropy`` as PyTorch's
reference path does, so the values, gradients and ``grad_fn`` names are theirs; with
``options`` the batch is processed in chunks by ``_ops/nn_linear_cross_entropy.py``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Literal

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]

# PyTorch's per-(device type, dtype) picks of (acc_policy, chunking_method) for "auto", and
# the pick for the pairs it does not list.
_AUTO_DEFAULTS = {
    ("cuda", "bfloat16"): ("compact", "aspect_ratio:2"),
    ("cuda", "float16"): ("compact", "aspect_ratio:2"),
    ("cpu", "bfloat16"): ("accurate", "aspect_ratio"),
    ("cpu", "float16"): ("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = ("compact", "aspect_ratio:2")


# Note [linear_cross_entropy's options]
# PyTorch's ``options`` selects a chunked kernel that never holds the whole
# (N, num_classes) logits, which is what makes the op worth having for a large
# vocabulary. torchlike takes ``options`` with PyTorch's validation (the dataclass
# checks, the chunk size that ``batch_chunk_size`` and ``chunking_method`` resolve to and
# the ValueError when they disagree, the warning when a configuration falls back to the
# reference path) and runs the chunks as one table op,
# ``_linear_cross_entropy_rows`` (Note [Chunked linear cross entropy] in
# _ops/nn_linear_cross_entropy.py), whose per-row losses are summed or averaged here as
# ``cross_entropy`` reduces them. ``acc_policy``/``acc_dtype`` pick between PyTorch's
# CUDA kernels' buffers; here half-precision inputs always accumulate in float32, and
# ``allow_retain_graph`` changes nothing, since the backward is an ordinary
# differentiable function. Inputs the chunked kernel does not take as they are (an
# ill-formed target or class weight, mixed dtypes, autocast) go through the reference
# path, so that they get its errors and casts.


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Mirrors ``torch.nn.LinearCrossEntropyOptions``: the configuration of the chunked
    ``linear_cross_entropy`` (fields, defaults and validation as PyTorch's). torchlike
    validates and resolves it as PyTorch does; the chunk size is what torchlike's chunked
    kernel uses (Note [linear_cross_entropy's options]).

    >>> LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: _dt.dtype | None = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        supported = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically.")

    @staticmethod
    def _chunk_size(method: str, num_batches: int, in_features: int,
                    num_classes: int) -> int:
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        inc_factor = -(-num_classes // in_features)
        target = -(-num_batches // inc_factor)
        return min((1 << (target - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, dtype,
                device_type: str | None = None) -> LinearCrossEntropyOptions:
        """Resolve ``"auto"`` and ``None`` against a call as PyTorch's ``_adjust``
        does, raising its ValueError when the two chunk sizes disagree."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None
        if acc_policy == "auto" or chunking_method == "auto":
            ap, cm = (_AUTO_DEFAULTS.get((device_type, dtype.name), _AUTO_FALLBACK)
                      if device_type is not None else _AUTO_FALLBACK)
            acc_policy = ap if acc_policy == "auto" else acc_policy
            chunking_method = cm if chunking_method == "auto" else chunking_method
        size = (num_batches if self.batch_chunk_size is None
                else min(self.batch_chunk_size, num_batches))
        if chunking_method is not None:
            size = self._chunk_size(chunking_method, num_batches, in_features, num_classes)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{chunking_method}') give different chunk sizes "
                    f"({self.batch_chunk_size} vs {size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            low = dtype in (_dt.float16, _dt.bfloat16)
            acc_dtype = (_dt.float32 if self.acc_policy == "auto" and low
                         and device_type == "cpu" else dtype)
        return dataclasses.replace(self, acc_policy=acc_policy,
                                   chunking_method=chunking_method,
                                   batch_chunk_size=max(1, size), acc_dtype=acc_dtype)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0,
                         options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.linear_cross_entropy``:
    ``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` with the
    logits reshaped to ``(*batch, C, d_1, ..., d_K)`` for a weight of shape
    ``(C, d_1, ..., d_K, in_features)``. ``ignore_index=None`` means -100 for class
    indices and is required for class probabilities. ``options`` is validated as
    PyTorch's and selects the chunked computation (Note [linear_cross_entropy's
    options]).

    >>> import torchlike as torch
    >>> x, w = torch.ones(2, 3), torch.zeros(4, 3)
    >>> linear_cross_entropy(x, w, torch.tensor([0, 1]))
    tensor(1.3863)
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError("expected linear_bias shape "
                           f"{(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)}"
            f" requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        chunk = _check_options(options, input, target, linear_bias, num_classes,
                               out_features, reduction, label_smoothing)
        if chunk is not None and _chunkable(input, linear_weight, target, linear_bias,
                                            weight, num_classes):
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction,
                            ignore_index, chunk)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


def _check_options(options, input, target, linear_bias, num_classes, out_features,
                   reduction, label_smoothing) -> int | None:
    """PyTorch's checks of ``options``: the warning when the chunked path cannot take the
    call (None), else the resolved chunk size."""
    chunked = (reduction in {"mean", "sum", "none"} and label_smoothing == 0.0
               and target.dtype == _dt.int64 and not out_features)
    if not chunked:
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs "
            "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
            " == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={tuple(out_features)}"
            f", tracing=False, linear_bias.shape={bias_shape}.", stacklevel=3)
        return None
    num_batches = input.shape[0] if input.dim() == 2 else 1
    return options._adjust(num_batches, input.shape[-1], num_classes, input.dtype,
                           input.device.type).batch_chunk_size


def _chunkable(input, linear_weight, target, linear_bias, weight, num_classes) -> bool:
    """Whether the chunked kernel takes the call as it is (else the reference path gives
    PyTorch's errors and autocast's casts)."""
    from ..._core.autocast_state import is_autocast_enabled
    dtypes = {t.dtype for t in (input, linear_weight, linear_bias, weight) if t is not None}
    return (len(dtypes) == 1 and input.dtype.is_floating_point
            and tuple(target.shape) == tuple(input.shape[:-1])
            and (weight is None or tuple(weight.shape) == (num_classes,))
            and not is_autocast_enabled(input.device.type))


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
             chunk):
    from ..._ops.dispatch import call_op
    from ..._ops.nn_common import host, is_traced
    num_classes = linear_weight.shape[0]
    if not is_traced(target) and target.numel():
        t = host(target).reshape(-1)
        bad = t[(t != ignore_index) & ((t < 0) | (t >= num_classes))]
        if bad.size:
            raise RuntimeError(f"index {bad[0]} is out of bounds for dimension 1 with size "
                               f"{num_classes}")
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    t = target if batched else target.unsqueeze(0)
    rows = call_op("_linear_cross_entropy_rows", x, linear_weight, t, linear_bias, weight,
                   ignore_index, chunk)
    if reduction == "none":
        return rows if batched else rows.squeeze(0)
    total = rows.sum()
    if reduction == "sum":
        return total
    valid = t != ignore_index
    if weight is None:
        return total / valid.sum().to(total.dtype)
    safe = t.masked_fill(~valid, 0)
    return total / (weight[safe] * valid).sum()
