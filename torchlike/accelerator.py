"""``torchlike.accelerator``: PyTorch's device-agnostic accelerator API, over the devices
'cuda' names here (JAX's GPUs, else its TPUs; none on a CPU-only machine).

Code written against ``torch.accelerator`` (``device = torch.accelerator.current_accelerator()
or torch.device("cpu")``) runs unchanged. Without an accelerator every query that needs
one raises PyTorch's RuntimeError, and ``is_available``/``device_count``/
``current_accelerator`` answer as PyTorch's do.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Iterator

from . import cuda
from ._core.device import accelerator_devices, device as _device

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "device_count", "device_index", "empty_cache", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "set_device_idx", "set_device_index",
           "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def _need() -> None:
    if not accelerator_devices():
        raise RuntimeError(_NONE)


def is_available() -> bool:
    """Mirrors ``torch.accelerator.is_available``."""
    return bool(accelerator_devices())


def device_count() -> int:
    """Mirrors ``torch.accelerator.device_count``: 0 without an accelerator."""
    return len(accelerator_devices())


def current_accelerator(check_available: bool = False) -> _device | None:
    """Mirrors ``torch.accelerator.current_accelerator``: ``torchlike.device('cuda')`` where
    JAX has a GPU or TPU, else None (``check_available`` changes nothing then)."""
    return _device("cuda") if accelerator_devices() else None


def current_device_index() -> int:
    """Mirrors ``torch.accelerator.current_device_index``."""
    _need()
    return cuda.current_device()


def set_device_index(device, /) -> None:
    """Mirrors ``torch.accelerator.set_device_index``: the index 'cuda' refers to."""
    _need()
    cuda.set_device(device)


current_device_idx = current_device_index
set_device_idx = set_device_index


@contextlib.contextmanager
def device_index(device, /) -> Iterator[None]:
    """Mirrors ``torch.accelerator.device_index``: within the block 'cuda' refers to
    ``device`` (None: unchanged)."""
    if device is None:
        yield
        return
    before = current_device_index()
    set_device_index(device)
    try:
        yield
    finally:
        set_device_index(before)


def synchronize(device=None, /) -> None:
    """Mirrors ``torch.accelerator.synchronize``: waits for all pending work."""
    _need()
    cuda.synchronize(device)


def empty_cache() -> None:
    """Mirrors ``torch.accelerator.empty_cache`` (``torchlike.cuda.empty_cache``)."""
    _need()
    cuda.empty_cache()


def memory_stats(device_index=None, /) -> OrderedDict:
    """Mirrors ``torch.accelerator.memory_stats`` (Note [Memory statistics] in
    torchlike/cuda/memory.py)."""
    _need()
    return cuda.memory_stats(device_index)


def memory_allocated(device_index=None, /) -> int:
    """Mirrors ``torch.accelerator.memory_allocated``."""
    _need()
    return cuda.memory_allocated(device_index)


def max_memory_allocated(device_index=None, /) -> int:
    """Mirrors ``torch.accelerator.max_memory_allocated`` (the peak since the process
    started: XLA's cannot be reset)."""
    _need()
    return cuda.max_memory_allocated(device_index)


def memory_reserved(device_index=None, /) -> int:
    """Mirrors ``torch.accelerator.memory_reserved``."""
    _need()
    return cuda.memory_reserved(device_index)


def max_memory_reserved(device_index=None, /) -> int:
    """Mirrors ``torch.accelerator.max_memory_reserved``."""
    _need()
    return cuda.max_memory_reserved(device_index)
