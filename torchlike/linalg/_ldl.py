"""Linear-algebra ops: the LDL factorization, ``linalg.ldl_factor_ex``,
``linalg.ldl_factor`` and ``linalg.ldl_solve``, declared in the op table (see
``torchlike/_ops/spec.py``).

# Note [LAPACK's LDL format]
# ``ldl_factor`` returns what LAPACK's ``sytrf``/``hetrf`` (lower) return and PyTorch
# passes on: Bunch-Kaufman diagonal pivoting, ``A = L D L^T`` (``L D L^H`` for
# ``hermitian=True``) with ``L`` a product of permutations and unit lower triangular
# matrices stored below the diagonal, ``D`` block diagonal with 1x1 and 2x2 blocks stored
# on the diagonal and first subdiagonal, and 1-based ``pivots`` that are negative (and
# equal) for the two columns of a 2x2 block. Only the lower triangle of ``A`` is read.
# ``_ldl_one`` runs LAPACK's unblocked algorithm (``sytf2``/``hetf2``) step by step: the
# same pivot tests with the same constant ``(1 + sqrt(17)) / 8``, the same interchanges
# of the trailing block only, the same update formulas. The blocked ``sytrf`` makes the
# same choices, so results agree with PyTorch's to rounding. ``_ldl_solve_one`` is
# LAPACK's ``sytrs``/``hetrs`` on that format. PyTorch differentiates neither; here, as
# there, a backward pass through them raises.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._ops._common import broadcast_shapes_or_raise, shape_str
from .._ops.linalg import check_float, check_square, dtype_title
from .._ops.samples import S, arr
from ._common import (_is_traced, _linalg, _mT)

from ._linalg_more import (_kernel_check, linear_solve_check, make_return_types,
                           not_differentiable)

__all__: list = []


# ---------------------------------------------------------------------------
# LDL (Note [LAPACK's LDL format])
_BK_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _ldl_one(A, hermitian: bool):
    """LAPACK ``sytf2``/``hetf2`` (lower) on one matrix: (LD, 1-based pivots, info)."""
    n = A.shape[-1]
    herm = hermitian and jnp.iscomplexobj(A)
    cplx = jnp.iscomplexobj(A)
    idx = jnp.arange(n)
    cj = jnp.conj if herm else (lambda z: z)

    def cabs(z):   # LAPACK's CABS1 for complex entries
        return jnp.abs(jnp.real(z)) + jnp.abs(jnp.imag(z)) if cplx else jnp.abs(z)

    def dabs(z):   # a diagonal entry (real for Hermitian matrices)
        return jnp.abs(jnp.real(z)) if herm else cabs(z)

    def symmetrize(M):   # the strictly upper part from the lower one
        M = jnp.where(idx[:, None] >= idx[None, :], M, cj(_mT(M)))
        if herm:
            M = jnp.where(idx[:, None] == idx[None, :], jnp.real(M).astype(M.dtype), M)
        return M

    def body(state):
        M, ipiv, info, k = state
        absakk = dabs(M[k, k])
        below = idx > k
        colvals = jnp.where(below, cabs(M[:, k]), -1)
        imax = jnp.argmax(colvals)
        colmax = jnp.maximum(colvals[imax], 0)
        zero = (jnp.maximum(absakk, colmax) == 0) | jnp.isnan(absakk)
        rowvals = jnp.where((idx >= k) & (idx != imax), cabs(M[imax, :]), -1)
        rowmax = jnp.max(rowvals)
        safe_row = jnp.where(rowmax > 0, rowmax, 1)
        keep_k = zero | (absakk >= _BK_ALPHA * colmax) | \
            (absakk >= _BK_ALPHA * colmax * (colmax / safe_row))
        one_imax = dabs(M[imax, imax]) >= _BK_ALPHA * rowmax
        kp = jnp.where(keep_k, k, imax)
        two = ~keep_k & ~one_imax
        kk = jnp.where(two, k + 1, k)
        # interchange rows and columns kk and kp of the trailing block
        perm = idx.at[kk].set(kp).at[kp].set(kk)
        trailing = (idx[:, None] >= k) & (idx[None, :] >= k)
        M = jnp.where(trailing, M[perm][:, perm], M)
        # 1x1 pivot: rank-1 update, then scale the column
        d = jnp.real(M[k, k]) if herm else M[k, k]
        r1 = 1 / jnp.where(d == 0, 1, d)
        x = jnp.where(below, M[:, k], 0)
        M1 = M + x[:, None] * (-r1 * cj(x))[None, :]
        M1 = M1.at[:, k].set(jnp.where(below, x * r1, M[:, k]))
        # 2x2 pivot: rank-2 update of the block below it
        k1 = jnp.minimum(k + 1, n - 1)
        below2 = idx > k + 1
        a0 = jnp.where(below2, M[:, k], 0)
        a1 = jnp.where(below2, M[:, k1], 0)
        sub = M[k1, k]
        if herm:
            dd = jnp.abs(sub)
            dd = jnp.where(dd == 0, 1, dd)
            d11 = jnp.real(M[k1, k1]) / dd
            d22 = jnp.real(M[k, k]) / dd
            tt = 1 / (d11 * d22 - 1)
            d21 = sub / dd
            dd = tt / dd
            wk = dd * (d11 * a0 - d21 * a1)
            wkp1 = dd * (d22 * a1 - jnp.conj(d21) * a0)
        else:
            sub = jnp.where(sub == 0, 1, sub)
            d11 = M[k1, k1] / sub
            d22 = M[k, k] / sub
            t = 1 / (d11 * d22 - 1)
            d21 = t / sub
            wk = d21 * (d11 * a0 - a1)
            wkp1 = d21 * (d22 * a1 - a0)
        M2 = M - a0[:, None] * cj(wk)[None, :] - a1[:, None] * cj(wkp1)[None, :]
        M2 = M2.at[:, k].set(jnp.where(below2, wk, M[:, k]))
        M2 = M2.at[:, k1].set(jnp.where(below2, wkp1, M[:, k1]))
        M = jnp.where(zero, M, jnp.where(two, M2, M1))
        M = symmetrize(M)
        p = (kp + 1).astype(jnp.int32)
        ipiv = ipiv.at[k].set(jnp.where(two, -p, p))
        ipiv = ipiv.at[k1].set(jnp.where(two, -p, ipiv[k1]))
        info = jnp.where((info == 0) & zero, (k + 1).astype(jnp.int32), info)
        return M, ipiv, info, k + jnp.where(two, 2, 1)

    M = symmetrize(jnp.tril(A))
    state = (M, jnp.zeros((n,), jnp.int32), jnp.zeros((), jnp.int32), jnp.zeros((), jnp.int32))
    M, ipiv, info, _ = jax.lax.while_loop(lambda s: s[3] < n, body, state)
    return jnp.tril(M), ipiv, info


def _no_derivative_error(op: str):
    return lambda: RuntimeError(f"derivative for aten::{op} is not implemented")


def _ldl_factor_impl(A, hermitian):
    n = A.shape[-1]
    if A.size == 0:
        batch = A.shape[:-2]
        return A, jnp.zeros(batch + (n,), jnp.int32), jnp.zeros(batch, jnp.int32)
    flat = jnp.reshape(A, (math.prod(A.shape[:-2]), n, n))
    LD, piv, info = jax.vmap(lambda a: _ldl_one(a, hermitian))(flat)
    batch = A.shape[:-2]
    return (jnp.reshape(LD, A.shape), jnp.reshape(piv, batch + (n,)),
            jnp.reshape(info, batch))


_ldl_factor_core = not_differentiable(_ldl_factor_impl,
                                      _no_derivative_error("linalg_ldl_factor_ex"), (1,))


def _ldl_factor_check_common(A, hermitian):
    name = "torch.linalg.ldl_factor_ex"
    check_square(name, A)
    check_float(name, A)
    _kernel_check("ldl_factor_kernel_cpu", A)


def _ldl_check_errors(api: str, info) -> None:
    """PyTorch reports a singular ``D`` (LAPACK's ``info > 0``) as an unknown error code."""
    flat = np.asarray(info).reshape(-1)
    bad = flat[flat != 0]
    if bad.size:
        raise RuntimeError(f"{api}: Unknown error code: {int(bad[0])}. (LAPACK's sytrf "
                           f"found D[{int(bad[0])},{int(bad[0])}] exactly zero: the matrix "
                           f"is singular; linalg.ldl_factor_ex returns it as info.)")


def _ldl_factor_ex(A, hermitian=False, check_errors=False, out=None):
    return _ldl_factor_core(A, hermitian)


def _ldl_factor_ex_check(A, hermitian=False, check_errors=False, out=None):
    _ldl_factor_check_common(A, hermitian)
    if check_errors and not _is_traced(A) and A.numel():
        _ldl_check_errors("torch.linalg.ldl_factor_ex", _ldl_info(A, hermitian))


@partial(jax.jit, static_argnums=1)
def _ldl_info_jit(a, hermitian):
    return _ldl_factor_core(a, hermitian)[2]


def _ldl_info(A, hermitian):
    return _ldl_info_jit(A._value, bool(hermitian))


def _ldl_factor(A, hermitian=False, out=None):
    LD, piv, _ = _ldl_factor_core(A, hermitian)
    return LD, piv


def _ldl_factor_check(A, hermitian=False, out=None):
    _ldl_factor_check_common(A, hermitian)
    if not _is_traced(A) and A.numel():
        _ldl_check_errors("torch.linalg.ldl_factor", _ldl_info(A, hermitian))


def _sym(*shape, dtype="float32", weak_diagonal=False, hermitian=False):
    """Symmetric (or Hermitian) samples; ``weak_diagonal`` makes 2x2 pivots likely."""
    a = arr(*shape, dtype=dtype)
    if weak_diagonal:
        n = shape[-1]
        a = a * np.where(np.eye(n, dtype=bool), 0.01, 1.0).astype(a.dtype)
    t = np.swapaxes(a, -1, -2)
    return (a + (np.conj(t) if hermitian else t)).astype(dtype)


def _ldl_samples():
    # (a singular input with check_errors is tested in tests/test_linalg_more.py: PyTorch's
    # message for it is an internal assertion, not reproduced)
    return [S(_sym(4, 4), grad=False), S(_sym(2, 5, 5, dtype="float64", weak_diagonal=True),
                                         grad=False),
            S(_sym(3, 3, dtype="complex128", weak_diagonal=True), grad=False),
            S(_sym(4, 4, dtype="complex128", hermitian=True), hermitian=True, grad=False),
            S(arr(4, 4), grad=False), S(arr(0, 0), grad=False),
            S(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]], np.float32),
              grad=False),
            S(np.array([[0.0, 1.0], [1.0, 0.0]]), grad=False),
            S(arr(2, 3), grad=False), S(arr(3), grad=False),
            S(arr(3, 3, dtype="int64"), grad=False)]


