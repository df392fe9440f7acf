"""``torchlike.fft`` against ``torch.fft``: every transform over its op's samples (values,
dtypes, shapes, errors and their messages, autograd node names, gradients for real and
complex inputs), ``out=``, PyTorch's argument TypeErrors, the ``norm`` modes, the
frequency factories, the shifts, autocast and ``__torch_function__``.

Without PyTorch only the comparisons are skipped: torchlike still runs every sample
(raising where the sample says PyTorch raises), and its gradients still run."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.fft_ops import FFT_OPS
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS
from torchlike._ops.torch_function import DisableTorchFunctionSubclass

from ._parity import (FWS, HAVE_TORCH, assert_same, check_gradient_shapes, convert, first_error,
                      fw_module, normalize_error, outcome, requires_torch, torch)

TRANSFORMS = list(FFT_OPS)   # fft, ifft, fft2, ...


def _fft(fw: str, name: str):
    return getattr(fw_module(fw).fft, name)


def _cases():
    cases = []
    for public in TRANSFORMS:
        for i, smp in enumerate(samples_of(OPS[FFT_OPS[public]])):
            cases.append(pytest.param(public, smp, id=f"{public}-{i}"))
    return cases


CASES = _cases()
GRAD_CASES = [c for c in CASES if c.values[1].grad]


def _tolerance(ref_np: np.ndarray) -> tuple:
    """(rtol, atol) for an FFT result: rounding errors grow with the transform's size and
    are relative to the largest magnitude, not to each element."""
    single = ref_np.dtype in (np.float32, np.complex64)
    eps = 2e-6 if single else 1e-12
    size = max(ref_np.size, 2)
    scale = float(np.abs(ref_np).max()) if ref_np.size else 1.0
    tol = eps * math.log2(size)
    return tol, tol * max(scale, 1.0)


def _to_np(t) -> np.ndarray:
    if isinstance(t, tl.Tensor):
        return np.asarray(t.detach())
    return t.detach().resolve_conj().numpy()


def _run(fw: str, public: str, smp, grad: bool = False):
    leaves: list = []
    args = convert(smp.args, fw, grad, leaves)
    kwargs = convert(smp.kwargs, fw, grad, leaves)
    return outcome(lambda: _fft(fw, public)(*args, **kwargs)), leaves


def _same_error(out, ref) -> None:
    assert isinstance(out, Exception), f"torch raised {ref!r}, torchlike returned {out!r}"
    assert type(out).__name__ == type(ref).__name__, f"torch {ref!r}; torchlike {out!r}"
    assert normalize_error(str(out)).split("\n")[0] == str(ref).split("\n")[0]


# ---------------------------------------------------------------------------
# every sample: values, dtypes, shapes, errors
@pytest.mark.parametrize("public,smp", CASES)
def test_transform_matches_torch(public, smp):
    out, _ = _run("tl", public, smp)
    if smp.note == "raises":
        assert isinstance(out, Exception), f"expected an error, got {out!r}"
    elif isinstance(out, Exception):
        raise out
    if not HAVE_TORCH:
        return
    ref, _ = _run("torch", public, smp)
    if isinstance(ref, Exception):
        assert smp.note == "raises", f"torch raised {ref!r} on a sample not marked so"
        _same_error(out, ref)
        return
    assert smp.note != "raises", "the sample is marked as an error, torch accepts it"
    rtol, atol = _tolerance(_to_np(ref))
    assert_same(out, ref, rtol, atol)


# ---------------------------------------------------------------------------
# gradients, real and complex inputs
@pytest.mark.parametrize("public,smp", GRAD_CASES)
def test_transform_gradient_matches_torch(public, smp):
    """The gradient of ``sum(re(y) * wr + im(y) * wi)``: the incoming gradient is
    ``wr + i wi`` in PyTorch's convention (``wr`` for a real ``y``)."""
    out, leaves = _run("tl", public, smp, grad=True)
    if isinstance(out, Exception):
        raise out
    if not leaves:
        assert not out.requires_grad
        return
    assert out.requires_grad
    if not HAVE_TORCH:
        check_gradient_shapes([out], leaves)
        return
    ref, rleaves = _run("torch", public, smp, grad=True)
    assert out.grad_fn.name() == ref.grad_fn.name()
    rng = np.random.default_rng(0)
    w = rng.uniform(0.5, 1.5, tuple(ref.shape))
    if ref.is_complex():
        w = (w + 1j * rng.uniform(-1.5, -0.5, tuple(ref.shape))).astype(_to_np(ref).dtype)
    else:
        w = w.astype(_to_np(ref).dtype)
    (g,) = tl.autograd.grad(out, leaves, tl.tensor(w))
    (rg,) = torch.autograd.grad(ref, rleaves, torch.tensor(w))
    rtol, atol = _tolerance(_to_np(rg))
    assert_same(g, rg, max(rtol, 1e-5), atol, "grad")


