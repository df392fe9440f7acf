"""A recorded op runs the executable the dispatcher's fast path chose (Note [Cost of
recording] in torchlike/autograd/graph.py): the same values, dtypes, grads and grad_fn
graph as PyTorch, bit-identical outputs with and without grad, a neutral ``alpha`` that
the forward skips but the backward still sees, and the traced path of
``torchlike.compile`` unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.spec import OPS

from .._parity import HAVE_TORCH, assert_same
from .test_engine import both, err, graph_of, parity_only

rng = np.random.default_rng(7)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
I = rng.integers(-5, 5, (3, 4)).astype(np.int64)
M = rng.standard_normal((3, 4)) > 0
C = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
D = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)

EXPRS = [
    "x * 0.5 + y", "x + y", "torch.add(x, y, alpha=1)", "torch.add(x, y, alpha=2)",
    "torch.add(x, y, alpha=0.5)", "x.sub(y, alpha=1)", "torch.sub(x, y, alpha=2)",
    "x.sub(y, alpha=0.5)", "torch.add(m, x, alpha=1)", "x + 1", "x - 1", "1 - x",
    "torch.add(x, 3, alpha=2)", "x + i", "i + x", "torch.add(i, x, alpha=2)",
    "x.sub(i, alpha=1)", "x + m", "torch.add(x, m, alpha=1)", "x * m", "i * x * 0.5",
    "torch.add(x, y.detach(), alpha=1)", "torch.addcmul(x, x, y, value=1)",
    "x.matmul(y.t()) + 1",
]


def _inputs(torch, complex_=False):
    if complex_:
        x, y = torch.tensor(C, requires_grad=True), torch.tensor(D, requires_grad=True)
    else:
        x, y = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    return x, y, torch.tensor(I), torch.tensor(M)


def _run(expr, complex_=False):
    def run(torch):
        x, y, i, m = _inputs(torch, complex_)
        for _ in range(3):   # first use, second use (a cached device scalar), cached entry
            out = eval(expr)
        graph = graph_of(out)
        (out.abs() if complex_ else out).sum().backward()
        return out, x.grad, y.grad, graph
    return both(run)


@pytest.mark.parametrize("expr", EXPRS)
def test_recorded_ops_match_torch(expr):
    (a, ga_x, ga_y, graph_a), torch_half = _run(expr)
    parity_only()
    b, gb_x, gb_y, graph_b = torch_half
    assert graph_a == graph_b
    assert_same(a, b)
    assert_same(ga_x, gb_x)
    if gb_y is None:
        assert ga_y is None
    else:
        assert_same(ga_y, gb_y)


COMPLEX_EXPRS = [
    "x + y", "torch.add(x, y, alpha=1)", "torch.add(x, y, alpha=2)", "x.sub(y, alpha=1)",
    "x.sub(y, alpha=0.5)", "x * 0.5 + y", "torch.add(x, y, alpha=1j)", "x + 1",
]


@pytest.mark.parametrize("expr", COMPLEX_EXPRS)
def test_complex_recorded_ops_match_torch(expr):
    (a, ga_x, ga_y, graph_a), torch_half = _run(expr, complex_=True)
    parity_only()
    b, gb_x, gb_y, graph_b = torch_half
    assert graph_a == graph_b
    assert_same(a, b)
    assert_same(ga_x, gb_x)
    assert_same(ga_y, gb_y)


@pytest.mark.parametrize("expr, complex_", [(e, False) for e in EXPRS] +
                         [(e, True) for e in COMPLEX_EXPRS])
def test_recorded_output_is_bit_identical_to_unrecorded(expr, complex_):
    x, y, i, m = _inputs(tl, complex_)
    env = dict(torch=tl, x=x, y=y, i=i, m=m)
    for _ in range(3):
        rec = eval(expr, env)
        with tl.no_grad():
            plain = eval(expr, env)
    assert rec.dtype == plain.dtype
    assert rec.requires_grad
    np.testing.assert_array_equal(np.asarray(rec.detach()), np.asarray(plain))


def test_recorded_op_uses_the_fast_path_executable(monkeypatch):
    calls = []
    spec = OPS["add"]
    jitted = spec.jitted

    def counting(*a):
        calls.append(a)
        return jitted(*a)
    monkeypatch.setattr(spec, "jitted", counting)
    x, y, _, _ = _inputs(tl)
    for alpha in (1, 2, 0.5):
        z = tl.add(x, y, alpha=alpha)
        z.sum().backward()
    assert calls == []
    np.testing.assert_allclose(np.asarray(x.grad), 3 * np.ones_like(A))
    np.testing.assert_allclose(np.asarray(y.grad), 3.5 * np.ones_like(B))


@pytest.mark.parametrize("alpha", [1, 2, 0.5])
def test_double_backward_through_alpha(alpha):
    def run(torch):
        x, y, _, _ = _inputs(torch)
        z = (torch.add(x * x, y * y, alpha=alpha) * 0.5).sum()
        gx, gy = torch.autograd.grad(z, (x, y), create_graph=True)
        (gx.sum() + (gy * y).sum()).backward()
        return gx, gy, x.grad, y.grad
    a, b = both(run)
    if HAVE_TORCH:
        for u, v in zip(a, b):
            assert_same(u, v)
    # z = (x*x + alpha*y*y) / 2: gx = x, gy = alpha*y, then x.grad = 1, y.grad = 2*alpha*y
    for got, want in zip(a, (A, alpha * B, np.ones_like(A), 2 * alpha * B)):
        np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=1e-6, atol=1e-6)


def test_saved_tensor_version_check_still_raises():
    def run(torch):
        x, y, _, _ = _inputs(torch)
        w = y * 1.0
        z = torch.add(x * w, w, alpha=1)
        w.add_(1)
        return err(lambda: z.sum().backward())
    a, b = both(run)
    assert a is not None
    if HAVE_TORCH:
        assert a == b
    assert a[0] == "RuntimeError" and "modified by an inplace operation" in a[1]


def test_add_alpha_one_leaves_linear_node_reusable():
    # add saves nothing: its node can run again after the graph is freed
    x, y, _, _ = _inputs(tl)
    z = tl.add(x, y, alpha=1)
    z.sum().backward()
    z.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), 2 * np.ones_like(A))
    np.testing.assert_array_equal(np.asarray(y.grad), 2 * np.ones_like(B))


@pytest.mark.parametrize("alpha", [1, 2, 0.5])
def test_recorded_ops_inside_compile(alpha):
    w = tl.nn.Parameter(tl.tensor(A))
    v = tl.nn.Parameter(tl.tensor(B))

    def step(x):
        w.grad = None
        v.grad = None
        h = tl.add(w * 0.5, v, alpha=alpha).sub(x, alpha=1)
        loss = (h * h).sum() + tl.sub(v, x, alpha=alpha).sum()
        loss.backward()
        return loss.detach(), w.grad.clone(), v.grad.clone()

    x = tl.tensor(B * 2)
    eager = step(x)
    f = tl.compile(step)
    for _ in range(2):
        compiled = f(x)
        for a, b in zip(compiled, eager):
            assert a.dtype == b.dtype
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)
    assert f.stats.traces == 1


def test_accumulate_grad_sets_every_node_field():
    # AccumulateGrad.__init__ sets Node's fields itself (a new one is made for every leaf
    # of nearly every training step); they must be those Node.__init__ sets
    from torchlike.autograd.graph import AccumulateGrad, Node, accumulate_node
    x = tl.ones(2, requires_grad=True)
    fast = accumulate_node(x)
    assert accumulate_node(x) is fast            # held (weakly) by the leaf
    ref = Node("AccumulateGrad")
    for k in sorted(set(Node.__slots__) - {"__dict__", "__weakref__", "_seq"}):
        assert getattr(fast, k) == getattr(ref, k), k
    assert type(fast) is AccumulateGrad and fast.name() == "torch::autograd::AccumulateGrad"
    assert repr(fast).startswith("<AccumulateGrad object at ")
    assert fast.variable is x and fast._seq == float("inf") and not fast.__dict__
    # a freed graph drops it; the next one gets a new one
    del fast
    import gc
    gc.collect()
    assert (tl.ones(2) * x).grad_fn.next_functions[1][0].variable is x


@pytest.mark.parametrize("view", ["x", "x[1:]", "x.t()"])
def test_linear_node_records_the_inputs_shapes(view):
    # a linear op keeps only its inputs' shapes and dtypes (taken from the tensors, views
    # included); the backward builds its zeros from them
    x, y = tl.tensor(A, requires_grad=True), tl.tensor(B, requires_grad=True)
    src = eval(view, {"x": x})
    out = src + eval(view.replace("x", "y"), {"y": y})
    node = out.grad_fn
    assert node._zavals == ((tuple(src.shape), np.dtype(np.float32)),) * 2
    assert node._zavals == tuple((tuple(d.shape), d.dtype) for d in
                                 (src._value, src._value))
    out.sum().backward()
    assert x.grad.shape == x.shape and float(x.grad.sum()) == src.numel()
    np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())
