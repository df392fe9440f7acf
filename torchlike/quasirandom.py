"""``torchlike.quasirandom``: mirrors ``torch.quasirandom``, the ``SobolEngine``.

The engine is host-side state, as PyTorch's (its tensors live on the CPU): the direction
numbers, the Gray-code position and the scrambling are integer bookkeeping done in NumPy,
and each draw returns a torchlike tensor.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from ._core import dtype as _dt
from ._core.dtype import get_default_dtype
from ._core.tensor import Tensor

__all__ = ["SobolEngine"]

# Note [Sobol direction numbers]
# PyTorch's SobolEngine uses Joe and Kuo's direction numbers (new-joe-kuo-6.21201, search
# criterion D(6), https://web.maths.unsw.edu.au/~fkuo/sobol/), compiled into ATen as the
# primitive polynomials ``poly[d]`` and the initial numbers ``initsobolstate[d][0:m]``
# (m the polynomial's degree, at most 18). ``_sobol_direction_numbers.npz`` holds the same
# numbers, taken from the table SciPy ships (scipy.stats.qmc, identical to PyTorch's:
# tests/test_quasirandom.py rebuilds the file from SciPy where it is installed and compares
# the state with torch._sobol_engine_initialize_state_ over all 21201 dimensions), packed:
# ``poly_steps`` are the differences of the increasing polynomials, and ``bits`` the
# numbers m_j (odd and below 2^(j+1)) as the j bits of (m_j - 1) / 2, dimension by
# dimension, j = 0..m-1. _initial_state extends them to MAXBIT columns with the
# polynomial's recurrence as ATen's _sobol_engine_initialize_state_ does.
#
# Note [Drawing Sobol points]
# ATen draws point i by XOR-ing the direction number of the rightmost zero bit of the
# counter into the running point. The XOR of the direction numbers of rightmost_zero(t),
# t < k, is the XOR of those at the set bits of k's Gray code k ^ (k >> 1), so a whole
# draw is computed at once: point i = start ^ G(c) ^ G(c + i + 1), G(k) that XOR. The
# integers are converted to the result dtype and then scaled by 2^-30, ATen's order (a
# float32 result rounds the 30-bit integer first), so unscrambled draws equal PyTorch's
# bit for bit. Scrambling is ATen's construction, a random lower-triangular binary matrix
# per dimension applied to the direction numbers (_scramble_state) and a random digital
# shift, with the bits drawn by torchlike's generators: the values differ from PyTorch's.

_MAXBIT = 30
_MAXDEG = 18
_DATA = os.path.join(os.path.dirname(__file__), "_sobol_direction_numbers.npz")


@functools.lru_cache(maxsize=1)
def _direction_numbers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(poly, degree, vinit) for all 21201 dimensions, vinit as ATen's initsobolstate."""
    with np.load(_DATA) as z:
        poly = np.cumsum(z["poly_steps"].astype(np.int64))
        bits = np.unpackbits(z["bits"]).astype(np.int64)
    degree = np.zeros(poly.shape, np.int64)
    while ((poly >> (degree + 1)) > 0).any():
        degree += (poly >> (degree + 1)) > 0
    mask = np.arange(_MAXDEG)[None, :] < degree[:, None]
    widths = np.broadcast_to(np.arange(_MAXDEG), mask.shape)[mask]
    offsets = np.concatenate([[0], np.cumsum(widths)[:-1]])
    half = np.zeros(widths.shape, np.int64)
    for b in range(_MAXDEG - 1):
        sel = widths > b
        half[sel] = (half[sel] << 1) | bits[offsets[sel] + b]
    vinit = np.zeros(mask.shape, np.int64)
    vinit[mask] = 2 * half + 1
    return poly, degree, vinit


def _initial_state(dimension: int) -> np.ndarray:
    """ATen's ``_sobol_engine_initialize_state_``: (dimension, MAXBIT) direction numbers
    scaled by 2^(MAXBIT - 1 - j)."""
    poly, degree, vinit = (a[:dimension] for a in _direction_numbers())
    v = np.zeros((dimension, _MAXBIT), np.int64)
    v[0] = 1
    rows = np.arange(1, dimension)
    p, m = poly[rows], degree[rows]
    v[rows, :_MAXDEG] = vinit[rows]
    for j in range(1, _MAXBIT):
        live = j >= m
        r, pj, mj = rows[live], p[live], m[live]
        newv = v[r, j - mj]
        for k in range(_MAXDEG):
            term = (k < mj) & (((pj >> np.maximum(mj - 1 - k, 0)) & 1) == 1)
            newv = newv ^ np.where(term, v[r, np.maximum(j - k - 1, 0)] << (k + 1), 0)
        v[r, j] = newv
    return v * (1 << np.arange(_MAXBIT - 1, -1, -1, dtype=np.int64))


def _parity(x: np.ndarray) -> np.ndarray:
    for s in (32, 16, 8, 4, 2, 1):
        x = x ^ (x >> s)
    return x & 1


def _scramble_state(state: np.ndarray, ltm: np.ndarray) -> np.ndarray:
    """ATen's ``_sobol_engine_scramble_``: row p of each lower-triangular matrix (with a
    unit diagonal, column 0 the top bit) gives bit MAXBIT - 1 - p of every scrambled
    direction number as the parity of its common bits with that number."""
    rows = ltm.copy()
    idx = np.arange(_MAXBIT)
    rows[:, idx, idx] = 1
    dots = (rows << np.arange(_MAXBIT - 1, -1, -1, dtype=np.int64)).sum(-1)  # (dim, MAXBIT)
    out = np.zeros_like(state)
    for p in range(_MAXBIT):
        out |= _parity(dots[:, p, None] & state) << (_MAXBIT - 1 - p)
    return out


