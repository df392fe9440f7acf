"""Gradients at the points where a derivative is a convention, not a limit: abs at 0,
``x ** 0`` at 0, ``0 ** x``, atan2 and hypot at the origin, binary_cross_entropy at 0
and 1, fmax/fmin/maximum ties and NaNs, entr at and below 0, the subgradients of relu,
clamp, max, norm, and the saturations and poles of sigmoid, tanh, log1p, xlogy, logit...
PyTorch's values come from its derivative formulas (derivatives.yaml); torchlike's from
``jax.vjp`` of each op's pure function (Note [Gradients at special points] in
torchlike/_ops/elementwise.py).

Each case runs in torchlike and is checked against PyTorch's values written below, so
the test means something without PyTorch; where PyTorch is installed the outputs,
first-order gradients and (for the ``SECOND`` cases) double-backward gradients are also
compared with it directly, in float32 and float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, assert_same, torch

INF, NAN = math.inf, math.nan
DTYPES = ["float32", "float64"]


def _const(T, x, values):
    return T.tensor(values, dtype=x.dtype)


def _bce(T, x, reduction="sum"):
    t = _const(T, x, [1.0, 0.0, 0.0, 1.0, 0.5, 0.5])
    return T.nn.functional.binary_cross_entropy(x, t, reduction=reduction)


def _fm(name, first):
    def fn(T, x):
        other = _const(T, x, [1.0, 0.0, NAN, 2.0, NAN])
        f = getattr(T, name)
        return f(x, other) if first else f(other, x)
    return fn


BCE_X = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]
FM_X = [1.0, 0.0, 3.0, NAN, NAN]

# (id, fn(T, x) for the framework module T, x, PyTorch's d(sum fn)/dx)
CASES = [
    ("abs", lambda T, x: x.abs(), [0.0, -0.0, 1.0, -2.0, NAN], [0, 0, 1, -1, 0]),
    ("l1_loss", lambda T, x: T.nn.functional.l1_loss(x, T.zeros_like(x)),
     [0.0, -0.0, 1.0, -2.0], [0, 0, 0.25, -0.25]),
    ("smooth_l1_beta0", lambda T, x: T.nn.functional.smooth_l1_loss(
        x, T.zeros_like(x), beta=0.0), [0.0, -0.0, 1.0, -2.0], [0, 0, 0.25, -0.25]),
    ("smooth_l1", lambda T, x: T.nn.functional.smooth_l1_loss(
        x, T.zeros_like(x), beta=0.5), [0.0, 0.5, 0.2, -2.0], [0, 0.25, 0.1, -0.25]),
    ("huber", lambda T, x: T.nn.functional.huber_loss(x, T.zeros_like(x), delta=0.5),
     [0.0, 0.5, 0.2, -2.0], [0, 0.125, 0.05, -0.125]),
    ("pow_tensor_exp0", lambda T, x: x ** T.zeros_like(x), [0.0, -0.0, 1.0, -2.0],
     [0, 0, 0, 0]),
    ("pow_int0", lambda T, x: x ** 0, [0.0, -0.0, 1.0, -2.0], [0, 0, 0, 0]),
    ("pow_float0", lambda T, x: T.pow(x, 0.0), [0.0, -0.0, 1.0, -2.0], [0, 0, 0, 0]),
    ("pow_1", lambda T, x: x ** 1.0, [0.0, -0.0, 2.0], [1, 1, 1]),
    ("pow_2", lambda T, x: x ** 2, [0.0, -1.5], [0, -3]),
    ("pow_half", lambda T, x: x ** 0.5, [0.0, 4.0, -1.0], [INF, 0.25, NAN]),
    ("pow_neg", lambda T, x: x ** -1.0, [0.0, -0.0, 2.0], [-INF, -INF, -0.25]),
    ("zero_tensor_base", lambda T, x: T.zeros_like(x) ** x, [-1.0, 0.0, 1.0, 2.0, -0.5],
     [-INF, 0, 0, 0, -INF]),
    ("zero_scalar_base", lambda T, x: 0.0 ** x, [-1.0, 0.0, 1.0, 2.0, -0.5],
     [-INF, 0, 0, 0, -INF]),
    ("neg_scalar_base", lambda T, x: (-2.0) ** x, [0.0, 1.0], [NAN, NAN]),
    ("pow_self", lambda T, x: x ** x, [0.0, 1.0, 2.0], [0, 1, 4 * (1 + math.log(2))]),
    ("atan2_y", lambda T, x: T.atan2(x, T.zeros_like(x)), [0.0, -0.0, 1.0], [0, 0, 0]),
    ("atan2_x", lambda T, x: T.atan2(T.zeros_like(x), x), [0.0, -0.0, 1.0], [0, 0, 0]),
    ("atan2_both", lambda T, x: T.atan2(x, x), [0.0, 1.0], [0, 0]),
    ("atan2_inf", lambda T, x: T.atan2(x, T.ones_like(x)), [INF, 1.0], [0, 0.5]),
    ("hypot_x", lambda T, x: T.hypot(x, T.zeros_like(x)), [0.0, -0.0, -3.0],
     [NAN, NAN, -1]),
    ("hypot_both", lambda T, x: T.hypot(x, x), [0.0, 1.0], [NAN, math.sqrt(2)]),
    ("bce_sum", lambda T, x: _bce(T, x), BCE_X,
     [-1e12, 0, 1e12, 0, -5e11, 5e11]),
    ("bce_mean", lambda T, x: _bce(T, x, "mean"), BCE_X,
     [-1e12 / 6, 0, 1e12 / 6, 0, -5e11 / 6, 5e11 / 6]),
    ("bce_weight", lambda T, x: T.nn.functional.binary_cross_entropy(
        x, _const(T, x, [1.0, 0.0, 0.3]), weight=_const(T, x, [2.0, 3.0, 4.0])),
     [0.0, 1.0, 0.4], [-2e12 / 3, 1e12, 4 * 0.1 / 0.24 / 3]),
    ("bce_target", lambda T, x: T.nn.functional.binary_cross_entropy(
        _const(T, x, [0.0, 1.0, 0.25, 0.5]), x, reduction="sum"),
     [1.0, 0.0, 0.3, 0.5], [INF, -INF, math.log(3), 0]),
    ("fmax_first", _fm("fmax", True), FM_X, [1, 1, 1, 0, 1]),
    ("fmax_second", _fm("fmax", False), FM_X, [0, 0, 1, 0, 0]),
    ("fmin_first", _fm("fmin", True), FM_X, [1, 1, 1, 0, 1]),
    ("fmin_second", _fm("fmin", False), FM_X, [0, 0, 1, 0, 0]),
    ("maximum", _fm("maximum", True), FM_X, [0.5, 0.5, 1, 1, 1]),
    ("minimum", _fm("minimum", False), FM_X, [0.5, 0.5, 1, 1, 1]),
    ("entr", lambda T, x: T.special.entr(x), [0.0, -0.0, -1.0, 0.5, INF],
     [INF, INF, NAN, -(1 + math.log(0.5)), -INF]),
    ("relu", lambda T, x: T.relu(x), [0.0, -0.0, 1.0, -1.0], [0, 0, 1, 0]),
    ("clamp", lambda T, x: T.clamp(x, -1.0, 1.0), [-1.0, 1.0, 0.0, 2.0, -2.0],
     [1, 1, 1, 0, 0]),
    ("clamp_min", lambda T, x: T.clamp(x, min=0.0), [0.0, 1.0, -1.0], [1, 1, 0]),
    ("max_all_ties", lambda T, x: T.max(x), [1.0, 3.0, 3.0, 2.0], [0, 0.5, 0.5, 0]),
    ("amax_ties", lambda T, x: T.amax(x), [1.0, 3.0, 3.0, 2.0], [0, 0.5, 0.5, 0]),
    ("norm_zero", lambda T, x: T.norm(x), [0.0, 0.0, 0.0], [0, 0, 0]),
    ("norm1_zero", lambda T, x: T.norm(x, p=1), [0.0, 0.0, 0.0], [0, 0, 0]),
    ("sqrt", lambda T, x: T.sqrt(x), [0.0, 4.0], [INF, 0.25]),
    ("rsqrt", lambda T, x: T.rsqrt(x), [0.0, -0.0, 4.0, -1.0], [-INF, INF, -1 / 16, NAN]),
    ("sign", lambda T, x: T.sign(x), [0.0, 1.0, -1.0], [0, 0, 0]),
    ("round", lambda T, x: T.round(x), [0.5, 1.5, 0.0], [0, 0, 0]),
    ("floor", lambda T, x: T.floor(x), [0.5, 1.0], [0, 0]),
    ("where_log", lambda T, x: T.where(x > 0, x, T.log(x)), [1.0, -1.0, 0.0], [1, -1, INF]),
    ("where_sqrt", lambda T, x: T.where(x > 0, T.sqrt(x), T.zeros_like(x)), [4.0, -1.0],
     [0.25, NAN]),
    ("sigmoid", lambda T, x: T.sigmoid(x), [-100.0, 100.0, -1000.0, 1000.0], [0, 0, 0, 0]),
    ("tanh", lambda T, x: T.tanh(x), [-100.0, 100.0, 20.0], [0, 0, 0]),
    ("log1p", lambda T, x: T.log1p(x), [-1.0, -2.0, 0.0], [INF, -1, 1]),
    ("xlogy_x", lambda T, x: T.xlogy(x, T.zeros_like(x)), [0.0, 1.0], [0, -INF]),
    ("xlogy_x_scalar", lambda T, x: T.xlogy(x, 0.0), [0.0, 1.0], [0, -INF]),
    ("xlogy_x_mid", lambda T, x: T.xlogy(x, _const(T, x, [2.0, 0.5, -1.0])),
     [1.0, 0.0, 0.0], [math.log(2), math.log(0.5), 0]),
    ("xlogy_y", lambda T, x: T.xlogy(T.zeros_like(x), x), [0.0, 1.0, -1.0], [NAN, 0, -0.0]),
    ("xlogy_both", lambda T, x: T.xlogy(x, x), [0.0, 1.0], [NAN, 1]),
    ("xlog1py_x", lambda T, x: T.special.xlog1py(x, -T.ones_like(x)), [0.0, 1.0], [0, -INF]),
    ("xlog1py_y", lambda T, x: T.special.xlog1py(T.zeros_like(x), x), [-1.0, 0.0, 1.0],
     [NAN, 0, 0]),
    ("sinc", lambda T, x: T.sinc(x), [0.0, -0.0, 0.5], [0, 0, -4 / math.pi]),
    ("logsumexp_all_ninf", lambda T, x: T.logsumexp(x, 0), [-INF, -INF], [NAN, NAN]),
    ("logsumexp_inf", lambda T, x: T.logsumexp(x, 0), [INF, 1.0], [NAN, 0]),
    ("logaddexp", lambda T, x: T.logaddexp(x, x), [-INF, INF, 1.0], [NAN, NAN, 1]),
    ("logaddexp2", lambda T, x: T.logaddexp2(x, x), [-INF, INF, 1.0], [NAN, NAN, 1]),
    ("copysign", lambda T, x: T.copysign(x, _const(T, x, [1.0, -1.0, -1.0])),
     [0.0, -0.0, 2.0], [0, 0, -1]),
    ("logit", lambda T, x: T.logit(x), [0.0, 1.0, 0.5, 1.5], [INF, INF, 4, NAN]),
    ("logit_eps", lambda T, x: T.logit(x, eps=0.25), [0.0, 1.0, 0.25, 0.75, 0.5],
     [0, 0, 16 / 3, 16 / 3, 4]),
    ("ndtri", lambda T, x: T.special.ndtri(x), [0.0, 1.0, 0.5], [INF, INF,
                                                                 math.sqrt(2 * math.pi)]),
    ("lgamma", lambda T, x: T.lgamma(x), [0.0, 1.0], [-INF, -0.5772156649015329]),
    ("digamma", lambda T, x: T.digamma(x), [0.0, 1.0], [INF, math.pi ** 2 / 6]),
    ("cdist_p1", lambda T, x: T.cdist(x.reshape(1, 3), _const(T, x, [[1.0, 0.0, 3.0]]), p=1),
     [1.0, 2.0, 3.0], [0, 1, 0]),
    ("cdist_inf_ties", lambda T, x: T.cdist(x.reshape(1, 3), _const(T, x, [[0.0, 1.0, 3.0]]),
                                            p=INF), [1.0, 2.0, 3.0], [1, 1, 0]),
]

# (id, fn(T, x), x, PyTorch's d(sum_i (i + 1) * g_i)/dx with g the first derivative, or
# None to compare with PyTorch only): double backward through the changed formulas
SECOND = [
    ("abs", lambda T, x: x.abs(), [0.0, 1.0, -2.0], [0, 0, 0]),
    ("smooth_l1", lambda T, x: T.nn.functional.smooth_l1_loss(
        x, T.zeros_like(x), beta=0.5, reduction="sum"), [0.0, 0.2, -2.0], [2, 4, 0]),
    ("huber", lambda T, x: T.nn.functional.huber_loss(
        x, T.zeros_like(x), delta=0.5, reduction="sum"), [0.0, 0.2, -2.0], [1, 2, 0]),
    ("pow_1", lambda T, x: x ** 1.0, [0.0, 2.0], [0, 0]),
    ("pow_2", lambda T, x: x ** 2, [0.0, -1.5], [2, 4]),
    ("pow_3", lambda T, x: x ** 3.0, [0.0, -1.0], [0, -12]),
    ("pow_self", lambda T, x: x ** x, [1.0, 2.0], None),
    ("zero_tensor_base", lambda T, x: T.zeros_like(x) ** x, [-1.0, -0.5], [INF, 2 * INF]),
    ("atan2", lambda T, x: T.atan2(x, x.flip(0)), [0.5, 2.0], None),
    ("atan2_origin", lambda T, x: T.atan2(x, x), [0.0, 1.0], [NAN, 0]),
    ("hypot", lambda T, x: T.hypot(x, _const(T, x, [4.0, 0.0])), [3.0, 0.0], [16 / 125, NAN]),
    ("bce", lambda T, x: _bce(T, x), BCE_X, [1e24, 0, 3e24, 0, 2.5e24, 3e24]),
    ("bce_mid", lambda T, x: T.nn.functional.binary_cross_entropy(
        x, _const(T, x, [1.0, 0.0, 0.3])), [0.2, 0.7, 0.4], None),
    ("bce_target", lambda T, x: T.nn.functional.binary_cross_entropy(
        x.flip(0), x, reduction="sum"), [0.2, 0.7, 0.4], None),
    ("entr", lambda T, x: T.special.entr(x), [0.0, 0.5, -1.0], [-INF, -4, 3]),
    ("xlogy", lambda T, x: T.xlogy(x, x.flip(0) + 1), [0.5, 2.0], None),
    ("xlog1py", lambda T, x: T.special.xlog1py(x, x.flip(0)), [0.5, 2.0], None),
    ("logit_eps", lambda T, x: T.logit(x, eps=0.25), [0.5, 0.3, 0.0], None),
    ("rsqrt", lambda T, x: T.rsqrt(x), [4.0, 0.25], None),
    ("atanh", lambda T, x: T.atanh(x), [1.0, -1.0, 0.5], [INF, -2 * INF, None]),
    ("i0", lambda T, x: T.i0(x), [0.0, 1.5], None),
    ("i1", lambda T, x: T.special.i1(x), [0.0, 1.5], None),
    ("lgamma", lambda T, x: T.lgamma(x), [0.5, 3.0], None),
    ("digamma", lambda T, x: T.digamma(x), [0.5, 3.0], None),
    ("ndtri", lambda T, x: T.special.ndtri(x), [0.3, 0.9], None),
    ("logaddexp", lambda T, x: T.logaddexp(x, x.flip(0)), [0.5, 2.0], None),
    ("copysign", lambda T, x: T.copysign(x * x, x.flip(0)), [0.5, -2.0], None),
    ("fmax", lambda T, x: T.fmax(x * x, x.flip(0)), [0.5, 2.0, 3.0], None),
    ("maximum_tie", lambda T, x: T.maximum(x * x, x), [1.0, 2.0], [1, 4]),
    # formulas masked at 0 whose own derivative there is NaN, as in PyTorch
    ("sinc", lambda T, x: x.sinc(), [0.0, 1.0, -0.5], [NAN, 4.0, -3.570681384717]),
    ("vector_norm_neg", lambda T, x: T.linalg.vector_norm(x, ord=-1), [0.0, 1.0, -0.5],
     [NAN, 0, 0]),
    ("vector_norm_zero", lambda T, x: T.linalg.vector_norm(x), [0.0, 0.0], [NAN, NAN]),
    ("vector_norm_half", lambda T, x: T.linalg.vector_norm(x, ord=0.5), [0.0, 1.0, -0.5],
     [NAN, -2.828427124746, -5.656854249492]),
    ("cosine_similarity_zero", lambda T, x: T.nn.functional.cosine_similarity(
        x.reshape(2, 2), x.reshape(2, 2).flip(1) + 1), [0.0, 0.0, 1.0, 2.0],
     [NAN, NAN, -0.901886646465, 0.382320555871]),
    # kinks where PyTorch's double backward picks a side (Note [Activation derivatives
    # at their kinks] in torchlike/_ops/nn_activation.py)
    ("elu", lambda T, x: T.nn.functional.elu(x, alpha=2.0), [0.0, 1.0, -0.5],
     [0, 0, 3.639183958276]),
    ("selu", lambda T, x: T.nn.functional.selu(x), [0.0, -0.5], [0, 2.132682306089]),
    ("celu", lambda T, x: T.nn.functional.celu(x, alpha=2.0), [0.0, -0.5],
     [0, 0.778800783071]),
    ("softplus_threshold", lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=1.0),
     [0.5, 0.25, 1.0], [0, 0.940014848806, 0]),
    # complex sgn, angle and abs: PyTorch's sgn_backward and angle_backward
    ("sgn_complex", lambda T, x: T.sgn(T.complex(x, 2 * x + 1)).real, [0.0, 0.5, -0.5],
     [-4.0, -0.993640761395, 48.0]),
    ("sgn_complex_zero", lambda T, x: T.sgn(T.complex(x, x)).imag, [0.0, 1.0], [NAN, 0]),
    ("angle_complex", lambda T, x: T.angle(T.complex(x, x.flip(0))), [0.0, 0.0, 1.0],
     [0, NAN, 0]),
    ("abs_complex", lambda T, x: T.abs(T.complex(x, x * 0)), [0.0, 1.0], [0, 0]),
]


def _grads(T, fn, points, dtype, order2=False):
    x = T.tensor(points, dtype=getattr(T, dtype), requires_grad=True)
    y = fn(T, x)
    (g,) = T.autograd.grad(y.sum(), x, create_graph=order2)
    if not order2:
        return y.detach(), g
    w = T.arange(1, g.numel() + 1, dtype=g.dtype)
    if g.requires_grad:
        (gg,) = T.autograd.grad((g * w).sum(), x)
        gg = gg * 1   # materializes PyTorch's ZeroTensor gradients
    else:             # PyTorch's derivative formula for some points has no graph
        gg = T.zeros_like(x)
    return y.detach(), g.detach(), gg


def _check(got, want, dtype):
    got = np.asarray(got.numpy(), np.float64)
    rtol = 1e-5 if dtype == "float32" else 1e-9
    for i, (a, b) in enumerate(zip(got.ravel(), want)):
        if b is None:
            continue
        if math.isnan(b) or math.isinf(b):
            assert a == b or (math.isnan(a) and math.isnan(b)), f"[{i}]: {a} vs {b}"
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6, err_msg=f"[{i}]")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,x,grad", CASES, ids=[c[0] for c in CASES])
def test_first_order(name, fn, x, grad, dtype):
    out, g = _grads(tl, fn, x, dtype)
    _check(g, grad, dtype)
    if HAVE_TORCH:
        assert_same((out, g), _grads(torch, fn, x, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,x,grad2", SECOND, ids=[c[0] for c in SECOND])
def test_second_order(name, fn, x, grad2, dtype):
    out, g, gg = _grads(tl, fn, x, dtype, order2=True)
    if grad2 is not None:
        _check(gg, grad2, dtype)
    if HAVE_TORCH:
        assert_same((out, g, gg), _grads(torch, fn, x, dtype, order2=True), rtol=1e-4)


def test_forward_values_unchanged_at_special_points():
    # the custom derivative rules leave forward values alone (PyTorch's, NaN included)
    x = np.array([0.0, -0.0, 1.0, -2.0, 0.5, INF, -INF, NAN], np.float32)
    y = np.array([0.0, 0.0, -1.0, 3.0, NAN, 1.0, INF, 2.0], np.float32)
    for f in (lambda T, a, b: T.atan2(a, b), lambda T, a, b: T.hypot(a, b),
              lambda T, a, b: T.fmax(a, b), lambda T, a, b: T.fmin(a, b),
              lambda T, a, b: T.maximum(a, b), lambda T, a, b: T.pow(a, b),
              lambda T, a, b: T.xlogy(a, b), lambda T, a, b: T.copysign(a, b),
              lambda T, a, b: T.logaddexp(a, b), lambda T, a, b: a.abs() + b.abs()):
        got = f(tl, tl.tensor(x, requires_grad=True), tl.tensor(y))
        assert got.requires_grad
        if HAVE_TORCH:
            assert_same(got.detach(), f(torch, torch.tensor(x), torch.tensor(y)), rtol=1e-6)


@pytest.mark.parametrize("ord_", [1, math.inf, 3])
def test_vector_norm_gradient_at_the_zero_vector_is_zero(ord_):
    x = tl.zeros(3, requires_grad=True)
    tl.linalg.vector_norm(x, ord=ord_).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0])   # PyTorch's, as recorded


def test_binary_max_with_a_nan_sends_the_gradient_to_both():
    a = tl.tensor([1.0, math.nan], requires_grad=True)
    b = tl.tensor([2.0, 1.0], requires_grad=True)
    tl.max(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0, 1])      # PyTorch's, as recorded
    np.testing.assert_array_equal(b.grad.numpy(), [1, 1])


def test_sign_of_nan_and_negative_zero():
    # PyTorch's sign and sgn are (0 < x) - (x < 0): 0 for NaN, +0 for -0
    for name in ("sign", "sgn"):
        got = getattr(tl, name)(tl.tensor([NAN, -0.0, 2.0, -3.0])).numpy()
        np.testing.assert_array_equal(got, [0, 0, 1, -1])
        assert not np.signbit(got[1])


def test_complex_sgn_gradient_is_not_zero():
    # jax's sign has no derivative; PyTorch's sgn_backward gives this (recorded)
    z = tl.tensor([0.5 + 1j, -1 + 0.3j, 0j], requires_grad=True)
    (tl.sgn(z) * tl.tensor([1 + 2j, 3 - 1j, 1 + 1j])).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [1.4310835 - 0.7155418j,
                                                0.50088167 + 1.6696054j, 0], rtol=1e-5)
    if HAVE_TORCH:
        r = torch.tensor([0.5 + 1j, -1 + 0.3j, 0j], requires_grad=True)
        (torch.sgn(r) * torch.tensor([1 + 2j, 3 - 1j, 1 + 1j])).real.sum().backward()
        np.testing.assert_allclose(z.grad.numpy(), r.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("fn", ["vector_norm", "norm"])
@pytest.mark.parametrize("ord_", [2, 1, 3, 0.5, math.inf])
def test_complex_norm_gradient(fn, ord_):
    # torch.norm's complex gradient was the conjugate of PyTorch's
    z = np.array([[1 + 2j, 0j, -1 + 0.5j], [0.3 - 1j, 2j, 1]], np.complex64)

    def run(T):
        x = T.tensor(z, requires_grad=True)
        f = T.linalg.vector_norm if fn == "vector_norm" else T.norm
        y = f(x, ord_, 1)
        (y * T.tensor([1.0, 2.0])).sum().backward()
        return x.grad.numpy()
    got = run(tl)
    # the gradient is along x: Re(conj(x) * grad) / |x| is the norm's own derivative
    assert np.all(np.real(np.conj(z) * got) >= 0)
    if HAVE_TORCH:
        np.testing.assert_allclose(got, run(torch), rtol=1e-5, atol=1e-6)
