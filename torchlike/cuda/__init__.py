"""``torchlike.cuda``: availability and device queries, mapped onto JAX's accelerator
backend ('cuda' means GPU, else TPU, as seen by JAX)."""

from __future__ import annotations

from .._core.device import _default_device_stack, accelerator_devices, device

__all__ = ["is_available", "device_count", "current_device", "get_device_name",
           "set_device", "synchronize", "manual_seed", "manual_seed_all", "is_initialized"]

_current = [0]


def is_available() -> bool:
    """Mirrors ``torch.cuda.is_available``: True when JAX has a GPU or TPU backend."""
    return bool(accelerator_devices())


def device_count() -> int:
    """Mirrors ``torch.cuda.device_count``."""
    return len(accelerator_devices())


def is_initialized() -> bool:
    return is_available()


def _check(idx: int) -> None:
    n = device_count()
    if n == 0:
        raise RuntimeError("no CUDA/accelerator device is available to JAX; torchlike.cuda "
                           "calls need a GPU or TPU backend")
    if not 0 <= idx < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal {idx} (device_count() = {n})")


def current_device() -> int:
    """Mirrors ``torch.cuda.current_device``."""
    _check(_current[0])
    return _current[0]


def set_device(d) -> None:
    """Mirrors ``torch.cuda.set_device`` (sets the default index used by 'cuda')."""
    idx = d if isinstance(d, int) else (device(d).index or 0)
    _check(idx)
    _current[0] = idx


def get_device_name(d=None) -> str:
    """Mirrors ``torch.cuda.get_device_name``: the JAX device's kind."""
    idx = _current[0] if d is None else (d if isinstance(d, int) else (device(d).index or 0))
    _check(idx)
    return accelerator_devices()[idx].device_kind


def synchronize(d=None) -> None:
    """Mirrors ``torch.cuda.synchronize``: waits for all pending JAX work."""
    import jax
    jax.effects_barrier()


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
