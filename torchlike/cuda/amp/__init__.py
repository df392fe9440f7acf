"""``torchlike.cuda.amp``: PyTorch's deprecated per-device spellings of ``torchlike.amp``."""

from ...amp._device_forms import forms as _forms

_f = _forms("cuda")
autocast = _f["autocast"]
GradScaler = _f["GradScaler"]
custom_fwd = _f["custom_fwd"]
custom_bwd = _f["custom_bwd"]

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]
