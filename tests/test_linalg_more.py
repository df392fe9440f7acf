"""``torchlike.linalg``'s LU, LDL and Householder functions and the tensor forms of inverse
and solve (``torchlike/linalg/_linalg_more.py``), beyond the op-table samples that
tests/test_linalg.py runs: values, node names and gradients (complex ones too) against
PyTorch, ``gradcheck`` in float64, singular inputs and ``info``, every error path with
PyTorch's exception type and message, and checks against NumPy/SciPy (LAPACK) that hold
without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import lapack

import torchlike as tl
from torchlike.autograd import gradcheck, gradgradcheck

from ._parity import HAVE_TORCH, assert_same, error_like_torch, torch

NEW = ("lu", "lu_factor_ex", "lu_solve", "solve_ex", "householder_product", "tensorinv",
       "tensorsolve", "vander", "ldl_factor", "ldl_factor_ex", "ldl_solve")


def _rand(*shape, dtype=np.float64, seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * g.standard_normal(shape)
    return a.astype(dtype)


def _square(*shape, dtype=np.float64, seed=0):
    n = shape[-1]
    return (_rand(*shape, dtype=dtype, seed=seed) + 3 * np.eye(n)).astype(dtype)


def _np(t) -> np.ndarray:
    return np.asarray(t.detach())


def _parity(fn, *arrays, grad=True, rtol=1e-6, atol=1e-8):
    """``fn(module, *tensors)`` in torchlike and, with PyTorch, in PyTorch: same values,
    dtypes, shapes and node names, and (``grad``) the same gradients of a weighted sum of
    the differentiable outputs' real and imaginary parts. Returns torchlike's output."""
    def run(mod, make):
        leaves = [make(a) for a in arrays]
        if grad:
            for x in leaves:
                if x.dtype.is_floating_point or x.dtype.is_complex:
                    x.requires_grad_(True)
        return fn(mod, *leaves), leaves
    out, leaves = run(tl, tl.tensor)
    if not HAVE_TORCH:
        return out
    ref, rleaves = run(torch, torch.tensor)
    assert_same(out, ref, rtol, atol)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
    routs = [o for o in (ref if isinstance(ref, tuple) else (ref,)) if o.requires_grad]
    assert [o.grad_fn.name() for o in outs] == [o.grad_fn.name() for o in routs]
    if not grad or not routs:
        return out
    ws = [np.random.default_rng(7).uniform(0.5, 1.5, tuple(o.shape)) for o in routs]

    def loss(mod, os):
        total = 0
        for o, w in zip(os, ws):
            parts = (o.real, o.imag) if o.is_complex() else (o,)
            total = total + sum((p.to(mod.float64) * mod.tensor(w)).sum() for p in parts)
        return total
    diff = [x for x in leaves if x.requires_grad]
    rdiff = [x for x in rleaves if x.requires_grad]
    grads = tl.autograd.grad(loss(tl, outs), diff, allow_unused=True)
    rgrads = torch.autograd.grad(loss(torch, routs), rdiff, allow_unused=True)
    for i, (g, rg) in enumerate(zip(grads, rgrads)):
        if rg is None:
            assert g is None or not np.any(_np(g)), f"grad[{i}]"
            continue
        assert_same(g, rg, max(rtol, 1e-5), max(atol, 1e-7), f"grad[{i}]")
    return out


def test_public_names_and_return_types():
    for name in NEW:
        f = getattr(tl.linalg, name)
        assert f.__module__ == "torchlike.linalg" and f.__name__ == name
        assert f.__doc__ and "Mirrors ``torch.linalg." + name in f.__doc__
    fields = {"linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_lu": ("P", "L", "U"),
              "linalg_solve_ex": ("result", "info"),
              "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
              "linalg_ldl_factor": ("LD", "pivots")}
    for name, f in fields.items():
        assert getattr(tl.return_types, name)._fields == f
        if HAVE_TORCH:
            assert getattr(torch.return_types, name).n_fields == len(f)
    out = tl.linalg.lu(tl.eye(2))
    assert type(out) is tl.return_types.linalg_lu
    assert repr(out).startswith("torchlike.return_types.linalg_lu(\nP=tensor(")


# ---------------------------------------------------------------------------
# LU
@pytest.mark.parametrize("shape,dtype", [((3, 3), np.float32), ((2, 4, 4), np.float64),
                                         ((3, 5), np.float64), ((2, 5, 3), np.float64),
                                         ((3, 3), np.complex128)])
def test_lu_factor_ex_and_lu(shape, dtype):
    a = _rand(*shape, dtype=dtype)
    LU, piv, info = _parity(lambda m, x: m.linalg.lu_factor_ex(x), a)
    assert piv.dtype is tl.int32 and info.dtype is tl.int32
    assert tuple(piv.shape) == shape[:-2] + (min(shape[-2:]),) and not np.any(_np(info))
    P, L, U = _parity(lambda m, x: m.linalg.lu(x), a)
    assert not P.requires_grad and P.dtype is L.dtype
    np.testing.assert_allclose(_np(P @ L @ U), a, rtol=1e-5, atol=1e-5)
    # the same factors as lu_unpack of lu_factor's result
    P2, L2, U2 = tl.lu_unpack(LU, piv)
    for x, y in ((P, P2), (L, L2), (U, U2)):
        np.testing.assert_array_equal(_np(x), _np(y))


def test_lu_singular_info_and_check_errors():
    a = np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]])
    out = tl.linalg.lu_factor_ex(tl.tensor(a))
    np.testing.assert_array_equal(_np(out.info), [0, 2])   # U[2,2] of the second is 0
    _parity(lambda m, x: m.linalg.lu_factor_ex(x), a, grad=False)
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): U\[2,2\] is zero"):
        tl.linalg.lu_factor_ex(tl.tensor(a), check_errors=True)
    # linalg.lu does not check
    P, L, U = tl.linalg.lu(tl.tensor(a))
    np.testing.assert_allclose(_np(P @ L @ U), a)


def test_lu_gradcheck():
    a = tl.tensor(_rand(3, 3)).requires_grad_()
    assert gradcheck(lambda x: tl.linalg.lu_factor_ex(x).LU, (a,))
    assert gradcheck(lambda x: tl.linalg.lu(x)[1:], (tl.tensor(_rand(2, 4, 3)).requires_grad_(),))
    assert gradcheck(lambda x: tl.linalg.lu(x)[1:], (tl.tensor(_rand(3, 4)).requires_grad_(),))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_lu_solve(left, adjoint, dtype):
    a = _square(2, 3, 3, dtype=dtype)
    b = _rand(2, 3, 4, dtype=dtype, seed=1)
    b = b if left else np.swapaxes(b, -1, -2)
    LU, piv = tl.linalg.lu_factor(tl.tensor(a))
    lu, p = _np(LU), _np(piv)
    x = _parity(lambda m, lu_, b_: m.linalg.lu_solve(lu_, m.tensor(p), b_, left=left,
                                                      adjoint=adjoint), lu, b)
    assert x.grad_fn.name() == "LinalgLuSolveBackward0"
    op = np.conj(np.swapaxes(a, -1, -2)) if adjoint else a
    x = _np(x)
    np.testing.assert_allclose(op @ x if left else x @ op, b, atol=1e-10)


def test_lu_solve_broadcasts_and_gradcheck():
    a = _square(2, 3, 3)
    LU, piv = tl.linalg.lu_factor(tl.tensor(a))
    b = _rand(4, 1, 3, 2, seed=2)
    x = _parity(lambda m, b_: m.linalg.lu_solve(m.tensor(_np(LU)), m.tensor(_np(piv)), b_), b)
    assert tuple(x.shape) == (4, 2, 3, 2)
    np.testing.assert_allclose(_np(x), np.linalg.solve(a, b), atol=1e-10)
    lu = tl.tensor(_np(LU)).requires_grad_()
    assert gradcheck(lambda lu_, b_: tl.linalg.lu_solve(lu_, piv, b_, adjoint=True),
                     (lu, tl.tensor(b).requires_grad_()))


# ---------------------------------------------------------------------------
# solve_ex
def test_solve_ex():
    a, b = _square(2, 3, 3), _rand(2, 3, seed=3)
    res, info = _parity(lambda m, x, y: m.linalg.solve_ex(x, y), a, b)
    np.testing.assert_allclose(_np(res), np.linalg.solve(a, b[..., None])[..., 0])
    assert info.dtype is tl.int32 and tuple(info.shape) == (2,) and not np.any(_np(info))
    assert res.grad_fn.name() == "LinalgSolveExBackward0"
    _parity(lambda m, x, y: m.linalg.solve_ex(x, y, left=False), a, _rand(4, 3, seed=4))
    _parity(lambda m, x, y: m.linalg.solve_ex(x, y), a.astype(np.complex128),
            _rand(3, 2, dtype=np.complex128))
    assert gradcheck(lambda x, y: tl.linalg.solve_ex(x, y).result,
                     (tl.tensor(a).requires_grad_(), tl.tensor(b).requires_grad_()))


def test_solve_ex_singular():
    a = np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]])
    out = tl.linalg.solve_ex(tl.tensor(a), tl.ones(2, dtype=tl.float64))
    np.testing.assert_array_equal(_np(out.info), [0, 2])
    np.testing.assert_allclose(_np(out.result)[0], np.linalg.solve(a[0], np.ones(2)))
    with pytest.raises(tl.linalg.LinAlgError, match=r"^torch.linalg.solve_ex: \(Batch "
                       r"element 1\): The solver failed because the input matrix is "
                       r"singular.$"):
        tl.linalg.solve_ex(tl.tensor(a), tl.ones(2, dtype=tl.float64), check_errors=True)


# ---------------------------------------------------------------------------
# Householder products
@pytest.mark.parametrize("shape,dtype", [((4, 3), np.float64), ((2, 5, 3), np.float64),
                                         ((3, 3), np.complex128)])
def test_householder_product_is_qr_q(shape, dtype):
    a = _rand(*shape, dtype=dtype)
    h, tau = np.linalg.qr(a, mode="raw")
    h = np.swapaxes(h, -1, -2)
    q = _parity(lambda m, x, t: m.linalg.householder_product(x, t), h, tau)
    np.testing.assert_allclose(_np(q), np.linalg.qr(a)[0], atol=1e-12)
    assert q.grad_fn.name() == "LinalgHouseholderProductBackward0"


def test_householder_product_gradients():
    a, tau = _rand(4, 3), _rand(2, seed=1)
    _parity(lambda m, x, t: m.linalg.householder_product(x, t), a, tau)
    args = (tl.tensor(a).requires_grad_(), tl.tensor(tau).requires_grad_())
    assert gradcheck(tl.linalg.householder_product, args)
    assert gradgradcheck(tl.linalg.householder_product, args)
    # the entries on and above the diagonal are not read
    g = tl.autograd.grad(tl.linalg.householder_product(*args).sum(), args[0])[0]
    assert not np.any(np.triu(_np(g)))
    ac, tc = _rand(4, 3, dtype=np.complex128), _rand(3, dtype=np.complex128, seed=2)
    _parity(lambda m, x, t: m.linalg.householder_product(x, t), ac, tc)


def test_householder_product_empty():
    q = tl.linalg.householder_product(tl.ones(3, 2), tl.ones(0))
    np.testing.assert_array_equal(_np(q), np.eye(3, 2))
    assert tuple(tl.linalg.householder_product(tl.ones(3, 0), tl.ones(0)).shape) == (3, 0)


# ---------------------------------------------------------------------------
# tensorinv, tensorsolve, vander
def test_tensorinv():
    a = _square(6, 6).reshape(2, 3, 6)
    inv = _parity(lambda m, x: m.linalg.tensorinv(x), a)
    assert tuple(inv.shape) == (6, 2, 3)
    np.testing.assert_allclose(_np(inv), np.linalg.tensorinv(a, ind=2), atol=1e-12)
    assert inv.grad_fn.name() == "ReshapeAliasBackward0"
    b = _square(6, 6, seed=1).reshape(6, 2, 3)
    np.testing.assert_allclose(_np(_parity(lambda m, x: m.linalg.tensorinv(x, ind=1), b)),
                               np.linalg.tensorinv(b, ind=1), atol=1e-12)
    assert gradcheck(lambda x: tl.linalg.tensorinv(x, ind=1), (tl.tensor(b).requires_grad_(),))
    with pytest.raises(tl.linalg.LinAlgError, match="^inv: The diagonal element 1 is zero"):
        tl.linalg.tensorinv(tl.zeros(2, 2, 4))


def test_tensorsolve():
    a, b = _square(6, 6).reshape(2, 3, 6), _rand(2, 3, seed=1)
    x = _parity(lambda m, p, q: m.linalg.tensorsolve(p, q), a, b)
    np.testing.assert_allclose(_np(x), np.linalg.tensorsolve(a, b), atol=1e-12)
    assert x.grad_fn.name() == "ViewBackward0"
    a4 = np.moveaxis(_square(6, 6).reshape(2, 3, 2, 3), 0, 2)
    b2 = _rand(3, 2, seed=2)
    x = _parity(lambda m, p, q: m.linalg.tensorsolve(p, q, dims=(2,)), a4, b2)
    np.testing.assert_allclose(_np(x), np.linalg.tensorsolve(a4, b2, axes=(2,)), atol=1e-12)
    assert gradcheck(lambda p, q: tl.linalg.tensorsolve(p, q, dims=(2,)),
                     (tl.tensor(a4).requires_grad_(), tl.tensor(b2).requires_grad_()))
    with pytest.raises(tl.linalg.LinAlgError, match="^torch.linalg.solve: The solver failed"):
        tl.linalg.tensorsolve(tl.zeros(4, 4), tl.ones(4))


def test_vander():
    x = _rand(2, 4)
    v = _parity(lambda m, t: m.linalg.vander(t, N=5), x)
    np.testing.assert_allclose(_np(v), np.stack([np.vander(r, 5, increasing=True) for r in x]))
    assert v.grad_fn.name() == "CatBackward0"
    vi = _parity(lambda m, t: m.linalg.vander(t), np.array([1, 2, 3], np.int32))
    assert vi.dtype is tl.int64
    np.testing.assert_array_equal(_np(vi), np.vander([1, 2, 3], increasing=True))
    np.testing.assert_array_equal(_np(tl.linalg.vander(tl.tensor(2.0), N=3)), [[1, 2, 4]])
    _parity(lambda m, t: m.linalg.vander(t), _rand(3, dtype=np.complex128))
    assert gradcheck(lambda t: tl.linalg.vander(t, N=4), (tl.tensor(x).requires_grad_(),))
    # zeros: the cumulative product's gradient stays finite
    _parity(lambda m, t: m.linalg.vander(t, N=4), np.array([0.0, 1.5, 0.0]))


# ---------------------------------------------------------------------------
# LDL (Note [LAPACK's LDL format]): SciPy's LAPACK is the reference without PyTorch
def _symmetric(n, kind, seed, weak=False, zero_row=False):
    a = _rand(n, n, dtype=np.float64 if kind == "real" else np.complex128, seed=seed)
    if weak:   # small diagonal entries force 2x2 pivots
        a[np.arange(n), np.arange(n)] *= 0.01
    if zero_row:
        a[1, :] = 0
        a[:, 1] = 0
    t = a.T.conj() if kind == "hermitian" else a.T
    return a + t


_SYTRF = {"real": (lapack.dsytrf, lapack.dsytrs), "symmetric": (lapack.zsytrf, lapack.zsytrs),
          "hermitian": (lapack.zhetrf, lapack.zhetrs)}


@pytest.mark.parametrize("kind", ["real", "symmetric", "hermitian"])
def test_ldl_matches_lapack(kind):
    herm = kind == "hermitian"
    factor, solve = _SYTRF[kind]
    twos = 0
    for n in (1, 2, 5, 8):
        seeds = range(10 * n, 10 * n + 6)
        a = np.stack([_symmetric(n, kind, s, weak=s % 2 == 0, zero_row=n > 2 and s % 6 == 5)
                      for s in seeds])
        junk = np.triu(_rand(*a.shape, dtype=a.dtype, seed=99), 1)   # never read
        LD, piv, info = tl.linalg.ldl_factor_ex(tl.tensor(np.tril(a) + junk), hermitian=herm)
        b = _rand(len(seeds), n, 2, dtype=a.dtype, seed=n)
        x = _np(tl.linalg.ldl_solve(LD, piv, tl.tensor(b), hermitian=herm))
        for i in range(len(seeds)):
            ref, ref_piv, ref_info = factor(a[i], lower=1)
            np.testing.assert_array_equal(_np(piv)[i], ref_piv)
            np.testing.assert_allclose(_np(LD)[i], np.tril(ref), rtol=1e-10, atol=1e-12)
            assert int(info[i]) == ref_info
            twos += np.any(ref_piv < 0)
            if ref_info == 0:
                np.testing.assert_allclose(x[i], solve(ref, ref_piv, b[i], lower=1)[0],
                                           rtol=1e-8, atol=1e-10)
                np.testing.assert_allclose(x[i], np.linalg.solve(a[i], b[i]), rtol=1e-7,
                                           atol=1e-9)
        if HAVE_TORCH:
            r = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=herm)
            np.testing.assert_array_equal(_np(piv), r.pivots.numpy())
            np.testing.assert_allclose(_np(LD), r.LD.numpy(), rtol=1e-10, atol=1e-12)
            np.testing.assert_array_equal(_np(info), r.info.numpy())
    assert twos >= 3   # the samples do exercise 2x2 blocks


def test_ldl_batches_and_parity():
    a = np.stack([_symmetric(4, "real", s, weak=True) for s in range(3)])
    LD, piv = _parity(lambda m, x: m.linalg.ldl_factor(x), a, grad=False)
    b = _rand(1, 4, 2, seed=5)
    x = _parity(lambda m, ld, p, y: m.linalg.ldl_solve(ld, p, y), _np(LD), _np(piv), b,
                grad=False)
    np.testing.assert_allclose(_np(x), np.linalg.solve(a, b), atol=1e-9)
    # broadcasting both ways (PyTorch crashes on this one; NumPy is the reference)
    b2 = _rand(2, 1, 4, 3, seed=6)
    x2 = tl.linalg.ldl_solve(LD, piv, tl.tensor(b2))
    np.testing.assert_allclose(_np(x2), np.linalg.solve(a, b2), atol=1e-9)
    # int64 pivots are accepted, as in PyTorch
    x3 = tl.linalg.ldl_solve(LD, piv.long(), tl.tensor(b))
    np.testing.assert_allclose(_np(x3), _np(x))


def test_ldl_singular():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]])
    out = tl.linalg.ldl_factor_ex(tl.tensor(a))
    assert int(out.info) == 2
    np.testing.assert_array_equal(_np(out.pivots), [1, 2, 3])
    if HAVE_TORCH:
        assert_same(out, torch.linalg.ldl_factor_ex(torch.tensor(a)))
    for call in (lambda m: m.linalg.ldl_factor(m.tensor(a)),
                 lambda m: m.linalg.ldl_factor_ex(m.tensor(a), check_errors=True)):
        with pytest.raises(RuntimeError, match="Unknown error code: 2"):
            call(tl)
        if HAVE_TORCH:   # PyTorch's own text is an internal assertion about the same code
            with pytest.raises(RuntimeError, match="Unknown error code: 2"):
                call(torch)


def test_ldl_not_differentiable():
    a = tl.tensor(_symmetric(3, "real", 0)).requires_grad_()
    LD, piv = tl.linalg.ldl_factor(a)
    assert LD.requires_grad and not piv.requires_grad
    assert LD.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::linalg_ldl_factor_ex is not "
                       "implemented"):
        LD.sum().backward()
    b = tl.ones(3, 1, dtype=tl.float64, requires_grad=True)
    x = tl.linalg.ldl_solve(LD.detach(), piv, b)
    assert x.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::linalg_ldl_solve is not "
                       "implemented"):
        x.sum().backward()
    if HAVE_TORCH:
        t = torch.tensor(_np(a)).requires_grad_()
        with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex"):
            torch.linalg.ldl_factor(t)[0].sum().backward()


def test_compiled_like_eager():
    a, b = tl.tensor(_square(3, 3)), tl.tensor(_rand(3, 2, seed=1))
    s = tl.tensor(_symmetric(3, "real", 2, weak=True))

    def f(a, b, s):
        LU, piv, info = tl.linalg.lu_factor_ex(a, check_errors=True)
        x = tl.linalg.lu_solve(LU, piv, b)
        y, info2 = tl.linalg.solve_ex(a, b, check_errors=True)
        LD, p, info3 = tl.linalg.ldl_factor_ex(s, check_errors=True)
        z = tl.linalg.ldl_solve(LD, p, b)
        return x, y, z, tl.linalg.tensorinv(a, ind=1), info, info2, info3
    for e, c in zip(f(a, b, s), tl.compile(f)(a, b, s)):
        np.testing.assert_allclose(_np(c), _np(e), rtol=1e-12)


# ---------------------------------------------------------------------------
# errors: PyTorch's exception type and message
def _lu_args(m):
    LU, piv = m.linalg.lu_factor(m.tensor(_square(3, 3)))
    return LU, piv


def _ldl_args(m):
    return m.linalg.ldl_factor(m.tensor(_symmetric(3, "real", 0)))


ERRORS = [
    lambda m: m.linalg.lu_factor_ex(m.ones(3)),
    lambda m: m.linalg.lu_factor_ex(m.tensor(1.0)),
    lambda m: m.linalg.lu_factor_ex(m.ones(2, 2, dtype=m.long)),
    lambda m: m.linalg.lu_factor_ex(m.ones(2, 2, dtype=m.float16)),
    lambda m: m.linalg.lu_factor_ex(m.ones(2, 2, dtype=m.long), pivot=False),
    lambda m: m.linalg.lu_factor_ex(m.ones(2, 2), pivot=False),
    lambda m: m.linalg.lu_factor_ex(m.tensor([[1.0, 2.0], [2.0, 4.0]]), check_errors=True),
    lambda m: m.linalg.lu_factor_ex(m.stack([m.eye(3), m.zeros(3, 3)]), check_errors=True),
    lambda m: m.linalg.lu(m.ones(2)),
    lambda m: m.linalg.lu(m.ones(2, 2, dtype=m.int32)),
    lambda m: m.linalg.lu(m.ones(2, 2), pivot=False),
    lambda m: m.linalg.lu_solve(*_lu_args(m), m.ones(3)),
    lambda m: m.linalg.lu_solve(*_lu_args(m), m.ones(2, 3)),
    lambda m: m.linalg.lu_solve(*_lu_args(m), m.ones(3, 2), left=False),
    lambda m: m.linalg.lu_solve(*_lu_args(m), m.ones(3, 2)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0], _lu_args(m)[1].long(),
                                m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0], _lu_args(m)[1][:2],
                                m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0][:2], _lu_args(m)[1][:2],
                                m.ones(2, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0].expand(2, 3, 3), _lu_args(m)[1],
                                m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0].expand(2, 3, 3),
                                _lu_args(m)[1].expand(2, 3), m.ones(4, 3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0], m.tensor([4, 1, 1], dtype=m.int32),
                                m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0], m.tensor([0, 2, 3], dtype=m.int32),
                                m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.lu_solve(_lu_args(m)[0].long(), _lu_args(m)[1],
                                m.ones(3, 2, dtype=m.long)),
    lambda m: m.linalg.lu_solve(m.eye(3).half(), m.tensor([1, 2, 3], dtype=m.int32),
                                m.ones(3, 2).half()),
    lambda m: m.linalg.solve_ex(m.ones(2, 2, dtype=m.long), m.ones(2, dtype=m.long)),
    lambda m: m.linalg.solve_ex(m.ones(2, 2), m.ones(3)),
    lambda m: m.linalg.solve_ex(m.ones(2, 2), m.ones(2, dtype=m.float64)),
    lambda m: m.linalg.solve_ex(m.ones(2, 3), m.ones(2)),
    lambda m: m.linalg.solve_ex(m.ones(2), m.ones(2)),
    lambda m: m.linalg.solve_ex(m.eye(2), m.tensor(1.0)),
    lambda m: m.linalg.solve_ex(m.eye(2), m.ones(2), left=False),
    lambda m: m.linalg.solve_ex(m.eye(2).half(), m.ones(2).half()),
    lambda m: m.linalg.solve_ex(m.zeros(2, 2), m.ones(2), check_errors=True),
    lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(3)),
    lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2)),
    lambda m: m.linalg.householder_product(m.ones(3), m.ones(2)),
    lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(2)),
    lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, 2)),
    lambda m: m.linalg.householder_product(m.ones(2, 3, 2), m.ones(3, 2)),
    lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.float64)),
    lambda m: m.linalg.householder_product(m.ones(3, 2), m.ones(2, dtype=m.long)),
    lambda m: m.linalg.householder_product(m.ones(3, 2, dtype=m.long), m.ones(2, dtype=m.long)),
    lambda m: m.linalg.householder_product(m.ones(3, 2), m.tensor(1.0)),
    lambda m: m.linalg.tensorinv(m.ones(4, 4), ind=0),
    lambda m: m.linalg.tensorinv(m.ones(4, 6, 8)),
    lambda m: m.linalg.tensorinv(m.ones(2, 2), ind=3),
    lambda m: m.linalg.tensorinv(m.ones(4, 4, dtype=m.long), ind=1),
    lambda m: m.linalg.tensorinv(m.eye(4).half(), ind=1),
    lambda m: m.linalg.tensorinv(m.zeros(2, 2, 4)),
    lambda m: m.linalg.tensorsolve(m.ones(4, 6), m.ones(5)),
    lambda m: m.linalg.tensorsolve(m.ones(4, 4, dtype=m.long), m.ones(4, dtype=m.long)),
    lambda m: m.linalg.tensorsolve(m.ones(4, 4), m.ones(4, dtype=m.float64)),
    lambda m: m.linalg.tensorsolve(m.zeros(4, 4), m.ones(4)),
    lambda m: m.linalg.tensorsolve(m.eye(4), m.ones(4), dims=(5,)),
    lambda m: m.linalg.tensorsolve(m.eye(4).reshape(2, 2, 4), m.ones(2, 2), dims=(0, 0)),
    lambda m: m.linalg.tensorsolve(m.eye(4).half(), m.ones(4).half()),
    lambda m: m.linalg.vander(m.tensor(1.0)),
    lambda m: m.linalg.vander(m.ones(3), N=1),
    lambda m: m.linalg.vander(m.ones(0)),
    lambda m: m.linalg.vander(m.ones(3, dtype=m.bool)),
    lambda m: m.linalg.vander(m.ones(3, dtype=m.float16)),
    lambda m: m.linalg.vander(m.ones(3, dtype=m.bfloat16)),
    lambda m: m.linalg.ldl_factor(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.ldl_factor(m.ones(3)),
    lambda m: m.linalg.ldl_factor(m.ones(2, 3)),
    lambda m: m.linalg.ldl_factor(m.ones(3, 3, dtype=m.float16)),
    lambda m: m.linalg.ldl_factor_ex(m.ones(3, 3, dtype=m.bool)),
    lambda m: m.linalg.ldl_solve(*_ldl_args(m), m.ones(3)),
    lambda m: m.linalg.ldl_solve(*_ldl_args(m), m.ones(2, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(*_ldl_args(m), m.ones(3, 2)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0], _ldl_args(m)[1][:2],
                                 m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0], _ldl_args(m)[1].float(),
                                 m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0].long(), _ldl_args(m)[1],
                                 m.ones(3, 2, dtype=m.long)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0][:2], _ldl_args(m)[1][:2],
                                 m.ones(2, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0][0], _ldl_args(m)[1],
                                 m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0], m.tensor([7, 1, 1], dtype=m.int32),
                                 m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(_ldl_args(m)[0], m.tensor([0, 1, 1], dtype=m.int32),
                                 m.ones(3, 2, dtype=m.float64)),
    lambda m: m.linalg.ldl_solve(m.eye(3).half(), m.tensor([1, 2, 3], dtype=m.int32),
                                 m.ones(3, 2).half()),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    error_like_torch(ERRORS[i])


def test_out_of_the_wrong_length_is_refused():
    """Three results, one out tensor: refused before anything is written."""
    o = tl.full((2, 2), 5.0)
    with pytest.raises(RuntimeError, match="expected 3 out tensors, got 1"):
        tl.linalg.lu_factor_ex(tl.eye(2), out=(o,))
    assert o.tolist() == [[5.0, 5.0], [5.0, 5.0]]
