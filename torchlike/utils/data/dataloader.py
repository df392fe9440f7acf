"""``DataLoader`` and its iterators (single-process, and multi-process with worker
processes), mirroring ``torch.utils.data.dataloader``.

Workers only run Python and NumPy; batches become torchlike tensors in the main process
(see Note [DataLoader workers never touch JAX] in ``_worker.py``).
"""

from __future__ import annotations

import atexit
import gc
import itertools
import multiprocessing
import multiprocessing.context
import os
import queue
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from ..._core.random import Generator
from . import _worker
from ._collate import default_collate, default_convert
from ._fetch import _DatasetKind
from ._worker import _ExceptionWrapper, _IterableDatasetStopIteration, _ResumeIteration
from .dataset import Dataset, IterableDataset, _snapshot_for_workers
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _random_int64

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

get_worker_info = _worker.get_worker_info

_T_co = TypeVar("_T_co", covariant=True)

# While waiting for a batch, how often the main process checks that every worker is
# still alive (a worker killed by a signal or os._exit never answers).
_STATUS_CHECK_INTERVAL = 0.2
# How long shutting down waits for workers to leave on their own before terminating them.
_SHUTDOWN_GRACE = 1.0

_python_exiting = False


def _set_python_exit_flag() -> None:
    global _python_exiting
    _python_exiting = True


atexit.register(_set_python_exit_flag)


class _InfiniteConstantSampler(Sampler):
    """``itertools.repeat(None)``: the sampler of an iterable-style dataset."""

    def __iter__(self):
        while True:
            yield None


