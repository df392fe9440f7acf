"""``torchlike.jit``: script/trace share the module's state and match PyTorch's values,
gradients, reprs and errors; save/load round-trips without the Python class."""

from __future__ import annotations

import copy
import io
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, requires_torch, torch

# both libraries warn that torch.jit is deprecated on every call; one test checks it
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

RNG = np.random.default_rng(0)
X_MLP = RNG.standard_normal((5, 3)).astype(np.float32)
X_CNN = RNG.standard_normal((2, 1, 6, 6)).astype(np.float32)


def mlp(T):
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))


def cnn(T):
    return T.nn.Sequential(T.nn.Conv2d(1, 2, 3), T.nn.BatchNorm2d(2), T.nn.ReLU(),
                           T.nn.Flatten(), T.nn.Linear(2 * 4 * 4, 3))


def _twins(make, seed: int = 0):
    """The torchlike model and (with PyTorch) a PyTorch one with the same weights."""
    tl.manual_seed(seed)
    m = make(tl)
    if make is cnn:   # non-trivial running statistics
        with tl.no_grad():
            m[1].running_mean.copy_(tl.tensor([0.3, -0.2]))
            m[1].running_var.copy_(tl.tensor([1.5, 0.7]))
    if not HAVE_TORCH:
        return m, None
    t = make(torch)
    t.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    return m, t


def _value_and_grads(model, x, T):
    """Output, input gradient and parameter gradients of ``sum(out * w)``."""
    xt = T.tensor(x, requires_grad=True)
    out = model(xt)
    w = T.tensor(np.linspace(-1, 1, out.numel(), dtype=np.float32).reshape(tuple(out.shape)))
    (out * w).sum().backward()
    grads = {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}
    return out.detach().numpy(), xt.grad.numpy(), grads


def _assert_same(a, b, tol=1e-5):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _compare(tl_res, ref_res):
    (o1, g1, p1), (o2, g2, p2) = tl_res, ref_res
    _assert_same(o1, o2)
    _assert_same(g1, g2)
    assert list(p1) == list(p2)
    for k in p1:
        _assert_same(p1[k], p2[k])


# --------------------------------------------------------------------------- trace, script
@pytest.mark.parametrize("how", ["trace", "script"])
@pytest.mark.parametrize("make,x", [(mlp, X_MLP), (cnn, X_CNN)], ids=["mlp", "cnn"])
def test_values_grads_and_shared_state(how, make, x):
    m, t = _twins(make)
    m.eval()
    jm = tl.jit.trace(m, tl.tensor(x)) if how == "trace" else tl.jit.script(m)
    assert isinstance(jm, tl.nn.Module) and isinstance(jm, tl.jit.ScriptModule)
    assert isinstance(jm, tl.jit.TopLevelTracedModule if how == "trace"
                      else tl.jit.RecursiveScriptModule)
    assert list(jm.state_dict()) == list(m.state_dict())
    assert jm._modules["0"].weight is m[0].weight
    if make is cnn:
        assert jm._modules["1"].running_mean is m[1].running_mean
    eager = _value_and_grads(m, x, tl)
    m.zero_grad()
    _compare(_value_and_grads(jm, x, tl), eager)   # the gradients reach m's parameters
    if t is not None:
        t.eval()
        tj = torch.jit.trace(t, torch.tensor(x)) if how == "trace" else torch.jit.script(t)
        _compare(eager, _value_and_grads(tj, x, torch))
        assert repr(jm) == repr(tj)
        assert list(jm.state_dict()) == list(tj.state_dict())


def test_train_eval_reach_the_original_and_retrace():
    m, _ = _twins(cnn)
    jm = tl.jit.script(m)
    jm.eval()
    assert not m.training and not m[1].training and not jm.training
    x = tl.tensor(X_CNN)
    eval_out = jm(x)
    jm.train()
    assert m.training and m[1].training
    n0 = int(m[1].num_batches_tracked)
    train_out = jm(x)
    assert int(m[1].num_batches_tracked) == n0 + 1   # BatchNorm statistics are written back
    assert not np.allclose(eval_out.detach().numpy(), train_out.detach().numpy())
    assert jm.original_name == "Sequential"
    assert jm[0] is jm._modules["0"] and len(jm) == 5
    assert jm[4].in_features == 32   # attributes come from the original
    twin = copy.deepcopy(jm)
    assert twin[0].weight is not m[0].weight and repr(twin) == repr(jm)
    _assert_same(twin(x).detach().numpy(), jm(x).detach().numpy())


