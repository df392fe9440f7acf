"""``torch.nn.functional.linear`` and ``bilinear`` (kernels in ``_ops/nn_norm.py``)."""

from __future__ import annotations

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.autocast_policy import autocast_function
from ..._ops.dispatch import call_op

__all__ = ["linear", "bilinear"]


@autocast_function("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.linear``: ``input @ weight.T + bias``.

    One fused kernel whose autograd node has the name of the last node of PyTorch's
    composite (``AddmmBackward0`` for 2-D input with bias, ``ViewBackward0`` for n-D,
    ``MmBackward0``/``UnsafeViewBackward0`` without bias); its ``next_functions`` lead
    directly to ``input``, ``weight`` and ``bias``. Autocast casts the arguments here, as
    PyTorch's autocast casts ``aten::linear``'s before its decomposition: the weight
    itself is cast (and cached), then transposed."""
    if bias is not None and isinstance(input, Tensor) and input.dim() == 2 and \
            isinstance(weight, Tensor) and weight.dim() == 2 and \
            input._shape[1] == weight._shape[1] and bias.dim() == 1:
        # PyTorch's own decomposition for matrices: addmm(bias, input, weight.t()). The
        # graph (AddmmBackward0 over bias, input and TBackward0) is then PyTorch's, which
        # the deprecated module backward hooks expose.
        return call_op("addmm", bias, input, call_op("t", weight))
    return call_op("linear", input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.bilinear``: ``y_o = x1^T W_o x2 + b_o``."""
    return call_op("bilinear", input1, input2, weight, bias)
