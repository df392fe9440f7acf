"""The ``torch.*`` forms of linear algebra that PyTorch keeps beside ``torch.linalg``, with
their Tensor methods: ``svd`` (``V``, not ``Vh``), ``qr(some)``, ``lu``, ``lu_solve``,
``lu_unpack``, ``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``, ``geqrf``,
``orgqr`` and ``ormqr``. The table ops reuse the pure functions and checks of the
``torch.linalg`` ops (``_factorize.py``, ``_solve.py``, ``_linalg_more.py``). ``svd`` and
``lu`` are compositions of table ops, as they are in PyTorch, so their results carry the
nodes PyTorch records (``LinalgSvdBackward0`` for ``U``/``S``, ``TransposeBackward0`` for
``V``; ``LinalgLuFactorExBackward0``).

# Note [Deprecated torch forms]
# PyTorch warns (once per process) that ``torch.qr``, ``torch.lu``, ``torch.lu_solve``
# and ``torch.triangular_solve`` are deprecated in favour of their ``torch.linalg``
# versions. torchlike warns with the same text through Python's ``warnings`` (whose
# default filter also shows it once per calling line), as ``torchlike.cholesky`` does.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._ops.autocast_policy import autocast_function
from .._core.tensor import Tensor
from .._ops._common import broadcast_shapes_or_raise, shape_str, warn_at_caller
from .._ops.bind import FUNCTIONS
from .._ops.dispatch import call_op
from .._ops.out_param import outs_of, refuse_grad, write_all
from .._core.grad_mode import no_grad
from .._ops.linalg import HIGHEST, check_float, check_square, dtype_title
from .._ops.samples import S, arr
from .._ops.spec import OpSpec, register
from .._ops.transposed_jvp import custom_jvp_from_vjp
from ..return_types import make as _return_type
from ._common import _check_singular, _is_traced, _mH, _mT, _sq
from ._factorize import _lu_factor, _qr, _qr_check
from ._linalg_more import (_geqrf_np, _kernel_check, _lu_solve_core,
                           _permutation_matrix, _unpack_lu_data, householder_check,
                           householder_product_core, householder_samples, linear_solve_check,
                           lu_solve_check, lu_solve_samples, make_return_types,
                           not_differentiable, ormqr_core)
from ._solve import _solve_triangular

__all__ = ["svd", "lu"]

_SVD = _return_type("svd", ("U", "S", "V"))
_LU_WITH_INFO = _return_type("_lu_with_info", ("LU", "pivots", "info"))


def _deprecated(message: str) -> None:
    """Note [Deprecated torch forms]: the warning points at the caller of the op."""
    warn_at_caller(message)


def _not_tensor(fname: str, name: str, v) -> TypeError:
    return TypeError(f"{fname}(): argument '{name}' (position 1) must be Tensor, not "
                     f"{type(v).__name__}")


# ---------------------------------------------------------------------------
# svd: linalg.svd with V = Vh^H, or linalg.svdvals with zero-filled U and V
register(OpSpec(
    "_svd_conj", lambda input: jnp.conj(input), "input", promote="none", function=False,
    method=False, grad_name="ConjBackward0",
    doc="The conjugation ``torch.svd`` applies to ``Vh^T`` for complex inputs (PyTorch "
        "records it as ``ConjBackward0``)."))


@autocast_function("svd")
def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """Mirrors ``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^H`` (``V``, not
    ``linalg.svd``'s ``Vh``); reduced when ``some``. With ``compute_uv=False`` only ``S``
    is computed and ``U``, ``V`` are zero-filled ``(m, m)`` and ``(n, n)`` matrices
    (``some`` has no effect), exactly as PyTorch documents.

    ``U`` and ``V`` are unique only up to the phase (sign) of each singular pair, and may
    differ from PyTorch's by one; ``S`` and ``U diag(S) V^H`` (and gradients of functions
    that do not depend on the phases) agree."""
    if not isinstance(input, Tensor):
        raise _not_tensor("svd", "input", input)
    if out is not None:   # Note [out= of table functions]
        outs = outs_of("svd", out)[1]
        refuse_grad("svd", [input] + outs)
        with no_grad():
            res = svd(input, some, compute_uv)
        return write_all("svd", "exact", out, outs, res)
    if input.dim() < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.dim()} dimensions instead")
    check_float("linalg.svd", input)
    _kernel_check("linalg_svd_cpu", input)
    if compute_uv:
        U, S_, Vh = call_op("linalg_svd", input, not some)
        V = Vh.mT
        if V.is_complex():
            V = call_op("_svd_conj", V)
        return _SVD(U, S_, V)
    S_ = call_op("linalg_svdvals", input)
    from .._ops.creation import zeros
    batch, (m, n) = input.shape[:-2], input.shape[-2:]
    U = zeros(tuple(batch) + (m, m), dtype=input.dtype, device=input.device)
    V = zeros(tuple(batch) + (n, n), dtype=input.dtype, device=input.device)
    return _SVD(U, S_, V)


# ---------------------------------------------------------------------------
# qr(some)
_qr_complete_tall = not_differentiable(
    lambda a: _qr(a, "complete"),
    lambda: RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                         "and nrows > ncols."))


def _qr_some(input, some=True, out=None):
    m, n = input.shape[-2:]
    if not some and m > n:
        return _qr_complete_tall(input)
    return _qr(input, "reduced" if some else "complete")


def _qr_some_check(input, some=True, out=None):
    _deprecated("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                "future PyTorch release.\nThe boolean parameter 'some' has been replaced "
                "with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be "
                "replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    _qr_check(input)
    _kernel_check("geqrf_cpu", input)


register(OpSpec(
    "qr", _qr_some, "input, some=True", promote="none", check=_qr_some_check,
    out_names=("Q", "R"), grad_name="LinalgQrBackward0",
    doc="Mirrors ``torch.qr`` (deprecated there): ``linalg.qr`` with mode ``'reduced'`` "
        "when ``some`` else ``'complete'``.",
    samples=lambda: [S(arr(3, 3)), S(arr(4, 2), False, grad=False),
                     S(arr(2, 4, 3, dtype="float64")),
                     S(arr(2, 5), some=False), S(arr(3, 2, dtype="complex128"), grad=False),
                     S(arr(0, 3)), S(arr(3, 3), method=True),
                     S(arr(3), grad=False), S(arr(3, 3, dtype="int64"), grad=False),
                     S(arr(3, 3, dtype="float16"), grad=False)]))


# ---------------------------------------------------------------------------
# lu: linalg.lu_factor_ex, as torch.functional.lu calls it
def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """Mirrors ``torch.lu`` (deprecated there) and ``Tensor.lu``: ``(LU, pivots)``, or the
    named tuple ``(LU, pivots, info)`` with ``get_infos=True``, from
    ``linalg.lu_factor_ex``. As in PyTorch, a singular input does not raise: its ``info``
    says so."""
    return _lu(A, pivot, get_infos, out)


def _lu(A, pivot, get_infos, out):
    if not isinstance(A, Tensor):
        raise _not_tensor("lu", "A", A)
    if out is not None:   # Note [out= of table functions]
        outs = outs_of("lu", out)[1]
        refuse_grad("lu", [A] + outs)
        with no_grad():
            res = _lu(A, pivot, get_infos, None)
        return write_all("lu", "exact", out, outs, res)
    _deprecated("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                "torch.linalg.lu_factor_ex and will be removed in a future PyTorch "
                "release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, "
                "pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be "
                "replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
                "compute_pivots)")
    LU, pivots, info = call_op("linalg_lu_factor_ex", A, pivot=pivot)
    return _LU_WITH_INFO(LU, pivots, info) if get_infos else (LU, pivots)


def _lu_method(self: Tensor, pivot: bool = True, get_infos: bool = False):
    return _lu(self, pivot, get_infos, None)


_lu_method.__name__ = "lu"
_lu_method.__qualname__ = "Tensor.lu"
_lu_method.__doc__ = "Mirrors ``Tensor.lu``: ``torchlike.lu(self, pivot, get_infos)``."


def _svd_method(self: Tensor, some: bool = True, compute_uv: bool = True):
    return svd(self, some, compute_uv)


_svd_method.__name__ = "svd"
_svd_method.__qualname__ = "Tensor.svd"
_svd_method.__doc__ = "Mirrors ``Tensor.svd``: ``torchlike.svd(self, some, compute_uv)``."

for _f in (svd, lu):
    _f.__module__ = "torchlike"
    FUNCTIONS[_f.__name__] = _f
Tensor.svd = _svd_method
Tensor.lu = _lu_method


# ---------------------------------------------------------------------------
# lu_solve(b, LU_data, LU_pivots), lu_unpack
def _lu_solve_check(input, LU_data, LU_pivots, out=None):
    _deprecated("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has "
                "its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
                "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    lu_solve_check(LU_data, LU_pivots, input)


register(OpSpec(
    "lu_solve", lambda input, LU_data, LU_pivots, out=None: _lu_solve_core(LU_data, LU_pivots,
                                                                           input),
    "input, LU_data, LU_pivots", tensor_args=("input", "LU_data", "LU_pivots"),
    promote="none", check=_lu_solve_check,
    grad_name="LinalgLuSolveBackward0",
    doc="Mirrors ``torch.lu_solve`` (deprecated there): ``linalg.lu_solve(LU_data, "
        "LU_pivots, b)``.",
    samples=lambda: lu_solve_samples(lambda lu_, p, b: (b, lu_, p)) + [
        S(*lu_solve_samples(lambda lu_, p, b: (b, lu_, p))[0].args, method=True)]))


# PyTorch's backward of lu_unpack(unpack_data=False) fails on the empty L and U
_empty_lu_data = not_differentiable(
    lambda LU: (jnp.zeros((0,), LU.dtype), jnp.zeros((0,), LU.dtype)),
    lambda: RuntimeError("triu: input tensor must have at least 2 dimensions"))


def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, out=None):
    m = LU_data.shape[-2]
    P = jnp.zeros((0,), LU_data.dtype)
    if unpack_pivots:
        perm = jax.lax.linalg.lu_pivots_to_permutation(LU_pivots - 1, m)
        P = _permutation_matrix(perm, LU_data.dtype)
    L, U = _unpack_lu_data(LU_data) if unpack_data else _empty_lu_data(LU_data)
    return P, L, U


def _lu_unpack_check(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, out=None):
    name = "torch.lu_unpack"
    if LU_data.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{shape_str(LU_data._shape)} instead")
    if not unpack_pivots:
        return
    if LU_pivots.dtype is not _dt.int32:
        raise RuntimeError(f"{name}: LU_pivots is expected to be a contiguous tensor of "
                           f"torch.int32 dtype.\nNote: this function is intended to be used "
                           f"with the output produced by torch.linalg.lu_factor")
    m, n = LU_data._shape[-2:]
    expected = LU_data._shape[:-2] + (min(m, n),)
    if LU_pivots._shape != expected:
        raise RuntimeError(f"torchlike.lu_unpack: expected LU_pivots of shape "
                           f"{shape_str(expected)} (LU_data.shape[:-2] + (min(m, n),), as "
                           f"linalg.lu_factor returns them), but got "
                           f"{shape_str(LU_pivots._shape)}. PyTorch does not check this and "
                           f"reads past the pivots or leaves batches unpermuted.")
    if _is_traced(LU_pivots) or LU_pivots.numel() == 0:
        return
    p = np.asarray(LU_pivots._value)
    if p.min() < 1 or p.max() > m:
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")


def _lu_unpack_samples():
    out = []
    for shape, dtype in (((3, 3), "float32"), ((2, 4, 4), "float64"), ((3, 5), "float32"),
                         ((5, 3), "float64"), ((3, 3), "complex64")):
        lu_, piv = _lu_factor(jnp.asarray(arr(*shape, dtype=dtype)))
        out.append(S(np.asarray(lu_), np.asarray(piv), grad=dtype != "complex64"))
    lu_, piv = (np.asarray(x) for x in _lu_factor(jnp.asarray(arr(3, 3, dtype="float64"))))
    out += [S(lu_, piv, unpack_data=False, grad=False), S(lu_, piv, unpack_pivots=False),
            S(lu_, piv, False, False, grad=False),
            S(arr(3, 3, dtype="int64"), piv, grad=False),
            S(lu_.astype(np.float16), piv, grad=False),
            S(arr(0, 2, 2), np.zeros((0, 2), np.int32)),
            S(arr(3), piv, grad=False), S(lu_, piv.astype(np.int64), grad=False),
            S(lu_, piv.astype(np.int64), unpack_pivots=False, grad=False),
            S(lu_, np.array([4, 1, 1], np.int32), grad=False),
            S(lu_, np.array([0, 2, 3], np.int32), grad=False)]
    return out


register(OpSpec(
    "lu_unpack", _lu_unpack, "LU_data, LU_pivots, unpack_data=True, unpack_pivots=True",
    tensor_args=("LU_data", "LU_pivots"), promote="none", method=False,
    check=_lu_unpack_check, out_names=("P", "L", "U"), grad_name="LuUnpackBackward0",
    nondiff_outputs=(0,),
    doc="Mirrors ``torch.lu_unpack``: ``P``, ``L``, ``U`` with ``A = P @ L @ U`` from "
        "``linalg.lu_factor``'s result (empty tensors for the parts not unpacked). "
        "Difference: pivots whose shape is not ``LU_data.shape[:-2] + (min(m, n),)`` "
        "raise a RuntimeError (PyTorch reads out of bounds or leaves batches "
        "unpermuted).",
    samples=_lu_unpack_samples))


# ---------------------------------------------------------------------------
# cholesky_solve, cholesky_inverse: LAPACK reads one triangle; PyTorch's gradients are
# those of the formulas in the whole matrix (its cholesky_solve_backward and
# cholesky_inverse_backward), written here in JAX's cotangent convention (the engine
# conjugates complex cotangents on the way in and out).
def _potrs(B, L, upper):
    """``(L L^H)^{-1} B`` (``(U^H U)^{-1} B``), reading one triangle of ``L``."""
    tri = jax.lax.linalg.triangular_solve
    lower = not upper
    Y = tri(L, B, left_side=True, lower=lower, transpose_a=upper, conjugate_a=upper)
    return tri(L, Y, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower)


# cholesky_solve stays a jax.custom_vjp: as the transpose of this backward (Note
# [Tangent rules as the transpose of the VJP]) its second derivative in the upper triangle
# of L lost the whole-matrix formula's terms (test_gradgrad_ops), so it has no forward
# mode, as before.
@partial(jax.custom_vjp, nondiff_argnums=(2,))
def _cholesky_solve_core(B, L, upper):
    return _potrs(B, L, upper)


def _cs_fwd(B, L, upper):
    X = _cholesky_solve_core(B, L, upper)
    return X, (L, X)


def _cs_bwd(upper, res, ct):
    L, X = res
    g = jnp.conj(ct)
    grad_b = _cholesky_solve_core(g, L, upper)
    common = jnp.matmul(grad_b, _mH(X), precision=HIGHEST)
    common = common + _mH(common)
    grad_l = -(jnp.matmul(L, common, precision=HIGHEST) if upper else
               jnp.matmul(common, L, precision=HIGHEST))
    return jnp.conj(grad_b), jnp.conj(grad_l)


_cholesky_solve_core.defvjp(_cs_fwd, _cs_bwd)


def _cholesky_solve(input, input2, upper=False, out=None):
    batch = jnp.broadcast_shapes(input.shape[:-2], input2.shape[:-2])
    B = jnp.broadcast_to(input, batch + input.shape[-2:])
    L = jnp.broadcast_to(input2, batch + input2.shape[-2:])
    return _cholesky_solve_core(B, L, bool(upper))


def _cholesky_solve_check(input, input2, upper=False, out=None):
    if input.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.dim()} "
                           f"dimensions instead")
    if input2.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.dim()} "
                           f"dimensions instead")
    linear_solve_check(input, input2, "cholesky_solve")
    broadcast_shapes_or_raise(input._shape[:-2], input2._shape[:-2])
    _kernel_check("cholesky_solve_cpu", input)


def _chol(*shape, dtype="float32", upper=False):
    a = np.linalg.cholesky(_sq(*shape, dtype=dtype, spd=True))
    return np.conj(np.swapaxes(a, -1, -2)) if upper else a


register(OpSpec(
    "cholesky_solve", _cholesky_solve, "input, input2, upper=False",
    tensor_args=("input", "input2"), promote="none", check=_cholesky_solve_check,
    grad_name="CholeskySolveBackward0",
    doc="Mirrors ``torch.cholesky_solve``: ``X`` with ``(L L^H) X = B`` (``U^H U`` when "
        "``upper``), reading one triangle of ``L`` as LAPACK does; the gradient w.r.t. "
        "``L`` is PyTorch's (that of the formula in the whole of ``L``).",
    samples=lambda: [S(arr(3, 2), _chol(3, 3)), S(arr(3, 2), _chol(3, 3, upper=True), True),
                     S(arr(2, 4, 1, dtype="float64"), _chol(4, 4, dtype="float64")),
                     S(arr(3, 2), _chol(2, 3, 3)), S(arr(4, 3, 2), _chol(3, 3), method=True),
                     S(arr(3, 2, dtype="complex128"), _chol(3, 3, dtype="complex128"),
                       grad=False),
                     S(arr(3, 3), arr(3, 3)), S(arr(0, 2), arr(0, 0)),
                     S(arr(3), _chol(3, 3), grad=False), S(arr(3, 2), arr(3), grad=False),
                     S(arr(2, 2), _chol(3, 3), grad=False),
                     S(arr(3, 2), arr(2, 3), grad=False),
                     S(arr(3, 2, dtype="float64"), _chol(3, 3), grad=False),
                     S(arr(4, 3, 2), _chol(2, 3, 3), grad=False),
                     S(arr(3, 2, dtype="int64"), arr(3, 3, dtype="int64"), grad=False)]))


def _potri(L, upper):
    """``(L L^H)^{-1}`` (``(U^H U)^{-1}``) from one triangle, as LAPACK's ``potri``."""
    n = L.shape[-1]
    eye = jnp.broadcast_to(jnp.eye(n, dtype=L.dtype), L.shape)
    inv = jax.lax.linalg.triangular_solve(L, eye, left_side=True, lower=not upper)
    if upper:
        return jnp.matmul(inv, _mH(inv), precision=HIGHEST)
    return jnp.matmul(_mH(inv), inv, precision=HIGHEST)


