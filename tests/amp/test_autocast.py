"""``torchlike.autocast`` against ``torch.autocast`` on the CPU: every table op PyTorch's
CPU autocast lists, over its sample inputs, in both lower-precision dtypes (values,
dtypes, errors); the layers of a training step; the state functions, nesting,
decorators, threads, the weight cache, custom_fwd/custom_bwd and compiled steps."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.autocast_policy import POLICIES
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS

from .._parity import FWS, HAVE_TORCH, assert_same, convert, fw_module, requires_torch, torch

LOWER = ["bfloat16", "float16"]


def _cpu_cases():
    cases = []
    for spec in OPS.values():
        if not spec.autocast or "cpu" not in spec.autocast or spec.name.startswith("_"):
            continue
        if not (spec.function or spec.method):
            continue
        for i, smp in enumerate(samples_of(spec)):
            cases.append(pytest.param(spec, smp, id=f"{spec.name}-{i}"))
    return cases


CPU_CASES = _cpu_cases()


def _call(mod, spec, smp, args, kwargs):
    if smp.method or not spec.function:
        name = spec.name if spec.method is True else spec.method
        return getattr(args[0], name)(*args[1:], **kwargs)
    name = spec.name if spec.function is True else spec.function
    fn = mod
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn(*args, **kwargs)


def _run(fw, spec, smp, dtype, inputs=None):
    mod = fw_module(fw)
    args, kwargs = convert(smp.args, fw), convert(smp.kwargs, fw)
    if inputs is not None:   # the floating inputs in another dtype
        to = getattr(mod, inputs)

        def cast(v):
            if isinstance(v, mod.Tensor) and v.dtype in (mod.float32, mod.float64):
                return v.to(to)
            if isinstance(v, (list, tuple)):
                return type(v)(cast(w) for w in v)
            return v
        args, kwargs = cast(args), {k: cast(v) for k, v in kwargs.items()}
    try:
        with mod.autocast("cpu", dtype=getattr(mod, dtype)):
            return _call(mod, spec, smp, args, kwargs)
    except Exception as e:  # noqa: BLE001 - compared across frameworks below
        return e


def _compare(out, ref, case):
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"{case}: torch raised {ref!r}, torchlike {out!r}"
        assert isinstance(out, type(ref)) or type(out).__name__ == type(ref).__name__, \
            f"{case}: torch raised {type(ref).__name__}: {ref}; torchlike {out!r}"
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref, 2e-2, 2e-2)


# every listed op in bfloat16; float16 (the same casts to another dtype) for the
# lower-precision ops, whose values it changes
SWEEP = ([pytest.param(c.values[0], c.values[1], "bfloat16", id=c.id + "-bfloat16")
          for c in CPU_CASES]
         + [pytest.param(c.values[0], c.values[1], "float16", id=c.id + "-float16")
            for c in CPU_CASES if c.values[0].autocast["cpu"] == "lower"])


@requires_torch
@pytest.mark.parametrize("spec,smp,dtype", SWEEP)
def test_cpu_listed_ops_match_torch(spec, smp, dtype):
    """Float32 (and float64) samples: the lower-precision ops compute in ``dtype``, the
    float32 ones stay float32, as in PyTorch."""
    _compare(_run("tl", spec, smp, dtype), _run("torch", spec, smp, dtype), spec.name)


@requires_torch
@pytest.mark.parametrize("spec,smp", [c for c in CPU_CASES
                                      if c.values[0].autocast["cpu"] != "lower"])
def test_cpu_fp32_and_promote_ops_from_bfloat16_inputs(spec, smp):
    """Bfloat16 samples: the float32 ops compute in float32, the promoting ones in the
    widest input type."""
    _compare(_run("tl", spec, smp, "bfloat16", "bfloat16"),
             _run("torch", spec, smp, "bfloat16", "bfloat16"), spec.name)


def test_policies_cover_the_table():
    """Every table op PyTorch lists for CPU autocast has its policy here, and the CUDA
    lists name PyTorch's ops."""
    for name in ("matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "conv2d",
                 "conv_transpose2d", "prelu", "linalg_vecdot"):
        assert OPS[name].autocast["cpu"] == "lower", name
    for name in ("mse_loss", "nll_loss", "binary_cross_entropy", "linalg_svd", "cdist",
                 "prod", "inverse", "linalg_inv_ex", "trace"):
        assert OPS[name].autocast["cpu"] == "fp32", name
    for name in ("cat", "stack", "index_copy"):
        assert OPS[name].autocast["cpu"] == "promote", name
    for name in ("exp", "log", "pow", "layer_norm", "softplus"):
        assert OPS[name].autocast == {"cuda": "fp32"}, name
    for name in ("softmax", "log_softmax", "sum", "cumsum", "linalg_vector_norm"):
        assert OPS[name].autocast == {"cuda": "fp32_opt"}, name
    for name in ("add", "mul", "relu", "max_pool2d", "batch_norm", "dropout"):
        assert name not in OPS or OPS[name].autocast is None, name
    assert POLICIES["cross_entropy"] == {"cpu": "fp32"}


