"""``Module``: the base class of every layer and model, with PyTorch's data model.

Parameters, buffers and submodules are registered by ``__setattr__`` into ordered
dicts, exactly as in ``torch.nn.Module``, so names, ``state_dict`` keys, printing and
iteration order match PyTorch's. ``__call__`` runs global and per-module forward
pre-hooks, ``forward``, forward hooks, and wires full backward (pre-)hooks.

This file holds registration, attribute access, iteration, modes, moves and printing;
the hooks and ``__call__`` live in ``_hooks.py`` and ``state_dict``/``load_state_dict``
in ``_state_dict.py``, as the two base classes ``Module`` inherits from.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator

from ..._compile import _tracing
from ..._core import dtype as _dt
from ..._core.device import device as Device
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..parameter import Buffer, Parameter
from ._hooks import (  # noqa: F401  (torch.nn.modules.module has these names too)
    RemovableHandle, _global_backward_hooks, _global_backward_pre_hooks,
    _global_buffer_registration_hooks, _global_forward_hooks,
    _global_forward_hooks_always_called, _global_forward_pre_hooks,
    _global_module_registration_hooks, _global_parameter_registration_hooks, _ModuleHooks,
    _WrappedHook, register_module_buffer_registration_hook, register_module_forward_hook,
    register_module_forward_pre_hook, register_module_full_backward_hook,
    register_module_full_backward_pre_hook, register_module_module_registration_hook,
    register_module_parameter_registration_hook)
from ._state_dict import (  # noqa: F401
    _IncompatibleKeys, _LoadStateDictPreHook, _ModuleStateDict, _torch_size)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]


def _addindent(s_: str, num_spaces: int) -> str:
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              f'"forward" function')

class Module(_ModuleHooks, _ModuleStateDict):
    """Base class for all neural network modules, mirroring ``torch.nn.Module``."""

    training: bool
    _version: int = 1
    call_super_init: bool = False
    dump_patches: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        sa = super().__setattr__
        sa("training", True)
        sa("_parameters", {})
        sa("_buffers", {})
        sa("_non_persistent_buffers_set", set())
        sa("_backward_pre_hooks", OrderedDict())
        sa("_backward_hooks", OrderedDict())
        sa("_is_full_backward_hook", None)
        sa("_forward_hooks", OrderedDict())
        sa("_forward_hooks_with_kwargs", OrderedDict())
        sa("_forward_hooks_always_called", OrderedDict())
        sa("_forward_pre_hooks", OrderedDict())
        sa("_forward_pre_hooks_with_kwargs", OrderedDict())
        sa("_state_dict_hooks", OrderedDict())
        sa("_state_dict_pre_hooks", OrderedDict())
        sa("_load_state_dict_pre_hooks", OrderedDict())
        sa("_load_state_dict_post_hooks", OrderedDict())
        sa("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ------------------------------------------------------------------ registration
    # load-state-dict pre-hooks (PyTorch's API; the other hooks live in ``_hooks.py``)
    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """Mirrors ``Module._register_load_state_dict_pre_hook``: ``hook(state_dict,
        prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``, with
        the module as first argument when ``with_module``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _LoadStateDictPreHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """Mirrors ``Module.register_load_state_dict_pre_hook``: ``hook(module, state_dict,
        prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Mirrors ``Module.register_buffer``."""
        _tracing.bump_structure()
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Mirrors ``Module.register_parameter``."""
        _tracing.bump_structure()
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Mirrors ``Module.add_module``."""
        _tracing.bump_structure()
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name: str, module: "Module | None") -> None:
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """Mirrors ``Module.get_submodule``."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """Mirrors ``Module.get_parameter``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """Mirrors ``Module.get_buffer``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name: str):
        if "_parameters" in self.__dict__:
            _parameters = self.__dict__["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in self.__dict__:
            _buffers = self.__dict__["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        _tracing.bump_structure()   # Note [Finding state once]

        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                for hook in _global_module_registration_hooks.values():
                    out = hook(self, name, value)
                    if out is not None:
                        value = out
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Tensor) and getattr(value, "_is_buffer", False):
                    persistent = getattr(value, "persistent", True)
                    remove_from(self.__dict__, self._parameters, self._modules)
                    self.register_buffer(name, value, persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    for hook in _global_buffer_registration_hooks.values():
                        out = hook(self, name, value)
                        if out is not None:
                            value = out
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        _tracing.bump_structure()
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(keys)

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            members = get_members_fn(module)
            for k, v in members:
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Mirrors ``Module.parameters``."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Mirrors ``Module.named_parameters``: names like ``stage_1.0.conv_b.weight``."""
        gen = self._named_members(lambda module: module._parameters.items(), prefix=prefix,
                                  recurse=recurse, remove_duplicate=remove_duplicate)
        yield from gen

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        gen = self._named_members(lambda module: module._buffers.items(), prefix=prefix,
                                  recurse=recurse, remove_duplicate=remove_duplicate)
        yield from gen

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """Mirrors ``Module.named_modules``: depth-first, each module once."""
        if memo is None:
            memo = set()
        if id(self) not in memo:
            if remove_duplicate:
                memo.add(id(self))
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> "Module":
        """Mirrors ``Module.train``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """Mirrors ``Module.eval``: BatchNorm uses running stats, Dropout is identity."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Mirrors ``Module.zero_grad``."""
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    if p._grad.grad_fn is not None:
                        p._grad.detach_()
                    else:
                        p._grad.requires_grad_(False)
                    with no_grad():
                        p._grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        """Mirrors ``Module.apply``: ``fn`` on every submodule (children first), then self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ moves and casts
    def _apply(self, fn, recurse: bool = True) -> "Module":
        if recurse:
            for module in self.children():
                module._apply(fn)
        for _key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            if param_applied is param:
                continue
            # PyTorch swaps the data in place so references to the Parameter stay valid
            param.data = param_applied
            if param._grad is not None:
                with no_grad():
                    g = fn(param._grad)
                param._grad = g if g.dtype is param.dtype else param._grad
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Mirrors ``Module.to(device=None, dtype=None, non_blocking=False, *,
        memory_format=None)``: floating parameters and buffers take ``dtype``; everything
        moves to ``device``; with ``memory_format`` (``to(memory_format=
        torch.channels_last)``) the 4-d and 5-d parameters and buffers are also converted
        to that format, as ``Tensor.to(memory_format=...)`` does (so a 5-d one refuses
        ``channels_last``, as in PyTorch). Parameters keep their identity: their data is
        swapped in place."""
        from ..._core.tensor import _parse_to
        dev, dt, _, fmt = _parse_to(Tensor.__new__(Tensor), args, dict(kwargs))
        if "memory_format" not in kwargs or kwargs["memory_format"] is None:
            fmt = None
        if dt is not None and not (dt.is_floating_point or dt.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dt}")

        def convert(t):
            t_dt = dt if dt is not None and (t.is_floating_point() or t.is_complex()) else None
            if fmt is not None and t.dim() in (4, 5):
                return t.to(device=dev, dtype=t_dt, memory_format=fmt)
            if t_dt is not None:
                return t.to(device=dev, dtype=t_dt)
            return t.to(device=dev) if dev is not None else t
        return self._apply(convert)

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> "Module":
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> "Module":
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device=None, recurse: bool = True) -> "Module":
        from ..._ops.creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """Extra information printed inside the module's parentheses; override it."""
        return ""

    def _get_name(self) -> str:
        return self.__class__.__name__

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module)
            mod_str = _addindent(mod_str, 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def share_memory(self) -> "Module":
        return self

    def compile(self, *args, **kwargs) -> None:
        """Mirrors ``Module.compile``: replaces ``__call__`` with a compiled forward."""
        import torchlike
        self._compiled_call_impl = torchlike.compile(self._call_impl, *args, **kwargs)


def _typename(v) -> str:
    if isinstance(v, Tensor):
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                           "int64": "LongTensor"}.get(v.dtype.name, "Tensor")
    return type(v).__name__ if not isinstance(v, type) else v.__name__


_ = (_dt, Device, Buffer)
