"""``torch.profiler``'s profilers: ``_KinetoProfile`` (start, stop, events,
key_averages, exports), ``profile`` (with ``schedule`` and ``on_trace_ready``), the
schedule builder and ``tensorboard_trace_handler``."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings
from functools import partial
from typing import Any, Callable, Iterable

from ._events import EventList, _write_trace
from ._recorder import _Recorder, record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "_KinetoProfile", "profile", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """Mirrors ``torch.profiler.ProfilerActivity``. Only ``CPU`` is recorded (host time
    of each call); the others are accepted and record nothing."""

    CPU = 0
    XPU = 1
    MTIA = 4
    CUDA = 2
    HPU = 3
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class ProfilerAction(enum.Enum):
    """Mirrors ``torch.profiler.ProfilerAction``: what a schedule asks of a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set:
    """Mirrors ``torch.profiler.supported_activities``: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """Mirrors ``torch.profiler.schedule``: a function of the step number giving the
    ``ProfilerAction``: ``skip_first`` steps of NONE, then cycles of ``wait`` NONE,
    ``warmup`` WARMUP and ``active`` RECORD steps, the last RECORD_AND_SAVE, ``repeat``
    times (0: forever). ``skip_first_wait`` skips the first cycle's wait. Invalid
    arguments raise PyTorch's AssertionError; ``warmup=0`` warns, as in PyTorch."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 \
            else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False
                              ) -> Callable:
    """Mirrors ``torch.profiler.tensorboard_trace_handler``: an ``on_trace_ready`` that
    writes each trace to ``dir_name/<worker_name>.<time_ns>.pt.trace.json`` (``.gz``
    with ``use_gzip``); ``worker_name`` defaults to ``<hostname>_<pid>``."""

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class _KinetoProfile:
    """Mirrors ``torch.profiler._KinetoProfile``: a profiler started and stopped by hand
    (``start()``/``stop()``, or ``prepare_trace``/``start_trace``/``stop_trace``).
    What it records is Note [How the profiler sees calls]: each torchlike call the user
    makes, on the starting thread, timed until its outputs are ready
    (``block_until_ready``, as JAX runs ops asynchronously), with its input shapes when
    ``record_shapes``, nested under ``record_function`` ranges, and the user's frames
    with ``with_stack``. ``profile_memory``, ``with_flops``, ``with_modules`` and
    ``experimental_config`` are accepted and record nothing: no memory or flops columns
    appear in tables."""

    def __init__(self, *, activities: Iterable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, custom_trace_id_callback: Callable | None = None,
                 post_processing_timeout_s: float | None = None) -> None:
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.use_device = None
        self.profiler: _Recorder | None = None
        self._events: list = []
        self._metadata: dict = {}

    def start(self) -> None:
        self.prepare_trace()
        self.start_trace()

    def stop(self) -> None:
        self.stop_trace()

    def prepare_trace(self) -> None:
        """A new cycle: unless ``acc_events``, the events so far are dropped (with
        PyTorch's warning, once per process)."""
        if self.profiler is not None and not self.acc_events:
            _warn_once("Warning: Profiler clears events at the end of each cycle. "
                       "Only events from the current cycle will be reported. "
                       "To keep events across cycles, set acc_events=True.")
        if self.profiler is None or not self.acc_events:
            self.profiler = _Recorder(self.record_shapes, self.with_stack)
            self._events = []

    def start_trace(self) -> None:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        if not self.profiler.recording:
            self.profiler.start()

    def stop_trace(self) -> None:
        if self.profiler is not None and self.profiler.recording:
            self._events = list(self.profiler.stop())

    def events(self) -> EventList:
        """Mirrors ``_KinetoProfile.events``: the recorded ``FunctionEvent``s, in the
        order they started (empty while recording)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return EventList([] if self.profiler.recording else self._events)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Mirrors ``_KinetoProfile.key_averages``: the events averaged per name (and
        input shapes, or the top ``group_by_stack_n`` frames)."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n,
                                          group_by_overload_name)

    def export_chrome_trace(self, path: str) -> None:
        """Mirrors ``_KinetoProfile.export_chrome_trace``: the events as Chrome trace
        JSON (``traceEvents``, ``"ph": "X"``, ``ts``/``dur`` in microseconds); gzipped
        when ``path`` ends in ``.gz``."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        _write_trace(self.events(), path, self.profiler.base_us)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Mirrors ``_KinetoProfile.export_stacks`` (needs ``with_stack=True``): one line
        per event, ``frame;frame;...;name <metric in us>``, outermost frame first, the
        format flame graph tools read."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        with open(path, "w") as f:
            for e in self.events():
                if e.stack:
                    frames = ";".join(reversed(e.stack))
                    f.write(f"{frames};{e.name} {int(getattr(e, metric))}\n")

    def add_metadata(self, key: str, value: str) -> None:
        """Mirrors ``_KinetoProfile.add_metadata``: kept with the profiler (not written
        to traces)."""
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        self._metadata[key] = value


