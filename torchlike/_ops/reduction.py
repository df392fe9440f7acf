"""Reductions: sum, nansum, mean, nanmean, prod, max/min (three overloads), amax/amin,
aminmax, argmax/argmin, norm, all/any, count_nonzero, logsumexp, softmax and log_softmax.
Each is declared once; see spec.py. Their gradients follow Note [Subgradient conventions]
in reduction_common.py."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from ._common import check_broadcast
from .elementwise_common import tensors_only
from .reduction_common import (_MISSING, _as_1d_row, _axes, _check_dims, _check_nonempty_dim,
                               _even_reduce, _from_row, _gather_dim, _grad_name, _int_dim,
                               _is_int_like, _overloaded, _short, _ties, reduce_dims)
from .samples import S, arr
from .spec import OpSpec, register
from .transposed_jvp import custom_jvp_from_vjp

__all__: list = []


# ---------------------------------------------------------------------------
# sum, nansum, mean, nanmean, prod
def _acc_dtype(input, dtype):
    """``(input, accumulation dtype)`` of ``sum``/``prod``: ``dtype`` where given (the
    input cast to it first, then accumulated in it, so an int8 sum wraps as PyTorch's
    does), else int64 for integer and bool inputs."""
    if dtype is not None:
        return input.astype(dtype.np), dtype.np
    if jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
        return input.astype(jnp.int64), jnp.int64
    return input, None


def _sum_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    input, acc = _acc_dtype(input, dtype)
    return jnp.sum(input, axis=axes, keepdims=keepdim, dtype=acc)


register(OpSpec(
    "sum", _sum_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_check_dims, saves=False, grad_name=_grad_name("SumBackward0", "SumBackward1"),
    doc="Mirrors ``torch.sum``: integer and bool inputs sum to int64 unless ``dtype``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()), S(arr(0, 3), 0),
                     S(arr(), 0), S(arr(2, 3), (0, 0)), S(arr(2, 3), 2),
                     S(arr(3, 4, dtype="int32"), grad=False),
                     S(arr(3, dtype="bool"), grad=False),
                     S(arr(3, 4), dtype=_dt.float64), S(arr(3, 4, dtype="int64"), 0,
                                                        dtype=_dt.float32, grad=False),
                     S(arr(3, 4), dtype=None),
                     # accumulated in the requested dtype: these wrap as PyTorch's do
                     S(np.array([200, 100], np.uint8), dtype=_dt.uint8, grad=False),
                     S(np.array([[100, 100], [27, 1]], np.int8), 0, dtype=_dt.int8,
                       grad=False),
                     S(arr(3, 4, dtype="int64"), 1, dtype=_dt.int32, grad=False),
                     S(np.array([1, 0, 2]), dtype=_dt.bool, grad=False)]))


def _zero_nans_fwd(x):
    return jnp.where(jnp.isnan(x), jnp.zeros_like(x), x), x


def _zero_nans_bwd(x, g):
    # PyTorch's nansum backward multiplies: an infinite grad gives NaN at NaN inputs
    # (the mask is a select of 0 and 1, not a converted bool, which XLA would fold with
    # the product into a select)
    return (g * jnp.where(jnp.isnan(x), 0, 1).astype(g.dtype),)


# the tangent is the transpose of that backward, as PyTorch's forward formula: Note
# [Tangent rules as the transpose of the VJP]
_zero_nans = custom_jvp_from_vjp(lambda x: _zero_nans_fwd(x)[0], _zero_nans_fwd,
                                 _zero_nans_bwd)


def _nansum_fn(input, dim=None, keepdim=False, dtype=None):
    if jnp.issubdtype(input.dtype, jnp.inexact):
        input = _zero_nans(input)
    return _sum_fn(input, dim, keepdim, dtype)


def _nansum_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    if input.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs")


register(OpSpec(
    "nansum", _nansum_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_nansum_check, doc="Mirrors ``torch.nansum``: NaNs count as zero.",
    samples=lambda: [S(np.array([1.0, np.nan, 2.0], np.float32)),
                     S(np.array([[1.0, np.nan], [np.nan, 3.0]], np.float64), 1, True),
                     S(arr(3, 4), -1), S(arr()), S(arr(3, dtype="int32"), grad=False)]))


def _mean_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    return jnp.mean(input, axis=axes, keepdims=keepdim)


def _mean_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    d = dtype or input.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {_short(d)}")


register(OpSpec(
    "mean", _mean_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_mean_check, saves=False, grad_name=_grad_name("MeanBackward0", "MeanBackward1"),
    doc="Mirrors ``torch.mean``; integer inputs need ``dtype=``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True),
                     S(arr(2, 3, 4), -1, keepdim=True), S(arr()), S(arr(0, 3), 1),
                     S(arr(3, 4, dtype="int64"), dtype=_dt.float32, grad=False),
                     S(arr(3, 4, dtype="int64"), grad=False)]))


def _nanmean_fn(input, dim=None, keepdim=False, dtype=None):
    axes = _axes(input, dim)
    if dtype is not None:
        input = input.astype(dtype.np)
    ok = ~jnp.isnan(input)
    total = jnp.sum(_zero_nans(input), axis=axes, keepdims=keepdim)
    return total / jnp.sum(ok, axis=axes, keepdims=keepdim).astype(total.dtype)


def _nanmean_check(input, dim=None, keepdim=False, dtype=None):
    _check_dims(input, dim)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_short(input.dtype)}")


register(OpSpec(
    "nanmean", _nanmean_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_nanmean_check, grad_name="DivBackward0",
    doc="Mirrors ``torch.nanmean``: the mean of the non-NaN elements.",
    samples=lambda: [S(np.array([1.0, np.nan, 2.0], np.float32)),
                     S(np.array([[1.0, np.nan], [np.nan, np.nan]], np.float32), 1),
                     S(arr(3, 4), 0, keepdim=True), S(arr()),
                     S(arr(3, dtype="int64"), grad=False)]))


def _prod_fn(input, dim=None, keepdim=False, dtype=None):
    input, acc = _acc_dtype(input, dtype)
    if dim is None:
        return jnp.prod(input, dtype=acc)
    return jnp.prod(input, axis=_axes(input, dim), keepdims=keepdim, dtype=acc)


def _prod_check(input, dim=None, keepdim=False, dtype=None):
    if dim is not None:
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError(f"prod() received an invalid combination of arguments - got "
                            f"(Tensor, {type(dim).__name__}), but expected one of:\n"
                            " * (Tensor input, *, torch.dtype dtype = None)\n"
                            " * (Tensor input, int dim, bool keepdim = False, *, "
                            "torch.dtype dtype = None)")
        wrap_dim(dim, input.dim())


register(OpSpec(
    "prod", _prod_fn, "input, dim=None, keepdim=False, *, dtype=None", promote="none",
    check=_prod_check, grad_name=_grad_name("ProdBackward0", "ProdBackward1"),
    doc="Mirrors ``torch.prod`` (a single ``dim``); integer inputs give int64.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(2, 3, 4), -1, True), S(arr()),
                     S(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [1.5, 2.0, -1.0]],
                                np.float32), 1),
                     S(np.array([2.0, 0.0, 3.0], np.float32)), S(arr(0, 3), 0),
                     S(arr(4, dtype="int32"), grad=False),
                     S(arr(3, 4), 0, dtype=_dt.float64),
                     S(np.array([100, 100], np.int8), dtype=_dt.int8, grad=False),
                     S(np.array([[1, 0], [1, 1]]), 1, dtype=_dt.bool, grad=False),
                     S(np.array([300, 2], np.int64), 0, dtype=_dt.int16, grad=False)]))


# ---------------------------------------------------------------------------
# max / min (three overloads), amax / amin, aminmax, argmax / argmin
def _max_min_fn(kind):
    def fn(input, other=None, dim=None, keepdim=False):
        if other is not None:
            from .arithmetic import _maximum, _minimum   # PyTorch's gradient with NaNs
            return _maximum(input, other) if kind == "max" else _minimum(input, other)
        if dim is None:
            return _even_reduce(input, kind, None, False, True)
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        key = row.astype(jnp.uint8) if row.dtype == jnp.bool_ else row
        idx = (jnp.argmax if kind == "max" else jnp.argmin)(key, axis=-1, keepdims=True)
        return _gather_dim(input, idx, axis, keepdim)
    return fn


def _max_min_binder(kind):
    def bind(input, dim=_MISSING, keepdim=_MISSING, *, other=_MISSING):
        if other is not _MISSING or isinstance(dim, Tensor):
            if other is not _MISSING and dim is not _MISSING or keepdim is not _MISSING:
                raise TypeError(f"{kind}() received an invalid combination of arguments")
            return (input, dim if other is _MISSING else other, None, False)
        if dim is _MISSING:
            if keepdim is not _MISSING:
                raise TypeError(f"{kind}() received an invalid combination of arguments - got "
                                f"(Tensor, keepdim=bool), but expected one of:\n"
                                f" * (Tensor input, *, Tensor out = None)\n"
                                f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                                f" * (Tensor input, int dim, bool keepdim = False, *, "
                                f"tuple of Tensors out = None)")
            return (input, None, None, False)
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{kind}() received an invalid combination of arguments - got "
                            f"(Tensor, {type(dim).__name__}), but expected one of:\n"
                            f" * (Tensor input, *, Tensor out = None)\n"
                            f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            f" * (Tensor input, int dim, bool keepdim = False, *, "
                            f"tuple of Tensors out = None)")
        return (input, None, int(dim), False if keepdim is _MISSING else bool(keepdim))
    return bind


def _max_min_check(kind):
    def check(input, other=None, dim=None, keepdim=False):
        if other is not None:
            check_broadcast(input, other)
            return
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return
        _check_nonempty_dim(kind, input, dim)
    return check


def _max_min_grad_name(kind):
    def name(input, other=None, dim=None, keepdim=False):
        if other is not None:
            return ("Maximum" if kind == "max" else "Minimum") + "Backward0"
        return kind.capitalize() + ("Backward1" if dim is None else "Backward0")
    return name


def _max_min_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), -1, True), S(arr(2, 3, 4), 0),
            S(arr()), S(arr(), 0), S(arr(), -1, keepdim=True),
            S(_ties()), S(_ties(), 1), S(_ties(), 0, keepdim=True), S(_ties().T, -1),
            S(np.array([2.0, 2.0, 2.0], np.float32)),
            S(np.array([1.0, np.nan, 3.0, np.nan], np.float32), 0),
            S(arr(0, 3), 1), S(arr(0, 3), 0), S(arr(0)), S(arr(3, 4), 2),
            S(arr(3, 4), arr(3, 4)), S(arr(3, 1), arr(4)), S(_ties(), _ties()[::-1].copy()),
            S(arr(3, dtype="int64"), arr(3, dtype="int32"), grad=False),
            S(arr(3, 4, dtype="int64"), 1, grad=False), S(arr(5, dtype="bool"), grad=False),
            S(arr(2, 5, dtype="bool"), 1, grad=False),
            S(arr(3, 4), method=True), S(arr(3, 4), 0, method=True),
            S(arr(3, 4), dim=1, keepdim=True)]


for _k in ("max", "min"):
    _overloaded(OpSpec(
        _k, _max_min_fn(_k), "input, other=None, dim=None, keepdim=False",
        tensor_args=("input", "other"), check=_max_min_check(_k),
        grad_name=_max_min_grad_name(_k), out_names=("values", "indices"),
        nondiff_outputs=(1,),
        doc=f"Mirrors ``torch.{_k}``: ``{_k}(input)`` (gradient split evenly among ties), "
            f"``{_k}(input, dim, keepdim=False)`` -> ``(values, indices)`` (gradient to the "
            f"returned index; the first index among ties), ``{_k}(input, other)`` "
            f"elementwise.",
        samples=_max_min_samples), _max_min_binder(_k))


def _amax_fn(kind):
    def fn(input, dim=(), keepdim=False):
        return _even_reduce(input, kind, _axes(input, dim), keepdim, False)
    return fn


def _amax_check(kind):
    def check(input, dim=(), keepdim=False):
        axes = reduce_dims(input.dim(), dim)
        if input.numel() == 0:
            if axes is None:
                raise RuntimeError(f"{kind}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            for a in axes:
                if input.dim() and input.shape[a] == 0:
                    raise IndexError(f"{kind}(): Expected reduction dim {a} to have "
                                     "non-zero size.")
    return check


def _amax_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), True), S(arr(2, 3, 4), -1),
            S(_ties()), S(_ties(), 1), S(_ties(), 0, True), S(arr()), S(arr(), 0),
            S(np.array([1.0, np.nan, 2.0], np.float32), 0), S(arr(0, 3), 1), S(arr(0, 3)),
            S(arr(0, 3), 0), S(arr(3, 4, dtype="int32"), 1, grad=False)]


for _k in ("max", "min"):
    register(OpSpec(
        "a" + _k, _amax_fn(_k), "input, dim=(), keepdim=False", check=_amax_check("a" + _k),
        doc=f"Mirrors ``torch.a{_k}``: the gradient is split evenly among ties.",
        samples=_amax_samples))


def _aminmax_fn(input, dim=None, keepdim=False):
    axes = None if dim is None else _axes(input, dim)
    kd = keepdim if dim is not None else False
    out = (_even_reduce(input, "min", axes, kd, False),
           _even_reduce(input, "max", axes, kd, False))
    if dim is None and keepdim:
        out = tuple(o.reshape((1,) * input.ndim) for o in out)
    return out


def _aminmax_check(input, dim=None, keepdim=False):
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        return
    _int_dim("aminmax", dim)
    _check_nonempty_dim("aminmax", input, dim, sep="")


register(OpSpec(
    "aminmax", _aminmax_fn, "input, *, dim=None, keepdim=False", check=_aminmax_check,
    out_names=("min", "max"), doc="Mirrors ``torch.aminmax`` -> ``(min, max)``.",
    samples=lambda: [S(arr(3, 4)), S(arr(3, 4), dim=1), S(arr(3, 4), dim=-1, keepdim=True),
                     S(_ties(), dim=1), S(_ties()), S(arr()), S(arr(0)), S(arr(0, 3), dim=0),
                     S(arr(0, 3), dim=1), S(arr(4, dtype="int64"), grad=False),
                     S(arr(3, 4), keepdim=True)]))


def _argmax_fn(kind):
    def fn(input, dim=None, keepdim=False):
        f = jnp.argmax if kind == "max" else jnp.argmin
        if dim is None:
            i = f(input.reshape(-1)).astype(jnp.int64)
            return i.reshape((1,) * input.ndim) if keepdim else i
        axis = wrap_dim(dim, input.ndim)
        idx = f(_as_1d_row(input, axis), axis=-1, keepdims=True)
        return _from_row(idx.astype(jnp.int64), axis, input.ndim, keepdim)
    return fn


def _argmax_check(kind):
    def check(input, dim=None, keepdim=False):
        if input.dtype is _dt.bool:
            raise RuntimeError(f"{kind}(): does not support bool input")
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"{kind}(): Expected reduction dim to be specified for "
                                 "input.numel() == 0.")
            return
        _int_dim(kind, dim)
        _check_nonempty_dim(kind, input, dim)
    return check


for _k in ("max", "min"):
    register(OpSpec(
        "arg" + _k, _argmax_fn(_k), "input, dim=None, keepdim=False",
        check=_argmax_check("arg" + _k), differentiable=False,
        doc=f"Mirrors ``torch.arg{_k}``: the first index among ties; NaN wins.",
        samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), 0, True), S(_ties()),
                         S(_ties(), 1), S(arr()), S(arr(), 0), S(arr(3, 4), keepdim=True),
                         S(np.array([1.0, np.nan, 3.0], np.float32)),
                         S(arr(5, dtype="int64")), S(arr(0)), S(arr(0, 3), 0),
                         S(arr(0, 3), 1), S(arr(3, dtype="bool"))]))


# ---------------------------------------------------------------------------
# norm
def _abs_pow_norm(a, p, axes, keepdim):
    if p == math.inf:
        return jnp.max(a, axis=axes, keepdims=keepdim)
    if p == -math.inf:
        return jnp.min(a, axis=axes, keepdims=keepdim)
    if p == 0:
        return jnp.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=axes, keepdims=keepdim))
    return jnp.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


def _vector_norm_fwd(x, p, axes, keepdim):
    out = _vector_norm(x, p, axes, keepdim)
    return out, (x, out)


def _vector_norm_bwd(p, axes, keepdim, res, g):
    x = res[0]
    (gx,) = _norm_backward(p, axes, keepdim, res, g)
    # PyTorch's formula gives the conjugate Wirtinger gradient; a JAX cotangent of a
    # complex input is its conjugate
    return (jnp.conj(gx),) if jnp.iscomplexobj(x) else (gx,)


def _norm_backward(p, axes, keepdim, res, g):
    # PyTorch's norm_backward, case by case.
    x, norm = res
    axes_ = tuple(range(x.ndim)) if axes is None else axes
    if not keepdim:
        norm = jnp.expand_dims(norm, axes_)
        g = jnp.expand_dims(g, axes_)
    a = jnp.abs(x)
    zero = jnp.zeros_like(x)
    if jnp.iscomplexobj(x):
        sgn = jnp.where(a == 0, zero, x / jnp.where(a == 0, 1, a).astype(x.dtype))
    else:   # PyTorch's sgn: +-1 also at +-inf, and 0 at +-0 and NaN (jnp.sign keeps the
        # dependence on x that double backward's requires_grad analysis follows)
        sgn = jnp.where((x > 0) | (x < 0), jnp.sign(x), zero)
    if p == 0:
        return (zero,)
    if p == 1:
        return (sgn * g,)
    if p == 2:
        return (g * jnp.where(norm == 0, zero, x / norm),)
    if math.isinf(p):
        mask = (a == norm) | jnp.isnan(a)
        cnt = jnp.sum(mask, axis=axes_, keepdims=True).astype(g.dtype)
        return (sgn * jnp.where(mask, g / cnt, 0).astype(x.dtype),)
    if p < 1:
        scaled = sgn * jnp.where(x == 0, 0, a ** (p - 1)).astype(x.dtype)
        return (scaled * g * norm ** (1 - p),)
    scaled = sgn * a ** (p - 1) if p < 2 else x * a ** (p - 2)
    # (the divisor is 1 where the norm is 0, so that the transpose, the tangent, is 0)
    scale = jnp.where(norm == 0, 0, g / jnp.where(norm == 0, 1, norm ** (p - 1)))
    return (scaled * scale,)


# PyTorch's norm_jvp is the transpose of norm_backward (0 where the norm is 0, ties of
# the inf-norm sharing evenly): Note [Tangent rules as the transpose of the VJP]
_vector_norm = custom_jvp_from_vjp(
    lambda x, p, axes, keepdim: _abs_pow_norm(jnp.abs(x), p, axes, keepdim),
    _vector_norm_fwd, _vector_norm_bwd, nondiff_argnums=(1, 2, 3))


def _nuclear_norm(x, axes, keepdim):
    a = jnp.moveaxis(x, axes, (-2, -1))
    out = jnp.sum(jnp.linalg.svd(a, compute_uv=False), axis=-1)
    if keepdim:
        out = jnp.expand_dims(out, axes)
    return out


def _norm_plan(input_ndim, p, dim):
    """('vector', p, axes) or ('nuc', axes) following ``torch.norm``'s dispatch."""
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return ("vector", 2.0, dim)
        dims = tuple(range(input_ndim)) if dim is None else tuple(dim)
        return ("matrix", p, dims)
    return ("vector", 2.0 if p is None else float(p), dim)


