"""``nn.utils.parametrize``, ``parametrizations.weight_norm`` and the hook-based
``weight_norm``/``spectral_norm``, compared with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn
from torchlike.nn.utils import parametrize

from .._parity import HAVE_TORCH, torch


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


def test_register_and_remove_parametrization():
    m = nn.Linear(3, 3)
    w0 = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert parametrize.is_parametrized(m, "weight")
    assert type(m).__name__ == "ParametrizedLinear"
    W = m.weight
    np.testing.assert_allclose(_np(W), _np(W).T)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    out = m(tl.ones(2, 3)).sum()
    out.backward()
    assert m.parametrizations.weight.original.grad is not None
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not parametrize.is_parametrized(m)
    np.testing.assert_allclose(_np(m.weight), _np(m.weight).T)
    assert m.weight.shape == w0.shape


def test_parametrize_shape_change_refused():
    class Bad(nn.Module):
        def forward(self, X):
            return X[0]
    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(3, 3), "weight", Bad())


def _copy_linear(tm):
    m = nn.Linear(tm.in_features, tm.out_features)
    m.weight.data = tl.tensor(tm.weight.detach().numpy())
    m.bias.data = tl.tensor(tm.bias.detach().numpy())
    return m


def test_parametrizations_weight_norm_matches_torch():
    if not HAVE_TORCH:
        m = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3))
        assert m(tl.ones(2, 4)).shape == (2, 3)
        return
    tm = torch.nn.Linear(4, 3)
    m = _copy_linear(tm)
    torch.nn.utils.parametrizations.weight_norm(tm)
    nn.utils.parametrizations.weight_norm(m)
    assert list(m.state_dict()) == list(tm.state_dict())
    x = np.random.default_rng(0).random((2, 4)).astype(np.float32)
    out, ref = m(tl.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    for (n, p), (tn, tp) in zip(m.named_parameters(), tm.named_parameters()):
        assert n == tn
        np.testing.assert_allclose(_np(p.grad), _np(tp.grad), rtol=1e-4, atol=1e-6)


def test_hook_weight_norm_matches_torch():
    if not HAVE_TORCH:
        pytest.skip("parity needs PyTorch")
    tm = torch.nn.Linear(4, 3)
    m = _copy_linear(tm)
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(m)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(tm)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(_np(m(tl.tensor(x))), _np(tm(torch.tensor(x))), rtol=1e-5)
    nn.utils.remove_weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]


def test_spectral_norm_normalises_largest_singular_value():
    m = nn.utils.spectral_norm(nn.Linear(5, 4), n_power_iterations=30)
    assert sorted(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    m(tl.ones(1, 5))
    s = tl.linalg.svdvals(m.weight.detach())
    np.testing.assert_allclose(float(s.max()), 1.0, rtol=1e-3)
    nn.utils.remove_spectral_norm(m)
    assert "weight" in dict(m.named_parameters())
