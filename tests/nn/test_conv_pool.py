"""Parity of the convolution, pooling, resampling, padding, pixel-shuffle and fold layers
with PyTorch: outputs and gradients (``check_module``), default initialisation
statistics, printed reprs, autograd node names and error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as tnn
import torchlike.nn.functional as TF

from .._parity import normalize_error, HAVE_TORCH, assert_same, torch
from ._layers import check_module


def _x(*shape, seed=0, dtype="float32", low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _both(name, *args, **kwargs):
    """The layer in torchlike and in PyTorch (None without PyTorch)."""
    ref = getattr(torch.nn, name)(*args, **kwargs) if HAVE_TORCH else None
    return getattr(tnn, name)(*args, **kwargs), ref


def _np_pad(x, pad, mode="constant", value=0.0):
    """``F.pad`` in NumPy: negative amounts crop."""
    out = x
    for i in range(len(pad) // 2):
        ax = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        sl = [slice(None)] * x.ndim
        sl[ax] = slice(max(-lo, 0), out.shape[ax] - max(-hi, 0))
        out = out[tuple(sl)]
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
                   "circular": "wrap"}[mode]
        kw = {"constant_values": value} if mode == "constant" else {}
        out = np.pad(out, widths, mode=np_mode, **kw)
    return out


# ---------------------------------------------------------------------------
# layers: outputs and gradients
LAYERS = [
    ("Conv1d", (3, 4, 3), {}, (2, 3, 10)),
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=2, dilation=2, groups=2), (2, 4, 11)),
    ("Conv1d", (3, 4, 4), dict(padding="same", padding_mode="circular"), (3, 9)),
    ("Conv2d", (3, 6, 5), dict(bias=False), (4, 3, 32, 32)),
    ("Conv2d", (3, 6, 5), {}, (3, 12, 12)),
    ("Conv2d", (4, 8, 3), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=4),
     (2, 4, 9, 10)),
    ("Conv2d", (2, 3, (3, 2)), dict(padding="same", padding_mode="reflect"), (2, 2, 6, 7)),
    ("Conv2d", (2, 3, 3), dict(padding=1, padding_mode="replicate"), (2, 2, 5, 5)),
    ("Conv2d", (2, 3, 3), dict(padding="valid", stride=2), (1, 2, 8, 7)),
    ("Conv3d", (2, 4, 3), dict(padding=1, stride=2), (2, 2, 5, 6, 7)),
    ("Conv3d", (2, 2, 2), dict(groups=2, bias=False), (2, 5, 4, 4)),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, output_padding=1), (2, 3, 7)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, groups=2, dilation=2),
     (2, 4, 5, 6)),
    ("ConvTranspose2d", (3, 2, (2, 3)), dict(bias=False), (3, 4, 4)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, padding=1), (1, 2, 3, 4, 3)),
    ("MaxPool1d", (3,), dict(stride=2, padding=1), (2, 3, 10)),
    ("MaxPool1d", (2,), dict(ceil_mode=True, dilation=2), (3, 9)),
    ("MaxPool2d", (2, 2), {}, (4, 6, 28, 28)),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9, 8)),
    ("MaxPool2d", ((2, 3),), dict(dilation=(2, 1)), (3, 8, 9)),
    ("MaxPool3d", (2,), dict(stride=1, padding=1), (1, 2, 4, 5, 3)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 10)),
    ("AvgPool1d", (2,), dict(ceil_mode=True), (3, 9)),
    ("AvgPool2d", (2,), {}, (2, 3, 8, 8)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9, 8)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     (2, 3, 9, 8)),
    ("AvgPool2d", ((2, 3),), dict(divisor_override=4), (3, 7, 9)),
    ("AvgPool3d", (2,), dict(stride=1, padding=1), (1, 2, 4, 5, 3)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveAvgPool2d", ((3, None),), {}, (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (5,), {}, (3, 3, 4)),
    ("AdaptiveAvgPool3d", ((2, 3, 1),), {}, (1, 2, 5, 6, 3)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 10)),
    ("AdaptiveMaxPool2d", ((3, 2),), dict(return_indices=True), (2, 3, 7, 5)),
    ("AdaptiveMaxPool3d", (2,), {}, (1, 2, 5, 6, 3)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 10)),
    ("LPPool2d", (3.0, 2), {}, (2, 3, 6, 6)),
    ("Upsample", (), dict(scale_factor=2), (2, 3, 5)),
    ("Upsample", (), dict(scale_factor=2), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=(7, 9), mode="nearest-exact"), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=1.7, mode="linear"), (2, 3, 5)),
    ("Upsample", (), dict(size=(3, 8), mode="bilinear"), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=2, mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=1.5, mode="bicubic"), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=(5, 3), mode="bicubic", align_corners=True), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=(2, 1, 1.5), mode="trilinear"), (1, 2, 3, 4, 2)),
    ("Upsample", (), dict(scale_factor=2, mode="nearest"), (1, 2, 3, 4, 2)),
    ("Upsample", (), dict(size=(2, 3), mode="area"), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=0.6, mode="bilinear", recompute_scale_factor=True),
     (2, 3, 7, 9)),
    ("UpsamplingNearest2d", (), dict(scale_factor=3), (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (), dict(size=(6, 7)), (2, 3, 4, 5)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
    ("PixelUnshuffle", (3,), {}, (2, 2, 6, 3)),
    ("ZeroPad1d", (2,), {}, (2, 3, 5)),
    ("ZeroPad2d", ((1, 2, 0, 3),), {}, (2, 3, 4, 5)),
    ("ConstantPad1d", ((2, -1), 3.5), {}, (3, 5)),
    ("ConstantPad2d", (1, -2.0), {}, (2, 3, 4, 5)),
    ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 1.0), {}, (2, 3, 4, 5)),
    ("ZeroPad3d", (1,), {}, (1, 2, 3, 4, 5)),
    ("ReflectionPad1d", (2,), {}, (2, 3, 5)),
    ("ReflectionPad2d", ((1, 2, 3, 0),), {}, (2, 3, 4, 5)),
    ("ReflectionPad3d", (1,), {}, (3, 4, 3, 5)),
    ("ReplicationPad1d", ((3, 1),), {}, (2, 3, 5)),
    ("ReplicationPad2d", (2,), {}, (2, 3, 4, 5)),
    ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),), {}, (1, 3, 4, 3, 5)),
    ("CircularPad1d", (2,), {}, (2, 3, 5)),
    ("CircularPad2d", ((1, 2, 3, 0),), {}, (2, 3, 4, 5)),
    ("CircularPad3d", (1,), {}, (1, 3, 4, 3, 5)),
    ("Unfold", (3,), dict(padding=1, stride=2), (2, 3, 7, 6)),
    ("Unfold", ((2, 3),), dict(dilation=(1, 2)), (3, 6, 7)),
    ("Fold", ((5, 6), 2), dict(stride=1), (2, 12, 20)),
    ("Fold", (4, 3), dict(padding=1, stride=2, dilation=1), (18, 4)),
]


def _ids(c):
    return f"{c[0]}-{c[3]}"


@pytest.mark.parametrize("case", LAYERS, ids=[_ids(c) for c in LAYERS])
@pytest.mark.parametrize("train", [True, False])
def test_layer_parity(case, train):
    name, args, kwargs, shape = case
    m, tm = _both(name, *args, **kwargs)
    check_module(m, tm, [_x(*shape, seed=len(shape))], train=train, rtol=1e-4, atol=1e-5)


def test_layer_float64():
    m, tm = _both("Conv2d", 2, 3, 3, padding=1)
    m.double()
    if HAVE_TORCH:
        tm.double()
    check_module(m, tm, [_x(2, 2, 6, 6, dtype="float64")], rtol=1e-10, atol=1e-10)


def test_ties_go_to_the_first_maximum():
    x = np.zeros((1, 2, 4, 4), np.float32)
    x[0, 1, 1:3, :] = 1.0
    for name, kw in (("MaxPool2d", dict(kernel_size=2)),
                     ("AdaptiveMaxPool2d", dict(output_size=3))):
        m, tm = _both(name, **kw)
        check_module(m, tm, [x])


def test_max_pool_indices_and_unpool():
    x = _x(2, 3, 9, 8)
    out, idx = TF.max_pool2d(tl.tensor(x), 3, 2, 1, return_indices=True)
    if HAVE_TORCH:
        rout, ridx = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1,
                                                    return_indices=True)
        assert_same(idx, ridx)
    else:   # each index points at its window's maximum in the flattened plane
        flat = x.reshape(2, 3, -1)
        np.testing.assert_array_equal(
            np.take_along_axis(flat, np.asarray(idx).reshape(2, 3, -1), 2),
            np.asarray(out).reshape(2, 3, -1))
    for nd, shape in ((1, (2, 3, 10)), (2, (2, 3, 8, 6)), (3, (1, 2, 4, 6, 4))):
        pool, tpool = _both(f"MaxPool{nd}d", 2, return_indices=True)
        unpool, tunpool = _both(f"MaxUnpool{nd}d", 2)
        xs = _x(*shape)
        o, i = pool(tl.tensor(xs))
        if HAVE_TORCH:
            ro, ri = tpool(torch.tensor(xs))
            assert_same(i, ri)
        u = check_module(unpool, tunpool, [o.detach().numpy(), i.numpy()])
        sz = [s + 1 for s in shape[2:]]
        res = unpool(o, i, output_size=sz)
        if HAVE_TORCH:
            ref = tunpool(ro, ri, output_size=sz)
            assert_same(res, ref)
        else:   # the maxima back at their places, zeros elsewhere
            assert tuple(u.shape) == shape and tuple(res.shape) == shape[:2] + tuple(sz)
            uf = np.asarray(u.detach()).reshape(*shape[:2], -1)
            np.testing.assert_array_equal(
                np.take_along_axis(uf, np.asarray(i).reshape(*shape[:2], -1), 2),
                np.asarray(o.detach()).reshape(*shape[:2], -1))
            assert np.count_nonzero(uf) == np.count_nonzero(np.asarray(o.detach()))
    nested = TF.max_unpool2d(tl.tensor(_x(1, 1, 2, 2)), tl.zeros(1, 1, 2, 2, dtype=tl.int64), 2)
    assert nested.shape == (1, 1, 4, 4)


def test_conv_transpose_output_size():
    m, tm = _both("ConvTranspose2d", 3, 2, 3, stride=2, padding=1)
    x = _x(1, 3, 5, 5)
    check_module(m, tm, [x, [10, 10]], call=lambda mod, a, s: mod(a, output_size=s))
    with pytest.raises(ValueError) as e:
        m(tl.tensor(x), output_size=[12, 12])
    if not HAVE_TORCH:
        return
    with pytest.raises(ValueError) as te:
        tm(torch.tensor(x), output_size=[12, 12])
    assert str(e.value) == str(te.value).replace("torch.", "torchlike.")


def test_lenet_conv_pool_parts():
    """The seed's LeNet: Conv2d(3, 6, 5, bias=False) -> relu -> MaxPool2d(2, 2) ->
    Conv2d(6, 16, 5) -> relu -> pool -> flatten."""

    def build(nn):
        class Features(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, 6, 5, bias=False)
                self.pool = nn.MaxPool2d(2, 2)
                self.conv2 = nn.Conv2d(6, 16, 5)

            def forward(self, x):
                x = self.pool(self.conv1(x).clamp(min=0))
                x = self.pool(self.conv2(x).clamp(min=0))
                return x.reshape(x.shape[0], -1)
        return Features()

    m, tm = build(tnn), build(torch.nn) if HAVE_TORCH else None
    out = check_module(m, tm, [_x(8, 3, 32, 32)], rtol=1e-4, atol=1e-5)
    assert out.shape == (8, 16 * 5 * 5)
    if HAVE_TORCH:
        assert repr(m) == repr(tm)


# ---------------------------------------------------------------------------
# reprs
REPRS = [
    ("Conv2d", (3, 6, 5), dict(bias=False)),
    ("Conv2d", (16, 33, (3, 5)), dict(stride=(2, 1), padding=(4, 2), dilation=(3, 1))),
    ("Conv1d", (4, 8, 3), dict(padding="same", groups=2, padding_mode="reflect")),
    ("Conv3d", (2, 4, 3), dict(padding="valid")),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, output_padding=1, groups=2, bias=False)),
    ("ConvTranspose1d", (4, 6, 3), dict(dilation=2)),
    ("ConvTranspose3d", (4, 6, 3), {}),
    ("MaxPool2d", (2, 2), {}), ("MaxPool1d", (3,), dict(ceil_mode=True)),
    ("MaxPool3d", ((2, 1, 2),), dict(padding=1)),
    ("MaxUnpool1d", (2,), {}), ("MaxUnpool2d", (2,), dict(stride=1)), ("MaxUnpool3d", (2,), {}),
    ("AvgPool1d", (2,), {}), ("AvgPool2d", (3,), dict(stride=2)), ("AvgPool3d", (2,), {}),
    ("AdaptiveAvgPool1d", (4,), {}), ("AdaptiveAvgPool2d", ((3, None),), {}),
    ("AdaptiveAvgPool3d", (2,), {}), ("AdaptiveMaxPool1d", (4,), {}),
    ("AdaptiveMaxPool2d", (2,), dict(return_indices=True)), ("AdaptiveMaxPool3d", (2,), {}),
    ("LPPool1d", (2, 3), {}), ("LPPool2d", (1.5, 2), dict(stride=1, ceil_mode=True)),
    ("Upsample", (), dict(scale_factor=2)), ("Upsample", (), dict(size=(3, 4), mode="bilinear")),
    ("Upsample", (), dict(scale_factor=(2, 3), mode="bicubic")),
    ("UpsamplingNearest2d", (), dict(scale_factor=2)), ("UpsamplingBilinear2d", (), dict(size=4)),
    ("PixelShuffle", (3,), {}), ("PixelUnshuffle", (2,), {}),
    ("ZeroPad1d", (2,), {}), ("ZeroPad2d", ((1, 2, 3, 4),), {}), ("ZeroPad3d", (1,), {}),
    ("ConstantPad1d", (2, 3.5), {}), ("ConstantPad2d", (1, 0), {}), ("ConstantPad3d", (1, 2.0), {}),
    ("ReflectionPad1d", (2,), {}), ("ReflectionPad2d", ((1, 2, 3, 4),), {}),
    ("ReflectionPad3d", (1,), {}), ("ReplicationPad1d", (2,), {}),
    ("ReplicationPad2d", (1,), {}), ("ReplicationPad3d", (1,), {}),
    ("CircularPad1d", (2,), {}), ("CircularPad2d", (1,), {}), ("CircularPad3d", (1,), {}),
    ("Fold", ((4, 5), 2), {}), ("Unfold", (3,), dict(padding=1)),
]


@pytest.mark.parametrize("name,args,kwargs", REPRS, ids=[r[0] for r in REPRS])
def test_repr(name, args, kwargs):
    m, tm = _both(name, *args, **kwargs)
    got, sd = repr(m), [(k, tuple(v.shape)) for k, v in m.state_dict().items()]
    assert got.startswith(name + "(")
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the printed text is compared")
    assert got == repr(tm).replace("torch.", "torchlike.")
    assert sd == [(k, tuple(v.shape)) for k, v in tm.state_dict().items()]


def test_sequential_repr():
    def build(nn):
        return nn.Sequential(nn.Conv2d(3, 6, 5, bias=False), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5), nn.AdaptiveAvgPool2d(1))
    got = repr(build(tnn))
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the printed text is compared")
    assert got == repr(build(torch.nn))


# ---------------------------------------------------------------------------
# default initialisation
@pytest.mark.parametrize("name,args", [("Conv2d", (3, 6, 5)), ("Conv1d", (4, 8, 3)),
                                       ("Conv3d", (2, 4, 3)), ("ConvTranspose2d", (6, 4, 3)),
                                       ("Conv2d", (8, 4, 3, 1, 0, 1, 2))])
def test_default_init_statistics(name, args):
    tl.manual_seed(0)
    if HAVE_TORCH:
        torch.manual_seed(0)
    ws, bs, tws, tbs = [], [], [], []
    for _ in range(20):
        m, tm = _both(name, *args)
        ws.append(m.weight.detach().numpy().ravel())
        bs.append(m.bias.detach().numpy().ravel())
        if HAVE_TORCH:
            tws.append(tm.weight.detach().numpy().ravel())
            tbs.append(tm.bias.detach().numpy().ravel())
    m, tm = _both(name, *args)
    w = (tm if HAVE_TORCH else m).weight
    fan_in = w.shape[1] * math.prod(w.shape[2:])
    bound = 1 / math.sqrt(fan_in)
    pairs = ((np.concatenate(ws), np.concatenate(tws) if HAVE_TORCH else None),
             (np.concatenate(bs), np.concatenate(tbs) if HAVE_TORCH else None))
    for a, b in pairs:
        assert np.abs(a).max() <= bound + 1e-7
        assert np.abs(a).max() > 0.9 * bound
        assert abs(a.mean()) < 0.1 * bound
        if HAVE_TORCH:
            assert abs(a.std() - b.std()) < 0.1 * bound
        assert abs(a.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert m.weight.requires_grad and m.weight.grad is None
    assert m.weight.dtype == tl.float32


def test_factory_kwargs():
    m = tnn.Conv2d(2, 3, 3, dtype=tl.float64)
    assert m.weight.dtype == tl.float64 and m.bias.dtype == tl.float64


# ---------------------------------------------------------------------------
# autograd node names
def _node(fw_F, fw, fn, *arrays):
    ts = [fw.tensor(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    out = fn(fw_F, *ts)
    out = out[0] if isinstance(out, tuple) else out
    return out.grad_fn.name()


NODES = [
    lambda F, x, w: F.conv2d(x, w), lambda F, x, w: F.conv1d(x[0, :, 0], w[:, :, 0]),
    lambda F, x, w: F.conv_transpose2d(x, w.transpose(0, 1)),
    lambda F, x, w: F.max_pool2d(x, 2), lambda F, x, w: F.max_pool1d(x[0], 2),
    lambda F, x, w: F.max_pool3d(x, 2), lambda F, x, w: F.avg_pool2d(x, 2),
    lambda F, x, w: F.avg_pool1d(x[0], 2), lambda F, x, w: F.adaptive_avg_pool2d(x, 3),
    lambda F, x, w: F.adaptive_avg_pool2d(x, 1), lambda F, x, w: F.adaptive_max_pool2d(x, 3),
    lambda F, x, w: F.interpolate(x, scale_factor=2),
    lambda F, x, w: F.interpolate(x, scale_factor=2, mode="bilinear"),
    lambda F, x, w: F.interpolate(x, scale_factor=2, mode="bicubic"),
    lambda F, x, w: F.interpolate(x, scale_factor=2, mode="nearest-exact"),
    lambda F, x, w: F.interpolate(x[0], scale_factor=2, mode="linear"),
    lambda F, x, w: F.pad(x, (1, 1, 1, 1)), lambda F, x, w: F.pad(x, (1, 1, 1, 1), mode="reflect"),
    lambda F, x, w: F.pad(x[0], (1, 1), mode="replicate"),
    lambda F, x, w: F.pixel_shuffle(x.reshape(2, 12, 4, 4), 2),
    lambda F, x, w: F.pixel_unshuffle(x, 2), lambda F, x, w: F.unfold(x, 2),
    lambda F, x, w: F.fold(x.reshape(2, 12, 16), 5, 2),
    lambda F, x, w: F.affine_grid(w[:2, :2, 0], (2, 3, 4, 4), align_corners=False),
]


@pytest.mark.parametrize("i", range(len(NODES)))
def test_grad_fn_names(i):
    x, w = _x(2, 3, 8, 8), _x(4, 3, 3, 3)
    got = _node(TF, tl, NODES[i], x, w)
    assert got.endswith(("Backward0", "Backward1")), got
    if HAVE_TORCH:
        assert got == _node(torch.nn.functional, torch, NODES[i], x, w)


# ---------------------------------------------------------------------------
# functional-only paths
def test_grid_sample_and_affine_grid():
    theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]], np.float32).repeat(2, 0)
    x = _x(2, 3, 6, 7)
    for mode in ("bilinear", "nearest"):
        for pm in ("zeros", "border", "reflection"):
            for ac in (False, True):
                def run(F, fw):
                    th = fw.tensor(theta).requires_grad_()
                    xx = fw.tensor(x).requires_grad_()
                    g = F.affine_grid(th, (2, 3, 5, 4), align_corners=ac)
                    out = F.grid_sample(xx, g * 1.3, mode=mode, padding_mode=pm,
                                        align_corners=ac)
                    out.sum().backward()
                    return out, xx.grad, th.grad
                res = run(TF, tl)
                if not HAVE_TORCH:
                    assert [tuple(r.shape) for r in res] == [(2, 3, 5, 4), x.shape,
                                                             theta.shape]
                    continue
                ref = run(torch.nn.functional, torch)
                for a, b in zip(res, ref):
                    assert_same(a, b, 1e-4, 1e-4)


def test_interpolate_unbatched_and_scales():
    x = _x(1, 2, 5, 7)
    for kw in (dict(scale_factor=(1.3, 0.7), mode="bilinear"), dict(scale_factor=3.3),
               dict(size=4, mode="nearest-exact"), dict(scale_factor=2.5, mode="area"),
               dict(scale_factor=0.5, mode="bicubic", align_corners=True)):
        out = TF.interpolate(tl.tensor(x), **kw)
        if HAVE_TORCH:
            assert_same(out, torch.nn.functional.interpolate(torch.tensor(x), **kw), 1e-5, 1e-5)
        else:
            sf = kw.get("scale_factor")
            sf = sf if isinstance(sf, tuple) else (sf, sf)
            want = (4, 4) if "size" in kw else tuple(math.floor(n * f)
                                                      for n, f in zip(x.shape[2:], sf))
            assert tuple(out.shape) == x.shape[:2] + want


def test_pad_negative_and_value():
    x = _x(2, 3, 4)
    for args in (((1, -1), "constant", 2.0), ((-1, -2, 1, 1),), ((2, 1, 1, 0), "reflect"),
                 ((3, 3), "replicate"), ((1, 2, 2, 1), "circular")):
        out = TF.pad(tl.tensor(x), *args)
        if HAVE_TORCH:
            assert_same(out, torch.nn.functional.pad(torch.tensor(x), *args))
        else:
            np.testing.assert_array_equal(np.asarray(out), _np_pad(x, *args))


def test_conv_without_batch_matches_batched():
    x = tl.tensor(_x(3, 9, 9))
    m = tnn.Conv2d(3, 4, 3)
    np.testing.assert_allclose(m(x).detach().numpy(), m(x.unsqueeze(0))[0].detach().numpy(),
                               rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------
# errors
def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return type(e).__name__, normalize_error(str(e))
    return None


ERRORS = [
    lambda F, fw: F.conv2d(fw.ones(3, 4), fw.ones(6, 3, 5, 5)),
    lambda F, fw: F.conv2d(fw.ones(1, 4, 32, 32), fw.ones(6, 3, 5, 5)),
    lambda F, fw: F.conv2d(fw.ones(4, 32, 32), fw.ones(6, 3, 5, 5)),
    lambda F, fw: F.conv1d(fw.ones(2, 3), fw.ones(6, 3, 5)),
    lambda F, fw: F.conv3d(fw.ones(2, 3, 3, 3, 3, 3), fw.ones(6, 3, 5, 5, 5)),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 4, 4), fw.ones(6, 3, 5, 5)),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), stride=2, padding="same"),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), padding="foo"),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), fw.ones(5)),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), stride=0),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), padding=-1),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8, dtype=fw.float64), fw.ones(6, 3, 3, 3)),
    lambda F, fw: F.conv2d(fw.ones(1, 3, 8, 8), fw.ones(6, 3, 3, 3), fw.ones(6, dtype=fw.float64)),
    lambda F, fw: F.conv_transpose2d(fw.ones(1, 3, 8, 8), fw.ones(4, 6, 3, 3)),
    lambda F, fw: F.conv_transpose2d(fw.ones(1, 3, 8, 8), fw.ones(3, 6, 3, 3), output_padding=2),
    lambda F, fw: F.max_pool2d(fw.ones(1, 3, 8, 8), 3, padding=2),
    lambda F, fw: F.max_pool2d(fw.ones(1, 3, 2, 2), 3),
    lambda F, fw: F.max_pool2d(fw.ones(8, 8), 3),
    lambda F, fw: F.max_pool1d(fw.ones(8), 3),
    lambda F, fw: F.avg_pool1d(fw.ones(8), 3),
    lambda F, fw: F.avg_pool2d(fw.ones(1, 3, 2, 2), 3),
    lambda F, fw: F.adaptive_avg_pool2d(fw.ones(8), 3),
    lambda F, fw: F.adaptive_max_pool2d(fw.ones(8), 3),
    lambda F, fw: F.adaptive_avg_pool2d(fw.ones(1, 3, 0, 4), 2),
    lambda F, fw: F.pad(fw.ones(1, 3, 8, 8), (1, 1, 1)),
    lambda F, fw: F.pad(fw.ones(1, 3, 8, 8), (4, 4), mode="reflect"),
    lambda F, fw: F.pad(fw.ones(1, 3, 8, 8), (1, 1), mode="foo"),
    lambda F, fw: F.pad(fw.ones(1, 3, 8, 8), (1,) * 10),
    lambda F, fw: F.pad(fw.ones(1, 3, 3), (3, 3), mode="reflect"),
    lambda F, fw: F.pixel_shuffle(fw.ones(3, 3), 2),
    lambda F, fw: F.pixel_shuffle(fw.ones(1, 3, 8, 8), 2),
    lambda F, fw: F.pixel_unshuffle(fw.ones(1, 3, 8, 8), 3),
    lambda F, fw: F.interpolate(fw.ones(1, 3, 8, 8), scale_factor=2, mode="linear"),
    lambda F, fw: F.interpolate(fw.ones(1, 3, 8, 8), scale_factor=2, align_corners=True),
    lambda F, fw: F.interpolate(fw.ones(1, 3, 8, 8)),
    lambda F, fw: F.interpolate(fw.ones(1, 3, 8, 8), size=(2, 3, 4)),
    lambda F, fw: F.interpolate(fw.ones(1, 3, 8, 8), size=2, scale_factor=2),
    lambda F, fw: F.grid_sample(fw.ones(1, 3, 8, 8), fw.ones(1, 4, 4, 3), align_corners=False),
    lambda F, fw: F.max_unpool2d(fw.ones(1, 1, 2, 2), fw.zeros(1, 1, 2, 2, dtype=fw.int64), 2,
                                 output_size=(9, 9)),
    lambda F, fw: F.fold(fw.ones(1, 12, 9), 4, 3),
    lambda F, fw: F.unfold(fw.ones(1, 3, 2, 2), 3),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_messages(i):
    ours = _err(lambda: ERRORS[i](TF, tl))
    if not HAVE_TORCH:
        assert ours is not None
        return
    ref = _err(lambda: ERRORS[i](torch.nn.functional, torch))
    assert ref is not None and ours is not None, (ours, ref)
    assert ours[0] == ref[0], (ours, ref)
    assert ours[1] == ref[1].replace("torch.", "torchlike."), (ours, ref)


LAYER_ERRORS = [
    lambda nn: nn.Conv2d(3, 6, 3, groups=2), lambda nn: nn.Conv2d(4, 6, 3, groups=4),
    lambda nn: nn.Conv2d(3, 6, 3, padding_mode="foo"), lambda nn: nn.Conv2d(3, 6, 3, groups=0),
    lambda nn: nn.ConvTranspose2d(3, 6, 3, padding_mode="reflect"),
    lambda nn: nn.Conv2d(3, 6, 3, padding="same", stride=2),
    lambda nn: nn.Conv2d(3, 6, 3, padding="foo"),
]


@pytest.mark.parametrize("i", range(len(LAYER_ERRORS)))
def test_layer_construction_errors(i):
    ours = _err(lambda: LAYER_ERRORS[i](tnn))
    if not HAVE_TORCH:
        assert ours is not None
        return
    ref = _err(lambda: LAYER_ERRORS[i](torch.nn))
    assert ours == ref


_ = HAVE_TORCH