def _norm_fn(input, p="fro", dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        input = input.astype(dtype.np)
    kind, q, dims = _norm_plan(input.ndim, p, dim)
    if kind == "matrix":
        axes = tuple(wrap_dim(d, input.ndim) for d in dims)
        return _nuclear_norm(input, axes, keepdim)
    axes = _axes(input, dims)
    return _vector_norm(input, q, axes, keepdim)


def _norm_check(input, p="fro", dim=None, keepdim=False, dtype=None):
    kind, q, dims = _norm_plan(input.dim(), p, dim)
    name = "linalg.vector_norm" if kind == "vector" else "linalg.matrix_norm"
    d = dtype or input.dtype
    if _is_int_like(d):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {_short(d)}")
    if kind == "matrix":
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                               f"{' '.join(str(x) for x in dims)}")
        if q != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {q} not supported.")
        a = [wrap_dim(x, input.dim()) for x in dims]
        if a[0] == a[1]:
            raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, "
                               f"{dims[1]})")
        if input.dtype.name in ("float16", "bfloat16"):   # singular values, by LAPACK
            raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. Got "
                               f"{_short(input.dtype)}")
        return
    axes = reduce_dims(input.dim(), dims)
    if input.numel() == 0 and (q < 0 or math.isinf(q)):
        if axes is None or any(input.shape[a] == 0 for a in axes if input.dim()):
            qs = f"{q:g}"
            raise RuntimeError(f"linalg.vector_norm cannot compute the {qs} norm on an empty "
                               "tensor because the operation does not have an identity")


