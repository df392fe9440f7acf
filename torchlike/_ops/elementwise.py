"""Elementwise math: unary functions (neg, abs, exp, log, trigonometric and
hyperbolic functions, erf, lgamma, digamma, rounding, sign...), clamp and relu, the gamma
family (polygamma, mvlgamma, igamma), complex parts (angle, conj, real, imag), and
whole-tensor predicates returning Python values (``equal``, ``allclose``...). Each op is
declared once; see spec.py. The functions PyTorch has only in ``torch.special`` are in
special_functions.py.

Arithmetic is in arithmetic.py, comparisons, logical and bitwise ops and ``where`` in
comparison.py; the declaration helpers they share are in elementwise_common.py."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import check_broadcast
from .arithmetic import _select
from .bind import FUNCTIONS
from .elementwise_common import (_dtype_title, _not_impl, _unary_samples, binary,
                                 checks, half_in_float32, reject, reject_common, tensors_only,
                                 unary)
from .samples import S, arr, with_atol
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# unary math
def _neg_check(input):
    if isinstance(input, Tensor) and input.dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _bool_ok(fn):
    """``fn`` applied to numbers; bool tensors pass through unchanged (sign, sgn)."""
    return lambda x: x if x.dtype == jnp.bool_ else fn(x)


unary("neg", jnp.negative, promote="common", dunders=("__neg__",), check=_neg_check,
      aliases=("negative",), saves=False)
unary("positive", lambda x: x, promote="common", inplace=False, saves=False,
      dunders=("__pos__",),
      check=reject("bool", msg="The `+` operator, on a bool tensor is not supported.",
                   exc=RuntimeError))
# ---------------------------------------------------------------------------
# Note [Gradients at special points]
# Where PyTorch's derivative formula (derivatives.yaml) picks a value at a point the
# mathematical derivative leaves open (abs at 0, x ** 0 at 0, atan2(0, 0), a clamped
# log...), or where jax's own rule gives a different NaN/inf, the op's pure function is
# a ``jax.custom_jvp`` whose primal is the unchanged jnp expression (forward values are
# bit for bit the same) and whose tangent is PyTorch's formula written with jnp ops, so
# autograd's ``jax.vjp`` and double backward (which differentiates the rule itself) see
# PyTorch's values. Only real floating inputs take the custom rule.
def _real_float(x) -> bool:
    return jnp.issubdtype(jnp.result_type(x), jnp.floating)


def _sgn_real(x):
    # PyTorch's sgn for real x: 0 at +-0 and NaN, else +-1
    one = jnp.ones((), jnp.result_type(x))
    return jnp.where(x > 0, one, jnp.where(x < 0, -one, jnp.zeros((), one.dtype)))


@jax.custom_jvp
def _abs_real(x):
    return jnp.abs(x)


@_abs_real.defjvp
def _abs_real_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _abs_real(x), t * _sgn_real(x)   # abs: grad * self.sgn()


def _inv_nonzero(a):
    """``1 / a``, 0 where ``a == 0``: a derivative formula's ``masked_fill_(a == 0, 0)``
    on the primal side, so a tangent scaled by it stays finite while the mask's own
    derivative at 0 is NaN, as PyTorch's double backward of the formula."""
    return jnp.where(a == 0, jnp.zeros((), a.dtype), 1 / a)


@jax.custom_jvp
def _sgn_complex(z):
    return jnp.sign(z)


@_sgn_complex.defjvp
def _sgn_complex_jvp(primals, tangents):
    # sgn_backward: (dz - sgn * Re(conj(sgn) dz)) / |z|, 0 at 0 (jax's sign has no
    # derivative at all, which left complex sgn with a zero gradient)
    (z,), (t,) = primals, tangents
    s = _sgn_complex(z)
    return s, (t - s * jnp.real(jnp.conj(s) * t)) * _inv_nonzero(jnp.abs(z)).astype(z.dtype)


@jax.custom_jvp
def _abs_complex(z):
    return jnp.abs(z)


@_abs_complex.defjvp
def _abs_complex_jvp(primals, tangents):
    # abs: grad * self.sgn(); through sgn's rule its own derivative is 0 at 0
    (z,), (t,) = primals, tangents
    return _abs_complex(z), jnp.real(jnp.conj(_sgn_complex(z)) * t)


