"""What a profiler recorded: ``FunctionEvent``, ``FunctionEventAvg`` and ``EventList``
(its ``key_averages``, ``table`` and ``export_chrome_trace``), as
``torch.autograd.profiler_util`` has them for the CPU."""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from typing import Any

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]


def _format_time(time_us: float) -> str:
    """PyTorch's ``_format_time``: seconds, milliseconds or microseconds, 3 decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


class Interval:
    """Mirrors ``torch.autograd.profiler_util.Interval``: an event's ``start`` and
    ``end`` in microseconds since the profiler started."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class _TimeStrs:
    """The ``*_str`` properties PyTorch's events share."""

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time_str(self) -> str:
        return _format_time(0.0)

    device_time_total_str = device_time_str
    self_device_time_total_str = device_time_str


class FunctionEvent(_TimeStrs):
    """Mirrors ``torch.autograd.profiler_util.FunctionEvent`` for a CPU event: one call
    of an op (``aten::add``), a ``record_function`` range (``is_user_annotation``) or a
    compiled function, with its time range in microseconds, its input shapes (with
    ``record_shapes``) and its place in the nesting (``cpu_parent``, ``cpu_children``).
    Device times and memory are 0: the profiler measures host time only."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float,
                 input_shapes: list | None = None, is_user_annotation: bool = False,
                 stack: list | None = None) -> None:
        self.id = id
        self.node_id = -1
        self.name = name
        self.trace_name = name
        self.overload_name = ""
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = thread
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes: list = []
        self.concrete_inputs: list = []
        self.kwinputs: dict = {}
        self.stack = stack if stack is not None else []
        self.scope = 0
        self.use_device = None
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.kernels: list = []
        self.count = 1
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.is_async = False
        self.is_remote = False
        self.sequence_nr = -1
        self.device_type = DeviceType.CPU
        self.device_index = 0
        self.device_resource_id = thread
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = is_user_annotation
        self.is_python_function = False
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1
        self.metadata_json = None

    def append_cpu_child(self, child: FunctionEvent) -> None:
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        self.cpu_parent = parent

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        """The time not spent in child events, as PyTorch computes it."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    device_time_total = self_device_time_total = device_time = cuda_time = 0.0
    cuda_time_total = self_cuda_time_total = 0.0
    self_cpu_memory_usage = self_device_memory_usage = self_cuda_memory_usage = 0

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name= "
                f"device_type={self.device_type} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
                f"end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} None_time=0.000us "
                f"name={self.name} thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage=0 None_memory_usage=0 is_async=False is_remote=False "
                f"seq_nr=-1 is_legacy=False>")


class DeviceType:
    """The one device type the profiler records (``torch.autograd.DeviceType.CPU``)."""

    class _CPU:
        def __repr__(self) -> str:
            return "DeviceType.CPU"

    CPU = _CPU()


class FunctionEventAvg(_TimeStrs):
    """Mirrors ``torch.autograd.profiler_util.FunctionEventAvg``: the events of one key
    added up (``count``, ``cpu_time_total``, ``self_cpu_time_total``; ``cpu_time`` is
    the mean total per call)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.input_shapes: Any = None
        self.overload_name: str | None = None
        self.stack: list | None = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            # the first event fills in what all events of the key share
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        self.flops += other.flops
        return self

    def __iadd__(self, other) -> FunctionEventAvg:
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    device_time = cuda_time = 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_cuda_time=0.000us cuda_time=0.000us "
                f"input_shapes={self.input_shapes} cpu_memory_usage=0 cuda_memory_usage=0>")


class EventList(list):
    """Mirrors ``torch.autograd.profiler_util.EventList``: a list of events with
    ``key_averages``, ``table``, ``total_average``, ``self_cpu_time_total`` and
    ``export_chrome_trace``."""

    def __init__(self, *args, **kwargs) -> None:
        use_device = kwargs.pop("use_device", None)
        profile_memory = kwargs.pop("profile_memory", False)
        with_flops = kwargs.pop("with_flops", False)
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes: bool = False,
                     group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Mirrors ``EventList.key_averages``: one ``FunctionEventAvg`` per name (and per
        input shapes, or per the first ``group_by_stack_n`` stack frames, when asked),
        in the order the keys first occur."""
        stats: dict = defaultdict(FunctionEventAvg)

        def key_of(e):
            key = [str(e.key), str(e.node_id)]
            if group_by_input_shapes:
                key.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                key += e.stack[:group_by_stack_n]
            if group_by_overload_name:
                key.append(e.overload_name)
            return tuple(key)

        for e in self:
            stats[key_of(e)].add(e)
        avg = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for e in avg:
            e.stack = e.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                e.input_shapes = ""
        return avg

    def total_average(self) -> FunctionEventAvg:
        """Mirrors ``EventList.total_average``: all events added under the key
        ``Total``."""
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
            total.key = None
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """Mirrors ``EventList.table``: PyTorch's CPU table (Name, Self CPU %, Self CPU,
        CPU total %, CPU total, CPU time avg, # of Calls, then Input Shapes when the
        events have any), sorted by the attribute ``sort_by`` (``cpu_time_total``,
        ``self_cpu_time_total``, ``count``...; an unknown name raises PyTorch's
        AttributeError), ``row_limit`` rows (-1: all), and the "Self CPU time total"
        footer. Memory and device columns are never shown: only host time is measured."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            top_level_events_only=top_level_events_only,
                            time_unit=time_unit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Mirrors ``EventList.export_chrome_trace``: writes the events as a Chrome
        trace (``chrome://tracing``, Perfetto): ``{"traceEvents": [...]}`` with one
        complete event (``"ph": "X"``) per event, ``ts`` and ``dur`` in microseconds;
        a path ending in ``.gz`` is gzipped."""
        _write_trace(self, path, 0.0)


