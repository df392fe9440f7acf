"""``torchlike.profiler`` and ``torchlike.autograd.profiler``: what is recorded (names,
counts, nesting, shapes), the table's layout against PyTorch's, ``schedule`` and
``on_trace_ready`` against PyTorch's, traces and errors. No timing is asserted."""

from __future__ import annotations

import gzip
import json
import os
import re
import warnings

import pytest

import torchlike as tl
from torchlike.overrides import TorchFunctionMode

from ._parity import FWS, HAVE_TORCH, requires_torch, torch


def _mod(fw):
    return tl if fw == "tl" else torch


def _example(fw, record_shapes=True):
    """The usual example: three adds, a matmul and a relu inside a named range."""
    m = _mod(fw)
    a, b = m.ones(3, 4), m.ones(4, 5)
    with m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU],
                            record_shapes=record_shapes) as prof:
        with m.profiler.record_function("model_inference"):
            for _ in range(3):
                a + a
            m.mm(a, b).relu()
    return prof


def _rows(table: str) -> dict:
    """name -> # of calls, from a table's body rows."""
    lines = table.splitlines()
    body = lines[3:lines.index(lines[0], 3)]
    return {re.split(r"\s{2,}", r.strip())[0]: int(re.split(r"\s{2,}", r.strip())[6])
            for r in body}


# ------------------------------------------------------------------ what is recorded
@pytest.mark.parametrize("fw", FWS)
def test_example_rows_counts_nesting(fw):
    prof = _example(fw)
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::add"].count == 3
    assert avg["aten::mm"].count == 1 and avg["aten::relu"].count == 1
    top = avg["model_inference"]
    assert top.count == 1 and top.is_user_annotation
    for e in avg.values():
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-6
        assert e.cpu_time == pytest.approx(e.cpu_time_total / e.count)
    events = prof.events()
    root = events[0]
    assert root.name == "model_inference" and root.cpu_parent is None
    # every op runs inside the range; the range's self time is what its children leave
    ops = [e for e in events if e.name in ("aten::add", "aten::mm", "aten::relu")]
    assert len(ops) == 5
    for e in ops:
        p = e.cpu_parent
        while p.cpu_parent is not None:
            p = p.cpu_parent
        assert p is root
        assert root.time_range.start <= e.time_range.start <= e.time_range.end \
            <= root.time_range.end
    kids = sum(c.cpu_time_total for c in root.cpu_children)
    assert root.self_cpu_time_total == pytest.approx(root.cpu_time_total - kids)


def test_names_and_the_general_calls():
    x = tl.ones(2, 3)
    with tl.profiler.profile() as prof:
        x.exp()
        tl.matmul(x, x.t())
        x.add_(1)
        tl.zeros(2)
        x[0]
    names = [e.name for e in prof.events()]
    assert names == ["aten::exp", "aten::t", "aten::matmul", "aten::add_", "aten::zeros",
                     "Tensor.__getitem__"]


def test_no_profiler_no_mode_and_nothing_left_behind():
    from torchlike._ops.torch_function import _modes
    before = _modes.on
    with tl.profiler.profile() as prof:
        assert _modes.on == before + 1
        tl.ones(2) + 1
    assert _modes.on == before
    n = len(prof.events())
    tl.ones(2) + 1   # after the profiler: not recorded
    assert len(prof.events()) == n


def test_user_mode_inside_profiler():
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with tl.profiler.profile() as prof:
        with Log():
            tl.ones(2).neg()
    assert seen == ["ones", "neg"]
    assert [e.name for e in prof.events()] == ["aten::ones", "aten::neg"]


def test_backward_and_compiled_call():
    lin = tl.nn.Linear(4, 3)
    x = tl.ones(2, 4, requires_grad=True)

    @tl.compile
    def f(t):
        return (t * 2).sin().sum()

    f(x.detach())
    with tl.profiler.profile() as prof:
        lin(x).relu().sum().backward()
        f(x.detach())
        f(x.detach())
    keys = {e.key: e.count for e in prof.key_averages()}
    assert "Tensor.backward" not in keys
    assert keys["autograd::engine::evaluate_function: AddmmBackward0"] == 1
    assert keys["ReluBackward0"] == 1
    assert keys["Torch-Compiled Region: test_backward_and_compiled_call.<locals>.f"] == 2
    assert "aten::sin" not in keys and "aten::mul" not in keys
    assert x.grad is not None


