"""``parameters_to_vector`` / ``vector_to_parameters``, mirroring ``torch.nn.utils``."""

from __future__ import annotations

from typing import Iterable

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Mirrors ``torch.nn.utils.parameters_to_vector``: one flat, differentiable vector."""
    import torchlike
    return torchlike.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Mirrors ``torch.nn.utils.vector_to_parameters``: copies slices of ``vec`` into the
    parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        with no_grad():
            param.data.copy_(vec[pointer:pointer + num_param].view_as(param))
        pointer += num_param
