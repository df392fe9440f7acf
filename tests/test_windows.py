"""Window functions (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``) and the ``tril_indices``/``triu_indices``
factories, compared with PyTorch (values, dtypes, shapes, errors) and, where PyTorch is
absent too, with NumPy's windows and index functions."""

from __future__ import annotations


import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, dtype_name, same_error, torch

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]
NUMPY_WINDOWS = {"hann_window": np.hanning, "hamming_window": np.hamming,
                 "blackman_window": np.blackman, "bartlett_window": np.bartlett,
                 "kaiser_window": lambda n: np.kaiser(n, 12.0)}
FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
LENGTHS = [0, 1, 2, 3, 4, 5, 8, 33, 256, 3001]




def _tol(dt: str) -> dict:
    return {"float64": dict(rtol=1e-12, atol=1e-15), "float32": dict(rtol=1e-5, atol=3e-7)
            }.get(dt, dict(rtol=1e-3, atol=1e-3))


def _numpy_window(name: str, n: int, periodic: bool) -> np.ndarray:
    if n == 0:
        return np.zeros(0)
    if n == 1:
        return np.ones(1)
    return NUMPY_WINDOWS[name](n + 1)[:-1] if periodic else NUMPY_WINDOWS[name](n)


# ---------------------------------------------------------------------------
# windows
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("periodic", [True, False])
def test_window_values(name, dt, periodic):
    for n in LENGTHS:
        out = getattr(tl, name)(n, periodic, dtype=getattr(tl, dt))
        assert out.dtype is getattr(tl, dt) and tuple(out.shape) == (n,)
        assert not out.requires_grad and out.is_leaf
        if dt in ("float32", "float64") or n <= 256:
            # (a long half-precision window rounds its positions, as PyTorch's does)
            ref = _numpy_window(name, n, periodic)
            got = np.asarray(out.to(tl.float64))
            np.testing.assert_allclose(got, ref, atol=1e-6 if dt in ("float32", "float64")
                                       else 2e-2, err_msg=f"{name}({n}) vs NumPy")
        if HAVE_TORCH:
            assert_same(out, getattr(torch, name)(n, periodic, dtype=getattr(torch, dt)),
                        **_tol(dt))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", [w for w in WINDOWS if w != "kaiser_window"])
def test_half_precision_windows_round_as_pytorch(name, dt):
    # each step rounds to the dtype, so the result is bit for bit PyTorch's
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed")
    for n in (3, 4, 5, 7, 100, 2500):
        for periodic in (True, False):
            out = getattr(tl, name)(n, periodic, dtype=getattr(tl, dt))
            ref = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt))
            np.testing.assert_array_equal(np.asarray(out.float()), ref.float().numpy())


