"""``nn.FlaxModule``: an NNX module's Params are torchlike Parameters named by their
state paths, its forward is the NNX module's, and torchlike's eager autograd gives the
gradients ``jax.grad``/``nnx.grad`` gives, so torchlike optimizers train it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl

nnx = pytest.importorskip("flax.nnx")

rng = np.random.default_rng(0)
X = rng.standard_normal((5, 4)).astype(np.float32)


class Net(nnx.Module):
    def __init__(self, rngs, dropout: float = 0.0):
        self.l1 = nnx.Linear(4, 8, rngs=rngs)
        self.bn = nnx.BatchNorm(8, rngs=rngs)
        self.drop = nnx.Dropout(dropout, rngs=rngs)
        self.layers = nnx.List([nnx.Linear(8, 8, rngs=rngs), nnx.Linear(8, 2, rngs=rngs)])

    def __call__(self, x, *, scale=1.0):
        h = self.drop(nnx.relu(self.bn(self.l1(x))))
        for layer in self.layers:
            h = layer(h)
        return {"out": h * scale, "aux": (h.sum(),)}


def flat(state) -> dict:
    return {".".join(map(str, p)): np.asarray(v.get_value()) for p, v in nnx.to_flat_state(state)}


def test_parameters_and_buffers_follow_nnx_state_paths():
    net = Net(nnx.Rngs(0))
    m = tl.nn.FlaxModule(net)
    params = dict(m.named_parameters())
    ref = flat(nnx.state(net, nnx.Param))
    assert list(params) == list(ref)
    assert "layers.0.kernel" in params and "bn.scale" in params
    for name, p in params.items():
        assert isinstance(p, tl.nn.Parameter) and p.requires_grad
        np.testing.assert_array_equal(p.detach().numpy(), ref[name])
    assert [n for n, _ in m.named_buffers()] == ["bn.mean", "bn.var"]
    assert set(m.state_dict()) == set(ref) | {"bn.mean", "bn.var"}
    assert "Net" in repr(m)


def test_forward_and_gradients_match_nnx_grad():
    net = Net(nnx.Rngs(0))
    m = tl.nn.FlaxModule(nnx.clone(net))
    x = tl.tensor(X, requires_grad=True)
    out = m(x, scale=2.0)
    assert isinstance(out["out"], tl.Tensor) and isinstance(out["aux"], tuple)
    loss = (out["out"] ** 2).mean() + out["aux"][0]
    loss.backward()

    def ref_loss(mod, xa):
        o = mod(xa, scale=2.0)
        return (o["out"] ** 2).mean() + o["aux"][0]

    ref_val = ref_loss(nnx.clone(net), jnp.asarray(X))
    g_mod, g_x = nnx.grad(ref_loss, argnums=(0, 1))(nnx.clone(net), jnp.asarray(X))
    np.testing.assert_allclose(loss.item(), float(ref_val), rtol=1e-5)
    for name, g in flat(g_mod).items():
        np.testing.assert_allclose(m.get_parameter(name).grad.numpy(), g, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), np.asarray(g_x), rtol=1e-5, atol=1e-6)


def test_optimizer_step_changes_outputs_and_batch_stats_update():
    net = Net(nnx.Rngs(0))
    m = tl.nn.FlaxModule(nnx.clone(net))
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    x = tl.tensor(X)
    mean0 = m.bn.mean.detach().clone()
    before = m(x)["out"].detach()
    (m(x)["out"] ** 2).mean().backward()
    # two training-mode calls moved the running mean as NNX's own two calls do
    ref = nnx.clone(net)
    for _ in range(2):
        ref(jnp.asarray(X))
    np.testing.assert_allclose(m.bn.mean.numpy(), np.asarray(ref.bn.mean[...]), rtol=1e-5)
    assert not tl.equal(m.bn.mean, mean0)
    opt.step()
    after = m(x)["out"].detach()
    assert not tl.allclose(before, after)
    # the exported NNX module carries the trained values
    exported = m.nnx_module
    np.testing.assert_allclose(np.asarray(exported(jnp.asarray(X))["out"]),
                               m(x)["out"].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_eval_mode_and_dropout_rng():
    m = tl.nn.FlaxModule(Net(nnx.Rngs(0), dropout=0.5))
    x = tl.tensor(X)
    a, b = m(x)["out"], m(x)["out"]
    assert not tl.allclose(a, b)  # fresh dropout masks: NNX's RNG state advances
    (a ** 2).sum().backward()  # the backward replays the forward's mask
    kernel = m.get_parameter("layers.1.kernel")
    assert kernel.grad is not None and bool((kernel.grad != 0).any())
    m.eval()
    assert not m.training and m.l1.training is False
    with tl.no_grad():
        np.testing.assert_array_equal(m(x)["out"].numpy(), m(x)["out"].numpy())


def test_inside_jax_jit_through_functional_call():
    net = Net(nnx.Rngs(0))
    m = tl.nn.FlaxModule(nnx.clone(net)).eval()
    params = {k: v.jax() for k, v in m.named_parameters()}

    def loss_fn(p, xa):
        out = tl.func.functional_call(m, {k: tl.from_jax(v) for k, v in p.items()},
                                      (tl.from_jax(xa),))
        return (out["out"] ** 2).mean().jax()

    g = jax.jit(jax.grad(loss_fn))(params, jnp.asarray(X))
    ref = nnx.clone(net)
    ref.eval()
    g_ref = flat(nnx.grad(lambda mod: (mod(jnp.asarray(X))["out"] ** 2).mean())(ref))
    for name in params:
        np.testing.assert_allclose(np.asarray(g[name]), g_ref[name], rtol=1e-5, atol=1e-6)

    d = tl.nn.FlaxModule(Net(nnx.Rngs(0), dropout=0.5))
    with pytest.raises(RuntimeError, match="RNG state"):
        jax.jit(lambda xa: d(tl.from_jax(xa))["out"].jax())(jnp.asarray(X))


def test_composes_with_torchlike_layers_and_second_order():
    pre = tl.nn.Linear(4, 4)
    m = tl.nn.FlaxModule(nnx.Linear(4, 2, rngs=nnx.Rngs(0)))
    x = tl.tensor(X)
    loss = (m(pre(x)) ** 2).sum()
    loss.backward()
    w, b = pre.weight.detach().jax(), pre.bias.detach().jax()
    k, c = m.kernel.detach().jax(), m.bias.detach().jax()
    ref = jax.grad(lambda w: (((jnp.asarray(X) @ w.T + b) @ k + c) ** 2).sum())(w)
    np.testing.assert_allclose(pre.weight.grad.numpy(), np.asarray(ref), rtol=1e-5, atol=1e-5)
    # a gradient penalty differentiates the backward again
    m.zero_grad()
    xr = tl.tensor(X, requires_grad=True)
    gx, = tl.autograd.grad((m(xr) ** 3).sum(), xr, create_graph=True)
    (gx ** 2).sum().backward()
    ref_k = jax.grad(lambda k: (jax.grad(lambda xa: ((xa @ k + c) ** 3).sum())(
        jnp.asarray(X)) ** 2).sum())(k)
    np.testing.assert_allclose(m.kernel.grad.numpy(), np.asarray(ref_k), rtol=1e-4, atol=1e-4)


def test_errors():
    with pytest.raises(TypeError, match="flax.nnx.Module"):
        tl.nn.FlaxModule(tl.nn.Linear(2, 2))
    m = tl.nn.FlaxModule(Net(nnx.Rngs(0)))
    with pytest.raises(RuntimeError, match="call the FlaxModule itself"):
        m.l1(tl.tensor(X))