@pytest.mark.parametrize("fw", FWS)
def test_backward_nodes(fw):
    m = _mod(fw)
    x = m.ones(2, requires_grad=True)
    with m.profiler.profile() as prof:
        (x * 2).sin().sum().backward()
    evals = [e for e in prof.events()
             if e.name.startswith("autograd::engine::evaluate_function: ")]
    assert [e.name.split(": ")[1] for e in evals] == [
        "SumBackward0", "SinBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    for e in evals:
        assert e.cpu_parent is None
        assert [c.name for c in e.cpu_children] == [e.name.split(": ")[1]]
    assert x.grad.tolist() == pytest.approx([2 * float(m.cos(m.tensor(2.0)))] * 2)
    # outside the profiler the fused backward gives the same gradient
    x.grad = None
    (x * 2).sin().sum().backward()
    assert x.grad.tolist() == pytest.approx([2 * float(m.cos(m.tensor(2.0)))] * 2)


def test_compiled_call_on_another_thread_is_not_recorded():
    import threading

    @tl.compile
    def h(t):
        return t + 1

    x = tl.ones(2)
    h(x)
    with tl.profiler.profile() as prof:
        th = threading.Thread(target=lambda: h(x))
        th.start()
        th.join()
        x.neg()
    assert [e.name for e in prof.events()] == ["aten::neg"]


def test_compiled_first_call_under_profiler():
    @tl.compile
    def g(t):
        return t.cos() + 1

    x = tl.ones(3)
    with tl.profiler.profile() as prof:
        out = g(x)
    assert [e.name for e in prof.events()] == [
        "Torch-Compiled Region: test_compiled_first_call_under_profiler.<locals>.g"]
    assert out.tolist() == pytest.approx([1.5403023] * 3)


@pytest.mark.parametrize("fw", FWS)
def test_record_function_decorator_and_args(fw):
    m = _mod(fw)

    @m.profiler.record_function("deco")
    def f(x):
        return x * 2

    r = m.profiler.record_function("x", "argstr")
    assert (r.name, r.args) == ("x", "argstr")
    with m.profiler.profile() as prof:
        f(m.ones(2))
    ev = {e.name: e for e in prof.events()}
    assert ev["deco"].is_user_annotation and not ev["aten::mul"].is_user_annotation
    assert ev["aten::mul"].cpu_parent is ev["deco"]
    f(m.ones(2))   # no profiler: does nothing


@pytest.mark.parametrize("fw", FWS)
def test_record_shapes_grouping(fw):
    m = _mod(fw)
    with m.profiler.profile(record_shapes=True) as prof:
        m.ones(2, 3).neg()
        m.ones(4).neg()
        m.ones(4).neg()
    by_shape = [(e.key, e.input_shapes, e.count)
                for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::neg"]
    assert by_shape == [("aten::neg", [[2, 3]], 1), ("aten::neg", [[4]], 2)]
    plain = [e for e in prof.key_averages() if e.key == "aten::neg"]
    assert len(plain) == 1 and plain[0].count == 3 and plain[0].input_shapes == ""
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()


# ------------------------------------------------------------------ the table
def _layout(table: str) -> tuple:
    lines = table.splitlines()
    return lines[0] == lines[2] == lines[-2], lines[1], lines[-1].split(":")[0]


@pytest.mark.parametrize("shapes", [False, True])
@requires_torch
def test_table_layout_equals_pytorch(shapes):
    def table(fw):
        return _example(fw).key_averages(group_by_input_shape=shapes).table(
            sort_by="cpu_time_total", row_limit=10)

    t, ref = table("tl"), table("torch")
    # same separators, same header line past the name column, which is as wide as the
    # longest name (PyTorch's has rows, aten::resolve_conj and such, that torchlike has not)
    width = max(len(k) for k in _rows(t)) + 4
    assert t.splitlines()[1].index("Name") == width - 4
    # (the shapes column too is as wide as its longest entry: PyTorch lists every
    # parameter of add, alpha included, torchlike the arguments given)
    end = -1 if shapes else None
    cut = [([len(g) for g in lines[0].split()][1:end], re.split(r"\s{2,}", lines[1].strip()),
            lines[0] == lines[2] == lines[-2], lines[-1].split(":")[0])
           for lines in (t.splitlines(), ref.splitlines())]
    assert cut[0] == cut[1]
    assert _layout(t)[0] and _layout(ref)[0]
    assert t.endswith("\n") and ref.endswith("\n")
    rows, ref_rows = _rows(t), _rows(ref)
    for k in ("model_inference", "aten::add", "aten::mm", "aten::relu"):
        assert rows[k] == ref_rows[k]
    # the cells of a row line up under their header
    head = t.splitlines()[1]
    for r in t.splitlines()[3:3 + len(rows)]:
        assert len(r) == len(head)
        assert re.search(r"\d+\.\d\d%", r)


def test_table_options():
    prof = _example("tl")
    ka = prof.key_averages()
    t = ka.table(sort_by="count", row_limit=1, header="HEAD")
    lines = t.splitlines()
    assert lines[0] == "=" * len(lines[3].rstrip()) and lines[1] == "HEAD"
    assert len(lines) == 2 + 3 + 1 + 2 and "aten::add" in lines[5]
    top = ka.table(top_level_events_only=True)
    assert "This report only display top-level ops statistics" in top
    assert "model_inference" in top and "aten::mm" not in top
    assert ka.table(time_unit="s").splitlines()[-1].endswith("s")
    assert tl.profiler.EventList().table() == ""
    assert str(ka) == ka.table()


@pytest.mark.parametrize("fw", FWS)
def test_errors(fw):
    m = _mod(fw)
    p = m.profiler.profile()
    with pytest.raises(AssertionError, match="Profiler must be initialized before getting key"):
        p.key_averages()
    with pytest.raises(AssertionError, match="Profiler must be initialized before accessing"):
        p.events()
    prof = _example(fw)
    with pytest.raises(AttributeError, match="'FunctionEventAvg' object has no attribute 'foo'"):
        prof.key_averages().table(sort_by="foo")
    with pytest.raises(AssertionError, match=r"Invalid profiler schedule arguments\. Got "
                       r"wait=-1 \(need >= 0\), warmup=0 \(need >= 0\), active=1"):
        m.profiler.schedule(wait=-1, warmup=0, active=1)
    with pytest.raises(AssertionError, match="active=0 \\(need > 0\\)"):
        m.profiler.schedule(wait=0, warmup=1, active=0)
    with pytest.raises(AssertionError, match="No valid profiler activities found"):
        m.profiler.profile(activities=[])


# ------------------------------------------------------------------ schedule
SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
             dict(wait=0, warmup=0, active=1, repeat=2, skip_first=2),
             dict(wait=2, warmup=0, active=3, repeat=2, skip_first=1),
             dict(wait=3, warmup=1, active=1, repeat=1, skip_first=2, skip_first_wait=1)]


@pytest.mark.parametrize("kw", SCHEDULES)
def test_schedule_actions(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = [tl.profiler.schedule(**kw)(i).name for i in range(14)]
        if HAVE_TORCH:
            assert got == [torch.profiler.schedule(**kw)(i).name for i in range(14)]
    assert got.count("RECORD_AND_SAVE") >= 1


def test_schedule_warns_without_warmup():
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        tl.profiler.schedule(wait=1, warmup=0, active=1)


def _run_schedule(fw, kw, steps):
    m = _mod(fw)
    seen = []

    def ready(p):
        seen.append((p.step_num, [e.name for e in p.events() if e.name.startswith("Prof")],
                     sum(e.name == "aten::neg" for e in p.events())))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.profiler.profile(schedule=m.profiler.schedule(**kw), on_trace_ready=ready) as p:
            for _ in range(steps):
                m.ones(2).neg()
                p.step()
    return seen


@pytest.mark.parametrize("kw,steps", [(SCHEDULES[0], 10), (dict(SCHEDULES[0], repeat=2), 10),
                                      (SCHEDULES[2], 6), (dict(wait=1, warmup=1, active=3), 4)])
def test_on_trace_ready_steps(kw, steps):
    got = _run_schedule("tl", kw, steps)
    assert got
    if HAVE_TORCH:
        assert got == _run_schedule("torch", kw, steps)


def test_new_cycle_warns_once(monkeypatch):
    from torchlike.profiler import _profiler
    monkeypatch.setattr(_profiler, "_WARNINGS_SHOWN", set())
    p = tl.profiler.profile()
    p.start()
    p.stop()
    with pytest.warns(UserWarning, match="Profiler clears events at the end of each cycle"):
        p.start()
    p.stop()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.start()
        p.stop()


def test_profile_start_stop_by_hand_and_acc_events():
    p = tl.profiler.profile()
    p.start()
    tl.ones(2).neg()
    assert len(p.events()) == 0     # while recording: nothing yet, as in PyTorch
    p.stop()
    assert [e.name for e in p.events()] == ["aten::ones", "aten::neg"]
    k = tl.profiler._KinetoProfile(acc_events=True)
    for _ in range(2):
        k.prepare_trace()
        k.start_trace()
        tl.ones(2).neg()
        k.stop_trace()
    assert sum(e.name == "aten::neg" for e in k.events()) == 2


# ------------------------------------------------------------------ traces
def test_export_chrome_trace(tmp_path):
    prof = _example("tl")
    path = str(tmp_path / "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert sorted(e["name"] for e in xs) == sorted(e.name for e in prof.events())
    for e in xs:
        assert e["dur"] >= 0 and isinstance(e["ts"], float)
    cats = {e["name"]: e["cat"] for e in xs}
    assert cats["model_inference"] == "user_annotation" and cats["aten::mm"] == "cpu_op"
    assert [[3, 4], [4, 5]] in [e["args"].get("Input Dims") for e in xs]


@pytest.mark.parametrize("gz", [False, True])
def test_tensorboard_trace_handler(tmp_path, gz):
    d = str(tmp_path / "log")
    with tl.profiler.profile(schedule=tl.profiler.schedule(wait=0, warmup=1, active=1,
                                                           repeat=2),
                             on_trace_ready=tl.profiler.tensorboard_trace_handler(
                                 d, worker_name="w" if gz else None, use_gzip=gz)) as p:
        for _ in range(5):
            tl.ones(2).neg()
            p.step()
    files = sorted(os.listdir(d))
    assert len(files) == 2
    suffix = ".pt.trace.json.gz" if gz else ".pt.trace.json"
    for name in files:
        assert re.fullmatch(r"(w|.+_\d+)\.\d+" + re.escape(suffix), name)
        opener = gzip.open if gz else open
        with opener(os.path.join(d, name), "rt") as f:
            names = [e["name"] for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
        assert "aten::neg" in names and any(n.startswith("ProfilerStep#") for n in names)


def test_export_stacks(tmp_path):
    with tl.profiler.profile(with_stack=True) as prof:
        tl.ones(2).neg()
    path = str(tmp_path / "stacks.txt")
    prof.export_stacks(path)
    with open(path) as f:
        lines = f.read().splitlines()
    assert len(lines) == 2 and lines[1].rsplit(" ", 1)[0].endswith(";aten::neg")
    assert "test_profiler.py" in lines[1]


# ------------------------------------------------------------------ autograd.profiler
@pytest.mark.parametrize("fw", FWS)
def test_autograd_profiler(fw, tmp_path):
    ap = _mod(fw).autograd.profiler
    m = _mod(fw)
    with ap.profile(record_shapes=True) as p:
        with ap.record_function("blk"):
            m.ones(2, 2).neg()
    assert isinstance(p.function_events, ap.EventList)
    assert p.self_cpu_time_total > 0
    ka = {e.key: e.count for e in p.key_averages()}
    assert ka["blk"] == 1 and ka["aten::neg"] == 1
    assert "Input Shapes" in p.table(sort_by="count")
    p.export_chrome_trace(str(tmp_path / "t.json"))
    with open(tmp_path / "t.json") as f:
        assert json.load(f)["traceEvents"]
    with ap.emit_itt():
        m.ones(1)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        with ap.emit_nvtx():
            pass
    unfinished = ap.profile()
    assert len(unfinished.key_averages()) == 0 and unfinished.table() == ""
    assert unfinished.total_average().key == "Total" and repr(unfinished) == "[]"
    q = ap.profile(enabled=False)
    with q as entered:
        m.ones(1)
    assert entered is None