@pytest.mark.parametrize("name", WINDOWS)
def test_window_defaults(name):
    fn = getattr(tl, name)
    out = fn(6)
    assert out.dtype is tl.float32 and out.device.type == "cpu"
    np.testing.assert_allclose(np.asarray(out), _numpy_window(name, 6, True), atol=1e-6)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(fn(6, True)))
    np.testing.assert_array_equal(np.asarray(fn(6, periodic=False)), np.asarray(fn(6, False)))
    tl.set_default_dtype(tl.float64)
    try:
        assert fn(6).dtype is tl.float64
        assert fn(0).dtype is tl.float64 and fn(1).dtype is tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    t = fn(5, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    (t * t).sum().backward()
    np.testing.assert_allclose(np.asarray(t.grad), 2 * np.asarray(t.detach()), rtol=1e-6)
    assert fn(4, device="cpu").device.type == "cpu"
    assert fn(1, dtype=tl.complex64).dtype is tl.complex64
    assert fn(0, dtype=tl.complex128).shape == (0,)
    if HAVE_TORCH:
        assert_same(fn(6), getattr(torch, name)(6))
        assert_same(fn(1, dtype=tl.complex64), getattr(torch, name)(1, dtype=torch.complex64))


def test_hamming_and_kaiser_parameters():
    for args in [(7, True, 0.3), (7, False, 0.3, 0.2), (8, True, 1, 2), (5, False, 0.5, 0.5)]:
        out = tl.hamming_window(*args)
        n, periodic, alpha = args[:3]
        beta = args[3] if len(args) > 3 else 0.46
        size = n + 1 if periodic else n
        ref = alpha - beta * np.cos(2 * np.pi * np.arange(size) / (size - 1))
        np.testing.assert_allclose(np.asarray(out), ref[:n], atol=1e-6)
        if HAVE_TORCH:
            assert_same(out, torch.hamming_window(*args))
    np.testing.assert_allclose(np.asarray(tl.hamming_window(9, False, 0.5, 0.5)),
                               np.asarray(tl.hann_window(9, False)), atol=1e-7)
    for args in [(9, True, 0.5), (9, False, 5.0), (9, False, 0.0), (9, True, -3.0),
                 (2, False, 12.0), (64, True, 30.0)]:
        out = tl.kaiser_window(*args)
        n, periodic, beta = args
        ref = np.kaiser(n + 1, beta)[:-1] if periodic else np.kaiser(n, beta)
        np.testing.assert_allclose(np.asarray(out), ref, rtol=2e-6, atol=1e-7)
        if HAVE_TORCH:
            assert_same(out, torch.kaiser_window(*args))
            assert_same(tl.kaiser_window(*args, dtype=tl.float64),
                        torch.kaiser_window(*args, dtype=torch.float64), rtol=1e-12)
    # a beta whose Bessel value overflows float32 gives nan, as in PyTorch
    out = tl.kaiser_window(5, True, 100.0)
    assert np.isnan(np.asarray(out)[2]) and np.asarray(out)[0] == 0
    assert np.isfinite(np.asarray(tl.kaiser_window(5, True, 100.0, dtype=tl.float64))).all()
    if HAVE_TORCH:
        assert_same(out, torch.kaiser_window(5, True, 100.0))
        assert_same(tl.kaiser_window(5, True, 95.0, dtype=tl.float16),
                    torch.kaiser_window(5, True, 95.0, dtype=torch.float16))


@pytest.mark.parametrize("name", WINDOWS)
def test_window_errors(name):
    fn, tfn = getattr(tl, name), (getattr(torch, name) if HAVE_TORCH else None)
    for dt in ("int64", "int32", "uint8", "bool"):
        same_error(lambda: fn(4, dtype=getattr(tl, dt)),
                   lambda: tfn(4, dtype=getattr(torch, dt)), RuntimeError, match_text=True)
    # the dtype is checked before the length, for every length
    same_error(lambda: fn(-1, dtype=tl.int64), lambda: tfn(-1, dtype=torch.int64),
               RuntimeError, match_text=True)
    same_error(lambda: fn(0, dtype=tl.int64), lambda: tfn(0, dtype=torch.int64),
               RuntimeError, match_text=True)
    same_error(lambda: fn(-1), lambda: tfn(-1), RuntimeError, match_text=True)
    same_error(lambda: fn(-3, False), lambda: tfn(-3, False), RuntimeError, match_text=True)
    same_error(lambda: fn(3, dtype=tl.complex64), lambda: tfn(3, dtype=torch.complex64),
               NotImplementedError, match_text=True)
    same_error(lambda: fn(4.0), lambda: tfn(4.0), TypeError, match_text=True)
    same_error(lambda: fn(True), lambda: tfn(True), TypeError, match_text=True)
    same_error(lambda: fn(4, 1), lambda: tfn(4, 1), TypeError)
    same_error(lambda: fn(4, None), lambda: tfn(4, None), TypeError)
    same_error(lambda: fn(4, requires_grad=True, dtype=tl.int64),
               lambda: tfn(4, requires_grad=True, dtype=torch.int64), RuntimeError)
    if name not in ("hamming_window", "kaiser_window"):
        same_error(lambda: fn(4, True, 0.3), lambda: tfn(4, True, 0.3), TypeError)


def test_window_parameter_overloads():
    # PyTorch's overloads: alpha only after periodic, beta only after alpha (hamming);
    # beta only after periodic (kaiser)
    same_error(lambda: tl.hamming_window(5, alpha=1.0, beta=2.0),
               lambda: torch.hamming_window(5, alpha=1.0, beta=2.0), TypeError)
    same_error(lambda: tl.hamming_window(5, True, beta=2.0),
               lambda: torch.hamming_window(5, True, beta=2.0), TypeError)
    same_error(lambda: tl.kaiser_window(5, beta=2.0), lambda: torch.kaiser_window(5, beta=2.0),
               TypeError)
    same_error(lambda: tl.kaiser_window(5, True, "a"), lambda: torch.kaiser_window(5, True, "a"),
               TypeError)
    same_error(lambda: tl.kaiser_window(4, True, 0.3, 0.2),
               lambda: torch.kaiser_window(4, True, 0.3, 0.2), TypeError)
    out = tl.hamming_window(5, True, alpha=0.6)
    ref = 0.6 - 0.46 * np.cos(2 * np.pi * np.arange(6) / 5)
    np.testing.assert_allclose(np.asarray(out), ref[:5], atol=1e-6)
    np.testing.assert_allclose(np.asarray(tl.kaiser_window(5, periodic=False, beta=3.0)),
                               np.kaiser(5, 3.0), rtol=1e-6)
    # a 0-d integer tensor is an int
    np.testing.assert_array_equal(np.asarray(tl.hann_window(tl.tensor(3))),
                                  np.asarray(tl.hann_window(3)))


# ---------------------------------------------------------------------------
# tril_indices / triu_indices
TRI_CASES = [(3, 4, 0), (3, 4, 1), (3, 4, -1), (3, 4, -5), (3, 4, 10), (4, 3, 0), (5, 5, 2),
             (0, 4, 0), (4, 0, 0), (0, 0, 0), (1, 1, 0), (6, 2, -3), (2, 6, 3)]


@pytest.mark.parametrize("row,col,offset", TRI_CASES)
@pytest.mark.parametrize("lower", [True, False])
def test_tri_indices_values(row, col, offset, lower):
    name = "tril_indices" if lower else "triu_indices"
    out = getattr(tl, name)(row, col, offset)
    ref = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    assert out.dtype is tl.int64 and tuple(out.shape) == (2, len(ref[0]))
    np.testing.assert_array_equal(np.asarray(out), np.stack(ref).reshape(2, -1))
    if HAVE_TORCH:
        assert_same(out, getattr(torch, name)(row, col, offset))
        assert_same(getattr(tl, name)(row, col, offset, dtype=tl.int32),
                    getattr(torch, name)(row, col, offset, dtype=torch.int32))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices_arguments_and_errors(name):
    fn, tfn = getattr(tl, name), (getattr(torch, name) if HAVE_TORCH else None)
    out = fn(row=3, col=4, offset=1, dtype=None, device="cpu")
    assert out.dtype is tl.int64 and out.device.type == "cpu" and not out.requires_grad
    assert dtype_name(fn(3, 3, dtype=tl.int32)) == "int32"
    for dt in ("float32", "float64", "int16", "uint8", "bool"):
        same_error(lambda: fn(3, 4, dtype=getattr(tl, dt)),
                   lambda: tfn(3, 4, dtype=getattr(torch, dt)), NotImplementedError,
                   match_text=True)
    same_error(lambda: fn(-1, 4), lambda: tfn(-1, 4), RuntimeError, match_text=True)
    same_error(lambda: fn(3, -4), lambda: tfn(3, -4), RuntimeError, match_text=True)
    # the sizes are checked before the dtype
    same_error(lambda: fn(-1, 4, dtype=tl.float32), lambda: tfn(-1, 4, dtype=torch.float32),
               RuntimeError, match_text=True)
    same_error(lambda: fn(3.0, 4), lambda: tfn(3.0, 4), TypeError, match_text=True)
    same_error(lambda: fn(True, 4), lambda: tfn(True, 4), TypeError, match_text=True)
    same_error(lambda: fn(3, 4, 1.0), lambda: tfn(3, 4, 1.0), TypeError, match_text=True)
    same_error(lambda: fn(3), lambda: tfn(3), TypeError)
    same_error(lambda: fn(3, 4, 1, tl.int32), lambda: tfn(3, 4, 1, torch.int32), TypeError)
    same_error(lambda: fn(3, 4, requires_grad=True), lambda: tfn(3, 4, requires_grad=True),
               RuntimeError, match_text=True)