register(OpSpec(
    "norm", _norm_fn, "input, p='fro', dim=None, keepdim=False, dtype=None",
    check=_norm_check, promote="none",
    grad_name=lambda input, p="fro", *r: "SumBackward1" if p == "nuc"
    else "LinalgVectorNormBackward0",
    doc="Mirrors ``torch.norm``: numeric ``p`` and ``'fro'`` are vector norms "
        "(``torch.linalg.vector_norm``), ``'nuc'`` the nuclear norm over two dims. "
        "The gradient is PyTorch's (0 where the norm is 0; for inf norms split evenly).",
    samples=lambda: [
        S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), 2, 1), S(arr(3, 4), float("inf")),
        S(arr(3, 4), -math.inf, 0), S(arr(3, 4), 0), S(arr(3, 4), 1.5, -1, True),
        S(arr(3, 4), 3.0, (0, 1)), S(arr(3, 4), 0.5), S(arr(3, 4), -1.0, 1),
        S(arr(3, 4), "fro", (0, 1)), S(arr(3, 4), "nuc"), S(arr(2, 3, 4), "nuc", (1, 2)),
        S(arr(2, 3, 4), "nuc", (0, 2), True), S(np.zeros((2, 3), np.float32)),
        S(np.zeros((2, 3), np.float32), 1, 1), S(np.zeros((2, 3), np.float32), 3.0),
        S(np.zeros((2, 3), np.float32), 0.5), S(np.zeros((2, 3), np.float32), math.inf),
        S(np.array([[0.0, 1.0], [-2.0, 0.0]], np.float32), 1),
        S(np.array([[3.0, -3.0], [1.0, 0.0]], np.float32), math.inf, 1),
        S(arr()), S(arr(), 1), S(arr(0)), S(arr(0), math.inf), S(arr(2, 3, 4), "fro"),
        S(arr(2, 3, 4), "fro", (0, 1, 2)), S(arr(2, 3), "abc"), S(arr(3, dtype="int64")),
        S(arr(3, 4, dtype="float64"), 2, dtype=_dt.float64), S(arr(3, 4), dim=1),
        S(arr(3, dtype="complex64"), grad=False), S(arr(3, 4), 2, method=True)]))


