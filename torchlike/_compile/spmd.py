"""Running a compiled step of a multi-process run as one program over every process.

# Note [Compiled steps across processes]
# In a ``torchlike.distributed`` run of several processes, ``torchlike.compile`` traces
# a step with the group's mesh axis bound (``jax.make_jaxpr(..., axis_env=...)``), so the
# collectives the step runs (DistributedDataParallel's gradient average, SyncBatchNorm's
# statistics, the user's own ``dist.all_reduce``) trace as JAX's ``psum``/``pmean``/
# ``all_gather`` over that axis instead of running eagerly. A step that traced one runs
# under ``jax.shard_map`` over the group's mesh (one device per process): every input and
# output is the process's own array, handed to JAX as the local shard of a global array
# declared replicated (``in_specs``/``out_specs`` ``P()``, with JAX's replication check
# off, since the ranks' gradients, batches and losses differ until a collective merges
# them); each process reads back its own shard. So the whole step, the all-reduce
# included, is one XLA program per process, with donation as in a single process. A step
# that traced no collective compiles as in a single process.
#
# Every process must run the same collectives in the same order, and XLA runs
# independent operations in any order (a second collective that does not use the first's
# result may start first on one process and second on another, and the run hangs or
# fails). ``check_collective_order`` therefore refuses, before anything runs, a step in
# which a collective does not depend on the one traced before it. The common steps
# qualify: DistributedDataParallel's one gradient average; SyncBatchNorm's statistics
# and its backward sums, which the gradient average uses. DistributedDataParallel's
# buffer broadcast at the start of each forward is independent of what follows, so a
# compiled step needs ``broadcast_buffers=False`` for a module with buffers.
"""

from __future__ import annotations

from typing import Callable

import jax
from jax.sharding import NamedSharding, PartitionSpec

__all__ = ["spmd_runner", "check_collective_order"]


def spmd_runner(pg, execute: Callable, prog, consts: list, donate: tuple,
                keep_unused: bool) -> Callable:
    """``run(*args) -> outputs`` of ``execute(prog, consts, *args)`` as one program over
    the processes of ``pg`` (Note [Compiled steps across processes])."""
    from ..distributed._c10d import AXIS
    mesh, mine = pg._mesh(pg.platform())
    repl = NamedSharding(mesh, PartitionSpec())
    mine_set = {mine}

    def as_global(a):
        if not isinstance(a, jax.Array) or a.devices() != mine_set:
            a = jax.device_put(a, mine)
        return jax.make_array_from_single_device_arrays(a.shape, repl, [a])

    def body(consts, *args):
        return execute(prog, consts, *args)

    def program(consts, *args):
        specs = (PartitionSpec(),) * (1 + len(args))
        return jax.shard_map(body, mesh=mesh, in_specs=specs, out_specs=PartitionSpec(),
                             axis_names={AXIS}, check_vma=False)(consts, *args)

    jitted = jax.jit(program, donate_argnums=tuple(k + 1 for k in donate),
                     keep_unused=keep_unused)
    g_consts = [as_global(c) for c in consts]

    def run(*args):
        outs = jitted(g_consts, *[as_global(a) for a in args])
        return [o.addressable_data(0) for o in outs]
    return run


_COLLECTIVES = frozenset({"psum", "pmax", "pmin", "all_gather", "psum_invariant",
                          "all_gather_invariant", "ppermute", "all_to_all",
                          "reduce_scatter", "psum_scatter"})


def _sub_jaxprs(eqn):
    for v in eqn.params.values():
        for x in (v if isinstance(v, (tuple, list)) else (v,)):
            inner = getattr(x, "jaxpr", x)
            if hasattr(inner, "eqns"):
                yield inner


def _has_collective(eqn) -> bool:
    return eqn.primitive.name in _COLLECTIVES or any(
        _has_collective(e) for j in _sub_jaxprs(eqn) for e in j.eqns)


def check_collective_order(jaxpr) -> None:
    """Raise unless every collective of ``jaxpr`` (an operation holding one counts as one)
    uses, through its inputs, the result of the collective before it (Note [Compiled
    steps across processes])."""
    deps: dict = {}     # var -> bitset of the collectives it depends on
    k = 0
    for eqn in jaxpr.eqns:
        d = 0
        for v in eqn.invars:
            d |= deps.get(v, 0) if not hasattr(v, "val") else 0
        if _has_collective(eqn):
            if k and not d >> (k - 1) & 1:
                raise RuntimeError(
                    "torchlike.compile: in a multi-process run, each collective of a "
                    f"compiled step must use the result of the one before it, and "
                    f"collective {k + 1} ({eqn.primitive.name}) does not: processes could "
                    "run them in different orders. Merge them into one collective, run "
                    "one of them outside the compiled step, or, for DistributedDataParallel "
                    "with buffers, pass broadcast_buffers=False")
            d |= 1 << k
            k += 1
        for v in eqn.outvars:
            deps[v] = d
