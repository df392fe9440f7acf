"""The CPU lowerings of convolution and max pooling (Note [Convolution lowering on CPU],
Note [Pooling windows]) compute what ``lax.conv``/the general path compute and what
PyTorch computes: values, gradients (reverse mode, forward mode, second order) and the
lowering rule itself. Float64 throughout, so that agreement with ``lax.conv`` is to
rounding; PyTorch comparisons are skipped where it is absent."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as TF
from torchlike._core import xla
from torchlike._ops import nn_conv, nn_pool
from torchlike._ops.nn_conv_lowering import (conv_forward, conv_lowering,
                                             conv_transpose_forward,
                                             conv_transpose_lowering)

from .._parity import HAVE_TORCH, assert_same, torch


def _arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _close(a, b, tol=1e-12):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()))


def _vjp(f, x, w, ct):
    y, pull = jax.vjp(f, x, w)
    return (y,) + pull(ct)


# ---------------------------------------------------------------------------
# convolution: each lowering against lax.conv and PyTorch
# x shape, w shape, stride, padding (an int, or "same"), dilation
CONVS = [
    ((2, 3, 9, 8), (4, 3, 3, 3), (1, 1), 1, (1, 1)),
    ((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), 2, (2, 1)),
    ((2, 2, 7, 6), (3, 2, 2, 4), (1, 1), "same", (1, 2)),      # asymmetric padding
    ((2, 2, 7, 6), (3, 2, 2, 4), (1, 1), "same", (1, 1)),
    ((2, 2, 11), (3, 2, 4), (1,), 2, (1,)),
    ((2, 5, 11), (3, 5, 4), (3,), 2, (2,)),
    ((1, 2, 5, 6, 5), (3, 2, 2, 3, 2), (1, 2, 1), 1, (1, 1, 2)),
    ((2, 4, 7, 6), (5, 4, 1, 1), (2, 2), 0, (1, 1)),           # 1x1, strided
    ((2, 4, 7), (5, 4, 1), (1,), 1, (1,)),                      # 1x1 with padding
]


def _torch_conv(x, w, stride, padding, dilation):
    nd = x.ndim - 2
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    y = getattr(torch.nn.functional, f"conv{nd}d")(tx, tw, None, stride, padding, dilation)
    return tx, tw, y


@pytest.mark.parametrize("case", CONVS, ids=[f"{len(c[0]) - 2}d-{i}" for i, c in
                                             enumerate(CONVS)])
def test_conv_lowerings_match_lax_and_torch(case):
    xs, ws, stride, padding, dilation = case
    x, w = _arr(*xs), _arr(*ws, seed=1)
    tangents = (_arr(*xs, seed=3), _arr(*ws, seed=4))
    pads = nn_conv._conv_pads(padding, ws[2:], dilation)
    lowerings = ["lax", "col2im", "im2col"] + (["matmul"] if max(ws[2:]) == 1 else [])
    if max(stride + dilation) == 1:
        lowerings.append("space_to_depth")

    @jax.jit
    def run(x, w, ct, tx, tw):
        out = {}
        for low in lowerings:
            def conv(x, w, low=low):
                return conv_forward(x, w, None, stride, pads, dilation, 1, low)
            out[low] = _vjp(conv, x, w, ct) + (jax.jvp(conv, (x, w), (tx, tw))[1],)
        return out
    ct = _arr(*jax.eval_shape(lambda: conv_forward(
        jnp.zeros(xs), jnp.zeros(ws), None, stride, pads, dilation, 1, "lax")).shape, seed=2)
    res = run(x, w, ct, *tangents)
    for low in lowerings[1:]:
        for a, b in zip(res[low], res["lax"]):
            _close(a, b)
    if HAVE_TORCH:
        tx, tw, ty = _torch_conv(x, w, stride, padding, dilation)
        ty.backward(torch.tensor(ct))
        for a, b in zip(res["lax"], (ty, tx.grad, tw.grad)):
            _close(a, b.detach().numpy(), 1e-10)


def test_conv_col2im_second_order_matches_lax():
    x, w = _arr(2, 3, 6, 5), _arr(4, 3, 3, 3, seed=1)
    tw = _arr(4, 3, 3, 3, seed=2)

    def hvp(low):
        def g(w):
            return jax.grad(lambda x, w: jnp.sum(jnp.sin(
                conv_forward(x, w, None, (2, 1), [(1, 1), (0, 1)], (1, 1), 1, low))),
                argnums=(0, 1))(x, w)
        return jax.jvp(g, (w,), (tw,))[1]
    for a, b in zip(*jax.jit(lambda: (hvp("col2im"), hvp("lax")))()):
        _close(a, b)


# ---------------------------------------------------------------------------
# transposed convolution: the adjoint lowering
# x shape, w shape, stride, padding, output_padding, groups, dilation
TRANSPOSED = [
    ((2, 4, 5, 6), (4, 3, 3, 3), (2, 2), (1, 1), (1, 0), 1, (1, 1)),
    ((2, 4, 5, 6), (4, 2, 3, 2), (2, 3), (0, 1), (1, 2), 2, (2, 1)),
    ((2, 6, 7), (6, 1, 4), (3,), (2,), (2,), 3, (1,)),
    ((2, 4, 5), (4, 3, 3), (2,), (0,), (2,), 1, (3,)),          # output_padding >= stride
    ((1, 2, 3, 4, 3), (2, 3, 2, 2, 3), (2, 1, 2), (1, 0, 1), (1, 0, 0), 1, (1, 1, 1)),
]


@pytest.mark.parametrize("case", TRANSPOSED, ids=[f"{len(c[0]) - 2}d-{i}" for i, c in
                                                  enumerate(TRANSPOSED)])
def test_conv_transpose_adjoint_matches_lax_and_torch(case):
    xs, ws, stride, padding, out_pad, groups, dilation = case
    x, w = _arr(*xs), _arr(*ws, seed=1)
    tangents = (_arr(*xs, seed=3), _arr(*ws, seed=4))

    def conv(low):
        return lambda x, w: conv_transpose_forward(x, w, None, stride, padding, out_pad,
                                                   groups, dilation, low)

    @jax.jit
    def run(x, w, ct, tx, tw):
        return {low: _vjp(conv(low), x, w, ct) + (jax.jvp(conv(low), (x, w), (tx, tw))[1],)
                for low in ("lax", "adjoint")}
    ct = _arr(*jax.eval_shape(conv("lax"), jnp.zeros(xs), jnp.zeros(ws)).shape, seed=2)
    res = run(x, w, ct, *tangents)
    for a, b in zip(res["adjoint"], res["lax"]):
        _close(a, b)
    if HAVE_TORCH:
        tx = torch.tensor(x, requires_grad=True)
        tw = torch.tensor(w, requires_grad=True)
        op = getattr(torch.nn.functional, f"conv_transpose{len(xs) - 2}d")
        ty = op(tx, tw, None, stride, padding, out_pad, groups, dilation)
        ty.backward(torch.tensor(ct))
        for a, b in zip(res["lax"], (ty, tx.grad, tw.grad)):
            _close(a, b.detach().numpy(), 1e-10)


def test_conv_transpose_adjoint_second_order_matches_lax():
    x, w = _arr(2, 4, 5, 4), _arr(4, 3, 3, 3, seed=1)
    tx, tw = _arr(2, 4, 5, 4, seed=2), _arr(4, 3, 3, 3, seed=3)

    def hvp(low):
        def g(x, w):
            return jax.grad(lambda x, w: jnp.sum(jnp.sin(conv_transpose_forward(
                x, w, None, (2, 2), (1, 0), (1, 1), 1, (1, 1), low))), argnums=(0, 1))(x, w)
        return jax.jvp(g, (x, w), (tx, tw))[1]
    for a, b in zip(*jax.jit(lambda: (hvp("adjoint"), hvp("lax")))()):
        _close(a, b)


# ---------------------------------------------------------------------------
# the rule
def test_lowering_rule_on_cpu():
    def pick(xs, ws, stride=1, pad=0, dilation=1, groups=1, dtype=jnp.float32):
        x, w = jnp.zeros(xs, dtype), jnp.zeros(ws, dtype)
        nd = len(xs) - 2
        return conv_lowering(x, w, (stride,) * nd, [(pad, pad)] * nd, (dilation,) * nd,
                             groups)
    assert jax.default_backend() == "cpu"
    assert pick((2, 64, 8, 8), (128, 64, 1, 1), stride=2) == "matmul"
    # stride 1: XLA's own convolution kernels beat the matmul, YNNPACK's do not
    ones = "lax" if xla.compiler_options() is not None else "matmul"
    assert pick((2, 64, 8, 8), (128, 64, 1, 1)) == ones
    assert pick((2, 4, 8, 8), (128, 4, 1, 1)) == ones
    assert pick((2, 64, 8, 8), (128, 64, 1, 1), pad=1) == "lax"
    assert pick((2, 3, 32, 32), (6, 3, 5, 5)) == "space_to_depth"
    assert pick((2, 4, 14, 14), (16, 4, 5, 5), pad=2, dtype=jnp.float64) == "space_to_depth"
    assert pick((2, 6, 14, 14), (16, 6, 5, 5)) == "col2im"
    assert pick((2, 4, 16), (32, 4, 5)) == "space_to_depth"
    assert pick((2, 3, 32, 32), (64, 3, 3, 3)) == "col2im"
    assert pick((2, 3, 32, 32), (16, 3, 3, 3), stride=2) == "col2im"
    assert pick((2, 3, 32, 32), (16, 3, 3, 3), dilation=2) == "col2im"
    assert pick((1, 3, 8, 8, 8), (16, 3, 3, 3, 3)) == "col2im"
    assert pick((2, 8, 9), (4, 8, 3)) == "col2im"
    assert pick((2, 16, 8, 8), (32, 16, 3, 3)) == "lax"
    assert pick((2, 6, 8, 8), (6, 2, 3, 3), groups=3) == "lax"
    assert pick((2, 6, 8, 8), (16, 6, 3, 3), dtype=jnp.bfloat16) == "lax"
    t = jnp.zeros((2, 4, 5, 5))
    assert conv_transpose_lowering(t, jnp.zeros((4, 2, 3, 3)), (2, 2)) == "adjoint"
    assert conv_transpose_lowering(t, jnp.zeros((4, 2, 3, 3)), (1, 1)) == "lax"


def test_lowering_rule_keeps_lax_off_cpu(monkeypatch):
    # Traced inputs carry no device: the backend decides (here pretending to be a GPU).
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    seen = []

    def f(x, w):
        seen.append(conv_lowering(x, w, (1, 1), [(0, 0)] * 2, (1, 1), 1))
        seen.append(conv_transpose_lowering(x, w, (2, 2)))
        return x
    jax.make_jaxpr(f)(jnp.zeros((2, 4, 5, 5)), jnp.zeros((4, 4, 1, 1)))
    assert seen == ["lax", "lax"]


def test_lowering_errors():
    x, w = jnp.zeros((1, 4, 5, 5)), jnp.zeros((2, 4, 3, 3))
    cfg = ((1, 1), [(0, 0), (0, 0)], (1, 1))
    with pytest.raises(ValueError, match="unknown conv lowering 'fft'"):
        conv_forward(x, w, None, *cfg, 1, "fft")
    with pytest.raises(ValueError, match="needs groups=1, got groups=2"):
        conv_forward(x, jnp.zeros((2, 2, 3, 3)), None, *cfg, 2, "col2im")
    with pytest.raises(ValueError, match=r"kernel of ones, got weight of shape \(2, 4, 3, 3\)"):
        conv_forward(x, w, None, *cfg, 1, "matmul")
    with pytest.raises(ValueError, match=r"stride 1 and dilation 1, got stride=\(2, 1\), "
                                         r"dilation=\(1, 1\)"):
        conv_forward(x, w, None, (2, 1), cfg[1], cfg[2], 1, "space_to_depth")
    with pytest.raises(ValueError, match="unknown conv_transpose lowering 'col2im'"):
        conv_transpose_forward(x, jnp.zeros((4, 2, 3, 3)), None, (2, 2), (0, 0), (0, 0), 1,
                               (1, 1), "col2im")


# ---------------------------------------------------------------------------
# through the public API: inside jax.jit, eagerly (tape), and in forward mode; the
# reference is the same program on lax.conv, and PyTorch where it is installed
def _lax_conv(x, w, stride=1, padding=0):
    nd = x.ndim - 2
    return conv_forward(x, w, None, (stride,) * nd, [(padding, padding)] * nd, (1,) * nd, 1,
                        "lax")


def _lax_conv_t(x, w, stride=1, padding=0):
    nd = x.ndim - 2
    return conv_transpose_forward(x, w, None, (stride,) * nd, (padding,) * nd, (0,) * nd, 1,
                                  (1,) * nd, "lax")


def _net(F, conv, conv_t, pool, x, w1, w2, w3):
    """Convolutions that take CPU lowerings, and a tiled max pool."""
    h = F.relu(conv(x, w1, padding=1))
    h = pool(conv(h, w2, stride=2))
    return conv_t(h, w3, stride=2, padding=1)


def test_functional_ops_under_jit_match_lax_and_torch():
    # conv2d(x, w1) takes space_to_depth, conv2d(h, w2) matmul, conv_transpose2d adjoint
    x = _arr(2, 3, 8, 8)
    ws = [_arr(4, 3, 3, 3, seed=1), _arr(6, 4, 1, 1, seed=2), _arr(6, 2, 4, 4, seed=3)]

    def tl_loss(*args):
        t = [tl.Tensor._wrap(a) for a in args]
        return _net(TF, TF.conv2d, TF.conv_transpose2d, lambda h: TF.max_pool2d(h, 2),
                    *t).sin().sum()._value

    def ref_loss(*args):
        return jnp.sin(_net(jax.nn, _lax_conv, _lax_conv_t,
                            lambda h: nn_pool.max_pool_with_indices(h, 2, 2, 2, 0, 1, False)[0],
                            *args)).sum()
    argnums = (0, 1, 2, 3)
    got = jax.jit(jax.value_and_grad(tl_loss, argnums))(x, *ws)
    ref = jax.jit(jax.value_and_grad(ref_loss, argnums))(x, *ws)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(ref)):
        _close(a, b)
    if HAVE_TORCH:
        F = torch.nn.functional
        tx = [torch.tensor(a, requires_grad=True) for a in (x, *ws)]
        loss = _net(F, F.conv2d, F.conv_transpose2d, lambda h: F.max_pool2d(h, 2), *tx)
        loss = loss.sin().sum()
        loss.backward()
        _close(got[0], loss.item(), 1e-10)
        for a, t in zip(got[1], tx):
            _close(a, t.grad.numpy(), 1e-10)


def _two_convs(F, conv, conv_t, x, w, wt):
    # col2im (stride 2, 3 input channels), then adjoint
    return conv_t(conv(x, w, stride=2, padding=1), wt, stride=2)


def test_eager_backward_matches_lax_and_torch():
    x, w, wt = _arr(2, 3, 7, 6), _arr(4, 3, 3, 3, seed=1), _arr(4, 2, 3, 3, seed=2)
    a, b, c = (tl.tensor(v, requires_grad=True) for v in (x, w, wt))
    y = _two_convs(TF, TF.conv2d, TF.conv_transpose2d, a, b, c)
    y.pow(2).sum().backward()
    got = (y, a.grad, b.grad, c.grad)
    @jax.jit
    def ref(*v):
        y, pull = jax.vjp(lambda *v: _two_convs(None, _lax_conv, _lax_conv_t, *v), *v)
        return (y,) + pull(2 * y)
    for t, r in zip(got, ref(x, w, wt)):
        _close(t.detach().numpy(), r)
    if HAVE_TORCH:
        F = torch.nn.functional
        ta, tb, tc = (torch.tensor(v, requires_grad=True) for v in (x, w, wt))
        ty = _two_convs(F, F.conv2d, F.conv_transpose2d, ta, tb, tc)
        ty.pow(2).sum().backward()
        for t, r in zip(got, (ty, ta.grad, tb.grad, tc.grad)):
            assert_same(t, r, rtol=1e-10, atol=1e-10)


def test_forward_mode_through_func_jvp_matches_lax_and_torch():
    x, t = _arr(2, 3, 6, 6), _arr(2, 3, 6, 6, seed=1)
    w, wt = _arr(4, 3, 3, 3, seed=2), _arr(4, 2, 3, 3, seed=3)
    out, tan = tl.func.jvp(
        lambda a: _two_convs(TF, TF.conv2d, TF.conv_transpose2d, a, tl.tensor(w),
                             tl.tensor(wt)), (tl.tensor(x),), (tl.tensor(t),))
    rout, rtan = jax.jit(lambda x, t: jax.jvp(
        lambda a: _two_convs(None, _lax_conv, _lax_conv_t, a, w, wt), (x,), (t,)))(x, t)
    _close(out.numpy(), rout)
    _close(tan.numpy(), rtan)
    if HAVE_TORCH:
        F = torch.nn.functional
        tout, ttan = torch.func.jvp(
            lambda a: _two_convs(F, F.conv2d, F.conv_transpose2d, a, torch.tensor(w),
                                 torch.tensor(wt)), (torch.tensor(x),), (torch.tensor(t),))
        assert_same(out, tout, rtol=1e-10, atol=1e-10)
        assert_same(tan, ttan, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------
# max pooling: windows that tile the input
POOLS = [
    ((2, 3, 8, 6), 2, 2, False),
    ((2, 3, 9, 7), 2, 2, False),          # trailing row and column dropped
    ((2, 3, 9, 7), (3, 2), (3, 2), False),
    ((2, 3, 8, 6), 2, 2, True),           # ceil_mode, nothing left over: tiles
    ((2, 3, 9, 7), 2, 2, True),           # ceil_mode with a partial window: general path
    ((2, 3, 10), 3, 3, False),
    ((1, 2, 4, 6, 4), 2, 2, False),
    ((2, 3, 8, 6), 2, 1, False),          # overlapping windows: general path
]


@pytest.mark.parametrize("case", POOLS, ids=[str(i) for i in range(len(POOLS))])
def test_max_pool_tiled_windows_match_general_path_and_torch(case, monkeypatch):
    shape, k, s, ceil = case
    nd = len(shape) - 2
    x = np.round(_arr(*shape) * 2) / 2           # many ties
    x.flat[1] = np.nan
    x.flat[-1] = -0.0
    x = jnp.asarray(x)

    def run():
        def f(x):
            return nn_pool.max_pool_with_indices(x, nd, k, s, 0, 1, ceil)

        @jax.jit
        def g(x, ct):
            v, i = f(x)
            return v, i, jax.vjp(lambda x: f(x)[0], x)[1](ct)[0]
        shape = jax.eval_shape(f, x)[0].shape
        return g(x, jnp.asarray(_arr(*shape, seed=1)))
    got = run()
    monkeypatch.setattr(nn_pool, "_tiling", lambda *a: False)
    general = run()
    for a, b in zip(got, general):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    if HAVE_TORCH:
        tx = torch.tensor(np.asarray(x), requires_grad=True)
        op = getattr(torch.nn.functional, f"max_pool{nd}d")
        tv, ti = op(tx, k, s, 0, 1, ceil_mode=ceil, return_indices=True)
        tv.backward(torch.tensor(_arr(*tv.shape, seed=1)))
        np.testing.assert_array_equal(np.asarray(got[0]), tv.detach().numpy())
        np.testing.assert_array_equal(np.asarray(got[1]), ti.numpy())
        np.testing.assert_array_equal(np.asarray(got[2]), tx.grad.numpy())
