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
    """``torch.backends.cuda.matmul``. ``allow_tf32`` is the older form of
    ``torchlike.set_float32_matmul_precision``: True is "high", False "highest" (reading
    it: whether the precision is below "highest"). The reduced-precision reduction flags
    are accepted; XLA picks its own accumulation."""

    allow_bf16_reduced_precision_reduction = True
    allow_fp16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        from .._core import xla
        return xla._precision[0] != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        from .._core import xla
        xla.set_float32_precisions(matmul="high" if value else "highest")


matmul = _Matmul()
