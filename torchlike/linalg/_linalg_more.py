"""Linear-algebra ops, part three: the ``torch.linalg`` functions built on the LU, LDL and
Householder factorizations, and the tensor forms of inverse and solve:
``lu_factor_ex``, ``lu``, ``lu_solve``, ``solve_ex``, ``householder_product``,
``tensorinv``, ``tensorsolve`` and ``vander`` (``ldl_factor_ex``, ``ldl_factor`` and
``ldl_solve`` are in ``_ldl.py``), declared in the op table (see
``torchlike/_ops/spec.py``; helpers in ``_common.py``). The pure functions shared with
the ``torch.*`` forms (``torch.lu_solve``, ``torch.lu_unpack``, ``torch.orgqr``,
``torch.ormqr`` in ``_torch_forms.py``) live here.

# Note [Householder gradients]
# JAX's ``householder_product`` and ``ormqr`` have no differentiation rules. Their values
# come from those LAPACK-backed primitives; their gradients from differentiating
# ``_apply_reflectors``, which applies the same reflectors ``H_i = I - tau_i v_i v_i^H``
# one by one, so second derivatives work too. ``householder_product`` joins the two with
# a ``custom_jvp`` (the tangent that of the reflectors, the VJP JAX's transpose of it), so
# forward mode works as in PyTorch; ``ormqr`` with a ``custom_vjp``, PyTorch having no
# forward-mode formula for it either.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import wrap_dim
from .._ops._common import broadcast_shapes_or_raise, shape_str
from .._ops.combinatorics import _vander_fn
from .._ops.linalg import LinAlgError, check_float, check_square, dtype_title
from .._ops.samples import S, arr
from ._common import (_LAPACK_DTYPES, _check_singular, _first_failure, _is_traced,
                      _kernel_check, _linalg, _mH, _mT, _sq, _zero_pivot, check_lu_factor_errors)
from ._factorize import _lu_factor
from ._solve import _solve, _solve_is_vector

__all__: list = []

def _first_zero_diagonal(M):
    """LAPACK ``getrf``'s ``info`` from its output: the 1-based index of the first exact
    zero on the diagonal of ``U``, 0 when there is none (int32, one per matrix)."""
    d = jnp.diagonal(M, axis1=-2, axis2=-1)
    if d.shape[-1] == 0:
        return jnp.zeros(M.shape[:-2], jnp.int32)
    zero = d == 0
    first = jnp.argmax(zero, axis=-1).astype(jnp.int32) + 1
    return jnp.where(jnp.any(zero, axis=-1), first, 0).astype(jnp.int32)


def _identity_like(shape, dtype):
    m, n = shape[-2:]
    return jnp.broadcast_to(jnp.eye(m, n, dtype=dtype), shape)


# ---------------------------------------------------------------------------
# LU: factor_ex, lu (P, L, U) and the unpacking torch.lu_unpack shares
def _lu_dims_check(name: str, A) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{shape_str(A._shape)} instead")


def _lu_common_check(name: str, A, pivot) -> None:
    _lu_dims_check(name, A)
    _kernel_check("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")


def _lu_factor_ex(A, pivot=True, check_errors=False, out=None):
    LU, pivots = _lu_factor(A)
    return LU, pivots, _first_zero_diagonal(LU)


def _lu_factor_ex_check(A, pivot=True, check_errors=False, out=None):
    _lu_common_check("torch.lu_factor", A, pivot)
    if check_errors:
        check_lu_factor_errors("torch.linalg.lu_factor_ex", A)


def _singular_lu():
    return np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)


_linalg("lu_factor_ex", _lu_factor_ex, "A, *, pivot=True, check_errors=False",
        tensor_args=("A",), promote="none", check=_lu_factor_ex_check,
        out_names=("LU", "pivots", "info"), grad_name="LinalgLuFactorExBackward0",
        doc="Mirrors ``torch.linalg.lu_factor_ex``: LU factorization with partial pivoting "
            "(``LU``, 1-based int32 ``pivots``) and LAPACK's ``info``: the index of the "
            "first exact zero on the diagonal of ``U``, 0 when there is none. With "
            "``check_errors=True`` a singular input raises PyTorch's RuntimeError. "
            "``pivot=False`` raises, as PyTorch does on the CPU.",
        samples=lambda: [S(_sq(3, 3)), S(arr(2, 4, 4, dtype="float64")), S(arr(3, 5)),
                         S(arr(5, 3, dtype="float64")),
                         S(arr(3, 3, dtype="complex128"), grad=False),
                         S(_singular_lu(), grad=False),
                         S(_singular_lu(), check_errors=True, grad=False),
                         S(arr(0, 3, 3)), S(arr(3), grad=False),
                         S(arr(3, 3, dtype="int64"), grad=False),
                         S(arr(3, 3), pivot=False, grad=False)])


def _unpack_lu_data(LU):
    """``L`` (unit lower trapezoidal, ``m x k``) and ``U`` (upper trapezoidal, ``k x n``)
    stored in a packed LU factorization, ``k = min(m, n)``; any dtype."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    unit = jnp.eye(m, k, dtype=bool)
    L = jnp.where(unit, jnp.ones((), LU.dtype), jnp.tril(LU[..., :, :k], -1))
    U = jnp.triu(LU[..., :k, :])
    return L, U


