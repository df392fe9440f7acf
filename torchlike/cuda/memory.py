"""``torchlike.cuda.memory``: the memory queries of ``torch.cuda``, read from the XLA
allocator's statistics of the JAX device that 'cuda:N' names.

# Note [Memory statistics]
# PyTorch's caching allocator and XLA's allocator (a best-fit pool on GPUs) keep the same
# kinds of counts under other names. ``memory_stats`` gives PyTorch's keys for the ones
# that exist on both sides, from ``jax.Device.memory_stats()``:
#   allocated_bytes.all.current  <- bytes_in_use
#   allocated_bytes.all.peak     <- peak_bytes_in_use
#   reserved_bytes.all.current   <- pool_bytes (else bytes_reserved, else bytes_in_use)
#   reserved_bytes.all.peak      <- peak_pool_bytes (else peak_bytes_reserved, else the peak)
#   allocation.all.allocated     <- num_allocs
#   bytes_limit                  <- bytes_limit (XLA's; PyTorch has no such key)
# Without an accelerator they are empty and the byte counts 0, as in PyTorch on a machine
# without CUDA. XLA keeps one peak per process and has no call that resets it, so there
# is no ``reset_peak_memory_stats``. ``empty_cache`` has nothing to release: XLA's pool
# cannot be asked to return its memory.
"""

from __future__ import annotations

from collections import OrderedDict

from .._core.device import accelerator_devices, device

__all__ = ["OutOfMemoryError", "AcceleratorError", "empty_cache", "memory_stats",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]

_current = [0]   # the index 'cuda' means (``set_device``)


class OutOfMemoryError(RuntimeError):
    """Mirrors ``torch.OutOfMemoryError`` (also ``torch.cuda.OutOfMemoryError``), so that
    ported ``except`` clauses name a class. torchlike does not raise it: an allocation
    that fails inside XLA raises JAX's runtime error (its message starts with
    ``RESOURCE_EXHAUSTED``), which this class does not catch."""


class AcceleratorError(RuntimeError):
    """Mirrors ``torch.AcceleratorError``; as ``OutOfMemoryError``, never raised here:
    XLA's device errors are JAX's runtime errors."""


def check_index(idx: int) -> None:
    """PyTorch's RuntimeError for an accelerator index that does not exist."""
    n = len(accelerator_devices())
    if n == 0:
        raise RuntimeError("no CUDA/accelerator device is available to JAX; torchlike.cuda "
                           "calls need a GPU or TPU backend")
    if not 0 <= idx < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal {idx} (device_count() = {n})")


def index_of(d) -> int:
    """The accelerator index ``d`` (None, an int, a string or a ``torchlike.device``) means."""
    if d is None:
        return _current[0]
    if isinstance(d, int):
        return d
    d = device(d)
    if d.type == "cpu":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _current[0] if d.index is None else d.index


def _first(raw: dict, *keys, default=0) -> int:
    for k in keys:
        if k in raw:
            return int(raw[k])
    return default


def memory_stats(device=None) -> OrderedDict:
    """Mirrors ``torch.cuda.memory_stats``: an ordered dict of PyTorch's statistic names
    (Note [Memory statistics]); empty without an accelerator, as in PyTorch without CUDA.
    Only the statistics XLA's allocator keeps are there."""
    if not accelerator_devices():
        return OrderedDict()
    idx = index_of(device)
    check_index(idx)
    raw = accelerator_devices()[idx].memory_stats() or {}
    if not raw:
        return OrderedDict()
    peak = _first(raw, "peak_bytes_in_use")
    stats = {
        "allocated_bytes.all.current": _first(raw, "bytes_in_use"),
        "allocated_bytes.all.peak": peak,
        "reserved_bytes.all.current": _first(raw, "pool_bytes", "bytes_reserved",
                                             "bytes_in_use"),
        "reserved_bytes.all.peak": _first(raw, "peak_pool_bytes", "peak_bytes_reserved",
                                          default=peak),
        "allocation.all.allocated": _first(raw, "num_allocs"),
    }
    if "bytes_limit" in raw:
        stats["bytes_limit"] = int(raw["bytes_limit"])
    return OrderedDict(sorted(stats.items()))


def memory_allocated(device=None) -> int:
    """Mirrors ``torch.cuda.memory_allocated``: bytes the device's arrays occupy now."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    """Mirrors ``torch.cuda.max_memory_allocated``. Difference: the peak since the
    process started (XLA's peak cannot be reset)."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    """Mirrors ``torch.cuda.memory_reserved``: bytes XLA's allocator holds."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    """Mirrors ``torch.cuda.max_memory_reserved`` (the peak since the process started)."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def empty_cache() -> None:
    """Mirrors ``torch.cuda.empty_cache``; does nothing (Note [Memory statistics]): XLA's
    allocator keeps its pool. Arrays no tensor references are freed when dropped."""
    return None
