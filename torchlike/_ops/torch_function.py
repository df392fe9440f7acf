"""``__torch_function__``: which arguments override an op, and calling their overrides.

Mirrors ``torch.overrides``: a tensor subclass or a duck type with a
``__torch_function__`` classmethod receives every torchlike function and Tensor method
called with it (the dispatcher asks here before anything runs), unless its override is
the disabled one (``Parameter``) or ``DisableTorchFunction(Subclass)`` is active."""

from __future__ import annotations

import contextlib
import threading

from .._core.tensor import Tensor

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "handle_torch_function"]


class _TFState(threading.local):
    def __init__(self):
        self.disabled_subclass = False
        self.disabled_all = False
        # overrides called so far: an in-place method that sees this change while it
        # dispatched leaves the result to the override (which ran the method itself)
        self.handled = 0


_tf_state = _TFState()


class DisableTorchFunctionSubclass(contextlib.ContextDecorator):
    """Mirrors ``torch._C.DisableTorchFunctionSubclass``."""

    def __enter__(self):
        self.prev = _tf_state.disabled_subclass
        _tf_state.disabled_subclass = True

    def __exit__(self, *exc):
        _tf_state.disabled_subclass = self.prev


class DisableTorchFunction(contextlib.ContextDecorator):
    def __enter__(self):
        self.prev = _tf_state.disabled_all
        _tf_state.disabled_all = True

    def __exit__(self, *exc):
        _tf_state.disabled_all = self.prev


def _is_overloaded(x) -> bool:
    t = type(x)
    if t is Tensor:
        return False
    if isinstance(x, Tensor):
        return not _tf_state.disabled_subclass and not _tf_disabled(t)
    tf = getattr(t, "__torch_function__", None)
    return tf is not None and not isinstance(x, type)


_TF_DISABLED: dict = {}   # Tensor subclass -> whether its __torch_function__ is disabled


def _tf_disabled(cls) -> bool:
    """Whether ``cls.__torch_function__`` is the disabled implementation (``Parameter``).

    As in PyTorch, such a subclass is not an overloaded argument at all: ops on it run
    directly and return plain Tensors. The class attribute is looked up statically
    (``getattr`` would give a fresh bound method, never identical to ``_DISABLED_TF``)
    and cached per class."""
    d = _TF_DISABLED.get(cls)
    if d is None:
        d = False
        for c in cls.__mro__:
            if "__torch_function__" in c.__dict__:
                d = c.__dict__["__torch_function__"] is _DISABLED_TF
                break
        _TF_DISABLED[cls] = d
    return d


def _overloaded_args(values) -> list:
    found = []
    for v in values:
        if isinstance(v, (list, tuple)):
            for w in v:
                if _is_overloaded(w) and type(w) not in [type(f) for f in found]:
                    found.append(w)
        elif _is_overloaded(v) and type(v) not in [type(f) for f in found]:
            found.append(v)
    # subclasses before their parents, as PyTorch orders them
    ordered = []
    for a in found:
        idx = len(ordered)
        for i, b in enumerate(ordered):
            if issubclass(type(a), type(b)):
                idx = i
                break
        ordered.insert(idx, a)
    return ordered


def handle_torch_function(public_api, relevant, args, kwargs):
    """Mirrors ``torch.overrides.handle_torch_function``."""
    _tf_state.handled += 1
    types = tuple(type(a) for a in relevant)
    for a in relevant:
        tf = type(a).__torch_function__
        if not isinstance(a, Tensor) and not hasattr(tf, "__self__"):
            # duck types often define it as a plain function taking cls first
            res = tf(type(a), public_api, types, args, kwargs)
        else:
            res = tf(public_api, types, args, kwargs)
        if res is not NotImplemented:
            return res
    names = ", ".join(f"'{t.__module__}.{t.__name__}'" if t.__module__ != "__main__"
                      else f"'{t.__name__}'" for t in types)
    raise TypeError(f"no implementation found for '{_api_name(public_api)}' on types that "
                    f"implement __torch_function__: [{names}]")


def _api_name(api) -> str:
    q = getattr(api, "__qualname__", getattr(api, "__name__", repr(api)))
    if q.startswith("Tensor."):
        return "torchlike.Tensor." + q[len("Tensor."):]
    return "torchlike." + q


def _convert_subclass(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        new = object.__new__(cls)
        for k in Tensor.__slots__:
            if k in ("__dict__", "__weakref__"):
                continue
            try:
                setattr(new, k, getattr(ret, k))
            except AttributeError:
                pass
        if ret.grad_fn is not None:
            ret.grad_fn._retarget(ret, new)
        return new
    if isinstance(ret, (tuple, list)) and not hasattr(ret, "_fields"):
        return type(ret)(_convert_subclass(r, cls) for r in ret)
    if hasattr(ret, "_fields"):
        return type(ret)(*(_convert_subclass(r, cls) for r in ret))
    return ret


def _disabled_tf(cls, func, types, args=(), kwargs=None):
    """Like ``torch._C._disabled_torch_function_impl``: results stay plain Tensors."""
    if kwargs is None:
        kwargs = {}
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


_DISABLED_TF = classmethod(_disabled_tf)
