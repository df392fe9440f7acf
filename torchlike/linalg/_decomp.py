"""Linear-algebra ops, part two: determinants, inverses, solvers, decompositions and
norms, declared in the op table (see ``torchlike/_ops/spec.py``). Ops that exist only
under ``torchlike.linalg`` are declared with ``function=False, method=False`` and a
name ``linalg_<name>``; ``_expose`` makes their public function.

# Note [Singular inputs]
# PyTorch raises ``LinAlgError`` when ``inv``/``solve`` meet a singular matrix or
# ``cholesky`` a matrix that is not positive-definite. JAX returns inf/NaN instead, so
# the eager ``check`` runs the factorization once more to find PyTorch's message (the
# first zero pivot, the first failing leading minor). Under tracing the check is skipped:
# values are unknown there, and the compiled result carries inf/NaN as JAX computes it.

# Note [Symmetric inputs]
# ``eigh`` and ``cholesky`` read one triangle only, as LAPACK (and PyTorch) do; their
# gradients are the symmetric ones PyTorch returns. ``_hermitian_from`` builds the full
# matrix from the triangle for the forward value while routing the gradient through
# ``(A + A^H) / 2``.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .._ops._common import broadcast_shapes_or_raise
from .._ops.dispatch import dispatch
from .._ops.linalg import (HIGHEST, LinAlgError, check_float, check_square, dtype_title)
from .._ops.samples import S, arr
from .._ops.spec import OPS, OpSpec, register

__all__ = ["PUBLIC", "LinAlgError"]

PUBLIC: dict = {}   # torchlike.linalg name -> function


def _expose(op_name: str, public: str):
    """The ``torchlike.linalg.<public>`` function for table op ``op_name``."""
    spec = OPS[op_name]

    def f(*args, **kwargs):
        return dispatch(spec, f, args, kwargs)
    f.__name__ = public
    f.__qualname__ = "linalg." + public
    f.__module__ = "torchlike.linalg"
    f.__doc__ = spec.doc or f"Mirrors ``torch.linalg.{public}``."
    if spec.function is False and spec.method is False:
        spec.api = f
        spec.extra["public"] = "linalg." + public
    PUBLIC[public] = f
    return f


def _linalg(name, fn, signature, **kw):
    """Declare ``torchlike.linalg.<name>`` (op ``linalg_<name>``)."""
    register(OpSpec("linalg_" + name, fn, signature, function=False, method=False, **kw))
    _expose("linalg_" + name, name)


def _is_traced(t) -> bool:
    return isinstance(t._value, jax.core.Tracer)


def _batch_prefix(shape: tuple, flat_index: int) -> str:
    return f"(Batch element {flat_index}): " if len(shape) > 2 else ""


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mH(x):
    return jnp.conj(_mT(x)) if jnp.iscomplexobj(x) else _mT(x)


def _eps(dtype) -> float:
    return float(jnp.finfo(jnp.zeros((), dtype).real.dtype).eps)


def _sq(*shape, dtype="float32", spd=False, seed=None):
    """A well-conditioned (or symmetric positive-definite) batch of square matrices."""
    a = arr(*shape, dtype=dtype, seed=seed)
    n = shape[-1]
    if spd:
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n, dtype=a.dtype)
        return a.astype(dtype)
    return (a + 2 * n * np.eye(n, dtype=a.dtype) / 2).astype(dtype)


# ---------------------------------------------------------------------------
# eager checks shared by inv / solve / cholesky (Note [Singular inputs])
@jax.jit
def _zero_pivot(a):
    lu, _, _ = jax.lax.linalg.lu(a)
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    first = jnp.argmax(zero, axis=-1).astype(jnp.int32) + 1
    return jnp.where(jnp.any(zero, axis=-1), first, 0)


def _first_failure(info: np.ndarray):
    flat = info.reshape(-1)
    bad = np.nonzero(flat)[0]
    return (None, 0) if bad.size == 0 else (int(bad[0]), int(flat[bad[0]]))


def _check_singular(A, message) -> None:
    if _is_traced(A) or A.numel() == 0:
        return
    i, pivot = _first_failure(np.asarray(_zero_pivot(A._value)))
    if i is not None:
        raise LinAlgError(message(_batch_prefix(A._shape, i), pivot))


def _inv_message(prefix, pivot):
    return (f"linalg.inv: {prefix}The diagonal element {pivot} is zero, the inversion could "
            f"not be completed because the input matrix is singular.")


def _cholesky_info(A):
    """Per matrix: 0, or the order of the first leading minor that is not positive-definite
    (LAPACK potrf's ``info``), by an unblocked factorization of the lower triangle. JAX's
    own Cholesky only returns NaNs, without saying where it failed."""
    A = jax.lax.stop_gradient(_hermitian_from(A, True))
    n = A.shape[-1]
    idx = jnp.arange(n)

    def body(k, carry):
        M, info = carry
        d = jnp.real(M[..., k, k])
        bad = ~(d > 0)
        info = jnp.where((info == 0) & bad, k + 1, info)
        col = M[..., :, k] / jnp.sqrt(jnp.where(bad, 1, d))[..., None]
        col = jnp.where(idx > k, col, 0)
        return M - col[..., :, None] * jnp.conj(col[..., None, :]), info
    info0 = jnp.zeros(A.shape[:-2], jnp.int32)
    return jax.lax.fori_loop(0, n, body, (A, info0))[1]


_cholesky_info_jit = jax.jit(_cholesky_info)


def _check_cholesky(name, A) -> None:
    if _is_traced(A) or A.numel() == 0:
        return
    i, order = _first_failure(np.asarray(_cholesky_info_jit(A._value)))
    if i is not None:
        raise LinAlgError(f"{name}: {_batch_prefix(A._shape, i)}The factorization could not "
                          f"be completed because the input is not positive-definite (the "
                          f"leading minor of order {order} is not positive-definite).")


def _float_square(name):
    def check(A, *rest, **kw):
        check_float(name, A)
        check_square(name, A)
    return check


# ---------------------------------------------------------------------------
# determinants
register(OpSpec(
    "det", lambda input: jnp.linalg.det(input), "input", promote="none",
    check=_float_square("linalg.det"), grad_name="LinalgDetBackward0", autocast="fp32",
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 4, 4, dtype="float64")), S(_sq(1, 1)),
                     S(_sq(2, 2, dtype="complex128"), grad=False),
                     S(arr(3, 3, dtype="int64"), grad=False), S(arr(2, 3), grad=False)]))
_expose("det", "det")


def _slogdet(A, out=None):
    sign, logabs = jnp.linalg.slogdet(A)
    return sign, logabs


register(OpSpec(
    "slogdet", lambda input: _slogdet(input), "input", promote="none",
    check=_float_square("linalg.slogdet"), out_names=("sign", "logabsdet"),
    grad_name="LinalgSlogdetBackward0", autocast="fp32",
    samples=lambda: [S(_sq(3, 3)), S(-_sq(2, 3, 3, dtype="float64")),
                     S(arr(3, 3, dtype="int64"), grad=False)]))
_linalg("slogdet", _slogdet, "A, *, out=None", tensor_args=("A",), promote="none",
        check=_float_square("linalg.slogdet"), out_names=("sign", "logabsdet"),
        grad_name="LinalgSlogdetBackward0", autocast="fp32",
        samples=lambda: [S(_sq(3, 3)), S(-_sq(2, 3, 3, dtype="float64"))])


def _logdet(input):
    sign, logabs = jnp.linalg.slogdet(input)
    if jnp.iscomplexobj(input):
        return logabs.astype(input.dtype) + jnp.log(sign)
    return jnp.where(sign < 0, jnp.nan, logabs)


register(OpSpec(
    "logdet", _logdet, "input", promote="none", check=_float_square("logdet"),
    autocast="fp32",
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 3, 3, dtype="float64")),
                     S(np.array([[-1.0, 0], [0, 1]], np.float32), grad=False),
                     S(arr(3, 3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# inverses
def _inv_check(A, *rest, **kw):
    check_float("linalg.inv", A)
    check_square("linalg.inv", A)
    _check_singular(A, _inv_message)


register(OpSpec(
    "inverse", lambda input: jnp.linalg.inv(input), "input", promote="none",
    check=_inv_check, grad_name="LinalgInvExBackward0", autocast="fp32",
    samples=lambda: [S(_sq(3, 3)), S(_sq(2, 4, 4, dtype="float64")),
                     S(_sq(2, 2, dtype="complex64"), grad=False),
                     S(np.array([[1.0, 2], [2, 4]], np.float32), grad=False),
                     S(arr(2, 2, dtype="int64"), grad=False), S(arr(2, 3), grad=False)]))
_expose("inverse", "inv")


def _inv_ex(A, check_errors=False, out=None):
    return jnp.linalg.inv(A), _zero_pivot(A)


def _inv_ex_check(A, check_errors=False, out=None):
    check_float("linalg.inv_ex", A)
    check_square("linalg.inv_ex", A)
    if check_errors:
        _check_singular(A, _inv_message)


_linalg("inv_ex", _inv_ex, "A, *, check_errors=False, out=None", tensor_args=("A",),
        promote="none", check=_inv_ex_check, out_names=("inverse", "info"),
        grad_name="LinalgInvExBackward0", autocast="fp32",
        samples=lambda: [S(_sq(3, 3)), S(_sq(2, 3, 3, dtype="float64")),
                         S(np.array([[1.0, 2], [2, 4]], np.float32), grad=False)])


def _pinv_core(A, atol, rtol, hermitian):
    m, n = A.shape[-2:]
    if atol is None and rtol is None:
        rtol = _eps(A.dtype) * max(m, n)
    elif rtol is None:
        rtol = 0.0 if (atol or 0) > 0 else _eps(A.dtype) * max(m, n)
    atol = 0.0 if atol is None else atol
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
    "input, rcond=1e-15", promote="none", check=_pinv_dtype_check, autocast="fp32",
    grad_name="LinalgPinvBackward0",
    samples=lambda: [S(arr(3, 3)), S(arr(4, 2, dtype="float64")), S(arr(2, 2, 5)),
                     S(arr(3, 3, dtype="int64"), grad=False), S(arr(3), grad=False)]))


def _pinv(A, rcond=None, hermitian=False, atol=None, rtol=None, out=None):
    if rcond is not None:
        rtol = rcond
    return _pinv_core(A, atol, rtol, hermitian)


_linalg("pinv", _pinv, "A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None",
        tensor_args=("A",), promote="none", check=_pinv_dtype_check, autocast="fp32",
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
        _check_singular(input, _inv_message)


register(OpSpec(
    "matrix_power", _matrix_power, "input, n", promote="none", check=_matrix_power_check,
    grad_name=lambda input, n: "MmBackward0" if n > 1 else "LinalgInvExBackward0",
    samples=lambda: [S(_sq(3, 3) / 3, 3), S(_sq(2, 3, 3, dtype="float64") / 3, 2),
                     S(_sq(3, 3), -2), S(arr(3, 3), 0), S(arr(3, 3), 1),
                     S(arr(2, 2, dtype="int64"), 3, grad=False),
                     S(arr(2, 2, dtype="int64"), -1, grad=False),
                     S(arr(2, 3), 2, grad=False)]))
_linalg("matrix_power", lambda A, n, out=None: _matrix_power(A, n), "A, n, *, out=None",
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
    _check_singular(A, lambda prefix, _: f"torch.linalg.solve: {prefix}The solver failed "
                    f"because the input matrix is singular.")


_linalg("solve", _solve, "A, B, *, left=True, out=None", tensor_args=("A", "B"),
        promote="none", check=_solve_check, grad_name="LinalgSolveExBackward0",
        autocast="fp32",
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
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise NotImplementedError(f'"triangular_solve_cpu" not implemented for '
                                  f"'{dtype_title(A.dtype)}'")
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
        "A, B, *, upper, left=True, unitriangular=False, out=None", tensor_args=("A", "B"),
        promote="none", check=_solve_triangular_check, autocast="fp32",
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
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
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
        promote="none", check=_lstsq_check, autocast="fp32",
        out_names=("solution", "residuals", "rank", "singular_values"),
        grad_name="LinalgLstsqBackward0", nondiff_outputs=(3,),
        samples=lambda: [S(arr(5, 3), arr(5, 2)), S(arr(5, 3), arr(5, 2), driver="gelsd"),
                         S(arr(5, 3, dtype="float64"), arr(5, 2, dtype="float64"),
                           driver="gels"),
                         S(arr(2, 4, 3), arr(2, 4, 1), driver="gelss"),
                         S(arr(3, 5), arr(3, 2), driver="gelsd")])


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


_linalg("lu_factor", _lu_factor, "A, *, pivot=True, out=None", tensor_args=("A",),
        promote="none", check=_lu_factor_check, out_names=("LU", "pivots"),
        grad_name="LinalgLuFactorExBackward0", autocast="fp32",
        samples=lambda: [S(arr(3, 3)), S(arr(2, 4, 4, dtype="float64")),
                         S(arr(3, 3, dtype="int64"), grad=False)])


# ---------------------------------------------------------------------------
# Cholesky (Note [Symmetric inputs])
def _hermitian_from(A, lower: bool):
    tri = jnp.tril(A) if lower else jnp.triu(A)
    strict = jnp.tril(A, -1) if lower else jnp.triu(A, 1)
    full = tri + _mH(strict)
    if jnp.iscomplexobj(A):   # LAPACK ignores the imaginary part of the diagonal
        eye = jnp.eye(A.shape[-1], dtype=bool)
        full = jnp.where(eye, jnp.real(full).astype(A.dtype), full)
    sym = (A + _mH(A)) / 2
    return jax.lax.stop_gradient(full - sym) + sym


def _cholesky_core(A, upper):
    L = jax.lax.linalg.cholesky(_hermitian_from(A, True), symmetrize_input=False)
    return _mH(L) if upper else L


def _cholesky_old_check(input, upper=False):
    warnings.warn("torchlike.cholesky is deprecated in favor of torchlike.linalg.cholesky and "
                  "will be removed in a future release.", UserWarning, stacklevel=4)
    check_float("linalg.cholesky", input)
    check_square("linalg.cholesky", input)
    _check_cholesky("cholesky", input)


register(OpSpec(
    "cholesky", lambda input, upper=False: _cholesky_core(input, upper), "input, upper=False",
    promote="none", check=_cholesky_old_check, autocast="fp32",
    grad_name="LinalgCholeskyExBackward0",
    samples=lambda: [S(_sq(3, 3, spd=True)), S(_sq(2, 3, 3, spd=True, dtype="float64"),
                                               upper=True),
                     S(np.array([[1.0, 2], [2, 1]], np.float32), grad=False)]))


def _cholesky_check(A, upper=False, out=None):
    check_float("linalg.cholesky", A)
    check_square("linalg.cholesky", A)
    _check_cholesky("linalg.cholesky", A)


_linalg("cholesky", lambda A, upper=False, out=None: _cholesky_core(A, upper),
        "A, *, upper=False, out=None", tensor_args=("A",), promote="none",
        check=_cholesky_check, autocast="fp32", grad_name="LinalgCholeskyExBackward0",
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
    if check_errors:
        _check_cholesky("linalg.cholesky_ex", A)


_linalg("cholesky_ex", _cholesky_ex, "A, *, upper=False, check_errors=False, out=None",
        tensor_args=("A",), promote="none", check=_cholesky_ex_check, autocast="fp32",
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
    return check


def _eigh_invariant(w, v):
    """Gauge-invariant view of ``eigh``'s result: eigenvalues and V diag(w) V^H."""
    return w, (v * w.unsqueeze(-2).to(v.dtype)) @ v.mH


_linalg("eigh", lambda A, UPLO="L", out=None: _eigh_core(A, UPLO),
        "A, UPLO='L', *, out=None", tensor_args=("A",),
        promote="none", check=_eigh_check("linalg.eigh"), autocast="fp32",
        out_names=("eigenvalues", "eigenvectors"), grad_name="LinalgEighBackward0",
        extra={"invariant": _eigh_invariant},
        samples=lambda: [S(_sq(3, 3, spd=True)), S(arr(4, 4), "U"),
                         S(arr(2, 3, 3, dtype="float64")),
                         S(arr(3, 3), "X", grad=False)])
_linalg("eigvalsh", lambda A, UPLO="L", out=None: _eigh_core(A, UPLO)[0],
        "A, UPLO='L', *, out=None", tensor_args=("A",), promote="none",
        check=_eigh_check("linalg.eigvalsh"), autocast="fp32",
        grad_name="LinalgEighBackward0",
        samples=lambda: [S(_sq(3, 3, spd=True)), S(arr(4, 4), "U"),
                         S(arr(2, 3, 3, dtype="float64"))])


def _eig_check(A, out=None):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {dtype_title(A.dtype)}")
    check_square("linalg.eig", A)


def _eig(A, out=None):
    w, v = jnp.linalg.eig(A)
    return w, v


def _eig_invariant(w, v):
    """Eigenvalues, and V diag(w) V^-1 (= A), independent of the eigenvectors' scaling."""
    return w, (v * w.unsqueeze(-2)) @ v.inverse()


_linalg("eig", _eig, "A, *, out=None", tensor_args=("A",), promote="none",
        check=_eig_check, autocast="fp32", out_names=("eigenvalues", "eigenvectors"),
        grad_name="LinalgEigBackward0", extra={"invariant": _eig_invariant},
        samples=lambda: [S(arr(3, 3), grad=False), S(arr(2, 3, 3, dtype="float64"),
                                                     grad=False),
                         S(arr(3, 3, dtype="complex64"), grad=False)])
_linalg("eigvals", lambda A, out=None: jnp.linalg.eigvals(A), "A, *, out=None",
        tensor_args=("A",), promote="none", check=_eig_check, autocast="fp32",
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
    return check


def _svd_invariant(u, s, vh):
    """Singular values and U_k diag(S) Vh_k (= A): independent of the vectors' phases."""
    k = s.shape[-1]
    return s, (u[..., :, :k] * s.unsqueeze(-2).to(u.dtype)) @ vh[..., :k, :]


_linalg("svd", _svd, "A, full_matrices=True, *, driver=None, out=None", tensor_args=("A",),
        promote="none", check=_svd_check("linalg.svd"), autocast="fp32",
        out_names=("U", "S", "Vh"), grad_name="LinalgSvdBackward0",
        extra={"invariant": _svd_invariant},
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2), full_matrices=False),
                         S(arr(2, 3, 5, dtype="float64"), full_matrices=False),
                         S(arr(4, 3), grad=False),
                         S(arr(3, 2, dtype="complex128"), full_matrices=False, grad=False),
                         S(arr(3, 3, dtype="int64"), grad=False)])
