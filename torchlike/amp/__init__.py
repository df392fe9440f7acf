"""``torchlike.amp``: automatic mixed precision, mirroring ``torch.amp``: ``autocast``
(Note [Autocast] in ``torchlike/_ops/autocast_policy.py``), ``GradScaler``,
``custom_fwd``/``custom_bwd`` and ``is_autocast_available``."""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
