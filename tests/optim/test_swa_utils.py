"""torchlike.optim.swa_utils against torch.optim.swa_utils: AveragedModel with each kind of
averaging function (values against PyTorch's and against a NumPy reference), its
state_dict, SWALR's learning rates and state, update_bn, the errors, and a compiled
training step that averages the model and anneals the learning rate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike
from torchlike.optim import swa_utils

from .._parity import HAVE_TORCH, torch

STEPS = 5


def _build(lib, vals=None):
    """A small model with a BatchNorm (parameters and buffers of two dtypes); with ``vals``
    (a state_dict as NumPy arrays) it takes those values."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
    if vals is not None:
        model.load_state_dict({k: lib.tensor(v) for k, v in vals.items()})
    return model


def _numpy_state(module) -> dict[str, np.ndarray]:
    return {k: np.array(v.detach().numpy()) for k, v in module.state_dict().items()}


def _batches(n=STEPS, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((8, 4)).astype(np.float32),
             rng.standard_normal((8, 2)).astype(np.float32)) for _ in range(n)]


def _avg_kwargs(lib, kind):
    su = lib.optim.swa_utils
    return {
        "swa": dict(),
        "swa-buffers": dict(use_buffers=True),
        "swa-multi": dict(multi_avg_fn=su.get_swa_multi_avg_fn()),
        "ema-multi-buffers": dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.8),
                                  use_buffers=True),
        "ema-avg": dict(avg_fn=su.get_ema_avg_fn(0.8)),
        "custom-avg": dict(avg_fn=lambda a, m, n: 0.25 * a + 0.75 * m),
    }[kind]


def _train(lib, kind, vals):
    """SGD steps on ``model``, ``update_parameters`` after each; returns the averaged model
    and the model's state (NumPy) after each step."""
    model = _build(lib, vals)
    swa = lib.optim.swa_utils.AveragedModel(model, **_avg_kwargs(lib, kind))
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    history = []
    for x, y in _batches():
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(lib.tensor(x)), lib.tensor(y))
        loss.backward()
        opt.step()
        swa.update_parameters(model)
        history.append(_numpy_state(model))
    return swa, history


def _reference(kind, history, key, is_buffer):
    """What the averaged copy holds for ``key`` after every update, in NumPy."""
    uses_buffers = "buffers" in kind
    if is_buffer and not uses_buffers:
        return history[-1][key]
    avg = history[0][key]
    for n, h in enumerate(history[1:], start=1):
        v = h[key]
        if kind.startswith("swa"):
            new = avg + (v - avg) / (n + 1)
        elif kind.startswith("ema"):
            new = avg * 0.8 + v * (1 - 0.8)
        else:
            new = 0.25 * avg + 0.75 * v
        avg = new.astype(avg.dtype)   # integer buffers truncate, as copy_ does
    return avg


KINDS = ["swa", "swa-buffers", "swa-multi", "ema-multi-buffers", "ema-avg", "custom-avg"]


@pytest.mark.parametrize("kind", KINDS)
def test_averaged_model_matches_torch(kind):
    vals = _numpy_state(_build(torchlike))
    swa, history = _train(torchlike, kind, vals)
    got = _numpy_state(swa)
    assert list(got) == ["n_averaged"] + ["module." + k for k in vals]
    assert got["n_averaged"].dtype == np.int64 and got["n_averaged"] == STEPS
    buffers = {"module." + n for n, _ in swa.module.named_buffers()}
    for key in vals:
        want = _reference(kind, history, key, "module." + key in buffers)
        np.testing.assert_allclose(got["module." + key], want, rtol=1e-5, atol=1e-6,
                                   err_msg=key)
    if not HAVE_TORCH:
        return
    ref, _ = _train(torch, kind, vals)
    want = _numpy_state(ref)
    assert list(got) == list(want)
    for key in want:
        assert got[key].dtype == want[key].dtype, key
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_default_average_on_foreach_devices_is_the_multi_tensor_one(monkeypatch):
    # PyTorch averages with get_swa_multi_avg_fn (lerp) on cuda and get_swa_avg_fn on CPU;
    # declaring CPU a foreach device must give exactly the multi-tensor function's values
    vals = _numpy_state(_build(torchlike))
    multi = _numpy_state(_train(torchlike, "swa-multi", vals)[0])
    monkeypatch.setattr(swa_utils, "_FOREACH_DEVICE_TYPES", ("cpu",))
    default = _numpy_state(_train(torchlike, "swa", vals)[0])
    for k in multi:
        np.testing.assert_array_equal(default[k], multi[k], err_msg=k)


