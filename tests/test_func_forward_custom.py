"""Forward mode (``func.jvp``, ``jacfwd``, ``hessian``, ``autograd.forward_ad``) through the
kernels that carry PyTorch's gradient conventions (Note [Tangent rules as the transpose
of the VJP]): amax/amin, full max/min/median, norms, nansum/nanmean, as_strided,
antialiased interpolation, householder_product and cholesky_inverse (cholesky_solve by
dual tensors only), against ``torch.func`` on ordinary inputs and at ties, zeros and
NaNs; and their reverse mode against torchlike's own forward mode, so that the two stay
transposes of each other without PyTorch too."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, torch

RNG = np.random.default_rng(0)
TIES = np.array([[1., 3, 3, 2], [2, 2, 0, 2], [5, 1, 5, 5]])
NAN = np.array([1., np.nan, 3., 2.])
SPD_L = np.linalg.cholesky(2 * np.eye(3) + 0.1)


def _vn(m, ord, **kw):
    return lambda a: m.linalg.vector_norm(a, ord, **kw)


# name -> (function of the library, input arrays); each function maps tensors to one
# tensor
CASES = {
    "amax_dim_ties": (lambda m: lambda a: a.amax(1), [TIES]),
    "amin_dims_ties": (lambda m: lambda a: a.amin((0, 1), keepdim=True), [TIES]),
    "amax_nan": (lambda m: lambda a: a.amax(), [NAN]),
    "amax_random": (lambda m: lambda a: a.amax(0), [RNG.standard_normal((3, 4))]),
    "max_ties": (lambda m: lambda a: a.max(), [TIES]),
    "min_ties": (lambda m: lambda a: a.min(), [TIES]),
    "aminmax_ties": (lambda m: lambda a: m.aminmax(a, dim=1)[1], [TIES]),
    "median_ties": (lambda m: lambda a: a.median(), [np.array([1., 2, 2, 3, 2])]),
    "nanmedian_nan": (lambda m: lambda a: a.nanmedian(), [np.array([1., np.nan, 2, 2])]),
    "norm": (lambda m: lambda a: a.norm(), [RNG.standard_normal((3, 4))]),
    "norm_zero": (lambda m: lambda a: a.norm(), [np.zeros((2, 3))]),
    "norm_dim_zero_row": (lambda m: lambda a: a.norm(dim=1),
                          [np.array([[0., 0, 0], [1, -2, 2]])]),
    "vector_norm_1_zero": (lambda m: _vn(m, 1), [np.array([0., 1, -2])]),
    "vector_norm_3": (lambda m: _vn(m, 3), [RNG.standard_normal(5)]),
    "vector_norm_3_zero": (lambda m: _vn(m, 3), [np.zeros(4)]),
    "vector_norm_half_zero": (lambda m: _vn(m, 0.5), [np.array([0., 1, -2])]),
    "vector_norm_1.5_dim": (lambda m: _vn(m, 1.5, dim=0), [RNG.standard_normal((4, 2))]),
    "vector_norm_inf_ties": (lambda m: _vn(m, math.inf), [np.array([1., -3, 3, 2])]),
    "vector_norm_-inf_ties": (lambda m: _vn(m, -math.inf), [np.array([1., -1, 3])]),
    "vector_norm_0": (lambda m: _vn(m, 0), [np.array([0., 1, -2])]),
    "nansum": (lambda m: lambda a: a.nansum(1), [np.array([[1., np.nan], [2, 3]])]),
    "nanmean": (lambda m: lambda a: a.nanmean(), [NAN]),
    "as_strided": (lambda m: lambda a: a.as_strided((2, 3), (1, 2), 1),
                   [RNG.standard_normal(8)]),
    "as_strided_view": (lambda m: lambda a: a.t().as_strided((2, 2), (1, 3)),
                        [RNG.standard_normal((4, 3))]),
    "interpolate_aa": (lambda m: lambda a: m.nn.functional.interpolate(
        a, size=(2, 3), mode="bilinear", antialias=True),
        [RNG.standard_normal((1, 1, 4, 5))]),
    "householder_product": (lambda m: m.linalg.householder_product,
                            [RNG.standard_normal((4, 3)), RNG.standard_normal(3)]),
}

# cholesky_solve keeps its jax.custom_vjp (its second derivative needs the whole-matrix
# formula): no func.jvp/jacfwd, but eager dual tensors take the transpose of its VJP
DUAL_ONLY = {
    "cholesky_solve": (lambda m: m.cholesky_solve, [RNG.standard_normal((3, 2)), SPD_L]),
    "cholesky_solve_upper": (lambda m: lambda b, u: m.cholesky_solve(b, u, upper=True),
                             [RNG.standard_normal((3, 2)), SPD_L.T.copy()]),
}


def _parity(fn):
    out = fn(tl)
    if HAVE_TORCH:
        assert_same(out, fn(torch), rtol=1e-6, atol=1e-9)
    return out


def _tensors(m, arrays):
    return [m.tensor(a) for a in arrays]


@pytest.mark.parametrize("name", CASES)
def test_jacfwd(name):
    make, arrays = CASES[name]
    argnums = tuple(range(len(arrays)))
    _parity(lambda m: m.func.jacfwd(make(m), argnums=argnums)(*_tensors(m, arrays)))


@pytest.mark.parametrize("name", CASES)
def test_jvp(name):
    make, arrays = CASES[name]
    tangents = [RNG.standard_normal(a.shape) for a in arrays]
    _parity(lambda m: m.func.jvp(make(m), tuple(_tensors(m, arrays)),
                                 tuple(_tensors(m, tangents))))


@pytest.mark.parametrize("name", [n for n in CASES if n != "amax_nan"])
def test_reverse_is_the_transpose_of_forward(name):
    """jacrev (the custom VJP's conventions) equals jacfwd: one linear map both ways."""
    make, arrays = CASES[name]
    argnums = tuple(range(len(arrays)))
    fwd = tl.func.jacfwd(make(tl), argnums=argnums)(*_tensors(tl, arrays))
    rev = tl.func.jacrev(make(tl), argnums=argnums)(*_tensors(tl, arrays))
    for a, b in zip(fwd, rev):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-15)


