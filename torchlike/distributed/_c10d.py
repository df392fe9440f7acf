"""The default process group and its collectives, over ``jax.distributed``; mirrors
``torch.distributed.distributed_c10d``.

# Note [Collectives as programs over a one-row mesh]
# ``init_process_group`` starts ``jax.distributed`` (a coordinator at MASTER_ADDR:
# MASTER_PORT, process ``rank`` of ``world_size``) with gloo as JAX's CPU collectives, so
# the processes' devices form one global device list. The group is a mesh with one device
# per process (the first of each process, on the platform of the tensor: CPU tensors use
# the CPU devices, accelerator tensors the accelerators). A collective stacks each
# process's tensor into one global array of shape ``(world_size, *shape)`` sharded along
# the first axis (``jax.make_array_from_single_device_arrays``: each process gives its own
# row), runs one jitted program whose output is replicated on every device (a sum over
# the rows for ``all_reduce``, row ``src`` for ``broadcast``, every row for
# ``all_gather``), and takes its own copy back. XLA inserts the cross-process transfers;
# nothing here speaks to a socket. The programs are cached per (collective, shape, dtype,
# platform). With ``world_size`` 1 the same programs run on the one device, and
# ``jax.distributed`` is not started.
#
# ``jax.distributed.initialize`` must run before JAX starts its backends, so a process
# must call ``init_process_group`` before it makes any tensor (``import torchlike`` starts
# nothing, Note [The array type is learnt]); a process that already has tensors gets a
# RuntimeError saying so. A process whose ``jax.distributed`` a JAX program started
# itself (with matching rank and world size) is accepted as it is.
#
# Inside a ``torchlike.compile`` step of a multi-process run, collectives on traced
# values become JAX's ``psum``/``pmean``/``all_gather`` over the group's mesh axis and
# run inside the step's program (Note [Compiled steps across processes] in
# ``_compile/spmd.py``).
#
# Differences from PyTorch: collectives are synchronous (``async_op=True`` returns a
# completed ``Work``); only the default group and groups of all its ranks exist
# (``new_group`` of a subset raises); the 'file://' rendezvous is not supported.
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import os
import pickle
import types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._core.tensor import Tensor

__all__ = [
    "Backend", "ReduceOp", "ProcessGroup", "Work", "GroupMember", "group",
    "is_available", "is_initialized", "is_gloo_available", "is_nccl_available",
    "is_mpi_available", "is_torchelastic_launched", "init_process_group",
    "destroy_process_group", "get_rank", "get_world_size", "get_backend", "new_group",
    "barrier", "all_reduce", "reduce", "broadcast", "all_gather",
    "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor", "gather",
    "scatter", "all_to_all", "all_gather_object", "broadcast_object_list",
    "gather_object", "scatter_object_list",
]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to "
                    "call init_process_group.")


class Backend(str):
    """Mirrors ``torch.distributed.Backend``: a lower-case backend name. 'gloo' runs the
    collectives on CPU tensors; 'nccl' is the accelerator backend (JAX's own collectives
    on GPUs)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: "
                             f"{type(name)}")
        value = name.lower()
        if value not in ("gloo", "nccl", "mpi", "undefined", "cpu:gloo,cuda:nccl"):
            raise AssertionError(f"Unknown backend type {name}")
        return super().__new__(cls, value)


class ReduceOp(enum.Enum):
    """Mirrors ``torch.distributed.ReduceOp`` (``RedOpType`` members)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"


def _reducer(op: ReduceOp, dtype):
    """The reduction over the stacked rows for ``op``, or PyTorch's error."""
    if op is ReduceOp.AVG:
        if not (jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.complexfloating)):
            raise RuntimeError(f"all_reduce with ReduceOp.AVG needs a floating-point tensor, "
                               f"got {np.dtype(dtype).name}")
        return lambda g: jnp.mean(g, axis=0).astype(g.dtype)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        if not (jnp.issubdtype(dtype, jnp.integer) or dtype == jnp.bool_):
            raise RuntimeError(f"Cannot use ReduceOp.{op.name} with {np.dtype(dtype).name} "
                               "tensors: bitwise reductions need integer or bool tensors")
        f = {ReduceOp.BAND: jnp.bitwise_and, ReduceOp.BOR: jnp.bitwise_or,
             ReduceOp.BXOR: jnp.bitwise_xor}[op]
        return lambda g: f.reduce(g, axis=0)
    f = {ReduceOp.SUM: jnp.sum, ReduceOp.PRODUCT: jnp.prod, ReduceOp.MIN: jnp.min,
         ReduceOp.MAX: jnp.max}[op]
    return lambda g: f(g, axis=0).astype(g.dtype)


