"""``torchlike.X`` functions with torch-level signatures, against PyTorch: the ATen forms
of the losses (``reduction`` an int), ``rrelu`` with a generator, ``embedding_bag``'s
four results, the ``native_*`` kernels, ``convolution``/``conv_tbc``, the RNN cells,
``batch_norm_update_stats``, ``nonzero_static``, the ``unsafe_*`` splits, and the
process-wide settings (default device, warn-always, flush-denormal, anomaly mode). Each
case runs in torchlike, and in PyTorch too where it is installed; the asserted values
hold torchlike to PyTorch's results without it as well. ``convolution``, ``conv_tbc``,
``native_layer_norm``, ``native_group_norm`` and ``nonzero_static`` are also op-table
ops, checked over their samples (with gradients) by tests/test_op_table.py."""

from __future__ import annotations


import numpy as np
import pytest

import torchlike as tl

from ._parity import (HAVE_TORCH, first_error, parity,
                      same_first_error, torch)

FWS = (tl, torch) if HAVE_TORCH else (tl,)
RNG = np.random.default_rng(0)


def arr(*shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


err = first_error
same_error = same_first_error


def with_grads(m, fn, *arrays, grad=None):
    """``fn(*tensors)`` on leaves made from ``arrays`` (float ones require grad), then the
    backward of the sum of its float outputs: (outputs, grad_fn names, input grads)."""
    grad = [a.dtype.kind == "f" for a in arrays] if grad is None else grad
    leaves = [m.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
    out = fn(*leaves)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    names = [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]
    total = sum(o.double().sum() for o in outs if o.requires_grad)
    if isinstance(total, m.Tensor):
        total.backward()
    return out, names, [t.grad for t in leaves if t.requires_grad]


# ---------------------------------------------------------------------------- settings
def test_is_same_size():
    assert parity(lambda m: (m.is_same_size(m.ones(2, 3), m.ones(2, 3)),
                             m.is_same_size(m.ones(2, 3), m.ones(3, 2)))) == (True, False)
    same_error(lambda m: m.is_same_size(3, m.ones(2)), TypeError)
    same_error(lambda m: m.is_same_size(m.ones(2), [2]), TypeError)


@pytest.fixture
def default_device_reset():
    yield
    for m in FWS:
        m.set_default_device(None)


def test_default_device(default_device_reset):
    def run(m):
        first = m.get_default_device()
        m.set_default_device("cpu:0")
        indexed = m.get_default_device()
        made = (m.zeros(2).device, m.tensor([1.0]).device, m.randn(2).device)
        with m.device("cpu"):
            inner = m.get_default_device()
        m.set_default_device(None)
        return [str(d) for d in (first, indexed, inner, m.get_default_device()) + made]
    assert parity(run) == ["cpu", "cpu:0", "cpu", "cpu", "cpu", "cpu", "cpu"]
    same_error(lambda m: m.set_default_device(3.5), TypeError, exact=False)


def test_default_device_set_inside_a_with_block(default_device_reset):
    with tl.device("cpu"):
        tl.set_default_device("cpu:0")
        assert str(tl.get_default_device()) == "cpu"       # the with block wins
    assert str(tl.get_default_device()) == "cpu:0"
    tl.set_default_device(None)
    assert str(tl.get_default_device()) == "cpu"


@pytest.mark.skipif(tl.cuda.is_available(), reason="an accelerator is present")
def test_default_device_refuses_a_missing_accelerator(default_device_reset):
    with pytest.raises(RuntimeError) as set_error:
        tl.set_default_device("cuda")
    with pytest.raises(RuntimeError) as cuda_error:
        tl.ones(1).cuda()
    assert str(set_error.value) == str(cuda_error.value)
    assert str(tl.get_default_device()) == "cpu" and tl.zeros(1).device.type == "cpu"
    with pytest.raises(RuntimeError, match="not supported by torchlike"):
        tl.set_default_device("meta")


@pytest.mark.skipif(not tl.cuda.is_available(), reason="needs an accelerator")
def test_default_device_on_an_accelerator(default_device_reset):
    tl.set_default_device("cuda")
    assert str(tl.get_default_device()) == "cuda:0"
    assert tl.zeros(2).device.type == "cuda" and tl.zeros(2, device="cpu").device.type == "cpu"


def test_warn_always():
    def run(m):
        before = m.is_warn_always_enabled()
        m.set_warn_always(True)
        on = m.is_warn_always_enabled()
        m.set_warn_always(False)
        return before, on, m.is_warn_always_enabled()
    assert parity(run) == (False, True, False)
    same_error(lambda m: m.set_warn_always(1), RuntimeError,
               "setWarnOnlyOnce expects a bool, but got int")


def test_flush_denormal():
    assert parity(lambda m: m.set_flush_denormal(True)) is True
    # XLA's CPU backend always flushes: turning it off cannot be honoured
    assert tl.set_flush_denormal(False) is False
    assert (tl.tensor([1e-39], dtype=tl.float32) * 1).item() == 0.0
    same_error(lambda m: m.set_flush_denormal("x"), RuntimeError,
               "flush_denormal expects a bool, but got str")
    if HAVE_TORCH:
        torch.set_flush_denormal(False)


def test_anomaly_mode_functions():
    def run(m):
        states = [(m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled())]
        m.set_anomaly_enabled(True)
        states.append((m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()))
        m.set_anomaly_enabled(True, False)
        states.append((m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()))
        m.set_anomaly_enabled(False)
        states.append((m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()))
        return states
    assert parity(run) == [(False, True), (True, True), (True, False), (False, True)]
    assert tl.autograd.set_detect_anomaly is not None and not tl.autograd.is_anomaly_enabled()
    same_error(lambda m: m.set_anomaly_enabled(1), TypeError)
    same_error(lambda m: m.set_anomaly_enabled(True, check_nan=1), TypeError)
    same_error(lambda m: m.set_anomaly_enabled(), TypeError, exact=False)
    tl.set_anomaly_enabled(False)


def test_empty_permuted():
    def run(m):
        outs = [m.empty_permuted((2, 3, 4), (0, 2, 1)),
                m.empty_permuted((2, 3, 4), (2, 0, 1), dtype=m.int64),
                m.empty_permuted((2, 3), (1, 0), requires_grad=True),
                m.empty_permuted([], [])]
        return [(o.stride(), str(o.dtype).split(".")[1], o.requires_grad, o._base is None)
                for o in outs]
    assert parity(run)[0] == ((12, 1, 3), "float32", False, True)


@pytest.mark.parametrize("size,layout,exc", [
    ((2, 3, 4), (0, 1), RuntimeError), ((2, 3, 4), (0, 1, 1), RuntimeError),
    ((2, 3, 4), (0, 1, 3), RuntimeError), ((2, 3, 4), (0, 1, -1), RuntimeError),
    ((2, -3, 4), (0, 1, 2), RuntimeError), (3, (0,), TypeError)])
def test_empty_permuted_errors(size, layout, exc):
    same_error(lambda m: m.empty_permuted(size, layout), exc)


# ------------------------------------------------------------------------------ losses
A, B = arr(3, 4), arr(3, 4, low=0.1, high=1.0)
REDUCTIONS = [0, 1, 2, 5]


def _kl(m, x, y, r):
    return m.kl_div(x.log_softmax(1), y, r)


def _kl_log(m, x, y, r):
    return m.kl_div(x.log_softmax(1), y.log(), reduction=r, log_target=True)


LOSSES = {
    "kl_div": (_kl, (A, B)),
    "kl_div_log_target": (_kl_log, (A, B)),
    "cosine_embedding_loss": (lambda m, a, b, t, r: m.cosine_embedding_loss(a, b, t, 0.2, r),
                              (A, arr(3, 4), np.array([1.0, -1.0, 1.0], np.float32))),
    "hinge_embedding_loss": (lambda m, a, t, r: m.hinge_embedding_loss(a, t, 0.5, r),
                             (A, np.sign(arr(3, 4)))),
    "margin_ranking_loss": (lambda m, a, b, t, r: m.margin_ranking_loss(a, b, t, 0.1, r),
                            (A, arr(4), np.sign(arr(4)))),     # broadcasts, as ATen's
    "poisson_nll_loss": (lambda m, a, b, r: m.poisson_nll_loss(a, b * 3, True, True, 1e-8,
                                                               r), (A, B)),
    "poisson_nll_loss_rate": (lambda m, a, b, r: m.poisson_nll_loss(a.abs(), b, False,
                                                                    False, 1e-6, r), (A, B)),
    "triplet_margin_loss": (lambda m, a, p, n, r: m.triplet_margin_loss(a, p, n, 0.5, 2,
                                                                        1e-6, True, r),
                            (A, arr(3, 4), arr(3, 4))),
    "triplet_margin_loss_zero_margin": (lambda m, a, p, n, r: m.triplet_margin_loss(
        a, p, n, margin=0.0, p=1.0, reduction=r), (A, arr(3, 4), arr(3, 4))),
    "binary_cross_entropy_with_logits": (
        lambda m, a, b, w, pw, r: m.binary_cross_entropy_with_logits(a, b, w.detach(),
                                                                     pw.detach(), r),
        (A, B, arr(4, low=0.5), arr(4, low=0.5))),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", list(LOSSES))
def test_losses_with_int_reduction(name, reduction):
    fn, arrays = LOSSES[name]
    out, names, grads = parity(lambda m: with_grads(m, lambda *t: fn(m, *t, reduction),
                                                    *arrays), rtol=1e-4, atol=1e-5)
    assert out.dim() == (2 if reduction in (0, 5) and "cosine" not in name and "triplet"
                         not in name else (1 if reduction in (0, 5) else 0))
    if reduction == 1 and "binary" not in name:
        assert names[0] == "MeanBackward0"


DEFAULTS = {
    "kl_div": lambda m: m.kl_div(m.tensor(A), m.tensor(B)),
    "cosine_embedding_loss": lambda m: m.cosine_embedding_loss(m.tensor(A), m.tensor(B),
                                                               m.ones(3)),
    "hinge_embedding_loss": lambda m: m.hinge_embedding_loss(m.tensor(A), m.tensor(B)),
    "margin_ranking_loss": lambda m: m.margin_ranking_loss(m.tensor(A), m.tensor(B),
                                                           m.ones(4)),
    "triplet_margin_loss": lambda m: m.triplet_margin_loss(m.tensor(A), m.tensor(B),
                                                           m.tensor(A[::-1].copy())),
    "binary_cross_entropy_with_logits": lambda m: m.binary_cross_entropy_with_logits(
        m.tensor(A), m.tensor(B)),
}


@pytest.mark.parametrize("name", list(DEFAULTS))
def test_losses_reduce_nothing_by_default(name):
    # Note [The default reduction of torch-level losses]
    assert parity(DEFAULTS[name], rtol=1e-4, atol=1e-5).dim() >= 1


def test_loss_argument_errors():
    same_error(lambda m: m.kl_div(m.tensor(A), m.tensor(B), "mean"), TypeError,
               "kl_div(): argument 'reduction' (position 3) must be int, not str")
    same_error(lambda m: m.poisson_nll_loss(m.tensor(A), m.tensor(B), True, False, 1e-8,
                                            "mean"), TypeError)
    same_error(lambda m: m.kl_div(m.tensor(A), m.tensor(B), 1, True), TypeError, exact=False)
    same_error(lambda m: m.kl_div(m.ones(2, dtype=m.int64), m.ones(2)), RuntimeError,
               "kl_div: Integral inputs not supported.")
    same_error(lambda m: m.triplet_margin_loss(m.tensor(A), m.tensor(A), m.tensor(A[0])),
               RuntimeError, "The anchor, positive, and negative tensors")
    same_error(lambda m: m.binary_cross_entropy_with_logits(m.tensor(A), m.ones(2, 3)),
               RuntimeError, exact=False)


def test_ctc_loss():
    T, N, C = 6, 2, 4
    logits = arr(T, N, C)
    targets = np.array([[1, 2, 1], [3, 1, 0]], np.int64)

    def run(m, r, lengths_as_tensors):
        il, tl_ = [6, 5], [3, 2]
        if lengths_as_tensors:
            il, tl_ = m.tensor(il), m.tensor(tl_)
        return with_grads(m, lambda lp, t: m.ctc_loss(lp.log_softmax(2), t, il, tl_, 0, r),
                          logits, targets)
    for r in (0, 1, 2):
        for as_tensors in (False, True):
            out = parity(lambda m: run(m, r, as_tensors), rtol=1e-4, atol=1e-5)
            assert out[0].dim() == (1 if r == 0 else 0)


# ------------------------------------------------------------------------------- rrelu
def test_rrelu_evaluation_and_in_place():
    x = arr(3, 4)
    out, names, grads = parity(lambda m: with_grads(m, lambda t: m.rrelu(t, 0.1, 0.3), x))
    assert names == ["RreluWithNoiseBackward0"]
    np.testing.assert_allclose(out.detach().numpy(), np.where(x > 0, x, x * 0.2), rtol=1e-6)
    assert parity(lambda m: m.rrelu_(m.tensor(x), 0.1, 0.3)).tolist() == out.tolist()
    same_error(lambda m: m.rrelu_(m.tensor(x, requires_grad=True)), RuntimeError)


def test_rrelu_training_draws_from_the_generator():
    x = tl.tensor(arr(200))
    a = tl.rrelu(x, 0.1, 0.3, True, tl.Generator().manual_seed(3))
    b = tl.rrelu(x, 0.1, 0.3, True, tl.Generator().manual_seed(3))
    c = tl.rrelu(x, 0.1, 0.3, True, tl.Generator().manual_seed(4))
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()
    neg = x < 0
    slopes = (a[neg] / x[neg]).numpy()
    assert (slopes >= 0.1 - 1e-6).all() and (slopes <= 0.3 + 1e-6).all()
    assert (a[~neg] == x[~neg]).all()
    y = tl.tensor(arr(50))
    tl.rrelu_(y, training=True)
    assert (y[y < 0] < 0).all()
    same_error(lambda m: m.rrelu(m.ones(3, dtype=m.int64), training=True), NotImplementedError,
               "\"rrelu_with_noise_out_cpu\" not implemented for 'Long'")


# ------------------------------------------------------------------------ embedding_bag
W = np.arange(12.0, dtype=np.float32).reshape(6, 2) / 3
IDX = np.array([1, 2, 4, 5, 4, 3, 2, 0], np.int64)
OFF = np.array([0, 2, 2, 5], np.int64)


@pytest.mark.parametrize("kwargs", [
    dict(mode=0), dict(mode=1), dict(mode=2), dict(mode=1, padding_idx=2),
    dict(mode=2, padding_idx=4), dict(mode=0, padding_idx=2),
    dict(mode=0, per_sample_weights=arr(8)),
    dict(mode=1, include_last_offset=True, offsets=np.array([0, 2, 2, 5, 8])),
    dict(mode=2, include_last_offset=True, offsets=np.array([0, 2, 2, 5, 8])),
    dict(mode=0, dtype=np.float64), dict(mode=1, index_dtype=np.int32),
    dict(mode=2, indices=np.array([], np.int64), offsets=np.array([0, 0]))],
    ids=lambda k: "-".join(f"{a}={b if np.ndim(b) == 0 else 'arr'}" for a, b in k.items()))
def test_embedding_bag(kwargs):
    kw = dict(kwargs)
    dtype, it = kw.pop("dtype", np.float32), kw.pop("index_dtype", np.int64)
    indices, offsets = kw.pop("indices", IDX).astype(it), kw.pop("offsets", OFF).astype(it)
    psw = kw.pop("per_sample_weights", None)

    def run(m):
        def f(w, *rest):
            # PyTorch takes padding_idx only positionally (the overload that has it)
            return m.embedding_bag(w, m.tensor(indices), m.tensor(offsets), False,
                                   kw["mode"], False, rest[0] if rest else None,
                                   kw.get("include_last_offset", False),
                                   kw.get("padding_idx"))
        arrays = (W.astype(dtype),) + (() if psw is None else (psw,))
        return with_grads(m, f, *arrays)
    out, names, grads = parity(run)
    assert len(out) == 4 and names[0] == "EmbeddingBagBackward0"


def test_embedding_bag_errors():
    w, i, o = (lambda m: m.tensor(W)), (lambda m: m.tensor(IDX)), (lambda m: m.tensor(OFF))
    same_error(lambda m: m.embedding_bag(w(m), i(m), None), TypeError,
               "embedding_bag(): argument 'offsets' (position 3) must be Tensor, not NoneType")
    same_error(lambda m: m.embedding_bag(w(m), i(m), o(m), mode=3), RuntimeError,
               "`mode` must be sum, mean, or max.")
    same_error(lambda m: m.embedding_bag(w(m), i(m), o(m), False, 1, False, m.ones(8)),
               RuntimeError, "embedding_bag: per_sample_weights only supported with mode='sum'")
    same_error(lambda m: m.embedding_bag(w(m), i(m), m.tensor([1, 2])), RuntimeError,
               exact=False)
    with pytest.raises(NotImplementedError, match="sparse"):
        tl.embedding_bag(w(tl), i(tl), o(tl), sparse=True)


# ----------------------------------------------------------------------- native kernels
def test_native_layer_norm():
    x, w, b = arr(2, 3, 4), arr(4), arr(4)
    out, names, grads = parity(lambda m: with_grads(
        m, lambda t, w, b: m.native_layer_norm(t, (4,), w, b, 1e-5), x, w, b),
        rtol=1e-4, atol=1e-5)
    assert names == ["NativeLayerNormBackward0", None, None]
    assert out[1].shape == (2, 3, 1) and not out[1].requires_grad
    half = parity(lambda m: [o.dtype for o in m.native_layer_norm(
        m.tensor(x, dtype=m.float16), [3, 4], None, None, 1e-5)] and
        m.native_layer_norm(m.tensor(x, dtype=m.float16), [3, 4], None, None, 1e-5))
    assert all(o.dtype == tl.float16 for o in half)
    same_error(lambda m: m.native_layer_norm(m.tensor(x), 4, None, None, 1e-5), TypeError,
               "native_layer_norm(): argument 'normalized_shape' (position 2) must be tuple")
    same_error(lambda m: m.native_layer_norm(m.tensor(x), (5,), None, None, 1e-5),
               RuntimeError, "Given normalized_shape=[5]")


def test_native_group_norm():
    x, w = arr(2, 4, 3), arr(4)
    out, names, grads = parity(lambda m: with_grads(
        m, lambda t, w: m.native_group_norm(t, w, None, 2, 4, 3, 2, 1e-5), x, w),
        rtol=1e-4, atol=1e-5)
    assert names == ["NativeGroupNormBackward0"] * 3 and out[1].shape == (2, 2)
    same_error(lambda m: m.native_group_norm(m.tensor(x), None, None, 2, 4, 5, 2, 1e-5),
               RuntimeError, "Expected X.numel() == N * C * HxW to be true")
    same_error(lambda m: m.native_group_norm(m.tensor(x), None, None, 2, 4, 3, 3, 1e-5),
               RuntimeError, "Expected number of channels in input to be divisible")


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_native_batch_norm(training, dtype):
    x, mean, var = arr(3, 4, 5), arr(4), arr(4, low=0.5)

    def run(m):
        dt = getattr(m, dtype)
        rm, rv = m.tensor(mean, dtype=dt), m.tensor(var, dtype=dt)
        xs = m.tensor(x, dtype=dt, requires_grad=True)
        out = m.native_batch_norm(xs, None, m.ones(4, dtype=dt), rm, rv, training, 0.2, 1e-5)
        out[0].double().sum().backward()
        return out, rm, rv, out[0].grad_fn.name(), xs.grad
    tol = 1e-2 if dtype == "float16" else 1e-4
    out, rm, rv, name, grad = parity(run, rtol=tol, atol=tol)
    assert name == "NativeBatchNormBackward0"
    assert out[1].shape == ((4,) if training else (0,))


def test_native_batch_norm_without_running_stats():
    x = arr(3, 4)
    out = parity(lambda m: m.native_batch_norm(m.tensor(x), None, None, None, None, True, 0.1,
                                               1e-5), rtol=1e-4, atol=1e-5)
    assert out[1].shape == (4,)


def test_batch_norm_update_stats():
    x = arr(3, 4, 5, dtype=np.float64)

    def run(m):
        rm, rv = m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64)
        return m.batch_norm_update_stats(m.tensor(x), rm, rv, 0.1), rm, rv, \
            m.batch_norm_update_stats(m.tensor(x), None, None, 0.3)
    (mean, var), rm, rv, _ = parity(run)
    np.testing.assert_allclose(var.numpy(), x.var((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * x.var((0, 2), ddof=1), rtol=1e-12)
    same_error(lambda m: m.batch_norm_update_stats(m.ones(2, 3, dtype=m.int64), None, None,
                                                   0.1), NotImplementedError)
    same_error(lambda m: m.batch_norm_update_stats(m.ones(3), None, None, 0.1), IndexError)


def test_native_dropout():
    x = arr(4, 50)

    def evaluation(m):
        t = m.tensor(x, requires_grad=True)
        out, mask = m.native_dropout(t, 0.5, False)
        return out, mask, out is t, out.grad_fn.name()
    out, mask, same, name = parity(evaluation)
    assert not same and bool(mask.all()) and name == "NativeDropoutBackward0"
    t = tl.tensor(x, requires_grad=True)
    out, mask = tl.native_dropout(t, 0.3, None)
    assert mask.dtype == tl.bool and not mask.requires_grad
    np.testing.assert_allclose(out.detach().numpy(), np.where(mask.numpy(), x / 0.7, 0),
                               rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.where(mask.numpy(), 1 / 0.7, 0), rtol=1e-6)
    assert 0.5 < mask.float().mean().item() < 0.9
    zero = parity(lambda m: m.native_dropout(m.tensor(x), 1.0, True))
    assert not zero[1].any() and not zero[0].any()
    assert parity(lambda m: m.native_dropout(m.tensor(x), 0.0, True))[1].all()
    same_error(lambda m: m.native_dropout(m.tensor(x), 1.5, True), RuntimeError,
               "bernoulli_ expects p to be in [0, 1], but got p=-0.5")
    same_error(lambda m: m.native_dropout(m.ones(3, dtype=m.int64), 0.5, True), RuntimeError,
               "result type Float can't be cast to the desired output type Long")


def test_native_norm_is_sparse_only():
    same_error(lambda m: m.native_norm(m.ones(3)), NotImplementedError,
               "Could not run 'aten::native_norm' with arguments from the 'CPU' backend",
               exact=False)
    same_error(lambda m: m.native_norm(m.ones(3), 2, [0], False, None), NotImplementedError,
               exact=False)


@pytest.mark.parametrize("pow_,dim", [(2, 0), (2, 1), (3, 2), (2, -1), (1, 1)])
def test_norm_except_dim(pow_, dim):
    x = arr(2, 3, 4)
    def run(m):
        out, names, grads = with_grads(m, lambda v: m.norm_except_dim(v, pow_, dim), x)
        # dim=-1 is ``v.norm(pow)``, whose node torchlike names LinalgVectorNormBackward0
        return out, (names if dim != -1 else None), grads
    out, names, grads = parity(run, rtol=1e-4, atol=1e-5)
    expected = [1, 1, 1]
    if dim != -1:
        expected[dim] = (2, 3, 4)[dim]
        assert tuple(out.shape) == tuple(expected)
    else:
        assert out.dim() == 0


# ------------------------------------------------------------------ convolution, conv_tbc
def test_convolution_and_conv_tbc_errors():
    x, w = (lambda m: m.tensor(arr(2, 4, 7))), (lambda m: m.tensor(arr(3, 4, 3)))
    same_error(lambda m: m.convolution(x(m), w(m), None, 1, [0], [1], False, [0], 1),
               TypeError, "convolution(): argument 'stride' (position 4) must be tuple of ints")
    same_error(lambda m: m.convolution(x(m)[0], w(m), None, [1], [0], [1], False, [0], 1),
               RuntimeError, "Expected 3-dimensional input for 3-dimensional weight")
    same_error(lambda m: m.convolution(x(m), w(m), None, [1], [0], [1], False, [0], 2),
               RuntimeError, exact=False)
    same_error(lambda m: m.convolution(x(m), w(m), None, [1], "same", [1], False, [0], 1),
               TypeError)
    t, k, b = (lambda m: m.tensor(arr(7, 2, 4))), (lambda m: m.tensor(arr(3, 4, 5))), \
        (lambda m: m.tensor(arr(5)))
    same_error(lambda m: m.conv_tbc(t(m), k(m), None), TypeError,
               "conv_tbc(): argument 'bias' (position 3) must be Tensor, not NoneType")
    same_error(lambda m: m.conv_tbc(x(m)[0], k(m), b(m)), RuntimeError,
               "Input must have 3 dims: time, batch, in_channel")
    same_error(lambda m: m.conv_tbc(t(m), k(m)[:, :3], b(m)), RuntimeError,
               "Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    same_error(lambda m: m.conv_tbc(t(m), k(m), b(m)[:2]), RuntimeError,
               "Bias size must equal dim 2 in the weight tensor (output channels).")
    same_error(lambda m: m.conv_tbc(t(m)[:1], k(m), b(m)), RuntimeError,
               "Trying to create tensor with negative dimension -1: [-1, 2, 5]")


# ------------------------------------------------------------------------------ RNN cells
H, I = 5, 4


@pytest.mark.parametrize("cell,chunks", [("rnn_tanh_cell", 1), ("rnn_relu_cell", 1),
                                         ("lstm_cell", 4), ("gru_cell", 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cells(cell, chunks, bias):
    arrays = [arr(3, I), arr(3, H), arr(chunks * H, I), arr(chunks * H, H)]
    if bias:
        arrays += [arr(chunks * H), arr(chunks * H)]

    def f(m):
        def call(x, h, *ws):
            hx = (h, h * 0.5) if cell == "lstm_cell" else h
            return getattr(m, cell)(x, hx, *ws)
        out, names, grads = with_grads(m, call, *arrays)
        # nn's LSTM kernel is one node (LstmCellBackward0); PyTorch's CPU cell ends in
        # MulBackward0 and AddBackward0
        return out, (names if cell != "lstm_cell" else None), grads
    out, names, grads = parity(f, rtol=1e-4, atol=1e-5)
    assert len(grads) == len(arrays)
    if cell == "lstm_cell":
        assert isinstance(out, tuple) and len(out) == 2


# ------------------------------------------------------------------------- nonzero_static
def test_nonzero_static_errors_and_compiled():
    x = np.array([[0, 1, 0], [2, 0, 3]], np.int64)
    same_error(lambda m: m.nonzero_static(m.tensor(x), size=-1), RuntimeError,
               "nonzero_static: 'size' must be an non-negative integer")
    same_error(lambda m: m.nonzero_static(m.tensor(x), size=2.0), TypeError,
               "nonzero_static(): argument 'size' must be int, not float")
    same_error(lambda m: m.nonzero_static(m.tensor(x), size=2, fill_value=1.5), TypeError,
               "nonzero_static(): argument 'fill_value' must be int, not float")
    same_error(lambda m: m.tensor(x).nonzero_static(4), TypeError, exact=False)
    f = tl.compile(lambda t: tl.nonzero_static(t, size=4) * 2)
    assert f(tl.tensor(x)).tolist() == [[0, 2], [2, 0], [2, 4], [-2, -2]]


# ----------------------------------------------------------------------- unsafe splits
@pytest.mark.parametrize("name,args", [
    ("unsafe_split", (3,)), ("unsafe_split", (2, 1)), ("unsafe_split_with_sizes", ([1, 3],)),
    ("unsafe_split_with_sizes", ([2, 0, 1], 1)), ("unsafe_chunk", (2,)),
    ("unsafe_chunk", (3, -1))])
@pytest.mark.parametrize("as_method", [False, True])
def test_unsafe_splits(name, args, as_method):
    x = arr(4, 3)

    def run(m):
        def f(t):
            return getattr(t, name)(*args) if as_method else getattr(m, name)(t, *args)
        pieces, names, grads = with_grads(m, f, x)
        return pieces, names, grads, [p._base is None for p in pieces]
    pieces, names, grads, not_views = parity(run)
    assert all(not_views)
    assert set(names) == {"UnsafeSplitWithSizesBackward0" if "sizes" in name
                          else "UnsafeSplitBackward0"}


def test_unsafe_pieces_share_memory_but_not_the_version():
    def run(m):
        t = m.arange(6.0)
        pieces = t.unsafe_chunk(2)
        pieces[0][0] = 100.0
        pieces[1].add_(1)
        return t, t._version, pieces[0]._version, pieces[1]._version, \
            pieces[1].data_ptr() - t.data_ptr()
    t, *versions = parity(run)
    assert t.tolist() == [100.0, 1.0, 2.0, 4.0, 5.0, 6.0] and versions == [0, 1, 1, 12]


def test_unsafe_split_errors():
    same_error(lambda m: m.unsafe_split(m.ones(4), [1, 3]), TypeError,
               "unsafe_split(): argument 'split_size' (position 2) must be int, not list")
    same_error(lambda m: m.unsafe_split_with_sizes(m.ones(4), [1, 2]), RuntimeError,
               "split_with_sizes expects split_sizes to sum exactly to 4")
    same_error(lambda m: m.unsafe_chunk(m.ones(4), 0), RuntimeError,
               "chunk expects `chunks` to be greater than 0, got: 0")


@pytest.mark.parametrize("name", ["e", "pi", "inf", "nan", "newaxis"])
def test_numeric_constants(name):
    """``torch.e``/``pi``/``inf``/``nan`` are Python floats and ``torch.newaxis`` is None,
    so they mix with tensors as numbers do and index as None does."""
    import math
    want = None if name == "newaxis" else getattr(math, name)
    got = getattr(tl, name)
    assert type(got) is type(want)
    assert got == want or (got != got and want != want)
    if HAVE_TORCH:
        t = getattr(torch, name)
        assert type(t) is type(got) and (t == got or (t != t and got != got))
    x = tl.ones(2, 3)
    if name == "newaxis":
        assert x[tl.newaxis].shape == (1, 2, 3)
    else:
        assert (x * got).dtype == tl.float32
