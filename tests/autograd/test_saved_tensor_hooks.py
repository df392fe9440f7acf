"""``torch.autograd.graph.saved_tensors_hooks``, ``save_on_cpu`` and
``disable_saved_tensors_hooks`` against PyTorch: which tensors each node packs (count,
shapes, input or output), gradients computed from what ``unpack_hook`` returns, the
errors, ``retain_graph`` and double backward."""

from __future__ import annotations

import contextlib
import gc
import threading
import weakref

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, equal_in_both, error_of, torch


def _vals(t):
    if isinstance(t, (tuple, list)):
        return [_vals(u) for u in t]
    return None if t is None else [round(float(v), 4) for v in t.detach().reshape(-1)]


def _ident(T, pack_log):
    def pack(t):
        pack_log.append(t)
        return t
    return T.autograd.graph.saved_tensors_hooks(pack, lambda t: t)


# ---------------------------------------------------------------------------
# what is packed
def _ops(T):
    x = T.tensor([[1., 2., 3.], [0.5, -1., 2.]], requires_grad=True)
    w = T.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
    c = T.tensor([[2., 1., 0.5], [1., 1., 1.]])

    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            out = a * b
            ctx.save_for_backward(a, out, None)
            return out

        @staticmethod
        def backward(ctx, g):
            a, out, none = ctx.saved_tensors
            assert none is None
            return g * out, g * a

    def inplace():
        z = x.clone()
        z.mul_(c)
        z.exp_()
        return z

    return x, w, c, [
        ("mul", lambda: x * x), ("mul_const", lambda: x * c), ("mul_scalar", lambda: x * 2),
        ("pow", lambda: x.pow(2)), ("exp", lambda: x.exp()), ("sin", lambda: x.sin()),
        ("matmul", lambda: x @ w), ("matmul_const", lambda: c @ w),
        ("relu", lambda: x.relu()), ("tanh", lambda: x.tanh()), ("add", lambda: x + x),
        ("sum", lambda: x.sum()), ("view", lambda: x.view(3, 2)),
        ("function", lambda: F.apply(x, c)), ("inplace", inplace)]


def _packs(T):
    x, w, c, ops = _ops(T)
    res = {}
    for name, f in ops:
        log: list = []
        with _ident(T, log):
            y = f()
        # (shape, is the input x, is the output); an in-place op's output is compared
        # by value (see below)
        res[name] = [(tuple(t.shape), t is x, t is y) for t in log]
    return res


def test_pack_calls_match_pytorch():
    res = _packs(tl)
    if HAVE_TORCH:
        ref = _packs(torch)
        for name in ref:
            if name == "inplace":
                # PyTorch packs the written tensor itself; torchlike's in-place op
                # records its out-of-place node first and packs that output, of the
                # same value
                assert [s for s, *_ in res[name]] == [s for s, *_ in ref[name]]
                assert ref[name][1][2] and not res[name][1][2]
            else:
                assert res[name] == ref[name], name
    assert res["mul"] == [((2, 3), True, False)] * 2
    assert res["exp"] == [((2, 3), False, True)]
    assert res["add"] == res["sum"] == res["view"] == res["mul_scalar"] == []


def test_packed_values_match():
    # the packed tensor has the value (and grad_fn name) PyTorch's has
    def run(T):
        log: list = []
        x = T.tensor([1., -2., 3.], requires_grad=True)
        with _ident(T, log):
            (x * x.exp()).relu()
        return [(_vals(t), t.grad_fn.name() if t.grad_fn else None, t.requires_grad)
                for t in log]
    out = equal_in_both(run)
    assert len(out) == 4


def test_no_pack_without_grad():
    def run(T):
        log: list = []
        x = T.tensor([1., 2.], requires_grad=True)
        with _ident(T, log):
            with T.no_grad():
                x.pow(2)
            T.ones(2).sin()
        return len(log)
    assert equal_in_both(run) == 0


# ---------------------------------------------------------------------------
# gradients follow what unpack_hook returns
_UNPACK_CASES = {
    "pow": lambda x: x.pow(2),
    "exp": lambda x: x.exp(),
    "relu": lambda x: x.relu(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "sqrt": lambda x: x.sqrt(),
    "reciprocal": lambda x: x.reciprocal(),
    "sin": lambda x: x.sin(),
    "mul": lambda x: x * x,
    "mul_const": lambda x: x * x.detach().cos(),
}


@pytest.mark.parametrize("op", list(_UNPACK_CASES))
def test_gradient_uses_unpacked_value(op):
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
            y = _UNPACK_CASES[op](x)
        return _vals(T.autograd.grad(y.sum(), x))
    equal_in_both(run)


def test_gradient_uses_unpacked_value_matmul_and_function():
    def run(T):
        a = T.tensor([[1., 2., 3.], [0.5, -1., 2.]], requires_grad=True)
        w = T.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, u):
                ctx.save_for_backward(u)
                return u * 2

            @staticmethod
            def backward(ctx, g):
                u, = ctx.saved_tensors
                return g * u

        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
            y = a @ w
            z = F.apply(a)
        return _vals(T.autograd.grad(y.sum() + z.sum(), [a, w]))
    equal_in_both(run)


