"""Linear-algebra ops, factorizations: ``lu_factor``, ``cholesky``/``cholesky_ex``,
``eigh``/``eigvalsh``, ``eig``/``eigvals``, ``svd``/``svdvals`` and ``qr``, declared in
the op table (see ``torchlike/_ops/spec.py``; helpers in ``_common.py``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._ops._common import warn_at_caller
from .._ops.linalg import check_float, check_square, dtype_title
from .._ops.samples import S, arr
from .._ops.spec import OpSpec, register
from ._common import (_check_cholesky, _cholesky_info, _hermitian_from, _kernel_check,
                      _linalg, _mH, _sq, check_lu_factor_errors)


def _lu_factor(A, pivot=True, out=None):
    lu, piv, _ = jax.lax.linalg.lu(A)
    return lu, (piv + 1).astype(jnp.int32)


def _lu_factor_check(A, pivot=True, out=None):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{dtype_title(A.dtype)}'")
    if A.dim() < 2:
        raise RuntimeError("linalg.lu_factor: The input tensor A must have at least 2 "
                           "dimensions.")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")
    _kernel_check("lu_cpu", A)
    check_lu_factor_errors("torch.linalg.lu_factor", A)


_linalg("lu_factor", _lu_factor, "A, *, pivot=True", tensor_args=("A",),
        promote="none", check=_lu_factor_check, out_names=("LU", "pivots"),
        grad_name="LinalgLuFactorExBackward0",
        doc="Mirrors ``torch.linalg.lu_factor``: ``lu_factor_ex`` that raises PyTorch's "
            "RuntimeError when ``U`` has an exact zero on its diagonal (eager only).",
        samples=lambda: [S(arr(3, 3)), S(arr(2, 4, 4, dtype="float64")),
                         S(arr(3, 3, dtype="int64"), grad=False),
                         S(np.array([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]],
                                    np.float32), grad=False)])


# ---------------------------------------------------------------------------
# Cholesky (Note [Symmetric inputs] in ``_common.py``)

def _cholesky_core(A, upper):
    L = jax.lax.linalg.cholesky(_hermitian_from(A, True), symmetrize_input=False)
    return _mH(L) if upper else L


def _cholesky_old_check(input, upper=False):
    warn_at_caller("torchlike.cholesky is deprecated in favor of torchlike.linalg.cholesky "
                   "and will be removed in a future release.")
    check_float("linalg.cholesky", input)
    check_square("linalg.cholesky", input)
    _kernel_check("cholesky_cpu", input)
    _check_cholesky("cholesky", input)


register(OpSpec(
    "cholesky", lambda input, upper=False: _cholesky_core(input, upper), "input, upper=False",
    promote="none", check=_cholesky_old_check,
    grad_name="LinalgCholeskyExBackward0",
    samples=lambda: [S(_sq(3, 3, spd=True)), S(_sq(2, 3, 3, spd=True, dtype="float64"),
                                               upper=True),
                     S(np.array([[1.0, 2], [2, 1]], np.float32), grad=False)]))


def _cholesky_check(A, upper=False, out=None):
    check_float("linalg.cholesky", A)
    check_square("linalg.cholesky", A)
    _kernel_check("cholesky_cpu", A)
    _check_cholesky("linalg.cholesky", A)


_linalg("cholesky", lambda A, upper=False, out=None: _cholesky_core(A, upper),
        "A, *, upper=False", tensor_args=("A",), promote="none",
        check=_cholesky_check, grad_name="LinalgCholeskyExBackward0",
        samples=lambda: [S(_sq(3, 3, spd=True)),
                         S(_sq(2, 4, 4, spd=True, dtype="float64"), upper=True),
                         S(_sq(3, 3, spd=True, dtype="complex128"), grad=False),
                         S(np.array([[1.0, 2], [2, 1]], np.float32), grad=False),
                         S(np.array([[[1.0, 0], [0, 1]], [[1.0, 2], [2, 1]]], np.float32),
                           grad=False),
                         S(arr(3, 3, dtype="int64"), grad=False)])


def _cholesky_ex(A, upper=False, check_errors=False, out=None):
    return _cholesky_core(A, upper), _cholesky_info(A)


def _cholesky_ex_check(A, upper=False, check_errors=False, out=None):
    check_float("linalg.cholesky_ex", A)
    check_square("linalg.cholesky_ex", A)
    _kernel_check("cholesky_cpu", A)
    if check_errors:
        _check_cholesky("linalg.cholesky_ex", A)


_linalg("cholesky_ex", _cholesky_ex, "A, *, upper=False, check_errors=False",
        tensor_args=("A",), promote="none", check=_cholesky_ex_check,
        out_names=("L", "info"), grad_name="LinalgCholeskyExBackward0",
        samples=lambda: [S(_sq(3, 3, spd=True)), S(_sq(2, 3, 3, spd=True), upper=True)])


# ---------------------------------------------------------------------------
# eigen- and singular-value decompositions
def _eigh_core(A, UPLO):
    lower = UPLO == "L"
    v, w = jax.lax.linalg.eigh(_hermitian_from(A, lower), lower=lower,
                               symmetrize_input=False)
    return w, v


def _eigh_check(name):
    def check(A, UPLO="L", out=None):
        if not (A.dtype.is_floating_point or A.dtype.is_complex):
            raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for "
                                      f"'{dtype_title(A.dtype)}'")
        check_square(name, A)
        if UPLO not in ("L", "U"):
            raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
        _kernel_check("linalg_eigh_cpu", A)
    return check


def _eigh_invariant(w, v):
    """Gauge-invariant view of ``eigh``'s result: eigenvalues and V diag(w) V^H."""
    return w, (v * w.unsqueeze(-2).to(v.dtype)) @ v.mH


