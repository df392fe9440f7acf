"""The tape and the engine against PyTorch: requires_grad propagation, grad_fn names and
next_functions, backward/grad semantics, retain_graph, create_graph, hooks and their
order, views and in-place ops, and PyTorch's error types and messages. The seeds'
autograd snippets run here with their printed values."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, assert_same, normalize_error, torch

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3)).astype(np.float32)
Bm = rng.standard_normal((2, 3)).astype(np.float32)


def both(fn):
    """``fn(tl)``, and ``fn(torch)`` where PyTorch is installed (else None): torchlike's
    half always runs."""
    return fn(tl), (fn(torch) if HAVE_TORCH else None)


def parity_only():
    """Skip the rest of a test that only compares with PyTorch, where it is absent. Call it
    after torchlike's half has run, so that a crash there still fails the test."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: torchlike ran, the comparison skips")


def err(fn):
    """(exception type name, message normalized to torch's spelling) of ``fn()``."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return type(e).__name__, normalize_error(str(e))
    return None


def graph_of(t, depth=4):
    """grad_fn names and next_functions structure, recursively."""
    if t is None:
        return None
    fn = t.grad_fn if hasattr(t, "grad_fn") else t
    if fn is None:
        return None
    name = fn.name().replace("torch::autograd::", "")
    if depth == 0:
        return name
    return (name, tuple((None if n is None else graph_of(n, depth - 1), i)
                             for n, i in fn.next_functions))


# --------------------------------------------------------------------- the seeds
def test_seed_001_gradient_and_retain_graph():
    """Seed 001: y.backward(gradient, retain_graph=True) twice accumulates."""
    def run(torch):
        x = torch.tensor([[0.0, 0.0], [1.0, 2.0]], requires_grad=True)
        a, b, c = torch.tensor(1.0), torch.tensor(-2.0), torch.tensor(1.0)
        y = a * torch.pow(x, 2) + b * x + c
        gradient = torch.tensor([[1.0, 1.0], [1.0, 2.0]])
        y.backward(gradient=gradient, retain_graph=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            yg = y.grad
        g1 = x.grad.clone()
        y.backward(gradient=gradient)
        return yg, g1, x.grad, len(w), str(w[0].message).split(" (Triggered")[0]
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    assert a[0] is None
    np.testing.assert_array_equal(np.asarray(a[1]), [[-2., -2.], [0., 4.]])
    np.testing.assert_array_equal(np.asarray(a[2]), [[-4., -4.], [0., 8.]])
    assert str(a[2]) == "tensor([[-4., -4.],\n        [ 0.,  8.]])"


def test_seed_001_retain_grad_and_hooks(capsys):
    """Seed 001: hook prints in PyTorch's order, then retained grads."""
    def run(torch):
        x = torch.tensor(3.0, requires_grad=True)
        y1 = x + 1
        y2 = 2 * x
        loss = (y1 - y2) ** 2
        y1.register_hook(lambda grad: print('y1.register_hook grad: ', grad))
        y2.register_hook(lambda grad: print('y2.register_hook grad: ', grad))
        y1.retain_grad()
        y2.retain_grad()
        loss.retain_grad()
        loss.backward()
        print("loss.grad:", loss.grad)
        print("y1.grad:", y1.grad)
        print("y2.grad:", y2.grad)
        print("x.grad:", x.grad)
        return capsys.readouterr().out
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a == ("y2.register_hook grad:  tensor(4.)\ny1.register_hook grad:  tensor(-4.)\n"
                 "loss.grad: tensor(1.)\ny1.grad: tensor(-4.)\ny2.grad: tensor(4.)\n"
                 "x.grad: tensor(4.)\n")


def test_seed_001_requires_grad_propagation():
    def run(torch):
        x, y = torch.randn(5, 5), torch.randn(5, 5)
        z = torch.randn((5, 5), requires_grad=True)
        a = x + y
        b = a + z
        return a.requires_grad, b.requires_grad, z.is_leaf, b.is_leaf, a.is_leaf
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a == (False, True, True, False, True)


