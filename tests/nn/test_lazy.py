"""Lazy modules (``nn.LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``,
``LazyBatchNorm*``, ``LazyInstanceNorm*``), ``UninitializedParameter``/``Buffer`` and
``LazyModuleMixin``, compared with PyTorch."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn

from .._parity import HAVE_TORCH, torch

# (class name, constructor arguments, first input shape)
LAZY = [
    ("LazyLinear", (5,), (3, 4)),
    ("LazyLinear", (5, False), (2, 3, 4)),
    ("LazyConv1d", (4, 3), (2, 3, 9)),
    ("LazyConv2d", (4, 3, 1, 1, 1, 2), (2, 6, 7, 7)),
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3, 2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3, 1, 0, 0, 2, False), (1, 4, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), (3, 4, 4, 4)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (1e-3, 0.2), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 6)),
    ("LazyInstanceNorm2d", (1e-5, 0.1, True, False), (2, 3, 4, 4)),
    ("LazyInstanceNorm2d", (1e-5, 0.1, False, True), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 3, 2)),
]


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


@pytest.mark.parametrize("name,args,shape", LAZY)
def test_lazy_layer_becomes_concrete_layer(name, args, shape):
    m = getattr(nn, name)(*args)
    before = repr(m)
    sd_before = m.state_dict()
    entries = [repr(v) for v in sd_before.values()]
    # (an InstanceNorm without affine and statistics has nothing to initialize)
    assert m.has_uninitialized_params() == any(nn.parameter.is_lazy(v)
                                               for v in sd_before.values())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    m(tl.tensor(x))
    assert not any(nn.parameter.is_lazy(v) for v in m.state_dict().values())
    assert type(m) is getattr(nn, name[len("Lazy"):])
    assert not hasattr(m, "_initialize_hook") and not hasattr(m, "_load_hook")
    assert all(type(p) is nn.Parameter for p in m.parameters())
    assert all(type(b) is tl.Tensor for b in m.buffers())
    if not HAVE_TORCH:
        return
    tm = getattr(torch.nn, name)(*args)
    assert before == repr(tm)
    assert list(sd_before) == list(tm.state_dict())
    assert entries == [repr(v) for v in tm.state_dict().values()]
    tm(torch.tensor(x))
    assert type(tm).__name__ == type(m).__name__ and repr(m) == repr(tm)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in tm.state_dict().items()]
    # the same state gives the same values and gradients
    m.load_state_dict({k: tl.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    xt, txt = tl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, ref = m(xt), tm(txt)
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(_np(xt.grad), _np(txt.grad), rtol=1e-4, atol=1e-5)
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        np.testing.assert_allclose(_np(p.grad), _np(tp.grad), rtol=1e-4, atol=1e-4)


def test_lazy_linear_first_forward_and_repr():
    m = nn.LazyLinear(3)
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert repr(m.weight) == "<UninitializedParameter>" and str(m.bias) == \
        "<UninitializedParameter>"
    y = m(tl.ones(2, 4))
    assert tuple(y.shape) == (2, 3) and type(m) is nn.Linear
    assert repr(m) == "Linear(in_features=4, out_features=3, bias=True)"
    assert tuple(m.weight.shape) == (3, 4) and tuple(m.bias.shape) == (3,)
    # PyTorch's default initialisation bounds: U(+-1/sqrt(in_features))
    assert float(m.weight.abs().max()) <= 0.5


def test_uninitialized_parameter_and_buffer():
    p = nn.UninitializedParameter()
    b = nn.UninitializedBuffer()
    assert p.requires_grad and not b.requires_grad and nn.parameter.is_lazy(b)
    assert isinstance(p, nn.Parameter) and b.persistent and repr(b) == "<UninitializedBuffer>"
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        _ = p.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        p + 1
    with pytest.raises(ValueError, match="UninitializedBuffer"):
        tl.relu(b)
    with pytest.raises(RuntimeError, match="Can't share memory"):
        p.share_memory_()
    assert tuple(p.size()) == (0,)
    q = copy.deepcopy(nn.UninitializedParameter(dtype=tl.float64))
    assert type(q) is nn.UninitializedParameter and q.dtype is tl.float64
    assert type(pickle.loads(pickle.dumps(p))) is nn.UninitializedParameter
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
    b.materialize((4,), dtype=tl.float64)
    assert type(b) is tl.Tensor and b.dtype is tl.float64 and tuple(b.shape) == (4,)
    if HAVE_TORCH:
        tp = torch.nn.UninitializedParameter()
        with pytest.raises(RuntimeError) as err:
            _ = tp.shape
        with pytest.raises(RuntimeError) as ours:
            _ = nn.UninitializedParameter().shape
        assert str(err.value) == str(ours.value)


def test_dtype_moves_before_first_forward():
    m = nn.LazyLinear(2).double()
    assert m.weight.dtype is tl.float64 and type(m.weight) is nn.UninitializedParameter
    m(tl.ones(3, 5, dtype=tl.float64))
    assert m.weight.dtype is tl.float64 and tuple(m.weight.shape) == (2, 5)
    assert nn.LazyLinear(2, dtype=tl.float64).weight.dtype is tl.float64
    bn = nn.LazyBatchNorm1d(dtype=tl.float64)
    bn(tl.ones(4, 3, dtype=tl.float64))
    assert bn.running_mean.dtype is tl.float64


def test_load_state_dict_materializes_lazy_module():
    full = nn.LazyLinear(4)
    full(tl.ones(2, 3))
    m = nn.LazyLinear(4)
    res = m.load_state_dict(full.state_dict())
    assert str(res) == "<All keys matched successfully>"
    # still lazy (PyTorch's behaviour): the first forward only swaps the class
    assert type(m) is nn.LazyLinear and not m.has_uninitialized_params()
    np.testing.assert_array_equal(_np(m.weight), _np(full.weight))
    m(tl.ones(1, 3))
    assert type(m) is nn.Linear and m.in_features == 0   # as PyTorch leaves it
    np.testing.assert_array_equal(_np(m.weight), _np(full.weight))
    # uninitialized into uninitialized: nothing to copy
    other = nn.LazyLinear(4)
    assert str(other.load_state_dict(nn.LazyLinear(4).state_dict())) == \
        "<All keys matched successfully>"
    assert other.has_uninitialized_params()
    # uninitialized into initialized: PyTorch's error
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        full.load_state_dict(nn.LazyLinear(4).state_dict())


def test_load_torch_checkpoint_into_lazy_modules():
    if not HAVE_TORCH:
        pytest.skip("parity needs PyTorch")
    tm = torch.nn.Sequential(torch.nn.LazyConv2d(4, 3), torch.nn.LazyBatchNorm2d(),
                             torch.nn.Flatten(), torch.nn.LazyLinear(2))
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
    tm(torch.tensor(x))
    m = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.Flatten(), nn.LazyLinear(2))
    m.load_state_dict({k: tl.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    m.eval()
    tm.eval()
    np.testing.assert_allclose(_np(m(tl.tensor(x))), _np(tm(torch.tensor(x))), rtol=1e-4,
                               atol=1e-5)
    assert [type(c).__name__ for c in m] == [type(c).__name__ for c in tm]


def test_errors_match_torch():
    cases = [(lambda nn_: nn_.LazyConv2d(4, 3, groups=2), (1, 3, 5, 5), ValueError,
              "in_channels must be divisible by groups"),
             (lambda nn_: nn_.LazyConv2d(4, 3), (5, 5), RuntimeError,
              r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d"),
             (lambda nn_: nn_.LazyBatchNorm2d(), (2, 3), ValueError,
              r"expected 4D input \(got 2D input\)"),
             # unbatched: PyTorch takes num_features from shape[1] all the same
             (lambda nn_: nn_.LazyInstanceNorm2d(), (3, 4, 4), ValueError,
              r"expected input's size at dim=0 to match num_features \(4\), but got: 3")]
    for make, shape, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            make(nn)(tl.ones(*shape))
        if HAVE_TORCH:
            with pytest.raises(exc, match=msg):
                make(torch.nn)(torch.ones(*shape))
    # forward without the pre-hook: the placeholder refuses to be used
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        nn.LazyLinear(2).forward(tl.ones(1, 3))


def test_custom_lazy_module_and_has_uninitialized_params():
    class LazyScale(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.UninitializedParameter()

        def initialize_parameters(self, x):
            if self.has_uninitialized_params():
                self.scale.materialize(x.shape[-1:])
                with tl.no_grad():
                    self.scale.fill_(2.0)

        def forward(self, x):
            return x * self.scale

    m = LazyScale()
    assert m.has_uninitialized_params()
    assert m(tl.ones(2, 3)).tolist() == [[2.0] * 3] * 2
    assert not m.has_uninitialized_params() and type(m) is LazyScale   # no cls_to_become

    class Forgetful(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.UninitializedParameter()

        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module Forgetful has not been fully initialized"):
        Forgetful()(tl.ones(1))


def test_optimizer_built_before_first_forward():
    m = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    opt = tl.optim.Adam(m.parameters(), lr=0.1)
    opt.step()   # no gradients yet: nothing to do, as in PyTorch
    x = tl.ones(3, 2)
    m(x)
    before = [_np(p).copy() for p in m.parameters()]
    opt.zero_grad()
    m(x).sum().backward()
    opt.step()
    after = [_np(p) for p in m.parameters()]
    assert all(a.shape == b.shape for a, b in zip(before, after))
    assert any(not np.array_equal(a, b) for a, b in zip(before, after))
    assert opt.param_groups[0]["params"][0] is m[0].weight
    # Adagrad makes its state in the constructor: PyTorch refuses a lazy parameter there
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        tl.optim.Adagrad(nn.LazyLinear(2).parameters())
    if HAVE_TORCH:
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            torch.optim.Adagrad(torch.nn.LazyLinear(2).parameters())


def test_first_call_inside_compile_asks_for_an_eager_forward():
    m = nn.Sequential(nn.LazyLinear(4), nn.Tanh(), nn.LazyLinear(1))
    opt = tl.optim.SGD(m.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = m(x).pow(2).sum()
        loss.backward()
        opt.step()
        return loss

    compiled = tl.compile(step)
    x = tl.ones(2, 3)
    with pytest.raises(RuntimeError, match="Run one eager forward with a dummy batch first"):
        compiled(x)
    assert type(m[0]) is nn.LazyLinear and m[0].has_uninitialized_params()
    m(x)   # the dry run
    w0 = _np(m[0].weight).copy()
    eager = copy.deepcopy(m)
    eager_opt = tl.optim.SGD(eager.parameters(), lr=0.1)
    loss = compiled(x)
    eager_opt.zero_grad()
    ref = eager(x).pow(2).sum()
    ref.backward()
    eager_opt.step()
    np.testing.assert_allclose(float(loss), float(ref), rtol=1e-6)
    np.testing.assert_allclose(_np(m[0].weight), _np(eager[0].weight), rtol=1e-6)
    assert not np.array_equal(_np(m[0].weight), w0)
