"""float16/bfloat16 math functions and activations compute in float32 and round once,
as PyTorch's kernels do (Note [Half precision math] in torchlike/_ops/elementwise_common.py):
bit for bit equal to PyTorch; without PyTorch, equal to the float32 computation rounded
once. The math functions' derivatives stay half-precision formulas, as PyTorch's are."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

_X = (np.random.default_rng(0).standard_normal(4096) * 3).astype(np.float32)
_UNIT = np.tanh(_X) * 0.99


def _get(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


# ops whose jax.numpy form takes several rounded steps in half precision
MATH = ["exp2", "log2", "log10", "asin", "acos", "asinh", "atanh", "sigmoid", "sinc", "i0",
        "deg2rad", "rad2deg", "expm1", "sin", "exp", "tanh"]
# activations whose backward is a kernel of its own in PyTorch, computed in float32 too
ACTIVATIONS = ["nn.functional.silu", "nn.functional.softplus", "nn.functional.elu",
               "nn.functional.selu", "nn.functional.celu", "nn.functional.mish",
               "nn.functional.hardswish", "nn.functional.hardsigmoid",
               "nn.functional.leaky_relu", "nn.functional.logsigmoid"]


def _data(name):
    if name in ("log2", "log10"):
        return np.abs(_X) + 0.01
    return _UNIT if name in ("asin", "acos", "atanh") else _X


# the share of elements allowed to differ from PyTorch by a step of the half dtype:
# XLA computes x / 3 as x * (1/3) (hardswish's backward), and the float32 formulas of a
# few backward kernels are not quite PyTorch's (log_sigmoid's)
_STEP_OFF = {"nn.functional.hardswish": 0.02, "nn.functional.logsigmoid": 0.15,
             "nn.functional.mish": 0.002, "nn.functional.silu": 0.002}
_STEP_OFF_FLOAT16 = {"sigmoid": 0.4}   # its float16 backward kernel rounds each step


def _near(got, want, dtype, share):
    """Equal but for at most ``share`` of the elements, which are at most two steps of
    the half dtype apart (float16 sigmoid's backward rounds three times)."""
    got, want = got.float().numpy(), want.float().numpy()
    step = 2.0 ** (-7 if dtype == "bfloat16" else -10)
    np.testing.assert_allclose(got, want, rtol=2 * step, atol=1e-6)
    assert np.mean(got != want) <= share, np.mean(got != want)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", MATH + ACTIVATIONS)
def test_half_forward_is_the_float32_result_rounded_once(name, dtype):
    a = _data(name)
    x = tl.tensor(a).to(getattr(tl, dtype))
    fn = _get(tl, name)
    got = fn(x)
    assert got.dtype is x.dtype
    np.testing.assert_array_equal(got.float().numpy(), fn(x.float()).to(x.dtype).float().numpy())
    if HAVE_TORCH:
        want = _get(torch, name)(torch.tensor(a).to(getattr(torch, dtype)))
        _near(got, want, dtype, 0.001)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ACTIVATIONS + ["sin", "exp", "tanh", "sigmoid"])
def test_half_gradients(name, dtype):
    a = _data(name)
    g = np.linspace(-2, 2, a.size).astype(np.float32)
    x = tl.tensor(a).to(getattr(tl, dtype)).requires_grad_()
    _get(tl, name)(x).backward(tl.tensor(g).to(x.dtype))
    share = _STEP_OFF.get(name, 0.0)
    if dtype == "float16":
        share = _STEP_OFF_FLOAT16.get(name, share)
    if name in ACTIVATIONS:   # the float32 backward, rounded once
        xf = x.detach().float().requires_grad_()
        _get(tl, name)(xf).backward(tl.tensor(g).to(x.dtype).float())
        _near(x.grad, xf.grad.to(x.dtype), dtype, 0.002)
    elif name in ("tanh", "sigmoid"):   # tanh_backward, sigmoid_backward: in float32
        y, g32 = _get(tl, name)(x.detach()).float(), tl.tensor(g).to(x.dtype).float()
        want = g32 * (1 - y * y) if name == "tanh" else g32 * (1 - y) * y
        # (reverse mode multiplies by y and 1 - y in the other order: a float32 rounding
        # apart, which moves a float16 result by one step here and there)
        _near(x.grad, want.to(x.dtype), dtype, 0.005)
    else:   # PyTorch's formula of half tensors: grad * cos(x), grad * exp(x)
        d = {"sin": tl.cos, "exp": tl.exp}[name](x.detach())
        np.testing.assert_array_equal(x.grad.float().numpy(),
                                      (tl.tensor(g).to(x.dtype) * d).float().numpy())
    if HAVE_TORCH:
        tx = torch.tensor(a).to(getattr(torch, dtype)).requires_grad_()
        _get(torch, name)(tx).backward(torch.tensor(g).to(tx.dtype))
        _near(x.grad, tx.grad, dtype, share)
