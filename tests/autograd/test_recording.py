"""How ops record their grad_fn (Note [Cost of recording] in torchlike/autograd/graph.py)
and how ``autograd.grad`` prunes the graph to its inputs, against PyTorch: node names
that depend on the call, edges of list and scalar arguments, saved tensors checked per
condition, and the fused backward of a graph whose inputs changed shape in place."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import _fusion

from .._parity import HAVE_TORCH, assert_same, torch
from .test_engine import both, err, graph_of, parity_only

rng = np.random.default_rng(1)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((2, 3)).astype(np.float32)


@pytest.mark.parametrize("expr", [
    "torch.clamp(x, min=y, max=y + 1)", "torch.clamp(x, min=0.1)", "torch.rsub(x, y)",
    "torch.rsub(x, 2)", "torch.cat([x, y, x])", "torch.stack([x, y.detach()])",
    "x.matmul(y.t())", "x + 2.5", "torch.where(x > 0, x, 0.0)", "(x * 2).max(0).values",
    "torch.pow(2, x)", "x.split(1)[1]",
])
def test_names_and_edges_that_depend_on_the_call(expr):
    def run(torch):
        x = torch.tensor(A, requires_grad=True)  # noqa: F841 (read by eval)
        y = torch.tensor(B, requires_grad=True)  # noqa: F841 (read by eval)
        return graph_of(eval(expr))
    a, b = both(run)
    parity_only()
    assert a == b


def test_saved_tensor_checks_follow_conditions():
    # ``mul`` saves ``other`` only when ``input`` requires grad (and the converse)
    def run(torch):
        out = []
        x = torch.tensor(A, requires_grad=True)
        w = torch.tensor(B)
        q = x * w
        x2 = x.detach()
        x2.add_(1)                       # x itself is not saved: no error
        q.sum().backward()
        out.append(x.grad)
        w.add_(1)                        # w is saved
        q = x * torch.tensor(B)
        z = x * w
        w.add_(1)
        out.append(err(lambda: z.sum().backward()))
        y = torch.tensor(A, requires_grad=True).exp()   # exp saves its result
        s = y.sum()
        y.mul_(2)
        out.append(err(lambda: s.backward()))
        return out
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a[0], b[0])
        assert a[1:] == b[1:]
    np.testing.assert_array_equal(np.asarray(a[0]), B)
    assert [e[0] for e in a[1:]] == ["RuntimeError"] * 2
    assert all("modified by an inplace operation" in e[1] for e in a[1:])


def test_grad_prunes_to_inputs():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = torch.tensor(B, requires_grad=True)
        h = (x * y).sin()
        side = (y.exp() * 3).sum()        # reaches y only
        k = h * 2 + h.cos()
        out = k.sum() + side
        g1 = torch.autograd.grad(out, [h], retain_graph=True)
        g2 = torch.autograd.grad(out, [x, k], retain_graph=True)
        g3 = torch.autograd.grad(out, [y], retain_graph=True)
        g4 = torch.autograd.grad([out, k.sum()], [x, y], allow_unused=True)
        return list(g1) + list(g2) + list(g3) + list(g4)
    a, b = both(run)
    parity_only()
    assert_same(a, b)


def test_backward_inputs_on_branching_graph():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = torch.tensor(B, requires_grad=True)
        h = x * y
        out = (h.exp() + h * x + y.sin()).sum()
        out.backward(inputs=[y], retain_graph=True)
        gy = y.grad.clone()
        out.backward(inputs=[x, h], retain_graph=True)
        return [gy, x.grad, y.grad]
    a, b = both(run)
    parity_only()
    assert_same(a, b)


def test_fused_backward_after_inplace_shape_change(fuse_after):
    # ``add`` keeps its inputs' shapes for the fused program's key; an input that does
    # not require grad may be transposed in place afterwards (PyTorch's add saves none)
    fuse_after(2)

    def run(torch):
        x = torch.tensor(np.tile(A[0], (3, 1)), requires_grad=True)
        grads = []
        for step in range(6):
            x.grad = None
            c = torch.tensor(B[:, :1].repeat(2, 0)[:3] if step % 2 else B[0][None])
            h = (x * x + c).exp()
            c.t_()
            h.sum().backward()
            grads.append(x.grad.clone())
        return grads

    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    x = np.tile(A[0], (3, 1))
    for step, g in enumerate(a):   # the fused steps give the eager steps' gradients
        c = B[:, :1].repeat(2, 0)[:3] if step % 2 else B[0][None]
        np.testing.assert_allclose(np.asarray(g), 2 * x * np.exp(x * x + c), rtol=1e-5)


def test_grad_of_leaves_runs_fused(fuse_after):
    fuse_after(2)

    def run(torch, n):
        x = torch.tensor(A, requires_grad=True)
        y = torch.tensor(B, requires_grad=True)
        w = torch.tensor(B.T.copy(), requires_grad=True)
        out = []
        for _ in range(n):
            h = (x * y).sin().matmul(w)
            side = (y.exp() * w.t()).sum()      # reaches y and w only
            loss = (h * h).mean() + side
            out.append(torch.autograd.grad(loss, [x, w, x], retain_graph=True))
            out.append(torch.autograd.grad(loss * 1.0 + x.sum(), [y]))
        assert x.grad is None and y.grad is None and w.grad is None
        return out

    steps = run(tl, 4)
    assert len(_fusion._fused) == 2            # both programs ran fused from step 2 on
    for k in range(2, 8, 2):                  # fused steps give the eager step's grads
        for u, v in zip(list(steps[k]) + list(steps[k + 1]), list(steps[0]) + list(steps[1])):
            np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-5, atol=1e-6)
    if HAVE_TORCH:
        expected = run(torch, 1)
        for k in range(0, 8, 2):
            assert_same(list(steps[k]), list(expected[0]))
            assert_same(list(steps[k + 1]), list(expected[1]))


def test_grad_fused_leaves_hooks_and_nonleaf_inputs_to_the_eager_walk(fuse_after):
    fuse_after(1)

    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        seen = []
        x.register_hook(lambda g: seen.append(1) or g * 2)
        out = []
        for _ in range(3):
            h = x.exp()
            loss = (h * x).sum()
            out.append(torch.autograd.grad(loss, [x], retain_graph=True)[0])
            out.append(torch.autograd.grad((h * 3).sum(), [h])[0])
        return out, len(seen)

    (a, na), torch_half = run(tl), (run(torch) if HAVE_TORCH else None)
    assert na == 3
    if HAVE_TORCH:
        b, nb = torch_half
        assert nb == 3
        assert_same(a, b)
    for gx, gh in zip(a[::2], a[1::2]):       # the hook doubles x's gradient
        np.testing.assert_allclose(np.asarray(gx), 2 * np.exp(A) * (A + 1), rtol=1e-5)
        np.testing.assert_array_equal(np.asarray(gh), np.full_like(A, 3.0))
    assert len(_fusion._fused) == 0
