"""``Tensor.__getitem__``/``__setitem__`` parity with PyTorch: basic indexing (views with
PyTorch's strides and offsets), advanced indexing with NumPy's placement rules, boolean
masks, broadcasting values, gradients, and the error paths with PyTorch's messages."""

from __future__ import annotations

import pytest

import torchlike as tl

from ._parity import FWS, HAVE_TORCH, assert_same, both, normalize_error
from ._parity import fw_module as _mod


def check_same(fn):
    out, ref = both(fn)
    if HAVE_TORCH:
        assert_same(out, ref)
    return out


def raises_like(fn, exact: bool = True):
    errs = []
    for fw in FWS:
        with pytest.raises(Exception) as ei:
            fn(_mod(fw))
        errs.append(ei.value)
    if len(errs) == 2:
        a, b = errs
        assert type(a).__name__ == type(b).__name__, f"{a!r} vs {b!r}"
        if exact:
            assert normalize_error(str(a)).split("\n")[0] == str(b).split("\n")[0]
    return errs[0]


def _key(m, spec):
    """Build an index key from a framework-neutral description: ``("T", list, dtype)``
    becomes a tensor of that framework; tuples recurse; everything else is kept."""
    if isinstance(spec, tuple) and spec and spec[0] == "T":
        return m.tensor(spec[1], dtype=getattr(m, spec[2]) if len(spec) > 2 else None)
    if isinstance(spec, tuple):
        return tuple(_key(m, s) for s in spec)
    return spec


B = ("T", [True, False, True])
B3 = [[True, False, True, False], [False, False, True, True], [True, True, True, True]]
KEYS = {
    "int": 1,
    "neg_int": -1,
    "int_int": (1, 2),
    "int_int_int": (1, -1, 0),
    "slice": slice(1, None),
    "slice_step": slice(None, None, 2),
    "slice_step_start": (slice(None), slice(1, None, 2)),
    "slice_neg": (slice(-2, None), slice(None, -1)),
    "slice_out_of_range": slice(1, 10),
    "slice_empty": slice(3, 1),
    "none": None,
    "none_middle": (slice(None), None, 1),
    "ellipsis": Ellipsis,
    "ellipsis_int": (Ellipsis, 1),
    "int_ellipsis_none": (0, Ellipsis, None),
    "all_basic": (1, slice(None, None, 2), None, Ellipsis),
    "list": [0, 2],
    "list_neg": [-1, 0, -1],
    "list_2d": [[0, 1], [1, 0]],
    "tensor_int": ("T", [1, 0, 1]),
    "tensor_int32": ("T", [2, 0], "int32"),
    "tensor_2d": ("T", [[0, 1], [2, 2]]),
    "tensor_0d": ("T", 1),
    "tensor_0d_pair": (("T", 1), ("T", 2)),
    "two_adv_adjacent": (slice(None), ("T", [0, 2]), ("T", [1, 3])),
    "two_adv_separated": (("T", [0, 1]), slice(None), ("T", [1, 3])),
    "adv_broadcast": (("T", [[0], [1]]), ("T", [0, 2])),
    "adv_then_slice": (("T", [1, 0]), slice(1, 3)),
    "slice_then_adv": (slice(None), ("T", [2, 0])),
    "int_and_adv": (1, ("T", [0, 2])),
    "int_adv_separated": (("T", [0, 1]), 1, ("T", [2, 3])),
    "none_and_adv": (None, ("T", [0, 1]), slice(None), ("T", [1, 1])),
    "ellipsis_adv": (Ellipsis, ("T", [3, 0])),
    "bool_mask_1d": ("T", [True, False, True]),
    "bool_mask_full": ("T", [B3, B3[::-1], B3]),
    "bool_mask_2d": ("T", [[True, False, True], [False, True, False], [True, True, True]]),
    "bool_list": [True, False, False],
    "two_ellipsis": (Ellipsis, 0, Ellipsis),
    "tensor_0d_neg": ("T", -2),
    "bool_mask_dim1": (slice(None), B),
    "bool_and_int": (1, B),
    "bool_0d_true": True,
    "bool_0d_false": False,
    "bool_0d_tensor": ("T", True),
    "bool_and_adv": (("T", [True, False, True]), ("T", [0, 2])),
    "empty_list": ([],),
    "empty_tensor": ("T", [], "int64"),
}


def _x(m):
    return m.arange(36.0).reshape(3, 3, 4)