def _permutation_matrix(perm, dtype):
    """``P`` with ``P[perm[j], j] = 1``: ``A = P @ (A[perm])``."""
    m = perm.shape[-1]
    return (perm[..., None, :] == jnp.arange(m)[:, None]).astype(dtype)


def _lu(A, pivot=True, out=None):
    LU, _, perm = jax.lax.linalg.lu(A)
    L, U = _unpack_lu_data(LU)
    return _permutation_matrix(perm, A.dtype), L, U


def _lu_check(A, pivot=True, out=None):
    _lu_common_check("linalg.lu", A, pivot)


_linalg("lu", _lu, "A, *, pivot=True", tensor_args=("A",), promote="none",
        check=_lu_check, out_names=("P", "L", "U"),
        grad_name="LinalgLuBackward0", nondiff_outputs=(0,),
        doc="Mirrors ``torch.linalg.lu``: ``A = P @ L @ U`` with partial pivoting; ``P`` "
            "has ``A``'s dtype and never requires grad.",
        samples=lambda: [S(_sq(3, 3)), S(arr(2, 4, 4, dtype="float64")), S(arr(3, 5)),
                         S(arr(2, 5, 3)), S(arr(3, 3, dtype="complex64"), grad=False),
                         S(arr(0, 2)), S(arr(2), grad=False),
                         S(arr(3, 3, dtype="int32"), grad=False)])