def _abs(x):
    """``jnp.abs`` with PyTorch's gradient ``grad * sgn(x)`` (0 at 0), first and second
    order, for real and complex floats."""
    if _real_float(x):
        return _abs_real(x)
    return _abs_complex(x) if jnp.iscomplexobj(x) else jnp.abs(x)


def _sgn(x):
    """PyTorch's sgn: ``_sgn_real`` for real numbers; ``z / |z|`` (0 at 0) with
    PyTorch's gradient for complex ones."""
    return _sgn_complex(x) if jnp.iscomplexobj(x) else _sgn_real(x)


unary("abs", _abs, promote="common", aliases=("absolute",), dunders=("__abs__",),
      check=reject("bool", "abs_cpu"))


@jax.custom_jvp
def _rsqrt_real(x):
    return jax.lax.rsqrt(x)


@_rsqrt_real.defjvp
def _rsqrt_real_jvp(primals, tangents):
    # rsqrt: -0.5 * grad * result ** 3 (+inf at -0, where jax's rule gives -inf)
    (x,), (t,) = primals, tangents
    out = _rsqrt_real(x)
    return out, t * (-0.5 * (out * out * out))


def _rsqrt(x):
    return _rsqrt_real(x) if _real_float(x) else jax.lax.rsqrt(x)


@jax.custom_jvp
def _atanh_real(x):
    return jnp.arctanh(x)


@_atanh_real.defjvp
def _atanh_real_jvp(primals, tangents):
    # atanh: grad * 1 / (1 - self ** 2); its own derivative is +-inf at +-1, not NaN
    (x,), (t,) = primals, tangents
    return _atanh_real(x), t * (1 / (1 - x * x))


def _atanh(x):
    return _atanh_real(x) if _real_float(x) else jnp.arctanh(x)


@jax.custom_jvp
def _lgamma(x):
    return jsp.gammaln(x)


@_lgamma.defjvp
def _lgamma_jvp(primals, tangents):
    # lgamma: grad * digamma(self), with PyTorch's digamma(0) = -inf
    (x,), (t,) = primals, tangents
    return _lgamma(x), t * _digamma(x)


@jax.custom_jvp
def _i0(x):
    return jnp.i0(x)


@_i0.defjvp
def _i0_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _i0(x), t * _i1(x)   # i0: grad * special_i1(self)


@jax.custom_jvp
def _i1(x):
    return jsp.i1(x)


@_i1.defjvp
def _i1_jvp(primals, tangents):
    # PyTorch's i1_backward: i0(x) - i1(x) / x, and 0.5 where |x| <= eps
    (x,), (t,) = primals, tangents
    out = _i1(x)
    eps = jnp.finfo(x.dtype).eps
    big = jnp.abs(x) > eps
    safe = _select(big, x, jnp.full((), eps, x.dtype))
    d = _select(big, _i0(safe) - out * (1 / safe), jnp.full((), 0.5, x.dtype))
    return out, t * d


@jax.custom_jvp
def _sinc(x):
    return jnp.sinc(x)


@_sinc.defjvp
def _sinc_jvp(primals, tangents):
    # sinc: grad * ((pi x cos(pi x) - sin(pi x)) / (pi x^2)).masked_fill_(x == 0, 0); as
    # in PyTorch, the formula's own derivative at 0 is NaN
    (x,), (t,) = primals, tangents
    px = jnp.pi * x
    d = (px * jnp.cos(px) - jnp.sin(px)) / (px * x)
    return _sinc(x), t * jnp.where(x == 0, jnp.zeros((), d.dtype), d)


def _result_backward(f, backward):
    """``f`` on real floats with the derivative of PyTorch's backward kernels that take
    the result (``tanh_backward``, ``sigmoid_backward``): ``backward(grad, result)``,
    computed in float32 for half tensors and rounded once (Note [Half precision math] in
    elementwise_common.py)."""
    in_float32 = half_in_float32(f, grad=True)   # (its derivative is replaced below)

    @jax.custom_jvp
    def real(x):
        return in_float32(x)

    @real.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = real(x)
        if x.dtype in (jnp.float16, jnp.bfloat16):
            y32 = y.astype(jnp.float32)
            return y, backward(t.astype(jnp.float32), y32).astype(x.dtype)
        return y, backward(t, y)

    return lambda x: real(x) if _real_float(x) else f(x)


