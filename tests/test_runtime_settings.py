"""torchlike's process-wide settings against PyTorch's: thread counts (checked against the
threads XLA really runs), deterministic algorithms, typename, is_storage, is_signed."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl
from torchlike._core import runtime
from tests._parity import HAVE_TORCH, requires_torch, torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outcome(fn):
    """What a call gives: ('ok', result) or (exception type name, message)."""
    try:
        return "ok", fn()
    except Exception as e:   # noqa: BLE001 - the exception itself is what is compared
        return type(e).__name__, str(e)


@pytest.fixture(autouse=True)
def _restore_determinism():
    yield
    tl.use_deterministic_algorithms(False)
    if HAVE_TORCH:
        torch.use_deterministic_algorithms(False)


def _xla_thread_names() -> collections.Counter:
    names = collections.Counter()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                names[f.read().strip()] += 1
        except OSError:   # the thread ended meanwhile
            pass
    return names


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"),
                                reason="thread names are read from Linux's /proc")


# ---------------------------------------------------------------------------- threads
def test_thread_counts_are_positive_ints():
    for fn in (tl.get_num_threads, tl.get_num_interop_threads):
        n = fn()
        assert type(n) is int and n >= 1
    assert tl.get_num_interop_threads() >= tl.get_num_threads()
    if HAVE_TORCH:
        assert type(torch.get_num_threads()) is type(tl.get_num_threads())


@needs_proc
def test_get_num_threads_is_the_pool_xla_runs():
    x = tl.randn(128, 128)
    (x @ x).sum().item()    # the pool exists whether or not it ran anything; use it anyway
    assert _xla_thread_names()["tf_XLAEigen"] == tl.get_num_threads()


# A fresh process with a given environment reports its counts and the threads it runs.
_PROBE = r"""
import collections, json, os
import torchlike as tl
x = tl.randn(64, 64)
(x @ x).sum().item()
names = collections.Counter()
for t in os.listdir("/proc/self/task"):
    try:
        names[open(f"/proc/self/task/{t}/comm").read().strip()] += 1
    except OSError:
        pass
try:
    from jax._src import xla_bridge
    started = xla_bridge.backends_are_initialized()
except (ImportError, AttributeError):
    started = None
print(json.dumps({"threads": tl.get_num_threads(), "interop": tl.get_num_interop_threads(),
                  "eigen": names["tf_XLAEigen"], "total": sum(names.values()),
                  "started": started}))
