"""``nn.utils.fuse_conv_bn_eval``/``fuse_linear_bn_eval`` (and their ``_weights``
functions), ``nn.utils.skip_init`` and ``nn.utils.stateless.functional_call``, compared
with PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn

from .._parity import HAVE_TORCH, torch


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


def _copy_into(m, tm) -> None:
    """PyTorch's parameters and buffers into ``m`` (same keys)."""
    m.load_state_dict({k: tl.tensor(v.numpy()) for k, v in tm.state_dict().items()})


def _trained_bn(fw, bn, shape, seed: int):
    """``bn`` after a few training batches (non-trivial running statistics), in eval."""
    rng = np.random.default_rng(seed)
    bn.train()
    for _ in range(3):
        x = (rng.standard_normal(shape) * 2 + 1).astype(np.float32)
        bn(fw.tensor(x))
    with fw.no_grad():
        bn.weight.copy_(fw.tensor(rng.uniform(0.5, 2, bn.num_features).astype(np.float32)))
        bn.bias.copy_(fw.tensor(rng.standard_normal(bn.num_features).astype(np.float32)))
    return bn.eval()


@pytest.mark.parametrize("conv_cls,transpose,bias", [
    ("Conv2d", False, True), ("Conv2d", False, False), ("Conv1d", False, True),
    ("ConvTranspose2d", True, True)])
def test_fuse_conv_bn_eval(conv_cls, transpose, bias):
    nd = 1 if conv_cls.endswith("1d") else 2
    shape = (2, 3) + (6,) * nd

    def build(fw):
        fw.manual_seed(0)
        conv = getattr(fw.nn, conv_cls)(3, 4, 3, bias=bias).eval()
        bn = getattr(fw.nn, f"BatchNorm{nd}d")(4)
        conv_out = conv(fw.tensor(np.ones(shape, np.float32))).shape
        _trained_bn(fw, bn, conv_out, seed=1)
        return conv, bn

    conv, bn = build(tl)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    assert type(fused) is type(conv) and fused is not conv and fused.bias is not None
    assert isinstance(fused.weight, nn.Parameter) and fused.weight.requires_grad
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(_np(fused(tl.tensor(x))), _np(bn(conv(tl.tensor(x)))),
                               rtol=1e-4, atol=1e-5)
    if bias:   # the original module is left as it was
        assert conv.bias is not None and conv.bias is not fused.bias
    if not HAVE_TORCH:
        return
    tconv, tbn = build(torch)
    _copy_into(conv, tconv)
    _copy_into(bn, tbn)
    tfused = torch.nn.utils.fuse_conv_bn_eval(tconv, tbn, transpose=transpose)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    np.testing.assert_allclose(_np(fused.weight), _np(tfused.weight), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(fused.bias), _np(tfused.bias), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("num_features", [5, 1])
def test_fuse_linear_bn_eval(num_features):
    def build(fw):
        fw.manual_seed(0)
        lin = fw.nn.Linear(3, 5).eval()
        bn = _trained_bn(fw, fw.nn.BatchNorm1d(num_features), (8, num_features), seed=3)
        return lin, bn

    lin, bn = build(tl)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    assert type(fused) is nn.Linear and tuple(fused.weight.shape) == (5, 3)
    if num_features == 5:
        x = np.random.default_rng(4).standard_normal((6, 3)).astype(np.float32)
        np.testing.assert_allclose(_np(fused(tl.tensor(x))), _np(bn(lin(tl.tensor(x)))),
                                   rtol=1e-4, atol=1e-5)
    if not HAVE_TORCH:
        return
    tlin, tbn = build(torch)
    _copy_into(lin, tlin)
    _copy_into(bn, tbn)
    fused = nn.utils.fuse_linear_bn_eval(lin, bn)
    tfused = torch.nn.utils.fuse_linear_bn_eval(tlin, tbn)
    np.testing.assert_allclose(_np(fused.weight), _np(tfused.weight), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(fused.bias), _np(tfused.bias), rtol=1e-5, atol=1e-6)


def test_fuse_weights_functions_and_errors():
    rng = np.random.default_rng(5)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    rm, rv = rng.standard_normal(4).astype(np.float32), rng.uniform(0.5, 2, 4).astype(np.float32)
    fw, fb = nn.utils.fuse_conv_bn_weights(tl.tensor(w), None, tl.tensor(rm), tl.tensor(rv),
                                           1e-5, None, None)
    assert type(fw) is nn.Parameter and not fw.requires_grad and fb.dtype is tl.float32
    scale = 1 / np.sqrt(rv + 1e-5)
    np.testing.assert_allclose(_np(fw), w * scale[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(_np(fb), -rm * scale, rtol=1e-6)
    if HAVE_TORCH:
        tw, tb = torch.nn.utils.fuse_conv_bn_weights(torch.tensor(w), None, torch.tensor(rm),
                                                     torch.tensor(rv), 1e-5, None, None)
        np.testing.assert_allclose(_np(fw), _np(tw), rtol=1e-6)
        np.testing.assert_allclose(_np(fb), _np(tb), rtol=1e-6)
        assert fw.requires_grad == tw.requires_grad
    lw, lb = nn.utils.fuse_linear_bn_weights(
        nn.Parameter(tl.ones(4, 2, dtype=tl.float64)), None, tl.tensor(rm), tl.tensor(rv),
        1e-5, tl.ones(4), tl.zeros(4))
    assert lw.dtype is tl.float64 and lb.dtype is tl.float64 and lw.requires_grad
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4).eval())
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == "
                                             "bn.num_features or bn.num_features == 1"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 5).eval(), nn.BatchNorm1d(4).eval())
    with pytest.raises(AssertionError, match="must not be None"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4).eval(),
                                     nn.BatchNorm1d(4, track_running_stats=False).eval())


