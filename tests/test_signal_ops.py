"""``stft``, ``istft`` and ``gradient`` beyond the op table's samples: round trips, known
values, PyTorch's errors (type and message), warnings, autograd node names, and
``gradient``'s tuple results for each spacing form and edge order (values and
gradients), on float32, float64 and complex inputs.

Without PyTorch only the comparisons are skipped: round trips and known values still
hold torchlike to PyTorch's semantics, and every error case must still raise."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.spectral import (ISTFT_WINDOW_WARNING, LENGTH_WARNING,
                                     RETURN_COMPLEX_WARNING, STFT_WINDOW_WARNING)

from ._parity import FWS, HAVE_TORCH, assert_same, error_like_torch, fw_module, torch

RNG = np.random.default_rng(0)
X1 = RNG.standard_normal(20).astype(np.float32)            # one signal
XB = RNG.standard_normal((2, 20)).astype(np.float32)       # a batch of two
W8 = RNG.uniform(0.5, 1.5, 8).astype(np.float32)           # a window without zeros
SPEC = (RNG.standard_normal((5, 11)) + 1j * RNG.standard_normal((5, 11))).astype(np.complex64)
GRID = np.array([[1., 2, 4, 8], [10, 20, 40, 80], [3, 5, 7, 9]], np.float32)
C0 = np.array([0., 1, 3], np.float32)                      # uneven coordinates, dim 0
C1 = np.array([0., 1, 1.5, 3.5], np.float32)               # uneven coordinates, dim 1


def _np(t) -> np.ndarray:
    if isinstance(t, tl.Tensor):
        return np.asarray(t.detach())
    return t.detach().resolve_conj().numpy()


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# ---------------------------------------------------------------------------
# stft / istft: round trips and known values (run with or without PyTorch)
@pytest.mark.parametrize("fw", FWS)
def test_round_trip_float32_with_window(fw):
    m = fw_module(fw)
    x, w = m.tensor(XB), m.hann_window(8)
    spec = m.stft(x, 8, hop_length=2, window=w, return_complex=True)
    assert tuple(spec.shape) == (2, 5, 11) and spec.dtype == m.complex64
    y = m.istft(spec, 8, hop_length=2, window=w)
    assert y.dtype == m.float32
    np.testing.assert_allclose(_np(y), XB, atol=1e-5)


def test_round_trip_float64_trimmed_length():
    x = tl.tensor(X1.astype(np.float64))
    w = tl.tensor(W8.astype(np.float64))
    spec = tl.stft(x, 8, window=w, center=False, return_complex=True)
    assert spec.dtype == tl.complex128 and tuple(spec.shape) == (5, 7)
    y = tl.istft(spec, 8, window=w, center=False, length=18)
    assert y.dtype == tl.float64 and tuple(y.shape) == (18,)
    np.testing.assert_allclose(np.asarray(y), X1[:18].astype(np.float64), atol=1e-12)


def test_round_trip_complex_signal():
    x = tl.tensor(X1 + 1j * X1[::-1])
    spec = _quiet(lambda: tl.stft(x, 8))                    # complex: two-sided, complex
    assert tuple(spec.shape) == (8, 11) and spec.dtype == tl.complex64
    y = _quiet(lambda: tl.istft(spec, 8, return_complex=True))
    np.testing.assert_allclose(np.asarray(y), X1 + 1j * X1[::-1], atol=1e-5)


def test_round_trip_backward_gives_ones():
    """``istft(stft(x))`` is the identity, so its gradient is all ones."""
    x = tl.tensor(X1, requires_grad=True)
    w = tl.tensor(W8)
    y = tl.istft(tl.stft(x, 8, window=w, return_complex=True), 8, window=w)
    y.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), np.ones(20), atol=1e-5)


def test_stft_known_values():
    """Frames of ones: all the energy in the zero-frequency bin; normalized divides by
    sqrt(n_fft); the real view puts real and imaginary parts last."""
    ones = tl.ones(8)
    spec = tl.stft(ones, 4, hop_length=4, window=tl.ones(4), center=False,
                   return_complex=True)
    np.testing.assert_allclose(np.asarray(spec), [[4, 4], [0, 0], [0, 0]], atol=1e-6)
    spec = tl.stft(ones, 4, hop_length=4, window=tl.ones(4), center=False,
                   normalized=True, return_complex=True)
    np.testing.assert_allclose(np.asarray(spec)[0], [2, 2], atol=1e-6)
    real = _quiet(lambda: tl.stft(ones, 4, hop_length=4, window=tl.ones(4), center=False,
                                  return_complex=False))
    assert tuple(real.shape) == (3, 2, 2) and real.dtype == tl.float32
    np.testing.assert_allclose(np.asarray(real)[0], [[4, 0], [4, 0]], atol=1e-6)
    # a shorter window is zero-padded on both sides: [0, 1, 1, 0]
    spec = tl.stft(ones, 4, hop_length=4, win_length=2, window=tl.ones(2), center=False,
                   onesided=False, return_complex=True)
    np.testing.assert_allclose(np.asarray(spec)[:, 0], [2, -1 - 1j, 0, -1 + 1j], atol=1e-6)


def test_istft_length_pads_with_zeros():
    """The frames reach 24 samples past the centre padding; a longer ``length`` ends in
    zeros, a shorter one cuts the same samples."""
    full = _quiet(lambda: tl.istft(tl.tensor(SPEC), 8, length=24))
    y = _quiet(lambda: tl.istft(tl.tensor(SPEC), 8, length=26))
    assert tuple(y.shape) == (26,)
    np.testing.assert_array_equal(np.asarray(y)[24:], [0, 0])
    np.testing.assert_allclose(np.asarray(y)[:24], np.asarray(full), rtol=1e-6)


# ---------------------------------------------------------------------------
# stft / istft against PyTorch: values of calls the samples do not cover, node names
def _parity(case, rtol=1e-5, atol=1e-5):
    out = _quiet(lambda: case(tl))
    if HAVE_TORCH:
        assert_same(out, _quiet(lambda: case(torch)), rtol=rtol, atol=atol)
    return out


def test_stft_dtypes_like_torch():
    # float32 signal, float64 window: the frames are promoted, the result complex128
    out = _parity(lambda m: m.stft(m.tensor(X1), 8, window=m.tensor(W8).double(),
                                   return_complex=True))
    assert out.dtype == tl.complex128
    # half signal with a float32 window: computed in float32
    out = _parity(lambda m: m.stft(m.tensor(X1).half(), 8, window=m.tensor(W8),
                                   return_complex=True), atol=1e-2, rtol=1e-2)
    assert out.dtype == tl.complex64
    # istft: complex64 input, float64 window gives float64
    out = _parity(lambda m: m.istft(m.tensor(SPEC), 8, window=m.tensor(W8).double()))
    assert out.dtype == tl.float64


@pytest.mark.parametrize("kwargs,name", [
    (dict(return_complex=True), "SqueezeBackward4"),
    (dict(return_complex=False), "ViewAsRealBackward0"),
])
def test_stft_grad_fn_names(kwargs, name):
    x = tl.tensor(X1, requires_grad=True)
    assert _quiet(lambda: tl.stft(x, 8, **kwargs)).grad_fn.name() == name
    xb = tl.tensor(XB, requires_grad=True)
    out = _quiet(lambda: tl.stft(xb, 8, return_complex=True))
    assert out.grad_fn.name() == "TransposeBackward1"
    if HAVE_TORCH:
        t = torch.tensor(X1, requires_grad=True)
        assert _quiet(lambda: torch.stft(t, 8, **kwargs)).grad_fn.name() == name


@pytest.mark.parametrize("batched,length,name", [
    (False, None, "SqueezeBackward1"), (True, None, "DivBackward0"),
    (False, 30, "ConstantPadNdBackward0"),
])
def test_istft_grad_fn_names(batched, length, name):
    spec = tl.tensor(SPEC[None] if batched else SPEC, requires_grad=True)
    out = _quiet(lambda: tl.istft(spec, 8, length=length))
    assert out.grad_fn.name() == name
    if HAVE_TORCH:
        t = torch.tensor(SPEC[None] if batched else SPEC, requires_grad=True)
        assert _quiet(lambda: torch.istft(t, 8, length=length)).grad_fn.name() == name


def test_window_gradient_like_torch():
    def run(m):
        x = m.tensor(X1)
        w = m.tensor(W8, requires_grad=True)
        y = m.istft(m.stft(x * 2, 8, window=w, return_complex=True) * 0.5, 8, window=w)
        (y * m.arange(20.)).sum().backward()
        return w.grad
    out = run(tl)
    if HAVE_TORCH:
        assert_same(out, run(torch), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------
# errors: type and message as PyTorch's
STFT_ERRORS = {
    "return_complex missing": lambda m, x: m.stft(x, 8),
    "n_fft zero": lambda m, x: m.stft(x, 0, return_complex=True),
    "n_fft too long": lambda m, x: m.stft(x, 30, center=False, win_length=10,
                                          return_complex=True),
    "hop_length": lambda m, x: m.stft(x, 8, hop_length=0, return_complex=True),
    "win_length": lambda m, x: m.stft(x, 8, win_length=9, return_complex=True),
    "window size": lambda m, x: m.stft(x, 8, window=m.ones(7), return_complex=True),
    "window rank": lambda m, x: m.stft(x, 8, window=m.ones(2, 4), return_complex=True),
    "3-d input": lambda m, x: m.stft(x.reshape(1, 2, 10), 8, return_complex=True),
    "0-d input": lambda m, x: m.stft(x[0], 8, return_complex=True),
    "0-d constant pad": lambda m, x: m.stft(x[0], 8, pad_mode="constant",
                                            return_complex=True),
    "pad mode": lambda m, x: m.stft(x, 8, pad_mode="foo", return_complex=True),
    "reflect too long": lambda m, x: m.stft(x, 40, return_complex=True),
    "circular too long": lambda m, x: m.stft(x, 42, pad_mode="circular",
                                             return_complex=True),
    "empty signal": lambda m, x: m.stft(x[:0], 8, return_complex=True),
    "integer input": lambda m, x: m.stft(x.long(), 8, return_complex=True),
    "bool reflect": lambda m, x: m.stft(x > 0, 8, return_complex=True),
    "bool uncentered": lambda m, x: m.stft(x > 0, 8, center=False, return_complex=True),
    "half": lambda m, x: m.stft(x.half(), 8, return_complex=True),
    "onesided complex": lambda m, x: m.stft(x.to(m.complex64), 8, onesided=True),
    "align with center": lambda m, x: m.stft(x, 8, align_to_window=True,
                                             return_complex=True),
    "aligned frames past the end": lambda m, x: m.stft(
        m.stack([x, x]), 8, hop_length=3, win_length=5, center=False,
        align_to_window=True, return_complex=True),
    "not a tensor": lambda m, x: m.stft([1.0, 2.0], 8, return_complex=True),
}

ISTFT_ERRORS = {
    "real input": lambda m, s: m.istft(s.real, 8),
    "5-d real view": lambda m, s: m.istft(s[None, None], 8),
    "1-d input": lambda m, s: m.istft(s[0], 8),
    "empty": lambda m, s: m.istft(s[:, :0], 8),
    "onesided size": lambda m, s: m.istft(s, 10),
    "twosided size": lambda m, s: m.istft(s, 8, onesided=False),
    "hop_length": lambda m, s: m.istft(s, 8, hop_length=9),
    "win_length": lambda m, s: m.istft(s, 8, win_length=9),
    "window shape": lambda m, s: m.istft(s, 8, window=m.ones(7)),
    "onesided complex": lambda m, s: m.istft(s, 8, return_complex=True),
    "complex window": lambda m, s: m.istft(s, 8, window=m.ones(8, dtype=m.complex64)),
    "NOLA zero window": lambda m, s: m.istft(s, 8, window=m.zeros(8)),
    "NOLA gaps": lambda m, s: m.istft(s, 8, win_length=4, hop_length=4, center=False),
    "empty envelope": lambda m, s: m.istft(s, 8, length=0),
    "n_fft type": lambda m, s: m.istft(s, 8.0),
    "hop_length type": lambda m, s: m.istft(s, 8, hop_length=2.0),
    "center type": lambda m, s: m.istft(s, 8, center=1),
    "not a tensor": lambda m, s: m.istft([1.0], 8),
}


@pytest.mark.parametrize("case", list(STFT_ERRORS), ids=list(STFT_ERRORS))
def test_stft_errors(case):
    fn = STFT_ERRORS[case]
    error_like_torch(lambda m: _quiet(lambda: fn(m, m.tensor(X1))))


@pytest.mark.parametrize("case", list(ISTFT_ERRORS), ids=list(ISTFT_ERRORS))
def test_istft_errors(case):
    fn = ISTFT_ERRORS[case]
    error_like_torch(lambda m: _quiet(lambda: fn(m, m.tensor(SPEC))))


def test_stft_error_messages_without_torch():
    """The messages PyTorch gives (checked here without PyTorch too)."""
    x = tl.tensor(X1)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter"):
        _quiet(lambda: tl.stft(x, 8))
    with pytest.raises(RuntimeError) as e:
        _quiet(lambda: tl.stft(x, 8, hop_length=0, return_complex=True))
    assert str(e.value) == (
        "stft(torch.FloatTensor[28], n_fft=8, hop_length=0, win_length=8, window=None, "
        "normalized=0, onesided=None, return_complex=1, align_to_window=None) : expected "
        "hop_length > 0, but got hop_length=0")
    with pytest.raises(RuntimeError) as e:
        _quiet(lambda: tl.istft(tl.tensor(SPEC), 8, window=tl.zeros(8)))
    assert str(e.value) == (
        "istft(CPUComplexFloatType[5, 11], n_fft=8, hop_length=2, win_length=8, "
        "window=torch.FloatTensor{[8]}, center=1, normalized=0, onesided=None, "
        "length=None, return_complex=0) window overlap add min: 1\n[ CPUBoolType{} ]")


def test_stft_type_errors_first_line():
    """PyTorch's argument parser: same type and first line of the message."""
    for kwargs in (dict(n_fft=8.0), dict(n_fft=8, hop_length=2.5),
                   dict(n_fft=8, return_complex=1)):
        kwargs.setdefault("return_complex", True)
        with pytest.raises(TypeError) as e:
            _quiet(lambda: tl.stft(tl.tensor(X1), **kwargs))
        if HAVE_TORCH:
            with pytest.raises(TypeError) as r:
                _quiet(lambda: torch.stft(torch.tensor(X1), **kwargs))
            assert str(e.value).split("\n")[:3] == str(r.value).split("\n")[:3]


