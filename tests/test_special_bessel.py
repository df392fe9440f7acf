"""``torch.special``'s Bessel functions and orthogonal polynomials
(torchlike/_ops/special_bessel.py) over grids of edge values: zeros, the points where
PyTorch's kernels switch formulas, negative and large arguments, infinities and NaN;
for the polynomials |x| == 1, x == 0 and 1 (the shifted ones), negative, fractional,
large, infinite and NaN orders. Values PyTorch documents or that follow from the
definitions are checked without PyTorch too; where it is installed, every grid is
compared with it. Each function compiles once per dtype here (one grid per call)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, raises_in_both, torch

NAN, INF = float("nan"), float("inf")

UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]
CHEBYSHEV = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
             "chebyshev_polynomial_w"]
SHIFTED = ["shifted_" + n for n in CHEBYSHEV]
OTHERS = ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
          "legendre_polynomial_p"]
POLYNOMIALS = CHEBYSHEV + SHIFTED + OTHERS

# the branch points of PyTorch's kernels (2.09 and 8.3203353: airy_ai; 5: j and y; 2
# and 8: i and k; 0.5: spherical_bessel_j0; 103.892: airy_ai's underflow), with their
# neighbours, zeros of the functions, tiny, huge and non-finite arguments
_EDGES = [0.0, -0.0, 1e-30, 1e-6, -1e-6, 1e-5, 0.4999, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0,
          2.0001, 2.09, -2.09, -2.0901, 2.4048255, 3.8317060, 0.8935769, -2.3381074, 5.0,
          -5.0, 5.0001, 8.0, -8.0, 8.0001, 8.3203353, 30.0, 103.892, 104.0, 700.0, -700.0,
          1e4, -1e4, 1e10, 1e30, INF, -INF, NAN]
UNARY_GRID = np.concatenate([_EDGES, np.linspace(-40.0, 40.0, 321),
                             np.geomspace(1e-7, 1e3, 60)])

# the relative error allowed, and the absolute error near zeros of the oscillating
# functions (their values there come from a cancellation, in which glibc's and XLA's
# sin, cos and float64 acos differ by an ulp of the terms)
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


def _check(got, ref, dtype, where=""):
    """Same dtype and shape, NaN and infinities where ``ref`` has them, values close."""
    got = got.detach().numpy()
    ref = np.asarray(ref)
    assert str(got.dtype) == dtype and got.shape == ref.shape, (got.dtype, got.shape)
    rtol = TOL[dtype][0]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref), err_msg=f"NaN {where}")
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)],
                                  err_msg=f"inf {where}")
    atol = TOL[dtype][1]
    err = np.where(fin, np.abs(got.astype(np.float64) - np.where(fin, ref, 0)), 0)
    allowed = np.where(fin, atol + rtol * np.abs(np.where(fin, ref, 0)), 0)
    worst = np.unravel_index(np.argmax(err - allowed), ref.shape) if ref.size else ()
    assert (err <= allowed).all(), \
        f"{where}: {got[worst]} vs {ref[worst]} at {worst}, allowed {allowed[worst]:.3g}"


# values that hold without PyTorch: PyTorch's at 0 and at infinities, and its float32
# rounding of I0(0) (its Chebyshev series gives 0.99999994)
KNOWN = {
    "airy_ai": ([0.0, INF, -INF, NAN, 104.0], [0.35502806, NAN, NAN, NAN, 0.0]),
    "bessel_j0": ([0.0, -0.0, 2.4048255], [1.0, 1.0, 0.0]),
    "bessel_j1": ([0.0, -0.0, 1.0, -1.0], [0.0, -0.0, 0.44005059, -0.44005059]),
    "bessel_y0": ([0.0, -1.0, 1.0], [-INF, NAN, 0.08825696]),
    "bessel_y1": ([0.0, -1.0, 1.0], [-INF, NAN, -0.78121282]),
    "modified_bessel_i0": ([0.0, 1.0, -1.0], [0.99999994, 1.2660659, 1.2660659]),
    "modified_bessel_i1": ([0.0, 1.0, -1.0], [0.0, 0.5651591, -0.5651591]),
    "modified_bessel_k0": ([0.0, -1.0, 1.0, INF], [INF, NAN, 0.42102444, 0.0]),
    "modified_bessel_k1": ([0.0, -1.0, 1.0, INF], [INF, NAN, 0.60190723, 0.0]),
    "scaled_modified_bessel_k0": ([0.0, -1.0, 1.0], [INF, NAN, 1.1444631]),
    "scaled_modified_bessel_k1": ([0.0, -1.0, 1.0], [INF, NAN, 1.6361535]),
    "spherical_bessel_j0": ([0.0, INF, -INF, 1e-6], [1.0, 0.0, 0.0, 1.0]),
}


def _known(name, x, got):
    """The KNOWN values of ``name`` among the float32 results ``got`` at ``x``."""
    pts, want = KNOWN[name]
    idx = [int(np.flatnonzero((x == p) & (np.signbit(x) == np.signbit(p)) if p == p
                              else np.isnan(x))[0]) for p in pts]
    got = got[idx]
    np.testing.assert_allclose(got, np.array(want, np.float32), rtol=2e-6, atol=2e-7)
    signed = [w == 0.0 and (v == 0.0 or abs(v) > 100) for v, w in zip(pts, want)]
    np.testing.assert_array_equal(np.signbit(got)[signed], np.signbit(want)[signed])


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_pytorch(name):
    for dtype in ("float32", "float64"):
        x = UNARY_GRID.astype(dtype)
        got = getattr(tl.special, name)(tl.tensor(x))
        assert got.dtype is getattr(tl, dtype) and tuple(got.shape) == x.shape
        if dtype == "float32":
            _known(name, x, got.numpy())
        if HAVE_TORCH:
            ref = getattr(torch.special, name)(torch.tensor(x)).numpy()
            _check(got, ref, dtype, f"{name} {dtype}")


# x down the rows, n along the columns: one call per dtype
_X = {"chebyshev": [-3.0, -1.5, -1.0001, -1.0, -0.999, -0.7, -0.5, -1e-3, 0.0, 1e-3, 0.3, 0.5,
                    0.7071068, 0.9, 0.999, 1.0, 1.0001, 1.5, 3.0, 1e30, INF, -INF, NAN],
      "shifted": [-1.0, -0.5, -1e-3, 0.0, 1e-3, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 0.999, 1.0,
                  1.0001, 1.5, 3.0, INF, -INF, NAN],
      "other": [-10.0, -3.0, -1.5, -1.0, -0.999, -0.5, -1e-3, 0.0, 1e-3, 0.3, 0.5, 0.999, 1.0,
                1.5, 2.0, 5.0, 20.0, INF, -INF, NAN]}
_N = [-3.0, -1.0, -0.5, 0.0, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
      15.0, 25.0, 60.0, 127.0, 128.0, 129.0, 511.0, 512.0, 513.0, 1000.0, 1e30, NAN, INF, -INF]


def _poly_x(name):
    return _X["chebyshev" if name in CHEBYSHEV else "shifted" if name in SHIFTED else "other"]


# the order-3 polynomials, and the values at x == 1
def _y(x):
    return 2 * x - 1


CUBIC = {
    "chebyshev_polynomial_t": lambda x: 4 * x ** 3 - 3 * x,
    "chebyshev_polynomial_u": lambda x: 8 * x ** 3 - 4 * x,
    "chebyshev_polynomial_v": lambda x: 8 * x ** 3 - 4 * x ** 2 - 4 * x + 1,
    "chebyshev_polynomial_w": lambda x: 8 * x ** 3 + 4 * x ** 2 - 4 * x - 1,
    "hermite_polynomial_h": lambda x: 8 * x ** 3 - 12 * x,
    "hermite_polynomial_he": lambda x: x ** 3 - 3 * x,
    "laguerre_polynomial_l": lambda x: (-x ** 3 + 9 * x ** 2 - 18 * x + 6) / 6,
    "legendre_polynomial_p": lambda x: (5 * x ** 3 - 3 * x) / 2,
}
CUBIC.update({"shifted_" + n: (lambda f: lambda x: f(_y(x)))(CUBIC[n]) for n in CHEBYSHEV})
AT_ONE = {"t": lambda n: 1.0, "u": lambda n: n + 1, "v": lambda n: 1.0,
          "w": lambda n: 2 * n + 1, "p": lambda n: 1.0}


def _known_polynomial(name, x, n, got):
    """Without PyTorch too: order 3 against its closed form, the values at x == 1,
    orders that are negative, NaN, infinite or beyond int64 (0) and truncated
    fractional orders."""
    col = {v: i for i, v in reversed(list(enumerate(n[0].tolist()))) if v == v}
    fin = np.isfinite(x[:, 0]) & (np.abs(x[:, 0]) <= 20)
    np.testing.assert_allclose(got[fin, col[3.0]], CUBIC[name](x[fin, 0]), rtol=1e-9,
                               atol=1e-9)
    for bad in (-3.0, -1.0, 1e30, INF, -INF):
        np.testing.assert_array_equal(got[:, col[bad]], 0.0)
    assert (got[:, np.isnan(n[0])] == 0).all()
    np.testing.assert_array_equal(got[:, col[-0.5]], got[:, col[0.0]])
    np.testing.assert_array_equal(got[:, col[1.5]], got[:, col[1.0]])
    kind = name[-1]
    if "hermite" not in name and "laguerre" not in name:
        orders = [v for v in col if 0 <= v < 1e30 and v == int(v)]
        row = int(np.flatnonzero(x[:, 0] == 1.0)[0])
        np.testing.assert_array_equal(got[row, [col[v] for v in orders]],
                                      [AT_ONE[kind](v) for v in orders])
    if "hermite" in name:    # NaN beyond order 512 in float64
        assert np.isnan(got[:, col[513.0]]).all() and not np.isnan(got[fin, col[129.0]]).any()


def _of_nan(got, n):
    """The NaN row: 0 for negative and invalid orders, 1 at order 0, NaN past it."""
    k = np.where(np.isfinite(n) & (np.abs(n) < 1e30), np.trunc(n), -1)
    np.testing.assert_array_equal(got[k < 0], 0.0)
    np.testing.assert_array_equal(got[k == 0], 1.0)
    assert np.isnan(got[k >= 1]).all()


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_pytorch(name):
    """Where PyTorch's loop never runs, at a NaN x and orders from 2, it returns a
    variable it never wrote (``chebyshev_polynomial_u(nan, 2)`` is 3e38,
    ``legendre_polynomial_p(nan, 2)`` 5e-41) and torchlike NaN: those are not compared."""
    for dtype in ("float32", "float64"):
        x = np.array(_poly_x(name), dtype)[:, None]
        n = np.array(_N, dtype)[None]
        got = getattr(tl.special, name)(tl.tensor(x), tl.tensor(n))
        assert got.dtype is getattr(tl, dtype) and tuple(got.shape) == (x.size, n.size)
        _of_nan(got.numpy()[-1], n[0])
        if dtype == "float64":
            _known_polynomial(name, x, n, got.numpy())
        if HAVE_TORCH:
            ref = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
            unwritten = np.isnan(x) & (np.isfinite(n) & (n >= 2) & (n < 1e30))
            ref[unwritten] = got.numpy()[unwritten]
            _check(got, ref, dtype, f"{name} {dtype}")


def test_dtypes_and_broadcasting_as_pytorch():
    """Integral inputs compute in the default float dtype, a Python-number order takes the
    tensor's dtype, a float64 order tensor promotes a float32 x (a 0-d one does not)."""
    cases = [
        lambda m: m.special.bessel_j0(m.tensor([1, 2, 3])),
        lambda m: m.special.hermite_polynomial_he(m.tensor([1, 2]), 2.5),
        lambda m: m.special.hermite_polynomial_he(0.5, m.tensor([1, 7, 9])),
        lambda m: m.special.hermite_polynomial_he(m.tensor([[0.5], [0.2]]),
                                                  m.tensor([1.0, 3.0], dtype=m.float64)),
        lambda m: m.special.hermite_polynomial_he(x=m.tensor([0.5, 0.2]),
                                                  n=m.tensor(3.0, dtype=m.float64)),
    ]
    want = ["float32", "float32", "float32", "float64", "float32"]
    for case, dtype in zip(cases, want):
        got = case(tl)
        assert str(got.dtype) == "torchlike." + dtype
        if HAVE_TORCH:
            ref = case(torch)
            assert str(ref.dtype) == "torch." + dtype and tuple(ref.shape) == tuple(got.shape)
            np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6)


