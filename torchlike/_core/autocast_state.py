"""The autocast state: per device type, whether autocast is on and its dtype; the cast
cache. Thread-local like PyTorch's (``torch.is_autocast_enabled`` and friends).

The op table reads ``_state.on`` (some device type has autocast on, and no autocast op
is running: the casts of one op are not autocast again) before any other autocast work,
so that ops run as before while no autocast region is open (Note [Autocast] in
``_ops/autocast_policy.py``)."""

from __future__ import annotations

import contextlib
import threading
import weakref

from . import dtype as _dt

__all__ = ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
           "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting",
           "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "is_autocast_cpu_enabled",
           "set_autocast_cpu_enabled", "set_autocast_gpu_dtype", "set_autocast_cpu_dtype"]

# the device types whose tensors torchlike makes ("cuda" is JAX's accelerator)
DEVICE_TYPES = ("cpu", "cuda")
_DEFAULT_DTYPES = {"cpu": _dt.bfloat16, "cuda": _dt.float16}


class _State(threading.local):
    def __init__(self):
        self.enabled = {t: False for t in DEVICE_TYPES}
        self.dtype = dict(_DEFAULT_DTYPES)
        self.on = False               # some device type enabled, no autocast op running
        self.cache_enabled = True
        self.nesting = 0
        self.cache: dict = {}         # id(source) -> (weakref to source, cast tensor)
        self.token = None             # what a compiled program's cache key holds


_state = _State()


@contextlib.contextmanager
def excluded():
    """No autocast inside the block, whatever the regions around it say: what PyTorch's
    autocast kernels do for the op they run (its ``ExcludeDispatchKeyGuard``)."""
    s = _state
    prev, s.on = s.on, False
    try:
        yield
    finally:
        s.on = prev


def _refresh() -> None:
    s = _state
    s.on = any(s.enabled.values())
    s.token = (tuple(sorted((t, s.dtype[t]) for t, e in s.enabled.items() if e))
               if s.on else None)


def _device_type(device_type) -> str:
    if not isinstance(device_type, str):
        raise TypeError(f"expected a device type string, got {type(device_type).__name__}")
    if device_type not in DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type "
                           f"'{device_type}'")
    return device_type


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Mirrors ``torch.is_autocast_enabled``: without an argument, for 'cuda'."""
    return _state.enabled[_device_type("cuda" if device_type is None else device_type)]


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Mirrors ``torch.set_autocast_enabled(device_type, enabled)`` (and the older
    one-argument form, for 'cuda')."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _state.enabled[_device_type(device_type)] = bool(enabled)
    _refresh()


def get_autocast_dtype(device_type: str):
    """Mirrors ``torch.get_autocast_dtype``: bfloat16 for 'cpu', float16 for 'cuda'
    unless set."""
    return _state.dtype[_device_type(device_type)]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Mirrors ``torch.set_autocast_dtype``."""
    _state.dtype[_device_type(device_type)] = dtype
    _refresh()


def is_autocast_cache_enabled() -> bool:
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Mirrors ``torch.clear_autocast_cache``: drops the cached casts of weights."""
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


# the older per-device functions PyTorch keeps (deprecated there)
def is_autocast_cpu_enabled() -> bool:
    return _state.enabled["cpu"]


def set_autocast_cpu_enabled(enabled: bool) -> None:
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    return _state.dtype["cpu"]


def get_autocast_gpu_dtype():
    return _state.dtype["cuda"]


def set_autocast_cpu_dtype(dtype) -> None:
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    set_autocast_dtype("cuda", dtype)


def cached(source, make):
    """The cast of ``source`` that ``make()`` gives, cached while the outermost autocast
    region lasts (PyTorch caches the lower-precision casts of float32 leaves that require
    grad, so a weight used twice is cast once and both uses share its ``ToCopyBackward0``)."""
    hit = _state.cache.get(id(source))
    if hit is not None and hit[0]() is source:
        return hit[1]
    out = make()
    _state.cache[id(source)] = (weakref.ref(source), out)
    return out