# ---------------------------------------------------------------------------
# warnings
def _warnings_of(fn) -> list:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in got]


def test_stft_warnings():
    x = tl.tensor(X1)
    assert (UserWarning, RETURN_COMPLEX_WARNING) in _warnings_of(
        lambda: tl.stft(x, 8, window=tl.ones(8), return_complex=False))
    assert (UserWarning, STFT_WINDOW_WARNING) in _warnings_of(
        lambda: tl.stft(x, 8, return_complex=True))
    assert _warnings_of(lambda: tl.stft(x, 8, window=tl.ones(8), return_complex=True)) == []


def test_istft_warnings():
    spec = tl.tensor(SPEC)
    assert (UserWarning, ISTFT_WINDOW_WARNING) in _warnings_of(lambda: tl.istft(spec, 8))
    assert (UserWarning, LENGTH_WARNING) in _warnings_of(
        lambda: tl.istft(spec, 8, window=tl.ones(8), length=25))
    assert _warnings_of(lambda: tl.istft(spec, 8, window=tl.ones(8), length=20)) == []


def test_warning_texts_are_torchs():
    """PyTorch gives these warnings once per process, so a fresh interpreter collects
    them; each of torchlike's is the start of PyTorch's (which adds where in its C++
    sources it was triggered)."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed")
    script = (
        "import json, warnings, torch\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as got:\n"
        "    warnings.simplefilter('always')\n"
        "    s = torch.stft(torch.ones(20), 8, return_complex=False)\n"
        "    torch.istft(torch.view_as_complex(s), 8, length=25)\n"
        "print(json.dumps([str(w.message) for w in got]))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    texts = json.loads(out.strip().splitlines()[-1])
    for mine in (STFT_WINDOW_WARNING, RETURN_COMPLEX_WARNING, ISTFT_WINDOW_WARNING,
                 LENGTH_WARNING):
        assert any(t.startswith(mine) for t in texts), (mine, texts)


# ---------------------------------------------------------------------------
# gradient: every spacing form and edge order, values and gradients
def _tensors(m, spec):
    """Build ``spec`` (NumPy arrays, numbers, lists of them) in framework ``m``; the
    leaves that require grad are returned too."""
    leaves = []

    def build(v):
        if isinstance(v, np.ndarray):
            t = m.tensor(v, requires_grad=v.dtype.kind in "fc")
            if t.requires_grad:
                leaves.append(t)
            return t
        if isinstance(v, list):
            return [build(e) for e in v]
        return v
    return build(spec), leaves


GRADIENT_CASES = {
    "default": (GRID, {}),
    "scalar": (GRID, dict(spacing=2.0)),
    "int scalar": (GRID, dict(spacing=2)),
    "scalars": (GRID, dict(spacing=[2.0, 0.5])),
    "scalar, dim int": (GRID, dict(spacing=0.5, dim=1)),
    "scalars, dim list": (GRID, dict(spacing=[3.0, 2.0], dim=[1, 0])),
    "coordinates": (GRID, dict(spacing=[C0, C1])),
    "coordinates, dim int": (GRID, dict(spacing=[C1], dim=-1)),
    "edge 2": (GRID, dict(edge_order=2)),
    "edge 2 scalars": (GRID, dict(spacing=[2.0, 0.5], edge_order=2)),
    "edge 2 coordinates": (GRID, dict(spacing=[C0, C1], edge_order=2)),
    "float64 coordinates": (GRID.astype(np.float64), dict(spacing=[C0.astype(np.float64)],
                                                          dim=0, edge_order=2)),
    "complex": ((GRID + 1j * GRID[::-1]).astype(np.complex64), dict(spacing=[C0, C1])),
    "complex spacing": (GRID[0], dict(spacing=1j)),
    "integer": (np.arange(5), dict(spacing=2)),
    "integer coordinates": (np.arange(5), dict(spacing=[np.arange(5) ** 2], edge_order=2)),
    "0-d": (np.array(3.0, np.float32), {}),
}


@pytest.mark.parametrize("case", list(GRADIENT_CASES), ids=list(GRADIENT_CASES))
def test_gradient_values_and_gradients(case):
    data, kwargs = GRADIENT_CASES[case]

    def run(m):
        (x, spacing), leaves = _tensors(m, [data, kwargs.get("spacing", 1)])
        kw = dict(kwargs)
        if "spacing" in kw:
            kw["spacing"] = spacing
        outs = m.gradient(x, **kw)
        assert isinstance(outs, tuple)
        grads = None
        if leaves:
            loss = sum((o.abs() if o.is_complex() else o).sum() * (i + 1)
                       for i, o in enumerate(outs) if o.requires_grad)
            if isinstance(loss, m.Tensor):
                grads = tuple(g for g in m.autograd.grad(loss, leaves, allow_unused=True))
        return outs, grads
    outs, grads = run(tl)
    if HAVE_TORCH:
        ref_outs, ref_grads = run(torch)
        assert_same(outs, ref_outs, rtol=1e-6, atol=1e-6)
        if ref_grads is not None:
            assert_same(grads, ref_grads, rtol=1e-5, atol=1e-5)


def test_gradient_known_values():
    """Without PyTorch too: the documented examples and exact derivatives."""
    (g,) = tl.gradient(tl.tensor([1., 2., 4., 8.]))
    np.testing.assert_allclose(np.asarray(g), [1., 1.5, 3., 4.])
    g0, g1 = tl.gradient(tl.tensor(GRID), spacing=2.0)
    np.testing.assert_allclose(np.asarray(g1)[0], [0.5, 0.75, 1.5, 2.0])
    np.testing.assert_allclose(np.asarray(g0)[:, 0], [4.5, 0.5, -3.5])
    # second-order formulas are exact for a quadratic, also on uneven coordinates
    c = tl.tensor([0., 0.5, 1.5, 2., 3.5], dtype=tl.float64)
    (g,) = tl.gradient(c ** 2, spacing=[c], edge_order=2)
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(c), atol=1e-12)
    (g,) = tl.gradient(tl.arange(6.) ** 2, spacing=1.0, edge_order=2)
    np.testing.assert_allclose(np.asarray(g), 2 * np.arange(6.), atol=1e-5)
    assert tl.gradient(tl.tensor(3.0)) == ()
    assert tl.gradient(tl.ones(3, 2), dim=[]) == ()
    (g,) = tl.gradient(tl.arange(5), spacing=2)
    assert g.dtype == tl.float32


GRADIENT_ERRORS = {
    "spacing length": lambda m, x: m.gradient(x, spacing=[2.0]),
    "spacing and dim lengths": lambda m, x: m.gradient(x, spacing=[1.0, 2.0], dim=0),
    "edge order 3": lambda m, x: m.gradient(x, edge_order=3),
    "too few for edge order": lambda m, x: m.gradient(x[:, :2], edge_order=2),
    "size 1": lambda m, x: m.gradient(x[:, :1]),
    "dim out of range": lambda m, x: m.gradient(x, dim=2),
    "repeated dim": lambda m, x: m.gradient(x, dim=[0, -2]),
    "2-d coordinates": lambda m, x: m.gradient(x, spacing=[x[:, :1].T, x[0]]),
    "0-d coordinates": lambda m, x: m.gradient(x, spacing=[x[0, 0], x[0, 1]]),
    "mixed list": lambda m, x: m.gradient(x, spacing=[2.0, x[0]]),
    "tensor spacing": lambda m, x: m.gradient(x, spacing=x[:, 0], dim=0),
    "string spacing": lambda m, x: m.gradient(x, spacing="a"),
    "float edge order": lambda m, x: m.gradient(x, edge_order=1.0),
    "float dim": lambda m, x: m.gradient(x, dim=1.5),
    "uint8": lambda m, x: m.gradient(x.to(m.uint8)),
    "bool": lambda m, x: m.gradient(x > 3),
    "not a tensor": lambda m, x: m.gradient([1.0, 2.0]),
}


@pytest.mark.parametrize("case", list(GRADIENT_ERRORS), ids=list(GRADIENT_ERRORS))
def test_gradient_errors(case):
    fn = GRADIENT_ERRORS[case]
    error_like_torch(lambda m: fn(m, m.tensor(GRID)))
