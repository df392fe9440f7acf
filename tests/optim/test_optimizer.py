"""The Optimizer data model against torch: param groups, state_dict layout and round trips
in both directions, lr changes, the seed notes' fine-tuning recipes, hooks, closures, repr,
zero_grad and error paths."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import torchlike

from .._parity import HAVE_TORCH, torch
from ._harness import (NAMES, assert_params_close, assert_untouched_without_grad, make_pair,
                       to_torch_state, to_torchlike_state, train_step)

# The other side of a checkpoint round trip: PyTorch, or where it is absent a second
# torchlike optimizer (torchlike resuming its own checkpoint).
OTHER = torch if HAVE_TORCH else torchlike


def _other_model():
    tl, th = make_pair()
    return th if HAVE_TORCH else tl

ROUND_TRIP = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=1e-2, amsgrad=True)),
    ("AdamW", dict(lr=1e-2)),
    ("Adamax", dict(lr=1e-2)),
    ("NAdam", dict(lr=1e-2)),
    ("RAdam", dict(lr=1e-2)),
    ("RMSprop", dict(lr=1e-3, momentum=0.9, centered=True)),
    ("Adagrad", dict(lr=0.05, lr_decay=0.01)),
    ("Adadelta", dict()),
    ("ASGD", dict(lr=0.05, t0=10)),
    ("Adafactor", dict(lr=0.05, weight_decay=0.01)),
]


def _opt(lib, name, params, kw):
    return getattr(lib.optim, name)(params, **kw)


def _copy_params(src, dst):
    """Write src model's parameter values into dst (other library)."""
    vals = src.numpy()
    for n in NAMES:
        p = dst.params[n]
        with dst.lib.no_grad():
            p.copy_(dst.lib.tensor(vals[n]))


@pytest.mark.parametrize("case", ROUND_TRIP, ids=[c[0] for c in ROUND_TRIP])
def test_state_dict_torchlike_to_torch_resumes(case):
    name, kw = case
    tl, th = make_pair()
    o_tl = _opt(torchlike, name, tl.param_list(), kw)
    o_ref = _opt(torch, name, th.param_list(), kw) if HAVE_TORCH else None
    for _ in range(40):
        train_step(tl, o_tl)
        train_step(th, o_ref)
    # A fresh torch optimizer resumes from torchlike's checkpoint.
    th2 = _other_model()
    _copy_params(tl, th2)
    o_th2 = _opt(OTHER, name, th2.param_list(), kw)
    o_th2.load_state_dict(to_torch_state(o_tl.state_dict()) if HAVE_TORCH
                          else o_tl.state_dict())
    for _ in range(40):
        train_step(tl, o_tl)
        train_step(th2, o_th2)
        train_step(th, o_ref)
    assert_params_close(tl, th2)
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th)


@pytest.mark.parametrize("case", ROUND_TRIP, ids=[c[0] for c in ROUND_TRIP])
def test_state_dict_torch_to_torchlike_resumes(case):
    name, kw = case
    tl, th = make_pair()[0], _other_model()
    o_th = _opt(OTHER, name, th.param_list(), kw)
    for _ in range(40):
        train_step(th, o_th)
    _copy_params(th, tl)
    o_tl = _opt(torchlike, name, tl.param_list(), kw)
    sd = to_torchlike_state(o_th.state_dict()) if HAVE_TORCH else o_th.state_dict()
    o_tl.load_state_dict(sd)
    for _k, st in o_tl.state_dict()["state"].items():
        if "step" in st:
            assert st["step"].dtype is torchlike.float32 and st["step"].dim() == 0
    for _ in range(40):
        train_step(tl, o_tl)
        train_step(th, o_th)
    assert_params_close(tl, th)


