"""torchlike.optim.Muon against torch.optim.Muon: parameters and momentum buffers after
several steps (Nesterov or not, weight decay, both ``adjust_lr_fn`` rules, other
Newton–Schulz coefficients and step counts, param groups with their own lr and options),
the bfloat16 Newton–Schulz iteration itself, argument and step errors, state_dict round
trips and a compiled step.

Note [Comparing Muon]
The orthogonalised update is computed in bfloat16, as PyTorch does, and on the same input
torchlike's matches PyTorch's bit for bit for these small matrices. But a float32
direction that differs in its last bit can round to a neighbouring bfloat16 value, moving
a parameter by up to ``adjusted_lr * 2**-6``; when the loss then feeds that back into the
next gradients, a few steps amplify it past 1e-3. So the parity runs use a loss linear in
the parameters, ``sum(p * G_t)``: its gradients are exactly the fixed ``G_t`` in both
libraries, what remains is the update rule itself, and parameters agree to float32
rounding; the compiled-versus-eager test uses the same loss.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import torchlike
from torchlike.optim.muon import _newton_schulz

from .._parity import HAVE_TORCH, torch
from ._harness import to_torch_state, to_torchlike_state

# tall, square and wide
SHAPES = {"w1": (6, 4), "w2": (4, 4), "w3": (4, 5)}
STEPS = 5
TOL = dict(rtol=1e-5, atol=1e-6)


def _values(seed=0):
    """Initial parameters and the gradients ``G_t`` of every step."""
    rng = np.random.default_rng(seed)
    vals = {n: np.asarray(rng.standard_normal(s) * 0.5, np.float32) for n, s in SHAPES.items()}
    grads = [{n: np.asarray(rng.standard_normal(s), np.float32) for n, s in SHAPES.items()}
             for _ in range(2 * STEPS)]
    return vals, grads


def _run(lib, kw, steps=STEPS, make_opt=None, vals=None, first=0):
    """``steps`` Muon steps (from step ``first``) on the loss ``sum(p * G_t)``; returns the
    parameters (numpy) and the optimizer."""
    if lib is None:
        return None, None
    init, grads = _values()
    params = {n: lib.nn.Parameter(lib.tensor(v)) for n, v in (vals or init).items()}
    opt = (make_opt or lib.optim.Muon)(list(params.values()), **kw)
    for t in range(first, first + steps):
        opt.zero_grad()
        loss = sum((params[n] * lib.tensor(grads[t][n])).sum() for n in SHAPES)
        loss.backward()
        opt.step()
    return {n: np.asarray(p.detach().numpy()) for n, p in params.items()}, opt


def _groups(lib):
    # the first group with its own lr; the second with plain momentum, its own weight decay
    # and momentum and the "match_rms_adamw" rule
    return lambda params, **kw: lib.optim.Muon(
        [{"params": params[:1], "lr": 0.05},
         {"params": params[1:], "nesterov": False, "weight_decay": 0.05, "momentum": 0.9,
          "adjust_lr_fn": "match_rms_adamw"}],
        lr=0.02, **kw)


CASES = {
    "defaults": (dict(lr=0.02), None),
    "groups-plain-momentum-match-rms": (dict(), _groups),
    "coefficients-original-no-decay": (dict(lr=0.03, weight_decay=0.0, ns_steps=3,
                                            eps=1e-5, ns_coefficients=(2.0, -1.5, 0.5),
                                            adjust_lr_fn="original"), None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case):
    kw, groups = CASES[case]
    got, opt = _run(torchlike, kw, make_opt=groups and groups(torchlike))
    init = _values()[0]
    sd = opt.state_dict()
    assert list(sd["state"]) == [0, 1, 2]
    for i, n in enumerate(SHAPES):
        st = sd["state"][i]
        assert list(st) == ["momentum_buffer"]
        assert st["momentum_buffer"].dtype is torchlike.float32
        assert tuple(st["momentum_buffer"].shape) == SHAPES[n]
        assert np.isfinite(got[n]).all() and not np.array_equal(got[n], init[n])
    if not HAVE_TORCH:
        return
    want, ref = _run(torch, kw, make_opt=groups and groups(torch))
    for n in SHAPES:
        np.testing.assert_allclose(got[n], want[n], err_msg=n, **TOL)
    ref_sd = ref.state_dict()
    for i in range(len(SHAPES)):
        np.testing.assert_allclose(np.asarray(sd["state"][i]["momentum_buffer"]),
                                   ref_sd["state"][i]["momentum_buffer"].numpy(), **TOL)
    assert sd["param_groups"] == ref_sd["param_groups"]


def test_other_dtypes_match_torch():
    """A bfloat16 tall matrix (PyTorch rounds ``alpha * O`` first there, Note [Muon's
    bfloat16 parameters]) and a float64 wide one with a tensor lr (float32 arithmetic
    for the decay and the adjusted lr, as PyTorch's): each parameter's state follows its
    dtype, and the results are PyTorch's."""
    rng = np.random.default_rng(2)
    shapes = {"bfloat16": (5, 3), "float64": (3, 5)}
    init = {d: rng.standard_normal(s) for d, s in shapes.items()}
    grads = [{d: rng.standard_normal(s) for d, s in shapes.items()} for _ in range(4)]
    out = {}
    for lib in (torchlike, torch) if HAVE_TORCH else (torchlike,):
        params = {d: lib.nn.Parameter(lib.tensor(v, dtype=getattr(lib, d)))
                  for d, v in init.items()}
        opt = lib.optim.Muon(list(params.values()), lr=lib.tensor(0.03))
        for g in grads:
            opt.zero_grad()
            sum((params[d] * lib.tensor(g[d], dtype=getattr(lib, d))).sum().double()
                for d in shapes).backward()
            opt.step()
        for d, p in params.items():
            assert opt.state[p]["momentum_buffer"].dtype is getattr(lib, d)
        out[lib.__name__] = {d: (p.detach().double().numpy(),
                                 opt.state[p]["momentum_buffer"].double().numpy())
                             for d, p in params.items()}
    if HAVE_TORCH:
        # equal here; one unit in the last place is allowed for another CPU's sums
        tol = {"bfloat16": dict(rtol=2 ** -7, atol=0), "float64": dict(rtol=1e-12, atol=0)}
        for d in shapes:
            for got, want in zip(out["torchlike"][d], out["torch"][d]):
                np.testing.assert_allclose(got, want, err_msg=d, **tol[d])


def test_defaults_in_param_groups():
    p = torchlike.nn.Parameter(torchlike.ones(2, 3))
    group = torchlike.optim.Muon([p]).param_groups[0]
    want = {"lr": 0.001, "weight_decay": 0.1, "momentum": 0.95, "nesterov": True,
            "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-07, "ns_steps": 5,
            "adjust_lr_fn": None}
    assert {k: v for k, v in group.items() if k != "params"} == want
    if HAVE_TORCH:
        ref = torch.optim.Muon([torch.nn.Parameter(torch.ones(2, 3))]).param_groups[0]
        assert list(ref) == list(group)
        assert {k: v for k, v in ref.items() if k != "params"} == want


def test_newton_schulz_matches_torch():
    """The orthogonalisation alone, on tall and wide matrices and on zeros (the norm
    clamped by eps)."""
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal(s).astype(np.float32) for s in ((7, 3), (3, 7))]
    mats.append(np.zeros((3, 7), np.float32))
    coeffs = (3.4445, -4.775, 2.0315)
    ns = jax.jit(_newton_schulz, static_argnums=4)
    for g in mats:
        got = ns(torchlike.tensor(g)._value, *coeffs, 5, 1e-7)
        assert got.dtype == np.dtype("bfloat16") and got.shape == g.shape
        got = np.asarray(got, np.float32)
        if g.any():
            # singular values pushed into about [0.7, 1.2]: a near-orthogonal matrix
            sv = np.linalg.svd(got, compute_uv=False)
            assert sv.min() > 0.6 and sv.max() < 1.3, sv
        else:
            np.testing.assert_array_equal(got, 0)
        if HAVE_TORCH:
            from torch.optim._muon import _zeropower_via_newtonschulz
            want = _zeropower_via_newtonschulz(torch.tensor(g), coeffs, 5, 1e-7).float()
            # equal here; one bfloat16 unit is allowed where float32 sums of another
            # order would round the other way
            np.testing.assert_allclose(got, want.numpy(), rtol=2 ** -7, atol=2 ** -9)


