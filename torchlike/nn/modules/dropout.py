"""nn layers: ``Dropout``, ``Dropout1d``, ``Dropout2d``, ``Dropout3d``, ``AlphaDropout``,
``FeatureAlphaDropout``, mirroring ``torch.nn``'s classes. Active in training mode,
the identity in evaluation mode; masks come from the default torchlike generator."""

from __future__ import annotations

from ..._core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Mirrors ``torch.nn.Dropout``: zero elements with probability ``p``, scale the
    rest by ``1 / (1 - p)``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Mirrors ``torch.nn.Dropout1d``: zero whole channels of (N, C, L) / (C, L)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Mirrors ``torch.nn.Dropout2d``: zero whole channels of (N, C, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Mirrors ``torch.nn.Dropout3d``: zero whole channels of (N, C, D, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Mirrors ``torch.nn.AlphaDropout`` (for SELU networks)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Mirrors ``torch.nn.FeatureAlphaDropout``: alpha dropout of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
