"""Elementwise comparisons and tests (eq, ne, lt, le, gt, ge with ``Tensor.__eq__``/
``__ne__``, isnan, isinf, isfinite and friends, isclose), logical and bitwise ops (with
``~``), and ``where``. Each is declared once; see spec.py."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from ._common import check_broadcast
from .elementwise_common import (_binary_samples, _dtype_title, binary, reject, reject_common,
                                 unary)
from .samples import S, arr
from .bind import FUNCTIONS
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# comparisons and tests
_CMP = (("eq", jnp.equal, "__eq__", ()), ("ne", jnp.not_equal, "__ne__", ("not_equal",)),
        ("lt", jnp.less, "__lt__", ("less",)), ("le", jnp.less_equal, "__le__",
                                                  ("less_equal",)),
        ("gt", jnp.greater, "__gt__", ("greater",)),
        ("ge", jnp.greater_equal, "__ge__", ("greater_equal",)))
for _n, _f, _dn, _al in _CMP:
    binary(_n, _f, dunders=(_dn,) if _n not in ("eq", "ne") else (), differentiable=False,
           aliases=_al, inplace=True, tensor_only="first",
           check=reject_common("complex", f"{_n}_cpu") if _n not in ("eq", "ne") else None,
           samples=lambda: [dict_s for dict_s in _binary_samples()] +
           [S(arr(3, dtype="bool"), arr(3, dtype="bool"), grad=False),
            S(arr(3), 1 + 2j, grad=False)])

_NUMBER = (Tensor, bool, int, float, complex, np.number, np.bool_)


def _eq_dunder(opname: str):
    """``t == x`` / ``t != x``: NotImplemented for non-numbers, so that ``t == None`` is
    False and ``t != None`` True, as in PyTorch."""
    def m(self, other):
        if not isinstance(other, _NUMBER):
            return NotImplemented
        from .dispatch import dispatch
        from .spec import OPS
        return dispatch(OPS[opname], m, (self, other), {})
    m.__name__ = f"__{opname}__"
    m.__qualname__ = f"Tensor.__{opname}__"
    return m


Tensor.__eq__ = _eq_dunder("eq")
Tensor.__ne__ = _eq_dunder("ne")

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


def _bit_samples():
    return [S(arr(3, 4, dtype="int64"), arr(3, 4, dtype="int64"), grad=False),
            S(arr(3, 4, dtype="bool"), arr(4, dtype="bool"), grad=False),
            S(arr(3, dtype="int32"), 5, grad=False), S(arr(3, dtype="bool"), True, grad=False),
            S(arr(3, dtype="uint8"), arr(3, dtype="int8"), grad=False),
            S(arr(3), arr(3), grad=False)]


for _n, _f, _dn in (("bitwise_and", jnp.bitwise_and, ("__and__", "__rand__", "__iand__")),
                    ("bitwise_or", jnp.bitwise_or, ("__or__", "__ror__", "__ior__")),
                    ("bitwise_xor", jnp.bitwise_xor, ("__xor__", "__rxor__", "__ixor__"))):
    binary(_n, _f, dunders=_dn, differentiable=False,
           check=reject_common(("float", "complex"), f"{_n}_cpu"), samples=_bit_samples)


def _shift_samples():
    return [S(arr(4, dtype="int64", low=0), arr(4, dtype="int64", low=0, high=1), grad=False),
            S(arr(4, dtype="int32", low=0), 2, grad=False),
            S(arr(3), arr(3), grad=False)]


def _left_shift(a, b):
    # PyTorch: shifting by the bit width or more (or by a negative amount) gives 0
    bits = jnp.iinfo(a.dtype).bits if jnp.issubdtype(a.dtype, jnp.integer) else 8
    return jnp.where((b >= bits) | (b < 0), jnp.zeros((), a.dtype), jnp.left_shift(a, b))


def _right_shift(a, b):
    bits = jnp.iinfo(a.dtype).bits if jnp.issubdtype(a.dtype, jnp.integer) else 8
    big = (b >= bits) | (b < 0)
    if jnp.issubdtype(a.dtype, jnp.signedinteger):
        return jnp.where(big, jnp.where(a < 0, -1, 0).astype(a.dtype), jnp.right_shift(a, b))
    return jnp.where(big, jnp.zeros((), a.dtype), jnp.right_shift(a, b))


binary("bitwise_left_shift", _left_shift, differentiable=False,
       check=reject_common(("float", "complex"), "lshift_cpu"),
       dunders=("__lshift__", "__rlshift__", "__ilshift__"), samples=_shift_samples)
binary("bitwise_right_shift", _right_shift, differentiable=False,
       check=reject_common(("float", "complex"), "rshift_cpu"),
       dunders=("__rshift__", "__rrshift__", "__irshift__"), samples=_shift_samples)
unary("bitwise_not", jnp.invert, promote="none", differentiable=False,
      check=reject(("float", "complex"), "bitwise_not_cpu"),
      samples=lambda: [S(arr(3, dtype="int64"), grad=False), S(arr(3, dtype="bool"),
                                                               grad=False),
                       S(arr(3), grad=False)])


def _invert(self: Tensor) -> Tensor:
    """Mirrors ``Tensor.__invert__`` (``~t``): integer and bool tensors only."""
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    from .spec import OPS
    return OPS["bitwise_not"].api(self)


Tensor.__invert__ = _invert


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
    promote_args=("input", "other"), function=False, method=False, check=_where_check,
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

_NO_ARG = object()


def where(condition, input=_NO_ARG, other=_NO_ARG, *, out=None):
    """Mirrors ``torch.where``: ``where(condition, input, other)`` picks elementwise (the
    op ``where``; ``out=`` as Note [out= of table functions]); ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``."""
    from .spec import OPS
    if out is not None and input is not _NO_ARG and other is not _NO_ARG:
        from .out_param import outs_of, refuse_grad, write_all
        outs = outs_of("where", out)[1]
        refuse_grad("where", [input, other] + outs)
        with no_grad():
            res = OPS["where"].api(condition, input, other)
        return write_all("where", "exact", out, outs, res)
    if input is _NO_ARG and other is _NO_ARG:
        if out is not None:
            raise TypeError("where() received an invalid combination of arguments - got "
                            "(Tensor, out=Tensor), but expected one of:\n * (Tensor "
                            "condition)\n * (Tensor condition, Tensor input, Tensor other, *, "
                            "Tensor out = None)")
        return OPS["nonzero"].api(condition, as_tuple=True)
    if input is _NO_ARG or other is _NO_ARG:
        given = ", ".join(type(v).__name__ for v in (condition, input, other)
                          if v is not _NO_ARG)
        raise TypeError(f"where() received an invalid combination of arguments - got "
                        f"({given}), but expected one of:\n * (Tensor condition)\n * (Tensor "
                        "condition, Tensor input, Tensor other, *, Tensor out = None)")
    return OPS["where"].api(condition, input, other)


where.__module__ = "torchlike"
FUNCTIONS["where"] = where
