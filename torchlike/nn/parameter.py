"""``Parameter`` and ``Buffer``: tensors that modules register as learnable state."""

from __future__ import annotations

import copy

from .._core.tensor import Tensor
from .._ops.torch_function import _DISABLED_TF

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "is_lazy"]


class Parameter(Tensor):
    """Mirrors ``torch.nn.Parameter``: a Tensor that requires grad by default and is
    registered by ``Module.__setattr__``. It shares memory with ``data`` (an alias, as in
    PyTorch). Ops on parameters return plain Tensors. Prints as ``Parameter containing:``.
    """

    __torch_function__ = _DISABLED_TF

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter data must be a Tensor, got {type(data).__name__}")
        p = data._alias(cls)  # shares data's memory, as PyTorch's Parameter does
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        if self._grad is not None:
            result._grad = copy.deepcopy(self._grad, memo)
        result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        import numpy as np
        return (_rebuild_parameter, (np.asarray(self.detach()._value), self.requires_grad,
                                     dict(self.__dict__)))


def _rebuild_parameter(arr, requires_grad, state):
    from .._ops.creation import tensor
    p = Parameter(tensor(arr), requires_grad)
    p.__dict__.update(state)
    return p


class Buffer(Tensor):
    """Mirrors ``torch.nn.Buffer``: marks a tensor to be registered as a module buffer
    when assigned as an attribute (``persistent`` controls ``state_dict`` inclusion)."""

    __torch_function__ = _DISABLED_TF

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from .._ops.creation import empty
            data = empty(0)
        b = data.detach()
        b.persistent = persistent
        b._is_buffer = True
        return b


class UninitializedParameter(Parameter):
    """Placeholder for lazy modules; materialised on first use. Not yet supported by the
    layers in torchlike, which raise a clear error if they receive one."""

    def materialize(self, shape, device=None, dtype=None):
        from .._ops.creation import empty
        self.data = empty(*shape, device=device, dtype=dtype)
        self.__class__ = Parameter


def is_lazy(param) -> bool:
    return isinstance(param, UninitializedParameter)
