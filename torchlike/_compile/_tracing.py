"""What the rest of the library needs to know about compilation, without importing it.

Two small pieces of global state live here so that ``nn``, ``optim`` and ``autograd`` can
consult them cheaply:

* ``current()``: the trace in progress (a ``TraceContext``) or None. Optimizers ask it for
  the traced value of a hyper-parameter, LR schedulers hand it their ``step`` calls, and
  the optimizer step wrapper reports each step.
* ``structure_epoch``: a counter bumped whenever the set of tensors reachable from
  modules or optimizers may have changed (a parameter, buffer or submodule assigned, an
  optimizer's state or groups changed, a tensor's ``.data`` replaced). A compiled function
  re-discovers its state only when the counter moved (Note [Finding state once]).
"""

from __future__ import annotations

__all__ = ["current", "bump_structure", "structure_epoch", "TraceContext"]


class _Epoch:
    value = 0


_epoch = _Epoch()


def bump_structure() -> None:
    """Record that some module/optimizer/tensor structure changed."""
    _epoch.value += 1


def structure_epoch() -> int:
    return _epoch.value


class _Current:
    ctx = None


_current = _Current()


def current() -> "TraceContext | None":
    """The compilation trace in progress, or None."""
    return _current.ctx


class TraceContext:
    """Per-trace bookkeeping shared with the library while a compiled function is traced.

    ``hyper``: ``id(python float) -> traced scalar`` for every float hyper-parameter in
    the optimizers' ``param_groups`` (Note [Hyper-parameters are inputs]);
    ``deferred``: LR-scheduler steps to run after each call, in order, as
    ``(scheduler, method, args, kwargs)``; ``opt_steps``: how many times each optimizer
    stepped (replayed on ``_step_count`` after each cached call).
    """

    def __init__(self):
        self.hyper: dict[int, object] = {}
        self.deferred: list = []
        self.opt_steps: dict = {}

    def __enter__(self):
        if _current.ctx is not None:
            raise RuntimeError("torchlike.compile: a compiled function was called while "
                               "another one is being traced; call the inner function "
                               "uncompiled (nested compiled calls are inlined by JAX only "
                               "for pure functions)")
        _current.ctx = self
        return self

    def __exit__(self, *exc):
        _current.ctx = None
        return False

    def lift(self, value):
        """The traced input standing for hyper-parameter ``value`` (a Python float read
        from a param group), or ``float(value)`` for a number that is not one."""
        t = self.hyper.get(id(value))
        return float(value) if t is None else t

    def defer(self, obj, method, args, kwargs) -> None:
        self.deferred.append((obj, method, args, kwargs))
