"""Waiting for a result before the host reads it.

# Note [Reads poll before they block]
# JAX returns from an op before the op has run (asynchronous dispatch), and every host
# read of a tensor (``item``, ``tolist``, ``numpy``, ``bool(t)``, printing, the index
# checks of Note [Indices are checked eagerly], ``torchlike.cpu.synchronize``) waits for
# the array first. ``jax.Array.block_until_ready`` waits by sleeping until the thread
# that ran the program wakes the reader. XLA's CPU client runs every program that its
# cost analysis counts at 1000 flops or more on a thread of its own pool (a 64x64
# product, a sum over 1024 elements), so a small op's result comes back through that
# wake-up, which on the two-vCPU machine this was measured on costs more than the op:
# ``jnp.matmul`` of 64x64 float32 waited for with ``block_until_ready`` took 25.9 us
# per call (median of 20 blocks of 100 calls) against 12.2 us when the reader polled
# ``Array.is_ready()`` first, and the forward and backward of ``a.matmul(b).sum()`` 105
# against 58 us (PyTorch: 65). The idle reader's vCPU is put to sleep and must be woken
# again; polling keeps it awake for as long as it polls.
#
# So ``wait`` polls for at most ``_Poll.limit`` (200 us) before it blocks, but only while
# polling pays. A poll spends the reader's core, and a poll that runs out on a long
# program took that core from the program for the whole limit: a compiled MLP step
# (1.2 ms, both cores) read by ``loss.item()`` ran 33% slower when every read polled
# until the step was done. ``_Poll.rate`` follows how often a wait ends within the limit
# (an exponential average over every wait, polled or not: a blocked wait is timed, and
# counts as quick only if it ended within the limit, wake-up included), and a wait
# polls only while that rate is at least ``_POLL_ABOVE``. A loop of eager ops polls on
# every read; a loop reading a compiled step's loss polls on its first few reads, then
# blocks; a loop that alternates the two blocks too, as it did before (polling on the
# long reads there had cost 3.5%). Measured against blocking throughout, interleaved:
# 1.000 (MLP step), 1.011 (LeNet step), 0.993 (MLP step and an eager read). Between two
# ``is_ready`` calls the poll yields the core (``sched_yield``), so that another
# process's thread waiting for it (a second test worker, a data loader) runs first;
# alone on its core, the poll goes on at once. The poll holds the GIL between
# ``is_ready`` calls, so a Python
# callback inside the program (``jax.debug.print``, ``pure_callback``) waits at most
# the limit, after which ``block_until_ready`` releases the GIL. JAX has no such wait of
# its own: code that reads JAX arrays directly (``np.asarray``, ``block_until_ready``)
# waits as before.
"""

from __future__ import annotations

import os
import time

import jax
import numpy as np

__all__ = ["host", "wait", "wait_pending"]

_POLL_ABOVE = 0.75   # the quick-wait rate at or above which a wait polls
_WEIGHT = 0.125      # weight of the latest wait in the rate
_perf = time.perf_counter
_yield = getattr(os, "sched_yield", lambda: None)


class _Poll:
    limit = 200e-6  # seconds a wait polls before it blocks
    rate = 1.0      # how often waits ended within ``limit`` lately


def wait(arr) -> None:
    """Return once ``arr`` (a concrete ``jax.Array``) holds its values: poll
    ``arr.is_ready()`` for a few microseconds, then block (Note [Reads poll before they
    block]). Anything that is not a JAX array, and a deleted array, return at once
    (asking a deleted array whether it is ready crashes jaxlib 0.10), leaving the read
    that follows to raise."""
    try:
        if arr.is_deleted() or arr.is_ready():
            return
    except AttributeError:
        return
    wait_pending(arr)


def wait_pending(arr) -> None:
    """``wait`` for an array that was not ready when last asked."""
    start = _perf()
    end = start + _Poll.limit
    if _Poll.rate >= _POLL_ABOVE:
        while _perf() < end:
            _yield()   # a thread waiting for this core (another process's) runs first
            if arr.is_ready():
                _Poll.rate += (1.0 - _Poll.rate) * _WEIGHT
                return
    arr.block_until_ready()   # after a poll that ran out, this counts as a long wait
    quick = 1.0 if _perf() < end else 0.0
    _Poll.rate += (quick - _Poll.rate) * _WEIGHT


def host(arr) -> np.ndarray:
    """``arr``'s values as a NumPy array, once its program has run; a tracer raises the
    concretization error. Every read of a tensor's values goes through here."""
    try:   # ``is_ready`` of a deleted array crashes jaxlib 0.10: NumPy raises instead
        if not arr.is_deleted() and not arr.is_ready():
            wait_pending(arr)
    except Exception as e:   # a tracer has neither; nor has anything NumPy converts
        if isinstance(arr, jax.core.Tracer):
            from .traced import concretization_error
            raise concretization_error() from None
        if not isinstance(e, AttributeError):
            raise
    return np.asarray(arr)