"""


def _probe(**env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ("PJRT_NPROC", "NPROC")}
    env.update(env_vars)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_proc
def test_pjrt_nproc_sizes_the_pools_before_start():
    one = _probe(PJRT_NPROC="1")
    three = _probe(PJRT_NPROC="3")
    nproc = _probe(PJRT_NPROC="not a number", NPROC="5")
    # importing torchlike starts JAX's backend: the premise of Note [XLA's CPU thread pools]
    assert one["started"] in (True, None)
    # at least one thread per CPU device (two here)
    assert (one["threads"], one["interop"], one["eigen"]) == (2, 2, 2)
    assert (three["threads"], three["interop"], three["eigen"]) == (3, 3, 3)
    # an unparsable PJRT_NPROC falls through to NPROC, as in XLA
    assert (nproc["threads"], nproc["interop"], nproc["eigen"]) == (5, 5, 5)
    # the client (inter-op) pool grows with the intra-op one: every extra thread beyond
    # the intra-op pool's is the client pool's
    assert (three["total"] - one["total"]) - (three["eigen"] - one["eigen"]) == \
        three["interop"] - one["interop"]


def test_set_num_threads_to_the_pool_size_is_accepted():
    n = tl.get_num_threads()
    assert tl.set_num_threads(n) is None
    assert tl.set_num_threads(np.int64(n)) is None
    assert tl.set_num_interop_threads(tl.get_num_interop_threads()) is None
    assert tl.get_num_threads() == n


def test_set_num_threads_after_start_raises():
    n = tl.get_num_threads()
    with pytest.raises(RuntimeError, match=rf"pool has {n} threads.*PJRT_NPROC={n + 1}"):
        tl.set_num_threads(n + 1)
    m = tl.get_num_interop_threads()
    with pytest.raises(RuntimeError,
                       match=r"^Error: cannot set number of interop threads after parallel "
                             r"work has started or set_num_interop_threads called\. .*"
                             rf"PJRT_NPROC={m + 1}"):
        tl.set_num_interop_threads(m + 1)
    assert (tl.get_num_threads(), tl.get_num_interop_threads()) == (n, m)


def test_set_num_threads_below_device_count_explains():
    if len(jax.devices("cpu")) < 2:
        pytest.skip("needs several CPU devices (tests/conftest.py's XLA_FLAGS)")
    with pytest.raises(RuntimeError, match="at least one thread per CPU device"):
        tl.set_num_threads(1)


_BAD_COUNTS = [
    (0, "RuntimeError", "{} expects a positive integer"),
    (-1, "RuntimeError", "{} expects a positive integer"),
    (-2**31, "RuntimeError", "{} expects a positive integer"),
    (1.5, "RuntimeError", "{} expects an int, but got float"),
    ("2", "RuntimeError", "{} expects an int, but got str"),
    (True, "RuntimeError", "{} expects an int, but got bool"),
    (None, "RuntimeError", "{} expects an int, but got NoneType"),
    (np.float64(2), "RuntimeError", "{} expects an int, but got numpy.float64"),
    (np.True_, "RuntimeError", "{} expects an int, but got numpy.bool"),
    (2**31, "ValueError", "Overflow when unpacking long"),
    (np.int64(2**40), "ValueError", "Overflow when unpacking long"),
    (-2**63, "ValueError", "Overflow when unpacking long"),
    (2**63, "ValueError", "Overflow when unpacking long long"),
    (np.uint64(2**63), "ValueError", "Overflow when unpacking long long"),
]


@pytest.mark.parametrize("fn", ["set_num_threads", "set_num_interop_threads"])
@pytest.mark.parametrize("value,kind,message", _BAD_COUNTS,
                         ids=[repr(v) for v, _, _ in _BAD_COUNTS])
def test_thread_count_argument_errors(fn, value, kind, message):
    expected = (kind, message.format(fn))
    assert _outcome(lambda: getattr(tl, fn)(value)) == expected
    if HAVE_TORCH:
        assert _outcome(lambda: getattr(torch, fn)(value)) == expected


def test_tensor_thread_count_is_rejected():
    assert _outcome(lambda: tl.set_num_threads(tl.tensor(2))) == (
        "RuntimeError", "set_num_threads expects an int, but got Tensor")
    if HAVE_TORCH:
        assert _outcome(lambda: torch.set_num_threads(torch.tensor(2)))[1] == \
            "set_num_threads expects an int, but got Tensor"


# ----------------------------------------------------------------------- determinism
def _state(m):
    return (m.are_deterministic_algorithms_enabled(),
            m.is_deterministic_algorithms_warn_only_enabled(),
            m.get_deterministic_debug_mode())


def test_determinism_defaults():
    assert _state(tl) == (False, False, 0)
    if HAVE_TORCH:
        assert _state(tl) == _state(torch)


def test_use_deterministic_algorithms_on_cpu():
    assert jax.default_backend() == "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # XLA:CPU needs nothing: no warning either
        tl.use_deterministic_algorithms(True)
        assert _state(tl) == (True, False, 2)
        tl.use_deterministic_algorithms(True, warn_only=True)
        assert _state(tl) == (True, True, 1)
        tl.use_deterministic_algorithms(mode=False)
        assert _state(tl) == (False, False, 0)


_MODE_STEPS = [0, 1, 2, "default", "warn", "error", True, False]


def test_debug_mode_steps():
    expected = [(False, False, 0), (True, True, 1), (True, False, 2), (False, False, 0),
                (True, True, 1), (True, False, 2), (True, True, 1), (False, False, 0)]
    for step, state in zip(_MODE_STEPS, expected, strict=True):
        tl.set_deterministic_debug_mode(step)
        assert _state(tl) == state, step
        if HAVE_TORCH:
            torch.set_deterministic_debug_mode(step)
            assert _state(torch) == state, step


_DETERMINISM_ERRORS = {
    "mode int": (lambda m: m.use_deterministic_algorithms(1), (
        "TypeError", "_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
        "bool, not int")),
    "mode None": (lambda m: m.use_deterministic_algorithms(None), (
        "TypeError", "_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
        "bool, not NoneType")),
    "mode numpy bool": (lambda m: m.use_deterministic_algorithms(np.True_), (
        "TypeError", "_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
        "bool, not numpy.bool")),
    "warn_only int": (lambda m: m.use_deterministic_algorithms(True, warn_only=1), (
        "TypeError", "_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
        "not int")),
    "warn_only positional": (lambda m: m.use_deterministic_algorithms(True, False), (
        "TypeError", "use_deterministic_algorithms() takes 1 positional argument but 2 were "
        "given")),
    "debug 3": (lambda m: m.set_deterministic_debug_mode(3), (
        "RuntimeError", "invalid value of debug_mode, expected 0, 1, or 2, but got 3")),
    "debug -1": (lambda m: m.set_deterministic_debug_mode(-1), (
        "RuntimeError", "invalid value of debug_mode, expected 0, 1, or 2, but got -1")),
    "debug 'Warn'": (lambda m: m.set_deterministic_debug_mode("Warn"), (
        "RuntimeError", "invalid value of debug_mode, expected one of `default`, `warn`, "
        "`error`, but got Warn")),
    "debug float": (lambda m: m.set_deterministic_debug_mode(1.0), (
        "TypeError", "debug_mode must be str or int, but got <class 'float'>")),
    "debug None": (lambda m: m.set_deterministic_debug_mode(None), (
        "TypeError", "debug_mode must be str or int, but got <class 'NoneType'>")),
}


@pytest.mark.parametrize("case", list(_DETERMINISM_ERRORS))
def test_determinism_argument_errors(case):
    call, expected = _DETERMINISM_ERRORS[case]
    assert _outcome(lambda: call(tl)) == expected
    assert _state(tl) == (False, False, 0)
    if HAVE_TORCH:
        assert _outcome(lambda: call(torch)) == expected


def test_cpu_programs_are_deterministic():
    # what mode=True promises on XLA:CPU: the same results run after run, also for the
    # scatters and reductions that are not deterministic on a GPU
    tl.use_deterministic_algorithms(True)
    g = tl.Generator().manual_seed(0)
    a = tl.randn(300, 200, generator=g)
    b = tl.randn(200, 100, generator=g)
    idx = tl.randint(0, 7, (5000,), generator=g)
    src = tl.randn(5000, 3, generator=g)
    runs = [(a @ b, tl.zeros(7, 3).index_add(0, idx, src), (a * 1e3).sum())
            for _ in range(3)]
    for run in runs[1:]:
        for x, y in zip(runs[0], run, strict=True):
            assert np.array_equal(x.numpy(), y.numpy())


@pytest.fixture
def fake_backend(monkeypatch):
    """Pretend JAX's default backend is ``platform`` and XLA_FLAGS held ``flags`` when the
    backend started, to check what the setting does there without such a machine."""
    def use(platform: str, flags: str | None):
        monkeypatch.setattr(jax, "default_backend", lambda: platform)
        monkeypatch.setitem(runtime._STARTUP_ENV, "XLA_FLAGS", flags)
    return use


def test_gpu_without_deterministic_flag_raises(fake_backend):
    fake_backend("gpu", "--xla_force_host_platform_device_count=2")
    with pytest.raises(RuntimeError, match=r"XLA_FLAGS=--xla_gpu_deterministic_ops=true"):
        tl.use_deterministic_algorithms(True)
    assert _state(tl) == (False, False, 0)
    with pytest.raises(RuntimeError, match="non-deterministic"):
        tl.set_deterministic_debug_mode("error")
    assert _state(tl) == (False, False, 0)
    with pytest.warns(UserWarning, match="--xla_gpu_deterministic_ops=true"):
        tl.use_deterministic_algorithms(True, warn_only=True)
    assert _state(tl) == (True, True, 1)
    tl.use_deterministic_algorithms(False)       # turning it off never raises
    assert _state(tl) == (False, False, 0)


@pytest.mark.parametrize("flags", [
    "--xla_gpu_deterministic_ops=true", "--xla_gpu_deterministic_ops",
    "--xla_gpu_exclude_nondeterministic_ops=1",
    "--xla_gpu_deterministic_ops=false --xla_force_host_platform_device_count=2 "
    "--xla_gpu_deterministic_ops=true"])
def test_gpu_with_deterministic_flag_is_honoured(fake_backend, flags):
    fake_backend("gpu", flags)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.use_deterministic_algorithms(True)
    assert _state(tl) == (True, False, 2)


@pytest.mark.parametrize("flags", ["--xla_gpu_deterministic_ops=false",
                                   "--xla_gpu_deterministic_ops=true "
                                   "--noxla_gpu_deterministic_ops"])
def test_gpu_with_flag_turned_off_raises(fake_backend, flags):
    fake_backend("gpu", flags)
    with pytest.raises(RuntimeError, match="non-deterministic"):
        tl.use_deterministic_algorithms(True)


def test_other_accelerators_raise(fake_backend):
    fake_backend("tpu", "--xla_gpu_deterministic_ops=true")
    with pytest.raises(RuntimeError, match="'tpu' backend"):
        tl.use_deterministic_algorithms(True)
    with pytest.warns(UserWarning, match="'tpu' backend"):
        tl.set_deterministic_debug_mode("warn")
    assert _state(tl) == (True, True, 1)


def test_xla_flags_are_read_once_but_compiler_options_per_program(tmp_path, monkeypatch):
    # the ground of Note [Deterministic algorithms on XLA]: XLA_FLAGS set after the
    # backend started are not read, while JAX passes per-program compiler options on,
    # the GPU determinism flags included (accepted, and without effect, on the CPU)
    late, per_program = tmp_path / "late", tmp_path / "per_program"
    monkeypatch.setenv("XLA_FLAGS", f"--xla_dump_to={late}")
    jax.jit(lambda x: x * 3.0 + 1.0)(jnp.ones(3)).block_until_ready()
    assert not late.exists()
    jax.jit(lambda x: x * 5.0 - 1.0,
            compiler_options={"xla_dump_to": str(per_program)})(jnp.ones(3))
    assert per_program.exists()
    options = {"xla_gpu_deterministic_ops": True, "xla_gpu_exclude_nondeterministic_ops": True}
    out = jax.jit(lambda x: x * 7.0, compiler_options=options)(jnp.ones(3))
    assert np.array_equal(np.asarray(out), np.full(3, 7.0))


# --------------------------------------------------------------------------- helpers
_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool", "complex64", "complex128"]


@pytest.mark.parametrize("name", _DTYPES)
def test_typename_of_tensors(name):
    t = tl.zeros(2, dtype=getattr(tl, name))
    assert tl.typename(t) == t.type()
    assert tl.typename(t).startswith("torchlike.") and tl.typename(t).endswith("Tensor")
    if HAVE_TORCH:
        theirs = torch.typename(torch.zeros(2, dtype=getattr(torch, name)))
        assert tl.typename(t) == "torchlike." + theirs[len("torch."):]


def _local_function():
    return None


def test_typename_of_other_objects():
    assert tl.typename(tl.tensor([1, 2, 3])) == "torchlike.LongTensor"
    assert tl.typename(tl.nn.Parameter(tl.zeros(2))) == "torchlike.FloatTensor"
    ours = {
        "Tensor": tl.typename(tl.Tensor), "dtype": tl.typename(tl.float32),
        "device": tl.typename(tl.device("cpu")), "Size": tl.typename(tl.Size([1])),
        "finfo": tl.typename(tl.finfo(tl.float32)),
        "Linear class": tl.typename(tl.nn.Linear), "Linear": tl.typename(tl.nn.Linear(1, 1)),
        "Parameter": tl.typename(tl.nn.Parameter),
        "int": tl.typename(3), "int type": tl.typename(int), "None": tl.typename(None),
        "function": tl.typename(_local_function), "list": tl.typename([1]),
    }
    assert ours["Tensor"] == "torchlike.Tensor" and ours["dtype"] == "torchlike.dtype"
    assert ours["device"] == "torchlike.device" and ours["Size"] == "torchlike.Size"
    assert ours["finfo"] == "torchlike.finfo"
    assert ours["Linear class"] == ours["Linear"] == "torchlike.nn.modules.linear.Linear"
    assert ours["Parameter"] == "torchlike.nn.parameter.Parameter"
    assert (ours["int"], ours["int type"], ours["None"], ours["list"]) == (
        "int", "int", "NoneType", "list")
    assert ours["function"] == "tests.test_runtime_settings._local_function"
    if HAVE_TORCH:
        theirs = {
            "Tensor": torch.typename(torch.Tensor), "dtype": torch.typename(torch.float32),
            "device": torch.typename(torch.device("cpu")),
            "Size": torch.typename(torch.Size([1])),
            "finfo": torch.typename(torch.finfo(torch.float32)),
            "Linear class": torch.typename(torch.nn.Linear),
            "Linear": torch.typename(torch.nn.Linear(1, 1)),
            "Parameter": torch.typename(torch.nn.Parameter),
            "int": torch.typename(3), "int type": torch.typename(int),
            "None": torch.typename(None), "function": torch.typename(_local_function),
            "list": torch.typename([1]),
        }
        assert {k: v.replace("torchlike.", "torch.") for k, v in ours.items()} == theirs


def _storage_cases(m):
    t = m.tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # PyTorch's TypedStorage deprecation warning
        typed = t.storage()
    return [m.is_storage(typed), m.is_storage(t.untyped_storage()), m.is_storage(t),
            m.is_storage([1, 2]), m.is_storage(None), m.is_storage(t.numpy())]


def test_is_storage():
    assert _storage_cases(tl) == [True, True, False, False, False, False]
    if HAVE_TORCH:
        assert _storage_cases(tl) == _storage_cases(torch)


@pytest.mark.parametrize("name", _DTYPES)
def test_is_signed(name):
    t = tl.zeros(2, dtype=getattr(tl, name))
    assert tl.is_signed(t) is t.is_signed()
    assert tl.is_signed(t) is (name not in ("uint8", "bool"))
    assert tl.is_signed(input=t) is t.is_signed()
    if HAVE_TORCH:
        assert tl.is_signed(t) is torch.is_signed(torch.zeros(2, dtype=getattr(torch, name)))


@pytest.mark.parametrize("value,type_name", [(3, "int"), (None, "NoneType"),
                                             (np.zeros(2), "numpy.ndarray")])
def test_is_signed_of_a_non_tensor(value, type_name):
    expected = ("TypeError",
                f"is_signed(): argument 'input' (position 1) must be Tensor, not {type_name}")
    assert _outcome(lambda: tl.is_signed(value)) == expected
    if HAVE_TORCH:
        assert _outcome(lambda: torch.is_signed(value)) == expected


@requires_torch
def test_public_names_exist_in_torch():
    for name in runtime.__all__:
        assert hasattr(torch, name), name
        assert getattr(tl, name) is getattr(runtime, name)


# --------------------------------------------------------------------------- float32 matmul
# precision (Note [float32 matmul precision] in torchlike/_core/xla.py)
@pytest.fixture
def precision_settings():
    """Restore the default settings, and JAX's caches, whatever a test changed."""
    yield
    tl.set_float32_matmul_precision("highest")
    tl.backends.cudnn.allow_tf32 = True


