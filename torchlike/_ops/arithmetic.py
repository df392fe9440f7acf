"""Elementwise arithmetic: add, sub, rsub, mul, div (and ``true_divide``,
``floor_divide``), remainder, fmod, pow, float_power, atan2, hypot, logaddexp(2),
maximum/minimum, fmax/fmin, copysign, xlogy, nextafter, heaviside, lerp, addcmul,
addcdiv, and the integer and floating-point decompositions gcd, lcm, ldexp and frexp.
Each is declared once; see spec.py."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import check_broadcast
from .elementwise_common import (_binary_samples, _dtype_title, _not_impl, binary, checks, reject,
                                 reject_common)
from .samples import S, arr
from .spec import OpSpec, Scalar, register

__all__: list = []


# ---------------------------------------------------------------------------
# arithmetic
def _check_bool_sub(input, other, alpha=1):
    # PyTorch wraps Python bools into bool tensors, so ``x - True`` is refused too.
    if type(input) is Tensor and type(other) is Tensor and \
            input._storage.dtype is not _dt.bool and other._storage.dtype is not _dt.bool:
        return
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


def _is_bool(v) -> bool:
    return (isinstance(v, Tensor) and v.dtype is _dt.bool) or isinstance(v, bool)


def _float_result(*vals) -> bool:
    for v in vals:
        if isinstance(v, Tensor) and (v.dtype.is_floating_point or v.dtype.is_complex):
            return True
        if isinstance(v, (float, complex)):
            return True
    return False


def _scaled(x, k):
    """``k * x`` with the scalar ``k`` (a dynamic value) in ``x``'s dtype, as PyTorch;
    ``x`` for None, the neutral 1 (Note [Neutral scalar arguments] in dispatch.py)."""
    if k is None:
        return x
    return x * jnp.asarray(k, dtype=jnp.result_type(x))


def _add(input, other, alpha=1):
    return input + _scaled(other, alpha)


def _sub(input, other, alpha=1):
    return input - _scaled(other, alpha)


binary("add", _add, sig="input, other, *, alpha=1", dunders=("__add__", "__radd__",
                                                              "__iadd__"),
       alpha=True, saves=False, dynamic=("alpha",), neutral={"alpha": 1},
       samples=lambda: _binary_samples() + [S(arr(3), arr(3), alpha=2.0),
                                            S(arr(2, dtype="bool"), arr(2, dtype="bool"),
                                              grad=False)])
binary("sub", _sub, sig="input, other, *, alpha=1", dunders=("__sub__", "__rsub__",
                                                              "__isub__"),
       check=_check_bool_sub, alpha=True, saves=False,
       aliases=("subtract",), dynamic=("alpha",), neutral={"alpha": 1},
       samples=lambda: _binary_samples() + [S(arr(3), arr(3), alpha=-0.5)])


def _rsub(input, other, alpha=1):
    return other - _scaled(input, alpha)


binary("rsub", _rsub, sig="input, other, *, alpha=1", inplace=False, method=False,
       saves=False, tensor_only="first", dynamic=("alpha",), neutral={"alpha": 1},
       check=_check_bool_sub, alpha=True,
       samples=lambda: _binary_samples(ints=False)[:3] + [S(arr(3), 2, alpha=2)])
# Note [Half tensors times a number]
# PyTorch's CPU ``mul`` and ``div`` of a float16 or bfloat16 tensor by a number or a 0-d
# tensor (the second operand) read it in float32 from its own dtype and round the float32
# product or quotient once (``mul_cpu_reduced_float``, ``div_cpu_reduced_float``); add
# and sub, and a number as the first operand, round it to the tensor's dtype first.
# ``x * 0.1`` in bfloat16 differs between the two in the last bit for about a fifth of
# the elements, ``x * torch.tensor(0.3)`` for about half. The backward's ``grad * other``
# and ``grad / other`` take the same path in PyTorch, and JAX's derivative of the float32
# computation is that.
def _half_by_number(op, a, b):
    """``op(a, b)`` with PyTorch's arithmetic for a number or 0-d tensor ``b`` (a
    ``Scalar``)."""
    if type(b) is not Scalar:
        return op(a, b)
    if a.dtype in (jnp.float16, jnp.bfloat16):
        return op(a.astype(jnp.float32), jnp.asarray(b.raw, jnp.float32)).astype(a.dtype)
    return op(a, b.value)


binary("mul", lambda a, b: _half_by_number(jnp.multiply, a, b),
       dunders=("__mul__", "__rmul__", "__imul__"), aliases=("multiply",), scalars=("other",),
       zero_dim_scalars=True,
       samples=lambda: _binary_samples() + [S(arr(3, dtype="bool"), arr(3, dtype="bool"),
                                              grad=False)])


def _div(input, other, rounding_mode=None):
    if rounding_mode is None:
        return _half_by_number(jnp.true_divide, input, other)
    if type(other) is Scalar:
        other = other.value
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


def _div_check(input, other, rounding_mode=None):
    if type(input) is not Tensor or type(other) is not Tensor or input._shape != other._shape:
        check_broadcast(input, other)
    if rounding_mode is not None:
        _div_promote_check(input, other, rounding_mode)


register(OpSpec(
    "div", _div, "input, other, *, rounding_mode=None", tensor_args=("input", "other"),
    promote="common", inplace=True, aliases=("divide",), scalars=("other",),
    zero_dim_scalars=True,
    check=_div_check, dunders=("__truediv__", "__rtruediv__", "__itruediv__"),
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

binary("true_divide", lambda a, b: a / b, promote="float",
       samples=lambda: _binary_samples(nonzero_other=True))
binary("floor_divide", lambda a, b: _div(a, b, "floor"),
       dunders=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
       check=checks(reject_common(("bool", "complex"), "div_floor_cpu"), _check_int_zero_div),
       differentiable=False, samples=lambda: _binary_samples(nonzero_other=True))


def _remainder(a, b):
    if jnp.issubdtype(jnp.result_type(a), jnp.integer):
        return jnp.remainder(a, b)
    mod = jnp.fmod(a, b)
    return jnp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


binary("remainder", _remainder, dunders=("__mod__", "__rmod__", "__imod__"),
       check=checks(reject_common(("bool", "complex"), "remainder_cpu"), _check_int_zero_div),
       samples=lambda: _binary_samples(nonzero_other=True) + [
           S(np.array([-3., -2, -1, 1, 2, 3], np.float32), 2),
           S(np.array([-3, -2, -1, 1, 2, 3]), -2, grad=False)])
binary("fmod", jnp.fmod,
       check=checks(reject_common(("bool", "complex"), "fmod_cpu"), _check_int_zero_div),
       tensor_only="first",
       samples=lambda: _binary_samples(nonzero_other=True) + [
           S(np.array([-3., -2, -1, 1, 2, 3], np.float32), 2),
           S(np.array([-3, -2, -1, 1, 2, 3]), -2, grad=False)])


def _pow(input, exponent):
    number = type(exponent) is Scalar   # Note [Scalar overloads] in spec.py
    if number:
        exponent = exponent.value
    if jnp.result_type(input) == jnp.bool_ and jnp.result_type(exponent) == jnp.bool_:
        return input | ~jnp.asarray(exponent)  # x ** True is x, x ** False is True
    if jnp.issubdtype(jnp.result_type(input), jnp.integer) and \
            jnp.issubdtype(jnp.result_type(exponent), jnp.integer):
        if isinstance(exponent, int):
            return jax.lax.integer_pow(input, exponent)
        p = jnp.power(input, jnp.maximum(exponent, 0))
        # negative exponents: 1 for base 1, +-1 for base -1, else 0 (integer division)
        neg = jnp.where(input == 1, 1, jnp.where(input == -1, jnp.where(exponent % 2 == 0, 1, -1),
                                                 0)).astype(p.dtype)
        return jnp.where(exponent < 0, neg, p)
    if _real_floats(input, exponent):
        return _pow_real(input, exponent, number)
    if number:
        return _pow_scalar(input, exponent)
    return jnp.power(input, exponent)


# Note [pow by a number]
# PyTorch's ``pow(Tensor, Scalar)`` does not always call ``pow``: an exponent of 0 fills
# ones and 1 copies (``pow_Tensor_Scalar_out``); on float, double, bfloat16 and complex
# tensors 0.5, -0.5 and -1 run ``sqrt``, ``rsqrt`` and ``reciprocal``; and 2, 3 and -2
# run ``x * x``, ``x * x * x`` and ``1 / (x * x)`` (``pow_tensor_scalar_optimized_kernel``;
# half tensors call ``pow`` for these). The results differ from ``pow``'s in the last bit
# for about a quarter of the elements (``x ** 3``), and at the special points:
# ``(-0.0) ** 0.5`` is -0.0 and ``(-inf) ** 0.5`` is NaN. The derivative ``e * x ** (e -
# 1)`` takes the same path, so ``x ** 0.5``'s gradient is ``0.5 * rsqrt(x)``. The
# exponent is known when it is a concrete array; otherwise (the device scalar of an eager
# call) every branch is computed and its value selects one.
_POW_SPECIAL = (0.0, 1.0, 0.5, -0.5, -1.0, 2.0, 3.0, -2.0)


def _pow_branches(dtype) -> list:
    """The computations of ``x ** e`` for ``_POW_SPECIAL``'s exponents in ``dtype``,
    then the general one (a function of ``x`` and ``e``)."""
    one = lambda x: jnp.ones((), x.dtype)   # noqa: E731
    fill = [lambda x, e: jnp.broadcast_to(one(x), x.shape), lambda x, e: x]
    if dtype == jnp.float16:
        return fill + [lambda x, e: jnp.power(x, e)] * 6 + [lambda x, e: jnp.power(x, e)]
    return fill + [lambda x, e: jnp.sqrt(x), lambda x, e: jax.lax.rsqrt(x),
                   lambda x, e: one(x) / x, lambda x, e: x * x, lambda x, e: x * x * x,
                   lambda x, e: one(x) / (x * x), lambda x, e: jnp.power(x, e)]


def _pow_scalar(x, e):
    """``x ** e`` for a Python-number exponent ``e`` (an array of ``x``'s dtype), as
    PyTorch's ``pow(Tensor, Scalar)`` computes it (Note [pow by a number])."""
    e = jnp.asarray(e, x.dtype)
    branches = _pow_branches(x.dtype)
    if not isinstance(e, jax.core.Tracer):
        v = complex(e) if jnp.iscomplexobj(e) else float(e)
        k = _POW_SPECIAL.index(v) if v in _POW_SPECIAL else len(_POW_SPECIAL)
        return branches[k](x, e)
    # one elementwise select over every branch: a ``lax.switch`` would run only one, but
    # compiled five times slower (0.23 s against 0.045 s per new shape on CPU), which
    # every eager ``x ** 2`` of a new shape pays; where the exponent is a constant of a
    # compiled program, XLA drops the branches not taken
    out = branches[-1](x, e)
    for v, branch in zip(reversed(_POW_SPECIAL), reversed(branches[:-1])):
        out = jnp.where(e == v, branch(x, e), out)
    return out


def _real_floats(*vals) -> bool:
    """All operands real floating arrays: the ops below take PyTorch's derivative
    formulas (Note [Gradients at special points] in elementwise.py) only then."""
    return all(jnp.issubdtype(jnp.result_type(v), jnp.floating) for v in vals)


def _zero_like(*vals):
    return jnp.zeros((), jnp.result_type(*vals))


def _select(c, a, b):
    """``jnp.where(c, a, b)`` as one ``select`` also for empty arrays, whose ``where``
    returns ``a`` outright and so would hide the dependence on ``b`` from the analysis
    of which double-backward results require grad (autograd/graph.py)."""
    dt = jnp.result_type(a, b)
    shape = jnp.broadcast_shapes(jnp.shape(c), jnp.shape(a), jnp.shape(b))
    return jax.lax.select(jnp.broadcast_to(c, shape), jnp.broadcast_to(jnp.asarray(a, dt), shape),
                          jnp.broadcast_to(jnp.asarray(b, dt), shape))


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _pow_real(x, e, number=False):
    """``x ** e`` on real floats with PyTorch's derivative formulas; ``number``: ``e``
    was a Python number (Note [pow by a number])."""
    return _pow_scalar(x, e) if number else jnp.power(x, e)


def _pow_real_jvp(number, primals, tangents):
    # pow_backward_self: 0 where exponent == 0, else exponent * self ** (exponent - 1);
    # pow_backward_exponent: 0 where exponent >= 0 and self == 0, else result * log(self)
    # An input without a tangent (a constant exponent in forward mode: ``func.jvp``,
    # ``jacfwd``) contributes no term, as in PyTorch's forward AD; a zero tangent times
    # ``log`` of a negative base would otherwise make every tangent there NaN.
    (x, e), (tx, te) = primals, tangents
    out = _pow_real(x, e, number)
    zero = _zero_like(x, e)
    tangent = None
    if type(tx) is not SymbolicZero:
        # (exponent 1 in the branch not taken, so that the second derivative at x == 0
        # is 0 rather than 0 * inf: PyTorch's for a Python-number exponent, whose
        # derivative formula for exponent 0 has no graph; for a tensor exponent PyTorch
        # gives NaN)
        e1 = _select(e == 0, jnp.ones((), zero.dtype), e)
        tangent = tx * _select(e == 0, zero, e1 * _pow_real(x, e1 - 1, number))
    if type(te) is not SymbolicZero:
        de = te * _select((e >= 0) & (x == 0), zero, out * jnp.log(x))
        tangent = de if tangent is None else tangent + de
    if tangent is None:
        return out, jnp.zeros_like(out)
    return out, jnp.broadcast_to(tangent, jnp.shape(out)).astype(out.dtype)


_pow_real.defjvp(_pow_real_jvp, symbolic_zeros=True)


def _check_pow(input, exponent):
    check_broadcast(input, exponent)
    if _is_bool(input) and isinstance(exponent, Tensor) and exponent.dtype is _dt.bool:
        raise _not_impl("pow", _dt.bool)
    # only a negative Python-int exponent is refused; negative tensor exponents give
    # 0 (or +-1 for bases +-1), as in PyTorch
    if isinstance(input, Tensor) and not _float_result(input, exponent) and \
            isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _pow_grad_name(input, exponent):
    if not isinstance(input, Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(exponent, Tensor) else "PowBackward0"


register(OpSpec(
    "pow", _pow, "input, exponent", tensor_args=("input", "exponent"), inplace=True,
    scalars=("exponent",),
    dunders=("__pow__", "__rpow__", "__ipow__"), check=_check_pow, grad_name=_pow_grad_name,
    samples=lambda: [
        S(arr(3, 4, positive=True), 2), S(arr(3, 4, positive=True), 0.5),
        S(arr(3, 4, positive=True), arr(3, 4)), S(arr(3, positive=True), arr(2, 1)),
        S(arr(4, dtype="int64", low=0, high=2), 3, grad=False),
        S(2.0, arr(3)), S(arr(), 3), S(arr(2, 3, dtype="float64", positive=True), -1.5)]))


def _float_power(input, exponent):
    # pow(Tensor, Scalar) on the double tensor for a number (Note [pow by a number]),
    # with pow's derivative formulas (Note [Gradients at special points] in elementwise.py)
    number = type(exponent) is Scalar
    if number:
        exponent = exponent.value
    if _real_floats(input, exponent):
        return _pow_real(input, exponent, number)
    if number:
        return _pow_scalar(input, exponent)
    return jnp.power(input, exponent)


def _float_power_dtype(target, vals):
    return _dt.complex128 if target.is_complex else _dt.float64


register(OpSpec(
    "float_power", _float_power, "input, exponent", tensor_args=("input", "exponent"),
    scalars=("exponent",),
    promote="common", inplace=False, check=lambda a, b: check_broadcast(a, b),
    extra={"adjust_dtype": _float_power_dtype},
    samples=lambda: [S(arr(3, positive=True), 2), S(arr(3, positive=True), arr(3)),
                     S(arr(3, dtype="int64", low=1), 2, grad=False),
                     S(2, arr(3)), S(arr(3, dtype="float64", positive=True), 0.5)]))


def _float_power_(self: Tensor, exponent) -> Tensor:
    """Mirrors ``Tensor.float_power_``: the base must already have the double-precision
    dtype the operation produces (float64, or complex128 for complex operands)."""
    from .bind import check_inplace_target, inplace_apply
    from .spec import OPS
    cplx = self.dtype.is_complex or (isinstance(exponent, Tensor) and
                                     exponent.dtype.is_complex) or isinstance(exponent, complex)
    need = _dt.complex128 if cplx else _dt.float64
    if self.dtype is not need:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{_dtype_title(self.dtype)} but the operation's result requires "
                           f"dtype {_dtype_title(need)}")
    check_inplace_target(self)
    return inplace_apply(self, OPS["float_power"].api(self, exponent), "float_power_")


Tensor.float_power_ = _float_power_


def _float_only_samples():
    return _binary_samples(ints=False) + [
        S(arr(4, dtype="int64"), arr(4, dtype="int32"), grad=False),
        S(arr(4, dtype="int64"), arr(4), grad=False), S(arr(3), -1.5)]


@jax.custom_jvp
def _atan2(y, x):
    return jnp.arctan2(y, x)


@_atan2.defjvp
def _atan2_jvp(primals, tangents):
    # atan2_backward: grad * other / (self^2 + other^2) and grad * -self / (...), with
    # 0 where self^2 + other^2 is 0 (jax's rule gives NaN at (0, 0))
    (y, x), (ty, tx) = primals, tangents
    den = y * y + x * x
    recip = _select(den == 0, _zero_like(y, x), 1 / den)
    return _atan2(y, x), ty * (x * recip) + tx * (-y * recip)


@jax.custom_jvp
def _hypot(x, y):
    return jnp.hypot(x, y)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # hypot: grad * self / result, grad * other / result (NaN at (0, 0))
    (x, y), (tx, ty) = primals, tangents
    out = _hypot(x, y)
    return out, tx * (x / out) + ty * (y / out)


binary("atan2", _atan2, promote="float", aliases=("arctan2",), tensor_only=True,
       check=reject("complex", "atan2_cpu"),
       samples=lambda: _binary_samples(scalars=False))
binary("hypot", _hypot, promote="float", tensor_only=True,
       check=reject(("complex", "int", "bool"), "hypot_cpu", args=(0, 1)),
       samples=lambda: _binary_samples(ints=False, scalars=False))


@jax.custom_jvp
def _logaddexp_real(a, b):
    return jnp.logaddexp(a, b)


@_logaddexp_real.defjvp
def _logaddexp_real_jvp(primals, tangents):
    # logaddexp: grad / (1 + exp(other - self)) and grad / (1 + exp(self - other)): NaN
    # where both are +inf or both -inf
    (a, b), (ta, tb) = primals, tangents
    return (_logaddexp_real(a, b),
            ta * (1 / (1 + jnp.exp(b - a))) + tb * (1 / (1 + jnp.exp(a - b))))


def _logaddexp(a, b):
    return _logaddexp_real(a, b) if _real_floats(a, b) else jnp.logaddexp(a, b)


@jax.custom_jvp
def _logaddexp2(a, b):
    return jnp.logaddexp2(a, b)


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    # logaddexp2: grad / (1 + 2 ** (other - self)) and grad / (1 + 2 ** (self - other))
    (a, b), (ta, tb) = primals, tangents
    return (_logaddexp2(a, b),
            ta * (1 / (1 + jnp.exp2(b - a))) + tb * (1 / (1 + jnp.exp2(a - b))))


binary("logaddexp", _logaddexp, promote="float", inplace=False, tensor_only=True,
       check=reject(("int", "bool"), "logaddexp_cpu", args=(0, 1)),
       samples=lambda: _binary_samples(ints=False, scalars=False))
binary("logaddexp2", _logaddexp2, promote="float", inplace=False, tensor_only=True,
       check=reject(("int", "bool", "complex"), "logaddexp2_cpu", args=(0, 1)),
       samples=lambda: _binary_samples(ints=False, scalars=False))


def _no_complex_minmax(name):
    return reject("complex", msg=f"{name} not implemented for complex tensors.",
                  exc=RuntimeError, args=(0, 1))


def _minmax_samples():
    return _binary_samples(scalars=False) + [
        # (with NaNs PyTorch's gradient goes to both operands: compare values only)
        S(np.array([1.0, np.nan, 2.0], np.float32), np.array([np.nan, 0.0, 3.0], np.float32),
          grad=False),
        S(arr(3, dtype="bool"), arr(3, dtype="bool"), grad=False)]


def _maximum_jvp(primals, tangents, fn, pick_a):
    # maximum/minimum: half to each at a tie, all to the larger (smaller); where either
    # is NaN (neither comparison holds) the whole gradient goes to both
    (a, b), (ta, tb) = primals, tangents
    t = _select(a == b, (ta + tb) / 2,
                _select(pick_a(a, b), ta, _select(pick_a(b, a), tb, ta + tb)))
    return fn(a, b), t


def _with_real_rule(f, jvp, pick):
    """``f`` (a jnp binary function) with PyTorch's gradient ``jvp(primals, tangents,
    fn, pick)`` for real floating inputs, ``f`` itself otherwise."""
    @jax.custom_jvp
    def real(a, b):
        return f(a, b)
    real.defjvp(lambda p, t: jvp(p, t, real, pick))

    def fn(a, b):
        return real(a, b) if _real_floats(a, b) else f(a, b)
    return fn


def _fmax_jvp(primals, tangents, fn, keep_a):
    # fmax: self gets the gradient where self >= other or other is NaN (ties included),
    # other elsewhere; fmin the same with <=
    (a, b), (ta, tb) = primals, tangents
    return fn(a, b), _select(keep_a(a, b) | jnp.isnan(b), ta, tb)


_maximum = _with_real_rule(jnp.maximum, _maximum_jvp, jnp.greater)
_minimum = _with_real_rule(jnp.minimum, _maximum_jvp, jnp.less)
_fmax = _with_real_rule(jnp.fmax, _fmax_jvp, jnp.greater_equal)
_fmin = _with_real_rule(jnp.fmin, _fmax_jvp, jnp.less_equal)


@jax.custom_jvp
def _copysign(a, b):
    return jnp.copysign(a, b)


@_copysign.defjvp
def _copysign_jvp(primals, tangents):
    # copysign_tensor_self_backward: grad * result / self, 0 where self == 0; other: 0
    (a, b), (ta, _) = primals, tangents
    out = _copysign(a, b)
    ratio = _select(a == 0, _zero_like(a, b), out / a)
    return out, ta * ratio


binary("maximum", _maximum, inplace=False, tensor_only=True,
       check=_no_complex_minmax("maximum"), samples=_minmax_samples)
binary("minimum", _minimum, inplace=False, tensor_only=True,
       check=_no_complex_minmax("minimum"), samples=_minmax_samples)
binary("fmax", _fmax, inplace=False, tensor_only=True,
       check=_no_complex_minmax("fmax"), samples=_minmax_samples)
binary("fmin", _fmin, inplace=False, tensor_only=True,
       check=_no_complex_minmax("fmin"), samples=_minmax_samples)
binary("copysign", _copysign, promote="float", tensor_only="first",
       check=reject("complex", "copysign_cpu", args=(0, 1)),
       samples=lambda: _binary_samples())


@jax.custom_jvp
def _xlogy(a, b):
    # PyTorch: 0 * log(y) is 0 unless y is NaN
    return _select(jnp.isnan(b), b, jsp.xlogy(a, b))


@_xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    # xlogy: self: xlogy(grad, other) masked to 0 where self == 0 and other <= 0;
    # other: grad * self / other
    (a, b), (ta, tb) = primals, tangents
    da = _select((a == 0) & (b <= 0), _zero_like(a, b), jnp.log(b))
    return _xlogy(a, b), ta * da + tb * (a / b)


binary("xlogy", _xlogy, promote="float",
       check=reject("complex", "xlogy_cpu", args=(0, 1)),
       samples=lambda: _binary_samples(nonzero_other=True) + [
           S(np.array([0.0, 0.0, 1.0], np.float32), np.array([0.0, np.nan, 2.0], np.float32),
             grad=False),
           S(2.0, arr(3, positive=True))])
binary("nextafter", jnp.nextafter, differentiable=False, tensor_only=True,
       check=reject(("int", "bool", "complex"), "nextafter_cpu", args=(0, 1)),
       samples=lambda: [S(arr(3), arr(3), grad=False), S(arr(3, dtype="float64"),
                                                         arr(3, dtype="float64"), grad=False)])


def _heaviside_check(input, values):
    if isinstance(input, Tensor) and isinstance(values, Tensor):
        if input.dtype is not values.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different "
                               "dtypes")
        if input.dtype.is_complex:
            raise RuntimeError("heaviside is not yet implemented for complex tensors.")


