"""torchlike.compile: retracing and its statistics, hyper-parameters as inputs, errors on
Python control flow over traced values, compiled modules (training and evaluation),
donation, and the torch.compile keyword arguments."""

from __future__ import annotations

import copy
import warnings
import weakref

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike._compile import compile as _compile_mod


def _sgd_setup(momentum=0.0, **kw):
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum, **kw)

    def step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, opt, step


# ---------------------------------------------------------------------------- retracing
def test_retraces_on_new_shape_dtype_and_python_argument():
    calls = []

    @torch.compile
    def f(x, scale):
        calls.append(1)   # Python side effects run while tracing only
        return x * scale

    x = torch.ones(2, 3)
    f(x, 2.0)
    f(x + 1, 2.0)
    assert f.stats.traces == 1 and f.stats.calls == 2 and len(calls) == 1
    f(torch.ones(4, 3), 2.0)                  # new shape
    assert f.stats.traces == 2
    f(torch.ones(4, 3, dtype=torch.float64), 2.0)   # new dtype
    assert f.stats.traces == 3
    out = f(torch.ones(4, 3), 3.0)            # new Python argument
    assert f.stats.traces == 4 and torch.equal(out, torch.full((4, 3), 3.0))
    assert f.stats.cache_size == 4
    assert "CompileStats(calls=5, traces=4" in repr(f.stats)


def test_cache_is_bounded_and_warns():
    f = torch.compile(lambda x: x + 1)
    with pytest.warns(UserWarning, match="traced for more than 8 different signatures"):
        for n in range(1, 11):
            f(torch.ones(n))
    assert f.stats.cache_size == _compile_mod.CACHE_SIZE_LIMIT
    assert f.stats.traces == 10


def _set_hyper_each_step(name, values, momentum):
    """Compiled and eager SGD steps with ``param_groups[0][name]`` set before each step;
    returns the compiled function after checking the weights agree at every step."""
    model, opt, step = _sgd_setup(momentum=momentum)
    ref, ref_opt, ref_step = _sgd_setup(momentum=momentum)
    cstep = torch.compile(step)
    x, y = torch.randn(4, 3), torch.randn(4, 2)
    for v in values:
        opt.param_groups[0][name] = v
        ref_opt.param_groups[0][name] = v
        cstep(x, y)
        ref_step(x, y)
        assert torch.allclose(model.weight, ref.weight, atol=1e-6)
    return cstep


def test_lr_change_between_calls_takes_effect_without_retracing():
    cstep = _set_hyper_each_step("lr", (0.1, 0.05, 0.3, 0.0), momentum=0.0)
    assert cstep.stats.traces == 2   # first call, then with .grad present


def test_constant_hyperparameters_reach_the_program_as_device_scalars():
    # a Python float argument is transferred on every call; a constant learning rate and
    # momentum are passed as the cached device scalars of their values instead, and a
    # changed value still takes effect
    import jax
    model, opt, step = _sgd_setup(momentum=0.9)
    f = torch.compile(step)
    x, y = torch.ones(4, 3), torch.zeros(4, 2)
    for _ in range(4):
        f(x, y)
    (entry,) = list(f._agnostic.values()) + list(f._cache.values())
    seen = []
    run = entry.run
    entry.run = lambda *a: seen.append(a) or run(*a)
    f(x, y)
    assert seen and not [a for a in seen[0] if isinstance(a, (int, float))]
    hyper = [float(a) for a in seen[0] if isinstance(a, jax.Array) and a.shape == ()
             and a.dtype == np.float64]
    assert sorted(hyper) == [0.1, 0.9]
    w = model.weight.detach().clone()
    opt.param_groups[0]["lr"] = 0.0123
    f(x, y)
    g = model.weight.grad
    buf = opt.state[model.weight]["momentum_buffer"]
    assert torch.allclose(model.weight, w - 0.0123 * buf) and g is not None
    assert f.stats.traces == 2


def test_sign_change_of_hyperparameter_retraces():
    cstep = _set_hyper_each_step("weight_decay", (0.0, 0.0, 0.1, 0.2), momentum=0.9)
    assert cstep.stats.traces == 3   # weight decay switched on: a different program


