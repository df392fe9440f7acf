"""``torchlike.signal.windows`` (bartlett, blackman, cosine, exponential, gaussian,
general_cosine, general_hamming, hamming, hann, kaiser, nuttall) compared with
``torch.signal.windows``: values, dtypes, shapes, ``requires_grad``, the argument checks
(exception types and messages) and the module layout. Where PyTorch is absent the
windows are still checked against closed-form NumPy formulas (and SciPy's windows, where
SciPy is installed) and the errors by their types."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import torchlike as tl
import torchlike.signal.windows

from ._parity import HAVE_TORCH, assert_same, error_of, requires_torch, torch

W = tl.signal.windows
TW = torch.signal.windows if HAVE_TORCH else None

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
         "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
LENGTHS = [0, 1, 2, 5, 10, 33]

# (window, keyword arguments): every window with its defaults and parameter variants
CASES = [
    ("bartlett", {}), ("blackman", {}), ("cosine", {}), ("hamming", {}), ("hann", {}),
    ("nuttall", {}),
    ("exponential", {}), ("exponential", {"tau": 0.5}), ("exponential", {"tau": 3}),
    ("gaussian", {}), ("gaussian", {"std": 0.4}), ("gaussian", {"std": 7}),
    ("kaiser", {}), ("kaiser", {"beta": 0.0}), ("kaiser", {"beta": 3.5}),
    ("kaiser", {"beta": 40}),
    ("general_cosine", {"a": [0.5, 0.5]}), ("general_cosine", {"a": (0.46, 0.23, 0.31)}),
    ("general_cosine", {"a": [1.0]}), ("general_cosine", {"a": [0.3, 2, -0.25, 0.1]}),
    ("general_hamming", {}), ("general_hamming", {"alpha": 0.6}),
    ("general_hamming", {"alpha": 0.5}),
]
# ``center`` only goes with sym=False
PERIODIC_CASES = [("exponential", {"center": 2.0}), ("exponential", {"center": -1, "tau": 2}),
                  ("exponential", {"center": 7.5, "tau": 0.25})]

_COSINE_SUMS = {"hann": [0.5, 0.5], "hamming": [0.54, 0.46], "blackman": [0.42, 0.5, 0.08],
                "nuttall": [0.3635819, 0.4891775, 0.1365995, 0.0106411]}


def _case_id(case) -> str:
    name, kw = case
    return name + "".join(f"-{k}={v}" for k, v in kw.items())


def _tol(dt: str) -> dict:
    # float32: PyTorch's vectorized linspace rounds some positions an ulp away from its
    # scalar formula (which torchlike follows), and the Gaussian/exponential amplify that
    return {"float64": dict(rtol=1e-12, atol=1e-15)}.get(dt, dict(rtol=5e-6, atol=1e-7))


def _reference(name: str, M: int, sym: bool, **kw) -> np.ndarray:
    """The window from its closed form, in float64 NumPy."""
    if M == 0:
        return np.zeros(0)
    if M == 1 and "center" not in kw:
        return np.ones(1)
    N = M - 1 if sym else M        # a periodic window: the first M of M + 1 points
    n = np.arange(M, dtype=np.float64)
    if name in _COSINE_SUMS or name in ("general_cosine", "general_hamming"):
        a = kw.get("a") or _COSINE_SUMS.get(name)
        if name == "general_hamming":
            alpha = kw.get("alpha", 0.54)
            a = [alpha, 1 - alpha]
        return sum((-1) ** i * c * np.cos(2 * np.pi * i * n / N) for i, c in enumerate(a))
    if name == "bartlett":
        return 1 - np.abs(2 * n / N - 1)
    if name == "cosine":
        return np.sin(np.pi * (n + 0.5) / (N + 1))
    if name == "exponential":
        center = kw.get("center", N / 2)
        return np.exp(-np.abs(n - center) / kw.get("tau", 1.0))
    if name == "gaussian":
        return np.exp(-((n - N / 2) ** 2) / (2 * kw.get("std", 1.0) ** 2))
    if name == "kaiser":
        beta = kw.get("beta", 12.0)
        return np.i0(beta * np.sqrt(1 - ((n - N / 2) / (N / 2)) ** 2)) / np.i0(beta)
    raise AssertionError(name)


def _check_values(name: str, kw: dict, sym: bool, dt: str) -> None:
    for M in LENGTHS:
        out = getattr(W, name)(M, sym=sym, dtype=getattr(tl, dt), **kw)
        assert isinstance(out, tl.Tensor)
        assert out.dtype is getattr(tl, dt) and tuple(out.shape) == (M,)
        assert out.device.type == "cpu" and not out.requires_grad
        ref = _reference(name, M, sym, **kw)
        np.testing.assert_allclose(np.asarray(out).astype(np.float64), ref,
                                   rtol=1e-12 if dt == "float64" else 2e-6,
                                   atol=1e-14 if dt == "float64" else 3e-7,
                                   err_msg=f"{name}({M}, sym={sym}, {kw}) vs its formula")
        if HAVE_TORCH:
            assert_same(out, getattr(TW, name)(M, sym=sym, dtype=getattr(torch, dt), **kw),
                        path=f"{name}({M}, sym={sym}, {kw})", **_tol(dt))


# ---------------------------------------------------------------------------
# values
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_window_values(case, sym, dt):
    _check_values(*case, sym, dt)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("case", PERIODIC_CASES, ids=_case_id)
def test_exponential_center(case, dt):
    _check_values(*case, False, dt)


def test_windows_match_scipy():
    sw = pytest.importorskip("scipy.signal.windows")
    scipy_args = {"general_cosine": lambda kw: (kw["a"],),
                  "general_hamming": lambda kw: (kw.get("alpha", 0.54),),
                  "kaiser": lambda kw: (kw.get("beta", 12.0),),
                  "gaussian": lambda kw: (kw.get("std", 1.0),)}
    for name, kw in CASES + PERIODIC_CASES:
        for sym in ([False] if "center" in kw else [True, False]):
            for M in LENGTHS:
                args = scipy_args.get(name, lambda kw: ())(kw)
                extra = ({"center": kw.get("center"), "tau": kw.get("tau", 1.0)}
                         if name == "exponential" else {})
                if name == "exponential" and M == 1 and not sym:
                    # SciPy gives [1.] for every 1-point window; PyTorch (and torchlike)
                    # centre it on 0 unless the centre is given
                    ref = np.exp([-abs(kw.get("center", 0.0)) / kw.get("tau", 1.0)])
                else:
                    ref = getattr(sw, name)(M, *args, sym=sym, **extra)
                out = getattr(W, name)(M, sym=sym, dtype=tl.float64, **kw)
                np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-12, atol=1e-14,
                                           err_msg=f"{name}({M}, sym={sym}, {kw})")


def test_named_windows_are_their_cosine_sums():
    for M in (2, 5, 10):
        for sym in (True, False):
            for name, a in _COSINE_SUMS.items():
                np.testing.assert_allclose(
                    np.asarray(getattr(W, name)(M, sym=sym, dtype=tl.float64)),
                    np.asarray(W.general_cosine(M, a=a, sym=sym, dtype=tl.float64)),
                    rtol=1e-15, atol=1e-16)
            np.testing.assert_array_equal(np.asarray(W.hamming(M, sym=sym)),
                                          np.asarray(W.general_hamming(M, sym=sym)))
            np.testing.assert_array_equal(np.asarray(W.hann(M, sym=sym)),
                                          np.asarray(W.general_hamming(M, alpha=0.5,
                                                                       sym=sym)))


def test_special_values():
    # a beta whose Bessel value overflows the dtype: NaNs in the middle, 0 at the ends
    for beta, dt in ((100.0, "float32"), (1000.0, "float64")):
        out = np.asarray(W.kaiser(5, beta=beta, dtype=getattr(tl, dt)))
        assert out[0] == 0 and out[-1] == 0 and np.isnan(out[1:-1]).any()
    assert np.isfinite(np.asarray(W.kaiser(5, beta=100.0, dtype=tl.float64))).all()
    assert np.isnan(np.asarray(W.kaiser(4, beta=float("nan")))).all()
    assert np.isnan(np.asarray(W.exponential(4, tau=float("nan")))).all()
    np.testing.assert_array_equal(np.asarray(W.gaussian(4, std=math.inf)), np.ones(4))
    np.testing.assert_array_equal(np.asarray(W.exponential(3, tau=math.inf)), np.ones(3))
    # a one-point periodic exponential window with its own centre
    np.testing.assert_allclose(np.asarray(W.exponential(1, sym=False, center=2.0, tau=0.5)),
                               [math.exp(-4.0)], rtol=1e-6)
    # general_cosine reads any iterable of real numbers, tensors among them
    np.testing.assert_allclose(np.asarray(W.general_cosine(5, a=iter([0.5, 0.5]))),
                               np.asarray(W.hann(5)))
    np.testing.assert_array_equal(np.asarray(W.general_cosine(5, a=iter([]))), np.zeros(5))
    np.testing.assert_allclose(np.asarray(W.general_cosine(5, a=[1, tl.tensor(0.5)])),
                               [0.5, 1.0, 1.5, 1.0, 0.5])
    np.testing.assert_allclose(np.asarray(W.general_cosine(3, a={0.3: "x", 0.2: "y"})),
                               [0.1, 0.5, 0.1], rtol=1e-6)
    # for lengths 0 and 1 the coefficients are not read
    assert W.general_cosine(0, a=5).shape == (0,)
    np.testing.assert_array_equal(np.asarray(W.general_cosine(1, a=[])), [1.0])
    # lengths PyTorch takes: NumPy integers, True (as 1), 0.0 and 1.0 where no positions
    # are computed
    np.testing.assert_array_equal(np.asarray(W.hann(np.int64(5))), np.asarray(W.hann(5)))
    np.testing.assert_array_equal(np.asarray(W.hann(True)), [1.0])
    assert W.hann(0.0).shape == (0,) and W.kaiser(1.0).shape == (1,)
    if HAVE_TORCH:
        for case in (lambda m, w: w.kaiser(5, beta=100.0),
                     lambda m, w: w.kaiser(5, beta=1000.0, dtype=m.float64),
                     lambda m, w: w.kaiser(5, beta=700.0, dtype=m.float64),
                     lambda m, w: w.kaiser(4, beta=float("nan")),
                     lambda m, w: w.exponential(1, sym=False, center=2.0, tau=0.5),
                     lambda m, w: w.general_cosine(5, a=iter([])),
                     lambda m, w: w.general_cosine(5, a=[1, m.tensor(0.5)]),
                     lambda m, w: w.general_cosine(6, a=[True, 2, 0.5, -1.0], sym=False),
                     lambda m, w: w.general_cosine(5, a=m.tensor([0.5])),
                     lambda m, w: w.hann(np.int64(5)),
                     lambda m, w: w.hann(True),
                     lambda m, w: w.hann(0.0),
                     lambda m, w: w.kaiser(1.0)):
            assert_same(case(tl, W), case(torch, TW), rtol=5e-6, atol=1e-7)


# ---------------------------------------------------------------------------
# dtype, device, requires_grad
@pytest.mark.parametrize("name", NAMES)
def test_factory_arguments(name):
    kw = {"a": [0.5, 0.5]} if name == "general_cosine" else {}
    fn = getattr(W, name)
    tfn = getattr(TW, name) if HAVE_TORCH else None
    out = fn(6, **kw)
    assert out.dtype is tl.float32 and out.device.type == "cpu" and out.is_leaf
    tl.set_default_dtype(tl.float64)
    try:
        for M in (0, 1, 6):
            assert fn(M, **kw).dtype is tl.float64
            if HAVE_TORCH:
                torch.set_default_dtype(torch.float64)
                try:
                    assert_same(fn(M, **kw), tfn(M, **kw), rtol=1e-12, atol=1e-15)
                finally:
                    torch.set_default_dtype(torch.float32)
    finally:
        tl.set_default_dtype(tl.float32)
    assert fn(4, device="cpu", **kw).device.type == "cpu"
    assert fn(4, device=tl.device("cpu"), layout=tl.strided, **kw).device.type == "cpu"
    for M in (0, 1, 5):
        t = fn(M, requires_grad=True, **kw)
        assert t.requires_grad and t.dtype is tl.float32 and tuple(t.shape) == (M,)
        (t * t).sum().backward()    # the window takes part in autograd
        if HAVE_TORCH:
            r = tfn(M, requires_grad=True, **kw)
            assert r.requires_grad
            assert_same(t.detach(), r.detach(), **_tol("float32"))
        assert not fn(M, requires_grad=False, dtype=tl.float64, **kw).requires_grad


# ---------------------------------------------------------------------------
# errors
def _raises(case, exc: type) -> None:
    """``case(torchlike, its windows)`` raises ``exc``; with PyTorch, ``case(torch,
    torch.signal.windows)`` raises the same type with the same message (``torchlike``
    read as ``torch``)."""
    got = error_of(lambda: case(tl, W))
    assert got is not None and got[0] == exc.__name__, got
    if HAVE_TORCH:
        assert got == error_of(lambda: case(torch, TW))


@pytest.mark.parametrize("name", NAMES)
def test_common_errors(name):
    def call(w, *args, **kw):
        if name == "general_cosine":
            kw.setdefault("a", [0.5, 0.5])
        return getattr(w, name)(*args, **kw)
    for M in (-1, -7, -1.5):
        _raises(lambda m, w: call(w, M), ValueError)
    for dt in ("float16", "bfloat16", "int64", "int32", "uint8", "bool", "complex64",
               "complex128"):
        # the dtype is checked for every length, 0 and 1 included
        for M in (0, 1, 5):
            _raises(lambda m, w: call(w, M, dtype=getattr(m, dt)), ValueError)
        _raises(lambda m, w: call(w, 4, dtype=getattr(m, dt), requires_grad=True),
                ValueError)
    _raises(lambda m, w: call(w, -1, dtype=m.int64), ValueError)   # the length first
    _raises(lambda m, w: call(w, 5, dtype="float32"), ValueError)
    for layout in ("sparse_coo", "sparse_csr"):
        _raises(lambda m, w: call(w, 5, layout=getattr(m, layout)), ValueError)
    _raises(lambda m, w: call(w, 5, layout=None), ValueError)
    _raises(lambda m, w: call(w, 5, layout=m.sparse_coo, dtype=m.int64), ValueError)
    # a length that is not an int reaches PyTorch's linspace, which refuses it
    _raises(lambda m, w: call(w, 5.0), TypeError)
    _raises(lambda m, w: call(w, np.float64(3)), TypeError)
    _raises(lambda m, w: call(w, None), TypeError)
    _raises(lambda m, w: call(w, 5, True), TypeError)
    _raises(lambda m, w: call(w, 5, window=3), TypeError)
    # an integer requires_grad that is not a bool, where the positions are computed
    _raises(lambda m, w: call(w, 4, requires_grad=1), TypeError)
    _raises(lambda m, w: call(w, 4.0, requires_grad=1, device=m.device("cpu")), TypeError)


def test_parameter_errors():
    cases = [
        (lambda m, w: w.exponential(5, tau=0), ValueError),
        (lambda m, w: w.exponential(5, tau=-2.5, sym=False), ValueError),
        (lambda m, w: w.exponential(0, tau=-1), ValueError),
        (lambda m, w: w.exponential(5, center=1.0), ValueError),
        (lambda m, w: w.exponential(0, center=1.0), ValueError),
        (lambda m, w: w.exponential(5, center=1.0, tau=-1), ValueError),   # tau first
        (lambda m, w: w.exponential(-1, center=1.0, tau=-1), ValueError),  # length first
        (lambda m, w: w.exponential(2.5, device="cpu"), TypeError),
        (lambda m, w: w.exponential(True), TypeError),
        (lambda m, w: w.exponential(6, sym=False, center=2, requires_grad=1), TypeError),
        (lambda m, w: w.gaussian(5, std=0), ValueError),
        (lambda m, w: w.gaussian(1, std=-1.5), ValueError),
        (lambda m, w: w.gaussian(5, std=-1, dtype=m.float16), ValueError),   # dtype first
        (lambda m, w: w.gaussian(3.0, std=2), TypeError),
        (lambda m, w: w.kaiser(5, beta=-1), ValueError),
        (lambda m, w: w.kaiser(0, beta=-0.5), ValueError),
        (lambda m, w: w.kaiser(5.0), TypeError),
        (lambda m, w: w.kaiser(5.0, beta=0.0, sym=False), TypeError),
        (lambda m, w: w.general_cosine(5, a=5), TypeError),
        (lambda m, w: w.general_cosine(5, a=None), TypeError),
        (lambda m, w: w.general_cosine(5, a=[]), ValueError),
        (lambda m, w: w.general_cosine(5, a=()), ValueError),
        (lambda m, w: w.general_cosine(5, a=np.array([0.5, 0.5])), ValueError),
        (lambda m, w: w.general_cosine(5, a=m.tensor([0.5, 0.5])), RuntimeError),
        (lambda m, w: w.general_cosine(5, a=[1 + 1j]), TypeError),
        (lambda m, w: w.general_cosine(5), TypeError),
        (lambda m, w: w.general_cosine(5, [0.5, 0.5]), TypeError),
        (lambda m, w: w.general_hamming(-2, alpha=0.3), ValueError),
        (lambda m, w: w.general_hamming(5, 0.3), TypeError),
        (lambda m, w: w.hann(5, alpha=0.3), TypeError),
        (lambda m, w: w.hamming(5, beta=0.3), TypeError),
        (lambda m, w: w.bartlett(5.0), TypeError),
        (lambda m, w: w.cosine(np.float64(3)), TypeError),
    ]
    for case, exc in cases:
        _raises(case, exc)


def test_errors_name_the_window_pytorch_names():
    # hann, hamming, general_hamming and nuttall are checked as general_cosine, as in
    # PyTorch; blackman checks under its own name
    for name in ("hann", "hamming", "general_hamming", "nuttall", "general_cosine"):
        kw = {"a": [1.0]} if name == "general_cosine" else {}
        with pytest.raises(ValueError, match=r"^general_cosine requires non-negative "
                                             r"window length, got M=-1$"):
            getattr(W, name)(-1, **kw)
    for name in ("bartlett", "blackman", "cosine", "exponential", "gaussian", "kaiser"):
        with pytest.raises(ValueError, match=f"^{name} expects float32 or float64 dtypes, "
                                             f"got: torchlike.float16$"):
            getattr(W, name)(3, dtype=tl.float16)
    with pytest.raises(ValueError, match="^Tau must be positive, got: 0 instead.$"):
        W.exponential(3, tau=0)
    with pytest.raises(ValueError, match="^Center must be None for symmetric windows$"):
        W.exponential(3, center=0.5)
    with pytest.raises(ValueError, match="^Standard deviation must be positive, got: -1"):
        W.gaussian(3, std=-1)
    with pytest.raises(ValueError, match="^beta must be non-negative, got: -2.0 instead.$"):
        W.kaiser(3, beta=-2.0)
    with pytest.raises(TypeError, match="^Coefficients must be a list/tuple$"):
        W.general_cosine(3, a=1.5)
    with pytest.raises(ValueError, match="^Coefficients cannot be empty$"):
        W.general_cosine(3, a=[])
    with pytest.raises(TypeError, match=r"^linspace\(\) received an invalid combination of "
                                        r"arguments - got \(requires_grad=bool, "
                                        r"device=NoneType, layout=torchlike.layout, "
                                        r"dtype=torchlike.dtype, steps=float, end=float, "
                                        r"start=int, \), but expected one of:\n"):
        W.hann(5.0)


# ---------------------------------------------------------------------------
# module layout and signatures
def test_module_layout():
    import torchlike.signal as signal
    assert signal.windows is W and signal.__all__ == ["windows"]
    assert sorted(W.__all__) == NAMES and sorted(W.windows.__all__) == NAMES
    assert inspect.ismodule(W.windows) and W.windows.__name__ == "torchlike.signal.windows.windows"
    for name in NAMES:
        fn = getattr(W, name)
        assert fn is getattr(W.windows, name)
        assert f"Mirrors ``torch.signal.windows.{name}``" in fn.__doc__
        assert all(p.annotation is not inspect.Parameter.empty
                   for p in inspect.signature(fn).parameters.values())
    if HAVE_TORCH:
        assert W.__all__ == TW.__all__ and W.windows.__all__ == TW.windows.__all__
        assert torch.signal.__all__ == signal.__all__


@requires_torch
@pytest.mark.parametrize("name", NAMES)
def test_signatures_match_pytorch(name):
    ours = inspect.signature(getattr(W, name)).parameters
    theirs = inspect.signature(getattr(TW, name)).parameters
    assert list(ours) == list(theirs)
    for p, q in zip(ours.values(), theirs.values()):
        assert p.kind == q.kind, (name, p.name)
        if p.name == "layout":
            assert p.default is tl.strided and q.default is torch.strided
        else:
            assert p.default == q.default or (p.default is q.default), (name, p.name)



def test_windows_inside_traced_functions():
    # no tensor inputs: inside torchlike.compile and vmap a window is a constant
    x = tl.arange(5, dtype=tl.float32)

    def f(x):
        return x * W.hann(5) + W.kaiser(5, beta=2.0) - W.general_cosine(5, a=[0.3, 0.7])
    expected = np.asarray(f(x))
    np.testing.assert_allclose(np.asarray(tl.compile(f)(x)), expected, rtol=1e-6)
    batched = tl.func.vmap(f)(tl.stack([x, 2 * x]))
    np.testing.assert_allclose(np.asarray(batched)[0], expected, rtol=1e-6)
