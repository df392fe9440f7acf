"""``torchlike.nn.utils.parametrizations.weight_norm``, as PyTorch's."""

from __future__ import annotations

from ..._core.tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm"]


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    return v * (g / _norm_except_dim(v, 2, dim))


def _norm_except_dim(v: Tensor, pow: float, dim: int) -> Tensor:
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, dim=dims, keepdim=True) if dims else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Mirrors ``torch.nn.utils.parametrizations.weight_norm``: ``name`` becomes
    ``g * v / ||v||`` with ``parametrizations.<name>.original0`` (g) and ``original1``
    (v) as parameters."""
    _weight_norm_module = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_module, unsafe=True)
    return module