def test_seed_003_variable_grad_fn_next_functions():
    def run(torch):
        V = torch.autograd.Variable
        x = V(torch.ones(1))
        b = V(torch.rand(1), requires_grad=True)
        w = V(torch.rand(1), requires_grad=True)
        y = w * x
        z = y + b
        return ((x.requires_grad, b.requires_grad, w.requires_grad),
                (x.is_leaf, w.is_leaf, b.is_leaf), graph_of(z))
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a[:2] == ((False, True, True), (True, True, True))
    assert a[2] == ("AddBackward0", ((("MulBackward0", ((("AccumulateGrad", ()), 0),
                                                        (None, 0))), 0),
                                     (("AccumulateGrad", ()), 0)))


def test_seed_003_autograd_grad_and_hook(capsys):
    def run(torch):
        x = torch.ones(3, requires_grad=True)
        w = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
        y = x * w
        z = y.sum()
        r1 = (x.requires_grad, w.requires_grad, y.requires_grad)
        z.backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r2 = (x.grad, w.grad, y.grad)
        x = torch.ones(3, requires_grad=True)
        y = x * w
        z = y.sum()
        r3 = torch.autograd.grad(z, y)

        def variable_hook(grad):
            print('y的梯度: \r\n', grad)
        x = torch.ones(3, requires_grad=True)
        y = x * w
        handle = y.register_hook(variable_hook)
        z = y.sum()
        z.backward()
        handle.remove()
        x = torch.ones(3, requires_grad=True)
        y = x * w
        (y + 1).sum().backward()   # a new graph: the removed hook is gone
        return r1, r2, r3, capsys.readouterr().out
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a[:3], b[:3])
        assert a[3] == b[3]
    assert a[0] == (True, True, True)
    np.testing.assert_allclose(np.asarray(a[1][0]), [0.1, 0.2, 0.3])
    # w.grad is accumulated into in place by the two later backward calls
    np.testing.assert_array_equal(np.asarray(a[1][1]), [3.0, 3.0, 3.0])
    assert a[1][2] is None
    np.testing.assert_array_equal(np.asarray(a[2][0]), [1.0, 1.0, 1.0])
    assert a[3] == "y的梯度: \r\n tensor([1., 1., 1.])\n"


def test_seed_003_detach_blocks_gradient():
    def run(torch):
        w1 = torch.tensor([[0.5], [-0.3]], requires_grad=True)
        w2 = torch.tensor([[0.2, 0.7]], requires_grad=True)
        x = torch.tensor([5.0])
        z = w1 @ x[None] if False else (w1 * x).sum(1)
        xp = (w2 * z.detach()).sum()
        ((xp - x) ** 2).sum().backward()
        return w1.grad, w2.grad, z.requires_grad, z.detach().requires_grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    # z = [2.5, -1.5] reaches the loss only detached: w1 gets no gradient
    assert a[0] is None and a[2] is True and a[3] is False
    np.testing.assert_allclose(np.asarray(a[1]), [[2 * -5.55 * 2.5, 2 * -5.55 * -1.5]],
                               rtol=1e-5)


