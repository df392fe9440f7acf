"""``torchlike.nn.utils``: gradient clipping and parameter/vector conversion vs PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, torch


def _pair(grads):
    ps = [tl.nn.Parameter(tl.ones(*g.shape)) for g in grads]
    for p, g in zip(ps, grads):
        p.grad = tl.tensor(g)
    tps = None
    if HAVE_TORCH:
        tps = [torch.nn.Parameter(torch.ones(*g.shape)) for g in grads]
        for p, g in zip(tps, grads):
            p.grad = torch.tensor(g)
    return ps, tps


GRADS = [np.array([3.0, -4.0], np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    ps, tps = _pair(GRADS)
    total = tl.nn.utils.clip_grad_norm_(ps, max_norm, norm_type)
    if HAVE_TORCH:
        ttotal = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
        np.testing.assert_allclose(total.item(), ttotal.item(), rtol=1e-6)
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(np.asarray(p.grad), tp.grad.numpy(), rtol=1e-6)
    assert total.item() > 0


def test_clip_grad_norm_nonfinite():
    ps, _ = _pair([np.array([np.inf, 1.0], np.float32)])
    with pytest.raises(RuntimeError, match="non-finite"):
        tl.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_matches_torch():
    ps, tps = _pair(GRADS)
    tl.nn.utils.clip_grad_value_(ps, 1.5)
    if HAVE_TORCH:
        torch.nn.utils.clip_grad_value_(tps, 1.5)
        for p, tp in zip(ps, tps):
            np.testing.assert_allclose(np.asarray(p.grad), tp.grad.numpy())
    assert max(float(p.grad.abs().max()) for p in ps) <= 1.5


def test_parameters_vector_roundtrip():
    ps, _ = _pair(GRADS)
    v = tl.nn.utils.parameters_to_vector(ps)
    assert v.shape == (8,) and v.grad_fn is not None
    tl.nn.utils.vector_to_parameters(tl.arange(8.0), ps)
    assert ps[0].tolist() == [0.0, 1.0] and ps[1].tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        tl.nn.utils.vector_to_parameters([1.0], ps)
