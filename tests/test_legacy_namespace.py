"""Small ``torch.X`` names old and portable code uses: layouts, the ``sym_*`` helpers,
the removed linear-algebra functions (PyTorch's errors), the deprecated norms,
``set_default_tensor_type``, ``get_device``/``get_device_module``/``is_distributed`` and
``GradScaler``; compared with PyTorch."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

FWS = [tl, torch] if HAVE_TORCH else [tl]


def test_layouts():
    t = tl.ones(2)
    assert t.layout is tl.strided and t.layout == tl.strided and t.layout != tl.sparse_coo
    assert repr(tl.strided) == "torchlike.strided" and isinstance(tl.strided, tl.layout)
    assert pickle.loads(pickle.dumps(tl.sparse_csr)) is tl.sparse_csr
    with pytest.raises(TypeError):
        tl.layout()
    if HAVE_TORCH:
        for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
                     "sparse_bsc", "jagged"):
            assert repr(getattr(tl, name)) == repr(getattr(torch, name)).replace("torch.",
                                                                                "torchlike.")


@pytest.mark.parametrize("call", [
    ("sym_int", (-3.7,)), ("sym_int", (5,)), ("sym_float", (3,)), ("sym_max", (2, 5.0)),
    ("sym_max", (7, 5)), ("sym_min", (2.0, 5)), ("sym_min", (2, 5)), ("sym_not", (True,)),
    ("sym_sqrt", (9,)), ("sym_ite", (False, 1, 2)), ("sym_sum", ([1, 2, 3],)),
])
def test_sym_helpers(call):
    name, args = call
    got = getattr(tl, name)(*args)
    if HAVE_TORCH:
        want = getattr(torch, name)(*args)
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("name,args", [
    ("solve", (2,)), ("lstsq", (2,)), ("symeig", (1,)), ("eig", (1,)), ("matrix_rank", (1,)),
])
def test_removed_functions_raise_pytorchs_error(name, args):
    for fw in FWS:
        a = fw.eye(2)
        calls = [lambda: getattr(fw, name)(*([a] * args[0]))]
        if name != "matrix_rank":
            calls.append(lambda: getattr(a, name)(*([a] * (args[0] - 1))))
        msgs = []
        for c in calls:
            with pytest.raises(RuntimeError) as e:
                c()
            msgs.append(str(e.value))
            assert "deprecated since version 1.9 and is now removed" in msgs[-1]
        if fw is tl:
            tl_msgs = msgs
        else:
            assert tl_msgs == msgs


def _norms(fw):
    x = fw.tensor(np.random.default_rng(0).standard_normal((2, 3, 3)), requires_grad=True)
    outs = [fw.nuclear_norm(x[0]), fw.nuclear_norm(x, (1, 2)), fw.nuclear_norm(x[0], True),
            fw.frobenius_norm(x, (1, 2)), fw.frobenius_norm(x, (2,), True)]
    sum(o.sum() for o in outs).backward()
    return [o.detach().numpy() for o in outs] + [x.grad.numpy()]


def test_deprecated_norms():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = _norms(tl)
        _norms(tl)
    texts = [str(x.message) for x in w]
    assert any(t.startswith("at::nuclear_norm is deprecated") for t in texts)
    assert len(texts) <= 2   # once per function, as TORCH_WARN_ONCE
    assert got[2].shape == (1, 1) and got[4].shape == (2, 3, 1)
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        tl.nuclear_norm(tl.ones(3))
    if HAVE_TORCH:
        for a, b in zip(got, _norms(torch)):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            tl.set_default_tensor_type(tl.DoubleTensor)
        assert tl.get_default_dtype() is tl.float64 and tl.ones(1).dtype is tl.float64
        with pytest.warns(UserWarning):
            tl.set_default_tensor_type("torch.HalfTensor")
        assert tl.get_default_dtype() is tl.float16
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tl.set_default_tensor_type("torchlike.FloatTensor")
    assert tl.get_default_dtype() is tl.float32
    for fw in FWS:
        for bad in (fw.float64, fw.IntTensor, "torch.IntTensor"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(TypeError) as e:
                    fw.set_default_tensor_type(bad)
            assert "only floating-point types are supported as the default type" in \
                str(e.value)
        assert fw.get_default_dtype() is fw.float32


def test_device_queries_and_aliases():
    for fw in FWS:
        t = fw.ones(2)
        assert fw.get_device(t) == -1 and fw.is_distributed(t) is False
        assert fw.get_device_module("cpu") is fw.cpu
        assert fw.get_device_module(fw.device("cuda:1")) is fw.cuda
        assert fw.get_device_module() is (fw.cpu if not fw.cuda.is_available() else fw.cuda)
        assert fw.GradScaler is fw.amp.GradScaler
    with pytest.raises(RuntimeError):
        tl.get_device_module(3)


def _special(fw):
    x = fw.tensor(np.arange(6.0).reshape(2, 3) / 3, requires_grad=True)
    outs = [fw.special.softmax(x, 1), fw.special.log_softmax(x, 0, dtype=fw.float32),
            fw.special.logsumexp(x, 1, True), fw.special.softmax(fw.tensor([1, 2]), 0,
                                                                 dtype=fw.float64)]
    (outs[0] * outs[1]).sum().add(outs[2].sum()).backward()
    return [o.detach().numpy() for o in outs] + [x.grad.numpy()]


def test_special_softmax_log_softmax_logsumexp():
    got = _special(tl)
    assert got[1].dtype == np.float32 and got[3].dtype == np.float64
    if HAVE_TORCH:
        for a, b in zip(got, _special(torch)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-6)
