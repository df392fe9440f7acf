"""``torchlike.autograd``: the tape-based automatic differentiation engine."""

from .._core.grad_mode import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                               set_grad_enabled)
from .engine import backward, grad
from .graph import Node

__all__ = ["backward", "grad", "Variable", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "Node"]


def Variable(data, requires_grad: bool = False, volatile: bool = False):
    """The deprecated ``torch.autograd.Variable``: returns ``data`` as a tensor (with
    ``requires_grad`` set when asked), as PyTorch has done since 0.4."""
    from .._core.tensor import Tensor
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if requires_grad:
        data.requires_grad_(True)
    return data