class Work:
    """Mirrors ``torch.distributed.Work`` for a collective that has completed (every
    collective here is synchronous)."""

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True

    def is_success(self) -> bool:
        return True

    def result(self) -> list:
        return []


class ProcessGroup:
    """Mirrors ``torch.distributed.ProcessGroup``: the ranks a collective runs over. Here
    always every rank of the default group (Note [Collectives as programs over a one-row
    mesh])."""

    def __init__(self, rank: int, size: int, backend: Backend):
        self._rank, self._size, self._backend = rank, size, backend
        self._meshes: dict = {}
        self._programs: dict = {}

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def name(self) -> str:
        return str(self._backend)

    def _mesh(self, platform: str):
        """(mesh, this process's device) over the first device of each process."""
        got = self._meshes.get(platform)
        if got is None:
            firsts: dict = {}
            for d in jax.devices(platform):
                firsts.setdefault(d.process_index, d)
            if sorted(firsts) != list(range(self._size)):
                raise RuntimeError(
                    f"the process group has {self._size} ranks but JAX sees {platform} "
                    f"devices in processes {sorted(firsts)}")
            devs = [firsts[p] for p in range(self._size)]
            got = self._meshes[platform] = (Mesh(np.array(devs), ("rank",)),
                                            firsts[jax.process_index()])
        return got

    def platform(self) -> str:
        """The platform of the devices the group's compiled steps run on."""
        if self._backend == Backend.NCCL:
            from .._core.device import accelerator_devices
            return accelerator_devices()[0].platform
        return "cpu"

    def _run(self, key, array, fn):
        """Stack ``array`` (this process's row) with the other processes' and run ``fn``
        on the stack; this process's copy of the replicated result."""
        if isinstance(array, jax.core.Tracer):
            return self._traced(key, array, fn)
        platform = next(iter(array.devices())).platform
        mesh, mine = self._mesh(platform)
        row = jax.device_put(array, mine)[None]
        stacked = jax.make_array_from_single_device_arrays(
            (self._size,) + tuple(array.shape),
            NamedSharding(mesh, PartitionSpec("rank")), [row])
        pkey = (key, array.shape, array.dtype, platform)
        prog = self._programs.get(pkey)
        if prog is None:
            prog = self._programs[pkey] = jax.jit(
                fn, out_shardings=NamedSharding(mesh, PartitionSpec()))
        out = prog(stacked)
        return out.addressable_data(0)

    def _traced(self, key, array, fn):
        """The collective inside a compiled step of a multi-process run (Note [Compiled
        steps across processes]): JAX's collectives over the axis the step is traced
        with."""
        rec = _TRACING[0]
        if rec is None or rec.group is not self:
            raise RuntimeError(
                "torchlike.distributed collectives run inside torchlike.compile only when "
                "the default group spans several processes; outside that (a JAX trace of "
                "its own, jax.jit), call them on concrete tensors")
        rec.used = True
        op = key[1] if key[0] == "all_reduce" else None
        if op in _AXIS_REDUCERS:
            out = _AXIS_REDUCERS[op](array, AXIS).astype(array.dtype)
        else:
            out = fn(jax.lax.all_gather(array, AXIS))
        return out


AXIS = "rank"   # the mesh axis of a group's processes, inside compiled steps
_TRACING: list = [None]   # the record of the step being traced, if any
_AXIS_REDUCERS = {ReduceOp.SUM: jax.lax.psum, ReduceOp.AVG: jax.lax.pmean,
                  ReduceOp.MAX: jax.lax.pmax, ReduceOp.MIN: jax.lax.pmin}


@contextlib.contextmanager
def tracing_collectives(pg: "ProcessGroup"):
    """While ``torchlike.compile`` traces a step in a multi-process run, collectives on
    traced values become JAX collectives over ``AXIS``; yields the record whose ``used``
    says whether any ran."""
    rec = types.SimpleNamespace(group=pg, used=False)
    saved, _TRACING[0] = _TRACING[0], rec
    try:
        yield rec
    finally:
        _TRACING[0] = saved