_linalg("ldl_factor_ex", _ldl_factor_ex,
        "A, *, hermitian=False, check_errors=False", tensor_args=("A",),
        promote="none", check=_ldl_factor_ex_check, out_names=("LD", "pivots", "info"),
        grad_name="torch::autograd::NotImplemented",
        doc="Mirrors ``torch.linalg.ldl_factor_ex``: the Bunch-Kaufman LDL factorization "
            "in LAPACK's format (Note [LAPACK's LDL format]) and LAPACK's ``info`` (the "
            "first exactly zero diagonal entry of ``D``). Not differentiable, as in "
            "PyTorch: a backward pass raises.",
        samples=_ldl_samples)
_linalg("ldl_factor", _ldl_factor, "A, *, hermitian=False", tensor_args=("A",),
        promote="none", check=_ldl_factor_check, out_names=("LD", "pivots"),
        grad_name="torch::autograd::NotImplemented",
        doc="Mirrors ``torch.linalg.ldl_factor`` (see ``ldl_factor_ex``). A singular input "
            "raises a RuntimeError, as PyTorch does (whose message is an internal "
            "\"Unknown error code\"; here it also says what the code means).",
        samples=lambda: [s for i, s in enumerate(_ldl_samples()) if i != 6])


def _ldl_solve_one(LD, ipiv, B, hermitian: bool):
    """LAPACK ``sytrs``/``hetrs`` (lower) for one matrix: ``A X = B`` from ``sytrf``'s
    ``LD`` and ``ipiv``."""
    n = LD.shape[-1]
    herm = hermitian and jnp.iscomplexobj(LD)
    cj = jnp.conj if herm else (lambda z: z)
    idx = jnp.arange(n)

    def swap(B, i, j):
        perm = idx.at[i].set(j).at[j].set(i)
        return B[perm]

    def forward(state):   # L D Y = B, first column to last
        B, k = state
        p = ipiv[k]
        two = p < 0
        k1 = jnp.minimum(k + 1, n - 1)
        kp = jnp.where(two, -p, p) - 1
        B = swap(B, jnp.where(two, k1, k), kp)
        col0 = jnp.where(idx > jnp.where(two, k1, k), LD[:, k], 0)
        col1 = jnp.where(two & (idx > k1), LD[:, k1], 0)
        B = B - col0[:, None] * B[k][None, :]
        B = B - col1[:, None] * B[k1][None, :]
        # 1x1 block
        d = jnp.real(LD[k, k]) if herm else LD[k, k]
        one = B.at[k].set(B[k] * (1 / d))
        # 2x2 block
        akm1k = LD[k1, k]
        akm1k = jnp.where(akm1k == 0, 1, akm1k)
        akm1 = LD[k, k] / cj(akm1k)
        ak = LD[k1, k1] / akm1k
        denom = akm1 * ak - 1
        bkm1 = B[k] / cj(akm1k)
        bk = B[k1] / akm1k
        blk = B.at[k].set((ak * bkm1 - bk) / denom).at[k1].set((akm1 * bk - bkm1) / denom)
        return jnp.where(two, blk, one), k + jnp.where(two, 2, 1)

    def backward(state):   # L^T X = Y (L^H), last column to first
        B, k = state
        p = ipiv[k]
        two = p < 0
        k0 = jnp.maximum(k - 1, 0)
        rows = idx > k
        B = B.at[k].add(-jnp.einsum("i,ij->j", cj(jnp.where(rows, LD[:, k], 0)), B))
        upd = B.at[k0].add(-jnp.einsum("i,ij->j", cj(jnp.where(rows, LD[:, k0], 0)), B))
        B = jnp.where(two, upd, B)
        kp = jnp.where(two, -p, p) - 1
        return swap(B, k, kp), k - jnp.where(two, 2, 1)

    B, _ = jax.lax.while_loop(lambda s: s[1] < n, forward, (B, jnp.zeros((), jnp.int32)))
    B, _ = jax.lax.while_loop(lambda s: s[1] >= 0, backward,
                              (B, jnp.asarray(n - 1, jnp.int32)))
    return B


