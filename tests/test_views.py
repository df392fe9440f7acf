"""Views over shared storage: strides, offsets, contiguity, data pointers, writes through
views reaching the base and every other view, version counters, ``view``/``reshape``/
``contiguous`` rules, and the in-place writers (``copy_``, ``fill_``, ``zero_``,
``fill_diagonal_``). Each case runs in torchlike and, when installed, in PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, normalize_error, torch

FWS = ["tl", "torch"] if HAVE_TORCH else ["tl"]


def _mod(fw):
    return tl if fw == "tl" else torch


def both(fn):
    """Run ``fn(module)`` in torchlike and (when installed) PyTorch; return both results."""
    out = fn(tl)
    ref = fn(torch) if HAVE_TORCH else None
    return out, ref


def check_same(fn, rtol=1e-6, atol=1e-6):
    out, ref = both(fn)
    if HAVE_TORCH:
        assert_same(out, ref, rtol, atol)
    return out


def raises_like(fn):
    """``fn(module)`` raises in both frameworks with the same type and message."""
    errs = []
    for fw in FWS:
        with pytest.raises(Exception) as ei:
            fn(_mod(fw))
        errs.append(ei.value)
    if len(errs) == 2:
        a, b = errs
        assert type(a).__name__ == type(b).__name__, f"{a!r} vs {b!r}"
        assert normalize_error(str(a)).split("\n")[0] == str(b).split("\n")[0]
    return errs[0]


# ---------------------------------------------------------------------------
# the seed's examples
def test_seed_strides():
    def f(m):
        x = m.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
        return x.stride(), x.t().stride()
    out, ref = both(f)
    assert out == ((5, 1), (1, 5))
    if HAVE_TORCH:
        assert out == ref


def test_seed_view_write_reaches_base():
    def f(m):
        t = m.arange(16.0).reshape(4, 4)
        b = t.view(2, 8)
        same = t.storage().data_ptr() == b.storage().data_ptr()
        b[0][0] = 3.14
        return same, t[0][0], t, b
    out = check_same(f)
    assert out[0] is True
    assert abs(float(out[1]) - 3.14) < 1e-6


def test_seed_transpose_contiguous():
    def f(m):
        base = m.tensor([[0, 1], [2, 3]])
        t = base.transpose(0, 1)
        c = t.contiguous()
        return (base.is_contiguous(), t.is_contiguous(), c.is_contiguous(), c.stride(),
                t.stride(), c.data_ptr() == base.data_ptr(), t.data_ptr() == base.data_ptr(),
                c, t)
    out = check_same(f)
    assert out[:7] == (True, False, True, (1, 2), (1, 2), False, True) or \
        out[:3] == (True, False, True)


# ---------------------------------------------------------------------------
# metadata of every view op
VIEW_CASES = {
    "int": lambda x: x[1],
    "int_last": lambda x: x[:, -1],
    "slice_step": lambda x: x[1:, ::2],
    "slice_neg": lambda x: x[-2:, 1:-1:2],
    "none_ellipsis": lambda x: x[None, ..., None],
    "ellipsis_int": lambda x: x[..., 2],
    "none_mid": lambda x: x[:, None, 1:],
    "empty_slice": lambda x: x[5:7],
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "view": lambda x: x.view(2, 2, 4),
    "view_minus1": lambda x: x.view(-1),
    "reshape_view": lambda x: x.reshape(4, 4),
    "flatten": lambda x: x[1:3].flatten(),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "expand": lambda x: x[:1].expand(3, 4),
    "expand_new_dim": lambda x: x[0].expand(2, 3, 4),
    "expand_as": lambda x: x[:, :1].expand_as(x),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_last": lambda x: x.t().unsqueeze(-1),
    "squeeze": lambda x: x[:1].squeeze(0),
    "squeeze_all": lambda x: x[:1, 1:2].squeeze(),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(1, 2),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_off": lambda x: x.diagonal(1),
    "diagonal_neg": lambda x: x.diagonal(-2),
    "unfold": lambda x: x.unfold(1, 2, 1),
    "split0": lambda x: x.split(3)[1],
    "split_sizes": lambda x: x.split([1, 3], 1)[1],
    "chunk": lambda x: x.chunk(2, 1)[1],
    "unbind": lambda x: x.unbind(1)[2],
    "tensor_split": lambda x: x.tensor_split([1, 3], 1)[1],
    "movedim": lambda x: x.movedim(0, 1),
    "detach": lambda x: x.detach(),
    "broadcast_to": lambda x: x[:, :1].broadcast_to(2, 4, 4),
    "broadcast_to_fn": lambda x: x[0].broadcast_to((3, 4)),
    "ravel": lambda x: x.ravel(),
    "view_of_view": lambda x: x.t()[1:3].unsqueeze(0),
    "diag_of_transpose": lambda x: x.t().diagonal(1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "alias_getitem": lambda x: x[...],
}


@pytest.mark.parametrize("name", list(VIEW_CASES))
def test_view_metadata(name):
    fn = VIEW_CASES[name]

    def f(m):
        x = m.arange(16.0).reshape(4, 4)
        y = fn(x)
        return (tuple(y.shape), y.stride(), y.storage_offset(), y.is_contiguous(),
                y.data_ptr() - x.data_ptr() if y.numel() else 0,
                y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), y)
    out, ref = both(f)
    assert out[5], "a view must share its base's storage"
    if HAVE_TORCH:
        assert out[:5] == ref[:5], f"{out[:5]} vs {ref[:5]}"
        assert_same(out[6], ref[6])


def test_expand_gives_stride_zero():
    def f(m):
        x = m.tensor([[1], [2], [3]])
        y = x.expand(3, 4)
        z = x.expand(2, -1, 4)
        return y.stride(), z.stride(), y, z
    out = check_same(f)
    assert out[0] == (1, 0) and out[1] == (0, 1, 0)


def test_contiguous_of_noncontiguous_view_is_a_copy():
    def f(m):
        x = m.arange(12.0).reshape(3, 4)
        v = x[:, 1::2]
        c = v.contiguous()
        same = c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        c[0, 0] = -1
        return v.is_contiguous(), c.is_contiguous(), c.stride(), same, x, c
    out = check_same(f)
    assert out[:4] == (False, True, (2, 1), False)


def test_contiguous_of_contiguous_is_self():
    for fw in FWS:
        x = _mod(fw).arange(6.0).reshape(2, 3)
        assert x.contiguous() is x


def test_view_of_noncontiguous_raises():
    err = raises_like(lambda m: m.arange(6.0).reshape(2, 3).t().view(6))
    assert "view size is not compatible" in str(err)


def test_view_errors():
    raises_like(lambda m: m.arange(6.0).view(4, -1))
    raises_like(lambda m: m.arange(6.0).view(-1, -1))
    raises_like(lambda m: m.arange(6.0).view(2, -2))


RESHAPE_CASES = {
    "contiguous": lambda x: x.reshape(4, 6),
    "transposed": lambda x: x.t().reshape(-1),
    "transposed_split_dim": lambda x: x.t().reshape(2, 3, 4),
    "rows": lambda x: x[:2].reshape(-1),
    "cols": lambda x: x[:, :2].reshape(-1),
    "cols_keep": lambda x: x[:, :2].reshape(4, 1, 2),
    "expanded": lambda x: x[:1].expand(3, 6).reshape(-1),
    "expanded_ok": lambda x: x[:1].expand(3, 6).reshape(3, 2, 3),
    "step": lambda x: x[::2].reshape(2, 6),
    "flatten_t": lambda x: x.t().flatten(),
    "ravel_t": lambda x: x.t().ravel(),
    "zero_d": lambda x: x[0, 0].reshape(1, 1),
    "to_zero_d": lambda x: x[:1, :1].reshape(()),
}


@pytest.mark.parametrize("name", list(RESHAPE_CASES))
def test_reshape_is_view_exactly_when_torch(name):
    fn = RESHAPE_CASES[name]

    def f(m):
        x = m.arange(24.0).reshape(4, 6)
        y = fn(x)
        shares = y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        # (torch's ravel of a non-contiguous tensor is a view of a fresh copy)
        return shares, y._base is not None and shares, y.stride(), y
    out, ref = both(f)
    if HAVE_TORCH:
        assert out[:3] == ref[:3], f"{out[:3]} vs {ref[:3]}"
        assert_same(out[3], ref[3])


# ---------------------------------------------------------------------------
# writes through views
WRITES = {
    "t_add_": lambda x: x.t().add_(1),
    "slice_zero_": lambda x: x[1:3].zero_(),
    "diagonal_fill_": lambda x: x.diagonal().fill_(5),
    "unsqueeze_setitem": lambda x: x.unsqueeze(0).__setitem__((0, 1), 7),
    "split_mul_": lambda x: x.split(2)[1].mul_(2),
    "select_copy_": lambda x: x.select(1, 2).copy_(x.new_tensor([1.0, 2.0, 3.0, 4.0])),
    "strided_fill_": lambda x: x[:, ::2].fill_(-1),
    "view_chain": lambda x: x.view(-1)[2:6].view(2, 2).__setitem__((1, 1), 9.0),
    "expand_read_after_write": lambda x: x[0].mul_(3),
    "unbind_sub_": lambda x: x.unbind(1)[3].sub_(10),
    "narrow_clamp_": lambda x: x.narrow(0, 1, 2).clamp_(0, 6),
    "permute_setitem": lambda x: x.unsqueeze(2).permute(2, 1, 0).__setitem__(
        (0, slice(None), 1), -3.0),
    "chunk_masked_fill_": lambda x: x.chunk(2, 1)[0].masked_fill_(
        x.chunk(2, 1)[0] > 5, 0.5),
    "diag_index_fill_": lambda x: x.t().index_fill_(0, x.new_tensor([1, 3]).long(), 2.0),
    "movedim_scatter_": lambda x: x.movedim(0, 1).scatter_(
        1, x.new_tensor([[0], [1], [2], [3]]).long(), 8.0),
    "getitem_setitem_mask": lambda x: x[1:].__setitem__(x[1:] > 10, 0.0),
    "triu_": lambda x: x[1:, 1:].triu_(),
    "data_copy_": lambda x: x.data.copy_(x.new_tensor([1.0, 2.0, 3.0, 4.0])),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_write_through_view_reaches_base_and_other_views(name):
    fn = WRITES[name]

    def f(m):
        x = m.arange(16.0).reshape(4, 4)
        other_a = x.t()
        other_b = x.view(-1)[3:11]
        other_c = x[1]
        v0 = x._version
        fn(x)
        return (x._version - v0, x._version == other_a._version == other_c._version,
                x, other_a, other_b, other_c, other_a.stride())
    out = check_same(f)
    # ``.data`` has its own version counter, so only that write leaves x's alone
    assert (out[0] > 0 or name.startswith("data_")) and out[1]


def test_write_through_view_of_view_shares_version():
    def f(m):
        x = m.zeros(3, 4)
        a = x[1:]
        b = a.t()
        versions = [x._version]
        b.add_(1)
        versions.append((x._version, a._version, b._version))
        x[0, 0] = 2
        versions.append((x._version, a._version, b._version))
        a.zero_()
        versions.append((x._version, a._version, b._version))
        return versions, x, a, b
    out = check_same(f)
    assert out[0][1] == (1, 1, 1)


def test_version_bumps_on_every_inplace_op():
    def f(m):
        x = m.ones(2, 3)
        vs = [x._version]
        for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(),
                   lambda: x.fill_(3), lambda: x.__setitem__(0, 1.0),
                   lambda: x.copy_(m.ones(3)), lambda: x.clamp_(0, 1),
                   lambda: x.masked_fill_(x > 0, 2.0),
                   lambda: x.index_add_(1, m.tensor([0]), m.ones(2, 1)),
                   lambda: x.scatter_(1, m.tensor([[0], [1]]), 5.0),
                   lambda: x.t_(), lambda: x.unsqueeze_(0)):
            op()
            vs.append(x._version)
        return vs
    out, ref = both(f)
    # every data write bumps; the metadata-only ops (t_, unsqueeze_) do not change data
    assert all(b > a for a, b in zip(out[:10], out[1:11]))
    if HAVE_TORCH:
        assert out[:11] == ref[:11]


def test_detach_shares_version_counter_and_data():
    def f(m):
        x = m.zeros(3)
        d = x.detach()
        d.add_(1)
        return x._version, d._version, x
    check_same(f)


def test_data_write_reaches_parameter():
    def f(m):
        w = m.zeros(2, 3, requires_grad=True)
        src = m.arange(6.0).reshape(2, 3)
        w.data.copy_(src)
        w.data[0].fill_(7)
        return w.detach().clone(), w.requires_grad, w.is_leaf
    check_same(f)


def test_inplace_metadata_ops():
    def f(m):
        x = m.arange(6.0).reshape(2, 3)
        x.t_()
        a = (tuple(x.shape), x.stride())
        x.unsqueeze_(0)
        b = (tuple(x.shape), x.stride())
        x.squeeze_()
        c = (tuple(x.shape), x.stride())
        x.transpose_(0, 1)
        return a, b, c, (tuple(x.shape), x.stride()), x
    check_same(f)


# ---------------------------------------------------------------------------
# copy_ / fill_ / zero_ / fill_diagonal_
def test_copy_broadcast_and_cast():
    def f(m):
        x = m.zeros(2, 3)
        x.copy_(m.tensor([1, 2, 3]))
        y = m.zeros(2, 3, dtype=m.int64)
        y.copy_(m.tensor([[1.7], [-2.2]]))
        z = m.zeros(3, dtype=m.bool)
        z.copy_(m.tensor([0.0, 2.0, 0.0]))
        return x, y, z
    check_same(f)


def test_copy_errors():
    raises_like(lambda m: m.zeros(2, 3).copy_(m.ones(4)))
    raises_like(lambda m: m.zeros(3).copy_(m.ones(2, 3)))


def test_copy_device_move():
    x = tl.zeros(3)
    src = tl.arange(3.0).to("cpu")
    assert x.copy_(src) is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0])


def test_copy_gradient():
    def f(m):
        a = m.ones(3, requires_grad=True)
        b = m.arange(3.0, requires_grad=True)
        y = a * 2
        y.copy_(b * 3)
        (y * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        return a.grad, b.grad, y.grad_fn is not None
    out = check_same(f)
    assert out[2]


def test_fill_zero_fill_diagonal():
    def f(m):
        a = m.ones(2, 3).fill_(2.5)
        b = m.ones(2, 3, dtype=m.int64).fill_(m.tensor(3.9))
        c = m.ones(4).zero_()
        d = m.zeros(3, 5).fill_diagonal_(1)
        e = m.zeros(7, 3).fill_diagonal_(2, wrap=True)
        g = m.zeros(7, 3).fill_diagonal_(2)
        h = m.zeros(3, 3, 3).fill_diagonal_(4)
        i = m.zeros(5, 5).fill_diagonal_(1, wrap=True)
        return a, b, c, d, e, g, h, i
    check_same(f)


def test_fill_errors():
    raises_like(lambda m: m.ones(2, 3).fill_(m.ones(2)))
    raises_like(lambda m: m.ones(2).fill_diagonal_(1))
    raises_like(lambda m: m.ones(2, 3, 4).fill_diagonal_(1))


def test_inplace_on_leaf_requiring_grad_raises():
    raises_like(lambda m: m.ones(2, requires_grad=True).zero_())
    raises_like(lambda m: m.ones(2, requires_grad=True).fill_(1))


def test_gradient_through_view_write():
    def f(m):
        leaf = m.arange(6.0, requires_grad=True)
        x = leaf.reshape(2, 3) * 1
        x[0].mul_(3)
        x.t()[2].add_(leaf[:2])
        (x * m.arange(6.0).reshape(2, 3)).sum().backward()
        return leaf.grad, x
    check_same(f)


# ---------------------------------------------------------------------------
# composites returning views
def test_broadcast_tensors_and_meshgrid():
    def f(m):
        a, b = m.broadcast_tensors(m.arange(3.0).reshape(3, 1), m.arange(4.0))
        gx, gy = m.meshgrid(m.arange(3), m.arange(2), indexing="ij")
        hx, hy = m.meshgrid(m.arange(3), m.arange(2), indexing="xy")
        return (a, b, a.stride(), b.stride(), gx, gy, gx.stride(), gy.stride(), hx, hy,
                tuple(m.broadcast_shapes((3, 1), (4,))))
    check_same(f)


def test_atleast_nd():
    def f(m):
        x0, x1, x2 = m.tensor(1.0), m.arange(3.0), m.ones(2, 3)
        res = []
        for fn in (m.atleast_1d, m.atleast_2d, m.atleast_3d):
            for x in (x0, x1, x2):
                y = fn(x)
                res.append((tuple(y.shape), y.stride(), y is x))
        many = m.atleast_2d(x0, x1)
        res.append(tuple(tuple(t.shape) for t in many))
        return res
    check_same(f)


def test_flip_family_and_stacks():
    def f(m):
        x = m.arange(6.0).reshape(2, 3)
        v = m.arange(3.0)
        return (m.fliplr(x), m.flipud(x), x.fliplr(), m.hstack([v, v]), m.vstack([v, v]),
                m.row_stack([x, v]), m.dstack([v, v]), m.column_stack([v, x.t()]))
    check_same(f)


# ---------------------------------------------------------------------------
# adjoint / mH / H and torchlike.detach
_Z = np.array([[[1 + 2j, 3 - 1j, 0.5j], [2, -1j, 1 + 1j]]], np.complex64)


@pytest.mark.parametrize("how", ["adjoint_fn", "adjoint_method", "mH", "H2d"])
@pytest.mark.parametrize("complex_", [False, True])
def test_adjoint_and_mH(how, complex_):
    a = _Z if complex_ else _Z.real.astype(np.float32) + 1
    if how == "H2d":
        a = a[0]

    def run(fw):
        x = fw.tensor(a, requires_grad=True)
        y = {"adjoint_fn": lambda: fw.adjoint(x), "adjoint_method": lambda: x.adjoint(),
             "mH": lambda: x.mH, "H2d": lambda: x.H}[how]()
        w = fw.arange(y.numel(), dtype=fw.float32).reshape(y.shape)
        (y.abs() * w).sum().backward() if complex_ else (y * w).sum().backward()
        return y, x.grad
    y, g = run(tl)
    expect = np.conj(np.swapaxes(a, -1, -2))
    np.testing.assert_allclose(y.detach().numpy(), expect, rtol=1e-6)
    if not complex_:
        assert y._base is not None      # a real tensor's adjoint is a view
    if HAVE_TORCH:
        ry, rg = run(torch)
        assert_same(y.detach(), ry.detach())
        assert_same(g, rg)


@pytest.mark.parametrize("name", ["adjoint", "mH", "mT"])
def test_adjoint_of_a_vector_raises(name):
    what = {"adjoint": "tensor.adjoint()", "mH": "tensor.mH", "mT": "tensor.mT"}[name]
    call = (lambda fw: fw.adjoint(fw.ones(3))) if name == "adjoint" else \
        (lambda fw: getattr(fw.ones(3), name))
    with pytest.raises(RuntimeError) as ei:
        call(tl)
    assert str(ei.value) == (f"{what} is only supported on matrices or batches of matrices. "
                             "Got 1-D tensor.")
    if HAVE_TORCH:
        with pytest.raises(RuntimeError) as er:
            call(torch)
        assert str(er.value) == str(ei.value)


def test_detach_function():
    x = tl.ones(2, requires_grad=True)
    y = x * 2
    d = tl.detach(y)
    assert not d.requires_grad and d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    with pytest.raises(TypeError, match=r"detach\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not int"):
        tl.detach(3)
    if HAVE_TORCH:
        assert torch.detach(torch.ones(2, requires_grad=True) * 2).requires_grad is False
