"""Two corners of eager autograd against PyTorch: ``autograd.grad`` w.r.t. a non-leaf
only captures the gradient flowing into it (its grad_fn does not run, so its saved
values survive and its node hooks stay silent, while tensor hooks and ``retain_grad``
still apply), and the edges and names of every clamp/clip overload. Each case runs in
torchlike and, where PyTorch is installed, in PyTorch too; the values asserted below
are PyTorch's, so torchlike is checked without it as well."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, assert_same, torch
from .test_engine import err, graph_of

X = np.array([1.0, 2.0, 3.0], np.float32)


def parity(run):
    """``run(tl)``, compared with ``run(torch)`` where PyTorch is installed."""
    a = run(tl)
    if HAVE_TORCH:
        assert_same(a, run(torch))
    return a


def chain(torch):
    """``out = 3 * exp(2 x)``: ``h`` is a non-leaf whose node (ExpBackward0) saves its
    result, ``y`` a non-leaf below it."""
    x = torch.tensor(X, requires_grad=True)
    y = x * 2
    h = y.exp()
    out = (h * 3).sum()
    return x, y, h, out


def values(ts):
    return [None if t is None else t.tolist() for t in ts]


THREES = [3.0, 3.0, 3.0]
DY = (3 * 2 * np.exp(2 * X)).tolist()       # d out / d x
DH_X = (2 * np.exp(2 * X)).tolist()         # d h.sum() / d x


# ------------------------------------------------- autograd.grad w.r.t. a non-leaf
def test_grad_wrt_non_leaf_does_not_run_its_node():
    # ExpBackward0 would free its saved result: a later backward through h still works
    def run(torch):
        x, y, h, out = chain(torch)
        g = torch.autograd.grad(out, [h])
        return g, torch.autograd.grad(h.sum(), [y], retain_graph=True), \
            torch.autograd.grad(h.sum(), [x])
    g, gy, gx = parity(run)
    assert values(g) == [THREES]
    np.testing.assert_allclose(values(gy)[0], np.exp(2 * X), rtol=1e-6)
    np.testing.assert_allclose(values(gx)[0], DH_X, rtol=1e-6)


@pytest.mark.parametrize("retain", [False, True])
def test_grad_wrt_non_leaf_then_again(retain):
    # the nodes between out and h ran (and were freed without retain_graph); h's not
    def run(torch):
        x, y, h, out = chain(torch)
        first = torch.autograd.grad(out, [h], retain_graph=retain)
        return first, err(lambda: torch.autograd.grad(out, [h])), \
            torch.autograd.grad(h.sum(), [x])
    first, again, gx = parity(run)
    assert values(first) == [THREES]
    assert (again is None) == retain
    if not retain:
        assert again[0] == "RuntimeError" and "backward through the graph a second time" \
            in again[1]


def test_grad_wrt_non_leaf_then_below_it_raises_as_in_pytorch():
    # out's own node was freed by the first call, so PyTorch raises here too
    def run(torch):
        x, y, h, out = chain(torch)
        torch.autograd.grad(out, [h])
        return err(lambda: torch.autograd.grad(out, [y])), \
            err(lambda: torch.autograd.grad(out, [x]))
    a = parity(run)
    assert [e[0] for e in a] == ["RuntimeError", "RuntimeError"]


def test_grad_wrt_the_output_itself_runs_nothing():
    def run(torch):
        x, y, h, out = chain(torch)
        return torch.autograd.grad(out, [out]), torch.autograd.grad(out, [x])
    g, gx = parity(run)
    assert g[0].tolist() == 1.0
    np.testing.assert_allclose(gx[0].tolist(), DY, rtol=1e-6)


def test_grad_wrt_two_outputs_summed_into_a_non_leaf():
    def run(torch):
        x, y, h, out = chain(torch)
        out2 = (h * 5).sum()
        return torch.autograd.grad([out, out2], [h]), torch.autograd.grad(h.sum(), [x])
    g, gx = parity(run)
    assert values(g) == [[8.0, 8.0, 8.0]]


def _hook_log(h, y):
    """A list that h's node pre- and post-hooks and y's node pre-hook append to."""
    log = []
    h.grad_fn.register_prehook(lambda g: log.append("h pre"))
    h.grad_fn.register_hook(lambda gi, go: log.append("h post"))
    y.grad_fn.register_prehook(lambda g: log.append("y pre"))
    return log


def test_grad_wrt_non_leaf_and_below_runs_the_node_in_between():
    # h's node leads to y, another input: it runs (and its node hooks with it), y's not
    def run(torch):
        x, y, h, out = chain(torch)
        log = _hook_log(h, y)
        g = torch.autograd.grad(out, [h, y])
        return g, list(log), err(lambda: torch.autograd.grad(h.sum(), [x]))
    g, log, again = parity(run)
    assert log == ["h pre", "h post"]
    assert values(g)[0] == THREES
    np.testing.assert_allclose(values(g)[1], np.array(DY) / 2, rtol=1e-6)
    assert again[0] == "RuntimeError"        # ExpBackward0 ran and was freed


def test_grad_wrt_non_leaf_hooks():
    # tensor hooks of h run and change what is captured; node hooks of h do not run
    def run(torch):
        x, y, h, out = chain(torch)
        log = []
        h.register_hook(lambda g: log.append(("h", g.tolist())) or g * 10)
        y.register_hook(lambda g: log.append(("y", g.tolist())))
        h.grad_fn.register_prehook(lambda g: log.append("h pre"))
        h.grad_fn.register_hook(lambda gi, go: log.append("h post"))
        return torch.autograd.grad(out, [h]), log
    g, log = parity(run)
    assert values(g) == [[30.0, 30.0, 30.0]]
    assert log == [("h", THREES)]


def test_grad_wrt_non_leaf_retain_grad():
    # retain_grad is a tensor hook too: h.grad is set (after h's other hooks), y's not
    def run(torch):
        x, y, h, out = chain(torch)
        h.retain_grad()
        y.retain_grad()
        h.register_hook(lambda g: g * 10)
        return torch.autograd.grad(out, [h]), h.grad, y.grad
    g, hg, yg = parity(run)
    assert values(g) == [[30.0, 30.0, 30.0]]
    assert hg.tolist() == [30.0, 30.0, 30.0] and yg is None


def test_grad_captures_before_the_hooks_of_a_node_that_runs():
    # PyTorch captures the gradient of an input whose node must run anyway before its
    # tensor hooks, which then feed the inputs below
    def run(torch):
        x, y, h, out = chain(torch)
        h.register_hook(lambda g: g * 10)
        return torch.autograd.grad(out, [y, h])
    g = parity(run)
    assert values(g)[1] == THREES
    np.testing.assert_allclose(values(g)[0], np.array(DY) * 5, rtol=1e-6)


def test_grad_wrt_one_output_of_a_multi_output_node():
    def run(torch):
        x = torch.tensor(np.arange(4, dtype=np.float32).reshape(2, 2), requires_grad=True)
        a, b = (x * 1).unbind(0)
        out = (a.exp() * 2 + b * 3).sum()
        return torch.autograd.grad(out, [b]), torch.autograd.grad(a.sum(), [x])
    g, gx = parity(run)
    assert values(g) == [[3.0, 3.0]]
    assert values(gx) == [[[1.0, 1.0], [0.0, 0.0]]]


def test_grad_wrt_a_view_of_a_non_leaf():
    def run(torch):
        x, y, h, out = chain(torch)
        v = h[1:]
        return torch.autograd.grad((v * 4).sum(), [v]), torch.autograd.grad(h.sum(), [x])
    g, gx = parity(run)
    assert values(g) == [[4.0, 4.0]]


@pytest.mark.parametrize("mode", ["allow_unused", "materialize_grads"])
def test_grad_wrt_non_leaves_some_unused(mode):
    def run(torch):
        x, y, h, out = chain(torch)
        z = torch.ones(3, requires_grad=True) * 2
        return torch.autograd.grad(out, [h, z], retain_graph=True, **{mode: True}), \
            torch.autograd.grad(out, [y, z], **{mode: True})
    g, g2 = parity(run)
    unused = None if mode == "allow_unused" else [0.0, 0.0, 0.0]
    assert values(g) == [THREES, unused]
    assert values(g2)[1] == unused
    np.testing.assert_allclose(values(g2)[0], np.array(DY) / 2, rtol=1e-6)


def test_grad_wrt_non_leaf_unused_raises():
    def run(torch):
        x, y, h, out = chain(torch)
        z = torch.ones(3, requires_grad=True) * 2
        return err(lambda: torch.autograd.grad(out, [h, z])), \
            torch.autograd.grad(h.sum(), [x])
    e, g = parity(run)
    assert e[0] == "RuntimeError" and "index 1 appears to not have been used" in e[1]


def test_grad_wrt_non_leaf_with_create_graph():
    def run(torch):
        x, y, h, out = chain(torch)
        g = torch.autograd.grad(out, [h], create_graph=True)
        return g, torch.autograd.grad(h.sum(), [x])
    g, gx = parity(run)
    assert values(g) == [THREES]


# ------------------------------------------------- backward(inputs=[non-leaf])
def test_backward_inputs_non_leaf_runs_its_node():
    # unlike autograd.grad, PyTorch runs (and frees) the input's own node here, but
    # nothing below it; h retains its grad, which accumulates
    def run(torch):
        x, y, h, out = chain(torch)
        log = _hook_log(h, y)
        out.backward(inputs=[h], retain_graph=True)
        out.backward(inputs=[h])
        return h.grad, h.retains_grad, x.grad, list(log), \
            err(lambda: torch.autograd.grad(h.sum(), [x]))
    hg, retains, xg, log, again = parity(run)
    assert hg.tolist() == [6.0, 6.0, 6.0] and retains and xg is None
    assert log == ["h pre", "h post"] * 2
    assert again[0] == "RuntimeError"


def test_backward_inputs_non_leaf_and_leaf_with_hook():
    def run(torch):
        x, y, h, out = chain(torch)
        log = []
        h.register_hook(lambda g: log.append("h") or g * 10)
        out.backward(inputs=[h, x])
        return h.grad, x.grad, log
    hg, xg, log = parity(run)
    assert hg.tolist() == [30.0, 30.0, 30.0] and log == ["h"]
    np.testing.assert_allclose(xg.tolist(), np.array(DY) * 10, rtol=1e-6)


# ------------------------------------------------------------- clamp and clip
CLAMP_CALLS = [
    "torch.clamp(x, -0.3, 0.3)", "torch.clamp(x, min=-0.3)", "torch.clamp(x, max=0.3)",
    "torch.clamp(x, min=lo)", "torch.clamp(x, max=hi)", "torch.clamp(x, lo, hi)",
    "torch.clamp(x, lo)", "torch.clamp(x, min=lo.detach())", "torch.clamp(x, max=hi.detach())",
    "torch.clamp(x.detach(), min=lo)", "torch.clamp(x.detach(), max=hi)",
    "torch.clip(x, min=lo)", "torch.clip(x, max=hi)", "torch.clip(x, -0.3, 0.3)",
    "x.clamp(min=lo)", "x.clamp(max=hi)", "x.clip(max=hi)", "x.clamp(hi, lo)",
    "torch.clamp_min(x, -0.3)", "torch.clamp_min(x, lo)", "torch.clamp_max(x, 0.3)",
    "torch.clamp_max(x, hi)", "x.clamp_min(lo)", "x.clamp_max(hi)",
    "torch.clamp_min(x, s)", "torch.clamp_max(x, s)", "torch.clamp(x, s)",
    "(x * 1).clamp_(-0.3, 0.3)", "(x * 1).clamp_(min=lo)", "(x * 1).clamp_(max=hi)",
    "(x * 1).clamp_(lo, hi)", "(x * 1).clip_(min=lo)", "(x * 1).clip_(max=hi)",
    "(x * 1).clamp_min_(lo)", "(x * 1).clamp_min_(-0.3)", "(x * 1).clamp_max_(hi)",
    "(x * 1).clamp_max_(0.3)",
]

# PyTorch 2.13's graphs: name and next_functions (A: AccumulateGrad, M: MulBackward0)
CLAMP_GRAPHS = {
    "torch.clamp(x, min=lo)": ("ClampBackward0", "A", "A", None),
    "torch.clamp(x, max=hi)": ("ClampBackward0", "A", None, "A"),
    "torch.clamp(x, lo, hi)": ("ClampBackward0", "A", "A", "A"),
    "torch.clamp(x, -0.3, 0.3)": ("ClampBackward1", "A"),
    "torch.clamp(x, min=lo.detach())": ("ClampBackward0", "A", None, None),
    "torch.clamp(x.detach(), max=hi)": ("ClampBackward0", None, None, "A"),
    "torch.clamp_min(x, lo)": ("ClampMinBackward1", "A", "A"),
    "torch.clamp_min(x, -0.3)": ("ClampMinBackward0", "A"),
    "torch.clamp_max(x, hi)": ("ClampMaxBackward1", "A", "A"),
    "torch.clamp_max(x, 0.3)": ("ClampMaxBackward0", "A"),
    "(x * 1).clamp_(max=hi)": ("ClampBackward0", "M", None, "A"),
    "(x * 1).clamp_max_(0.3)": ("ClampMaxBackward0", "M"),
}


def _short(graph):
    name, edges = graph
    short = {"AccumulateGrad": "A", "MulBackward0": "M"}
    return (name,) + tuple(None if n is None else short.get(n if isinstance(n, str)
                                                            else n[0], n)
                           for n, _ in edges)


@pytest.mark.parametrize("call", CLAMP_CALLS)
def test_clamp_overloads_graph_and_gradients(call):
    # values on both sides of the bounds and exactly at them: the gradient at a bound
    # goes to the input (PyTorch's clamp_backward)
    xs = np.array([-1.0, -0.3, 0.5, 0.2, 0.3, 0.9], np.float32)
    los = np.array([-0.3, -0.3, 0.1, 0.2, 0.4, -1.0], np.float32)
    his = np.array([0.3, 0.5, 0.1, 0.2, 0.3, 0.6], np.float32)

    def run(torch):
        x = torch.tensor(xs, requires_grad=True)
        lo = torch.tensor(los, requires_grad=True)
        hi = torch.tensor(his, requires_grad=True)
        s = torch.tensor(0.25, requires_grad=True)
        out = eval(call)
        graph = graph_of(out, depth=1)
        w = torch.tensor(np.arange(1, 7, dtype=np.float32))
        (out * w).sum().backward()
        return out, graph, x.grad, lo.grad, hi.grad, s.grad
    res = parity(run)
    out, graph = res[0], res[1]
    expected = CLAMP_GRAPHS.get(call)
    if expected is not None:
        assert _short(graph) == expected
    # the node's edges line up with its gradients: one per input, as many as PyTorch's
    n_edges = {"ClampBackward0": 3, "ClampBackward1": 1, "ClampMinBackward1": 2,
               "ClampMaxBackward1": 2, "ClampMinBackward0": 1, "ClampMaxBackward0": 1}
    assert len(graph[1]) == n_edges[graph[0]]
    assert out.requires_grad


def test_clamp_tensor_bound_edges_in_the_fused_backward():
    # the fused program maps the node's gradients to its edges by position: with the
    # (None, 0) edge of a missing bound the leaves must still get the right gradients
    xs = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    his = np.array([0.2, 0.2, 0.2, 0.2], np.float32)

    def step(torch):
        x = torch.tensor(xs, requires_grad=True)
        hi = torch.tensor(his, requires_grad=True)
        (torch.clamp(x * 2, max=hi) * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad, hi.grad

    from torchlike.autograd import _fusion
    ref = step(tl)
    for _ in range(_fusion._FUSE_AFTER + 2):
        res = step(tl)
        assert values(res) == values(ref)
    assert res[0].tolist() == [2.0, 4.0, 0.0, 0.0]
    assert res[1].tolist() == [0.0, 0.0, 3.0, 4.0]
    if HAVE_TORCH:
        assert_same(res, step(torch))


def test_clamp_min_equal_to_max():
    # PyTorch's clamp_backward_min_max gives an input below min == max no gradient at all
    def run(torch):
        x = torch.tensor([-1.0, 0.1, 1.0], requires_grad=True)
        lo = torch.tensor([0.1, 0.1, 0.1], requires_grad=True)
        hi = torch.tensor([0.1, 0.1, 0.1], requires_grad=True)
        torch.clamp(x, lo, hi).sum().backward()
        return x.grad, lo.grad, hi.grad
    g = parity(run)
    assert values(g) == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


@pytest.mark.parametrize("call", [
    lambda T, x: T.clamp(x, T.zeros(3), 1.0),
    lambda T, x: T.clamp(x, min=0.0, max=T.ones(3)),
    lambda T, x: x.clamp(T.zeros(3), 1),
    lambda T, x: x.clamp_(min=0, max=T.ones(3)),
    lambda T, x: T.clip(x, 0.0, T.ones(1)),
], ids=["fn-pos", "fn-kw", "method", "inplace", "clip"])
def test_clamp_mixed_tensor_and_number_bounds_raise_type_error(call):
    # PyTorch's overloads take two tensor bounds or two numbers, never one of each
    x = tl.tensor([-1.0, 0.5, 2.0])
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        call(tl, x)
    assert x.tolist() == [-1.0, 0.5, 2.0]       # the in-place form wrote nothing
    if HAVE_TORCH:
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            call(torch, torch.tensor([-1.0, 0.5, 2.0]))


def test_clamp_zero_dim_tensor_bound_passes_as_a_number():
    got = tl.clamp(tl.tensor([-1.0, 0.5, 2.0]), tl.tensor(0.0), 1.0)
    assert got.tolist() == [0.0, 0.5, 1.0]
    if HAVE_TORCH:
        assert_same(got, torch.clamp(torch.tensor([-1.0, 0.5, 2.0]), torch.tensor(0.0), 1.0))


def _create_graph_cases(T):
    F = T.nn.functional
    x = T.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    m = T.tensor([True, False, True])
    return x, {
        "mul-const": lambda: 2 * x, "square": lambda: x * x, "add-const": lambda: x + 1,
        "sin": lambda: x.sin(), "exp": lambda: x.exp(), "div-const": lambda: x / 3,
        "matmul-const": lambda: x @ T.ones(3, 2), "linear-const": lambda: F.linear(x, T.ones(2, 3)),
        "mul-tensor-const": lambda: x * T.ones(3), "mean": lambda: x.mean(),
        "relu": lambda: F.relu(x), "leaky_relu": lambda: F.leaky_relu(x, 0.1),
        "hardtanh": lambda: F.hardtanh(x), "gelu": lambda: F.gelu(x), "abs": lambda: x.abs(),
        "l1": lambda: F.l1_loss(x, T.zeros(3)), "mse": lambda: F.mse_loss(x, T.zeros(3)),
        "clamp": lambda: x.clamp(0, 1), "clamp-tensors": lambda: x.clamp(T.zeros(3), T.ones(3)),
        "max": lambda: x.max(), "maximum": lambda: T.maximum(x, T.zeros(3)),
        "where": lambda: T.where(m, x, T.zeros(3)), "masked_fill": lambda: x.masked_fill(m, 0.0),
        "sort": lambda: x.sort()[0], "topk": lambda: x.topk(2)[0], "floor": lambda: x.floor(),
        "sign": lambda: x.sign(), "fmod": lambda: T.fmod(x, 1.5), "gather": lambda: x.gather(
            0, T.tensor([2, 1])), "lerp": lambda: T.lerp(x, T.ones(3), 0.3),
        "kl_div": lambda: F.kl_div(x, T.ones(3) * 0.3, reduction="sum"),
        "nll": lambda: F.nll_loss(x.view(1, 3), T.tensor([1])),
        "cross_entropy": lambda: F.cross_entropy(x.view(1, 3), T.tensor([1])),
        "max_pool": lambda: F.max_pool1d(x.view(1, 1, 3), 2),
        "avg_pool": lambda: F.avg_pool1d(x.view(1, 1, 3), 2),
        "norm-1": lambda: x.norm(p=1), "norm-2": lambda: x.norm(), "trace": lambda: (
            x.view(3, 1) * x.view(1, 3)).trace(), "trace-linear": lambda: x.diag().trace(),
        "copysign": lambda: T.copysign(x, T.ones(3)),
    }


@pytest.mark.parametrize("case", list(_create_graph_cases(tl)[1]))
def test_create_graph_results_require_grad_as_in_pytorch(case):
    # Note [Which double-backward results require grad]
    x, cases = _create_graph_cases(tl)
    g, = tl.autograd.grad(cases[case]().sum(), x, create_graph=True)
    got = g.requires_grad
    assert (g.grad_fn is None) == (not got)
    if got:     # a result that requires grad can be differentiated again
        gg, = tl.autograd.grad((g * g).sum(), x, allow_unused=True)
    if HAVE_TORCH:
        tx, tcases = _create_graph_cases(torch)
        tg, = torch.autograd.grad(tcases[case]().sum(), tx, create_graph=True)
        assert got == tg.requires_grad
        assert_same(g.detach(), tg.detach())
        if got:
            tgg, = torch.autograd.grad((tg * tg).sum(), tx, allow_unused=True)
            if tgg is None:     # PyTorch's None may be zeros here
                assert gg is None or np.allclose(np.asarray(gg), 0)
            else:
                assert_same(gg, tgg)


def test_create_graph_gradient_of_a_linear_op_is_constant():
    # ``2 * x`` has a gradient that no longer depends on x: differentiating it again
    # raises PyTorch's error
    x = tl.ones(3, requires_grad=True)
    g, = tl.autograd.grad((2 * x).sum(), x, create_graph=True)
    assert not g.requires_grad and g.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        g.sum().backward()
    # the same with the incoming gradient requiring grad: the result does too
    v = tl.ones(3, requires_grad=True)
    g, = tl.autograd.grad(2 * x, x, grad_outputs=v, create_graph=True)
    assert g.requires_grad
    g.sum().backward()
    assert v.grad.tolist() == [2.0, 2.0, 2.0]


# ------------------------------------------- arguments that give only their shape or type
AS_OPS = {
    "view_as": lambda x, y: x.view_as(y),
    "reshape_as": lambda x, y: x.reshape_as(y),
    "expand_as": lambda x, y: x[:1].expand_as(y.t()),
    "type_as": lambda x, y: x.type_as(y),
}


@pytest.mark.parametrize("op", sorted(AS_OPS))
def test_other_of_an_as_op_is_not_in_the_graph(op):
    # ``other`` gives its shape (or dtype) only: no edge to it, no gradient for it, and a
    # result that requires grad only through ``input``
    def run(torch):
        x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
        out = AS_OPS[op](x, y)
        (out * out).sum().backward()
        frozen = AS_OPS[op](x.detach(), y)
        return (graph_of(out), x.grad, y.grad, str(out.dtype).split(".")[1],
                frozen.requires_grad, frozen.grad_fn is None)
    graph, gx, gy, dtype, frozen_rg, frozen_leaf = parity(run)
    assert len(graph[1]) == 1                   # the edge to ``input`` (or its slice) only
    assert gy is None and gx is not None
    assert not frozen_rg and frozen_leaf
    assert dtype == ("float64" if op == "type_as" else "float32")


def test_other_of_view_as_in_a_repeated_graph_and_double_backward():
    # the fused backward of a repeated graph and create_graph agree with the eager walk
    def run(torch):
        x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = torch.ones(3, 2, requires_grad=True)
        for _ in range(25):
            x.grad = y.grad = None
            (x.view_as(y) * 2).sum().backward()
        g, = torch.autograd.grad((x.view_as(y) ** 3).sum(), x, create_graph=True)
        g2, = torch.autograd.grad(g.sum(), x)
        return x.grad, y.grad, g2
    gx, gy, g2 = parity(run)
    assert gx.tolist() == [[2.0] * 3] * 2 and gy is None
    assert g2.tolist() == [[6.0, 12.0, 18.0], [24.0, 30.0, 36.0]]


def test_type_as_needs_a_tensor():
    def run(torch):
        return err(lambda: torch.ones(2).type_as(3))
    assert parity(run) == ("TypeError", "type_as(): argument 'other' (position 1) must be "
                                        "Tensor, not int")


# ---------------------------------------------------------------------------
# an in-place op on a view of a base whose storage is not laid out contiguously
# (Note [In-place on a view]): the write and the gradients land on the right elements
@pytest.mark.parametrize("case", ["row_of_transposed", "column_of_transposed",
                                  "permuted_3d", "strided_base"])
def test_inplace_on_a_view_of_a_non_contiguous_base(case):
    def run(fw):
        x = fw.arange(24.0).reshape(2, 3, 4) * 1 if case == "permuted_3d" else \
            fw.arange(6.0).reshape(2, 3) * 1
        if case == "permuted_3d":
            x = x.permute(2, 0, 1).contiguous().permute(1, 2, 0)   # a non-view base...
            x = x * 1                                              # ...made contiguous
            x.transpose_(0, 2)
            view = x[1, :, 1]
        elif case == "strided_base":
            x = fw.arange(12.0).reshape(3, 4) * 1
            x.as_strided_((2, 2), (4, 2), 1)
            view = x[:, 1]
        else:
            x.t_()
            view = x[0] if case == "row_of_transposed" else x[:, 1]
        w = fw.arange(1.0, 1.0 + view.numel()).reshape(view.shape).requires_grad_()
        view.mul_(w)
        weights = fw.arange(float(x.numel())).reshape(x.shape)
        (x * weights).sum().backward()
        return x.detach().numpy(), w.grad.numpy(), x.grad_fn.name()
    got = run(tl)
    if case == "row_of_transposed":     # worked out by hand
        np.testing.assert_allclose(got[0], [[0, 6], [1, 4], [2, 5]])
        np.testing.assert_allclose(got[1], [0, 3])
    if HAVE_TORCH:
        ref = run(torch)
        np.testing.assert_allclose(got[0], ref[0])
        np.testing.assert_allclose(got[1], ref[1])
        assert ref[2].endswith(got[2])
