"""Ops whose PyTorch kernel computes differently when an operand is a Python number
(Note [Scalar overloads] in torchlike/_ops/spec.py): ``pow(Tensor, Scalar)``'s
specialisations and float16/bfloat16 ``mul``/``div`` by a number read in float32. These
are compared bit for bit; without PyTorch, against the formula PyTorch's kernel uses."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch


def _data(n=4096):
    rng = np.random.default_rng(0)
    return (rng.standard_normal(n) * 10).astype(np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_pow_by_small_integers_is_a_product_bit_for_bit(dtype):
    a = _data()
    x = tl.tensor(a).to(getattr(tl, dtype))
    want = {2: x * x, 3: x * x * x, -2: 1 / (x * x), -1: 1 / x}
    for e, w in want.items():
        np.testing.assert_array_equal((x ** e).float().numpy(), w.float().numpy())
        np.testing.assert_array_equal((x ** float(e)).float().numpy(), w.float().numpy())
    c = tl.compile(lambda t: (t ** 2, t ** 3))
    for _ in range(2):
        two, three = c(x)
        np.testing.assert_array_equal(two.float().numpy(), want[2].float().numpy())
        np.testing.assert_array_equal(three.float().numpy(), want[3].float().numpy())
    if HAVE_TORCH:
        tx = torch.tensor(a).to(getattr(torch, dtype))
        for e in (2, 3, -2, -1, 2.0, 3.0):
            np.testing.assert_array_equal((x ** e).float().numpy(), (tx ** e).float().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_tensor_times_a_number_rounds_once_from_float32(dtype):
    # Note [Half tensors times a number]: x * 0.3 is round(float(x) * 0.3f), not
    # x * round(0.3); a number as the first operand, and add, round it first
    a = _data()
    x = tl.tensor(a).to(getattr(tl, dtype))
    xf = x.float()
    s32 = tl.tensor(0.3, dtype=tl.float32)
    s_half = tl.tensor(0.3).to(x.dtype).float()
    opmath, narrowed = (xf * s32).to(x.dtype), (xf * s_half).to(x.dtype)
    assert (opmath != narrowed).any()   # the number is chosen so that the two differ
    for _ in range(2):   # the number's first use, then its cached device scalar
        np.testing.assert_array_equal((x * 0.3).float().numpy(), opmath.float().numpy())
        np.testing.assert_array_equal((0.3 * x).float().numpy(), opmath.float().numpy())
        np.testing.assert_array_equal(x.clone().mul_(0.3).float().numpy(),
                                      opmath.float().numpy())
        np.testing.assert_array_equal((x + 0.3).float().numpy(),
                                      (xf + s_half).to(x.dtype).float().numpy())
    # a 0-d tensor as the second operand is read at its own precision too; as the first,
    # it is rounded to the tensor's dtype
    np.testing.assert_array_equal((x * s32).float().numpy(), opmath.float().numpy())
    np.testing.assert_array_equal((x * s32.double()).float().numpy(), opmath.float().numpy())
    np.testing.assert_array_equal((s32 * x).float().numpy(), narrowed.float().numpy())
    # the backward's grad * 0.3 takes the same path
    w = x.detach().requires_grad_()
    (w * 0.3).backward(tl.ones_like(w) * x.detach())
    np.testing.assert_array_equal(w.grad.float().numpy(), opmath.float().numpy())
    # the quotient is computed in float32 (XLA multiplies by the reciprocal there, which
    # can move the rounded half result by one step; PyTorch divides)
    q = (x / 0.3).float().numpy()
    np.testing.assert_allclose(q, (xf / s32).to(x.dtype).float().numpy(), rtol=1e-2)
    assert (q == (xf / s32).to(x.dtype).float().numpy()).mean() > 0.97
    if HAVE_TORCH:
        tx = torch.tensor(a).to(getattr(torch, dtype))
        for f in (lambda t: t * 0.3, lambda t: 0.3 * t, lambda t: 0.3 / t, lambda t: t + 0.3):
            np.testing.assert_array_equal(f(x).float().numpy(), f(tx).float().numpy())
        for s, ts in ((s32, torch.tensor(0.3)), (s32.double(), torch.tensor(0.3).double())):
            np.testing.assert_array_equal((x * s).float().numpy(), (tx * ts).float().numpy())
            np.testing.assert_array_equal((s * x).float().numpy(), (ts * tx).float().numpy())

