"""Window and index factories: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``, ``tril_indices`` and ``triu_indices``.

Like the factories of creation.py they take no tensor inputs: they build NumPy data and
place it on the requested device. The windows follow PyTorch's recipes op by op in the
requested dtype (``arange`` in that dtype, then in-place multiplies, ``cos`` and adds),
so float32 and half-precision windows round where PyTorch's do: each step of a float16
or bfloat16 window computes in float32 with its scalar rounded to the dtype, then
rounds, as PyTorch's CPU kernels do.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import int_arg
from .bind import dtype_short_name
from .creation import place

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window", "tril_indices", "triu_indices"]

_MISSING = object()


def _options(dt: _dt.dtype, explicit: bool, device, layout: str = "Strided (default)") -> str:
    dev = "cpu" if device is None else str(device)
    return (f"TensorOptions(dtype={_dt.cpp_name(dt)}{'' if explicit else ' (default)'}, "
            f"device={dev}, layout={layout}, requires_grad=false (default), "
            f"pinned_memory=false, memory_format=(nullopt))")


def _is_strided(layout) -> bool:
    return layout is None or str(layout).rsplit(".", 1)[-1] == "strided"


# ---------------------------------------------------------------------------
# windows
def _overloads(name: str, extra: tuple) -> str:
    """PyTorch's list of a window function's overloads, for its TypeError."""
    kw = ("*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
          "None, bool pin_memory = False, bool requires_grad = False")
    params = ["int window_length", "bool periodic", *extra]
    return "\n".join(f" * ({', '.join(params[:k])}, {kw})" for k in range(1, len(params) + 1))


def _window_args(name: str, window_length, periodic, extra: tuple, dtype, layout, device):
    """Validate a window call as PyTorch does; (length, periodic, dtype, extra values)."""
    given = [periodic, *(v for _, v, _ in extra)]
    # each optional positional parameter needs the ones before it (PyTorch's overloads)
    for i in range(1, len(given)):
        if given[i] is not _MISSING and given[i - 1] is _MISSING:
            got = ["int"] + [f"{n}={type(v).__name__}" for n, v, _ in extra
                             if v is not _MISSING]
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({', '.join(got)}), but expected one of:\n"
                            + _overloads(name, tuple(f"float {n}" for n, _, _ in extra)))
    n = int_arg(name, "window_length", 1, window_length)
    if periodic is _MISSING:
        periodic = True
    elif not isinstance(periodic, (bool, np.bool_)):
        raise TypeError(f"{name}(): argument 'periodic' (position 2) must be bool, not "
                        f"{type(periodic).__name__}")
    values = []
    for i, (pname, v, default) in enumerate(extra):
        if v is _MISSING:
            v = default
        elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"{name}(): argument '{pname}' (position {i + 3}) must be "
                            f"float, not {type(v).__name__}")
        values.append(float(v))
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not _is_strided(layout):
        raise RuntimeError(f"{name} is not implemented for sparse types, got: "
                           + _options(dt, dtype is not None, device, "Sparse"))
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           + _options(dt, dtype is not None, device))
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={n}")
    return n, bool(periodic), dt, values


class _Steps:
    """Elementwise steps in a window's dtype, each rounded as PyTorch's CPU kernels round
    it: float64 in float64; float32 in float32; float16/bfloat16 in float32, rounded to
    the dtype after every step."""

    def __init__(self, dt: _dt.dtype):
        self.dt = dt.np
        self.work = np.float64 if dt is _dt.float64 else np.float32

    def arange(self, n: int) -> np.ndarray:
        return np.arange(n, dtype=np.float64).astype(self.dt)

    def __call__(self, f, *arrays) -> np.ndarray:
        """``f`` of the arrays (and Python scalars cast to the working precision)."""
        with np.errstate(all="ignore"):
            return f(*(a.astype(self.work) for a in arrays)).astype(self.dt)

    def c(self, x: float):
        """A Python scalar as PyTorch's ``mul_``/``add_`` use it: rounded to the dtype
        (for ``mul_`` because ATen passes the scalar as its first operand)."""
        return self.work(self.dt.type(x))


def _window(n: int, periodic: bool, dt: _dt.dtype, body, device,
            requires_grad: bool) -> Tensor:
    """PyTorch's shared shape of every window: empty for length 0, ``[1.]`` for length 1,
    else ``body(steps, N)`` for the symmetric window of length N (one longer, then cut,
    when ``periodic``)."""
    if n <= 1:
        return place(np.ones((n,), dt.np), device, requires_grad)
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                  f"'{dtype_short_name(dt)}'")
    size = n + 1 if periodic else n
    w = body(_Steps(dt), size)
    return place(np.ascontiguousarray(w[:n]), device, requires_grad)


def _hamming_body(alpha: float, beta: float):
    def body(st: _Steps, size: int) -> np.ndarray:
        w = st(lambda a: a * st.c(math.pi * 2.0 / (size - 1)), st.arange(size))
        w = st(np.cos, w)
        w = st(lambda a: a * st.c(-beta), w)
        return st(lambda a: a + st.c(alpha), w)
    return body


def hann_window(window_length: int, periodic: bool = _MISSING, *, dtype=None, layout=None,
                device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.hann_window``: ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``periodic``,
    the default, computes one more point and drops it). Floating-point (or, for lengths
    0 and 1, complex) dtypes only; default dtype ``torchlike.get_default_dtype()``.

    >>> import torchlike as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    n, periodic, dt, _ = _window_args("hann_window", window_length, periodic, (), dtype,
                                      layout, device)
    return _window(n, periodic, dt, _hamming_body(0.5, 0.5), device,
                   requires_grad)


def hamming_window(window_length: int, periodic: bool = _MISSING, alpha: float = _MISSING,
                   beta: float = _MISSING, *, dtype=None, layout=None, device=None,
                   pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.hamming_window``: ``alpha - beta cos(2 pi n / (N - 1))`` with
    ``alpha=0.54``, ``beta=0.46`` by default. As in PyTorch's overloads, ``alpha`` may
    only be given after ``periodic`` and ``beta`` after ``alpha``."""
    n, periodic, dt, (a, b) = _window_args(
        "hamming_window", window_length, periodic,
        (("alpha", alpha, 0.54), ("beta", beta, 0.46)), dtype, layout, device)
    return _window(n, periodic, dt, _hamming_body(a, b), device,
                   requires_grad)


