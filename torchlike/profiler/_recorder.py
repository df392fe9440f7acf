"""How the profiler sees torchlike's calls: a recorder of events, entered on the
thread's TorchFunctionMode stack (Note [How the profiler sees calls]), and
``record_function`` ranges."""

from __future__ import annotations

import functools
import threading
import time
from typing import Any, Callable

import jax

from .._compile import _tracing
from .._core.tensor import Tensor
from .._ops.torch_function import _modes, _modes_lock, _tf_state
from ..autograd.engine import PROFILING
from ..overrides import TorchFunctionMode
from ._events import FunctionEvent

__all__ = ["record_function"]


# Note [How the profiler sees calls]
# A recording profiler puts a TorchFunctionMode of its own on the starting thread's mode
# stack (Note [Torch function modes] in _ops/torch_function.py). While it is there,
# ``_modes.on`` is non-zero and every op entry takes the general path, which hands the
# call to the mode: it opens an event, runs the call, waits for the outputs
# (``block_until_ready``: JAX dispatches asynchronously, so without the wait the time
# would be the dispatch's, and the op's work would be charged to whatever waits next),
# and closes the event. When no profiler records, nothing is on the stack and the op
# path is exactly what it is without this package: no profiler code runs at all.
# What it sees is what a mode sees: every public function and Tensor method the user
# calls (``torchlike.add``, ``x.relu()``, ``a @ b`` as ``matmul``, the factories),
# named ``aten::<name>`` as PyTorch names its ops. As for any mode, the profiler's mode
# is off the stack while its call runs, so the calls an op makes inside its own
# implementation are not seen: ``nn.functional.linear`` shows as the ops it calls from
# Python (``aten::t``, ``aten::addmm``), but an op's internals (PyTorch's
# ``aten::empty``, ``aten::resolve_conj`` rows) never show, as they do not exist as
# separate calls here.
# The backward pass is seen by the engine rather than by the mode: while a profiler
# records (``PROFILING[0]``, one read per backward call when none does), the engine
# runs the graph node by node rather than as one fused program (``autograd/_fusion.py``)
# and each node is PyTorch's pair of events, ``autograd::engine::evaluate_function:
# MulBackward0`` around ``MulBackward0``; ``backward()`` itself is no event, as in
# PyTorch. The ops a node computes with are not events: they run as JAX inside it.
# A call into a ``torchlike.compile``d function is one event, ``Torch-Compiled Region:
# <name>`` (``_compile/compile.py`` asks ``PROFILER[0]``), and the ops it traces or
# runs are not recorded. Calls made while a trace is being built (``func.vmap``,
# ``jax.jit`` of torchlike code) are not recorded either: their outputs are tracers.
# Only the thread that started the profiler is recorded.


class _Recorder:
    """The events of one profiling cycle on one thread, and the ranges now open."""

    def __init__(self, record_shapes: bool, with_stack: bool) -> None:
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.thread = threading.get_ident()
        self.events: list[FunctionEvent] = []
        self.open: list[FunctionEvent] = []
        self.t0 = time.perf_counter_ns()
        self.base_us = time.time_ns() / 1000.0   # wall clock of t0, for traces
        self.suspended = 0      # > 0 inside a compiled call: its ops are not recorded
        self.recording = False
        self.mode: _ProfilerMode | None = None
        self.stack: list | None = None   # the mode stack the mode was pushed on

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self.t0) / 1000.0

    def begin(self, name: str, shapes: list | None = None,
              annotation: bool = False) -> FunctionEvent:
        ev = FunctionEvent(len(self.events) + 1, _rewrite(name), 1, self.now_us(), 0.0,
                           shapes, annotation, _user_stack() if self.with_stack else None)
        ev.trace_name = name
        if self.open:
            parent = self.open[-1]
            ev.set_cpu_parent(parent)
            parent.append_cpu_child(ev)
        self.events.append(ev)
        self.open.append(ev)
        return ev

    def end(self, ev: FunctionEvent) -> None:
        ev.time_range.end = self.now_us()
        if self.open and self.open[-1] is ev:
            self.open.pop()
        elif ev in self.open:   # ranges closed out of order
            self.open.remove(ev)

    def start(self) -> None:
        """Starts recording: the profiler's mode goes on this thread's stack."""
        self.mode = _ProfilerMode(self)
        self.stack = _tf_state.modes
        self.stack.append(self.mode)
        with _modes_lock:
            _modes.on += 1
        self.recording = True
        _ACTIVE.append(self)
        PROFILER[0] = self

    def stop(self) -> list[FunctionEvent]:
        """Stops recording: the mode leaves the stack (wherever it is now); ranges still
        open end here. Returns the events."""
        if self.recording:
            self.recording = False
            if self.mode in self.stack:
                self.stack.remove(self.mode)
                with _modes_lock:
                    _modes.on -= 1
            _ACTIVE.remove(self)
            PROFILER[0] = _ACTIVE[-1] if _ACTIVE else None
            for ev in list(self.open):
                self.end(ev)
        return self.events

    def record_call(self, func: Callable, args: tuple, kwargs: dict) -> Any:
        if getattr(func, "__name__", None) == "backward":
            return func(*args, **kwargs)   # its nodes are the events, as in PyTorch
        shapes = _shapes(args, kwargs) if self.record_shapes else None
        ev = self.begin(_op_name(func), shapes)
        try:
            out = func(*args, **kwargs)
            _wait(out)
        finally:
            self.end(ev)
        return out

    def node_call(self, call: Callable, node, grads: list, create_graph: bool,
                  accumulate: bool) -> list:
        """A backward node run by the engine: PyTorch's two events,
        ``autograd::engine::evaluate_function: <node>`` around ``<node>``."""
        if self.suspended or threading.get_ident() != self.thread or \
                _tracing.current() is not None:
            return call(node, grads, create_graph, accumulate)
        name = node.name()
        outer = self.begin(f"autograd::engine::evaluate_function: {name}")
        inner = self.begin(name)
        try:
            out = call(node, grads, create_graph, accumulate)
            _wait(out)
            if type(node).__name__ == "AccumulateGrad":
                _wait(getattr(node.variable, "grad", None))
        finally:
            self.end(inner)
            self.end(outer)
        return out

    def sees(self, compiled) -> bool:
        """Whether a call into ``compiled`` now is an event of this recorder: it is on
        the recording thread, outside another compiled call and outside any trace."""
        return not self.suspended and threading.get_ident() == self.thread and \
            _tracing.current() is None

    def compiled_call(self, compiled, args: tuple, kwargs: dict) -> Any:
        """A call into a compiled function: one event, its ops unrecorded."""
        fn = getattr(compiled, "_fn", compiled)
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        ev = self.begin(f"Torch-Compiled Region: {name}")
        self.suspended += 1
        try:
            out = compiled(*args, **kwargs)
            _wait(out)
        finally:
            self.suspended -= 1
            self.end(ev)
        return out


