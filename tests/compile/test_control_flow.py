"""``torchlike.cond`` and ``torchlike.while_loop``: eager results, gradients and errors
against PyTorch's ``torch.cond``/``torch.while_loop``, and the traced forms inside
``torchlike.compile`` against eager mode."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn

from .._parity import HAVE_TORCH, requires_torch, torch

A = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
W = np.random.default_rng(1).standard_normal((3,)).astype(np.float32)


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


# --------------------------------------------------------------------------- eager cond
def _cond_grads(fw, sign: float):
    """cond with a closure parameter in one branch; values and gradients."""
    x = fw.tensor(A * sign, requires_grad=True)
    w = fw.tensor(W, requires_grad=True)
    y = fw.cond(x.sum() > 0, lambda a: (a * w).sin(), lambda a: a.cos() * 2, (x,))
    y.sum().backward()
    return y, x.grad, w.grad


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_eager_cond_values_and_gradients(sign):
    """A tensor predicate: one CondAutogradOpBackward node; the closure parameter of the
    branch not taken gets zeros, as PyTorch's backward materializes them."""
    y, gx, gw = _cond_grads(tl, sign)
    assert y.grad_fn.name() == "CondAutogradOpBackward"
    if A.sum() * sign > 0:
        np.testing.assert_allclose(_np(y), np.sin(A * sign * W), rtol=1e-6)
    else:
        np.testing.assert_allclose(_np(y), np.cos(A * sign) * 2, rtol=1e-6)
        np.testing.assert_array_equal(_np(gw), np.zeros(3, np.float32))
    if HAVE_TORCH:
        ty, tgx, tgw = _cond_grads(torch, sign)
        assert type(ty.grad_fn).__name__ == y.grad_fn.name()
        np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-6)
        np.testing.assert_allclose(_np(gx), _np(tgx), rtol=1e-6)
        np.testing.assert_allclose(_np(gw), _np(tgw), rtol=1e-5)


def test_eager_cond_python_predicate_runs_the_branch():
    """A Python predicate calls the branch itself: its own nodes, no other checks."""
    x = tl.ones(2, requires_grad=True)
    y = tl.cond(1, lambda a: a * 3, lambda a: a[:1], (x,))
    assert y.grad_fn.name() == "MulBackward0"
    assert tl.cond(0.0, lambda a: a * 3, lambda a: a[:1], (x,)).shape == (1,)


def test_eager_cond_predicates_and_operand_structures():
    ones, zeros = tl.ones(2), tl.zeros(2)
    assert tl.cond(True, lambda a: a + 1, lambda a: a - 1, (ones,)).tolist() == [2.0, 2.0]
    assert tl.cond(np.bool_(False), lambda a: a + 1, lambda a: a - 1, [ones]).tolist() == \
        [0.0, 0.0]
    # a float tensor: nonzero is true, as in PyTorch
    assert tl.cond(tl.tensor(1.0), lambda a: a + 1, lambda a: a - 1, (ones,)).tolist() == \
        [2.0, 2.0]
    out = tl.cond(tl.tensor([False]), lambda d: (d["a"] + d["b"][0], d["a"]),
                  lambda d: (d["a"] - d["b"][0], d["b"][0].clone()),
                  ({"a": ones, "b": [zeros]},))
    assert isinstance(out, tuple) and [o.tolist() for o in out] == [[1.0, 1.0], [0.0, 0.0]]
    # no operands
    assert tl.cond(False, lambda: tl.ones(1), lambda: tl.zeros(1)).tolist() == [0.0]


def _cond_errors(fw):
    one = fw.ones(2)
    f = lambda a: a + 1  # noqa: E731
    t = fw.tensor(True)
    return [lambda: fw.cond(fw.tensor([True, False]), f, f, (one,)),
            lambda: fw.cond("yes", f, f, (one,)),
            lambda: fw.cond(t, f, None, (one,)),
            lambda: fw.cond(t, f, f, one),
            lambda: fw.cond(t, f, f, (one, 3))]


_COND_MESSAGES = [
    "Expected pred to be bool or single-element tensor, but got tensor([ True, False]).",
    "Expected pred to be bool or tensor, but got yes.",
    "Expect both branches to be callable.",
    "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
    "tensor leaves, but got tensor([1., 1.]).",
    "Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
    "tensor leaves, but got (tensor([1., 1.]), 3).",
]


@pytest.mark.parametrize("k", range(len(_COND_MESSAGES)))
def test_cond_argument_errors(k):
    with pytest.raises(RuntimeError) as e:
        _cond_errors(tl)[k]()
    assert str(e.value) == _COND_MESSAGES[k]
    if HAVE_TORCH:
        with pytest.raises(RuntimeError) as te:
            _cond_errors(torch)[k]()
        assert str(te.value) == str(e.value)


