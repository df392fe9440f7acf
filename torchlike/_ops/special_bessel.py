"""``torch.special``'s Bessel functions and orthogonal polynomials: ``airy_ai``,
``bessel_j0/j1/y0/y1``, ``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``,
``spherical_bessel_j0`` (of one tensor) and the ``chebyshev_polynomial_t/u/v/w``,
``shifted_chebyshev_polynomial_t/u/v/w``, ``hermite_polynomial_h/he``,
``laguerre_polynomial_l`` and ``legendre_polynomial_p`` of ``(x, n)``. Table ops named
``special_<name>`` (see special_functions.py), exported by ``torchlike.special``.

# Note [Mirroring ATen's special functions]
# Each function is PyTorch's ``<name>_forward`` of ``aten/src/ATen/native/Math.h``
# written in jax.numpy, step for step: the same Cephes coefficients (rounded to the
# tensor's dtype, as ``static const T`` rounds them), the same Horner and Chebyshev
# series evaluations in the same order of operations, the same branch points compared
# in the tensor's dtype, and the same special cases in the same order (the first that
# holds wins, as in the ``if`` chains there). Every branch is computed for every element
# and ``where`` picks, so the functions trace under jax.jit. The few loops whose length
# depends on the values (``airy_ai``'s power series, the polynomials' three-term
# recurrences) are one ``lax.while_loop`` over the whole array in which each element
# stops where ATen's loop would stop for it (its count of steps done, or a NaN).
#
# As in PyTorch:
# * the CPU kernels exist for float32 and float64 only: integral and bool inputs compute
#   in the default float dtype, float16, bfloat16 and complex inputs raise
#   NotImplementedError (``"bessel_j0_cpu" not implemented for 'Half'``);
# * the results have no ``grad_fn``: PyTorch declares these functions
#   non-differentiable, so a result never requires grad;
# * the polynomials take ``x`` and ``n`` as tensors or one of them as a Python number,
#   promoted together to a float dtype; ``n`` is then truncated toward zero to an
#   int64 (``static_cast<int64_t>``), a NaN, an infinite or an out-of-range ``n`` giving
#   x86's INT64_MIN, a negative order, so the result 0;
# * ``modified_bessel_k0`` computes ``log(0.5 * x) * i0(x)`` in double precision for
#   float32 input too (the C++ source's ``0.5`` is a double literal).
#
# Divisions are kept IEEE divisions (``_div``): XLA would otherwise multiply by
# reciprocals. Measured against PyTorch 2.13 on CPU (glibc 2.36) over edge-value grids
# and 50,000 random arguments from 1e-8 to 3e3 of either sign, the Bessel functions
# agree to 1e-6 relatively in float32 (3e-6 next to a zero of bessel_y1) and 1e-15 in
# float64, most bit for bit; the float32 polynomials bit for bit up to order 1000.
#
# Differences: where ATen returns a variable its loop never wrote (``chebyshev_polynomial_u``
# and several others of a NaN ``x`` with ``n >= 2``: whatever the stack held, seen as
# 3e38 or 5e-41), torchlike returns NaN. XLA's CPU code flushes subnormal results to
# zero (float32 ``modified_bessel_k0(89.07)`` is 2.7e-40 in PyTorch, 0 here). sin, cos,
# exp, log and float64 acos are XLA's, not glibc's, so the last bits can differ; the
# Chebyshev polynomials' ``cos(n * acos(x))`` forms multiply a last-bit difference of
# acos by ``n`` (float64: up to 3e-13 at n = 511; float32 acos is glibc's own algorithm,
# see ``_acosf``). A recurrence of a few million steps (``n`` in the
# millions with ``|x|`` just above 1, where ATen loops until the value overflows) is a
# loop of that many steps here too, slower than ATen's.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import check_broadcast
from .elementwise_common import _not_impl, tensors_only
from .samples import S, arr
from .special_functions import special
from .special_bessel_coefficients import (
    _AIRY_AD, _AIRY_AFD, _AIRY_AFN, _AIRY_AGD, _AIRY_AGN, _AIRY_AN, _I0_A, _I0_B, _I1_A, _I1_B,
    _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _J0_RP, _J0_RQ, _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _J1_RP,
    _J1_RQ, _K0_A, _K0_B, _K1_A, _K1_B, _Y0_YP, _Y0_YQ, _Y1_YP, _Y1_YQ,
)

__all__: list = []


# ---------------------------------------------------------------------------
# the pieces ATen's functions are made of
def _horner(coefs, v):
    """``acc = 0; for c in coefs: acc = acc * v + c`` (Math.h's polynomial loops start
    from a zero, so an infinite ``v`` gives NaN there too)."""
    acc = jnp.zeros_like(v)
    for c in coefs:
        acc = acc * v + c
    return acc


def _chbevl(coefs, w):
    """Math.h's Chebyshev series loop: returns ``(a, p)``, the series being
    ``0.5 * (a - p)``."""
    p = q = jnp.zeros_like(w)
    a = jnp.full_like(w, coefs[0])
    for c in coefs[1:]:
        p, q = q, a
        a = w * q - p + c
    return a, p


def _div(a, b):
    """``a / b`` as the IEEE division ATen's kernels do. XLA's simplifier turns a division
    by a constant or by a scalar broadcast over the array into a multiplication by its
    reciprocal, ``a / sqrt(b)`` into ``a * rsqrt(b)`` and nested quotients into one,
    each a last-bit change that recurrences and large arguments of sin and cos magnify
    (float32 ``laguerre_polynomial_l(0.001, 1000)`` moved by 3e-3); the barriers hide
    the divisor's and the quotient's origin from it."""
    dt = jnp.result_type(a, b)
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    den = lax.optimization_barrier(jnp.broadcast_to(jnp.asarray(b, dt), shape))
    return lax.optimization_barrier(jnp.asarray(a, dt) / den)


# fdlibm's e_acosf.c, which glibc (2.36) ships as acosf: its float32 constants
_ACOSF = {name: float(np.float32(v)) for name, v in dict(
    pi=3.1415925026e+00, pio2_hi=1.5707962513e+00, pio2_lo=7.5497894159e-08,
    pS0=1.6666667163e-01, pS1=-3.2556581497e-01, pS2=2.0121252537e-01,
    pS3=-4.0055535734e-02, pS4=7.9153501429e-04, pS5=3.4793309169e-05,
    qS1=-2.4033949375e+00, qS2=2.0209457874e+00, qS3=-6.8828397989e-01,
    qS4=7.7038154006e-02).items()}


def _acosf(x):
    """glibc's ``acosf`` (fdlibm's algorithm) of float32 ``x``, bit for bit: each float32
    operation is done in float64 and rounded to float32 by ``reduce_precision``, which
    XLA keeps (it drops a float64 -> float32 -> float64 round trip as excess precision,
    and would contract float32 products and sums into FMAs, which glibc's build does
    not). XLA's own float32 acos is up to 3 ulps away, and ``cos(n * acos(x))``
    multiplies that by ``n``."""
    c = _ACOSF

    def rnd(v):
        return lax.reduce_precision(v, exponent_bits=8, mantissa_bits=23)

    def add(a, b):
        return rnd(a + b)

    def sub(a, b):
        return rnd(a - b)

    def mul(a, b):
        return rnd(a * b)

    def ratio(z):    # p / q of fdlibm's rational approximation
        p = mul(z, add(c["pS0"], mul(z, add(c["pS1"], mul(z, add(c["pS2"], mul(z, add(
            c["pS3"], mul(z, add(c["pS4"], mul(z, c["pS5"])))))))))))
        q = add(1.0, mul(z, add(c["qS1"], mul(z, add(c["qS2"], mul(z, add(
            c["qS3"], mul(z, c["qS4"]))))))))
        return rnd(p / q)

    x = x.astype(jnp.float64)
    ax = jnp.abs(x)
    # the three branches' z, p / q and sqrt(z), each evaluated once
    z = jnp.where(ax < 0.5, mul(x, x), mul(jnp.where(x < 0.0, add(1.0, x), sub(1.0, x)), 0.5))
    r = ratio(z)
    sq = rnd(jnp.sqrt(z))
    near0 = sub(c["pio2_hi"], sub(x, sub(c["pio2_lo"], mul(x, r))))
    below = sub(c["pi"], mul(2.0, add(sq, sub(mul(r, sq), c["pio2_lo"]))))
    hi = lax.bitcast_convert_type(sq.astype(jnp.float32), jnp.int32) & -4096
    df = lax.bitcast_convert_type(hi, jnp.float32).astype(jnp.float64)
    above = mul(2.0, add(df, add(mul(r, sq), rnd(sub(z, mul(df, df)) / add(sq, df)))))
    out = _first([(ax == 1.0, jnp.where(x > 0.0, 0.0, add(c["pi"], mul(2.0, c["pio2_lo"])))),
                  (~(ax <= 1.0), jnp.nan),
                  (ax <= 2.0 ** -57, add(c["pio2_hi"], c["pio2_lo"])),
                  (ax < 0.5, near0), (x < 0.0, below)], above)
    return out.astype(jnp.float32)


def _acos(x):
    """``std::acos``: glibc's ``acosf`` for float32 (see ``_acosf``); XLA's acos for
    float64, which differs from glibc's ``acos`` by an ulp for about one argument in ten."""
    return _acosf(x) if x.dtype == jnp.float32 else jnp.arccos(x)


