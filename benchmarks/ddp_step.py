"""A data-parallel training step over two processes on this machine: torchlike's
DistributedDataParallel eager and compiled against PyTorch's DDP (gloo) and plain JAX
(``jax.jit`` of a ``shard_map`` step whose gradients are ``pmean``-ed, with donation),
all measured in one run. MLP 784-256-256-10, a batch of 128 per process, SGD with
momentum, float32. Prints ms/step (rank 0's median over interleaved blocks) and ratios;
no asserts; benchmarks/README.md has the recorded figures.

    python benchmarks/ddp_step.py [--impls torchlike-eager,torchlike-compiled,torch,jax]
                                  [--steps 20] [--blocks 5] [--procs 2]
"""

from __future__ import annotations

import argparse
import os
import pickle
import socket
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers as P  # noqa: E402

IMPLS = ["torchlike-eager", "torchlike-compiled", "torch", "jax"]
CFG = P.FULL["mlp"]


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _torch_style(T, ddp_cls, rank: int, compiled: bool):
    _, _, step = P.torch_style_setup(T, "mlp", CFG, P.init_weights("mlp", CFG), wrap=ddp_cls)
    fn = T.compile(step) if compiled else step
    x, y = P.make_batch("mlp", CFG, seed=1 + rank)
    X, Y = T.tensor(x), T.tensor(y)
    return lambda: fn(X, Y)


def _jax_step(rank: int, world: int):
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as PS

    firsts: dict = {}
    for d in jax.devices("cpu"):
        firsts.setdefault(d.process_index, d)
    mesh = Mesh(np.array([firsts[p] for p in range(world)]), ("rank",))
    mine, repl = firsts[rank], NamedSharding(mesh, PS())
    apply, tx = P.jax_forward("mlp", CFG), P._optax_tx(CFG)

    def local(state, x, y):
        params, opt_state = state
        loss, grads = jax.value_and_grad(lambda p: P._ce(apply(p, x), y))(params)
        grads = jax.lax.pmean(grads, "rank")
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, (optax.apply_updates(params, updates), opt_state)

    step = jax.jit(jax.shard_map(local, mesh=mesh, in_specs=(PS(), PS(), PS()),
                                 out_specs=PS(), check_vma=False), donate_argnums=0)

    def glob(a):
        a = jax.device_put(a, mine)
        return jax.make_array_from_single_device_arrays(a.shape, repl, [a])
    params = {k: jnp.asarray(v) for k, v in P.init_weights("mlp", CFG).items()}
    state = jax.tree_util.tree_map(glob, (params, tx.init(params)))
    x, y = P.make_batch("mlp", CFG, seed=1 + rank)
    X, Y = glob(x), glob(y)
    holder = [state]

    def run():
        loss, holder[0] = step(holder[0], X, Y)
        return loss
    return run


def worker(impl: str, rank: int, world: int, steps: int, blocks: int, out: str) -> None:
    import jax
    if impl == "torch":
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
        dist.init_process_group("gloo", rank=rank, world_size=world)
        run = _torch_style(torch, torch.nn.parallel.DistributedDataParallel, rank, False)
        sync = lambda loss: loss.item()  # noqa: E731
        finish = lambda: (dist.barrier(), dist.destroy_process_group())  # noqa: E731
    elif impl == "jax":
        jax.distributed.initialize(f"127.0.0.1:{os.environ['MASTER_PORT']}",
                                   num_processes=world, process_id=rank)
        run = _jax_step(rank, world)
        sync = jax.block_until_ready
        finish = jax.distributed.shutdown
    else:
        import torchlike as tl
        import torchlike.distributed as dist
        from torchlike.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("gloo", rank=rank, world_size=world)
        run = _torch_style(tl, DDP, rank, impl == "torchlike-compiled")
        sync = lambda loss: loss.item()  # noqa: E731
        finish = lambda: (dist.barrier(), dist.destroy_process_group())  # noqa: E731
    for _ in range(3):
        sync(run())
    _, runs = P.time_steps(run, sync, steps, blocks)
    times = [r * 1e3 for r in runs]
    if rank == 0:
        with open(out, "wb") as f:
            pickle.dump(times, f)
    # leave together: a rank that exits while the other is still in a collective can
    # take gloo's threads down with it ("terminate called without an active exception")
    finish()


def measure(impl: str, world: int, steps: int, blocks: int) -> float:
    """Median ms/step of rank 0, ``world`` processes started afresh."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "times.pkl")
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=_free_port())
        procs = [subprocess.Popen([sys.executable, __file__, "--worker", impl, str(r),
                                   str(world), str(steps), str(blocks), out], env=env)
                 for r in range(world)]
        codes = [p.wait() for p in procs]
        if any(codes):
            raise SystemExit(f"{impl}: a process failed (exit codes {codes})")
        with open(out, "rb") as f:
            return statistics.median(pickle.load(f))


def main(argv: list | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        impl, rank, world, steps, blocks, out = argv[1:7]
        worker(impl, int(rank), int(world), int(steps), int(blocks), out)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure every implementation this many times, in turn")
    a = ap.parse_args(argv)
    impls = a.impls.split(",")
    bad = [i for i in impls if i not in IMPLS]
    if bad:
        ap.error(f"unknown --impls {bad}; choose from {IMPLS}")
    got: dict = {i: [] for i in impls}
    for _ in range(a.rounds):
        for impl in impls:
            got[impl].append(measure(impl, a.procs, a.steps, a.blocks))
    ms = {i: statistics.median(v) for i, v in got.items()}
    print(f"# DDP step, MLP 784-256-256-10, batch {CFG['batch']} per process, "
          f"{a.procs} processes, SGD momentum; ms/step (median)")
    for i in impls:
        ratios = "  ".join(f"/{j} {ms[i] / ms[j]:.2f}" for j in ("jax", "torch")
                           if j in ms and j != i)
        print(f"{i:20s} {ms[i]:8.3f}  {ratios}")


if __name__ == "__main__":
    main()
