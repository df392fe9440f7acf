"""Linear-algebra ops, part two: products scaled and added (``addmm``, ``addmv``,
``addbmm``, ``baddbmm``, ``addr``), ``cross``/``linalg.cross``, ``cdist`` and chains of
products (``chain_matmul``, ``linalg.multi_dot``). The shared checks, names and Note
[Matmul precision] are in ``linalg.py``, which imports this file."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax import lax
import numpy as np

from .._core.tensor import wrap_dim
from .._core.xla import matmul_precision
from ._common import broadcast_shapes_or_raise, shape_str, warn_at_caller
from .arithmetic import _select
from .elementwise import _abs
from .linalg import (_bmm_check, _check_no_bool, _mm_msg, _mv_check,
                     _same_dtype_m1m2, _same_dtype_scalar_type, dtype_title)
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# add*-products: out = beta * input + alpha * (product)
# Note [Half-precision add*-products]
# For float16 and bfloat16, PyTorch's CPU ``addmm``/``addmv``/``baddbmm``/``addbmm``
# accumulate the product in float32 and form ``beta * input + alpha * product`` in
# float32 too, rounding once at the end (its gemm's ``opmath_t``). Rounding the product
# to half first and then adding, as the plain expression would, gives results up to an
# ulp or two off (measured: 0.0156 in float16 on a 4x3000x8 ``addmm``). So the product
# is asked for in float32 (``preferred_element_type``: half inputs stay half, as the
# GPU's tensor cores want them) and the sum is cast back once.
_HALF = (jnp.float16, jnp.bfloat16)


def _product(fn, a, b, *rest):
    """``fn(a, b, *rest, precision=..., preferred_element_type=...)``: float32 for half
    inputs (Note [Half-precision add*-products])."""
    acc = jnp.float32 if a.dtype in _HALF else None
    return fn(*rest, a, b, precision=matmul_precision(), preferred_element_type=acc)


def _scaled(input, prod, beta, alpha):
    if jnp.issubdtype(prod.dtype, jnp.integer):
        beta, alpha = int(beta), int(alpha)
    dt = input.dtype
    half = dt in _HALF and prod.dtype == jnp.float32   # a product in float32 (see Note)
    if half:
        input = input.astype(jnp.float32)
    out = prod if alpha == 1 else alpha * prod
    if beta != 0:  # beta == 0: PyTorch ignores input (nan/inf in it do not propagate)
        out = out + (input if beta == 1 else beta * input)
    return out.astype(dt) if half else out


def _check_expand(input, target: tuple) -> None:
    s = input._shape
    n = len(target)
    if len(s) > n:
        raise RuntimeError(f"The expanded size of the tensor ({target[0] if target else 0}) "
                           f"must match the existing size ({s[0]}) at non-singleton "
                           f"dimension 0.  Target sizes: {shape_str(target)}.  Tensor "
                           f"sizes: {shape_str(s)}")
    for i in range(1, len(s) + 1):
        if s[-i] != 1 and s[-i] != target[-i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[-i]}) must match the "
                               f"existing size ({s[-i]}) at non-singleton dimension {n - i}."
                               f"  Target sizes: {shape_str(target)}.  Tensor sizes: "
                               f"{shape_str(s)}")


def _addmm(input, mat1, mat2, beta=1, alpha=1):
    return _scaled(input, _product(jnp.matmul, mat1, mat2), beta, alpha)


def _addmm_check(input, mat1, mat2, beta=1, alpha=1):
    if mat1.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.dim()}-D tensor")
    if mat2.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.dim()}-D tensor")
    _check_no_bool("addmm_impl_cpu_", mat1, mat2)
    _same_dtype_m1m2(mat1, mat2)
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{dtype_title(input.dtype)} and {dtype_title(mat2.dtype)}")
    if mat1._shape[1] != mat2._shape[0]:
        raise RuntimeError(_mm_msg(mat1._shape, mat2._shape))
    _check_expand(input, (mat1._shape[0], mat2._shape[1]))


_ADD_SIG = "input, {a}, {b}, *, beta=1, alpha=1"

register(OpSpec(
    "addmm", _addmm, _ADD_SIG.format(a="mat1", b="mat2"),
    tensor_args=("input", "mat1", "mat2"), promote="none", inplace=True, check=_addmm_check,
    samples=lambda: [S(arr(2, 4), arr(2, 3), arr(3, 4)), S(arr(4), arr(2, 3), arr(3, 4)),
                     S(arr(2, 4), arr(2, 3), arr(3, 4), beta=0.5, alpha=2.0),
                     S(np.full((2, 2), np.nan, np.float32), arr(2, 3), arr(3, 2), beta=0),
                     S(arr(2, 2, dtype="int64"), arr(2, 3, dtype="int64"),
                       arr(3, 2, dtype="int64"), beta=2, grad=False),
                     S(arr(2, 4, dtype="float64"), arr(2, 3, dtype="float64"),
                       arr(3, 4, dtype="float64")),
                     S(arr(2, 5), arr(2, 3), arr(4, 5), grad=False),
                     S(arr(3, 5), arr(2, 3), arr(3, 5), grad=False)]))


def _addmv(input, mat, vec, beta=1, alpha=1):
    return _scaled(input, _product(jnp.matmul, mat, vec), beta, alpha)


def _addmv_check(input, mat, vec, beta=1, alpha=1):
    _mv_check(mat, vec)
    _check_expand(input, (mat._shape[0],))


register(OpSpec(
    "addmv", _addmv, _ADD_SIG.format(a="mat", b="vec"), tensor_args=("input", "mat", "vec"),
    promote="none", inplace=True, check=_addmv_check,
    samples=lambda: [S(arr(2), arr(2, 3), arr(3)), S(arr(), arr(2, 3), arr(3), alpha=0.5),
                     S(arr(2), arr(2, 3), arr(3), beta=-1.0),
                     S(arr(2), arr(2, 3), arr(4), grad=False)]))


def _addr(input, vec1, vec2, beta=1, alpha=1):
    prod = jnp.outer(vec1, vec2)
    if prod.dtype == jnp.bool_:
        out = prod if alpha else jnp.zeros_like(prod)
        return out if beta == 0 else (out | (input.astype(bool) if beta else False))
    if alpha != 1:
        # PyTorch's kernel computes ``beta * self + alpha * vec1 * vec2`` left to right, each
        # step rounded in the tensors' dtype (visible in float16/bfloat16)
        if jnp.issubdtype(prod.dtype, jnp.integer):
            alpha = int(alpha)
        prod = jnp.outer(alpha * vec1, vec2)
    return _scaled(input, prod, beta, 1)


def _addr_check(input, vec1, vec2, beta=1, alpha=1):
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D"
                           if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    _check_expand(input, (vec1._shape[0], vec2._shape[0]))


register(OpSpec(
    "addr", _addr, _ADD_SIG.format(a="vec1", b="vec2"), tensor_args=("input", "vec1", "vec2"),
    promote="common", inplace=True, check=_addr_check,
    samples=lambda: [S(arr(2, 3), arr(2), arr(3)), S(arr(3), arr(2), arr(3), beta=2.0,
                                                     alpha=0.5),
                     # PyTorch's own backward fails for mixed dtypes here
                     S(arr(2, 3, dtype="float64"), arr(2), arr(3), grad=False),
                     S(arr(2, 3), arr(2), arr(4), grad=False)]))


def _addbmm(input, batch1, batch2, beta=1, alpha=1):
    n = batch1.shape[0]
    if batch1.dtype not in _HALF or n == 0:
        return _scaled(input, _product(jnp.einsum, batch1, batch2, "bij,bjk->ik"), beta, alpha)
    # PyTorch adds the batches one ``addmm_`` at a time, rounding to half after each
    # (Note [Half-precision add*-products])
    shape = (batch1.shape[1], batch2.shape[2])
    out = _scaled(jnp.broadcast_to(input, shape), _product(jnp.matmul, batch1[0], batch2[0]),
                  beta, alpha)

    def step(acc, b):
        return _scaled(acc, _product(jnp.matmul, b[0], b[1]), 1, alpha), None
    return lax.scan(step, out, (batch1[1:], batch2[1:]))[0]


def _baddbmm(input, batch1, batch2, beta=1, alpha=1):
    return _scaled(input, _product(jnp.matmul, batch1, batch2), beta, alpha)


def _bmm_family_check(name, batched):
    def check(input, batch1, batch2, beta=1, alpha=1):
        _bmm_check(batch1, batch2)
        if input.dtype is not batch1.dtype:
            raise RuntimeError(f"expected scalar type {dtype_title(batch1.dtype)} but found "
                               f"{dtype_title(input.dtype)}")
        b, n, _ = batch1._shape
        m = batch2._shape[2]
        _check_expand(input, (b, n, m) if batched else (n, m))
    return check


register(OpSpec(
    "addbmm", _addbmm, _ADD_SIG.format(a="batch1", b="batch2"),
    tensor_args=("input", "batch1", "batch2"), promote="none", inplace=True,
    check=_bmm_family_check("addbmm", False),
    samples=lambda: [S(arr(2, 4), arr(3, 2, 3), arr(3, 3, 4)),
                     S(arr(2, 4), arr(3, 2, 3), arr(3, 3, 4), beta=0.5, alpha=-1.0),
                     S(arr(2, 4), arr(3, 2, 3), arr(2, 3, 4), grad=False)]))
register(OpSpec(
    "baddbmm", _baddbmm, _ADD_SIG.format(a="batch1", b="batch2"),
    tensor_args=("input", "batch1", "batch2"), promote="none", inplace=True,
    check=_bmm_family_check("baddbmm", True),
    samples=lambda: [S(arr(3, 2, 4), arr(3, 2, 3), arr(3, 3, 4)),
                     S(arr(2, 4), arr(3, 2, 3), arr(3, 3, 4), beta=0.5, alpha=2.0),
                     S(arr(3, 2, 4), arr(3, 2, 3), arr(3, 3, 4), beta=0),
                     S(arr(3, 2, 4), arr(3, 2, 3), arr(3, 4, 4), grad=False)]))


# ---------------------------------------------------------------------------
# cross
def _cross_fn(input, other, dim):
    shape = jnp.broadcast_shapes(input.shape, other.shape)
    a = jnp.moveaxis(jnp.broadcast_to(input, shape), dim, -1)
    b = jnp.moveaxis(jnp.broadcast_to(other, shape), dim, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = jnp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return jnp.moveaxis(out, -1, dim)


def _cross_dim(input, other, dim):
    shape = broadcast_shapes_or_raise(input._shape, other._shape)
    if dim is None:
        for i, s in enumerate(shape):
            if s == 3:
                return i
        raise RuntimeError("no dimension of size 3 in input")
    return wrap_dim(dim, len(shape))


def _torch_cross(input, other, dim=None):
    nd = max(input.ndim, other.ndim)
    if dim is None:
        shape = jnp.broadcast_shapes(input.shape, other.shape)
        dim = next(i for i, s in enumerate(shape) if s == 3)
    return _cross_fn(input, other, dim % nd)


def _cross_check_common(name, input, other, dim):
    _same_dtype_scalar_type(input, other)
    if input.dim() != other.dim():
        raise RuntimeError(f"{name}: inputs must have the same number of dimensions.")
    d = _cross_dim(input, other, dim)
    if dim is not None and (input._shape[d] != 3 or other._shape[d] != 3):
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input._shape[d]} and {other._shape[d]}")


def _torch_cross_check(input, other, dim=None):
    if dim is None:
        warn_at_caller("Using torch.cross without specifying the dim arg is deprecated.\n"
                       "Please either pass the dim explicitly or simply use "
                       "torchlike.linalg.cross.\nThe default value of dim will change to "
                       "agree with that of linalg.cross in a future release.")
    _cross_check_common("linalg.cross", input, other, dim)


register(OpSpec(
    "cross", _torch_cross, "input, other, dim=None", tensor_args=("input", "other"),
    promote="none", check=_torch_cross_check,
    samples=lambda: [S(arr(4, 3), arr(4, 3), dim=1), S(arr(3, 2), arr(3, 2), dim=0),
                     S(arr(2, 3, dtype="float64"), arr(1, 3, dtype="float64"), dim=-1),
                     S(arr(3, dtype="int64"), arr(3, dtype="int64"), dim=0, grad=False),
                     S(arr(4, 4), arr(4, 4), dim=1, grad=False)]))


def _linalg_cross(input, other, dim=-1, out=None):
    return _cross_fn(input, other, dim % max(input.ndim, other.ndim))


register(OpSpec(
    "linalg_cross", _linalg_cross, "input, other, *, dim=-1, out=None",
    tensor_args=("input", "other"), promote="none", function=False, method=False,
    check=lambda input, other, dim=-1, out=None: _cross_check_common("linalg.cross", input,
                                                                     other, dim),
    grad_name="LinalgCrossBackward0", extra={"public": "linalg.cross"},
    samples=lambda: [S(arr(4, 3), arr(4, 3)), S(arr(3, 2), arr(3, 2), dim=0),
                     S(arr(2, 3, dtype="float64"), arr(1, 3, dtype="float64")),
                     S(arr(4, 4), arr(4, 4), grad=False)]))


# ---------------------------------------------------------------------------
# cdist
def _safe_root(s, p):
    """``s ** (1/p)`` with a zero gradient where ``s == 0`` (PyTorch's convention)."""
    zero = s == 0
    safe = jnp.where(zero, 1, s)
    return jnp.where(zero, 0, safe ** (1.0 / p) if p != 2 else jnp.sqrt(safe))


@jax.custom_jvp
def _inf_dist(diff):
    return jnp.max(_abs(diff), axis=-1)


@_inf_dist.defjvp
def _inf_dist_jvp(primals, tangents):
    # _cdist_backward for p = inf: grad * sign(diff) for every coordinate whose |diff|
    # equals the distance (each tied coordinate takes the whole gradient, not a share)
    (diff,), (t,) = primals, tangents
    out = _inf_dist(diff)
    hit = _abs(diff) == out[..., None]
    return out, jnp.sum(_select(hit, t * jnp.sign(diff), jnp.zeros((), t.dtype)), axis=-1)


def _cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    if p == 0:
        return jnp.sum((diff != 0).astype(diff.dtype), axis=-1)
    if math.isinf(p):
        return _inf_dist(diff)
    if p == 1:
        return jnp.sum(_abs(diff), axis=-1)
    if p == 2:
        return _safe_root(jnp.sum(diff * diff, axis=-1), 2)
    a = _abs(diff)
    za = a == 0
    powed = jnp.where(za, 0, jnp.where(za, 1, a) ** p)
    return _safe_root(jnp.sum(powed, axis=-1), p)


def _cdist_check(x1, x2, p=2.0, compute_mode=None):
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{dtype_title(t.dtype)}")
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._shape[-1]} X2: {x2._shape[-1]}")
    _same_dtype_scalar_type(x1, x2)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    broadcast_shapes_or_raise(x1._shape[:-2], x2._shape[:-2])