def _first(cases, default):
    """An ``if (...) return ...;`` chain: the value of the first condition that holds,
    else ``default``."""
    out = default
    for cond, val in reversed(cases):
        out = jnp.where(cond, val, out)
    return out


def _none_of(cases):
    """Where no condition of the chain holds (where the chain falls through)."""
    hit = None
    for cond, _ in cases:
        hit = cond if hit is None else hit | cond
    return ~hit


# ---------------------------------------------------------------------------
# airy_ai
_SQRT_1_PI = 5.64189583547756286948e-01


def _airy_series(x):
    """Math.h's power series ``f``, ``g`` (run until ``|m / f| <= eps`` per element)."""
    eps = jnp.finfo(x.dtype).eps
    one = jnp.ones_like(x)
    z = x * x * x

    def cond(c):
        return jnp.any(c[5] > eps)

    def body(c):
        k, f, g, m, n, t = c
        go = t > eps
        m1 = m * z
        m1 = _div(m1, k + 1)
        n1 = _div(n * z, k + 2)
        m1 = _div(m1, k + 2)
        f1 = f + m1
        n1 = _div(n1, k + 3)
        g1 = g + n1
        t1 = jnp.abs(m1 / f1)
        return (k + 3, jnp.where(go, f1, f), jnp.where(go, g1, g), jnp.where(go, m1, m),
                jnp.where(go, n1, n), jnp.where(go, t1, t))

    init = (jnp.ones((), x.dtype), one, x, one, x, one)
    _, f, g, *_ = lax.while_loop(cond, body, init)
    return f, g