# ---------------------------------------------------------------------------
# LU solves (linalg.lu_solve; torch.lu_solve in _torch_forms.py)
def _lu_solve_core(LU, pivots, B, left=True, adjoint=False):
    """Solve ``A X = B`` (``left``) or ``X A = B`` with ``A = P L U`` given packed,
    ``A^H`` in place of ``A`` when ``adjoint``. Batches broadcast (pivots with ``LU``)."""
    n = LU.shape[-1]
    batch = jnp.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    LU = jnp.broadcast_to(LU, batch + LU.shape[-2:])
    pivots = jnp.broadcast_to(pivots, batch + pivots.shape[-1:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    perm = jax.lax.linalg.lu_pivots_to_permutation(pivots - 1, n)
    cplx = jnp.iscomplexobj(LU)
    if left and not adjoint:
        return _solve_with_lu(LU, perm, B, "N")
    if left:
        return _solve_with_lu(LU, perm, B, "H" if cplx else "T")
    if adjoint:    # X A^H = B  <=>  A X^H = B^H
        return _mH(_solve_with_lu(LU, perm, _mH(B), "N"))
    return _mT(_solve_with_lu(LU, perm, _mT(B), "T"))   # X A = B  <=>  A^T X^T = B^T


def _solve_with_lu(LU, perm, B, op):
    """``op(A) X = B`` for ``op`` in N (A), T (A^T), H (A^H), ``A = P L U`` packed in
    ``LU`` with ``A[perm] = L U``, as LAPACK's ``getrs`` does it."""
    tri = jax.lax.linalg.triangular_solve
    if op == "N":
        Y = jnp.take_along_axis(B, perm[..., :, None], axis=-2)
        Y = tri(LU, Y, left_side=True, lower=True, unit_diagonal=True)
        return tri(LU, Y, left_side=True, lower=False)
    conj = op == "H"
    Y = tri(LU, B, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    Y = tri(LU, Y, left_side=True, lower=True, transpose_a=True, conjugate_a=conj,
            unit_diagonal=True)
    return jnp.take_along_axis(Y, jnp.argsort(perm, axis=-1)[..., :, None], axis=-2)


def _lu_pivots_value_check(LU, pivots) -> None:
    """PyTorch checks the pivots' values before it solves; eager only."""
    if _is_traced(pivots) or pivots.numel() == 0:
        return
    p = np.asarray(pivots._value)
    if p.min() < 1:
        raise RuntimeError("Pivots given to lu_solve must all be greater or equal to 1. Did "
                           "you properly pass the result of lu_factor?")
    if p.max() > LU._shape[-2]:
        raise RuntimeError("Pivots given to lu_solve must all be smaller or equal to "
                           "LU.size(-2). Did you properly pass the result of lu_factor?")


def lu_solve_check(LU, pivots, B, left=True, adjoint=False) -> None:
    """The checks of PyTorch's ``linalg_lu_solve``, in its order."""
    check_float("torch.linalg.lu_solve", LU)
    if LU.dtype is not B.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           f"found LU of type {dtype_title(LU.dtype)} and B of type "
                           f"{dtype_title(B.dtype)} instead")
    if pivots.dtype is not _dt.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    check_square("torch.linalg.lu_solve", LU)
    _check_solver_shapes("linalg.lu_solve", LU, B, left)
    if pivots.dim() == 0 or LU._shape[-1] != pivots._shape[-1]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as "
                           "the dimension of the matrix")
    if LU._shape[:-1] != pivots._shape:
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be "
                           f"the same, but got pivots with shape {shape_str(pivots._shape)} "
                           f"instead")
    broadcast_shapes_or_raise(B._shape[:-2], LU._shape[:-2])
    _kernel_check("linalg.lu_solve_cpu", LU)
    _lu_pivots_value_check(LU, pivots)