class profile(_KinetoProfile):
    """Mirrors ``torch.profiler.profile``: ``_KinetoProfile`` as a context manager,
    with ``step()`` driven by ``schedule`` (default: record every step) and
    ``on_trace_ready(prof)`` called when a RECORD_AND_SAVE step ends (and at exit while
    recording). With a schedule, each step is a ``ProfilerStep#<n>`` range, as in
    PyTorch. See ``_KinetoProfile`` for what is recorded.

    Example::

        with torchlike.profiler.profile(record_shapes=True) as prof:
            with torchlike.profiler.record_function("model_inference"):
                model(x)
        print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    """

    def __init__(self, *, activities: Iterable | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_flops: bool = False, with_modules: bool = False,
                 experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None,
                 custom_trace_id_callback: Callable | None = None,
                 post_processing_timeout_s: float | None = None) -> None:
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if len(acts) == 0:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=acts, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config,
                         execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events,
                         custom_trace_id_callback=custom_trace_id_callback)
        self.schedule = schedule if schedule else _default_schedule_fn
        self.record_steps = bool(schedule)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn: record_function | None = None
        self.current_action = self.schedule(self.step_num)
        _check_action(self.current_action)
        A = ProfilerAction
        warn = warnings.warn
        prep, begin, end, ready = (self.prepare_trace, self.start_trace, self.stop_trace,
                                   self._trace_ready)
        # PyTorch's table: (previous action, this step's) -> what happens between them
        self.action_map: dict = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [prep],
            (A.NONE, A.RECORD): [prep, begin],
            (A.NONE, A.RECORD_AND_SAVE): [prep, begin],
            (A.WARMUP, A.NONE): [partial(warn, "Incorrect schedule: WARMUP followed by NONE"),
                                 begin, end],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [begin],
            (A.WARMUP, A.RECORD_AND_SAVE): [begin],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"),
                                 end],
            (A.RECORD, A.WARMUP): [
                partial(warn, "Incorrect schedule: RECORD followed by WARMUP"), end],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [end, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [end, ready, prep],
            (A.RECORD_AND_SAVE, A.RECORD): [end, ready, prep, begin],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [end, ready, prep, begin],
            (A.WARMUP, None): [begin, end],
            (A.RECORD, None): [end, ready],
            (A.RECORD_AND_SAVE, None): [end, ready],
        }

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.stop()

    def start(self) -> None:
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Mirrors ``profile.step``: the next step starts; the schedule's action for it
        decides whether recording starts, stops or a trace is ready."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        action = self.schedule(self.step_num + 1)
        _check_action(action)
        self.step_num += 1
        self.current_action = action
        self._transit_action(prev_action, action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action) -> None:
        for fn in self.action_map.get((prev_action, current_action)) or ():
            fn()


_WARNINGS_SHOWN: set = set()


def _warn_once(msg: str) -> None:
    if msg not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(msg)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _check_action(action) -> None:
    if action == ProfilerAction.DEVICE_STOPPED:
        raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                         "and must not be returned by a user-provided schedule")
