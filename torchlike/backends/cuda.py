"""``torchlike.backends.cuda``."""

from __future__ import annotations

__all__ = ["is_built", "matmul"]


def is_built() -> bool:
    """Mirrors ``torch.backends.cuda.is_built``: whether the installed JAX has a GPU
    backend compiled in (it may still find no device)."""
    try:
        import jax
        jax.devices("gpu")
        return True
    except RuntimeError:
        return False


class _Matmul:
    allow_tf32 = False
    allow_bf16_reduced_precision_reduction = True
    allow_fp16_reduced_precision_reduction = True


matmul = _Matmul()
