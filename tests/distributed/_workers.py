"""What each process of the multi-process tests runs (``torchlike.multiprocessing.spawn``
imports this module in every process). Each rank writes what it saw to
``<out>/rank<r>.pkl`` for the test to check."""

from __future__ import annotations

import os
import pickle

import numpy as np


def _np(t):
    return np.asarray(t.detach())


def collectives_and_ddp(rank: int, world: int, out: str) -> None:
    import torchlike as torch
    import torchlike.distributed as dist
    from torchlike.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", rank=rank, world_size=world)
    got: dict = {"rank": dist.get_rank(), "world": dist.get_world_size(),
                 "backend": str(dist.get_backend()), "initialized": dist.is_initialized()}
    r = float(rank + 1)

    for op in ("SUM", "AVG", "PRODUCT", "MIN", "MAX"):
        t = torch.tensor([1.0, 2.0, -3.0]) * r
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        got[f"all_reduce_{op}"] = _np(t)
    t = torch.tensor([1, 2, 3]) * (rank + 1)
    dist.all_reduce(t)
    got["all_reduce_int"] = (_np(t), str(t.dtype))
    base = torch.zeros(2, 3)
    view = base[1]
    view.fill_(r)
    work = dist.all_reduce(view, async_op=True)
    got["async_wait"] = work.wait()
    got["view_base"] = _np(base)

    t = torch.full((2,), r)
    dist.broadcast(t, src=1)
    got["broadcast"] = _np(t)

    lst = [torch.zeros(2) for _ in range(world)]
    dist.all_gather(lst, torch.full((2,), r))
    got["all_gather"] = [_np(x) for x in lst]
    cat = torch.zeros(2 * world)
    dist.all_gather_into_tensor(cat, torch.full((2,), r))
    got["all_gather_into_tensor"] = _np(cat)

    rs = torch.zeros(2)
    dist.reduce_scatter_tensor(rs, torch.arange(2.0 * world) * r)
    got["reduce_scatter_tensor"] = _np(rs)
    red = torch.full((2,), r)
    dist.reduce(red, dst=0)
    got["reduce"] = _np(red)

    gl = [torch.zeros(1) for _ in range(world)] if rank == 0 else None
    dist.gather(torch.full((1,), r), gl, dst=0)
    got["gather"] = None if gl is None else [_np(x) for x in gl]
    sc = torch.zeros(2)
    dist.scatter(sc, [torch.full((2,), 10.0 * i) for i in range(world)] if rank == 0 else None,
                 src=0)
    got["scatter"] = _np(sc)
    outs = [torch.zeros(1) for _ in range(world)]
    dist.all_to_all(outs, [torch.full((1,), 10.0 * rank + j) for j in range(world)])
    got["all_to_all"] = [_np(x) for x in outs]

    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "tag": "x" * (rank + 1)})
    got["all_gather_object"] = objs
    bl = ["from", rank] if rank == 0 else [None, None]
    dist.broadcast_object_list(bl, src=0)
    got["broadcast_object_list"] = bl
    dist.barrier()

    # DDP: replicas start from rank 0's weights; every step averages the gradients
    torch.manual_seed(100 + rank)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    ddp = DDP(model)
    got["ddp_init"] = {k: _np(v) for k, v in model.state_dict().items()}
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(7)
    data = [(rng.standard_normal((world, 5, 4)).astype(np.float32),
             rng.standard_normal((world, 5, 2)).astype(np.float32)) for _ in range(3)]
    for x, y in data:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(torch.tensor(x[rank])), torch.tensor(y[rank]))
        loss.backward()
        opt.step()
    got["ddp_data"] = data
    got["ddp_final"] = {k: _np(v) for k, v in model.state_dict().items()}

    # SyncBatchNorm: statistics over both ranks' batches
    torch.manual_seed(5)
    bn_model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.Sequential(
        torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(), torch.nn.Linear(6, 2)))
    bn_ddp = DDP(bn_model)
    got["sync_bn_init"] = {k: _np(v) for k, v in bn_model.state_dict().items()}
    bn_opt = torch.optim.SGD(bn_ddp.parameters(), lr=0.1)
    for x, y in data[:2]:
        bn_opt.zero_grad()
        pred = bn_ddp(torch.tensor(x[rank]))
        torch.nn.functional.mse_loss(pred, torch.tensor(y[rank])).backward()
        bn_opt.step()
    got["sync_bn_final"] = {k: _np(v) for k, v in bn_model.state_dict().items()}

    # no_sync: local accumulation, then the synchronised backward averages the sum
    lin = torch.nn.Linear(2, 1, bias=False)
    d2 = DDP(lin)
    with d2.no_sync():
        d2(torch.full((1, 2), r)).sum().backward()
    got["no_sync_local"] = _np(lin.weight.grad)
    d2(torch.full((1, 2), r)).sum().backward()
    got["no_sync_then_sync"] = _np(lin.weight.grad)

    # find_unused_parameters: rank 0 uses branch a, rank 1 branch b
    class Branches(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(2, 1, bias=False)
            self.b = torch.nn.Linear(2, 1, bias=False)
            self.c = torch.nn.Linear(2, 1, bias=False)   # used by no rank

        def forward(self, x, which):
            return (self.a if which == 0 else self.b)(x)
    br = Branches()
    d3 = DDP(br, find_unused_parameters=True)
    d3(torch.ones(1, 2), rank).sum().backward()
    got["unused"] = {n: None if p.grad is None else _np(p.grad)
                     for n, p in br.named_parameters()}
    # the same trainings as one compiled step each: the gradient average (and the
    # synchronised statistics) inside the step's program
    def compiled_training(model, steps, loss_fn=torch.nn.functional.mse_loss, **kw):
        d = DDP(model, **kw)
        o = torch.optim.SGD(d.parameters(), lr=0.1, momentum=0.9 if steps == 3 else 0)

        @torch.compile
        def step(x, y):
            o.zero_grad()
            loss = loss_fn(d(x), y)
            loss.backward()
            o.step()
            return loss
        losses = [step(torch.tensor(x[rank]), torch.tensor(y[rank])).item()
                  for x, y in data[:steps]]
        return {k: _np(v) for k, v in model.state_dict().items()}, losses, step.stats.traces
    m1 = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    m1.load_state_dict({k: torch.tensor(v) for k, v in got["ddp_init"].items()})
    got["compiled_ddp"] = compiled_training(m1, 3)
    m2 = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.Sequential(
        torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(), torch.nn.Linear(6, 2)))
    m2.load_state_dict({k: torch.tensor(v) for k, v in got["sync_bn_init"].items()})
    # DDP's buffer broadcast at each forward is a collective the rest of the step does
    # not use: refused in a compiled step (processes could order it differently)
    try:
        compiled_training(m2, 2)
        got["compiled_order_error"] = None
    except RuntimeError as e:
        got["compiled_order_error"] = str(e)
    m2.load_state_dict({k: torch.tensor(v) for k, v in got["sync_bn_init"].items()})
    got["compiled_sync_bn"] = compiled_training(m2, 2, broadcast_buffers=False)
    dist.destroy_process_group()
    got["after_destroy"] = dist.is_initialized()
    with open(os.path.join(out, f"rank{rank}.pkl"), "wb") as f:
        pickle.dump(got, f)


def seed_ddp_example(rank: int, world_size: int, out: str) -> None:
    """The seed notes' gloo DDP example, in its CPU form (no ``.to(rank)``/``device_ids``,
    which need a GPU in PyTorch too)."""
    import torchlike as torch
    import torchlike.distributed as dist
    import torchlike.nn as nn
    import torchlike.optim as optim
    from torchlike.nn.parallel import DistributedDataParallel as DDP

    # create default process group
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    # create local model
    model = nn.Linear(10, 10)
    # construct DDP model
    ddp_model = DDP(model)
    # define loss function and optimizer
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    # forward pass
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 10)
    # backward pass
    loss_fn(outputs, labels).backward()
    # update parameters
    optimizer.step()
    with open(os.path.join(out, f"seed{rank}.pkl"), "wb") as f:
        pickle.dump({k: _np(v) for k, v in model.state_dict().items()}, f)


def fails_on_rank_one(rank: int) -> None:
    if rank == 1:
        raise ValueError(f"rank {rank} could not go on")
