"""``torchlike.cpu``: mirrors the parts of ``torch.cpu`` a training script uses."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "synchronize", "current_device"]


def is_available() -> bool:
    """Mirrors ``torch.cpu.is_available``: always True."""
    return True


def device_count() -> int:
    """Mirrors ``torch.cpu.device_count``: 1."""
    return 1


def current_device() -> str:
    """Mirrors ``torch.cpu.current_device``: 'cpu'."""
    return "cpu"


def synchronize(device=None) -> None:
    """Mirrors ``torch.cpu.synchronize``: waits for pending JAX work."""
    import jax
    jax.effects_barrier()


def __getattr__(name: str):
    if name == "amp":   # imported on first use: it needs the whole package
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module 'torchlike.cpu' has no attribute '{name}'")
