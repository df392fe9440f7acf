"""``torchlike.testing``: ``assert_close`` and ``make_tensor``, mirroring torch.testing."""

from __future__ import annotations

import numpy as np

from ._core import dtype as _dt
from ._core.tensor import Tensor

__all__ = ["assert_close", "make_tensor"]

# PyTorch's default tolerances per dtype: (rtol, atol)
_TOL = {_dt.float16: (1e-3, 1e-5), _dt.bfloat16: (1.6e-2, 1e-5), _dt.float32: (1.3e-6, 1e-5),
        _dt.float64: (1e-7, 1e-7), _dt.complex64: (1.3e-6, 1e-5),
        _dt.complex128: (1e-7, 1e-7)}


def _np(x):
    if isinstance(x, Tensor):
        a = np.asarray(x.detach()._value)
        return a.astype(np.float32) if x.dtype is _dt.bfloat16 else a
    return np.asarray(x)


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, msg=None) -> None:
    """Mirrors ``torch.testing.assert_close``: same shape, dtype (and device), values
    within ``atol + rtol * |expected|``; sequences and mappings compared element-wise.
    Raises ``AssertionError`` describing the mismatch."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != "
                                 f"{len(expected)}")
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError(f"The keys of the mappings do not match: {sorted(actual)} vs "
                                 f"{sorted(expected)}")
        for k in actual:
            assert_close(actual[k], expected[k], rtol=rtol, atol=atol, equal_nan=equal_nan,
                         check_device=check_device, check_dtype=check_dtype, msg=msg)
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if actual.shape != expected.shape:
            raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                                        f"{actual.shape} != {expected.shape}.")
        if check_dtype and actual.dtype is not expected.dtype:
            raise AssertionError(msg or f"The values for attribute 'dtype' do not match: "
                                        f"{actual.dtype} != {expected.dtype}.")
        if check_device and actual.device != expected.device:
            raise AssertionError(msg or f"The values for attribute 'device' do not match: "
                                        f"{actual.device} != {expected.device}.")
        dt = expected.dtype
    else:
        dt = _dt.float64 if isinstance(expected, float) else _dt.int64
    if rtol is None:
        rtol, atol = _TOL.get(dt, (0.0, 0.0))
    a, e = _np(actual), _np(expected)
    if a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer) and rtol == 0:
        bad = a != e
    else:
        a64, e64 = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64), \
            e.astype(np.complex128 if np.iscomplexobj(e) else np.float64)
        close = np.abs(a64 - e64) <= atol + rtol * np.abs(e64)
        close |= a64 == e64
        if equal_nan:
            close |= np.isnan(a64) & np.isnan(e64)
        bad = ~close
    if np.any(bad):
        n, total = int(np.sum(bad)), bad.size
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64)) if a.size else np.zeros(0)
        idx = np.unravel_index(int(np.nanargmax(np.where(bad, diff, -1))), bad.shape) \
            if bad.ndim else ()
        raise AssertionError(msg or (
            f"Tensor-likes are not close!\n\nMismatched elements: {n} / {total} "
            f"({100.0 * n / total:.1f}%)\nGreatest absolute difference: {float(np.max(diff))} "
            f"at index {tuple(int(i) for i in idx)} (up to {atol} allowed)\n"
            f"Relative tolerance: {rtol}"))


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None) -> Tensor:
    """Mirrors ``torch.testing.make_tensor`` (uniform values in [low, high)); a
    ``memory_format`` gives the result's strides (``clone(memory_format=...)``), and
    cannot be combined with ``noncontiguous``, as in PyTorch."""
    from ._ops.creation import tensor
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous!r} and "
                         f"memory_format={memory_format!r}")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    d = _dt.to_dtype(dtype)
    g = np.random.default_rng()
    if d is _dt.bool:
        a = g.random(shape) > 0.5
    elif d.is_floating_point or d.is_complex:
        lo, hi = (-9.0 if low is None else low), (9.0 if high is None else high)
        a = g.uniform(lo, hi, shape)
        if d.is_complex:
            a = a + 1j * g.uniform(lo, hi, shape)
    else:
        lo = (0 if d is _dt.uint8 else -9) if low is None else int(low)
        hi = 10 if high is None else int(high)
        a = g.integers(lo, hi, shape)
    if exclude_zero:
        a = np.where(a == 0, 1, a)
    t = tensor(np.asarray(a).astype(d.np), device=device)
    if memory_format is not None:
        t = t.clone(memory_format=memory_format)
    return t.requires_grad_() if requires_grad else t