def test_unpack_dtype_and_broadcast():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        out = []
        for unpack in (lambda t: t.double(), lambda t: t[:1]):
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
                y = x.pow(2)
            g, = T.autograd.grad(y.sum(), x)
            out.append((_vals(g), str(g.dtype).split(".")[-1]))
        return out
    equal_in_both(run)


def test_packed_object_need_not_be_a_tensor():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        store = {}

        def pack(t):
            store[len(store)] = t.detach().clone()
            return len(store) - 1

        with T.autograd.graph.saved_tensors_hooks(pack, lambda k: store[k]):
            y = (x.sin() * x).sum()
        return _vals(T.autograd.grad(y, x)), sorted(store)
    equal_in_both(run)


# ---------------------------------------------------------------------------
# errors
_BAD_UNPACK = {
    "int": lambda t: 3,
    "none": lambda t: None,
    "shape": lambda t: t[:2],
    "integer_dtype": lambda t: t.int(),
}


@pytest.mark.parametrize("case", list(_BAD_UNPACK))
def test_unpack_errors(case):
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, _BAD_UNPACK[case]):
            y = x.pow(2)
        return error_of(lambda: T.autograd.grad(y.sum(), x))
    err = equal_in_both(run)
    assert err is not None


def test_unpack_shape_torchlike_refuses():
    # PyTorch's formula broadcasts a (3, 1) value against the (3,) gradient and sums the
    # result back; torchlike computes at the saved shape and refuses (documented)
    x = tl.tensor([1., 2., 3.], requires_grad=True)
    with tl.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t.reshape(3, 1)):
        y = x.pow(2)
    with pytest.raises(RuntimeError, match=r"unpack_hook returned a tensor of shape \[3, 1\]"):
        tl.autograd.grad(y.sum(), x)


def _disabled(T):
    G = T.autograd.graph
    x = T.tensor([1., 2.], requires_grad=True)
    out = []

    def enter_hooks():
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

    with G.disable_saved_tensors_hooks("hooks are off here"):
        out.append(error_of(enter_hooks))
        with G.disable_saved_tensors_hooks("inner"):
            out.append(error_of(enter_hooks))
        out.append(error_of(enter_hooks))
        out.append(_vals(x.sin()))          # ops run as usual
    out.append(error_of(enter_hooks))         # re-enabled on exit

    def disable_inside_hooks():
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            with G.disable_saved_tensors_hooks("not while hooks are active"):
                pass
    out.append(error_of(disable_inside_hooks))
    out.append(error_of(enter_hooks))         # the failed enter left nothing behind

    @G.disable_saved_tensors_hooks("as a decorator")
    def decorated():
        enter_hooks()
    out.append(error_of(decorated))
    return out


def test_disable_saved_tensors_hooks():
    out = equal_in_both(_disabled)
    assert out[0] == ("RuntimeError", "hooks are off here")
    assert out[1] == ("RuntimeError", "inner")
    assert out[4] is None and out[6] is None


