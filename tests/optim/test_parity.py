"""Each optimizer and option combination: 100 steps in torchlike and torch from the same
numbers give the same parameters (float32, within 1e-5 relative)."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike

from .._parity import HAVE_TORCH, torch
from ._harness import assert_params_close, assert_untouched_without_grad, make_pair, train_step

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)),
    ("Adam", dict(lr=1e-2, amsgrad=True)),
    ("Adam", dict(lr=1e-2, maximize=True, amsgrad=True, weight_decay=0.01)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1, amsgrad=True)),
    ("Adamax", dict(lr=1e-2)),
    ("Adamax", dict(lr=1e-2, weight_decay=0.05, maximize=True)),
    ("NAdam", dict(lr=1e-2)),
    ("NAdam", dict(lr=1e-2, momentum_decay=1e-2, weight_decay=0.05)),
    ("NAdam", dict(lr=1e-2, weight_decay=0.05, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=1e-2)),
    ("RAdam", dict(lr=1e-2, weight_decay=0.05)),
    ("RAdam", dict(lr=1e-2, weight_decay=0.05, decoupled_weight_decay=True, maximize=True)),
    ("RMSprop", dict(lr=1e-3)),
    ("RMSprop", dict(lr=1e-3, alpha=0.9, eps=1e-6, centered=True)),
    ("RMSprop", dict(lr=1e-3, momentum=0.9, weight_decay=0.01)),
    ("RMSprop", dict(lr=1e-3, momentum=0.5, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.05)),
    ("Adagrad", dict(lr=0.05, lr_decay=0.01, initial_accumulator_value=0.1,
                     weight_decay=0.01)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.01, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=1e-3, alpha=0.6, t0=20, weight_decay=0.01)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict(eps=(1e-3, 1e-2), d=1.5, beta2_decay=-0.7, foreach=True)),
    # Rprop runs in float64: its step depends only on gradient signs, and where a gradient
    # component is ~0 (a saturated tanh) a last-bit difference in the forward/backward pass
    # (not in the optimizer) flips a sign and the float32 trajectories part for good.
    ("Rprop", dict(lr=0.01), np.float64),
    ("Rprop", dict(lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 0.05), maximize=True),
     np.float64),
]


def _ids(case):
    name, kw = case[:2]
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


def run_pair(name, kw, steps=100, dtype=np.float32, seed=0):
    tl, th = make_pair(seed, dtype)
    o_tl = getattr(torchlike.optim, name)(tl.param_list(), **kw)
    o_th = getattr(torch.optim, name)(th.param_list(), **kw) if HAVE_TORCH else None
    for _ in range(steps):
        train_step(tl, o_tl)
        train_step(th, o_th)
    return tl, th, o_tl, o_th


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_100_steps_match_torch(case):
    name, kw = case[:2]
    dtype = case[2] if len(case) > 2 else np.float32
    tl, th, o_tl, o_th = run_pair(name, kw, dtype=dtype)
    assert_untouched_without_grad(tl)
    # frozen/unused parameters without state, except Adagrad's, made for every one up
    # front; SGD without momentum keeps none
    want = ([0, 1, 2, 3, 4] if name == "Adagrad" else
            [] if name == "SGD" and not kw.get("momentum") else [0, 1, 3])
    assert sorted(o_tl.state_dict()["state"]) == want
    if not HAVE_TORCH:
        return
    assert_params_close(tl, th, msg=_ids(case))
    # Same state layout: keys per parameter, frozen/unused parameters without state
    # (except Adagrad, which creates state for every parameter up front, as PyTorch does).
    sd_tl, sd_th = o_tl.state_dict(), o_th.state_dict()
    assert sorted(sd_tl["state"]) == sorted(sd_th["state"])
    for k in sd_th["state"]:
        assert list(sd_tl["state"][k]) == list(sd_th["state"][k])
        for key, v in sd_th["state"][k].items():
            if isinstance(v, torch.Tensor):
                w = sd_tl["state"][k][key]
                assert str(w.dtype).split(".")[1] == str(v.dtype).split(".")[1], key
                np.testing.assert_allclose(np.asarray(w), v.numpy(), rtol=1e-4, atol=1e-6)
    assert sd_tl["param_groups"] == sd_th["param_groups"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_float64_parameters(name):
    kw = {"SGD": dict(lr=0.1, momentum=0.9), "Adam": dict(lr=1e-2),
          "RMSprop": dict(lr=1e-3, centered=True)}[name]
    tl, th, _, _ = run_pair(name, kw, steps=50, dtype=np.float64)
    assert tl.params["w1"].dtype is torchlike.float64
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th, rtol=1e-10, atol=1e-12)
