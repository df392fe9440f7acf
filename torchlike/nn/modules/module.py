"""``Module``: the base class of every layer and model, with PyTorch's data model.

Parameters, buffers and submodules are registered by ``__setattr__`` into ordered
dicts, exactly as in ``torch.nn.Module``, so names, ``state_dict`` keys, printing and
iteration order match PyTorch's. ``__call__`` runs global and per-module forward
pre-hooks, ``forward``, forward hooks, and wires full backward (pre-)hooks.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from ..._compile import _tracing
from ..._core import dtype as _dt
from ..._core.device import device as Device
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..parameter import Buffer, Parameter

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           "register_module_buffer_registration_hook",
           "register_module_parameter_registration_hook",
           "register_module_module_registration_hook"]


class RemovableHandle:
    """Mirrors ``torch.utils.hooks.RemovableHandle``: removes a hook from the dict(s) it
    was registered in."""

    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)
        if extra_dict is None:
            extra = ()
        elif isinstance(extra_dict, (list, tuple)):
            extra = extra_dict
        else:
            extra = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]
        for ref in self.extra_dict_ref:
            e = ref()
            if e is not None and self.id in e:
                del e[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# global hooks (torch.nn.modules.module.register_module_*)
_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_buffer_registration_hooks: dict = OrderedDict()
_global_parameter_registration_hooks: dict = OrderedDict()
_global_module_registration_hooks: dict = OrderedDict()


def _register_global(d, hook):
    h = RemovableHandle(d)
    d[h.id] = hook
    return h


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Mirrors ``torch.nn.modules.module.register_module_forward_pre_hook``."""
    return _register_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call: bool = False) -> RemovableHandle:
    """Mirrors ``torch.nn.modules.module.register_module_forward_hook``."""
    h = RemovableHandle(_global_forward_hooks,
                        extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[h.id] = hook
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Mirrors ``torch.nn.modules.module.register_module_full_backward_hook``."""
    return _register_global(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    return _register_global(_global_backward_pre_hooks, hook)


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    return _register_global(_global_buffer_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    return _register_global(_global_parameter_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    return _register_global(_global_module_registration_hooks, hook)


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


class Module:
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
        for key, param in self._parameters.items():
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
        """Mirrors ``Module.to(device=None, dtype=None, non_blocking=False)``: floating
        parameters and buffers take ``dtype``; everything moves to ``device``."""
        from ..._core.tensor import _parse_to
        dev, dt, _ = _parse_to(Tensor.__new__(Tensor), args, dict(kwargs))
        if dt is not None and not (dt.is_floating_point or dt.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dt}")

        def convert(t):
            if dt is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(device=dev, dtype=dt)
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

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Mirrors ``Module.register_forward_pre_hook``: ``hook(module, args)`` (or with
        kwargs ``hook(module, args, kwargs)``) may return replacement inputs."""
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Mirrors ``Module.register_forward_hook``: ``hook(module, args, output)`` may
        return a replacement output."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Mirrors ``Module.register_full_backward_pre_hook``: ``hook(module, grad_output)``
        runs before the module's input gradients are computed; may return a new
        grad_output."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Mirrors ``Module.register_full_backward_hook``: ``hook(module, grad_input,
        grad_output)`` may return a new grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """The deprecated ``Module.register_backward_hook``: ``hook(module, grad_input,
        grad_output)`` sees the gradients of the last autograd node of ``forward`` (for
        ``Linear``: bias, input and ``weight.t()`` of ``AddmmBackward0``), as in PyTorch,
        which warns when ``forward`` holds more than one node."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ call
    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks
                or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)

        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = list(_global_backward_pre_hooks.values()) + \
                list(self._backward_pre_hooks.values())
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

        called_always_called_hooks = set()
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if isinstance(result, tuple) and len(result) == 2:
                            args, kwargs = result
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {result}.")
                else:
                    result = hook(self, args)
                    if result is not None:
                        if not isinstance(result, tuple):
                            result = (result,)
                        args = result

        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            from ...autograd._module_hooks import BackwardHook
            bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = forward_call(*args, **kwargs)
        if _global_forward_hooks or self._forward_hooks:
            for hook_id, hook in (*_global_forward_hooks.items(),
                                  *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or \
                        hook_id in _global_forward_hooks_always_called:
                    called_always_called_hooks.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result

        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)

        if non_full_backward_hooks:
            # The deprecated hooks see the gradients of the *last* node of forward, as in
            # PyTorch (e.g. (bias, input, weight.t()) of Linear's AddmmBackward0).
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
        return result

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_backward_hooks or self._is_full_backward_hook is True:
            full += list(_global_backward_hooks.values())
        if self._is_full_backward_hook is True:
            full += list(self._backward_hooks.values())
        elif self._is_full_backward_hook is False:
            non_full += list(self._backward_hooks.values())
        return full, non_full

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
        def flat(x):
            if isinstance(x, Tensor):
                return [x]
            if isinstance(x, (tuple, list)):
                return [t for y in x for t in flat(y)]
            if isinstance(x, dict):
                return [t for y in x.values() for t in flat(y)]
            return []
        outs = [t for t in flat(result) if t.grad_fn is not None]
        ins = [t for t in flat(inputs) if t.requires_grad]
        fine = len({id(t.grad_fn) for t in outs}) <= 1
        if fine:
            next_fns = {id(n) for n, _ in grad_fn.next_functions if n is not None}
            for t in ins:
                node = t.grad_fn
                if node is None:
                    from ...autograd.graph import accumulate_node
                    node = accumulate_node(t)
                if id(node) not in next_fns:
                    fine = False
                    break
            if fine and len(next_fns) > len(ins):
                # other inputs of the last node come from nodes created inside forward
                fine = all(n is None or type(n).__name__ == "AccumulateGrad"
                           for n, _ in grad_fn.next_functions)
        if not fine:
            warnings.warn("Using a non-full backward hook when the forward contains multiple "
                          "autograd Nodes is deprecated and will be removed in future "
                          "versions. This hook will be missing some grad_input. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=1)

    __call__: Callable[..., Any] = _call_impl

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state_key = prefix + "_extra_state"
        if getattr(self.__class__, "get_extra_state", Module.get_extra_state) is not \
                Module.get_extra_state:
            destination[extra_state_key] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Mirrors ``Module.state_dict``: an ordered dict of parameters and persistent
        buffers (detached unless ``keep_vars``) with PyTorch's key names and order."""
        if args:
            if destination is None and len(args) >= 1:
                destination = args[0]
            if len(args) >= 2:
                prefix = args[1]
            if len(args) >= 3:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def get_extra_state(self) -> Any:
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called.")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called.")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign: bool = False):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_name_params = itertools.chain(self._parameters.items(),
                                            persistent_buffers.items())
        local_state = {k: v for k, v in local_name_params if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(f'While copying the parameter named "{key}", expected '
                                      "torch.Tensor or Tensor-like object from checkpoint but "
                                      f"received {type(input_param)}")
                    continue
                if input_param.shape != param.shape:
                    error_msgs.append(
                        f"size mismatch for {key}: copying a param with shape "
                        f"{_torch_size(input_param.shape)} from checkpoint, the shape in current "
                        f"model is {_torch_size(param.shape)}.")
                    continue
                try:
                    with no_grad():
                        if assign:
                            if isinstance(param, Parameter):
                                new = Parameter(input_param, requires_grad=param.requires_grad) \
                                    if not isinstance(input_param, Parameter) else input_param
                                setattr(self, name, new)
                            else:
                                setattr(self, name, input_param)
                        else:
                            param.copy_(input_param)
                except Exception as ex:  # noqa: BLE001 - reported as PyTorch does
                    error_msgs.append(
                        f'While copying the parameter named "{key}", whose dimensions in the '
                        f"model are {param.shape} and whose dimensions in the checkpoint are "
                        f"{input_param.shape}, an exception occurred : {ex.args}.")
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + "_extra_state"
        if getattr(self.__class__, "set_extra_state", Module.set_extra_state) is not \
                Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Mirrors ``Module.load_state_dict``: copies matching entries in place (or assigns
        them with ``assign=True``), returns ``(missing_keys, unexpected_keys)``, and with
        ``strict=True`` raises one RuntimeError listing every missing, unexpected and
        mis-shaped key, PyTorch's text; nothing is changed when it raises on shapes."""
        if not isinstance(state_dict, (dict,)) and not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        # Validate everything first so a failing load changes nothing.
        shape_errors: list = []
        own = self.state_dict(keep_vars=True)
        for k, v in own.items():
            if k in state_dict and isinstance(state_dict[k], Tensor) and \
                    state_dict[k].shape != v.shape:
                shape_errors.append(k)
        if shape_errors:
            self._collect_errors(state_dict, missing_keys, unexpected_keys, error_msgs,
                                 strict)
        else:
            def load(module, local_state_dict, prefix=""):
                local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
                module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                             missing_keys, unexpected_keys, error_msgs, assign)
                for name, child in module._modules.items():
                    if child is not None:
                        child_prefix = prefix + name + "."
                        child_state_dict = {k: v for k, v in local_state_dict.items()
                                            if k.startswith(child_prefix)}
                        load(child, child_state_dict, child_prefix)
                incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
                for hook in module._load_state_dict_post_hooks.values():
                    hook(module, incompatible)
            load(self, state_dict)
        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if len(missing_keys) > 0:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def _collect_errors(self, state_dict, missing_keys, unexpected_keys, error_msgs, strict):
        """The errors a load would report, without writing anything."""
        own = self.state_dict(keep_vars=True)
        for k, v in own.items():
            if k in state_dict:
                sv = state_dict[k]
                if isinstance(sv, Tensor) and sv.shape != v.shape:
                    error_msgs.append(
                        f"size mismatch for {k}: copying a param with shape "
                        f"{_torch_size(sv.shape)} from checkpoint, the shape in current "
                        f"model is {_torch_size(v.shape)}.")
            elif strict:
                missing_keys.append(k)
        if strict:
            for k in state_dict:
                if k not in own and not k.endswith("_extra_state"):
                    unexpected_keys.append(k)

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


class _WrappedHook:
    """Calls a module hook as ``hook(module, *args)`` from a node hook."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module = weakref.ref(module)

    def __call__(self, *args):
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


def _typename(v) -> str:
    if isinstance(v, Tensor):
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                           "int64": "LongTensor"}.get(v.dtype.name, "Tensor")
    return type(v).__name__ if not isinstance(v, type) else v.__name__


def _torch_size(shape) -> str:
    # PyTorch's message prints torch.Size; keep its wording with our prefix
    return "torchlike.Size([" + ", ".join(str(s) for s in shape) + "])"


_ = (_dt, Device, Buffer)