def _airy_ai(x):
    """``airy_ai_forward``: asymptotic expansions below -2.09 and from 2.09, the power
    series between, 0 above 103.892, NaN at +-inf."""
    neg = x < -2.09
    pos = x >= 2.09
    xn = jnp.where(neg, x, -3.0)
    zeta_n = _div(-2.0 * xn * jnp.sqrt(-xn), 3.0)
    z = 1.0 / zeta_n
    zz = z * z
    afn, afd = _horner(_AIRY_AFN, zz), _horner(_AIRY_AFD, zz)
    agn, agd = _horner(_AIRY_AGN, zz), _horner(_AIRY_AGD, zz)
    t = zeta_n + 0.25 * math.pi
    below = _div(_SQRT_1_PI, jnp.sqrt(jnp.sqrt(-xn))) * (
        jnp.sin(t) * (1.0 + z * z * afn / afd) - jnp.cos(t) * (z * agn / agd))

    xp = jnp.where(pos, x, 3.0)
    zeta = _div(2.0 * xp * jnp.sqrt(xp), 3.0)
    an, ad = _horner(_AIRY_AN, 1.0 / zeta), _horner(_AIRY_AD, 1.0 / zeta)
    above = _SQRT_1_PI * (an / ad) / (2.0 * jnp.sqrt(jnp.sqrt(xp)) * jnp.exp(zeta))

    # the series only where its value is returned; elsewhere it stops at once (z = 0)
    f, g = _airy_series(jnp.where(neg | pos, 0.0, x).astype(x.dtype))
    series = 0.355028053887817239260 * f - 0.258819403792806798405 * g
    return _first([(jnp.isinf(x), jnp.nan), (x > 103.892, 0.0), (neg, below),
                   (pos, above)], series).astype(x.dtype)


# ---------------------------------------------------------------------------
# Bessel functions of the first and second kind
_PI_4 = 0.785398163397448309615660845819875721
_3PI_4 = 2.356194490192344928846982537459627163
_SQRT_2_PI = 0.797884560802865355879892119868763737
_2_PI = 0.636619772367581343075535053490057448


def _hankel(x, w, pp, pq, qp, qq, shift, second_kind):
    """The asymptotic form for ``x > 5`` (``w`` = 25 / x^2 as each function spells it)."""
    p = _horner(pp, w) / _horner(pq, w)
    q = 5.0 / x * (_horner(qp, w) / _horner(qq, w))
    if second_kind:
        v = p * jnp.sin(x - shift) + q * jnp.cos(x - shift)
    else:
        v = p * jnp.cos(x - shift) - q * jnp.sin(x - shift)
    return _div(v * _SQRT_2_PI, jnp.sqrt(x))


def _j0_of_abs(x):
    xx = x * x
    small = 1.0 - x * x / 4.0
    mid = ((xx - 5.78318596294678452118e+00) * (xx - 3.04712623436620863991e+01) *
           _horner(_J0_RP, xx) / _horner(_J0_RQ, xx))
    far = _hankel(x, 25.0 / xx, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PI_4, False)
    return _first([(x < 0.00001, small), (x <= 5.0, mid)], far)


def _bessel_j0(x):
    """``bessel_j0_forward``."""
    return _j0_of_abs(jnp.abs(x)).astype(x.dtype)


