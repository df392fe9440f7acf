"""Elementwise ops: unary and binary math, comparisons, logical and bitwise ops,
``clamp`` and ``where``. Each is declared once; see spec.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import check_broadcast
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []

_FLOAT_DT = ("float32", "float64")


# ---------------------------------------------------------------------------
# sample tables shared by many ops
def _unary_samples(domain: str = "real", ints: bool = True):
    kw = {}
    if domain == "positive":
        kw = dict(positive=True)
    elif domain == "unit":
        kw = dict(low=-0.9, high=0.9)
    elif domain == "ge1":
        kw = dict(low=1.1, high=3.0)
    out = [S(arr(3, 4, **kw)), S(arr(**kw)), S(arr(0, 3, **kw)), S(arr(2, 3, 4, dtype="float64", **kw))]
    if ints:
        lo, hi = (1, 3) if domain in ("positive", "ge1") else (-2, 2)
        out.append(S(arr(5, low=lo, high=hi, dtype="int64"), grad=False))
    return out


def _binary_samples(ints: bool = True, nonzero_other: bool = False, scalars: bool = True,
                    positive_input: bool = False):
    o = dict(positive=True) if nonzero_other else {}
    i = dict(positive=True) if positive_input else {}
    out = [
        S(arr(3, 4, **i), arr(3, 4, **o)),
        S(arr(3, 1, **i), arr(1, 4, **o)),                    # broadcasting both ways
        S(arr(2, 3, 4, **i), arr(4, **o)),
        S(arr(**i), arr(2, 3, **o)),                          # 0-d with n-d
        S(arr(0, 3, **i), arr(3, **o)),                       # empty
        S(arr(3, dtype="float64", **i), arr(3, dtype="float32", **o)),  # promotion
    ]
    if scalars:
        out.append(S(arr(3, 4, **i), 2.5 if nonzero_other else -1.5))
        out.append(S(arr(3, **i), 2))
    if ints:
        out.append(S(arr(4, dtype="int64", low=1 if positive_input else -2, high=3),
                     arr(4, dtype="int32", low=1, high=3) if nonzero_other
                     else arr(4, dtype="int32"), grad=False))
        out.append(S(arr(4, dtype="int64", low=1, high=3), arr(4, **o), grad=False))
    return out


# ---------------------------------------------------------------------------
# declaration helpers
def unary(name, fn, *, promote="float", dunders=(), inplace=True, samples=None,
          domain="real", ints=True, **kw):
    register(OpSpec(name, lambda input: fn(input), "input", promote=promote,
                    dunders=dunders, inplace=inplace,
                    samples=samples or (lambda: _unary_samples(domain, ints)), **kw))


def binary(name, fn, *, promote="common", sig="input, other", dunders=(), inplace=True,
           samples=None, check=None, **kw):
    def chk(*vals):
        check_broadcast(vals[0], vals[1])
        if check is not None:
            check(*vals)
    register(OpSpec(name, fn, sig, tensor_args=("input", "other"), promote=promote,
                    dunders=dunders, inplace=inplace, check=chk,
                    samples=samples or (lambda: _binary_samples()), **kw))


# ---------------------------------------------------------------------------
# arithmetic
def _check_bool_sub(input, other, alpha=1):
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(input) or _is_bool(other):
        if not (isinstance(input, Tensor) and not _is_bool(input)) and \
                not (isinstance(other, Tensor) and not _is_bool(other)):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                               "supported. If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")


def _is_bool(v) -> bool:
    return (isinstance(v, Tensor) and v.dtype is _dt.bool) or isinstance(v, bool)


def _check_alpha(input, other, alpha=1):
    if isinstance(alpha, float) and not _float_result(input, other):
        raise RuntimeError("For integral input tensors, argument alpha must not be a "
                           "floating point number.")


def _float_result(*vals) -> bool:
    for v in vals:
        if isinstance(v, Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex):
            return True
        if isinstance(v, (float, complex)):
            return True
    return False


def _add(input, other, alpha=1):
    return input + other if alpha == 1 else input + alpha * other


def _sub(input, other, alpha=1):
    return input - other if alpha == 1 else input - alpha * other


binary("add", _add, sig="input, other, *, alpha=1", dunders=("__add__", "__radd__",
                                                              "__iadd__"),
       check=_check_alpha, saves=False,
       samples=lambda: _binary_samples() + [S(arr(3), arr(3), alpha=2.0),
                                            S(arr(2, dtype="bool"), arr(2, dtype="bool"),
                                              grad=False)])
binary("sub", _sub, sig="input, other, *, alpha=1", dunders=("__sub__", "__rsub__",
                                                              "__isub__"),
       check=lambda *v: (_check_bool_sub(*v), _check_alpha(*v)), saves=False,
       aliases=("subtract",),
       samples=lambda: _binary_samples() + [S(arr(3), arr(3), alpha=-0.5)])


def _rsub(input, other, alpha=1):
    return other - alpha * input


binary("rsub", _rsub, sig="input, other, *, alpha=1", inplace=False, method=False,
       saves=False, samples=lambda: _binary_samples(ints=False)[:3])
binary("mul", lambda a, b: a * b, dunders=("__mul__", "__rmul__", "__imul__"),
       aliases=("multiply",),
       samples=lambda: _binary_samples() + [S(arr(3, dtype="bool"), arr(3, dtype="bool"),
                                              grad=False)])


def _div(input, other, rounding_mode=None):
    if rounding_mode is None:
        return input / other
    if rounding_mode == "trunc":
        if jnp.issubdtype(input.dtype, jnp.integer):
            q = jnp.where((input % other != 0) & ((input < 0) != (other < 0)),
                          input // other + 1, input // other)
            return q
        return jnp.trunc(input / other)
    if rounding_mode == "floor":
        if jnp.issubdtype(input.dtype, jnp.integer):
            return jnp.floor_divide(input, other)
        return _float_floor_divide(input, other)
    raise ValueError(rounding_mode)


def _float_floor_divide(a, b):
    # PyTorch's div_floor_floating: floor(a / b) computed via fmod so that
    # floor_divide(x, y) * y + remainder(x, y) == x holds exactly.
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floordiv = jnp.floor(div)
    floordiv = jnp.where(div - floordiv > 0.5, floordiv + 1, floordiv)
    return jnp.where(b == 0, a / b, jnp.where(div == 0, jnp.copysign(0.0, a / b), floordiv))


def _div_promote_check(input, other, rounding_mode=None):
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or "
                           f"'floor' but found '{rounding_mode}'")
    if rounding_mode is not None:
        _check_int_zero_div(input, other)


def _check_int_zero_div(input, other, *rest):
    if isinstance(other, Tensor) and not (other.dtype.is_floating_point or
                                          other.dtype.is_complex):
        if not _float_result(input, other) and not isinstance(other._value, jax.core.Tracer):
            if bool(np.any(np.asarray(other._value) == 0)):
                raise RuntimeError("ZeroDivisionError")
    elif isinstance(other, (int, np.integer)) and not isinstance(other, bool) and other == 0:
        if not _float_result(input, other):
            raise RuntimeError("ZeroDivisionError")


register(OpSpec(
    "div", _div, "input, other, *, rounding_mode=None", tensor_args=("input", "other"),
    promote="common", inplace=True, aliases=("divide",),
    check=lambda *v: (check_broadcast(v[0], v[1]), _div_promote_check(*v)),
    dunders=("__truediv__", "__rtruediv__", "__itruediv__"),
    samples=lambda: _binary_samples(nonzero_other=True) + [
        S(arr(3, 4), arr(3, 4, positive=True), rounding_mode="trunc"),
        S(arr(3, 4), arr(3, 4, positive=True), rounding_mode="floor"),
        S(arr(6, dtype="int64"), arr(6, dtype="int64", low=1, high=3), rounding_mode="floor",
          grad=False),
        S(np.array([-7, 7, -8, 9]), np.array([2, -2, 3, 4]), rounding_mode="trunc",
          grad=False)]))


def _div_dtype(target, vals):
    # true division always produces a floating result
    if vals[2] is None and not (target.is_floating_point or target.is_complex):
        return _dt.get_default_dtype()
    return target


_OPS_DIV = __import__("torchlike._ops.spec", fromlist=["OPS"]).OPS["div"]
_OPS_DIV.extra["adjust_dtype"] = _div_dtype

binary("true_divide", lambda a, b: a / b, promote="float", method=True,
       samples=lambda: _binary_samples(nonzero_other=True))
binary("floor_divide", lambda a, b: _div(a, b, "floor"),
       dunders=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
       check=_check_int_zero_div, differentiable=False,
       samples=lambda: _binary_samples(nonzero_other=True))


def _remainder(a, b):
    if jnp.issubdtype(jnp.result_type(a), jnp.integer):
        return jnp.remainder(a, b)
    mod = jnp.fmod(a, b)
    return jnp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


binary("remainder", _remainder, dunders=("__mod__", "__rmod__", "__imod__"),
       check=_check_int_zero_div,
       samples=lambda: _binary_samples(nonzero_other=True) + [
           S(np.array([-3., -2, -1, 1, 2, 3], np.float32), 2),
           S(np.array([-3, -2, -1, 1, 2, 3]), -2, grad=False)])
binary("fmod", jnp.fmod, check=_check_int_zero_div,
       samples=lambda: _binary_samples(nonzero_other=True) + [
           S(np.array([-3., -2, -1, 1, 2, 3], np.float32), 2),
           S(np.array([-3, -2, -1, 1, 2, 3]), -2, grad=False)])


def _pow(input, exponent):
    if jnp.issubdtype(jnp.result_type(input), jnp.integer) and \
            jnp.issubdtype(jnp.result_type(exponent), jnp.integer):
        return jax.lax.integer_pow(input, exponent) if isinstance(exponent, int) else \
            jnp.power(input, exponent)
    return jnp.power(input, exponent)


def _check_pow(input, exponent):
    check_broadcast(input, exponent)
    if not _float_result(input, exponent):
        e = exponent
        if isinstance(e, Tensor) and not isinstance(e._value, jax.core.Tracer):
            neg = bool(np.any(np.asarray(e._value) < 0))
        else:
            neg = isinstance(e, int) and e < 0
        if neg:
            raise RuntimeError("Integers to negative integer powers are not allowed.")


def _pow_grad_name(input, exponent):
    if not isinstance(input, Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(exponent, Tensor) else "PowBackward0"


register(OpSpec(
    "pow", _pow, "input, exponent", tensor_args=("input", "exponent"), inplace=True,
    dunders=("__pow__", "__rpow__", "__ipow__"), check=_check_pow, grad_name=_pow_grad_name,
    samples=lambda: [
        S(arr(3, 4, positive=True), 2), S(arr(3, 4, positive=True), 0.5),
        S(arr(3, 4, positive=True), arr(3, 4)), S(arr(3, positive=True), arr(2, 1)),
        S(arr(4, dtype="int64", low=0, high=2), 3, grad=False),
        S(2.0, arr(3)), S(arr(), 3), S(arr(2, 3, dtype="float64", positive=True), -1.5)]))


def _float_power(input, exponent):
    return jnp.power(input, exponent)


register(OpSpec(
    "float_power", _float_power, "input, exponent", tensor_args=("input", "exponent"),
    promote="common", inplace=True, check=lambda a, b: check_broadcast(a, b),
    extra={"adjust_dtype": lambda t, vals: _dt.complex128 if t.is_complex else _dt.float64},
    samples=lambda: [S(arr(3, positive=True), 2), S(arr(3, positive=True), arr(3)),
                     S(arr(3, dtype="int64", low=1), 2, grad=False)]))


def _atan2(input, other):
    return jnp.arctan2(input, other)


binary("atan2", _atan2, promote="float", aliases=("arctan2",))
binary("hypot", jnp.hypot, promote="float",
       samples=lambda: _binary_samples(ints=False))
binary("logaddexp", jnp.logaddexp, promote="float", samples=lambda: _binary_samples(ints=False))
binary("logaddexp2", jnp.logaddexp2, promote="float",
       samples=lambda: _binary_samples(ints=False))
binary("maximum", jnp.maximum, inplace=False, samples=lambda: _binary_samples(scalars=False))
binary("minimum", jnp.minimum, inplace=False, samples=lambda: _binary_samples(scalars=False))
binary("fmax", jnp.fmax, inplace=False, samples=lambda: _binary_samples(scalars=False))
binary("fmin", jnp.fmin, inplace=False, samples=lambda: _binary_samples(scalars=False))
binary("copysign", jnp.copysign, promote="float", samples=lambda: _binary_samples())
binary("xlogy", lambda a, b: jsp.xlogy(a, b), promote="float",
       samples=lambda: _binary_samples(nonzero_other=True))
binary("nextafter", jnp.nextafter, differentiable=False,
       samples=lambda: [S(arr(3), arr(3), grad=False), S(arr(3, dtype="float64"),
                                                         arr(3, dtype="float64"), grad=False)])
binary("heaviside", lambda a, b: jnp.where(a == 0, b, jnp.where(a > 0, 1, 0).astype(a.dtype)),
       differentiable=False, samples=lambda: [
           S(np.array([-1.5, 0, 2.0], np.float32), np.array([0.5, 0.5, 0.5], np.float32),
             grad=False)])


def _lerp(input, end, weight):
    return input + weight * (end - input)


register(OpSpec(
    "lerp", _lerp, "input, end, weight", tensor_args=("input", "end", "weight"),
    inplace=True, check=lambda a, b, w: check_broadcast(a, b, w),
    samples=lambda: [S(arr(3, 4), arr(3, 4), 0.3), S(arr(3, 4), arr(3, 4), arr(3, 4))]))


def _addcmul(input, tensor1, tensor2, value=1):
    return input + value * tensor1 * tensor2


def _addcdiv(input, tensor1, tensor2, value=1):
    return input + value * tensor1 / tensor2


register(OpSpec(
    "addcmul", _addcmul, "input, tensor1, tensor2, *, value=1",
    tensor_args=("input", "tensor1", "tensor2"), inplace=True,
    check=lambda a, b, c, value=1: check_broadcast(a, b, c),
    samples=lambda: [S(arr(3, 4), arr(3, 4), arr(3, 4), value=0.5),
                     S(arr(3, 1), arr(1, 4), arr(3, 4))]))
register(OpSpec(
    "addcdiv", _addcdiv, "input, tensor1, tensor2, *, value=1",
    tensor_args=("input", "tensor1", "tensor2"), inplace=True,
    check=lambda a, b, c, value=1: check_broadcast(a, b, c),
    samples=lambda: [S(arr(3, 4), arr(3, 4), arr(3, 4, positive=True), value=0.5)]))


# ---------------------------------------------------------------------------
# unary math
def _neg_check(input):
    if isinstance(input, Tensor) and input.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


unary("neg", jnp.negative, promote="common", dunders=("__neg__",), check=_neg_check,
      aliases=("negative",), saves=False)
unary("positive", lambda x: x, promote="common", inplace=False, saves=False)
unary("abs", jnp.abs, promote="common", aliases=("absolute",), dunders=("__abs__",))
for _n, _f, _d in (("exp", jnp.exp, "real"), ("exp2", jnp.exp2, "real"),
                   ("expm1", jnp.expm1, "real"), ("log", jnp.log, "positive"),
                   ("log2", jnp.log2, "positive"), ("log10", jnp.log10, "positive"),
                   ("log1p", jnp.log1p, "positive"), ("sqrt", jnp.sqrt, "positive"),
                   ("rsqrt", jax.lax.rsqrt, "positive"), ("sin", jnp.sin, "real"),
                   ("cos", jnp.cos, "real"), ("tan", jnp.tan, "unit"),
                   ("asin", jnp.arcsin, "unit"), ("acos", jnp.arccos, "unit"),
                   ("atan", jnp.arctan, "real"), ("sinh", jnp.sinh, "real"),
                   ("cosh", jnp.cosh, "real"), ("tanh", jnp.tanh, "real"),
                   ("asinh", jnp.arcsinh, "real"), ("acosh", jnp.arccosh, "ge1"),
                   ("atanh", jnp.arctanh, "unit"), ("sigmoid", jax.nn.sigmoid, "real"),
                   ("erf", jsp.erf, "real"), ("erfc", jsp.erfc, "real"),
                   ("erfinv", jsp.erfinv, "unit"), ("lgamma", jsp.gammaln, "positive"),
                   ("digamma", jsp.digamma, "positive"), ("reciprocal", jnp.reciprocal,
                                                          "positive"),
                   ("deg2rad", jnp.deg2rad, "real"), ("rad2deg", jnp.rad2deg, "real"),
                   ("sinc", jnp.sinc, "real"), ("i0", jnp.i0, "real")):
    _aliases = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
                "asinh": ("arcsinh",), "acosh": ("arccosh",), "atanh": ("arctanh",)}.get(_n, ())
    unary(_n, _f, domain=_d, aliases=_aliases)


def _logit(input, eps=None):
    x = input if eps is None else jnp.clip(input, eps, 1 - eps)
    return jnp.log(x / (1 - x))


register(OpSpec("logit", _logit, "input, eps=None", promote="float", inplace=True,
                samples=lambda: [S(arr(3, 4, low=0.05, high=0.95)),
                                 S(arr(5, low=0.0, high=1.0), eps=1e-3)]))
unary("square", jnp.square, promote="common",
      samples=lambda: _unary_samples() + [S(arr(3, dtype="int32"), grad=False)])
unary("sign", jnp.sign, promote="common",
      samples=lambda: _unary_samples() + [S(np.array([True, False]), grad=False)],
      grad_name="SignBackward0")
unary("sgn", jnp.sign, promote="common")
unary("signbit", jnp.signbit, promote="none", inplace=False, differentiable=False,
      samples=lambda: [S(arr(3, 4), grad=False), S(np.array([-0.0, 0.0, 1.0], np.float32),
                                                   grad=False)])
for _n, _f in (("floor", jnp.floor), ("ceil", jnp.ceil), ("trunc", jnp.trunc)):
    unary(_n, lambda x, _f=_f: x if jnp.issubdtype(x.dtype, jnp.integer) else _f(x),
          promote="common", aliases=("fix",) if _n == "trunc" else ())
unary("frac", lambda x: x - jnp.trunc(x), promote="common", ints=False)


def _round(input, decimals=0):
    if jnp.issubdtype(input.dtype, jnp.integer):
        return input
    if decimals == 0:
        return jnp.round(input)
    s = 10.0 ** decimals
    return jnp.round(input * s) / s


register(OpSpec("round", _round, "input, *, decimals=0", promote="common", inplace=True,
                samples=lambda: _unary_samples() + [
                    S(np.array([0.5, 1.5, 2.5, -0.5], np.float32)),
                    S(arr(4) * 10, decimals=1)]))


def _nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return jnp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


register(OpSpec("nan_to_num", _nan_to_num, "input, nan=0.0, posinf=None, neginf=None",
                promote="common", inplace=True,
                samples=lambda: [S(np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)),
                                 S(np.array([np.nan, np.inf, 2.0]), nan=1.0, posinf=5.0)]))


# ---------------------------------------------------------------------------
# clamp
def _clamp(input, min=None, max=None):
    out = input
    if min is not None:
        out = jnp.maximum(out, min)
    if max is not None:
        out = jnp.minimum(out, max)
    if min is not None and max is not None:
        # PyTorch: min > max gives max everywhere
        out = jnp.where(jnp.asarray(min) > jnp.asarray(max), jnp.broadcast_to(max, out.shape)
                        if jnp.ndim(max) else max, out)
    return out


def _clamp_check(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    check_broadcast(input, min, max)


def _clamp_samples():
    return [S(arr(3, 4), -0.5, 0.5), S(arr(3, 4), min=0.0), S(arr(3, 4), max=0.3),
            S(arr(3, 4), arr(3, 4), arr(3, 4) + 3), S(arr(6, dtype="int64"), -1, 2, grad=False),
            S(arr(3, 4), 0.5, -0.5), S(np.array([0.0, 1.0, 2.0], np.float32), 1.0, 1.0)]


register(OpSpec("clamp", _clamp, "input, min=None, max=None",
                tensor_args=("input", "min", "max"), inplace=True, aliases=("clip",),
                check=_clamp_check, samples=_clamp_samples))


def _clamp_min(input, min):
    return jnp.maximum(input, min)


def _clamp_max(input, max):
    return jnp.minimum(input, max)


register(OpSpec("clamp_min", _clamp_min, "input, min", tensor_args=("input", "min"),
                inplace=True, samples=lambda: [S(arr(3, 4), 0.0)]))
register(OpSpec("clamp_max", _clamp_max, "input, max", tensor_args=("input", "max"),
                inplace=True, samples=lambda: [S(arr(3, 4), 0.0)]))


# ---------------------------------------------------------------------------
# comparisons and tests
_CMP = (("eq", jnp.equal, "__eq__", ()), ("ne", jnp.not_equal, "__ne__", ("not_equal",)),
        ("lt", jnp.less, "__lt__", ("less",)), ("le", jnp.less_equal, "__le__",
                                                  ("less_equal",)),
        ("gt", jnp.greater, "__gt__", ("greater",)),
        ("ge", jnp.greater_equal, "__ge__", ("greater_equal",)))
for _n, _f, _dn, _al in _CMP:
    binary(_n, _f, dunders=(_dn,), differentiable=False, aliases=_al, inplace=True,
           samples=lambda: [dict_s for dict_s in _binary_samples()] +
           [S(arr(3, dtype="bool"), arr(3, dtype="bool"), grad=False)])

for _n, _f in (("isnan", jnp.isnan), ("isinf", jnp.isinf), ("isfinite", jnp.isfinite),
               ("isposinf", jnp.isposinf), ("isneginf", jnp.isneginf),
               ("isreal", lambda x: jnp.isreal(x))):
    unary(_n, _f, promote="none", inplace=False, differentiable=False,
          samples=lambda: [S(np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32),
                             grad=False), S(arr(3, dtype="int64"), grad=False)])


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


register(OpSpec("isclose", _isclose, "input, other, rtol=1e-05, atol=1e-08, equal_nan=False",
                tensor_args=("input", "other"), differentiable=False,
                check=lambda a, b, *r: check_broadcast(a, b),
                samples=lambda: [S(arr(3), arr(3), grad=False),
                                 S(np.array([1.0, np.nan], np.float32),
                                   np.array([1.0 + 1e-9, np.nan], np.float32), equal_nan=True,
                                   grad=False)]))


# ---------------------------------------------------------------------------
# logical and bitwise
for _n, _f in (("logical_and", jnp.logical_and), ("logical_or", jnp.logical_or),
               ("logical_xor", jnp.logical_xor)):
    binary(_n, _f, promote="none", differentiable=False,
           samples=lambda: [S(arr(3, 4, dtype="bool"), arr(3, 4, dtype="bool"), grad=False),
                            S(arr(3, 4), arr(4), grad=False)])
unary("logical_not", jnp.logical_not, promote="none", differentiable=False,
      samples=lambda: [S(arr(3, 4, dtype="bool"), grad=False), S(arr(3), grad=False),
                       S(arr(4, dtype="int64"), grad=False)])


def _check_bitwise(input, other=None):
    for v in (input, other):
        if isinstance(v, Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex):
            raise RuntimeError(f'"bitwise_cpu" not implemented for '
                               f"'{_dtype_title(v.dtype)}'")


def _dtype_title(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


def _bit_samples():
    return [S(arr(3, 4, dtype="int64"), arr(3, 4, dtype="int64"), grad=False),
            S(arr(3, 4, dtype="bool"), arr(4, dtype="bool"), grad=False),
            S(arr(3, dtype="int32"), 5, grad=False)]


for _n, _f, _dn in (("bitwise_and", jnp.bitwise_and, ("__and__", "__rand__", "__iand__")),
                    ("bitwise_or", jnp.bitwise_or, ("__or__", "__ror__", "__ior__")),
                    ("bitwise_xor", jnp.bitwise_xor, ("__xor__", "__rxor__", "__ixor__"))):
    binary(_n, _f, dunders=_dn, differentiable=False, check=_check_bitwise,
           samples=_bit_samples)
binary("bitwise_left_shift", jnp.left_shift, differentiable=False, check=_check_bitwise,
       dunders=("__lshift__", "__rlshift__", "__ilshift__"),
       samples=lambda: [S(arr(4, dtype="int64", low=0), arr(4, dtype="int64", low=0, high=1),
                          grad=False)])
binary("bitwise_right_shift", jnp.right_shift, differentiable=False, check=_check_bitwise,
       dunders=("__rshift__", "__rrshift__", "__irshift__"),
       samples=lambda: [S(arr(4, dtype="int64", low=0), arr(4, dtype="int64", low=0, high=1),
                          grad=False)])
unary("bitwise_not", jnp.invert, promote="none", differentiable=False,
      dunders=("__invert__",), check=_check_bitwise,
      samples=lambda: [S(arr(3, dtype="int64"), grad=False), S(arr(3, dtype="bool"),
                                                               grad=False)])


# ---------------------------------------------------------------------------
# where
def _where(condition, input, other):
    return jnp.where(condition, input, other)


def _where_check(condition, input=None, other=None):
    if isinstance(condition, Tensor) and condition.dtype not in (_dt.bool, _dt.uint8):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                           f"tensor with dtype {_dtype_title(condition.dtype)}")
    check_broadcast(condition, input, other)


register(OpSpec(
    "where", _where, "condition, input, other", tensor_args=("condition", "input", "other"),
    promote_args=("input", "other"), method=False, check=_where_check,
    samples=lambda: [S(arr(3, 4, dtype="bool"), arr(3, 4), arr(3, 4)),
                     S(arr(3, 4, dtype="bool"), arr(3, 4), 0.0),
                     S(arr(3, 1, dtype="bool"), 1.0, arr(4)),
                     S(arr(3, dtype="bool"), arr(3, dtype="int64"), 2.5, grad=False)]))


def _where_method(self, condition, y):
    """Mirrors ``Tensor.where(condition, y)``: ``torchlike.where(condition, self, y)``."""
    from .spec import OPS
    spec = OPS["where"]
    from .dispatch import dispatch
    return dispatch(spec, spec.api, (condition, self, y), {})


Tensor.where = _where_method

_ = _FLOAT_DT