# the next tests call the functions on the grids' shapes and dtypes, whose executables
# the parity tests above compiled already
def _grids(m, requires_grad=False):
    x = m.tensor(UNARY_GRID.astype("float32"), requires_grad=requires_grad)
    px = m.tensor(np.array(_X["chebyshev"], "float32")[:, None], requires_grad=requires_grad)
    pn = m.tensor(np.array(_N, "float32")[None])
    return x, px, pn


def test_results_do_not_require_grad():
    """PyTorch declares these functions non-differentiable: no grad_fn."""
    def run(m):
        x, px, pn = _grids(m, requires_grad=True)
        outs = [m.special.bessel_j0(x), m.special.airy_ai(x),
                m.special.chebyshev_polynomial_t(px, pn)]
        return [(o.requires_grad, o.grad_fn) for o in outs]
    assert run(tl) == [(False, None)] * 3
    if HAVE_TORCH:
        assert run(torch) == [(False, None)] * 3


def test_out_casts_like_pytorch():
    def run(m):
        x, px, pn = _grids(m)
        out, out2 = m.empty(0, dtype=m.float64), m.empty(0, dtype=m.float64)
        assert m.special.modified_bessel_k1(x, out=out) is out
        assert m.special.chebyshev_polynomial_t(px, pn, out=out2) is out2
        return [out.numpy(), out2.numpy()]
    got = run(tl)
    assert got[0].dtype == got[1].dtype == np.float64 and got[1].shape == (len(_X["chebyshev"]),
                                                                           len(_N))
    if HAVE_TORCH:
        for a, b in zip(got, run(torch)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    raises_in_both(lambda m: m.special.bessel_y1(_grids(m)[0],
                                                 out=m.empty(0, dtype=m.int64)), RuntimeError)


def test_compiled_with_a_traced_order():
    """The recurrences loop over a traced ``n``: the same values inside torchlike.compile."""
    def f(x, n):
        return tl.special.hermite_polynomial_he(x, n) * 2
    _, x, n = _grids(tl)
    np.testing.assert_array_equal(tl.compile(f)(x, n).numpy(), f(x, n).numpy())


@pytest.mark.parametrize("name", ["bessel_j0", "airy_ai", "scaled_modified_bessel_k1"])
def test_unary_errors(name):
    for dtype in ("complex64", "float16", "bfloat16"):
        raises_in_both(lambda m: getattr(m.special, name)(m.ones(2, dtype=getattr(m, dtype))),
                       NotImplementedError)
    raises_in_both(lambda m: getattr(m.special, name)(1.5), TypeError)


@pytest.mark.parametrize("name", ["chebyshev_polynomial_t", "hermite_polynomial_h"])
def test_polynomial_errors(name):
    def f(m):
        return getattr(m.special, name)
    raises_in_both(lambda m: f(m)(m.ones(2, dtype=m.complex64), 2), NotImplementedError)
    raises_in_both(lambda m: f(m)(m.ones(2), m.ones(2, dtype=m.complex128)), NotImplementedError)
    raises_in_both(lambda m: f(m)(m.ones(2, dtype=m.float16), 2), NotImplementedError)
    raises_in_both(lambda m: f(m)(m.ones(2), m.ones(3)), RuntimeError)
    raises_in_both(lambda m: f(m)(2.0, 3), TypeError)