def test_structure_changes_retrace():
    model, opt, step = _sgd_setup()
    cstep = torch.compile(step)
    x, y = torch.randn(4, 3), torch.randn(4, 2)
    cstep(x, y)
    cstep(x, y)
    n = cstep.stats.traces
    model.extra = nn.Parameter(torch.ones(2))           # a new parameter on the module
    opt.add_param_group({"params": [model.extra], "lr": 0.5})
    cstep(x, y)
    assert cstep.stats.traces == n + 1
    with torch.no_grad():
        model.weight.data = torch.zeros(2, 3)            # a new storage: read, not stale
    cstep(x, y)
    assert not torch.equal(model.weight, torch.zeros(2, 3))
    assert abs(model.weight.detach()).max().item() < 0.5


def test_train_eval_switch_retraces_and_uses_running_stats():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    cm = torch.compile(m)
    x = torch.randn(6, 3)
    with torch.no_grad():
        cm(x)
        assert m[1].num_batches_tracked.item() == 1
        m.eval()
        out = cm(x)
        assert m[1].num_batches_tracked.item() == 1
        assert torch.allclose(out, m(x), atol=1e-6)
    assert cm.stats.traces == 2


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("use", ["item", "bool", "tolist", "int"])
def test_value_dependent_python_raises_and_leaves_state_untouched(use):
    model, opt, step = _sgd_setup(momentum=0.9)
    w0 = model.weight.detach().clone()

    def bad(x, y):
        loss = step(x, y)
        if use == "item":
            return loss if loss.item() > 0 else -loss
        if use == "bool":
            return loss if loss > 0 else -loss
        if use == "tolist":
            return loss.tolist()
        return int(loss)

    cbad = torch.compile(bad)
    with pytest.raises(RuntimeError, match=r"torchlike\.where.*|.*torchlike\.where") as e:
        cbad(torch.randn(4, 3), torch.randn(4, 2))
    assert "test_compile_api.py:" in str(e.value)   # names the user's line
    assert "traced" in str(e.value)
    assert torch.equal(model.weight, w0)
    assert model.weight.grad is None and len(opt.state) == 0
    assert opt._step_count == 0 or opt._step_count == 1   # hooks ran while tracing
    step(torch.randn(4, 3), torch.randn(4, 2))         # eager still works afterwards


def test_print_inside_shows_traced_shape(capsys):
    @torch.compile
    def f(x):
        print(x)
        return x * 2
    f(torch.ones(2, 5))
    assert "float32[2,5]" in capsys.readouterr().out


def test_where_instead_of_branch():
    f = torch.compile(lambda x: torch.where(x.sum() > 0, x, -x))
    assert torch.equal(f(torch.ones(3)), torch.ones(3))
    assert torch.equal(f(-torch.ones(3)), torch.ones(3))
    assert f.stats.traces == 1


# ---------------------------------------------------------------------------- modules
def test_compiled_module_trains_with_eager_backward():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    ref = copy.deepcopy(m)
    cm = torch.compile(m)
    assert isinstance(cm, nn.Module) and cm._orig_mod is m
    assert list(cm.state_dict())[0] == "_orig_mod.0.weight"
    # SGD, not Adam: the bias before BatchNorm has a gradient that is zero up to rounding
    # noise, which Adam would scale up to full steps
    opt = torch.optim.SGD(cm.parameters(), lr=0.01, momentum=0.9)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(5, 4, requires_grad=True)
    xr = x.detach().clone().requires_grad_()
    outs = {}
    for _ in range(5):
        for mod, o, inp in ((cm, opt, x), (ref, ref_opt, xr)):
            o.zero_grad()
            outs[mod] = out = mod(inp)
            out.pow(2).sum().backward()
            o.step()
    assert outs[cm].grad_fn.name() == "CompiledFunctionBackward"
    assert torch.allclose(outs[cm], outs[ref], atol=1e-5)
    for p, q in zip(m.parameters(), ref.parameters()):
        assert torch.allclose(p, q, atol=1e-5)
    assert torch.allclose(x.grad, xr.grad, atol=1e-5)
    assert torch.allclose(m[1].running_var, ref[1].running_var, atol=1e-6)
    assert cm.stats.traces == 1


def test_compiled_eval_loop_under_no_grad():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                      nn.Dropout(0.5), nn.Linear(12, 2)).eval()
    cm = torch.compile(m)
    with torch.no_grad():
        for _ in range(3):
            x = torch.randn(4, 1, 4, 4)
            out = cm(x)
            assert not out.requires_grad
            assert torch.allclose(out, m(x), atol=1e-6)
    assert cm.stats.traces == 1