# the kernels' ``a * (1 - b * b)`` and ``a * (1 - b) * b``. (PyTorch's float16
# ``sigmoid_backward`` rounds after each operation, in ``c10::Half`` arithmetic; under
# reverse mode JAX applies a tangent's factors in the opposite order, so that rounding
# cannot be followed, and float16 keeps the one rounding of bfloat16's kernel.)
_tanh = _result_backward(jnp.tanh, lambda g, y: g * (1 - y * y))
_sigmoid = _result_backward(jax.nn.sigmoid, lambda g, y: g * (1 - y) * y)

_NO_COMPLEX_VML = ("erf", "erfc", "erfinv", "lgamma", "i0")
for _n, _f, _d in (("exp", jnp.exp, "real"), ("exp2", jnp.exp2, "real"),
                   ("expm1", jnp.expm1, "real"), ("log", jnp.log, "positive"),
                   ("log2", jnp.log2, "positive"), ("log10", jnp.log10, "positive"),
                   ("log1p", jnp.log1p, "positive"), ("sqrt", jnp.sqrt, "positive"),
                   ("rsqrt", _rsqrt, "positive"), ("sin", jnp.sin, "real"),
                   ("cos", jnp.cos, "real"), ("tan", jnp.tan, "unit"),
                   ("asin", jnp.arcsin, "unit"), ("acos", jnp.arccos, "unit"),
                   ("atan", jnp.arctan, "real"), ("sinh", jnp.sinh, "real"),
                   ("cosh", jnp.cosh, "real"), ("tanh", _tanh, "real"),
                   ("asinh", jnp.arcsinh, "real"), ("acosh", jnp.arccosh, "ge1"),
                   ("atanh", _atanh, "unit"), ("sigmoid", _sigmoid, "real"),
                   ("erf", jsp.erf, "real"), ("erfc", jsp.erfc, "real"),
                   ("erfinv", jsp.erfinv, "unit"), ("lgamma", _lgamma, "positive"),
                   ("reciprocal", jnp.reciprocal, "positive"),
                   ("sinc", _sinc, "real"), ("i0", _i0, "real")):
    _aliases = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",),
                "asinh": ("arcsinh",), "acosh": ("arccosh",), "atanh": ("arctanh",)}.get(_n, ())
    unary(_n, _f, domain=_d, aliases=_aliases,
          check=reject("complex", f"{_n}_vml_cpu") if _n in _NO_COMPLEX_VML else None)



@jax.custom_jvp
def _digamma(x):
    # PyTorch: digamma(0) is -inf (copysign(inf, -x)); at negative integers NaN
    return _select(x == 0, jnp.copysign(jnp.inf, -x).astype(x.dtype), jsp.digamma(x))


@_digamma.defjvp
def _digamma_jvp(primals, tangents):
    # digamma: grad * polygamma(1, self) (inf at 0, where jax's rule gives NaN)
    (x,), (t,) = primals, tangents
    return _digamma(x), t * jsp.polygamma(1, x).astype(x.dtype)


unary("digamma", _digamma, domain="positive", check=reject("complex", "digamma"),
      samples=lambda: _unary_samples("positive") + [
          S(np.array([0.0, -0.0, -2.0, -1.5], np.float32), grad=False)])
for _n, _f in (("deg2rad", jnp.deg2rad), ("rad2deg", jnp.rad2deg)):
    unary(_n, _f, check=reject("complex", msg=f"{_n} is not supported for complex tensors.",
                               exc=RuntimeError))


def _logit(input, eps=None):
    return _logit_eps(input, eps) if _real_float(input) else _logit_fwd(input, eps)


def _logit_fwd(input, eps):
    x = input if eps is None else jnp.clip(input, eps, 1 - eps)
    return jnp.log(x / (1 - x))


@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _logit_eps(input, eps):
    return _logit_fwd(input, eps)


