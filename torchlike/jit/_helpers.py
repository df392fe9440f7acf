"""The small parts of ``torch.jit`` that eager code calls: decorators, queries, fork/wait.

TorchScript's decorators tell its compiler what to skip or keep; torchlike has no
TorchScript compiler (``script`` compiles with ``torchlike.compile``), so they return
what they decorate, as they behave for eager PyTorch code.
"""

from __future__ import annotations

import threading
import typing
from typing import Any, Callable, Generic, NamedTuple, TypeVar

from .._compile import _tracing

__all__ = ["ignore", "unused", "export", "interface", "script_if_tracing", "is_scripting",
           "is_tracing", "annotate", "Final", "Attribute", "fork", "wait", "Future",
           "Error", "TracerWarning", "TracingCheckError", "ScriptWarning",
           "script_method", "optimized_execution", "set_fusion_strategy",
           "enable_onednn_fusion", "onednn_fusion_enabled", "isinstance"]

T = TypeVar("T")
Final = typing.Final

_builtin_isinstance = isinstance


class Error(RuntimeError):
    """Mirrors ``torch.jit.Error`` (TorchScript's runtime error); a ``RuntimeError``."""


class TracerWarning(Warning):
    """Mirrors ``torch.jit.TracerWarning``: a trace may not generalise to other inputs."""


class ScriptWarning(Warning):
    """Mirrors ``torch.jit.ScriptWarning``."""


class TracingCheckError(Exception):
    """Mirrors ``torch.jit.TracingCheckError``: ``trace(check_trace=True)`` found that the
    compiled function does not reproduce the Python function."""

    def __init__(self, graph_diff_error: str, tensor_compare_error: str,
                 extra_msg: str | None = None) -> None:
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across "
                             "invocations. This often indicates that the tracer has "
                             "encountered untraceable code.\n" + tensor_compare_error)
        super().__init__(self.message)


_state = threading.local()


class _TracingFlag:
    """Set while ``torchlike.jit.trace`` or ``save`` traces a forward."""

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        return False


def is_scripting() -> bool:
    """Mirrors ``torch.jit.is_scripting``: always False, as in eager PyTorch code, since
    torchlike never compiles TorchScript (``script`` runs the Python code under
    ``torchlike.compile``), so the eager branch of ``if not is_scripting():`` is the one
    that runs."""
    return False


