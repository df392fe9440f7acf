"""``select_scatter``, ``slice_scatter``, ``diagonal_scatter``, ``renorm``/``renorm_`` and
``Tensor.sum_to_size``: values, dtypes, gradients w.r.t. both inputs, node names and
errors against PyTorch (against NumPy without it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, raises_like, torch

RNG = np.random.default_rng(11)


def rand(*shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def both(a, requires_grad: bool = False):
    """The same data as a torchlike tensor and (when installed) a torch tensor."""
    t = tl.tensor(a).requires_grad_(requires_grad)
    r = torch.tensor(a).requires_grad_(requires_grad) if HAVE_TORCH else None
    return t, r


def grads_of(fw, out, leaves, w):
    return fw.autograd.grad((out * fw.tensor(w)).sum(), leaves)


# ---------------------------------------------------------------------------
# the three scatters: (name, input shape, src shape, args, NumPy reference)
def _np_select(a, s, dim, index):
    out = a.copy()
    idx = [slice(None)] * a.ndim
    idx[dim] = index
    out[tuple(idx)] = s
    return out


def _np_slice(a, s, dim=0, start=None, end=None, step=1):
    out = a.copy()
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = s
    return out


def _np_diagonal(a, s, offset=0, dim1=0, dim2=1):
    out = np.moveaxis(a.copy(), (dim1, dim2), (-2, -1))
    i = np.arange(s.shape[-1])
    out[..., i + max(-offset, 0), i + max(offset, 0)] = s
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


CASES = [
    ("select_scatter", (3, 4), (4,), (0, 1), _np_select),
    ("select_scatter", (3, 4), (3,), (1, -1), _np_select),
    ("select_scatter", (2, 3, 4), (2, 3), (-1, 3), _np_select),
    ("select_scatter", (4,), (), (0, -2), _np_select),
    ("select_scatter", (0, 3), (0,), (1, 2), _np_select),
    ("slice_scatter", (3, 4), (3, 2), (1, 1, 3), _np_slice),
    ("slice_scatter", (3, 4), (3, 2), (1, 0, None, 2), _np_slice),
    ("slice_scatter", (5, 2), (2, 2), (0, -2), _np_slice),
    ("slice_scatter", (5, 2), (0, 2), (0, 4, 1), _np_slice),
    ("slice_scatter", (5, 2), (1, 2), (0, -10, 1), _np_slice),
    ("slice_scatter", (2, 5, 3), (2, 2, 3), (-2, 1, -1, 2), _np_slice),
    ("diagonal_scatter", (3, 4), (3,), (), _np_diagonal),
    ("diagonal_scatter", (3, 4), (3,), (1,), _np_diagonal),
    ("diagonal_scatter", (3, 4), (2,), (-1,), _np_diagonal),
    ("diagonal_scatter", (3, 4), (0,), (10,), _np_diagonal),
    ("diagonal_scatter", (2, 3, 4), (3, 2), (0, 0, 2), _np_diagonal),
    ("diagonal_scatter", (2, 3, 4), (2, 3), (-1, -1, -2), _np_diagonal),
]




@pytest.mark.parametrize("name,ishape,sshape,args,ref", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_scatter_values_and_gradients(name, ishape, sshape, args, ref):
    a, s = rand(*ishape), rand(*sshape)
    x, rx = both(a, True)
    y, ry = both(s, True)
    out = getattr(tl, name)(x, y, *args)
    assert out.dtype is tl.float32 and tuple(out.shape) == ishape
    np.testing.assert_array_equal(out.detach().numpy(), ref(a, s, *args))
    node = "".join(p.capitalize() for p in name.split("_")) + "Backward0"
    assert out.grad_fn.name() == node
    assert [type(n[0]).__name__ for n in out.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    w = rand(*ishape)
    gx, gy = grads_of(tl, out, [x, y], w)
    # the gradient of input is w outside the written view; that of src is w's view
    np.testing.assert_array_equal(gx.numpy(), ref(w, np.zeros(sshape, np.float32), *args))
    marker = ref(np.zeros(ishape, np.float32), np.ones(sshape, np.float32), *args)
    assert gy.shape == y.shape
    np.testing.assert_allclose(gy.numpy().sum(), (w * marker).sum(), rtol=1e-5, atol=1e-6)
    as_method = getattr(x, name)(y, *args)
    np.testing.assert_array_equal(as_method.detach().numpy(), out.detach().numpy())
    if HAVE_TORCH:
        rout = getattr(torch, name)(rx, ry, *args)
        assert_same(out, rout)
        assert rout.grad_fn.name() == node
        rgx, rgy = grads_of(torch, rout, [rx, ry], w)
        assert_same(gx, rgx)
        assert_same(gy, rgy)


@pytest.mark.parametrize("name,args,sshape", [("select_scatter", (0, 0), (4,)),
                                              ("slice_scatter", (0, 1, 3), (2, 4)),
                                              ("diagonal_scatter", (), (3,))])
def test_scatter_casts_src_to_input_dtype(name, args, sshape):
    f = getattr(tl, name)
    for idt, sdt in [(np.float32, np.float64), (np.float64, np.float32),
                     (np.int64, np.float32), (np.float32, np.int64), (np.int32, np.int32)]:
        a = (rand(3, 4) * 3).astype(idt)
        s = (rand(*sshape) * 3).astype(sdt)
        out = f(tl.tensor(a), tl.tensor(s), *args)
        assert out.dtype is tl.tensor(a).dtype
        if HAVE_TORCH:
            assert_same(out, getattr(torch, name)(torch.tensor(a), torch.tensor(s), *args))
    # a float64 src's gradient stays float64
    x, rx = both(rand(3, 4), True)
    y, ry = both(rand(*sshape).astype(np.float64), True)
    (g,) = tl.autograd.grad(f(x, y, *args).sum(), [y])
    assert g.dtype is tl.float64
    if HAVE_TORCH:
        (rg,) = torch.autograd.grad(getattr(torch, name)(rx, ry, *args).sum(), [ry])
        assert_same(g, rg)


@pytest.mark.parametrize("name,args,sshape", [("select_scatter", (0, 0), (4,)),
                                              ("slice_scatter", (0, 1, 3), (2, 4)),
                                              ("diagonal_scatter", (), (3,))])
def test_scatter_of_integer_input_with_src_requiring_grad(name, args, sshape):
    def run(fw):
        src = fw.tensor(rand(*sshape), requires_grad=True)
        return getattr(fw, name)(fw.ones(3, 4, dtype=fw.int64), src, *args)
    e = raises_like(lambda: run(tl), lambda: run(torch) if HAVE_TORCH else None,
                    exc=RuntimeError)
    assert str(e) == "Autograd not support dtype: Long"
    with tl.no_grad():
        assert run(tl).dtype is tl.int64


def test_scatter_leaves_input_unchanged_and_is_a_new_tensor():
    a = rand(3, 4)
    x = tl.tensor(a)
    for out in (tl.select_scatter(x, tl.zeros(4), 0, 0),
                tl.slice_scatter(x, tl.zeros(3, 4)), tl.diagonal_scatter(x, tl.zeros(3))):
        assert out._base is None and out.data_ptr() != x.data_ptr()
        out.add_(1)
    np.testing.assert_array_equal(x.numpy(), a)
    assert x._version == 0


def test_select_scatter_errors():
    a = rand(3, 4)

    def case(src_shape, *args, src=None):
        s = rand(*src_shape) if src is None else src
        tx, ts = tl.tensor(a), (tl.tensor(s) if isinstance(s, np.ndarray) else s)
        if not HAVE_TORCH:
            return (lambda: tl.select_scatter(tx, ts, *args)), None
        rx, rs = torch.tensor(a), (torch.tensor(s) if isinstance(s, np.ndarray) else s)
        return (lambda: tl.select_scatter(tx, ts, *args)), \
            (lambda: torch.select_scatter(rx, rs, *args))

    e = raises_like(*case((3,), 0, 1), exc=RuntimeError)
    assert str(e) == ("expected src to have a size equal to the slice of self. src size = "
                      "[3], slice size = [4]")
    raises_like(*case((), 0, 1), exc=RuntimeError)
    e = raises_like(*case((4,), 0, 3), exc=IndexError)
    assert str(e) == "select(): index 3 out of range for tensor of size [3, 4] at dimension 0"
    raises_like(*case((4,), 0, -4), exc=IndexError)
    raises_like(*case((4,), 2, 0), exc=IndexError)
    raises_like(*case((4,), 0, 1.5), exc=TypeError)
    raises_like(*case((4,), True, 0), exc=TypeError)
    raises_like(*case((4,), 0, 0, src=1.0), exc=TypeError)
    raises_like(lambda: tl.select_scatter(tl.ones(()), tl.ones(()), 0, 0),
                lambda: torch.select_scatter(torch.ones(()), torch.ones(()), 0, 0),
                exc=IndexError)
    # an integer tensor is accepted as the index, a float one is not
    out = tl.select_scatter(tl.tensor(a), tl.zeros(4), 0, tl.tensor(2))
    np.testing.assert_array_equal(out.numpy()[2], 0)
    with pytest.raises(TypeError):
        tl.select_scatter(tl.tensor(a), tl.zeros(4), 0, tl.tensor(2.0))


def test_slice_scatter_errors():
    a = rand(3, 4)

    def case(src_shape, **kw):
        s = rand(*src_shape)
        if not HAVE_TORCH:
            return (lambda: tl.slice_scatter(tl.tensor(a), tl.tensor(s), **kw)), None
        return (lambda: tl.slice_scatter(tl.tensor(a), tl.tensor(s), **kw)), \
            (lambda: torch.slice_scatter(torch.tensor(a), torch.tensor(s), **kw))

    e = raises_like(*case((3, 3), dim=1, start=1, end=3), exc=RuntimeError)
    assert str(e) == ("expected src to have a size equal to the slice of self. src size = "
                      "[3, 3], slice size = [3, 2]")
    raises_like(*case((4,), start=0, end=1), exc=RuntimeError)
    raises_like(*case((1, 1), start=0, end=1), exc=RuntimeError)
    e = raises_like(*case((3, 4), step=0), exc=RuntimeError)
    assert str(e) == "slice step must be positive"
    raises_like(*case((3, 4), step=-1), exc=RuntimeError)
    raises_like(*case((3, 4), dim=3), exc=IndexError)
    # (PyTorch names the position only for arguments given positionally)
    raises_like(*case((3, 4), start=0.5), exc=TypeError, same_text=False)
    raises_like(*case((3, 4), step=None), exc=TypeError, same_text=False)
    e = raises_like(lambda: tl.slice_scatter(tl.tensor(a), tl.tensor(a), 0, 0.5),
                    lambda: torch.slice_scatter(torch.tensor(a), torch.tensor(a), 0, 0.5),
                    exc=TypeError)
    assert str(e) == "slice_scatter(): argument 'start' (position 4) must be int, not float"
    e = raises_like(lambda: tl.slice_scatter(tl.ones(()), tl.ones(())),
                    lambda: torch.slice_scatter(torch.ones(()), torch.ones(())),
                    exc=IndexError)
    assert str(e) == "slice() cannot be applied to a 0-dim tensor."
    # defaults: the whole of dim 0; 0-d integer tensors are accepted as ints
    out = tl.slice_scatter(tl.tensor(a), tl.zeros(3, 4), end=tl.tensor(3))
    np.testing.assert_array_equal(out.numpy(), 0)


def test_diagonal_scatter_errors():
    a = rand(3, 4)

    def case(src_shape, *args, inp=a):
        s = rand(*src_shape)
        if not HAVE_TORCH:
            return (lambda: tl.diagonal_scatter(tl.tensor(inp), tl.tensor(s), *args)), None
        return (lambda: tl.diagonal_scatter(tl.tensor(inp), tl.tensor(s), *args)), \
            (lambda: torch.diagonal_scatter(torch.tensor(inp), torch.tensor(s), *args))

    e = raises_like(*case((4,)), exc=RuntimeError)
    assert str(e) == ("expected src to have a size equal to the slice of self. src size = "
                      "[4], slice size = [3]")
    e = raises_like(*case((3,), 0, 0, 0), exc=RuntimeError)
    assert str(e) == "diagonal dimensions cannot be identical 0, 0"
    raises_like(*case((3,), 0, 0, 2), exc=IndexError)
    raises_like(*case((3,), 0, 0, 2, inp=rand(3)), exc=IndexError)
    raises_like(*case((3,), 0.0), exc=TypeError)


# ---------------------------------------------------------------------------
# renorm
def np_renorm(a, p, dim, maxnorm):
    """PyTorch's renorm in NumPy: slices along ``dim`` with p-norm above ``maxnorm``
    scaled by ``maxnorm / (norm + 1e-7)``."""
    axes = tuple(i for i in range(a.ndim) if i != dim % a.ndim)
    x = np.abs(a).astype(np.float64)
    norm = x.max(axis=axes, keepdims=True) if p == math.inf else \
        (x ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (a * factor).astype(a.dtype)


RENORM = [(2, 0, 1.0), (1, 1, 2.0), (3, -1, 1.5), (math.inf, 0, 1.0), (0.5, 0, 4.0),
          (2, 1, 100.0), (2, 0, 0.0)]


@pytest.mark.parametrize("p,dim,maxnorm", RENORM)
def test_renorm_values_and_gradients(p, dim, maxnorm):
    a = rand(3, 4, low=-3, high=3)
    x, rx = both(a, True)
    out = tl.renorm(x, p, dim, maxnorm)
    assert out.grad_fn.name() == "RenormBackward0"
    np.testing.assert_allclose(out.detach().numpy(), np_renorm(a, p, dim, maxnorm),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x.renorm(p, dim, maxnorm).detach().numpy(),
                                  out.detach().numpy())
    w = rand(3, 4)
    (g,) = grads_of(tl, out, [x], w)
    assert np.isfinite(g.numpy()).all()
    if HAVE_TORCH:
        rout = torch.renorm(rx, p, dim, maxnorm)
        assert_same(out, rout)
        assert rout.grad_fn.name() == "RenormBackward0"
        (rg,) = grads_of(torch, rout, [rx], w)
        assert_same(g, rg, rtol=1e-4, atol=1e-5)


def test_renorm_gradient_with_zero_slices_and_elements():
    a = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, -4.0], [0.1, 0.2, 0.0]], np.float64)
    for p in (1, 2, 3, math.inf):
        x, rx = both(a, True)
        w = rand(3, 3).astype(np.float64)
        (g,) = grads_of(tl, tl.renorm(x, p, 0, 1.0), [x], w)
        assert np.isfinite(g.numpy()).all()
        np.testing.assert_array_equal(g.numpy()[0], w[0])      # not rescaled: identity
        if HAVE_TORCH:
            (rg,) = grads_of(torch, torch.renorm(rx, p, 0, 1.0), [rx], w)
            assert_same(g, rg)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "complex64"])
def test_renorm_dtypes(dtype):
    a = rand(3, 4, low=-3, high=3)
    if dtype == "complex64":
        a = (a + 1j * rand(3, 4)).astype(np.complex64)
    x = tl.tensor(a).to(getattr(tl, dtype))
    out = tl.renorm(x, 2, 0, 1.0)
    assert out.dtype is x.dtype
    ref = np_renorm(a.astype(np.complex128 if dtype == "complex64" else np.float64), 2, 0, 1.0)
    np.testing.assert_allclose(out.to(tl.complex128 if dtype == "complex64" else tl.float64)
                               .numpy(), ref, rtol=2e-2, atol=2e-2)
    if HAVE_TORCH:
        assert_same(out, torch.renorm(torch.tensor(a).to(getattr(torch, dtype)), 2, 0, 1.0))


def test_renorm_in_place():
    a = rand(3, 4, low=-3, high=3)
    x = tl.tensor(a)
    res = x.renorm_(2, 0, 1.0)
    assert res is x and x._version == 1
    np.testing.assert_allclose(x.numpy(), np_renorm(a, 2, 0, 1.0), rtol=1e-5, atol=1e-6)
    leaf = tl.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.renorm_(2, 0, 1.0)
    y = leaf * 1
    y.renorm_(2, 0, 1.0)
    assert y.grad_fn.name() == "RenormBackward0"
    y.sum().backward()
    if HAVE_TORCH:
        rx = torch.tensor(a)
        rx.renorm_(2, 0, 1.0)
        assert_same(x, rx)
        rleaf = torch.tensor(a, requires_grad=True)
        ry = rleaf * 1
        ry.renorm_(2, 0, 1.0)
        assert ry.grad_fn.name() == "RenormBackward0"
        ry.sum().backward()
        assert_same(leaf.grad, rleaf.grad, rtol=1e-4, atol=1e-5)


def test_renorm_scalar_arguments():
    a = rand(3, 4, low=-3, high=3)
    want = tl.renorm(tl.tensor(a), 2.0, 0, 1.0).numpy()
    for p, maxnorm in [(2, 1), (tl.tensor(2.0), 1.0), (2, tl.tensor(1.0)), (2, True)]:
        np.testing.assert_array_equal(tl.renorm(tl.tensor(a), p, 0, maxnorm).numpy(), want)


def test_renorm_errors():
    a = rand(3, 4)

    def case(*args, inp=a):
        if not HAVE_TORCH:
            return (lambda: tl.renorm(tl.tensor(inp), *args)), None
        return (lambda: tl.renorm(tl.tensor(inp), *args)), \
            (lambda: torch.renorm(torch.tensor(inp), *args))

    for args, text in [((0, 0, 1.0), "renorm: non-positive-norm not supported"),
                       ((-1, 0, 1.0), "renorm: non-positive-norm not supported"),
                       ((float("nan"), 0, 1.0), "renorm: non-positive-norm not supported"),
                       ((2j, 0, 1.0), "renorm: p must be real-valued"),
                       ((2, 0, 1j), "renorm: maxnorm must be real-valued"),
                       ((2, 0, -1.0), "renorm: expected maxnorm to be >= 0 but got -1"),
                       ((2, 0, -2.5), "renorm: expected maxnorm to be >= 0 but got -2.5"),
                       ((2, 0, -1e-7), "renorm: expected maxnorm to be >= 0 but got -1e-07"),
                       ((2, 0, float("nan")),
                        "renorm: expected maxnorm to be >= 0 but got nan")]:
        e = raises_like(*case(*args), exc=RuntimeError)
        assert str(e) == text
    e = raises_like(*case(2, 0, 1.0, inp=rand(3)), exc=RuntimeError)
    assert str(e) == "renorm: input needs at least 2 dimensions, got 1 dimensions"
    raises_like(*case(2, 0, 1.0, inp=np.float32(1.0)), exc=RuntimeError)
    raises_like(*case(2, 2, 1.0), exc=IndexError)
    raises_like(*case(2, 1.5, 1.0), exc=TypeError)
    raises_like(*case(2, 0, "a"), exc=TypeError)
    e = raises_like(*case(2, 0, 1.0, inp=np.arange(6).reshape(2, 3)), exc=RuntimeError)
    assert str(e) == ("linalg.vector_norm: Expected a floating point or complex tensor as "
                      "input. Got Long")
    e = raises_like(*case(math.inf, 0, 1.0, inp=rand(2, 0)), exc=RuntimeError)
    assert "cannot compute the inf norm on the dimension 1" in str(e)
    # empty slices are fine for finite p
    assert tuple(tl.renorm(tl.ones(2, 0), 2, 0, 1.0).shape) == (2, 0)
    assert tuple(tl.renorm(tl.ones(0, 3), math.inf, 0, 1.0).shape) == (0, 3)
    x = tl.ones(3, 4, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        x.renorm_(2, 0, 1.0)


# ---------------------------------------------------------------------------
# Tensor.sum_to_size
@pytest.mark.parametrize("shape,size,nodes", [
    ((3, 4), (1, 4), ["SumBackward1"]),
    ((3, 4), (3, 1), ["SumBackward1"]),
    ((3, 4), (1, 1), ["SumBackward1"]),
    ((3, 4), (4,), ["ViewBackward0", "SumBackward1"]),
    ((1, 4), (4,), ["ViewBackward0", "SumBackward1"]),
    ((2, 3, 4), (3, 1), ["ViewBackward0", "SumBackward1"]),
    ((3, 4), (), ["SumBackward0"]),
    ((), (), ["SumBackward0"]),
    ((0, 3), (1, 3), ["SumBackward1"]),
])
def test_sum_to_size(shape, size, nodes):
    a = rand(*shape)
    x, rx = both(a, True)
    out = x.sum_to_size(*size) if size else x.sum_to_size(())
    lead = len(shape) - len(size)
    axes = tuple(range(lead)) + tuple(i for i in range(lead, len(shape))
                                      if size[i - lead] == 1 and shape[i] != 1)
    want = a.sum(axis=axes, keepdims=True).reshape(size) if size else a.sum()
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-6, atol=1e-6)
    got_nodes, node = [], out.grad_fn
    while node is not None and node.name() != "torch::autograd::AccumulateGrad":
        got_nodes.append(node.name())
        node = node.next_functions[0][0]
    assert got_nodes == nodes
    w = rand(*size)
    (g,) = grads_of(tl, out, [x], w)
    np.testing.assert_allclose(g.numpy(), np.broadcast_to(
        w.reshape(tuple(1 if i in axes else shape[i] for i in range(len(shape)))), shape))
    if HAVE_TORCH:
        rout = rx.sum_to_size(*size) if size else rx.sum_to_size(())
        assert_same(out, rout)
        rnodes, rnode = [], rout.grad_fn
        while rnode is not None and rnode.name() != "torch::autograd::AccumulateGrad":
            rnodes.append(rnode.name())
            rnode = rnode.next_functions[0][0]
        assert rnodes == got_nodes
        (rg,) = grads_of(torch, rout, [rx], w)
        assert_same(g, rg)


def test_sum_to_size_returns_self_when_nothing_to_sum():
    x, rx = both(rand(3, 4), True)
    for size in [(3, 4), ((3, 4),), ([3, 4],), (tl.Size([3, 4]),)]:
        assert x.sum_to_size(*size) is x
    assert x.sum_to_size(size=(3, 4)) is x
    y = tl.ones(1, 3)
    assert y.sum_to_size(1, 3) is y
    if HAVE_TORCH:
        assert rx.sum_to_size(3, 4) is rx
        assert torch.ones(1, 3).sum_to_size(1, 3) is not None


def test_sum_to_size_dtypes():
    for dt in ("int32", "bool", "float16", "float64"):
        a = (rand(3, 4) > 0) if dt == "bool" else (rand(3, 4) * 3).astype(dt)
        x, rx = both(a)
        out = x.sum_to_size(1, 4)
        want = {"int32": tl.int64, "bool": tl.int64}.get(dt, x.dtype)
        assert out.dtype is want
        if HAVE_TORCH:
            assert_same(out, rx.sum_to_size(1, 4))


def test_sum_to_size_errors():
    a = rand(3, 4)
    x = tl.tensor(a)
    rx = torch.tensor(a) if HAVE_TORCH else None
    for size in [(2, 4), (1, 3, 4), (3,), (-1,)]:
        e = raises_like(lambda: x.sum_to_size(*size), lambda: rx.sum_to_size(*size),
                        exc=RuntimeError)
    assert str(e) == "size {[-1]} is not expandable to size {[3, 4]}."
    e = raises_like(lambda: tl.ones(()).sum_to_size(1), lambda: torch.ones(()).sum_to_size(1),
                    exc=RuntimeError)
    assert str(e) == "size {[1]} is not expandable to size {[]}."
    e = raises_like(lambda: x.sum_to_size(), lambda: rx.sum_to_size(), exc=TypeError)
    assert str(e) == 'sum_to_size() missing 1 required positional arguments: "size"'
    raises_like(lambda: x.sum_to_size(1.5), lambda: rx.sum_to_size(1.5), exc=TypeError,
                same_text=False)
    raises_like(lambda: x.sum_to_size(1, size=(1,)), lambda: rx.sum_to_size(1, size=(1,)),
                exc=TypeError)
    assert not hasattr(tl, "sum_to_size")
    if HAVE_TORCH:
        assert not hasattr(torch, "sum_to_size")