def _ldl_solve_impl(LD, pivots, B, hermitian):
    n = LD.shape[-1]
    batch = jnp.broadcast_shapes(LD.shape[:-2], B.shape[:-2])
    if n == 0 or math.prod(batch) == 0 or B.shape[-1] == 0:
        return jnp.zeros(batch + B.shape[-2:], B.dtype)
    count = math.prod(batch)
    LD = jnp.reshape(jnp.broadcast_to(LD, batch + (n, n)), (count, n, n))
    piv = jnp.reshape(jnp.broadcast_to(pivots, batch + (n,)), (count, n)).astype(jnp.int32)
    shape = batch + B.shape[-2:]
    Bf = jnp.reshape(jnp.broadcast_to(B, shape), (count,) + B.shape[-2:])
    X = jax.vmap(lambda ld, p, b: _ldl_solve_one(ld, p, b, hermitian))(LD, piv, Bf)
    return jnp.reshape(X, shape)


_ldl_solve_core = not_differentiable(_ldl_solve_impl,
                                     _no_derivative_error("linalg_ldl_solve"), (3,))


def _ldl_solve(LD, pivots, B, hermitian=False, out=None):
    return _ldl_solve_core(LD, pivots, B, bool(hermitian))


def _ldl_solve_check(LD, pivots, B, hermitian=False, out=None):
    name = "torch.linalg.ldl_solve"
    check_square(name, LD)
    check_float(name, LD)
    linear_solve_check(B, LD, name)
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {shape_str(pivots._shape)} instead")
    if pivots.dtype.is_floating_point or pivots.dtype.is_complex or \
            pivots.dtype is _dt.bool:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got "
                           f"{dtype_title(pivots.dtype)}")
    broadcast_shapes_or_raise(B._shape[:-2], LD._shape[:-2])
    _kernel_check("ldl_solve_kernel_cpu", LD)
    if _is_traced(pivots) or pivots.numel() == 0:
        return
    p = np.abs(np.asarray(pivots._value).astype(np.int64))
    if p.min() < 1:
        raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| >= 1. Did you "
                           "properly pass the result of ldl_factor?")
    if p.max() > LD._shape[-2]:
        raise RuntimeError("Pivots given to ldl_solve must all satisfy |pivot| <= "
                           "LD.size(-2). Did you properly pass the result of ldl_factor?")


