"""Module hooks: ``RemovableHandle``, the global hooks (``register_module_*``), the
per-module ``register_*_hook`` methods, and ``Module.__call__``, which runs global and
per-module forward pre-hooks, ``forward``, forward hooks, and wires full backward
(pre-)hooks.

``_ModuleHooks`` is a base class of ``Module`` (``module.py``) and holds no state of its
own: ``Module.__init__`` creates the hook dicts it fills and reads.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from typing import Any, Callable

from ..._core.hooks import RemovableHandle
from ..._core.tensor import Tensor


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


class _ModuleHooks:
    """The hook half of ``Module``: registering hooks and running them around ``forward``."""

    __slots__ = ()   # instances get __dict__ and __weakref__ from Module itself

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
