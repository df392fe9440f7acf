"""The fused backward's fast path (Note [Fused backward] in torchlike/autograd/_fusion.py):
once a graph's program ran fused, ``backward()`` goes from the graph's key straight to
the compiled program. It must give what the planned fused run gives (bit for bit), what
the per-node walk and PyTorch give, and leave every case it cannot reproduce (hooks,
retain_grad, freed graphs, modified saved tensors) to the eager walk."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import _fusion, engine

from .._parity import HAVE_TORCH, assert_same, normalize_error, torch

rng = np.random.default_rng(1)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
W = rng.standard_normal((4, 3)).astype(np.float32)


pytestmark = pytest.mark.usefixtures("fuse_early")


@pytest.fixture
def plans(monkeypatch):
    """How many times the engine planned a fused run (the fast path does not)."""
    calls = []
    orig = _fusion._fused_plan

    def counted(*args, **kw):
        calls.append(1)
        return orig(*args, **kw)
    monkeypatch.setattr(_fusion, "_fused_plan", counted)
    return calls


def case_add(fw, a, b, w):
    return (a + b).sum()


def case_alpha(fw, a, b, w):
    return fw.add(a, b, alpha=2).sum()


def case_shared(fw, a, b, w):
    h = a * b                       # one subexpression feeding three nodes
    return (h.sin() + h.cos() * h).sum()


def case_leaf_twice(fw, a, b, w):
    return (a * a + a).sum()


def case_scalars(fw, a, b, w):
    return ((a * 2.5 + 1) / 3.0 - b ** 2).mean()


def case_views_matmul(fw, a, b, w):
    h = (a - b).t()[1:].t().matmul(w[1:])
    return (h.tanh() * h).sum() + a[0].sum()


def case_branch_order(fw, a, b, w):
    y = b.cos()                     # created before the branch it is added to
    x = a.sin()
    return (x * y + y + x).sum()


CASES = [case_add, case_alpha, case_shared, case_leaf_twice, case_scalars,
         case_views_matmul, case_branch_order]


def leaves(fw):
    return [fw.tensor(x, requires_grad=True) for x in (A, B, W)]


def steps(fw, case, n, zero=True):
    ps = leaves(fw)
    out = []
    for _ in range(n):
        if zero:
            for p in ps:
                p.grad = None
        case(fw, *ps).backward()
        out.append([None if p.grad is None else np.asarray(p.grad).copy() for p in ps])
    return out


def per_node(monkeypatch, case, n, zero=True):
    with monkeypatch.context() as m:
        m.setattr(_fusion, "_FUSE_MAX_NODES", -1)   # the fused backward switched off
        return steps(tl, case, n, zero)


def torch_steps(case, n, zero=True):
    out = steps(torch, case, n, zero)
    return [[None if g is None else torch.tensor(g) for g in s] for s in out]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[5:])
def test_fast_path_matches_planned_fused_eager_and_pytorch(case, plans, monkeypatch):
    got = steps(tl, case, 5)
    # sighting 1 eager, 2 compiled and run from the plan, then the fast path only
    assert len(plans) == 2
    assert len(_fusion._fused) == 1 and len(_fusion._fast) == 1
    for s in got[2:]:
        for g, g1 in zip(s, got[1]):
            assert (g is None) == (g1 is None)
            if g is not None:
                np.testing.assert_array_equal(g, g1)    # the same executable
    eager = per_node(monkeypatch, case, 1)[0]
    for g, ge in zip(got[-1], eager):
        assert (g is None) == (ge is None)
        if g is not None:
            np.testing.assert_allclose(g, ge, rtol=1e-6, atol=1e-6)
    if HAVE_TORCH:
        assert_same([None if g is None else tl.tensor(g) for g in got[-1]],
                    torch_steps(case, 1)[0])


@pytest.mark.parametrize("case", [case_shared, case_views_matmul], ids=["shared", "mm"])
def test_accumulating_into_existing_grads(case, monkeypatch):
    got = steps(tl, case, 5, zero=False)
    assert len(_fusion._fast) == 1
    eager = per_node(monkeypatch, case, 5, zero=False)
    for g, ge in zip(got[-1], eager[-1]):
        assert (g is None) == (ge is None)
        if g is not None:
            np.testing.assert_allclose(g, ge, rtol=1e-6, atol=1e-6)
    if HAVE_TORCH:
        assert_same([None if g is None else tl.tensor(g) for g in got[-1]],
                    torch_steps(case, 5, zero=False)[-1])


def test_branch_creation_order_is_part_of_the_key():
    a, b, _ = leaves(tl)

    def key(first_sin):
        if first_sin:
            x, y = a.sin(), b.cos()
        else:
            y, x = b.cos(), a.sin()
        loss = (x + y).sum()
        g = _fusion._graph_key((loss,), [engine._make_grads((loss,), (None,))[0]._value])
        return g[0]
    assert key(True) == key(True)
    assert key(True) != key(False)


def test_new_shape_is_a_new_program(plans):
    for n in (3, 5, 3):
        x = tl.ones(n, requires_grad=True)
        for _ in range(3):
            x.grad = None
            (x.exp() * 2).sum().backward()
            np.testing.assert_allclose(np.asarray(x.grad), 2 * np.e * np.ones(n), rtol=1e-6)
    assert len(_fusion._fused) == 2 and len(_fusion._fast) == 2
    assert len(plans) == 4     # the third round found its program straight away


def errors(fw, case):
    a, b, _ = leaves(fw)
    for _ in range(4):
        (a * b).sin().sum().backward()
    loss = (a * b).sin().sum()
    try:
        if case == "inplace":
            with fw.no_grad():
                b.mul_(2)
            loss.backward()
        elif case == "twice":
            loss.backward()
            loss.backward()
        else:   # retain_graph keeps it, the third walk frees it, the fourth raises
            loss.backward(retain_graph=True)
            loss.backward(retain_graph=True)
            loss.backward()
            loss.backward()
    except RuntimeError as e:
        return normalize_error(str(e)), np.asarray(a.grad).copy()
    return None, None


@pytest.mark.parametrize("case", ["inplace", "twice", "retain"])
def test_pytorch_errors_after_the_fast_path_took_over(case):
    msg, g = errors(tl, case)
    assert len(_fusion._fast) == 1
    assert msg is not None and ("modified by an inplace operation" in msg
                                or "backward through the graph a second time" in msg)
    if HAVE_TORCH:
        tmsg, tg = errors(torch, case)
        assert msg == tmsg
        np.testing.assert_allclose(g, tg, rtol=1e-5, atol=1e-6)


def test_retain_graph_runs_the_fast_path_again(plans):
    a, b, _ = leaves(tl)
    for _ in range(4):
        a.grad = None
        loss = (a * b).sin().sum()
        loss.backward(retain_graph=True)
        loss.backward()
    np.testing.assert_allclose(np.asarray(a.grad), 2 * np.cos(A * B) * B, rtol=1e-5)
    assert len(plans) == 2


def hooked(fw, what):
    a, b, w = leaves(fw)
    log = []
    for i in range(6):
        a.grad = b.grad = None
        h = a * b
        if i == 5:   # registered once the graph's program runs from the fast path
            if what == "tensor":
                h.register_hook(lambda g: log.append(float(g.sum())) or g * 3)
            elif what == "retain":
                h.retain_grad()
            elif what == "leaf":
                a.register_hook(lambda g: log.append(float(g.sum())) or g * 2)
            elif what == "post":
                b.register_post_accumulate_grad_hook(lambda p: log.append("post"))
        loss = (h.sin() * h).sum()
        if i == 5 and what == "node":
            loss.grad_fn.register_prehook(lambda gs: log.append("pre") or (gs[0] * 2,))
        loss.backward()
    res = [a.grad, b.grad] + ([h.grad] if what == "retain" else [])
    return res, [x if isinstance(x, str) else round(x, 3) for x in log]


@pytest.mark.parametrize("what", ["tensor", "retain", "leaf", "post", "node"])
def test_hooks_added_later_still_run(what):
    res, log = hooked(tl, what)
    assert len(_fusion._fast) == 1
    assert len(log) == (0 if what == "retain" else 1)
    if HAVE_TORCH:
        tres, tlog = hooked(torch, what)
        assert_same(res, tres)
        assert log == tlog


def leaf_grad_saved(fw):
    a = fw.tensor(A, requires_grad=True)
    b = fw.tensor(B, requires_grad=True)
    a.grad = fw.ones(3, 4)
    for _ in range(5):
        (a * b * a.grad).sum().backward()   # the mul saves a.grad; backward adds into it
    return [a.grad, b.grad]


def test_leaf_grad_saved_by_the_graph(monkeypatch):
    got = leaf_grad_saved(tl)
    with monkeypatch.context() as m:
        m.setattr(_fusion, "_FUSE_MAX_NODES", -1)
        eager = leaf_grad_saved(tl)
    for g, ge in zip(got, eager):
        np.testing.assert_allclose(np.asarray(g), np.asarray(ge), rtol=1e-6)
    if HAVE_TORCH:
        assert_same(got, leaf_grad_saved(torch))


def several_roots(fw, shared_node):
    a, b, _ = leaves(fw)
    for _ in range(5):
        a.grad = b.grad = None
        if shared_node:
            u, v = (a * b)[:2].unbind(0)      # two outputs of one node
            roots, grads = [v, u], [fw.ones(4), fw.full((4,), 2.0)]
        else:
            roots = [(a * b).sum(), (a - b).exp().sum()]
            grads = [fw.tensor(2.0), None]
        fw.autograd.backward(roots, grads)
    return [a.grad, b.grad]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("shared_node", [False, True])
def test_several_roots(shared_node, fused, monkeypatch):
    if not fused:
        monkeypatch.setattr(_fusion, "_FUSE_MAX_NODES", -1)
    got = several_roots(tl, shared_node)
    # two roots on one node: the node runs once, with both gradients (it used to be
    # counted twice as a consumer of its inputs, so they never ran)
    assert got[0] is not None and got[1] is not None
    if HAVE_TORCH:
        assert_same(got, several_roots(torch, shared_node))


def test_tables_replaced_means_planning_again(plans, fuse_after):
    steps(tl, case_add, 4)
    assert len(plans) == 2
    fuse_after(2)                        # fresh ``_fused``: the fast table goes with it
    steps(tl, case_add, 1)
    assert len(plans) == 3 and len(_fusion._fast) == 0


def test_switched_off_fusion_is_respected(plans, monkeypatch):
    steps(tl, case_add, 4)
    monkeypatch.setattr(_fusion, "_FUSE_MAX_NODES", -1)
    before = len(plans)
    g = steps(tl, case_add, 2)
    assert len(plans) == before          # neither planned nor run fused
    np.testing.assert_allclose(g[-1][0], np.ones((3, 4)))


def test_autograd_grad_is_unchanged():
    a, b, _ = leaves(tl)
    for _ in range(4):
        ga, gb = tl.autograd.grad((a * b).sin().sum(), (a, b))
    np.testing.assert_allclose(np.asarray(ga), np.cos(A * B) * B, rtol=1e-5)
    assert a.grad is None and b.grad is None