def _ci_fwd(L, upper):
    inv = _cholesky_inverse_core(L, upper)
    return inv, (L, inv)


def _ci_bwd(upper, res, ct):
    L, inv = res
    g = jnp.conj(ct)
    common = g + _mH(g)
    common = jnp.matmul(inv, jnp.matmul(common, inv, precision=HIGHEST), precision=HIGHEST)
    grad_l = -(jnp.matmul(L, common, precision=HIGHEST) if upper else
               jnp.matmul(common, L, precision=HIGHEST))
    return (jnp.conj(grad_l),)


_cholesky_inverse_core = custom_jvp_from_vjp(_potri, _ci_fwd, _ci_bwd, nondiff_argnums=(1,))


@jax.jit
def _zero_diagonal_info(L):
    d = jnp.diagonal(L, axis1=-2, axis2=-1) == 0
    first = jnp.argmax(d, axis=-1).astype(jnp.int32) + 1
    return jnp.where(jnp.any(d, axis=-1), first, 0)


def _cholesky_inverse_check(input, upper=False, out=None):
    check_square("cholesky_inverse", input)
    _kernel_check("cholesky_inverse_out_cpu", input)
    _check_singular(input, lambda prefix, k: (
        f"cholesky_inverse: {prefix}The diagonal element {k} is zero, the inversion could "
        f"not be completed because the input matrix is singular."), info=_zero_diagonal_info)


