"""``torchlike.amp.GradScaler`` and its two kernels against PyTorch's ``torch.amp.GradScaler``,
``torch._amp_foreach_non_finite_check_and_unscale_`` and ``torch._amp_update_scale_``.

Training loops run the same steps in both libraries from the same weights, with steps that
overflow, and compare parameters, scale, growth tracker, state dict and which steps ran;
every misuse raises PyTorch's exception and message. Where PyTorch (the test oracle) is
absent, the torchlike side still runs with its own assertions and only the comparisons
skip. A compiled training step is compared with the same loop run eagerly.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import ml_dtypes
import numpy as np
import pytest

import torchlike as tl
from torchlike.amp.grad_scaler import (GradScaler, OptState,
                                       _amp_foreach_non_finite_check_and_unscale_,
                                       _amp_update_scale_)

from .._parity import HAVE_TORCH, fw_module, normalize_error, requires_torch, torch

W0 = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], np.float32)
B0 = np.array([0.05, -0.1], np.float32)
X = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)
Y = np.array([[0.5, -0.5], [0.2, 0.1], [-0.3, 0.4], [0.0, 0.9]], np.float32)


def _scaler_cls(fw):
    return GradScaler if fw == "tl" else torch.amp.GradScaler


def _kernels(fw):
    if fw == "tl":
        return _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_
    return torch._amp_foreach_non_finite_check_and_unscale_, torch._amp_update_scale_


def _np(t) -> np.ndarray:
    t = t.detach()
    if HAVE_TORCH and isinstance(t, torch.Tensor):   # a copy: numpy() shares memory
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()
    a = np.array(t)
    return a.astype(np.float32) if a.dtype == ml_dtypes.bfloat16 else a


def _tensor(m, a: np.ndarray):
    if m is not tl and a.dtype == ml_dtypes.bfloat16:
        return torch.tensor(a.astype(np.float32)).to(torch.bfloat16)
    return m.tensor(a)


def _error(fn):
    """``(exception type name, message with 'torchlike' read as 'torch')`` or None."""
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, normalize_error(str(e))
    return None


def _same_error(make, expect_type, expect_msg=None):
    """``make(fw)`` returns a thunk; torchlike's error is ``expect_type`` (and message),
    and PyTorch's is the same."""
    got = _error(make("tl"))
    assert got is not None and got[0] == expect_type.__name__, got
    if expect_msg is not None:
        assert got[1] == expect_msg, got
    if HAVE_TORCH:
        assert got == _error(make("torch"))
    return got


# ---------------------------------------------------------------------------- training loops
def _model(m, seed_shift: float = 0.0):
    model = m.nn.Linear(3, 2)
    with m.no_grad():
        model.weight.copy_(m.tensor(W0 + seed_shift))
        model.bias.copy_(m.tensor(B0))
    return model


def _optimizer(m, name, params):
    if name == "sgd":
        return m.optim.SGD(params, lr=0.1, momentum=0.9)
    if name == "sgd-nesterov-wd":
        return m.optim.SGD(params, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)
    if name == "adam":
        return m.optim.Adam(params, lr=0.01)
    return m.optim.AdamW(params, lr=0.01, amsgrad=True)


def _loop(fw, opt_name, steps=9, huge=(), grad_inf=(), grad_nan=(), clip=False,
          init_scale=2.0**10, growth_interval=2):
    """The usual scaled iteration; returns one record per step."""
    m = fw_module(fw)
    model = _model(m)
    opt = _optimizer(m, opt_name, model.parameters())
    scaler = _scaler_cls(fw)("cpu", init_scale=init_scale, growth_interval=growth_interval)
    x, y = m.tensor(X), m.tensor(Y)
    ran = []
    opt.register_step_post_hook(lambda *args: ran.append(1))
    records = []
    for i in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        if i in huge:
            loss = loss * 1e36   # the scaled loss overflows float32
        scaler.scale(loss).backward()
        with m.no_grad():
            if i in grad_inf:
                model.weight.grad[0, 1] = float("inf")
            if i in grad_nan:
                model.bias.grad[1] = float("nan")
        if clip:
            scaler.unscale_(opt)
            m.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        grads = [p.grad for p in model.parameters()]
        ret = scaler.step(opt)
        found = sum(v.item() for v in scaler._found_inf_per_device(opt).values())
        stages = [s["stage"].name for s in scaler._per_optimizer_states.values()]
        kept = all(p.grad is g for p, g in zip(model.parameters(), grads))
        scaler.update()
        records.append(dict(
            weight=_np(model.weight), bias=_np(model.bias), grad=_np(model.weight.grad),
            scale=scaler.get_scale(), tracker=scaler._get_growth_tracker(),
            state_dict=scaler.state_dict(), found=found, ret=ret, stages=stages, kept=kept,
            step_count=len(ran),
            opt_state={k: _np(v) for k, v in opt.state[model.weight].items()}))
    return records


def _expected_scales(init_scale, growth_interval, found, growth=2.0, backoff=0.5):
    scale, tracker, out = init_scale, 0, []
    for f in found:
        if f:
            scale, tracker = scale * backoff, 0
        else:
            tracker += 1
            if tracker == growth_interval:
                scale, tracker = scale * growth, 0
        out.append((scale, tracker))
    return out