def _j1_of_nonneg(x):
    xx = x * x
    mid = (_horner(_J1_RP, xx) / _horner(_J1_RQ, xx) * x *
           (xx - 1.46819706421238932572e+01) * (xx - 4.92184563216946036703e+01))
    far = _hankel(x, 5.0 / x * (5.0 / x), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _3PI_4, False)
    return jnp.where(x <= 5.0, mid, far)


def _bessel_j1(x):
    """``bessel_j1_forward``: odd, ``-j1(-x)`` below 0."""
    neg = x < 0.0
    v = _j1_of_nonneg(jnp.where(neg, -x, x))
    return jnp.where(neg, -v, v).astype(x.dtype)


def _bessel_y0(x):
    """``bessel_y0_forward``: -inf at 0, NaN below."""
    xx = x * x
    near = (_horner(_Y0_YP, xx) / _horner(_Y0_YQ, xx) +
            _2_PI * jnp.log(x) * _j0_of_abs(jnp.abs(x)))
    far = _hankel(x, 25.0 / xx, _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PI_4, True)
    return _first([(x == 0.0, -jnp.inf), (x < 0.0, jnp.nan), (x <= 5.0, near)],
                  far).astype(x.dtype)


def _bessel_y1(x):
    """``bessel_y1_forward``: -inf at 0, NaN below."""
    xx = x * x
    near = (x * (_horner(_Y1_YP, xx) / _horner(_Y1_YQ, xx)) +
            _2_PI * (_j1_of_nonneg(jnp.abs(x)) * jnp.log(x) - 1.0 / x))
    far = _hankel(x, 5.0 / x * (5.0 / x), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _3PI_4, True)
    return _first([(x == 0.0, -jnp.inf), (x < 0.0, jnp.nan), (x <= 5.0, near)],
                  far).astype(x.dtype)


def _spherical_bessel_j0(x):
    """``spherical_bessel_j0_forward``: sin(x) / x, its Taylor polynomial below 0.5."""
    def c(num, den):     # T(num) / T(den), divided in the tensor's dtype
        dt = np.dtype(x.dtype)
        return dt.type(num) / dt.type(den)
    xx = x * x
    taylor = 1.0 + xx * (c(-1.0, 6.0) + xx * (c(1.0, 120.0) + xx * (c(-1.0, 5040.0) + xx * (
        c(1.0, 362880.0) + xx * (c(-1.0, 39916800.0) + xx * c(1.0, 6227020800.0))))))
    return _first([(jnp.isinf(x), 0.0), (jnp.abs(x) < 0.5, taylor)],
                  jnp.sin(x) / x).astype(x.dtype)


# ---------------------------------------------------------------------------
# modified Bessel functions


def _modified_bessel_i0(x):
    """``modified_bessel_i0_forward``: Chebyshev series in |x| / 2 - 2 up to 8, in
    32 / |x| - 2 beyond."""
    ax = jnp.abs(x)
    a, p = _chbevl(_I0_A, ax / 2.0 - 2.0)
    b, pb = _chbevl(_I0_B, 32.0 / ax - 2.0)
    return jnp.where(ax <= 8.0, jnp.exp(ax) * (0.5 * (a - p)),
                     _div(jnp.exp(ax) * (0.5 * (b - pb)), jnp.sqrt(ax))).astype(x.dtype)


def _modified_bessel_i1(x):
    """``modified_bessel_i1_forward``: odd, from the series of |x|."""
    ax = jnp.abs(x)
    a, p = _chbevl(_I1_A, ax / 2.0 - 2.0)
    b, pb = _chbevl(_I1_B, 32.0 / ax - 2.0)
    v = jnp.where(ax <= 8.0, 0.5 * (a - p) * ax * jnp.exp(ax),
                  _div(jnp.exp(ax) * (0.5 * (b - pb)), jnp.sqrt(ax)))
    return jnp.where(x < 0.0, -v, v).astype(x.dtype)


def _k_far(coefs, x):
    """``0.5 * (b - p)``: the K series beyond 2, before its factor ``exp(-x) / sqrt(x)``."""
    b, p = _chbevl(coefs, 8.0 / x - 2.0)
    return 0.5 * (b - p)


def _k0_near(x):
    """K0 up to 2; ``log(0.5 * x) * i0(x)`` in double precision, as Math.h's double
    literal ``0.5`` makes it for float too."""
    a, p = _chbevl(_K0_A, x * x - 2.0)
    wide = jnp.float64
    return (0.5 * (a - p)).astype(wide) - \
        jnp.log(0.5 * x.astype(wide)) * _modified_bessel_i0(x).astype(wide)


def _k1_near(x):
    a, p = _chbevl(_K1_A, x * x - 2.0)
    return jnp.log(0.5 * x) * _modified_bessel_i1(x) + 0.5 * (a - p) / x


def _k_cases(x, near, far):
    return _first([(x == 0.0, jnp.inf), (x < 0.0, jnp.nan), (x <= 2.0, near)],
                  far).astype(x.dtype)


