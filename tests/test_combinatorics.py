"""``isin``, ``cartesian_prod``, ``combinations``, ``block_diag``, ``vander``,
``trapezoid``/``trapz``, ``cumulative_trapezoid`` and ``unravel_index``, compared with
PyTorch (values, dtypes, shapes, gradients, ``grad_fn`` names, errors) and with NumPy /
``itertools`` references, which still run where PyTorch is absent. The op table's
samples of these ops run in test_op_table.py as well."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, outcome, same_error, torch




def _tensors(mod, arrays, grad: bool):
    out = []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            out.append(a)
            continue
        t = mod.tensor(a)
        if grad and (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype,
                                                                          np.complexfloating)):
            t.requires_grad_(True)
        out.append(t)
    return out


def _outs(out):
    return list(out) if isinstance(out, tuple) else [out]


def _node_name(t):
    if t.grad_fn is None:
        return None
    n = t.grad_fn.name() if hasattr(t.grad_fn, "name") else type(t.grad_fn).__name__
    return n


def check(f, *arrays, grad: bool = True, grad_name=None, rtol=1e-5, atol=1e-6,
          same_nodes: bool = True):
    """Run ``f(module, *tensors)`` in torchlike (and PyTorch): same outputs, same
    ``grad_fn`` names (unless ``same_nodes`` is False), same gradients of a weighted
    sum. Returns torchlike's output."""
    ins = _tensors(tl, arrays, grad)
    out = f(tl, *ins)
    leaves = [t for t in ins if isinstance(t, tl.Tensor) and t.requires_grad]
    outs = [o for o in _outs(out) if o.requires_grad]
    if grad_name is not None:
        assert {_node_name(o) for o in outs} == ({grad_name} if outs else set())
    rng = np.random.default_rng(0)
    weights = [rng.uniform(0.5, 1.5, tuple(o.shape)) for o in outs]
    grads = []
    if outs and leaves:
        loss = sum((o.to(tl.float64) * tl.tensor(w)).sum() for o, w in zip(outs, weights))
        grads = tl.autograd.grad(loss, leaves, allow_unused=True)
        for g, leaf in zip(grads, leaves):
            assert g is None or tuple(g.shape) == tuple(leaf.shape)
    if not HAVE_TORCH:
        return out
    tins = _tensors(torch, arrays, grad)
    ref = f(torch, *tins)
    assert_same(out, ref, rtol, atol)
    touts = [o for o in _outs(ref) if o.requires_grad]
    assert len(touts) == len(outs), "a different number of outputs requires grad"
    for o, r in zip(outs, touts):
        assert _node_name(o) == type(r.grad_fn).__name__ or not same_nodes
    tleaves = [t for t in tins if isinstance(t, torch.Tensor) and t.requires_grad]
    if touts and tleaves:
        rloss = sum((o.to(torch.float64) * torch.tensor(w)).sum()
                    for o, w in zip(touts, weights))
        rgrads = torch.autograd.grad(rloss, tleaves, allow_unused=True)
        for g, rg in zip(grads, rgrads):
            if rg is None:
                assert g is None or not np.asarray(g).any()
            else:
                assert_same(g, rg, max(rtol, 1e-4), max(atol, 1e-5), "grad")
    return out


def rand(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


def ints(*shape, low=-4, high=5, dtype="int64", seed=0):
    return np.random.default_rng(seed).integers(low, high, shape).astype(dtype)


# ---------------------------------------------------------------------------
# isin
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 0)])
@pytest.mark.parametrize("m", [0, 1, 3, 9, 10, 40])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_numpy(shape, m, invert):
    # test sizes around PyTorch's switch between its two algorithms (10 * n ** 0.145)
    e, t = ints(*shape, seed=1), ints(m, seed=2)
    out = check(lambda mod, a, b: mod.isin(a, b, invert=invert), e, t)
    assert out.dtype is tl.bool and tuple(out.shape) == shape
    np.testing.assert_array_equal(np.asarray(out), np.isin(e, t, invert=invert))
    uniq_e, uniq_t = np.unique(e)[:4], np.unique(t)
    out = tl.isin(tl.tensor(uniq_e), tl.tensor(uniq_t), assume_unique=True, invert=invert)
    np.testing.assert_array_equal(np.asarray(out), np.isin(uniq_e, uniq_t, invert=invert))