def tracing_group() -> "ProcessGroup | None":
    """The group whose step is being traced, if any."""
    return None if _TRACING[0] is None else _TRACING[0].group


def multi_process_group() -> "ProcessGroup | None":
    """The default group when it spans several processes, else None."""
    w = GroupMember.WORLD
    return w if w is not None and w.size() > 1 else None


class GroupMember:
    """Mirrors ``torch.distributed.GroupMember``: ``WORLD`` is the default group (None
    before ``init_process_group``), ``NON_GROUP_MEMBER`` marks a rank outside a group."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 - PyTorch's name
    """Mirrors ``torch.distributed.group``: ``group.WORLD`` is the default group."""

    WORLD: ProcessGroup | None = None


_GROUP = group   # ``destroy_process_group``'s parameter shadows the class
_state: dict[str, Any] = {"jax_started": False}


def is_available() -> bool:
    """Mirrors ``torch.distributed.is_available``: always True."""
    return True


def is_gloo_available() -> bool:
    return True


def is_nccl_available() -> bool:
    """True when JAX has a GPU backend, whose collectives stand for NCCL's."""
    from .._core.device import accelerator_devices
    return bool(accelerator_devices())


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def _world(grp: ProcessGroup | None) -> ProcessGroup:
    w = GroupMember.WORLD
    if w is None:
        raise ValueError(_NOT_INITIALIZED)
    return w if grp is None else grp


def _env(name: str) -> str:
    v = os.environ.get(name)
    if v is None:
        raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} expected, but not set")
    return v


def _rendezvous(init_method: str | None, rank: int, world_size: int):
    """(coordinator address, rank, world size) as PyTorch's env:// and tcp:// rendezvous
    read them."""
    method = init_method or "env://"
    if method.startswith("env://"):
        if rank < 0:
            rank = int(_env("RANK"))
        if world_size < 0:
            world_size = int(_env("WORLD_SIZE"))
        return f"{_env('MASTER_ADDR')}:{_env('MASTER_PORT')}", rank, world_size
    if method.startswith("tcp://"):
        if rank < 0 or world_size < 0:
            raise ValueError("rank and world_size must be given with a tcp:// init_method")
        return method[len("tcp://"):].split("?")[0].rstrip("/"), rank, world_size
    raise ValueError(f"torchlike.distributed supports the env:// and tcp:// rendezvous, "
                     f"not {method!r}")


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1,
                       rank: int = -1, store: Any = None, group_name: str = "",
                       pg_options: Any = None, device_id: Any = None) -> None:
    """Mirrors ``torch.distributed.init_process_group``: joins this process to the
    default group of ``world_size`` processes as ``rank``, meeting the others at
    MASTER_ADDR:MASTER_PORT (``env://``, the default) or at a ``tcp://host:port``
    address. ``backend`` is 'gloo' (CPU tensors) or 'nccl' (accelerator tensors; needs a
    GPU); None picks 'gloo'. ``store`` is not supported (a TypeError).

    Must be called before the process makes any tensor: see Note [Collectives as
    programs over a one-row mesh]."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        raise TypeError("torchlike.distributed does not take a store; use init_method "
                        "'env://' or 'tcp://host:port'")
    addr, rank, world_size = _rendezvous(init_method, rank, world_size)
    be = Backend(backend or "gloo")
    if be == Backend.NCCL and not is_nccl_available():
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if be == Backend.MPI:
        raise RuntimeError("Distributed package doesn't have MPI built in")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world size {world_size}: the rank must "
                         "be in [0, world_size)")
    if world_size > 1:
        _start_jax(addr, rank, world_size, timeout)
    GroupMember.WORLD = group.WORLD = ProcessGroup(rank, world_size, be)


def _start_jax(addr: str, rank: int, world_size: int, timeout) -> None:
    secs = int(timeout.total_seconds()) if timeout is not None else 300
    before = jax.config.jax_cpu_collectives_implementation
    try:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(addr, num_processes=world_size, process_id=rank,
                                   initialization_timeout=secs)
    except RuntimeError as e:
        jax.config.update("jax_cpu_collectives_implementation", before)
        if "only be called once" in str(e):
            if jax.process_count() == world_size and jax.process_index() == rank:
                return      # the program started jax.distributed itself
            raise RuntimeError(
                f"jax.distributed is already running as process {jax.process_index()} of "
                f"{jax.process_count()}, not as rank {rank} of {world_size}") from None
        raise RuntimeError(
            "init_process_group must be called before this process makes any tensor: "
            "JAX's backends have started, and jax.distributed can only join a run before "
            f"they do ({e})") from None
    _state["jax_started"] = True


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Mirrors ``torch.distributed.destroy_process_group``. JAX's backends cannot be
    restarted, so a process can join a multi-process run only once."""
    if GroupMember.WORLD is None:
        raise AssertionError("Process group cannot be None")
    GroupMember.WORLD = _GROUP.WORLD = None
    if _state["jax_started"]:
        _state["jax_started"] = False
        jax.distributed.shutdown()