@pytest.mark.parametrize("how", ["trace", "script"])
def test_function(how):
    calls = []

    def f(a, b):
        calls.append(tl.jit.is_tracing())
        return a * b + 1, a - b

    a, b = tl.tensor(X_MLP), tl.tensor(X_MLP[::-1].copy())
    sf = (tl.jit.trace(f, (a, b), check_trace=False) if how == "trace"
          else tl.jit.script(f))
    assert isinstance(sf, tl.jit.ScriptFunction) and sf.name == "f"
    assert calls == ([True] if how == "trace" else [])   # trace runs f once, traced
    out = sf(a, b)
    _assert_same(out[0].numpy(), X_MLP * X_MLP[::-1] + 1)
    _assert_same(out[1].numpy(), X_MLP - X_MLP[::-1])
    if HAVE_TORCH:
        tcalls = []

        def g(a, b):
            tcalls.append(torch.jit.is_tracing())
            return a * b

        tf = torch.jit.trace(g, (torch.tensor(X_MLP), torch.tensor(X_MLP)), check_trace=False)
        assert tcalls == [True]
        assert type(tf).__name__ == "ScriptFunction"


def test_trace_arguments():
    m, _ = _twins(mlp)
    x = tl.tensor(X_MLP)
    t1 = tl.jit.trace(m, example_kwarg_inputs={"input": x})
    _assert_same(t1(x).detach().numpy(), m(x).detach().numpy())
    t2 = tl.jit.trace(m, [x], check_inputs=[(tl.tensor(X_MLP[:2]),)], strict=False)
    assert t2(x).shape == (5, 2)
    t3 = tl.jit.trace_module(m, {"forward": x})
    assert isinstance(t3, tl.jit.TopLevelTracedModule)
    assert tl.jit.trace(t3, x) is t3 and tl.jit.script(t3) is t3
    with pytest.raises(RuntimeError, match="can't both be None"):
        tl.jit.trace(m)


def test_check_trace_warns_when_the_program_differs():
    def noisy(x):
        return x + tl.rand_like(x)

    with pytest.warns(tl.jit.TracerWarning, match="does not match"):
        tl.jit.trace(noisy, tl.tensor(X_MLP))


def test_deprecation_warnings_as_pytorch():
    m = mlp(tl)
    with pytest.warns(DeprecationWarning) as rec:
        tl.jit.script(m)
        tl.jit.trace(m, tl.tensor(X_MLP), check_trace=False)
    got = [str(w.message) for w in rec]
    assert got == ["`torch.jit.script` is deprecated. Please switch to `torch.compile` or "
                   "`torch.export`.",
                   "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or "
                   "`torch.export`."]
    if HAVE_TORCH:
        with warnings.catch_warnings(record=True) as trec:
            warnings.simplefilter("always")
            torch.jit.script(torch.nn.Identity())
        assert got[0] in [str(w.message) for w in trec]