def test_backward_twice_raises():
    def run(T):
        x = T.tensor([1., 2.], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.sin().sum()
            z = x.exp().sum()
        y.backward()
        z.backward()
        return error_of(y.backward), error_of(z.backward)
    a, b = equal_in_both(run)
    assert a[0] == b[0] == "RuntimeError" and "second time" in a[1]


# ---------------------------------------------------------------------------
# retain_graph, double backward, versions, nesting
def _counts(T):
    x = T.tensor([1., 2., 3.], requires_grad=True)
    n = {"pack": 0, "unpack": 0}

    def pack(t):
        n["pack"] += 1
        return t

    def unpack(t):
        n["unpack"] += 1
        return t

    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    y.backward(retain_graph=True)
    first = dict(n)
    y.backward()
    return first, dict(n), _vals(x.grad)


def test_retain_graph_unpacks_each_time():
    first, second, grad = equal_in_both(_counts)
    assert first == {"pack": 2, "unpack": 2} and second == {"pack": 2, "unpack": 4}


def test_double_backward_with_hooks():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        n = [0]

        def unpack(t):
            n[0] += 1
            return t

        with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
            y = x.pow(3).sum()
            g, = T.autograd.grad(y, x, create_graph=True)
        after_first = n[0]
        g2, = T.autograd.grad(g.sum(), x)
        z = x.exp()
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            h, = T.autograd.grad(z.sum(), x, create_graph=True)
        h2, = T.autograd.grad(h.sum(), x)
        return after_first, n[0] > after_first, _vals(g), g.requires_grad, _vals(g2), \
            _vals(h2)
    out = equal_in_both(run)
    assert out[0] == 1 and out[1]


def test_no_version_check_on_packed_tensors():
    # PyTorch does not version-check a tensor that went through pack_hook: the gradient
    # reads what unpack_hook returns, here the modified tensor itself
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        a = x * 1
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = a.sin()
        with T.no_grad():
            a.mul_(2)
        return _vals(T.autograd.grad(y.sum(), x))
    equal_in_both(run)


def test_nested_hooks_innermost_applies():
    def run(T):
        G = T.autograd.graph
        x = T.tensor([1., 2.], requires_grad=True)
        log = []
        with G.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
            with G.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
                x.sin()
            x.cos()
        x.tan()
        return log
    assert equal_in_both(run) == ["inner", "outer"]


def test_hooks_are_off_inside_pack_hook():
    def run(T):
        x = T.tensor([1., 2.], requires_grad=True)
        n = [0]

        def pack(t):
            n[0] += 1
            return t * t           # saves tensors, but packs nothing more

        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t.sqrt()):
            y = x.sin()
        return n[0], _vals(T.autograd.grad(y.sum(), x))
    assert equal_in_both(run)[0] == 1


def test_hooks_are_thread_local():
    log: list = []
    x = tl.tensor([1., 2.], requires_grad=True)
    seen = []
    with _ident(tl, log):
        t = threading.Thread(target=lambda: seen.append(type(x.sin().grad_fn).__name__))
        t.start()
        t.join()
        x.sin()
    assert len(log) == 1 and seen == ["OpNode"]


def test_function_saved_tensors_unpack_per_access():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        n = [0]

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                b, = ctx.saved_tensors
                return g * a * b

        def unpack(t):
            n[0] += 1
            return t

        with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = F.apply(x)
        return _vals(T.autograd.grad(y.sum(), x)), n[0]
    assert equal_in_both(run)[1] == 2


# ---------------------------------------------------------------------------
# memory: the node keeps only what pack_hook returned
def test_node_drops_saved_values():
    x = tl.randn(64, 64, requires_grad=True)
    h = (x * 2).sin()            # a non-leaf input, freed once nothing else holds it
    ref = weakref.ref(h)
    with tl.autograd.graph.saved_tensors_hooks(lambda t: t.shape, lambda s: tl.ones(s)):
        y = h.exp() * h
    del h
    gc.collect()
    assert ref() is None
    g, = tl.autograd.grad(y.sum(), x)
    assert g.shape == (64, 64)


def test_save_on_cpu():
    def run(T):
        x = T.tensor([1., 2., 3.], requires_grad=True)
        out = []
        for pin in (False, True):
            with T.autograd.graph.save_on_cpu(pin_memory=pin):
                y = (x * x.exp()).sum()
            out.append(_vals(T.autograd.grad(y, x)))
        return out
    equal_in_both(run)
    hooks = tl.autograd.graph.save_on_cpu()
    t = tl.ones(2)
    device, packed = hooks.pack_hook(t)
    assert str(device) == "cpu" and packed.device.type == "cpu"
    assert hooks.unpack_hook((device, packed)).device == t.device


def test_traced_and_compiled_code_keeps_its_residuals():
    # ops recorded while a function is traced, and a compiled module's forward, keep
    # JAX's residuals (Note [Saved tensor hooks]): no pack call, the usual gradients
    import jax

    n = [0]

    def pack(t):
        n[0] += 1
        return t

    def f(a):
        x = tl.from_jax(a).requires_grad_()
        with tl.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 0):
            y = x.sin().sum()
        g, = tl.autograd.grad(y, x)
        return g.jax()

    a = jax.numpy.array([0.5, 1.0])
    assert jax.numpy.allclose(jax.jit(f)(a), jax.numpy.cos(a))
    m = tl.nn.Linear(3, 2)
    cm = tl.compile(m)
    x = tl.randn(4, 3, requires_grad=True)
    with tl.autograd.graph.saved_tensors_hooks(pack, lambda t: t * 0):
        cm(x).sum().backward()
    assert n[0] == 0
    assert tl.allclose(x.grad, m.weight.sum(0).expand(4, 3))


