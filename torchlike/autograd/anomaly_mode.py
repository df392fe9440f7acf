"""Anomaly detection: ``detect_anomaly`` and ``set_detect_anomaly``.

Mirrors ``torch.autograd.anomaly_mode``. While enabled, every recorded node keeps the
Python stack of its forward call; a backward error then warns with that stack, and (with
``check_nan``) a node whose backward returns NaN raises
``Function 'DivBackward0' returned nan values in its 0th output.``
"""

from __future__ import annotations

import warnings

from .graph import _anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    """Mirrors ``torch.is_anomaly_enabled``."""
    return _anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Mirrors ``torch.is_anomaly_check_nan_enabled``."""
    return _anomaly.check_nan


class detect_anomaly:
    """Mirrors ``torch.autograd.detect_anomaly(check_nan=True)``: a context manager (and
    decorator) enabling anomaly detection inside."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _anomaly.enabled
        self.check_nan = check_nan
        self.prev_check_nan = _anomaly.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", UserWarning,
                      stacklevel=2)

    def __enter__(self) -> None:
        _anomaly.enabled = True
        _anomaly.check_nan = self.check_nan

    def __exit__(self, *args) -> None:
        _anomaly.enabled = self.prev
        _anomaly.check_nan = self.prev_check_nan

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.__class__(self.check_nan):
                return fn(*a, **k)
        return wrapper


class set_detect_anomaly:
    """Mirrors ``torch.autograd.set_detect_anomaly(mode, check_nan=True)``: takes effect at
    once; used as a context manager, restores the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _anomaly.enabled
        self.prev_check_nan = _anomaly.check_nan
        _anomaly.enabled = bool(mode)
        _anomaly.check_nan = bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _anomaly.enabled = self.prev
        _anomaly.check_nan = self.prev_check_nan