def test_isin_floats_nan_and_signed_zero():
    e = np.array([np.nan, 0.0, -0.0, 1.5, 2.0], np.float32)
    for t in (np.array([np.nan, 0.0], np.float32), np.array([np.nan, -0.0] * 6, np.float32),
              np.array([2.0, 1.5, 0.0] * 4, np.float64)):
        for inv in (False, True):
            out = check(lambda mod, a, b: mod.isin(a, b, invert=inv), e, t)
            np.testing.assert_array_equal(np.asarray(out), np.isin(e, t, invert=inv))
            check(lambda mod, a, b: mod.isin(a, b, assume_unique=True, invert=inv), e, t)
    out = check(lambda mod, a: mod.isin(a, float("nan")), e)
    assert not np.asarray(out).any()


def test_isin_promotion_follows_each_algorithm():
    f32, f64 = np.float32, np.float64
    cases = [(np.array(0.1, f64), np.full(3, 0.1, f32)),     # result_type: float32
             (np.array(0.1, f64), np.full(12, 0.1, f32)),    # sorting: float64
             (np.array([0.1], f64), np.full(3, 0.1, f32)),
             (0.1, np.full(3, 0.1, f32)), (0.1, np.full(12, 0.1, f32)),
             (258, np.full(3, 2, np.uint8)), (258, np.full(12, 2, np.uint8)),
             (np.array([255, 2], np.uint8), -1), (np.array([1, 2], np.uint8),
                                                  np.array([-1, 1], np.int8)),
             (np.array([3], np.int32), 2 ** 40), (2 ** 40, np.array([3], np.int32)),
             (2.5, np.array([2, 3])), (np.array([1, 2, 3]), 2.0), (2, np.array([2, 5]))]
    for e, t in cases:
        check(lambda mod, a, b: mod.isin(a, b), e, t)
    assert tl.isin(tl.tensor(0.1, dtype=tl.float64), tl.full((3,), 0.1)).item() is True
    assert tl.isin(tl.tensor(0.1, dtype=tl.float64), tl.full((12,), 0.1)).item() is False
    assert tl.isin(2, tl.tensor([2, 5])).shape == ()
    big = np.array([16777217])
    for default in (tl.float32, tl.float64):
        tl.set_default_dtype(default)
        if HAVE_TORCH:
            torch.set_default_dtype(getattr(torch, default.name))
        try:
            out = check(lambda mod, a: mod.isin(a, 16777216.0), big)
            assert out.item() is (default is tl.float32)
        finally:
            tl.set_default_dtype(tl.float32)
            if HAVE_TORCH:
                torch.set_default_dtype(torch.float32)


def test_isin_assume_unique_with_duplicates():
    # PyTorch's sorting algorithm answers differently when the inputs are not unique
    e = np.array([[2, 2, 3], [1, 4, 4]])
    for t in (np.arange(5, 17), np.array([1, 1, 4] + list(range(5, 14))), np.array([1, 4])):
        for inv in (False, True):
            check(lambda mod, a, b: mod.isin(a, b, assume_unique=True, invert=inv), e, t)
    out = tl.isin(tl.tensor([2, 2, 3]), tl.arange(5, 17), assume_unique=True)
    assert out.tolist()[0] is True      # the first 2 is followed by an equal value
    assert tl.isin(tl.tensor([2, 2, 3]), tl.arange(5, 17)).tolist() == [False] * 3


def test_isin_is_not_differentiable():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = tl.isin(x, tl.tensor([2.0]))
    assert not out.requires_grad and out.grad_fn is None


def test_isin_errors():
    a = np.array([1, 2, 3])
    for e, t in [(a.astype(bool), a), (a, a.astype(bool)), (a.astype(np.complex64), a),
                 (a, a.astype(np.complex128)), (a, True), (True, a), (a, 1 + 2j),
                 (a.astype(bool), 2), (a.astype(np.complex64), 2)]:
        same_error(lambda: tl.isin(*_tensors(tl, (e, t), False)),
                   lambda: torch.isin(*_tensors(torch, (e, t), False)), RuntimeError,
                   match_text=True)
    same_error(lambda: tl.isin(2, 3), lambda: torch.isin(2, 3), TypeError)
    same_error(lambda: tl.isin(tl.tensor(a), tl.tensor(a), True),
               lambda: torch.isin(torch.tensor(a), torch.tensor(a), True), TypeError)
    same_error(lambda: tl.isin(tl.tensor(a), "x"), lambda: torch.isin(torch.tensor(a), "x"),
               TypeError)
    out = tl.isin(elements=tl.tensor(a), test_elements=tl.tensor([2]))
    assert out.tolist() == [False, True, False]


