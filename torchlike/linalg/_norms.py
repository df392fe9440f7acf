"""Linear-algebra ops, norms, rank and condition number: ``vector_norm``,
``matrix_norm``, ``norm``, ``vecdot``, ``matrix_rank`` and ``cond``, declared in the op
table (see ``torchlike/_ops/spec.py``; helpers in ``_common.py``)."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import wrap_dim
from .._ops._common import broadcast_shapes_or_raise
from .._ops.linalg import check_float, check_square, dtype_title
from .._ops.reduction import _vector_norm as _norm_kernel
from .._ops.samples import S, arr
from ._common import (_LAPACK_DTYPES, _default_tols, _kernel_check, _linalg,
                      _low_precision_check, _sq)
from ._factorize import _eigh_core


# ---------------------------------------------------------------------------
# norms
def _vector_norm_core(x, ord, axes, keepdim):
    # one implementation with ``torch.norm``: PyTorch's norm_backward, case by case, so
    # first and second derivatives at zeros are PyTorch's (``_ops/reduction.py``)
    return _norm_kernel(x, float(ord), axes, keepdim)


def _axes(ndim, dim):
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return None
    return tuple(sorted({wrap_dim(d, ndim) for d in dims}))


def _vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None, out=None):
    if dtype is not None:
        x = x.astype(dtype.np)
    return _vector_norm_core(x, ord, _axes(x.ndim, dim), keepdim)


def _vector_norm_check(x, ord=2, dim=None, keepdim=False, dtype=None, out=None):
    check_float("linalg.vector_norm", x)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str")
    if dim is not None:
        _axes(x.dim(), dim)


def _norm_samples():
    return [S(arr(5)), S(arr(3, 4), 1), S(arr(3, 4), float("inf"), 0, True),
            S(arr(3, 4), -float("inf")), S(arr(2, 3, 4), 3.0, (0, 2)),
            S(arr(3, 4), 0, grad=False), S(arr(4, dtype="float64"), -1.5),
            S(np.zeros(3, np.float32)), S(arr(4, dtype="complex64"), grad=False),
            S(arr(3), dtype=_dt.float64), S(arr(3, dtype="int64"), grad=False)]


_linalg("vector_norm", _vector_norm,
        "x, ord=2, dim=None, keepdim=False, *, dtype=None", tensor_args=("x",),
        promote="none", check=_vector_norm_check, samples=_norm_samples)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _matrix_norm_core(A, ord, dim, keepdim):
    d0, d1 = (wrap_dim(d, A.ndim) for d in dim)
    if ord == "fro":
        return _vector_norm_core(A, 2, tuple(sorted((d0, d1))), keepdim)
    if ord in ("nuc", 2, -2):
        moved = jnp.moveaxis(A, (d0, d1), (-2, -1))
        s = jnp.linalg.svd(moved, compute_uv=False)
        out = jnp.sum(s, -1) if ord == "nuc" else (jnp.max(s, -1) if ord == 2
                                                   else jnp.min(s, -1))
        if keepdim:
            for d in sorted((d0, d1)):
                out = jnp.expand_dims(out, d)
        return out
    a = jnp.abs(A)
    red = jnp.max if ord > 0 else jnp.min
    if abs(ord) == 1:    # max column sum
        s = jnp.sum(a, axis=d0, keepdims=True)
        return jnp.squeeze(red(s, axis=d1, keepdims=True), () if keepdim else (d0, d1))
    s = jnp.sum(a, axis=d1, keepdims=True)     # inf: max row sum
    return jnp.squeeze(red(s, axis=d0, keepdims=True), () if keepdim else (d0, d1))


# ``dim=None`` stands for PyTorch's default ``(-2, -1)``: the op signature parser splits on
# every comma, so tuple defaults cannot be written in a signature.
def _matrix_norm(A, ord="fro", dim=None, keepdim=False, dtype=None, out=None):
    dim = (-2, -1) if dim is None else dim
    if dtype is not None:
        A = A.astype(dtype.np)
    return _matrix_norm_core(A, ord, dim, keepdim)


def _matrix_norm_check(A, ord="fro", dim=None, keepdim=False, dtype=None, out=None):
    dim = (-2, -1) if dim is None else dim
    check_float("linalg.matrix_norm", A)
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if ord not in _MATRIX_ORDS:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        o = int(ord) if float(ord).is_integer() else ord
        raise RuntimeError(f"linalg.matrix_norm: Order {o} not supported.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    d = [wrap_dim(x, A.dim()) for x in dim]
    if d[0] == d[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if ord in (2, -2, "nuc"):   # by singular values
        _low_precision_check("linalg.matrix_norm", A)


_linalg("matrix_norm", _matrix_norm,
        "A, ord='fro', dim=None, keepdim=False, *, dtype=None",
        tensor_args=("A",), promote="none", check=_matrix_norm_check,
        samples=lambda: [S(arr(3, 4)), S(arr(3, 4), "nuc"), S(arr(3, 4), 2),
                         S(arr(3, 4), -2), S(arr(2, 3, 4), 1, keepdim=True),
                         S(arr(3, 4), -1), S(arr(3, 4), float("inf")),
                         S(arr(3, 4), -float("inf")), S(arr(3, 4, 2), "fro", (0, 2)),
                         S(arr(3, 4, 2, dtype="float64"), 2, (2, 0), True),
                         S(arr(3, 3, dtype="complex64"), grad=False),
                         S(arr(3, 3), 3, grad=False), S(arr(3), grad=False)])


def _norm(A, ord=None, dim=None, keepdim=False, dtype=None, out=None):
    if dtype is not None:
        A = A.astype(dtype.np)
    if dim is None and ord is None:
        return _vector_norm_core(A, 2, None, keepdim)
    if dim is None:
        dim = tuple(range(A.ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) == 1:
        return _vector_norm_core(A, 2 if ord is None else ord, _axes(A.ndim, dims), keepdim)
    return _matrix_norm_core(A, "fro" if ord is None else ord, dims, keepdim)


def _norm_check(A, ord=None, dim=None, keepdim=False, dtype=None, out=None):
    if dim is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {A.dim()}D.")
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if dims is None and ord is not None:
        dims = tuple(range(A.dim()))
    if dims is not None and len(dims) == 2:
        _matrix_norm_check(A, "fro" if ord is None else ord, dims)
    elif dims is not None and isinstance(ord, str):
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    elif dims is not None and len(dims) > 2:
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got [{', '.join(str(d) for d in dims)}]")
    else:
        check_float("linalg.vector_norm", A)


_linalg("norm", _norm, "A, ord=None, dim=None, keepdim=False, *, dtype=None",
        tensor_args=("A",), promote="none", check=_norm_check,
        samples=lambda: [S(arr(3, 4)), S(arr(2, 3, 4)), S(arr(5), 3.0),
                         S(arr(3, 4), "nuc"), S(arr(3, 4), 1), S(arr(3, 4), None, 1),
                         S(arr(2, 3, 4), 2, (1, 2), True), S(arr(3, 4), float("inf"), 0),
                         S(arr(2, 3, 4), 2, grad=False), S(arr(3), "fro", grad=False),
                         S(arr(3, dtype="int64"), grad=False)])


def _vecdot(x, y, dim=-1, out=None):
    return jnp.sum(jnp.conj(x) * y, axis=dim)


def _vecdot_check(x, y, dim=-1, out=None):
    check_float("linalg.vecdot", x)
    if x.dim() == 1 and y.dim() == 1 and x._shape != y._shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x._shape[0]}] and "
                           f"src [{y._shape[0]}] to have the same number of elements, but got "
                           f"{x._shape[0]} and {y._shape[0]} elements respectively")
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but "
                           f"found x of type {dtype_title(x.dtype)} and y of type "
                           f"{dtype_title(y.dtype)} instead")
    shape = broadcast_shapes_or_raise(x._shape, y._shape)
    wrap_dim(dim, len(shape))


_linalg("vecdot", _vecdot, "x, y, *, dim=-1", tensor_args=("x", "y"),
        promote="none", check=_vecdot_check,
        samples=lambda: [S(arr(3), arr(3)), S(arr(2, 3), arr(3)), S(arr(3, 2), arr(3, 2),
                                                                    dim=0),
                         S(arr(3, dtype="complex64"), arr(3, dtype="complex64"), grad=False),
                         S(arr(3, dtype="int64"), arr(3, dtype="int64"), grad=False),
                         S(arr(3), arr(3, dtype="float64"), grad=False)])


# ---------------------------------------------------------------------------
# rank and condition number
def _matrix_rank(A, tol=None, hermitian=False, atol=None, rtol=None, out=None):
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _default_tols(A, atol, rtol)
    if hermitian:
        s = jnp.abs(_eigh_core(A, "L")[0])
    else:
        s = jnp.linalg.svd(A, compute_uv=False)
    thr = jnp.maximum(atol, rtol * jnp.max(s, axis=-1, keepdims=True, initial=0.0))
    return jnp.sum(s > thr, axis=-1).astype(jnp.int64)


def _matrix_rank_check(A, *rest, **kw):
    if A.dtype.name not in _LAPACK_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")


_linalg("matrix_rank", _matrix_rank,
        "A, tol=None, hermitian=False, *, atol=None, rtol=None",
        tensor_args=("A",), promote="none", check=_matrix_rank_check, differentiable=False,
        samples=lambda: [S(arr(3, 3), grad=False), S(arr(4, 2) @ arr(2, 4), grad=False),
                         S(arr(2, 3, 5, dtype="float64"), grad=False),
                         S(arr(3, 3), atol=1.0, grad=False),
                         S(_sq(3, 3, spd=True), hermitian=True, grad=False)])


def _cond(A, p=None, out=None):
    if p in (None, 2, -2):
        s = jnp.linalg.svd(A, compute_uv=False)
        smax, smin = jnp.max(s, -1), jnp.min(s, -1)
        return smin / smax if p == -2 else smax / smin
    inv = jnp.linalg.inv(A)
    return _matrix_norm_core(A, p, (-2, -1), False) * _matrix_norm_core(inv, p, (-2, -1),
                                                                         False)


def _cond_check(A, p=None, out=None):
    check_float("linalg.svd" if p in (None, 2, -2) else "linalg.cond", A)
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p not in (None,) + _MATRIX_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p not in (None, 2, -2):
        check_square(f"linalg.cond(ord={p})", A)
        _low_precision_check("linalg.inv", A)
    else:
        _kernel_check("linalg_svd_cpu", A)


_linalg("cond", _cond, "A, p=None", tensor_args=("A",), promote="none",
        check=_cond_check,
        # PyTorch's own backward of the inverse-based orders fails (a saved tensor is
        # modified in place), so those samples compare values only.
        samples=lambda: [S(_sq(3, 3)), S(arr(3, 4)), S(_sq(3, 3), "fro", grad=False),
                         S(_sq(3, 3), 1, grad=False),
                         S(_sq(2, 3, 3, dtype="float64"), float("inf"), grad=False),
                         S(_sq(3, 3), -2),
                         S(_sq(3, 3), "nuc"), S(arr(2, 3), "fro", grad=False)])

