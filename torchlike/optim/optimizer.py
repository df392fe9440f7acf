"""``Optimizer``: the bookkeeping every optimizer shares, mirroring ``torch.optim.Optimizer``.

An optimizer here is two things side by side (Note [Bookkeeping apart from the update]):
this class owns the mutable Python state with PyTorch's data model (``defaults``,
``param_groups``, ``state``, hooks, ``state_dict``), and each optimizer's math is a pure
function in ``_functional.py`` over JAX arrays. ``step()`` gathers, for one group, the
parameters that have a gradient, their gradients and their state tensors, calls the pure
update (compiled once per structure, with the hyper-parameters as traced arguments) and
writes the results back in place: parameters through ``Tensor._set_value`` (so views and
version counters behave as after PyTorch's in-place ``add_``), state into the very tensors
held in ``self.state[p]``.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import jax.numpy as jnp

from .._core.grad_mode import enable_grad, no_grad
from .._compile import _tracing
from .._core.tensor import Tensor
from ..nn.modules.module import RemovableHandle
from ..nn.parameter import is_lazy, uninitialized_use_error

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]
StateDict = dict[str, Any]

_global_optimizer_pre_hooks: dict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: dict[int, Callable] = OrderedDict()


class _RequiredParameter:
    """Singleton marking an optimizer option that every param group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Mirrors ``torch.optim.optimizer.register_optimizer_step_pre_hook``: ``hook(optimizer,
    args, kwargs)`` runs before every optimizer's ``step``; it may return new
    ``(args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Mirrors ``torch.optim.optimizer.register_optimizer_step_post_hook``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return "torchlike." + ("FloatTensor" if obj.dtype.is_floating_point else "Tensor")
    return type(obj).__module__ + "." + type(obj).__qualname__ \
        if type(obj).__module__ != "builtins" else type(obj).__qualname__


def _to_scalar(x):
    """A hyper-parameter as a Python number (a one-element tensor is read out)."""
    if isinstance(x, Tensor):
        return x.item()
    return x


def _hooked_step(func):
    """Wraps a subclass's ``step`` with the global and per-instance step hooks and the
    ``_opt_called`` flag the LR schedulers check (PyTorch's ``profile_hook_step``)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        self._opt_called = True
        self._step_count += 1
        ctx = _tracing.current()
        if ctx is not None:   # replayed on _step_count after each compiled call
            ctx.opt_steps[self] = ctx.opt_steps.get(self, 0) + 1
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers, mirroring ``torch.optim.Optimizer``.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts each with
            a ``'params'`` entry and per-group options.
        defaults: the default value of every option, used where a group gives none.

    Attributes: ``defaults``, ``param_groups`` (a list of dicts), ``state`` (a
    ``defaultdict(dict)`` keyed by parameter) and ``_step_count`` (how many times ``step``
    ran), as in PyTorch. Subclasses implement ``step``; it is wrapped so that step hooks run
    around it.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        self._step_count = 0
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict[Tensor, Any] = _StateDict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ------------------------------------------------------------------ pickling, repr
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if not isinstance(self.state, _StateDict):
            self.state = _StateDict(dict, self.state)
        _tracing.bump_structure()
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.__dict__.setdefault("_step_count", 0)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Mirrors ``Optimizer.register_step_pre_hook``: ``hook(optimizer, args, kwargs)``
        runs before ``step`` and may return new ``(args, kwargs)``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Mirrors ``Optimizer.register_step_post_hook``: ``hook(optimizer, args, kwargs)``
        runs after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, table: dict, hook: Callable, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """Mirrors ``Optimizer.register_state_dict_pre_hook``: ``hook(optimizer)``."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """Mirrors ``Optimizer.register_state_dict_post_hook``: ``hook(optimizer,
        state_dict)``, which may return a replacement dict."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False):
        """Mirrors ``Optimizer.register_load_state_dict_pre_hook``."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False):
        """Mirrors ``Optimizer.register_load_state_dict_post_hook``."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state_dict
    def state_dict(self) -> StateDict:
        """Mirrors ``Optimizer.state_dict``: ``{'state': {index: {...}}, 'param_groups':
        [{..., 'params': [indices]}]}``, parameters numbered in group order. The state
        tensors are the live ones (as in PyTorch); copy them to snapshot."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, param_id,
                                                 param_groups, key: Hashable = None) -> Tensor:
        # 'step' keeps its own dtype (float32, the non-fused/non-capturable layout); other
        # floating state follows the parameter's dtype and device, as in PyTorch.
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Mirrors ``Optimizer.load_state_dict``: matches saved parameters to this
        optimizer's by position within groups. State tensors are copied (so the dict may be
        reused); non-tensor values in state are deep-copied.

        Raises ``ValueError`` if the number of groups or a group's size differ."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                out = Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key)
                return out.clone() if out is value else out
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups,
                                 key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(_cast(param, v, param_id=param_id,
                                         param_groups=param_groups) for v in value)
            return deepcopy(value)

        state: defaultdict[Tensor, dict[Any, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k,
                                     param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ------------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Mirrors ``Optimizer.zero_grad``: sets every ``.grad`` to None (default) or zero."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g._set_value(jnp.zeros_like(g._storage.array, g.dtype.np, shape=g._shape))

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one optimisation step; subclasses implement it."""
        raise NotImplementedError

    def _eval_closure(self, closure):
        """Evaluate ``closure`` under ``enable_grad``, as PyTorch's ``step`` does."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------------ param groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Mirrors ``Optimizer.add_param_group``, with its checks and messages: a dict with
        ``'params'`` (a tensor, an ordered iterable of tensors or of ``(name, tensor)``
        pairs); missing options are filled from ``defaults``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set: set[int] = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
        _tracing.bump_structure()

    # ------------------------------------------------------------------ update plumbing
    def _params_with_grad(self, group: dict[str, Any]) -> list[Tensor]:
        params = []
        for p in group["params"]:
            if p.grad is not None:
                if getattr(p.grad, "is_sparse", False):
                    raise RuntimeError(f"{type(self).__name__} does not support sparse "
                                       "gradients")
                params.append(p)
        return params

    def _init_state(self, params: list[Tensor], layout: list[tuple[str, Any]]) -> list[str]:
        """Create the state of each parameter stepped for the first time, in PyTorch's
        key order, and return the keys. ``layout`` pairs each key with its initial value:
        ``ZEROS`` (zeros like the parameter), a number (a 0-d tensor, as PyTorch keeps
        ``step``) or a function of the parameter."""
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                for key, init in layout:
                    state[key] = _zeros_like(p) if init is ZEROS else \
                        init(p) if callable(init) else _scalar(init)
        return [key for key, _ in layout]

    def _apply_update(self, update: Callable, params: list[Tensor], keys: Iterable[str],
                      hp: dict[str, Any], **static) -> None:
        """Run the pure ``update`` for ``params`` and write parameters and the state
        entries ``keys`` back in place. A state entry missing for a parameter is passed as
        ``None`` and created from the returned array (SGD's first momentum buffer); one
        returned as ``None`` is an entry the parameter does not have (Adafactor's factored
        ``row_var``/``col_var`` versus ``variance``) and is left out."""
        if not params:
            return
        keys = list(keys)
        pv = [p._value for p in params]
        gv = [p.grad._value for p in params]
        sv = {k: [_value_or_none(self.state[p].get(k)) for p in params] for k in keys}
        ctx = _tracing.current()
        if ctx is None:
            hp = {k: float(_to_scalar(v)) for k, v in hp.items()}
        else:   # Note [Hyper-parameters are inputs]
            hp = {k: ctx.lift(_to_scalar(v)) for k, v in hp.items()}
        new_p, new_s = update(pv, gv, sv, hp, **static)
        with no_grad():
            for p, v in zip(params, new_p):
                p._set_value(v)
            for k in keys:
                for p, v in zip(params, new_s[k]):
                    if v is None:
                        continue
                    st = self.state[p]
                    if st.get(k) is None:
                        st[k] = Tensor._wrap(v)
                        _tracing.bump_structure()
                    else:
                        st[k]._set_value(v)


class _StateDict(defaultdict):
    """``Optimizer.state``: a ``defaultdict(dict)`` that reports new entries, so compiled
    steps know to look for new state (Note [Finding state once])."""

    def __missing__(self, key):
        _tracing.bump_structure()
        return super().__missing__(key)

    def __setitem__(self, key, value):
        if key not in self:
            _tracing.bump_structure()
        super().__setitem__(key, value)

    def __reduce__(self):
        return (defaultdict, (dict, dict(self)))

    def __repr__(self) -> str:
        return repr(defaultdict(self.default_factory, self))


def _value_or_none(t):
    return None if t is None else t._value


def _check_fused(fused, differentiable, foreach) -> None:
    """PyTorch's checks of ``fused=True`` (accepted; the update is one XLA program anyway)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


ZEROS = object()   # ``_init_state``: a state entry that starts as zeros like the parameter


def _zeros_like(p: Tensor) -> Tensor:
    return _full_like(p, 0)


def _full_like(p: Tensor, value: float) -> Tensor:
    if is_lazy(p):   # a lazy module's parameter before its first forward has no shape
        raise uninitialized_use_error(type(p), "full_like")
    # on the parameter's device, as PyTorch's ``zeros_like`` (Note [Made arrays follow
    # their tensor])
    return Tensor._wrap(jnp.full_like(p._storage.array, value, p.dtype.np, shape=p._shape))


def _scalar(value: float) -> Tensor:
    """A 0-d float32 tensor: the layout of PyTorch's ``step``/``mu``/``eta`` state."""
    from .._core.dtype import get_default_dtype
    return Tensor._wrap(jnp.asarray(value, get_default_dtype().np))
