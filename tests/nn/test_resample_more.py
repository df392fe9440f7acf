"""``F.interpolate(..., antialias=True)`` (bilinear, bicubic) and
``F.grid_sample(mode='bicubic')`` against PyTorch: values, dtypes, shapes, gradients,
autograd node names and errors, eagerly and compiled. Known values are checked always;
the comparisons with PyTorch are skipped only when PyTorch is absent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as TF

from .._parity import HAVE_TORCH, assert_same, error_like_torch, torch


def _x(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _both(fn):
    return fn(tl), (fn(torch) if HAVE_TORCH else None)


# ---------------------------------------------------------------------------
# antialiased interpolate
_AA = [
    ((9, 9), dict(size=(4, 5)), "bilinear", False),
    ((9, 9), dict(size=(4, 5)), "bicubic", False),
    ((12, 7), dict(size=(5, 3)), "bilinear", True),
    ((12, 7), dict(size=(5, 3)), "bicubic", True),
    ((10, 11), dict(scale_factor=0.37), "bilinear", False),
    ((10, 11), dict(scale_factor=(0.6, 0.29)), "bicubic", False),
    ((10, 11), dict(scale_factor=(0.45, 0.7), recompute_scale_factor=True), "bicubic", True),
    ((5, 6), dict(size=(11, 13)), "bilinear", False),     # upsampling
    ((5, 6), dict(size=(11, 13)), "bicubic", True),
    ((8, 9), dict(size=(1, 3)), "bicubic", False),
    ((8, 9), dict(size=(8, 4)), "bilinear", False),       # one dim unchanged
    ((6, 12), dict(scale_factor=(1.15, 0.6)), "bicubic", False),   # 6 -> 6 by 1.15
    ((18, 3), dict(scale_factor=(0.4, 1.3)), "bilinear", False),   # 3 -> 3 by 1.3
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("hw,kw,mode,align", _AA)
def test_interpolate_antialias_matches_pytorch(hw, kw, mode, align, dtype):
    a = _x(2, 3, *hw, seed=1, dtype=dtype)

    def run(m):
        x = m.tensor(a, requires_grad=True)
        y = m.nn.functional.interpolate(x, mode=mode, align_corners=align, antialias=True,
                                        **kw)
        w = m.tensor(_x(*y.shape, seed=2, dtype=dtype))
        (y * w).sum().backward()
        return y, x.grad, y.grad_fn.name()

    out, ref = _both(run)
    assert out[2] == ("UpsampleBilinear2DAaBackward0" if mode == "bilinear"
                      else "UpsampleBicubic2DAaBackward0")
    if ref is not None:
        tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12,
                                                                          atol=1e-12)
        assert_same(out, ref, **tol)


def test_interpolate_antialias_known_values():
    x = tl.arange(16.).reshape(1, 1, 4, 4)
    y = TF.interpolate(x, size=2, mode="bilinear", antialias=True)
    np.testing.assert_allclose(y.numpy().ravel(), [3.5714285, 5.142857, 9.857142, 11.428571],
                               rtol=1e-6)
    # a constant image stays constant (the weights are normalised)
    c = TF.interpolate(tl.full((1, 2, 9, 7), 3.0), size=(4, 3), mode="bicubic",
                       antialias=True)
    np.testing.assert_allclose(c.numpy(), 3.0, rtol=1e-6)
    # the same size and no scale factor: the identity
    z = tl.tensor(_x(1, 1, 5, 6))
    assert tl.equal(TF.interpolate(z, size=(5, 6), mode="bicubic", antialias=True), z)


def test_interpolate_antialias_output_width_one_is_resampled():
    # PyTorch's CPU kernel copies the first output row into every row when the output
    # width is 1; torchlike resamples each row, as resampling the transpose does.
    a = _x(2, 1, 9, 7, seed=4)
    y = TF.interpolate(tl.tensor(a), size=(4, 1), mode="bilinear", antialias=True)
    t = TF.interpolate(tl.tensor(a.swapaxes(2, 3).copy()), size=(1, 4), mode="bilinear",
                       antialias=True)
    np.testing.assert_allclose(y.numpy(), t.numpy().swapaxes(2, 3), rtol=1e-5, atol=1e-6)
    assert not np.allclose(y.numpy()[:, :, 0], y.numpy()[:, :, 1])
    if HAVE_TORCH:
        r = torch.nn.functional.interpolate(torch.tensor(a.swapaxes(2, 3).copy()),
                                            size=(1, 4), mode="bilinear", antialias=True)
        np.testing.assert_allclose(y.numpy(), r.numpy().swapaxes(2, 3), rtol=1e-5, atol=1e-6)


def test_interpolate_antialias_compiled():
    f = tl.compile(lambda x: TF.interpolate(x, scale_factor=0.5, mode="bicubic",
                                            antialias=True))
    x = tl.tensor(_x(2, 3, 10, 12))
    np.testing.assert_allclose(f(x).numpy(), TF.interpolate(
        x, scale_factor=0.5, mode="bicubic", antialias=True).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8), size=4, mode="linear",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8, 8), size=4, mode="nearest",
                                          antialias=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8, 8, dtype=m.float16), size=4,
                                          mode="bilinear", antialias=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8, 8, dtype=m.bfloat16), size=4,
                                          mode="bicubic", antialias=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8, 8, dtype=m.int64), size=4,
                                          mode="bicubic", antialias=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 2, 8, 8), size=(4, 0), mode="bilinear",
                                          antialias=True),
])
def test_interpolate_antialias_errors(case):
    error_like_torch(case)


def test_interpolate_antialias_uint8_raises():
    with pytest.raises(NotImplementedError, match="uint8"):
        TF.interpolate(tl.ones(1, 1, 8, 8, dtype=tl.uint8), size=4, mode="bilinear",
                       antialias=True)


# ---------------------------------------------------------------------------
# bicubic grid_sample
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid_sample_bicubic_matches_pytorch(padding, align, dtype):
    a = _x(2, 3, 5, 6, seed=3, dtype=dtype)
    g = np.random.default_rng(4).uniform(-1.7, 1.7, (2, 4, 5, 2)).astype(dtype)
    g[0, 0, 0] = (1.0, -1.0)
    g[1, 0, 0] = (0.0, 0.25)

    def run(m):
        x = m.tensor(a, requires_grad=True)
        grid = m.tensor(g, requires_grad=True)
        y = m.nn.functional.grid_sample(x, grid, mode="bicubic", padding_mode=padding,
                                        align_corners=align)
        w = m.tensor(_x(*y.shape, seed=5, dtype=dtype))
        (y * w).sum().backward()
        return y, x.grad, grid.grad, y.grad_fn.name()

    out, ref = _both(run)
    assert out[3] == "GridSampler2DBackward0"
    if ref is not None:
        tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-11,
                                                                          atol=1e-11)
        assert_same(out, ref, **tol)


def test_grid_sample_bicubic_known_values_and_compiled():
    # at the pixel centres (align_corners=True, integer positions) bicubic interpolates
    x = tl.tensor(_x(1, 2, 4, 5, seed=6))
    ys, xs = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    grid = tl.tensor(np.stack([xs, ys], -1)[None].astype(np.float32))
    for padding in ("zeros", "border", "reflection"):
        y = TF.grid_sample(x, grid, mode="bicubic", padding_mode=padding, align_corners=True)
        np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=1e-5, atol=1e-6)
    f = tl.compile(lambda x, g: TF.grid_sample(x, g, mode="bicubic", align_corners=False))
    g = tl.tensor(np.random.default_rng(7).uniform(-1.2, 1.2, (1, 3, 3, 2)).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(f(x, g).numpy(), TF.grid_sample(
            x, g, mode="bicubic", align_corners=False).numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.grid_sample(m.ones(1, 1, 2, 3, 3), m.zeros(1, 1, 2, 2, 3),
                                          mode="bicubic", align_corners=False),
    lambda m: m.grid_sampler(m.ones(1, 1, 2, 3, 3), m.zeros(1, 1, 2, 2, 3), 2, 0, False),
])
def test_grid_sample_bicubic_errors(case):
    error_like_torch(case)