def _ldl_solve_samples():
    def factored(a, hermitian=False):
        ld, piv, _ = _ldl_factor_core(jnp.asarray(a), hermitian)
        return np.asarray(ld), np.asarray(piv)
    ld, piv = factored(_sym(4, 4, weak_diagonal=True))
    ld64, piv64 = factored(_sym(2, 4, 4, dtype="float64", weak_diagonal=True))
    ldh, pivh = factored(_sym(3, 3, dtype="complex128", hermitian=True, weak_diagonal=True),
                         True)
    lds, pivs = factored(_sym(3, 3, dtype="complex128", weak_diagonal=True))
    return [S(ld, piv, arr(4, 2), grad=False),
            S(ld64, piv64, arr(2, 4, 3, dtype="float64"), grad=False),
            S(ld64, piv64, arr(1, 4, 1, dtype="float64"), grad=False),
            S(ldh, pivh, arr(3, 2, dtype="complex128"), hermitian=True, grad=False),
            S(lds, pivs, arr(3, 2, dtype="complex128"), grad=False),
            S(ld, piv.astype(np.int64), arr(4, 2), grad=False),
            S(ld, piv, arr(4), grad=False), S(ld, piv, arr(3, 2), grad=False),
            S(ld, piv, arr(4, 2, dtype="float64"), grad=False),
            S(ld, piv[:3], arr(4, 2), grad=False),
            S(ld, piv.astype(np.float32), arr(4, 2), grad=False),
            S(ld, np.array([5, 1, 1, 1], np.int32), arr(4, 2), grad=False),
            S(ld, np.array([0, 2, 3, 4], np.int32), arr(4, 2), grad=False)]


_linalg("ldl_solve", _ldl_solve, "LD, pivots, B, *, hermitian=False",
        tensor_args=("LD", "pivots", "B"), promote="none", check=_ldl_solve_check,
        grad_name="torch::autograd::NotImplemented",
        doc="Mirrors ``torch.linalg.ldl_solve``: solves ``A X = B`` from ``ldl_factor``'s "
            "result as LAPACK's ``sytrs``/``hetrs`` do (Note [LAPACK's LDL format]). Not "
            "differentiable, as in PyTorch: a backward pass raises.",
        samples=_ldl_solve_samples)


make_return_types("linalg_ldl_factor_ex", "linalg_ldl_factor")