def _modified_bessel_k0(x):
    """``modified_bessel_k0_forward``: inf at 0, NaN below."""
    return _k_cases(x, _k0_near(x), _div(jnp.exp(-x) * _k_far(_K0_B, x), jnp.sqrt(x)))


def _modified_bessel_k1(x):
    """``modified_bessel_k1_forward``: inf at 0, NaN below."""
    return _k_cases(x, _k1_near(x), _div(jnp.exp(-x) * _k_far(_K1_B, x), jnp.sqrt(x)))


def _scaled_modified_bessel_k0(x):
    """``scaled_modified_bessel_k0_forward``: exp(x) * K0(x) (its log in x's dtype)."""
    a, p = _chbevl(_K0_A, x * x - 2.0)
    near = (0.5 * (a - p) - jnp.log(0.5 * x) * _modified_bessel_i0(x)) * jnp.exp(x)
    return _k_cases(x, near, _div(_k_far(_K0_B, x), jnp.sqrt(x)))


def _scaled_modified_bessel_k1(x):
    """``scaled_modified_bessel_k1_forward``: exp(x) * K1(x)."""
    return _k_cases(x, _k1_near(x) * jnp.exp(x), _div(_k_far(_K1_B, x), jnp.sqrt(x)))


# ---------------------------------------------------------------------------
# orthogonal polynomials
_INT64_RANGE = 2.0 ** 63


def _order(n):
    """``static_cast<int64_t>(n)`` as x86 does it: toward zero, and INT64_MIN (a negative
    order; -1 here) for NaN, infinities and values out of range."""
    ok = (n >= -_INT64_RANGE) & (n < _INT64_RANGE)
    return jnp.where(ok, jnp.trunc(jnp.where(ok, n, 0.0)), -1.0).astype(jnp.int64)


def _recurrence(p, q, steps, step, stop_at_nan=True):
    """``for (i = 0; i < steps && !isnan(q); i++) { r = step(i, p, q); p = q; q = r; }``
    per element, as one while_loop that runs while some element still steps; returns
    ``q`` (ATen's ``r`` wherever its loop ran)."""
    def going(i, q):
        g = i < steps
        return g & ~jnp.isnan(q) if stop_at_nan else g

    def cond(c):
        return jnp.any(going(c[0], c[2]))

    def body(c):
        i, p, q = c
        g = going(i, q)
        r = step(i, p, q)
        return i + 1, jnp.where(g, q, p), jnp.where(g, r, q)

    return lax.while_loop(cond, body, (jnp.zeros((), jnp.int64), p, q))[2]


def _polynomial(x, n, cases, q0, step, stop_at_nan=True):
    """``cases``: the ``if`` chain ahead of the loop (built from the broadcast ``x``, the
    order ``k`` and ``k`` in x's dtype); ``q0(x)``: the loop's first ``q`` (``p`` is 1);
    ``step(x, k, kf, i, p, q)``: one step of the recurrence."""
    # a Python number arrives weakly typed: the loop's carry has the tensor's dtype
    x, n = (lax.convert_element_type(v, v.dtype) for v in (jnp.asarray(x), jnp.asarray(n)))
    x, n = jnp.broadcast_arrays(x, n)
    k = _order(n)
    kf = k.astype(x.dtype)
    chain = cases(x, k, kf)
    steps = jnp.where(_none_of(chain) & (k >= 2), k - 1, 0)
    q = _recurrence(jnp.ones_like(x), q0(x), steps, lambda i, p, q: step(x, k, kf, i, p, q),
                    stop_at_nan)
    return _first(chain, q).astype(x.dtype)


def _sign_by_parity(k, positive, v):
    """``v`` where ``positive`` holds or the order is even, else ``-v``."""
    return jnp.where(positive | (k % 2 == 0), v, -v)


def _chebyshev_step(y2):
    """``r = (x + x) * q - p`` (``y2``: the ``x + x`` of each function)."""
    return lambda x, k, kf, i, p, q: y2(x) * q - p


def _chebyshev_polynomial_t(x, n):
    """``chebyshev_polynomial_t_forward``: cos(n acos(x)) for n > 6 and |x| < 1."""
    def cases(x, k, kf):
        ax = jnp.abs(x)
        return [(k < 0, 0.0), (ax == 1.0, _sign_by_parity(k, x > 0.0, 1.0)),
                ((k > 6) & (ax < 1.0), jnp.cos(kf * _acos(x))),
                (k == 0, 1.0), (k == 1, x)]
    return _polynomial(x, n, cases, lambda x: x, _chebyshev_step(lambda x: x + x))