def _check_solver_shapes(name: str, A, B, left: bool) -> None:
    """PyTorch's ``checkInputsSolver`` after its square check: ``B`` a matrix whose rows
    (``left``) or columns match ``A``."""
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = A._shape[-1]
    k = B._shape[-2] if left else B._shape[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({n}x{n} and {B._shape[-2]}x{B._shape[-1]})")


def _linalg_lu_solve(LU, pivots, B, left=True, adjoint=False, out=None):
    return _lu_solve_core(LU, pivots, B, left, adjoint)


def _linalg_lu_solve_check(LU, pivots, B, left=True, adjoint=False, out=None):
    lu_solve_check(LU, pivots, B, left, adjoint)


def lu_solve_samples(order):
    """Samples for ``linalg.lu_solve`` (``order(LU, pivots, B) -> args``) and, with the
    arguments reordered, for ``torch.lu_solve``."""
    from ._factorize import _lu_factor as factor

    def packed(*shape, dtype="float32"):
        lu, piv = factor(jnp.asarray(_sq(*shape, dtype=dtype)))
        return np.asarray(lu), np.asarray(piv)
    lu3, p3 = packed(3, 3)
    lu64, p64 = packed(2, 4, 4, dtype="float64")
    luc, pc = packed(3, 3, dtype="complex128")
    return [
        S(*order(lu3, p3, arr(3, 2))),
        S(*order(lu64, p64, arr(2, 4, 3, dtype="float64"))),
        S(*order(lu64, p64, arr(3, 1, 4, 2, dtype="float64"))),
        S(*order(luc, pc, arr(3, 2, dtype="complex128")), grad=False),
        S(*order(lu3, p3, arr(0, 3, 2))),
        # error paths
        S(*order(lu3, p3, arr(3)), grad=False),
        S(*order(lu3, p3, arr(2, 2)), grad=False),
        S(*order(lu3, p3, arr(3, 2, dtype="float64")), grad=False),
        S(*order(lu3, p3.astype(np.int64), arr(3, 2)), grad=False),
        S(*order(lu3, p3[:2], arr(3, 2)), grad=False),
        S(*order(lu64, p64[0], arr(2, 4, 3, dtype="float64")), grad=False),
        S(*order(lu3, np.array([4, 1, 1], np.int32), arr(3, 2)), grad=False),
        S(*order(lu3, np.array([0, 2, 3], np.int32), arr(3, 2)), grad=False),
        S(*order(lu3.astype(np.int64), p3, arr(3, 2, dtype="int64")), grad=False),
    ]


def _linalg_lu_solve_samples():
    out = lu_solve_samples(lambda lu, p, b: (lu, p, b))
    lu, piv = _lu_factor(jnp.asarray(_sq(3, 3, dtype="float64")))
    lu, piv = np.asarray(lu), np.asarray(piv)
    out += [S(lu, piv, arr(2, 3, dtype="float64"), left=False),
            S(lu, piv, arr(3, 2, dtype="float64"), adjoint=True),
            S(lu, piv, arr(4, 3, dtype="float64"), left=False, adjoint=True),
            S(lu, piv, arr(3, 2, dtype="float64"), left=False, grad=False)]
    return out


_linalg("lu_solve", _linalg_lu_solve, "LU, pivots, B, *, left=True, adjoint=False",
        tensor_args=("LU", "pivots", "B"), promote="none", check=_linalg_lu_solve_check,
        grad_name="LinalgLuSolveBackward0",
        doc="Mirrors ``torch.linalg.lu_solve``: solves ``A X = B`` (``X A = B`` with "
            "``left=False``; ``A^H`` for ``A`` with ``adjoint=True``) from ``lu_factor``'s "
            "result. Pivots out of range raise PyTorch's error (eagerly; under "
            "``torchlike.compile`` they are not checked).",
        samples=_linalg_lu_solve_samples)


# ---------------------------------------------------------------------------
# solve_ex
def _solve_ex(A, B, left=True, check_errors=False, out=None):
    return _solve(A, B, left), _zero_pivot(A)


def _solve_ex_check(A, B, left=True, check_errors=False, out=None):
    check_float("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {dtype_title(A.dtype)} and B of type "
                           f"{dtype_title(B.dtype)} instead")
    vector = _solve_is_vector(A._shape, B._shape)
    check_square("linalg.solve", A)
    bs = B._shape + (1,) if vector else B._shape
    if len(bs) < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = A._shape[-1]
    if (bs[-2] if left else bs[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {bs[-2]}x{bs[-1]})")
    broadcast_shapes_or_raise(bs[:-2], A._shape[:-2])
    if vector and not left:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not "
                           "supported for left=False. In this case linalg.solve is "
                           "equivalent to B / A.squeeze(-1)")
    _kernel_check("lu_cpu", A)
    if check_errors:
        _check_singular(A, lambda prefix, _: f"torch.linalg.solve_ex: {prefix}The solver "
                        f"failed because the input matrix is singular.")


def _singular_batch():
    return np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]], np.float32)