def get_rank(group: ProcessGroup | None = None) -> int:
    return _world(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    return _world(group).size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    return _world(group)._backend


def new_group(ranks: list | None = None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None,
              device_id=None) -> ProcessGroup:
    """Mirrors ``torch.distributed.new_group`` for a group of every rank (returns the
    default group); a subset of the ranks raises NotImplementedError."""
    w = _world(None)
    if ranks is not None and sorted(ranks) != list(range(w.size())):
        raise NotImplementedError(
            f"torchlike.distributed supports only groups of every rank (world size "
            f"{w.size()}), got ranks {list(ranks)}")
    return w


# -- collectives ----------------------------------------------------------------------

def _array(t: Tensor, what: str = "tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what} must be a torchlike.Tensor, got {type(t).__name__}")
    return t._value


def _write(t: Tensor, array) -> None:
    """Write a collective's result into ``t`` in place (its views see it)."""
    from .._core.grad_mode import no_grad
    from .._core.interop import from_jax
    with no_grad():
        t.copy_(from_jax(array))


def _done(async_op: bool):
    return Work() if async_op else None


def _check_rank(r: int, w: ProcessGroup, what: str, fn: str) -> None:
    if not 0 <= r < w.size():
        raise RuntimeError(f"ProcessGroupGloo::{fn}: invalid {what} rank: {r}")


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False):
    """Mirrors ``torch.distributed.all_reduce``: every rank's ``tensor`` becomes the
    reduction (``op``) of all ranks' tensors, in place."""
    w = _world(group)
    a = _array(tensor)
    _write(tensor, w._run(("all_reduce", op), a, _reducer(op, a.dtype)))
    return _done(async_op)


def reduce(tensor: Tensor, dst: int = 0, op: ReduceOp = ReduceOp.SUM,
           group: ProcessGroup | None = None, async_op: bool = False, group_dst=None):
    """Mirrors ``torch.distributed.reduce``: rank ``dst``'s tensor becomes the reduction;
    the others keep theirs."""
    w = _world(group)
    dst = dst if group_dst is None else group_dst
    _check_rank(dst, w, "root", "reduce")
    a = _array(tensor)
    out = w._run(("all_reduce", op), a, _reducer(op, a.dtype))
    if isinstance(a, jax.core.Tracer):     # one program for every rank (see broadcast)
        _write(tensor, jnp.where(jax.lax.axis_index(AXIS) == dst, out, a))
    elif w.rank() == dst:
        _write(tensor, out)
    return _done(async_op)


def broadcast(tensor: Tensor, src: int = 0, group: ProcessGroup | None = None,
              async_op: bool = False, group_src=None):
    """Mirrors ``torch.distributed.broadcast``: every rank's ``tensor`` becomes rank
    ``src``'s, in place."""
    w = _world(group)
    src = src if group_src is None else group_src
    _check_rank(src, w, "root", "broadcast")
    a = _array(tensor)
    out = w._run(("broadcast", src), a, lambda g: g[src])
    if w.rank() != src or isinstance(a, jax.core.Tracer):
        # traced, every rank writes: a rank whose program drops the collective (its
        # result unused) would leave the others waiting
        _write(tensor, out)
    return _done(async_op)


def _not_traced(fn: str, *arrays) -> None:
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        raise RuntimeError(f"torchlike.distributed.{fn} cannot run inside a compiled step "
                           "(its arguments differ between ranks); call it outside")