@requires_torch
@pytest.mark.parametrize("public", ["rfft", "hfft", "irfftn"])
def test_second_order_gradients_match_torch(public):
    """Double backward through the transforms (their VJPs are table ops too)."""
    a = np.random.default_rng(3).standard_normal((3, 6))
    if public in ("hfft", "irfftn"):
        a = a + 1j * np.random.default_rng(4).standard_normal((3, 6))

    def run(mod):
        x = mod.tensor(a, requires_grad=True)
        y = _fft("tl" if mod is tl else "torch", public)(x)
        y = y.abs() if y.is_complex() else y
        (g,) = mod.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (gg,) = mod.autograd.grad((g.abs() ** 2).sum(), x)
        return gg
    assert_same(run(tl), run(torch), 1e-9, 1e-9)


# ---------------------------------------------------------------------------
# norm modes
NORMS = [None, "backward", "forward", "ortho"]
PAIRS = [("fft", "ifft", "complex"), ("fft2", "ifft2", "complex"), ("fftn", "ifftn", "complex"),
         ("rfft", "irfft", "real"), ("rfft2", "irfft2", "real"), ("rfftn", "irfftn", "real"),
         ("ihfft", "hfft", "real"), ("ihfft2", "hfft2", "real"), ("ihfftn", "hfftn", "real")]


@pytest.mark.parametrize("forward,inverse,kind", PAIRS)
@pytest.mark.parametrize("norm", NORMS)
def test_norm_modes_round_trip(forward, inverse, kind, norm):
    g = np.random.default_rng(1)
    a = g.standard_normal((3, 4, 6))
    if kind == "complex":
        a = a + 1j * g.standard_normal((3, 4, 6))
    x = tl.tensor(a)
    f, b = getattr(tl.fft, forward), getattr(tl.fft, inverse)
    if kind == "real":   # the last dim's size is not recoverable from a one-sided spectrum
        key = "n" if forward[-1] not in "2n" else "s"
        size = 6 if key == "n" else ((4, 6) if forward.endswith("2") else (3, 4, 6))
        back = b(f(x, norm=norm), norm=norm, **{key: size})
    else:
        back = b(f(x, norm=norm), norm=norm)
    np.testing.assert_allclose(np.asarray(back), a, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("norm,scale", [("forward", lambda n: 1 / n),
                                        ("ortho", lambda n: 1 / math.sqrt(n))])
def test_norm_scales(norm, scale):
    a = np.random.default_rng(2).standard_normal((4, 5))
    x = tl.tensor(a)
    np.testing.assert_allclose(np.asarray(tl.fft.fft(x, norm=norm)),
                               np.asarray(tl.fft.fft(x)) * scale(5), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(tl.fft.fftn(x, norm=norm)),
                               np.fft.fftn(a) * scale(20), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tl.fft.hfft(x, n=8, norm=norm)),
                               np.fft.hfft(a, n=8, norm=norm), rtol=1e-12, atol=1e-12)


def test_values_match_numpy_without_torch():
    """Held to NumPy's FFT (same conventions) where PyTorch is absent too."""
    g = np.random.default_rng(5)
    a = g.standard_normal((3, 8)) + 1j * g.standard_normal((3, 8))
    r = g.standard_normal((3, 8))
    x, xr = tl.tensor(a), tl.tensor(r)
    checks = [(tl.fft.fft(x, n=5), np.fft.fft(a, n=5)),
              (tl.fft.ifft(x, dim=0, norm="ortho"), np.fft.ifft(a, axis=0, norm="ortho")),
              (tl.fft.fft2(x, s=(4, 6)), np.fft.fft2(a, s=(4, 6))),
              (tl.fft.rfft(xr), np.fft.rfft(r)), (tl.fft.irfft(x, n=9), np.fft.irfft(a, n=9)),
              (tl.fft.irfftn(x), np.fft.irfftn(a)), (tl.fft.hfft(x), np.fft.hfft(a)),
              (tl.fft.ihfft(xr, norm="forward"), np.fft.ihfft(r, norm="forward")),
              (tl.fft.rfftn(xr, s=(2, 5)), np.fft.rfftn(r, s=(2, 5), axes=(0, 1)))]
    for got, want in checks:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# dtypes
