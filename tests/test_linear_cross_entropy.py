"""``nn.functional.linear_cross_entropy``, ``nn.LinearCrossEntropyLoss`` and
``nn.LinearCrossEntropyOptions`` against PyTorch: values and gradients for class indices
and probabilities, K-dimensional weights, ignore_index, label smoothing, class weights,
each reduction; the options' validation and the errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, assert_same, same_error, torch, torchify_repr

RNG = np.random.default_rng(0)


def _arrays(n, c, f, out=(), probs=False, bias=False):
    x = RNG.standard_normal((n, f) if n else (f,)).astype(np.float32)
    w = RNG.standard_normal((c, *out, f)).astype(np.float32)
    b = RNG.standard_normal((c, *out)).astype(np.float32) if bias else None
    batch = (n,) if n else ()
    if probs:
        t = RNG.random((*batch, c, *out)).astype(np.float32)
        t /= t.sum(axis=len(batch), keepdims=True)
    else:
        t = RNG.integers(0, c, (*batch, *out)).astype(np.int64)
    return x, w, b, t


def _run(fw, arrays, weight=None, **kw):
    """The loss and the gradients of x, W (and b) in framework ``fw``."""
    x, w, b, t = arrays
    tensors = [fw.tensor(a, requires_grad=True) for a in (x, w)]
    bt = fw.tensor(b, requires_grad=True) if b is not None else None
    wt = fw.tensor(weight) if weight is not None else None
    loss = fw.nn.functional.linear_cross_entropy(tensors[0], tensors[1], fw.tensor(t),
                                                 linear_bias=bt, weight=wt, **kw)
    leaves = tensors + ([bt] if bt is not None else [])
    grads = fw.autograd.grad(loss.sum(), leaves)
    return loss, list(grads)


def _reference(arrays, weight=None, ignore_index=None, **kw):
    """PyTorch's definition: cross_entropy of the K-dimensional logits (without torch:
    torchlike's own cross_entropy of linear)."""
    fw = torch if HAVE_TORCH else tl
    x, w, b, t = arrays
    xt, wt = fw.tensor(x, requires_grad=True), fw.tensor(w, requires_grad=True)
    bt = fw.tensor(b, requires_grad=True) if b is not None else None
    batch = tuple(xt.shape[:-1])
    logits = xt @ wt.reshape(-1, xt.shape[-1]).T
    if bt is not None:
        logits = logits + bt.reshape(-1)
    logits = logits.reshape(*batch, *w.shape[:-1])
    loss = fw.nn.functional.cross_entropy(
        logits, fw.tensor(t), weight=fw.tensor(weight) if weight is not None else None,
        ignore_index=-100 if ignore_index is None else ignore_index, **kw)
    leaves = [xt, wt] + ([bt] if bt is not None else [])
    return loss, list(fw.autograd.grad(loss.sum(), leaves))


