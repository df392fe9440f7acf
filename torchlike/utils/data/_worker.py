"""What runs inside DataLoader worker processes: ``get_worker_info``, per-worker seeding,
the worker loop, and how batches and errors travel back to the main process; mirrors
``torch.utils.data._utils.worker``.

# Note [DataLoader workers never touch JAX]
# Workers are separate processes, started with 'fork' on Linux (as PyTorch) so that
# datasets need not be picklable and start-up is fast. But JAX is not fork-safe once its
# runtime has started: the forked child inherits XLA's locks and thread pools in
# whatever state the parent's threads left them, and the first JAX call in the child
# can deadlock. So a worker only runs Python and NumPy:
#   * the dataset's ``__getitem__``/``__iter__``, ``worker_init_fn`` and ``collate_fn``;
#   * ``default_collate``/``default_convert`` see that they run in a worker
#     (``get_worker_info() is not None``) and stack with NumPy, producing
#     ``_WorkerTensor`` arrays: NumPy arrays that stand for tensors there and unpickle
#     as torchlike tensors, so the main process turns them into tensors as it receives
#     the batch (whatever container or custom object they sit in);
#   * a ``TensorDataset`` is indexed through a NumPy snapshot of its tensors, taken by
#     the main process just before the workers start;
#   * the worker's torchlike default generator is seeded without JAX (its key is held
#     as a NumPy array), so ``torchlike.initial_seed()`` works there;
#   * in a forked worker every other way into JAX through torchlike (reading a
#     tensor's value, creating one) raises a RuntimeError that says what to do, instead
#     of deadlocking; it surfaces in the main process like any dataset error.
# With ``multiprocessing_context='spawn'`` (or 'forkserver') workers are fresh
# interpreters, so datasets may compute with torchlike tensors there; their batches
# still travel as NumPy and become tensors in the main process.
# Each batch is pickled in the worker itself, so a batch that cannot be pickled is
# reported as that worker's error rather than lost in the queue's feeder thread (which
# would leave the main process waiting).
"""

from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info"]

# How often a worker waiting for work checks that the main process is still alive.
_WORKER_POLL_INTERVAL = 1.0

_worker_info: "WorkerInfo | None" = None


@dataclass(frozen=True)
class WorkerInfo:
    """Mirrors ``torch.utils.data._utils.worker.WorkerInfo``: the worker's ``id`` (0 to
    ``num_workers - 1``), ``num_workers``, its ``seed`` and its copy of the ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


def get_worker_info() -> WorkerInfo | None:
    """Mirrors ``torch.utils.data.get_worker_info``: in a DataLoader worker process, the
    :class:`WorkerInfo` of that worker; in the main process, ``None``."""
    return _worker_info


# ---------------------------------------------------------------------------
# batches
class _WorkerTensor(np.ndarray):
    """A tensor as a worker holds it: a NumPy array that unpickles as a torchlike
    tensor (see Note [DataLoader workers never touch JAX])."""

    def __reduce_ex__(self, protocol):
        return (_tensor_from_worker, (np.asarray(self),))

    def __reduce__(self):
        return self.__reduce_ex__(2)


def as_worker_tensor(value) -> _WorkerTensor:
    return np.asarray(value).view(_WorkerTensor)


def _tensor_from_worker(array: np.ndarray):
    if _worker_info is not None:
        return array.view(_WorkerTensor)
    from ..._ops.creation import place
    return place(array)


class _Batch:
    """A batch pickled by the worker that made it (see the Note)."""

    __slots__ = ("payload",)

    def __init__(self, data: Any) -> None:
        self.payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self) -> Any:
        return pickle.loads(self.payload)


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """Sent by a worker whose copy of an iterable-style dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch."""
    seed: int | None = None


class _KeyErrorMessage(str):
    """str whose repr is itself: KeyError prints ``repr(arg)``, which would escape the
    worker's traceback into one unreadable line."""

    def __repr__(self) -> str:
        return self