_linalg("eigh", lambda A, UPLO="L", out=None: _eigh_core(A, UPLO),
        "A, UPLO='L'", tensor_args=("A",),
        promote="none", check=_eigh_check("linalg.eigh"),
        out_names=("eigenvalues", "eigenvectors"), grad_name="LinalgEighBackward0",
        extra={"invariant": _eigh_invariant},
        samples=lambda: [S(_sq(3, 3, spd=True)), S(arr(4, 4), "U"),
                         S(arr(2, 3, 3, dtype="float64")),
                         S(arr(3, 3), "X", grad=False)])
_linalg("eigvalsh", lambda A, UPLO="L", out=None: _eigh_core(A, UPLO)[0],
        "A, UPLO='L'", tensor_args=("A",), promote="none",
        check=_eigh_check("linalg.eigvalsh"),
        grad_name="LinalgEighBackward0",
        samples=lambda: [S(_sq(3, 3, spd=True)), S(arr(4, 4), "U"),
                         S(arr(2, 3, 3, dtype="float64"))])


def _eig_check(A, out=None):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {dtype_title(A.dtype)}")
    check_square("linalg.eig", A)
    _kernel_check("linalg_eig_out_cpu", A)


def _eig(A, out=None):
    w, v = jnp.linalg.eig(A)
    return w, v


def _eig_invariant(w, v):
    """Eigenvalues, and V diag(w) V^-1 (= A), independent of the eigenvectors' scaling."""
    return w, (v * w.unsqueeze(-2)) @ v.inverse()


_linalg("eig", _eig, "A", tensor_args=("A",), promote="none",
        check=_eig_check, out_names=("eigenvalues", "eigenvectors"),
        grad_name="LinalgEigBackward0", extra={"invariant": _eig_invariant},
        samples=lambda: [S(arr(3, 3), grad=False), S(arr(2, 3, 3, dtype="float64"),
                                                     grad=False),
                         S(arr(3, 3, dtype="complex64"), grad=False)])
_linalg("eigvals", lambda A, out=None: jnp.linalg.eigvals(A), "A",
        tensor_args=("A",), promote="none", check=_eig_check,
        grad_name="LinalgEigBackward0",
        samples=lambda: [S(arr(3, 3), grad=False), S(arr(2, 3, 3, dtype="float64"),
                                                     grad=False)])


def _svd(A, full_matrices=True, driver=None, out=None):
    u, s, vh = jnp.linalg.svd(A, full_matrices=full_matrices)
    return u, s, vh


def _svd_check(name):
    def check(A, *rest, **kw):
        check_float("linalg.svd", A)
        if A.dim() < 2:
            raise RuntimeError("linalg.svd: The input tensor A must have at least 2 "
                               "dimensions.")
        _kernel_check("linalg_svd_cpu", A)
    return check


def _svd_invariant(u, s, vh):
    """Singular values and U_k diag(S) Vh_k (= A): independent of the vectors' phases."""
    k = s.shape[-1]
    return s, (u[..., :, :k] * s.unsqueeze(-2).to(u.dtype)) @ vh[..., :k, :]


_linalg("svd", _svd, "A, full_matrices=True, *, driver=None", tensor_args=("A",),
        promote="none", check=_svd_check("linalg.svd"),
        out_names=("U", "S", "Vh"), grad_name="LinalgSvdBackward0",
        extra={"invariant": _svd_invariant},
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2), full_matrices=False),
                         S(arr(2, 3, 5, dtype="float64"), full_matrices=False),
                         S(arr(4, 3), grad=False),
                         S(arr(3, 2, dtype="complex128"), full_matrices=False, grad=False),
                         S(arr(3, 3, dtype="int64"), grad=False)])
_linalg("svdvals", lambda A, driver=None, out=None: jnp.linalg.svd(A, compute_uv=False),
        "A, *, driver=None", tensor_args=("A",), promote="none",
        check=_svd_check("linalg.svdvals"), grad_name="LinalgSvdBackward0",
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2)), S(arr(2, 3, 5, dtype="float64"))])


def _qr(A, mode="reduced", out=None):
    if mode == "r":
        return jnp.zeros((0,), A.dtype), jnp.linalg.qr(A, mode="r")
    q, r = jnp.linalg.qr(A, mode=mode)
    return q, r


def _qr_check(A, mode="reduced", out=None):
    check_float("linalg.qr", A)
    if A.dim() < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    _kernel_check("geqrf_cpu", A)


def _qr_invariant(q, r):
    """Q R (= A) and |R|: independent of the signs LAPACK picks."""
    if q.numel() == 0:
        return r.abs()
    return q @ r, r.abs()


_linalg("qr", _qr, "A, mode='reduced'", tensor_args=("A",), promote="none",
        check=_qr_check, out_names=("Q", "R"),
        grad_name="LinalgQrBackward0", extra={"invariant": _qr_invariant},
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2)), S(arr(2, 4, 3, dtype="float64")),
                         S(arr(4, 2), mode="complete", grad=False),
                         S(arr(4, 2), mode="r", grad=False),
                         S(arr(3, 3), mode="x", grad=False)])