def test_compiled_method_and_nested_compiled_functions():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        @torch.compile
        def double(self, x):
            return self.fc(x) * 2

    net = Net()
    x = torch.randn(2, 3)
    assert torch.allclose(net.double(x), net.fc(x) * 2)
    inner = torch.compile(lambda t: t + 1)
    outer = torch.compile(lambda t: inner(t) * 3)
    assert torch.equal(outer(torch.zeros(2)), torch.full((2,), 3.0))
    assert inner.stats.calls == 0   # inlined into the outer program


def test_tied_weights_are_one_input():
    torch.manual_seed(0)
    emb = nn.Embedding(5, 4)
    head = nn.Linear(4, 5, bias=False)
    head.weight = emb.weight
    opt = torch.optim.SGD(list(emb.parameters()), lr=0.5)
    ref_w = emb.weight.detach().clone().requires_grad_()

    @torch.compile
    def step(idx):
        opt.zero_grad()
        loss = head(emb(idx)).logsumexp(-1).mean()
        loss.backward()
        opt.step()
        return loss

    idx = torch.tensor([0, 3, 1])
    step(idx)
    loss = (ref_w[idx] @ ref_w.t()).logsumexp(-1).mean()
    loss.backward()
    assert torch.allclose(emb.weight, ref_w - 0.5 * ref_w.grad, atol=1e-6)
    assert head.weight is emb.weight


def test_replaced_buffers_are_donated_but_foreign_arrays_are_not():
    model, opt, step = _sgd_setup(momentum=0.9)
    cstep = torch.compile(step)
    x, y = torch.randn(4, 3), torch.randn(4, 2)
    foreign = model.weight._value            # an array someone else holds
    cstep(x, y)
    assert not foreign.is_deleted()
    for _ in range(3):
        cstep(x, y)
    before = model.weight._value             # produced by the previous call
    cstep(x, y)
    assert before.is_deleted()               # its buffer was reused for the new weight
    assert np.isfinite(model.weight.detach().numpy()).all()


def test_old_gradients_are_recycled_only_when_nobody_else_sees_them():
    # Note [Recycled gradient buffers]: zero_grad() drops last step's gradients, so their
    # buffers take the new gradients, unless the user still holds them in any form.
    model, opt, step = _sgd_setup(momentum=0.9)
    cstep = torch.compile(step)
    eager_model, eager_opt, eager_step = _sgd_setup(momentum=0.9)
    x, y = torch.randn(4, 3), torch.randn(4, 2)

    params = (model.weight, model.bias)

    def both():     # was each of (weight, bias)'s old gradient recycled?
        # a recycled gradient's tensor takes the new values in place; weak references
        # watch it without being one more holder
        old = [None if p.grad is None else weakref.ref(p.grad) for p in params]
        cstep(x, y)
        eager_step(x, y)
        return [r is not None and p.grad is r() for r, p in zip(old, params)]
    for _ in range(3):
        both()
    grad_tensor = model.weight.grad
    version = grad_tensor._version
    del grad_tensor
    assert both() == [True, True]
    np.testing.assert_allclose(model.weight.grad.numpy(), eager_model.weight.grad.numpy(),
                               rtol=1e-5, atol=1e-6)
    assert model.weight.grad._version == 0 and version == 0

    held = model.weight.grad                            # the user keeps a reference
    view = model.bias.grad[:1]                          # and a view of another gradient
    held_values, view_values = held.numpy().copy(), view.numpy().copy()
    assert both() == [False, False]
    np.testing.assert_array_equal(held.numpy(), held_values)
    np.testing.assert_array_equal(view.numpy(), view_values)
    assert model.weight.grad is not held
    del held, view
    taken = model.bias.grad.jax()                       # an array taken out of a gradient
    assert both() == [True, False]
    assert not taken.is_deleted()
    assert both() == [True, True]
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_rng_advances_like_eager():
    drop = nn.Dropout(0.5)

    @torch.compile
    def f(x):
        return drop(x)

    torch.manual_seed(3)
    a = [f(torch.ones(16)) for _ in range(3)]
    torch.manual_seed(3)
    b = [drop(torch.ones(16)) for _ in range(3)]
    for u, v in zip(a, b):
        assert torch.equal(u, v)
    assert not torch.equal(a[0], a[1])


