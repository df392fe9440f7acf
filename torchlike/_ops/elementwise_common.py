"""What the elementwise families (``arithmetic.py``, ``comparison.py``,
``elementwise.py``) declare their ops with: sample tables shared by many ops, dtype and
argument-kind checks that raise PyTorch's errors, and the ``unary``/``binary``
declaration helpers. They declare no ops themselves."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import check_broadcast
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


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
    elif domain == "positive01":
        kw = dict(low=0.05, high=0.95)
    out = [S(arr(3, 4, **kw)), S(arr(**kw)), S(arr(0, 3, **kw)),
           S(arr(2, 3, 4, dtype="float64", **kw))]
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
# dtype support and argument-kind checks (PyTorch's kernels reject some dtypes)
def _kind(d) -> str:
    if d is _dt.bool:
        return "bool"
    return ("bool", "int", "float", "complex")[d._category]


def _dtype_title(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


def _not_impl(kernel: str, d) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dtype_title(d)}\'')


def reject(kinds, kernel: str | None = None, msg: str | None = None,
           exc=NotImplementedError, args: tuple = (0,)):
    """A check raising PyTorch's error when a tensor argument's dtype kind
    ("bool", "int", "float", "complex") is one the kernel does not implement."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)

    def chk(*vals):
        for i in args:
            v = vals[i]
            if isinstance(v, Tensor) and _kind(v.dtype) in kinds:
                if msg is not None:
                    raise exc(msg)
                raise _not_impl(kernel, v.dtype)
    return chk


def reject_common(kinds, kernel: str, nargs: int = 2):
    """Like ``reject``, on the operands' common (result) dtype, as PyTorch's binary
    kernels dispatch on it."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)

    def chk(*vals):
        metas = []
        for v in vals[:nargs]:
            if isinstance(v, Tensor):
                metas.append((v.dtype, v.dim(), False))
            elif isinstance(v, (bool, int, float, complex)):
                metas.append((_dt.scalar_dtype(v), 0, True))
        if metas:
            d = _dt.result_type_of(metas)
            if _kind(d) in kinds:
                raise _not_impl(kernel, d)
    return chk


def _check_alpha(input, other, alpha=1):
    """PyTorch's ``alpha_check`` against the result dtype (a Python int always passes)."""
    if type(alpha) is int:
        return
    metas = [(v.dtype, v.dim(), False) if isinstance(v, Tensor) else
             (_dt.scalar_dtype(v), 0, True) for v in (input, other)
             if isinstance(v, (Tensor, bool, int, float, complex))]
    result = _dt.result_type_of(metas) if metas else _dt.get_default_dtype()
    if isinstance(alpha, bool) and result is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, (float, complex)) and not (result.is_floating_point or
                                                    result.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a "
                           "floating point number.")
    if isinstance(alpha, complex) and not result.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a "
                           "complex number.")


# Note [Cheap eager checks]
# A check runs before every eager call of its op, next to an executable launch of a few
# microseconds, so the helpers below return the check itself when there is only one
# and test the common case (plain Tensors of equal shapes) before anything else.
def checks(*fns):
    """Run several checks in order."""
    fns = tuple(f for f in fns if f is not None)
    if len(fns) == 1:
        return fns[0]

    def chk(*vals):
        for f in fns:
            f(*vals)
    return chk if fns else None


def tensors_only(opname: str, params: tuple, positions: tuple):
    """PyTorch's argument parser: these parameters must be Tensors, not Python numbers."""
    def fail(vals):
        for p, i in zip(params, positions):
            v = vals[i]
            if not isinstance(v, Tensor):
                raise TypeError(f"{opname}(): argument '{p}' (position {i + 1}) must be "
                                f"Tensor, not {type(v).__name__}")

    if positions == (0,):
        def chk(input, *rest):
            if type(input) is not Tensor and not isinstance(input, Tensor):
                fail((input,))
        return chk

    def chk(*vals):
        for i in positions:
            if not isinstance(vals[i], Tensor):
                fail(vals)
    return chk


def _first_tensor(opname: str):
    def chk(input, *rest):
        if not isinstance(input, Tensor):
            raise TypeError(f"{opname}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, ...), but expected (Tensor input, "
                            "Tensor or Number other)")
    return chk