# --------------------------------------------------------------------------- eager while_loop
def _loop(fw):
    x = fw.tensor(W, requires_grad=True)
    y0 = fw.tensor(W, requires_grad=True)
    i, y = fw.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2 + x),
                         (fw.tensor(0), y0))
    y.sum().backward()
    return i, y, x.grad, y0.grad


def test_eager_while_loop_values_and_gradients():
    i, y, gx, gy = _loop(tl)
    assert i.item() == 3 and i.dtype is tl.int64
    expect = W.copy()
    for _ in range(3):
        expect = expect * 2 + W
    np.testing.assert_allclose(_np(y), expect, rtol=1e-6)
    np.testing.assert_allclose(_np(gx), np.full(3, 7.0), rtol=1e-6)
    np.testing.assert_allclose(_np(gy), np.full(3, 8.0), rtol=1e-6)
    if HAVE_TORCH:
        ti, ty, tgx, tgy = _loop(torch)
        assert i.item() == ti.item()
        np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-6)
        np.testing.assert_allclose(_np(gx), _np(tgx), rtol=1e-6)
        np.testing.assert_allclose(_np(gy), _np(tgy), rtol=1e-6)


def test_eager_while_loop_int_carry_and_no_iteration():
    x = tl.ones(3)
    i, y = tl.while_loop(lambda i, y: 2 * i < y.shape[0], lambda i, y: (i + 1, y + i), (0, x))
    assert i == 2 and type(i) is int and y.tolist() == [2.0, 2.0, 2.0]
    out = tl.while_loop(lambda y: y.sum() > 100, lambda y: (y * 2,), (x,))
    assert isinstance(out, tuple) and out[0] is not x and out[0].tolist() == [1.0, 1.0, 1.0]
    if HAVE_TORCH:
        ti, ty = torch.while_loop(lambda i, y: 2 * i < y.shape[0], lambda i, y: (i + 1, y + i),
                                  (0, torch.ones(3)))
        assert ti == i and ty.tolist() == y.tolist()


@pytest.mark.parametrize("case", ["count", "dtype", "shape", "pred", "not_tuple",
                                  "callable", "leaf"])
def test_while_loop_errors(case):
    i, x = tl.tensor(0), tl.ones(3)
    calls = {
        "count": lambda: tl.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1,), (i, x)),
        "dtype": lambda: tl.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1.5, x), (i, x)),
        "shape": lambda: tl.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x[:2]),
                                       (i, x)),
        "pred": lambda: tl.while_loop(lambda i, x: x < 5, lambda i, x: (i + 1, x), (i, x)),
        "not_tuple": lambda: tl.while_loop(lambda i: i < 5, lambda i: (i + 1,), i),
        "callable": lambda: tl.while_loop(None, lambda i: (i + 1,), (i,)),
        "leaf": lambda: tl.while_loop(lambda i: i < 5, lambda i: (i + 1,), (i, "a")),
    }
    words = {"count": "same number of outputs", "dtype": "torchlike.float32",
             "shape": "shape=[2]", "pred": "tensor([True, True, True])",
             "not_tuple": "carried_inputs must be a tuple or list",
             "callable": "Expect cond_fn and body_fn to be callable.",
             "leaf": "tensor or int leaves"}
    with pytest.raises(RuntimeError, match=None) as e:
        calls[case]()
    assert words[case] in str(e.value)


# --------------------------------------------------------------------------- compiled cond
def _cond_model():
    tl.manual_seed(0)
    return nn.Linear(3, 3)


def _cond_step(lin, opt):
    def step(x):
        opt.zero_grad()
        h = lin(x)
        y = tl.cond(h.sum() > 0, lambda a: (a * 2).sin(), lambda a: lin(a).cos(), (h,))
        loss = y.pow(2).sum()
        loss.backward()
        opt.step()
        return loss, y
    return step


def test_compiled_cond_training_matches_eager():
    lin = _cond_model()
    lin_e = copy.deepcopy(lin)
    step_c = tl.compile(_cond_step(lin, tl.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)))
    step_e = _cond_step(lin_e, tl.optim.SGD(lin_e.parameters(), lr=0.1, momentum=0.9))
    tl.manual_seed(1)
    xs = [tl.randn(4, 3) * (1 if k % 2 else -1) + 0.3 for k in range(6)]
    taken = set()
    for x in xs:
        taken.add(bool(lin_e(x).sum() > 0))
        (lc, yc), (le, ye) = step_c(x), step_e(x)
        np.testing.assert_allclose(lc.item(), le.item(), rtol=1e-4)
        np.testing.assert_allclose(_np(yc), _np(ye), rtol=1e-4, atol=1e-5)
    assert taken == {True, False}
    np.testing.assert_allclose(_np(lin.weight), _np(lin_e.weight), rtol=1e-4, atol=1e-5)
    assert step_c.stats.traces <= 2