def test_forward_state_dict_and_loading():
    vals = _numpy_state(_build(torchlike))
    swa, _ = _train(torchlike, "swa", vals)
    swa.eval()
    x = torchlike.tensor(_batches(1, seed=3)[0][0])
    np.testing.assert_array_equal(swa(x).detach().numpy(), swa.module(x).detach().numpy())
    # a fresh AveragedModel restores the average and the count from the state_dict
    fresh = swa_utils.AveragedModel(_build(torchlike))
    fresh.load_state_dict(swa.state_dict())
    assert int(fresh.n_averaged) == STEPS
    fresh.eval()
    np.testing.assert_array_equal(fresh(x).detach().numpy(), swa(x).detach().numpy())
    assert "module" in repr(swa).splitlines()[1]
    if not HAVE_TORCH:
        return
    ref, _ = _train(torch, "swa", vals)
    assert repr(swa) == repr(ref)
    # torch's checkpoint loads into torchlike's AveragedModel and gives torch's outputs
    fresh.load_state_dict({k: torchlike.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    ref.eval()
    np.testing.assert_allclose(fresh(x).detach().numpy(),
                               ref(torch.tensor(x.numpy())).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_copy_is_independent_and_device_argument():
    model = _build(torchlike)
    swa = swa_utils.AveragedModel(model, device="cpu")
    assert swa.module is not model and swa.module[0].weight is not model[0].weight
    assert swa.n_averaged.device.type == "cpu" and swa.n_averaged.dtype is torchlike.int64
    with torchlike.no_grad():
        model[0].weight.add_(1.0)
    assert not torchlike.equal(swa.module[0].weight, model[0].weight)
    swa.update_parameters(model)   # the first update copies
    assert torchlike.equal(swa.module[0].weight, model[0].weight)
    # gradients never flow into the average
    assert swa.module[0].weight.grad is None and swa.module[0].weight.grad_fn is None


def test_averaging_functions_directly():
    a = [torchlike.tensor([0.0, 4.0]), torchlike.tensor([1, 3])]
    m = [torchlike.tensor([2.0, 0.0]), torchlike.tensor([5, 5])]
    swa_utils.get_swa_multi_avg_fn()(a[:1], m[:1], 1)
    np.testing.assert_allclose(a[0].numpy(), [1.0, 2.0])
    swa_utils.get_ema_multi_avg_fn(0.5)(a[:1], m[:1], 7)
    np.testing.assert_allclose(a[0].numpy(), [1.5, 1.0])
    swa_utils.get_ema_multi_avg_fn(0.5)(a[1:], m[1:], 7)   # integers: truncated, as torch
    np.testing.assert_array_equal(a[1].numpy(), [3, 4])
    # PyTorch's integer SWA branch fails in both of its forms (add_ with a float alpha,
    # addcdiv_ of integers); so does torchlike's
    with pytest.raises(RuntimeError, match="^For integral input tensors, argument alpha must "
                                           "not be a floating point number.$"):
        swa_utils.get_swa_multi_avg_fn()(a[1:], m[1:], 1)
    with pytest.raises(RuntimeError, match="^Integer division with addcdiv is no longer "
                                           "supported"):
        swa_utils.get_swa_multi_avg_fn()(a[1:], m[1:], torchlike.tensor(1))
    out = swa_utils.get_swa_avg_fn()(torchlike.tensor([1.0]), torchlike.tensor([4.0]),
                                     torchlike.tensor(2))
    np.testing.assert_allclose(out.numpy(), [2.0])
    out = swa_utils.get_ema_avg_fn(0.25)(torchlike.tensor([1.0]), torchlike.tensor([5.0]), 0)
    np.testing.assert_allclose(out.numpy(), [4.0])


def _raised(fn):
    try:
        fn()
    except Exception as e:   # the type and the message are what is compared
        return type(e).__name__, str(e)
    return None


def _error_cases(lib):
    su = lib.optim.swa_utils
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
    return {
        "both-fns": lambda: su.AveragedModel(lib.nn.Linear(1, 1), avg_fn=su.get_swa_avg_fn(),
                                             multi_avg_fn=su.get_swa_multi_avg_fn()),
        "ema-decay": lambda: su.get_ema_avg_fn(1.5),
        "ema-multi-decay": lambda: su.get_ema_multi_avg_fn(-0.1),
        "swa-lr-length": lambda: su.SWALR(opt, swa_lr=[0.1, 0.2]),
        "strategy": lambda: su.SWALR(opt, swa_lr=0.1, anneal_strategy="exp"),
        "epochs-negative": lambda: su.SWALR(opt, swa_lr=0.1, anneal_epochs=-1),
        "epochs-float": lambda: su.SWALR(opt, swa_lr=0.1, anneal_epochs=2.0),
        "not-an-optimizer": lambda: su.SWALR(None, swa_lr=0.1),
    }


ERRORS = {
    "both-fns": ("AssertionError", "Only one of avg_fn and multi_avg_fn should be provided"),
    "ema-decay": ("ValueError", "Invalid decay value 1.5 provided. Please provide a value in "
                                "[0,1] range."),
    "ema-multi-decay": ("ValueError", "Invalid decay value -0.1 provided. Please provide a "
                                      "value in [0,1] range."),
    "swa-lr-length": ("ValueError", "swa_lr must have the same length as "
                                    "optimizer.param_groups. swa_lr has 2 values, "
                                    "param_groups has 1."),
    "strategy": ("ValueError", "anneal_strategy must be one of 'cos' or 'linear', instead "
                               "got exp"),
    "epochs-negative": ("ValueError", "anneal_epochs must be equal or greater than 0, got -1"),
    "epochs-float": ("ValueError", "anneal_epochs must be equal or greater than 0, got 2.0"),
    "not-an-optimizer": ("AttributeError", "'NoneType' object has no attribute "
                                           "'param_groups'"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    assert _raised(_error_cases(torchlike)[case]) == ERRORS[case]
    if HAVE_TORCH:
        assert _raised(_error_cases(torch)[case]) == ERRORS[case]


SCHEDULES = [
    dict(swa_lr=0.05),
    dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
    dict(swa_lr=[0.01, 0.2], anneal_epochs=4),
    dict(swa_lr=0.5, anneal_epochs=0, anneal_strategy="linear"),
    dict(swa_lr=0.02, anneal_epochs=1),
]


def _lr_run(lib, kw, warmup=0, steps=14):
    """The learning rates of two groups over ``steps`` SWALR steps, after ``warmup`` steps
    of a CosineAnnealingLR (the usual hand-over); then the scheduler's state."""
    if lib is None:
        return None, None
    p = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))]
    opt = lib.optim.SGD([{"params": p[:1]}, {"params": p[1:], "lr": 0.3}], lr=0.1)
    opt.step()   # no gradients: nothing moves, and the scheduler sees a stepped optimizer
    if warmup:
        cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        for _ in range(warmup):
            opt.step()
            cos.step()
    sched = lib.optim.swa_utils.SWALR(opt, **kw)
    lrs = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs, sched


@pytest.mark.parametrize("warmup", [0, 4])
@pytest.mark.parametrize("kw", SCHEDULES, ids=[str(k) for k in SCHEDULES])
def test_swalr_learning_rates_match_torch(kw, warmup):
    lrs, sched = _lr_run(torchlike, kw, warmup)
    swa_lrs = kw["swa_lr"] if isinstance(kw["swa_lr"], list) else [kw["swa_lr"]] * 2
    np.testing.assert_allclose(lrs[-1], swa_lrs, rtol=1e-12)   # annealed, then held
    assert [g["swa_lr"] for g in sched.optimizer.param_groups] == swa_lrs
    epochs = kw.get("anneal_epochs", 10)
    if kw.get("anneal_strategy") == "linear" and epochs and not warmup:
        # from lr to swa_lr in equal steps: lr_t = lr_0 + (swa_lr - lr_0) * t / epochs
        want = [[lr0 + (s - lr0) * min(t, epochs) / epochs for lr0, s in zip((0.1, 0.3),
                                                                            swa_lrs)]
                for t in range(len(lrs))]
        np.testing.assert_allclose(lrs, want, rtol=1e-12)
    if HAVE_TORCH:
        want, ref = _lr_run(torch, kw, warmup)
        assert lrs == want   # the same recurrence in Python floats: equal to the last bit
        assert sched.state_dict() == ref.state_dict()


def test_swalr_state_dict_round_trip_and_warning():
    lrs, sched = _lr_run(torchlike, dict(swa_lr=0.05, anneal_strategy="linear"), steps=3)
    sd = sched.state_dict()
    assert "optimizer" not in sd and "anneal_func" not in sd
    assert sd["_anneal_strategy"] == "linear" and sd["anneal_epochs"] == 10
    _, other = _lr_run(torchlike, dict(swa_lr=0.05), steps=0)
    other.load_state_dict(sd)
    assert other.anneal_func(0.5) == 0.5   # linear again, not the cosine it was built with
    assert other.last_epoch == 3 and other.get_last_lr() == lrs[-1]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sched.get_lr()
    assert str(w[0].message) == ("To get the last learning rate computed by the scheduler, "
                                 "please use `get_last_lr()`.")


def _bn_run(lib, vals, batches, device=None):
    if lib is None:
        return None
    model = _build(lib, vals)
    model.eval()
    bn = model[1]
    bn.momentum = 0.3
    loader = [(lib.tensor(x), lib.tensor(y)) for x, y in batches[:2]] + \
        [lib.tensor(x) for x, _ in batches[2:]]   # tuples and plain tensors
    lib.optim.swa_utils.update_bn(loader, model, device=device)
    assert not model.training and bn.momentum == 0.3
    return _numpy_state(model)


def test_update_bn_matches_torch():
    vals = _numpy_state(_build(torchlike))
    vals["1.running_mean"] += 5.0   # stale statistics, reset by update_bn
    batches = _batches(4, seed=1)
    got = _bn_run(torchlike, vals, batches, device="cpu")
    # the cumulative average of each batch's statistics (equal batch sizes)
    h = [np.asarray(torchlike.nn.functional.linear(
        torchlike.tensor(x), torchlike.tensor(vals["0.weight"]),
        torchlike.tensor(vals["0.bias"])).numpy()) for x, _ in batches]
    np.testing.assert_allclose(got["1.running_mean"], np.mean([a.mean(0) for a in h], 0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["1.running_var"], np.mean([a.var(0, ddof=1) for a in h], 0),
                               rtol=1e-5, atol=1e-6)
    assert got["1.num_batches_tracked"] == 4
    for k in ("0.weight", "0.bias", "1.weight", "1.bias", "3.weight"):
        np.testing.assert_array_equal(got[k], vals[k])
    if HAVE_TORCH:
        want = _bn_run(torch, vals, batches, device="cpu")
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_update_bn_without_batchnorm_is_a_no_op():
    model = torchlike.nn.Linear(4, 2)
    model.eval()
    called = []
    swa_utils.update_bn(iter(lambda: called.append(1), 0), model)   # loader never read
    assert not called and not model.training


def _compiled_case(kind):
    torchlike.manual_seed(0)
    nn = torchlike.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2))
    opt = torchlike.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    kw = (dict(multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
          if kind == "ema" else {})
    swa = swa_utils.AveragedModel(model, **kw)
    sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    x, y = torchlike.randn(8, 4), torchlike.randn(8, 2)

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        swa.update_parameters(model)
        sched.step()
        return loss
    return step, (x, y), swa, opt


@pytest.mark.parametrize("kind", ["swa", "ema"])
def test_compiled_step_with_averaging_matches_eager(kind):
    results = {}
    for mode in ("eager", "compiled"):
        step, data, swa, opt = _compiled_case(kind)
        fn = torchlike.compile(step) if mode == "compiled" else step
        losses = [float(fn(*data)) for _ in range(STEPS)]
        results[mode] = (losses, _numpy_state(swa), [g["lr"] for g in opt.param_groups])
        if mode == "compiled":
            # traced for the first call and once more when the optimizer state exists;
            # n_averaged is a traced buffer, so its first (copying) update is no retrace
            assert fn.stats.traces <= 2 and fn.stats.calls == STEPS
    (le, se, lre), (lc, sc, lrc) = results["eager"], results["compiled"]
    np.testing.assert_allclose(lc, le, rtol=1e-5, atol=1e-6)
    assert lrc == lre and sc["n_averaged"] == se["n_averaged"] == STEPS
    for k in se:
        np.testing.assert_allclose(sc[k], se[k], rtol=1e-5, atol=1e-6, err_msg=k)