binary("heaviside", lambda a, b: jnp.where(a == 0, b, (a > 0).astype(a.dtype)),
       sig="input, values", differentiable=False, tensor_only=True, check=_heaviside_check,
       samples=lambda: [
           S(np.array([-1.5, 0, 2.0], np.float32), np.array([0.5, 0.5, 0.5], np.float32),
             grad=False),
           S(np.array([-1, 0, 2]), np.array([5, 5, 5]), grad=False),
           S(np.array([-1.5, 0, 2.0], np.float32), np.array([1, 2, 3]), grad=False)])


def lerp_kernel(input, end, weight):
    """PyTorch's lerp formula, exact at both ends: ``input + weight * (end - input)``
    while ``|weight| < 0.5``, else ``end - (end - input) * (1 - weight)`` (also what its
    optimizers' ``lerp_`` and ``quantile``'s interpolation compute)."""
    return jnp.where(jnp.abs(weight) < 0.5, input + weight * (end - input),
                     end - (end - input) * (1 - weight))


def _lerp_check(input, end, weight):
    # PyTorch's lerp does not promote: ``end`` and a weight tensor with dimensions must
    # have the input's dtype, which must be floating or complex
    for name, v in (("end", end), ("weight", weight)):
        if isinstance(v, Tensor) and v.dtype is not input.dtype and (name == "end" or v._shape):
            raise RuntimeError(f"expected dtype {_dt.cpp_name(input.dtype)} for `{name}` but "
                               f"got dtype {_dt.cpp_name(v.dtype)}")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise _not_impl(f"lerp_kernel_{kind}", input.dtype)
    check_broadcast(input, end, weight)


