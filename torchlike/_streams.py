"""``torchlike.Stream`` and ``torchlike.Event``: PyTorch's device-generic stream and event.

On an accelerator they are the device's one queue and its timing events (Note [One queue
per device] in cuda/streams.py); on the CPU, as PyTorch's, a stream exists (work runs in
issue order) but events cannot be recorded.
"""

from __future__ import annotations

from typing import Any

from ._core.device import accelerator_devices
from ._core.device import device as _device
from .cuda import streams as _cuda_streams

__all__ = ["Stream", "Event"]

_CPU_EVENTS = "cpu backend doesn't support events."


def _where(device) -> tuple[str, int]:
    """``(device type, index)`` of a stream or event made for ``device``: the current
    accelerator by default, else the CPU (index -1, as PyTorch reports it)."""
    from .cuda.memory import _current, check_index
    if device is None:
        if not accelerator_devices():
            return "cpu", -1
        return "cuda", _current[0]
    d = _device(device) if not isinstance(device, int) else _device("cuda", device)
    if d.type == "cpu":
        return "cpu", -1
    idx = _current[0] if d.index is None else d.index
    check_index(idx)
    return d.type, idx


def _wait(kind: str, index: int) -> None:
    if kind == "cpu":
        _cuda_streams.drain("cpu")
    else:
        _cuda_streams.synchronize(index)


class _OnDevice:
    """Where a generic stream or event lives: ``_kind`` ("cpu" or an accelerator's type)
    and ``device_index`` (-1 on the CPU)."""

    _kind: str
    device_index: int

    @property
    def device(self) -> _device:
        return _device(self._kind) if self.device_index < 0 else \
            _device(self._kind, self.device_index)


class Stream(_OnDevice, _cuda_streams.Stream):
    """Mirrors ``torch.Stream(device=None, *, priority=0)``: the device's queue of work,
    which runs in issue order (Note [One queue per device]); ``synchronize`` waits for it,
    ``wait_stream``/``wait_event`` are implied by that order (``torchlike.cuda.Stream``'s
    methods)."""

    def __init__(self, device: Any = None, *, priority: int = 0, **kwargs: Any) -> None:
        self._kind, self.device_index = _where(device)
        self.priority = priority
        self.stream_id = 0

    @property
    def device_type(self) -> int:
        """PyTorch's number for the device type (0: CPU, 1: CUDA)."""
        return 0 if self._kind == "cpu" else 1

    def synchronize(self) -> None:
        _wait(self._kind, self.device_index)

    def record_event(self, event: "Event | None" = None) -> "Event":
        event = Event(self.device) if event is None else event
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (other._kind, other.device_index) == (
            self._kind, self.device_index)

    def __hash__(self) -> int:
        return hash(("Stream", self._kind, self.device_index))

    def __repr__(self) -> str:
        return (f"torchlike.Stream device_type={self._kind}, device_index={self.device_index}, "
                f"stream_id={self.stream_id}")


class Event(_OnDevice, _cuda_streams.Event):
    """Mirrors ``torch.Event(device=None, *, enable_timing=False, blocking=False,
    interprocess=False)``: on an accelerator, ``torchlike.cuda.Event``'s behaviour
    (``record`` waits for the work issued so far and notes the time, ``elapsed_time``
    gives the milliseconds between two recorded events); on the CPU, ``record`` (and so
    ``elapsed_time`` of timing events) raises PyTorch's RuntimeError, as its CPU backend
    has no events."""

    def __init__(self, device: Any = None, *, enable_timing: bool = False,
                 blocking: bool = False, interprocess: bool = False) -> None:
        self._kind, self.device_index = _where(device)
        self._device = self.device_index
        self.enable_timing = enable_timing
        self.event_id = 0
        self._flag = int(bool(enable_timing))
        self._time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        if self._kind == "cpu":
            raise RuntimeError(_CPU_EVENTS)
        super().record(stream)

    def __repr__(self) -> str:
        return (f"torchlike.Event device_type={self._kind}, device_index={self.device_index}, "
                f"event_flag={self._flag}, event_id={self.event_id}")
