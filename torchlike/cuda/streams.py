"""``torchlike.cuda`` streams and events, and ``synchronize``.

# Note [One queue per device]
# XLA runs the programs of a device one after another in the order they were issued,
# while Python goes on (asynchronous dispatch), which is what CUDA's default stream does.
# There are no other streams to issue work to: a ``Stream`` here is that one queue, so
# code that spreads work over streams runs in issue order, with the same results and
# without overlap between streams. ``synchronize`` waits for every live array of the
# device (each the result of an issued program, so waiting for them is waiting for the
# queue) and for pending side effects; ``jax.effects_barrier`` alone waits only for
# the side effects. An ``Event`` records the time once the queue has drained, so
# ``elapsed_time`` measures the work issued between two ``record`` calls, as CUDA events
# do, at the price of waiting at each ``record``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import jax

from .._core.device import accelerator_devices
from .._core.waiting import wait
from .memory import _current, check_index, index_of

__all__ = ["Event", "Stream", "current_stream", "default_stream", "stream", "synchronize"]


def synchronize(device=None) -> None:
    """Mirrors ``torch.cuda.synchronize``: returns when everything issued to the device
    has finished (Note [One queue per device]). Without an accelerator it waits for the
    CPU's work."""
    devs = accelerator_devices()
    dev = None
    if devs:
        idx = index_of(device)
        check_index(idx)
        dev = devs[idx]
    drain("cpu" if dev is None else dev.platform, dev)


def drain(platform: str, dev=None) -> None:
    """Wait for every live array of ``platform`` (of ``dev`` only, when given) and for
    pending side effects (Note [One queue per device])."""
    for a in jax.live_arrays(platform):
        if not a.is_deleted() and (dev is None or dev in a.devices()):
            wait(a)   # Note [Reads poll before they block]
    jax.effects_barrier()


class Stream:
    """Mirrors ``torch.cuda.Stream``: the device's one queue (Note [One queue per
    device]); waiting on other streams or events is already implied by issue order."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device_index = index_of(device)
        check_index(self.device_index)
        self.priority = priority

    def synchronize(self) -> None:
        synchronize(self.device_index)

    def query(self) -> bool:
        self.synchronize()
        return True

    def wait_stream(self, stream: Stream) -> None:
        return None

    def wait_event(self, event: Event) -> None:
        return None

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.device_index == self.device_index

    def __hash__(self) -> int:
        return hash(("Stream", self.device_index))

    def __repr__(self) -> str:
        return f"<torchlike.cuda.Stream device=cuda:{self.device_index}>"


def current_stream(device=None) -> Stream:
    """Mirrors ``torch.cuda.current_stream``."""
    return Stream(device)


default_stream = current_stream


@contextlib.contextmanager
def stream(s: Stream | None) -> Iterator[None]:
    """Mirrors ``torch.cuda.stream``: work in the block goes to the device's one queue."""
    yield


class Event:
    """Mirrors ``torch.cuda.Event`` (Note [One queue per device]): ``record`` waits for the
    work issued so far and notes the time, ``elapsed_time`` gives milliseconds between two
    recorded events, with PyTorch's errors."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False, external: bool = False):
        check_index(_current[0])
        self.enable_timing = enable_timing
        self._time: float | None = None
        self._device = _current[0]

    def record(self, stream: Stream | None = None) -> None:
        synchronize(self._device if stream is None else stream.device_index)
        self._time = time.perf_counter()

    def wait(self, stream: Stream | None = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0
