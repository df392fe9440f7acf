"""The steady-state call of a compiled function (Note [Steady-state calls] in
torchlike/_compile/_steady.py) against the general call it shortcuts.

Each training case of test_compile_steps.py runs twice from the same seed: once with the
steady call disarmed before every call (so the general path serves each one) and once as
users run it. Every written array, gradient, version counter, optimizer step count and
result must be the same bits. Further tests change, between calls, each thing the steady
call's guard checks, and check that the call then goes to the general path and still
gives the general path's results.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike._compile._steady import MISS

from .test_compile_steps import CASES

STEPS = 8


class _Spy:
    """Counts the calls the general path served (``_run`` is only called by it)."""

    def __init__(self, cf):
        self.general = 0
        run = cf._run

        def counted(*a):
            self.general += 1
            return run(*a)
        cf._run = counted


def _state(objs) -> list:
    """Everything a step writes, as NumPy arrays and numbers, with version counters."""
    out = []
    for o in objs:
        if isinstance(o, torch.Tensor):
            out.append((np.array(o.detach().numpy()), o._version))
        elif isinstance(o, torch.optim.Optimizer):
            for st in o.state.values():
                for v in st.values():
                    out.append((np.array(v.numpy()), v._version)
                               if isinstance(v, torch.Tensor) else v)
            out.append([g["lr"] for g in o.param_groups])
            out.append(o._step_count)
        elif isinstance(o, nn.Module):
            for name, p in o.named_parameters():
                out.append((name, np.array(p.detach().numpy()), p._version,
                            None if p.grad is None else np.array(p.grad.numpy())))
            for name, b in o.named_buffers():
                out.append((name, np.array(b.numpy()), b._version))
        else:
            out.append(o)
    out.append(np.array(torch.get_rng_state().numpy()))
    return out


def _assert_same(a, b) -> None:
    assert type(a) is type(b)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def _run(build, steady: bool, steps: int = STEPS):
    torch.manual_seed(0)
    step, data, state = build()
    torch.manual_seed(1)
    fn = torch.compile(step)
    spy = _Spy(fn)
    results = []
    for _ in range(steps):
        if not steady:
            fn._steady = None    # disarmed: the general path serves the call
        results.append(np.array(fn(*data).detach().numpy()))
    return results, _state(state()), fn, spy


# the Transformer is left out: its eight steps twice took 15 s, and the steady path is
# the same generated code for every model (the CNN covers buffers and the generator)
STEADY_CASES = [c for c in CASES if c.__name__ != "transformer_adam"]


@pytest.mark.parametrize("build", STEADY_CASES, ids=[c.__name__ for c in STEADY_CASES])
def test_steady_call_writes_what_the_general_path_writes(build):
    res_g, state_g, fn_g, spy_g = _run(build, steady=False)
    res_s, state_s, fn_s, spy_s = _run(build, steady=True)
    _assert_same(res_s, res_g)
    _assert_same(state_s, state_g)
    assert spy_g.general == STEPS
    assert fn_s.stats.calls == fn_g.stats.calls == STEPS
    assert fn_s.stats.traces == fn_g.stats.traces
    # the steps that can take it: all but the traced ones and the call after each trace
    # (an optimizer's first step creates state, so its program runs once)
    assert spy_s.general <= 2 * fn_s.stats.traces + 1 < STEPS


def _sgd(momentum=0.9, **kw):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum, **kw)

    def step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return model, opt, step


def _pair(**kw):
    """Two identical set-ups: one compiled and run as users do, one eager for reference."""
    model, opt, step = _sgd(**kw)
    ref_model, ref_opt, ref_step = _sgd(**kw)
    fn = torch.compile(step)
    return (model, opt, fn), (ref_model, ref_opt, ref_step)


def _warm(fn, *args, n=4):
    for _ in range(n):
        fn(*args)
    assert getattr(fn, "_steady", True) is not None


def _assert_close(m1, m2):
    for p, q in zip(m1.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def _both(c, r, *args):
    out = c[2](*args)
    ref = r[2](*args)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    _assert_close(c[0], r[0])


def test_steady_call_serves_new_batches_of_the_same_layout():
    c, r = _pair()
    spy = _Spy(c[2])
    for _ in range(6):
        _both(c, r, torch.randn(5, 3), torch.randn(5, 2))
    # the two traced calls (the first creates the momentum buffers, so its program runs
    # once); every later batch took the steady call
    assert c[2].stats.traces == 2 and spy.general == 2


@pytest.mark.parametrize("change", [
    "shape", "lr_sign", "int_hyper", "no_grad",
    "default_dtype", "structure", "roots", "requires_grad_argument"])
def test_each_guard_sends_the_call_to_the_general_path(change):
    c, r = _pair()
    x, y = torch.randn(5, 3), torch.randn(5, 2)
    _warm(r[2], x, y)   # first: the eager optimizer's new state moves the structure epoch
    _warm(c[2], x, y)
    spy = _Spy(c[2])
    args = (x, y)
    restore = None
    if change == "shape":
        args = (torch.randn(6, 3), torch.randn(6, 2))
    elif change == "lr_sign":
        for o in (c[1], r[1]):
            o.param_groups[0]["lr"] = 0.0
    elif change == "int_hyper":
        for o in (c[1], r[1]):
            o.param_groups[0]["weight_decay"] = 1   # was the int 0: ints enter the key
    elif change == "no_grad":
        # the step's backward then has nothing to do: PyTorch raises, so does the trace
        with torch.no_grad(), pytest.raises(RuntimeError):
            c[2](x, y)
        assert c[2]._steady is None
        return
    elif change == "default_dtype":
        torch.set_default_dtype(torch.float64)
        restore = lambda: torch.set_default_dtype(torch.float32)  # noqa: E731
    elif change == "structure":
        for m in (c[0], r[0]):
            m[0].weight = nn.Parameter(m[0].weight.detach().clone())
        c[1].param_groups[0]["params"][0] = c[0][0].weight
        r[1].param_groups[0]["params"][0] = r[0][0].weight
    elif change == "roots":
        # the step's closure now names another optimizer: its state must be found anew
        cell = next(cl for name, cl in zip(c[2]._fn.__code__.co_freevars,
                                           c[2]._fn.__closure__) if name == "opt")
        cell.cell_contents = torch.optim.SGD(c[0].parameters(), lr=0.1, momentum=0.9)
        cell_r = next(cl for name, cl in zip(r[2].__code__.co_freevars, r[2].__closure__)
                      if name == "opt")
        cell_r.cell_contents = torch.optim.SGD(r[0].parameters(), lr=0.1, momentum=0.9)
    elif change == "requires_grad_argument":
        args = (x.clone().requires_grad_(), y)
    try:
        _both(c, r, *args)
        assert spy.general == 1
        _both(c, r, *args)                          # armed again for the new kind of call
        if change not in ("requires_grad_argument", "roots", "structure"):
            assert spy.general == 1
    finally:
        if restore:
            restore()
    if change == "requires_grad_argument":
        assert spy.general == 2                     # never served by a steady call
        assert args[0].grad is not None


@pytest.mark.parametrize("change", ["shape", "dtype", "strides", "offset"])
def test_argument_layout_guards(change):
    cf = torch.compile(lambda a: a * 2)
    base = torch.arange(12.0)
    a = base[:6].view(2, 3)
    for _ in range(3):
        cf(a)
    spy = _Spy(cf)
    new = {"shape": base[:4].view(2, 2), "dtype": a.double(),
           "strides": base[:6].view(3, 2).t(), "offset": base[6:].view(2, 3)}[change]
    for _ in range(2):
        out = cf(new)
        assert out.dtype == new.dtype and out.shape == new.shape
        np.testing.assert_array_equal(out.numpy(), new.numpy() * 2)
    assert spy.general == 1 and cf.stats.traces == 2
    np.testing.assert_array_equal(cf(a).numpy(), a.numpy() * 2)


def test_a_held_gradient_is_not_recycled_by_the_steady_call():
    c, r = _pair()
    x, y = torch.randn(5, 3), torch.randn(5, 2)
    _warm(r[2], x, y)   # first: the eager optimizer's new state moves the structure epoch
    _warm(c[2], x, y)
    held = c[0][0].weight.grad
    values = held.numpy().copy()
    spy = _Spy(c[2])
    _both(c, r, x, y)
    assert spy.general == 0
    np.testing.assert_array_equal(held.numpy(), values)
    assert c[0][0].weight.grad is not held


def test_an_argument_passed_twice_is_not_served_by_the_distinct_arguments_call():
    # the program for two distinct arguments reads ``b`` as it was before ``a.add_(1)``;
    # with one tensor passed twice it must see the write, as eager mode does
    def f(a, b):
        a.add_(1)
        return a + b

    cf = torch.compile(f)
    a, b = torch.zeros(3), torch.ones(3)
    for _ in range(3):
        cf(a, b)
    assert cf._steady is not None
    np.testing.assert_array_equal(a.numpy(), [3, 3, 3])
    out = cf(a, a)
    np.testing.assert_array_equal(out.numpy(), [8, 8, 8])
    np.testing.assert_array_equal(a.numpy(), [4, 4, 4])
    assert a._version == 4
    out = cf(a, a)                                   # now steady for this layout
    np.testing.assert_array_equal(out.numpy(), [10, 10, 10])
    assert a._version == 5
    out = cf(a, b)
    np.testing.assert_array_equal(out.numpy(), [7, 7, 7])


def test_inside_another_trace_the_steady_call_steps_aside():
    model, opt, step = _sgd()
    inner = torch.compile(lambda x: model(x).sum().detach())
    x = torch.randn(5, 3)
    for _ in range(3):
        inner(x)
    assert inner._steady is not None
    assert inner._steady((x,)) is not MISS

    @torch.compile
    def outer(x):
        return inner(x) * 2

    np.testing.assert_allclose(outer(x).item(), 2 * model(x).sum().item(), rtol=1e-6)
    assert inner.stats.calls == 4   # the call inside the trace is not counted


def test_state_passed_as_an_argument_is_not_served_by_the_distinct_arguments_call():
    # traced with an argument of its own, then given the state tensor it writes: the
    # writes must land in order on the one storage, as in eager mode
    w = torch.zeros(3)

    def f(a):
        w.add_(1)
        a.mul_(2)
        return a.sum()

    cf = torch.compile(f)
    a = torch.ones(3)
    for _ in range(3):
        cf(a)
    assert cf._steady is not None
    for expected in ([8, 8, 8], [18, 18, 18]):   # w = 2 * (3 + 1), then 2 * (8 + 1)
        cf(w)
        np.testing.assert_array_equal(w.numpy(), expected)
    np.testing.assert_array_equal(a.numpy(), [8, 8, 8])


def test_a_parameter_overwritten_in_place_is_copied_before_donation():
    # Note [Donation]: an array the compiled function did not produce may be shared: here
    # a write hands the parameter an array the caller still holds, which the steady call
    # must not let the program delete
    import jax.numpy as jnp
    c, r = _pair()
    x, y = torch.randn(5, 3), torch.randn(5, 2)
    _warm(r[2], x, y)
    _warm(c[2], x, y)
    foreign = jnp.asarray(np.random.default_rng(0).standard_normal((4, 3)), jnp.float32)
    spy = _Spy(c[2])
    c[0][0].weight._set_value(foreign)      # the array itself, as an in-place write stores
    assert c[0][0].weight._storage.array is foreign
    with torch.no_grad():
        r[0][0].weight.copy_(torch.from_numpy(np.asarray(foreign)))
    _both(c, r, x, y)
    assert spy.general == 0 and not foreign.is_deleted()
    _both(c, r, x, y)


def test_function_of_no_arguments():
    """A compiled function that takes nothing and reads and writes outside tensors takes
    the steady path from its second call."""
    a = torch.ones(3)

    @torch.compile
    def bump():
        a.add_(1)
        return a * 2
    got = [bump().tolist() for _ in range(3)]
    assert got == [[4.0] * 3, [6.0] * 3, [8.0] * 3]
    assert a.tolist() == [4.0] * 3 and a._version == 3
    assert bump.stats.traces == 1 and bump.stats.calls == 3