_linalg("solve_ex", _solve_ex, "A, B, *, left=True, check_errors=False",
        tensor_args=("A", "B"), promote="none", check=_solve_ex_check,
        out_names=("result", "info"), grad_name="LinalgSolveExBackward0",
        doc="Mirrors ``torch.linalg.solve_ex``: ``linalg.solve`` plus LAPACK's ``info`` "
            "(the first exact zero pivot of ``A``'s LU factorization, 0 when there is none); "
            "with ``check_errors=True`` a singular ``A`` raises ``LinAlgError``.",
        samples=lambda: [S(_sq(3, 3), arr(3)), S(_sq(3, 3), arr(3, 2)),
                         S(_sq(2, 3, 3, dtype="float64"), arr(2, 3, dtype="float64")),
                         S(_sq(2, 3, 3), arr(3, 4)), S(_sq(3, 3), arr(2, 3), left=False),
                         S(_sq(3, 3, dtype="complex128"), arr(3, 2, dtype="complex128"),
                           grad=False),
                         S(_singular_batch(), arr(2), check_errors=True, grad=False),
                         S(_sq(3, 3), arr(3), left=False, grad=False),
                         S(_sq(3, 3), arr(4), grad=False),
                         S(_sq(3, 3), arr(3, dtype="float64"), grad=False),
                         S(arr(2, 3), arr(2), grad=False),
                         S(arr(2, 2, dtype="int64"), arr(2, dtype="int64"), grad=False)])


# ---------------------------------------------------------------------------
# Householder products (Note [Householder gradients])
def _reflector_vectors(A, k):
    """The first ``k`` Householder vectors stored below the diagonal of ``A``, with their
    implicit unit diagonal (``m x k``)."""
    m = A.shape[-2]
    rows = jnp.arange(m)[:, None]
    cols = jnp.arange(k)[None, :]
    V = A[..., :, :k]
    return jnp.where(rows > cols, V, jnp.where(rows == cols, 1, 0).astype(A.dtype))


def _apply_reflectors(A, tau, C, left=True, transpose=False):
    """``Q C``, ``Q^H C``, ``C Q`` or ``C Q^H`` for ``Q = H_1 ... H_k``, applying the
    reflectors one at a time (the differentiable reference of the LAPACK primitives)."""
    k = tau.shape[-1]
    if k == 0:
        return C
    V = _reflector_vectors(A, k)
    cj = jnp.conj if jnp.iscomplexobj(A) else (lambda x: x)
    # Q C = H_1 (H_2 (... H_k C)): the last reflector first; Q^H C the other way round
    order = jnp.arange(k)
    if left != transpose:
        order = order[::-1]

    def step(C, i):
        v = jnp.take(V, i, axis=-1)
        t = jnp.take(tau, i, axis=-1)
        t = cj(t) if transpose else t
        if left:
            w = jnp.einsum("...m,...mn->...n", cj(v), C)
            return C - (t[..., None] * v)[..., :, None] * w[..., None, :], None
        w = jnp.einsum("...nm,...m->...n", C, v)
        return C - w[..., :, None] * (t[..., None] * cj(v))[..., None, :], None
    return jax.lax.scan(step, C, order)[0]


def _householder_reference(A, tau):
    return _apply_reflectors(A, tau, _identity_like(A.shape, A.dtype))


@jax.custom_jvp
def householder_product_core(A, tau):
    """LAPACK ``orgqr``/``ungqr``: the first ``n`` columns of ``H_1 ... H_k``; derivatives
    are those of the reflectors applied one by one (the VJP JAX's transpose of that
    tangent)."""
    return jax.lax.linalg.householder_product(A, tau)


@householder_product_core.defjvp
def _hp_jvp(primals, tangents):
    return (householder_product_core(*primals),
            jax.jvp(_householder_reference, primals, tangents)[1])


def _tau_last(tau) -> int:
    if tau.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    return tau._shape[-1]