register(OpSpec(
    "lerp", lerp_kernel, "input, end, weight", tensor_args=("input", "end", "weight"),
    inplace=True, check=_lerp_check,
    samples=lambda: [S(arr(3, 4), arr(3, 4), 0.3), S(arr(3, 4), arr(3, 4), arr(3, 4)),
                     S(arr(3, 4), arr(4), arr(3, 1)),
                     S(arr(2, 3, dtype="float64"), arr(2, 3, dtype="float64"), 2),
                     S(arr(3), arr(3), np.array(0.25, np.float64)),
                     S(arr(3, dtype="int64"), arr(3, dtype="int64"), 0.5, grad=False),
                     S(arr(3), arr(3, dtype="int64"), 0.5, grad=False),
                     S(arr(3), arr(3), arr(3, dtype="float64"), grad=False),
                     S(arr(3, dtype="int64"), arr(3, dtype="int64"), arr(3), grad=False)]))


def _addcmul(input, tensor1, tensor2, value=1):
    return input + _scaled(tensor1 * tensor2, value)


def _addcdiv(input, tensor1, tensor2, value=1):
    return input + _scaled(tensor1 / tensor2, value)


register(OpSpec(
    "addcmul", _addcmul, "input, tensor1, tensor2, *, value=1",
    tensor_args=("input", "tensor1", "tensor2", "value"),
    promote_args=("input", "tensor1", "tensor2"), inplace=True,
    check=lambda a, b, c, value=1: check_broadcast(a, b, c),
    samples=lambda: [S(arr(3, 4), arr(3, 4), arr(3, 4), value=0.5),
                     S(arr(3, 1), arr(1, 4), arr(3, 4))]))