def _check_records(recs, steps_with_inf, init_scale=2.0**10, growth_interval=2):
    """What must hold without PyTorch: infs found exactly where injected, the weights left
    untouched by those steps, the scale following the backoff/growth rule."""
    found = [r["found"] != 0 for r in recs]
    assert found == [i in steps_with_inf for i in range(len(recs))]
    prev = W0
    for r, f in zip(recs, found):
        assert r["kept"] and r["ret"] is None and r["stages"] == ["STEPPED"]
        if f:
            np.testing.assert_array_equal(r["weight"], prev)
        else:
            assert not np.array_equal(r["weight"], prev)
        prev = r["weight"]
    assert [(r["scale"], r["tracker"]) for r in recs] == \
        _expected_scales(init_scale, growth_interval, found)
    assert recs[-1]["step_count"] == len(recs) - sum(found)
    for r in recs:
        assert r["state_dict"] == {"scale": r["scale"], "growth_factor": 2.0,
                                   "backoff_factor": 0.5, "growth_interval": growth_interval,
                                   "_growth_tracker": r["tracker"]}


def _compare_records(a, b):
    assert len(a) == len(b)
    for i, (ra, rb) in enumerate(zip(a, b)):
        assert ra.keys() == rb.keys()
        for k in ra:
            if k == "opt_state":
                assert ra[k].keys() == rb[k].keys(), i
                for s in ra[k]:
                    np.testing.assert_allclose(ra[k][s], rb[k][s], rtol=1e-5, atol=1e-7,
                                               err_msg=f"step {i} state {s}")
            elif isinstance(ra[k], np.ndarray):
                np.testing.assert_allclose(ra[k], rb[k], rtol=1e-5, atol=1e-7, equal_nan=True,
                                           err_msg=f"step {i} {k}")
            else:
                assert ra[k] == rb[k], (i, k, ra[k], rb[k])


LOOPS = {
    "grad-inf": dict(grad_inf=(0, 4)),
    "huge-loss": dict(huge=(1, 5, 6)),
    "grad-nan-clipped": dict(grad_nan=(2,), grad_inf=(3,), clip=True),
}


@pytest.mark.parametrize("opt_name", ["sgd", "sgd-nesterov-wd", "adam", "adamw"])
@pytest.mark.parametrize("case", list(LOOPS))
def test_training_loop_matches_torch(opt_name, case):
    kw = LOOPS[case]
    recs = _loop("tl", opt_name, **kw)
    _check_records(recs, set(kw.get("grad_inf", ())) | set(kw.get("huge", ()))
                   | set(kw.get("grad_nan", ())))
    if HAVE_TORCH:
        _compare_records(recs, _loop("torch", opt_name, **kw))


def test_two_optimizers_one_scaler():
    def run(fw):
        m = fw_module(fw)
        m1, m2 = _model(m), _model(m, 0.25)
        o1 = m.optim.SGD(m1.parameters(), lr=0.1, momentum=0.5)
        o2 = m.optim.Adam(m2.parameters(), lr=0.01)
        scaler = _scaler_cls(fw)("cpu", init_scale=64.0, growth_interval=1)
        x = m.tensor(X)
        ran1, ran2 = [], []
        o1.register_step_post_hook(lambda *args: ran1.append(1))
        o2.register_step_post_hook(lambda *args: ran2.append(1))
        out = []
        for i in range(4):
            o1.zero_grad()
            o2.zero_grad()
            scaler.scale([m1(x).sum(), (m2(x) ** 2).sum()])[0].backward()
            scaler.scale((m2(x) ** 2).sum()).backward()
            if i == 1:
                with m.no_grad():
                    m2.bias.grad[0] = float("-inf")
            scaler.step(o1)
            scaler.step(o2)
            scaler.update()
            out.append((_np(m1.weight), _np(m2.weight), scaler.get_scale(),
                        scaler._get_growth_tracker(), len(ran1), len(ran2)))
        return out

    out = run("tl")
    # step 1: the first optimizer steps, the second is skipped, the scale backs off
    assert [o[2] for o in out] == [128.0, 64.0, 128.0, 256.0]
    assert [o[4:] for o in out] == [(1, 1), (2, 1), (3, 2), (4, 3)]
    np.testing.assert_array_equal(out[1][1], out[0][1])
    if HAVE_TORCH:
        for a, b in zip(out, run("torch")):
            np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-7)
            assert a[2:] == b[2:]