# ---------------------------------------------------------------------------
# dist
_dist_tensors = tensors_only("dist", ("input", "other"), (0, 1))


def _dist_check(input, other, p=2):
    _dist_tensors(input, other)
    check_broadcast(input, other)
    d = _dt.promote_types(input.dtype, other.dtype)
    if _is_int_like(d):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_short(d)} instead.")


register(OpSpec(
    "dist", lambda input, other, p=2: _vector_norm(input - other, float(p), None, False),
    "input, other, p=2", tensor_args=("input", "other"), check=_dist_check,
    grad_name="DistBackward0",
    doc="Mirrors ``torch.dist``: the ``p``-norm of ``input - other`` (broadcast), with "
        "``torch.norm``'s gradient (zero for ``p=0``, where PyTorch's backward raises).",
    samples=lambda: [
        S(arr(3, 4), arr(3, 4)), S(arr(3, 4), arr(4), 1), S(arr(3, 4), arr(3, 1), 0, grad=False),
        S(arr(2, 3), arr(2, 3), math.inf), S(arr(2, 3), arr(3), -math.inf),
        S(arr(2, 3), arr(2, 3), 1.5), S(arr(2, 3), arr(2, 3), -1.0), S(arr(), arr()),
        S(arr(3, dtype="float64"), arr(3), 3), S(arr(3, 4), arr(4), method=True),
        S(arr(3, dtype="int64"), arr(3, dtype="int64")), S(arr(2, 3), arr(4))]))