class _ExceptionWrapper:
    """An exception raised in a worker, with its traceback as text; mirrors
    ``torch._utils.ExceptionWrapper``."""

    def __init__(self, where: str = "in background") -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where
        self.exc_name = exc_type.__name__
        try:   # the type travels by reference: it must be importable in the main process
            pickle.loads(pickle.dumps(exc_type))
            self.exc_type = exc_type
        except Exception:
            self.exc_type = RuntimeError

    def reraise(self):
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


# ---------------------------------------------------------------------------
# seeding
def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """PyTorch's seed for NumPy in worker ``worker_id``: a SeedSequence-like hash of
    ``(worker_id, base_seed)`` to four 32-bit words."""
    INIT_A, MULT_A = 0x43B0D7E5, 0x931E8875
    INIT_B, MULT_B = 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
    XSHIFT = 4 * 8 // 2
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value: int) -> int:
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x: int, y: int) -> int:
        result = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)
        result &= MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(len(pool)):
        pool[i] = hash(entropy[i])
    for i_src in range(len(pool)):
        for i_dst in range(len(pool)):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))
    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = (pool[i_dst] ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


def _numpy_key_from_seed(seed: int) -> np.ndarray:
    # the same threefry key as ``_core.random._key_from_seed``, held as NumPy
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def _seed_worker(base_seed: int, worker_id: int) -> int:
    """PyTorch's worker seeding: ``seed = base_seed + worker_id`` for ``random`` and the
    torchlike default generator; NumPy's global state from ``_generate_state``."""
    from ..._core import random as _random
    seed = base_seed + worker_id
    random.seed(seed)
    _random._key_from_seed = _numpy_key_from_seed   # this worker process only
    _random.manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


_FORKED_WORKER_USES_JAX = (
    "torchlike tensors cannot be computed in a DataLoader worker process started with "
    "'fork': JAX is not fork-safe once it has started, and would deadlock. Have the "
    "dataset (and collate_fn, worker_init_fn) return NumPy arrays or Python numbers - the "
    "default collate_fn turns them into tensors in the main process - or pass "
    "multiprocessing_context='spawn' (or 'forkserver') to the DataLoader, or use "
    "num_workers=0.")


def _refuse_jax(*args, **kwargs):
    raise RuntimeError(_FORKED_WORKER_USES_JAX)


def _forbid_jax_in_forked_worker() -> None:
    """Make torchlike's ways into JAX raise in this forked worker (see the Note)."""
    import jax
    import jax.numpy as jnp

    from ..._core.tensor import Tensor
    Tensor._value = property(_refuse_jax)
    jax.device_put = _refuse_jax
    jnp.asarray = _refuse_jax
    jnp.array = _refuse_jax


# ---------------------------------------------------------------------------
# the loop
class _ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _worker_loop(dataset_kind: int, dataset, index_queue, data_queue, done_event,
                 auto_collation: bool, collate_fn, drop_last: bool, base_seed: int,
                 init_fn, worker_id: int, num_workers: int, persistent_workers: bool,
                 forked: bool) -> None:
    """Serve ``(task index, sampler indices)`` requests from ``index_queue`` with
    ``(task index, batch)`` on ``data_queue`` until told to stop (``None``)."""
    from ._fetch import _DatasetKind
    global _worker_info
    try:
        if forked:
            _forbid_jax_in_forked_worker()
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                  collate_fn, drop_last)
        except Exception:
            init_exception = _ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        # ``iteration_end``: this worker's copy of an iterable-style dataset is exhausted;
        # it waits for the next epoch (persistent workers) or the final ``None``.
        iteration_end = False
        watchdog = _ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=_WORKER_POLL_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                try:
                    fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset,
                                                          auto_collation, collate_fn,
                                                          drop_last)
                except Exception:
                    init_exception = _ExceptionWrapper(
                        where=f"in DataLoader worker process {worker_id}")
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = _Batch(fetcher.fetch(index))
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = _ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
