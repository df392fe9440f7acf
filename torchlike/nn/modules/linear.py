"""nn layers: ``Identity``, ``Linear`` and ``Bilinear``, mirroring ``torch.nn``'s classes
with PyTorch's default initialisation (``reset_parameters``) and ``extra_repr`` text."""

from __future__ import annotations

import math
from typing import Any

from ..._compile import _tracing
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op
from ..._ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Mirrors ``torch.nn.Identity``: returns its input (arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """Mirrors ``torch.nn.Linear``: ``y = x W^T + b`` with ``weight`` of shape
    (out_features, in_features). Initialisation as PyTorch: ``kaiming_uniform_(a=
    sqrt(5))`` for the weight (U(±1/sqrt(in_features))) and U(±1/sqrt(fan_in)) for the
    bias."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        if _tracing._current.ctx is not None and self._is_full_backward_hook is not False:
            # Note [Linear in a compiled step]: inside a compiled trace no graph is shown,
            # so the fused kernel replaces F.linear's addmm(bias, input, weight.t()): its
            # weight gradient comes out of the product in the weight's layout, where the
            # transpose of PyTorch's graph, between an autocast region's casts, costs XLA
            # a transposed copy of every weight gradient per step. Modules with old-style
            # backward hooks (which see that graph) keep it.
            return call_op("linear", input, self.weight, self.bias)
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """Mirrors ``torch.nn.Bilinear``: ``y = x1^T A x2 + b``; weight and bias drawn from
    U(±1/sqrt(in1_features))."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features),
                                      **factory_kwargs))
        if bias:
            self.bias = Parameter(empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got "
                             f"(in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
