"""``torchlike.cpu.amp``: PyTorch's deprecated per-device spellings of ``torchlike.amp``."""

from ...amp._device_forms import forms as _forms

_f = _forms("cpu")
autocast = _f["autocast"]
GradScaler = _f["GradScaler"]

__all__ = ["autocast", "GradScaler"]