def _chebyshev_polynomial_u(x, n):
    """``chebyshev_polynomial_u_forward``: sin((n + 1) acos(x)) / sin(acos(x)) for n > 8
    and |x| < 1."""
    def cases(x, k, kf):
        ax = jnp.abs(x)
        n1 = (k + 1).astype(x.dtype)
        th = _acos(x)
        trig = jnp.where(jnp.sin(th) != 0.0, jnp.sin(n1 * th) / jnp.sin(th),
                         n1 * jnp.cos(n1 * th) / x)
        return [(k < 0, 0.0), (ax == 1.0, _sign_by_parity(k, x > 0.0, n1)),
                ((k > 8) & (ax < 1.0), trig), (k == 0, 1.0), (k == 1, x + x)]
    return _polynomial(x, n, cases, lambda x: x + x, _chebyshev_step(lambda x: x + x))


def _odd_value(k, x):
    return (k + k + 1).astype(x.dtype)


def _chebyshev_polynomial_v(x, n):
    """``chebyshev_polynomial_v_forward``: cos((n + 1/2) acos(x)) / cos(acos(x) / 2) for
    n > 8 and |x| < 1."""
    def cases(x, k, kf):
        ax = jnp.abs(x)
        th = _acos(x)
        odd = _sign_by_parity(k, False, _odd_value(k, x))
        trig = jnp.where(jnp.sin(th / 2.0) != 1.0,
                         jnp.cos((kf + 0.5) * th) / jnp.cos(th / 2.0), odd)
        return [(k < 0, 0.0), (ax == 1.0, jnp.where(x > 0.0, 1.0, odd)),
                ((k > 8) & (ax < 1.0), trig), (k == 0, 1.0), (k == 1, x + x - 1.0)]
    return _polynomial(x, n, cases, lambda x: x + x - 1.0, _chebyshev_step(lambda x: x + x))


def _chebyshev_polynomial_w(x, n):
    """``chebyshev_polynomial_w_forward``: sin((n + 1/2) acos(x)) / sin(acos(x) / 2) for
    n > 8 and |x| < 1."""
    def cases(x, k, kf):
        ax = jnp.abs(x)
        th = _acos(x)
        edge = jnp.where(x > 0.0, _odd_value(k, x), _sign_by_parity(k, False, 1.0))
        trig = jnp.where(jnp.cos(th / 2.0) != 1.0,
                         jnp.sin((kf + 0.5) * th) / jnp.sin(th / 2.0), edge)
        return [(k < 0, 0.0), (ax == 1.0, edge), ((k > 8) & (ax < 1.0), trig),
                (k == 0, 1.0), (k == 1, x + x + 1.0)]
    return _polynomial(x, n, cases, lambda x: x + x + 1.0, _chebyshev_step(lambda x: x + x))


def _shifted(x):
    """The shifted polynomials' argument ``x + x - 1``."""
    return x + x - 1.0


_SHIFTED_STEP = _chebyshev_step(lambda x: _shifted(x) + _shifted(x))


def _shifted_chebyshev_polynomial_t(x, n):
    """``shifted_chebyshev_polynomial_t_forward``: T_n(2x - 1)."""
    def cases(x, k, kf):
        y = _shifted(x)
        return [(k < 0, 0.0), (x == 1.0, 1.0), (x == 0.0, _sign_by_parity(k, False, 1.0)),
                ((k > 6) & (jnp.abs(y) < 1.0), jnp.cos(kf * _acos(y))),
                (k == 0, 1.0), (k == 1, y)]
    return _polynomial(x, n, cases, _shifted, _SHIFTED_STEP)


def _shifted_chebyshev_polynomial_u(x, n):
    """``shifted_chebyshev_polynomial_u_forward``: U_n(2x - 1)."""
    def cases(x, k, kf):
        y = _shifted(x)
        n1 = (k + 1).astype(x.dtype)
        th = _acos(y)
        trig = jnp.where(jnp.sin(th) != 0.0, jnp.sin(n1 * th) / jnp.sin(th),
                         n1 * jnp.cos(n1 * th) / y)
        return [(k < 0, 0.0), (x == 1.0, n1), (x == 0.0, _sign_by_parity(k, False, n1)),
                ((k > 6) & (jnp.abs(y) < 1.0), trig), (k == 0, 1.0), (k == 1, y + y)]
    return _polynomial(x, n, cases, lambda x: _shifted(x) + _shifted(x), _SHIFTED_STEP)


def _shifted_chebyshev_polynomial_v(x, n):
    """``shifted_chebyshev_polynomial_v_forward``: V_n(2x - 1)."""
    def cases(x, k, kf):
        y = _shifted(x)
        th = _acos(y)
        odd = _sign_by_parity(k, False, _odd_value(k, x))
        trig = jnp.where(jnp.sin(th / 2.0) != 1.0,
                         jnp.cos((kf + 0.5) * th) / jnp.cos(th / 2.0), odd)
        return [(k < 0, 0.0), (x == 1.0, 1.0), (x == 0.0, odd),
                ((k > 6) & (jnp.abs(y) < 1.0), trig), (k == 0, 1.0), (k == 1, y + y - 1.0)]
    return _polynomial(x, n, cases, lambda x: _shifted(x) + _shifted(x) - 1.0, _SHIFTED_STEP)


