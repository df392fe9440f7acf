"""Arrays the library makes beside a tensor live on that tensor's device (Note [Made
arrays follow their tensor]).

On a GPU machine JAX's default device is the GPU while torchlike's tensors are made on the
CPU, as PyTorch's are. The tests stand in for that with the two host devices the suite
runs with: JAX's default device is switched to the second one, and torchlike's 'cpu'
stays the first."""

from __future__ import annotations

import jax
import pytest

import torchlike as tl


@pytest.fixture
def other_default():
    devs = jax.devices("cpu")
    if len(devs) < 2:
        pytest.skip("needs two host devices (tests/conftest.py asks for them)")
    with jax.default_device(devs[1]):
        yield devs[0]


def _where(t) -> set:
    return set(t._value.devices())


def test_backward_seed_and_gradients_stay_on_the_tensors_device(other_default):
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    assert _where(x) == {other_default}
    for _ in range(2):   # the first call makes the seed, the second reuses it
        seen = []
        loss = (x * 2).sum()
        loss.register_hook(seen.append)
        loss.backward()
        assert _where(seen[0]) == {other_default}
        assert str(seen[0]) == "tensor(1.)"
        assert _where(x.grad) == {other_default}
    assert x.grad.tolist() == [4.0, 4.0]


def test_grad_with_materialized_zeros_on_the_inputs_device(other_default):
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    u = tl.tensor([3.0], requires_grad=True)
    gx, gu = tl.autograd.grad((x * x).sum(), (x, u), materialize_grads=True)
    assert _where(gx) == _where(gu) == {other_default}
    assert gu.tolist() == [0.0]


def test_optimizer_state_on_the_parameters_device(other_default):
    lin = tl.nn.Linear(3, 2)
    for opt in (tl.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9),
                tl.optim.Adam(lin.parameters(), lr=0.1)):
        opt.zero_grad()
        lin(tl.ones(4, 3)).sum().backward()
        opt.step()
        for p in lin.parameters():
            assert _where(p) == {other_default}
            for v in opt.state[p].values():
                if isinstance(v, tl.Tensor) and v.dim():
                    assert _where(v) == {other_default}
        opt.zero_grad(set_to_none=False)
        assert all(_where(p.grad) == {other_default} for p in lin.parameters())
        assert all(p.grad.abs().sum().item() == 0 for p in lin.parameters())


@pytest.mark.parametrize("write", [lambda t: t.fill_(2.0), lambda t: t.zero_()],
                         ids=["fill_", "zero_"])
def test_writes_that_read_no_values_keep_the_tensors_device(other_default, write):
    # the program reads none of t's values: t must still be among its inputs to place it
    t = tl.ones(2, 3)
    write(t)
    assert _where(t) == {other_default}
    a = tl.ones(3, requires_grad=True)
    b = a * 2
    write(b)
    (b * a).sum().backward()
    assert _where(a.grad) == {other_default}


def test_copies_between_devices_move_the_data_and_the_gradient_back(other_default):
    # ``Tensor.to(device)``, ``.cuda()`` and ``.cpu()`` copy with ``to_device``; jax.device_put
    # inside a jitted program does not move data, so the copy must be made outside one
    from torchlike._ops.creation import to_device
    second = next(d for d in jax.devices("cpu") if d != other_default)
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = to_device(x, second)
    assert _where(y) == {second} and _where(x) == {other_default}
    assert y.grad_fn.name() == "ToCopyBackward0"
    assert y.grad_fn.next_functions[0][0] is not None
    (y * 3).sum().backward()
    assert _where(x.grad) == {other_default}
    assert x.grad.tolist() == [3.0, 3.0]
    # create_graph: the copy back is itself recorded
    x.grad = None
    z = to_device(x, second)
    (gz,) = tl.autograd.grad((z * z).sum(), x, create_graph=True)
    assert _where(gz) == {other_default} and gz.tolist() == [2.0, 4.0]
    gz.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with tl.no_grad():
        assert to_device(x, second).grad_fn is None


def test_custom_function_materialized_zero_gradients_on_the_outputs_device(other_default):
    seen = []

    class TwoOut(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 2 + g2 * 3

    x = tl.tensor([1.0, 2.0], requires_grad=True)
    a, _ = TwoOut.apply(x)
    a.sum().backward()    # the second output gets no gradient: a materialized zero
    assert _where(seen[0]) == {other_default}
    assert seen[0].tolist() == [0.0, 0.0]
    assert _where(x.grad) == {other_default} and x.grad.tolist() == [2.0, 2.0]


def test_compiled_step_fresh_gradient_buffers_on_the_parameters_device(other_default,
                                                                        monkeypatch):
    # Note [Recycled gradient buffers]: a gradient some other name still sees is not
    # recycled; the program's fresh buffer for it is made where the parameter lives
    import jax.numpy as jnp
    lin = tl.nn.Linear(3, 2)
    opt = tl.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)

    @tl.compile
    def step(x):
        opt.zero_grad()
        loss = lin(x).sum()
        loss.backward()
        opt.step()
        return loss

    x = tl.ones(4, 3)
    for _ in range(3):
        step(x)
    made = []
    empty_like = jnp.empty_like

    def spy(*args, **kwargs):
        out = empty_like(*args, **kwargs)
        made.append(set(out.devices()))
        return out

    monkeypatch.setattr(jnp, "empty_like", spy)
    kept = [p.grad for p in lin.parameters()]   # these can't be recycled now
    step(x)
    assert made == [{other_default}] * 2
    assert all(_where(p.grad) == {other_default} for p in lin.parameters())
    assert all(p.grad is not k for p, k in zip(lin.parameters(), kept))