def test_state_dict_layout():
    tl, th = make_pair()
    groups = lambda m: [{"params": [m.params["w1"], m.params["b1"]]},  # noqa: E731
                        {"params": [m.params["w2"], m.params["b2"], m.params["unused"]],
                         "lr": 0.5, "weight_decay": 0.1}]
    o_tl = torchlike.optim.Adam(groups(tl), lr=0.01)
    train_step(tl, o_tl)
    sd_tl = o_tl.state_dict()
    if HAVE_TORCH:
        o_th = torch.optim.Adam(groups(th), lr=0.01)
        train_step(th, o_th)
        sd_th = o_th.state_dict()
        assert sd_tl["param_groups"] == sd_th["param_groups"]
        assert list(sd_tl["state"]) == list(sd_th["state"])
    assert sd_tl["param_groups"][1]["params"] == [2, 3, 4]
    assert sd_tl["param_groups"][1]["lr"] == 0.5 and sd_tl["param_groups"][0]["lr"] == 0.01
    assert list(sd_tl["state"]) == [0, 1, 3]
    assert list(sd_tl["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    step = sd_tl["state"][0]["step"]
    assert isinstance(step, torchlike.Tensor) and step.dtype is torchlike.float32
    assert step.shape == () and step.item() == 1.0
    # The optimizer's `state` is a defaultdict keyed by parameter.
    assert o_tl.state[tl.params["w1"]]["exp_avg"].shape == (4, 3)
    assert tl.params["w2"] not in o_tl.state and tl.params["unused"] not in o_tl.state


def test_load_state_dict_errors_and_copies():
    tl, _ = make_pair()
    o = torchlike.optim.SGD(tl.param_list(), lr=0.1, momentum=0.9)
    train_step(tl, o)
    sd = o.state_dict()
    o2 = torchlike.optim.SGD([tl.params["w1"]], lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group"):
        o2.load_state_dict(sd)
    o3 = torchlike.optim.SGD([{"params": [tl.params["w1"]]}, {"params": [tl.params["b1"]]}],
                             lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict has a different number of "
                                         "parameter groups"):
        o3.load_state_dict(sd)
    o4 = torchlike.optim.SGD(tl.param_list(), lr=0.3)
    o4.load_state_dict(sd)
    assert o4.param_groups[0]["lr"] == 0.1 and o4.param_groups[0]["momentum"] == 0.9
    assert o4.param_groups[0]["params"][0] is tl.params["w1"]


def test_lr_change_mid_run():
    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=1e-2)),
                     ("RMSprop", dict(lr=1e-3))]:
        tl, th = make_pair()
        o_tl = _opt(torchlike, name, tl.param_list(), kw)
        o_th = _opt(torch, name, th.param_list(), kw) if HAVE_TORCH else None
        opts = [o for o in (o_tl, o_th) if o is not None]
        for i in range(100):
            if i == 30:
                for o in opts:
                    o.param_groups[0]["lr"] *= 0.1
            if i == 60 and name == "Adam":
                for o in opts:
                    o.param_groups[0]["betas"] = (0.5, 0.9)
                    o.param_groups[0]["weight_decay"] = 0.1
            train_step(tl, o_tl)
            train_step(th, o_th)
        assert o_tl.param_groups[0]["lr"] == pytest.approx(kw["lr"] * 0.1)
        assert_untouched_without_grad(tl)
        if HAVE_TORCH:
            assert_params_close(tl, th, msg=name)


def test_seed_per_layer_learning_rates():
    # torch.optim.SGD([{'params': base_params}, {'params': net.conv5.parameters(),
    #                  'lr': lr * 100}], lr=lr, momentum=0.9)
    lr = 0.001
    tl, th = make_pair()
    opts = []
    for m, lib in ((tl, torchlike), (th, torch))[:2 if HAVE_TORCH else 1]:
        special = [m.params["b2"]]
        special_ids = list(map(id, special))
        base_params = filter(lambda p: id(p) not in special_ids, m.param_list())
        opts.append(lib.optim.SGD([{"params": base_params},
                                   {"params": iter(special), "lr": lr * 100}],
                                  lr=lr, momentum=0.9))
    assert opts[0].param_groups[1]["lr"] == pytest.approx(0.1)
    assert opts[0].param_groups[0]["momentum"] == 0.9
    assert len(opts[0].param_groups[0]["params"]) == 4
    for _ in range(100):
        train_step(tl, opts[0])
        train_step(th, opts[-1])
    assert_untouched_without_grad(tl)
    if HAVE_TORCH:
        assert_params_close(tl, th)