_ACTIVE: list[_Recorder] = []   # recorders now recording, innermost last
# the innermost recording profiler, or None: what ``torchlike.compile``d calls and the
# autograd engine check (one list, the engine's, which is loaded first)
PROFILER = PROFILING


def _current() -> _Recorder | None:
    """The innermost recorder recording on this thread, if any."""
    me = threading.get_ident()
    for rec in reversed(_ACTIVE):
        if rec.thread == me:
            return rec
    return None


class _ProfilerMode(TorchFunctionMode):
    """The mode a recording profiler keeps on its thread's stack."""

    def __init__(self, recorder: _Recorder) -> None:
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        rec = self.recorder
        if not rec.recording or rec.suspended or _tracing.current() is not None:
            return func(*args, **kwargs)
        return rec.record_call(func, args, kwargs)


def _rewrite(name: str) -> str:
    """PyTorch's ``_rewrite_name``: every ``ProfilerStep#<n>`` event is named
    ``ProfilerStep*`` (traces keep the numbered name), so that steps average together."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


def _op_name(func) -> str:
    """``aten::<name>`` for a public function or method (``Tensor.add_`` is
    ``aten::add_``); the torchlike name for the rest (``Tensor.__getitem__``,
    ``Tensor.backward``)."""
    name = getattr(func, "__name__", None) or type(func).__name__
    if name.startswith("_") or name == "backward":
        qual = getattr(func, "__qualname__", name)
        return qual if qual.startswith("Tensor.") else f"torchlike.{name}"
    return f"aten::{name}"


def _shape_of(v) -> list:
    return list(v.shape) if isinstance(v, Tensor) else []


def _shapes(args: tuple, kwargs: dict) -> list:
    """PyTorch's ``input_shapes``: a tensor's shape as a list, ``[]`` for anything else;
    positional arguments, then keyword arguments, as given."""
    return [_shape_of(v) for v in args] + [_shape_of(v) for v in kwargs.values()]


def _wait(out) -> None:
    """Waits until the arrays of ``out``'s tensors are computed."""
    if isinstance(out, Tensor):
        arr = out._storage.array
        if isinstance(arr, jax.Array) and not isinstance(arr, jax.core.Tracer):
            arr.block_until_ready()
    elif isinstance(out, jax.Array) and not isinstance(out, jax.core.Tracer):
        out.block_until_ready()
    elif isinstance(out, (tuple, list)):
        for o in out:
            _wait(o)


def _user_stack() -> list:
    """``with_stack``: the caller's frames (``file(line): function``), innermost first,
    without torchlike's own."""
    import traceback
    frames = []
    for fs in reversed(traceback.extract_stack()):
        if fs.filename.startswith("<") or "/torchlike/" in fs.filename.replace("\\", "/"):
            continue   # torchlike's own frames and its generated entry points
        frames.append(f"{fs.filename}({fs.lineno}): {fs.name}")
    return frames


class record_function:
    """Mirrors ``torch.profiler.record_function`` (``torch.autograd.profiler.
    record_function``): a named range, as a context manager or a decorator. While a
    profiler records on this thread, the range is an event (``is_user_annotation``)
    whose total time covers the calls inside it, which become its children (so its
    self time is what the calls do not account for). Otherwise it does nothing.
    ``args`` is a string kept with the range, as in PyTorch.

    Example::

        with torchlike.profiler.record_function("model_inference"):
            model(x)
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._rec: _Recorder | None = None
        self._ev: FunctionEvent | None = None

    def __enter__(self):
        rec = _current()
        if rec is not None and not rec.suspended:
            self._rec, self._ev = rec, rec.begin(self.name, annotation=True)
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self._ev is not None and self._rec.recording:
            self._rec.end(self._ev)
        self._rec = self._ev = None

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped
