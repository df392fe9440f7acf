"""``torchlike.utils.checkpoint``: ``checkpoint`` and ``checkpoint_sequential``, eager
(both variants) and under ``torchlike.compile``, compared with the uncheckpointed
function and with PyTorch."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl
from torchlike import nn
from torchlike.utils import checkpoint as ckpt
from torchlike.utils.checkpoint import checkpoint, checkpoint_sequential

from .._parity import HAVE_TORCH, torch

X = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
VARIANTS = [True, False]


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, tl.Tensor) else t.detach().numpy()


def _model(dropout: float = 0.0, batchnorm: bool = False):
    tl.manual_seed(0)
    layers = [nn.Linear(4, 8), nn.Tanh(), nn.Dropout(dropout)]
    if batchnorm:
        layers.append(nn.BatchNorm1d(8))
    return nn.Sequential(*layers, nn.Linear(8, 3))


def _torch_copy(m):
    """The same architecture in PyTorch with ``m``'s parameters and buffers."""
    layers = []
    for c in m:
        if isinstance(c, nn.Linear):
            layers.append(torch.nn.Linear(c.in_features, c.out_features))
        elif isinstance(c, nn.BatchNorm1d):
            layers.append(torch.nn.BatchNorm1d(c.num_features))
        elif isinstance(c, nn.Dropout):
            layers.append(torch.nn.Dropout(c.p))
        else:
            layers.append(getattr(torch.nn, type(c).__name__)())
    tm = torch.nn.Sequential(*layers)
    tm.load_state_dict({k: torch.tensor(_np(v)) for k, v in m.state_dict().items()})
    return tm


def _grads(m) -> list:
    return [_np(p.grad) for p in m.parameters()]


def _assert_all_close(a, b, rtol=1e-5, atol=1e-6) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol)


def _run(m, x, how, seed=1, **kw):
    """Loss, input gradient and parameter gradients of ``m`` on ``x``."""
    x = tl.tensor(x, requires_grad=True)
    tl.manual_seed(seed)
    y = m(x) if how is None else checkpoint(m, x, use_reentrant=how, **kw)
    loss = (y ** 2).sum()
    loss.backward()
    return float(loss), _np(x.grad), _grads(m)


# ---------------------------------------------------------------------------- eager
@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradients_equal_uncheckpointed_and_torch(reentrant):
    ref = _run(_model(), X, None)
    got = _run(_model(), X, reentrant)
    assert got[0] == pytest.approx(ref[0], rel=1e-6)
    _assert_all_close([got[1]] + got[2], [ref[1]] + ref[2])
    if not HAVE_TORCH:
        return
    tm = _torch_copy(_model())
    tx = torch.tensor(X, requires_grad=True)
    ty = torch.utils.checkpoint.checkpoint(tm, tx, use_reentrant=reentrant)
    (ty ** 2).sum().backward()
    _assert_all_close([got[1]] + got[2], [_np(tx.grad)] + [_np(p.grad) for p in tm.parameters()],
                      rtol=1e-4, atol=1e-5)
    m = _model()
    y = checkpoint(m, tl.tensor(X, requires_grad=True), use_reentrant=reentrant)
    assert y.grad_fn.name() == (type(ty.grad_fn).__name__ if reentrant
                                else "CheckpointBackward")


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_dropout_recomputes_identically(reentrant):
    ref = _run(_model(0.5), X, None, seed=7)
    got = _run(_model(0.5), X, reentrant, seed=7)
    _assert_all_close([got[1]] + got[2], [ref[1]] + ref[2])
    # the recomputation leaves the generator where the forward left it
    m = _model(0.5)
    tl.manual_seed(3)
    m(tl.tensor(X, requires_grad=True)).sum().backward()
    plain_state = tl.get_rng_state()
    m = _model(0.5)
    tl.manual_seed(3)
    checkpoint(m, tl.tensor(X, requires_grad=True), use_reentrant=reentrant).sum().backward()
    assert bool((tl.get_rng_state() == plain_state).all())
    # without preserving the state the recomputation draws other masks
    off = _run(_model(0.5), X, reentrant, seed=7, preserve_rng_state=False)
    assert not np.allclose(off[1], ref[1])