def householder_check(A, tau, kernel="orgqr_cpu") -> None:
    """The checks of PyTorch's ``linalg_householder_product`` (and ``orgqr``)."""
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A._shape[-2] < A._shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]")
    if A._shape[-1] < _tau_last(tau):
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{A.dim()}")
    if A.dim() > 2 and tau._shape[:-1] != A._shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {shape_str(tau._shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {dtype_title(tau.dtype)} does not match input "
                           f"dtype {dtype_title(A.dtype)}")
    _kernel_check(kernel, A)


def _geqrf_np(a):
    """NumPy's ``geqrf`` (``h``, ``tau``) in LAPACK's (and PyTorch's) layout."""
    h, tau = np.linalg.qr(a, mode="raw")
    return np.ascontiguousarray(np.swapaxes(h, -1, -2)).astype(a.dtype), tau.astype(a.dtype)


def householder_samples():
    a, tau = _geqrf_np(arr(4, 3, dtype="float64"))
    ac, tauc = _geqrf_np(arr(3, 3, dtype="complex128"))
    return [S(a, tau), S(arr(4, 3), arr(2)), S(arr(2, 5, 3, dtype="float64"),
                                               arr(2, 3, dtype="float64")),
            S(ac, tauc, grad=False), S(arr(3, 2), arr(0)), S(arr(3, 0), arr(0)),
            S(arr(3, 4), arr(3), grad=False), S(arr(4, 3), arr(4), grad=False),
            S(arr(2, 4, 3), arr(3), grad=False), S(arr(2, 4, 3), arr(3, 3), grad=False),
            S(arr(4, 3), arr(3, dtype="float64"), grad=False),
            S(arr(4, 3, dtype="int64"), arr(3, dtype="int64"), grad=False)]


def _householder_product_check(A, tau, out=None):
    householder_check(A, tau)


_linalg("householder_product", lambda A, tau, out=None: householder_product_core(A, tau),
        "A, tau", tensor_args=("A", "tau"), promote="none",
        check=_householder_product_check,
        grad_name="LinalgHouseholderProductBackward0",
        doc="Mirrors ``torch.linalg.householder_product``: the first ``n`` columns of "
            "``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` stored below the "
            "diagonal of ``A`` (as ``geqrf`` returns them). Differentiable in ``A`` and "
            "``tau`` (Note [Householder gradients]).",
        samples=householder_samples)


@partial(jax.custom_vjp, nondiff_argnums=(3, 4))
def ormqr_core(A, tau, C, left, transpose):
    """LAPACK ``ormqr``/``unmqr``: ``op(Q) C`` or ``C op(Q)``."""
    return jax.lax.linalg.ormqr(A, tau, C, left=left, transpose=transpose)


def _ormqr_fwd(A, tau, C, left, transpose):
    return ormqr_core(A, tau, C, left, transpose), (A, tau, C)


def _ormqr_bwd(left, transpose, res, ct):
    f = partial(_apply_reflectors, left=left, transpose=transpose)
    return jax.vjp(f, *res)[1](ct)


ormqr_core.defvjp(_ormqr_fwd, _ormqr_bwd)


# ---------------------------------------------------------------------------
# tensorinv, tensorsolve
def _tensorinv_shapes(shape, ind):
    return shape[ind:], shape[:ind]


def _tensorinv(A, ind=2, out=None):
    end, start = _tensorinv_shapes(A.shape, ind)
    p = math.prod(end)
    inv = jnp.linalg.inv(jnp.reshape(A, (p, p)))
    return jnp.reshape(inv, end + start)


def _tensorinv_check(A, ind=2, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    if ind > A.dim():
        raise RuntimeError(f"ArrayRef: invalid slice, N = {ind}; size = {A.dim()}")
    end, start = _tensorinv_shapes(A._shape, ind)
    if math.prod(end) != math.prod(start):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {math.prod(end)} != "
                           f"{math.prod(start)}")
    check_float("linalg.inv", A)
    if A.dtype.name not in _LAPACK_DTYPES:
        raise RuntimeError(f"linalg.inv: Low precision dtypes not supported. Got "
                           f"{dtype_title(A.dtype)}")
    if _is_traced(A) or A.numel() == 0:
        return
    p = math.prod(end)
    i, pivot = _first_failure(np.asarray(_zero_pivot(jnp.reshape(A._value, (p, p)))))
    if i is not None:
        raise LinAlgError(f"inv: The diagonal element {pivot} is zero, the inversion could "
                          f"not be completed because the input matrix is singular.")


_linalg("tensorinv", _tensorinv, "A, ind=2", tensor_args=("A",),
        promote="none", check=_tensorinv_check,
        grad_name="ReshapeAliasBackward0",
        doc="Mirrors ``torch.linalg.tensorinv``: the inverse of ``A`` read as a "
            "``prod(A.shape[:ind]) x prod(A.shape[ind:])`` matrix, shaped "
            "``A.shape[ind:] + A.shape[:ind]``. One op: its node carries the name of the "
            "last step PyTorch records (``ReshapeAliasBackward0``).",
        samples=lambda: [S(_sq(6, 6).reshape(2, 3, 6)), S(_sq(4, 4, dtype="float64"), ind=1),
                         S(_sq(6, 6).reshape(6, 2, 3), ind=1),
                         S(_sq(4, 4, dtype="complex128").reshape(2, 2, 2, 2), grad=False),
                         S(arr(0, 0), ind=1),
                         S(arr(4, 6, 8), grad=False), S(arr(2, 2), ind=0, grad=False),
                         S(np.zeros((2, 2, 4), np.float32), grad=False),
                         S(arr(4, 4, dtype="int64"), ind=1, grad=False)])


def _tensorsolve_prepare(ndim_a, dims):
    """The permutation moving ``dims`` of ``A`` to the end (None when there is none)."""
    if dims is None:
        return None
    src = [wrap_dim(d, ndim_a) for d in dims]
    rest = [d for d in range(ndim_a) if d not in src]
    return tuple(rest + src)


def _tensorsolve(A, B, dims=None, out=None):
    perm = _tensorsolve_prepare(A.ndim, dims)
    if perm is not None:
        A = jnp.transpose(A, perm)
    result_shape = A.shape[B.ndim:]
    p = math.prod(result_shape)
    x = _solve(jnp.reshape(A, (p, p)), jnp.reshape(B, (-1,)))
    return jnp.reshape(x, result_shape)


def _tensorsolve_check(A, B, dims=None, out=None):
    shape = A._shape
    if B.dim() > A.dim():
        raise RuntimeError(f"linalg.tensorsolve: B has more dimensions ({B.dim()}) than A "
                           f"({A.dim()})")
    perm = _tensorsolve_prepare(A.dim(), dims)
    if perm is not None:
        if len(set(perm)) != len(perm):
            raise RuntimeError(f"movedim: repeated dim in `source` ({list(dims)})")
        shape = tuple(shape[d] for d in perm)
    result, other = math.prod(shape[B.dim():]), math.prod(B._shape)
    if result != other:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {result} != {other}")
    check_float("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {dtype_title(A.dtype)} and B of type "
                           f"{dtype_title(B.dtype)} instead")
    _kernel_check("lu_cpu", A)
    if _is_traced(A) or A.numel() == 0:
        return
    a = A._value if perm is None else jnp.transpose(A._value, perm)
    i, _ = _first_failure(np.asarray(_zero_pivot(jnp.reshape(a, (result, result)))))
    if i is not None:
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                          "is singular.")