@_logit_eps.defjvp
def _logit_eps_jvp(eps, primals, tangents):
    # PyTorch's (infinitely differentiable) logit_backward: grad / (x (1 - x)) inside
    # [eps, 1 - eps] (the bounds included), else 0; without eps, NaN outside [0, 1]
    (x,), (t,) = primals, tangents
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    fill = jnp.full((), np.nan if eps is None else 0.0, x.dtype)
    d = _select((x >= lo) & (x <= hi), 1 / (x * (1 - x)), fill)
    return _logit_eps(x, eps), t * d


register(OpSpec("logit", _logit, "input, eps=None", promote="float", inplace=True,
                check=reject("complex", "logit_cpu"),
                samples=lambda: [S(arr(3, 4, low=0.05, high=0.95)),
                                 S(arr(5, low=0.0, high=1.0), eps=1e-3),
                                 S(np.array([0, 1]), grad=False)]))


def _square_dtype(target, vals):
    # square(x) is pow(x, 2): a bool tensor with the int 2 gives int64
    return _dt.int64 if target is _dt.bool else target


unary("square", jnp.square, promote="common", extra={"adjust_dtype": _square_dtype},
      samples=lambda: _unary_samples() + [S(arr(3, dtype="int32"), grad=False),
                                          S(arr(3, dtype="bool"), grad=False)])
unary("sign", _bool_ok(_sgn_real), promote="common", grad_name="SignBackward0",
      check=reject("complex", msg="Unlike NumPy, torch.sign is not intended to support "
                   "complex numbers. Please use torch.sgn instead."),
      samples=lambda: _unary_samples() + [S(np.array([True, False]), grad=False)])
unary("sgn", _bool_ok(_sgn), promote="common",
      # the gradient of sgn on real inputs is PyTorch's ZeroTensor: compare values only
      samples=lambda: [S(x.args[0], grad=False) for x in _unary_samples()] + [
          S(np.array([True, False]), grad=False),
          S(np.array([1 + 1j, 0j, -2j], np.complex64), grad=False)])
unary("signbit", jnp.signbit, promote="none", inplace=False, differentiable=False,
      check=reject("complex", msg="signbit is not implemented for complex tensors."),
      samples=lambda: [S(arr(3, 4), grad=False), S(np.array([-0.0, 0.0, 1.0], np.float32),
                                                   grad=False),
                       S(arr(3, dtype="int64"), grad=False)])
for _n, _f in (("floor", jnp.floor), ("ceil", jnp.ceil), ("trunc", jnp.trunc)):
    unary(_n, lambda x, _f=_f: x if jnp.issubdtype(x.dtype, jnp.integer) else _f(x),
          promote="common", aliases=("fix",) if _n == "trunc" else (),
          check=checks(reject("bool", f"{_n}_vml_cpu"),
                       reject("complex", msg=f"{_n} is not supported for complex inputs")))
unary("frac", lambda x: x - jnp.trunc(x), promote="common", ints=False,
      check=reject(("bool", "int", "complex"), "frac_cpu"))


def _round(input, decimals=0):
    if jnp.issubdtype(input.dtype, jnp.integer):
        return input
    if decimals == 0:
        return jnp.round(input)
    s = 10.0 ** decimals
    return jnp.round(input * s) / s