def _gathered(w: ProcessGroup, a):
    return w._run(("all_gather",), a, lambda g: g)


def _check_list(lst, w: ProcessGroup, fn: str, what: str = "output") -> None:
    if not isinstance(lst, list) or len(lst) != w.size():
        n = len(lst) if isinstance(lst, list) else type(lst).__name__
        raise RuntimeError(f"ProcessGroupGloo::{fn}: invalid {what} tensor list at index 0 "
                           f"(expected length {w.size()}, got {n})")


def all_gather(tensor_list: list, tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False):
    """Mirrors ``torch.distributed.all_gather``: ``tensor_list[i]`` becomes rank ``i``'s
    ``tensor``, on every rank."""
    w = _world(group)
    _check_list(tensor_list, w, "allgather")
    out = _gathered(w, _array(tensor))
    for i, t in enumerate(tensor_list):
        _write(t, out[i])
    return _done(async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor,
                           group: ProcessGroup | None = None, async_op: bool = False):
    """Mirrors ``torch.distributed.all_gather_into_tensor``: the ranks' tensors
    concatenated along the first dimension (or stacked, when ``output_tensor`` has one
    more dimension)."""
    w = _world(group)
    out = _gathered(w, _array(input_tensor))
    want = tuple(output_tensor.shape)
    flat = out.reshape((-1,) + out.shape[2:]) if out.ndim > 1 else out
    if want == tuple(out.shape):
        flat = out
    elif want != tuple(flat.shape):
        raise ValueError(f"output tensor size must be equal to world_size times input "
                         f"tensor size: output {list(want)}, input "
                         f"{list(input_tensor.shape)}, world size {w.size()}")
    _write(output_tensor, flat)
    return _done(async_op)


def reduce_scatter(output: Tensor, input_list: list, op: ReduceOp = ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False):
    """Mirrors ``torch.distributed.reduce_scatter``: rank ``i``'s ``output`` becomes the
    reduction over ranks of their ``input_list[i]``."""
    w = _world(group)
    _check_list(input_list, w, "reduce_scatter", "input")
    import torchlike
    stacked = _array(torchlike.stack(list(input_list)))
    out = w._run(("all_reduce", op), stacked, _reducer(op, stacked.dtype))
    _write(output, out[w.rank()])
    return _done(async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None, async_op: bool = False):
    """Mirrors ``torch.distributed.reduce_scatter_tensor``: ``input`` is split along
    its first dimension into ``world_size`` chunks; rank ``i`` gets the reduction of the
    ``i``-th chunks."""
    w = _world(group)
    a = _array(input)
    n = w.size()
    if a.shape[0] % n or tuple(output.shape) != (a.shape[0] // n,) + tuple(a.shape[1:]):
        raise ValueError(f"input tensor must be the same size as output size times world "
                         f"size: input {list(a.shape)}, output {list(output.shape)}, "
                         f"world size {n}")
    out = w._run(("all_reduce", op), a, _reducer(op, a.dtype))
    k = a.shape[0] // n
    _write(output, out[w.rank() * k:(w.rank() + 1) * k])
    return _done(async_op)


def gather(tensor: Tensor, gather_list: list | None = None, dst: int = 0,
           group: ProcessGroup | None = None, async_op: bool = False, group_dst=None):
    """Mirrors ``torch.distributed.gather``: rank ``dst`` receives every rank's tensor
    in ``gather_list``; the other ranks pass None."""
    w = _world(group)
    dst = dst if group_dst is None else group_dst
    _check_rank(dst, w, "root", "gather")
    _not_traced("gather", _array(tensor))
    if w.rank() == dst:
        _check_list(gather_list, w, "gather")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    out = _gathered(w, _array(tensor))
    if w.rank() == dst:
        for i, t in enumerate(gather_list):
            _write(t, out[i])
    return _done(async_op)


def scatter(tensor: Tensor, scatter_list: list | None = None, src: int = 0,
            group: ProcessGroup | None = None, async_op: bool = False, group_src=None):
    """Mirrors ``torch.distributed.scatter``: rank ``i``'s ``tensor`` becomes
    ``scatter_list[i]`` of rank ``src``."""
    import torchlike
    w = _world(group)
    src = src if group_src is None else group_src
    _check_rank(src, w, "root", "scatter")
    _not_traced("scatter", _array(tensor))
    if w.rank() == src:
        _check_list(scatter_list, w, "scatter", "input")
        rows = _array(torchlike.stack(list(scatter_list)))
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source "
                         "ranks.")
    else:
        a = _array(tensor)
        rows = jnp.zeros((w.size(),) + a.shape, a.dtype)
    out = w._run(("broadcast", src), rows, lambda g: g[src])
    _write(tensor, out[w.rank()])
    return _done(async_op)