@pytest.mark.parametrize("fw", FWS)
def test_result_dtypes(fw):
    mod = fw_module(fw)
    F = mod.fft
    x32, x64 = mod.ones(4, 4), mod.ones(4, 4, dtype=mod.float64)
    assert F.fft(x32).dtype is mod.complex64 and F.fft(x64).dtype is mod.complex128
    assert F.irfft(x32).dtype is mod.float32 and F.hfft2(x64).dtype is mod.float64
    assert F.rfftn(mod.ones(4, 4, dtype=mod.int64)).dtype is mod.complex64
    assert F.ihfft(mod.ones(4, dtype=mod.bool)).dtype is mod.complex64
    prev = mod.get_default_dtype()
    mod.set_default_dtype(mod.float64)
    try:
        assert F.fft(mod.ones(4, dtype=mod.int32)).dtype is mod.complex128
        assert F.irfft(mod.ones(4, dtype=mod.int64)).dtype is mod.float64
    finally:
        mod.set_default_dtype(prev)


def test_empty_batch_gives_empty_result():
    """Note [FFT of empty batches]: PyTorch's MKL kernels raise here; torchlike returns
    the empty result PyTorch's other backends give."""
    assert tl.fft.fft(tl.ones(0, 4, dtype=tl.complex64)).shape == (0, 4)
    assert tl.fft.rfft(tl.ones(0, 4)).shape == (0, 3)
    assert tl.fft.irfft(tl.ones(0, 4, dtype=tl.complex64)).shape == (0, 6)
    assert tl.fft.fftn(tl.ones(0, 3, 4), dim=(1, 2)).shape == (0, 3, 4)
    y = tl.fft.hfft2(tl.ones(0, 3, 4, dtype=tl.complex128))
    assert y.shape == (0, 3, 6) and y.dtype is tl.float64


# ---------------------------------------------------------------------------
# argument errors
def _z(mod):
    return mod.ones(3, 4, dtype=mod.complex64)


ARG_ERRORS = [
    lambda F, z: F.fft(z, 2.0), lambda F, z: F.fft(z, n=2.0), lambda F, z: F.fft(z, n=True),
    lambda F, z: F.fft(z, None, 1.0), lambda F, z: F.fft(z, dim=(0,)),
    lambda F, z: F.fft(z, dim=None), lambda F, z: F.fft(z, None, 1, 3),
    lambda F, z: F.fft(z, norm=1), lambda F, z: F.fft([1.0, 2.0]),
    lambda F, z: F.fft(input=[1.0]), lambda F, z: F.fft(z, 2, 0, "ortho", 5),
    lambda F, z: F.fft(z, foo=1), lambda F, z: F.fft2(z, (2.0, 2)),
    lambda F, z: F.fft2(z, s=[2.0, 2]), lambda F, z: F.fft2(z, (2, "a")),
    lambda F, z: F.fft2(z, None, (0, 1.5)), lambda F, z: F.fft2(z, None, 1.5),
    lambda F, z: F.fftn(z, True), lambda F, z: F.fftn(z, dim=True),
    lambda F, z: F.fftn(z, s=2.5), lambda F, z: F.fftn(z, s="ab"),
    lambda F, z: F.irfftn(z, norm="Ortho"), lambda F, z: F.hfft(z, n=1.5),
    lambda F, z: F.ihfftn(z.real, dim=(1, True)),
    lambda F, z: F.fft(z, out=3),
]


@pytest.mark.parametrize("case", range(len(ARG_ERRORS)))
def test_argument_errors_match_torch(case):
    def run(mod):
        return ARG_ERRORS[case](mod.fft, _z(mod))
    got = first_error(lambda: run(tl))
    assert got is not None
    if HAVE_TORCH:
        assert first_error(lambda: run(torch)) == got