def _blackman_body(st: _Steps, size: int) -> np.ndarray:
    w = st(lambda a: a * st.c(math.pi / (size - 1)), st.arange(size))
    w4 = st(lambda a: a * st.c(4), w)
    w4 = st(lambda a: a * st.c(0.08), st(np.cos, w4))
    w2 = st(lambda a: a * st.c(2), w)
    w2 = st(lambda a: a * st.c(0.5), st(np.cos, w2))
    return st(lambda a: a + st.c(0.42), st(operator.sub, w4, w2))


def blackman_window(window_length: int, periodic: bool = _MISSING, *, dtype=None,
                    layout=None, device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.blackman_window``: ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08
    cos(4 pi n / (N - 1))``, in PyTorch's order of operations (so its float32 ends are
    ``-2.98e-08``, not 0, as in PyTorch)."""
    n, periodic, dt, _ = _window_args("blackman_window", window_length, periodic, (), dtype,
                                      layout, device)
    return _window(n, periodic, dt, _blackman_body, device,
                   requires_grad)


def _bartlett_body(st: _Steps, size: int) -> np.ndarray:
    w = st(lambda a: a * st.c(2.0 / (size - 1)), st.arange(size))
    first_half = ((size - 1) >> 1) + 1
    tail = st(lambda a: a * st.c(-1), w[first_half:])
    w[first_half:] = st(lambda a: a + st.c(2), tail)
    return w


def bartlett_window(window_length: int, periodic: bool = _MISSING, *, dtype=None,
                    layout=None, device=None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.bartlett_window``: the triangular window ``1 - |2n / (N - 1) - 1|``."""
    n, periodic, dt, _ = _window_args("bartlett_window", window_length, periodic, (), dtype,
                                      layout, device)
    return _window(n, periodic, dt, _bartlett_body, device,
                   requires_grad)