_ADDCDIV_INTEGER = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _integral(t) -> bool:
    return isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex)


def _addcdiv_check(input, tensor1, tensor2, value=1):
    # PyTorch refuses two integral (or bool) divisors whatever ``input``'s dtype
    if _integral(tensor1) and _integral(tensor2):
        raise RuntimeError(_ADDCDIV_INTEGER)
    check_broadcast(input, tensor1, tensor2)


register(OpSpec(
    "addcdiv", _addcdiv, "input, tensor1, tensor2, *, value=1",
    tensor_args=("input", "tensor1", "tensor2", "value"),
    promote_args=("input", "tensor1", "tensor2"), inplace=True, check=_addcdiv_check,
    samples=lambda: [S(arr(3, 4), arr(3, 4), arr(3, 4, positive=True), value=0.5)]))


# ---------------------------------------------------------------------------
# integer and floating-point decomposition
def _gcd(a, b):
    return jnp.gcd(a, b)


binary("gcd", _gcd, differentiable=False, tensor_only=True,
       check=reject_common(("bool", "float", "complex"), "gcd_cpu"),
       samples=lambda: [S(np.array([4, -6, 0, 9]), np.array([6, 4, 5, 0]), grad=False),
                        S(arr(3, 4, dtype="int32"), arr(4, dtype="int64"), grad=False),
                        S(arr(3), arr(3), grad=False)])