def test_seed_fine_tuning_freeze_and_zero_lr():
    tl, th = make_pair()
    w2_before = tl.params["w2"].detach().clone()
    w1_before = tl.params["w1"].detach().clone()
    opts = []
    for m, lib in ((tl, torchlike), (th, torch))[:2 if HAVE_TORCH else 1]:
        # requires_grad=False params filtered out; lr=0 for the "feature extractor".
        trainable = list(filter(lambda p: p.requires_grad, m.param_list()))
        opts.append(lib.optim.SGD([{"params": [m.params["w1"]], "lr": 0},
                                   {"params": trainable[1:]}], lr=0.05, momentum=0.9))
    for _ in range(30):
        train_step(tl, opts[0])
        train_step(th, opts[-1])
    assert torchlike.equal(tl.params["w2"], w2_before)
    assert torchlike.equal(tl.params["w1"], w1_before)
    if HAVE_TORCH:
        assert_params_close(tl, th)
    # Unfreeze later with add_param_group, as the seed describes.
    for m, o in zip((tl, th), opts):
        m.params["w2"].requires_grad_(True)
        o.add_param_group({"params": m.params["w2"], "lr": 0.01})
    assert opts[0].param_groups[2]["momentum"] == 0.9
    for _ in range(30):
        train_step(tl, opts[0])
        train_step(th, opts[-1])
    assert not torchlike.equal(tl.params["w2"], w2_before)   # it trains now
    assert torchlike.equal(tl.params["w1"], w1_before)
    if HAVE_TORCH:
        assert_params_close(tl, th)


def test_gan_like_two_optimizers():
    tl, th = make_pair()
    pairs = []
    for m, lib in ((tl, torchlike), (th, torch))[:2 if HAVE_TORCH else 1]:
        pairs.append((lib.optim.Adam([m.params["w1"], m.params["b1"]], lr=1e-1),
                      lib.optim.Adam([m.params["b2"]], lr=1e-1)))
    for _ in range(20):
        for m, (o1, o2) in zip((tl, th), pairs):
            o1.zero_grad()
            o2.zero_grad()
            m.loss().backward()
            o1.step()
            o2.step()
    assert_untouched_without_grad(tl)
    # Adam with lr=0.1 (the seed's value) moves every entry by ~0.1 a step; compare at the
    # scale of those steps.
    if HAVE_TORCH:
        assert_params_close(tl, th, atol=1e-5)


def test_zero_grad_and_step_count():
    tl, _ = make_pair()
    o = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    assert o._step_count == 0
    train_step(tl, o)
    train_step(tl, o)
    assert o._step_count == 2
    o.zero_grad(set_to_none=False)
    g = tl.params["w1"].grad
    assert g is not None and float(g.abs().sum()) == 0.0
    assert tl.params["w2"].grad is None
    o.zero_grad()
    assert tl.params["w1"].grad is None


def test_step_skips_params_without_grad_and_writes_in_place():
    tl, _ = make_pair()
    w1 = tl.params["w1"]
    version = w1._version
    o = torchlike.optim.Adam(tl.param_list(), lr=0.1)
    train_step(tl, o)
    assert w1._version > version
    assert len(o.state) == 3
    exp_avg = o.state[w1]["exp_avg"]
    train_step(tl, o)
    assert o.state[w1]["exp_avg"] is exp_avg  # updated in place, like PyTorch's lerp_


def test_closure():
    tl, th = make_pair()
    loss0 = float(tl.loss().detach())
    w1 = tl.params["w1"].detach().clone()
    o_tl = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    with torchlike.no_grad():  # the closure still runs with grad enabled
        loss_tl = o_tl.step(tl.closure_for(o_tl))
    assert float(loss_tl.detach()) == loss0            # the loss before the step
    assert not torchlike.equal(tl.params["w1"], w1)    # the closure's grads were used
    if HAVE_TORCH:
        o_th = torch.optim.SGD(th.param_list(), lr=0.1)
        loss_th = o_th.step(th.closure_for(o_th))
        assert float(loss_tl.detach()) == pytest.approx(float(loss_th.detach()), rel=1e-6)
        assert_params_close(tl, th)
    assert o_tl.step() is None


class _Linear:
    """A least-squares model ((x @ w + b - y) ** 2).mean() with a frozen extra weight:
    well conditioned, so L-BFGS's iterates are compared without the flat directions of a
    saturated network amplifying last-bit differences."""

    def __init__(self, lib, dtype):
        rng = np.random.default_rng(1)
        self.lib = lib
        self.w = lib.nn.Parameter(lib.tensor(rng.standard_normal((4, 2)).astype(dtype)))
        self.b = lib.nn.Parameter(lib.tensor(np.zeros(2, dtype)))
        self.x = lib.tensor(rng.standard_normal((16, 4)).astype(dtype))
        self.y = lib.tensor(rng.standard_normal((16, 2)).astype(dtype))

    def closure_for(self, opt):
        def closure():
            opt.zero_grad()
            loss = ((self.x @ self.w + self.b - self.y) ** 2).mean()
            loss.backward()
            return loss
        return closure