CASES = [
    dict(n=6, c=5, f=4),
    dict(n=0, c=5, f=4),
    dict(n=6, c=5, f=4, bias=True),
    dict(n=6, c=5, f=4, probs=True),
    dict(n=0, c=5, f=4, probs=True),
    dict(n=3, c=4, f=5, out=(2, 3)),
    dict(n=3, c=4, f=5, out=(2,), probs=True, bias=True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_cross_entropy_of_linear(case, reduction, smoothing, weighted):
    arrays = _arrays(**case)
    weight = RNG.random(case["c"]).astype(np.float32) + 0.5 if weighted else None
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    out = _run(tl, arrays, weight, **kw)
    ref = _reference(arrays, weight, **kw)
    if HAVE_TORCH:
        assert_same(out, ref, rtol=1e-5, atol=1e-5)
        assert_same(out, _run(torch, arrays, weight, **kw), rtol=1e-5, atol=1e-5)
    else:
        for a, b in zip([out[0], *out[1]], [ref[0], *ref[1]]):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                       atol=1e-5)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ignore_index(reduction):
    x, w, b, t = _arrays(8, 5, 3, out=(2,))
    weight = RNG.random(5).astype(np.float32) + 0.5
    for ii in (None, 2):
        t = t.copy()
        t[0, 0] = t[3, 1] = t[5, 0] = -100 if ii is None else ii
        kw = dict(reduction=reduction, ignore_index=ii)
        out = _run(tl, (x, w, b, t), weight, **kw)
        ref = _reference((x, w, b, t), weight, **kw)
        if HAVE_TORCH:
            assert_same(out, ref, rtol=1e-5, atol=1e-5)
            assert_same(out, _run(torch, (x, w, b, t), weight, **kw), rtol=1e-5, atol=1e-5)
        if reduction == "none":
            ignored = t == (-100 if ii is None else ii)
            assert (out[0].detach().numpy()[ignored] == 0).all()


def test_float64_and_grad_fn():
    x, w, b, t = _arrays(4, 3, 2)
    xt = tl.tensor(x.astype(np.float64), requires_grad=True)
    loss = tl.nn.functional.linear_cross_entropy(xt, tl.tensor(w.astype(np.float64)),
                                                 tl.tensor(t))
    assert loss.dtype == tl.float64
    if HAVE_TORCH:
        ref = torch.nn.functional.linear_cross_entropy(
            torch.tensor(x.astype(np.float64), requires_grad=True),
            torch.tensor(w.astype(np.float64)), torch.tensor(t))
        assert loss.grad_fn.name() == ref.grad_fn.name()
        assert_same(loss, ref)


OPTIONS = [dict(), dict(batch_chunk_size=3), dict(batch_chunk_size=3, chunking_method=None),
           dict(chunking_method="aspect_ratio:2", acc_policy="accurate"),
           dict(batch_chunk_size=1), dict(batch_chunk_size=100)]


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: "-".join(f"{k}{v}" for k, v in o.items()))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_chunked_path_matches_reference(opts, reduction):
    """The chunked path (chunks not dividing the batch, ignored targets, bias, class
    weights) against the reference path and PyTorch's chunked op."""
    x, w, b, t = _arrays(11, 20, 4, bias=True)
    t[[2, 7]] = -100
    weight = RNG.random(20).astype(np.float32) + 0.5
    for wt in (None, weight):
        out = _run(tl, (x, w, b, t), wt, reduction=reduction,
                   options=tl.nn.LinearCrossEntropyOptions(**opts))
        ref = _run(tl, (x, w, b, t), wt, reduction=reduction)
        for a, r in zip([out[0], *out[1]], [ref[0], *ref[1]]):
            np.testing.assert_allclose(a.detach().numpy(), r.detach().numpy(), rtol=1e-5,
                                       atol=1e-6)
        if HAVE_TORCH:
            assert_same(out, _run(torch, (x, w, b, t), wt, reduction=reduction,
                                  options=torch.nn.LinearCrossEntropyOptions(**opts)),
                        rtol=1e-5, atol=1e-5)


def test_chunked_unbatched_dtypes_and_grad_fn():
    x, w, b, t = _arrays(0, 6, 3)
    opts = dict(batch_chunk_size=1)
    for reduction in ("none", "mean"):
        out = _run(tl, (x, w, b, t), reduction=reduction,
                   options=tl.nn.LinearCrossEntropyOptions(**opts))
        assert tuple(out[0].shape) == ()
        if HAVE_TORCH:
            assert_same(out, _run(torch, (x, w, b, t), reduction=reduction,
                                  options=torch.nn.LinearCrossEntropyOptions(**opts)),
                        rtol=1e-5, atol=1e-5)
    x, w, b, t = _arrays(9, 12, 5)
    for dtype in ("float64", "bfloat16", "float16"):
        def call(fw):
            xs = fw.tensor(x).to(getattr(fw, dtype)).requires_grad_(True)
            ws = fw.tensor(w).to(getattr(fw, dtype))
            loss = fw.nn.functional.linear_cross_entropy(
                xs, ws, fw.tensor(t), reduction="none",
                options=fw.nn.LinearCrossEntropyOptions(batch_chunk_size=4))
            return loss, fw.autograd.grad(loss.sum(), xs)[0]
        out = call(tl)
        assert out[0].dtype == getattr(tl, dtype) and out[1].dtype == getattr(tl, dtype)
        assert out[0].grad_fn.name() == ("GeneratedBackwardFor_torch_nn__linear_cross_"
                                         "entropy_batch_chunked_no_reduction_defaultBackward")
        if HAVE_TORCH:
            ref = call(torch)
            assert out[0].grad_fn.name() == ref[0].grad_fn.name()
            assert_same(out, ref, rtol=2e-2, atol=2e-2)