def test_traced_cond_node_and_gradients_to_operands_and_closure():
    w = nn.Parameter(tl.tensor(W))

    @tl.compile
    def f(x):
        y = tl.cond(x.sum() > 0, lambda a: a * w, lambda a: a.exp(), (x,))
        assert type(y.grad_fn).__name__ == "RegionBackward"
        assert y.grad_fn.name() == "CondAutogradOpBackward"
        (gx, gw) = tl.autograd.grad(y.sum(), (x, w), allow_unused=True,
                                    materialize_grads=True)
        return y, gx, gw

    for sign in (1.0, -1.0):
        x = tl.tensor(A[0] * sign + 0.5 * sign, requires_grad=True)
        y, gx, gw = f(x)
        xv = _np(x)
        if xv.sum() > 0:
            np.testing.assert_allclose(_np(y), xv * W, rtol=1e-6)
            np.testing.assert_allclose(_np(gx), W, rtol=1e-6)
            np.testing.assert_allclose(_np(gw), xv, rtol=1e-6)
        else:
            np.testing.assert_allclose(_np(y), np.exp(xv), rtol=1e-6)
            np.testing.assert_allclose(_np(gx), np.exp(xv), rtol=1e-6)
            np.testing.assert_allclose(_np(gw), np.zeros(3), atol=0)