def _gray_xor(state: np.ndarray, k: np.ndarray) -> np.ndarray:
    """G(k): the XOR of the direction numbers at the set bits of k's Gray code."""
    gray = k ^ (k >> 1)
    out = np.zeros((k.shape[0], state.shape[0]), np.int64)
    for b in range(_MAXBIT):
        out ^= ((gray >> b) & 1)[:, None] * state[None, :, b]
    return out


class SobolEngine:
    r"""Mirrors ``torch.quasirandom.SobolEngine``: a generator of (scrambled) Sobol
    sequences of up to 21201 dimensions, with Joe and Kuo's direction numbers (Note
    [Sobol direction numbers]).

    Unscrambled draws equal PyTorch's bit for bit. ``scramble=True`` builds PyTorch's
    random linear matrix scramble and digital shift from torchlike's generator (seeded
    with ``seed`` if given, else the default generator), so scrambled points are valid
    Sobol points but differ from PyTorch's.

    >>> SobolEngine(dimension=2).draw(3)
    tensor([[0.0000, 0.0000],
            [0.5000, 0.5000],
            [0.7500, 0.2500]])
    """

    MAXBIT = _MAXBIT
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        if not isinstance(dimension, (int, np.integer)):
            raise TypeError("zeros() takes 1 positional argument but 2 were given")
        self.seed = seed
        self.scramble = scramble
        self.dimension = int(dimension)
        self._state = _initial_state(self.dimension)
        if not self.scramble:
            self._shift = np.zeros(self.dimension, np.int64)
        else:
            self._scramble()
        self._quasi = self._shift.copy()
        first = self._quasi.astype(get_default_dtype().np) / 2 ** _MAXBIT
        self._first_point = _tensor(first.reshape(1, -1))
        self.num_generated = 0

    @property
    def sobolstate(self) -> Tensor:
        """The (dimension, MAXBIT) int64 direction numbers (scrambled if ``scramble``)."""
        return _tensor(self._state)

    @property
    def shift(self) -> Tensor:
        """The int64 digital shift (zeros without ``scramble``)."""
        return _tensor(self._shift)

    @property
    def quasi(self) -> Tensor:
        """The int64 running point: the last drawn point times 2^MAXBIT."""
        return _tensor(self._quasi)

    def draw(self, n: int = 1, out: Tensor | None = None,
             dtype: _dt.dtype | None = None) -> Tensor:
        """Mirrors ``SobolEngine.draw``: the next ``n`` points, shape ``(n, dimension)``,
        in ``dtype`` (default: the default dtype) or copied into ``out``."""
        if dtype is None:
            dtype = get_default_dtype()
        if self.num_generated == 0:
            if n == 1:
                result = self._first_point.to(dtype)
            else:
                result = self._draw(n - 1, 0, dtype)
                from . import cat
                result = cat((self._first_point.to(dtype), result), dim=-2)
        else:
            result = self._draw(n, self.num_generated - 1, dtype)
        self.num_generated += n
        if out is not None:
            out.resize_(tuple(result.shape)).copy_(result)
            return out
        return result

    def _draw(self, n: int, start: int, dtype: _dt.dtype) -> Tensor:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{n}, {self.dimension}]")
        if dtype not in (_dt.float32, _dt.float64):
            from ._ops.linalg import dtype_title
            raise NotImplementedError(
                f"\"_sobol_engine_draw\" not implemented for '{dtype_title(dtype)}'")
        ks = np.arange(start + 1, start + n + 1, dtype=np.int64)
        base = self._quasi ^ _gray_xor(self._state, np.array([start], np.int64))[0]
        points = base[None, :] ^ _gray_xor(self._state, ks)
        if n:
            self._quasi = points[-1].copy()
        np_dtype = dtype.np
        return _tensor(points.astype(np_dtype) * np_dtype.type(2.0 ** -_MAXBIT))

    def draw_base2(self, m: int, out: Tensor | None = None,
                   dtype: _dt.dtype | None = None) -> Tensor:
        """Mirrors ``SobolEngine.draw_base2``: the next ``2**m`` points; the total drawn
        must stay a power of two (the balance properties of Sobol points)."""
        n = 2 ** m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError(
                "The balance properties of Sobol' points require "
                f"n to be a power of 2. {self.num_generated} points have been "
                f"previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use 'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Mirrors ``SobolEngine.reset``: back to the first point; returns ``self``."""
        self._quasi = self._shift.copy()
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Mirrors ``SobolEngine.fast_forward``: skip ``n`` points; returns ``self``."""
        steps, start = (n - 1, 0) if self.num_generated == 0 else (n, self.num_generated - 1)
        if steps > 0:
            ends = np.array([start, start + steps], np.int64)
            g = _gray_xor(self._state, ends)
            self._quasi = self._quasi ^ g[0] ^ g[1]
        self.num_generated += n
        return self

    def _scramble(self) -> None:
        from ._core.random import Generator
        from ._ops.random import randint
        g = None
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        shift_bits = randint(2, (self.dimension, _MAXBIT), generator=g).numpy()
        self._shift = shift_bits.astype(np.int64) @ (1 << np.arange(_MAXBIT, dtype=np.int64))
        ltm = np.tril(randint(2, (self.dimension, _MAXBIT, _MAXBIT), generator=g).numpy())
        self._state = _scramble_state(self._state, ltm.astype(np.int64))

    def __repr__(self) -> str:
        fmt = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt += ["scramble=True"]
        if self.seed is not None:
            fmt += [f"seed={self.seed}"]
        return type(self).__name__ + "(" + ", ".join(fmt) + ")"


def _tensor(a: np.ndarray) -> Tensor:
    from ._ops.creation import tensor
    return tensor(a)
