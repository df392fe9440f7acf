"""``torchlike.backends.cudnn``: flags PyTorch code sets are accepted; XLA chooses its own
kernels, so ``benchmark``/``deterministic`` have no effect."""

from __future__ import annotations

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic",  # noqa: F822
           "allow_tf32"]   # allow_tf32: a property of the module class below

import sys
import types

enabled = True
benchmark = False
deterministic = False


class _CudnnModule(types.ModuleType):
    """``allow_tf32`` (True, as in PyTorch: convolutions may use TensorFloat-32 on an
    accelerator) is kept where the compiled programs read it; setting it drops the
    programs traced under the other value (Note [float32 matmul precision] in
    ``_core/xla.py``)."""

    @property
    def allow_tf32(self) -> bool:
        from .._core import xla
        return xla._conv_tf32[0]

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        from .._core import xla
        xla.set_float32_precisions(conv_tf32=bool(value))


sys.modules[__name__].__class__ = _CudnnModule


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
