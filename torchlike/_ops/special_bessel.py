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
_AIRY_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
            1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
            1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AIRY_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
            1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
            1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AIRY_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
             -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
             -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AIRY_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
             9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
             4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AIRY_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
             9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
             5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
             8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AIRY_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
             5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
             4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
             4.91834570062930015649e-09)
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
_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
          5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
          9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
          5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
          1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
          -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
          -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
          7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
          2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
          9.70862251047306323952e+15)
_J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
          1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
          3.18121955943204943306e+16, 1.71086294081043136091e+18)
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
          -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
          4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
          8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
          2.50596256172653059228e+17)
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
          5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
          1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
          5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
          9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
          3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
          2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
          9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
          3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
          3.68295732863852883286e+15)
_J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
          2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
          8.95222336184627338078e+16, 5.32278620332680085395e+18)
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
          -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
          1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
          6.87141087355300489866e+16, 3.97270608116560655612e+18)
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
_I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
         1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
         9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
         -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
         1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
         -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
         1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
         -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
         1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01)
_I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
         3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
         -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
         -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
         2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
         8.04490411014108831608e-01)
_I1_A = (2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
         -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
         3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
         -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
         9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
         -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
         4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
         -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
         2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
         -1.76416518357834055153e-01, 2.52587186443633654823e-01)
_I1_B = (7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
         -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
         -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
         4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
         -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
         3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
         -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
         -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
         7.78576235018280120474e-01)
_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)


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