# --------------------------------------------------------------------------- helpers
def test_decorators_and_queries():
    class M(tl.nn.Module):
        @tl.jit.ignore
        def helper(self, x):
            return x * 2

        @tl.jit.unused
        def unused(self, x):
            return x - 1

        @tl.jit.export
        def other(self, x):
            return x + 1

        @tl.jit.ignore(drop=True)
        def dropped(self):
            return "kept"

        def forward(self, x):
            if tl.jit.is_scripting():
                raise AssertionError("never scripting")
            return self.other(self.helper(x))

    class Legacy(tl.jit.ScriptModule):   # the old ScriptModule-subclass API
        def __init__(self):
            super().__init__()
            self.k = tl.jit.Attribute(3, int)

        @tl.jit.script_method
        def forward(self, x):
            return x * self.k

    assert Legacy()(tl.ones(1)).tolist() == [3.0]
    x = tl.ones(2)
    s = tl.jit.script(M())
    np.testing.assert_array_equal(s(x).numpy(), [3.0, 3.0])
    assert s.dropped() == "kept" and s.unused(x).tolist() == [0.0, 0.0]
    assert tl.jit.is_scripting() is False and tl.jit.is_tracing() is False

    @tl.jit.script_if_tracing
    def f(x):
        return x + 1

    assert f(x).tolist() == [2.0, 2.0]
    assert tl.jit.interface(M) is M
    assert tl.jit.annotate(list, []) == []
    assert tl.jit.Attribute(3, int) == (3, int) and tl.jit.Attribute(3, int).value == 3
    holder = tl.nn.Module()
    holder.limit = tl.jit.Attribute(3, int)
    assert tl.jit.script(holder).limit == 3   # what TorchScript reads
    assert tl.jit.Final is __import__("typing").Final
    assert tl.jit.isinstance([1, 2], list) and not tl.jit.isinstance("a", int)
    fut = tl.jit.fork(f, x)
    assert isinstance(fut, tl.jit.Future) and fut.done()
    assert tl.jit.wait(fut).tolist() == [2.0, 2.0]
    bad = tl.jit.fork(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        tl.jit.wait(bad)
    if HAVE_TORCH:
        assert torch.jit.is_scripting() is False and torch.jit.is_tracing() is False
        assert torch.jit.annotate(list, []) == []
        assert tuple(torch.jit.Attribute(3, int)) == tuple(tl.jit.Attribute(3, int))
        assert torch.jit.wait(torch.jit.fork(lambda a: a + 1, torch.ones(2))).tolist() == \
            [2.0, 2.0]


def test_is_tracing_inside_trace_and_compile():
    seen = []

    class M(tl.nn.Module):
        def forward(self, x):
            seen.append(tl.jit.is_tracing())
            return x * 2

    m = M()
    m(tl.ones(1))
    tl.jit.trace(m, tl.ones(1))
    tl.compile(m)(tl.ones(2))
    assert seen == [False, True, True, True]   # eager, trace, trace's check, compile


# --------------------------------------------------------------------------- freezing
def test_freeze_and_optimize_for_inference():
    m, t = _twins(mlp)
    s = tl.jit.script(m)
    with pytest.raises(RuntimeError) as e:
        tl.jit.freeze(s)
    with pytest.raises(RuntimeError) as e2:
        tl.jit.freeze(m)
    if t is not None:
        ts = torch.jit.script(t)
        with pytest.raises(RuntimeError) as te:
            torch.jit.freeze(ts)
        with pytest.raises(RuntimeError) as te2:
            torch.jit.freeze(t)
        assert str(e.value) == str(te.value)
        assert str(e2.value) == str(te2.value)
    else:
        assert "only implemented for modules in eval mode" in str(e.value)
    frozen = tl.jit.freeze(s.eval())
    assert list(frozen.state_dict()) == [] and list(frozen.parameters()) == []
    x = tl.tensor(X_MLP)
    _assert_same(frozen(x).detach().numpy(), m(x).detach().numpy())
    opt = tl.jit.optimize_for_inference(tl.jit.script(m.train()))
    assert not m.training and not opt.training
    if t is not None:
        assert repr(frozen) == repr(torch.jit.freeze(torch.jit.script(t.eval())))
    with pytest.raises(RuntimeError, match="expects a ScriptModule"):
        tl.jit.optimize_for_inference(m)


# --------------------------------------------------------------------------- save / load
@pytest.mark.parametrize("how", ["trace", "script"])
def test_save_load_round_trip_values_and_grads(tmp_path, how):
    m, t = _twins(mlp)
    x = tl.tensor(X_MLP)
    if how == "trace":
        jm = tl.jit.trace(m, x)
    else:
        jm = tl.jit.script(m)
        jm(x)
    path = tmp_path / "m.pt"
    tl.jit.save(jm, path)
    loaded = tl.jit.load(str(path))
    assert isinstance(loaded, tl.jit.RecursiveScriptModule)
    assert list(loaded.state_dict()) == list(m.state_dict())
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in m.named_parameters()]
    eager = _value_and_grads(m, X_MLP, tl)
    _compare(_value_and_grads(loaded, X_MLP, tl), eager)
    buf = io.BytesIO()
    jm.save(buf)
    from_buf = tl.jit.load(io.BytesIO(buf.getvalue()), map_location="cpu")
    _assert_same(from_buf(x).detach().numpy(), m(x).detach().numpy())
    # the batch axis was exported symbolic: another batch size runs
    x7 = RNG.standard_normal((7, 3)).astype(np.float32)
    _assert_same(loaded(tl.tensor(x7)).detach().numpy(), m(tl.tensor(x7)).detach().numpy())
    if t is not None:
        tpath = tmp_path / "t.pt"
        tj = torch.jit.trace(t, torch.tensor(X_MLP)) if how == "trace" else torch.jit.script(t)
        torch.jit.save(tj, str(tpath))
        t_loaded = torch.jit.load(str(tpath))
        assert repr(loaded) == repr(t_loaded)
        assert list(loaded.state_dict()) == list(t_loaded.state_dict())
        loaded.zero_grad()
        _compare(_value_and_grads(loaded, X_MLP, tl), _value_and_grads(t_loaded, X_MLP, torch))


