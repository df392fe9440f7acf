"""PyTorch's in-place functions (``torch.exp_(t)``, ``torch.clamp_(t, min=0)``...) and
``torch.index_put``: each is the Tensor method of its first argument."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.bind import INPLACE_FUNCTIONS

from ._parity import HAVE_TORCH, requires_torch, torch


@requires_torch
def test_every_torch_inplace_function_with_a_method_is_a_function():
    names = [n for n in dir(torch) if n.endswith("_") and not n.startswith("_")
             and callable(getattr(torch, n)) and hasattr(tl.Tensor, n)]
    assert names, "no in-place functions found in torch"
    assert [n for n in names if not hasattr(tl, n)] == []
    # and nothing that PyTorch lacks
    assert [n for n in INPLACE_FUNCTIONS if not hasattr(torch, n)] == []


def test_listed_functions_resolve_to_methods():
    assert [n for n in INPLACE_FUNCTIONS if not hasattr(tl.Tensor, n)] == []
    for n in ("celu_", "selu_", "threshold_", "index_put"):
        assert callable(getattr(tl, n))


_CALLS = [("exp_", (), {}), ("clamp_", (), {"min": 0.5}), ("clamp_", (0.2, 0.9), {}),
          ("fill_", (3.0,), {}), ("zero_", (), {}), ("sqrt_", (), {}), ("logit_", (1e-3,), {}),
          ("nan_to_num_", (), {"nan": 0.0}), ("celu_", (0.5,), {}), ("selu_", (), {}),
          ("threshold_", (0.5, -1.0), {})]


@pytest.mark.parametrize("name,args,kwargs", _CALLS, ids=[c[0] for c in _CALLS])
def test_inplace_function_writes_its_input(name, args, kwargs):
    a = np.array([[0.1, 0.7], [0.4, 0.9]], np.float32)
    t = tl.tensor(a)
    out = getattr(tl, name)(t, *args, **kwargs)
    assert out is t
    assert t._version == 1
    expect = getattr(tl.tensor(a), name)(*args, **kwargs) if hasattr(tl.Tensor, name) \
        else getattr(tl.nn.functional, name)(tl.tensor(a), *args, **kwargs)
    np.testing.assert_array_equal(t.numpy(), expect.numpy())
    if HAVE_TORCH:
        ref = torch.tensor(a)
        getattr(torch, name)(ref, *args, **kwargs)
        np.testing.assert_allclose(t.numpy(), ref.numpy(), rtol=1e-6)


def test_inplace_function_through_a_view_reaches_the_base():
    base = tl.zeros(2, 3)
    tl.fill_(base[1], 2.0)
    tl.exp_(base[:, 0])
    np.testing.assert_allclose(base.numpy(), [[1, 0, 0], [np.exp(2.0), 2, 2]], rtol=1e-6)


def test_inplace_function_errors():
    with pytest.raises(TypeError, match=r"exp_\(\): argument 'input' \(position 1\) must be "
                                        r"Tensor, not int"):
        tl.exp_(3)
    leaf = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        tl.exp_(leaf)
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        tl.exp_(tl.ones(2, dtype=tl.int64))
    if HAVE_TORCH:
        with pytest.raises(TypeError):
            torch.exp_(3)
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            torch.exp_(torch.ones(2, dtype=torch.int64))


def test_inplace_function_records_autograd():
    x = tl.tensor([0.5, 1.5], requires_grad=True)
    y = x * 1
    tl.exp_(y)
    assert y.grad_fn.name() == "ExpBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.5]), rtol=1e-6)


def test_index_put_function():
    t = tl.zeros(4)
    out = tl.index_put(t, (tl.tensor([1, 3]),), tl.tensor([5.0, 6.0]))
    np.testing.assert_array_equal(out.numpy(), [0, 5, 0, 6])
    np.testing.assert_array_equal(t.numpy(), [0, 0, 0, 0])
    acc = tl.index_put(t, (tl.tensor([1, 1]),), tl.tensor(2.0), accumulate=True)
    np.testing.assert_array_equal(acc.numpy(), [0, 4, 0, 0])
    tl.index_put_(t, (tl.tensor([0]),), tl.tensor(7.0))
    np.testing.assert_array_equal(t.numpy(), [7, 0, 0, 0])
    if HAVE_TORCH:
        ref = torch.index_put(torch.zeros(4), (torch.tensor([1, 1]),), torch.tensor(2.0),
                              accumulate=True)
        np.testing.assert_array_equal(acc.numpy(), ref.numpy())