register(OpSpec(
    "cholesky_inverse", lambda input, upper=False, out=None:
        _cholesky_inverse_core(input, bool(upper)),
    "input, upper=False", promote="none", check=_cholesky_inverse_check,
    grad_name="CholeskyInverseBackward0",
    doc="Mirrors ``torch.cholesky_inverse``: ``(L L^H)^{-1}`` (``(U^H U)^{-1}`` when "
        "``upper``) reading one triangle, as LAPACK's ``potri``; a zero on the diagonal "
        "raises ``LinAlgError``. The gradient is PyTorch's (that of the formula in the "
        "whole of ``L``).",
    samples=lambda: [S(_chol(3, 3)), S(_chol(3, 3, upper=True), True),
                     S(_chol(2, 4, 4, dtype="float64")), S(arr(3, 3) + 3 * np.eye(3,
                                                                    dtype=np.float32)),
                     S(_chol(3, 3, dtype="complex128"), grad=False),
                     S(_chol(3, 3), method=True), S(arr(0, 0)),
                     S(np.stack([np.eye(2), np.diag([1.0, 0.0])]).astype(np.float32),
                       grad=False),
                     S(arr(3), grad=False), S(arr(2, 3), grad=False),
                     S(arr(3, 3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# triangular_solve
def _triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, out=None):
    coefficient = _mT(A) if transpose else A
    X = _solve_triangular(coefficient, input, upper != transpose, True, unitriangular)
    return X, jnp.broadcast_to(A, X.shape[:-2] + A.shape[-2:])


def _triangular_solve_check(input, A, upper=True, transpose=False, unitriangular=False,
                            out=None):
    _deprecated("torch.triangular_solve is deprecated in favor of "
                "torch.linalg.solve_triangularand will be removed in a future PyTorch "
                "release.\ntorch.linalg.solve_triangular has its arguments reversed and does "
                "not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
                "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, "
                "B).")
    for t, name in ((input, "b"), (A, "A")):
        if t.dim() < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {name} to have at least 2 "
                               f"dimensions, but it has {t.dim()} dimensions instead")
    linear_solve_check(input, A, "triangular_solve")
    broadcast_shapes_or_raise(input._shape[:-2], A._shape[:-2])
    _kernel_check("triangular_solve_cpu", input)


def _tri(*shape, dtype="float32", upper=True):
    a = _sq(*shape, dtype=dtype)
    return np.triu(a) if upper else np.tril(a)


register(OpSpec(
    "triangular_solve", _triangular_solve,
    "input, A, upper=True, transpose=False, unitriangular=False",
    tensor_args=("input", "A"), promote="none", check=_triangular_solve_check,
    out_names=("solution", "cloned_coefficient"),
    grad_name="TriangularSolveBackward0",
    doc="Mirrors ``torch.triangular_solve`` (deprecated there): ``X`` with ``op(A) X = b`` "
        "(``op(A) = A^T`` when ``transpose``, also for complex ``A``) reading one triangle "
        "of ``A``, and a copy of ``A`` broadcast to the batch.",
    samples=lambda: [S(arr(3, 2), _tri(3, 3)), S(arr(3, 2), _tri(3, 3, upper=False), False),
                     S(arr(3, 2), arr(3, 3), transpose=True),
                     S(arr(2, 3, 4, dtype="float64"), _tri(3, 3, dtype="float64",
                                                            upper=False),
                       upper=False, transpose=True, unitriangular=True),
                     S(arr(3, 2), _tri(2, 3, 3)), S(arr(3, 2), _tri(3, 3), method=True),
                     S(arr(3, 2, dtype="complex128"), _tri(3, 3, dtype="complex128"),
                       transpose=True, grad=False),
                     S(arr(0, 2), arr(0, 0)),
                     S(np.ones((2, 1), np.float32), np.array([[0.0, 1.0], [0.0, 1.0]],
                                                             np.float32), grad=False),
                     S(arr(3), _tri(3, 3), grad=False), S(arr(3, 2), arr(3), grad=False),
                     S(arr(2, 2), _tri(3, 3), grad=False),
                     S(arr(3, 2), arr(2, 3), grad=False),
                     S(arr(3, 2, dtype="float64"), _tri(3, 3), grad=False),
                     S(arr(4, 3, 2), _tri(2, 3, 3), grad=False),
                     S(arr(3, 2, dtype="int64"), arr(3, 3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# geqrf, orgqr, ormqr
def _geqrf_impl(a):
    h, tau = jnp.linalg.qr(a, mode="raw")
    return _mT(h), tau


_geqrf_core = not_differentiable(
    _geqrf_impl, lambda: NotImplementedError("the derivative for 'geqrf' is not implemented."))


def _geqrf_check(input, out=None):
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _kernel_check("geqrf_cpu", input)


register(OpSpec(
    "geqrf", lambda input, out=None: _geqrf_core(input), "input", promote="none",
    check=_geqrf_check, out_names=("a", "tau"), grad_name="GeqrfBackward0",
    doc="Mirrors ``torch.geqrf``: LAPACK's QR factorization in Householder form (``a`` "
        "holds ``R`` on and above the diagonal and the reflectors below it, ``tau`` their "
        "scalars). Not differentiable, as in PyTorch: a backward pass raises.",
    samples=lambda: [S(arr(4, 3), grad=False), S(arr(3, 4, dtype="float64"), grad=False),
                     S(arr(2, 3, 3), grad=False), S(arr(3, 3, dtype="complex128"), grad=False),
                     S(arr(0, 3), grad=False), S(arr(3, 3), method=True, grad=False),
                     S(arr(3), grad=False), S(arr(3, 3, dtype="int64"), grad=False),
                     S(arr(3, 3, dtype="float16"), grad=False)]))


def _orgqr_check(input, input2):
    householder_check(input, input2)


def _orgqr_samples():
    out = householder_samples()
    a, tau = _geqrf_np(arr(3, 3, dtype="float64"))
    return out + [S(a, tau, method=True)]


register(OpSpec(
    "orgqr", lambda input, input2: householder_product_core(input, input2), "input, input2",
    tensor_args=("input", "input2"), promote="none", check=_orgqr_check,
    grad_name="LinalgHouseholderProductBackward0",
    doc="Mirrors ``torch.orgqr``: ``linalg.householder_product(input, input2)``.",
    samples=_orgqr_samples))


def _ormqr(input, input2, input3, left=True, transpose=False, out=None):
    return ormqr_core(input, input2, input3, bool(left), bool(transpose))


def _ormqr_check(input, input2, input3, left=True, transpose=False, out=None):
    tau, other = input2, input3
    if input.dim() < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    cond = -2 if left else -1
    if other._shape[cond] != input._shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{cond}] must be equal to "
                           f"input.shape[-2]")
    if tau.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau._shape[-1] != min(other._shape[cond], input._shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to "
                           f"min(other.shape[{cond}], input.shape[-1])")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"torch.ormqr: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.dim()} and input.ndim is equal to "
                           f"{input.dim()}")
    if input.dim() != other.dim():
        raise RuntimeError(f"torch.ormqr: Expected other to have the same number of "
                           f"dimensions as input, but got other.ndim equal to {other.dim()} "
                           f"and input.ndim is equal to {input.dim()}")
    if input.dim() > 2:
        for t, name in ((tau, "tau"), (other, "other")):
            batch = t._shape[:input.dim() - 2]
            if batch != input._shape[:-2]:
                raise RuntimeError(f"torch.ormqr: Expected batch dimensions of {name} to be "
                                   f"equal to input.shape[:-2], but got {shape_str(batch)}")
    for t, name in ((tau, "tau"), (other, "other")):
        if t.dtype is not input.dtype:
            raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same "
                               f"dtype, but input has dtype{dtype_title(input.dtype)} and "
                               f"{name} has dtype {dtype_title(t.dtype)}")
    _kernel_check("ormqr_cpu", input)


def _ormqr_samples():
    a, tau = _geqrf_np(arr(4, 3, dtype="float64"))
    ab, taub = _geqrf_np(arr(2, 4, 3))
    ac, tauc = _geqrf_np(arr(3, 3, dtype="complex128"))
    return [S(a, tau, arr(4, 2, dtype="float64")),
            S(a, tau, arr(4, 2, dtype="float64"), transpose=True),
            S(a, tau, arr(2, 4, dtype="float64"), left=False),
            S(a, tau, arr(5, 4, dtype="float64"), left=False, transpose=True),
            S(ab, taub, arr(2, 4, 2)), S(arr(3, 5), arr(3), arr(3, 2)),
            S(a, tau, arr(4, 2, dtype="float64"), method=True),
            S(ac, tauc, arr(3, 2, dtype="complex128"), transpose=True, grad=False),
            S(a, tau, arr(4, 0, dtype="float64")),
            # error paths
            S(a, tau, arr(4, 2, dtype="float64"), left=False, grad=False),
            S(a, tau, arr(3, 2, dtype="float64"), grad=False),
            S(a, arr(4, dtype="float64"), arr(4, 2, dtype="float64"), grad=False),
            S(a[0], tau, arr(4, 2, dtype="float64"), grad=False),
            S(a, tau, arr(4, dtype="float64"), grad=False),
            S(a, arr(dtype="float64"), arr(4, 2, dtype="float64"), grad=False),
            S(ab, taub[0], arr(2, 4, 2), grad=False), S(ab, taub, arr(4, 2), grad=False),
            S(ab, taub, arr(3, 4, 2), grad=False), S(ab, arr(3, 3), arr(2, 4, 2), grad=False),
            S(a, tau.astype(np.float32), arr(4, 2, dtype="float64"), grad=False),
            S(a, tau, arr(4, 2), grad=False),
            S(arr(4, 3, dtype="int64"), arr(3, dtype="int64"), arr(4, 2, dtype="int64"),
              grad=False)]


register(OpSpec(
    "ormqr", _ormqr, "input, input2, input3, left=True, transpose=False",
    tensor_args=("input", "input2", "input3"), promote="none", check=_ormqr_check,
    grad_name="OrmqrBackward0",
    doc="Mirrors ``torch.ormqr``: ``op(Q) @ other`` (``other @ op(Q)`` when not ``left``) "
        "for the ``Q`` of Householder reflectors ``(input, input2)`` as ``geqrf`` returns "
        "them, ``op(Q) = Q^H`` when ``transpose``. Differentiable in all three tensors "
        "(Note [Householder gradients] in ``_linalg_more.py``).",
    samples=_ormqr_samples))


make_return_types("qr", "lu_unpack", "triangular_solve", "geqrf")