def test_cpu_lists_match_torchs_dispatcher():
    """The CPU list here is PyTorch's: every aten op with an AutocastCPU kernel."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed")
    names = torch._C._dispatch_get_all_op_names()
    for key, dev in (("AutocastCPU", "cpu"), ("AutocastCUDA", "cuda")):
        theirs = {n[6:].split(".")[0] for n in names if n.startswith("aten::")
                  and torch._C._dispatch_has_kernel_for_dispatch_key(n, key)}
        ours = {n for n, p in POLICIES.items() if dev in p}
        if dev == "cpu":   # aten::cross_entropy_loss is F.cross_entropy
            theirs = (theirs - {"cross_entropy_loss"}) | {"cross_entropy"}
        else:
            theirs.discard("binary_cross_entropy")   # refused on CUDA, see below
        assert ours == theirs, (dev, sorted(ours - theirs), sorted(theirs - ours))


# ---- layers and a training step ---------------------------------------------------

def _net(mod, seed=0):
    nn = mod.nn
    mod.manual_seed(seed)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 3)
            self.bn = nn.BatchNorm2d(6)
            self.fc = nn.Linear(6 * 6 * 6, 10)
            self.ln = nn.LayerNorm(10)

        def forward(self, x):
            x = mod.relu(self.bn(self.conv(x)))
            x = mod.nn.functional.max_pool2d(x, 2)
            return self.ln(self.fc(x.flatten(1)))
    return Net()


def _weights(net):
    return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}


@pytest.mark.parametrize("dtype", LOWER)
def test_training_step_like_torch(dtype):
    """Forward in autocast, loss, backward outside: every intermediate dtype, the loss,
    and the float32 gradients of the weights, as PyTorch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 14, 14)).astype(np.float32)
    y = rng.integers(0, 10, 4)
    res = {}
    ref_w = None
    for fw in FWS:
        mod = fw_module(fw)
        net = _net(mod)
        if ref_w is None:
            ref_w = _weights(net)
        else:
            net.load_state_dict({k: mod.tensor(v) for k, v in ref_w.items()})
        X, Y = mod.tensor(x), mod.tensor(y)
        with mod.autocast("cpu", dtype=getattr(mod, dtype)):
            h = net.conv(X)
            b = net.bn(h)
            out = net(X)
            loss = mod.nn.functional.cross_entropy(out, Y)
        loss.backward()
        res[fw] = (h, b, out, loss, [p.grad for p in net.parameters()])
        assert h.dtype is getattr(mod, dtype) and out.dtype is getattr(mod, dtype)
        assert loss.dtype is mod.float32
        assert all(p.grad.dtype is mod.float32 for p in net.parameters())
    if HAVE_TORCH:
        assert_same(res["tl"][:4], res["torch"][:4], 2e-2, 2e-2)
        assert_same(res["tl"][4], res["torch"][4], 5e-2, 5e-2)


@pytest.mark.parametrize("fw", FWS)
def test_weight_cache_shares_one_cast(fw):
    """Within one region, a float32 leaf that requires grad is cast once: both uses hang
    off the same ToCopyBackward0; a new region casts again."""
    mod = fw_module(fw)
    w = mod.randn(3, 3, requires_grad=True)
    x = mod.randn(2, 3)
    with mod.autocast("cpu"):
        a, b = x @ w, x @ w
        inner = [a.grad_fn.next_functions[1][0], b.grad_fn.next_functions[1][0]]
        with mod.autocast("cpu", cache_enabled=False):
            c, d = x @ w, x @ w
    with mod.autocast("cpu"):
        e = x @ w
    assert inner[0] is inner[1]
    assert inner[0].name() == "ToCopyBackward0"
    assert c.grad_fn.next_functions[1][0] is not d.grad_fn.next_functions[1][0]
    assert e.grad_fn.next_functions[1][0] is not inner[0]
    u = x.clone().requires_grad_()   # any float32 leaf that requires grad
    with mod.autocast("cpu"):
        f, g = u @ w, u @ w
    assert f.grad_fn.next_functions[0][0] is g.grad_fn.next_functions[0][0]