# ---------------------------------------------------------------------------
# Note [Half precision math]
# PyTorch's kernels compute on float16 and bfloat16 tensors in float32 and round the
# result once (``Vectorized<BFloat16>`` converts, computes and converts back; its CUDA
# kernels use ``opmath_t``). jax.numpy computes such ops in the tensor's dtype, and the
# ones it composes of several steps (``exp2``, ``log10``, ``sigmoid``, ``asin``...)
# round after each, so bfloat16 ``torch.sigmoid`` differed from PyTorch's in the last
# bit for a third of the elements, ``exp2`` for half. The math functions (``unary``)
# therefore compute half inputs in float32. Their derivatives stay in the tensor's
# dtype: PyTorch's are formulas of half tensors (``grad * x.cos()``), one rounding per
# op, which JAX's derivative rules reproduce. The activations with a backward kernel of
# their own (``silu_backward``, ``softplus_backward``...) compute both in float32
# (``half_in_float32(fn, grad=True)``, used by nn_activation.py). Measured on 20,000
# values per op against PyTorch 2.13: the forward results now agree bit for bit except
# for gelu (6-8 % of elements, from its erf).
def half_in_float32(fn, grad: bool = False):
    """``fn`` of one array, computed in float32 for float16/bfloat16 input and rounded
    once (Note [Half precision math]); ``grad``: its derivative too, else the derivative
    stays ``fn``'s in the input's dtype."""
    def full(x, *rest):
        return fn(x.astype(jnp.float32), *rest).astype(x.dtype)

    @jax.custom_jvp
    def forward_only(x):
        return full(x)

    @forward_only.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return forward_only(x), jax.jvp(fn, (x,), (t,))[1]

    def wrapped(x, *rest):
        if getattr(x, "dtype", None) not in (jnp.float16, jnp.bfloat16):
            return fn(x, *rest)
        return full(x, *rest) if grad else forward_only(x)
    return wrapped


# ---------------------------------------------------------------------------
# declaration helpers
def unary(name, fn, *, promote="float", dunders=(), inplace=True, samples=None,
          domain="real", ints=True, check=None, **kw):
    if promote == "float":   # the math functions: Note [Half precision math]
        fn = half_in_float32(fn)
    register(OpSpec(name, lambda input: fn(input), "input", promote=promote,
                    dunders=dunders, inplace=inplace,
                    check=checks(tensors_only(name, ("input",), (0,)), check),
                    samples=samples or (lambda: _unary_samples(domain, ints)), **kw))


def binary(name, fn, *, promote="common", sig="input, other", dunders=(), inplace=True,
           samples=None, check=None, tensor_only=False, dynamic=(), alpha=False, **kw):
    """``tensor_only``: True when PyTorch accepts only Tensors (no Python numbers) for both
    operands, "first" when only ``other`` may be a number. ``dynamic``: scalar parameters
    passed as values rather than compiled in (``alpha``), so changing them between calls
    does not compile a new executable. ``alpha``: the third parameter is PyTorch's
    ``alpha``, refused as a float for integral operands."""
    params = tuple(p.strip().split("=")[0] for p in sig.split(",")[:2])
    kinds = (tensors_only(name, params, (0, 1)) if tensor_only is True else
             _first_tensor(name) if tensor_only == "first" else None)

    def chk(*vals):
        a, b = vals[0], vals[1]
        # two plain Tensors of one shape pass the operand kinds and the broadcast
        if type(a) is not Tensor or type(b) is not Tensor or a._shape != b._shape:
            if kinds is not None:
                kinds(*vals)
            check_broadcast(a, b)
        if check is not None:
            check(*vals)
        if alpha and type(vals[2]) is not int:
            _check_alpha(*vals)
    spec = register(OpSpec(name, fn, sig, tensor_args=params + tuple(dynamic),
                           promote=promote, promote_args=params, dunders=dunders,
                           inplace=inplace, check=chk,
                           samples=samples or (lambda: _binary_samples()), **kw))
    if check is None:   # Note [Plain calls]: what passes ``chk`` at the default ``alpha``
        spec.extra["plain_check_free"] = "any" if kinds is None else "tensors"