@pytest.mark.parametrize("name", list(KEYS))
def test_getitem(name):
    spec = KEYS[name]

    def f(m):
        x = _x(m)
        y = x[_key(m, spec)]
        shares = y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        meta = (y.stride(), y.storage_offset(), y.is_contiguous()) if shares else None
        return y, shares, meta
    out, ref = both(f)
    if HAVE_TORCH:
        assert_same(out[0], ref[0])
        assert out[1:] == ref[1:], f"view/meta {out[1:]} vs {ref[1:]}"


@pytest.mark.parametrize("name", list(KEYS))
def test_setitem_scalar(name):
    spec = KEYS[name]

    def f(m):
        x = _x(m)
        x[_key(m, spec)] = -5.0
        return x, x._version
    check_same(f)


@pytest.mark.parametrize("name", [k for k in KEYS if not k.startswith("empty")])
def test_setitem_broadcast_tensor_value(name):
    spec = KEYS[name]

    def f(m):
        x = _x(m)
        target = x[_key(m, spec)]
        # a value with the last dimension of the target, broadcast over the rest
        last = target.shape[-1] if target.dim() else 1
        x[_key(m, spec)] = m.arange(float(last)) * -1 - 1
        return x
    check_same(f)


def test_setitem_values_of_other_dtype_and_lists():
    def f(m):
        x = m.zeros(2, 3)
        x[0] = m.tensor([1, 2, 3])          # int64 value into float32
        y = m.zeros(3, dtype=m.int64)
        y[1:] = 2.9                          # float scalar into int64
        z = m.zeros(2, 2, dtype=m.bool)
        z[0] = 1
        w = m.zeros(2, 3)
        w[:, 1] = m.ones(1, 2)               # leading size-1 dims of the value are dropped
        return x, y, z, w
    check_same(f)


def test_setitem_through_views_reaches_base():
    def f(m):
        x = m.zeros(4, 4)
        v = x[1:, ::2]
        v[0] = 1.0
        v[v.new_tensor([1, 2]).long(), 1] = 2.0
        x.t()[0][1:3] = 3.0
        x.view(2, 8)[1][0] = 4.0
        return x, v
    check_same(f)


def test_setitem_accumulates_nothing_and_duplicates_last_wins():
    def f(m):
        x = m.zeros(5)
        x[m.tensor([1, 1, 3])] = m.tensor([1.0, 2.0, 3.0])
        return x
    out = check_same(f)
    assert out.tolist()[3] == 3.0


def test_index_put_accumulate():
    def f(m):
        x = m.zeros(5)
        x.index_put_((m.tensor([1, 1, 3]),), m.tensor([1.0, 2.0, 3.0]), accumulate=True)
        y = m.zeros(2, 3).index_put((m.tensor([0, 1]), m.tensor([2, 2])), m.tensor(5.0))
        return x, y
    check_same(f)


def test_getitem_gradients():
    def f(m):
        leaf = m.arange(24.0).reshape(2, 3, 4).requires_grad_()
        a = leaf[1, ::2]
        b = leaf[m.tensor([0, 0, 1]), :, m.tensor([1, 1, 3])]
        c = leaf[leaf > 20]
        d = leaf[..., None, 1:3]
        loss = (a * 2).sum() + (b * 3).sum() + (c * 4).sum() + d.sum()
        loss.backward()
        return leaf.grad
    check_same(f)


def test_setitem_gradients():
    def f(m):
        leaf = m.arange(6.0).requires_grad_()
        val = m.tensor([10.0, 20.0], requires_grad=True)
        x = leaf * 1
        x[m.tensor([1, 4])] = val * 2
        x[0] = val[0]
        (x * m.arange(6.0)).sum().backward()
        return leaf.grad, val.grad, x
    check_same(f)


def test_basic_index_is_view_with_shared_version():
    def f(m):
        x = m.zeros(3, 4)
        v = x[1]
        w = x[:, 1:3]
        v.add_(1)
        w[0, 0] = 5
        return x._version, v._version, w._version, x
    out = check_same(f)
    assert out[0] == out[1] == out[2] == 2


def test_advanced_index_is_a_copy():
    def f(m):
        x = m.zeros(3, 4)
        y = x[[0, 2]]
        y.fill_(1)
        z = x[m.tensor(1)]
        z.fill_(2)
        return x, y._base is None, z._base is None
    check_same(f)


