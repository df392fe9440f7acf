"""The older per-device spellings ``torchlike.cpu.amp`` and ``torchlike.cuda.amp``:
``autocast``, ``GradScaler`` (and for 'cuda' ``custom_fwd``/``custom_bwd``), which
PyTorch keeps with a FutureWarning pointing to ``torch.amp``."""

from __future__ import annotations

import functools
import warnings

from .._core import dtype as _dt
from . import autocast_mode as _am
from .grad_scaler import GradScaler as _GradScaler


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`{old}` is deprecated. Please use `{new}` instead.", FutureWarning,
                  stacklevel=3)


def forms(device: str) -> dict:
    """``autocast``, ``GradScaler``, ``custom_fwd`` and ``custom_bwd`` of
    ``torch.<device>.amp``."""
    default = _dt.bfloat16 if device == "cpu" else _dt.float16

    class autocast(_am.autocast):
        __doc__ = (f"Mirrors ``torch.{device}.amp.autocast(enabled, dtype, cache_enabled)``"
                   f" (deprecated): ``torchlike.amp.autocast('{device}', ...)``.")

        def __init__(self, enabled: bool = True, dtype: _dt.dtype = default,
                     cache_enabled: bool = True):
            _deprecated(f"torch.{device}.amp.autocast(args...)",
                        f"torch.amp.autocast('{device}', args...)")
            super().__init__(device, enabled=enabled, dtype=dtype,
                             cache_enabled=cache_enabled)

    class GradScaler(_GradScaler):
        __doc__ = (f"Mirrors ``torch.{device}.amp.GradScaler`` (deprecated): "
                   f"``torchlike.amp.GradScaler('{device}', ...)``.")

        def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                     backoff_factor: float = 0.5, growth_interval: int = 2000,
                     enabled: bool = True) -> None:
            _deprecated(f"torch.{device}.amp.GradScaler(args...)",
                        f"torch.amp.GradScaler('{device}', args...)")
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval,
                             enabled=enabled)

    def custom_fwd(fwd=None, *, cast_inputs=None):
        _deprecated(f"torch.{device}.amp.custom_fwd(args...)",
                    f"torch.amp.custom_fwd(args..., device_type='{device}')")
        return functools.partial(_am.custom_fwd, device_type=device)(
            fwd=fwd, cast_inputs=cast_inputs)

    def custom_bwd(bwd):
        _deprecated(f"torch.{device}.amp.custom_bwd(args...)",
                    f"torch.amp.custom_bwd(args..., device_type='{device}')")
        return functools.partial(_am.custom_bwd, device_type=device)(bwd)

    for obj in (autocast, GradScaler):
        obj.__module__ = f"torchlike.{device}.amp"
    return dict(autocast=autocast, GradScaler=GradScaler, custom_fwd=custom_fwd,
                custom_bwd=custom_bwd)
