"""Deep copies of parametrized modules, and ``embedding_bag``'s gradient with
``scale_grad_by_freq``, against PyTorch. torchlike's own behaviour (and a NumPy reference
of the gradient) is checked always; the comparison with PyTorch is skipped only when
PyTorch is absent."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as TF
from torchlike import nn
from torchlike.nn.utils import parametrizations, parametrize

from .._parity import HAVE_TORCH, torch

SERIALIZATION_ERROR = (
    "Serialization of parametrized modules is only supported through state_dict(). See:\n"
    "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
    "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _mods():
    return [tl] + ([torch] if HAVE_TORCH else [])


def _np(t):
    return t.detach().numpy()


def _parametrize_of(fw):
    return parametrize if fw is tl else torch.nn.utils.parametrize


def _symmetric(fw):
    class Symmetric(fw.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric()


def _linear(fw, seed=0):
    rng = np.random.default_rng(seed)
    m = fw.nn.Linear(3, 3)
    with fw.no_grad():
        m.weight.copy_(fw.tensor(rng.standard_normal((3, 3)).astype(np.float32)))
        m.bias.copy_(fw.tensor(rng.standard_normal(3).astype(np.float32)))
    return m


# ---------------------------------------------------------------------------
# deepcopy of parametrized modules
def _check_independent_copy(m, c, fw):
    assert type(c) is type(m)
    assert type(c).__name__ == f"Parametrized{type(m).__bases__[0].__name__}"
    np.testing.assert_allclose(_np(c.weight), _np(m.weight), rtol=0, atol=0)
    assert list(c.state_dict()) == list(m.state_dict())
    for (n1, p1), (n2, p2) in zip(m.named_parameters(), c.named_parameters()):
        assert n1 == n2 and p1 is not p2
        assert type(p2) is type(p1) and p2.requires_grad
    assert c.parametrizations is not m.parametrizations
    assert c.parametrizations.weight[0] is not m.parametrizations.weight[0]
    before = _np(m.weight).copy()
    x = fw.tensor(np.ones((2, 3), np.float32))
    c(x).sum().backward()
    assert c.parametrizations.weight.original.grad is not None
    assert m.parametrizations.weight.original.grad is None
    with fw.no_grad():
        c.parametrizations.weight.original.add_(1.0)
    np.testing.assert_allclose(_np(m.weight), before, rtol=0, atol=0)
    assert not np.allclose(_np(c.weight), before)


def test_deepcopy_registered_parametrization():
    outs = []
    for fw in _mods():
        m = _linear(fw)
        _parametrize_of(fw).register_parametrization(m, "weight", _symmetric(fw))
        c = copy.deepcopy(m)
        outs.append(_np(c.weight))
        _check_independent_copy(m, c, fw)
    if HAVE_TORCH:
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6, atol=1e-6)


def test_deepcopy_orthogonal():
    for fw in _mods():
        orthogonal = parametrizations.orthogonal if fw is tl else \
            torch.nn.utils.parametrizations.orthogonal
        m = orthogonal(_linear(fw))
        c = copy.deepcopy(m)
        W = _np(c.weight)
        np.testing.assert_allclose(W @ W.T, np.eye(3), atol=1e-5)
        _check_independent_copy(m, c, fw)


def test_deepcopy_two_parametrized_tensors_and_container():
    for fw in _mods():
        P = _parametrize_of(fw)
        inner = _linear(fw)
        P.register_parametrization(inner, "weight", _symmetric(fw))
        P.register_parametrization(inner, "bias", fw.nn.Identity())
        seq = fw.nn.Sequential(inner, fw.nn.ReLU(), inner)     # shared submodule
        c = copy.deepcopy(seq)
        assert c[0] is c[2] and c[0] is not inner
        assert P.is_parametrized(c[0], "weight") and P.is_parametrized(c[0], "bias")
        np.testing.assert_allclose(_np(c[0].bias), _np(inner.bias), rtol=0, atol=0)
        x = fw.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        np.testing.assert_allclose(_np(c(x)), _np(seq(x)), rtol=0, atol=0)
        assert len(list(c.parameters())) == len(list(seq.parameters())) == 2


def test_pickle_parametrized_module_still_raises():
    for fw in _mods():
        m = _linear(fw)
        _parametrize_of(fw).register_parametrization(m, "weight", _symmetric(fw))
        with pytest.raises(RuntimeError) as info:
            pickle.dumps(m)
        assert str(info.value) == SERIALIZATION_ERROR
        with pytest.raises(RuntimeError, match="only supported through state_dict"):
            pickle.dumps(copy.deepcopy(m))


def test_deepcopy_unparametrized_module_unchanged():
    m = _linear(tl)
    c = copy.deepcopy(m)
    assert type(c) is nn.Linear
    np.testing.assert_allclose(_np(c.weight), _np(m.weight))
    assert pickle.loads(pickle.dumps(m)).weight.shape == m.weight.shape


def test_cached_parametrization_per_copy():
    m = _linear(tl)
    parametrize.register_parametrization(m, "weight", _symmetric(tl))
    c = copy.deepcopy(m)
    with tl.no_grad():
        c.parametrizations.weight.original.add_(1.0)
    with parametrize.cached():
        a, b = m.weight, c.weight
        assert a is m.weight and b is c.weight and a is not b
        assert not np.allclose(_np(a), _np(b))


# ---------------------------------------------------------------------------
# embedding_bag with scale_grad_by_freq
def _reference_grad(num, idx, offsets, mode, psw, padding_idx, include_last_offset, gout):
    """The documented rule: each looked-up row's gradient divided by its index's count in
    the whole ``idx`` (padding entries included)."""
    n = len(idx)
    nbags = len(offsets) - (1 if include_last_offset else 0)
    bag = np.searchsorted(offsets, np.arange(n), side="right") - 1
    counts = np.bincount(idx, minlength=num)
    valid = (bag < nbags) & (idx != (-1 if padding_idx is None else padding_idx))
    size = np.bincount(bag[valid], minlength=nbags + 1)
    grad = np.zeros((num, gout.shape[1]))
    for j in np.nonzero(valid)[0]:
        scale = (1.0 if psw is None else psw[j]) / counts[idx[j]]
        if mode == "mean":
            scale /= max(size[bag[j]], 1)
        grad[idx[j]] += scale * gout[bag[j]]
    return grad


def _bag_grad(fw, w, idx, offsets, *, low_level=False, **kw):
    W = fw.tensor(w, requires_grad=True)
    off = None if offsets is None else fw.tensor(offsets)
    psw = kw.pop("per_sample_weights", None)
    psw = None if psw is None else fw.tensor(psw)
    if low_level:
        mode = {"sum": 0, "mean": 1, "max": 2}[kw.pop("mode")]
        out = fw.embedding_bag(W, fw.tensor(idx), off, True, mode, False, psw,
                               kw.pop("include_last_offset", False), kw.pop("padding_idx", None))[0]
    else:
        out = fw.nn.functional.embedding_bag(fw.tensor(idx), W, off, scale_grad_by_freq=True,
                                             per_sample_weights=psw, **kw)
    gout = np.arange(out.numel(), dtype=w.dtype).reshape(tuple(out.shape)) + 1
    (out * fw.tensor(gout)).sum().backward()
    return _np(out), _np(W.grad), gout


# Every index occurs equally often here: PyTorch's CPU kernel then scales as documented.
EQUAL_COUNT_CASES = [
    dict(idx=[3, 1, 3, 4, 1, 4], offsets=[0, 2, 5]),
    dict(idx=[[2, 0, 2], [0, 5, 5]], offsets=None),
    dict(idx=[0, 2, 2, 0, 6, 6], offsets=[0, 3, 6], include_last_offset=True),
    dict(idx=[1, 4, 4, 1, 2, 2], offsets=[0, 1, 4], padding_idx=2),
    dict(idx=[1, 4, 4, 1, 2, 2], offsets=[0, 1, 4], padding_idx=-5),
]
# The counts differ between indices: the documented scale (and PyTorch's embedding).
UNEQUAL_COUNT_CASES = [
    dict(idx=[0, 2, 2, 5, 2, 1, 0, 3], offsets=[0, 3, 5]),
    dict(idx=[[1, 2, 2], [2, 3, 3]], offsets=None),
    dict(idx=[0, 2, 2, 5, 2, 1, 0, 3], offsets=[0, 3, 5], padding_idx=2),
    dict(idx=[4, 4, 4, 1, 1, 0], offsets=[0, 2, 6], include_last_offset=True),
    dict(idx=[6, 6, 0, 3, 6], offsets=[0, 0, 2]),
]


def _case_args(case, mode, with_psw):
    idx = np.array(case["idx"])
    kw = {k: v for k, v in case.items() if k not in ("idx", "offsets")}
    offsets = None if case["offsets"] is None else np.array(case["offsets"])
    psw = None
    if with_psw:
        psw = np.random.default_rng(3).standard_normal(idx.shape).astype(np.float64)
        kw["per_sample_weights"] = psw
    return idx, offsets, psw, dict(kw, mode=mode)


def _check_reference(w, idx, offsets, psw, kw, grad, gout):
    flat = idx.reshape(-1)
    if offsets is None:
        offsets = np.arange(0, flat.size, idx.shape[1])
    pad = kw.get("padding_idx")
    pad = pad + w.shape[0] if pad is not None and pad < 0 else pad
    ref = _reference_grad(w.shape[0], flat, offsets, kw["mode"],
                          None if psw is None else psw.reshape(-1), pad,
                          kw.get("include_last_offset", False), gout)
    np.testing.assert_allclose(grad, ref, rtol=1e-6, atol=1e-6)


MODES = [("sum", False), ("sum", True), ("mean", False)]   # per_sample_weights: sum only


@pytest.mark.parametrize("mode,with_psw", MODES)
@pytest.mark.parametrize("case", EQUAL_COUNT_CASES + UNEQUAL_COUNT_CASES)
def test_embedding_bag_scale_grad_by_freq_reference(case, mode, with_psw):
    w = np.random.default_rng(0).standard_normal((7, 3))
    idx, offsets, psw, kw = _case_args(case, mode, with_psw)
    _, grad, gout = _bag_grad(tl, w, idx, offsets, **dict(kw))
    _check_reference(w, idx, offsets, psw, kw, grad, gout)


# torch.embedding_bag itself takes 1-D indices and a non-negative padding_idx
LOW_LEVEL_CASES = [c for c in EQUAL_COUNT_CASES
                   if c["offsets"] is not None and c.get("padding_idx", 0) >= 0]


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch (test oracle) not installed")
@pytest.mark.parametrize("mode,with_psw", MODES)
@pytest.mark.parametrize("case,low_level", [(c, False) for c in EQUAL_COUNT_CASES] +
                         [(c, True) for c in LOW_LEVEL_CASES])
def test_embedding_bag_scale_grad_by_freq_matches_torch(case, low_level, mode, with_psw):
    w = np.random.default_rng(0).standard_normal((7, 3))
    idx, offsets, _, kw = _case_args(case, mode, with_psw)
    out, grad, _ = _bag_grad(tl, w, idx, offsets, low_level=low_level, **dict(kw))
    ref_out, ref_grad, _ = _bag_grad(torch, w, idx, offsets, low_level=low_level, **dict(kw))
    np.testing.assert_allclose(out, ref_out, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", UNEQUAL_COUNT_CASES)
def test_embedding_bag_scale_matches_embedding(case):
    """A sum over one-index bags is ``F.embedding``: both divide by the index's own count
    (PyTorch's ``embedding`` does too)."""
    idx = np.array(case["idx"]).reshape(-1)
    w = np.random.default_rng(1).standard_normal((7, 3)).astype(np.float32)
    gout = np.random.default_rng(2).standard_normal((idx.size, 3)).astype(np.float32)
    grads = []
    for fw in _mods():
        W = fw.tensor(w, requires_grad=True)
        out = fw.nn.functional.embedding(fw.tensor(idx), W, scale_grad_by_freq=True)
        (out * fw.tensor(gout)).sum().backward()
        grads.append(_np(W.grad))
        if fw is tl:
            W2 = fw.tensor(w, requires_grad=True)
            bags = TF.embedding_bag(fw.tensor(idx), W2, fw.tensor(np.arange(idx.size)),
                                    mode="sum", scale_grad_by_freq=True)
            (bags * fw.tensor(gout)).sum().backward()
            np.testing.assert_allclose(_np(W2.grad), grads[0], rtol=1e-6, atol=1e-6)
    if HAVE_TORCH:
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


def test_embedding_bag_module_scale_grad_by_freq():
    w = np.random.default_rng(4).standard_normal((6, 2)).astype(np.float32)
    idx = np.array([[1, 3, 3], [1, 5, 5]])
    grads = []
    for fw in _mods():
        m = fw.nn.EmbeddingBag(6, 2, mode="mean", scale_grad_by_freq=True)
        with fw.no_grad():
            m.weight.copy_(fw.tensor(w))
        m(fw.tensor(idx)).pow(2).sum().backward()
        grads.append(_np(m.weight.grad))
    counts = np.bincount(idx.reshape(-1), minlength=6)
    bags = w[idx].mean(1)                                   # d/dbag of sum(bag**2) = 2 bag
    expected = np.zeros_like(w)
    for b in range(2):
        for i in idx[b]:
            expected[i] += 2 * bags[b] / 3 / counts[i]
    np.testing.assert_allclose(grads[0], expected, rtol=1e-5, atol=1e-6)
    if HAVE_TORCH:
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_embedding_bag_max_scale_grad_by_freq():
    """``F.embedding_bag`` and ``nn.EmbeddingBag`` refuse it for max; the low-level
    ``torch.embedding_bag`` accepts it and leaves the gradient unscaled."""
    w = np.random.default_rng(5).standard_normal((7, 2))
    idx, offsets = np.array([1, 2, 2, 1, 3, 1]), np.array([0, 2, 4])
    grads = []
    for fw in _mods():
        W = fw.tensor(w, requires_grad=True)
        with pytest.raises(ValueError, match="max mode does not support scaling"):
            fw.nn.functional.embedding_bag(fw.tensor(idx), W, fw.tensor(offsets), mode="max",
                                           scale_grad_by_freq=True)
        m = fw.nn.EmbeddingBag(7, 2, mode="max", scale_grad_by_freq=True)
        with pytest.raises(ValueError, match="max mode does not support scaling"):
            m(fw.tensor(idx.reshape(2, 3)))
        _, grad, gout = _bag_grad(fw, w, idx, offsets, low_level=True, mode="max")
        grads.append(grad)
    # unscaled: the max row of each bag and column gets that bag's gradient
    bags = np.split(idx, offsets[1:])
    expected = np.zeros_like(w)
    for b, rows in enumerate(bags):
        for col in range(2):
            expected[rows[np.argmax(w[rows, col])], col] += gout[b, col]
    np.testing.assert_allclose(grads[0], expected, rtol=0, atol=1e-12)
    if HAVE_TORCH:
        np.testing.assert_allclose(grads[0], grads[1], rtol=0, atol=1e-12)