def test_chunked_backward_twice_and_compiled():
    x, w, b, t = _arrays(8, 10, 3)
    xs = tl.tensor(x, requires_grad=True)
    opts = tl.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
    loss = tl.nn.functional.linear_cross_entropy(xs, tl.tensor(w), tl.tensor(t), options=opts)
    loss.backward(retain_graph=True)
    first = xs.grad.clone()
    loss.backward()             # PyTorch's chunked op refuses; here the graph is kept
    np.testing.assert_allclose(xs.grad.numpy(), 2 * first.numpy(), rtol=1e-6)

    @tl.compile
    def step(x, w, t):
        return tl.nn.functional.linear_cross_entropy(x, w, t, options=opts)

    np.testing.assert_allclose(step(tl.tensor(x), tl.tensor(w), tl.tensor(t)).item(),
                               loss.item(), rtol=1e-6)


def test_chunked_kernel_never_holds_the_logits():
    """The compiled forward and backward of the chunked kernel need a fraction of the
    (N, C) logits' memory; unchunked they need at least all of it."""
    import jax
    import jax.numpy as jnp

    from torchlike._ops.nn_linear_cross_entropy import _linear_cross_entropy_rows

    n, f, c = 2048, 8, 2048
    t = jnp.zeros(n, jnp.int64)

    def temp_bytes(chunk):
        def loss(x, w):
            return _linear_cross_entropy_rows(x, w, t, None, None, -100, chunk).sum()
        grad = jax.jit(jax.grad(loss, argnums=(0, 1)))
        compiled = grad.lower(jnp.ones((n, f)), jnp.ones((c, f))).compile()
        return compiled.memory_analysis().temp_size_in_bytes

    logits = n * c * 4
    assert temp_bytes(128) < logits / 4
    assert temp_bytes(n) >= logits


def test_chunked_errors_and_fallbacks():
    x, w, b, t = _arrays(4, 5, 3)
    t[1] = 7

    def oob(fw):
        return lambda: _run(fw, (x, w, b, t), options=fw.nn.LinearCrossEntropyOptions())

    same_error(oob(tl), oob(torch) if HAVE_TORCH else None, RuntimeError, match_text=True)
    t[1] = 1
    # a class weight of the wrong length gets the reference path's error
    with pytest.raises(RuntimeError, match="weight tensor should be defined"):
        _run(tl, (x, w, b, t), np.ones(3, np.float32),
             options=tl.nn.LinearCrossEntropyOptions())


def test_options_warn_as_pytorch_when_ignored():
    x, w, b, t = _arrays(8, 20, 4)
    base = _run(tl, (x, w, b, t), label_smoothing=0.1)

    def warned(fw):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = _run(fw, (x, w, b, t), label_smoothing=0.1,
                       options=fw.nn.LinearCrossEntropyOptions())
        return out, [str(r.message) for r in rec]

    out, msgs = warned(tl)
    assert out[0].item() == pytest.approx(base[0].item())
    assert len(msgs) == 1 and "``options`` ignored" in msgs[0]
    if HAVE_TORCH:
        assert [torchify_repr(m) for m in msgs] == warned(torch)[1]


def _opts_error(fw, **kw):
    return lambda: fw.nn.LinearCrossEntropyOptions(**kw)


@pytest.mark.parametrize("kw", [dict(acc_policy="x"), dict(chunking_method="foo"),
                                dict(chunking_method="aspect_ratio:0"),
                                dict(chunking_method="aspect:2"),
                                dict(batch_chunk_size=0), dict(batch_chunk_size=2.0)])
def test_options_validation(kw):
    same_error(_opts_error(tl, **kw), _opts_error(torch, **kw) if HAVE_TORCH else None,
               ValueError, match_text=True)


