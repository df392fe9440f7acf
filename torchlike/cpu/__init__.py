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
    """Mirrors ``torch.cpu.synchronize``: returns when every op issued to the CPU has
    finished. PyTorch's CPU ops finish before they return; JAX's run after the call
    returns, so this waits for every live CPU array and pending side effect."""
    from ..cuda.streams import drain
    drain("cpu")


def __getattr__(name: str):
    if name == "amp":   # imported on first use: it needs the whole package
        import importlib
        return importlib.import_module(__name__ + ".amp")
    raise AttributeError(f"module 'torchlike.cpu' has no attribute '{name}'")
