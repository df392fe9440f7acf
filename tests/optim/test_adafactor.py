"""torchlike.optim.Adafactor against torch.optim.Adafactor beyond the shared 100-step parity
cases in test_parity.py: parameters of 0, 1, 2 and 3 dimensions and their state shapes,
float64 (its own eps1), a tensor lr, argument and step errors, state_dict round trips and a
compiled step."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike

from .._parity import HAVE_TORCH, torch

SHAPES = {"scalar": (), "vector": (5,), "matrix": (4, 3), "batched": (2, 3, 4)}

# the state each parameter gets, in PyTorch's order and shapes
STATE = {"scalar": {"step": (), "variance": ()},
         "vector": {"step": (), "variance": (5,)},
         "matrix": {"step": (), "row_var": (4, 1), "col_var": (1, 3)},
         "batched": {"step": (), "row_var": (2, 3, 1), "col_var": (2, 1, 4)}}


def _values(dtype, seed=0):
    rng = np.random.default_rng(seed)
    vals = {n: np.asarray(rng.standard_normal(s) * 0.5, dtype) for n, s in SHAPES.items()}
    targets = {n: np.asarray(rng.standard_normal(s), dtype) for n, s in SHAPES.items()}
    return vals, targets


def _run(lib, kw, steps, dtype=np.float32, make_opt=None):
    """``steps`` Adafactor steps on a quartic loss over parameters of every rank."""
    if lib is None:
        return None, None
    vals, targets = _values(dtype)
    params = {n: lib.nn.Parameter(lib.tensor(v)) for n, v in vals.items()}
    tgt = {n: lib.tensor(v) for n, v in targets.items()}
    opt = (make_opt or lib.optim.Adafactor)(list(params.values()), **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss = sum((((params[n] - tgt[n]) ** 2) ** 2).sum() for n in SHAPES)
        loss.backward()
        opt.step()
    return {n: np.asarray(p.detach().numpy()) for n, p in params.items()}, opt


CASES = [(dict(), np.float32),
         (dict(lr=0.1, weight_decay=0.05, maximize=True, d=2.0), np.float32),
         (dict(eps=(1e-4, 1e-2), beta2_decay=-0.5, foreach=True), np.float64)]


@pytest.mark.parametrize("kw,dtype", CASES,
                         ids=[f"{np.dtype(d).name}-{kw}" for kw, d in CASES])
def test_every_rank_matches_torch(kw, dtype):
    got, opt = _run(torchlike, kw, 20, dtype)
    names = list(SHAPES)
    sd = opt.state_dict()["state"]
    for i, n in enumerate(names):
        assert {k: tuple(v.shape) for k, v in sd[i].items()} == STATE[n]
        assert list(sd[i]) == list(STATE[n])
        assert sd[i]["step"].dtype is torchlike.float32 and sd[i]["step"].item() == 20
        assert sd[i][list(STATE[n])[1]].dtype is getattr(torchlike, np.dtype(dtype).name)
        assert np.isfinite(got[n]).all() and not np.array_equal(got[n], _values(dtype)[0][n])
    if not HAVE_TORCH:
        return
    want, ref = _run(torch, kw, 20, dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for n in names:
        np.testing.assert_allclose(got[n], want[n], err_msg=n, **tol)
    ref_sd = ref.state_dict()
    for i in range(len(names)):
        for k, v in ref_sd["state"][i].items():
            np.testing.assert_allclose(np.asarray(sd[i][k]), v.numpy(), err_msg=k, **tol)
    assert opt.state_dict()["param_groups"] == ref_sd["param_groups"]


def test_eps1_defaults_to_the_dtype_epsilon():
    # a gradient of exactly zero makes every second moment 0, so the update is
    # g / max(sqrt(0), eps1) = 0 whatever eps1 is; a tiny gradient instead shows eps1
    for dtype, lib_dtype in ((np.float32, torchlike.float32), (np.float64, torchlike.float64)):
        p = torchlike.nn.Parameter(torchlike.zeros(3, dtype=lib_dtype))
        p.grad = torchlike.full((3,), 1e-20, dtype=lib_dtype)
        torchlike.optim.Adafactor([p], lr=0.5).step()
        # variance 1e-40 (float32: subnormal) is clamped to eps1**2, update = g / eps1, and
        # its rms (below d=1) leaves alpha = eps2 * min(lr, 1) = 1e-3 * 0.5 unscaled
        eps = np.finfo(dtype).eps
        want = -5e-4 * (1e-20 / eps)
        np.testing.assert_allclose(p.detach().numpy(), np.full(3, want), rtol=1e-5)


def test_tensor_lr_and_param_groups():
    def make(lib):
        return lambda params, **kw: lib.optim.Adafactor(
            [{"params": params[:2], "lr": lib.tensor(0.05)},
             {"params": params[2:], "weight_decay": 0.1}], lr=0.02)
    got, _ = _run(torchlike, {}, 10, make_opt=make(torchlike))
    if HAVE_TORCH:
        want, _ = _run(torch, {}, 10, make_opt=make(torch))
        for n in SHAPES:
            np.testing.assert_allclose(got[n], want[n], rtol=1e-5, atol=1e-6, err_msg=n)


def test_frozen_and_gradless_parameters_get_no_state():
    a = torchlike.nn.Parameter(torchlike.ones(2, 2))
    b = torchlike.nn.Parameter(torchlike.ones(2))
    opt = torchlike.optim.Adafactor([a, b])
    a.grad = torchlike.ones(2, 2)
    opt.step()
    assert list(opt.state_dict()["state"]) == [0]
    np.testing.assert_array_equal(b.detach().numpy(), np.ones(2))


ERRORS = [
    (dict(lr=-1.0), "Learning rate should be >= 0 but is: -1.0"),
    (dict(beta2_decay=0.5), "beta2_decay should be <= 0 but is: 0.5"),
    (dict(eps=(-1.0, 1e-3)), "epsilon1 should be >= 0 but is: -1.0"),
    (dict(eps=(None, -1e-3)), "epsilon2 should be >= 0 but is: -0.001"),
    (dict(d=0.5), "Clipping threshold d should be >= 1 but is: 0.5"),
    (dict(weight_decay=-0.1), "weight_decay should be >= 0 but is: -0.1"),
    ("tensor-lr", "Tensor lr must be 1-element"),
]


@pytest.mark.parametrize("kw,msg", ERRORS, ids=[m.split(" ")[0] for _, m in ERRORS])
def test_argument_errors(kw, msg):
    for lib in (torchlike, torch) if HAVE_TORCH else (torchlike,):
        p = lib.nn.Parameter(lib.ones(2))
        args = dict(lr=lib.tensor([0.1, 0.2])) if kw == "tensor-lr" else kw
        with pytest.raises(ValueError) as err:
            lib.optim.Adafactor([p], **args)
        assert str(err.value) == msg, lib.__name__


def test_complex_parameters_are_refused():
    for lib in (torchlike, torch) if HAVE_TORCH else (torchlike,):
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        p.grad = lib.ones(2, dtype=lib.complex64)
        with pytest.raises(RuntimeError, match="^Adafactor does not support complex "
                                               "parameters$"):
            lib.optim.Adafactor([p]).step()


def test_state_dict_round_trip_with_torch():
    """torchlike resumes from its own checkpoint and, with PyTorch, from torch's."""
    got, opt = _run(torchlike, dict(lr=0.05), 5)
    sd = opt.state_dict()
    vals = {n: torchlike.nn.Parameter(torchlike.tensor(v)) for n, v in got.items()}
    opt2 = torchlike.optim.Adafactor(list(vals.values()), lr=0.05)
    opt2.load_state_dict(sd)
    assert opt2.state_dict()["state"][3]["row_var"] is not sd["state"][3]["row_var"]
    for i in sd["state"]:
        for k, v in sd["state"][i].items():
            np.testing.assert_array_equal(np.asarray(opt2.state_dict()["state"][i][k]),
                                          np.asarray(v))
    if not HAVE_TORCH:
        return
    _, ref = _run(torch, dict(lr=0.05), 5)
    from ._harness import to_torchlike_state
    opt2.load_state_dict(to_torchlike_state(ref.state_dict()))
    st = opt2.state_dict()["state"]
    assert st[0]["step"].dtype is torchlike.float32 and st[0]["step"].item() == 5
    for i, n in enumerate(SHAPES):
        assert list(st[i]) == list(STATE[n])