register(OpSpec("round", _round, "input, *, decimals=0", promote="common", inplace=True,
                check=checks(tensors_only("round", ("input",), (0,)),
                             reject(("bool", "complex"), "round_vml_cpu")),
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
    # ``where`` rather than maximum/minimum: at a bound the gradient flows to the input
    # (PyTorch's clamp_backward), not split half and half.
    if min is not None and max is not None:
        # PyTorch's clamp_backward_min_max: above max (or max < min) the gradient goes to
        # max, below min only while min < max to min, inside the bounds to the input, and
        # an input below min == max gives none of the three a gradient
        to_max = (input > max) | (max < min)
        to_min = (input < min) & (min < max)
        keep = (input >= min) & (input <= max)
        # the rest: a NaN input stays NaN, a NaN bound gives NaN, and an input below
        # min == max gives the bound
        rest = jnp.where(input != input, input, jnp.where(min != min, min, max))
        return jnp.where(to_max, max, jnp.where(to_min, min, jnp.where(
            keep, input, jax.lax.stop_gradient(rest)))).astype(input.dtype)
    # one bound: the gradient goes to the input where it is on the kept side of the bound
    # (``x >= min``, ``x <= max``), so a NaN input gets none, as in PyTorch; a NaN bound
    # gives NaN
    bound = min if min is not None else max
    inside = (input >= bound) if min is not None else (input <= bound)
    beyond = (input < bound) if min is not None else (input > bound)
    rest = jax.lax.stop_gradient(jnp.where(bound != bound, bound, input))
    return jnp.where(beyond, bound, jnp.where(inside, input, rest)).astype(input.dtype)


def _dim_bound(v) -> bool:
    return isinstance(v, Tensor) and bool(v._shape)


def _clamp_check(input, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if (min is not None and max is not None
            and _dim_bound(min) != _dim_bound(max)):
        # PyTorch's overloads take two tensor bounds or two numbers (a 0-d tensor passes
        # as a number), never a tensor with dimensions and a number
        got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__
                        for v in (input, min, max))
        raise TypeError(
            f"clamp() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n"
            " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    for v in (input, min, max):
        if (isinstance(v, Tensor) and v.dtype.is_complex) or isinstance(v, complex):
            raise NotImplementedError("clamp is not supported for complex types")
    check_broadcast(input, min, max)


def _clamp_samples():
    return [S(arr(3, 4), -0.5, 0.5), S(arr(3, 4), min=0.0), S(arr(3, 4), max=0.3),
            S(arr(3, 4), arr(3, 4), arr(3, 4) + 3), S(arr(6, dtype="int64"), -1, 2, grad=False),
            S(arr(3, 4), 0.5, -0.5), S(np.array([0.0, 1.0, 2.0], np.float32), 1.0, 1.0),
            S(arr(3, 4), arr(4), None), S(arr(6, dtype="int64"), 0.5, grad=False),
            S(arr(3, dtype="int64"), arr(3), arr(3) + 1, grad=False)]


register(OpSpec("clamp", _clamp, "input, min=None, max=None",
                tensor_args=("input", "min", "max"), inplace=True, aliases=("clip",),
                check=_clamp_check, samples=_clamp_samples))


def _clamp_min(input, min):
    return _clamp(input, min, None)


def _clamp_max(input, max):
    return _clamp(input, None, max)


register(OpSpec("clamp_min", _clamp_min, "input, min", tensor_args=("input", "min"),
                inplace=True, check=lambda a, b: _clamp_check(a, b, None),
                samples=lambda: [S(arr(3, 4), 0.0), S(arr(3, 4), arr(4))]))
register(OpSpec("clamp_max", _clamp_max, "input, max", tensor_args=("input", "max"),
                inplace=True, check=lambda a, b: _clamp_check(a, None, b),
                samples=lambda: [S(arr(3, 4), 0.0), S(arr(3, 4), arr(4))]))


def _relu(input):
    # PyTorch's: negatives give 0 while -0.0 and NaN stay what they are (clamp_min), and
    # the gradient is zero where the input is at most 0 (not at NaN), as
    # threshold_backward has it
    kept = jnp.where(input < 0, jnp.zeros((), input.dtype), input)
    return jnp.where(input <= 0, jax.lax.stop_gradient(kept), input)


def _relu_check(input):
    if isinstance(input, Tensor) and input.dtype is _dt.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    if isinstance(input, Tensor) and input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


unary("relu", _relu, promote="common", check=_relu_check, grad_name="ReluBackward0",
      samples=lambda: _unary_samples() + [S(np.array([-1.0, 0.0, 2.0], np.float32))])


# ---------------------------------------------------------------------------
# gamma family
def _polygamma(n, input):
    if n == 0:
        return _digamma(input)
    return jsp.polygamma(n, input).astype(input.dtype)


def _polygamma_check(n, input):
    if isinstance(n, Tensor) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if isinstance(input, Tensor) and input.dtype.is_complex:
        raise _not_impl("polygamma", input.dtype)


register(OpSpec("polygamma", _polygamma, "n, input", tensor_args=("input",), promote="float",
                method=False, check=_polygamma_check,
                samples=lambda: [S(1, arr(3, 4, positive=True)), S(0, arr(5, positive=True)),
                                 S(2, arr(3, dtype="float64", positive=True)),
                                 S(1, np.array([1, 2, 3]), grad=False),
                                 S(-1, arr(3, positive=True), grad=False)]))


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """Mirrors ``Tensor.polygamma(n)``: ``torchlike.polygamma(n, self)``."""
    from .spec import OPS
    return OPS["polygamma"].api(n, self)


def _polygamma_(self: Tensor, n: int) -> Tensor:
    """Mirrors ``Tensor.polygamma_(n)``."""
    from .bind import check_inplace_target, inplace_apply
    check_inplace_target(self)
    return inplace_apply(self, _polygamma_method(self, n), "polygamma_")


Tensor.polygamma = _polygamma_method
Tensor.polygamma_ = _polygamma_


def _mvlgamma(input, p):
    return jsp.multigammaln(input, p)


register(OpSpec("mvlgamma", _mvlgamma, "input, p", promote="float", inplace=True,
                check=reject("complex", "mvlgamma"),
                samples=lambda: [S(arr(3, 4, low=2.0, high=4.0), 2),
                                 S(arr(5, low=1.5, high=3.0, dtype="float64"), 3),
                                 S(np.array([3, 4]), 2, grad=False)]))


def _gammainc_samples():
    return [S(arr(3, 4, positive=True), arr(3, 4, positive=True), grad=False),
            S(arr(3, positive=True), np.array([1, 2, 3]), grad=False),
            S(np.array([1, 2]), np.array([1, 2]), grad=False)]


# PyTorch has no gradient w.r.t. the first argument of igamma: compare values only.
binary("igamma", jsp.gammainc, promote="common", tensor_only=True,
       check=reject_common(("bool", "int", "complex"), "igamma_cpu"),
       samples=_gammainc_samples)
binary("igammac", jsp.gammaincc, promote="common", tensor_only=True,
       check=reject_common(("bool", "int", "complex"), "igammac_cpu"),
       samples=_gammainc_samples)


# ---------------------------------------------------------------------------
# complex numbers
@jax.custom_jvp
def _angle_complex(z):
    return jnp.angle(z)


@_angle_complex.defjvp
def _angle_complex_jvp(primals, tangents):
    # angle_backward: 0 where z == 0, else Im(conj(z) dz) / |z|^2 (atan2's rule is NaN)
    (z,), (t,) = primals, tangents
    inv = _inv_nonzero(jnp.real(z) ** 2 + jnp.imag(z) ** 2)
    return _angle_complex(z), jnp.imag(jnp.conj(z) * t) * inv


def _angle(input):
    if jnp.iscomplexobj(input):
        return _angle_complex(input)
    # real inputs: pi for negative numbers, 0 otherwise, NaN propagated
    return jnp.where(jnp.isnan(input), input, jnp.where(input < 0, jnp.pi, 0.0)
                     ).astype(input.dtype)


unary("angle", _angle, promote="float", inplace=False,
      samples=lambda: [S(np.array([1.5, -2.0, 0.0], np.float32)),
                       S(np.array([1 + 2j, -3j, 0j], np.complex64), grad=False),
                       S(np.array([3, -4]), grad=False), S(np.array([True]), grad=False)])
unary("conj_physical", jnp.conj, promote="common", saves=False,
      samples=lambda: [S(arr(3)), S(np.array([1 + 2j, -3j], np.complex64), grad=False),
                       S(np.array([3, -4]), grad=False)])


def _is_complex_t(v) -> bool:
    return isinstance(v, Tensor) and v.dtype.is_complex


def _conj(input: Tensor) -> Tensor:
    """Mirrors ``torch.conj``: ``input`` itself for real tensors. Difference: for complex
    tensors the result is a new (physically conjugated) tensor, not a lazy view."""
    from .spec import OPS
    if not isinstance(input, Tensor):
        raise TypeError(f"conj(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_complex:
        return input
    return OPS["conj_physical"].api(input)


def _real_fn(input):
    return jnp.real(input)


def _imag_fn(input):
    return jnp.imag(input)


register(OpSpec("_real", _real_fn, "input", promote="none", method=False, function=False,
                grad_name="RealBackward0",
                saves=False, samples=lambda: []))
register(OpSpec("_imag", _imag_fn, "input", promote="none", method=False, function=False,
                grad_name="ImagBackward0",
                saves=False, samples=lambda: []))


def _real(input: Tensor) -> Tensor:
    """Mirrors ``torch.real``: ``input`` itself for real tensors. Difference: for complex
    tensors PyTorch returns a view sharing memory with ``input``; here it is a guarded
    copy whose in-place writes, and reads after ``input`` changed, raise (Note
    [view_as_real and view_as_complex are guarded copies] in complex_ops.py)."""
    from .complex_ops import _guard
    from .spec import OPS
    if not input.dtype.is_complex:
        return input
    return _guard(OPS["_real"].api(input), input, "real")


def _imag(input: Tensor) -> Tensor:
    """Mirrors ``torch.imag`` (complex tensors only). Difference: as ``real``, a guarded
    copy rather than a view sharing memory with ``input``."""
    from .complex_ops import _guard
    from .spec import OPS
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _guard(OPS["_imag"].api(input), input, "imag")


Tensor.conj = _conj
Tensor.resolve_conj = lambda self: self
Tensor.resolve_neg = lambda self: self
Tensor.is_conj = lambda self: False
Tensor.is_neg = lambda self: False
Tensor.real = property(_real, doc="Mirrors ``Tensor.real`` (a guarded copy for complex "
                                   "tensors: writes through it raise).")
Tensor.imag = property(_imag, doc="Mirrors ``Tensor.imag`` (a guarded copy; complex tensors "
                                   "only).")


# ---------------------------------------------------------------------------
# whole-tensor predicates returning Python values
def _equal(input: Tensor, other: Tensor) -> bool:
    """Mirrors ``torch.equal``: same shape and same values (a Python bool)."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        bad = other if isinstance(input, Tensor) else input
        raise TypeError(f"equal(): argument 'other' must be Tensor, not {type(bad).__name__}")
    if input._shape != other._shape:
        return False
    from .spec import OPS
    return bool(np.all(np.asarray(OPS["eq"].api(input, other)._value)))


def _allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False) -> bool:
    """Mirrors ``torch.allclose`` (a Python bool); both tensors must share a dtype."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.dtype is not other.dtype:
        raise RuntimeError(f"{_dtype_title(input.dtype)} did not match "
                           f"{_dtype_title(other.dtype)}")
    from .spec import OPS
    close = OPS["isclose"].api(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(np.all(np.asarray(close._value)))


def _is_nonzero(input: Tensor) -> bool:
    """Mirrors ``torch.is_nonzero``: the truth value of a one-element tensor."""
    return bool(input)


def _numel(input: Tensor) -> int:
    """Mirrors ``torch.numel``."""
    return input.numel()


def _is_floating_point(input: Tensor) -> bool:
    """Mirrors ``torch.is_floating_point``."""
    return input.dtype.is_floating_point


def _is_complex(input: Tensor) -> bool:
    """Mirrors ``torch.is_complex``."""
    return input.dtype.is_complex


Tensor.equal = _equal
Tensor.allclose = _allclose
Tensor.is_nonzero = _is_nonzero


def _relu_(input: Tensor) -> Tensor:
    """Mirrors ``torch.relu_``: ``input.relu_()``."""
    return input.relu_()


def _public(fn, name: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "torchlike"
    return fn


# Non-table functions of this family, exported as ``torchlike.<name>`` with the table's.
FUNCTIONS.update({n: _public(f, n) for n, f in (
    ("equal", _equal), ("allclose", _allclose), ("is_nonzero", _is_nonzero),
    ("numel", _numel), ("is_floating_point", _is_floating_point), ("is_complex", _is_complex),
    ("conj", _conj), ("real", _real), ("imag", _imag), ("relu_", _relu_))})


# Zeros inside the sample domain (lgamma at 1 and 2, digamma near 1.46): float32 libm
# results differ from PyTorch's in the last bits there.
with_atol("lgamma", 1e-5)
with_atol("digamma", 1e-5)