_linalg("svdvals", lambda A, driver=None, out=None: jnp.linalg.svd(A, compute_uv=False),
        "A, *, driver=None, out=None", tensor_args=("A",), promote="none",
        check=_svd_check("linalg.svdvals"), autocast="fp32", grad_name="LinalgSvdBackward0",
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


def _qr_invariant(q, r):
    """Q R (= A) and |R|: independent of the signs LAPACK picks."""
    if q.numel() == 0:
        return r.abs()
    return q @ r, r.abs()


_linalg("qr", _qr, "A, mode='reduced', *, out=None", tensor_args=("A",), promote="none",
        check=_qr_check, autocast="fp32", out_names=("Q", "R"),
        grad_name="LinalgQrBackward0", extra={"invariant": _qr_invariant},
        samples=lambda: [S(arr(3, 3)), S(arr(4, 2)), S(arr(2, 4, 3, dtype="float64")),
                         S(arr(4, 2), mode="complete", grad=False),
                         S(arr(4, 2), mode="r", grad=False),
                         S(arr(3, 3), mode="x", grad=False)])


# ---------------------------------------------------------------------------
# norms
def _safe_root(s, p):
    zero = s == 0
    safe = jnp.where(zero, 1, s)
    return jnp.where(zero, 0, jnp.sqrt(safe) if p == 2 else safe ** (1.0 / p))


def _abs2(x):
    return jnp.real(x) ** 2 + jnp.imag(x) ** 2 if jnp.iscomplexobj(x) else x * x


def _vector_norm_core(x, ord, axes, keepdim):
    if ord == 2:
        return _safe_root(jnp.sum(_abs2(x), axis=axes, keepdims=keepdim), 2)
    a = jnp.abs(x)
    if math.isinf(ord):
        red = jnp.max if ord > 0 else jnp.min
        return red(a, axis=axes, keepdims=keepdim)
    if ord == 0:
        return jnp.sum((a != 0).astype(a.dtype), axis=axes, keepdims=keepdim)
    if ord == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    if ord < 0:
        return jnp.sum(a ** ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    za = a == 0
    powed = jnp.where(za, 0, jnp.where(za, 1, a) ** ord)
    return _safe_root(jnp.sum(powed, axis=axes, keepdims=keepdim), ord)


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
        "x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None", tensor_args=("x",),
        promote="none", check=_vector_norm_check, autocast="fp32", samples=_norm_samples)


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _matrix_norm_core(A, ord, dim, keepdim):
    d0, d1 = (wrap_dim(d, A.ndim) for d in dim)
    if ord == "fro":
        return _safe_root(jnp.sum(_abs2(A), axis=(d0, d1), keepdims=keepdim), 2)
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


_linalg("matrix_norm", _matrix_norm,
        "A, ord='fro', dim=None, keepdim=False, *, dtype=None, out=None",
        tensor_args=("A",), promote="none", check=_matrix_norm_check, autocast="fp32",
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


_linalg("norm", _norm, "A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None",
        tensor_args=("A",), promote="none", check=_norm_check, autocast="fp32",
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


_linalg("vecdot", _vecdot, "x, y, *, dim=-1, out=None", tensor_args=("x", "y"),
        promote="none", check=_vecdot_check,
        samples=lambda: [S(arr(3), arr(3)), S(arr(2, 3), arr(3)), S(arr(3, 2), arr(3, 2),
                                                                    dim=0),
                         S(arr(3, dtype="complex64"), arr(3, dtype="complex64"), grad=False),
                         S(arr(3, dtype="int64"), arr(3, dtype="int64"), grad=False),
                         S(arr(3), arr(3, dtype="float64"), grad=False)])


# ---------------------------------------------------------------------------
# rank and condition number
def _matrix_rank(A, tol=None, hermitian=False, atol=None, rtol=None, out=None):
    m, n = A.shape[-2:]
    if tol is not None:
        atol, rtol = tol, 0.0
    if atol is None and rtol is None:
        rtol = _eps(A.dtype) * max(m, n)
    elif rtol is None:
        rtol = 0.0 if (atol or 0) > 0 else _eps(A.dtype) * max(m, n)
    atol = 0.0 if atol is None else atol
    if hermitian:
        s = jnp.abs(_eigh_core(A, "L")[0])
    else:
        s = jnp.linalg.svd(A, compute_uv=False)
    thr = jnp.maximum(atol, rtol * jnp.max(s, axis=-1, keepdims=True, initial=0.0))
    return jnp.sum(s > thr, axis=-1).astype(jnp.int64)


def _matrix_rank_check(A, *rest, **kw):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 "
                           "dimensions.")


_linalg("matrix_rank", _matrix_rank,
        "A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None",
        tensor_args=("A",), promote="none", check=_matrix_rank_check, differentiable=False,
        autocast="fp32",
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


_linalg("cond", _cond, "A, p=None, *, out=None", tensor_args=("A",), promote="none",
        check=_cond_check, autocast="fp32",
        # PyTorch's own backward of the inverse-based orders fails (a saved tensor is
        # modified in place), so those samples compare values only.
        samples=lambda: [S(_sq(3, 3)), S(arr(3, 4)), S(_sq(3, 3), "fro", grad=False),
                         S(_sq(3, 3), 1, grad=False),
                         S(_sq(2, 3, 3, dtype="float64"), float("inf"), grad=False),
                         S(_sq(3, 3), -2),
                         S(_sq(3, 3), "nuc"), S(arr(2, 3), "fro", grad=False)])


# ---------------------------------------------------------------------------
# torchlike.linalg names for ops declared in _ops/linalg.py
_expose("matmul", "matmul")
_expose("linalg_cross", "cross")
_expose("linalg_multi_dot", "multi_dot")



def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Mirrors ``torch.linalg.diagonal``: ``torchlike.diagonal`` with the last two
    dimensions as defaults; a view of ``A``."""
    from .._ops.dispatch import call_op
    return call_op("diagonal", A, offset, dim1, dim2)


diagonal.__module__ = "torchlike.linalg"
PUBLIC["diagonal"] = diagonal