# ---------------------------------------------------------------------------
# cartesian_prod
@pytest.mark.parametrize("sizes", [(3, 2), (2, 3, 4), (1, 5), (0, 3), (3, 0, 2), (4,)])
def test_cartesian_prod(sizes):
    arrays = [rand(n, seed=i) for i, n in enumerate(sizes)]
    # (one tensor: PyTorch returns it, here a view of it; see the test below)
    out = check(lambda mod, *ts: mod.cartesian_prod(*ts), *arrays,
                grad_name="StackBackward0" if len(sizes) > 1 else None,
                same_nodes=len(sizes) > 1)
    ref = np.array(list(itertools.product(*arrays)), np.float32)
    if len(sizes) > 1:
        np.testing.assert_array_equal(np.asarray(out.detach()),
                                      ref.reshape(-1, len(sizes)))
    else:
        np.testing.assert_array_equal(np.asarray(out.detach()), arrays[0])
    for dt in ("int64", "float64", "bool", "complex64"):
        typed = [a.astype(dt) for a in arrays]
        out = check(lambda mod, *ts: mod.cartesian_prod(*ts), *typed, grad=False)
        assert out.dtype is getattr(tl, dt)


def test_cartesian_prod_of_one_tensor_aliases_it():
    # PyTorch returns the tensor itself; here a view of it: writes go both ways
    x = tl.tensor([1.0, 2.0, 3.0])
    c = tl.cartesian_prod(x)
    c[0] = 7.0
    assert x.tolist() == [7.0, 2.0, 3.0]
    x.add_(1)
    assert c.tolist() == [8.0, 3.0, 4.0]
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    out = tl.cartesian_prod(w)
    assert out.grad_fn.name() == "AliasBackward0"
    (out * tl.tensor([3.0, 4.0])).sum().backward()
    assert w.grad.tolist() == [3.0, 4.0]


def test_cartesian_prod_errors():
    a, b = rand(3), rand(2, seed=1)
    same_error(lambda: tl.cartesian_prod(tl.tensor(a), tl.tensor(b.astype(np.float64))),
               lambda: torch.cartesian_prod(torch.tensor(a), torch.tensor(b, dtype=torch.float64)),
               RuntimeError, match_text=True)
    for bad in ([a, np.array(1.0, np.float32)], [np.ones((2, 2), np.float32)],
                [np.array(1.0, np.float32)]):
        same_error(lambda: tl.cartesian_prod(*_tensors(tl, bad, False)),
                   lambda: torch.cartesian_prod(*_tensors(torch, bad, False)), RuntimeError,
                   match_text=True)
    same_error(lambda: tl.cartesian_prod(), lambda: torch.cartesian_prod(), RuntimeError,
               match_text=True)
    same_error(lambda: tl.cartesian_prod([tl.tensor(a)]),
               lambda: torch.cartesian_prod([torch.tensor(a)]), TypeError, match_text=True)
    same_error(lambda: tl.cartesian_prod(tl.tensor(a), 2),
               lambda: torch.cartesian_prod(torch.tensor(a), 2), TypeError, match_text=True)


# ---------------------------------------------------------------------------
# combinations
@pytest.mark.parametrize("n", [0, 1, 3, 5])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(n, r, with_replacement):
    x = rand(n)
    out = check(lambda mod, t: mod.combinations(t, r, with_replacement), x,
                grad_name="StackBackward0")
    if r == 0:
        assert tuple(out.shape) == (0,) and not out.requires_grad
        return
    pick = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    ref = np.array(list(pick(x, r)), np.float32).reshape(-1, r)
    np.testing.assert_array_equal(np.asarray(out.detach()), ref)


def test_combinations_dtypes_and_keywords():
    for a in (ints(4), ints(3, dtype="int32"), np.array([True, False, True]),
              rand(4, dtype="float64")):
        out = check(lambda mod, t: mod.combinations(t, r=2, with_replacement=True), a,
                    grad=False)
        assert out.dtype is tl.tensor(a).dtype
    check(lambda mod, t: mod.combinations(input=t), rand(4))


