"""Named tuples returned by ops such as ``max(dim)``, ``sort`` and ``topk``, mirroring
``torch.return_types``."""

from __future__ import annotations

from collections import namedtuple

__all__ = ["make"]

_TYPES: dict = {}


def make(name: str, fields: tuple):
    t = _TYPES.get(name)
    if t is None:
        base = namedtuple(name, fields)

        def __repr__(self):
            inner = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torchlike.return_types.{name}(\n{inner})"
        t = type(name, (base,), {"__repr__": __repr__, "__slots__": (),
                                 "__module__": "torchlike.return_types"})
        _TYPES[name] = t
        globals()[name] = t
    return t
