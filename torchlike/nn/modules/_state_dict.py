"""``Module.state_dict`` and ``Module.load_state_dict``: PyTorch's key names, order and
metadata, ``_extra_state``, running the state-dict hooks (``_hooks.py`` registers them),
and a load that collects every missing, unexpected and mis-shaped key and raises once.

``_ModuleStateDict`` is a base class of ``Module`` (``module.py``) and holds no state of
its own.
"""

from __future__ import annotations

import functools
import itertools
import weakref
from collections import OrderedDict, namedtuple
from typing import Any

from ..._compile import _tracing
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..parameter import Parameter, is_lazy


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _ModuleStateDict:
    """The state-dict half of ``Module``: saving to and loading from a ``state_dict``."""

    __slots__ = ()   # instances get __dict__ and __weakref__ from Module itself

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state_key = prefix + "_extra_state"
        if getattr(self.__class__, "get_extra_state", _ModuleStateDict.get_extra_state) is not \
                _ModuleStateDict.get_extra_state:
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
        assign = assign or local_metadata.get("assign_to_params_buffers", False)
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
                # an uninitialized (lazy) entry has no shape to compare: a lazy module's
                # load pre-hook materialized what it could, and loading an uninitialized
                # entry into an initialized module raises reading its shape, as in PyTorch
                is_param_lazy = is_lazy(param)
                # loading a 1-element 1-D tensor into a 0-D one (checkpoints from 0.3)
                if not is_param_lazy and len(param.shape) == 0 and \
                        len(input_param.shape) == 1 and input_param.shape[0] == 1:
                    input_param = input_param[0]
                if not is_param_lazy and input_param.shape != param.shape:
                    error_msgs.append(
                        f"size mismatch for {key}: copying a param with shape "
                        f"{_torch_size(input_param.shape)} from checkpoint, the shape in current "
                        f"model is {_torch_size(param.shape)}.")
                    continue
                try:
                    with no_grad():
                        if assign:
                            if isinstance(param, Parameter):
                                if not isinstance(input_param, Parameter):
                                    input_param = Parameter(input_param,
                                                            requires_grad=param.requires_grad)
                                else:
                                    input_param.requires_grad_(param.requires_grad)
                                setattr(self, name, input_param)
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
        if getattr(self.__class__, "set_extra_state", _ModuleStateDict.set_extra_state) is not \
                _ModuleStateDict.set_extra_state:
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
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Mirrors ``Module.load_state_dict``: copies matching entries in place (or assigns
        them with ``assign=True``) and returns ``(missing_keys, unexpected_keys)``. As in
        PyTorch every loadable entry is copied first; then, with ``strict=True`` missing or
        unexpected keys, and in any case mis-shaped entries, raise one RuntimeError listing
        them, PyTorch's text. ``self.state_dict()`` is never called. Difference: where it
        raises, every parameter and buffer is put back as it was (PyTorch keeps the entries
        it copied), so a failed load changes nothing."""
        if not isinstance(state_dict, (dict,)) and not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace.")
        # what a failed load puts back (the arrays are immutable: keeping them is free)
        saved = [(m, dict(m._parameters), dict(m._buffers)) for m in self.modules()]
        arrays = [(t._storage, t._storage.array) for _, ps, bs in saved
                  for t in list(ps.values()) + list(bs.values()) if t is not None]
        load(self, state_dict)
        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if len(missing_keys) > 0:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if len(error_msgs) > 0:
            for m, ps, bs in saved:
                m._parameters.clear()
                m._parameters.update(ps)
                m._buffers.clear()
                m._buffers.update(bs)
            for st, a in arrays:
                st.array = a
                st.gen += 1
            _tracing.bump_structure()
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)


class _LoadStateDictPreHook:
    """Mirrors ``torch.nn.modules.module._WrappedHook`` for load-state-dict pre-hooks:
    calls ``hook(module, *args)`` when registered with a module, else ``hook(*args)``."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state: dict):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _torch_size(shape) -> str:
    # PyTorch's message prints torch.Size; keep its wording with our prefix
    return "torchlike.Size([" + ", ".join(str(s) for s in shape) + "])"