def test_batchnorm_statistics_update_as_torch():
    # PyTorch's eager recomputation updates the running statistics a second time
    m = _model(batchnorm=True)
    checkpoint(m, tl.tensor(X, requires_grad=True), use_reentrant=False).sum().backward()
    plain = _model(batchnorm=True)
    plain(tl.tensor(X))
    assert not np.allclose(_np(m[3].running_mean), _np(plain[3].running_mean))
    assert int(m[3].num_batches_tracked) == 2
    if HAVE_TORCH:
        tm = _torch_copy(_model(batchnorm=True))
        torch.utils.checkpoint.checkpoint(tm, torch.tensor(X, requires_grad=True),
                                          use_reentrant=False).sum().backward()
        np.testing.assert_allclose(_np(m[3].running_mean), _np(tm[3].running_mean),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(m[3].running_var), _np(tm[3].running_var),
                                   rtol=1e-5, atol=1e-6)


def test_non_reentrant_kwargs_structures_grad_and_inputs():
    lin = nn.Linear(3, 3)
    h = tl.ones(2, 3, requires_grad=True) * 2   # a non-leaf from outside, via the closure

    def fn(x, *, scale):
        y = lin(x) * scale + h
        return {"y": y, "pair": (y.sum(), "tag")}

    x = tl.tensor(X[:2, :3], requires_grad=True)
    out = checkpoint(fn, x, scale=3.0, use_reentrant=False)
    assert out["pair"][1] == "tag"
    gx, gw = tl.autograd.grad(out["y"].sum() + out["pair"][0], (x, lin.weight))
    x2 = tl.tensor(X[:2, :3], requires_grad=True)
    ref = fn(x2, scale=3.0)
    rx, rw = tl.autograd.grad(ref["y"].sum() + ref["pair"][0], (x2, lin.weight))
    np.testing.assert_allclose(_np(gx), _np(rx), rtol=1e-6)
    np.testing.assert_allclose(_np(gw), _np(rw), rtol=1e-6)
    assert lin.weight.grad is None   # autograd.grad accumulates nothing
    # backward(inputs=...) only fills the given leaves; the closure tensor's history too
    out = checkpoint(fn, x, scale=3.0, use_reentrant=False)
    out["y"].sum().backward(inputs=[x])
    np.testing.assert_allclose(_np(x.grad), _np(rx) / 2, rtol=1e-6)
    assert lin.weight.grad is None
    leaf = h.grad_fn.next_functions[0][0].variable
    checkpoint(fn, x, scale=3.0, use_reentrant=False)["y"].sum().backward()
    assert leaf.grad.tolist() == [[2.0] * 3] * 2


