"""Note [XLA's CPU convolution kernels] (``torchlike/_core/xla.py``): torchlike's programs
with convolutions are compiled with XLA's own convolution kernels on CPU, programs
without convolutions and the user's own ``jax.jit`` programs as before, and such a
program still works when it is staged into another trace (where JAX refuses compiler
options). What it computes does not change."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import torchlike as tl
import torchlike.nn.functional as TF
from torchlike._core import xla

ON_CPU = jax.default_backend() == "cpu"
TUNED = xla.compiler_options() is not None
needs_options = pytest.mark.skipif(
    not TUNED, reason="this jaxlib, backend or XLA_FLAGS leaves no compiler options to pass")

YNN = "__ynn_fusion"


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "VALID")


def _args():
    rng = np.random.default_rng(0)
    return (jnp.asarray(rng.standard_normal((2, 12, 9, 9)), jnp.float32),
            jnp.asarray(rng.standard_normal((24, 12, 3, 3)), jnp.float32))


def _hlo(jitted, *args) -> str:
    return jitted.lower(*args).compile().as_text()


def test_options_on_cpu_with_this_jaxlib():
    if not ON_CPU:
        assert xla.compiler_options() is None
        return
    # the jaxlib the project pins knows the option: the fast path is not silently lost
    assert xla.compiler_options() == {
        "xla_cpu_experimental_ynn_fusion_type":
            "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}


def test_user_xla_flags_win(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")
    assert xla.compiler_options() is None
    assert isinstance(xla.jit(_conv, convolutions=True), type(jax.jit(_conv)))


def test_programs_without_convolutions_are_plain_jits():
    f = xla.jit(lambda a: a + 1, convolutions=False)
    assert isinstance(f, type(jax.jit(_conv)))


@needs_options
def test_convolutions_leave_ynnpack_but_dots_and_reductions_stay():
    x, w = _args()
    assert YNN in _hlo(jax.jit(_conv), x, w)          # the default, which the option changes
    tuned = xla.jit(_conv, convolutions=True)
    assert YNN not in _hlo(tuned, x, w)
    a = jnp.ones((64, 64), jnp.float32)
    both = xla.jit(lambda x, w, a: (_conv(x, w), a @ a, a.sum(1)), convolutions=True)
    text = _hlo(both, x, w, a)
    fused = [ln for ln in text.splitlines() if YNN in ln and "fusion(" in ln]
    assert len(fused) == 2, fused                     # the dot and the reduction
    np.testing.assert_allclose(tuned(x, w), jax.jit(_conv)(x, w), rtol=1e-5, atol=1e-5)


@needs_options
@pytest.mark.parametrize("outer", ["jit", "grad", "vmap", "nested"])
def test_tuned_program_staged_into_another_trace(outer):
    x, w = _args()
    tuned = xla.jit(_conv, convolutions=True)
    ref = jax.jit(_conv)
    if outer == "jit":
        got, want = jax.jit(tuned)(x, w), ref(x, w)
    elif outer == "grad":
        got = jax.grad(lambda w: tuned(x, w).sum())(w)
        want = jax.grad(lambda w: ref(x, w).sum())(w)
    elif outer == "vmap":
        got, want = jax.vmap(tuned, (None, 0))(x, w[None]), jax.vmap(ref, (None, 0))(x, w[None])
    else:
        got = jax.jit(lambda x, w: jax.grad(lambda w: tuned(x, w).sum())(w))(x, w)
        want = jax.grad(lambda w: ref(x, w).sum())(w)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_has_convolution_looks_inside_nested_jaxprs():
    x, w = _args()
    assert xla.has_convolution(jax.make_jaxpr(_conv)(x, w).jaxpr)
    inner = jax.make_jaxpr(lambda x, w: jax.jit(_conv)(x, w) + 1)(x, w).jaxpr
    assert xla.has_convolution(inner)
    # torchlike's CPU lowerings hide the convolution in a custom_jvp
    lowered = jax.make_jaxpr(lambda x, w: TF.conv2d(tl.from_jax(x), tl.from_jax(w)).jax())
    assert xla.has_convolution(lowered(x, w).jaxpr)
    assert not xla.has_convolution(jax.make_jaxpr(lambda a: a @ a + 1)(x[0, 0]).jaxpr)


def _lenet():
    tl.manual_seed(0)
    return tl.nn.Sequential(tl.nn.Conv2d(3, 4, 3), tl.nn.ReLU(), tl.nn.MaxPool2d(2),
                            tl.nn.Flatten(), tl.nn.Linear(4 * 3 * 3, 5))


@needs_options
def test_eager_convolution_ops_and_their_backward_are_tuned():
    from torchlike._ops.spec import OPS
    net = _lenet()
    x = tl.randn(2, 3, 8, 8)
    net(x).sum().backward()
    exes = OPS["conv2d"].extra["plan"].exes
    assert exes and all(isinstance(e, xla._Tuned) for e in exes.values())
    from torchlike.autograd.graph import _bwd_jit
    assert isinstance(_bwd_jit(True), xla._Tuned)
    assert not isinstance(_bwd_jit(False), xla._Tuned)
    assert not OPS["add"].convolution and OPS["conv2d"].convolution
    assert OPS["conv_transpose3d"].convolution


@needs_options
def test_compiled_step_with_convolutions_is_tuned_and_matches_eager():
    x, y = tl.randn(4, 3, 8, 8), tl.tensor([0, 1, 2, 3])
    losses = []
    for compiled in (False, True):
        net = _lenet()
        opt = tl.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = TF.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss
        fn = tl.compile(step) if compiled else step
        losses.append([fn(x, y).item() for _ in range(4)])
        if compiled:
            # the steady-state program (the first step's, which creates the momentum
            # buffers, ran once and is gone)
            runs = [e.run for e in list(fn._cache.values()) + list(fn._agnostic.values())]
            assert runs and all(isinstance(r.func, xla._Tuned) for r in runs)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5, atol=1e-6)
