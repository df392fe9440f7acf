"""``torchlike.backends.cudnn``: flags PyTorch code sets are accepted; XLA chooses its own
kernels, so ``benchmark``/``deterministic`` have no effect."""

from __future__ import annotations

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def _gpus():
    try:
        import jax
        return jax.devices("gpu")
    except RuntimeError:
        return []


def is_available() -> bool:
    """Mirrors ``torch.backends.cudnn.is_available``: True when JAX has a GPU."""
    return bool(_gpus())


def version():
    """Mirrors ``torch.backends.cudnn.version``. JAX has no public API for the cuDNN
    version it links, so this is None (as on PyTorch's CPU build) even on a GPU."""
    return None
