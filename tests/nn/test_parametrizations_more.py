"""``nn.utils.parametrizations.orthogonal`` and ``spectral_norm``, the hook-based
``nn.utils.spectral_norm``, and ``weight_norm``'s loading of old checkpoints, compared
with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn
from torchlike.nn.utils import parametrizations as P

from .._parity import HAVE_TORCH, torch


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


def _linear_pair(out_f: int, in_f: int, seed: int = 0):
    w = np.random.default_rng(seed).standard_normal((out_f, in_f)).astype(np.float32)
    b = np.random.default_rng(seed + 1).standard_normal(out_f).astype(np.float32)
    m = nn.Linear(in_f, out_f)
    m.weight.data, m.bias.data = tl.tensor(w), tl.tensor(b)
    tm = None
    if HAVE_TORCH:
        tm = torch.nn.Linear(in_f, out_f)
        tm.weight.data, tm.bias.data = torch.tensor(w), torch.tensor(b)
    return m, tm


def _assert_orthogonal(W: np.ndarray, atol: float = 2e-6) -> None:
    n, k = W.shape[-2:]
    G = np.swapaxes(W, -1, -2) @ W if n >= k else W @ np.swapaxes(W, -1, -2)
    np.testing.assert_allclose(G, np.broadcast_to(np.eye(min(n, k)), G.shape), atol=atol)


# ---------------------------------------------------------------------------- orthogonal
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6)])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder", None])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_matches_torch(shape, orthogonal_map, use_trivialization):
    m, tm = _linear_pair(*shape)
    P.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization)
    assert type(m).__name__ == "ParametrizedLinear"
    _assert_orthogonal(_np(m.weight))
    expected_keys = ["bias", "parametrizations.weight.original"] + \
        (["parametrizations.weight.0.base"] if use_trivialization else [])
    assert list(m.state_dict()) == expected_keys
    if not HAVE_TORCH:
        return
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orthogonal_map,
                                               use_trivialization=use_trivialization)
    assert list(m.state_dict()) == list(tm.state_dict())
    # the initial weight is deterministic: the tensor's QR orthogonalization (for a
    # non-square one only the random completion of ``base`` differs)
    np.testing.assert_allclose(_np(m.weight), _np(tm.weight), atol=2e-6)
    # with the same state: same forward and gradients
    m.load_state_dict({k: tl.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((5, shape[1])).astype(np.float32)
    out, ref = m(tl.tensor(x)), tm(torch.tensor(x))
    np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=2e-6)
    (out ** 2).sum().backward()
    (ref ** 2).sum().backward()
    np.testing.assert_allclose(_np(m.parametrizations.weight.original.grad),
                               _np(tm.parametrizations.weight.original.grad),
                               rtol=1e-4, atol=2e-5)


def test_orthogonal_batched_weight_and_training_keeps_it_orthogonal():
    class Batched(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tl.randn(2, 5, 3))

    tl.manual_seed(0)
    m = P.orthogonal(Batched())
    _assert_orthogonal(_np(m.weight))
    lin = P.orthogonal(nn.Linear(4, 4), orthogonal_map="cayley")
    opt = tl.optim.SGD(lin.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        lin(tl.ones(2, 4)).pow(2).sum().backward()
        opt.step()
    _assert_orthogonal(_np(lin.weight), atol=1e-5)


def test_orthogonal_assignment_and_errors():
    m = P.orthogonal(nn.Linear(3, 3))
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0].astype(np.float32)
    m.weight = tl.tensor(Q)
    np.testing.assert_allclose(_np(m.weight), Q, atol=1e-6)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        m.weight = tl.eye(2)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a "
                                         "tensor of 1 dimensions."):
        P.orthogonal(nn.Linear(3, 3), name="bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
        P.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
        P.orthogonal(nn.Linear(3, 3), name="w")
    m = P.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix "
                                                  "exponential"):
        m.weight = tl.tensor(Q)
    c = nn.Linear(3, 3)
    c.weight.data = c.weight.data.to(tl.complex64)
    with pytest.raises(ValueError, match="householder parametrization does not support "
                                         "complex"):
        P.orthogonal(c, orthogonal_map="householder")


# ---------------------------------------------------------------------------- spectral norm
def _copy_uv(sn, tsn) -> None:
    with tl.no_grad():
        sn._u.copy_(tl.tensor(tsn._u.numpy()))
        sn._v.copy_(tl.tensor(tsn._v.numpy()))


@pytest.mark.parametrize("n_power_iterations,eps", [(1, 1e-12), (3, 1e-3)])
def test_spectral_norm_matches_torch_in_train_and_eval(n_power_iterations, eps):
    m, tm = _linear_pair(4, 6)
    P.spectral_norm(m, n_power_iterations=n_power_iterations, eps=eps)
    keys = ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
            "parametrizations.weight.0._v"]
    assert list(m.state_dict()) == keys
    sn = m.parametrizations.weight[0]
    assert tuple(sn._u.shape) == (4,) and tuple(sn._v.shape) == (6,)
    # registering ran the power method: sigma is close to the largest singular value
    s = np.linalg.svd(_np(m.parametrizations.weight.original), compute_uv=False)
    np.testing.assert_allclose(np.linalg.svd(_np(m.weight), compute_uv=False)[0], 1.0,
                               rtol=1e-2)
    assert s[0] > 1.0
    if not HAVE_TORCH:
        return
    torch.nn.utils.parametrizations.spectral_norm(tm, n_power_iterations=n_power_iterations,
                                                  eps=eps)
    assert list(tm.state_dict()) == keys
    tsn = tm.parametrizations.weight[0]
    _copy_uv(sn, tsn)   # the random start vectors differ: take PyTorch's
    x = np.random.default_rng(3).standard_normal((2, 6)).astype(np.float32)
    for mode in ["train", "train", "eval", "eval", "train"]:
        getattr(m, mode)()
        getattr(tm, mode)()
        u_before = _np(sn._u).copy()
        out, ref = m(tl.tensor(x)), tm(torch.tensor(x))
        np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(sn._u), _np(tsn._u), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(sn._v), _np(tsn._v), rtol=1e-5, atol=1e-6)
        if mode == "eval":   # no power iteration: the vectors stay
            np.testing.assert_array_equal(_np(sn._u), u_before)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(_np(m.parametrizations.weight.original.grad),
                               _np(tm.parametrizations.weight.original.grad),
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("make,dim", [
    (lambda nn_: nn_.ConvTranspose2d(3, 4, 2), None),   # default dim 1
    (lambda nn_: nn_.Conv2d(3, 4, 2), None),
    (lambda nn_: nn_.Conv1d(3, 4, 2), 2),
])
def test_spectral_norm_dims_match_torch(make, dim):
    m = make(nn)
    P.spectral_norm(m, dim=dim)
    sn = m.parametrizations.weight[0]
    w = m.parametrizations.weight.original
    d = sn.dim
    assert d == (1 if dim is None and isinstance(m, nn.ConvTranspose2d) else (dim or 0))
    assert tuple(sn._u.shape) == (w.shape[d],)
    if not HAVE_TORCH:
        return
    tm = make(torch.nn)
    tm.weight.data = torch.tensor(_np(w))
    torch.nn.utils.parametrizations.spectral_norm(tm, dim=dim)
    tsn = tm.parametrizations.weight[0]
    assert tsn.dim == sn.dim and tuple(tsn._u.shape) == tuple(sn._u.shape)
    _copy_uv(sn, tsn)
    np.testing.assert_allclose(_np(m.weight), _np(tm.weight), rtol=1e-5, atol=1e-6)


def test_spectral_norm_vector_and_errors():
    class Vec(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tl.tensor([3.0, 4.0]))

    m = P.spectral_norm(Vec())
    assert m.weight.tolist() == pytest.approx([0.6, 0.8])
    assert list(m.state_dict()) == ["parametrizations.weight.original"]
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range "
                                         r"of \[-2, 1\] but got 2\)"):
        P.spectral_norm(nn.Linear(3, 3), dim=2)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got "
                                         "n_power_iterations=0"):
        P.spectral_norm(nn.Linear(3, 3), n_power_iterations=0)


def test_spectral_norm_compiled_training_step_matches_eager():
    tl.manual_seed(0)
    m = P.spectral_norm(nn.Linear(5, 4))
    eager = P.spectral_norm(nn.Linear(5, 4))
    eager.load_state_dict(m.state_dict())
    opts = [tl.optim.SGD(mod.parameters(), lr=0.1) for mod in (m, eager)]

    def make_step(mod, opt):
        def step(x):
            opt.zero_grad()
            loss = mod(x).pow(2).sum()
            loss.backward()
            opt.step()
            return loss
        return step

    compiled = tl.compile(make_step(m, opts[0]))
    plain = make_step(eager, opts[1])
    x = tl.ones(3, 5)
    for _ in range(3):
        np.testing.assert_allclose(float(compiled(x)), float(plain(x)), rtol=1e-5)
    for a, b in zip(m.state_dict().values(), eager.state_dict().values()):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------- hook-based
def test_hook_spectral_norm_matches_torch():
    m, tm = _linear_pair(3, 5)
    nn.utils.spectral_norm(m, n_power_iterations=2)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the "
                                           "same parameter weight"):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="can't have uninitialized parameters"):
        nn.utils.spectral_norm(nn.LazyLinear(3))
    if HAVE_TORCH:
        torch.nn.utils.spectral_norm(tm, n_power_iterations=2)
        assert list(m.state_dict()) == list(tm.state_dict())
        with tl.no_grad():
            m.weight_u.copy_(tl.tensor(tm.weight_u.numpy()))
            m.weight_v.copy_(tl.tensor(tm.weight_v.numpy()))
        x = np.random.default_rng(4).standard_normal((2, 5)).astype(np.float32)
        for mode in ["train", "train", "eval"]:
            getattr(m, mode)()
            getattr(tm, mode)()
            out, ref = m(tl.tensor(x)), tm(torch.tensor(x))
            np.testing.assert_allclose(_np(out), _np(ref), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(_np(m.weight_u), _np(tm.weight_u), rtol=1e-5,
                                       atol=1e-6)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    if HAVE_TORCH:
        torch.nn.utils.remove_spectral_norm(tm)
        np.testing.assert_allclose(_np(m.weight), _np(tm.weight), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        nn.utils.remove_spectral_norm(m)


def test_weight_norm_loads_hook_based_checkpoint():
    old = nn.Linear(4, 3)
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(old)
    sd = old.state_dict()
    assert sorted(sd) == ["bias", "weight_g", "weight_v"]
    new = P.weight_norm(nn.Linear(4, 3))
    new.load_state_dict(sd)
    np.testing.assert_allclose(_np(new.weight), _np(old.weight), rtol=1e-6)
    assert list(new.state_dict()) == ["bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"]