@pytest.mark.parametrize("fw", FWS)
def test_accepted_argument_forms(fw):
    """Numbers PyTorch's parser accepts as ints: NumPy ints, 0-d int tensors, bools in
    lists."""
    mod = fw_module(fw)
    z = _z(mod)
    assert tuple(mod.fft.fft(z, np.int64(2)).shape) == (3, 2)
    assert tuple(mod.fft.fft(z, n=mod.tensor(3)).shape) == (3, 3)
    assert tuple(mod.fft.fftn(z, (np.int64(2), True)).shape) == (2, 1)
    assert tuple(mod.fft.fftn(z, s=mod.Size([2, 2])).shape) == (2, 2)
    assert tuple(mod.fft.fft2(z, dim=1).shape) == (3, 4)


# ---------------------------------------------------------------------------
# out=
OUT_DTYPES = ["float32", "float64", "complex64", "complex128", "int64", "float16"]


def _out_case(fw, public, input_dtype, out_dtype, shape=(0,), kwargs=None):
    mod = fw_module(fw)
    x = mod.tensor(np.linspace(-1, 1, 12).reshape(3, 4)).to(getattr(mod, input_dtype))
    out = mod.zeros(shape, dtype=getattr(mod, out_dtype))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = _fft(fw, public)(x, out=out, **(kwargs or {}))
        except Exception as e:  # noqa: BLE001 - compared across frameworks
            res = e
    return res, out, [str(m.message) for m in w]


@pytest.mark.parametrize("public", TRANSFORMS)
@pytest.mark.parametrize("input_dtype", ["float32", "complex64", "int64"])
def test_out_matches_torch(public, input_dtype):
    for out_dtype in OUT_DTYPES:
        res, out, _ = _out_case("tl", public, input_dtype, out_dtype)
        if not isinstance(res, Exception):
            assert res is out and out.dtype.name == out_dtype
            plain = _fft("tl", public)(tl.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
                                       .to(getattr(tl, input_dtype)))
            np.testing.assert_allclose(np.asarray(out), np.asarray(plain.to(out.dtype)),
                                       rtol=1e-3, atol=1e-3)
        if not HAVE_TORCH:
            continue
        ref, rout, _ = _out_case("torch", public, input_dtype, out_dtype)
        if isinstance(ref, Exception):
            _same_error(res, ref)
        else:
            assert not isinstance(res, Exception), (public, input_dtype, out_dtype, res)
            assert_same(out, rout, 1e-3, 1e-3)


@pytest.mark.parametrize("fw", FWS)
def test_out_resize_warning_and_version(fw):
    res, out, msgs = _out_case(fw, "fft", "complex64", "complex64", shape=(2,))
    assert tuple(out.shape) == (3, 4) and len(msgs) == 1
    assert msgs[0].startswith("An output with one or more elements was resized since it had "
                              "shape [2], which does not match the required output shape "
                              "[3, 4].")
    res, out, msgs = _out_case(fw, "rfft2", "float32", "complex128", shape=(0,))
    assert tuple(out.shape) == (3, 3) and msgs == [] and out.dtype is fw_module(fw).complex128
    mod = fw_module(fw)
    base = mod.zeros(2, 3, 4, dtype=mod.complex64)
    view = base[1]
    v0 = base._version
    mod.fft.fft(_z(mod), out=view)
    assert base._version > v0 and bool((base[1] == mod.fft.fft(_z(mod))).all())


@pytest.mark.parametrize("public,kwargs", [("fft", {}), ("ifft", {}), ("rfft", {}),
                                           ("irfft", {}), ("ihfft", {}), ("fftn", {}),
                                           ("hfft2", {}), ("ihfft2", {})])
def test_out_refuses_autograd_like_torch(public, kwargs):
    real = public in ("rfft", "ihfft", "ihfft2", "ifft")

    def case(mod):
        x = mod.ones(3, 4, dtype=mod.float32 if real else mod.complex64)
        cplx = public not in ("irfft", "hfft2")
        out = mod.zeros(0, dtype=mod.complex64 if cplx else mod.float32).requires_grad_()
        return _fft("tl" if mod is tl else "torch", public)(x, out=out, **kwargs)
    got = first_error(lambda: case(tl))
    assert got is not None and "functions with out=... arguments don't support" in got[1]
    if HAVE_TORCH:
        assert first_error(lambda: case(torch)) == got
    # an input that requires grad: refused too (PyTorch fails only at backward on the
    # conj_physical paths, Note [out= of the transforms])
    x = tl.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="functions with out="):
        tl.fft.ifft(x, out=tl.zeros(0, dtype=tl.complex64))
    with tl.no_grad():
        assert tl.fft.ifft(x, out=tl.zeros(0, dtype=tl.complex64)).shape == (3, 4)