# ---------------------------------------------------------------------------
# all / any / count_nonzero
def _all_any_fn(kind):
    def fn(input, dim=None, keepdim=False):
        f = jnp.all if kind == "all" else jnp.any
        out = f(input != 0, axis=_axes(input, dim), keepdims=keepdim)
        return out.astype(jnp.uint8) if input.dtype == jnp.uint8 else out
    return fn


for _k in ("all", "any"):
    register(OpSpec(
        _k, _all_any_fn(_k), "input, dim=None, keepdim=False", check=_check_dims,
        differentiable=False, promote="none",
        doc=f"Mirrors ``torch.{_k}``: bool results (uint8 for uint8 input).",
        samples=lambda: [S(arr(3, 4, dtype="bool")), S(arr(3, 4, dtype="bool"), 1),
                         S(arr(3, 4, dtype="bool"), (0, 1), True), S(arr(3, 4), 0),
                         S(np.array([[1, 0], [2, 3]], np.int64), -1),
                         S(np.array([1, 2], np.uint8)), S(np.array([1, 0], np.uint8), 0),
                         S(arr(0, dtype="bool")), S(arr(0, 3), 1), S(arr()), S(arr(), 0),
                         S(np.array([0.0, np.nan], np.float32))]))


def _count_nonzero_fn(input, dim=None):
    return jnp.sum(input != 0, axis=_axes(input, dim)).astype(jnp.int64)