def test_compiled_step_matches_eager():
    results = {}
    for mode in ("eager", "compiled"):
        torchlike.manual_seed(0)
        model = torchlike.nn.Sequential(torchlike.nn.Linear(5, 4), torchlike.nn.Tanh(),
                                        torchlike.nn.Linear(4, 2))
        opt = torchlike.optim.Adafactor(model.parameters(), lr=0.05, weight_decay=0.01)
        x, y = torchlike.randn(6, 5), torchlike.randn(6, 2)

        def step(x, y):
            opt.zero_grad()
            loss = torchlike.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            return loss
        fn = torchlike.compile(step) if mode == "compiled" else step
        losses = [float(fn(x, y)) for _ in range(8)]
        opt.param_groups[0]["lr"] = 0.02   # a changed lr is an input, not a retrace
        losses += [float(fn(x, y)) for _ in range(4)]
        results[mode] = (losses, [np.asarray(t.numpy()) for t in model.state_dict().values()],
                         opt.state_dict())
        if mode == "compiled":
            assert fn.stats.traces <= 2
    (le, pe, se), (lc, pc, sc) = results["eager"], results["compiled"]
    np.testing.assert_allclose(lc, le, rtol=1e-5, atol=1e-6)
    for a, b in zip(pe, pc):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    for i in se["state"]:
        assert list(sc["state"][i]) == list(se["state"][i])
        for k in se["state"][i]:
            np.testing.assert_allclose(np.asarray(sc["state"][i][k]),
                                       np.asarray(se["state"][i][k]), rtol=1e-5, atol=1e-7)
