"""``torchlike.nn.utils.parametrize``: parametrizations of module tensors, as
``torch.nn.utils.parametrize``.

# Note [Parametrized modules]
# As in PyTorch, registering a parametrization swaps the module's class for a generated
# subclass whose ``tensor_name`` is a property computing ``parametrization(original)``;
# the original tensor moves to ``module.parametrizations[tensor_name].original`` so
# ``state_dict`` keys are PyTorch's (``parametrizations.weight.original``).
# Pickling such a module raises PyTorch's error; ``copy.deepcopy`` works (the generated
# class gets PyTorch's default ``__deepcopy__``), and the copy shares the generated class.

Difference from PyTorch: inside ``cached()`` the cache is keyed by the module the
property is read from, so a deep copy computes its own tensor; PyTorch keys it by the
module the parametrization was registered on and hands a copy the original's tensor.
"""

from __future__ import annotations

import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized",
           "cached", "ParametrizationList", "type_before_parametrizations"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Mirrors ``parametrize.cached``: each parametrized tensor is computed once inside."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, holding ``original`` (or ``original0``,
    ``original1``… when the first parametrization has ``right_inverse`` returning a
    sequence)."""

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, (list, tuple)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if isinstance(original, Parameter):
                with no_grad():
                    original.data = new.detach() if new is not original else original.data
                self.register_parameter("original", original)
            else:
                self.register_buffer("original", new)
        else:
            for i, t in enumerate(new):
                if isinstance(original, Parameter):
                    self.register_parameter(f"original{i}",
                                            Parameter(t.detach(), original.requires_grad))
                else:
                    self.register_buffer(f"original{i}", t)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError("A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype is not original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 f"the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"dtype: {original_dtype}\nparametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 f"the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"shape: {original_shape}\nparametrized shape: {z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Assigning to the parametrized tensor writes ``right_inverse(value)`` into
        the originals."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


_SERIALIZATION_ERROR = (
    "Serialization of parametrized modules is only supported through state_dict(). See:\n"
    "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
    "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _default_deepcopy(self: Module, memo: dict) -> Module:
    """Mirrors PyTorch's ``default_deepcopy`` for parametrized classes: the standard
    ``copy.deepcopy`` procedure (new instance of the same class, deep-copied ``__dict__``
    and slots), which never calls the ``__getstate__`` that forbids pickling."""
    obj = memo.get(id(self), None)
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):  # type: ignore[attr-defined]
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _inject_new_class(module: Module) -> None:
    """Swap ``module``'s class for a ``Parametrized<Class>`` subclass, as PyTorch does:
    pickling raises (only ``state_dict()`` serializes a parametrized module), while
    ``copy.deepcopy`` still works through ``__deepcopy__``."""
    cls = module.__class__

    def getstate(self):
        raise RuntimeError(_SERIALIZATION_ERROR)

    dct: dict = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _default_deepcopy
    param_cls = type(f"Parametrized{cls.__name__}", (cls,), dct)
    module.__class__ = param_cls


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Mirrors ``parametrize.is_parametrized``."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def register_parametrization(module: Module, tensor_name: str, parametrization: Module,
                             *, unsafe: bool = False) -> Module:
    """Mirrors ``parametrize.register_parametrization``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Mirrors ``parametrize.remove_parametrizations``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            with no_grad():
                if type(original) is Tensor or not isinstance(original, Parameter):
                    original = t.detach()
                else:
                    original.data = t.detach()
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a "
                             "tensor that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad)
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module