def test_random_draws_compile_once(caplog):
    """A step that draws random numbers is traced and compiled once: the generator's
    counter enters the program in the same form (a uint32 on the state's device) whether
    it is a Python int (after seeding or eager draws) or the array an earlier call wrote
    back; it used to be traced and compiled again on the second call. The random
    functions that take a tensor (``bernoulli``, ``normal``, ``uniform_``...) trace too."""
    import logging

    import jax
    model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.5), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    p = torch.full((4,), 0.5)

    @torch.compile
    def step(x):
        opt.zero_grad()
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        return (loss, torch.bernoulli(p), torch.normal(p, p), torch.multinomial(p, 2),
                torch.poisson(p), p.clone().uniform_(), p.clone().bernoulli_(0.3))

    x = torch.randn(4, 8)
    step(x)
    with jax.log_compiles(), caplog.at_level(logging.WARNING):
        for i in range(4):
            if i == 2:
                x = x + torch.randn_like(x)   # an eager draw: the counter is an int again
            step(x)
    assert step.stats.traces == 1, step.stats
    # the step's own program (eager ops outside it compile their executables as usual)
    assert not [r for r in caplog.records if "Compiling jit(_execute)" in r.getMessage()]


def test_scheduler_steps_replayed_and_reduce_on_plateau_metric():
    model, opt, step = _sgd_setup()
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)

    @torch.compile
    def train(x, y):
        loss = step(x, y)
        sched.step(loss * 0 + 1.0)    # a constant metric: every step after the first reduces
        return loss

    x, y = torch.randn(4, 3), torch.randn(4, 2)
    for _ in range(4):
        train(x, y)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5 ** 3)
    assert opt._step_count == 4


def test_keyword_arguments_and_backends():
    def f(x):
        return x + 1
    assert torch.compile(f, backend="eager") is f
    assert torch.compile(f, disable=True) is f
    g = torch.compile(f, fullgraph=True, dynamic=False, mode="max-autotune")
    assert isinstance(g, _compile_mod.CompiledFunction)
    assert torch.equal(g(torch.zeros(2)), torch.ones(2))
    deco = torch.compile(mode="reduce-overhead")(f)
    assert deco.__name__ == "f"
    with pytest.raises(RuntimeError, match="expected a callable"):
        torch.compile(3)


def test_returns_state_tensor_itself_and_python_values():
    model, opt, step = _sgd_setup()

    @torch.compile
    def f(x):
        return model.weight, x.shape[0], {"double": x * 2}

    w, n, d = f(torch.ones(3))
    assert w is model.weight and n == 3 and torch.equal(d["double"], torch.full((3,), 2.0))


@pytest.mark.parametrize("kind", ["new", "state", "argument", "number", "none", "array"])
def test_a_single_result_is_returned_as_such(kind):
    # one result (a loss, usually) skips the unflattening on every call after the first
    import jax.numpy as jnp
    model, opt, step = _sgd_setup()
    x = torch.ones(3)

    @torch.compile
    def f(x):
        return {"new": lambda: x * 2, "state": lambda: model.weight, "argument": lambda: x,
                "number": lambda: 7, "none": lambda: None,
                "array": lambda: jnp.sin(x.jax())}[kind]()

    for _ in range(3):   # the first call traces; the others take the cached path
        out = f(x)
        if kind == "new":
            assert type(out) is torch.Tensor and torch.equal(out, torch.full((3,), 2.0))
            assert out.grad_fn is None and not out.requires_grad and out._version == 0
        elif kind == "state":
            assert out is model.weight
        elif kind == "argument":
            assert out is x
        elif kind == "number":
            assert out == 7
        elif kind == "none":
            assert out is None
        else:
            np.testing.assert_allclose(np.asarray(out), np.sin(np.ones(3)), rtol=1e-6)
    assert f.stats.traces == 1


def test_hyperparameter_must_be_a_number():
    model, opt, step = _sgd_setup()
    opt.param_groups[0]["lr"] = torch.tensor(0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="lr=Tensor"):
            torch.compile(step)(torch.randn(4, 3), torch.randn(4, 2))


def test_writes_through_data_inside_a_compiled_step():
    # weight clipping as WGAN does it: .data reads through stop_gradient while traced
    # (Note [Detach under JAX transformations]) but its writes reach the parameters
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    opt = torch.optim.SGD(lin.parameters(), lr=0.5)

    @torch.compile
    def step(x):
        opt.zero_grad()
        lin(x).sum().backward()
        opt.step()
        for p in lin.parameters():
            p.data.clamp_(-0.01, 0.01)
    x = torch.randn(4, 3)
    for _ in range(3):
        step(x)
    assert step.stats.traces == 1
    for p in lin.parameters():
        assert float(p.detach().abs().max()) <= 0.01 + 1e-7