def test_unscale_keeps_grad_objects_and_divides():
    def run(fw):
        m = fw_module(fw)
        model = _model(m)
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        scaler = _scaler_cls(fw)("cpu", init_scale=3.0)
        scaler.scale((model(m.tensor(X)) ** 2).sum()).backward()
        scaled = _np(model.weight.grad).copy()
        g = model.weight.grad
        scaler.unscale_(opt)
        stage = scaler._per_optimizer_states[id(opt)]["stage"].name
        return scaled, _np(model.weight.grad), model.weight.grad is g, stage

    scaled, unscaled, same, stage = run("tl")
    assert same and stage == "UNSCALED"
    np.testing.assert_allclose(unscaled, scaled * np.float32(1 / 3), rtol=1e-6)
    if HAVE_TORCH:
        ts, tu, tsame, tstage = run("torch")
        # the backward passes may differ in the last bit; the kernel is compared exactly
        # in test_foreach_non_finite_check_and_unscale
        np.testing.assert_allclose(scaled, ts, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(unscaled, tu, rtol=1e-6, atol=1e-6)
        assert (same, stage) == (tsame, tstage)


def test_scale_structures_and_dtypes():
    def run(fw):
        m = fw_module(fw)
        scaler = _scaler_cls(fw)("cpu", init_scale=4.0)
        a, b = m.tensor([1.0, 2.0]), m.tensor([3.0], dtype=m.float16)
        c = m.tensor([[0.5]], dtype=m.bfloat16)
        nested = scaler.scale([a, (b, [c]), ()])
        lazy = scaler.scale(t for t in (a, b))
        single = scaler.scale(c)
        return (nested, type(lazy).__name__, list(lazy), single, scaler._scale,
                scaler._growth_tracker)

    nested, lazy_type, lazy, single, scale, tracker = run("tl")
    assert isinstance(nested, list) and isinstance(nested[1], tuple)
    assert isinstance(nested[1][1], list) and nested[2] == ()
    assert lazy_type == "map"
    np.testing.assert_array_equal(_np(nested[0]), [4.0, 8.0])
    assert nested[1][0].dtype == tl.float16 and single.dtype == tl.bfloat16
    assert scale.dtype == tl.float32 and tuple(scale.shape) == ()
    assert tracker.dtype == tl.int32 and tuple(tracker.shape) == ()
    if HAVE_TORCH:
        t = run("torch")
        assert lazy_type == t[1]
        for x, y in zip([nested[0], nested[1][0], nested[1][1][0], *lazy, single, scale,
                         tracker],
                        [t[0][0], t[0][1][0], t[0][1][1][0], *t[2], t[3], t[4], t[5]]):
            assert str(x.dtype).split(".")[-1] == str(y.dtype).split(".")[-1]
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_array_equal(_np(x), _np(y))


# ---------------------------------------------------------------------------- the kernels
UNSCALE_CASES = {
    "finite-f32": ([np.array([1.0, -2.0, 3.5], np.float32)], 0.0, 0.5),
    "inf-among-f32": ([np.array([1.0, 2.0], np.float32),
                       np.array([np.inf, 4.0], np.float32)], 0.0, 0.25),
    "nan-f64": ([np.array([np.nan, 1.0]), np.array([2.0])], 0.0, 1 / 3),
    "found-kept": ([np.array([[1.0, 2.0]], np.float32)], 3.0, 0.1),
    "found-set-to-one": ([np.array([-np.inf], np.float32)], 3.0, 0.1),
    "half-rounded-once": ([np.array([1000.0, 3.0, 7.0], np.float16)], 0.0, 1 / 3),
    "bfloat16": ([np.array([1.0, 3.0, 7.0], ml_dtypes.bfloat16)], 0.0, 1 / 3),
    "mixed-dtypes": ([np.array([1.0], np.float32), np.array([6.0]),
                      np.array([np.nan], np.float16)], 0.0, 0.7),
    "big-inv-scale": ([np.array([3e38, 1.0], np.float32)], 0.0, 4.0),
    "empty": ([], 0.0, 0.5),
}


@pytest.mark.parametrize("case", list(UNSCALE_CASES))
def test_foreach_non_finite_check_and_unscale(case):
    arrays, found0, inv = UNSCALE_CASES[case]

    def run(fw):
        m = fw_module(fw)
        grads = [_tensor(m, a) for a in arrays]
        found = m.tensor(found0)
        inv_scale = m.tensor(inv, dtype=m.float32)
        out = _kernels(fw)[0](grads, found, inv_scale)
        return out, [_np(g) for g in grads], found.item(), grads

    out, grads, found, objs = run("tl")
    assert out is None
    nonfinite = any(not np.isfinite(a.astype(np.float64)).all() for a in arrays)
    assert found == (1.0 if nonfinite else found0)
    for g, a in zip(grads, arrays):
        with np.errstate(over="ignore"):
            exp = (a.astype(np.float64) * np.float32(inv)).astype(a.dtype).astype(g.dtype)
        np.testing.assert_array_equal(g, exp)
    if HAVE_TORCH:
        t_out, t_grads, t_found, t_objs = run("torch")
        assert found == t_found
        for g, tg, o, to in zip(grads, t_grads, objs, t_objs):
            np.testing.assert_array_equal(g, tg)
            assert str(o.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]


def _unscale_call(grads, found, inv):
    def make(fw):
        m = fw_module(fw)
        return lambda: _kernels(fw)[0](grads(m), found(m), inv(m))
    return make


UNSCALE_ERRORS = {
    "found-2-elements": (_unscale_call(lambda m: [m.ones(2)], lambda m: m.zeros(2),
                                       lambda m: m.tensor(0.5)),
                         RuntimeError, "found_inf must be a 1-element tensor."),
    "inv-2-elements": (_unscale_call(lambda m: [m.ones(2)], lambda m: m.zeros(2),
                                     lambda m: m.ones(2)),
                       RuntimeError, "inv_scale must be a 1-element tensor."),
    "inv-float64": (_unscale_call(lambda m: [m.ones(2)], lambda m: m.zeros((), dtype=m.float64),
                                  lambda m: m.ones((), dtype=m.float64)),
                    RuntimeError, "inv_scale must be a float tensor."),
    "found-float64": (_unscale_call(lambda m: [m.ones(2)],
                                    lambda m: m.zeros((), dtype=m.float64),
                                    lambda m: m.ones(())),
                      RuntimeError, "found_inf must be a float tensor."),
    "int-grads": (_unscale_call(lambda m: [m.ones(2, dtype=m.int32)], lambda m: m.zeros(()),
                                lambda m: m.ones(())),
                  NotImplementedError, '"_amp_foreach_non_finite_check_and_unscale_cpu" not '
                                       "implemented for 'Int'"),
    "complex-grads": (_unscale_call(lambda m: [m.ones(2, dtype=m.complex64)],
                                    lambda m: m.zeros(()), lambda m: m.ones(())),
                      NotImplementedError, '"_amp_foreach_non_finite_check_and_unscale_cpu" '
                                           "not implemented for 'ComplexFloat'"),
    "tensor-not-list": (_unscale_call(lambda m: m.ones(2), lambda m: m.zeros(()),
                                      lambda m: m.ones(())),
                        TypeError, "_amp_foreach_non_finite_check_and_unscale_(): argument "
                                   "'self' (position 1) must be tuple of Tensors, not Tensor"),
    "not-a-tensor-in-list": (_unscale_call(lambda m: [m.ones(2), 3], lambda m: m.zeros(()),
                                           lambda m: m.ones(())),
                             TypeError, "expected Tensor as element 1 in argument 0, but got "
                                        "int"),
}


@pytest.mark.parametrize("case", list(UNSCALE_ERRORS))
def test_foreach_non_finite_check_and_unscale_errors(case):
    make, typ, msg = UNSCALE_ERRORS[case]
    _same_error(make, typ, msg)


UPDATE_CASES = {
    "default": (4.0, 0, [0.0, 0.0, 1.0, 0.0, -1.0, np.nan, 0.5, 0.0, 0.0], 2.0, 0.5, 2),
    "odd-factors": (3.0, 0, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], 1.1, 0.3, 3),
    "grow-overflow": (3e38, 1, [0.0, 0.0, 0.0], 2.0, 0.5, 2),
    "interval-1": (1.0, 0, [0.0, 0.0, 1.0, 0.0], 2.0, 0.5, 1),
    "interval-0": (1.0, 0, [0.0, 0.0], 2.0, 0.5, 0),
    "tracker-past-interval": (4.0, 5, [0.0, 0.0], 2.0, 0.5, 2),
    "inf-growth-factor": (4.0, 0, [0.0], float("inf"), 0.5, 1),
}