def test_save_tables_decide_version_checks():
    # the tables pack_hook follows are PyTorch's: relu saves its result, mm/matmul save
    # an operand only when the other one requires grad; without hooks they decide which
    # in-place writes break the backward
    def run(T):
        out = []
        x = T.tensor([1., -2., 3.], requires_grad=True)
        a = x * 1
        y = a.relu()
        with T.no_grad():
            a.add_(1)                    # relu's input is not saved
        out.append(error_of(lambda: y.sum().backward()))
        b = x * 1
        z = b.relu()
        with T.no_grad():
            z.add_(1)                    # its result is
        out.append(error_of(lambda: z.sum().backward()))
        w = T.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        c = T.tensor([[1., 0.], [0., 1.]])
        m = w * 1
        p = c @ m                        # saves c only
        with T.no_grad():
            m.mul_(2)
        out.append(error_of(lambda: p.sum().backward()))
        q = c.mm(w * 1)
        with T.no_grad():
            c.mul_(2)
        out.append(error_of(lambda: q.sum().backward()))
        return out
    out = equal_in_both(run)
    assert out[0] is None and out[2] is None
    assert "modified by an inplace operation" in out[1][1]
    assert "modified by an inplace operation" in out[3][1]


# ---------------------------------------------------------------------------
# allow_mutation_on_saved_tensors
def _mutations(T):
    G = T.autograd.graph
    out = []
    with G.allow_mutation_on_saved_tensors() as ctx:
        a = T.ones(2, 3, requires_grad=True)
        b = a.clone()
        y = (b ** 2).sum()
        b.sin_()                         # b was saved by pow: allowed
        y.backward()
        out.append(_vals(a.grad))
        x = T.tensor([1., 2.], requires_grad=True)
        r = (x * 1).exp()                # exp saves its result
        r.mul_(3)
        r.sum().backward()
        out.append(_vals(x.grad))
        v = T.tensor([1., 2.], requires_grad=True)
        w = v * 1
        z = (w * w).sum()
        w[0:1].mul_(5)                   # a write through a view of a saved tensor
        z.backward()
        out.append(_vals(v.grad))
        out.append(type(ctx).__name__)
    with G.allow_mutation_on_saved_tensors():
        p = T.ones(2, requires_grad=True)
        q = (p.clone() ** 2).sum()
    out.append(error_of(q.backward))

    def nested():
        with G.allow_mutation_on_saved_tensors():
            with G.allow_mutation_on_saved_tensors():
                pass
    out.append(error_of(nested))
    return out


def test_allow_mutation_on_saved_tensors():
    out = equal_in_both(_mutations)
    assert out[0] == [2.0] * 6 and out[2] == [2.0, 4.0]
    assert out[4][0] == "AssertionError" and "outside of the" in out[4][1]
    assert out[5] == ("RuntimeError",
                      "allow_mutation_on_saved_tensors contexts cannot be nested")
    # without it, the same write breaks the backward
    a = tl.ones(2, requires_grad=True)
    b = a.clone()
    y = (b ** 2).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def _first_grad_samples():
    from .. import test_op_table as T
    seen, out = set(), []
    for c in T.CASES:
        spec, smp, cid = c.values
        if spec.differentiable and smp.grad and spec.name not in seen:
            seen.add(spec.name)
            out.append(pytest.param(spec, smp, id=cid))
    return out


@pytest.mark.parametrize("spec,smp", _first_grad_samples())
def test_identity_hooks_keep_every_op_gradient(spec, smp):
    # a packed node computes its VJP from the unpacked saved tensors and zeros for the
    # inputs PyTorch's node does not save; with hooks that give the tensors back, every
    # op's gradient must be the one it has without hooks (an op whose VJP reads an
    # unsaved input needs an entry in _saved_hooks._VJP_READS)
    from .. import test_op_table as T

    def grads(hooks: bool):
        ctx = (tl.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t) if hooks
               else contextlib.nullcontext())
        with ctx:
            out, leaves = T._run("tl", spec, smp, grad=True)
        if isinstance(out, Exception) or not leaves:
            return None
        outs = [o for o in T._outputs(out) if isinstance(o, tl.Tensor) and o.requires_grad]
        if not outs:
            return None
        w = np.random.default_rng(0)
        loss = sum((o.to(tl.float64) * tl.tensor(w.uniform(0.5, 1.5, tuple(o.shape)))).sum()
                   for o in outs)
        return tl.autograd.grad(loss, leaves, allow_unused=True)

    plain = grads(False)
    if plain is None:
        pytest.skip("no differentiable output")
    hooked = grads(True)
    for g, h in zip(plain, hooked):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(np.asarray(h.detach()), np.asarray(g.detach()),
                                       rtol=1e-6, atol=1e-7, equal_nan=True)