def test_skip_init():
    state = tl.get_rng_state()
    m = nn.utils.skip_init(nn.Linear, 5, 1)
    assert bool((tl.get_rng_state() == state).all())   # no random numbers drawn
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (1, 5)
    assert m.weight.requires_grad and m.weight.device.type == "cpu"
    m2 = nn.utils.skip_init(nn.Linear, in_features=6, out_features=2, bias=False)
    assert m2.bias is None and tuple(m2.weight.shape) == (2, 6)
    with pytest.raises(RuntimeError, match="Expected a Module; got"):
        nn.utils.skip_init(int)

    class NoDevice(nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip "
                                           "initialization"):
        nn.utils.skip_init(NoDevice, 3)
    if HAVE_TORCH:
        tm = torch.nn.utils.skip_init(torch.nn.Linear, in_features=6, out_features=2,
                                      bias=False)
        assert list(m2.state_dict()) == list(tm.state_dict())
        assert tuple(tm.weight.shape) == tuple(m2.weight.shape)


def test_stateless_functional_call():
    tl.manual_seed(0)
    m = nn.Linear(3, 2)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = np.ones((4, 3), np.float32)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        out = nn.utils.stateless.functional_call(m, {"weight": tl.tensor(w)}, (tl.tensor(x),))
    ref = tl.func.functional_call(m, {"weight": tl.tensor(w)}, (tl.tensor(x),))
    np.testing.assert_array_equal(_np(out), _np(ref))
    # the module's own parameter is back
    assert not np.array_equal(_np(m.weight), w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(RuntimeError, match="Unexpected key"):
            nn.utils.stateless.functional_call(m, {"nope": tl.zeros(1)}, tl.tensor(x),
                                               strict=True)
        if HAVE_TORCH:
            tm = torch.nn.Linear(3, 2)
            tm.bias.data = torch.tensor(_np(m.bias))
            tout = torch.nn.utils.stateless.functional_call(tm, {"weight": torch.tensor(w)},
                                                            (torch.tensor(x),))
            np.testing.assert_allclose(_np(out), _np(tout), rtol=1e-6)