_linalg("tensorsolve", _tensorsolve, "A, B, dims=None", tensor_args=("A", "B"),
        promote="none", check=_tensorsolve_check, grad_name="ViewBackward0",
        doc="Mirrors ``torch.linalg.tensorsolve``: ``X`` with ``tensordot(A, X, X.ndim) == "
            "B``, after moving ``dims`` of ``A`` to the end. One op: its node carries the "
            "name of the last step PyTorch records (``ViewBackward0``).",
        samples=lambda: [S(_sq(6, 6).reshape(2, 3, 6), arr(2, 3)),
                         S(_sq(6, 6, dtype="float64").reshape(6, 2, 3),
                           arr(6, dtype="float64")),
                         S(np.moveaxis(_sq(6, 6).reshape(2, 3, 2, 3), 0, 2), arr(3, 2),
                           dims=(2,)),
                         S(np.moveaxis(_sq(4, 4).reshape(2, 2, 2, 2), -1, 0), arr(2, 2),
                           dims=(0,)),
                         S(arr(4, 6), arr(5), grad=False),
                         S(np.zeros((4, 4), np.float32), arr(4), grad=False),
                         S(_sq(4, 4), arr(4, dtype="float64"), grad=False),
                         S(arr(4, 4), arr(4), dims=(5,), grad=False)])