def test_amax_nan_is_nan_both_ways():
    """PyTorch's amaxamin_jvp and scale_grad_by_count both give NaN where the maximum is
    NaN."""
    x = tl.tensor(NAN)
    assert np.isnan(tl.func.jacfwd(lambda a: a.amax())(x).numpy()).all()
    assert np.isnan(tl.func.jacrev(lambda a: a.amax())(x).numpy()).all()


SCALAR = {
    "norm": (lambda m: lambda a: a.norm(), RNG.standard_normal(4)),
    "norm_3": (lambda m: _vn(m, 3), RNG.standard_normal(4)),
    "norm_1": (lambda m: lambda a: a.norm(p=1), RNG.standard_normal(4)),
    "norm_inf_ties": (lambda m: _vn(m, math.inf), np.array([1., -3, 3, 2])),
    "norm_of_amax": (lambda m: lambda a: a.amax(0).norm(), TIES),
    "max_ties_squared": (lambda m: lambda a: a.max() ** 2, TIES),
    "median_times_sum": (lambda m: lambda a: a.median() * a.sum(),
                         np.array([1., 2, 2, 3, 2])),
    "nansum_squares": (lambda m: lambda a: (a * a).nansum(), NAN),
}


@pytest.mark.parametrize("name", SCALAR)
def test_hessian(name):
    make, x = SCALAR[name]
    _parity(lambda m: m.func.hessian(make(m))(m.tensor(x)))


def test_autograd_functional_hessian_by_forward_mode():
    x = RNG.standard_normal(3)
    _parity(lambda m: m.autograd.functional.hessian(lambda a: a.norm(), m.tensor(x),
                                                    outer_jacobian_strategy="forward-mode",
                                                    vectorize=True))


def test_linearize():
    x, t = TIES, RNG.standard_normal(TIES.shape)
    out, jvp_fn = tl.func.linearize(lambda a: a.amax(1), tl.tensor(x))
    got = jvp_fn(tl.tensor(t))
    want = tl.func.jvp(lambda a: a.amax(1), (tl.tensor(x),), (tl.tensor(t),))[1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    if HAVE_TORCH:
        assert_same(got, torch.func.jvp(lambda a: a.amax(1), (torch.tensor(x),),
                                        (torch.tensor(t),))[1])


@pytest.mark.parametrize("name", ["amax_dim_ties", "max_ties", "norm_zero",
                                  "vector_norm_inf_ties", "cholesky_solve",
                                  "cholesky_solve_upper"])
def test_forward_ad_dual_tensors(name):
    make, arrays = {**CASES, **DUAL_ONLY}[name]
    tangents = [RNG.standard_normal(a.shape) for a in arrays]

    def run(m):
        ad = m.autograd.forward_ad
        with ad.dual_level():
            duals = [ad.make_dual(m.tensor(p), m.tensor(t)) for p, t in zip(arrays, tangents)]
            p, t = ad.unpack_dual(make(m)(*duals))
            return p.clone(), t.clone()
    _parity(run)


def test_cholesky_inverse_forward_is_its_derivative():
    """cholesky_inverse's tangent is the transpose of PyTorch's backward, the derivative
    of (L L^H)^-1 (PyTorch's own forward formula gives other values: compared here with
    the derivative of the formula, and with torch.func.jacrev)."""
    L, T = SPD_L, np.tril(RNG.standard_normal((3, 3)))
    got = tl.func.jvp(tl.cholesky_inverse, (tl.tensor(L),), (tl.tensor(T),))[1]
    want = tl.func.jvp(lambda a: tl.linalg.inv(a @ a.mT), (tl.tensor(L),), (tl.tensor(T),))[1]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    jf = tl.func.jacfwd(tl.cholesky_inverse)(tl.tensor(L))
    if HAVE_TORCH:
        assert_same(jf, torch.func.jacrev(torch.cholesky_inverse)(torch.tensor(L)),
                    rtol=1e-6, atol=1e-9)


def test_gradients_keep_pytorchs_conventions():
    """Reverse mode, now JAX's transpose of the tangent rules, keeps the custom VJPs'
    values, infinite cotangents included."""
    x = tl.tensor(TIES, requires_grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0], [0, 0.5, 0.5, 0])
    z = tl.zeros(3, requires_grad=True)
    z.norm().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0, 0, 0])
    n = tl.tensor(NAN, requires_grad=True)
    n.nansum().backward(tl.tensor(math.inf))
    np.testing.assert_array_equal(n.grad.numpy(), [math.inf, math.nan, math.inf, math.inf])
    a = tl.tensor(NAN, requires_grad=True)
    a.amax().backward()
    assert np.isnan(a.grad.numpy()).all()