@pytest.mark.parametrize("fw", FWS)
def test_not_autocast(fw):
    """In-place ops, ``out=`` calls, float64 and integer tensors, explicit ``dtype=``,
    ops off the lists and ``enabled=False`` regions keep their dtypes."""
    mod = fw_module(fw)
    a, b = mod.randn(3, 3), mod.randn(3, 3)
    with mod.autocast("cpu"):
        c = a.clone()
        c.addmm_(a, b)
        o = mod.empty(3, 3)
        mod.mm(a, b, out=o)
        assert c.dtype is mod.float32 and o.dtype is mod.float32
        assert mod.mm(a.double(), b.double()).dtype is mod.float64
        assert mod.mm(a.long(), b.long()).dtype is mod.int64
        assert (a + b).dtype is mod.float32 and a.exp().dtype is mod.float32
        assert a.sum(dtype=mod.float16).dtype is mod.float16
        with mod.autocast("cpu", enabled=False):
            assert (a @ b).dtype is mod.float32
        assert (a @ b).dtype is mod.bfloat16
        # mixed operands are cast alike
        assert mod.mm(a.half(), b).dtype is mod.bfloat16
        assert mod.cat([a.bfloat16(), b]).dtype is mod.float32
        assert mod.stack([a.bfloat16(), b.bfloat16()]).dtype is mod.bfloat16
    assert (a @ b).dtype is mod.float32


@pytest.mark.parametrize("fw", FWS)
def test_state_functions_and_nesting(fw):
    mod = fw_module(fw)
    assert not mod.is_autocast_enabled("cpu") and not mod.is_autocast_enabled()
    assert mod.get_autocast_dtype("cpu") is mod.bfloat16
    assert mod.get_autocast_dtype("cuda") is mod.float16
    assert mod.amp.is_autocast_available("cpu")
    with mod.autocast("cpu", dtype=mod.float16):
        assert mod.is_autocast_enabled("cpu") and mod.get_autocast_dtype("cpu") is mod.float16
        with mod.autocast("cpu", enabled=False):
            assert not mod.is_autocast_enabled("cpu")
            assert mod.get_autocast_dtype("cpu") is mod.float16
        with mod.autocast("cpu", dtype=mod.bfloat16):
            assert mod.get_autocast_dtype("cpu") is mod.bfloat16
        assert mod.get_autocast_dtype("cpu") is mod.float16
    assert not mod.is_autocast_enabled("cpu") and mod.get_autocast_dtype("cpu") is mod.bfloat16

    @mod.autocast("cpu")
    def f(a):
        assert mod.is_autocast_enabled("cpu")
        return a @ a
    assert f(mod.ones(2, 2)).dtype is mod.bfloat16
    assert not mod.is_autocast_enabled("cpu")
    mod.set_autocast_enabled("cpu", True)
    try:
        assert (mod.ones(2, 2) @ mod.ones(2, 2)).dtype is mod.bfloat16
    finally:
        mod.set_autocast_enabled("cpu", False)
    # an exception leaves the state as it was
    with pytest.raises(ValueError):
        with mod.autocast("cpu"):
            raise ValueError
    assert not mod.is_autocast_enabled("cpu")


@pytest.mark.parametrize("fw", FWS)
def test_thread_local(fw):
    mod = fw_module(fw)
    seen = []
    with mod.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append(
            ((mod.ones(2, 2) @ mod.ones(2, 2)).dtype, mod.is_autocast_enabled("cpu"))))
        t.start()
        t.join()
    assert seen == [(mod.float32, False)]


@pytest.mark.parametrize("fw", FWS)
def test_errors_and_warnings(fw):
    mod = fw_module(fw)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mod.autocast(mod.device("cpu"))
    with pytest.raises(RuntimeError, match="xyz"):
        mod.autocast("xyz")
    with pytest.raises(TypeError, match="requires a callable"):
        mod.autocast("cpu")(3)
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not "
                                         "supported. Disabling autocast"):
        ac = mod.autocast("cpu", dtype=mod.float32)
    with ac:
        assert not mod.is_autocast_enabled("cpu")
    if not mod.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported"
                                             ". Disabling autocast."):
            ac = mod.autocast("cuda")
        with ac:
            assert (mod.ones(2, 2) @ mod.ones(2, 2)).dtype is mod.float32