def test_combinations_errors():
    x = rand(3)
    for bad in (np.ones((2, 2), np.float32), np.array(1.0, np.float32)):
        same_error(lambda: tl.combinations(tl.tensor(bad)),
                   lambda: torch.combinations(torch.tensor(bad)), RuntimeError, match_text=True)
    same_error(lambda: tl.combinations(tl.tensor(x), -1),
               lambda: torch.combinations(torch.tensor(x), -1), RuntimeError, match_text=True)
    same_error(lambda: tl.combinations(tl.tensor(x), 2.0),
               lambda: torch.combinations(torch.tensor(x), 2.0), TypeError, match_text=True)


# ---------------------------------------------------------------------------
# block_diag
def _block_diag_ref(arrays, dtype):
    blocks = [np.reshape(a, (1, -1)) if np.ndim(a) < 2 else a for a in arrays]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), dtype)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


BLOCK_CASES = [
    ([rand(2, 2), rand(3, seed=1)], "float32"),
    ([rand(seed=2), rand(2, 3, seed=3), rand(4, seed=4)], "float32"),
    ([rand(2, 2), rand(1, 3, dtype="float64")], "float64"),
    ([ints(2), rand(2, 2)], "float32"),
    ([ints(), rand(dtype="float64")], "float64"),             # two 0-d: plain promotion
    ([ints(1), rand(dtype="float64")], "float64"),            # a 0-d float wins over ints
    ([rand(2), rand(dtype="float64")], "float32"),            # ...not over floats
    ([ints(2, 2, dtype="int32"), ints(3)], "int64"),
    ([np.array([True, False]), np.array([[True, True]])], "bool"),
    ([rand(0, 2), rand(2, 0), rand(0)], "float32"),
    ([rand(3, 2)], "float32"),
]


@pytest.mark.parametrize("arrays,dtype", BLOCK_CASES)
def test_block_diag(arrays, dtype):
    out = check(lambda mod, *ts: mod.block_diag(*ts), *arrays, grad_name="BlockDiagBackward0")
    assert out.dtype is getattr(tl, dtype)
    np.testing.assert_array_equal(np.asarray(out.detach()), _block_diag_ref(arrays, dtype))


def test_block_diag_empty_and_complex():
    out = check(lambda mod: mod.block_diag())
    assert tuple(out.shape) == (1, 0) and out.dtype is tl.float32
    tl.set_default_dtype(tl.float64)
    try:
        assert tl.block_diag().dtype is tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    out = check(lambda mod, a, b: mod.block_diag(a, b), rand(3).astype(np.complex64), ints(2),
                grad=False)
    assert out.dtype is tl.complex64


def test_block_diag_errors():
    same_error(lambda: tl.block_diag(tl.ones(2, 2, 2)), lambda: torch.block_diag(
        torch.ones(2, 2, 2)), RuntimeError, match_text=True)
    same_error(lambda: tl.block_diag(tl.ones(2), tl.ones(2, 1, 1)), lambda: torch.block_diag(
        torch.ones(2), torch.ones(2, 1, 1)), RuntimeError, match_text=True)
    same_error(lambda: tl.block_diag(tl.ones(2), 2), lambda: torch.block_diag(torch.ones(2), 2),
               TypeError, match_text=True)
    same_error(lambda: tl.block_diag([tl.ones(2)]), lambda: torch.block_diag([torch.ones(2)]),
               TypeError, match_text=True)


# ---------------------------------------------------------------------------
# vander
@pytest.mark.parametrize("N", [None, 0, 1, 2, 5])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_values(N, increasing):
    x = rand(4)
    out = check(lambda mod, t: mod.vander(t, N, increasing), x, grad=False)
    np.testing.assert_allclose(np.asarray(out), np.vander(x, N, increasing), rtol=1e-6)
    for a, dt in ((ints(4), "int64"), (ints(3, dtype="int8"), "int64"),
                  (ints(3, low=0, dtype="uint8"), "int64"), (np.array([True, False]), "int64"),
                  (rand(3, dtype="float64"), "float64"), (rand(3, dtype="float16"), "float16"),
                  (rand(3).astype(np.complex64), "complex64"), (rand(0), "float32")):
        out = check(lambda mod, t: mod.vander(t, N, increasing), a, grad=False)
        assert out.dtype is getattr(tl, dt)
        ref = np.vander(a.astype(np.float64) if a.dtype == bool else a, N, increasing)
        np.testing.assert_allclose(np.asarray(out.to(tl.complex128)), ref, rtol=2e-3)


