"""Python numbers as cached device scalars, for the eager fast path and compiled calls.

Note [Python numbers as device scalars]
A Python number passed to a jitted function is converted to a device buffer on every
call, which costs about a third of a small op's dispatch (``alpha=1`` of every
``add``, the ``0.5`` of ``x * 0.5``). ``jax.device_put`` of the same number gives an
array with the same aval (dtype and weak type), so the executable and the result
are the same; the fast path keeps such arrays per (type, value), made on a value's
second use so that a loop over many numbers does not pay a transfer per number.
Zero and NaN floats are never cached (``-0.0 == 0.0`` would share an entry; a NaN
never hits), and the table is cleared when it grows past ``SCALAR_CACHE_MAX``. The
arrays are made concretely even while a caller traces, so no tracer is ever cached.
They live on JAX's default device, uncommitted, as a Python number passed to ``jax.jit``
would: on a GPU machine the cache serves CUDA tensors, and an op of a CPU tensor
there copies the scalar back to the host (correct, but a transfer per op; keying the
cache by the tensor's device would cost every op a device lookup).
"""

from __future__ import annotations

import jax

__all__ = ["SCALARS", "device_scalar", "clear_scalar_cache"]

SCALAR_CACHE_MAX = 1024
# per Python type: value -> device array, and the values seen once
SCALARS: dict = {int: {}, float: {}, bool: {}, complex: {}}
SCALARS_SEEN: dict = {int: set(), float: set(), bool: set(), complex: set()}


def clear_scalar_cache() -> None:
    """Forget the cached device scalars and the numbers seen once, so that a trace made
    after this one treats every number as the first trace did (``torchlike.onnx``
    compares traces at several sizes)."""
    for table in (*SCALARS.values(), *SCALARS_SEEN.values()):
        table.clear()


def device_scalar(v, tv):
    """``v`` as a cached device scalar from its second use on; else ``v`` itself."""
    if (tv is float or tv is complex) and (v != v or not v):
        return v
    seen = SCALARS_SEEN[tv]
    if v not in seen:
        if len(seen) >= SCALAR_CACHE_MAX:
            seen.clear()
        seen.add(v)
        return v
    arrays = SCALARS[tv]
    if len(arrays) >= SCALAR_CACHE_MAX:
        arrays.clear()
    try:
        # a concrete array even while a caller traces (torchlike.compile, jax.jit)
        with jax.ensure_compile_time_eval():
            a = jax.device_put(v)
    except OverflowError:   # beyond int64: jit raises its own error for it
        return v
    arrays[v] = a
    return a
