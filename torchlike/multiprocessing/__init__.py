"""``torchlike.multiprocessing``: Python's ``multiprocessing`` plus ``spawn``; mirrors
``torch.multiprocessing``.

JAX cannot run in a process forked from one where it has started, so the processes
``spawn`` starts are fresh interpreters ('spawn', PyTorch's default here too). Tensors
passed to them are pickled (copied), not shared through shared memory as PyTorch's
are."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import time
import traceback
# torch.multiprocessing re-exports Python's multiprocessing
from multiprocessing import (Event, Lock, Manager, Pipe, Pool, Process, Queue, SimpleQueue,
                             cpu_count, get_all_start_methods, get_context,
                             get_start_method, set_start_method)
from typing import Any, Callable

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException", "get_all_start_methods",
           "get_context", "get_start_method", "set_start_method", "Process", "Queue",
           "SimpleQueue", "Pipe", "Pool", "Event", "Lock", "Manager", "cpu_count"]


class ProcessException(Exception):
    """Mirrors ``torch.multiprocessing.ProcessException``."""

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code (or was killed by a signal)."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _wrap(fn: Callable, i: int, args: tuple, errors) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """Mirrors ``torch.multiprocessing.ProcessContext``: the spawned processes; ``join``
    waits for them and raises for the first that failed (terminating the others)."""

    def __init__(self, processes: list, error_queues: list):
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list:
        return [p.pid for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """True once every process has exited cleanly; False on timeout; raises
        ``ProcessRaisedException``/``ProcessExitedException`` for the first failure."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            alive = [p for p in self.processes if p.is_alive()]
            failed = next((i for i, p in enumerate(self.processes)
                           if not p.is_alive() and p.exitcode != 0), None)
            if failed is not None or not alive:
                break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            multiprocessing.connection.wait([p.sentinel for p in alive], timeout=0.1)
        if failed is None:
            for p in self.processes:
                p.join()
            return True
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        p = self.processes[failed]
        q = self.error_queues[failed]
        if not q.empty():
            raise ProcessRaisedException(
                f"\n\n-- Process {failed} terminated with the following error:\n{q.get()}",
                failed, p.pid)
        code = p.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {failed} terminated with signal {name}",
                                         failed, p.pid, code, name)
        raise ProcessExitedException(f"process {failed} terminated with exit code {code}",
                                     failed, p.pid, code)


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> Any:
    """Mirrors ``torch.multiprocessing.start_processes``. 'fork' is refused: JAX does
    not survive a fork."""
    if start_method == "fork":
        raise ValueError("start_method 'fork' is not supported: JAX cannot run in a "
                         "forked process; use 'spawn' or 'forkserver'")
    ctx = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, tuple(args), q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """Mirrors ``torch.multiprocessing.spawn``: runs ``fn(i, *args)`` in ``nprocs`` new
    processes, ``i`` from 0; with ``join`` waits for all and raises
    ``ProcessRaisedException`` (with the child's traceback) if one failed; otherwise
    returns the ``ProcessContext``."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