@pytest.fixture
def on_accelerator(monkeypatch, precision_settings):
    """Pretend the programs are compiled for an accelerator, where the settings apply."""
    from torchlike._core import xla
    jax.clear_caches()
    monkeypatch.setattr(xla, "_applies", lambda: True)
    yield
    jax.clear_caches()


def _precisions(fn, *shapes):
    """The precisions of the products and convolutions in the program ``fn`` traces."""
    args = [jnp.ones(s, jnp.float32) for s in shapes]
    text = str(jax.make_jaxpr(lambda *a: fn(*[tl.from_jax(x) for x in a]).jax())(*args))
    return sorted(set(p for p in ("HIGHEST", "HIGH,", "DEFAULT")
                      if f"precision=(Precision.{p.rstrip(',')}, " in text))


def test_matmul_precision_setting_and_legacy_flag(precision_settings):
    def state(m):
        return m.get_float32_matmul_precision(), m.backends.cuda.matmul.allow_tf32

    def run(m):
        out = [state(m)]
        for p in ("high", "medium", "highest"):
            m.set_float32_matmul_precision(p)
            out.append(state(m))
        with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or "
                                             "'medium'; the currentsetFloat32Matmul"):
            m.set_float32_matmul_precision("low")
        out.append(state(m))
        with pytest.raises(RuntimeError) as e:
            m.set_float32_matmul_precision(1)
        out.append(str(e.value))
        m.backends.cuda.matmul.allow_tf32 = False
        return out
    got = run(tl)
    assert got == [("highest", False), ("high", True), ("medium", True),
                   ("highest", False), ("highest", False),
                   "set_float32_matmul_precision expects a str, but got int"]
    tl.backends.cuda.matmul.allow_tf32 = True     # the older switch is "high"
    assert tl.get_float32_matmul_precision() == "high"
    tl.backends.cuda.matmul.allow_tf32 = False
    assert tl.get_float32_matmul_precision() == "highest"
    assert tl.backends.cudnn.allow_tf32 is True
    if HAVE_TORCH:
        assert run(torch) == got
        assert torch.backends.cudnn.allow_tf32 is True


