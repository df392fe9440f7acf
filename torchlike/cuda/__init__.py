"""``torchlike.cuda``: availability and device queries, mapped onto JAX's accelerator
backend ('cuda' means GPU, else TPU, as seen by JAX)."""

from __future__ import annotations

from .._core.device import _default_device_stack, accelerator_devices
from .memory import (AcceleratorError, OutOfMemoryError, _current,  # noqa: F401
                     check_index, empty_cache, index_of,
                     max_memory_allocated, max_memory_reserved, memory_allocated,
                     memory_reserved, memory_stats)
from .streams import Event, Stream, current_stream, default_stream, stream, synchronize

__all__ = ["is_available", "device_count", "current_device", "get_device_name",
           "get_device_properties", "get_device_capability", "is_bf16_supported",
           "set_device", "synchronize", "manual_seed", "manual_seed_all", "is_initialized",
           "empty_cache", "memory_stats", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "Event", "Stream", "current_stream",
           "default_stream", "stream", "OutOfMemoryError", "AcceleratorError"]


def is_available() -> bool:
    """Mirrors ``torch.cuda.is_available``: True when JAX has a GPU or TPU backend."""
    return bool(accelerator_devices())


def device_count() -> int:
    """Mirrors ``torch.cuda.device_count``."""
    return len(accelerator_devices())


def is_initialized() -> bool:
    return is_available()


def current_device() -> int:
    """Mirrors ``torch.cuda.current_device``."""
    check_index(_current[0])
    return _current[0]


def set_device(d) -> None:
    """Mirrors ``torch.cuda.set_device`` (sets the default index used by 'cuda')."""
    idx = index_of(d)
    check_index(idx)
    _current[0] = idx


def _jax_device(d):
    idx = index_of(d)
    check_index(idx)
    return accelerator_devices()[idx]


def get_device_name(d=None) -> str:
    """Mirrors ``torch.cuda.get_device_name``: the JAX device's kind."""
    return _jax_device(d).device_kind


def get_device_capability(d=None) -> tuple:
    """Mirrors ``torch.cuda.get_device_capability``: ``(major, minor)`` of a GPU's compute
    capability; ``(0, 0)`` for a TPU, which has none."""
    return _capability(_jax_device(d))


def _capability(dev) -> tuple:
    cc = getattr(dev, "compute_capability", None)
    if not cc:
        return (0, 0)
    major, _, minor = str(cc).partition(".")
    return (int(major), int(minor or 0))


class _DeviceProperties:
    """What ``torch.cuda.get_device_properties`` returns, for the fields JAX knows."""

    def __init__(self, dev):
        self.name = dev.device_kind
        self.major, self.minor = _capability(dev)
        self.total_memory = int((dev.memory_stats() or {}).get("bytes_limit", 0))
        self.multi_processor_count = int(getattr(dev, "core_count", 0) or 0)

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(d=None) -> _DeviceProperties:
    """Mirrors ``torch.cuda.get_device_properties``: ``name``, ``major``/``minor``,
    ``total_memory`` (XLA's memory limit for the device) and ``multi_processor_count``;
    PyTorch's other fields are not there."""
    return _DeviceProperties(_jax_device(d))


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Mirrors ``torch.cuda.is_bf16_supported``: True where there is an accelerator (XLA
    computes bfloat16 on every GPU and TPU it supports), False without one."""
    return is_available()


def manual_seed(seed: int) -> None:
    """Seeds the (single, device-independent) torchlike generator."""
    import torchlike
    torchlike.manual_seed(seed)


manual_seed_all = manual_seed
_ = _default_device_stack


def __getattr__(name: str):
    if name == "amp":   # imported on first use: it needs the whole package
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module 'torchlike.cuda' has no attribute '{name}'")