@pytest.mark.parametrize("fw", FWS)
def test_deprecated_device_spellings(fw):
    mod = fw_module(fw)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        ac = mod.cpu.amp.autocast()
    if fw == "tl":   # PyTorch's warning is not always raised again within one process
        assert any(issubclass(w.category, FutureWarning) and "torch.cpu.amp.autocast(args...)"
                   "` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead."
                   in str(w.message) for w in got)
    with ac:
        assert (mod.ones(2, 2) @ mod.ones(2, 2)).dtype is mod.bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ac = mod.cuda.amp.autocast(dtype=mod.float16)
        assert ac.device == "cuda" and ac.fast_dtype is mod.float16


@pytest.mark.parametrize("fw", FWS)
def test_custom_fwd_bwd(fw):
    """``cast_inputs`` casts a custom Function's inputs and runs its forward with autocast
    off; ``custom_bwd`` runs backward under the forward's state."""
    mod = fw_module(fw)
    seen = {}

    class Mul(mod.autograd.Function):
        @staticmethod
        @mod.amp.custom_fwd(device_type="cpu", cast_inputs=mod.float32)
        def forward(ctx, a, b):
            seen["fwd"] = (a.dtype, b.dtype, mod.is_autocast_enabled("cpu"))
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        @mod.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = mod.is_autocast_enabled("cpu")
            a, b = ctx.saved_tensors
            return g @ b.t(), a.t() @ g

    a = mod.randn(2, 3, requires_grad=True)
    b = mod.randn(3, 2).bfloat16().requires_grad_()
    with mod.autocast("cpu"):
        out = Mul.apply(a, b)
    assert out.dtype is mod.float32
    out.sum().backward()
    assert seen == {"fwd": (mod.float32, mod.float32, False), "bwd": False}
    assert a.grad.dtype is mod.float32 and b.grad.dtype is mod.bfloat16

    class Plain(mod.autograd.Function):
        @staticmethod
        @mod.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a):
            seen["plain"] = mod.is_autocast_enabled("cpu")
            return (a @ a).float()

        @staticmethod
        @mod.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["plain_bwd"] = mod.is_autocast_enabled("cpu")
            return g
    x = mod.randn(2, 2, requires_grad=True)
    with mod.autocast("cpu"):
        y = Plain.apply(x)
    y.sum().backward()
    assert seen["plain"] is True and seen["plain_bwd"] is True
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mod.amp.custom_fwd(device_type=3)


# ---- compiled -------------------------------------------------------------------

def test_compiled_step_matches_eager():
    """A step that autocasts its forward compiles to the same updates as in eager mode;
    the autocast state is part of the cache key (calling it outside a region retraces)."""
    x = tl.randn(8, 5)
    y = tl.randint(0, 3, (8,))

    def make():
        tl.manual_seed(0)
        net = tl.nn.Sequential(tl.nn.Linear(5, 16), tl.nn.ReLU(), tl.nn.Linear(16, 3))
        opt = tl.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            with tl.autocast("cpu"):
                out = net(x)
                loss = tl.nn.functional.cross_entropy(out, y)
            loss.backward()
            opt.step()
            return out, loss
        return net, step

    net_e, step_e = make()
    net_c, step_c = make()
    step_c = tl.compile(step_c)
    for _ in range(5):
        (oe, le), (oc, lc) = step_e(x, y), step_c(x, y)
        assert oc.dtype is tl.bfloat16 and lc.dtype is tl.float32
        np.testing.assert_allclose(oc.float().numpy(), oe.detach().float().numpy(), atol=5e-2)
        np.testing.assert_allclose(lc.item(), le.item(), rtol=1e-2)
    for pe, pc in zip(net_e.parameters(), net_c.parameters()):
        np.testing.assert_allclose(pc.detach().numpy(), pe.detach().numpy(), rtol=1e-2,
                                   atol=1e-3)

    f = tl.compile(lambda a, b: a @ b)
    a = tl.randn(3, 3)
    assert f(a, a).dtype is tl.float32
    with tl.autocast("cpu"):
        assert f(a, a).dtype is tl.bfloat16
        assert f(a, a).dtype is tl.bfloat16
    assert f(a, a).dtype is tl.float32
    assert f.stats.traces == 2