def _kaiser_body(beta: float):
    def body(st: _Steps, size: int) -> np.ndarray:
        # PyTorch's kernel evaluates in float (double for float64) and rounds once. The
        # Bessel values here are NumPy's float64 ones rounded to that precision, so they
        # overflow to inf (and the window to nan) for a large beta where PyTorch's do
        a = st.arange(size).astype(np.float64)
        half = (size - 1) / 2.0
        ratio = (a - half) / half
        with np.errstate(all="ignore"):
            num = np.i0(beta * np.sqrt(np.abs(1.0 - ratio * ratio))).astype(st.work)
            return (num / st.work(np.i0(beta))).astype(st.dt)
    return body


def kaiser_window(window_length: int, periodic: bool = _MISSING, beta: float = _MISSING, *,
                  dtype=None, layout=None, device=None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.kaiser_window``: ``I0(beta sqrt(1 - (2n / (N - 1) - 1) ** 2)) /
    I0(beta)`` with ``beta=12.0`` by default (``beta`` only after ``periodic``, as in
    PyTorch's overloads). Difference: the float32 window comes from float64 Bessel
    values rounded once, where PyTorch evaluates them in float32 (within an ulp or so)."""
    n, periodic, dt, (b,) = _window_args("kaiser_window", window_length, periodic,
                                         (("beta", beta, 12.0),), dtype, layout, device)
    return _window(n, periodic, dt, _kaiser_body(b), device,
                   requires_grad)


# ---------------------------------------------------------------------------
# tril_indices / triu_indices
def _tri_indices(name: str, row, col, offset, dtype, layout, device, requires_grad,
                 lower: bool) -> Tensor:
    row = int_arg(name, "row", 1, row)
    col = int_arg(name, "col", 2, col)
    offset = int_arg(name, "offset", 3, offset)
    dt = _dt.int64 if dtype is None else _dt.to_dtype(dtype)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dt not in (_dt.int64, _dt.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype_short_name(dt)}'")
    if not _is_strided(layout):
        raise RuntimeError(f"{name}: only the strided layout is supported")
    r = np.arange(row, dtype=np.int64)[:, None]
    c = np.arange(col, dtype=np.int64)[None, :]
    keep = (c - r <= offset) if lower else (c - r >= offset)
    rows, cols = np.nonzero(keep)   # row-major order, as PyTorch lists them
    return place(np.stack([rows, cols]).astype(dt.np), device, requires_grad)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=_dt.int64, device=None,
                 layout=None, pin_memory: bool = False, requires_grad: bool = False
                 ) -> Tensor:
    """Mirrors ``torch.tril_indices``: a ``2 x N`` tensor of the (row, column) coordinates
    of the lower triangle of a ``row x col`` matrix (``offset`` moves the diagonal up),
    in row-major order. Only int64 and int32 dtypes, as in PyTorch.

    >>> import torchlike as torch
    >>> torch.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    return _tri_indices("tril_indices", row, col, offset, dtype, layout, device,
                        requires_grad, lower=True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=_dt.int64, device=None,
                 layout=None, pin_memory: bool = False, requires_grad: bool = False
                 ) -> Tensor:
    """Mirrors ``torch.triu_indices``: as ``tril_indices`` for the upper triangle
    (``column - row >= offset``)."""
    return _tri_indices("triu_indices", row, col, offset, dtype, layout, device,
                        requires_grad, lower=False)