def _shifted_chebyshev_polynomial_w(x, n):
    """``shifted_chebyshev_polynomial_w_forward``: W_n(2x - 1); its trigonometric form
    from n > 4 (n > 8 in ``chebyshev_polynomial_w``), as in PyTorch."""
    def cases(x, k, kf):
        y = _shifted(x)
        th = _acos(y)
        parity = _sign_by_parity(k, False, 1.0)
        trig = jnp.where(jnp.cos(th / 2.0) != 1.0,
                         jnp.sin((kf + 0.5) * th) / jnp.sin(th / 2.0), parity)
        return [(k < 0, 0.0), (x == 1.0, _odd_value(k, x)), (x == 0.0, parity),
                ((k > 4) & (jnp.abs(y) < 1.0), trig), (k == 0, 1.0), (k == 1, y + y + 1.0)]
    return _polynomial(x, n, cases, lambda x: _shifted(x) + _shifted(x) + 1.0, _SHIFTED_STEP)


def _hermite_limit(x):
    """``getHermitianLimit<T>``: orders above it give NaN."""
    return 128 if x.dtype == jnp.float32 else 512


def _hermite_polynomial_h(x, n):
    """``hermite_polynomial_h_forward`` (physicists'): NaN above order 128 (float32) or
    512 (float64)."""
    def cases(x, k, kf):
        return [(k < 0, 0.0), (k == 0, 1.0), (k == 1, x + x),
                (k > _hermite_limit(x), jnp.nan)]

    def step(x, k, kf, i, p, q):     # ATen's k runs 2, 4, ..., 2n - 2
        return (x + x) * q - (2 * (i + 1)).astype(x.dtype) * p
    return _polynomial(x, n, cases, lambda x: x + x, step, stop_at_nan=False)


def _hermite_polynomial_he(x, n):
    """``hermite_polynomial_he_forward`` (probabilists'): NaN above order 128 (float32)
    or 512 (float64)."""
    def cases(x, k, kf):
        return [(k < 0, 0.0), (k == 0, 1.0), (k == 1, x), (k > _hermite_limit(x), jnp.nan)]

    def step(x, k, kf, i, p, q):
        return x * q - (i + 1).astype(x.dtype) * p
    return _polynomial(x, n, cases, lambda x: x, step, stop_at_nan=False)


def _laguerre_polynomial_l(x, n):
    """``laguerre_polynomial_l_forward``: 1 at x == 0."""
    def cases(x, k, kf):
        return [(k < 0, 0.0), (jnp.abs(x) == 0.0, 1.0), (k == 0, 1.0), (k == 1, 1.0 - x)]

    def step(x, k, kf, i, p, q):
        j = i + 1
        return _div(((j + j).astype(x.dtype) + (1.0 - x)) * q - j.astype(x.dtype) * p,
                    (j + 1).astype(x.dtype))
    return _polynomial(x, n, cases, lambda x: 1.0 - x, step)


def _legendre_polynomial_p(x, n):
    """``legendre_polynomial_p_forward``: +-1 at |x| == 1."""
    def cases(x, k, kf):
        return [(k < 0, 0.0), (jnp.abs(x) == 1.0, _sign_by_parity(k, x > 0.0, 1.0)),
                (k == 0, 1.0), (k == 1, x)]

    def step(x, k, kf, i, p, q):
        j = i + 1
        return _div((j + j + 1).astype(x.dtype) * x * q - j.astype(x.dtype) * p,
                    (j + 1).astype(x.dtype))
    return _polynomial(x, n, cases, lambda x: x, step)


# ---------------------------------------------------------------------------
# declarations
_UNSUPPORTED = (_dt.float16, _dt.bfloat16)


def _refuse_dtype(kernel: str, d) -> None:
    """PyTorch's CPU kernels: float32 and float64 (integral inputs become float)."""
    if d in _UNSUPPORTED or d.is_complex:
        raise _not_impl(kernel, d)


def _unary_check(name: str, param: str):
    kinds = tensors_only("special_" + name, (param,), (0,))
    kernel = name + "_cpu"

    def chk(x):
        kinds(x)
        _refuse_dtype(kernel, x.dtype)
    return chk


def _binary_check(name: str):
    kernel = name + "_cpu"

    def chk(x, n):
        tx, tn = isinstance(x, Tensor), isinstance(n, Tensor)
        if not (tx or tn):
            raise TypeError(
                f"special_{name}() received an invalid combination of arguments - got "
                f"({type(x).__name__}, {type(n).__name__}), but expected one of:\n"
                " * (Tensor x, Tensor n, *, Tensor out = None)\n"
                " * (Number x, Tensor n, *, Tensor out = None)\n"
                " * (Tensor x, Number n, *, Tensor out = None)\n")
        check_broadcast(x, n)
        metas = [(v.dtype, v.dim(), False) if isinstance(v, Tensor)
                 else (_dt.scalar_dtype(v), 0, True) for v in (x, n)]
        _refuse_dtype(kernel, _dt.result_type_of(metas))
    return chk