_LBFGS_CASES = [(kw, dt) for kw in (dict(max_iter=3), dict(history_size=2, max_iter=4, lr=0.5),
                                     dict(line_search_fn="strong_wolfe", max_iter=4))
                 for dt in (np.float32, np.float64)]
# float64 only: with 20 inner iterations the strong-Wolfe tests (``f_new > f + c1*t*gtd``)
# sit on float32 rounding once converged, and a flipped comparison changes the iterate.
_LBFGS_CASES.append((dict(lr=0.5, history_size=3, line_search_fn="strong_wolfe"), np.float64))


@pytest.mark.parametrize("kw,dtype", _LBFGS_CASES)
def test_lbfgs_matches_torch(kw, dtype):
    tl = _Linear(torchlike, dtype)
    o_tl = torchlike.optim.LBFGS([tl.w, tl.b], **kw)
    if HAVE_TORCH:
        th = _Linear(torch, dtype)
        o_th = torch.optim.LBFGS([th.w, th.b], **kw)
    losses = []
    for _ in range(3):
        l_tl = o_tl.step(tl.closure_for(o_tl))
        losses.append(float(l_tl.detach()))
        if HAVE_TORCH:
            l_th = o_th.step(th.closure_for(o_th))
            assert float(l_tl.detach()) == pytest.approx(float(l_th.detach()), rel=1e-5)
    assert losses[2] <= losses[1] < losses[0]     # a least-squares loss descends
    s_tl = o_tl.state[tl.w]
    assert 0 < s_tl["n_iter"] <= 3 * kw.get("max_iter", 20)
    assert s_tl["func_evals"] >= s_tl["n_iter"]
    assert isinstance(s_tl["d"], torchlike.Tensor)
    assert 0 < len(s_tl["old_dirs"]) <= kw.get("history_size", 100)
    if not HAVE_TORCH:
        return
    for a, b in ((tl.w, th.w), (tl.b, th.b)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    s_th = o_th.state[th.w]
    assert s_tl["func_evals"] == s_th["func_evals"] and s_tl["n_iter"] == s_th["n_iter"]
    assert isinstance(s_tl["d"], torchlike.Tensor) and len(s_tl["old_dirs"]) == len(
        s_th["old_dirs"])


def test_step_hooks():
    tl, _ = make_pair()
    o = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    calls = []
    h1 = o.register_step_pre_hook(lambda opt, args, kwargs: calls.append(("pre", opt)))
    h2 = o.register_step_post_hook(lambda opt, args, kwargs: calls.append(("post", opt)))
    g1 = torchlike.optim.optimizer.register_optimizer_step_pre_hook(
        lambda opt, args, kwargs: calls.append(("gpre", opt)))
    g2 = torchlike.optim.optimizer.register_optimizer_step_post_hook(
        lambda opt, args, kwargs: calls.append(("gpost", opt)))
    try:
        train_step(tl, o)
        assert [c[0] for c in calls] == ["gpre", "pre", "post", "gpost"]
        assert all(c[1] is o for c in calls)
    finally:
        for h in (h1, h2, g1, g2):
            h.remove()
    calls.clear()
    train_step(tl, o)
    assert calls == []


def test_pre_hook_can_replace_arguments():
    tl, _ = make_pair()
    o = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    seen = []

    def closure():
        seen.append(True)
        return torchlike.tensor(1.0)

    o.register_step_pre_hook(lambda opt, args, kwargs: (args, {"closure": closure}))
    o.register_step_pre_hook(lambda opt, args, kwargs: None)
    loss = o.step()
    assert seen == [True] and float(loss) == 1.0
    o2 = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    o2.register_step_pre_hook(lambda opt, args, kwargs: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        o2.step()


def test_state_dict_hooks():
    tl, _ = make_pair()
    o = torchlike.optim.SGD(tl.param_list(), lr=0.1)
    o.register_state_dict_post_hook(lambda opt, sd: {**sd, "extra": 1})
    assert o.state_dict()["extra"] == 1
    loaded = []
    o.register_load_state_dict_post_hook(lambda opt: loaded.append(opt))
    o.load_state_dict(o.state_dict())
    assert loaded == [o]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam",
                                  "RMSprop", "Adagrad", "Adadelta", "ASGD", "Rprop", "LBFGS",
                                  "Adafactor"])