@pytest.mark.parametrize("case", list(UPDATE_CASES))
def test_update_scale(case):
    scale0, tracker0, founds, growth, backoff, interval = UPDATE_CASES[case]

    def run(fw):
        m = fw_module(fw)
        scale = m.tensor(scale0, dtype=m.float32)
        tracker = m.tensor(tracker0, dtype=m.int32)
        out = []
        for f in founds:
            r = _kernels(fw)[1](scale, tracker, m.tensor(f, dtype=m.float32), growth,
                                backoff, interval)
            out.append((r is scale, scale.item(), tracker.item()))
        return out

    out = run("tl")
    assert all(o[0] for o in out)
    s, tr = np.float32(scale0), tracker0
    for (_, got_s, got_t), f in zip(out, founds):
        if f != 0:   # NaN counts as found
            s, tr = np.float32(np.float64(s) * backoff), 0
        else:
            tr += 1
            if tr == interval:
                with np.errstate(over="ignore"):
                    g = np.float32(np.float64(s) * growth)
                s, tr = (g if np.isfinite(g) else s), 0
        assert (got_s, got_t) == (float(s), tr)
    if HAVE_TORCH:
        assert out == run("torch")


def test_update_scale_rounds_once_from_float64():
    rng = np.random.default_rng(0)
    scales = rng.uniform(1.0, 1e6, 24).astype(np.float32)
    factors = rng.uniform(1.0001, 3.0, 24)

    def run(fw):
        m = fw_module(fw)
        out = []
        for s0, f in zip(scales, factors):
            scale, tracker = m.tensor(s0), m.tensor(0, dtype=m.int32)
            _kernels(fw)[1](scale, tracker, m.tensor(0.0), float(f), 0.5, 1)
            _kernels(fw)[1](scale, tracker, m.tensor(1.0), 2.0, 1 / f, 1)
            out.append(scale.item())
        return out

    out = run("tl")
    grown = (scales.astype(np.float64) * factors).astype(np.float32)
    assert out == (grown.astype(np.float64) * (1 / factors)).astype(np.float32).tolist()
    if HAVE_TORCH:
        assert out == run("torch")


def test_update_scale_shapes():
    def run(fw):
        m = fw_module(fw)
        scale, tracker = m.ones((1, 1)), m.tensor([[3]], dtype=m.int32)
        _kernels(fw)[1](scale, tracker, m.zeros((1,)), 2.0, 0.5, 4)
        return _np(scale), _np(tracker), tuple(scale.shape)

    out = run("tl")
    assert out[2] == (1, 1) and out[0].tolist() == [[2.0]] and out[1].tolist() == [[0]]
    if HAVE_TORCH:
        ref = run("torch")
        np.testing.assert_array_equal(out[0], ref[0])
        np.testing.assert_array_equal(out[1], ref[1])
        assert out[2] == ref[2]


def _update_call(scale, tracker, found, interval=2):
    def make(fw):
        m = fw_module(fw)
        return lambda: _kernels(fw)[1](scale(m), tracker(m), found(m), 2.0, 0.5, interval)
    return make


def _i32(m, v):
    return m.tensor(v, dtype=m.int32)


