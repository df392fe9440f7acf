"""``torchlike.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp vs PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import functional as AF

from .._parity import HAVE_TORCH, torch


def f_tl(x, y):
    return (x.exp() * y).sum(0) + x ** 2


def f_t(x, y):
    return (x.exp() * y).sum(0) + x ** 2


X = np.array([[0.5, -1.0], [2.0, 0.3]], np.float64)
Y = np.array([[1.0, 2.0], [3.0, -1.0]], np.float64)
V = np.array([[1.0, 0.5], [-0.5, 2.0]], np.float64)


def _close(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    np.testing.assert_allclose(np.asarray(a.detach()), b.detach().numpy(), rtol=1e-10)


def test_jacobian_matches_torch():
    out = AF.jacobian(f_tl, (tl.tensor(X), tl.tensor(Y)))
    assert out[0].shape == (2, 2, 2, 2)
    if HAVE_TORCH:
        _close(out, torch.autograd.functional.jacobian(f_t, (torch.tensor(X), torch.tensor(Y))))


def test_hessian_matches_torch():
    g = lambda x: (x.sin() * x).sum()  # noqa: E731
    out = AF.hessian(g, tl.tensor(X))
    assert out.shape == (2, 2, 2, 2)
    if HAVE_TORCH:
        _close(out, torch.autograd.functional.hessian(g, torch.tensor(X)))


@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp_match_torch(name):
    h = lambda x: x.exp() * 2 + x ** 3  # noqa: E731
    out = getattr(AF, name)(h, tl.tensor(X), tl.tensor(V))
    if HAVE_TORCH:
        ref = getattr(torch.autograd.functional, name)(h, torch.tensor(X), torch.tensor(V))
        _close(out, ref)


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_vhp_match_torch(name):
    g = lambda x: (x.sin() * x ** 2).sum()  # noqa: E731
    out = getattr(AF, name)(g, tl.tensor(X), tl.tensor(V))
    if HAVE_TORCH:
        ref = getattr(torch.autograd.functional, name)(g, torch.tensor(X), torch.tensor(V))
        _close(out, ref)


def test_create_graph_jacobian_is_differentiable():
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    j = AF.jacobian(lambda t: t ** 3, x, create_graph=True)
    j.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), [6.0, 12.0])
