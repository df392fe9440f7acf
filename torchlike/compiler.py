"""``torchlike.compiler``: mirrors ``torch.compiler``, for ``torchlike.compile``.

``compile``, ``is_compiling``, ``set_stance`` (Note [Stances] in _compile/stance.py),
``reset``, ``disable``, ``allow_in_graph``, ``assume_constant_result``,
``cudagraph_mark_step_begin`` and ``list_backends``. torchlike has no graph breaks: a
function's Python runs once, to be traced into one XLA program, and what needs a
tensor's value raises while tracing (see ``torchlike.compile``); where PyTorch's
functions decide what Dynamo captures, these say what that means here.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ._compile import _tracing
from ._compile import stance as _stance
from ._compile.compile import compile

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "set_stance",
           "reset", "disable", "allow_in_graph", "assume_constant_result",
           "cudagraph_mark_step_begin", "list_backends"]


def is_compiling() -> bool:
    """Mirrors ``torch.compiler.is_compiling``: True while the Python code of a
    ``torchlike.compile``d function runs, which is while it is traced (every later call
    runs the program, not the Python), False in eager code."""
    return _tracing.current() is not None


def is_dynamo_compiling() -> bool:
    """Mirrors ``torch.compiler.is_dynamo_compiling``: the same as ``is_compiling``
    (torchlike has one way of compiling)."""
    return _tracing.current() is not None


def is_exporting() -> bool:
    """Mirrors ``torch.compiler.is_exporting``: False; torchlike has no ``torch.export``
    (``torchlike.onnx.export`` and ``torchlike.jit`` trace through ``torchlike.jit``'s own
    tracing, which ``torchlike.jit.is_tracing`` reports)."""
    return False


class set_stance:
    """Mirrors ``torch.compiler.set_stance``: how ``torchlike.compile``d functions behave
    from their next call on. ``"default"`` compiles; ``"force_eager"`` runs the original
    Python functions eagerly; ``"eager_on_recompile"`` runs compiled programs already made
    and runs eagerly where a new one would be needed; ``"fail_on_recompile"`` raises
    PyTorch's RuntimeError there instead (a recompile is a trace after a function's first,
    for new input shapes or dtypes, new state such as an optimizer's first momentum
    buffers, or changed Python arguments).

    As in PyTorch it takes effect when called, and used as a context manager it restores
    the previous stance on exit; used as a decorator, the stance holds only while the
    decorated function runs. An unknown stance raises on the next compiled call, as
    PyTorch's does. ``skip_guard_eval_unsafe`` is accepted and changes nothing (the checks
    of a call are cheap); ``force_backend`` may be None, ``"eager"`` or ``"aot_eager"``
    (the same as ``"force_eager"``) or any other backend name (compiled with XLA)."""

    def __init__(self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
                 force_backend: str | Callable | None = None) -> None:
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        if force_backend in ("eager", "aot_eager"):
            stance = "force_eager"
        self.stance = stance
        self.skip_guard_eval_unsafe = skip_guard_eval_unsafe
        self.force_backend = force_backend
        self._prev = _stance.STANCE[0]
        _stance.set_stance_value(stance)

    def __enter__(self) -> "set_stance":
        return self

    def __exit__(self, *exc: Any) -> None:
        _stance.set_stance_value(self._prev)

    def __call__(self, fn: Callable) -> Callable:
        _stance.set_stance_value(self._prev)   # a decorator: only while ``fn`` runs
        stance = self.stance

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _stance.STANCE[0]
            _stance.set_stance_value(stance)
            try:
                return fn(*args, **kwargs)
            finally:
                _stance.set_stance_value(prev)
        return wrapper


def reset() -> None:
    """Mirrors ``torch.compiler.reset``: every ``torchlike.compile``d function forgets its
    programs and the state it found, so its next call traces again. Its ``stats`` keep
    counting (``stats.traces`` grows by the new traces)."""
    for cf in list(_stance.LIVE):
        cf._reset()


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """Mirrors ``torch.compiler.disable`` (as a decorator, with or without arguments).
    ``torchlike.compile`` of a disabled function returns it uncompiled, so it runs eagerly.

    Difference from PyTorch: called from inside another compiled function, PyTorch runs it
    eagerly between two graphs (a graph break); torchlike has no graph breaks, so it is
    traced into the caller's program like any other code: the same results where it can
    be traced, and the usual error (naming the line) where it needs a tensor's value."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper._torchlike_disabled = True
    return wrapper


def allow_in_graph(fn: Callable) -> Callable:
    """Mirrors ``torch.compiler.allow_in_graph``: returns ``fn``. Every function is traced
    into the program here, so there is nothing to allow."""
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """Mirrors ``torch.compiler.assume_constant_result``: returns ``fn``. While tracing,
    ``fn`` runs in Python, so a result computed from Python values is already a constant
    of the program (and like PyTorch's, it is not recomputed on later calls)."""
    return fn


def cudagraph_mark_step_begin() -> None:
    """Mirrors ``torch.compiler.cudagraph_mark_step_begin``: nothing to do, since no
    CUDA graphs are recorded (XLA owns a program's buffers)."""


def list_backends(exclude_tags: tuple | None = ("debug", "experimental")) -> list[str]:
    """Mirrors ``torch.compiler.list_backends``: the backend names ``torchlike.compile``
    accepts with a meaning: ``"inductor"`` (the default; every name other than the eager
    ones compiles with XLA through ``jax.jit``), and, unless ``exclude_tags`` leaves out
    debugging backends, ``"eager"`` and ``"aot_eager"``, which run uncompiled."""
    names = ["inductor"]
    if not exclude_tags or "debug" not in exclude_tags:
        names += ["aot_eager", "eager"]
    return sorted(names)
