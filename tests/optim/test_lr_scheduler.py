"""Schedulers attached to an optimizer: the learning rates (and cycled momenta) of each step
and the parameters after 100 steps match torch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike

from .._parity import HAVE_TORCH, torch
from ._harness import assert_params_close, assert_untouched_without_grad, make_pair, train_step


def _sched(lib, name, opt):
    S = lib.optim.lr_scheduler
    return {
        "LambdaLR": lambda: S.LambdaLR(opt, lambda e: 0.95 ** e),
        "LambdaLR-list": lambda: S.LambdaLR(opt, [lambda e: 0.95 ** e, lambda e: 1 / (1 + e)]),
        "MultiplicativeLR": lambda: S.MultiplicativeLR(opt, lambda e: 0.97),
        "StepLR": lambda: S.StepLR(opt, step_size=10, gamma=0.5),
        "MultiStepLR": lambda: S.MultiStepLR(opt, milestones=[10, 30, 30, 60], gamma=0.3),
        "ConstantLR": lambda: S.ConstantLR(opt, factor=0.5, total_iters=20),
        "LinearLR": lambda: S.LinearLR(opt, start_factor=0.2, end_factor=0.9, total_iters=30),
        "ExponentialLR": lambda: S.ExponentialLR(opt, gamma=0.97),
        "PolynomialLR": lambda: S.PolynomialLR(opt, total_iters=50, power=2.0),
        "CosineAnnealingLR": lambda: S.CosineAnnealingLR(opt, T_max=30, eta_min=1e-3),
        "CosineAnnealingWarmRestarts": lambda: S.CosineAnnealingWarmRestarts(
            opt, T_0=10, T_mult=2, eta_min=1e-3),
        "CyclicLR-triangular": lambda: S.CyclicLR(opt, 0.01, 0.1, step_size_up=10),
        "CyclicLR-triangular2": lambda: S.CyclicLR(opt, 0.01, 0.1, step_size_up=7,
                                                   step_size_down=13, mode="triangular2"),
        "CyclicLR-exp_range": lambda: S.CyclicLR(opt, [0.01, 0.02], 0.1, step_size_up=10,
                                                 mode="exp_range", gamma=0.98,
                                                 cycle_momentum=False),
        "OneCycleLR": lambda: S.OneCycleLR(opt, max_lr=0.1, total_steps=100),
        "OneCycleLR-linear-3phase": lambda: S.OneCycleLR(
            opt, max_lr=[0.1, 0.2], epochs=10, steps_per_epoch=10, anneal_strategy="linear",
            three_phase=True, pct_start=0.25),
        "SequentialLR": lambda: S.SequentialLR(
            opt, [S.LinearLR(opt, start_factor=0.1, total_iters=20),
                  S.ExponentialLR(opt, gamma=0.95)], milestones=[20]),
        "ChainedScheduler": lambda: S.ChainedScheduler(
            [S.ConstantLR(opt, factor=0.5, total_iters=15), S.ExponentialLR(opt, gamma=0.98)]),
    }[name]()


NAMES = ["LambdaLR", "LambdaLR-list", "MultiplicativeLR", "StepLR", "MultiStepLR",
         "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR",
         "CosineAnnealingWarmRestarts", "CyclicLR-triangular", "CyclicLR-triangular2",
         "CyclicLR-exp_range", "OneCycleLR", "OneCycleLR-linear-3phase", "SequentialLR",
         "ChainedScheduler"]


def _optimizers(lib, model, opt_name):
    base = [model.params["w1"], model.params["b1"]]
    rest = [model.params["w2"], model.params["b2"], model.params["unused"]]
    groups = [{"params": base}, {"params": rest, "lr": 0.05}]
    if opt_name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return lib.optim.Adam(groups, lr=0.01)


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("name", NAMES)
def test_scheduler_matches_torch(name, opt_name):
    tl, th = make_pair()
    o_tl = _optimizers(torchlike, tl, opt_name)
    s_tl = _sched(torchlike, name, o_tl)
    o_th = _optimizers(torch, th, opt_name) if HAVE_TORCH else None
    s_th = _sched(torch, name, o_th) if HAVE_TORCH else None
    if HAVE_TORCH:
        assert s_tl.get_last_lr() == s_th.get_last_lr()
    for i in range(100):
        train_step(tl, o_tl, s_tl)
        train_step(th, o_th, s_th)
        lrs = s_tl.get_last_lr()
        assert len(lrs) == 2 and all(np.isfinite(lrs)), i
        assert lrs == [g["lr"] for g in o_tl.param_groups]
        if HAVE_TORCH:
            np.testing.assert_allclose(lrs, s_th.get_last_lr(), rtol=1e-15,
                                       err_msg=f"step {i}")
            for g_tl, g_th in zip(o_tl.param_groups, o_th.param_groups):
                for key in ("momentum", "betas"):
                    if key in g_th:
                        np.testing.assert_allclose(g_tl[key], g_th[key], rtol=1e-15)
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th, msg=name)


@pytest.mark.parametrize("kw", [
    dict(),
    dict(mode="min", factor=0.5, patience=2, threshold=0.05, cooldown=2, min_lr=1e-3),
    dict(mode="min", factor=0.5, patience=1, threshold=1e-3, threshold_mode="abs",
         min_lr=[1e-3, 2e-3], eps=1e-4),
    dict(mode="max", factor=0.7, patience=3),
    dict(mode="max", factor=0.7, patience=0, threshold=0.01, threshold_mode="abs"),
])
def test_reduce_lr_on_plateau_matches_torch(kw):
    tl, th = make_pair()
    o_tl = _optimizers(torchlike, tl, "SGD")
    s_tl = torchlike.optim.lr_scheduler.ReduceLROnPlateau(o_tl, **kw)
    if HAVE_TORCH:
        o_th = _optimizers(torch, th, "SGD")
        s_th = torch.optim.lr_scheduler.ReduceLROnPlateau(o_th, **kw)
    prev = s_tl.get_last_lr()
    for i in range(100):
        l_tl = train_step(tl, o_tl)
        s_tl.step(l_tl)
        lrs = s_tl.get_last_lr()   # only ever reduced, by ``factor`` at most, to ``min_lr``
        assert all(new <= old for new, old in zip(lrs, prev)), i
        assert all(new >= old * kw.get("factor", 0.1) * (1 - 1e-12)
                   for new, old in zip(lrs, prev)), i
        prev = lrs
        if HAVE_TORCH:
            l_th = train_step(th, o_th)
            s_th.step(l_th)
            assert s_tl.get_last_lr() == pytest.approx(s_th.get_last_lr(), rel=1e-12), i
            assert s_tl.num_bad_epochs == s_th.num_bad_epochs
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th)


def test_attributes_and_closed_form():
    tl, th = make_pair()
    o_tl = _optimizers(torchlike, tl, "SGD")
    s_tl = torchlike.optim.lr_scheduler.StepLR(o_tl, step_size=3, gamma=0.5)
    pairs = [(s_tl, o_tl)]
    if HAVE_TORCH:
        o_th = _optimizers(torch, th, "SGD")
        s_th = torch.optim.lr_scheduler.StepLR(o_th, step_size=3, gamma=0.5)
        pairs.append((s_th, o_th))
        assert s_tl.base_lrs == s_th.base_lrs
        assert s_tl.last_epoch == s_th.last_epoch
        assert s_tl._step_count == s_th._step_count
    assert s_tl.base_lrs == [0.1, 0.05]
    assert s_tl.last_epoch == 0
    assert s_tl._step_count == 1
    for sched, opt in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.step()
            sched.step(7)  # the deprecated epoch argument selects the closed form
    # the closed form: lr * gamma ** (7 // 3)
    assert s_tl.get_last_lr() == pytest.approx([0.1 * 0.25, 0.05 * 0.25], rel=1e-15)
    assert {"step_size", "gamma", "base_lrs", "last_epoch"} <= set(s_tl.state_dict())
    if HAVE_TORCH:
        assert s_tl.get_last_lr() == s_th.get_last_lr()
        assert set(s_tl.state_dict()) == set(s_th.state_dict())


def test_warns_when_stepped_before_optimizer():
    tl, _ = make_pair()
    opt = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    sched = torchlike.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        sched.step()
    # In the right order there is no warning.
    opt2 = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    sched2 = torchlike.optim.lr_scheduler.StepLR(opt2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train_step(tl, opt2, sched2)


def test_scheduler_state_dict_resume():
    tl, th = make_pair()
    o_tl = torchlike.optim.SGD(tl.param_list(), lr=0.1, momentum=0.9)
    s_tl = torchlike.optim.lr_scheduler.CosineAnnealingLR(o_tl, T_max=20)
    o_th = torch.optim.SGD(th.param_list(), lr=0.1, momentum=0.9) if HAVE_TORCH else None
    s_th = torch.optim.lr_scheduler.CosineAnnealingLR(o_th, T_max=20) if HAVE_TORCH else None
    for _ in range(7):
        train_step(tl, o_tl, s_tl)
        train_step(th, o_th, s_th)
    sd = s_tl.state_dict()
    if HAVE_TORCH:
        assert set(sd) == set(s_th.state_dict())
    o2 = torchlike.optim.SGD(tl.param_list(), lr=0.1, momentum=0.9)
    o2.load_state_dict(o_tl.state_dict())
    s2 = torchlike.optim.lr_scheduler.CosineAnnealingLR(o2, T_max=20)
    s2.load_state_dict(sd)
    for epoch in range(8, 18):
        train_step(tl, o2, s2)
        train_step(th, o_th, s_th)
        # the resumed schedule goes on from epoch 7: 0.1 * (1 + cos(pi * epoch / 20)) / 2
        assert s2.get_last_lr() == pytest.approx([0.05 * (1 + np.cos(np.pi * epoch / 20))],
                                                 rel=1e-12)
        if HAVE_TORCH:
            assert s2.get_last_lr() == pytest.approx(s_th.get_last_lr(), rel=1e-15)
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th)


def test_scheduler_errors():
    tl, _ = make_pair()
    opt = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    S = torchlike.optim.lr_scheduler
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.StepLR([], 2)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified"):
        S.StepLR(torchlike.optim.SGD(tl.param_list(), lr=0.1), 2, last_epoch=3)
    adagrad = torchlike.optim.Adagrad(tl.param_list())
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(adagrad, max_lr=0.1, total_steps=10)
