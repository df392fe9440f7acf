"""The window functions of ``torch.signal.windows``, computed with ``jax.numpy``.

Each window follows PyTorch's recipe step by step in the requested dtype (float32 or
float64): a ``linspace`` of sample positions, built with PyTorch's symmetric formula
(``start + step * i`` for the first half, ``end - step * (M - 1 - i)`` for the second,
with ``step`` rounded to the dtype), then the elementwise waveform. So float32 windows
round close to where PyTorch's do (within an ulp or so of XLA's ``cos``/``exp``/``i0``).

The arguments are checked as PyTorch checks them, in the same order and with the same
exception types and messages: the length, the layout and the dtype first (``hann``,
``hamming``, ``general_hamming`` and ``nuttall`` report them under the name
``general_cosine``, as PyTorch's do, since they are built on it), then the window's own
parameters.

Difference from PyTorch: with ``requires_grad=True`` the window is a leaf tensor that
requires grad, where PyTorch's is the (non-leaf) output of the ops that computed it, with
a ``grad_fn`` (both require grad and take part in autograd alike). They agree where
PyTorch returns a factory's tensor: length 0, and length 1 of ``bartlett``, ``kaiser``
and the cosine sums.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from ..._core import dtype as _dt
from ..._core.device import device as Device, jax_device
from ..._core.layout import layout as Layout, strided
from ..._core.tensor import Tensor
from ..._ops._common import is_int_arg
from ..._ops.creation import place

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]

# the coefficients of the minimum 4-term Blackman-Harris window (Nuttall's)
_NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)
_BLACKMAN = (0.42, 0.5, 0.08)


# ---------------------------------------------------------------------------
# shared steps
def _checked_dtype(name: str, M: int, dtype: _dt.dtype | None, layout: Layout) -> _dt.dtype:
    """The window's dtype (the default dtype when None), after PyTorch's common checks:
    a non-negative length, the strided layout, float32 or float64."""
    if dtype is None:
        dtype = _dt.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in [_dt.float32, _dt.float64]:
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _filled(n: int, dtype: _dt.dtype, device, requires_grad: bool) -> Tensor:
    """The window of length 0 (empty) or 1 (``[1.]``)."""
    return place(np.ones((n,), dtype.np), device, bool(requires_grad))


def _type_name(v) -> str:
    """An argument's type as PyTorch's argument parser names it in its errors."""
    if isinstance(v, (Tensor, jax.Array)):
        return "Tensor"
    if isinstance(v, _dt.dtype):
        return "torchlike.dtype"
    if isinstance(v, Layout):
        return "torchlike.layout"
    if isinstance(v, Device):
        return "torchlike.device"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


_LINSPACE_OVERLOADS = "".join(
    f" * ({s} start, {e} end, int steps, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    for s, e in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                 ("Number", "Number")))


@contextlib.contextmanager
def _on_host():
    """Compute a window now, on the CPU: windows take no tensor inputs, so inside a
    traced function (``torchlike.compile``, ``vmap``) they are constants, as factories'
    tensors are."""
    with jax.ensure_compile_time_eval(), jax.default_device(jax_device("cpu")):
        yield


def _positions_and_waveform(waveform: Callable, size: int, dt: np.dtype, start, end, steps,
                            params: tuple) -> jax.Array:
    """``waveform(k, *params)`` for ``k`` PyTorch's ``linspace(start, end, steps)`` in
    ``dt``, padded to ``size`` points (the padding is garbage, cut off by the caller)."""
    i = jnp.arange(size)
    s, e = jnp.asarray(start, dt), jnp.asarray(end, dt)
    step = (e - s) / (steps - 1).astype(dt)
    k = jnp.where(i < steps // 2, s + step * i.astype(dt),
                  e - step * (steps - 1 - i).astype(dt))
    return waveform(jnp.where(steps == 1, s, k), *params)


# one compiled program per waveform, dtype and padded length (a power of two, at least
# 64), so that windows of many lengths share their programs
_evaluate = jax.jit(_positions_and_waveform, static_argnums=(0, 1, 2))


def _window(waveform: Callable, start, end, M, dtype: _dt.dtype, layout: Layout, device,
            requires_grad: bool, params: tuple = ()) -> Tensor:
    """``waveform(k, *params)`` for ``k`` the ``M`` evenly spaced positions from
    ``start`` to ``end`` (both included), in ``dtype``, placed on ``device``.

    The positions are PyTorch's ``linspace`` in the dtype; its argument check (an integer
    ``M``, a bool ``requires_grad``) raises the TypeError that PyTorch's ``linspace``
    raises inside its windows."""
    if not is_int_arg(M) or not isinstance(requires_grad, bool):
        got = (f"requires_grad={_type_name(requires_grad)}, device={_type_name(device)}, "
               f"layout={_type_name(layout)}, dtype={_type_name(dtype)}, "
               f"steps={_type_name(M)}, end={_type_name(end)}, start={_type_name(start)}, ")
        raise TypeError(f"linspace() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_LINSPACE_OVERLOADS}")
    steps = int(M)
    size = max(64, 1 << (steps - 1).bit_length())
    with _on_host():
        w = _evaluate(waveform, size, dtype.np, start, end, steps, params)
    return place(np.asarray(w)[:steps].copy(), device, requires_grad)


def _coefficients(a: Iterable, dtype: _dt.dtype) -> np.ndarray:
    """``a_i (-1)^i`` for each coefficient, as an array of ``dtype``."""
    values = []
    for i, w in enumerate(a):
        c = (-1) ** i * w
        if isinstance(c, Tensor):
            c = c.item()
        if isinstance(c, (complex, np.complexfloating)):
            raise TypeError(f"must be real number, not {type(c).__name__}")
        values.append(float(c))
    return np.asarray(values, dtype=np.float64).astype(dtype.np)


# the waveforms, of the positions k (module-level, so that their programs are reused)
def _decaying(k: jax.Array) -> jax.Array:
    return jnp.exp(-jnp.abs(k))


def _bell(k: jax.Array) -> jax.Array:
    return jnp.exp(-(k * k))


def _triangle(k: jax.Array) -> jax.Array:
    return 1 - jnp.abs(k)


def _kaiser(k: jax.Array, beta: jax.Array) -> jax.Array:
    return jsp.i0(jnp.sqrt(beta * beta - k * k)) / jsp.i0(beta)


def _cosine_sum(k: jax.Array, a: jax.Array) -> jax.Array:
    i = jnp.arange(a.shape[0], dtype=a.dtype)
    return jnp.sum(a[:, None] * jnp.cos(i[:, None] * k), axis=0)


# ---------------------------------------------------------------------------
# windows
def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.exponential``: the exponential (Poisson) window
    ``w_n = exp(-|n - c| / tau)``, ``c`` the ``center`` (by default ``(M - 1) / 2``, or
    ``M / 2`` when ``sym=False``; it may only be given with ``sym=False``). ``tau`` must
    be positive. Default dtype ``torchlike.get_default_dtype()``; float32 and float64
    only. Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.exponential(4, sym=False, tau=2.0)
    tensor([0.3679, 0.6065, 1.0000, 0.6065])
    """
    dtype = _checked_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    return _window(_decaying, -center * scale,
                   (M - 1 - center) * scale, M, dtype, layout, device, requires_grad)


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.cosine``: the cosine (sine) window of SciPy,
    ``w_n = sin(pi (n + 0.5) / M)`` (``M + 1`` in the denominator when ``sym=False``).
    Default dtype ``torchlike.get_default_dtype()``; float32 and float64 only.
    Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.cosine(3)
    tensor([0.5000, 1.0000, 0.5000])
    """
    dtype = _checked_dtype("cosine", M, dtype, layout)
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    return _window(jnp.sin, 0.5 * scale, (M - 0.5) * scale, M, dtype, layout, device,
                   requires_grad)


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.gaussian``: ``w_n = exp(-(n - c)^2 / (2 std^2))``
    centred on the middle of the window (``c = (M - 1) / 2``, or ``M / 2`` when
    ``sym=False``). ``std`` must be positive. Default dtype
    ``torchlike.get_default_dtype()``; float32 and float64 only. Difference: see the
    module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.gaussian(3)
    tensor([0.6065, 1.0000, 0.6065])
    """
    dtype = _checked_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    first = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    return _window(_bell, first * scale, (first + M - 1) * scale, M,
                   dtype, layout, device, requires_grad)


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.kaiser``: ``w_n = I0(beta sqrt(1 - ((n - N/2) /
    (N/2))^2)) / I0(beta)`` with ``N = M - 1`` (``M`` when ``sym=False``), ``I0`` the
    modified Bessel function of order 0. ``beta`` must be non-negative; it is rounded to
    the dtype first, so a ``beta`` whose ``I0`` overflows the dtype gives NaNs, as in
    PyTorch. Default dtype ``torchlike.get_default_dtype()``; float32 and float64 only.
    Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.kaiser(3, beta=0.0)
    tensor([1., 1., 1.])
    """
    dtype = _checked_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    if M == 1:
        return _filled(1, dtype, device, requires_grad)
    with _on_host():
        b = jnp.asarray(beta, dtype.np)
        first = -b
        # the last position, kept within beta where rounding would take it past
        last = jnp.minimum(b, first + (M - 1) * (2.0 * b / (M if not sym else M - 1)))
    return _window(_kaiser, first, last, M, dtype, layout, device, requires_grad, (b,))


def general_cosine(
    M: int,
    *,
    a: Iterable,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.general_cosine``: the sum of cosines
    ``w_n = sum_i (-1)^i a_i cos(2 pi i n / N)`` with ``N = M - 1`` (``M`` when
    ``sym=False``). ``a`` is any non-empty iterable of real numbers (a non-iterable is a
    TypeError; an empty list or tuple a ValueError; it is not read for lengths 0 and 1).
    Default dtype ``torchlike.get_default_dtype()``; float32 and float64 only.
    Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.general_cosine(5, a=[0.5, 0.5])
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _checked_dtype("general_cosine", M, dtype, layout)
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    if M == 1:
        return _filled(1, dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    scale = 2 * math.pi / (M if not sym else M - 1)
    return _window(_cosine_sum, 0, (M - 1) * scale, M, dtype, layout, device, requires_grad,
                   (_coefficients(a, dtype),))


def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.general_hamming``: ``w_n = alpha - (1 - alpha)
    cos(2 pi n / N)`` with ``N = M - 1`` (``M`` when ``sym=False``), i.e.
    ``general_cosine`` with ``a=[alpha, 1 - alpha]`` (its checks report the name
    ``general_cosine``, as PyTorch's do). Difference: see the module's note on
    ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.hamming``: ``w_n = 0.54 - 0.46 cos(2 pi n / N)``
    with ``N = M - 1`` (``M`` when ``sym=False``); ``general_hamming`` with its default
    ``alpha``. Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.hann``: ``w_n = 0.5 - 0.5 cos(2 pi n / N) =
    sin^2(pi n / N)`` with ``N = M - 1`` (``M`` when ``sym=False``); ``general_hamming``
    with ``alpha=0.5``. Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.hann(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.blackman``: ``w_n = 0.42 - 0.5 cos(2 pi n / N) +
    0.08 cos(4 pi n / N)`` with ``N = M - 1`` (``M`` when ``sym=False``); its ends are
    rounding noise around 0 (``-1.49e-08`` in float32), as in PyTorch. Default dtype
    ``torchlike.get_default_dtype()``; float32 and float64 only. Difference: see the
    module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.blackman(3, dtype=torchlike.float64)
    tensor([-1.3878e-17,  1.0000e+00, -1.3878e-17], dtype=torchlike.float64)
    """
    dtype = _checked_dtype("blackman", M, dtype, layout)
    return general_cosine(M, a=list(_BLACKMAN), sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.bartlett``: the triangular window ``w_n = 1 -
    |2n / N - 1|`` with ``N = M - 1`` (``M`` when ``sym=False``). Default dtype
    ``torchlike.get_default_dtype()``; float32 and float64 only. Difference: see the
    module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    dtype = _checked_dtype("bartlett", M, dtype, layout)
    if M == 0:
        return _filled(0, dtype, device, requires_grad)
    if M == 1:
        return _filled(1, dtype, device, requires_grad)
    step = 2 / (M if not sym else M - 1)
    return _window(_triangle, -1, -1 + (M - 1) * step, M, dtype, layout,
                   device, requires_grad)


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: _dt.dtype | None = None,
    layout: Layout = strided,
    device: Device | str | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """Mirrors ``torch.signal.windows.nuttall``: Nuttall's minimum 4-term
    Blackman-Harris window, ``general_cosine`` with ``a=[0.3635819, 0.4891775,
    0.1365995, 0.0106411]`` (its checks report the name ``general_cosine``, as PyTorch's
    do). Difference: see the module's note on ``requires_grad``.

    >>> import torchlike.signal.windows
    >>> torchlike.signal.windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])
    """
    return general_cosine(M, a=list(_NUTTALL), sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