def test_traced_cond_state_changes_in_one_branch():
    """BatchNorm's running statistics move only when its branch is taken."""
    tl.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    bn_e = copy.deepcopy(bn)

    def make(m):
        def f(x):
            return tl.cond(x.mean() > 0, lambda a: m(a), lambda a: a * 2, (x,))
        return f

    fc, fe = tl.compile(make(bn)), make(bn_e)
    for sign in (1.0, -1.0, 1.0):
        x = tl.tensor(A + sign)
        np.testing.assert_allclose(_np(fc(x)), _np(fe(x)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(bn.running_mean), _np(bn_e.running_mean), rtol=1e-6)
        np.testing.assert_allclose(_np(bn.running_var), _np(bn_e.running_var), rtol=1e-6)
    assert int(bn.num_batches_tracked) == int(bn_e.num_batches_tracked) == 2


def test_traced_cond_under_no_grad_and_static_predicate():
    lin = _cond_model()

    @tl.compile
    def f(x):
        with tl.no_grad():
            y = tl.cond(x.sum() > 0, lambda a: lin(a), lambda a: -a, (x,))
        # a Python predicate (a shape test) chooses the branch while tracing
        z = tl.cond(x.shape[0] > 2, lambda a: a + 1, lambda a: a - 1, (x,))
        return y, z

    y, z = f(tl.tensor(A))
    assert not y.requires_grad and y.grad_fn is None
    np.testing.assert_allclose(_np(y), _np(lin(tl.tensor(A))), rtol=1e-6)
    np.testing.assert_allclose(_np(z), A + 1, rtol=1e-6)


@pytest.mark.parametrize("case,words", [
    ("count", "Expected to return same number of outputs but got:\n  true branch returns 1 "
              "item(s)\n  false branch returns 2 item(s)"),
    ("dtype", "true branch returns [torchlike.float32[4, 3]] and the false branch "
              "[torchlike.float64[4, 3]]"),
    ("shape", "true branch returns [torchlike.float32[4, 3]] and the false branch "
              "[torchlike.float32[3]]"),
])
def test_traced_cond_mismatched_branches(case, words):
    other = {"count": lambda a: (a, a + 1), "dtype": lambda a: a.double(),
             "shape": lambda a: a[0]}[case]

    @tl.compile
    def f(x):
        return tl.cond(x.sum() > 0, lambda a: a + 1, other, (x,))

    with pytest.raises(RuntimeError) as e:
        f(tl.tensor(A))
    assert words in str(e.value)


def test_traced_value_error_suggests_cond():
    @tl.compile
    def f(x):
        return x + 1 if x.sum() > 0 else x - 1

    with pytest.raises(RuntimeError, match="torchlike.cond"):
        f(tl.tensor(A))


# --------------------------------------------------------------------------- compiled while_loop
def test_traced_while_loop_matches_eager():
    def f(x):
        return tl.while_loop(lambda i, y: y.abs().sum() < 100, lambda i, y: (i + 1, y * 2),
                             (0, x))

    fc = tl.compile(f)
    for scale in (1.0, 3.0):
        x = tl.tensor(W * scale)
        (ic, yc), (ie, ye) = fc(x), f(x)
        assert isinstance(ic, tl.Tensor) and ic.dtype is tl.int64 and ic.item() == ie
        np.testing.assert_allclose(_np(yc), _np(ye), rtol=1e-6)
    assert fc.stats.traces == 1


def test_traced_while_loop_carries_state_and_reads_parameters():
    tl.manual_seed(0)
    lin = nn.Linear(3, 3)
    count = tl.zeros((), dtype=tl.int64)

    def body(i, x):
        count.add_(1)
        return i + 1, lin(x).tanh()

    def f(x):
        with tl.no_grad():
            _, y = tl.while_loop(lambda i, y: i < 4, body, (tl.tensor(0), x))
        return y

    x = tl.tensor(A[0] * 3)
    ye = f(x)
    assert count.item() == 4
    count.zero_()
    yc = tl.compile(f)(x)
    np.testing.assert_allclose(_np(yc), _np(ye), rtol=1e-5, atol=1e-6)
    assert count.item() == 4


def test_traced_while_loop_refuses_gradients():
    lin = nn.Linear(3, 3)

    @tl.compile
    def reads_parameters(x):
        return tl.while_loop(lambda y: y.sum() > 0, lambda y: (lin(y) - 1,), (x,))

    @tl.compile
    def carries_grad(x):
        return tl.while_loop(lambda y: y.sum() > 0, lambda y: (y - 1,), (x,))

    with pytest.raises(NotImplementedError, match="no reverse-mode derivative"):
        reads_parameters(tl.tensor(A[0]))
    with pytest.raises(NotImplementedError, match="no reverse-mode derivative"):
        carries_grad(tl.tensor(A[0], requires_grad=True))


@requires_torch
def test_torch_cond_and_while_loop_exist_with_these_signatures():
    import inspect
    assert list(inspect.signature(tl.cond).parameters) == \
        list(inspect.signature(torch.cond).parameters)
    assert list(inspect.signature(tl.while_loop).parameters) == \
        list(inspect.signature(torch.while_loop).parameters)


# --------------------------------------------------------------------------- higher order
def _penalty(fw, cond: bool):
    """A gradient penalty through a cond (create_graph=True), or through Python's ``if``."""
    x = fw.tensor(A[0], requires_grad=True)
    w = fw.tensor(W, requires_grad=True)

    def branch(a):
        return (a * w).sin()

    if cond:
        y = fw.cond(x.sum() < 100, branch, lambda a: a.cos(), (x,))
    else:
        y = branch(x)
    (g,) = fw.autograd.grad(y.sum(), (x,), create_graph=True)
    (g.pow(2).sum() + y.sum()).backward()
    return x.grad, w.grad


def test_cond_gradients_of_gradients():
    gx, gw = _penalty(tl, True)
    rx, rw = _penalty(tl, False)
    np.testing.assert_allclose(_np(gx), _np(rx), rtol=1e-5)
    np.testing.assert_allclose(_np(gw), _np(rw), rtol=1e-5)
    if HAVE_TORCH:
        # PyTorch 2.13's torch.cond gives other second derivatives than its own ``if``
        # here (it misses terms through the closure's ``w``); its ``if`` is the reference
        tx, tw = _penalty(torch, False)
        np.testing.assert_allclose(_np(gx), _np(tx), rtol=1e-5)
        np.testing.assert_allclose(_np(gw), _np(tw), rtol=1e-5)


def test_cond_inside_func_transforms():
    from torchlike.func import functional_call, grad, vmap

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(3, 3), nn.Linear(3, 3)

        def forward(self, x, use_cond=True):
            if use_cond:
                return tl.cond(x.mean() > 0, lambda t: self.a(t), lambda t: self.b(t).tanh(),
                               (x,))
            return self.a(x) if x.mean() > 0 else self.b(x).tanh()

    tl.manual_seed(0)
    m = M()
    params = dict(m.named_parameters())
    for x in (tl.tensor(A + 1), tl.tensor(A - 1)):
        got = grad(lambda p, x: functional_call(m, p, (x,)).sum())(params, x)
        ref = grad(lambda p, x: functional_call(m, p, (x, False)).sum())(params, x)
        for k in params:
            np.testing.assert_allclose(_np(got[k]), _np(ref[k]), rtol=1e-5, atol=1e-7)
    rows = tl.tensor([[1.0, 2.0], [-3.0, 1.0]])
    out = vmap(lambda v: tl.cond(v.sum() > 0, lambda t: t * 2, lambda t: -t, (v,)))(rows)
    assert out.tolist() == [[2.0, 4.0], [3.0, -1.0]]
