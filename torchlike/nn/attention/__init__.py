"""``torchlike.nn.attention``: ``SDPBackend`` and ``sdpa_kernel``, as in
``torch.nn.attention``.

PyTorch picks one of several kernels for ``scaled_dot_product_attention`` (math, flash,
memory-efficient, cuDNN) and ``sdpa_kernel`` restricts the choice. Here the attention is
one program that XLA compiles and fuses for the device, whose values are those of
PyTorch's math backend; so ``sdpa_kernel`` checks its argument as PyTorch does and
remembers the backends (``current_backends``) for code that reads them back, but the
computation is the same whichever are named.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """Mirrors ``torch.nn.attention.SDPBackend`` (names and values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


_ALL = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
        SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]
_enabled: list = [list(_ALL)]


def current_backends() -> list:
    """The backends the innermost ``sdpa_kernel`` allows (all of them outside one)."""
    return list(_enabled[0])


@contextlib.contextmanager
def sdpa_kernel(backends: list | SDPBackend, set_priority: bool = False) -> Iterator[dict]:
    """Mirrors ``torch.nn.attention.sdpa_kernel``: the same argument check (an
    ``AssertionError`` naming the type otherwise), duplicates dropped, the previous
    backends restored on exit. Difference: which backends are allowed does not change
    what ``scaled_dot_product_attention`` computes (see the module's docstring)."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             f"SDPBackend instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    previous = _enabled[0]
    _enabled[0] = list(dict.fromkeys(backends))
    try:
        yield {}
    finally:
        _enabled[0] = previous
