"""Signal processing, as ``torch.signal``: the window functions of
``torchlike.signal.windows``."""

from . import windows

__all__ = ["windows"]