def test_save_load_cnn_fixed_shapes_and_jaxpr_graph(tmp_path):
    m, _ = _twins(cnn)
    m.eval()
    x = tl.tensor(X_CNN)
    jm = tl.jit.trace(m, x)
    assert "conv" in jm.graph
    jm.save(tmp_path / "c.pt")
    loaded = tl.jit.load(tmp_path / "c.pt")
    _compare(_value_and_grads(loaded, X_CNN, tl), _value_and_grads(m, X_CNN, tl))
    assert not loaded.training
    other = tl.randn(3, 1, 6, 6)
    if loaded._program.meta["symbolic"]:
        _assert_same(loaded(other).detach().numpy(), m(other).detach().numpy())
    else:
        with pytest.raises(RuntimeError, match=r"shape \(3, 1, 6, 6\).*expects \(2, 1, 6, 6\)"):
            loaded(other)


def test_fixed_shape_fallback_names_both_shapes(tmp_path):
    class Fixed(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tl.nn.Linear(6, 2)

        def forward(self, x, scale=1.0):
            return self.lin(x.view(4, -1)) * scale   # needs the concrete batch size

    m = Fixed()
    s = tl.jit.script(m)
    s(tl.randn(4, 6), scale=2.0)
    s.save(tmp_path / "f.pt")
    loaded = tl.jit.load(tmp_path / "f.pt")
    x = tl.randn(4, 6)
    _assert_same(loaded(x, scale=2.0).detach().numpy(), m(x, scale=2.0).detach().numpy())
    with pytest.raises(RuntimeError, match=r"input 0 has shape \(3, 6\).*expects \(4, 6\)"):
        loaded(tl.randn(3, 6), scale=2.0)
    with pytest.raises(RuntimeError, match=r"non-tensor arguments \(2.0\) fixed.*got \(3.0\)"):
        loaded(x, scale=3.0)


def test_loaded_module_trains_like_the_eager_one(tmp_path):
    m, _ = _twins(mlp)
    tl.jit.trace(m, tl.tensor(X_MLP)).save(tmp_path / "m.pt")
    loaded = tl.jit.load(tmp_path / "m.pt")
    target = tl.zeros(5, 2)
    losses = {}
    for name, model in (("eager", m), ("loaded", loaded)):
        opt = tl.optim.SGD(model.parameters(), lr=0.05)
        losses[name] = []
        for _ in range(3):
            opt.zero_grad()
            loss = ((model(tl.tensor(X_MLP)) - target) ** 2).mean()
            loss.backward()
            opt.step()
            losses[name].append(loss.item())
    _assert_same(np.array(losses["loaded"]), np.array(losses["eager"]))
    assert losses["loaded"][-1] < losses["loaded"][0]
    for (n, p), (n2, q) in zip(m.named_parameters(), loaded.named_parameters()):
        assert n == n2
        _assert_same(p.detach().numpy(), q.detach().numpy())


def test_training_mode_is_fixed_and_buffers_update(tmp_path):
    m, _ = _twins(cnn)
    x = tl.tensor(X_CNN)
    s = tl.jit.script(m.train())
    s(x)
    s.save(tmp_path / "bn.pt")
    loaded = tl.jit.load(tmp_path / "bn.pt")
    assert loaded.training
    loaded.eval()   # only the flag: the saved program keeps training mode
    _assert_same(loaded(x).detach().numpy(), m(x).detach().numpy())   # batch statistics
    bn, lbn = m[1], loaded._modules["1"]
    assert int(lbn.num_batches_tracked) == int(bn.num_batches_tracked)
    _assert_same(lbn.running_mean.numpy(), bn.running_mean.numpy())
    _assert_same(lbn.running_var.numpy(), bn.running_var.numpy())


def test_dropout_draws_from_the_generator(tmp_path):
    m = tl.nn.Sequential(tl.nn.Linear(3, 3), tl.nn.Dropout(0.5))
    tl.jit.trace(m, tl.tensor(X_MLP), check_trace=False).save(tmp_path / "d.pt")
    loaded = tl.jit.load(tmp_path / "d.pt")
    x = tl.tensor(X_MLP)
    tl.manual_seed(1)
    a, b = loaded(x), loaded(x)
    tl.manual_seed(1)
    e = m(x)
    np.testing.assert_array_equal(a.detach().numpy(), e.detach().numpy())
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_in_a_fresh_process_without_the_class(tmp_path):
    class Net(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = tl.nn.Sequential(tl.nn.Linear(3, 8), tl.nn.Tanh())
            self.head = tl.nn.Linear(8, 2)

        def forward(self, x):
            h = self.body(x)
            return {"out": self.head(h), "h": (h, h * 2)}

    net = Net()
    tl.jit.trace(net, tl.tensor(X_MLP), strict=False).save(tmp_path / "net.pt",
                                                           _extra_files={"note": "hi"})
    x = np.ones((6, 3), np.float32)
    np.save(tmp_path / "ref.npy", net(tl.tensor(x))["out"].detach().numpy())
    code = textwrap.dedent(f"""
        import numpy as np, torchlike as torch
        extra = {{"note": ""}}
        m = torch.jit.load({str(tmp_path / "net.pt")!r}, _extra_files=extra)
        out = m(torch.ones(6, 3))
        assert extra["note"] == b"hi", extra
        assert isinstance(out["h"], tuple) and out["h"][1].shape == (6, 8)
        ref = np.load({str(tmp_path / "ref.npy")!r})
        assert np.allclose(out["out"].detach().numpy(), ref, atol=1e-6)
        out["out"].sum().backward()
        assert m.head.weight.grad.shape == (2, 8)
        print(list(m.state_dict()))
        """)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == str(list(net.state_dict()))


# --------------------------------------------------------------------------- errors
def _load_error(mod, path):
    with pytest.raises(Exception) as e:
        mod.jit.load(str(path))
    return e.value


def test_load_errors_as_pytorch(tmp_path):
    missing = tmp_path / "missing.pt"
    err = _load_error(tl, missing)
    assert type(err) is ValueError
    assert str(err) == f"The provided filename {missing} does not exist"
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a zip file at all")
    g_err = _load_error(tl, garbage)
    assert type(g_err) is RuntimeError and "not a torchlike.jit archive" in str(g_err)
    ckpt = tmp_path / "sd.pt"
    tl.save(mlp(tl).state_dict(), ckpt)
    c_err = _load_error(tl, ckpt)
    assert type(c_err) is RuntimeError and "torchlike.load" in str(c_err)
    assert type(_load_error(tl, tmp_path)) is ValueError   # a directory
    if HAVE_TORCH:
        t_err = _load_error(torch, missing)
        assert type(t_err) is ValueError and str(t_err) == str(err)
        assert type(_load_error(torch, garbage)) is RuntimeError
        assert type(_load_error(torch, ckpt)) is RuntimeError
        tsd = tmp_path / "tsd.pt"
        torch.save(torch.nn.Linear(2, 2).state_dict(), tsd)
        assert type(_load_error(tl, tsd)) is RuntimeError


def test_save_errors_and_atomic_write(tmp_path, monkeypatch):
    m = mlp(tl)
    path = tmp_path / "m.pt"
    with pytest.raises(AttributeError, match="'Sequential' object has no attribute 'save'"):
        tl.jit.save(m, path)
    if HAVE_TORCH:
        with pytest.raises(AttributeError, match="'Sequential' object has no attribute 'save'"):
            torch.jit.save(mlp(torch), str(path))
    s = tl.jit.script(m)
    with pytest.raises(RuntimeError, match="has not been called yet"):
        s.save(path)
    assert os.listdir(tmp_path) == []
    tl.jit.script(m, example_inputs=[(tl.tensor(X_MLP),)]).save(path)   # shapes given
    before = path.read_bytes()

    def broken(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken)
    s(tl.tensor(X_MLP[:2]))
    with pytest.raises(OSError, match="disk full"):
        tl.jit.save(s, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.pt"]
    monkeypatch.undo()
    loaded = tl.jit.load(path)
    with pytest.raises(RuntimeError, match="made by torchlike.jit.load"):
        loaded.save(tmp_path / "again.pt")
    with pytest.raises(RuntimeError, match="no forward of its own"):
        loaded[0](tl.tensor(X_MLP))
    with pytest.raises(RuntimeError, match="expects 1 tensor input"):
        loaded(tl.tensor(X_MLP), tl.tensor(X_MLP))


@requires_torch
def test_public_names_exist_in_torch():
    for name in tl.jit.__all__:
        assert hasattr(torch.jit, name), name
