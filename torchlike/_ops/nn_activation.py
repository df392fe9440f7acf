"""nn activation kernels, declared in the op table.

Each kernel mirrors one ATen kernel that PyTorch differentiates as a whole (so its
autograd node has PyTorch's name, e.g. ``GeluBackward0``). Most are reachable only
through ``torchlike.nn.functional`` (``function=False, method=False``); those PyTorch
also exposes as ``torch.X`` / ``Tensor.X`` are bound so."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .elementwise_common import half_in_float32
from .nn_common import _c, _float_only, _title, _zero
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


def _act(name, fn, sig, kernel, grad_name, samples, *, check=None,
         float_only=True, half_in_float=False, **kw):
    """``half_in_float``: PyTorch's forward and backward kernels compute float16/bfloat16
    in float32 (Note [Half precision math] in elementwise_common.py)."""
    if half_in_float:
        fn = half_in_float32(fn, grad=True)
    chk = _float_only(kernel) if float_only else None
    if check is not None:
        inner = chk

        def chk(*vals):
            if inner is not None:
                inner(*vals)
            check(*vals)
    kw.setdefault("function", False)
    kw.setdefault("method", False)
    register(OpSpec(name, fn, sig, promote="none", check=chk, grad_name=grad_name,
                    samples=samples,
                    doc=kw.pop("doc", f"Kernel of ``torch.nn.functional.{name}``."), **kw))


def _act_samples(*extra_kwargs):
    out = [S(arr(3, 4)), S(arr(2, 3, 4, dtype="float64")), S(arr()), S(arr(0, 3)),
           S(np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 25.0], np.float32))]
    for kw in extra_kwargs:
        out.append(S(arr(3, 4), **kw))
    return out


# ---------------------------------------------------------------------------
# activations
def _leaky_relu(input, negative_slope=0.01):
    return jnp.where(input > 0, input, input * _c(negative_slope, input))


_act("leaky_relu", _leaky_relu, "input, negative_slope=0.01", "leaky_relu_cpu",
     "LeakyReluBackward0", lambda: _act_samples(dict(negative_slope=0.2)),
     half_in_float=True)


# Note [Activation derivatives at their kinks]
# PyTorch differentiates elu (and selu, celu) and softplus with its own formulas, whose
# double backward picks a side at the kink: elu's second derivative at 0 is 0 while its
# first is alpha * scale * input_scale; softplus's second derivative is 0 from
# ``beta * x >= threshold`` on while its first is a sigmoid up to ``> threshold``. The
# kernels are ``jax.custom_jvp`` functions whose primal is the unchanged expression and
# whose tangent is that formula, with the side picked by a ``where`` on the primal (so
# the branch taken at the kink is constant and differentiates to 0).
@partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    neg = (jnp.expm1(jnp.where(input > 0, _zero(input), input) * _c(input_scale, input))
           * _c(alpha * scale, input))
    return jnp.where(input > 0, input * _c(scale, input), neg)


@_elu.defjvp
def _elu_jvp(alpha, scale, input_scale, primals, tangents):
    (x,), (t,) = primals, tangents
    neg = jnp.exp(jnp.where(x < 0, x, _zero(x)) * _c(input_scale, x))
    # ``x <= 0`` picks the negative side, so NaN takes the positive side's slope as
    # PyTorch's elu_backward does
    d = jnp.where(x <= 0, _c(alpha * scale * input_scale, x) * neg, _c(scale, x))
    return _elu(x, alpha, scale, input_scale), t * d


_act("elu", _elu, "input, alpha=1.0, scale=1.0, input_scale=1.0", "elu_cpu", "EluBackward0",
     lambda: _act_samples(dict(alpha=0.5), dict(alpha=2.0, scale=1.5, input_scale=0.5)),
     half_in_float=True)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _selu(input):
    return _elu(input, SELU_ALPHA, SELU_SCALE, 1.0)


_act("selu", _selu, "input", "elu_cpu", "EluBackward0", lambda: _act_samples(),
     function=True, method=False, inplace=False,
     doc="Mirrors ``torch.selu`` (``torch.nn.functional.selu``).",
     half_in_float=True)


def _celu(input, alpha=1.0):
    return _elu(input, alpha, 1.0, 1.0 / alpha)


_act("celu", _celu, "input, alpha=1.0", "elu_cpu", "CeluBackward0",
     lambda: _act_samples(dict(alpha=0.5), dict(alpha=2.0)), function=True, method=False,
     doc="Mirrors ``torch.celu`` (``torch.nn.functional.celu``).",
     half_in_float=True)


def _gelu(input, approximate="none"):
    return jax.nn.gelu(input, approximate=(approximate == "tanh"))


def _gelu_check(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


_act("gelu", _gelu, "input, approximate='none'", "GeluKernelImpl", "GeluBackward0",
     lambda: _act_samples(dict(approximate="tanh")), check=_gelu_check,
     half_in_float=True)


@jax.custom_jvp
def _silu(input):
    # silu_kernel's ``x / (1 + exp(-x))``
    return input / (1 + jnp.exp(-input))


@_silu.defjvp
def _silu_jvp(primals, tangents):
    # silu_backward: ``dy * sigmoid * (1 + x * (1 - sigmoid))``
    (x,), (t,) = primals, tangents
    s = 1 / (1 + jnp.exp(-x))
    return _silu(x), t * (s * (1 + x * (1 - s)))


_act("silu", _silu, "input", "silu_cpu", "SiluBackward0", lambda: _act_samples(),
     half_in_float=True)


def _mish(input):
    return input * jnp.tanh(jax.nn.softplus(input))


_act("mish", _mish, "input", "mish_cpu", "MishBackward0", lambda: _act_samples(),
     half_in_float=True)


def _hardtanh(input, min_val=-1.0, max_val=1.0):
    lo, hi = _c(min_val, input), _c(max_val, input)
    # PyTorch's value is its clamp: an input equal to a bound is kept, so ``relu6(-0.0)``
    # is -0.0 and NaN stays NaN; the gradient is zero at the bounds themselves
    # (hardtanh_backward's ``x <= min || x >= max``)
    kept = jnp.where(input < lo, lo, jnp.where(input > hi, hi, input))
    return jnp.where((input <= lo) | (input >= hi), jax.lax.stop_gradient(kept), input)


_act("hardtanh", _hardtanh, "input, min_val=-1.0, max_val=1.0", "hardtanh_cpu",
     "HardtanhBackward0", lambda: _act_samples(dict(min_val=0.0, max_val=6.0)) +
     [S(arr(4, dtype="int64"), 0, 6, grad=False)], float_only=False)


def _relu6_of_shift(input):
    # ``min(max(x + 3, 0), 6)``, PyTorch's form in hardsigmoid and hardswish (so the
    # roundings match theirs); NaN stays NaN
    up = input + _c(3, input)
    return jnp.where(up < 0, _zero(input), jnp.where(up > 6, _c(6, input), up))


def _hardsigmoid(input):
    out = _relu6_of_shift(input) / _c(6, input)
    # hardsigmoid_backward's slope is 1/6 strictly inside (-3, 3), 0 elsewhere and at NaN
    inside = (input > -3) & (input < 3)
    return jnp.where(inside, out, jax.lax.stop_gradient(out))


_act("hardsigmoid", _hardsigmoid, "input", "hardsigmoid_cpu", "HardsigmoidBackward0",
     lambda: _act_samples(),
     half_in_float=True)


@jax.custom_jvp
def _hardswish(input):
    # ``x * relu6(x + 3) / 6``: -0.0 below -3 and NaN at -inf, as PyTorch gives them
    return input * _relu6_of_shift(input) / _c(6, input)


@_hardswish.defjvp
def _hardswish_jvp(primals, tangents):
    # hardswish_backward: 0 up to -3, ``x / 3 + 1/2`` strictly inside (-3, 3), 1 from 3
    # on and at NaN and inf, where differentiating the product would give NaN
    (x,), (t,) = primals, tangents
    mid = x / _c(3, x) + _c(0.5, x)
    d = jnp.where(x <= -3, _zero(x), jnp.where(x < 3, mid, jnp.ones((), x.dtype)))
    return _hardswish(x), t * d


_act("hardswish", _hardswish, "input", "hardswish_cpu", "HardswishBackward0",
     lambda: _act_samples(),
     half_in_float=True)


@partial(jax.custom_jvp, nondiff_argnums=(1, 2))
def _softplus(input, beta=1.0, threshold=20.0):
    b = _c(beta, input)
    z = input * b
    soft = jnp.log1p(jnp.exp(jnp.where(z > threshold, _zero(z), z))) / b
    return jnp.where(z > threshold, input, soft)


@_softplus.defjvp
def _softplus_jvp(beta, threshold, primals, tangents):
    # Note [Activation derivatives at their kinks]
    (x,), (t,) = primals, tangents
    z = x * _c(beta, x)
    thr = _c(threshold, x)
    # a NaN input gets a NaN slope, as PyTorch's ``z / (z + 1)`` gives it
    d = jnp.where(z > thr, jnp.ones((), x.dtype), jax.nn.sigmoid(jnp.where(z >= thr, thr, z)))
    return _softplus(x, beta, threshold), t * d


_act("softplus", _softplus, "input, beta=1.0, threshold=20.0", "softplus_cpu",
     "SoftplusBackward0", lambda: _act_samples(dict(beta=2.0, threshold=1.0),
                                               dict(beta=0.5)),
     half_in_float=True)


def _threshold(input, threshold, value):
    # PyTorch's test is ``x <= threshold``: NaN is kept, with its gradient
    return jnp.where(input <= threshold, jnp.asarray(value).astype(input.dtype), input)


_act("threshold", _threshold, "input, threshold, value", "threshold_cpu",
     "ThresholdBackward0",
     lambda: [S(arr(3, 4), 0.1, 20.0), S(arr(2, 3, dtype="float64"), 0.0, -1.0),
              S(arr(5, dtype="int64"), 1, 7, grad=False), S(arr(), 0.5, 2.0)],
     float_only=False, function=True, method=False,
     doc="Mirrors ``torch.threshold`` (``torch.nn.functional.threshold``).")


def _glu(input, dim=-1):
    a, b = jnp.split(input, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


def _glu_check(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    from .._core.tensor import wrap_dim
    d = wrap_dim(dim, input.dim())
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")


_act("glu", _glu, "input, dim=-1", "glu_cpu", "GluBackward0",
     lambda: [S(arr(3, 4)), S(arr(4, 3), 0), S(arr(2, 6, 2, dtype="float64"), 1)],
     check=_glu_check)


def _softshrink(input, lambd=0.5):
    lam = _c(lambd, input)
    # inside [-lambd, lambd] PyTorch gives ``x * 0`` (-0.0 for negatives), NaN stays NaN
    # with gradient 1
    dead = jnp.where(input == input, input * 0, input)
    return jnp.where(input > lam, input - lam, jnp.where(input < -lam, input + lam, dead))


def _softshrink_check(input, lambd=0.5):
    if lambd < 0:
        fmax = {"float64": "1.79769e+308", "float16": "65504", "bfloat16": "3.38953e+38"}
        hi = fmax.get(input.dtype.name, "3.40282e+38")
        raise RuntimeError(f"lambda must be in range [0, {hi}] for input dtype "
                           f"{_title(input.dtype)}, but found {lambd:g}")


_act("softshrink", _softshrink, "input, lambd=0.5", "softshrink_check", "SoftshrinkBackward0",
     lambda: _act_samples(dict(lambd=1.0)), check=_softshrink_check)


def _hardshrink(input, lambd=0.5):
    lam = _c(lambd, input)
    return jnp.where((input >= -lam) & (input <= lam), _zero(input), input)


_act("hardshrink", _hardshrink, "input, lambd=0.5", "hardshrink_cpu", "HardshrinkBackward0",
     lambda: _act_samples(dict(lambd=1.0)) + [S(arr(3), lambd=0.2, method=True)],
     function=True, method=True,
     doc="Mirrors ``torch.hardshrink`` and ``Tensor.hardshrink``.")


_act("log_sigmoid", lambda input: jax.nn.log_sigmoid(input), "input", "log_sigmoid_cpu",
     "LogSigmoidBackward0", lambda: _act_samples(),
     half_in_float=True)


def _rrelu_with_noise(input, noise, lower, upper, training):
    if training:
        return jnp.where(input <= 0, input * noise.astype(input.dtype), input)
    return _leaky_relu(input, (lower + upper) / 2)


register(OpSpec(
    "rrelu_with_noise", _rrelu_with_noise, "input, noise, lower, upper, training",
    tensor_args=("input", "noise"), promote="none", function=False, method=False,
    check=_float_only("leaky_relu_cpu"), grad_name="RreluWithNoiseBackward0",
    doc="Kernel of ``torch.nn.functional.rrelu``: ``noise`` holds the sampled slopes.",
    samples=lambda: [S(arr(3, 4), arr(3, 4, low=0.1, high=0.3), 0.125, 1 / 3, True),
                     S(arr(3, 4), arr(3, 4), 0.125, 1 / 3, False)]))


def _prelu(input, weight):
    w = weight.astype(input.dtype)
    if input.ndim >= 2 and w.size > 1:
        w = w.reshape((1, -1) + (1,) * (input.ndim - 2))
    elif w.ndim:
        w = w.reshape(()) if w.size == 1 else w
    return jnp.where(input > 0, input, w * input)


def _prelu_check(input, weight):
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_title(input.dtype)} "
                           f"and {_title(weight.dtype)}")
    channels = input.shape[1] if input.dim() >= 2 else 1
    n = weight.numel()
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {n} and channel size = {channels}.")
    _float_only("prelu_cpu")(input)


register(OpSpec(
    "prelu", _prelu, "input, weight", tensor_args=("input", "weight"), promote="none",
    function=True, method=True, check=_prelu_check, grad_name="PreluKernelBackward0",
    doc="Mirrors ``torch.prelu`` / ``Tensor.prelu``: ``weight`` has one slope or one per "
        "channel (dim 1).",
    samples=lambda: [S(arr(3, 4), np.array([0.25], np.float32)), S(arr(2, 3, 4), arr(3)),
                     S(arr(5), arr(1)), S(arr(2, 3, dtype="float64"),
                                          np.array(0.1, np.float64))]))