register(OpSpec(
    "cdist", _cdist, "x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'",
    tensor_args=("x1", "x2"), promote="none", method=False, check=_cdist_check,
    samples=lambda: [S(arr(3, 2), arr(4, 2)), S(arr(2, 3, 4), arr(2, 5, 4), p=1.0),
                     S(arr(3, 2), arr(4, 2), p=3.0), S(arr(3, 2), arr(4, 2), p=float("inf")),
                     S(arr(3, 2, dtype="float64"), arr(2, 2, dtype="float64"), p=0.0),
                     S(arr(3, 2), arr(4, 3), grad=False),
                     S(arr(3, 2, dtype="int64"), arr(4, 2, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# chains of products
def _chain(matrices):
    ms = list(matrices[0]) if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)) \
        else list(matrices)
    if len(ms) == 1:
        return ms[0] + 0
    return jnp.linalg.multi_dot(ms, precision=matmul_precision())


def _chain_check(*matrices):
    warn_at_caller("torchlike.chain_matmul is deprecated and will be removed in a future "
                   "release. Use torchlike.linalg.multi_dot instead, which accepts a list of "
                   "two or more tensors rather than multiple parameters.")
    ms = matrices[0] if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)) \
        else matrices
    if not ms:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    _multi_dot_check_list("chain_matmul", ms, allow_vectors=False)


def _multi_dot_check_list(name, ms, allow_vectors=True):
    for i, m in enumerate(ms):
        d = m.dim()
        ok = d == 2 or (allow_vectors and d == 1 and i in (0, len(ms) - 1))
        if not ok:
            if allow_vectors and i in (0, len(ms) - 1):
                which = "first" if i == 0 else "last"
                raise RuntimeError(f"{name}(): the {which} tensor must be 1D or 2D but got "
                                   f"{d}D")
            raise RuntimeError(f"{name}(): tensor {i} must be 2D but got {d}D")
        if m.dtype is not ms[0].dtype:
            raise RuntimeError(f"{name}(): all tensors must have be the same dtype but tensor "
                               f"0 is {dtype_title(ms[0].dtype)} and tensor {i} "
                               f"{dtype_title(m.dtype)}")
    for i in range(1, len(ms)):
        a, b = ms[i - 1], ms[i]
        ka = a._shape[-1]
        kb = b._shape[0]
        if ka != kb:
            sa = a._shape if a.dim() == 2 else (1, a._shape[0])
            sb = b._shape if b.dim() == 2 else (b._shape[0], 1)
            raise RuntimeError(f"{name}(): tensors {i - 1} and {i} with shapes "
                               f"{shape_str(sa)} and {shape_str(sb)} cannot be multiplied")


register(OpSpec(
    "chain_matmul", lambda *matrices: _chain(matrices), "*matrices",
    tensor_args=("matrices",), promote="none", method=False, check=_chain_check,
    samples=lambda: [S(arr(2, 3), arr(3, 4), arr(4, 2)), S(arr(2, 3)),
                     S(arr(2, 3, dtype="float64"), arr(3, 3, dtype="float64"))]))


def _multi_dot_check(tensors, out=None):
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    _multi_dot_check_list("multi_dot", tensors)


register(OpSpec(
    "linalg_multi_dot", lambda tensors, out=None: _chain([tensors]), "tensors, *, out=None",
    tensor_args=("tensors",), promote="none", function=False, method=False,
    check=_multi_dot_check, extra={"public": "linalg.multi_dot"},
    samples=lambda: [S([arr(2, 3), arr(3, 4), arr(4, 2)]), S([arr(3), arr(3, 4), arr(4)]),
                     S([arr(3), arr(3)]), S([arr(2, 3)], grad=False),
                     S([arr(2, 3), arr(4, 2)], grad=False)]))