# edge values the first sample holds: zeros, the branch points, large, inf, nan
_EDGES = [0.0, -0.0, 1e-6, -1.0, 2.0, -2.09, 2.09, 5.0, -5.5, 8.0, 8.5, 30.0, -40.0,
          120.0, float("inf"), float("-inf"), float("nan")]


def _unary_samples(low, high):
    return lambda: [
        S(np.concatenate([np.array(_EDGES, np.float32), arr(7, low=low, high=high)]),
          grad=False),
        S(arr(2, 3, low=low, high=high, dtype="float64"), grad=False),
        S(arr(4, dtype="int64"), grad=False)]


# (name, function, parameter name, range of the random samples)
_UNARY = [
    ("airy_ai", _airy_ai, "x", (-8.0, 6.0)),
    ("bessel_j0", _bessel_j0, "input", (-12.0, 12.0)),
    ("bessel_j1", _bessel_j1, "input", (-12.0, 12.0)),
    ("bessel_y0", _bessel_y0, "input", (0.0, 12.0)),
    ("bessel_y1", _bessel_y1, "input", (0.0, 12.0)),
    ("modified_bessel_i0", _modified_bessel_i0, "input", (-12.0, 12.0)),
    ("modified_bessel_i1", _modified_bessel_i1, "input", (-12.0, 12.0)),
    ("modified_bessel_k0", _modified_bessel_k0, "input", (0.0, 6.0)),
    ("modified_bessel_k1", _modified_bessel_k1, "input", (0.0, 6.0)),
    ("scaled_modified_bessel_k0", _scaled_modified_bessel_k0, "x", (0.0, 6.0)),
    ("scaled_modified_bessel_k1", _scaled_modified_bessel_k1, "x", (0.0, 6.0)),
    ("spherical_bessel_j0", _spherical_bessel_j0, "x", (-12.0, 12.0)),
]

for _name, _fn, _param, (_lo, _hi) in _UNARY:
    special(_name, _fn, sig=_param, tensor_args=(_param,), differentiable=False,
            check=_unary_check(_name, _param), samples=_unary_samples(_lo, _hi))


def _polynomial_samples(low, high):
    edges = np.array([-1.0, 1.0, 0.0, 0.5, -0.5, 1.5, 0.999, float("inf")], np.float32)
    orders = np.array([-1.0, 0.0, 1.0, 2.0, 5.0, 7.0, 9.0, 20.0], np.float32)
    return lambda: [
        S(np.concatenate([edges, arr(4, low=low, high=high)])[:, None], orders, grad=False,
          atol=1e-5),
        S(arr(3, low=low, high=high, dtype="float64"), 6, grad=False),
        S(arr(3, dtype="int64", low=-1, high=1), arr(3, dtype="float64", low=0, high=4),
          grad=False)]


_POLYNOMIALS = [
    ("chebyshev_polynomial_t", _chebyshev_polynomial_t, (-1.2, 1.2)),
    ("chebyshev_polynomial_u", _chebyshev_polynomial_u, (-1.2, 1.2)),
    ("chebyshev_polynomial_v", _chebyshev_polynomial_v, (-1.2, 1.2)),
    ("chebyshev_polynomial_w", _chebyshev_polynomial_w, (-1.2, 1.2)),
    ("shifted_chebyshev_polynomial_t", _shifted_chebyshev_polynomial_t, (-0.1, 1.1)),
    ("shifted_chebyshev_polynomial_u", _shifted_chebyshev_polynomial_u, (-0.1, 1.1)),
    ("shifted_chebyshev_polynomial_v", _shifted_chebyshev_polynomial_v, (-0.1, 1.1)),
    ("shifted_chebyshev_polynomial_w", _shifted_chebyshev_polynomial_w, (-0.1, 1.1)),
    ("hermite_polynomial_h", _hermite_polynomial_h, (-2.0, 2.0)),
    ("hermite_polynomial_he", _hermite_polynomial_he, (-2.0, 2.0)),
    ("laguerre_polynomial_l", _laguerre_polynomial_l, (-1.0, 4.0)),
    ("legendre_polynomial_p", _legendre_polynomial_p, (-1.2, 1.2)),
]

for _name, _fn, (_lo, _hi) in _POLYNOMIALS:
    special(_name, _fn, sig="x, n", tensor_args=("x", "n"), differentiable=False,
            check=_binary_check(_name), samples=_polynomial_samples(_lo, _hi))