UPDATE_ERRORS = {
    "tracker-first": (_update_call(lambda m: m.ones(2), lambda m: _i32(m, [0, 0]),
                                   lambda m: m.zeros(2)),
                      RuntimeError, "growth_tracker must be a 1-element tensor."),
    "scale-2-elements": (_update_call(lambda m: m.ones(2), lambda m: _i32(m, 0),
                                      lambda m: m.zeros(2)),
                         RuntimeError, "current_scale must be a 1-element tensor."),
    "found-2-elements": (_update_call(lambda m: m.ones(()), lambda m: _i32(m, 0),
                                      lambda m: m.zeros(2)),
                         RuntimeError, "found_inf must be a 1-element tensor."),
    "tracker-int64": (_update_call(lambda m: m.ones((), dtype=m.float64),
                                   lambda m: m.tensor(0), lambda m: m.zeros(())),
                      RuntimeError, "growth_tracker must be an int tensor."),
    "scale-float64": (_update_call(lambda m: m.ones((), dtype=m.float64),
                                   lambda m: _i32(m, 0), lambda m: m.zeros(())),
                      RuntimeError, "current_scale must be a float tensor."),
    "scale-float16": (_update_call(lambda m: m.ones((), dtype=m.float16),
                                   lambda m: _i32(m, 0), lambda m: m.zeros(())),
                      RuntimeError, "current_scale must be a float tensor."),
    "found-int": (_update_call(lambda m: m.ones(()), lambda m: _i32(m, 0),
                               lambda m: _i32(m, 0)),
                  RuntimeError, "found_inf must be a float tensor."),
    "interval-float": (_update_call(lambda m: m.ones(()), lambda m: _i32(m, 0),
                                    lambda m: m.zeros(()), 2.5),
                       TypeError, "_amp_update_scale_(): argument 'growth_interval' "
                                  "(position 6) must be int, not float"),
}


@pytest.mark.parametrize("case", list(UPDATE_ERRORS))
def test_update_scale_errors(case):
    make, typ, msg = UPDATE_ERRORS[case]
    _same_error(make, typ, msg)


# ---------------------------------------------------------------------------- misuse
def _setup(m, fw, **kw):
    model = _model(m)
    opt = m.optim.SGD(model.parameters(), lr=0.1)
    scaler = _scaler_cls(fw)("cpu", **kw)
    return model, opt, scaler


def _backward(m, model, scaler):
    scaler.scale((model(m.tensor(X)) ** 2).sum()).backward()


def _misuse(body):
    def make(fw):
        m = fw_module(fw)
        return lambda: body(m, fw, *_setup(m, fw))
    return make


def _unscale_twice(m, fw, model, opt, scaler):
    _backward(m, model, scaler)
    scaler.unscale_(opt)
    scaler.unscale_(opt)


def _unscale_after_step(m, fw, model, opt, scaler):
    _backward(m, model, scaler)
    scaler.step(opt)
    scaler.unscale_(opt)


def _step_twice(m, fw, model, opt, scaler):
    _backward(m, model, scaler)
    scaler.step(opt)
    scaler.step(opt)


def _closure(m, fw, model, opt, scaler):
    _backward(m, model, scaler)
    scaler.step(opt, closure=lambda: None)


def _no_grads(m, fw, model, opt, scaler):
    scaler.scale(m.ones(()))
    scaler.step(opt)


def _fp16_grads(m, fw, model, opt, scaler):
    p = m.nn.Parameter(m.ones(2, dtype=m.float16))
    opt = m.optim.SGD([p], lr=0.1)
    scaler.scale(p.sum()).backward()
    scaler.unscale_(opt)


def _update_without_inf_checks(m, fw, model, opt, scaler):
    scaler.scale(m.ones(()))
    scaler.update()


def _new_scale(value):
    def body(m, fw, model, opt, scaler):
        scaler.scale(m.ones(()))
        scaler.update(value(m))
    return body


def _pickle_mid_iteration(m, fw, model, opt, scaler):
    _backward(m, model, scaler)
    scaler.unscale_(opt)
    pickle.dumps(scaler)


def _load_empty(m, fw, model, opt, scaler):
    scaler.load_state_dict({})


def _load_missing_key(m, fw, model, opt, scaler):
    scaler.load_state_dict({"scale": 2.0})


def _before_scale(method):
    def body(m, fw, model, opt, scaler):
        if method == "step":
            scaler.step(opt)
        elif method == "unscale_":
            scaler.unscale_(opt)
        else:
            scaler.update()
    return body


def _scale_bad(value):
    def body(m, fw, model, opt, scaler):
        scaler.scale(value(m))
    return body


FIX = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier in "
       "the iteration.")