def _trace_events(events, base_us: float) -> list:
    pid = os.getpid()
    out = [{"ph": "M", "name": "process_name", "ts": base_us, "pid": pid, "tid": 0,
            "args": {"name": "python"}}]
    for e in events:
        cat = "user_annotation" if e.is_user_annotation else "cpu_op"
        args: dict = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
        out.append({"ph": "X", "cat": cat, "name": e.trace_name, "pid": pid, "tid": e.thread,
                    "ts": base_us + e.time_range.start, "dur": e.cpu_time_total,
                    "args": args})
    return out


def _write_trace(events, path: str, base_us: float) -> None:
    trace = {"schemaVersion": 1, "displayTimeUnit": "ms",
             "traceEvents": _trace_events(events, base_us), "traceName": path}
    text = json.dumps(trace)
    if path.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def _build_table(events, sort_by=None, header=None, row_limit=100,
                 max_src_column_width=75, max_name_column_width=55,
                 max_shapes_column_width=80, top_level_events_only=False,
                 time_unit=None) -> str:
    """PyTorch's ``_build_table`` for events with host times only (no device, memory,
    flops or overload columns)."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0
                           for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device") \
            .replace("privateuse1", "device")
        events = EventList(sorted(events, key=lambda e: getattr(e, attr), reverse=True))

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack is not None and len(e.stack) > 0]
    src_width = None
    if stacks:
        src_width = max(max(len(s) for s in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
               "CPU time avg", "# of Calls"]
    row_format, header_sep, line_length = "", "", -2

    def add_column(padding, text_dir=">"):
        nonlocal row_format, header_sep, line_length
        row_format += "{: " + text_dir + str(padding) + "}" + "  "
        header_sep += "-" * padding + "  "
        line_length += padding + 2

    add_column(name_width)
    for _ in headers[1:]:
        add_column(12)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_width)
    if stacks:
        headers.append("Source Location")
        add_column(src_width, text_dir="<")

    def fmt(us, default):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return default

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    lines = []
    total = sum(e.self_cpu_time_total for e in events)
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, total)
        e.total_cpu_percent = _format_time_share(e.cpu_time_total, total) \
            if not e.is_async else 0
        row = [name, e.self_cpu_percent, fmt(e.self_cpu_time_total, e.self_cpu_time_total_str),
               e.total_cpu_percent, fmt(e.cpu_time_total, e.cpu_time_total_str),
               fmt(e.cpu_time, e.cpu_time_str), e.count]
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if stacks:
            row.append(trim_path(e.stack[0]) if len(e.stack) > 0 else "")
        lines.append(row_format.format(*row))
        if stacks:
            empty = [""] * (len(headers) - 1)
            for entry in e.stack[1:]:
                lines.append(row_format.format(*(empty + [trim_path(entry)])))
            lines.append(row_format.format(*(empty + [""])))
    lines += [header_sep, f"Self CPU time total: {fmt(total, _format_time(total))}"]
    return "".join(line + "\n" for line in lines)
