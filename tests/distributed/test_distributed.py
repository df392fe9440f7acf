"""``torchlike.distributed``, ``DistributedDataParallel``, ``DataParallel`` and
``torchlike.multiprocessing.spawn``. The multi-process tests start two processes on
127.0.0.1 that meet through ``jax.distributed`` with gloo CPU collectives; the
single-process ones use a group of one rank, which needs no ``jax.distributed``."""

from __future__ import annotations

import os
import pickle
import socket

import numpy as np
import pytest

import torchlike as tl
import torchlike.distributed as dist
import torchlike.multiprocessing as tmp
from torchlike.nn.parallel import DistributedDataParallel as DDP

from .._parity import FWS, HAVE_TORCH, fw_module, torch
from . import _workers

WORLD = 2


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


@pytest.fixture
def master(monkeypatch):
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", _free_port())


@pytest.fixture
def world1(master):
    dist.init_process_group("gloo", rank=0, world_size=1)
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


# -- two processes ----------------------------------------------------------------

@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dist"))
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": _free_port()}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        tmp.spawn(_workers.collectives_and_ddp, args=(WORLD, out), nprocs=WORLD)
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    got = []
    for r in range(WORLD):
        with open(os.path.join(out, f"rank{r}.pkl"), "rb") as f:
            got.append(pickle.load(f))
    return got


def test_group_queries(ranks):
    for r, g in enumerate(ranks):
        assert (g["rank"], g["world"], g["backend"], g["initialized"]) == (r, WORLD, "gloo", True)
        assert g["after_destroy"] is False


def test_all_reduce_ops(ranks):
    base = np.array([1.0, 2.0, -3.0], np.float32)
    scaled = [base * (r + 1) for r in range(WORLD)]
    want = {"SUM": sum(scaled), "AVG": sum(scaled) / WORLD, "PRODUCT": np.prod(scaled, 0),
            "MIN": np.min(scaled, 0), "MAX": np.max(scaled, 0)}
    for g in ranks:
        for op, w in want.items():
            np.testing.assert_allclose(g[f"all_reduce_{op}"], w, rtol=1e-6)
        vals, dtype = g["all_reduce_int"]
        np.testing.assert_array_equal(vals, np.array([1, 2, 3]) * 3)
        assert dtype == "torchlike.int64"
        assert g["async_wait"] is True
        # the all-reduce wrote through a view: its base sees it
        np.testing.assert_array_equal(g["view_base"], [[0, 0, 0], [3, 3, 3]])


def test_broadcast_gather_scatter(ranks):
    for r, g in enumerate(ranks):
        np.testing.assert_array_equal(g["broadcast"], [2.0, 2.0])
        np.testing.assert_array_equal(np.stack(g["all_gather"]), [[1, 1], [2, 2]])
        np.testing.assert_array_equal(g["all_gather_into_tensor"], [1, 1, 2, 2])
        # rank i gets chunk i of the sum over ranks of arange(4) * (rank + 1)
        np.testing.assert_array_equal(g["reduce_scatter_tensor"],
                                      (np.arange(4.0) * 3)[2 * r:2 * r + 2])
        np.testing.assert_array_equal(g["reduce"], [3, 3] if r == 0 else [2, 2])
        assert (g["gather"] is None) == (r != 0)
        np.testing.assert_array_equal(g["scatter"], [10.0 * r] * 2)
        # rank r's output j is rank j's input r
        np.testing.assert_array_equal(np.concatenate(g["all_to_all"]),
                                      [10.0 * j + r for j in range(WORLD)])
        assert g["all_gather_object"] == [{"rank": 0, "tag": "x"}, {"rank": 1, "tag": "xx"}]
        assert g["broadcast_object_list"] == ["from", 0]
    np.testing.assert_array_equal(np.concatenate(ranks[0]["gather"]), [1, 2])


def _reference_training(init: dict, data: list, fw):
    """One process, the ranks' batches concatenated: DDP's averaged gradient of equal
    batches is the gradient of the mean loss over their concatenation."""
    fw.manual_seed(0)
    model = fw.nn.Sequential(fw.nn.Linear(4, 8), fw.nn.Tanh(), fw.nn.Linear(8, 2))
    model.load_state_dict({k: fw.tensor(v) for k, v in init.items()})
    opt = fw.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for x, y in data:
        opt.zero_grad()
        xs, ys = fw.tensor(x.reshape(-1, 4)), fw.tensor(y.reshape(-1, 2))
        fw.nn.functional.mse_loss(model(xs), ys).backward()
        opt.step()
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