def test_seed_003_detach_inplace():
    def run(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.detach_()
        return y.requires_grad, y.is_leaf, y.grad_fn
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a == (False, True, None)


# --------------------------------------------------------------------- graph structure
@pytest.mark.parametrize("expr", [
    "x + 1", "1 + x", "2 * x", "x * 2", "x - 1", "x / 2", "x ** 2", "x + y", "x * y",
    "x.exp()",
    "x.sum()", "x.mean()", "x.view(3, 2)", "x.t()", "x[0]", "x[:, 1:]", "x.sin().cos()",
    "torch.where(x > 0, x, y)", "x.clone()", "torch.pow(x, y)", "x.unsqueeze(0)",
    "x.sigmoid()", "x.tanh()", "x.reshape(-1)", "x.exp().exp_()", "x.abs()",
    "torch.clamp(x, min=0)", "x.sqrt()", "(x * y).sum(1)",
])
def test_grad_fn_names_and_next_functions(expr):
    def run(torch):
        x = torch.tensor(np.abs(A) + 0.1, requires_grad=True)  # noqa: F841 (read by eval)
        y = torch.tensor(Bm)  # noqa: F841 (read by eval)
        return graph_of(eval(expr))
    a, b = both(run)
    parity_only()
    assert a == b


def test_no_grad_outputs_and_integer_outputs():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        with torch.no_grad():
            a = x * 2
        b = (x > 0)
        c = x.argmax() if hasattr(x, "argmax") else None
        with torch.enable_grad():
            d = x * 2
        with torch.set_grad_enabled(False):
            e = x * 2
        with torch.inference_mode():
            f = x * 2
        return (a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad,
                e.requires_grad, f.requires_grad, torch.is_grad_enabled())
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a == (False, False, False, True, False, False, True)


def test_grad_mode_decorators_and_thread_local():
    def run(torch):
        @torch.no_grad()
        def f(x):
            return (x * 2).requires_grad

        @torch.enable_grad()
        def g(x):
            return (x * 2).requires_grad

        x = torch.ones(2, requires_grad=True)
        res = [f(x)]
        with torch.no_grad():
            res.append(g(x))
        torch.set_grad_enabled(False)
        res.append(torch.is_grad_enabled())
        seen = []
        t = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
        t.start()
        t.join()
        torch.set_grad_enabled(True)
        res.append(seen[0])
        return res
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a == [False, True, False, True]


def test_data_and_detach_share_memory():
    def run(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        d.mul_(3)
        e = x.detach()
        e.add_(1)
        y = (x * x).sum()
        y.backward()
        return x, x.grad, d.requires_grad, e.requires_grad, x._version, e._version
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    np.testing.assert_array_equal(np.asarray(a[0].detach()), [4.0, 7.0])
    np.testing.assert_array_equal(np.asarray(a[1]), [8.0, 14.0])
    assert a[2:] == (False, False, 1, 1)


# --------------------------------------------------------------------- backward / grad
def test_second_backward_raises_and_retain_graph():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward()
        return err(lambda: y.backward())
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a[0] == "RuntimeError"
    assert a[1].startswith("Trying to backward through the graph a second time")


def test_backward_twice_ok_when_nothing_saved():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    np.testing.assert_array_equal(np.asarray(a), np.full((2, 3), 2.0))


def test_backward_errors():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        return (err(lambda: (x * 2).backward()),
                err(lambda: torch.tensor(A).sum().backward()),
                err(lambda: torch.tensor([1, 2]).requires_grad_()),
                err(lambda: torch.tensor([1, 2], dtype=torch.int64).float().requires_grad_()
                    and None),
                err(lambda: x.add_(1)),
                err(lambda: (x * 2).requires_grad_(False)),
                err(lambda: x.sum().backward(torch.ones(2))),
                err(lambda: torch.autograd.grad((x * 2).sum(), torch.ones(2))),
                err(lambda: torch.autograd.grad((x * 2).sum(), [x, torch.ones(2,
                                                                            requires_grad=True)])),
                err(lambda: torch.tensor([1.0]).register_hook(lambda g: g)))
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert [e[0] for e in a] == ["RuntimeError"] * 10
    assert a[0][1] == "grad can be implicitly created only for scalar outputs"
    assert a[2][1] == "only Tensors of floating point dtype can require gradients"


def test_inplace_saved_tensor_errors():
    def run(torch):
        out = []
        x = torch.tensor(A[:, :2].copy(), requires_grad=True)
        b = x.clone()
        b.exp_()
        b.add_(1)
        out.append(err(lambda: b.sum().backward()))
        x = torch.tensor(A[0], requires_grad=True)
        w = torch.tensor(Bm[0], requires_grad=True)
        z = x.clone()
        q = z * w
        z.add_(1)
        out.append(err(lambda: q.sum().backward()))
        l = torch.tensor(A[0])
        p = torch.tensor(Bm[0], requires_grad=True)
        q = l * p
        l.add_(1)
        out.append(err(lambda: q.sum().backward()))
        # add saves nothing: no error
        l = torch.tensor(A[0])
        q = l + p
        l.add_(1)
        q.sum().backward()
        out.append(p.grad)
        return out
    a, b = both(run)
    if HAVE_TORCH:
        assert a[:3] == b[:3]
    assert "which is output 0 of Exp, is at version 2; expected version 1" in a[0][1]
    assert [e[0] for e in a[:3]] == ["RuntimeError"] * 3
    if HAVE_TORCH:
        assert_same(a[3], b[3])
    np.testing.assert_array_equal(np.asarray(a[3]), [1.0, 1.0, 1.0])


def test_grad_create_graph_second_derivative_and_penalty():
    def run(torch):
        x = torch.tensor(A.astype(np.float64), requires_grad=True)
        w = torch.tensor(Bm.astype(np.float64), requires_grad=True)
        loss = ((x * w).sin() * x).sum()
        gx, gw = torch.autograd.grad(loss, [x, w], create_graph=True)
        gg = torch.autograd.grad(gx.sum(), x, retain_graph=True)[0]
        grad_norm = (gx.pow(2).sum() + gw.pow(2).sum()).sqrt()
        total = loss + grad_norm
        total.backward()
        return gx, gw, gg, x.grad, w.grad
    a, b = both(run)
    parity_only()
    assert_same(a, b, rtol=1e-10, atol=1e-10)


def test_grad_options():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = torch.tensor(Bm, requires_grad=True)
        out = (x * 2).sum()
        r1 = torch.autograd.grad(out, [x, y], allow_unused=True, retain_graph=True)
        r2 = torch.autograd.grad(out, [x, y], materialize_grads=True, retain_graph=True)
        e = err(lambda: torch.autograd.grad(out, [x, y], retain_graph=True))
        z = x * y
        r3 = torch.autograd.grad([z.sum(), (z * z).sum()], [x], retain_graph=True)
        r4 = torch.autograd.grad(z, x, torch.ones_like(z))
        return r1, r2, e, r3, r4, x.grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a[:2], b[:2])
        assert a[2] == b[2]
        assert_same(a[3:], b[3:])
    assert a[0][1] is None
    np.testing.assert_array_equal(np.asarray(a[0][0]), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(np.asarray(a[1][1]), np.zeros((2, 3)))
    assert a[2][0] == "RuntimeError"
    np.testing.assert_allclose(np.asarray(a[3][0]), Bm + 2 * A * Bm * Bm, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(a[4][0]), Bm, rtol=1e-6)
    assert a[5] is None


def test_backward_inputs_and_nonleaf_grad():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        y = torch.tensor(Bm, requires_grad=True)
        h = x * y
        out = (h * h).sum()
        out.backward(inputs=[y, h], retain_graph=True)
        return x.grad, y.grad, h.grad, h.retains_grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    h = A * Bm
    assert a[0] is None and a[3] is True
    np.testing.assert_allclose(np.asarray(a[1]), 2 * h * A, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(a[2]), 2 * h, rtol=1e-5)


def test_autograd_backward_function_multiple_roots():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        a = (x * 2).sum()
        b = x * x
        torch.autograd.backward([a, b], [None, torch.ones_like(b)])
        return x.grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    np.testing.assert_allclose(np.asarray(a), 2 + 2 * A, rtol=1e-6)


# --------------------------------------------------------------------- views and in-place
def test_inplace_on_view_updates_base_graph():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        w = torch.tensor(Bm, requires_grad=True)
        base = x * 1
        v = base[0]
        v.mul_(w[0])
        base[1].add_(w[1] * 2)
        (base * base).sum().backward()
        # names only: PyTorch's CopySlices lists the in-place op's other inputs directly,
        # ours lists the op's node (same gradients)
        return base, x.grad, w.grad, graph_of(base, 0)
    a, b = both(run)
    parity_only()
    assert_same(a, b)


def test_inplace_op_gradients():
    def run(torch):
        x = torch.tensor(np.abs(A) + 0.5, requires_grad=True)
        y = x.clone()
        y.add_(1)
        y.mul_(x)
        y.sub_(1).div_(2)
        y.pow_(2)
        y.sum().backward()
        return y, x.grad, graph_of(y, 2)
    a, b = both(run)
    parity_only()
    assert_same(a, b, rtol=1e-5)


# --------------------------------------------------------------------- hooks
def test_hook_order_and_values():
    def run(torch):
        log = []
        x = torch.tensor(A, requires_grad=True)
        x.register_hook(lambda g: log.append(("x", g.sum().item())))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.sum().item())))
        a = x * 2
        b = x.exp()
        c = a * b
        a.register_hook(lambda g: log.append(("a", g.sum().item())))
        h = b.register_hook(lambda g: g * 10)
        b.register_hook(lambda g: log.append(("b", g.sum().item())))
        c.grad_fn.register_prehook(lambda go: log.append(("pre", len(go))))
        c.grad_fn.register_hook(lambda gi, go: log.append(("post_node", len(gi))))
        c.sum().backward(retain_graph=True)
        g1 = x.grad.clone()
        h.remove()
        x.grad = None
        c.sum().backward()
        return [(k, round(v, 4) if isinstance(v, float) else v) for k, v in log], g1, x.grad
    a, b = both(run)
    parity_only()
    assert a[0] == b[0]
    assert_same(a[1:], b[1:], rtol=1e-5)


