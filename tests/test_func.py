"""``torchlike.func`` against ``torch.func``: values, structures and dtypes of grad,
grad_and_value, vjp, jvp, jacrev, jacfwd, hessian and vmap; their errors; how they meet
eager autograd; ``functional_call``; and their use inside ``jax.jit``/``jax.grad``,
including a torchlike module trained by a hand-written optax loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, torch

rng = np.random.default_rng(0)
X = rng.standard_normal(3).astype(np.float32)
Y = rng.standard_normal(3).astype(np.float32)
A = rng.standard_normal((2, 3)).astype(np.float32)


def _norm(x):
    """Dicts as tuples of (key, value) pairs, which ``assert_same`` compares."""
    if isinstance(x, dict):
        return tuple((k, _norm(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        return type(x)(_norm(v) for v in x)
    return x


def parity(fn, **tol):
    """``fn(m)`` with ``m`` = torchlike, and compared with ``m`` = torch when installed."""
    out = fn(tl)
    if HAVE_TORCH:
        assert_same(_norm(out), _norm(fn(torch)), **tol)
    return out


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e), str(e).replace("torchlike", "torch")
    raise AssertionError("no exception raised")


def err_parity(fn):
    """``fn(m)`` raises the same type and message with torchlike and torch."""
    got = err(lambda: fn(tl))
    if HAVE_TORCH:
        assert got == err(lambda: fn(torch))
    return got


# ---------------------------------------------------------------------------- grad
def test_grad_matches_jax_and_torch():
    g = parity(lambda m: m.func.grad(lambda x: (x.sin() * x).sum())(m.tensor(X)))
    np.testing.assert_allclose(g.numpy(), jax.grad(lambda x: (jnp.sin(x) * x).sum())(X),
                               rtol=1e-6)


def test_grad_argnums_pytrees_aux_and_kwargs():
    def f(p, x, *, scale):
        return ((p["w"] * x + p["b"][0]) ** 2).sum() * scale, x.mean()

    def run(m):
        p = {"w": m.tensor(X), "b": [m.tensor(Y)]}
        g1 = m.func.grad(f, has_aux=True)(p, m.tensor(Y), scale=2.0)
        g2 = m.func.grad_and_value(f, argnums=(0, 1), has_aux=True)(p, m.tensor(Y), scale=0.5)
        g3 = m.func.grad(lambda a, b: (a * b).sum(), argnums=-1)(m.tensor(X), m.tensor(Y))
        return g1[0]["w"], g1[0]["b"], g1[1], g2[0][1], g2[1], g3
    parity(run)


def test_grad_respects_detach_no_grad_and_custom_functions():
    def run(m):
        def f(x):
            with m.no_grad():
                c = x ** 2
            return (x * c + x.sin() * x.detach()).sum()

        class Twice(m.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 1.0

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return 2 * g

        return (m.func.grad(f)(m.tensor(X)),
                m.func.grad(lambda x: Twice.apply(x).sum())(m.tensor(X)))
    parity(run)


def test_grad_of_unused_input_is_zeros_and_nested_grad():
    parity(lambda m: m.func.grad(lambda x, y: (y * 2).sum(), argnums=(0, 1))(
        m.tensor(X), m.tensor(Y)))
    parity(lambda m: m.func.grad(lambda x: m.func.grad(lambda y: (y ** 3).sum())(x).sum())(
        m.tensor(X)))


def test_grad_connects_to_the_outer_tape_as_pytorch():
    def run(m):
        w = m.tensor(X, requires_grad=True)
        plain = m.func.grad(lambda x: (x ** 3).sum())(m.tensor(Y))
        # a gradient penalty: d/dx of a function of closed-over w, then backward to w
        gp = m.func.grad(lambda x: (x * w).sin().sum())(m.tensor(Y))
        (gp ** 2).sum().backward()
        x = m.tensor(Y, requires_grad=True)
        gx = m.func.grad(lambda x: (x ** 3).sum())(x)
        gx.sum().backward()
        return plain.requires_grad, gp.requires_grad, w.grad, gx.requires_grad, x.grad
    parity(run)


def test_grad_errors_match_torch():
    err_parity(lambda m: m.func.grad(lambda x: x * 2)(m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x: 3.0)(m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x: x.sum(), has_aux=True)(m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x: x.sum(), argnums=2)(m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x, y: x.sum(), argnums=(0, 0))(m.ones(3), m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x: x.sum(), argnums=1.0)(m.ones(3)))
    err_parity(lambda m: m.func.grad(lambda x: x.sum())(m.ones(3, dtype=m.int64)))
    err_parity(lambda m: m.func.grad(lambda x: x)(3.0))


# ---------------------------------------------------------------------------- vjp
def test_vjp_values_structure_and_aux():
    def run(m):
        def f(x, y):
            return {"a": x * y, "b": (x.sin(), y.sum())}, x.cos()
        out, fn, aux = m.func.vjp(f, m.tensor(X), m.tensor(Y), has_aux=True)
        cts = {"a": m.ones(3), "b": (m.tensor(Y), m.tensor(2.0))}
        return out["a"], out["b"], aux, fn(cts), fn(cts), out["a"].requires_grad
    parity(run)


def test_vjp_errors_match_torch():
    err_parity(lambda m: m.func.vjp(lambda x: x.sum(), m.ones(3))[1](m.ones(2)))
    err_parity(lambda m: m.func.vjp(lambda x: (x, x), m.ones(3))[1](m.ones(3)))
    err_parity(lambda m: m.func.vjp(lambda x: x.long(), m.ones(3)))
    err_parity(lambda m: m.func.vjp(lambda x: (x, 3), m.ones(3)))
    err_parity(lambda m: m.func.vjp(lambda x: x, m.ones(3), has_aux=True))


# ---------------------------------------------------------------------------- jacobians
@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians(jac):
    def run(m):
        J = getattr(m.func, jac)

        def f(x, y):
            return x.sin() * y.sum(), (x[:2] @ y[:2].unsqueeze(0).expand(2, 2)) * 0.5

        def g(x):
            return x.exp().sum(), x.mean()

        return (J(f)(m.tensor(X), m.tensor(Y)), J(f, argnums=(0, 1))(m.tensor(X), m.tensor(Y)),
                J(g, has_aux=True)(m.tensor(A)),
                J(lambda p: p["w"] @ p["v"])({"w": m.tensor(A), "v": m.tensor(X)}))
    parity(run, rtol=1e-5, atol=1e-5)


def test_jacrev_chunked_and_hessian():
    f = lambda x: (x.sin() * x.sum()).sum()  # noqa: E731
    parity(lambda m: m.func.jacrev(lambda x: x.sin() * x.sum(), chunk_size=2)(m.tensor(X)))
    h = parity(lambda m: m.func.hessian(f)(m.tensor(X)), rtol=1e-5, atol=1e-5)
    ref = jax.hessian(lambda x: (jnp.sin(x) * x.sum()).sum())(X)
    np.testing.assert_allclose(h.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert err(lambda: tl.func.jacrev(f, chunk_size=0))[0] is ValueError


def test_jacrev_stays_connected_when_inputs_require_grad():
    def run(m):
        x = m.tensor(X, requires_grad=True)
        j = m.func.jacrev(lambda x: x ** 3)(x)
        j.sum().backward()
        return j.requires_grad, x.grad
    parity(run)


# ---------------------------------------------------------------------------- jvp
def test_jvp_values_structure_and_aux():
    def run(m):
        def f(x, y):
            return (x * y, {"s": x.sin()}), y.sum()
        return m.func.jvp(f, (m.tensor(X), m.tensor(Y)), (m.ones(3), m.tensor(A[0])),
                          has_aux=True)
    out = parity(run)
    np.testing.assert_allclose(out[1][1]["s"].numpy(), np.cos(X), rtol=1e-6)


def test_jvp_errors_match_torch():
    err_parity(lambda m: m.func.jvp(lambda x: x, [m.ones(3)], [m.ones(3)]))
    err_parity(lambda m: m.func.jvp(lambda x: x, (m.ones(3),), [m.ones(3)]))
    err_parity(lambda m: m.func.jvp(lambda x: x, (3.0,), (1.0,)))
    err_parity(lambda m: m.func.jvp(lambda x: x, (m.ones(3),), (m.ones(2),)))
    err_parity(lambda m: m.func.jvp(lambda x: x, (m.ones(3),), (m.ones(3),), has_aux=True))


def test_jvp_differentiable_through_eager_autograd():
    def run(m):
        x = m.tensor(X, requires_grad=True)
        _, t = m.func.jvp(lambda x: x.sin() * x, (x,), (m.ones(3),))
        t.sum().backward()
        return x.grad
    parity(run)


# ---------------------------------------------------------------------------- vmap
def test_vmap_in_dims_out_dims_kwargs_and_nesting():
    def run(m):
        a, x = m.tensor(A), m.tensor(X)
        r1 = m.func.vmap(m.dot, in_dims=(1, None))(a.t().contiguous(), x)
        r2 = m.func.vmap(lambda p, s: p["a"] * s, in_dims=({"a": 0}, None))({"a": a}, 2.0)
        r3 = m.func.vmap(lambda v: (v.sum(), v * 2), out_dims=(0, 1))(a)
        r4 = m.func.vmap(lambda v, k=1.0: v * k, in_dims=-1)(a, k=3.0)
        r5 = m.func.vmap(m.func.vmap(lambda u, v: u * v), in_dims=(0, None))(a, x)
        r6 = m.func.vmap(lambda v: (v.sum(), 7), out_dims=(0, None))(a)
        r7 = m.func.vmap(lambda v: v.sum() + x.sum(), chunk_size=1)(a)
        return r1, r2, r3, r4, r5, r6, r7
    parity(run)


def test_vmap_of_grad_gives_per_sample_gradients():
    def run(m):
        model = m.nn.Linear(3, 1)
        params = {"weight": m.tensor(A[:1]), "bias": m.tensor(X[:1])}

        def loss(p, x, y):
            out = m.func.functional_call(model, p, (x.unsqueeze(0),))
            return ((out - y) ** 2).mean()

        g = m.func.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(
            params, m.tensor(A), m.tensor(X[:2]))
        return g["weight"], g["bias"]

    w, b = parity(run)
    r = A @ A[0] + X[0] - X[:2]  # per-sample residuals of (w.x + b - y)^2
    np.testing.assert_allclose(w.numpy(), (2 * r[:, None] * A)[:, None, :], rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), 2 * r[:, None], rtol=1e-5)


def test_vmap_errors_match_torch():
    err_parity(lambda m: m.func.vmap(lambda x: x)())
    err_parity(lambda m: m.func.vmap(lambda x, y: x, in_dims=(0,))(m.ones(2), m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: x, in_dims=[0])(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: x, in_dims=2)(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x, y: x)(m.ones(2), 3.0))
    err_parity(lambda m: m.func.vmap(lambda x, y: x)(m.ones(2), m.ones(3)))
    err_parity(lambda m: m.func.vmap(lambda x: x, in_dims=None)(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: 3)(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: x.sum(), out_dims=None)(m.ones(2, 3)))
    err_parity(lambda m: m.func.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: x, out_dims="a")(m.ones(2)))
    err_parity(lambda m: m.func.vmap(lambda x: x, chunk_size=0))
    err_parity(lambda m: m.func.vmap(lambda x: x, randomness="bad"))
    err_parity(lambda m: m.func.vmap(lambda x: x + m.rand(3))(m.ones(2, 3)))


def test_vmap_randomness_modes():
    tl.manual_seed(0)
    same = tl.func.vmap(lambda x: x + tl.rand(3), randomness="same")(tl.zeros(4, 3))
    diff = tl.func.vmap(lambda x: x + tl.rand(3), randomness="different")(tl.zeros(4, 3))
    assert (same == same[0]).all()
    assert len({tuple(r) for r in diff.tolist()}) == 4
    c = tl.func.vmap(lambda x: x + tl.rand(3), randomness="different", chunk_size=3)(
        tl.zeros(4, 3))
    assert len({tuple(r) for r in c.tolist()}) == 4
    tl.manual_seed(0)
    again = tl.func.vmap(lambda x: x + tl.rand(3), randomness="same")(tl.zeros(4, 3))
    assert (again == same).all()  # draws come from the default generator's stream


def test_vmap_gradients_reach_inputs_but_closed_over_parameters_raise():
    def run(m):
        x = m.tensor(A, requires_grad=True)
        w = m.tensor(X, requires_grad=True)
        out = m.func.vmap(lambda r, v: (r * v).sin().sum(), in_dims=(0, None))(x, w)
        out.sum().backward()
        return x.grad, w.grad
    parity(run)
    w = tl.tensor(X, requires_grad=True)
    typ, msg = err(lambda: tl.func.vmap(lambda r: r * w)(tl.tensor(A)))
    assert typ is RuntimeError and "functional_call" in msg
    with tl.no_grad():
        np.testing.assert_allclose(tl.func.vmap(lambda r: r * w)(tl.tensor(A)).numpy(), A * X)


# ---------------------------------------------------------------------------- functional_call
def test_functional_call_swaps_and_restores():
    def run(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2))
        w = m.tensor(A)
        bufs = {k: v.clone() for k, v in net.named_buffers()}
        out = m.func.functional_call(net, ({"0.weight": w}, bufs), m.tensor(A[:, :3]))
        return (out.shape, net[0].weight.shape, m.equal(net[0].weight, w),
                bufs["1.running_mean"], bufs["1.num_batches_tracked"])
    out = run(tl)
    assert out[0] == (2, 2) and not out[2]
    if HAVE_TORCH:
        # same weight values in both frameworks: only the given weight and the buffers
        def same(m):
            net = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2))
            p = {"0.weight": m.tensor(A), "0.bias": m.tensor(X[:2])}
            bufs = {k: v.clone() for k, v in net.named_buffers()}
            out = m.func.functional_call(net, (p, bufs), (m.tensor(A[:, :3]),))
            return out, bufs["1.running_mean"], bufs["1.num_batches_tracked"]
        parity(same)


def test_functional_call_restores_on_error_and_checks_keys():
    net = tl.nn.Linear(3, 2)
    w0 = net.weight

    def boom(x):
        raise ValueError("inside")
    net.register_forward_pre_hook(lambda mod, args: boom(args))
    assert err(lambda: tl.func.functional_call(net, {"weight": tl.zeros(2, 3)}, tl.ones(3)))[0] \
        is ValueError
    assert net.weight is w0 and isinstance(net._parameters["weight"], tl.nn.Parameter)

    err_parity(lambda m: m.func.functional_call(m.nn.Linear(3, 2), {"weight": m.ones(2, 3),
                                                                    "foo": m.ones(1)},
                                                m.ones(3), strict=True))
    err_parity(lambda m: m.func.functional_call(m.nn.Linear(3, 2), ({"weight": m.ones(2, 3)},
                                                                    {"weight": m.ones(2, 3)}),
                                                m.ones(3)))
    err_parity(lambda m: m.func.functional_call(m.nn.Linear(3, 2), [3], m.ones(3)))
    err_parity(lambda m: m.func.functional_call(m.nn.Linear(3, 2), 3, m.ones(3)))
    err_parity(lambda m: m.func.functional_call(m.nn.Linear(3, 2), {"x.weight": m.ones(1)},
                                                m.ones(3)))


def test_functional_call_tied_weights():
    def run(m):
        net = m.nn.Sequential(m.nn.Linear(2, 2, bias=False), m.nn.Linear(2, 2, bias=False))
        net[1].weight = net[0].weight
        w = m.tensor(A[:, :2])
        x = m.tensor(X[:2])
        tied = m.func.functional_call(net, {"0.weight": w}, (x,))
        untied = m.func.functional_call(net, {"0.weight": w}, (x,), tie_weights=False)
        return tied, untied.shape
    parity(run, rtol=1e-5, atol=1e-5)
    err_parity(lambda m: m.func.functional_call(
        _tied(m), {"0.weight": m.ones(2, 2), "1.weight": m.zeros(2, 2)}, (m.ones(2),)))


def _tied(m):
    net = m.nn.Sequential(m.nn.Linear(2, 2, bias=False), m.nn.Linear(2, 2, bias=False))
    net[1].weight = net[0].weight
    return net


def test_functional_call_refuses_to_leak_traced_buffer_writes():
    net = tl.nn.Sequential(tl.nn.Linear(3, 2), tl.nn.BatchNorm1d(2))
    params = {k: v.jax() for k, v in net.named_parameters()}
    mean0 = net[1].running_mean.jax()

    def f(p, x):
        out = tl.func.functional_call(net, {k: tl.from_jax(v) for k, v in p.items()},
                                      (tl.from_jax(x),))
        return out.sum().jax()

    typ, msg = err(lambda: jax.jit(f)(params, jnp.asarray(A[:, :3])))
    assert typ is RuntimeError and "1.running_mean" in msg
    assert net[1].running_mean.jax() is mean0


def test_stack_module_state_for_ensembles():
    def run(m):
        m.manual_seed(0)
        models = [m.nn.Linear(3, 2) for _ in range(2)]
        params, buffers = m.func.stack_module_state(models)
        for mod in models:  # the same weights in both frameworks
            with m.no_grad():
                mod.weight.copy_(m.tensor(A[:, :3]))
        base = m.nn.Linear(3, 2)
        out = m.func.vmap(lambda p, x: m.func.functional_call(base, p, (x,)),
                          in_dims=(0, None))({k: v.detach() for k, v in params.items()},
                                             m.tensor(X))
        return out.shape, params["weight"].requires_grad, sorted(params), buffers
    parity(run)
    assert err(lambda: tl.func.stack_module_state([]))[0] is RuntimeError


# ---------------------------------------------------------------------------- inside JAX
def test_transforms_inside_jax_jit_and_grad():
    def f(a):
        x = tl.from_jax(a)
        g = tl.func.grad(lambda v: (v ** 3).sum())(x)
        j = tl.func.jacfwd(lambda v: v.sin())(x)
        s = tl.func.vmap(lambda v: v * 2)(x.unsqueeze(1))
        return (g.sum() + j.sum() + s.sum()).jax()

    a = jnp.asarray(X)
    ref = lambda v: (3 * v ** 2).sum() + jnp.cos(v).sum() + 2 * v.sum()  # noqa: E731
    np.testing.assert_allclose(jax.jit(f)(a), ref(a), rtol=1e-5)
    np.testing.assert_allclose(jax.grad(f)(a), jax.grad(ref)(a), rtol=1e-5)


def test_gradient_penalty_inside_torchlike_compile():
    def make():
        tl.manual_seed(0)
        model = tl.nn.Linear(3, 1)
        opt = tl.optim.SGD(model.parameters(), lr=0.1)

        def step(x):
            opt.zero_grad()
            gp = tl.func.grad(lambda v: model(v).sum())(x)
            loss = model(x).pow(2).mean() + (gp ** 2).sum()
            loss.backward()
            opt.step()
            return loss
        return model, step

    x = tl.tensor(A[:, :3])
    eager_model, eager_step = make()
    compiled_model, step = make()
    compiled_step = tl.compile(step)
    for _ in range(2):
        np.testing.assert_allclose(compiled_step(x).item(), eager_step(x).item(), rtol=1e-5)
    np.testing.assert_allclose(compiled_model.weight.detach().numpy(),
                               eager_model.weight.detach().numpy(), rtol=1e-5)


def test_module_trained_by_an_optax_loop():
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(4, 8), tl.nn.ReLU(), tl.nn.Linear(8, 1))
    params = {k: v.jax() for k, v in model.named_parameters()}
    data = np.random.default_rng(1)
    x = jnp.asarray(data.standard_normal((16, 4)), jnp.float32)
    y = jnp.asarray(data.standard_normal((16, 1)), jnp.float32)

    def loss_fn(params, x, y):
        p = {k: tl.from_jax(v) for k, v in params.items()}
        out = tl.func.functional_call(model, p, (tl.from_jax(x),))
        return ((out - tl.from_jax(y)) ** 2).mean().jax()

    step = jax.jit(jax.value_and_grad(loss_fn))
    loss0, grads = step(params, x, y)
    if HAVE_TORCH:
        tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        tp = {k: torch.tensor(np.asarray(v)) for k, v in params.items()}
        tx, ty = torch.tensor(np.asarray(x)), torch.tensor(np.asarray(y))
        tgrads = torch.func.grad(lambda p: ((torch.func.functional_call(tm, p, (tx,)) - ty)
                                            ** 2).mean())(tp)
        for k in params:
            np.testing.assert_allclose(np.asarray(grads[k]), tgrads[k].numpy(), rtol=1e-5,
                                       atol=1e-6)
    opt = optax.adam(1e-2)

    @jax.jit
    def train_step(params, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    state = opt.init(params)
    for _ in range(25):
        params, state, loss = train_step(params, state, x, y)
    assert float(step(params, x, y)[0]) < 0.8 * float(loss0)
    assert model[0].weight.jax() is not params["0.weight"]  # the module kept its own weights


def test_func_namespace_matches_torch():
    names = ["functional_call", "stack_module_state", "grad", "grad_and_value", "vjp", "jvp",
             "vmap", "jacrev", "jacfwd", "hessian"]
    assert all(hasattr(tl.func, n) for n in names)
    if HAVE_TORCH:
        assert all(hasattr(torch.func, n) for n in names)


def test_torchlike_vmap_is_func_vmap():
    assert tl.vmap is tl.func.vmap
    out = tl.vmap(lambda r: r.sum())(tl.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(out.numpy(), [3.0, 12.0])


def test_forward_mode_of_pow_by_a_constant_at_a_negative_base():
    # the constant exponent has no tangent: its log(base) term must not enter (it made
    # the whole row NaN at a negative base); a tensor exponent's term does, as in PyTorch
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    es = np.array([2.0, 3.0, 0.5], np.float32)
    got = [tl.func.jacfwd(lambda a: a ** 3)(tl.tensor(xs)),
           tl.func.jvp(lambda a: a.pow(2.5), (tl.tensor(xs),), (tl.ones(3),))[1],
           *tl.func.jacfwd(lambda a, b: a ** b, argnums=(0, 1))(tl.tensor(xs), tl.tensor(es))]
    np.testing.assert_allclose(got[0].numpy(), np.diag(3 * xs ** 2))
    if HAVE_TORCH:
        tx, te = torch.tensor(xs), torch.tensor(es)
        ref = [torch.func.jacfwd(lambda a: a ** 3)(tx),
               torch.func.jvp(lambda a: a.pow(2.5), (tx,), (torch.ones(3),))[1],
               *torch.func.jacfwd(lambda a, b: a ** b, argnums=(0, 1))(tx, te)]
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-6, equal_nan=True)