def test_ddp_replicas_start_equal_and_stay_equal(ranks):
    a, b = ranks
    for k in a["ddp_init"]:
        np.testing.assert_array_equal(a["ddp_init"][k], b["ddp_init"][k])
        np.testing.assert_array_equal(a["ddp_final"][k], b["ddp_final"][k])
    assert any(not np.array_equal(a["ddp_init"][k], a["ddp_final"][k]) for k in a["ddp_init"])


@pytest.mark.parametrize("fw", FWS)
def test_ddp_matches_one_process_on_the_whole_batch(ranks, fw):
    m = fw_module(fw)
    g = ranks[0]
    want = _reference_training(g["ddp_init"], g["ddp_data"], m)
    for k, v in want.items():
        np.testing.assert_allclose(g["ddp_final"][k], v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fw", FWS)
def test_sync_batch_norm_is_batch_norm_of_the_whole_batch(ranks, fw):
    m = fw_module(fw)
    g = ranks[0]
    for k in g["sync_bn_final"]:
        np.testing.assert_array_equal(g["sync_bn_final"][k], ranks[1]["sync_bn_final"][k])
    model = m.nn.Sequential(m.nn.Linear(4, 6), m.nn.BatchNorm1d(6), m.nn.ReLU(),
                            m.nn.Linear(6, 2))
    model.load_state_dict({k: m.tensor(v) for k, v in g["sync_bn_init"].items()})
    opt = m.optim.SGD(model.parameters(), lr=0.1)
    for x, y in g["ddp_data"][:2]:
        opt.zero_grad()
        out = model(m.tensor(x.reshape(-1, 4)))
        m.nn.functional.mse_loss(out, m.tensor(y.reshape(-1, 2))).backward()
        opt.step()
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(g["sync_bn_final"][k], v.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)


def test_ddp_no_sync_and_unused_parameters(ranks):
    for r, g in enumerate(ranks):
        np.testing.assert_array_equal(g["no_sync_local"], [[r + 1.0, r + 1.0]])
        # the accumulated local gradients (2 (r + 1)) averaged over the ranks: 3
        np.testing.assert_array_equal(g["no_sync_then_sync"], [[3.0, 3.0]])
        # a used on rank 0 only, b on rank 1 only: each averages with a zero
        np.testing.assert_array_equal(g["unused"]["a.weight"], [[0.5, 0.5]])
        np.testing.assert_array_equal(g["unused"]["b.weight"], [[0.5, 0.5]])
        assert g["unused"]["c.weight"] is None


def test_compiled_ddp_step_matches_eager(ranks):
    """A compiled DDP step (its all-reduce inside the program) trains as the eager one,
    with SyncBatchNorm too; it traces once (twice with momentum: the first step creates
    the optimizer's state)."""
    for g in ranks:
        state, losses, traces = g["compiled_ddp"]
        assert traces == 2 and len(losses) == 3
        for k, v in g["ddp_final"].items():
            np.testing.assert_allclose(state[k], v, rtol=1e-5, atol=1e-6, err_msg=k)
        assert "each collective of a compiled step must use the result" in \
            g["compiled_order_error"] and "broadcast_buffers=False" in g["compiled_order_error"]
        state, losses, traces = g["compiled_sync_bn"]
        assert traces == 1
        for k, v in g["sync_bn_final"].items():
            np.testing.assert_allclose(state[k], v, rtol=1e-5, atol=1e-6, err_msg=k)


def test_seed_ddp_example(tmp_path, master):
    tmp.spawn(_workers.seed_ddp_example, args=(WORLD, str(tmp_path)), nprocs=WORLD,
              join=True)
    states = []
    for r in range(WORLD):
        with open(tmp_path / f"seed{r}.pkl", "rb") as f:
            states.append(pickle.load(f))
    for k in states[0]:
        np.testing.assert_array_equal(states[0][k], states[1][k])


def test_spawn_raises_with_the_child_traceback():
    with pytest.raises(tmp.ProcessRaisedException) as ei:
        tmp.spawn(_workers.fails_on_rank_one, nprocs=2)
    msg = str(ei.value)
    assert "-- Process 1 terminated with the following error:" in msg
    assert "ValueError: rank 1 could not go on" in msg
    assert ei.value.error_index == 1


def test_spawn_refuses_fork():
    with pytest.raises(ValueError, match="fork"):
        tmp.start_processes(_workers.fails_on_rank_one, nprocs=1, start_method="fork")


# -- one process ------------------------------------------------------------------

def _raises(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("fw", FWS)
def test_uninitialized_errors(fw):
    m = fw_module(fw)
    d = m.distributed
    msg = "Default process group has not been initialized"
    assert not d.is_initialized() and d.is_available()
    _raises(d.get_rank, ValueError, msg)
    _raises(d.get_world_size, ValueError, msg)
    _raises(lambda: d.all_reduce(m.ones(2)), ValueError, msg)
    _raises(d.barrier, ValueError, msg)
    ddp = DDP if fw == "tl" else torch.nn.parallel.DistributedDataParallel
    _raises(lambda: ddp(m.nn.Linear(2, 2)), ValueError, msg)


@pytest.mark.parametrize("missing", ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"])
def test_env_rendezvous_names_the_missing_variable(monkeypatch, missing):
    env = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv(missing)
    _raises(lambda: dist.init_process_group("gloo"), ValueError,
            f"env:// rendezvous: environment variable {missing} expected, but not set")
    assert not dist.is_initialized()


def test_init_errors(master):
    _raises(lambda: dist.init_process_group("foo", rank=0, world_size=1), AssertionError,
            "Unknown backend type foo")
    _raises(lambda: dist.init_process_group("nccl", rank=0, world_size=1), RuntimeError,
            "Distributed package doesn't have NCCL built in")
    _raises(lambda: dist.init_process_group("gloo", rank=2, world_size=2), ValueError,
            "Invalid rank 2 for world size 2")
    _raises(lambda: dist.init_process_group("gloo", init_method="file:///tmp/x", rank=0,
                                            world_size=1), ValueError, "file:///tmp/x")
    # this process has tensors already: jax.distributed can no longer start
    _raises(lambda: dist.init_process_group("gloo", rank=0, world_size=2), RuntimeError,
            "before this process makes any tensor")
    assert not dist.is_initialized()
    _raises(dist.destroy_process_group, AssertionError, "Process group cannot be None")


def test_world_of_one(world1):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
    assert dist.group.WORLD is dist.GroupMember.WORLD is not None
    _raises(lambda: dist.init_process_group("gloo", rank=0, world_size=1), ValueError,
            "trying to initialize the default process group twice!")
    t = tl.tensor([1.0, 2.0])
    assert dist.all_reduce(t) is None and dist.all_reduce(t, async_op=True).is_completed()
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    _raises(lambda: dist.broadcast(t, src=1), RuntimeError, "invalid root rank: 1")
    _raises(lambda: dist.all_gather([tl.zeros(2), tl.zeros(2)], t), RuntimeError,
            "expected length 1, got 2")
    _raises(lambda: dist.all_reduce(t, op=dist.ReduceOp.BAND), RuntimeError, "float32")
    _raises(lambda: dist.new_group([0, 1]), NotImplementedError, "ranks")
    assert dist.new_group() is dist.group.WORLD
    assert str(dist.ReduceOp.SUM) == "RedOpType.SUM"
    if HAVE_TORCH:
        assert str(dist.ReduceOp.SUM) == str(torch.distributed.ReduceOp.SUM)


def test_ddp_module_surface(world1):
    lin = tl.nn.Linear(2, 2)
    ddp = DDP(lin)
    assert ddp.module is lin
    assert list(ddp.state_dict()) == ["module.weight", "module.bias"]
    assert repr(ddp) == ("DistributedDataParallel(\n  (module): Linear(in_features=2, "
                         "out_features=2, bias=True)\n)")
    _raises(lambda: DDP(lin, device_ids=[0]), ValueError,
            r"device_ids and output_device arguments only work with single-device")
    frozen = tl.nn.Linear(2, 2).requires_grad_(False)
    _raises(lambda: DDP(frozen), RuntimeError, "doesn't have any parameter that requires")
    if HAVE_TORCH:
        tlin = torch.nn.Linear(2, 2)
        # PyTorch's DataParallel prints the same (its DDP needs a process group)
        assert repr(torch.nn.DataParallel(tlin)) == repr(tl.nn.DataParallel(lin))


def test_ddp_unused_parameter_error_names_it(world1):
    class TwoHeads(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.used = tl.nn.Linear(2, 1)
            self.idle = tl.nn.Linear(2, 1)

        def forward(self, x):
            return self.used(x)
    ddp = DDP(TwoHeads())
    ddp(tl.ones(1, 2)).sum().backward()
    _raises(lambda: ddp(tl.ones(1, 2)), RuntimeError,
            r"Expected to have finished reduction.*idle\.weight, idle\.bias")


def test_ddp_world_of_one_is_the_module(world1):
    tl.manual_seed(0)
    lin = tl.nn.Linear(3, 2)
    ref = tl.nn.Linear(3, 2)
    ref.load_state_dict(lin.state_dict())
    ddp = DDP(lin)
    x = tl.randn(4, 3)
    ddp(x).pow(2).sum().backward()
    ref(x).pow(2).sum().backward()
    for p, q in zip(lin.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
    with tl.no_grad():     # an evaluation forward needs no backward before the next one
        ddp(x)
    ddp(x).sum().backward()


def test_data_parallel_runs_the_module():
    lin = tl.nn.Linear(3, 2)
    dp = tl.nn.DataParallel(lin)
    x = tl.ones(5, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]


def test_import_and_seeding_leave_jax_unstarted(master):
    """A JAX program can start ``jax.distributed`` itself after ``import torchlike`` and
    ``manual_seed``; ``init_process_group`` then joins that run."""
    import subprocess
    import sys
    code = (
        "import jax, torchlike as tl, torchlike.distributed as dist\n"
        "tl.manual_seed(3)\n"
        "jax.distributed.initialize('127.0.0.1:' + __import__('os').environ['MASTER_PORT'],"
        " num_processes=1, process_id=0)\n"
        "dist.init_process_group('gloo', rank=0, world_size=1)\n"
        "x = tl.randn(2) + 1\n"
        "l = [None]; dist.all_gather_object(l, x.shape); print(l[0], dist.get_world_size())\n"
        "dist.destroy_process_group(); jax.distributed.shutdown()\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "torchlike.Size([2]) 1"


def test_distributed_sampler_reads_the_group(world1):
    from torchlike.utils.data import DistributedSampler
    s = DistributedSampler(range(5), shuffle=False)
    assert (s.num_replicas, s.rank) == (1, 0)
    assert list(s) == [0, 1, 2, 3, 4]


def test_ddp_world_of_one_in_a_compiled_step(world1):
    def run(compiled: bool) -> list:
        tl.manual_seed(0)
        ddp = DDP(tl.nn.Linear(3, 2))
        opt = tl.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)

        def step(x):
            opt.zero_grad()
            loss = ddp(x).pow(2).sum()
            loss.backward()
            opt.step()
            return loss
        f = tl.compile(step) if compiled else step
        x = tl.randn(4, 3)
        return [f(x).item() for _ in range(3)]
    np.testing.assert_allclose(run(True), run(False), rtol=1e-5)


def test_launcher_sets_the_environment_and_reports_a_failure():
    """``python -m torchlike.distributed.run`` (torchrun): both ranks join from the
    environment it sets; rank 1's exit code 3 becomes the launcher's."""
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(__file__), "_launched.py")
    res = subprocess.run([sys.executable, "-m", "torchlike.distributed.run", "--standalone",
                          "--nproc-per-node=2", script, "--tag", "t"],
                         capture_output=True, text=True, timeout=300)
    # the two processes share the pipe: a line can land inside the other's
    import re
    lines = sorted(re.findall(r"rank=\d+ world=\d+ local=\d+ arg=\S+ tag=\S+ sum=\S+ "
                              r"elastic=(?:True|False)", res.stdout))
    assert lines == [f"rank={r} world=2 local={r} arg=-1 tag=t sum=3.0 elastic=True"
                     for r in range(2)], res.stdout + res.stderr
    assert res.returncode == 3
    assert "local rank 1 (rank 1) exited with code 3" in res.stderr


def test_old_launcher_passes_local_rank(tmp_path):
    """``torchlike.distributed.launch`` passes ``--local-rank=N`` (not with
    ``--use-env``) and warns that it is deprecated."""
    from torchlike.distributed import launch
    script = tmp_path / "argv.py"
    script.write_text("import json, os, sys\n"
                      "open(os.path.join(os.path.dirname(__file__), "
                      "'out%s.json' % os.environ['LOCAL_RANK']), 'w').write(json.dumps("
                      "[sys.argv[1:], os.environ['RANK'], os.environ['WORLD_SIZE']]))\n")
    for use_env in (False, True):
        argv = ["--nproc_per_node=2", str(script), "--x", "1"]
        with pytest.warns(FutureWarning, match="deprecated"), pytest.raises(SystemExit) as ei:
            launch.main((["--use-env"] if use_env else []) + argv)
        assert ei.value.code == 0
        import json
        for r in range(2):
            got = json.loads((tmp_path / f"out{r}.json").read_text())
            flags = [] if use_env else [f"--local-rank={r}"]
            assert got == [flags + ["--x", "1"], str(r), "2"]