def test_hook_replacing_grad_on_leaf_and_removal():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        h = x.register_hook(lambda g: g * 0 + 1)
        (x * 3).sum().backward()
        g1 = x.grad.clone()
        h.remove()
        x.grad.zero_()
        (x * 3).sum().backward()
        return g1, x.grad
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    np.testing.assert_array_equal(np.asarray(a[0]), np.ones((2, 3)))
    np.testing.assert_array_equal(np.asarray(a[1]), np.full((2, 3), 3.0))


def test_grad_in_hook_with_autograd_grad():
    def run(torch):
        x = torch.tensor(A, requires_grad=True)
        x.register_hook(lambda g: g * 2)
        return torch.autograd.grad((x * x).sum(), x)
    a, b = both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    np.testing.assert_allclose(np.asarray(a[0]), 4 * A, rtol=1e-6)


# --------------------------------------------------------------------- anomaly mode
def test_detect_anomaly_names_the_node():
    def run(torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with torch.autograd.detect_anomaly():
                a = torch.zeros(1, requires_grad=True)
                e = err(lambda: (a / a).sum().backward())
        return e, str(w[0].message), "Error detected in DivBackward0" in str(w[1].message)
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a[2] is True
    assert a[0] == ("RuntimeError", "Function 'DivBackward0' returned nan values in its 1th "
                                    "output.")


def test_set_detect_anomaly_inplace_hint():
    def run(torch):
        x = torch.tensor(A[:, :2].copy(), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.set_detect_anomaly(True):
                b = x.clone()
                b.exp_()
                b.add_(1)
                e = err(lambda: b.sum().backward())
        return e, torch.is_anomaly_enabled() if hasattr(torch, "is_anomaly_enabled") else \
            torch.autograd.is_anomaly_enabled()
    a, b = both(run)
    if HAVE_TORCH:
        assert a == b
    assert a[0][0] == "RuntimeError" and "which is output 0 of Exp" in a[0][1]
    assert a[1] is False