NEW_SCALE_REASON = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False.")
MISUSE = {
    "unscale-twice": (_unscale_twice, RuntimeError, "unscale_() has already been called on "
                      "this optimizer since the last update()."),
    "unscale-after-step": (_unscale_after_step, RuntimeError,
                           "unscale_() is being called after step()."),
    "step-twice": (_step_twice, RuntimeError,
                   "step() has already been called since the last update()."),
    "closure": (_closure, RuntimeError,
                "Closure use is not currently supported if GradScaler is enabled."),
    "no-grads": (_no_grads, AssertionError, "No inf checks were recorded for this optimizer."),
    "fp16-grads": (_fp16_grads, ValueError, "Attempting to unscale FP16 gradients."),
    "update-without-checks": (_update_without_inf_checks, AssertionError,
                              "No inf checks were recorded prior to update."),
    "new-scale-2-elements": (_new_scale(lambda m: m.ones(2)), AssertionError,
                             NEW_SCALE_REASON),
    "new-scale-requires-grad": (_new_scale(lambda m: m.ones((), requires_grad=True)),
                                AssertionError, NEW_SCALE_REASON),
    # the scale is 0-d since PyTorch 2.x, so a (1,)-shaped new scale does not fit it
    "new-scale-shape-1": (_new_scale(lambda m: m.tensor([3.0])), RuntimeError,
                          "output with shape [] doesn't match the broadcast shape [1]"),
    "new-scale-int": (_new_scale(lambda m: 2), AttributeError,
                      "'int' object has no attribute 'device'"),
    "pickle-mid-iteration": (_pickle_mid_iteration, AssertionError,
                             "A GradScaler instance may only be pickled at the beginning of "
                             "an iteration, or at the end after scaler.update()."),
    "load-empty": (_load_empty, RuntimeError, "The source state dict is empty, possibly "
                   "because it was saved from a disabled instance of GradScaler."),
    "load-missing-key": (_load_missing_key, KeyError, "'growth_factor'"),
    "step-before-scale": (_before_scale("step"), AssertionError,
                          "Attempted step but _scale is None.  " + FIX),
    "unscale-before-scale": (_before_scale("unscale_"), AssertionError,
                             "Attempted unscale_ but _scale is None.  " + FIX),
    "update-before-scale": (_before_scale("update"), AssertionError,
                            "Attempted update but _scale is None.  " + FIX),
    "scale-number": (_scale_bad(lambda m: 3.0), ValueError,
                     "outputs must be a Tensor or an iterable of Tensors"),
    "scale-list-with-number": (_scale_bad(lambda m: [m.ones(1), 3]), ValueError,
                               "outputs must be a Tensor or an iterable of Tensors"),
}


@pytest.mark.parametrize("case", list(MISUSE))
def test_misuse_errors(case):
    body, typ, msg = MISUSE[case]
    _same_error(_misuse(body), typ, msg)


@pytest.mark.parametrize("kw,msg", [(dict(growth_factor=1.0), "The growth factor must be > 1.0."),
                                    (dict(backoff_factor=1.0),
                                     "The backoff factor must be < 1.0.")])
def test_constructor_checks(kw, msg):
    _same_error(lambda fw: lambda: _scaler_cls(fw)("cpu", **kw), AssertionError, msg)


def test_update_with_new_scale():
    def run(fw):
        m = fw_module(fw)
        scaler = _scaler_cls(fw)("cpu", init_scale=8.0)
        scaler.scale(m.ones(()))
        scale_obj = scaler._scale
        scaler.update(5.0)
        a = scaler.get_scale()
        src = m.tensor(3.0)
        scaler.update(src)
        src.fill_(7.0)   # a copy was taken
        return a, scaler.get_scale(), scaler._scale is scale_obj

    out = run("tl")
    assert out == (5.0, 3.0, True)
    if HAVE_TORCH:
        assert out == run("torch")