# ---------------------------------------------------------------------------
# fftfreq / rfftfreq
FREQ_CASES = [
    ("fftfreq", (5,), {}), ("fftfreq", (4, 0.1), {}), ("fftfreq", (7, 0.3), {}),
    ("fftfreq", (4, 0.1), {"dtype": "float64"}), ("fftfreq", (0,), {}), ("fftfreq", (1,), {}),
    ("fftfreq", (4,), {"d": 0}), ("fftfreq", (3, -0.0), {}), ("fftfreq", (3, 1e-300), {}),
    ("fftfreq", (9, 0.7), {"dtype": "float16"}), ("fftfreq", (5,), {"dtype": "bfloat16"}),
    ("fftfreq", (np.int64(4), np.float32(2)), {}), ("fftfreq", (6, True), {}),
    ("fftfreq", (4,), {"requires_grad": True, "device": "cpu"}),
    ("rfftfreq", (5,), {}), ("rfftfreq", (4, 0.5), {}), ("rfftfreq", (0,), {}),
    ("rfftfreq", (-3,), {}), ("rfftfreq", (-1,), {}), ("rfftfreq", (10, 0.01),
                                                       {"dtype": "float64"}),
    ("rfftfreq", (11, 3.0), {"dtype": "float16"}),
]
FREQ_ERRORS = [
    ("fftfreq", (-1,), {}), ("fftfreq", (4,), {"dtype": "int64"}),
    ("fftfreq", (4,), {"dtype": "complex64"}), ("fftfreq", (4.0,), {}),
    ("fftfreq", (), {"n": 4.0}), ("fftfreq", (4, "a"), {}), ("fftfreq", (4, 2 + 1j), {}),
    ("rfftfreq", (-4,), {}), ("rfftfreq", (4,), {"dtype": "int32"}),
    ("rfftfreq", (4,), {"dtype": "complex128"}), ("fftfreq", (-1,), {"dtype": "int64"}),
]


def _freq(fw, name, args, kwargs):
    mod = fw_module(fw)
    kw = {k: (getattr(mod, v) if k == "dtype" else v) for k, v in kwargs.items()}
    return outcome(lambda: getattr(mod.fft, name)(*args, **kw))


@pytest.mark.parametrize("name,args,kwargs", FREQ_CASES + FREQ_ERRORS)
def test_frequencies_match_torch(name, args, kwargs):
    out = _freq("tl", name, args, kwargs)
    if (name, args, kwargs) in FREQ_ERRORS:
        assert isinstance(out, Exception), out
    else:
        assert not isinstance(out, Exception), out
        assert out.requires_grad is bool(kwargs.get("requires_grad"))
    if not HAVE_TORCH:
        return
    ref = _freq("torch", name, args, kwargs)
    if isinstance(ref, Exception):
        _same_error(out, ref)
        return
    assert not isinstance(out, Exception), out
    assert_same(out, ref, 0, 0)   # the same rounding, bit for bit
    assert out.requires_grad == ref.requires_grad


def test_frequencies_without_torch():
    np.testing.assert_allclose(np.asarray(tl.fft.fftfreq(5)), np.fft.fftfreq(5), rtol=1e-7)
    np.testing.assert_allclose(np.asarray(tl.fft.rfftfreq(8, 0.25, dtype=tl.float64)),
                               np.fft.rfftfreq(8, 0.25))
    assert tl.fft.fftfreq(3, dtype=tl.float16).dtype is tl.float16
    with pytest.raises(RuntimeError, match="fftfreq requires a floating point"):
        tl.fft.fftfreq(3, dtype=tl.int64)


@pytest.mark.parametrize("out_shape,out_dtype,kwargs", [
    ((4,), "float64", {}), ((2,), "float32", {}), ((0,), "float32", {}), ((7,), "float32", {}),
    ((4,), "float32", {"dtype": "float64"}), ((4,), "int64", {}),
    ((4,), "float32", {"requires_grad": True})])
