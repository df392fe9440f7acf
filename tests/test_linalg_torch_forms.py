"""The ``torch.*`` forms of linear algebra (``torchlike/linalg/_torch_forms.py``):
``svd``, ``qr``, ``lu``, ``lu_solve``, ``lu_unpack``, ``cholesky_solve``,
``cholesky_inverse``, ``triangular_solve``, ``geqrf``, ``orgqr``, ``ormqr`` and their Tensor
methods, beyond the op-table samples: values, node names and gradients (complex too)
against PyTorch, PyTorch's gradients w.r.t. the unread triangle of ``L``, ``gradcheck`` in
float64, the deprecation warnings, errors with PyTorch's type and message, and checks
against NumPy that hold without PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck

from ._parity import HAVE_TORCH, assert_same, error_like_torch, torch
from .test_linalg_more import _np, _parity, _rand, _square

pytestmark = pytest.mark.filterwarnings(
    r"ignore:torch\.(qr|lu|lu_solve|triangular_solve) is deprecated:UserWarning")

FUNCTIONS = ("svd", "qr", "lu", "lu_solve", "lu_unpack", "cholesky_solve",
             "cholesky_inverse", "triangular_solve", "geqrf", "orgqr", "ormqr")


def test_names_methods_and_return_types():
    for name in FUNCTIONS:
        assert callable(getattr(tl, name)), name
        assert hasattr(tl.Tensor, name) == (name != "lu_unpack"), name
        if HAVE_TORCH:
            assert hasattr(torch.Tensor, name) == hasattr(tl.Tensor, name), name
    fields = {"svd": ("U", "S", "V"), "qr": ("Q", "R"), "lu_unpack": ("P", "L", "U"),
              "triangular_solve": ("solution", "cloned_coefficient"), "geqrf": ("a", "tau"),
              "_lu_with_info": ("LU", "pivots", "info")}
    for name, f in fields.items():
        assert getattr(tl.return_types, name)._fields == f
        if HAVE_TORCH:
            assert getattr(torch.return_types, name).n_fields == len(f)


def _deprecations(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in got if w.category is UserWarning]


def test_deprecation_warnings():
    a = tl.tensor(_square(3, 3))
    LU, piv = tl.linalg.lu_factor(a)
    calls = {"qr": lambda m, x: m.qr(x), "lu": lambda m, x: m.lu(x),
             "lu_solve": lambda m, x: m.lu_solve(x, *m.linalg.lu_factor(x)),
             "triangular_solve": lambda m, x: m.triangular_solve(x, x)}
    for name, call in calls.items():
        msgs = _deprecations(lambda: call(tl, a))
        assert len(msgs) == 1 and msgs[0].startswith(f"torch.{name} is deprecated in favor of")
        if HAVE_TORCH:
            ref = _deprecations(lambda: call(torch, torch.tensor(_np(a))))
            assert not ref or ref[0].startswith(msgs[0])   # PyTorch warns once per process
    assert not _deprecations(lambda: (tl.svd(a), tl.cholesky_inverse(a), tl.geqrf(a),
                                      tl.lu_unpack(LU, piv)))
    with pytest.warns(UserWarning, match="torch.lu is deprecated") as rec:
        a.lu()
    assert rec[0].filename == __file__   # points at the caller


# ---------------------------------------------------------------------------
# svd
@pytest.mark.parametrize("shape,dtype", [((3, 3), np.float64), ((4, 3), np.float32),
                                         ((2, 3, 5), np.float64), ((3, 2), np.complex128)])
@pytest.mark.parametrize("some", [True, False])
def test_svd(shape, dtype, some):
    a = _rand(*shape, dtype=dtype)
    U, S, V = tl.svd(tl.tensor(a), some=some)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(U.shape[-2:]) == ((m, k) if some else (m, m))
    assert tuple(V.shape[-2:]) == ((n, k) if some else (n, n))
    assert S.dtype is (tl.float64 if dtype != np.float32 else tl.float32)
    u, s, v = _np(U), _np(S), _np(V)
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ np.conj(np.swapaxes(v[..., :, :k], -1, -2))
    np.testing.assert_allclose(rebuilt, a, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    if HAVE_TORCH:   # the same vectors up to a phase per singular pair
        ref = torch.svd(torch.tensor(a), some)
        assert_same(S, ref.S, 1e-4, 1e-5)
        for mine, theirs in ((u, ref.U), (v, ref.V)):
            theirs = theirs.resolve_conj().numpy()[..., :k]
            overlap = np.abs(np.sum(np.conj(mine[..., :k]) * theirs, -2))
            np.testing.assert_allclose(overlap, 1, rtol=1e-4)


def test_svd_nodes_and_gradients():
    x = tl.tensor(_rand(4, 3)).requires_grad_()
    U, S, V = tl.svd(x)
    assert [t.grad_fn.name() for t in (U, S, V)] == ["LinalgSvdBackward0"] * 2 + \
        ["TransposeBackward0"]
    assert V.grad_fn.next_functions[0][0] is U.grad_fn
    xc = tl.tensor(_rand(3, 3, dtype=np.complex128)).requires_grad_()
    Vc = tl.svd(xc).V
    assert Vc.grad_fn.name() == "ConjBackward0"
    assert Vc.grad_fn.next_functions[0][0].name() == "TransposeBackward0"

    # a gauge-invariant function of U, S, V
    def rebuild(m, t):
        u, s, v = m.svd(t)
        return (u * s.unsqueeze(-2).to(u.dtype)) @ v.mH, s
    _parity(rebuild, _rand(2, 4, 3))
    _parity(rebuild, _rand(3, 3, dtype=np.complex128))
    assert gradcheck(lambda t: rebuild(tl, t), (tl.tensor(_rand(3, 2)).requires_grad_(),))


def test_svd_without_uv():
    a = _rand(2, 4, 3)
    U, S, V = _parity(lambda m, t: m.svd(t, compute_uv=False), a)
    assert tuple(U.shape) == (2, 4, 4) and tuple(V.shape) == (2, 3, 3)
    assert not np.any(_np(U)) and not np.any(_np(V))
    assert not U.requires_grad and not V.requires_grad
    assert S.grad_fn.name() == "LinalgSvdBackward0"
    out = tl.svd(tl.tensor(a), some=False, compute_uv=False)   # ``some`` has no effect
    assert tuple(out.U.shape) == (2, 4, 4)
    assert type(out) is tl.return_types.svd
    S2 = tl.tensor(_np(S)).requires_grad_()
    assert tl.tensor(a).svd(compute_uv=False).S.shape == S2.shape


# ---------------------------------------------------------------------------
# qr, lu, lu_solve, lu_unpack
def test_qr():
    a = _rand(2, 4, 3)
    Q, R = _parity(lambda m, t: m.qr(t), a)
    np.testing.assert_allclose(_np(Q @ R), a, atol=1e-12)
    Q2, R2 = _parity(lambda m, t: m.qr(t, some=False), _rand(3, 5), grad=True)
    assert tuple(Q2.shape) == (3, 3) and tuple(R2.shape) == (3, 5)
    assert Q.grad_fn.name() == "LinalgQrBackward0"
    Qt, Rt = tl.tensor(a).qr(some=False)
    assert tuple(Qt.shape) == (2, 4, 4)
    # PyTorch has no derivative for the complete factorization of a tall matrix
    x = tl.tensor(a).requires_grad_()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and "
                       "nrows > ncols"):
        tl.qr(x, some=False).Q.sum().backward()


def test_lu():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    out = _parity(lambda m, t: m.lu(t), a)
    assert type(out) is tuple and len(out) == 2   # a plain tuple, as torch.lu returns
    LU, piv, info = _parity(lambda m, t: m.lu(t, get_infos=True), a)
    np.testing.assert_array_equal(_np(info), [2, 0])   # a singular input does not raise
    assert type(tl.lu(tl.tensor(a), get_infos=True)) is tl.return_types._lu_with_info
    assert LU.grad_fn.name() == "LinalgLuFactorExBackward0"
    np.testing.assert_array_equal(_np(tl.tensor(a).lu()[1]), _np(piv))
    x = tl.tensor(_rand(3, 5)).requires_grad_()
    assert gradcheck(lambda t: tl.lu(t)[0], (x,))


def test_lu_solve_and_method():
    a, b = _square(2, 3, 3), _rand(4, 1, 3, 2, seed=1)
    LU, piv = tl.linalg.lu_factor(tl.tensor(a))
    x = _parity(lambda m, b_, lu_: m.lu_solve(b_, lu_, m.tensor(_np(piv))), b, _np(LU))
    np.testing.assert_allclose(_np(x), np.linalg.solve(a, b), atol=1e-10)
    assert x.grad_fn.name() == "LinalgLuSolveBackward0"
    np.testing.assert_allclose(_np(tl.tensor(b).lu_solve(LU, piv)), _np(x))
    _parity(lambda m, b_, lu_: m.lu_solve(b_, lu_, m.tensor(_np(piv))),
            _rand(2, 3, 1, dtype=np.complex128), _np(LU).astype(np.complex128))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_lu_unpack(shape):
    a = _rand(*shape)
    LU, piv = tl.linalg.lu_factor(tl.tensor(a))
    P, L, U = _parity(lambda m, lu_: m.lu_unpack(lu_, m.tensor(_np(piv))), _np(LU))
    np.testing.assert_allclose(_np(P @ L @ U), a, atol=1e-12)
    assert not P.requires_grad and L.grad_fn.name() == "LuUnpackBackward0"
    m, n = shape[-2:]
    assert tuple(P.shape[-2:]) == (m, m) and tuple(L.shape[-2:]) == (m, min(m, n))
    assert gradcheck(lambda lu_: tl.lu_unpack(lu_, piv)[1:],
                     (tl.tensor(_np(LU)).requires_grad_(),))


def test_lu_unpack_partial_and_integer():
    LU, piv = tl.linalg.lu_factor(tl.tensor(_square(3, 3)))
    P, L, U = tl.lu_unpack(LU, piv, unpack_data=False)
    assert tuple(L.shape) == (0,) and tuple(U.shape) == (0,) and tuple(P.shape) == (3, 3)
    P, L, U = tl.lu_unpack(LU, piv.long(), unpack_pivots=False)   # pivots are not read
    assert tuple(P.shape) == (0,) and tuple(L.shape) == (3, 3)
    ints = np.array([[2, 3], [4, 5]])
    out = _parity(lambda m, lu_: m.lu_unpack(lu_, m.tensor([2, 2], dtype=m.int32)), ints)
    assert out.P.dtype is tl.int64
    np.testing.assert_array_equal(_np(out.P), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(_np(out.L), [[1, 0], [4, 1]])
    np.testing.assert_array_equal(_np(out.U), [[2, 3], [0, 5]])
    # PyTorch's backward fails on the empty factors; so does torchlike's
    x = LU.detach().requires_grad_()
    with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 "
                       "dimensions"):
        tl.lu_unpack(x, piv, unpack_data=False).L.sum().backward()
    # pivots of a shape PyTorch reads out of bounds raise here
    with pytest.raises(RuntimeError, match="expected LU_pivots of shape \\[2, 3\\]"):
        tl.lu_unpack(LU.expand(2, 3, 3), piv)


# ---------------------------------------------------------------------------
# cholesky_solve, cholesky_inverse
def _chol(*shape, dtype=np.float64, seed=0):
    a = _rand(*shape, dtype=dtype, seed=seed)
    n = shape[-1]
    return np.linalg.cholesky(a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(dtype, upper):
    L = _chol(2, 3, 3, dtype=dtype)
    A = L @ np.conj(np.swapaxes(L, -1, -2))
    F = np.conj(np.swapaxes(L, -1, -2)) if upper else L
    b = _rand(4, 1, 3, 2, dtype=dtype, seed=1)
    x = _parity(lambda m, b_, f: m.cholesky_solve(b_, f, upper), b, F)
    np.testing.assert_allclose(_np(x), np.linalg.solve(A, b), atol=1e-10)
    assert x.grad_fn.name() == "CholeskySolveBackward0"
    # garbage in the other triangle: not read by the value, part of PyTorch's gradient
    junk = np.triu(_rand(3, 3, dtype=dtype, seed=2), 1)
    G = F + (np.conj(junk.T) if upper else junk)
    y = _parity(lambda m, b_, f: m.cholesky_solve(b_, f, upper), b, G)
    np.testing.assert_allclose(_np(y), _np(x), atol=1e-12)


def test_cholesky_solve_gradcheck_and_method():
    L = tl.tensor(_chol(3, 3)).requires_grad_()
    b = tl.tensor(_rand(3, 2, seed=1)).requires_grad_()
    assert gradcheck(lambda b_, l_: tl.cholesky_solve(b_, l_.tril()), (b, L))
    assert gradgradcheck(lambda b_, l_: tl.cholesky_solve(b_, l_.tril()), (b, L))
    np.testing.assert_allclose(_np(b.cholesky_solve(L)), _np(tl.cholesky_solve(b, L)))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(dtype, upper):
    L = _chol(2, 3, 3, dtype=dtype)
    A = L @ np.conj(np.swapaxes(L, -1, -2))
    F = np.conj(np.swapaxes(L, -1, -2)) if upper else L
    inv = _parity(lambda m, f: m.cholesky_inverse(f, upper), F)
    np.testing.assert_allclose(_np(inv), np.linalg.inv(A), atol=1e-10)
    assert inv.grad_fn.name() == "CholeskyInverseBackward0"
    junk = np.triu(_rand(3, 3, dtype=dtype, seed=2), 1)
    _parity(lambda m, f: m.cholesky_inverse(f, upper), F + (np.conj(junk.T) if upper else junk))


def test_cholesky_inverse_singular_and_gradcheck():
    L = tl.tensor(_chol(3, 3)).requires_grad_()
    assert gradcheck(lambda l_: tl.cholesky_inverse(l_.triu(), True), (L.mT.detach()
                                                                       .requires_grad_(),))
    assert gradgradcheck(lambda l_: tl.cholesky_inverse(l_.tril()), (L,))
    np.testing.assert_allclose(_np(L.cholesky_inverse()), _np(tl.cholesky_inverse(L)))
    with pytest.raises(tl.linalg.LinAlgError, match=r"^cholesky_inverse: \(Batch element "
                       r"1\): The diagonal element 2 is zero"):
        tl.cholesky_inverse(tl.stack([tl.eye(2), tl.tensor([[1.0, 0.0], [1.0, 0.0]])]))


# ---------------------------------------------------------------------------
# triangular_solve
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_triangular_solve(upper, transpose, dtype):
    a = _square(2, 3, 3, dtype=dtype)
    b = _rand(3, 2, dtype=dtype, seed=1)
    X, M = _parity(lambda m, b_, a_: m.triangular_solve(b_, a_, upper, transpose), b, a)
    t = np.triu(a) if upper else np.tril(a)
    t = np.swapaxes(t, -1, -2) if transpose else t      # A^T, also for complex A
    np.testing.assert_allclose(t @ _np(X), np.broadcast_to(b, (2, 3, 2)), atol=1e-10)
    np.testing.assert_array_equal(_np(M), a)
    assert X.grad_fn.name() == M.grad_fn.name() == "TriangularSolveBackward0"


def test_triangular_solve_unit_gradcheck_and_method():
    a = tl.tensor(_square(3, 3)).requires_grad_()
    b = tl.tensor(_rand(2, 3, 2, seed=1)).requires_grad_()
    out = _parity(lambda m, b_, a_: m.triangular_solve(b_, a_, False, True, True),
                  _np(b), _np(a))
    assert tuple(out.cloned_coefficient.shape) == (2, 3, 3)
    assert gradcheck(lambda b_, a_: tl.triangular_solve(b_, a_, unitriangular=True), (b, a))
    np.testing.assert_allclose(_np(b.triangular_solve(a).solution),
                               _np(tl.triangular_solve(b, a)[0]))


# ---------------------------------------------------------------------------
# geqrf, orgqr, ormqr
@pytest.mark.parametrize("shape,dtype", [((4, 3), np.float64), ((3, 4), np.float32),
                                         ((2, 3, 3), np.float64), ((3, 2), np.complex128)])
def test_geqrf(shape, dtype):
    a = _rand(*shape, dtype=dtype)
    h, tau = _parity(lambda m, t: m.geqrf(t), a, grad=False, rtol=1e-5, atol=1e-5)
    ref_h, ref_tau = np.linalg.qr(a, mode="raw")
    np.testing.assert_allclose(_np(h), np.swapaxes(ref_h, -1, -2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(tau), ref_tau, rtol=1e-5, atol=1e-5)
    q = tl.orgqr(h, tau) if shape[-2] >= shape[-1] else None
    if q is not None:
        np.testing.assert_allclose(_np(q), np.linalg.qr(a)[0], atol=1e-5)


def test_geqrf_not_differentiable():
    x = tl.tensor(_rand(3, 3)).requires_grad_()
    a, tau = x.geqrf()
    assert a.grad_fn.name() == tau.grad_fn.name() == "GeqrfBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not "
                       "implemented."):
        a.sum().backward()


def test_orgqr_is_householder_product():
    a, tau = _rand(5, 3), _rand(3, seed=1)
    q = _parity(lambda m, x, t: m.orgqr(x, t), a, tau)
    np.testing.assert_array_equal(_np(q), _np(tl.linalg.householder_product(tl.tensor(a),
                                                                            tl.tensor(tau))))
    np.testing.assert_array_equal(_np(tl.tensor(a).orgqr(tl.tensor(tau))), _np(q))
    assert q.grad_fn.name() == "LinalgHouseholderProductBackward0"


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_ormqr(left, transpose, dtype):
    a = _rand(2, 4, 3, dtype=dtype)
    h, tau = np.linalg.qr(a, mode="raw")
    h = np.swapaxes(h, -1, -2)
    c = _rand(2, 4, 2, dtype=dtype, seed=1)
    c = c if left else np.swapaxes(c, -1, -2)
    out = _parity(lambda m, x, t, y: m.ormqr(x, t, y, left, transpose), h, tau, c)
    q = np.linalg.qr(a, mode="complete")[0]
    q = np.conj(np.swapaxes(q, -1, -2)) if transpose else q
    np.testing.assert_allclose(_np(out), q @ c if left else c @ q, atol=1e-12)
    assert out.grad_fn.name() == "OrmqrBackward0"


def test_ormqr_gradcheck_and_method():
    h, tau = np.linalg.qr(_rand(4, 3), mode="raw")
    args = (tl.tensor(h.T.copy()).requires_grad_(), tl.tensor(tau).requires_grad_(),
            tl.tensor(_rand(2, 4, seed=2)).requires_grad_())
    assert gradcheck(lambda x, t, y: tl.ormqr(x, t, y, left=False, transpose=True), args)
    assert gradgradcheck(lambda x, t, y: tl.ormqr(x, t, y, left=False), args)
    c = tl.tensor(_rand(4, 2, seed=3))
    np.testing.assert_allclose(_np(args[0].ormqr(args[1], c)), _np(tl.ormqr(args[0], args[1],
                                                                             c)))


# ---------------------------------------------------------------------------
# errors: PyTorch's exception type and message
def _lu_args(m):
    return m.linalg.lu_factor(m.tensor(_square(3, 3)))


def _geqrf_args(m):
    return m.geqrf(m.tensor(_rand(4, 3)))


ERRORS = [
    lambda m: m.svd(m.ones(3)),
    lambda m: m.svd(m.tensor(1.0), compute_uv=False),
    lambda m: m.svd(m.ones(3, 3, dtype=m.long)),
    lambda m: m.svd(m.ones(3, 3, dtype=m.float16), compute_uv=False),
    lambda m: m.qr(m.ones(3, 3, dtype=m.long)),
    lambda m: m.qr(m.ones(3)),
    lambda m: m.qr(m.ones(3, 3, dtype=m.float16)),
    lambda m: m.lu(m.ones(3)),
    lambda m: m.lu(m.ones(3, 3, dtype=m.long)),
    lambda m: m.lu(m.ones(2, 2), pivot=False),
    lambda m: m.ones(3).lu(),
    lambda m: m.lu_solve(m.ones(3), *_lu_args(m)),
    lambda m: m.lu_solve(m.ones(2, 2, dtype=m.float64), *_lu_args(m)),
    lambda m: m.lu_solve(m.ones(3, 2), *_lu_args(m)),
    lambda m: m.lu_solve(m.ones(3, 2, dtype=m.float64), _lu_args(m)[0], _lu_args(m)[1].long()),
    lambda m: m.lu_solve(m.ones(4, 3, 2, dtype=m.float64), _lu_args(m)[0].expand(2, 3, 3),
                         _lu_args(m)[1].expand(2, 3)),
    lambda m: m.lu_solve(m.ones(3, 2, dtype=m.long), _lu_args(m)[0].long(), _lu_args(m)[1]),
    lambda m: m.lu_unpack(m.ones(3), m.ones(3, dtype=m.int32)),
    lambda m: m.lu_unpack(*_lu_args(m)[:1], _lu_args(m)[1].long()),
    lambda m: m.lu_unpack(*_lu_args(m)[:1], _lu_args(m)[1].float()),
    lambda m: m.lu_unpack(_lu_args(m)[0], m.tensor([4, 1, 1], dtype=m.int32)),
    lambda m: m.lu_unpack(_lu_args(m)[0], m.tensor([0, 2, 3], dtype=m.int32)),
    lambda m: m.cholesky_solve(m.ones(3), m.eye(3)),
    lambda m: m.cholesky_solve(m.ones(3, 2), m.ones(3)),
    lambda m: m.cholesky_solve(m.ones(2, 2), m.eye(3)),
    lambda m: m.cholesky_solve(m.ones(3, 2), m.ones(2, 3)),
    lambda m: m.cholesky_solve(m.ones(3, 2, dtype=m.float64), m.eye(3)),
    lambda m: m.cholesky_solve(m.ones(4, 3, 2), m.eye(3).expand(2, 3, 3)),
    lambda m: m.cholesky_solve(m.ones(3, 2, dtype=m.long), m.ones(3, 3, dtype=m.long)),
    lambda m: m.cholesky_solve(m.ones(3, 2).half(), m.eye(3).half()),
    lambda m: m.cholesky_inverse(m.ones(3)),
    lambda m: m.cholesky_inverse(m.ones(2, 3)),
    lambda m: m.cholesky_inverse(m.ones(3, 3, dtype=m.long)),
    lambda m: m.cholesky_inverse(m.ones(3, 3).half()),
    lambda m: m.cholesky_inverse(m.zeros(3, 3)),
    lambda m: m.cholesky_inverse(m.stack([m.eye(3), m.zeros(3, 3)])),
    lambda m: m.cholesky_inverse(m.tensor([[1.0, 0.0], [1.0, 0.0]])),
    lambda m: m.triangular_solve(m.ones(3), m.eye(3)),
    lambda m: m.triangular_solve(m.ones(3, 2), m.ones(3)),
    lambda m: m.triangular_solve(m.ones(2, 2), m.eye(3)),
    lambda m: m.triangular_solve(m.ones(3, 2), m.ones(2, 3)),
    lambda m: m.triangular_solve(m.ones(3, 2, dtype=m.float64), m.eye(3)),
    lambda m: m.triangular_solve(m.ones(3, 2), m.eye(3, dtype=m.float64)),
    lambda m: m.triangular_solve(m.ones(4, 3, 2), m.eye(3).expand(2, 3, 3)),
    lambda m: m.triangular_solve(m.ones(3, 2, dtype=m.long), m.ones(3, 3, dtype=m.long)),
    lambda m: m.triangular_solve(m.ones(3, 2).half(), m.eye(3).half()),
    lambda m: m.geqrf(m.ones(3)),
    lambda m: m.geqrf(m.ones(3, 3, dtype=m.long)),
    lambda m: m.geqrf(m.ones(3, 3).half()),
    lambda m: m.orgqr(m.ones(3, 2), m.ones(3)),
    lambda m: m.orgqr(m.ones(3, 2, dtype=m.long), m.ones(2, dtype=m.long)),
    lambda m: m.orgqr(m.ones(2, 3), m.ones(2)),
    lambda m: m.ormqr(*_geqrf_args(m), m.ones(4, 2, dtype=m.float64), left=False),
    lambda m: m.ormqr(*_geqrf_args(m), m.ones(3, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0], m.ones(4, dtype=m.float64),
                      m.ones(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0], m.ones(2, dtype=m.float64),
                      m.ones(2, 4, dtype=m.float64), left=False),
    lambda m: m.ormqr(_geqrf_args(m)[0][0], _geqrf_args(m)[1], m.ones(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(*_geqrf_args(m), m.ones(4, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0], m.tensor(1.0, dtype=m.float64),
                      m.ones(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0].expand(2, 4, 3), _geqrf_args(m)[1],
                      m.ones(2, 4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0].expand(2, 4, 3), _geqrf_args(m)[1].expand(2, 3),
                      m.ones(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0].expand(2, 4, 3), _geqrf_args(m)[1].expand(3, 3),
                      m.ones(2, 4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0].expand(2, 4, 3), _geqrf_args(m)[1].expand(2, 3),
                      m.ones(3, 4, 2, dtype=m.float64)),
    lambda m: m.ormqr(_geqrf_args(m)[0], _geqrf_args(m)[1].float(),
                      m.ones(4, 2, dtype=m.float64)),
    lambda m: m.ormqr(*_geqrf_args(m), m.ones(4, 2)),
    lambda m: m.ormqr(m.ones(4, 3, dtype=m.long), m.ones(3, dtype=m.long),
                      m.ones(4, 2, dtype=m.long)),
    lambda m: m.ormqr(m.ones(4, 3).half(), m.ones(3).half(), m.ones(4, 2).half()),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    error_like_torch(ERRORS[i])
