"""nn layer: ``LinearCrossEntropyLoss``, mirroring ``torch.nn.LinearCrossEntropyLoss`` (a
``Linear`` projection to logits fused with ``CrossEntropyLoss``)."""

from __future__ import annotations

import math

from ..._core.tensor import Tensor
from .._functional.linear_cross_entropy import LinearCrossEntropyOptions, linear_cross_entropy
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """Mirrors ``torch.nn.LinearCrossEntropyLoss``: ``self.linear`` (a ``Linear`` of
    ``in_features`` to ``num_classes * prod(out_features)``, stored flat as PyTorch stores
    it) reshaped to ``(num_classes, *out_features, in_features)`` and passed to
    ``F.linear_cross_entropy``; ``options`` selects its chunked computation (Note
    [linear_cross_entropy's options]).

    >>> import torchlike as torch
    >>> loss = LinearCrossEntropyLoss(5, 10, out_features=(4, 3))
    >>> loss(torch.randn(2, 5), torch.randint(0, 10, (2, 4, 3))).shape
    torchlike.Size([])
    """

    num_classes: int
    out_features: tuple[int, ...]
    ignore_index: int | None
    label_smoothing: float
    options: LinearCrossEntropyOptions | None

    def __init__(self, in_features: int, num_classes: int, *,
                 out_features: tuple[int, ...] = (), bias: bool = False, device=None,
                 dtype=None, reduction: str = "mean", weight: Tensor | None = None,
                 ignore_index: int | None = None, label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        linear_weight = self.linear.weight.reshape(
            (self.num_classes, *self.out_features, self.linear.in_features))
        linear_bias = (self.linear.bias.reshape((self.num_classes, *self.out_features))
                       if self.linear.bias is not None else None)
        return linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias,
                                    weight=self.weight, reduction=self.reduction,
                                    ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing,
                                    options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