# ---------------------------------------------------------------------------
# vander
def _vander(x, N=None):
    x = x[..., None] if x.ndim == 0 else x
    m = x.shape[-1]
    n = m if N is None else N
    flat = jnp.reshape(x, (math.prod(x.shape[:-1]), m))
    out = jax.vmap(lambda row: _vander_fn(row, n, True))(flat)
    return jnp.reshape(out, x.shape + (n,))


def _vander_check(x, N=None):
    d = x.dtype
    if not (d.name in _LAPACK_DTYPES or (not d.is_floating_point and not d.is_complex
                                         and d is not _dt.bool)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {dtype_title(d)}")
    n = N if N is not None else (x._shape[-1] if x.dim() else 1)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")


_linalg("vander", _vander, "x, *, N=None", tensor_args=("x",), promote="none",
        check=_vander_check, grad_name="CatBackward0",
        doc="Mirrors ``torch.linalg.vander``: ``x[..., i] ** j`` for ``j < N`` (increasing "
            "powers, by a cumulative product as PyTorch computes them); integer inputs give "
            "int64. One op: its node carries the name of PyTorch's last step "
            "(``CatBackward0``).",
        samples=lambda: [S(arr(3)), S(arr(2, 3, dtype="float64"), N=5), S(arr(4), N=2),
                         S(arr(), N=3), S(arr(0, 3)),
                         S(arr(3, dtype="complex64"), grad=False),
                         S(arr(3, dtype="int32"), N=4), S(arr(3, dtype="uint8")),
                         S(arr(3), N=1, grad=False), S(arr(1), grad=False),
                         S(arr(3, dtype="float16"), grad=False),
                         S(arr(3, dtype="bool"), grad=False)])


# ---------------------------------------------------------------------------
# helpers shared with _ldl.py and _torch_forms.py
def not_differentiable(fn, error, nondiff_argnums=()):
    """``fn`` with a backward that raises ``error()``: PyTorch's behaviour for ops it has
    no derivative for (the forward still records a node, so the error comes at
    ``backward()``, as there)."""
    f = jax.custom_vjp(fn, nondiff_argnums=nondiff_argnums)

    def bwd(*_):
        raise error()
    f.defvjp(lambda *args: (f(*args), None), bwd)
    return f


def linear_solve_check(b, A, name: str) -> None:
    """PyTorch's ``linearSolveCheckInputs`` (``cholesky_solve``, ``triangular_solve``,
    ``ldl_solve``): same dtypes, square ``A``, as many rows in ``b`` as in ``A``."""
    if b.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{dtype_title(b.dtype)} and A of type {dtype_title(A.dtype)} "
                           f"instead.")
    m, n = A._shape[-2:]
    if m != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {m} by {n} "
                           f"matrices")
    if b.dim() < 2:
        d = max(b.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], "
                         f"but got -2)")
    if b._shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by "
                           f"{n} but each b matrix is {b._shape[-2]} by {b._shape[-1]}")


# the named tuples exist in torchlike.return_types from import on, as in PyTorch
def make_return_types(*names: str) -> None:
    from .._ops.spec import OPS
    from ..return_types import make
    for name in names:
        make(name, OPS[name].out_names)


make_return_types("linalg_lu_factor_ex", "linalg_lu", "linalg_solve_ex")
