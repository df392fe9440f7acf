"""The functions PyTorch has only in ``torch.special`` (``erfcx``, ``i0e``, ``i1``,
``i1e``, ``ndtr``, ``ndtri``, ``log_ndtr``, ``entr``, ``xlog1py``, ``zeta``): table ops
named ``special_<name>`` with no ``torchlike.<name>``/``Tensor.<name>`` form, exported by
``torchlike.special``. Each op is declared once; see spec.py."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp

from ._common import check_broadcast
from .arithmetic import _select
from .elementwise import _i1
from .elementwise_common import (_binary_samples, _unary_samples, checks, reject,
                                 reject_common, tensors_only)
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


def special(name: str, fn, *, sig: str = "input", tensor_args: tuple = ("input",),
            promote: str = "float", samples=None, check=None, **kw):
    """Declare ``torchlike.special.<name>``: a table op named ``special_<name>`` with no
    ``torchlike.<name>``/``Tensor.<name>`` form."""
    register(OpSpec("special_" + name, fn, sig, tensor_args=tensor_args, promote=promote,
                    method=False, function=False, check=check, samples=samples,
                    extra={"special": name}, **kw))


def _special_unary(name, fn, *, domain="real", no_complex=True, **kw):
    special(name, lambda input: fn(input), samples=lambda: _unary_samples(domain),
            check=checks(tensors_only(name, ("input",), (0,)),
                         reject("complex", f"special_{name}_cpu") if no_complex else None),
            **kw)


@jax.custom_jvp
def _entr(x):
    return jnp.where(jnp.isnan(x), x, jnp.where(x > 0, -x * jnp.log(jnp.where(x > 0, x, 1)),
                                                 jnp.where(x == 0, 0.0, -jnp.inf))
                     ).astype(x.dtype)


@_entr.defjvp
def _entr_jvp(primals, tangents):
    # special_entr: grad * (-(1 + self.log())), everywhere: inf at 0, NaN below 0
    (x,), (t,) = primals, tangents
    return _entr(x), t * -(1 + jnp.log(x))


@jax.custom_jvp
def _ndtri(p):
    return jsp.ndtri(p)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    # special_ndtri: grad * sqrt(2 pi) * exp(result ** 2 / 2), inf at 0 and 1
    (p,), (t,) = primals, tangents
    out = _ndtri(p)
    return out, t * (math.sqrt(2 * math.pi) * jnp.exp(jnp.square(out) / 2))


for _n, _f, _d in (("erfcx", jsp.erfcx, "real"), ("i0e", jsp.i0e, "real"),
                   ("i1", _i1, "real"), ("i1e", jsp.i1e, "real"),
                   ("ndtr", jsp.ndtr, "real"), ("ndtri", _ndtri, "unit01"),
                   ("log_ndtr", jsp.log_ndtr, "real"), ("entr", _entr, "positive")):
    _special_unary(_n, _f, domain=_d if _d != "unit01" else "positive01")


@jax.custom_jvp
def _xlog1py(a, b):
    return _select(jnp.isnan(b), b, jsp.xlog1py(a, b))


@_xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    # special_xlog1py: self: xlog1py(grad, other) masked to 0 where self == 0 and
    # other <= -1; other: grad * self / (other + 1)
    (a, b), (ta, tb) = primals, tangents
    zero = jnp.zeros((), jnp.result_type(a, b))
    da = _select((a == 0) & (b <= -1), zero, jnp.log1p(b))
    return _xlog1py(a, b), ta * da + tb * (a / (b + 1))


special("xlog1py", _xlog1py, sig="input, other", tensor_args=("input", "other"),
        check=lambda a, b: (check_broadcast(a, b),
                            reject_common("complex", "xlog1py_cpu")(a, b)),
        samples=lambda: _binary_samples(nonzero_other=True) + [S(2.0, arr(3, positive=True))])


def _zeta(x, q):
    return jsp.zeta(x, q)


special("zeta", _zeta, sig="input, other", tensor_args=("input", "other"),
        check=lambda a, b: (check_broadcast(a, b), reject_common("complex", "zeta")(a, b)),
        differentiable=False,
        samples=lambda: [S(arr(3, low=1.5, high=4.0), arr(3, positive=True), grad=False),
                         S(2.0, arr(3, positive=True), grad=False),
                         S(arr(3, low=1.5, high=4.0, dtype="float64"), 2.0, grad=False)])
