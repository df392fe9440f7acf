"""Mirrors ``torch.profiler``: ``profile`` (with ``schedule``, ``on_trace_ready``,
``key_averages().table()``, Chrome traces), ``record_function``, ``ProfilerActivity``,
``ProfilerAction``, ``tensorboard_trace_handler``. What is recorded, and how, is Note
[How the profiler sees calls] in ``_recorder.py``."""

from ._events import EventList as EventList
from ._events import FunctionEvent as FunctionEvent
from ._events import FunctionEventAvg as FunctionEventAvg
from ._profiler import ProfilerAction as ProfilerAction
from ._profiler import ProfilerActivity as ProfilerActivity
from ._profiler import _KinetoProfile as _KinetoProfile
from ._profiler import profile as profile
from ._profiler import schedule as schedule
from ._profiler import supported_activities as supported_activities
from ._profiler import tensorboard_trace_handler as tensorboard_trace_handler
from ._recorder import record_function as record_function


def kineto_available() -> bool:
    """Mirrors ``torch.profiler.kineto_available``: False, there is no Kineto; the
    profiler measures host time itself."""
    return False


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction",
           "ProfilerActivity", "_KinetoProfile", "kineto_available", "profile",
           "record_function", "schedule", "supported_activities",
           "tensorboard_trace_handler"]