def _default_context() -> multiprocessing.context.BaseContext:
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class DataLoader(Generic[_T_co]):
    """Mirrors ``torch.utils.data.DataLoader``: batches of a dataset, with PyTorch's
    arguments and argument checks.

    Args:
        dataset: map-style (``__getitem__``/``__len__``) or iterable-style
            (:class:`IterableDataset`).
        batch_size: samples per batch (default 1); ``None`` turns automatic batching
            off (each sample goes through ``default_convert``).
        shuffle: reshuffle every epoch (a :class:`RandomSampler` using ``generator``).
        sampler, batch_sampler: custom index orders (see PyTorch for the exclusions).
        num_workers: worker processes; 0 loads in the main process.
        collate_fn: merges a list of samples (default :func:`default_collate`).
        pin_memory, pin_memory_device: accepted; no effect (JAX manages host memory).
        drop_last: drop the last incomplete batch.
        timeout: seconds to wait for a batch from the workers (0: forever).
        worker_init_fn: called in each worker with its id, after seeding.
        multiprocessing_context: start method or context (default 'fork' on Linux).
        generator: draws the shuffling seed and the workers' ``base_seed``.
        prefetch_factor: batches in flight per worker (default 2 with workers).
        persistent_workers: keep the workers (and their dataset copies) across epochs.
        in_order: deliver batches in sampler order (with workers).

    Differences from PyTorch: workers run only Python and NumPy, and batches become
    torchlike tensors in the main process; with the default 'fork' start method a
    dataset must not compute with torchlike tensors inside workers (it gets a clear
    error; ``TensorDataset`` works). ``pin_memory`` does nothing.

    Example::

        >>> import torchlike as torch
        >>> ds = TensorDataset(torch.arange(5.))
        >>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
        [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """

    dataset: Dataset
    batch_size: int | None
    num_workers: int
    pin_memory: bool
    drop_last: bool
    timeout: float
    sampler: Sampler | Iterable
    pin_memory_device: str
    prefetch_factor: int | None
    _iterator: Any
    __initialized = False

    def __init__(self, dataset: Dataset[_T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler[list] | Iterable[list] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[list], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context=None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set "
                "prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        # Iterable-style datasets take no sampler: every worker iterates its own copy.
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching "
                                 "and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

        self.__initialized = True
        self._IterableDataset_len_called: int | None = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self) -> "_BaseDataLoaderIter":
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context) -> None:
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid_start_methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(
                            "multiprocessing_context option should specify a valid start "
                            f"method in {valid_start_methods!r}, but got "
                            f"multiprocessing_context={multiprocessing_context!r}")
                    multiprocessing_context = multiprocessing.get_context(
                        multiprocessing_context)
                if not isinstance(multiprocessing_context,
                                  multiprocessing.context.BaseContext):
                    raise TypeError(
                        "multiprocessing_context option should be a valid context object "
                        "or a string specifying the start method, but got "
                        f"multiprocessing_context={multiprocessing_context}")
            else:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr: str, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self) -> "_BaseDataLoaderIter":
        # Persistent workers live in one iterator, reset at every epoch.
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # Trust the dataset's own length; warn if iteration yields more than that
            # (e.g. every worker returning the whole stream).
            length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn, as PyTorch, when ``num_workers`` exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        max_workers = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if max_workers is None or self.num_workers > max_workers:
            suggestion = (
                f"Our suggested max number of worker in current system is {max_workers}"
                f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which "
                "is smaller than what this DataLoader is going to create."
                if max_workers is not None else
                "DataLoader is not able to compute a suggested max number of worker in "
                "current system.")
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"{suggestion} Please be aware that excessive worker creation might get "
                "DataLoader running slow or even freeze, lower the worker number to avoid "
                "potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _random_int64(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self) -> "_BaseDataLoaderIter":
        return self

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warn_msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                        f"{self._IterableDataset_len_called}(when accessing "
                        f"len(dataloader)), but {self._num_yielded} samples have been "
                        "fetched. ")
            if self._num_workers > 0:
                warn_msg += ("For multiprocessing data-loading, this could be caused by not "
                             "properly configuring the IterableDataset replica at each "
                             "worker. Please see "
                             "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                             "IterableDataset for examples.")
            warnings.warn(warn_msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn,
            self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration


@contextmanager
def _starting_forked_workers(forked: bool):
    """Around starting forked workers: JAX warns on every fork (workers never touch
    it, see the Note), and freezing the garbage collector keeps a worker from
    collecting - and so finalising - objects it merely inherited, JAX arrays included."""
    if not forked:
        yield
        return
    gc.freeze()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called",
                                    category=RuntimeWarning)
            yield
    finally:
        gc.unfreeze()


def _describe_exit(worker_id: int, w) -> str:
    code = w.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"worker {worker_id} was killed by signal {name}"
    return f"worker {worker_id} exited with exit code {code}"


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates once over the dataset with worker processes (all of them, across
    epochs, with persistent workers).

    Data flow, as PyTorch's: the main process sends ``(task index, sampler indices)`` to
    the workers round-robin through one index queue each, keeping at most
    ``prefetch_factor * num_workers`` tasks in flight; workers answer on one shared
    result queue; answers that arrive early wait in ``_task_info`` until their turn
    (``in_order``). Shutting down sets ``_workers_done_event``, sends ``None`` to every
    worker, waits briefly and terminates what is left.
    """

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._shutdown = False
        self._workers: list = []
        self._index_queues: list = []
        self._workers_status: list[bool] = []
        self._fatal_error: str | None = None
        self._worker_result_queue = None
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        ctx = loader.multiprocessing_context or _default_context()
        forked = ctx.get_start_method() == "fork"
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        snapshots = _snapshot_for_workers(self._dataset)
        try:
            with _starting_forked_workers(forked):
                for i in range(self._num_workers):
                    index_queue = ctx.Queue()
                    index_queue.cancel_join_thread()
                    w = ctx.Process(
                        target=_worker._worker_loop,
                        args=(self._dataset_kind, self._dataset, index_queue,
                              self._worker_result_queue, self._workers_done_event,
                              self._auto_collation, self._collate_fn, self._drop_last,
                              self._base_seed, self._worker_init_fn, i, self._num_workers,
                              self._persistent_workers, forked))
                    w.daemon = True
                    w.start()
                    self._index_queues.append(index_queue)
                    self._workers.append(w)
                    self._workers_status.append(True)
        except BaseException:
            self._shutdown_workers()
            raise
        finally:
            for d in snapshots:
                d._drop_worker_snapshot()
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0   # index of the next task to send to a worker
        self._rcvd_idx = 0   # index of the next task to return from __next__
        # task index -> (worker id,) while in flight, (worker id, data) once arrived
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_ResumeIteration())
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                return_idx, _ = self._get_data()
                if isinstance(return_idx, _ResumeIteration):
                    resume_iteration_cnt -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float) -> tuple[bool, Any]:
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            failed = [(wid, w) for wid, w in enumerate(self._workers)
                      if self._workers_status[wid] and not w.is_alive()]
            if failed:
                for wid, _ in failed:
                    self._mark_worker_as_unavailable(wid)
                pids = ", ".join(str(w.pid) for _, w in failed)
                details = "; ".join(_describe_exit(wid, w) for wid, w in failed)
                self._fatal_error = (
                    f"DataLoader worker (pid(s) {pids}) exited unexpectedly: {details}. "
                    "Rerunning with num_workers=0 may give a better error trace.")
                self._shutdown_workers()
                raise RuntimeError(self._fatal_error) from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            deadline = time.monotonic() + self._timeout
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
                success, data = self._try_get_data(min(remaining, _STATUS_CHECK_INTERVAL))
                if success:
                    return data
        while True:
            success, data = self._try_get_data(_STATUS_CHECK_INTERVAL)
            if success:
                return data

    def _next_data(self):
        if self._fatal_error is not None:
            raise RuntimeError(self._fatal_error)
        while True:
            # Skip tasks of workers that ended (iterable-style datasets) without data.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx, None)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding "
                                     "tasks when fetching next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable:
                if isinstance(data, _IterableDatasetStopIteration):
                    if self._persistent_workers:
                        self._workers_status[data.worker_id] = False
                    else:
                        self._mark_worker_as_unavailable(data.worker_id)
                    self._try_put_index()
                    continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(
                        self._workers_status):
                    break
        else:
            return
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_idx: int):
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, _ExceptionWrapper):
            data.reraise()
        return data.load()

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        # Tell the worker to leave (it exits on None); no more tasks go to it.
        try:
            self._index_queues[worker_id].put(None)
        except (OSError, ValueError):   # queue already closed
            pass
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        if _python_exiting or self._shutdown:
            return   # at exit, multiprocessing terminates the (daemonic) workers itself
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            deadline = time.monotonic() + _SHUTDOWN_GRACE
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_SHUTDOWN_GRACE)
            if self._worker_result_queue is not None:
                self._worker_result_queue.cancel_join_thread()
                self._worker_result_queue.close()

    def __del__(self) -> None:
        if getattr(self, "_workers", None) is not None and hasattr(self, "_shutdown"):
            self._shutdown_workers()
