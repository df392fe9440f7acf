"""``torchlike.svd_lowrank`` and ``torchlike.pca_lowrank``: randomized, so compared with
PyTorch through shapes, dtypes and errors, and with the exact SVD through the accuracy of
the approximation, the singular values, orthonormality and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, dtype_name, same_error, torch

RNG = np.random.default_rng(0)


def _low_rank(shape, rank, dtype=np.float64, complex_=False):
    *batch, m, n = shape
    left = RNG.standard_normal((*batch, m, rank))
    right = RNG.standard_normal((*batch, rank, n))
    if complex_:
        left = left + 1j * RNG.standard_normal(left.shape)
        right = right + 1j * RNG.standard_normal(right.shape)
    return (left @ right).astype(dtype)


def _meta(out):
    return [(tuple(t.shape), dtype_name(t)) for t in out]


CASES = [
    ("svd", (3, 10, 7), np.float32, dict()),
    ("svd", (3, 10, 7), np.float32, dict(q=10)),
    ("svd", (10, 7), np.float32, dict(q=3)),
    ("svd", (3, 7, 10), np.float32, dict(q=3, niter=0)),
    ("svd", (2, 6, 5), np.float64, dict(q=3, M=True)),
    ("svd", (6, 5), np.complex64, dict(q=3)),
    ("svd", (4, 6), np.int64, dict(q=2, niter=None)),
    ("pca", (3, 10, 7), np.float32, dict()),
    ("pca", (10, 7), np.float64, dict(q=3, center=False)),
    ("pca", (2, 4, 9), np.float32, dict(q=4, niter=1)),
]


def _call(fw, kind, a, kw):
    kw = dict(kw)
    if kw.get("M"):
        kw["M"] = fw.tensor(a.mean(-2, keepdims=True))
    if a.dtype == np.int64:
        a = a.astype(np.float32)          # svd_lowrank of integers fails in both
    f = fw.svd_lowrank if kind == "svd" else fw.pca_lowrank
    return f(fw.tensor(a), **kw)


@pytest.mark.parametrize("kind, shape, dtype, kw", CASES,
                         ids=[f"{c[0]}-{'x'.join(map(str, c[1]))}-{i}"
                              for i, c in enumerate(CASES)])
def test_shapes_and_dtypes_as_pytorch(kind, shape, dtype, kw):
    a = RNG.standard_normal(shape).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.standard_normal(shape).astype(dtype)
    out = _call(tl, kind, a, kw)
    assert isinstance(out, tuple) and len(out) == 3
    if HAVE_TORCH:
        assert _meta(out) == _meta(_call(torch, kind, a, kw))


@pytest.mark.parametrize("shape", [(12, 9), (9, 12), (3, 12, 9), (2, 9, 12)])
@pytest.mark.parametrize("complex_", [False, True])
def test_low_rank_matrices_are_recovered(shape, complex_):
    rank = 3
    a = _low_rank(shape, rank, np.complex128 if complex_ else np.float64, complex_)
    tl.manual_seed(0)
    U, S, V = tl.svd_lowrank(tl.tensor(a), q=rank + 2)
    u, s, v = U.numpy(), S.numpy(), V.numpy()
    recon = u @ (s[..., :, None] * np.swapaxes(v.conj(), -1, -2))
    np.testing.assert_allclose(recon, a, atol=1e-8)
    exact = np.linalg.svd(a, compute_uv=False)[..., :rank + 2]
    np.testing.assert_allclose(s, exact, atol=1e-8)
    eye = np.broadcast_to(np.eye(rank + 2), s.shape[:-1] + (rank + 2, rank + 2))
    for f in (u, v):
        np.testing.assert_allclose(np.swapaxes(f.conj(), -1, -2) @ f, eye, atol=1e-10)


def test_full_rank_approximation_is_near_the_best():
    """For a matrix with decaying spectrum the error of the rank-q approximation is close
    to the optimal one (the (q+1)-th singular value), as Halko et al. bound it."""
    u, _ = np.linalg.qr(RNG.standard_normal((60, 40)))
    v, _ = np.linalg.qr(RNG.standard_normal((40, 40)))
    sv = 0.5 ** np.arange(40)
    a = (u * sv) @ v.T
    tl.manual_seed(1)
    U, S, V = tl.svd_lowrank(tl.tensor(a), q=8, niter=2)
    err = np.linalg.norm(a - U.numpy() @ np.diag(S.numpy()) @ V.numpy().T, 2)
    assert err < 10 * sv[8]
    np.testing.assert_allclose(S.numpy()[:5], sv[:5], rtol=1e-6)


def test_mean_argument_and_pca_centering():
    a = _low_rank((30, 8), 2) + RNG.standard_normal(8) * 5
    mean = a.mean(0, keepdims=True)
    tl.manual_seed(0)
    U, S, V = tl.svd_lowrank(tl.tensor(a), q=4, M=tl.tensor(mean))
    centered = a - mean
    np.testing.assert_allclose(U.numpy() @ np.diag(S.numpy()) @ V.numpy().T, centered,
                               atol=1e-8)
    U2, S2, V2 = tl.pca_lowrank(tl.tensor(a), q=4)
    np.testing.assert_allclose(S2.numpy(), S.numpy(), atol=1e-8)
    # the principal directions are the exact SVD's right singular vectors, up to sign
    exact_v = np.linalg.svd(centered)[2][:2].T
    got = V2.numpy()[:, :2]
    np.testing.assert_allclose(np.abs(np.sum(got * exact_v, 0)), 1, atol=1e-8)
    # without centering pca_lowrank is svd_lowrank of A itself
    _, S3, _ = tl.pca_lowrank(tl.tensor(a), q=3, center=False)
    np.testing.assert_allclose(S3.numpy(), np.linalg.svd(a, compute_uv=False)[:3],
                               rtol=1e-6)


def test_repeatable_with_manual_seed_and_float32():
    a = tl.tensor(RNG.standard_normal((3, 20, 10)).astype(np.float32))
    tl.manual_seed(5)
    first = tl.svd_lowrank(a, q=4)
    tl.manual_seed(5)
    again = tl.svd_lowrank(a, q=4)
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert all(t.dtype == tl.float32 for t in first)


def test_gradient_of_singular_values():
    """d(sum of singular values)/dA = U V^T on an exactly rank-q matrix, in both."""
    a = _low_rank((7, 5), 3)
    x = tl.tensor(a, requires_grad=True)
    tl.manual_seed(0)
    _, S, _ = tl.svd_lowrank(x, q=3)
    (g,) = tl.autograd.grad(S.sum(), x)
    u, s, vt = np.linalg.svd(a)
    np.testing.assert_allclose(g.numpy(), u[:, :3] @ vt[:3], atol=1e-8)
    if HAVE_TORCH:
        xt = torch.tensor(a, requires_grad=True)
        (gt,) = torch.autograd.grad(torch.svd_lowrank(xt, q=3)[1].sum(), xt)
        np.testing.assert_allclose(g.numpy(), gt.numpy(), atol=1e-8)


@pytest.mark.parametrize("exc, kind, shape, dtype, kw", [
    (ValueError, "pca", (3, 10, 7), np.float32, dict(q=8)),
    (ValueError, "pca", (3, 10, 7), np.float32, dict(q=-1)),
    (ValueError, "pca", (3, 10, 7), np.float32, dict(niter=-1)),
    (ValueError, "pca", (5,), np.float32, dict()),
    (ValueError, "svd", (5,), np.float32, dict()),
    (RuntimeError, "svd", (3, 10, 7), np.float32, dict(q=-1)),
    (RuntimeError, "svd", (4, 5), np.int64, dict(q=3)),
    (RuntimeError, "pca", (4, 5), np.int64, dict()),
])
def test_errors(exc, kind, shape, dtype, kw):
    a = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)

    def call(fw):
        f = fw.svd_lowrank if kind == "svd" else fw.pca_lowrank
        return lambda: f(fw.tensor(a), **kw)

    same_error(call(tl), call(torch) if HAVE_TORCH else None, exc, match_text=True)


# -- lobpcg ----------------------------------------------------------------------------
def _spd(m, batch=(), seed=0):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((*batch, m, m)))
    ev = np.arange(1, m + 1, dtype=np.float64) * (1 + 0.1 * rng.random((*batch, 1)))
    return (q * ev[..., None, :]) @ np.swapaxes(q, -1, -2)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenpairs(method, largest):
    a = _spd(12)
    tl.manual_seed(0)
    E, X = tl.lobpcg(tl.tensor(a), k=2, largest=largest, method=method)
    assert tuple(E.shape) == (2,) and tuple(X.shape) == (12, 2) and E.dtype == tl.float64
    ev = np.linalg.eigvalsh(a)
    np.testing.assert_allclose(E.numpy(), ev[::-1][:2] if largest else ev[:2], rtol=1e-6)
    x = X.numpy()
    np.testing.assert_allclose(a @ x, x * E.numpy(), atol=1e-5)
    if HAVE_TORCH:
        Et, Xt = torch.lobpcg(torch.tensor(a), k=2, largest=largest, method=method)
        np.testing.assert_allclose(E.numpy(), Et.numpy(), rtol=1e-6)
        assert _meta((E, X)) == _meta((Et, Xt))


def test_lobpcg_generalized_batched_and_initial_x():
    a, b = _spd(12, (2,)), _spd(12, (2,), seed=1)
    x0 = RNG.standard_normal((2, 12, 3))
    E, X = tl.lobpcg(tl.tensor(a), B=tl.tensor(b), X=tl.tensor(x0), k=2)
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 12, 2)
    for i in range(2):
        ev = np.sort(np.linalg.eigvals(np.linalg.solve(b[i], a[i])).real)[::-1]
        np.testing.assert_allclose(E.numpy()[i], ev[:2], rtol=1e-6)
    if HAVE_TORCH:
        Et, Xt = torch.lobpcg(torch.tensor(a), B=torch.tensor(b), X=torch.tensor(x0), k=2)
        assert _meta((E, X)) == _meta((Et, Xt))
        np.testing.assert_allclose(E.numpy(), Et.numpy(), rtol=1e-6)


def test_lobpcg_float32_tracker_and_force_stop():
    a = _spd(10).astype(np.float32)
    steps = []

    def tracker(worker):
        steps.append(worker.ivars["istep"])
        worker.bvars["force_stop"] = worker.ivars["istep"] >= 2

    E, X = tl.lobpcg(tl.tensor(a), k=1, tracker=tracker, niter=-1)
    assert steps == [1, 2] and E.dtype == tl.float32


def test_lobpcg_gradient():
    """d(sum of the k largest eigenvalues)/dA = X X^T, as PyTorch's backward gives."""
    a = _spd(12)
    x = tl.tensor(a, requires_grad=True)
    E, X = tl.lobpcg(x, k=2)
    (g,) = tl.autograd.grad(E.sum(), x)
    v = np.linalg.eigh(a)[1][:, ::-1][:, :2]
    np.testing.assert_allclose(g.numpy(), v @ v.T, atol=1e-6)
    if HAVE_TORCH:
        xt = torch.tensor(a, requires_grad=True)
        (gt,) = torch.autograd.grad(torch.lobpcg(xt, k=2)[0].sum(), xt)
        np.testing.assert_allclose(g.numpy(), gt.numpy(), atol=1e-6)


@pytest.mark.parametrize("exc, shape, kw", [
    (ValueError, (6, 6), dict(k=3)),
    (AssertionError, (6, 7), dict()),
])
def test_lobpcg_errors(exc, shape, kw):
    a = np.eye(*shape)

    def call(fw):
        return lambda: fw.lobpcg(fw.tensor(a), **kw)

    same_error(call(tl), call(torch) if HAVE_TORCH else None, exc, match_text=True)
    b = tl.tensor(_spd(12), requires_grad=True)
    E, _ = tl.lobpcg(b, B=tl.eye(12, dtype=tl.float64), k=1)
    with pytest.raises(ValueError, match="does not support backward with B != I"):
        E.sum().backward()
