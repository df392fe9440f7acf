"""float16/bfloat16 ``addmm``, ``addmv``, ``baddbmm``, ``addbmm`` and ``addr`` round as
PyTorch's CPU kernels do (Note [Half-precision add*-products]): bit for bit equal to
PyTorch; without PyTorch, equal to the float32 computation rounded where PyTorch
rounds."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

RNG = np.random.default_rng(0)


def _mk(*shape, rng=RNG):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _rng(*key):
    """A generator seeded by the test's parameters, so a test sees the same data whatever
    ran before it in its worker."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


CASES = {
    "addmm": (_mk(4, 8), _mk(4, 3000), _mk(3000, 8)),
    "addmv": (_mk(4), _mk(4, 3000), _mk(3000)),
    "baddbmm": (_mk(2, 4, 8), _mk(2, 4, 3000), _mk(2, 3000, 8)),
    "addbmm": (_mk(4, 8), _mk(3, 4, 1000), _mk(3, 1000, 8)),
    "addr": (_mk(40, 80), _mk(40), _mk(80)),
}
SCALES = [{}, {"beta": 0.5, "alpha": 3.0}, {"beta": 0}]


def _as(m, a, dt):
    return m.tensor(a).to(getattr(m, dt))


def _reference(name, arrs, dt, kw):
    """What PyTorch's kernels compute, in NumPy: float32 products, rounded to ``dt``
    once (per batch for ``addbmm``; per step for ``addr``)."""
    import ml_dtypes
    h = np.float16 if dt == "float16" else ml_dtypes.bfloat16
    r = lambda x: np.asarray(x, np.float32).astype(h).astype(np.float32)  # noqa: E731
    i, a, b = (r(x) for x in arrs)
    beta, alpha = kw.get("beta", 1), kw.get("alpha", 1)
    if name == "addr":
        prod = r(r(np.float32(alpha) * a)[:, None] * b[None, :])
        return r(prod + r(beta * i)) if beta else prod
    if name == "addbmm":
        out = i if beta else np.zeros((a.shape[1], b.shape[2]), np.float32)
        for k in range(a.shape[0]):
            bk = (beta if k == 0 else 1)
            out = r(alpha * (a[k] @ b[k]) + (bk * out if bk else 0))
        return out
    prod = a @ b
    return r(alpha * prod + (beta * i if beta else 0))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("k", range(len(SCALES)))
def test_rounded_as_pytorch(name, dt, k):
    kw = SCALES[k]
    arrs = CASES[name]
    got = getattr(tl, name)(*[_as(tl, a, dt) for a in arrs], **kw)
    assert got.dtype == getattr(tl, dt)
    got = np.asarray(got.float())
    if HAVE_TORCH:
        ref = getattr(torch, name)(*[_as(torch, a, dt) for a in arrs], **kw).float().numpy()
        np.testing.assert_array_equal(got, ref)
    # NumPy's and XLA's float32 products may sum in another order: an ulp of ``dt`` apart
    ulp = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
    np.testing.assert_allclose(got, _reference(name, arrs, dt, kw), rtol=ulp, atol=ulp)


def test_half_addbmm_gradient_matches_float32():
    a, b = _mk(3, 2, 5), _mk(3, 5, 4)
    x = tl.tensor(a).half().requires_grad_()
    y = tl.tensor(b).half().requires_grad_()
    tl.addbmm(tl.zeros(2, 4).half(), x, y).float().sum().backward()
    xf, yf = tl.tensor(a).requires_grad_(), tl.tensor(b).requires_grad_()
    tl.addbmm(tl.zeros(2, 4), xf, yf).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad.float()), np.asarray(xf.grad), atol=1e-2)
    np.testing.assert_allclose(np.asarray(y.grad.float()), np.asarray(yf.grad), atol=1e-2)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(4, 3000), (2, 3, 3000), (3000,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_rounded_as_pytorch(shape, bias, dt):
    """``F.linear`` is PyTorch's addmm (or mm) on half inputs: float32 sums, rounded
    once, bias included."""
    g = _rng(shape, bias, dt)
    x, w, b = _mk(*shape, rng=g), _mk(64, 3000, rng=g), _mk(64, rng=g)

    def run(m):
        return m.nn.functional.linear(_as(m, x, dt), _as(m, w, dt),
                                      _as(m, b, dt) if bias else None)
    got = run(tl)
    assert got.dtype == getattr(tl, dt) and tuple(got.shape) == shape[:-1] + (64,)
    got = np.asarray(got.float())
    ulp = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
    if HAVE_TORCH:
        want = run(torch).float().numpy()
        np.testing.assert_allclose(got, want, rtol=ulp, atol=ulp)
        # XLA's and PyTorch's float32 sums may add in another order, which moves a rare
        # element (under 1% over many draws) by an ulp; rounding the product and then
        # the bias-added sum moves about a quarter of them
        assert np.mean(got != want) < 0.05
    import ml_dtypes
    h = np.float16 if dt == "float16" else ml_dtypes.bfloat16
    r = lambda v: np.asarray(v, np.float32).astype(h).astype(np.float32)  # noqa: E731
    ref = r(r(x) @ r(w).T + (r(b) if bias else 0))
    np.testing.assert_allclose(got, ref, rtol=ulp, atol=ulp)


CONVS = [("conv2d", (2, 3, 12, 12), (6, 3, 5, 5), {}),
         ("conv2d", (2, 4, 9, 9), (4, 2, 3, 3), {"groups": 2, "padding": 1}),
         ("conv1d", (1, 3, 8), (5, 3, 3), {"stride": 2}),
         ("conv_transpose2d", (2, 3, 6, 6), (3, 4, 3, 3), {"stride": 2})]


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CONVS)))
def test_half_convolution_rounded_once(case, dt):
    """Half-precision convolutions accumulate in float32 and round once, bias included,
    as PyTorch's CPU kernels (Note [Half-precision convolution on CPU]); their gradients
    come back in the inputs' dtype."""
    name, xs, ws, kw = CONVS[case]
    g = _rng(case, dt)
    x, w = _mk(*xs, rng=g), _mk(*ws, rng=g)
    b = _mk(ws[1] if name.startswith("conv_t") else ws[0], rng=g)

    def run(m):
        args = [_as(m, a, dt).requires_grad_() for a in (x, w, b)]
        out = getattr(m.nn.functional, name)(*args, **kw)
        out.float().sum().backward()
        return out, args
    out, args = run(tl)
    assert out.dtype == getattr(tl, dt) and all(a.grad.dtype == getattr(tl, dt) for a in args)
    if HAVE_TORCH:
        ref, targs = run(torch)
        got, want = np.asarray(out.detach().float()), ref.detach().float().numpy()
        ulp = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
        if name.startswith("conv_t") and dt == "float16":
            # PyTorch's CPU float16 transposed convolution does not accumulate in float32
            # and round once (a quarter of its elements differ from that by an ulp)
            np.testing.assert_allclose(got, want, rtol=2 * ulp, atol=2 * ulp)
        else:
            np.testing.assert_allclose(got, want, rtol=ulp, atol=ulp)
            assert np.mean(got != want) < 0.01   # float32 sums in another order: rare ulps
        for a, t in zip(args, targs):
            np.testing.assert_allclose(np.asarray(a.grad.float()), t.grad.float().numpy(),
                                       rtol=4 * ulp, atol=4 * ulp)