@pytest.mark.parametrize("fw", FWS)
def test_fftfreq_out(fw, out_shape, out_dtype, kwargs):
    mod = fw_module(fw)
    out = mod.zeros(out_shape, dtype=getattr(mod, out_dtype))
    kw = {k: (getattr(mod, v) if k == "dtype" else v) for k, v in kwargs.items()}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = mod.fft.fftfreq(4, 0.5, out=out, **kw)
        except Exception as e:  # noqa: BLE001 - compared across frameworks
            res = e
    msgs = [str(m.message).split(" (Triggered internally")[0] for m in w]
    if isinstance(res, Exception):
        assert kwargs.get("dtype") or out_dtype == "int64"
    else:
        assert res is out and tuple(out.shape) == (4,)
        np.testing.assert_allclose(outcome(lambda: _to_np(out)), [0, 0.5, -1, -0.5])
        assert len(msgs) == (1 if out_shape[0] not in (0, 4) else 0)
    if HAVE_TORCH and fw == "tl":
        rout = torch.zeros(out_shape, dtype=getattr(torch, out_dtype))
        rkw = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kwargs.items()}
        with warnings.catch_warnings(record=True) as rw:
            warnings.simplefilter("always")
            try:
                ref = torch.fft.fftfreq(4, 0.5, out=rout, **rkw)
            except Exception as e:  # noqa: BLE001 - compared across frameworks
                ref = e
        if isinstance(ref, Exception):
            _same_error(res, ref)
        else:
            assert_same(out, rout, 0, 0)
            assert msgs == [str(m.message).split(" (Triggered internally")[0] for m in rw]
            assert out.requires_grad == rout.requires_grad


# ---------------------------------------------------------------------------
# fftshift / ifftshift
SHIFT_CASES = [((3, 4), None), ((3, 4), 1), ((3, 4), (0,)), ((3, 4), -1), ((3, 4), (0, 0)),
               ((2, 5, 3), (2, 0)), ((0, 3), None), ((5,), None), ((3, 4), [1, 0])]
SHIFT_BAD = [((3, 4), 2), ((3, 4), []), ((), None), ((), 0)]   # PyTorch raises


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("shape,dim", SHIFT_CASES + SHIFT_BAD)
def test_shifts_match_torch(name, shape, dim):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def run(mod):
        x = mod.tensor(a, requires_grad=True)
        y = getattr(mod.fft, name)(x) if dim is None else getattr(mod.fft, name)(x, dim=dim)
        (g,) = mod.autograd.grad((y * mod.tensor(np.arange(1.0, a.size + 1, dtype=np.float32)
                                                 .reshape(shape))).sum(), x)
        return y, g, y.grad_fn.name()
    out = outcome(lambda: run(tl))
    assert isinstance(out, Exception) == ((shape, dim) in SHIFT_BAD), out
    if not HAVE_TORCH:
        return
    ref = outcome(lambda: run(torch))
    if isinstance(ref, Exception):
        _same_error(out, ref)
        return
    assert not isinstance(out, Exception), out
    assert_same(out[:2], ref[:2], 0, 0)
    assert out[2] == ref[2]


def test_shifts_invert_each_other():
    x = tl.arange(30).reshape(5, 6)
    for dim in (None, 0, (1,), (0, 1)):
        back = tl.fft.ifftshift(tl.fft.fftshift(x, dim=dim), dim=dim)
        assert bool((back == x).all())
    assert tl.fft.fftshift(tl.arange(5)).tolist() == [3, 4, 0, 1, 2]
    assert tl.fft.fftshift(tl.fft.fftfreq(6)).tolist() == sorted(tl.fft.fftfreq(6).tolist())


SHIFT_ERRORS = [lambda F, x: F.fftshift([1, 2]), lambda F, x: F.fftshift(x, 1.5),
                lambda F, x: F.fftshift(x, dim=(0, 1.0)), lambda F, x: F.ifftshift(x, dim=True),
                lambda F, x: F.fftshift(x, out=x)]


@pytest.mark.parametrize("case", range(len(SHIFT_ERRORS)))
def test_shift_argument_errors(case):
    def run(mod):
        return SHIFT_ERRORS[case](mod.fft, mod.ones(3, 4))
    got = first_error(lambda: run(tl))
    assert got is not None and got[0] == "TypeError"
    if HAVE_TORCH and case < 4:   # the last: Python's own wording of the bad keyword
        assert first_error(lambda: run(torch)) == got


