"""``torchlike.Size``: a tuple subclass printing like ``torch.Size``."""

from __future__ import annotations

__all__ = ["Size"]


class Size(tuple):
    """Mirrors ``torch.Size``: a tuple of ints; ``numel()`` gives the product."""

    def __new__(cls, seq=()):
        return super().__new__(cls, (int(s) for s in seq))

    def __repr__(self) -> str:
        return f"torchlike.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = super().__getitem__(item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __reduce__(self):
        return (Size, (tuple(self),))