def test_options_fields_repr_and_acc_dtype():
    o = tl.nn.LinearCrossEntropyOptions()
    assert repr(o) == ("LinearCrossEntropyOptions(allow_retain_graph=False, "
                       "batch_chunk_size=None, chunking_method='auto', acc_policy='auto', "
                       "acc_dtype=None)")
    if HAVE_TORCH:
        assert repr(o) == repr(torch.nn.LinearCrossEntropyOptions())
    with pytest.raises(AttributeError):
        o.batch_chunk_size = 3  # frozen
    tl.nn.LinearCrossEntropyOptions(acc_dtype=tl.bfloat16)
    with pytest.raises(ValueError, match="acc_dtype must be one of"):
        tl.nn.LinearCrossEntropyOptions(acc_dtype=tl.int32)


def test_options_chunk_sizes_disagree():
    x, w, b, t = _arrays(8, 20, 4)

    def call(fw):
        opts = fw.nn.LinearCrossEntropyOptions(batch_chunk_size=3,
                                               chunking_method="aspect_ratio")
        return lambda: _run(fw, (x, w, b, t), options=opts)

    same_error(call(tl), call(torch) if HAVE_TORCH else None, ValueError, match_text=True)


@pytest.mark.parametrize("shapes", [
    ((2, 3, 4), (5, 4), (2,)),          # 3-d input
    ((2, 4), (5,), (2,)),               # 1-d weight
    ((2, 4), (5, 3), (2,)),             # in_features differ
    ((4,), (5, 2, 4), ()),              # K-dimensional weight, unbatched input
])
def test_shape_errors(shapes):
    xs, ws, ts = shapes

    def call(fw):
        return lambda: fw.nn.functional.linear_cross_entropy(
            fw.zeros(xs), fw.zeros(ws), fw.zeros(ts, dtype=fw.int64))

    same_error(call(tl), call(torch) if HAVE_TORCH else None, RuntimeError, match_text=True)


def test_bias_shape_and_probability_ignore_index_errors():
    def bias(fw):
        return lambda: fw.nn.functional.linear_cross_entropy(
            fw.zeros(2, 4), fw.zeros(5, 4), fw.zeros(2, dtype=fw.int64),
            linear_bias=fw.zeros(4))

    def probs(fw):
        return lambda: fw.nn.functional.linear_cross_entropy(
            fw.zeros(2, 4), fw.zeros(5, 4), fw.zeros(2, 5), ignore_index=1)

    for f in (bias, probs):
        same_error(f(tl), f(torch) if HAVE_TORCH else None, RuntimeError, match_text=True)


def test_module_matches_pytorch():
    kw = dict(out_features=(4, 3), bias=True, reduction="sum", label_smoothing=0.1)
    m = tl.nn.LinearCrossEntropyLoss(5, 10, **kw)
    assert [n for n, _ in m.named_parameters()] == ["linear.weight", "linear.bias"]
    assert tuple(m.linear.weight.shape) == (120, 5)
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    t = RNG.integers(0, 10, (2, 4, 3))
    xt = tl.tensor(x, requires_grad=True)
    out = m(xt, tl.tensor(t))
    out.backward()
    if HAVE_TORCH:
        r = torch.nn.LinearCrossEntropyLoss(5, 10, **kw)
        r.load_state_dict({k: torch.tensor(v.detach().numpy())
                           for k, v in m.state_dict().items()})
        xr = torch.tensor(x, requires_grad=True)
        ref = r(xr, torch.tensor(t))
        ref.backward()
        assert_same(out, ref, rtol=1e-5, atol=1e-5)
        assert_same(xt.grad, xr.grad, rtol=1e-5, atol=1e-5)
        assert_same(m.linear.weight.grad, r.linear.weight.grad, rtol=1e-5, atol=1e-5)
        assert repr(m) == repr(r)
        assert [n for n, _ in r.named_parameters()] == ["linear.weight", "linear.bias"]


def test_module_constructor_errors():
    for kw in (dict(weight=tl.ones(3)), dict(label_smoothing=1.5)):
        tkw = {k: torch.ones(3) if k == "weight" else v for k, v in kw.items()} \
            if HAVE_TORCH else None
        same_error(lambda: tl.nn.LinearCrossEntropyLoss(4, 5, **kw),
                   (lambda: torch.nn.LinearCrossEntropyLoss(4, 5, **tkw)) if HAVE_TORCH
                   else None, RuntimeError, match_text=True)