# ---------------------------------------------------------------------------
# autocast, __torch_function__, compile, namespace
@pytest.mark.parametrize("fw", FWS)
def test_autocast_cpu_keeps_float32(fw):
    mod = fw_module(fw)
    x = mod.ones(4, 4)
    with mod.autocast("cpu"):
        assert mod.fft.fft(x).dtype is mod.complex64          # fp32 policy on CPU
        assert mod.fft.rfft2(x).dtype is mod.complex64
        assert mod.fft.irfft(x).dtype is mod.float32
        # bfloat16 inputs of the listed ops are cast to float32 first
        assert mod.fft.fft(x.to(mod.bfloat16)).dtype is mod.complex64
        # hfft2 is not on PyTorch's list: bfloat16 stays and is refused
        with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
            mod.fft.hfft2(x.to(mod.bfloat16))
        # calls with out= are not autocast
        with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
            mod.fft.fft(x.to(mod.bfloat16), out=mod.zeros(0, dtype=mod.complex64))
    with pytest.raises(RuntimeError, match="Unsupported dtype BFloat16"):
        mod.fft.fft(x.to(mod.bfloat16))


def test_autocast_records_the_cast():
    x = tl.ones(4, dtype=tl.bfloat16, requires_grad=True)
    with tl.autocast("cpu"):
        y = tl.fft.fft(x)
    assert y.dtype is tl.complex64
    (g,) = tl.autograd.grad(y.real.sum(), x)
    assert g.dtype is tl.bfloat16


def test_torch_function_sees_the_public_functions():
    seen = []

    class Logged(tl.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            with DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))

    x = tl.ones(4).as_subclass(Logged)
    tl.fft.fft(x, n=3)
    tl.fft.rfftn(x, norm="ortho")
    tl.fft.fftshift(x)
    tl.fft.ihfft(x, out=tl.zeros(0, dtype=tl.complex64))
    assert seen[:4] == [tl.fft.fft, tl.fft.rfftn, tl.fft.fftshift, tl.fft.ihfft]


def test_compiled_transforms_match_eager():
    a = np.random.default_rng(6).standard_normal((4, 6)).astype(np.float32)

    def step(x):
        y = tl.fft.irfft(tl.fft.rfft(x, norm="ortho") * 2, n=6, norm="ortho")
        return tl.fft.fftshift(tl.fft.fft2(y).abs())
    eager = step(tl.tensor(a))
    compiled = tl.compile(step)(tl.tensor(a))
    np.testing.assert_allclose(np.asarray(compiled), np.asarray(eager), rtol=1e-5, atol=1e-5)


def test_namespace():
    names = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
             "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
             "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
    assert sorted(tl.fft.__all__) == sorted(names)
    for n in names:
        f = getattr(tl.fft, n)
        assert f.__module__ == "torchlike.fft" and f.__doc__.startswith("Mirrors")
        assert f.__wrapped__.__annotations__.get("return") == "Tensor"
        if HAVE_TORCH:
            assert hasattr(torch.fft, n)
    for public, op in FFT_OPS.items():
        spec = OPS[op]
        assert spec.function is False and spec.method is False and spec.api is \
            getattr(tl.fft, public)
        assert spec.autocast == ({"cpu": "fp32"} if public not in
                                 ("hfft2", "hfftn", "ihfft2", "ihfftn") else None)


def test_ihfftn_over_one_dim_writes_out():
    """PyTorch 2.13 leaves ``out`` unwritten here (its ihfftn passes ``conj_physical_out``
    its arguments the other way round); torchlike writes the result, with the exact-dtype
    rule of ``ihfft`` (Note [out= of the transforms])."""
    x = tl.tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32))
    out = tl.zeros(0, dtype=tl.complex64)
    assert tl.fft.ihfft2(x, dim=1, out=out) is out
    np.testing.assert_allclose(np.asarray(out), np.asarray(tl.fft.ihfft(x)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Found dtype ComplexDouble but expected ComplexFloat"):
        tl.fft.ihfftn(x, dim=(0,), out=tl.zeros(0, dtype=tl.complex128))
    with pytest.raises(RuntimeError, match=r"aten::conj_physical\(\): functions with out="):
        tl.fft.ihfftn(x, dim=(0,), out=tl.zeros(0, dtype=tl.complex64).requires_grad_())