def _functions(mod):
    F = mod.nn.functional
    r = mod.randn
    t = mod.tensor([1.0, -1.0, 1.0])
    return {
        "cross_entropy": lambda h: F.cross_entropy(h(r(3, 4)), mod.tensor([0, 2, 1])),
        "l1_loss": lambda h: F.l1_loss(h(r(3, 4)), h(r(3, 4))),
        "kl_div": lambda h: F.kl_div(h(r(3, 4)), h(r(3, 4).abs()), reduction="batchmean"),
        "poisson_nll_loss": lambda h: F.poisson_nll_loss(h(r(3, 4)), h(r(3, 4).abs())),
        "cosine_embedding_loss": lambda h: F.cosine_embedding_loss(h(r(3, 4)), h(r(3, 4)), t),
        "margin_ranking_loss": lambda h: F.margin_ranking_loss(h(r(3)), h(r(3)), t),
        "hinge_embedding_loss": lambda h: F.hinge_embedding_loss(h(r(3, 4)), h(r(3, 4))),
        "triplet_margin_loss": lambda h: F.triplet_margin_loss(h(r(3, 4)), h(r(3, 4)),
                                                               h(r(3, 4))),
        "torch.kl_div": lambda h: mod.kl_div(h(r(3, 4)), h(r(3, 4)), 1),
        "view_as_complex": lambda h: mod.view_as_complex(h(r(3, 2))),
        "svd": lambda h: mod.svd(h(r(3, 3)))[1],
        "scaled_dot_product_attention": lambda h: F.scaled_dot_product_attention(
            h(r(2, 3, 4)), h(r(2, 3, 4)), h(r(2, 3, 4))),
        "index_put": lambda h: h(r(3)).index_put((mod.tensor([0]),), h(r(1))),
        "rnn_tanh_cell": lambda h: mod.rnn_tanh_cell(h(r(2, 3)), h(r(2, 4)), h(r(4, 3)),
                                                     h(r(4, 4))),
        "rnn_relu_cell": lambda h: mod.rnn_relu_cell(h(r(2, 3)), r(2, 4), h(r(4, 3)),
                                                     h(r(4, 4)), h(r(4)), h(r(4))),
        "lstm_cell": lambda h: mod.lstm_cell(h(r(2, 3)), (h(r(2, 4)), r(2, 4)), h(r(16, 3)),
                                             h(r(16, 4)))[1],
        "lstm_cell_h": lambda h: mod.lstm_cell(h(r(2, 3)), (h(r(2, 4)), r(2, 4)),
                                               h(r(16, 3)), h(r(16, 4)))[0],
        "gru_cell": lambda h: mod.gru_cell(h(r(2, 3)), r(2, 4), h(r(12, 3)), h(r(12, 4))),
        "nn.LSTMCell": lambda h: mod.nn.LSTMCell(3, 4)(h(r(2, 3)))[1],
        "nn.GRUCell": lambda h: mod.nn.GRUCell(3, 4)(h(r(2, 3))),
        "linear": lambda h: F.linear(h(r(2, 3)), h(r(4, 3)), h(r(4))),
        "conv2d": lambda h: F.conv2d(h(r(1, 2, 5, 5)), h(r(3, 2, 3, 3))),
        "mha": lambda h: mod.nn.MultiheadAttention(4, 2)(h(r(3, 1, 4)), h(r(3, 1, 4)),
                                                         h(r(3, 1, 4)))[0],
    }


@requires_torch
@pytest.mark.parametrize("inputs", ["float32", "bfloat16"])
@pytest.mark.parametrize("name", list(_functions(tl)))
def test_python_level_functions_like_torch(name, inputs):
    """Functions that are not table ops here autocast as PyTorch's ops do (dtypes)."""
    got = {}
    for fw in FWS:
        mod = fw_module(fw)
        to = getattr(mod, inputs)
        mod.manual_seed(0)
        with mod.autocast("cpu"):
            got[fw] = _functions(mod)[name](lambda x: x.to(to)).dtype
    assert str(got["tl"]).replace("torchlike.", "torch.") == str(got["torch"])


@pytest.mark.parametrize("fw", FWS)
def test_torch_function_override_sees_uncast_arguments(fw):
    """An override runs before the autocast casts (they are PyTorch's dispatcher's); its
    own call of the op is cast."""
    mod = fw_module(fw)
    seen = []

    class Logged(mod.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") == "mm":
                seen.append(tuple(a.dtype for a in args))
            return super().__torch_function__(func, types, args, kwargs or {})

    a = mod.randn(2, 2).as_subclass(Logged)
    with mod.autocast("cpu"):
        out = mod.mm(a, mod.randn(2, 2))
    assert seen == [(mod.float32, mod.float32)]
    assert out.dtype is mod.bfloat16
