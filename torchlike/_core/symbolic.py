"""The ``torch.sym_*`` helpers, for code written to work on PyTorch's symbolic sizes.

torchlike's sizes are Python ints even while a compiled function is traced (a new shape
retraces), so these are the operations on plain numbers PyTorch's helpers reduce to for
non-symbolic values.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Iterable

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite",
           "sym_sum"]


def sym_int(a: Any) -> int:
    """Mirrors ``torch.sym_int``: ``int(a)`` (rounding toward zero)."""
    return math.trunc(a) if isinstance(a, float) else builtins.int(a)


def sym_float(a: Any) -> float:
    """Mirrors ``torch.sym_float``: ``float(a)``."""
    return builtins.float(a)


def sym_max(a: Any, b: Any) -> Any:
    """Mirrors ``torch.sym_max``: ``max(a, b)``, a float when either is one."""
    r = builtins.max(a, b)
    return builtins.float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_min(a: Any, b: Any) -> Any:
    """Mirrors ``torch.sym_min``: ``min(a, b)``, a float when either is one."""
    r = builtins.min(a, b)
    return builtins.float(r) if isinstance(a, float) or isinstance(b, float) else r


def sym_not(a: Any) -> bool:
    """Mirrors ``torch.sym_not``: ``not a``."""
    return not a


def sym_sqrt(a: Any) -> float:
    """Mirrors ``torch.sym_sqrt``: ``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """Mirrors ``torch.sym_ite``: ``t if b else f``."""
    return t if b else f


def sym_sum(args: Iterable[Any]) -> Any:
    """Mirrors ``torch.sym_sum``: ``sum(args)``."""
    return builtins.sum(args)
