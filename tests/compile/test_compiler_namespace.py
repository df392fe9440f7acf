"""``torchlike.compiler`` (stances, reset, disable, is_compiling), ``torchlike.random``,
``torchlike.Stream``/``Event`` and the other top-level names that mirror PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, requires_torch, torch


@pytest.fixture(autouse=True)
def _default_stance():
    yield
    tl.compiler.set_stance("default")


def _counting(calls: list):
    """A function whose Python body appends to ``calls``: once per trace when compiled,
    once per call when run eagerly."""
    def f(x):
        calls.append(x.shape)
        return x * 2 + 1
    return f


def test_is_compiling_only_while_traced():
    seen = []

    def f(x):
        seen.append((tl.compiler.is_compiling(), tl.compiler.is_dynamo_compiling()))
        return x + 1

    assert tl.compiler.is_compiling() is False
    g = tl.compile(f)
    g(tl.ones(2))
    g(tl.ones(2))
    assert seen == [(True, True)]
    assert tl.compiler.is_exporting() is False
    assert tl.compiler.compile is tl.compile


def test_force_eager_runs_the_python_every_call_and_restores():
    calls = []
    g = tl.compile(_counting(calls))
    x = tl.arange(3.0)
    for _ in range(3):            # the third call takes the steady path
        g(x)
    assert len(calls) == 1 and g.stats.traces == 1
    with tl.compiler.set_stance("force_eager"):
        out = g(x)
        g(x)
    assert len(calls) == 3 and g.stats.traces == 1
    assert out.tolist() == [1.0, 3.0, 5.0]
    g(x)                          # back to the compiled program
    assert len(calls) == 3 and g.stats.traces == 1


def test_set_stance_call_and_decorator_forms():
    calls = []
    g = tl.compile(_counting(calls))
    x = tl.ones(2)
    tl.compiler.set_stance("force_eager")   # a plain call takes effect at once
    g(x)
    g(x)
    assert len(calls) == 2 and g.stats.traces == 0
    tl.compiler.set_stance("default")
    g(x)
    assert len(calls) == 3 and g.stats.traces == 1

    @tl.compiler.set_stance("force_eager")
    def run(y):
        return g(y)

    g(x)                          # decorating restored the stance at once
    assert len(calls) == 3
    run(x)
    run(x)
    assert len(calls) == 5
    g(x)
    assert len(calls) == 5 and g.stats.traces == 1


def test_eager_on_recompile_keeps_programs_made():
    calls = []
    g = tl.compile(_counting(calls))
    g(tl.ones(2))
    with tl.compiler.set_stance("eager_on_recompile"):
        out = g(tl.ones(3))        # would trace again: runs eagerly
        g(tl.ones(2))              # the program made before still runs
    assert out.tolist() == [3.0, 3.0, 3.0]
    assert g.stats.traces == 1
    assert calls == [(2,), (3,)]


def test_fail_on_recompile_raises_pytorchs_error():
    def step(x):
        return x.sum()
    g = tl.compile(step)
    with tl.compiler.set_stance("fail_on_recompile"):
        g(tl.ones(2))              # a first trace is not a recompile
        g(tl.ones(2))
        with pytest.raises(RuntimeError, match="Detected recompile when torchlike.compile "
                                               "stance is 'fail_on_recompile'.*'step'"):
            g(tl.ones(4))
    assert g.stats.traces == 1
    assert g(tl.ones(4)).item() == 4.0


def test_fail_on_recompile_names_a_compiled_modules_forward():
    m = tl.compile(tl.nn.Linear(2, 2))
    m(tl.ones(1, 2))
    with tl.compiler.set_stance("fail_on_recompile"), \
            pytest.raises(RuntimeError, match="function name: 'forward'"):
        m(tl.ones(3, 2))


def test_unknown_stance_raises_on_the_next_compiled_call():
    g = tl.compile(lambda x: x + 1)
    with tl.compiler.set_stance("bogus"):       # setting it raises nothing, as in PyTorch
        with pytest.raises(RuntimeError, match="invalid torchlike.compile stance 'bogus'"):
            g(tl.ones(1))
    assert g(tl.ones(1)).item() == 2.0


@pytest.mark.parametrize("fw", ["tl", "torch"] if HAVE_TORCH else ["tl"])
def test_force_backend_needs_the_default_stance(fw):
    lib = tl if fw == "tl" else torch
    with pytest.raises(RuntimeError, match="non-default stance cannot have force_backend"):
        lib.compiler.set_stance("force_eager", force_backend="eager")
    lib.compiler.set_stance("default")


def test_force_backend_eager_runs_eagerly():
    calls = []
    g = tl.compile(_counting(calls))
    with tl.compiler.set_stance(force_backend="eager"):
        g(tl.ones(1))
        g(tl.ones(1))
    assert len(calls) == 2 and g.stats.traces == 0


def test_reset_forgets_every_program():
    calls = []
    g = tl.compile(_counting(calls))
    m = tl.compile(tl.nn.Linear(2, 1))
    g(tl.ones(2))
    g(tl.ones(2))
    m(tl.ones(1, 2))
    tl.compiler.reset()
    assert g.stats.cache_size == 0
    g(tl.ones(2))
    m(tl.ones(1, 2))
    assert g.stats.traces == 2 and m.stats.traces == 2 and len(calls) == 2


def test_disable():
    calls = []
    f = _counting(calls)
    d = tl.compiler.disable(f)
    assert d is not f and d.__name__ == "f"
    g = tl.compile(d)             # a disabled function is returned uncompiled
    assert not isinstance(g, type(tl.compile(f)))
    g(tl.ones(1))
    g(tl.ones(1))
    assert len(calls) == 2
    d2 = tl.compiler.disable(recursive=False)(f)
    assert d2(tl.ones(1)).item() == 3.0

    # called from a compiled function it is traced into the caller's program
    outer = tl.compile(lambda x: d(x) - 1)
    assert outer(tl.ones(2)).tolist() == [2.0, 2.0]
    outer(tl.ones(2))
    assert outer.stats.traces == 1


def test_pass_through_helpers():
    f = _counting([])
    assert tl.compiler.allow_in_graph(f) is f
    assert tl.compiler.assume_constant_result(f) is f
    assert tl.compiler.cudagraph_mark_step_begin() is None
    assert tl.compiler.list_backends() == ["inductor"]
    assert tl.compiler.list_backends(None) == ["aot_eager", "eager", "inductor"]
    if HAVE_TORCH:
        assert set(tl.compiler.list_backends(None)) <= set(torch.compiler.list_backends(None))


# ----------------------------------------------------------------------------- torchlike.random

def test_random_module_names_and_fork_rng():
    names = {"set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
             "fork_rng", "thread_safe_generator"}
    assert names <= set(tl.random.__all__)
    if HAVE_TORCH:
        assert set(torch.random.__all__) <= set(tl.random.__all__)
    tl.random.manual_seed(3)
    assert tl.random.initial_seed() == 3
    with tl.random.fork_rng():
        inside = tl.rand(3)
    after = tl.rand(3)
    assert np.array_equal(inside.numpy(), after.numpy())   # the fork restored the state
    with tl.random.fork_rng(enabled=False):
        tl.rand(3)
    assert not np.array_equal(tl.rand(3).numpy(), after.numpy())
    assert tl.random.thread_safe_generator() is None
    state = tl.random.get_rng_state()
    a = tl.rand(2)
    tl.random.set_rng_state(state)
    assert np.array_equal(tl.rand(2).numpy(), a.numpy())


# ----------------------------------------------------------------------------- Stream, Event

def _cpu_or_skip():
    if tl.cuda.is_available():
        pytest.skip("the default stream is an accelerator's here")


@pytest.mark.parametrize("fw", ["tl", "torch"] if HAVE_TORCH else ["tl"])
def test_cpu_stream_and_event(fw):
    _cpu_or_skip()
    lib = tl if fw == "tl" else torch
    s = lib.Stream()
    assert repr(s) == f"{lib.__name__}.Stream device_type=cpu, device_index=-1, stream_id=0"
    assert (s.device_type, s.device_index, s.stream_id) == (0, -1, 0)
    assert str(s.device) == "cpu"
    assert s.query() is True and s.synchronize() is None
    assert s == lib.Stream("cpu") and hash(s) == hash(lib.Stream(device="cpu"))
    e = lib.Event(enable_timing=True)
    assert repr(e) == (f"{lib.__name__}.Event device_type=cpu, device_index=-1, event_flag=1, "
                       "event_id=0")
    assert repr(lib.Event()).endswith("event_flag=0, event_id=0")
    assert e.query() is True and e.synchronize() is None and e.wait() is None
    with pytest.raises(RuntimeError, match="cpu backend doesn't support events."):
        e.record()
    with pytest.raises(RuntimeError, match="cpu backend doesn't support events."):
        s.record_event()
    with pytest.raises(ValueError, match="Both events must be recorded"):
        e.elapsed_time(lib.Event(enable_timing=True))
    with pytest.raises(ValueError, match="enable_timing=True"):
        e.elapsed_time(lib.Event())


def test_stream_on_a_missing_accelerator_raises():
    _cpu_or_skip()
    with pytest.raises(RuntimeError):
        tl.Stream("cuda")


# ----------------------------------------------------------------------------- other names

def test_error_classes_and_to_dlpack():
    assert tl.OutOfMemoryError is tl.cuda.OutOfMemoryError
    assert issubclass(tl.OutOfMemoryError, RuntimeError)
    assert issubclass(tl.AcceleratorError, RuntimeError)
    t = tl.arange(4.0)
    back = tl.utils.dlpack.from_dlpack(tl.to_dlpack(t))
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]


@requires_torch
def test_the_same_names_as_torch():
    for name in ("compiler", "random", "Stream", "Event", "OutOfMemoryError",
                 "AcceleratorError", "to_dlpack"):
        assert hasattr(torch, name) and hasattr(tl, name), name
    ours = set(tl.compiler.__all__)
    assert ours <= set(dir(torch.compiler))
