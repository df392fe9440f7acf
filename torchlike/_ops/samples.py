"""Sample inputs for the op table's parity tests.

Every public op declares ``samples``: a list of ``S(args, kwargs)`` in which NumPy arrays
stand for tensors. The tests build the same tensors in torchlike and in PyTorch, call
the op in both, and compare values, dtypes and shapes (and gradients for float inputs).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["S", "arr", "rng", "samples_of", "with_atol"]


@dataclass
class S:
    """One sample call: positional ``args`` and keyword ``kwargs``.

    ``grad``: also compare gradients w.r.t. the floating-point array arguments.
    ``method``: call as a Tensor method on the first argument instead of a function.
    ``rtol``/``atol``: comparison tolerances.
    """

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    grad: bool = True
    method: bool = False
    rtol: float = 1e-5
    atol: float = 1e-6
    note: str = ""

    def __init__(self, *args, grad=True, method=False, rtol=1e-5, atol=1e-6, note="",
                 **kwargs):
        self.args, self.kwargs = args, kwargs
        self.grad, self.method, self.rtol, self.atol, self.note = grad, method, rtol, atol, note


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


_counter = [0]


def arr(*shape, dtype: str = "float32", low: float = -2.0, high: float = 2.0,
        seed: int | None = None, positive: bool = False) -> np.ndarray:
    """A deterministic random array of ``shape`` and ``dtype``."""
    if seed is None:
        _counter[0] += 1
        seed = _counter[0]
    g = rng(seed)
    if positive:
        low, high = 0.1, max(high, 1.0)
    if dtype == "bool":
        return g.random(shape) > 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        lo = 0 if dtype == "uint8" else int(low) * 3
        return g.integers(lo, int(high) * 3 + 1, size=shape).astype(dtype)
    if dtype.startswith("complex"):
        return (g.uniform(low, high, shape) + 1j * g.uniform(low, high, shape)).astype(dtype)
    a = g.uniform(low, high, shape)
    if dtype == "bfloat16":
        import ml_dtypes
        return a.astype(ml_dtypes.bfloat16)
    return a.astype(dtype)


def samples_of(spec) -> list:
    """``spec``'s samples with values that depend only on the op's name, not on how many
    arrays other ops drew before it (so every test process sees the same inputs)."""
    import zlib
    if not spec.samples:
        return []
    saved = _counter[0]
    _counter[0] = zlib.crc32(spec.name.encode()) % 1_000_000
    try:
        return spec.samples()
    finally:
        _counter[0] = saved


def with_atol(name: str, atol: float) -> None:
    """Compare op ``name``'s samples with at least absolute tolerance ``atol`` (for values
    near zero that come from long float32 sums or from libm functions at their zeros)."""
    from .spec import OPS
    spec = OPS[name]
    inner = spec.samples

    def samples():
        out = inner()
        for smp in out:
            smp.atol = max(smp.atol, atol)
        return out
    spec.samples = samples