register(OpSpec(
    "count_nonzero", _count_nonzero_fn, "input, dim=None", check=_check_dims,
    differentiable=False, promote="none", doc="Mirrors ``torch.count_nonzero``.",
    samples=lambda: [S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32)),
                     S(np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], np.float32), 1),
                     S(arr(2, 3, 4, dtype="int64"), (0, 2)), S(arr(3, dtype="bool")),
                     S(arr()), S(arr(0, 3), 0), S(arr(2, 3), (0, 0))]))


# ---------------------------------------------------------------------------
# logsumexp, softmax, log_softmax
def _logsumexp_fn(input, dim, keepdim=False):
    return jax.nn.logsumexp(input, axis=_axes(input, dim), keepdims=keepdim)


register(OpSpec(
    "logsumexp", _logsumexp_fn, "input, dim, keepdim=False", promote="float",
    check=_check_dims, doc="Mirrors ``torch.logsumexp`` (integers compute in the default "
                           "float dtype).",
    samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), (0, 1)), S(arr(3, 4), -1, True),
                     S(arr(), 0), S(arr(0, 3), 0), S(arr(0, 3), 1),
                     S(np.array([[-np.inf, 1.0], [-np.inf, -np.inf]], np.float32), 1,
                       grad=False),
                     S(arr(3, dtype="int64"), 0, grad=False), S(arr(3, 4), dim=0)]))


