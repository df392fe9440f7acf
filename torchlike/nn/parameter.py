"""``Parameter`` and ``Buffer``: tensors that modules register as learnable state."""

from __future__ import annotations

import copy

from .._core.tensor import Tensor
from .._ops.torch_function import _DISABLED_TF

__all__ = ["Parameter", "Buffer", "UninitializedTensorMixin", "UninitializedParameter",
           "UninitializedBuffer", "is_lazy"]


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


class UninitializedTensorMixin:
    """Mirrors ``torch.nn.parameter.UninitializedTensorMixin``: a tensor whose shape is not
    known yet (a lazy module's parameters and buffers before its first forward). Only
    changing its dtype or device and ``materialize`` are allowed: its ``shape`` raises
    PyTorch's RuntimeError and any op on it PyTorch's ValueError. It prints as
    ``<UninitializedParameter>``. Difference: torchlike's Python-level tensor methods that
    PyTorch routes through ``__torch_function__`` (``dim()``, ``numel()``, ``detach()``)
    answer for the empty placeholder instead of raising."""

    __slots__ = ()
    cls_to_become: type = Tensor

    # the ops PyTorch lets through (dtype and device moves, ``copy_`` between two
    # uninitialized tensors while loading a state dict), by the name torchlike gives them
    _allowed_methods = frozenset({
        "__hash__", "size", "_copy_from", "copy_", "is_complex", "is_floating_point",
        "half", "float", "double", "char", "short", "int", "long", "cuda", "cpu", "to",
        "_to_dtype", "get_device"})

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Mirrors ``UninitializedParameter.materialize``: becomes a ``cls_to_become``
        (``Parameter`` or ``Tensor``) of ``shape``, with this placeholder's device and dtype
        unless given, and uninitialized values (``torchlike.empty``)."""
        from .._ops.creation import empty
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        self.data = empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error "
            "usually happens in `load_state_dict` when trying to load an uninitialized "
            "parameter into an initialized one. Call `forward` to initialize the "
            "parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) in cls._allowed_methods:
            return super().__torch_function__(func, types, args, kwargs or {})
        raise uninitialized_use_error(cls, func)


def uninitialized_use_error(cls: type, func) -> ValueError:
    """PyTorch's error for ``func`` used on an uninitialized ``cls`` tensor."""
    return ValueError(
        f"Attempted to use an uninitialized parameter in {func}. This error happens when "
        "you are using a `LazyModule` or explicitly manipulating "
        f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call "
        "`forward` with a dummy batch to initialize the parameters before calling torch "
        "functions")


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """Mirrors ``torch.nn.UninitializedParameter``: a ``Parameter`` whose shape is not
    known yet; ``materialize(shape)`` turns it into a ``Parameter`` in place (see
    ``UninitializedTensorMixin``). ``device``/``dtype`` are those it will materialize
    with."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from .._ops.creation import empty
        p = empty(0, device=device, dtype=dtype)._alias(cls)
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """Mirrors ``torch.nn.UninitializedBuffer``: a buffer whose shape is not known yet;
    assigned to a module attribute it registers as a buffer (``persistent`` decides
    ``state_dict`` inclusion), and ``materialize(shape)`` turns it into a ``Tensor``."""

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True):
        from .._ops.creation import empty
        b = empty(0, device=device, dtype=dtype)._alias(cls)
        if requires_grad:
            b.requires_grad_(True)
        b.persistent = persistent
        b._is_buffer = True
        return b

    def __init__(self, requires_grad: bool = False, device=None, dtype=None,
                 persistent: bool = True) -> None:
        pass   # not Tensor's legacy constructor

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype, self.persistent)
        memo[id(self)] = result
        return result


def is_lazy(param) -> bool:
    """Mirrors ``torch.nn.parameter.is_lazy``: whether ``param`` is an
    ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)
