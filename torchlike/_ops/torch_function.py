"""``__torch_function__``: which arguments override an op, and calling their overrides.

Mirrors ``torch.overrides``: a tensor subclass or a duck type with a
``__torch_function__`` classmethod receives every torchlike function and Tensor method
called with it (the dispatcher asks here before anything runs), unless its override is
the disabled one (``Parameter``) or ``DisableTorchFunction(Subclass)`` is active. A
``TorchFunctionMode`` on this thread's mode stack receives every such call first, with
or without tensor arguments (Note [Torch function modes]); ``torchlike/overrides.py``
is the public module."""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Callable

from .._core.tensor import Tensor

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "handle_torch_function"]


class _TFState(threading.local):
    def __init__(self):
        self.disabled_subclass = False
        self.disabled_all = False
        # overrides called so far: an in-place method that sees this change while it
        # dispatched leaves the result to the override (which ran the method itself)
        self.handled = 0
        self.modes: list = []   # this thread's TorchFunctionMode stack, innermost last


_tf_state = _TFState()


# Note [Torch function modes]
# A mode pushed on this thread's stack (``with MyMode():``) receives every call an
# overriding argument would, and the calls with no tensor at all (``torchlike.zeros(2)``),
# before any subclass, as in PyTorch. While its ``__torch_function__`` runs it is popped
# (``_pop_mode_temporarily``), so calling ``func`` inside reaches the next mode down, or
# the op itself. Returning ``NotImplemented`` hands the call to the overriding
# arguments, with the mode back on the stack; when they decline too, PyTorch's "Multiple
# dispatch failed" TypeError names the mode.
# The stacks are per thread, but every entry point must know cheaply whether to look:
# ``_modes.on`` counts the modes on all threads' stacks together (a plain attribute of
# one object, read in the generated entries of Note [Plain calls] before anything else).
# While it is 0, which is nearly always, no call pays more than that one read; when it is
# not, calls take the general path, where ``_mode_active`` asks this thread's stack.
class _ModeCount:
    __slots__ = ("on",)

    def __init__(self):
        self.on = 0


_modes = _ModeCount()
_modes_lock = threading.Lock()


def _mode_active() -> bool:
    """Whether a mode on this thread's stack should see the current call."""
    return bool(_modes.on and _tf_state.modes and not _tf_state.disabled_all)


def _push_mode(mode) -> None:
    """Mirrors ``torch.overrides._push_mode``: ``mode`` becomes the innermost mode."""
    _tf_state.modes.append(mode)
    with _modes_lock:
        _modes.on += 1


def _pop_mode():
    """Mirrors ``torch.overrides._pop_mode``: remove and return the innermost mode."""
    stack = _tf_state.modes
    if not stack:
        raise RuntimeError("trying to pop from empty mode stack")
    mode = stack.pop()
    with _modes_lock:
        _modes.on -= 1
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily():
    """Mirrors ``torch.overrides._pop_mode_temporarily``: the innermost mode is off the
    stack inside the block (and given to it), back on afterwards, even on an error."""
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)


def _call_mode(api, types, args, kwargs):
    """The innermost mode's ``__torch_function__`` for ``api``, run with the mode popped."""
    mode = _pop_mode()
    try:
        return mode, mode.__torch_function__(api, types, args, kwargs)
    finally:
        _push_mode(mode)


_NO_MODE = object()


def _via_mode(api, args, kwargs):
    """The result of ``api(*args, **kwargs)`` handled by this thread's modes (and then
    its overriding arguments), or ``_NO_MODE`` when no mode is active here."""
    if not _tf_state.modes or _tf_state.disabled_all:
        return _NO_MODE
    values = list(args)
    if kwargs:
        values += kwargs.values()
    return handle_torch_function(api, _overloaded_args(values), args, kwargs)


def mode_visible(fn: Callable) -> Callable:
    """``fn``, a public function that tensor arguments do not override (a factory such
    as ``zeros``, which PyTorch lists in ``get_ignored_functions``), made visible to
    modes, as PyTorch's factories are: with a mode active on this thread, the call goes
    to it. Otherwise the call pays one attribute read."""
    @functools.wraps(fn)
    def api(*args, **kwargs):
        if _modes.on and _mode_active():
            return handle_torch_function(api, [], args, kwargs)
        return fn(*args, **kwargs)
    return api


def overridable(fn: Callable) -> Callable:
    """``fn``, a public function of a tensor ``input`` (its first argument, such as
    ``zeros_like``), routed to an overriding ``input`` (subclass or duck type) or to a
    mode, as PyTorch's ``has_torch_function_unary`` check does."""
    @functools.wraps(fn)
    def api(*args, **kwargs):
        if (_modes.on or args and type(args[0]) is not Tensor) and \
                not _tf_state.disabled_all:
            relevant = _overloaded_args(args[:1])
            if relevant or _mode_active():
                return handle_torch_function(api, relevant, args, kwargs)
        return fn(*args, **kwargs)
    return api


class DisableTorchFunctionSubclass(contextlib.ContextDecorator):
    """Mirrors ``torch._C.DisableTorchFunctionSubclass``: inside, tensor subclasses'
    ``__torch_function__`` is not called (ops return plain Tensors); modes still are."""

    def __enter__(self):
        self.prev = _tf_state.disabled_subclass
        _tf_state.disabled_subclass = True

    def __exit__(self, *exc):
        _tf_state.disabled_subclass = self.prev


class DisableTorchFunction(contextlib.ContextDecorator):
    """Mirrors ``torch._C.DisableTorchFunction``: inside, neither modes nor overriding
    arguments (subclasses, duck types) see any call."""

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
    """Mirrors ``torch.overrides.handle_torch_function`` for the dispatcher: the
    innermost mode first (when one is active on this thread), then the overriding
    arguments ``relevant`` (plain Tensors are not among them, so ``types`` holds only
    the overriding types, as PyTorch's C++ ops pass them)."""
    _tf_state.handled += 1
    types = tuple(type(a) for a in relevant)
    mode = None
    if _modes.on and _tf_state.modes and not _tf_state.disabled_all:
        mode, res = _call_mode(public_api, types, args, kwargs if kwargs is not None else {})
        if res is not NotImplemented:
            return res
    for a in relevant:
        res = _call_override(a, public_api, types, args, kwargs)
        if res is not NotImplemented:
            return res
    lines = [f"  - mode object {mode!r}"] if mode is not None else []
    lines += [f"  - tensor subclass {t!r}" for t in types]
    raise TypeError(f"Multiple dispatch failed for '{_api_name(public_api)}'; all "
                    f"__torch_function__ handlers returned NotImplemented:\n\n"
                    + "\n".join(lines) + "\n\nFor more information, try re-running "
                    "with TORCH_LOGS=not_implemented")


def _call_override(a, public_api, types, args, kwargs):
    """``type(a).__torch_function__(public_api, types, args, kwargs)``."""
    tf = type(a).__torch_function__
    if not isinstance(a, Tensor) and not hasattr(tf, "__self__"):
        # duck types often define it as a plain function taking cls first
        return tf(type(a), public_api, types, args, kwargs)
    return tf(public_api, types, args, kwargs)


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
