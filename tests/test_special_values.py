"""Binary ops at NaN, infinities and the points where PyTorch's kernels switch formulas.

Each case states the value PyTorch gives, so torchlike is checked without PyTorch too;
where PyTorch is installed, the same inputs are also run through it. Inputs are kept
under eight elements, where PyTorch's CPU kernels run their scalar code (the vectorized
code can differ at NaN, see tests/nn/test_activation_loss.py)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

NAN, INF = float("nan"), float("inf")


def _same(got, want, rtol=1e-6):
    got, want = np.asarray(got), np.asarray(want, dtype=np.asarray(got).dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)   # NaN where NaN
    signed = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got)[signed], np.signbit(want)[signed])


def _run(lib, fn, a, b, grad):
    ta = lib.tensor(a, requires_grad=grad)
    tb = lib.tensor(b, requires_grad=grad)
    out = fn(lib, ta, tb)
    if not grad:
        return out.numpy(), None, None
    out.sum().backward()
    return out.detach().numpy(), ta.grad.numpy(), tb.grad.numpy()


# (function, a, b, values, grad of a, grad of b); None: not differentiated
CASES = {
    "clamp_min_nan_bound": (lambda L, a, b: L.clamp(a, min=b), [1.0, 2.0, NAN], [NAN, 0.0, 0.0],
                            [NAN, 2.0, NAN], [0, 1, 0], [0, 0, 0]),
    "clamp_max_nan_bound": (lambda L, a, b: L.clamp(a, max=b), [1.0, 2.0, NAN], [NAN, 3.0, 3.0],
                            [NAN, 2.0, NAN], [0, 1, 0], [0, 0, 0]),
    "clamp_number_nan_bounds": (lambda L, a, b: L.stack([
        L.clamp(a, min=NAN), L.clamp(a, max=NAN), L.clamp(a, NAN, 3.0), L.clamp(a, 0.0, NAN)]),
        [1.0, -2.0], [0.0, 0.0], [[NAN, NAN]] * 4, None, None),
    "clamp_both_tensor_nan": (lambda L, a, b: L.clamp(a, min=b, max=b + 4), [1.0, 2.0, 9.0],
                              [NAN, 0.0, 0.0], [NAN, 2.0, 4.0], None, None),
    "huber_at_infinities": (lambda L, a, b: L.nn.functional.huber_loss(a, b, reduction="none"),
                            [0.0, 0.0, INF, NAN, 0.5], [INF, -INF, 0.0, 0.0, 0.0],
                            [INF, INF, INF, NAN, 0.125], [-1, 1, 1, NAN, 0.5],
                            [1, -1, -1, NAN, -0.5]),
    "smooth_l1_at_infinities": (lambda L, a, b: L.nn.functional.smooth_l1_loss(
        a, b, reduction="none", beta=2.0), [0.0, 0.0, INF, NAN, 1.0], [INF, -INF, 0.0, 0.0, 0.0],
        [INF, INF, INF, NAN, 0.25], [-1, 1, 1, NAN, 0.5], [1, -1, -1, NAN, -0.5]),
    "float_power_at_zero": (lambda L, a, b: L.float_power(a, b), [0.0, 0.0, 2.0, NAN],
                            [0.0, 2.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0], [0, 0, 0, 0],
                            [0, 0, np.log(2.0), NAN]),
    # the gradient of a 1-norm is sgn(x), +-1 at +-inf and 0 at NaN; an inf-norm's is
    # shared between the entries at the maximum
    "norm1_at_infinities": (lambda L, a, b: L.linalg.vector_norm(a * b, 1),
                            [INF, 1.0, -INF, 0.0, NAN], [1.0] * 5, NAN, [1, 1, -1, 0, 0],
                            [INF, 1, INF, 0, NAN]),
    "norminf_at_infinities": (lambda L, a, b: L.linalg.vector_norm(a * b, INF),
                              [INF, 1.0, -INF, 0.0], [1.0] * 4, INF, [0.5, 0, -0.5, 0],
                              [INF, 0, INF, 0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_special_values(name):
    fn, a, b, values, ga, gb = CASES[name]
    grad = ga is not None
    got = _run(tl, fn, a, b, grad)
    _same(got[0], values)
    if grad:
        _same(got[1], ga)
        _same(got[2], gb)
    if HAVE_TORCH:
        ref = _run(torch, fn, a, b, grad)
        for g, r in zip(got, ref):
            if r is not None:
                _same(g, r)


def test_lerp_is_pytorchs_formula_on_both_sides_of_one_half():
    # below |w| = 0.5: start + w * (end - start); from there end - (end - start) * (1 - w),
    # which gives ``end`` exactly at w = 1
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 256)).astype(np.float32)
    w_t = rng.uniform(-0.5, 1.5, 256).astype(np.float32)
    ta, tb = tl.tensor(a), tl.tensor(b)
    np.testing.assert_array_equal(tl.lerp(ta, tb, 1.0).numpy(), b)
    np.testing.assert_array_equal(tl.lerp(ta, tb, 0.0).numpy(), a)
    if HAVE_TORCH:
        pa, pb = torch.tensor(a), torch.tensor(b)
        for w in (0.3, 0.7, -0.7, 1.5):
            np.testing.assert_array_equal(tl.lerp(ta, tb, w).numpy(), torch.lerp(pa, pb, w).numpy())
        np.testing.assert_array_equal(tl.lerp(ta, tb, tl.tensor(w_t)).numpy(),
                                      torch.lerp(pa, pb, torch.tensor(w_t)).numpy())


def test_lerp_refuses_what_pytorch_refuses():
    f, i = tl.tensor([1.0, 2.0]), tl.tensor([1, 2])
    end_long = "expected dtype float for `end` but got dtype long int"
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for"):
        tl.lerp(i, i, 0.5)
    with pytest.raises(NotImplementedError, match="\"lerp_kernel_tensor\" not implemented for"):
        tl.lerp(i, i, tl.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=end_long):
        tl.lerp(f, i, 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `weight` but got dtype doubl"):
        tl.lerp(f, f, f.double())
    with pytest.raises(RuntimeError, match=end_long):
        f.lerp_(i, 0.5)
    assert f.tolist() == [1.0, 2.0]   # nothing written
    # a 0-d weight is a number: no dtype requirement, and the input's dtype wins
    out = tl.lerp(f, f + 1, tl.tensor(0.25, dtype=tl.float64))
    assert out.dtype is tl.float32 and out.tolist() == [1.25, 2.25]


def test_assigning_a_mismatched_grad_is_refused_in_pytorchs_words():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[3\]' "
                       r"to a tensor of size '\[2\]'"):
        x.grad = tl.ones(3)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype "
                       "'double' to a tensor with grad_dtype 'Float'"):
        x.grad = tl.ones(3, dtype=tl.float64)   # the dtype is checked first
    assert x.grad is None
    if HAVE_TORCH:
        p = torch.ones(2, requires_grad=True)
        for bad, mine in ((torch.ones(3), tl.ones(3)),
                          (torch.ones(2, dtype=torch.float64), tl.ones(2, dtype=tl.float64))):
            with pytest.raises(RuntimeError) as ref:
                p.grad = bad
            with pytest.raises(RuntimeError) as got:
                x.grad = mine
            assert str(got.value) == str(ref.value)


POW_POINTS = [-0.0, 0.0, -INF, INF, NAN, 1.0, -2.0, 3.0]
# exponent -> (values, gradients) at POW_POINTS, as pow(Tensor, Scalar) gives them: 0.5 is
# sqrt (-0.0 at -0.0, NaN at -inf), -0.5 rsqrt, 2 and 3 products (Note [pow by a number])
POW_BY_NUMBER = {
    0.5: ([-0.0, 0.0, NAN, INF, NAN, 1.0, NAN, 3 ** 0.5],
          [-INF, INF, NAN, 0.0, NAN, 0.5, NAN, 0.5 / 3 ** 0.5]),
    -0.5: ([-INF, INF, NAN, 0.0, NAN, 1.0, NAN, 3 ** -0.5],
           [-INF, -INF, -0.0, -0.0, NAN, -0.5, NAN, -0.5 * 3 ** -1.5]),
    -1.0: ([-INF, INF, -0.0, 0.0, NAN, 1.0, -0.5, 1 / 3],
           [-INF, -INF, -0.0, -0.0, NAN, -1.0, -0.25, -1 / 9]),
    2: ([0.0, 0.0, INF, INF, NAN, 1.0, 4.0, 9.0], [-0.0, 0.0, -INF, INF, NAN, 2.0, -4.0, 6.0]),
    3: ([-0.0, 0.0, -INF, INF, NAN, 1.0, -8.0, 27.0],
        [0.0, 0.0, INF, INF, NAN, 3.0, 12.0, 27.0]),
    -2.0: ([INF, INF, 0.0, 0.0, NAN, 1.0, 0.25, 1 / 9],
           [INF, -INF, 0.0, -0.0, NAN, -2.0, 0.25, -2 / 27]),
    1.5: ([0.0, 0.0, INF, INF, NAN, 1.0, NAN, 3 ** 1.5],
          [-0.0, 0.0, NAN, INF, NAN, 1.5, NAN, 1.5 * 3 ** 0.5]),
}


@pytest.mark.parametrize("exponent", sorted(POW_BY_NUMBER))
def test_pow_by_a_number_is_pytorchs_scalar_kernel(exponent):
    values, grads = POW_BY_NUMBER[exponent]
    for _ in range(2):   # a number's first use, then its cached device scalar
        x = tl.tensor(POW_POINTS, requires_grad=True)
        y = x ** exponent
        y.backward(tl.ones_like(y))
        _same(y.detach().numpy(), values)
        _same(x.grad.numpy(), grads)
    if HAVE_TORCH:
        tx = torch.tensor(POW_POINTS, requires_grad=True)
        ty = tx ** exponent
        ty.backward(torch.ones_like(ty))
        _same(y.detach().numpy(), ty.detach().numpy())
        _same(x.grad.numpy(), tx.grad.numpy())


def test_pow_by_a_tensor_is_pow():
    # pow(Tensor, Tensor) has no special cases: (-inf) ** 0.5 is inf, (-0.0) ** 0.5 is 0.0
    x = tl.tensor([-0.0, -INF, 4.0])
    _same((x ** tl.tensor(0.5)).numpy(), [0.0, INF, 2.0])
    _same(tl.float_power(x, tl.tensor(0.5)).numpy(), [0.0, INF, 2.0])
    _same(tl.float_power(x, 0.5).numpy(), [-0.0, NAN, 2.0])
    if HAVE_TORCH:
        tx = torch.tensor([-0.0, -INF, 4.0])
        _same((x ** tl.tensor(0.5)).numpy(), (tx ** torch.tensor(0.5)).numpy())
        _same(tl.float_power(x, 0.5).numpy(), torch.float_power(tx, 0.5).numpy())