def test_reentrant_limits_and_errors_match_torch():
    m = _model()
    x = tl.tensor(X, requires_grad=True)
    y = checkpoint(m, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="When use_reentrant=True, torch.utils.checkpoint "
                                           "is incompatible with .grad()"):
        tl.autograd.grad(y.sum(), x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: a,b"):
        checkpoint(m, x, use_reentrant=True, a=1, b=2)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported"):
        checkpoint(m, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match=r"determinism_check should be one of \['default', "
                                         r"'none'\], but got strict"):
        checkpoint(m, x, use_reentrant=False, determinism_check="strict")
    with pytest.raises(ValueError, match="Unexpected keyword arguments: a"):
        checkpoint_sequential(m, 2, x, use_reentrant=False, a=1)
    # no input requires grad: PyTorch's warning, and nothing is differentiable
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(m, tl.tensor(X), use_reentrant=True)
    assert not y.requires_grad
    # the non-reentrant variant still reaches the parameters
    checkpoint(m, tl.tensor(X), use_reentrant=False).sum().backward()
    assert m[0].weight.grad is not None
    if HAVE_TORCH:
        tm = _torch_copy(_model())
        tx = torch.tensor(X, requires_grad=True)
        ty = torch.utils.checkpoint.checkpoint(tm, tx, use_reentrant=True)
        with pytest.raises(RuntimeError, match="When use_reentrant=True"):
            torch.autograd.grad(ty.sum(), tx)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: a,b"):
            torch.utils.checkpoint.checkpoint(tm, tx, use_reentrant=True, a=1, b=2)


def test_use_reentrant_warnings_match_torch():
    m = _model()
    x = tl.tensor(X, requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        checkpoint(m, x)
        checkpoint_sequential(m, 2, x)
    ours = [str(w.message) for w in rec]
    assert all(w.filename == __file__ for w in rec)   # stacklevel: the caller's line
    assert len(ours) == 2 and "use_reentrant parameter should be passed explicitly" in ours[0]
    if HAVE_TORCH:
        tm = _torch_copy(m)
        tx = torch.tensor(X, requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            torch.utils.checkpoint.checkpoint(tm, tx)
            torch.utils.checkpoint.checkpoint_sequential(tm, 2, tx)
        theirs = [str(w.message) for w in rec if "use_reentrant" in str(w.message)]
        assert ours == theirs


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_saved_input_modified_in_place_raises(reentrant):
    x = tl.tensor(X, requires_grad=True)
    a = x * 1
    y = checkpoint(_model(), a, use_reentrant=reentrant)
    with tl.no_grad():
        a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_retain_graph_and_higher_order(reentrant):
    m = _model()
    x = tl.tensor(X, requires_grad=True)
    y = checkpoint(m, x, use_reentrant=reentrant).sum()
    y.backward(retain_graph=True)
    first = _np(x.grad).copy()
    y.backward()
    np.testing.assert_allclose(_np(x.grad), 2 * first, rtol=1e-6)
    if not reentrant:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a "
                                               "second time"):
            y.backward()
    y = checkpoint(m, x, use_reentrant=reentrant).sum()
    with pytest.raises(NotImplementedError, match="create_graph=True"):
        tl.autograd.grad(y, x, create_graph=True) if not reentrant else \
            y.backward(create_graph=True)


@pytest.mark.parametrize("segments", [1, 2, 3])
@pytest.mark.parametrize("reentrant", VARIANTS)
def test_checkpoint_sequential(segments, reentrant):
    def deep():
        tl.manual_seed(0)
        return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Dropout(0.2), nn.Linear(6, 6),
                             nn.Tanh(), nn.Linear(6, 2))

    ref = _run(deep(), X, None, seed=4)
    m = deep()
    x = tl.tensor(X, requires_grad=True)
    tl.manual_seed(4)
    y = checkpoint_sequential(m, segments, x, use_reentrant=reentrant)
    (y ** 2).sum().backward()
    _assert_all_close([_np(x.grad)] + _grads(m), [ref[1]] + ref[2])
    if HAVE_TORCH:
        m = deep()
        m[2].p = 0.0
        tm = _torch_copy(m)
        x = tl.tensor(X, requires_grad=True)
        tx = torch.tensor(X, requires_grad=True)
        checkpoint_sequential(m, segments, x, use_reentrant=reentrant).sum().backward()
        torch.utils.checkpoint.checkpoint_sequential(tm, segments, tx,
                                                     use_reentrant=reentrant).sum().backward()
        np.testing.assert_allclose(_np(x.grad), _np(tx.grad), rtol=1e-4, atol=1e-6)


def test_helpers():
    a = tl.ones(2, requires_grad=True)
    d = ckpt.detach_variable((a, 3))
    assert d[1] == 3 and d[0].requires_grad and d[0].grad_fn is None and d[0] is not a
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        ckpt.detach_variable([a])
    with pytest.warns(UserWarning, match="None of the inputs"):
        ckpt.check_backward_validity([tl.ones(1), 2])


# ---------------------------------------------------------------------------- compiled
@pytest.mark.parametrize("reentrant", VARIANTS)
def test_compiled_step_uses_jax_checkpoint_and_matches_eager(reentrant, monkeypatch):
    calls = []
    real = jax.checkpoint

    def spy(fun, *args, **kwargs):
        calls.append(fun)
        return real(fun, *args, **kwargs)

    def make_step(m, opt, use_checkpoint):
        def step(x):
            opt.zero_grad()
            x = x.requires_grad_(True) if reentrant else x
            y = checkpoint(m, x, use_reentrant=reentrant) if use_checkpoint else m(x)
            loss = (y ** 2).sum()
            loss.backward()
            opt.step()
            return loss
        return step

    results = {}
    for mode in ["plain", "compiled"]:
        m = _model(0.3, batchnorm=True)
        step = make_step(m, tl.optim.SGD(m.parameters(), lr=0.1), mode == "compiled")
        if mode == "compiled":
            monkeypatch.setattr(jax, "checkpoint", spy)
            step = tl.compile(step)
        tl.manual_seed(5)
        losses = [float(step(tl.tensor(X))) for _ in range(3)]
        results[mode] = losses, [_np(v) for v in m.state_dict().values()]
    assert calls, "the compiled checkpoint did not go through jax.checkpoint"
    np.testing.assert_allclose(results["compiled"][0], results["plain"][0], rtol=1e-5)
    # parameters, batch-norm statistics (updated once, as under torch.compile)
    _assert_all_close(results["compiled"][1], results["plain"][1], rtol=1e-4, atol=1e-5)


def test_traced_region_is_rematerialized():
    tl.manual_seed(0)
    blocks = [nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8)) for _ in range(3)]

    def grads(a, use):
        x = tl.from_jax(a) if hasattr(tl, "from_jax") else tl.Tensor._wrap(a)
        x.requires_grad_(True)
        h = x
        for b in blocks:
            h = checkpoint(b, h, use_reentrant=False) if use else b(h)
        gx, = tl.autograd.grad(h.sum(), x)   # no parameter's .grad keeps a tracer
        return gx.jax()

    a = jnp.ones((4, 8), jnp.float32)
    lowered = {use: jax.jit(lambda v, use=use: grads(v, use)).lower(a).as_text()
               for use in (False, True)}
    # one optimization barrier per region: XLA cannot merge the recomputation away
    assert lowered[True].count("optimization_barrier") == 3
    assert "optimization_barrier" not in lowered[False]
    np.testing.assert_allclose(np.asarray(jax.jit(lambda v: grads(v, True))(a)),
                               np.asarray(jax.jit(lambda v: grads(v, False))(a)), rtol=1e-5)


