"""``polar``, ``complex``, ``view_as_real``, ``view_as_complex`` and the function forms of
the conjugate/negative bit queries: values, dtypes, gradients, node names and errors
against PyTorch (against NumPy without it), and the guards that keep the copies returned
by ``view_as_real``/``view_as_complex`` from being silently stale (torchlike cannot
return views there; see Note [view_as_real and view_as_complex are guarded copies])."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, raises_like, torch

RNG = np.random.default_rng(7)
A = RNG.uniform(0.1, 2.0, (2, 3)).astype(np.float32)
B = RNG.uniform(-3.0, 3.0, (2, 3)).astype(np.float32)
Z = (RNG.uniform(-2, 2, (2, 3)) + 1j * RNG.uniform(-2, 2, (2, 3))).astype(np.complex64)


def both(a, requires_grad: bool = False):
    """The same data as a torchlike tensor and (when installed) a torch tensor."""
    t = tl.tensor(a).requires_grad_(requires_grad)
    r = None
    if HAVE_TORCH:
        # (torch.tensor of an empty NumPy array has all strides 0)
        r = torch.tensor(a) if a.size else torch.zeros(a.shape, dtype=torch.tensor(a).dtype)
        r.requires_grad_(requires_grad)
    return t, r


def weighted_grads(fw, out, leaves, w_re, w_im=None):
    """Gradients of ``sum(w_re * re(out) + w_im * im(out))`` (real outputs: ``w_re``)."""
    if out.is_complex():
        loss = (out.real * fw.tensor(w_re)).sum() + (out.imag * fw.tensor(w_im)).sum()
    else:
        loss = (out * fw.tensor(w_re)).sum()
    return fw.autograd.grad(loss, leaves)


# ---------------------------------------------------------------------------
# polar / complex
def test_polar_values_dtype_and_node():
    a, ra = both(A, True)
    b, rb = both(B, True)
    out = tl.polar(a, b)
    assert out.dtype is tl.complex64 and tuple(out.shape) == (2, 3)
    np.testing.assert_allclose(out.detach().numpy(), A * np.exp(1j * B), rtol=1e-6)
    assert out.grad_fn.name() == "PolarBackward0"
    assert len(out.grad_fn.next_functions) == 2
    if HAVE_TORCH:
        ref = torch.polar(ra, rb)
        assert_same(out, ref)
        assert ref.grad_fn.name() == out.grad_fn.name()


def test_complex_values_dtype_and_node():
    a, ra = both(A.astype(np.float64), True)
    b, rb = both(B.astype(np.float64), True)
    out = tl.complex(a, b)
    assert out.dtype is tl.complex128
    np.testing.assert_array_equal(out.detach().numpy(), A.astype(np.float64) + 1j * B)
    assert out.grad_fn.name() == "ComplexBackward0"
    if HAVE_TORCH:
        ref = torch.complex(ra, rb)
        assert_same(out, ref)
        assert ref.grad_fn.name() == out.grad_fn.name()


@pytest.mark.parametrize("name", ["polar", "complex"])
def test_pair_broadcast_and_empty(name):
    for sa, sb in [((2, 1), (3,)), ((), ()), ((0, 2), (2,)), ((1,), (4, 1))]:
        x, rx = both(RNG.uniform(0.1, 1, sa).astype(np.float32))
        y, ry = both(RNG.uniform(-1, 1, sb).astype(np.float32))
        out = getattr(tl, name)(x, y)
        assert tuple(out.shape) == np.broadcast_shapes(sa, sb)
        if HAVE_TORCH:
            assert_same(out, getattr(torch, name)(rx, ry))


def test_polar_gradient_follows_pytorch_at_negative_and_zero_abs():
    # PyTorch's polar_backward takes the gradient w.r.t. abs along sgn(result): it
    # flips sign for a negative abs and is 0 where abs is 0.
    av = np.array([-0.75, 0.0, 2.0, 1.0], np.float32)
    th = np.array([0.4, 1.0, -2.0, 0.0], np.float32)
    w_re = np.array([1.2, 0.3, -0.7, 2.0], np.float32)
    w_im = np.array([0.7, -1.1, 0.4, 0.5], np.float32)
    a, ra = both(av, True)
    b, rb = both(th, True)
    ga, gb = weighted_grads(tl, tl.polar(a, b), [a, b], w_re, w_im)
    sgn = np.sign(av)
    want_a = sgn * (w_re * np.cos(th) + w_im * np.sin(th))
    want_b = av * (-w_re * np.sin(th) + w_im * np.cos(th))
    np.testing.assert_allclose(ga.numpy(), want_a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb.numpy(), want_b, rtol=1e-5, atol=1e-6)
    if HAVE_TORCH:
        ra_g, rb_g = weighted_grads(torch, torch.polar(ra, rb), [ra, rb], w_re, w_im)
        assert_same(ga, ra_g)
        assert_same(gb, rb_g)


def test_complex_gradient_is_real_and_imag_parts():
    a, ra = both(A, True)
    b, rb = both(B, True)
    w_re, w_im = B, A
    ga, gb = weighted_grads(tl, tl.complex(a, b), [a, b], w_re, w_im)
    np.testing.assert_allclose(ga.numpy(), w_re)
    np.testing.assert_allclose(gb.numpy(), w_im)
    if HAVE_TORCH:
        rga, rgb = weighted_grads(torch, torch.complex(ra, rb), [ra, rb], w_re, w_im)
        assert_same(ga, rga)
        assert_same(gb, rgb)


def test_polar_broadcast_gradient_matches_torch():
    a, ra = both(np.array([[1.0, 2.0]], np.float32), True)
    b, rb = both(np.array([[0.5], [1.0]], np.float32), True)
    w_re = np.full((2, 2), 1.2, np.float32)
    w_im = np.full((2, 2), 0.7, np.float32)
    ga, gb = weighted_grads(tl, tl.polar(a, b), [a, b], w_re, w_im)
    assert tuple(ga.shape) == (1, 2) and tuple(gb.shape) == (2, 1)
    if HAVE_TORCH:
        rga, rgb = weighted_grads(torch, torch.polar(ra, rb), [ra, rb], w_re, w_im)
        assert_same(ga, rga)
        assert_same(gb, rgb)


def test_polar_saves_only_its_result():
    # Changing ``abs`` in place after polar is fine (PyTorch saves the result only);
    # changing the result in place makes backward fail.
    for fw in ([tl, torch] if HAVE_TORCH else [tl]):
        a = fw.tensor(A, requires_grad=True).clone()
        b = fw.tensor(B, requires_grad=True)
        out = fw.polar(a, b)
        a.add_(1.0)
        out.real.sum().backward()
        out2 = fw.polar(fw.tensor(A, requires_grad=True) * 1, b)
        out2.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out2.real.sum().backward()


@pytest.mark.parametrize("name,p1,p2", [("polar", "abs", "angle"),
                                        ("complex", "real", "imag")])
def test_pair_errors(name, p1, p2):
    f = getattr(tl, name)
    rf = getattr(torch, name) if HAVE_TORCH else None
    f32, f64, i64 = A[0], A[0].astype(np.float64), np.arange(3)

    def case(x, y):
        tx = tl.tensor(x) if isinstance(x, np.ndarray) else x
        ty = tl.tensor(y) if isinstance(y, np.ndarray) else y
        rx = torch.tensor(x) if HAVE_TORCH and isinstance(x, np.ndarray) else x
        ry = torch.tensor(y) if HAVE_TORCH and isinstance(y, np.ndarray) else y
        return (lambda: f(tx, ty)), (lambda: rf(rx, ry))

    e = raises_like(*case(f32, f64), exc=RuntimeError)
    assert str(e) == ("Expected object of scalar type Float but got scalar type Double for "
                      "second argument")
    e = raises_like(*case(i64, i64), exc=RuntimeError)
    assert str(e) == "Expected both inputs to be Half, Float or Double tensors but got Long " \
                     "and Long"
    raises_like(*case(f32, i64.astype(np.int32)), exc=RuntimeError)
    raises_like(*case(np.array([True]), np.array([True])), exc=RuntimeError)
    raises_like(*case(Z[0], Z[0]), exc=RuntimeError)
    raises_like(*case(A[0, :2], A[0]), exc=RuntimeError)
    e = raises_like(*case(f32, 1.0), exc=TypeError)
    assert f"argument '{p2}' (position 2)" in str(e)
    e = raises_like(*case(1.0, f32), exc=TypeError)
    assert f"argument '{p1}' (position 1)" in str(e)
    bf = tl.tensor(A[0]).to(tl.bfloat16)
    with pytest.raises(RuntimeError, match="got BFloat16 and BFloat16"):
        f(bf, bf)


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_half_inputs():
    h = tl.tensor(A[0]).half()
    # PyTorch's CPU polar has no Half kernel
    raises_like(lambda: tl.polar(h, h),
                lambda: torch.polar(torch.tensor(A[0]).half(), torch.tensor(A[0]).half()),
                exc=NotImplementedError)
    # PyTorch's complex gives complex32, which torchlike lacks: a clear error, never a
    # silently different dtype
    with pytest.raises(NotImplementedError, match="complex32"):
        tl.complex(h, h)
    assert issubclass(NotImplementedError, RuntimeError)


def test_polar_and_complex_are_functions_only():
    assert not hasattr(tl.Tensor, "polar") and not hasattr(tl.Tensor, "complex")
    if HAVE_TORCH:
        assert not hasattr(torch.Tensor, "polar") and not hasattr(torch.Tensor, "complex")


# ---------------------------------------------------------------------------
# view_as_real / view_as_complex: values, gradients, errors
@pytest.mark.parametrize("shape,dtype", [((2, 3), np.complex64), ((), np.complex128),
                                         ((0, 3), np.complex64), ((4,), np.complex128)])
def test_view_as_real_values(shape, dtype):
    z = (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(dtype)
    x, rx = both(z)
    out = tl.view_as_real(x)
    want = np.stack([z.real, z.imag], axis=-1)
    assert tuple(out.shape) == shape + (2,)
    assert out.dtype is (tl.float32 if dtype == np.complex64 else tl.float64)
    np.testing.assert_array_equal(out.numpy(), want)
    assert out.is_contiguous()
    if HAVE_TORCH:
        assert_same(out, torch.view_as_real(rx))


@pytest.mark.parametrize("shape,dtype", [((2, 3, 2), np.float32), ((2,), np.float64),
                                         ((0, 2), np.float32), ((3, 1, 2), np.float64)])
def test_view_as_complex_values(shape, dtype):
    a = RNG.uniform(-1, 1, shape).astype(dtype)
    x, rx = both(a)
    out = tl.view_as_complex(x)
    assert tuple(out.shape) == shape[:-1]
    assert out.dtype is (tl.complex64 if dtype == np.float32 else tl.complex128)
    np.testing.assert_array_equal(out.numpy(), a[..., 0] + 1j * a[..., 1])
    if HAVE_TORCH:
        assert_same(out, torch.view_as_complex(rx))


def test_view_as_complex_of_strided_inputs():
    base = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    x, rx = both(base)
    cases = [(lambda t: t[:, 1:], lambda a: a[:, 1:]), (lambda t: t[::2], lambda a: a[::2]),
             (lambda t: t.expand(2, 3, 4, 2), lambda a: np.broadcast_to(a, (2, 3, 4, 2))),
             (lambda t: t[1], lambda a: a[1])]
    for fn, np_fn in cases:
        out = tl.view_as_complex(fn(x))
        want = np_fn(base)
        np.testing.assert_array_equal(out.numpy(), want[..., 0] + 1j * want[..., 1])
        if HAVE_TORCH:
            assert_same(out, torch.view_as_complex(fn(rx)))


def test_view_as_real_gradient_and_node():
    x, rx = both(Z, True)
    out = tl.view_as_real(x)
    assert out.grad_fn.name() == "ViewAsRealBackward0"
    w = RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    (g,) = weighted_grads(tl, out, [x], w)
    np.testing.assert_allclose(g.numpy(), w[..., 0] + 1j * w[..., 1])
    if HAVE_TORCH:
        rout = torch.view_as_real(rx)
        assert rout.grad_fn.name() == "ViewAsRealBackward0"
        (rg,) = weighted_grads(torch, rout, [rx], w)
        assert_same(g, rg)


def test_view_as_complex_gradient_and_node():
    a = RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float64)
    x, rx = both(a, True)
    out = tl.view_as_complex(x)
    assert out.grad_fn.name() == "ViewAsComplexBackward0"
    w_re, w_im = A.astype(np.float64), B.astype(np.float64)
    (g,) = weighted_grads(tl, out, [x], w_re, w_im)
    np.testing.assert_allclose(g.numpy(), np.stack([w_re, w_im], -1))
    if HAVE_TORCH:
        rout = torch.view_as_complex(rx)
        assert rout.grad_fn.name() == "ViewAsComplexBackward0"
        (rg,) = weighted_grads(torch, rout, [rx], w_re, w_im)
        assert_same(g, rg)


def test_round_trip_keeps_gradients():
    x, rx = both(Z, True)
    out = tl.view_as_complex(tl.view_as_real(x) * 2)
    out.abs().sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), 2 * Z)
    if HAVE_TORCH:
        rout = torch.view_as_complex(torch.view_as_real(rx) * 2)
        rout.abs().sum().backward()
        assert_same(x.grad, rx.grad)


def test_view_as_real_errors():
    e = raises_like(lambda: tl.view_as_real(tl.tensor(A)),
                    lambda: torch.view_as_real(torch.tensor(A)), exc=RuntimeError)
    assert str(e) == "view_as_real is only supported for complex tensors"
    raises_like(lambda: tl.view_as_real(tl.arange(3)),
                lambda: torch.view_as_real(torch.arange(3)), exc=RuntimeError)
    raises_like(lambda: tl.view_as_real(3), lambda: torch.view_as_real(3), exc=TypeError)


def test_view_as_complex_errors():
    def case(make):
        return (lambda: tl.view_as_complex(make(tl))), \
            (lambda: torch.view_as_complex(make(torch)))

    cases = [
        (lambda fw: fw.ones(3, dtype=fw.int32),
         "view_as_complex is only supported for half, float and double tensors, but got a "
         "tensor of scalar type: Int"),
        (lambda fw: fw.ones(3, 2, dtype=fw.bfloat16), None),
        (lambda fw: fw.ones(3, 2, dtype=fw.complex64), None),
        (lambda fw: fw.ones(()), "Input tensor must have one or more dimensions"),
        (lambda fw: fw.ones(3), "Tensor must have a last dimension of size 2"),
        (lambda fw: fw.ones(3, 3), "Tensor must have a last dimension of size 2"),
        (lambda fw: fw.ones(2, 3).t(), "Tensor must have a last dimension with stride 1"),
        (lambda fw: fw.ones(3, 1).expand(3, 2),
         "Tensor must have a last dimension with stride 1"),
        (lambda fw: fw.ones(3, 5)[:, 2:4],
         "Tensor must have a stride divisible by 2 for all but last dimension"),
        (lambda fw: fw.ones(10)[1:5].view(2, 2),
         "Tensor must have a storage_offset divisible by 2"),
    ]
    for make, text in cases:
        e = raises_like(*case(make), exc=RuntimeError)
        if text is not None:
            assert str(e) == text
    raises_like(lambda: tl.view_as_complex([1.0, 2.0]),
                lambda: torch.view_as_complex([1.0, 2.0]), exc=TypeError)
    # PyTorch views Half as complex32, which torchlike lacks: a clear error instead
    with pytest.raises(NotImplementedError, match="complex32"):
        tl.view_as_complex(tl.ones(3, 2, dtype=tl.float16))


def test_view_functions_are_functions_only():
    assert not hasattr(tl.Tensor, "view_as_real") and not hasattr(tl.Tensor,
                                                                   "view_as_complex")
    if HAVE_TORCH:
        assert not hasattr(torch.Tensor, "view_as_real")


# ---------------------------------------------------------------------------
# the guards: a copy where PyTorch has a view is never silently stale
WRITES = {
    "method": lambda r: r.add_(1),
    "setitem": lambda r: r.__setitem__(0, 5.0),
    "view": lambda r: r[0].mul_(2),
    "reshape_view": lambda r: r.view(-1).fill_(3),
    "detach": lambda r: r.detach().zero_(),
    "data": lambda r: r.data.zero_(),
    "copy_": lambda r: r.copy_(r * 2),
}


@pytest.mark.parametrize("route", sorted(WRITES))
@pytest.mark.parametrize("op", ["view_as_real", "view_as_complex"])
def test_writes_through_the_result_raise(op, route):
    data = Z if op == "view_as_real" else np.stack([A, B], -1)
    x = tl.tensor(data)
    out = getattr(tl, op)(x)
    before = out.numpy().copy()
    with pytest.raises(RuntimeError, match=f"{op}\\(\\): in PyTorch the result is a view"):
        WRITES[route](out)
    np.testing.assert_array_equal(out.numpy(), before)   # the refused write left no trace
    np.testing.assert_array_equal(x.numpy(), data)
    if HAVE_TORCH:
        # PyTorch: the same write reaches the input
        rx = torch.tensor(data)
        WRITES[route](getattr(torch, op)(rx))
        assert not np.array_equal(rx.numpy(), data)


@pytest.mark.parametrize("route", sorted(WRITES))
@pytest.mark.parametrize("part", ["real", "imag"])
def test_writes_through_real_and_imag_raise(part, route):
    x = tl.tensor(Z)
    out = getattr(x, part)
    before = out.numpy().copy()
    with pytest.raises(RuntimeError, match=f"{part}\\(\\): in PyTorch the result is a view"):
        WRITES[route](out)
    np.testing.assert_array_equal(out.numpy(), before)
    np.testing.assert_array_equal(x.numpy(), Z)
    if HAVE_TORCH:
        rx = torch.tensor(Z)
        WRITES[route](getattr(rx, part))   # PyTorch: the write reaches the input
        assert not np.array_equal(rx.numpy(), Z)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_real_and_imag_read_after_the_input_changed_raise(part):
    x = tl.tensor(Z)
    out = getattr(x, part)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="input was modified in place"):
        out.tolist()
    np.testing.assert_array_equal(getattr(x, part).numpy(), getattr(Z * 2, part))


def test_real_and_imag_keep_gradients_and_real_tensors_stay_themselves():
    x = tl.tensor(Z, requires_grad=True)
    (x.real * 3 + x.imag).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(Z.shape, 3 + 1j), rtol=1e-6)
    r = tl.tensor(A)
    assert r.real is r and tl.real(r) is r
    r.real.add_(1)                          # the tensor itself: the write is real
    np.testing.assert_allclose(r.numpy(), A + 1, rtol=1e-6)
    if HAVE_TORCH:
        rx = torch.tensor(Z, requires_grad=True)
        (rx.real * 3 + rx.imag).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), rx.grad.numpy(), rtol=1e-6)


def test_write_through_result_that_requires_grad_raises():
    x = tl.tensor(Z, requires_grad=True)
    out = tl.view_as_real(x * 1)
    with pytest.raises(RuntimeError, match="in PyTorch the result is a view"):
        out.mul_(2)
    assert out.grad_fn.name() == "ViewAsRealBackward0"


def test_optimizer_step_on_a_parameter_over_the_result_raises():
    p = tl.nn.Parameter(tl.view_as_real(tl.tensor(Z)))
    (p * 2).sum().backward()
    with pytest.raises(RuntimeError, match="in PyTorch the result is a view"):
        tl.optim.SGD([p], lr=0.1).step()


@pytest.mark.parametrize("op", ["view_as_real", "view_as_complex"])
def test_reading_after_the_input_changed_raises(op):
    data = Z if op == "view_as_real" else np.stack([A, B], -1)
    for change in (lambda x: x.mul_(2), lambda x: x.data.mul_(2),
                   lambda x: x[0].zero_(), lambda x: x.detach().add_(1)):
        x = tl.tensor(data)
        out = getattr(tl, op)(x)
        view = out[0]
        keep = out.clone()          # a clone made before the change keeps the old values
        change(x)
        for reader in (lambda: out.numpy(), lambda: out + 1, lambda: view.tolist(),
                       lambda: repr(out)):
            with pytest.raises(RuntimeError, match="input was modified in place"):
                reader()
        np.testing.assert_array_equal(keep.numpy(), getattr(tl, op)(tl.tensor(data)).numpy())
        fresh = getattr(tl, op)(x)  # calling again gives the new values
        if HAVE_TORCH:
            rx = torch.tensor(data)
            rout = getattr(torch, op)(rx)
            change(rx)
            assert_same(fresh, rout)


def test_results_that_are_only_read_keep_working():
    x = tl.tensor(Z)
    out = tl.view_as_real(x)
    y = x + 1                          # reading the input changes nothing
    assert tl.equal(tl.view_as_real(y), out + tl.tensor([1.0, 0.0]))
    c = out.clone()
    c.add_(1)                          # a clone is an ordinary tensor
    np.testing.assert_array_equal(c.numpy(), out.numpy() + 1)
    assert out._version == 0 and not out.is_conj()
    chained = tl.view_as_complex(out)  # a copy of a copy
    np.testing.assert_array_equal(chained.numpy(), Z)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="input was modified in place"):
        chained.numpy()


def test_compiled_functions_read_the_result_and_refuse_writes():
    x = tl.tensor(Z)
    out = tl.view_as_real(x)
    double = tl.compile(lambda r: r * 2)
    np.testing.assert_array_equal(double(out).numpy(), 2 * out.numpy())
    np.testing.assert_array_equal(double(out).numpy(), 2 * out.numpy())
    np.testing.assert_array_equal(out.numpy(), np.stack([Z.real, Z.imag], -1))
    with pytest.raises(RuntimeError, match="in PyTorch the result is a view"):
        tl.compile(lambda r: r.add_(1))(out)
    np.testing.assert_array_equal(out.numpy(), np.stack([Z.real, Z.imag], -1))
    made = tl.compile(lambda z: tl.view_as_real(z) * 3)(x)
    np.testing.assert_allclose(made.numpy(), 3 * out.numpy())


def test_compiled_function_reading_the_result_after_changing_the_input_raises():
    x = tl.tensor(Z)
    out = tl.view_as_real(x)
    other = tl.ones(2)

    def step(z, r, o):
        z.mul_(2)
        return r + o

    with pytest.raises(RuntimeError, match="input was modified in place"):
        tl.compile(step)(x, out, other)
    # the failed trace put every argument's value back
    np.testing.assert_array_equal(x.numpy(), Z)
    np.testing.assert_array_equal(other.numpy(), [1.0, 1.0])


# ---------------------------------------------------------------------------
# is_conj / resolve_conj / is_neg / resolve_neg
@pytest.mark.parametrize("name", ["is_conj", "resolve_conj", "is_neg", "resolve_neg"])
def test_conj_neg_functions_delegate(name):
    assert hasattr(tl.Tensor, name)
    for data in (Z, A):
        x, rx = both(data)
        got = getattr(tl, name)(x)
        want_tl = getattr(x, name)()
        if name.startswith("is_"):
            assert got is want_tl is False
            if HAVE_TORCH:
                assert getattr(torch, name)(rx) is got
        else:
            assert got is x is want_tl
            if HAVE_TORCH:
                assert getattr(torch, name)(rx) is rx
    e = raises_like(lambda: getattr(tl, name)(3), lambda: getattr(torch, name)(3),
                    exc=TypeError)
    assert str(e) == f"{name}(): argument 'input' (position 1) must be Tensor, not int"
