"""Linear-algebra ops, determinants, inverses and solvers: ``det``, ``slogdet``,
``logdet``, ``inv``/``inv_ex``, ``pinv``, ``matrix_power``, ``matrix_exp``, ``solve``,
``solve_triangular`` and ``lstsq``, declared in the op table (see
``torchlike/_ops/spec.py``; helpers in ``_common.py``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from .._core import dtype as _dt
from .._ops._common import broadcast_shapes_or_raise
from .._ops.linalg import HIGHEST, check_float, check_square, dtype_title
from .._ops.samples import S, arr
from .._ops.spec import OpSpec, register
from ._common import (_LAPACK_DTYPES, _check_singular, _default_tols, _eps, _expose,
                      _float_square, _hermitian_from, _inv_message, _kernel_check, _linalg,
                      _low_precision_check, _mH, _mT, _sq, _zero_pivot)


# ---------------------------------------------------------------------------
# determinants
def _lapack_square(name, kernel=None):
    """A square floating matrix of a dtype LAPACK factorizes: PyTorch's NotImplementedError
    naming ``kernel`` for float16/bfloat16, or its low-precision RuntimeError naming
    ``name`` (the functions that check the dtype first)."""
    def check(A, *rest, **kw):
        _float_square(name)(A)
        if kernel is None:
            _low_precision_check(name, A)
        else:
            _kernel_check(kernel, A)
    return check


register(OpSpec(
    "det", lambda input: jnp.linalg.det(input), "input", promote="none",
    check=_lapack_square("linalg.det", "lu_cpu"), grad_name="LinalgDetBackward0",
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 4, 4, dtype="float64")), S(_sq(1, 1)),
                     S(_sq(2, 2, dtype="complex128"), grad=False),
                     S(arr(3, 3, dtype="int64"), grad=False), S(arr(2, 3), grad=False)]))
_expose("det", "det")


def _slogdet(A, out=None):
    sign, logabs = jnp.linalg.slogdet(A)
    return sign, logabs


register(OpSpec(
    "slogdet", lambda input: _slogdet(input), "input", promote="none",
    check=_lapack_square("linalg.slogdet"), out_names=("sign", "logabsdet"),
    grad_name="LinalgSlogdetBackward0",
    samples=lambda: [S(_sq(3, 3)), S(-_sq(2, 3, 3, dtype="float64")),
                     S(arr(3, 3, dtype="int64"), grad=False)]))
_linalg("slogdet", _slogdet, "A", tensor_args=("A",), promote="none",
        check=_lapack_square("linalg.slogdet"), out_names=("sign", "logabsdet"),
        grad_name="LinalgSlogdetBackward0",
        samples=lambda: [S(_sq(3, 3)), S(-_sq(2, 3, 3, dtype="float64"))])


def _logdet(input):
    sign, logabs = jnp.linalg.slogdet(input)
    if jnp.iscomplexobj(input):
        return logabs.astype(input.dtype) + jnp.log(sign)
    return jnp.where(sign < 0, jnp.nan, logabs)


register(OpSpec(
    "logdet", _logdet, "input", promote="none", check=_lapack_square("logdet"),
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 3, 3, dtype="float64")),
                     S(np.array([[-1.0, 0], [0, 1]], np.float32), grad=False),
                     S(arr(3, 3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# inverses
def _inv_check(A, *rest, **kw):
    check_float("linalg.inv", A)
    _low_precision_check("linalg.inv", A)
    check_square("linalg.inv", A)
    _check_singular(A, _inv_message)


register(OpSpec(
    "inverse", lambda input: jnp.linalg.inv(input), "input", promote="none",
    check=_inv_check, grad_name="LinalgInvExBackward0",
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 4, 4, dtype="float64")),
                     S(_sq(2, 2, dtype="complex64"), grad=False),
                     S(np.array([[1.0, 2], [2, 4]], np.float32), grad=False),
                     S(arr(2, 2, dtype="int64"), grad=False), S(arr(2, 3), grad=False)]))
_expose("inverse", "inv")


def _inv_ex(A, check_errors=False, out=None):
    return jnp.linalg.inv(A), _zero_pivot(A)


def _inv_ex_check(A, check_errors=False, out=None):
    check_float("linalg.inv_ex", A)
    _low_precision_check("linalg.inv", A)
    check_square("linalg.inv_ex", A)
    if check_errors:
        _check_singular(A, _inv_message)


_linalg("inv_ex", _inv_ex, "A, *, check_errors=False", tensor_args=("A",),
        promote="none", check=_inv_ex_check, out_names=("inverse", "info"),
        grad_name="LinalgInvExBackward0",
        samples=lambda: [S(_sq(3, 3)), S(_sq(2, 3, 3, dtype="float64")),
                         S(np.array([[1.0, 2], [2, 4]], np.float32), grad=False)])


def _pinv_core(A, atol, rtol, hermitian):
    atol, rtol = _default_tols(A, atol, rtol)
    if hermitian:
        # the value reads the lower triangle only; the gradient is PyTorch's generic one
        A = jax.lax.stop_gradient(_hermitian_from(A, True) - A) + A
    u, s, vh = jnp.linalg.svd(A, full_matrices=False)
    thr = jnp.maximum(atol, rtol * jnp.max(s, axis=-1, keepdims=True, initial=0.0))
    sinv = jnp.where(s > thr, 1 / jnp.where(s == 0, 1, s), 0).astype(A.dtype)
    return jnp.matmul(_mH(vh) * sinv[..., None, :], _mH(u), precision=HIGHEST)


def _pinv_dtype_check(A, *rest, **kw):
    if A.dim() < 2 or not (A.dtype.is_floating_point or A.dtype.is_complex) or \
            A.dtype in (_dt.float16, _dt.bfloat16):
        shape = ", ".join(str(s) for s in A._shape)
        raise RuntimeError(f"linalg.pinv({dtype_title(A.dtype)}{{[{shape}]}}): expected a "
                           f"tensor with 2 or more dimensions of float, double, cfloat or "
                           f"cdouble types")


register(OpSpec(
    "pinverse", lambda input, rcond=1e-15: _pinv_core(input, 0.0, rcond, False),
    "input, rcond=1e-15", promote="none", check=_pinv_dtype_check,
    grad_name="LinalgPinvBackward0",
    samples=lambda: [S(arr(3, 3)), S(arr(4, 2, dtype="float64")), S(arr(2, 2, 5)),
                     S(arr(3, 3, dtype="int64"), grad=False), S(arr(3), grad=False)]))


def _pinv(A, rcond=None, hermitian=False, atol=None, rtol=None, out=None):
    if rcond is not None:
        rtol = rcond
    return _pinv_core(A, atol, rtol, hermitian)


_linalg("pinv", _pinv, "A, rcond=None, hermitian=False, *, atol=None, rtol=None",
        tensor_args=("A",), promote="none", check=_pinv_dtype_check,
        grad_name="LinalgPinvBackward0",
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2, dtype="float64")), S(arr(2, 2, 5)),
                         S(arr(3, 3), atol=0.5), S(arr(3, 4), rtol=0.3),
                         S(_sq(3, 3, spd=True), hermitian=True)])


def _matrix_power(input, n):
    if n == 0:
        eye = jnp.eye(input.shape[-1], dtype=input.dtype)
        return jnp.broadcast_to(eye, input.shape)
    a = jnp.linalg.inv(input) if n < 0 else input
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = a if result is None else jnp.matmul(result, a, precision=HIGHEST)
        n >>= 1
        if n:
            a = jnp.matmul(a, a, precision=HIGHEST)
    return result


def _matrix_power_check(input, n):
    check_square("linalg.matrix_power", input)
    if n < 0:
        check_float("linalg.inv", input)
        _low_precision_check("linalg.inv", input)
        _check_singular(input, _inv_message)


register(OpSpec(
    "matrix_power", _matrix_power, "input, n", promote="none", check=_matrix_power_check,
    grad_name=lambda input, n: "MmBackward0" if n > 1 else "LinalgInvExBackward0",
    samples=lambda: [S(_sq(3, 3) / 3, 3), S(_sq(2, 3, 3, dtype="float64") / 3, 2),
                     S(_sq(3, 3), -2), S(arr(3, 3), 0), S(arr(3, 3), 1),
                     S(arr(2, 2, dtype="int64"), 3, grad=False),
                     S(arr(2, 2, dtype="int64"), -1, grad=False),
                     S(arr(2, 3), 2, grad=False)]))
_linalg("matrix_power", lambda A, n, out=None: _matrix_power(A, n), "A, n",
        tensor_args=("A",), promote="none",
        check=lambda A, n, out=None: _matrix_power_check(A, n),
        samples=lambda: [S(_sq(3, 3) / 3, 3), S(_sq(3, 3), -1)])


register(OpSpec(
    "matrix_exp", lambda input: jsl.expm(input), "input", promote="none",
    check=_float_square("linalg.matrix_exp"), grad_name="LinalgMatrixExpBackward0",
    samples=lambda: [S(arr(3, 3) / 2), S(arr(2, 3, 3, dtype="float64") / 2),
                     S(arr(1, 1)), S(arr(2, 2, dtype="int64"), grad=False),
                     S(arr(2, 3), grad=False)]))
_expose("matrix_exp", "matrix_exp")


# ---------------------------------------------------------------------------
# solvers
def _solve_is_vector(a_shape, b_shape) -> bool:
    return len(b_shape) == 1 or (len(b_shape) == len(a_shape) - 1 and
                                 tuple(b_shape) == tuple(a_shape[:-1]))


def _solve(A, B, left=True, out=None):
    vector = _solve_is_vector(A.shape, B.shape)
    if vector:
        B = B[..., None]
    if not left:
        A, B = _mT(A), _mT(B)
    batch = jnp.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    X = jnp.linalg.solve(A, B)
    if not left:
        X = _mT(X)
    return X[..., 0] if vector else X


def _solve_check(A, B, left=True, out=None):
    check_float("linalg.solve", A)
    check_square("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {dtype_title(A.dtype)} and B of type "
                           f"{dtype_title(B.dtype)} instead")
    vector = _solve_is_vector(A._shape, B._shape)
    bs = B._shape + (1,) if vector else B._shape
    n = A._shape[-1]
    k = bs[-2] if left else bs[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {bs[-2]}x{bs[-1]})")
    broadcast_shapes_or_raise(A._shape[:-2], bs[:-2])
    _kernel_check("lu_cpu", A)
    _check_singular(A, lambda prefix, _: f"torch.linalg.solve: {prefix}The solver failed "
                    f"because the input matrix is singular.")


_linalg("solve", _solve, "A, B, *, left=True", tensor_args=("A", "B"),
        promote="none", check=_solve_check, grad_name="LinalgSolveExBackward0",
        samples=lambda: [S(_sq(3, 3), arr(3)), S(_sq(3, 3), arr(3, 2)),
                         S(_sq(2, 3, 3, dtype="float64"), arr(2, 3, dtype="float64")),
                         S(_sq(2, 3, 3), arr(3, 4)), S(_sq(3, 3), arr(2, 3), left=False),
                         S(np.array([[1.0, 2], [2, 4]], np.float32), arr(2), grad=False),
                         S(_sq(3, 3), arr(4), grad=False),
                         S(_sq(3, 3), arr(3, dtype="float64"), grad=False)])


def _solve_triangular(A, B, upper, left=True, unitriangular=False, out=None):
    batch = jnp.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    return jax.lax.linalg.triangular_solve(A, B, left_side=left, lower=not upper,
                                           unit_diagonal=unitriangular)


def _solve_triangular_check(A, B, upper, left=True, unitriangular=False, out=None):
    _kernel_check("triangular_solve_cpu", A)
    check_square("linalg.solve_triangular", A)
    n = A._shape[-1]
    if B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same "
                           f"dtype, but found A of type {dtype_title(A.dtype)} and B of type "
                           f"{dtype_title(B.dtype)} instead")
    k = B._shape[-2] if left else B._shape[-1]
    if k != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {eq} ({n}x{n} and {B._shape[-2]}x{B._shape[-1]})")


_linalg("solve_triangular", _solve_triangular,
        "A, B, *, upper, left=True, unitriangular=False", tensor_args=("A", "B"),
        promote="none", check=_solve_triangular_check,
        grad_name="LinalgSolveTriangularBackward0",
        samples=lambda: [S(_sq(3, 3), arr(3, 2), upper=True),
                         S(_sq(3, 3), arr(3, 2), upper=False),
                         S(_sq(2, 3, 3, dtype="float64"), arr(3, 4, dtype="float64"),
                           upper=False, unitriangular=True),
                         S(_sq(3, 3), arr(2, 3), upper=True, left=False),
                         S(_sq(3, 3), arr(2, 2), upper=True, grad=False)])


def _lstsq(A, B, rcond=None, driver=None):
    m, n = A.shape[-2:]
    vector = B.ndim == A.ndim - 1
    Bm = B[..., None] if vector else B
    driver = driver or "gelsy"
    rc = rcond if rcond is not None and rcond > 0 else _eps(A.dtype) * max(m, n)
    u, s, vh = jnp.linalg.svd(A, full_matrices=False)
    smax = jnp.max(s, axis=-1, keepdims=True, initial=0.0)
    keep = s > rc * smax
    sinv = jnp.where(keep, 1 / jnp.where(s == 0, 1, s), 0).astype(A.dtype)
    X = jnp.matmul(_mH(vh) * sinv[..., None, :], jnp.matmul(_mH(u), Bm, precision=HIGHEST),
                   precision=HIGHEST)
    real = s.dtype
    if m > n and driver != "gelsy":
        r = jnp.matmul(A, X, precision=HIGHEST) - Bm
        residuals = jnp.sum(jnp.real(r * jnp.conj(r)), axis=-2).astype(real)
        if vector:
            residuals = residuals[..., 0]
    else:
        residuals = jnp.zeros((0,), real)
    rank = jnp.sum(keep, axis=-1).astype(jnp.int64) if driver != "gels" else \
        jnp.zeros((0,), jnp.int64)
    svals = s if driver in ("gelsd", "gelss") else jnp.zeros((0,), real)
    return (X[..., 0] if vector else X), residuals, rank, svals


def _lstsq_check(A, B, rcond=None, driver=None):
    for t in (A, B):
        if t.dtype.name not in _LAPACK_DTYPES:
            raise RuntimeError("This function doesn't handle types other than float and "
                               "double")
    if driver is not None and driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if not (0 <= A.dim() - B.dim() <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    rows_b = B._shape[-1] if B.dim() == A.dim() - 1 else B._shape[-2]
    if rows_b != A._shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
                           f" - got {A._shape[-2]} vs {rows_b}")


_linalg("lstsq", _lstsq, "A, B, rcond=None, *, driver=None", tensor_args=("A", "B"),
        promote="none", check=_lstsq_check,
        out_names=("solution", "residuals", "rank", "singular_values"),
        grad_name="LinalgLstsqBackward0", nondiff_outputs=(3,),
        samples=lambda: [S(arr(5, 3), arr(5, 2)), S(arr(5, 3), arr(5, 2), driver="gelsd"),
                         S(arr(5, 3, dtype="float64"), arr(5, 2, dtype="float64"),
                           driver="gels"),
                         S(arr(2, 4, 3), arr(2, 4, 1), driver="gelss"),
                         S(arr(3, 5), arr(3, 2), driver="gelsd")])