def is_tracing() -> bool:
    """Mirrors ``torch.jit.is_tracing``: True while the Python code runs to be traced,
    by ``torchlike.jit.trace`` or ``torchlike.jit.save`` or by any ``torchlike.compile``
    program (whose Python code also only runs to be traced), False in eager code.

    Difference from PyTorch: a module made by ``script`` also reports True while its
    forward is traced, since it is compiled the same way."""
    return getattr(_state, "depth", 0) > 0 or _tracing.current() is not None


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """Mirrors ``torch.jit.ignore``: as a decorator (``@ignore`` or
    ``@ignore(drop=True)``) it returns the function unchanged, which is how eager code
    sees it; the function also runs inside ``script``'d modules, which run Python."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: T) -> T:
    """Mirrors ``torch.jit.unused``: returns ``fn`` unchanged (it runs, as in eager
    PyTorch code; TorchScript would replace it with a raising stub)."""
    return fn


def export(fn: T) -> T:
    """Mirrors ``torch.jit.export``: returns ``fn`` unchanged. Difference: ``save``
    serializes only ``forward``; exported methods are not written to the file."""
    return fn


def interface(obj: T) -> T:
    """Mirrors ``torch.jit.interface``: returns the class unchanged."""
    return obj


def script_if_tracing(fn: T) -> T:
    """Mirrors ``torch.jit.script_if_tracing``: returns ``fn`` unchanged, which is what
    eager PyTorch code runs (under a trace it is part of the traced program)."""
    return fn


def script_method(fn: T) -> T:
    """Mirrors ``torch.jit.script_method``: returns ``fn`` unchanged."""
    return fn


def annotate(the_type: Any, the_value: T) -> T:
    """Mirrors ``torch.jit.annotate``: returns ``the_value`` (the type is only a hint for
    TorchScript's compiler)."""
    return the_value


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001  (torch.jit.isinstance)
    """Mirrors ``torch.jit.isinstance`` for plain classes and ``typing`` containers
    (``List[int]``, ``Dict[str, Tensor]``, ``Optional[T]``, ``Tuple[...]``)."""
    origin = typing.get_origin(target_type)
    if origin is None:
        if target_type is Any:
            return True
        return _builtin_isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union:
        return any(isinstance(obj, a) for a in args)
    if origin in (list, typing.List):  # noqa: UP006
        return _builtin_isinstance(obj, list) and all(isinstance(o, args[0]) for o in obj)
    if origin in (tuple, typing.Tuple):  # noqa: UP006
        return (_builtin_isinstance(obj, tuple) and len(obj) == len(args)
                and all(isinstance(o, a) for o, a in zip(obj, args)))
    if origin in (dict, typing.Dict):  # noqa: UP006
        return _builtin_isinstance(obj, dict) and all(
            isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    return _builtin_isinstance(obj, origin)


class Attribute(NamedTuple):
    """Mirrors ``torch.jit.Attribute``: in eager code, as in PyTorch, the named tuple
    ``Attribute(value=..., type=...)``; a script module reading such an attribute of
    the module it wraps gets ``value``, as TorchScript does."""

    value: Any
    type: Any


class Future(Generic[T]):
    """Mirrors ``torch.futures.Future`` as ``fork`` returns it: the result is computed
    already; ``wait()`` returns it (or raises the error the function raised)."""

    def __init__(self) -> None:
        self._value: Any = None
        self._error: BaseException | None = None

    def done(self) -> bool:
        """Always True: ``fork`` runs the function before returning."""
        return True

    def wait(self) -> T:
        """The function's result; re-raises its exception, as PyTorch's future does."""
        if self._error is not None:
            raise self._error
        return self._value

    def value(self) -> T:
        """Mirrors ``Future.value``: the result, without waiting."""
        return self.wait()

    def then(self, callback: Callable[["Future[T]"], Any]) -> "Future":
        """Mirrors ``Future.then``: a future of ``callback(self)``."""
        return _run(callback, (self,), {})


def _run(fn: Callable, args, kwargs) -> Future:
    fut: Future = Future()
    try:
        fut._value = fn(*args, **kwargs)
    except Exception as e:   # the error surfaces at wait(), as with an asynchronous task
        fut._error = e
    return fut


def fork(func: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
    """Mirrors ``torch.jit.fork``: returns a ``Future`` of ``func(*args, **kwargs)``.

    Difference: ``func`` runs at once, in the calling thread (PyTorch's eager ``fork``
    also runs it synchronously; only TorchScript runs it in parallel). XLA already runs
    independent work of one compiled program in parallel."""
    return _run(func, args, kwargs)


def wait(future: Future[T]) -> T:
    """Mirrors ``torch.jit.wait``: the result of a ``fork``."""
    return future.wait()


class optimized_execution:
    """Mirrors ``torch.jit.optimized_execution(should_optimize)``: a context manager that
    changes nothing here (XLA always optimises)."""

    def __init__(self, should_optimize: bool) -> None:
        self.should_optimize = should_optimize

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


def set_fusion_strategy(strategy: list) -> list:
    """Mirrors ``torch.jit.set_fusion_strategy``: accepted and ignored (XLA fuses);
    returns the previous strategy, as PyTorch does."""
    prev = getattr(_state, "fusion", [("STATIC", 2), ("DYNAMIC", 10)])
    _state.fusion = list(strategy)
    return prev


def enable_onednn_fusion(enabled: bool) -> None:
    """Mirrors ``torch.jit.enable_onednn_fusion``: recorded, no effect (XLA fuses)."""
    _state.onednn = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """Mirrors ``torch.jit.onednn_fusion_enabled``."""
    return getattr(_state, "onednn", False)


for _c in (Error, TracerWarning, ScriptWarning, TracingCheckError, Attribute, Future,
           optimized_execution):
    _c.__module__ = "torchlike.jit"
