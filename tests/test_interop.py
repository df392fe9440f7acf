"""JAX and DLPack interop: ``from_jax``/``Tensor.jax()`` share the array, tensors are
JAX pytrees (``jnp.sin(t)``, ``jax.jit(f)(t)``), and DLPack exchange with NumPy, JAX
and PyTorch (the test oracle) round-trips values, dtypes and, where the producer allows,
memory. Errors mirror PyTorch's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl
from torchlike.utils import dlpack as tl_dlpack

from ._parity import HAVE_TORCH, assert_same, torch


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e), str(e).replace("torchlike", "torch")
    raise AssertionError("no exception raised")


# ---------------------------------------------------------------------------- from_jax
@pytest.mark.parametrize("dtype,name", [(jnp.float32, "float32"), (jnp.float64, "float64"),
                                        (jnp.bfloat16, "bfloat16"), (jnp.int64, "int64"),
                                        (jnp.int32, "int32"), (jnp.uint8, "uint8"),
                                        (jnp.bool_, "bool"), (jnp.complex64, "complex64")])
def test_from_jax_shares_the_array_and_maps_dtype(dtype, name):
    a = jnp.arange(6).reshape(2, 3).astype(dtype)
    t = tl.from_jax(a)
    assert t.jax() is a
    assert t.dtype is getattr(tl, name)
    assert tuple(t.shape) == (2, 3) and not t.requires_grad
    np.testing.assert_array_equal(np.asarray(t.jax()), np.asarray(a))


def test_from_jax_errors():
    assert _err(lambda: tl.from_jax(np.ones(3)))[0] is TypeError
    assert "from_numpy" in _err(lambda: tl.from_jax(np.ones(3)))[1]
    assert _err(lambda: tl.from_jax(tl.ones(3)))[0] is TypeError
    typ, msg = _err(lambda: tl.from_jax(jnp.ones(3, jnp.uint32)))
    assert typ is TypeError and "uint32" in msg


def test_from_jax_on_tracers_inside_jit_and_grad():
    def f(a):
        t = tl.from_jax(a)
        return (t.sin() * 2).sum().jax()

    a = jnp.arange(3.0)
    np.testing.assert_allclose(jax.jit(f)(a), 2 * np.sin(np.arange(3.0)).sum(), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f)(a), 2 * np.cos(np.arange(3.0)), rtol=1e-6)


def test_writes_replace_the_storage_and_never_mutate_the_given_array():
    a = jnp.zeros(4)
    t = tl.from_jax(a)
    before = t.jax()
    t[1] = 5.0
    t.add_(1)
    np.testing.assert_array_equal(np.asarray(a), np.zeros(4))
    np.testing.assert_array_equal(np.asarray(before), np.zeros(4))
    np.testing.assert_array_equal(np.asarray(t.jax()), [1, 6, 1, 1])


def test_jax_of_a_view_is_its_value_and_follows_writes_to_the_base():
    base = tl.arange(6.0).reshape(2, 3)
    v = base.t()[1]
    np.testing.assert_array_equal(np.asarray(v.jax()), [1.0, 4.0])
    base.mul_(10)
    np.testing.assert_array_equal(np.asarray(v.jax()), [10.0, 40.0])
    p = tl.nn.Parameter(tl.ones(2))
    assert isinstance(p.jax(), jax.Array)  # works on tensors that require grad


# ---------------------------------------------------------------------------- pytrees
def test_jax_array_protocol_and_jnp_functions():
    t = tl.tensor([0.5, 1.0, 2.0])
    assert jnp.asarray(t) is t.jax()
    np.testing.assert_allclose(jnp.sin(t), np.sin([0.5, 1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(jnp.add(t, 1.0), [1.5, 2.0, 3.0])
    np.testing.assert_allclose(jnp.sin(tl.nn.Parameter(t)), np.sin([0.5, 1.0, 2.0]), rtol=1e-6)


def test_tensors_are_pytrees():
    t = tl.arange(3.0)
    out = jax.jit(lambda x: x * 2)(t)
    assert isinstance(out, tl.Tensor) and not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 4.0])
    tree = jax.tree_util.tree_map(lambda a: a + 1, {"w": t, "n": 3})
    assert isinstance(tree["w"], tl.Tensor) and tree["n"] == 4
    np.testing.assert_array_equal(tree["w"].numpy(), [1.0, 2.0, 3.0])
    assert jax.tree_util.tree_leaves({"w": t})[0] is t.jax()
    assert tuple(jax.eval_shape(lambda x: x.sum(0), tl.ones(2, 3)).shape) == (3,)


# ---------------------------------------------------------------------------- DLPack
def test_from_dlpack_numpy_values_dtype_and_memory():
    n = np.arange(64, dtype=np.float32)  # NumPy aligns buffers this size to 64 bytes
    t = tl.from_dlpack(n)
    assert t.dtype is tl.float32
    np.testing.assert_array_equal(t.numpy(), n)
    if n.ctypes.data % 64 == 0:
        assert t.jax().unsafe_buffer_pointer() == n.ctypes.data  # zero-copy
    t.add_(1)  # a write through the tensor never reaches the producer
    np.testing.assert_array_equal(n, np.arange(64, dtype=np.float32))
    ro = np.arange(3.0)
    ro.setflags(write=False)
    np.testing.assert_array_equal(tl.utils.dlpack.from_dlpack(ro).numpy(), ro)
    assert tl.from_dlpack(n, copy=True).jax().unsafe_buffer_pointer() != n.ctypes.data


def test_from_dlpack_of_jax_and_torchlike_tensors():
    a = jnp.arange(3.0)
    assert tl.from_dlpack(a).jax() is a
    t = tl.arange(4.0)
    s = tl.from_dlpack(t)
    s[0] = -1.0  # shares memory both ways, as PyTorch's from_dlpack of a tensor
    assert t[0].item() == -1.0
    typ, msg = _err(lambda: tl.from_dlpack(tl.ones(2, requires_grad=True)))
    assert typ is BufferError and "require gradient" in msg
    assert _err(lambda: tl.from_dlpack([1, 2]))[0] is TypeError


def test_capsule_round_trip_and_reuse_error():
    t = tl.tensor([[1, 2], [3, 4]])
    cap = tl_dlpack.to_dlpack(t)
    back = tl.from_dlpack(cap)
    assert back.dtype is tl.int64
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    typ, msg = _err(lambda: tl.from_dlpack(cap))
    assert typ is RuntimeError and "consumed only once" in msg
    assert _err(lambda: tl_dlpack.to_dlpack(np.ones(2)))[0] is TypeError


def test_dunder_dlpack_checks():
    t = tl.arange(3.0)
    assert tuple(t.__dlpack_device__()) == (tl_dlpack.DLDeviceType.kDLCPU, 0)
    typ, msg = _err(lambda: tl.ones(2, requires_grad=True).__dlpack__())
    assert typ is BufferError and "tensor.detach()" in msg

    def traced(a):
        tl.from_jax(a).__dlpack__()
        return a
    assert _err(lambda: jax.jit(traced)(jnp.ones(2)))[0] is BufferError


def test_torch_consumes_torchlike_tensors_zero_copy():
    t = tl.arange(6.0).reshape(2, 3)
    # torchlike's half, the producer: its capsules are consumable (here by torchlike)
    np.testing.assert_array_equal(np.asarray(tl.from_dlpack(t.__dlpack__())), np.asarray(t))
    back = tl.from_dlpack(tl_dlpack.to_dlpack(tl.tensor([1.5, 2.5], dtype=tl.float64)))
    assert back.dtype == tl.float64 and back.tolist() == [1.5, 2.5]
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: no consumer to compare with")
    pt = torch.from_dlpack(t)
    assert pt.data_ptr() == t.jax().unsafe_buffer_pointer()
    assert_same(t, pt)
    assert_same(tl.tensor([True, False]), torch.from_dlpack(tl.tensor([True, False])))
    assert_same(t.t(), torch.from_dlpack(t.t()))  # a view exports its values
    cap = tl_dlpack.to_dlpack(tl.tensor([1.5, 2.5], dtype=tl.float64))
    assert_same(tl.tensor([1.5, 2.5], dtype=tl.float64), torch.utils.dlpack.from_dlpack(cap))
    assert tuple(t.__dlpack_device__()) == tuple(pt.__dlpack_device__())


@pytest.mark.parametrize("make, make_np", [
    (lambda: torch.arange(6.0).reshape(2, 3), lambda: np.arange(6.0).reshape(2, 3)),
    (lambda: torch.arange(6).reshape(2, 3).t(), lambda: np.arange(6).reshape(2, 3).T),
    (lambda: torch.tensor([True, False]), lambda: np.array([True, False])),
    (lambda: torch.randn(3, dtype=torch.float64),
     lambda: np.random.default_rng(0).standard_normal(3))])
def test_torchlike_consumes_torch_tensors(make, make_np):
    if not HAVE_TORCH:   # no PyTorch producer: NumPy's stands in for the same arrays
        src = make_np()
        t = tl.from_dlpack(src)
        assert str(t.dtype) == f"torchlike.{src.dtype}" and tuple(t.shape) == src.shape
        np.testing.assert_array_equal(np.asarray(t), src)
        return
    src = make()
    t = tl.from_dlpack(src)
    assert_same(t, src)
    assert_same(tl.from_dlpack(torch.utils.dlpack.to_dlpack(src.contiguous())), src)
    if src.is_contiguous() and src.dtype != torch.bool:
        assert t.jax().unsafe_buffer_pointer() == src.data_ptr()  # zero-copy


def test_dlpack_errors_match_torch():
    def export(m):
        return m.ones(2, requires_grad=True).__dlpack__()

    assert _err(lambda: export(tl)) == (
        BufferError, "Can't export tensors that require gradient, use tensor.detach()")
    if HAVE_TORCH:
        assert _err(lambda: export(tl)) == _err(lambda: export(torch))

    def from_used(m):
        cap = m.utils.dlpack.to_dlpack(m.ones(2))
        m.from_dlpack(cap)
        m.from_dlpack(cap)

    assert _err(lambda: from_used(tl))[0] is RuntimeError
    assert "DLTensor capsules can be consumed only once" in _err(lambda: from_used(tl))[1]
    if HAVE_TORCH:
        assert _err(lambda: from_used(tl)) == _err(lambda: from_used(torch))

    def capsule_with_copy(m):
        m.from_dlpack(m.utils.dlpack.to_dlpack(m.ones(1)), copy=True)

    assert _err(lambda: capsule_with_copy(tl)) == (
        AssertionError, "device and copy kwargs not supported when ext_tensor is already a "
                        "DLPack capsule.")
    if HAVE_TORCH:
        assert _err(lambda: capsule_with_copy(tl)) == _err(lambda: capsule_with_copy(torch))


# ------------------------------------------------------------------ detach under JAX
def _detach_fn(how):
    def f(t):
        d = t.detach() if how == "detach" else t.data
        return (t * d).sum() + (d.view(-1)[:2] * t.view(-1)[:2]).sum()
    return f


@pytest.mark.parametrize("how", ["detach", "data"])
def test_detach_stops_jax_gradients(how):
    # d(t * t.detach())/dt is t.detach(), as PyTorch computes it, also when JAX
    # differentiates the torchlike code.
    f = _detach_fn(how)
    x = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    g = jax.grad(lambda a: f(tl.from_jax(a)).jax())(jnp.asarray(x))
    t = tl.tensor(x, requires_grad=True)
    f(t).backward()
    np.testing.assert_allclose(np.asarray(g), t.grad.numpy(), rtol=1e-6)
    expected = x.copy()
    expected.reshape(-1)[:2] *= 2
    np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-6)
    if torch is not None:
        tt = torch.tensor(x, requires_grad=True)
        f(tt).backward()
        np.testing.assert_allclose(np.asarray(g), tt.grad.numpy(), rtol=1e-6)


def test_writes_through_detach_reach_the_base_under_jit():
    def f(a):
        t = tl.from_jax(a).clone()
        t.detach().mul_(2.0)             # in place through the alias
        t.data[0] = 10.0
        return t.jax()
    out = jax.jit(f)(jnp.ones(3, jnp.float32))
    np.testing.assert_array_equal(np.asarray(out), [10.0, 2.0, 2.0])


def test_compiled_module_with_detach_gets_pytorch_gradients():
    # The forward's VJP (Note [Differentiable compiled forward]) is JAX's: a detach inside
    # must stop it there too.
    class M(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tl.nn.Linear(3, 3)

        def forward(self, x):
            h = self.lin(x)
            return (h * h.detach()).sum()
    tl.manual_seed(0)
    m = M()
    x = tl.randn(2, 3)
    tl.compile(m)(x).backward()
    compiled = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    m(x).backward()
    for c, p in zip(compiled, m.parameters()):
        np.testing.assert_allclose(c.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_forward_mode_stops_at_detach():
    from torchlike.func import jvp
    out, tangent = jvp(lambda t: t * t.detach(), (tl.tensor([1.0, 2.0]),),
                       (tl.tensor([1.0, 1.0]),))
    np.testing.assert_array_equal(out.numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(tangent.numpy(), [1.0, 2.0])
    if torch is not None:
        _, t_tangent = torch.func.jvp(lambda t: t * t.detach(), (torch.tensor([1.0, 2.0]),),
                                      (torch.tensor([1.0, 1.0]),))
        np.testing.assert_array_equal(tangent.numpy(), t_tangent.numpy())
