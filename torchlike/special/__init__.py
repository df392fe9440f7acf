"""``torchlike.special``: mirrors ``torch.special``.

Each function runs a table op: the ones PyTorch also has as ``torch.<name>`` share that
op, the others (``erfcx``, ``ndtr``, ...) are declared in
``torchlike/_ops/special_functions.py`` and, the Bessel functions and orthogonal
polynomials, ``torchlike/_ops/special_bessel.py``, as ``special_<name>``. ``softmax``,
``log_softmax`` and ``logsumexp`` are ``torchlike.softmax``, ``torchlike.log_softmax`` and
``torchlike.logsumexp`` with ``torch.special``'s signatures.
"""

from __future__ import annotations

from .._ops.dispatch import dispatch as _dispatch
from .._ops.spec import OPS as _OPS

__all__ = ["expit", "logit", "erf", "erfc", "erfcx", "erfinv", "xlogy", "xlog1py",
           "gammaln", "digamma", "psi", "multigammaln", "polygamma", "gammainc",
           "gammaincc", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "sinc",
           "entr", "round", "exp2", "expm1", "log1p", "zeta", "softmax", "log_softmax",
           "logsumexp", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p"]


def _make(public: str, op: str):
    spec = _OPS[op]

    def f(*args, **kwargs):
        return _dispatch(spec, f, args, kwargs)
    f.__name__ = f.__qualname__ = public
    f.__module__ = "torchlike.special"
    f.__doc__ = f"Mirrors ``torch.special.{public}`` (the ``{op}`` op)."
    return f


_TABLE = {
    "expit": "sigmoid", "logit": "logit", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
    "xlogy": "xlogy", "gammaln": "lgamma", "digamma": "digamma", "psi": "digamma",
    "multigammaln": "mvlgamma", "polygamma": "polygamma", "gammainc": "igamma",
    "gammaincc": "igammac", "i0": "i0", "sinc": "sinc", "round": "round", "exp2": "exp2",
    "expm1": "expm1", "log1p": "log1p",
}
_TABLE.update({s.extra["special"]: name for name, s in _OPS.items() if "special" in s.extra})

globals().update({public: _make(public, op) for public, op in _TABLE.items()})


def _install_out() -> None:
    """PyTorch's special functions take ``out=`` (Note [out= of table functions])."""
    from .._ops.out_param import install
    for public, op in _TABLE.items():
        install(_OPS[op], "special." + public, api=globals()[public])


_install_out()


def softmax(input, dim: int, *, dtype=None):
    """Mirrors ``torch.special.softmax(input, dim, *, dtype=None)``."""
    from .. import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim: int, *, dtype=None):
    """Mirrors ``torch.special.log_softmax(input, dim, *, dtype=None)``."""
    from .. import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim: bool = False, *, out=None):
    """Mirrors ``torch.special.logsumexp(input, dim, keepdim=False, *, out=None)``."""
    from .. import logsumexp as _logsumexp
    return _logsumexp(input, dim, keepdim, out=out)
