"""Tensor basics that are not ops: storage sharing, version counters, ``.data`` and
``detach()``, devices, conversions; compared with PyTorch where it defines them."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch


def test_version_counter_shared_by_views_and_detach():
    x = tl.zeros(3, 4)
    v = x[0]
    d = x.detach()
    assert x._version == v._version == d._version == 0
    v.add_(1)
    assert x._version == v._version == d._version == 1
    d.mul_(2)
    assert x._version == 2
    assert x.tolist()[0] == [2.0] * 4


def test_data_has_its_own_version_counter_but_shares_memory():
    x = tl.zeros(2, 2)
    d = x.data
    d.add_(5)
    assert x.tolist() == [[5.0, 5.0], [5.0, 5.0]]
    assert x._version == 0 and d._version == 1
    if HAVE_TORCH:
        tx = torch.zeros(2, 2)
        td = tx.data
        td.add_(5)
        assert (tx._version, td._version) == (x._version, d._version)


def test_data_write_through_parameter_like_leaf():
    w = tl.ones(2, 3, requires_grad=True)
    w.data.mul_(3)            # the idiom of `w.data.normal_(0, 0.02)`
    assert w.tolist() == [[3.0] * 3] * 2
    assert w.requires_grad and w.is_leaf


def test_data_setter_replaces_contents():
    w = tl.ones(2, requires_grad=True)
    w.data = tl.tensor([5.0, 6.0])
    assert w.tolist() == [5.0, 6.0] and w.requires_grad


def test_storage_and_data_ptr_shared_by_views():
    t = tl.zeros(4, 4)
    b = t.view(2, 8)
    assert t.storage().data_ptr() == b.storage().data_ptr()
    assert t.untyped_storage().data_ptr() == t[1].untyped_storage().data_ptr()
    assert t[1].data_ptr() == t.data_ptr() + 4 * 4
    c = t.clone()
    assert c.data_ptr() != t.data_ptr()


def test_inplace_on_leaf_requiring_grad_raises():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        x.add_(1)
    with tl.no_grad():
        x.add_(1)
    assert x.tolist() == [2.0, 2.0]


def test_integer_tensor_cannot_require_grad():
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients"):
        tl.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        tl.tensor([1, 2], requires_grad=True)


@pytest.mark.parametrize("data", [[[1.0, 2.0], [3.0, 4.0]], [1, 2, 3], 3.5, [True, False]])
def test_conversions(data):
    t = tl.tensor(data)
    assert t.tolist() == (np.array(data).tolist())
    np.testing.assert_array_equal(t.numpy(), np.array(data, dtype=t.numpy().dtype))
    np.testing.assert_array_equal(np.asarray(t), t.numpy())
    if HAVE_TORCH:
        assert t.tolist() == torch.tensor(data).tolist()


def test_item_and_bool_rules():
    assert tl.tensor([2.5]).item() == 2.5
    assert bool(tl.tensor([1])) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value "
                                           "is ambiguous"):
        bool(tl.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to "
                                           "Scalar"):
        tl.tensor([1, 2]).item()


def test_len_and_iteration():
    t = tl.tensor([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = [r.tolist() for r in t]
    assert rows == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tl.tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(tl.tensor(1))


def test_devices():
    assert tl.device("cpu") == tl.device("cpu")
    assert repr(tl.device("cuda:1")) == "device(type='cuda', index=1)"
    assert str(tl.device("cuda", 0)) == "cuda:0"
    t = tl.ones(2)
    assert t.device == tl.device("cpu") and t.device.type == "cpu"
    assert t.to("cpu") is t and t.cpu() is t
    if HAVE_TORCH:
        assert repr(tl.device("cuda:1")) == repr(torch.device("cuda:1"))
        assert repr(tl.device("cpu")) == repr(torch.device("cpu"))
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        tl.device("gpu0")


def test_cuda_without_accelerator_is_a_clear_error():
    from torchlike._core.device import accelerator_devices
    if accelerator_devices():
        pytest.skip("an accelerator is present")
    with pytest.raises(RuntimeError, match="no CUDA/accelerator device is available"):
        tl.ones(2).cuda()
    with pytest.raises(RuntimeError, match="no CUDA/accelerator device is available"):
        tl.ones(2).to("cuda:0")


def test_to_dtype_and_copy():
    t = tl.tensor([1.7, -2.2])
    assert t.to(tl.int64).tolist() == [1, -2]
    assert t.to(tl.float32) is t
    assert t.to(tl.float32, copy=True) is not t
    assert t.to(torch_dtype_or(tl.float64)).dtype is tl.float64


def torch_dtype_or(d):
    return d


def test_stride_offset_contiguity_match_torch():
    x = tl.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
    tx = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]) if HAVE_TORCH else None
    assert x.stride() == (5, 1)
    assert x.t().stride() == (1, 5)
    if HAVE_TORCH:
        assert x.stride() == tx.stride() == (5, 1)
        assert x.t().stride() == tx.t().stride() == (1, 5)
    # (stride, storage offset, contiguous) as PyTorch gives them
    expected = [((1,), 5, True), ((5, 2), 1, False), ((5,), 2, False), ((5, 5, 1), 0, True),
                ((10, 5, 5, 1), 0, True)]
    for f, want in zip((lambda a: a[1], lambda a: a[:, 1:4:2], lambda a: a.t()[2],
                        lambda a: a.unsqueeze(1), lambda a: a[None, :, None]), expected):
        v = f(x)
        assert (v.stride(), v.storage_offset(), v.is_contiguous()) == want
        if HAVE_TORCH:
            tv = f(tx)
            assert v.stride() == tv.stride()
            assert v.storage_offset() == tv.storage_offset()
            assert v.is_contiguous() == tv.is_contiguous()


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return (type(e).__name__, str(e))


def test_pinning_and_same_size_methods():
    def run(T):
        x = T.ones(2, 3)
        out = [_outcome(lambda: x.is_pinned()),
               _outcome(lambda: x.is_same_size(T.zeros(2, 3))),
               _outcome(lambda: x.is_same_size(T.zeros(3, 2))),
               _outcome(lambda: x.is_same_size(3))]
        if not tl.cuda.is_available():   # PyTorch's CPU build raises as torchlike does
            out.append(_outcome(lambda: x.pin_memory()))
        return out
    got = run(tl)
    assert got[:4] == [("ok", False), ("ok", True), ("ok", False),
                       ("TypeError", "is_same_size(): argument 'other' (position 1) must be "
                                     "Tensor, not int")]
    if not tl.cuda.is_available():
        assert got[4] == ("RuntimeError",
                          "Cannot access accelerator device when none is available.")
    else:
        x = tl.ones(2)
        assert x.pin_memory() is x
    if HAVE_TORCH and not torch.cuda.is_available():
        want = run(torch)
        assert got[:4] == want[:4]
        # torchax (which tests/test_benchmarks_smoke.py imports) registers PyTorch's
        # PrivateUse1 backend for the process, after which PyTorch's pin_memory raises
        # about that backend's hooks instead
        if torch._C._get_privateuse1_backend_name() == "privateuseone":
            assert got[4:] == want[4:]


def test_type_as_casts_to_the_other_dtype():
    x = tl.tensor([1.5, 2.5])
    y = x.type_as(tl.tensor([1, 2]))
    assert y.dtype == tl.int64 and y.tolist() == [1, 2]
    assert x.type_as(tl.zeros(1)) is x
    if HAVE_TORCH:
        t = torch.tensor([1.5, 2.5]).type_as(torch.tensor([1, 2]))
        assert t.tolist() == y.tolist() and str(t.dtype)[6:] == str(y.dtype)[10:]