def test_repr_and_defaults_match_torch(name):
    tl, th = make_pair()
    o_tl = getattr(torchlike.optim, name)(tl.param_list())
    assert repr(o_tl).startswith(f"{name} (\nParameter Group 0\n")
    assert {k: v for k, v in o_tl.param_groups[0].items() if k != "params"} == o_tl.defaults
    if HAVE_TORCH:
        o_th = getattr(torch.optim, name)(th.param_list())
        assert repr(o_tl) == repr(o_th)
        assert o_tl.defaults == o_th.defaults


def test_sgd_repr_text():
    w = torchlike.nn.Parameter(torchlike.ones(2))
    assert repr(torchlike.optim.SGD([w], lr=0.1)).startswith(
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n")


def test_errors():
    tl, _ = make_pair()
    params = tl.param_list()
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -1.0$"):
        torchlike.optim.SGD(params, lr=-1.0)
    with pytest.raises(ValueError, match=r"^Invalid momentum value: -0.5$"):
        torchlike.optim.SGD(params, lr=0.1, momentum=-0.5)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero "
                                         "dampening"):
        torchlike.optim.SGD(params, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match=r"^Invalid beta parameter at index 0: 1.0$"):
        torchlike.optim.Adam(params, betas=(1.0, 0.999))
    with pytest.raises(ValueError, match=r"^Invalid beta parameter at index 1: -0.1$"):
        torchlike.optim.AdamW(params, betas=(0.9, -0.1))
    with pytest.raises(ValueError, match=r"^Invalid epsilon value: -1e-08$"):
        torchlike.optim.Adam(params, eps=-1e-8)
    with pytest.raises(ValueError, match=r"^Invalid eta values: 1.5, 1.2$"):
        torchlike.optim.Rprop(params, etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter "
                                         "group$"):
        torchlike.optim.SGD([{"params": params[:2]}, {"params": params[1:]}], lr=0.1)
    nonleaf = tl.params["w1"] * 2
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        torchlike.optim.Adam([nonleaf])
    with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
        torchlike.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an "
                                        "iterable of Tensors or dicts"):
        torchlike.optim.SGD(tl.params["w1"], lr=0.1)
    with pytest.raises(TypeError, match="optimizer parameters need to be organized in ordered "
                                        "collections"):
        torchlike.optim.SGD([{"params": set(params)}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        torchlike.optim.SGD([1.0], lr=0.1)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        torchlike.optim.LBFGS([{"params": params[:1]}, {"params": params[1:2]}])
    o = torchlike.optim.SGD(params[:1], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        o.add_param_group({"params": params[0]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        o.add_param_group(params[1])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torchlike.optim.SGD([params[0], params[0]], lr=0.1)
    assert "duplicate parameters" in str(w[0].message)


def test_named_parameters_and_deepcopy():
    tl, th = make_pair()
    named_tl = [(n, tl.params[n]) for n in NAMES]
    o_tl = torchlike.optim.SGD(named_tl, lr=0.1, momentum=0.9)
    assert o_tl.param_groups[0]["param_names"] == list(NAMES)
    train_step(tl, o_tl)
    assert o_tl.state_dict()["param_groups"][0]["param_names"] == list(NAMES)
    sd = copy.deepcopy(o_tl.state_dict())
    # after one step the momentum buffer is the gradient; the copy is its own
    buf = o_tl.state_dict()["state"][0]["momentum_buffer"]
    np.testing.assert_array_equal(np.asarray(sd["state"][0]["momentum_buffer"]),
                                  np.asarray(tl.params["w1"].grad))
    assert sd["state"][0]["momentum_buffer"] is not buf
    if HAVE_TORCH:
        named_th = [(n, th.params[n]) for n in NAMES]
        o_th = torch.optim.SGD(named_th, lr=0.1, momentum=0.9)
        train_step(th, o_th)
        assert o_tl.state_dict()["param_groups"] == o_th.state_dict()["param_groups"]
        assert np.allclose(np.asarray(sd["state"][0]["momentum_buffer"]),
                           o_th.state_dict()["state"][0]["momentum_buffer"].numpy(),
                           rtol=1e-6)