def test_vander_gradients_and_nodes():
    # PyTorch names the nodes FlipBackward0 / CopySlices, but its backward raises (its
    # cumprod saves a tensor that a later copy_ modifies); here the gradient is computed
    xs = np.array([0.5, -1.5, 2.0, 0.0], np.float32)
    for increasing, name in ((False, "FlipBackward0"), (True, "CopySlices")):
        x = tl.tensor(xs, requires_grad=True)
        out = tl.vander(x, 4, increasing)
        assert out.grad_fn.name() == name
        out.sum().backward()
        np.testing.assert_allclose(np.asarray(x.grad), 1 + 2 * xs + 3 * xs ** 2, rtol=1e-6)
        if HAVE_TORCH:
            tx = torch.tensor(xs, requires_grad=True)
            tout = torch.vander(tx, 4, increasing)
            assert type(tout.grad_fn).__name__ == name
            assert isinstance(outcome(lambda: tout.sum().backward()), RuntimeError)
    for N in (0, 1):
        check(lambda mod, t: mod.vander(t, N), xs, grad_name=None)
        assert not tl.vander(tl.tensor(xs, requires_grad=True), N).requires_grad


def test_vander_errors():
    x = tl.tensor(rand(3))
    same_error(lambda: tl.vander(x, -1), lambda: torch.vander(torch.tensor(rand(3)), -1),
               RuntimeError, match_text=True)
    for bad in (np.ones((2, 2), np.float32), np.array(1.0, np.float32)):
        same_error(lambda: tl.vander(tl.tensor(bad)), lambda: torch.vander(torch.tensor(bad)),
                   RuntimeError, match_text=True)
    same_error(lambda: tl.vander(x, 2.0), lambda: torch.vander(torch.tensor(rand(3)), 2.0),
               TypeError, match_text=True)


# ---------------------------------------------------------------------------
# trapezoid / trapz / cumulative_trapezoid
def _trapz_ref(y, x=None, dx=1.0, axis=-1, cumulative=False):
    y = np.moveaxis(y.astype(np.float64), axis, -1)
    d = dx if x is None else np.diff(x.astype(np.float64))
    terms = (y[..., 1:] + y[..., :-1]) * d / 2
    out = np.cumsum(terms, -1) if cumulative else terms.sum(-1)
    return np.moveaxis(out, -1, axis) if cumulative else out


TRAPZ_CASES = [
    (rand(2, 5), None, {}), (rand(2, 5), None, {"dx": 2}), (rand(4, 3), None, {"dx": 0.25,
                                                                              "dim": 0}),
    (rand(6), None, {"dx": -1.5}), (rand(2, 5), rand(5, seed=1), {}),
    (rand(4, 3), rand(4, seed=1), {"dim": 0}), (rand(2, 3, 4), rand(3, seed=1), {"dim": 1}),
    (rand(3, 4, dtype="float64"), rand(4, seed=1), {"dim": -1}),
    (rand(2, 1), None, {}), (rand(2, 1), rand(1), {}),
]