# ---------------------------------------------------------------------------- disabled
def _cuda_scaler(fw, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        scaler = _scaler_cls(fw)("cuda", **kw)
    return scaler, [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.skipif(tl.cuda.is_available(), reason="needs a machine without a GPU")
def test_cuda_scaler_without_gpu_warns_and_disables():
    scaler, warned = _cuda_scaler("tl")
    assert warned == [("UserWarning", "torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                                      "available.  Disabling.")]
    assert not scaler.is_enabled()
    assert _cuda_scaler("tl", enabled=False)[1] == []
    if HAVE_TORCH and not torch.cuda.is_available():
        t_scaler, t_warned = _cuda_scaler("torch")
        assert warned == t_warned and not t_scaler.is_enabled()
        assert _cuda_scaler("torch", enabled=False)[1] == []
        assert sorted(scaler.__dict__) == sorted(t_scaler.__dict__)


@pytest.mark.parametrize("how", ["enabled=False", "cuda-without-gpu"])
def test_disabled_scaler_is_a_no_op(how):
    if how == "cuda-without-gpu" and tl.cuda.is_available():
        pytest.skip("needs a machine without a GPU")

    def run(fw):
        m = fw_module(fw)
        scaler = (_scaler_cls(fw)("cpu", enabled=False) if how == "enabled=False"
                  else _cuda_scaler(fw)[0])
        model = _model(m)
        opt = m.optim.SGD(model.parameters(), lr=0.1)
        loss = (model(m.tensor(X)) ** 2).sum()
        outs = [loss]
        same = scaler.scale(loss) is loss and scaler.scale(outs) is outs
        scaler.scale(loss).backward()
        g = _np(model.weight.grad).copy()
        scaler.unscale_(opt)
        unscaled_untouched = np.array_equal(_np(model.weight.grad), g)

        def closure():
            return 1.5
        ret = scaler.step(opt, closure)
        scaler.update()
        scaler.update(3.0)
        scaler.load_state_dict({})
        clone = pickle.loads(pickle.dumps(scaler))
        return dict(same=same, untouched=unscaled_untouched, ret=ret,
                    weight=_np(model.weight), scale=scaler.get_scale(),
                    tracker=scaler._get_growth_tracker(), sd=scaler.state_dict(),
                    enabled=scaler.is_enabled(), clone_sd=clone.state_dict(),
                    keys=sorted(scaler.__getstate__()))

    out = run("tl")
    assert out["same"] and out["untouched"] and out["ret"] == 1.5
    assert (out["scale"], out["tracker"], out["sd"], out["enabled"], out["clone_sd"]) == \
        (1.0, 0, {}, False, {})
    assert not np.array_equal(out["weight"], W0)   # the plain step ran
    if HAVE_TORCH and (how == "enabled=False" or not torch.cuda.is_available()):
        ref = run("torch")
        for k in out:
            if k == "weight":
                np.testing.assert_allclose(out[k], ref[k], rtol=1e-6)
            else:
                assert out[k] == ref[k], k


# ---------------------------------------------------------------------------- state, pickling
def _trained_scaler(fw, steps=3):
    m = fw_module(fw)
    model = _model(m)
    opt = m.optim.SGD(model.parameters(), lr=0.1)
    scaler = _scaler_cls(fw)("cpu", init_scale=16.0, growth_factor=3.0, backoff_factor=0.25,
                             growth_interval=2)
    for i in range(steps):
        opt.zero_grad()
        loss = (model(m.tensor(X)) ** 2).sum() * (1e38 if i == 1 else 1.0)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return scaler


def test_state_dict_round_trip():
    def run(fw):
        m = fw_module(fw)
        src = _trained_scaler(fw)
        sd = src.state_dict()
        fresh = _scaler_cls(fw)("cpu")
        fresh.load_state_dict(sd)
        before_scale = (fresh.get_scale(), fresh._get_growth_tracker(), fresh._scale)
        fresh.scale(m.ones(()))
        live = _scaler_cls(fw)("cpu")
        live.scale(m.ones(()))
        obj = live._scale
        live.load_state_dict(sd)
        return (sd, before_scale, fresh.state_dict(), live.state_dict(), live._scale is obj,
                live._growth_tracker.item(), fresh._scale.item())

    out = run("tl")
    sd = out[0]
    assert sd == {"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                  "growth_interval": 2, "_growth_tracker": 1}
    assert out[1] == (4.0, 1, None) and out[2] == sd and out[3] == sd and out[4]
    assert out[5:] == (1, 4.0)
    if HAVE_TORCH:
        assert out == run("torch")


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pickling(how):
    def run(fw):
        m = fw_module(fw)
        scaler = _trained_scaler(fw)
        state = scaler.__getstate__()
        clone = (pickle.loads(pickle.dumps(scaler)) if how == "pickle"
                 else copy.deepcopy(scaler))
        out = (sorted(state), state["_scale"], state["_init_scale"],
               state["_init_growth_tracker"], clone._scale, clone.state_dict(),
               len(clone._per_optimizer_states))
        clone.scale(m.ones(()))
        return out + (clone.get_scale(), clone._get_growth_tracker(),
                      type(clone._per_optimizer_states).__name__)

    out = run("tl")
    assert out[1] is None and out[2:4] == (4.0, 1) and out[4] is None
    assert out[5] == _trained_scaler("tl").state_dict() and out[6] == 0
    assert out[7:] == (4.0, 1, "defaultdict")
    if HAVE_TORCH:
        assert out == run("torch")


def test_opt_state_enum_and_getters():
    def run(fw):
        scaler = _scaler_cls(fw)("cpu", init_scale=2.0, growth_factor=4.0,
                                 backoff_factor=0.125, growth_interval=7)
        out = [scaler.get_scale(), scaler.get_growth_factor(), scaler.get_backoff_factor(),
               scaler.get_growth_interval(), scaler.is_enabled(), scaler._get_growth_tracker()]
        scaler.set_growth_factor(1.5)
        scaler.set_backoff_factor(0.75)
        scaler.set_growth_interval(11)
        out += [scaler.get_growth_factor(), scaler.get_backoff_factor(),
                scaler.get_growth_interval(), scaler.state_dict()]
        return out

    out = run("tl")
    assert out[:6] == [2.0, 4.0, 0.125, 7, True, 0]
    assert out[6:9] == [1.5, 0.75, 11] and out[9]["growth_factor"] == 1.5
    assert [(s.name, s.value) for s in OptState] == [("READY", 0), ("UNSCALED", 1),
                                                     ("STEPPED", 2)]
    if HAVE_TORCH:
        assert out == run("torch")
        from torch.amp.grad_scaler import OptState as TorchOptState
        assert [(s.name, s.value) for s in OptState] == \
            [(s.name, s.value) for s in TorchOptState]


@requires_torch
def test_api_and_attributes_match_torch():
    import inspect
    ours, theirs = GradScaler, torch.amp.GradScaler
    names = sorted(n for n in dir(theirs) if not n.startswith("__"))
    mine = sorted(n for n in dir(ours) if not n.startswith("__"))
    assert [n for n in mine if not n.startswith("_")] == \
        [n for n in names if not n.startswith("_")]
    assert set(names) <= set(mine)   # PyTorch's private helpers too
    for name in names + ["__init__"]:
        a, b = getattr(ours, name), getattr(theirs, name)
        if callable(b):
            pa, pb = inspect.signature(a).parameters, inspect.signature(b).parameters
            assert [(p.name, p.kind, p.default) for p in pa.values()] == \
                [(p.name, p.kind, p.default) for p in pb.values()], name
    a, b = GradScaler("cpu"), torch.amp.GradScaler("cpu")
    assert sorted(vars(a)) == sorted(vars(b))
    a.scale(tl.ones(()))
    b.scale(torch.ones(()))
    assert sorted(a.__getstate__()) == sorted(b.__getstate__())


# ---------------------------------------------------------------------------- custom optimizers
def _amp_aware_sgd(m, with_kwarg):
    """An optimizer that handles scaling itself (``_step_supports_amp_scaling``)."""
    class AmpSGD(m.optim.SGD):
        _step_supports_amp_scaling = True

        if with_kwarg:
            def step(self, closure=None, grad_scaler=None):
                grad_scaler.unscale_(self)   # its own inf check
                return ("kwarg", type(grad_scaler).__name__, grad_scaler.get_scale())
        else:
            def step(self, closure=None):
                return ("attrs", float(self.grad_scale.item()), float(self.found_inf.item()))

    return AmpSGD


@pytest.mark.parametrize("with_kwarg", [False, True])
def test_optimizer_that_supports_amp_scaling(with_kwarg):
    def run(fw):
        m = fw_module(fw)
        model = _model(m)
        opt = _amp_aware_sgd(m, with_kwarg)(model.parameters(), lr=0.1)
        scaler = _scaler_cls(fw)("cpu", init_scale=8.0)
        scaler.scale((model(m.tensor(X)) ** 2).sum()).backward()
        with m.no_grad():
            model.bias.grad[0] = float("inf")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ret = scaler.step(opt)
        warned = [x.category.__name__ for x in w]
        attrs = (hasattr(opt, "grad_scale"), hasattr(opt, "found_inf"))
        scaler.update()
        return ret, warned, attrs, scaler.get_scale(), _np(model.bias.grad)

    out = run("tl")
    if with_kwarg:
        assert out[0] == ("kwarg", "GradScaler", 8.0) and out[1] == ["FutureWarning"]
    else:
        assert out[0] == ("attrs", 8.0, 1.0) and out[1] == []
    assert out[2] == (False, False) and out[3] == 4.0
    if HAVE_TORCH:
        ref = run("torch")
        assert out[:4] == ref[:4]
        np.testing.assert_allclose(out[4], ref[4], rtol=1e-6)


# ---------------------------------------------------------------------------- compiled steps
def _compiled_loop(opt_name, compiled, bad_steps, steps=10, grad_inf_steps=(), clip=False):
    tl.manual_seed(0)
    model = _model(tl)
    opt = _optimizer(tl, opt_name, model.parameters())
    scaler = GradScaler("cpu", init_scale=2.0**8, growth_interval=2)
    x, y = tl.tensor(X), tl.tensor(Y)

    def step(x, y, factor, poison):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean() * factor
        scaler.scale(loss).backward()
        with tl.no_grad():
            model.weight.grad.add_(poison)   # 0, or inf on one element
        if clip:
            scaler.unscale_(opt)
            tl.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        scaler.step(opt)
        scaler.update()
        return loss

    fn = tl.compile(step) if compiled else step
    records = []
    for i in range(steps):
        factor = tl.tensor(float("inf") if i in bad_steps else 1.0)
        poison = tl.zeros(2, 3)
        if i in grad_inf_steps:
            poison[1, 2] = float("inf")
        fn(x, y, factor, poison)
        records.append((_np(model.weight).copy(), _np(model.bias).copy(), scaler.get_scale(),
                        scaler._get_growth_tracker(),
                        {k: _np(v).copy() for k, v in opt.state[model.weight].items()}))
    return records, fn


@pytest.mark.parametrize("opt_name,clip", [("sgd", False), ("adam", False),
                                           ("adamw", False), ("sgd", True)])
def test_compiled_step_matches_eager(opt_name, clip):
    # the first step is skipped: the state it creates must read as never created
    bad, grad_inf = (0, 4, 5), (7,)
    eager, _ = _compiled_loop(opt_name, False, bad, grad_inf_steps=grad_inf, clip=clip)
    compiled, fn = _compiled_loop(opt_name, True, bad, grad_inf_steps=grad_inf, clip=clip)
    assert fn.stats.traces <= 2
    assert [r[2] for r in eager] == [128.0, 128.0, 256.0, 256.0, 128.0, 64.0, 64.0, 32.0,
                                     32.0, 64.0]
    for i, (e, c) in enumerate(zip(eager, compiled)):
        np.testing.assert_allclose(c[0], e[0], rtol=1e-6, atol=1e-7, err_msg=f"step {i}")
        np.testing.assert_allclose(c[1], e[1], rtol=1e-6, atol=1e-7, err_msg=f"step {i}")
        assert c[2:4] == e[2:4], i
        if i > 0:   # eager mode has no state after the skipped first step
            assert c[4].keys() == e[4].keys()
            for k in e[4]:
                np.testing.assert_allclose(c[4][k], e[4][k], rtol=1e-6, atol=1e-7)
    # the skipped steps left the weights as they were
    for i in bad + grad_inf:
        if i:
            np.testing.assert_array_equal(compiled[i][0], compiled[i - 1][0])
    np.testing.assert_array_equal(compiled[0][0], W0)


class _IntStepSGD(tl.optim.Optimizer):
    """Plain SGD keeping a Python int step count in its state."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    self.state[p]["step"] = self.state[p].get("step", 0) + 1
                    with tl.no_grad():
                        p.sub_(p.grad * group["lr"])


@pytest.mark.parametrize("kind", ["int-step", "sgd-dampening"])
def test_compiled_step_refuses_state_it_cannot_undo(kind):
    model = _model(tl)
    opt = (_IntStepSGD(model.parameters()) if kind == "int-step"
           else tl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.1))
    scaler = GradScaler("cpu")

    @tl.compile
    def step(x):
        opt.zero_grad()
        scaler.scale(model(x).sum()).backward()
        scaler.step(opt)
        scaler.update()

    key = "'step'" if kind == "int-step" else "'momentum_buffer'"
    with pytest.raises(RuntimeError, match=f"state {key}.*outside torchlike.compile"):
        step(tl.tensor(X))
    # the failed trace left the eager objects usable
    np.testing.assert_array_equal(_np(model.weight), W0)
    assert len(opt.state) == 0
    assert scaler.get_scale() == 2.0**16