def test_frozen_and_gradless_parameters_get_no_state():
    a = torchlike.nn.Parameter(torchlike.ones(2, 2))
    b = torchlike.nn.Parameter(torchlike.ones(3, 2))
    opt = torchlike.optim.Muon([a, b], lr=0.1, weight_decay=0.5)
    a.grad = torchlike.tensor([[1.0, 0.0], [0.0, 2.0]])
    opt.step()
    assert list(opt.state_dict()["state"]) == [0]
    np.testing.assert_array_equal(b.detach().numpy(), np.ones((3, 2)))
    # first step: momentum_buffer = 0.05 g; Newton-Schulz keeps a diagonal matrix
    # diagonal, so the off-diagonal entries only decay, by 1 - 0.1 * 0.5
    np.testing.assert_allclose(opt.state[a]["momentum_buffer"].numpy(),
                               [[0.05, 0.0], [0.0, 0.1]], rtol=1e-6)
    np.testing.assert_allclose(a.detach().numpy()[[0, 1], [1, 0]], [0.95, 0.95], rtol=1e-6)


ERRORS = {
    "lr": (dict(lr=-1.0), "Learning rate should be >= 0 but is: -1.0"),
    "momentum": (dict(momentum=-0.5), "momentum should be >= 0 but is: -0.5"),
    "weight_decay": (dict(weight_decay=-0.1), "weight decay should be >= 0 but is: -0.1"),
    "adjust_lr_fn": (dict(adjust_lr_fn="sqrt"),
                     "Adjust learning rate function sqrt is not supported"),
    "tensor-lr": (None, "Tensor lr must be 1-element"),
    "1-d": ((3,), "Muon only supports 2D parameters whereas we found a parameter with "
                  "size: {lib}.Size([3])"),
    "3-d": ((2, 2, 2), "Muon only supports 2D parameters whereas we found a parameter "
                       "with size: {lib}.Size([2, 2, 2])"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_argument_errors(case):
    arg, msg = ERRORS[case]
    for lib in (torchlike, torch) if HAVE_TORCH else (torchlike,):
        p = lib.nn.Parameter(lib.ones(*(arg if isinstance(arg, tuple) else (2, 2))))
        kw = arg if isinstance(arg, dict) else \
            dict(lr=lib.tensor([0.1, 0.2])) if case == "tensor-lr" else {}
        with pytest.raises(ValueError) as err:
            lib.optim.Muon([p], **kw)
        # the size as each library prints it (torchlike.Size / torch.Size)
        assert str(err.value) == msg.format(lib=lib.__name__), lib.__name__


STEP_ERRORS = {
    "ns_steps": (dict(ns_steps=100), ValueError,
                 "Number of steps must be less than 100 for computational efficiency"),
    "coefficients": (dict(ns_coefficients=(1.0, 2.0)), ValueError,
                     "Coefficients must be a tuple of exactly 3 values"),
    "complex": (None, RuntimeError, "Muon does not support complex parameters"),
}


@pytest.mark.parametrize("case", list(STEP_ERRORS))
def test_step_errors(case):
    kw, exc, msg = STEP_ERRORS[case]
    for lib in (torchlike, torch) if HAVE_TORCH else (torchlike,):
        dtype = lib.complex64 if kw is None else lib.float32
        p = lib.nn.Parameter(lib.ones(2, 3, dtype=dtype))
        p.grad = lib.ones(2, 3, dtype=dtype)
        opt = lib.optim.Muon([p], **(kw or {}))
        with pytest.raises(exc) as err:
            opt.step()
        assert str(err.value) == msg, lib.__name__


def _loaded(sd, lib=torchlike):
    def make(params, **kw):
        opt = lib.optim.Muon(params, **kw)
        opt.load_state_dict(sd)
        return opt
    return make


def test_state_dict_round_trip():
    """A fresh optimizer loaded from a checkpoint continues as the original would; the
    checkpoint has PyTorch's layout and loads into torch's Muon, and torch's into
    torchlike's."""
    kw = dict(lr=0.02, weight_decay=0.05)
    straight, _ = _run(torchlike, kw, 4)
    half, opt = _run(torchlike, kw, 2)
    sd = opt.state_dict()
    fresh = torchlike.optim.Muon([torchlike.nn.Parameter(torchlike.tensor(half[n]))
                                  for n in SHAPES], **kw)
    fresh.load_state_dict(sd)
    st = fresh.state_dict()
    assert st["param_groups"] == sd["param_groups"]
    for i in sd["state"]:
        assert list(st["state"][i]) == ["momentum_buffer"]
        assert st["state"][i]["momentum_buffer"] is not sd["state"][i]["momentum_buffer"]
        np.testing.assert_array_equal(np.asarray(st["state"][i]["momentum_buffer"]),
                                      np.asarray(sd["state"][i]["momentum_buffer"]))
    resumed, _ = _run(torchlike, kw, 2, _loaded(sd), vals=half, first=2)
    for n in SHAPES:
        np.testing.assert_array_equal(resumed[n], straight[n], err_msg=n)
    if not HAVE_TORCH:
        return
    _, ref = _run(torch, kw, 2)
    ref_sd = ref.state_dict()
    assert list(ref_sd) == list(sd)
    assert [list(g) for g in ref_sd["param_groups"]] == [list(g) for g in sd["param_groups"]]
    assert {i: list(s) for i, s in ref_sd["state"].items()} == \
        {i: list(s) for i, s in sd["state"].items()}
    want, _ = _run(torch, kw, 2, _loaded(to_torch_state(sd), torch), vals=half, first=2)
    for n in SHAPES:
        np.testing.assert_allclose(resumed[n], want[n], err_msg=n, **TOL)
    fresh.load_state_dict(to_torchlike_state(ref_sd))
    for i in ref_sd["state"]:
        np.testing.assert_allclose(np.asarray(fresh.state[fresh.param_groups[0]["params"][i]]
                                              ["momentum_buffer"]),
                                   ref_sd["state"][i]["momentum_buffer"].numpy(), **TOL)


def test_compiled_step_matches_eager():
    """A compiled step (forward, backward, ``optimizer.step()``) gives eager's parameters
    and state, and a changed lr reaches it without a retrace."""
    init, grads = _values()
    results = {}
    for mode in ("eager", "compiled"):
        params = [torchlike.nn.Parameter(torchlike.tensor(init[n])) for n in SHAPES]
        opt = torchlike.optim.Muon(params, lr=0.02)

        def step(*g):
            opt.zero_grad()
            loss = sum((p * gi).sum() for p, gi in zip(params, g))
            loss.backward()
            opt.step()
            return loss
        fn = torchlike.compile(step) if mode == "compiled" else step
        for t in range(STEPS):
            if t == 3:
                opt.param_groups[0]["lr"] = 0.01
            fn(*(torchlike.tensor(grads[t][n]) for n in SHAPES))
        results[mode] = ([np.asarray(p.detach().numpy()) for p in params], opt.state_dict())
        if mode == "compiled":
            assert fn.stats.traces <= 2
    (pe, se), (pc, sc) = results["eager"], results["compiled"]
    for a, b in zip(pe, pc):
        np.testing.assert_allclose(b, a, **TOL)
    assert list(sc["state"]) == list(se["state"]) == [0, 1, 2]
    for i in se["state"]:
        assert list(sc["state"][i]) == ["momentum_buffer"]
        np.testing.assert_allclose(np.asarray(sc["state"][i]["momentum_buffer"]),
                                   np.asarray(se["state"][i]["momentum_buffer"]), **TOL)
    assert sc["param_groups"] == se["param_groups"]