def all_to_all(output_tensor_list: list, input_tensor_list: list,
               group: ProcessGroup | None = None, async_op: bool = False):
    """Mirrors ``torch.distributed.all_to_all``: rank ``i``'s ``output[j]`` becomes rank
    ``j``'s ``input[i]`` (tensors of one shape)."""
    import torchlike
    w = _world(group)
    _check_list(input_tensor_list, w, "alltoall", "input")
    _check_list(output_tensor_list, w, "alltoall")
    out = _gathered(w, _array(torchlike.stack(list(input_tensor_list))))
    for j, t in enumerate(output_tensor_list):
        _write(t, out[j, w.rank()])
    return _done(async_op)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids=None):
    """Mirrors ``torch.distributed.barrier``: returns once every rank has called it."""
    w = _world(group)
    np.asarray(w._run(("all_reduce", ReduceOp.SUM), jnp.zeros((), jnp.int32),
                      _reducer(ReduceOp.SUM, jnp.int32)))
    return _done(async_op)


# -- objects --------------------------------------------------------------------------

def _gather_bytes(w: ProcessGroup, obj) -> list:
    """Every rank's ``obj``, pickled, exchanged and unpickled."""
    data = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = np.asarray(_gathered(w, jnp.asarray(np.int64(data.size))))
    buf = np.zeros(int(sizes.max()), np.uint8)
    buf[:data.size] = data
    rows = np.asarray(_gathered(w, jnp.asarray(buf)))
    return [pickle.loads(rows[i, :int(sizes[i])].tobytes()) for i in range(w.size())]


def all_gather_object(object_list: list, obj: Any, group: ProcessGroup | None = None) -> None:
    """Mirrors ``torch.distributed.all_gather_object``: ``object_list[i]`` becomes rank
    ``i``'s picklable ``obj``."""
    w = _world(group)
    if len(object_list) != w.size():
        raise ValueError(f"object_list must have world_size ({w.size()}) entries, got "
                         f"{len(object_list)}")
    object_list[:] = _gather_bytes(w, obj)


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int = 0,
                  group: ProcessGroup | None = None, group_dst=None) -> None:
    """Mirrors ``torch.distributed.gather_object``."""
    w = _world(group)
    dst = dst if group_dst is None else group_dst
    got = _gather_bytes(w, obj)
    if w.rank() == dst:
        if object_gather_list is None or len(object_gather_list) != w.size():
            raise ValueError("Argument ``object_gather_list`` must be a list of world_size "
                             "entries on the destination rank.")
        object_gather_list[:] = got


def broadcast_object_list(object_list: list, src: int = 0, group: ProcessGroup | None = None,
                          device=None, group_src=None) -> None:
    """Mirrors ``torch.distributed.broadcast_object_list``: every rank's ``object_list``
    becomes rank ``src``'s, in place."""
    w = _world(group)
    src = src if group_src is None else group_src
    _check_rank(src, w, "root", "broadcast")
    got = _gather_bytes(w, list(object_list) if w.rank() == src else None)[src]
    if len(got) != len(object_list):
        raise RuntimeError(f"broadcast_object_list: rank {src} sent {len(got)} objects, "
                           f"this rank's list has {len(object_list)}")
    object_list[:] = got


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list=None,
                        src: int = 0, group: ProcessGroup | None = None,
                        group_src=None) -> None:
    """Mirrors ``torch.distributed.scatter_object_list``: this rank's entry of rank
    ``src``'s input list lands in ``scatter_object_output_list[0]``."""
    w = _world(group)
    src = src if group_src is None else group_src
    sent = _gather_bytes(w, list(scatter_object_input_list) if w.rank() == src else None)[src]
    if len(sent) != w.size():
        raise ValueError(f"scatter_object_input_list must have world_size ({w.size()}) "
                         f"entries, got {len(sent)}")
    scatter_object_output_list[0] = sent[w.rank()]