@pytest.mark.parametrize("y,x,kw", TRAPZ_CASES)
@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_values_and_gradients(name, y, x, kw):
    cumulative = name == "cumulative_trapezoid"
    args = (y,) if x is None else (y, x)
    node = ("CumsumBackward0" if cumulative else "MulBackward1") if x is None \
        else "DivBackward1"
    out = check(lambda mod, *ts: getattr(mod, name)(*ts, **kw), *args, grad_name=node)
    assert out.dtype is tl.tensor(y).dtype
    ref = _trapz_ref(y, x, kw.get("dx", 1.0), kw.get("dim", -1), cumulative)
    np.testing.assert_allclose(np.asarray(out.detach().to(tl.float64)), ref, rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_broadcasting_and_dtypes(name):
    f = lambda mod, *ts, **kw: getattr(mod, name)(*ts, **kw)  # noqa: E731
    for args, kw in [((rand(2, 3), rand(1, 3, seed=1)), {}),
                     ((rand(3, 2), rand(3, 1, seed=1)), {"dim": 0}),
                     ((rand(2, 3), rand(2, 3, dtype="float64", seed=1)), {}),
                     ((rand(2), rand(seed=1)), {}), ((rand(2, 3), rand(4, 2, 3)), {"dim": 0}),
                     ((rand(2, 3), np.ones((2, 1), np.float32)), {"dim": 0})]:
        check(lambda mod, *ts: f(mod, *ts, **kw), *args)
    for args, kw, dt in [((ints(2, 3, dtype="int32"),), {}, "float32"),
                         ((ints(2, 3),), {"dx": 3}, "float32"),
                         ((ints(2, 3, dtype="int32"), ints(2, 3, dtype="int32", seed=1)), {},
                          "float32"),
                         ((ints(2, 3), rand(3)), {}, "float32"),
                         ((np.array([[1, 2], [3, 250]], np.uint8),), {"dx": 2}, "float32"),
                         ((rand(2, 3, dtype="float16"),), {"dx": 2}, "float16"),
                         ((rand(2, 3).astype(np.complex64), rand(3)), {}, "complex64")]:
        out = check(lambda mod, *ts: f(mod, *ts, **kw), *args, grad=False, rtol=2e-3,
                    atol=2e-3)
        assert out.dtype is getattr(tl, dt)
    tl.set_default_dtype(tl.float64)
    try:
        assert f(tl, tl.tensor([1, 2, 4])).dtype is tl.float64
    finally:
        tl.set_default_dtype(tl.float32)


def test_trapezoid_empty_dim():
    for name in ("trapezoid", "trapz"):
        for args, dt in [((rand(2, 0),), "float32"), ((ints(2, 0, dtype="int32"),), "int32"),
                         ((np.zeros((2, 0), bool),), "bool"), ((rand(2, 0), rand(0)),
                                                               "float32"),
                         ((rand(2, 0), np.zeros(0, bool)), "float32")]:
            out = check(lambda mod, *ts: getattr(mod, name)(*ts), *args, grad_name=None)
            assert out.dtype is getattr(tl, dt) and tuple(out.shape) == (2,)
            assert not out.requires_grad and not np.asarray(out).any()
    out = check(lambda mod, y: mod.cumulative_trapezoid(y), rand(2, 0),
                grad_name="CumsumBackward0")
    assert tuple(out.shape) == (2, 0)


def test_trapz_dx_is_a_float():
    y = tl.tensor(rand(2, 3))
    np.testing.assert_allclose(np.asarray(tl.trapz(y, dx=True)), np.asarray(tl.trapz(y)))
    if HAVE_TORCH:
        assert_same(tl.trapz(y, dx=True), torch.trapz(torch.tensor(rand(2, 3)), dx=True))
    same_error(lambda: tl.trapz(y, dx=1j), lambda: torch.trapz(torch.tensor(rand(2, 3)), dx=1j),
               TypeError)
    out = tl.trapezoid(y, dx=tl.tensor(2.0))
    np.testing.assert_allclose(np.asarray(out), np.asarray(tl.trapezoid(y, dx=2)))


@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_errors(name):
    def both(*arrays, **kw):
        return (lambda: getattr(tl, name)(*_tensors(tl, arrays, False), **kw),
                lambda: getattr(torch, name)(*_tensors(torch, arrays, False), **kw))
    y = rand(2, 3)
    for arrays, kw, exc in [
            ((y.astype(bool),), {}, RuntimeError), ((y, np.ones(3, bool)), {}, RuntimeError),
            ((y, rand(2)), {}, RuntimeError), ((y, rand(2, 2, 3)), {"dim": 1}, RuntimeError),
            ((y, rand(3, 3)), {}, RuntimeError), ((y, rand(4, 2, 3)), {}, RuntimeError),
            ((y, y.T.copy()), {"dim": 0}, RuntimeError), ((y, rand()), {}, RuntimeError),
            ((y,), {"dim": 2}, IndexError), ((y, rand(3)), {"dim": -3}, IndexError),
            ((rand(),), {}, IndexError), ((rand(),), {"dx": 2}, IndexError),
            ((rand(),), {"dim": 1}, IndexError), ((rand(), rand()), {}, IndexError),
            ((rand(), rand(1)), {}, IndexError), ((rand(), rand(1, 1)), {}, IndexError),
            ((rand(), rand(1)), {"dim": 1}, IndexError)]:
        same_error(*both(*arrays, **kw), exc, match_text=True)
    for kw in ({"dx": True}, {"dx": 1j}):
        if name != "trapz":
            same_error(*both(y, **kw), RuntimeError, match_text=True)
    for arrays, kw in [((y, rand(3)), {"dx": 2}), ((y, None), {}), ((y,), {"dx": None}),
                       ((y,), {"x": None}), ((y, 2), {}), ((y,), {"dim": 1.0}),
                       ((y, 2.0), {})]:
        same_error(*both(*arrays, **kw), TypeError)


# ---------------------------------------------------------------------------
# unravel_index
@pytest.mark.parametrize("shape", [(3, 2), (10, 10, 10, 10), (7,), (1, 1, 5), (4, 1, 3)])
@pytest.mark.parametrize("ishape", [(), (6,), (2, 3)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_unravel_index(shape, ishape, dtype):
    size = int(np.prod(shape))
    idx = np.random.default_rng(0).integers(0, min(size, 255), ishape).astype(dtype)
    out = check(lambda mod, t: mod.unravel_index(t, shape), idx)
    assert isinstance(out, tuple) and len(out) == len(shape)
    for o, ref in zip(out, np.unravel_index(idx, shape)):
        assert o.dtype is tl.int64 and tuple(o.shape) == ishape
        np.testing.assert_array_equal(np.asarray(o), ref)
    # views of one (..., len(shape)) result, with its strides, as in PyTorch
    if ishape:
        assert out[0].stride()[-1] == len(shape)
        if HAVE_TORCH:
            ref = torch.unravel_index(torch.tensor(idx), shape)
            assert [o.stride() for o in out] == [r.stride() for r in ref]
            assert [o.is_contiguous() for o in out] == [r.is_contiguous() for r in ref]
            assert [o.storage_offset() for o in out] == [r.storage_offset() for r in ref]


def test_unravel_index_shapes_and_wrapping():
    idx = np.array([5, 7, -1, 100, -13])
    out = check(lambda mod, t: mod.unravel_index(t, (2, 3)), idx)
    # out-of-range indices wrap with floor division and modulo, as in PyTorch
    assert [o.tolist() for o in out] == [[(i // 3) % 2 for i in idx], [i % 3 for i in idx]]
    assert tl.unravel_index(tl.tensor([5, 7]), ()) == ()
    assert [o.tolist() for o in tl.unravel_index(tl.tensor(5), 7)] == [5]
    for shape in ([3, 4], tl.Size([3, 4]), (3, 4)):
        assert [o.tolist() for o in tl.unravel_index(tl.tensor([5]), shape)] == [[1], [1]]
    out = check(lambda mod, t: mod.unravel_index(t, (3, 0)), np.zeros(0, np.int64))
    assert [tuple(o.shape) for o in out] == [(0,), (0,)]


def test_unravel_index_errors():
    t5 = np.array([5])
    for idx, shape, exc in [(np.array([5.0]), (3, 4), TypeError),
                            (np.array([True]), (3, 4), TypeError),
                            (t5, (3, -4), ValueError), (t5, (3, 4.0), TypeError),
                            (t5, 3.0, TypeError), (t5, (2, 0), RuntimeError),
                            (t5, (0, 3), RuntimeError), (t5, (0,), RuntimeError)]:
        same_error(lambda: tl.unravel_index(tl.tensor(idx), shape),
                   lambda: torch.unravel_index(torch.tensor(idx), shape), exc, match_text=True)
    same_error(lambda: tl.unravel_index(tl.tensor(t5), tl.tensor([3, 4])),
               lambda: torch.unravel_index(torch.tensor(t5), torch.tensor([3, 4])), TypeError)
    same_error(lambda: tl.unravel_index(5, (3, 4)), lambda: torch.unravel_index(5, (3, 4)),
               AttributeError, match_text=True)


# ---------------------------------------------------------------------------
# under torchlike.compile
def test_compiled_matches_eager():
    y, x = tl.tensor(rand(2, 3)), tl.tensor(rand(3, seed=1))
    e = tl.tensor([0, 1, 5])

    def f(y, x, e):
        return (tl.trapezoid(y, x), tl.cumulative_trapezoid(y, dx=0.5),
                tl.isin(e, tl.tensor([1, 2, 3] * 4)), tl.isin(e, tl.tensor([1, 5])),
                tl.combinations(x), tl.vander(x, 3), tl.block_diag(y, x),
                tl.cartesian_prod(x, x), *tl.unravel_index(e, (2, 3)))
    for a, b in zip(tl.compile(f)(y, x, e), f(y, x, e)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