ERRORS = {
    "int_out_of_range": lambda x, m: x[5],
    "neg_int_out_of_range": lambda x, m: x[-3],
    "second_dim_out_of_range": lambda x, m: x[:, 5],
    "list_out_of_range": lambda x, m: x[[5]],
    "tensor_out_of_range": lambda x, m: x[m.tensor([0, 7])],
    "tensor_neg_out_of_range": lambda x, m: x[:, m.tensor([-4])],
    "too_many": lambda x, m: x[0, 0, 0, 0],
    "mask_shape": lambda x, m: x[m.tensor([True, False, True])],
    "mask_shape_dim1": lambda x, m: x[:, m.tensor([True, False])],
    "float_index": lambda x, m: x[m.tensor([0.0])],
    "list_value": lambda x, m: x.__setitem__(0, [1.0, 2.0, 3.0]),
    "index_0d_tensor_out_of_range": lambda x, m: x[m.tensor(4)],
    "float_scalar_index": lambda x, m: x[1.5],
    "zero_dim": lambda x, m: m.tensor(1.0)[0],
    "negative_step": lambda x, m: x[::-1],
    "setitem_shape": lambda x, m: x.__setitem__(0, m.ones(4)),
    "setitem_adv_shape": lambda x, m: x.__setitem__([0, 1], m.ones(3, 3)),
    "setitem_out_of_range": lambda x, m: x.__setitem__(7, 1.0),
    "setitem_tensor_out_of_range": lambda x, m: x.__setitem__(m.tensor([3]), 1.0),
}

# message wording that differs from PyTorch's and is checked by type only
LOOSE = {"float_index", "too_many"}


@pytest.mark.parametrize("name", list(ERRORS))
def test_index_errors(name):
    fn = ERRORS[name]
    raises_like(lambda m: fn(m.arange(6.0).reshape(2, 3), m), exact=name not in LOOSE)


def test_out_of_range_message_text():
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        tl.zeros(2, 3)[5]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 1 with size 3"):
        tl.zeros(2, 3)[tl.tensor([0]), tl.tensor([7])]


def test_gather_seed_and_error():
    def f(m):
        a = m.arange(1.0, 10.0).view(3, 3)
        index = m.tensor([[1, 1, 1, 1, 1], [2, 0, 1, 2, 0], [1, 2, 0, 0, 2]])
        return a.gather(dim=1, index=index), m.gather(m.tensor([[1, 2], [3, 4]]), 1,
                                                      m.tensor([[0, 0], [1, 0]]))
    out = check_same(f)
    assert out[0].tolist() == [[2.0] * 5, [6.0, 4.0, 5.0, 6.0, 4.0], [8.0, 9.0, 7.0, 7.0, 9.0]]
    err = raises_like(lambda m: m.ones(3, 3).gather(1, m.tensor([[5, 0]])))
    assert "index 5 is out of bounds for dimension 1 with size 3" in str(err)


def test_scatter_seed_examples():
    def f(m):
        a = m.zeros(3, 3)
        src = m.arange(1.0, 16.0).view(3, 5)
        index = m.tensor([[1, 1, 1, 1], [2, 0, 1, 2], [2, 0, 1, 2]])
        a.scatter_(dim=1, index=index, src=src)
        b = m.zeros(3, 5).scatter_(0, m.tensor([[0, 1]]), 2)
        isrc = m.arange(1, 11).reshape((2, 5))
        c = m.zeros(3, 5, dtype=isrc.dtype).scatter_(0, m.tensor([[0, 1, 2, 0]]), isrc)
        d = m.zeros(3, 5, dtype=isrc.dtype).scatter_(1, m.tensor([[0, 1, 2], [0, 1, 4]]), isrc)
        e = m.full((2, 4), 2.0).scatter_(1, m.tensor([[2], [3]]), 1.23, reduce="multiply")
        g = m.full((2, 4), 2.0).scatter_(1, m.tensor([[2], [3]]), 1.23, reduce="add")
        return a, b, c, d, e, g
    out = check_same(f)
    assert out[0].tolist() == [[0.0, 4.0, 0.0], [7.0, 8.0, 9.0], [12.0, 13.0, 14.0]]


def test_seed_split_repeat_expand():
    def f(m):
        a = m.arange(10).reshape(5, 2)
        x = m.tensor([1, 2, 3])
        y = m.tensor([[1, 2], [3, 4]])
        return (m.split(a, 2), m.split(a, [1, 4]), m.tensor_split(m.arange(8), 3),
                m.tensor_split(m.arange(7), [1, 5]), x.repeat(4, 2),
                tuple(x.repeat(4, 2, 1).size()),
                x.repeat_interleave(2), m.repeat_interleave(y, 2),
                m.repeat_interleave(y, 3, dim=1),
                m.repeat_interleave(y, m.tensor([1, 2]), dim=0),
                m.repeat_interleave(y, m.tensor([1, 2]), dim=0, output_size=3),
                m.tensor([[1], [2], [3]]).expand(3, 4), m.tensor([[1], [2], [3]]).expand(-1, 4),
                x.repeat(6, 1), x.expand(6, 3))
    check_same(f)
    raises_like(lambda m: m.ones(2, 3).repeat(2))
