"""Mirrors ``torch.autograd.profiler``: the older ``profile`` context manager,
``record_function``, ``emit_nvtx`` and ``emit_itt``, over ``torchlike.profiler``'s
recorder (Note [How the profiler sees calls] in ``torchlike/profiler/_recorder.py``)."""

from __future__ import annotations

from typing import Any

from ..profiler._events import EventList, FunctionEvent, FunctionEventAvg, _write_trace
from ..profiler._profiler import ProfilerActivity
from ..profiler._recorder import _Recorder, record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerActivity",
           "emit_itt", "emit_nvtx", "profile", "record_function"]


class profile:
    """Mirrors ``torch.autograd.profiler.profile``: records the calls inside the
    ``with`` block (``enabled=False`` records nothing); afterwards ``function_events``,
    ``key_averages()``, ``table()``, ``total_average()``, ``self_cpu_time_total`` and
    ``export_chrome_trace`` read them. Only host (CPU) time is measured; ``use_cuda``,
    ``profile_memory``, ``with_flops`` and ``with_modules`` record nothing more.

    Example::

        with torchlike.autograd.profiler.profile() as prof:
            torchlike.ones(2) + 1
        print(prof.key_averages().table())
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False,
                 use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.profile_memory = profile_memory
        self.with_flops = with_flops
        self.use_device = None
        self.entered = False
        self.function_events: EventList | None = None
        self._rec: _Recorder | None = None

    def __enter__(self) -> profile | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._rec = _Recorder(self.record_shapes, self.with_stack)
        self._rec.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        if not self.enabled:
            return
        self.function_events = EventList(self._rec.stop())
        self.entered = False

    def _events(self) -> EventList:
        """The recorded events; none before the block ends, as in PyTorch (whose
        methods then answer with an empty list rather than an error)."""
        return EventList() if self.function_events is None else self.function_events

    def __repr__(self) -> str:
        return repr(self._events())

    def __str__(self) -> str:
        return str(self._events())

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """``EventList.table`` of the recorded events (not averaged)."""
        return self._events().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._events().key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        _write_trace(self._events(), path, 0.0 if self._rec is None else self._rec.base_us)


class emit_nvtx:
    """Mirrors ``torch.autograd.profiler.emit_nvtx``: NVTX ranges need CUDA, so
    entering raises PyTorch's CPU-build AssertionError (``enabled=False`` does
    nothing)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_nvtx:
        if self.enabled:
            raise AssertionError("Torch not compiled with CUDA enabled")
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        return None


class emit_itt:
    """Mirrors ``torch.autograd.profiler.emit_itt``: Intel ITT ranges, which nothing
    here emits; a context manager that does nothing."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_itt:
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        return None
