"""What the ``torchlike.linalg`` op families share: the ``PUBLIC`` table of
``torchlike.linalg`` functions and the two ways of declaring one (``_expose``,
``_linalg``), small array helpers and sample makers, the eager checks behind PyTorch's
``LinAlgError`` messages, and ``_hermitian_from`` for the ops that read one triangle.

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

import jax
import jax.numpy as jnp
import numpy as np

from .._ops.dispatch import dispatch
from .._ops.linalg import LinAlgError, check_float, check_square, dtype_title
from .._ops.samples import arr
from .._ops.spec import OPS, OpSpec, register

PUBLIC: dict = {}   # torchlike.linalg name -> function
SPECS: dict = {}    # torchlike.linalg name -> its op, for the names ``_expose`` made


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
    SPECS[public] = spec
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


def _default_tols(A, atol, rtol) -> tuple:
    """PyTorch's ``(atol, rtol)`` for ``pinv`` and ``matrix_rank``: without either, ``rtol``
    is ``eps * max(m, n)``; with only ``atol > 0``, ``rtol`` is 0."""
    m, n = A.shape[-2:]
    if atol is None and rtol is None:
        rtol = _eps(A.dtype) * max(m, n)
    elif rtol is None:
        rtol = 0.0 if (atol or 0) > 0 else _eps(A.dtype) * max(m, n)
    return (0.0 if atol is None else atol), rtol


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


def _check_singular(A, message, exc: type = LinAlgError, info=_zero_pivot) -> None:
    """Raise ``exc(message(batch prefix, info))`` for the first matrix of ``A`` (eager)
    whose LAPACK-style ``info(A)`` is not 0; by default ``info`` is the 1-based index of
    an exact zero pivot in its LU factorization."""
    if _is_traced(A) or A.numel() == 0:
        return
    i, code = _first_failure(np.asarray(info(A._value)))
    if i is not None:
        raise exc(message(_batch_prefix(A._shape, i), code))


def check_lu_factor_errors(api: str, A) -> None:
    """PyTorch's error for a singular ``A`` (an exact zero on the diagonal of ``U``), as
    ``linalg.lu_factor`` and ``lu_factor_ex(check_errors=True)`` raise it (a RuntimeError,
    not a LinAlgError). Eager only (Note [Singular inputs])."""
    def message(prefix, i):
        return (f"{api}: {prefix}U[{i},{i}] is zero and using it on lu_solve would result "
                f"in a division by zero. If you still want to perform the factorization, "
                f"consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    _check_singular(A, message, RuntimeError)


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
    _check_singular(A, lambda prefix, order: (
        f"{name}: {prefix}The factorization could not be completed because the input is "
        f"not positive-definite (the leading minor of order {order} is not "
        f"positive-definite)."), info=_cholesky_info_jit)


# dtypes LAPACK (and so PyTorch's CPU kernels) factorize
_LAPACK_DTYPES = ("float32", "float64", "complex64", "complex128")


def _kernel_check(kernel: str, t) -> None:
    """PyTorch's NotImplementedError for a dtype its LAPACK kernel has no instance of."""
    if t.dtype.name not in _LAPACK_DTYPES:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dtype_title(t.dtype)}'")


def _low_precision_check(name: str, t) -> None:
    """PyTorch's RuntimeError for float16/bfloat16 where a function checks its input's
    dtype before any LAPACK kernel (``checkFloatingOrComplex`` without low precision)."""
    if t.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got "
                           f"{dtype_title(t.dtype)}")


def _float_square(name):
    def check(A, *rest, **kw):
        check_float(name, A)
        check_square(name, A)
    return check


# ---------------------------------------------------------------------------
# one triangle read as the whole matrix (Note [Symmetric inputs])
def _hermitian_from(A, lower: bool):
    tri = jnp.tril(A) if lower else jnp.triu(A)
    strict = jnp.tril(A, -1) if lower else jnp.triu(A, 1)
    full = tri + _mH(strict)
    if jnp.iscomplexobj(A):   # LAPACK ignores the imaginary part of the diagonal
        eye = jnp.eye(A.shape[-1], dtype=bool)
        full = jnp.where(eye, jnp.real(full).astype(A.dtype), full)
    sym = (A + _mH(A)) / 2
    return jax.lax.stop_gradient(full - sym) + sym