def test_products_name_the_setting_on_every_backend(precision_settings):
    # the op table's products always name the setting's precision (by default HIGHEST,
    # so results do not depend on the backend); convolutions name none on the CPU
    assert _precisions(lambda a, b: a @ b, (4, 4), (4, 4)) == ["HIGHEST"]
    tl.set_float32_matmul_precision("medium")
    assert _precisions(lambda a, b: a @ b, (4, 4), (4, 4)) == ["DEFAULT"]
    assert _precisions(lambda a, b: tl.einsum("ij,jk->ik", a, b), (4, 4), (4, 4)) == \
        ["DEFAULT"]
    assert _precisions(lambda x, w: tl.nn.functional.conv2d(x, w),
                       (1, 2, 6, 6), (3, 2, 3, 3)) == []
    x = tl.randn(8, 8)
    assert tl.equal(x @ x, tl.from_jax(jnp.matmul(x.jax(), x.jax(), precision="highest")))


@pytest.mark.parametrize("setting, expected", [("highest", "HIGHEST"), ("high", "HIGH,"),
                                               ("medium", "DEFAULT")])
def test_matmul_precision_reaches_the_programs(on_accelerator, setting, expected):
    tl.set_float32_matmul_precision(setting)
    assert _precisions(lambda a, b: a @ b, (4, 4), (4, 4)) == [expected]
    assert _precisions(lambda a, b: tl.nn.functional.linear(a, b), (2, 4), (3, 4)) == \
        [expected]
    # backward programs too, and the fused backward of the eager engine
    a = tl.ones(4, 4, requires_grad=True)
    b = tl.ones(4, 4)
    assert _precisions(lambda g: tl.autograd.grad((a @ b * g).sum(), a)[0], (4, 4)) == \
        [expected]


def test_a_new_setting_retraces(on_accelerator):
    a = jnp.ones((4, 4), jnp.float32)
    f = tl.compile(lambda x: x @ x)
    assert _precisions(lambda x: x @ x, (4, 4)) == ["HIGHEST"]
    f(tl.from_jax(a))
    tl.set_float32_matmul_precision("high")
    assert _precisions(lambda x: x @ x, (4, 4)) == ["HIGH,"]
    f(tl.from_jax(a))
    assert f.stats.traces == 2


def test_convolutions_follow_cudnn_allow_tf32(on_accelerator):
    def conv(x, w):
        return tl.nn.functional.conv2d(x, w, padding=1)
    assert _precisions(conv, (1, 2, 6, 6), (3, 2, 3, 3)) == ["DEFAULT"]
    tl.backends.cudnn.allow_tf32 = False
    assert tl.backends.cudnn.allow_tf32 is False
    assert _precisions(conv, (1, 2, 6, 6), (3, 2, 3, 3)) == ["HIGHEST"]