binary("lcm", jnp.lcm, differentiable=False, tensor_only=True,
       check=reject_common(("bool", "float", "complex"), "lcm_cpu"),
       samples=lambda: [S(np.array([4, -6, 0, 9]), np.array([6, 4, 5, 3]), grad=False),
                        S(arr(3, 4, dtype="int32"), arr(4, dtype="int16"), grad=False)])


def _ldexp(input, other):
    return input * jnp.exp2(other)


# Difference: PyTorch's gradient w.r.t. ``input`` computes 2**other in integers, so it is 0
# for negative integer exponents; torchlike gives the true 2**other.
binary("ldexp", _ldexp, promote="float", tensor_only=True,
       samples=lambda: [S(arr(3, 4), np.array([1, 2, 3, 0])),
                        S(arr(3), np.array([-1, 2, -3]), grad=False),
                        S(np.array([1, 2, 3]), np.array([2, 3, 4]), grad=False),
                        S(arr(3, dtype="float64"), arr(3)),
                        S(arr(3), np.array([1, 2, 3]))])


def _frexp(input):
    mantissa, exponent = jnp.frexp(jax.lax.stop_gradient(input))
    # the mantissa as a differentiable function of the input: x / 2**exponent
    return input * jnp.exp2(-exponent).astype(input.dtype), exponent.astype(jnp.int32)


def _frexp_check(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")


register(OpSpec("frexp", _frexp, "input", promote="none", out_names=("mantissa", "exponent"),
                nondiff_outputs=(1,), check=_frexp_check, grad_name="FrexpBackward0",
                samples=lambda: [S(arr(3, 4)), S(np.array([0.0, -8.0, 0.1], np.float64)),
                                 S(np.array([1, 2]), grad=False)]))