_HIDDEN = nn.Parameter(tl.ones(4))


def test_compiled_region_reaching_an_unfound_tensor_raises():
    def fn(x):
        return x * globals()["_HID" + "DEN"]   # not visible to state discovery

    def step(x):
        return checkpoint(fn, x, use_reentrant=False).sum()

    with pytest.raises(RuntimeError, match="neither one of its arguments nor a parameter"):
        tl.compile(step)(tl.ones(2, 4, requires_grad=True))


def test_compiled_checkpoint_inside_forward_leaves_unused_parameters_alone():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.used = nn.Linear(3, 3)
            self.unused = nn.Linear(3, 3)

        def forward(self, x):
            # the closure reaches both layers; only one is used
            return checkpoint(lambda h: self.used(h).tanh(), x, use_reentrant=False)

    tl.manual_seed(0)
    m = Net()
    opt = tl.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

    def step(x):
        opt.zero_grad()
        loss = m(x).pow(2).sum()
        loss.backward()
        opt.step()
        return loss

    compiled = tl.compile(step)
    tl.manual_seed(0)
    ref = Net()
    ref_opt = tl.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        loss = compiled(tl.ones(2, 3))
        ref_opt.zero_grad()
        r = ref.used(tl.ones(2, 3)).tanh().pow(2).sum()
        r.backward()
        ref_opt.step()
        assert float(loss) == pytest.approx(float(r), rel=1e-6)
    assert m.unused.weight.grad is None   # as in eager mode: nothing flowed there
    np.testing.assert_allclose(_np(m.used.weight), _np(ref.used.weight), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(_np(m.unused.weight), _np(ref.unused.weight))