def _softmax_fn(log):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.astype(dtype.np)
        f = jax.nn.log_softmax if log else jax.nn.softmax
        if input.ndim == 0:
            return f(input.reshape(1), axis=0).reshape(())
        return f(input, axis=wrap_dim(dim, input.ndim))
    return fn


def _softmax_check(log):
    def check(input, dim, dtype=None):
        wrap_dim(dim, input.dim())
        if _is_int_like(dtype or input.dtype):
            last = input.dim() == 0 or wrap_dim(dim, input.dim()) == input.dim() - 1
            k = ("log_" if log else "") + "softmax" + ("_lastdim" if last else "")
            raise NotImplementedError(f'"{k}_kernel_impl" not implemented for '
                                      f"'{_short(dtype or input.dtype)}'")
    return check


for _n, _log in (("softmax", False), ("log_softmax", True)):
    register(OpSpec(
        _n, _softmax_fn(_log), "input, dim, dtype=None", promote="none",
        check=_softmax_check(_log),
        grad_name="LogSoftmaxBackward0" if _log else "SoftmaxBackward0",
        doc=f"Mirrors ``torch.{_n}(input, dim, dtype=None)`` and ``Tensor.{_n}``.",
        samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4), -1), S(arr(), 0),
                         S(arr(0, 3), 1), S(arr(3, 4), 1, dtype=_dt.float64),
                         S(arr(3, 4), dim=-1, method=True),
                         S(np.array([[-np.inf, 1.0, 2.0]], np.float32), 1),
                         S(arr(3, dtype="int64"), 0, grad=False),
                         S(arr(3, dtype="int64"), 0, _dt.float32, grad=False)]))
