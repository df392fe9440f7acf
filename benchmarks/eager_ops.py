"""Per-op eager time: torchlike vs raw ``jax.numpy`` vs PyTorch, measured in one run.

Cases: an 8x8 add, a 64x64 matmul, and a 10-op elementwise chain. Prints the median
time per call in microseconds (the implementations are timed in interleaved blocks, so a
shared machine loads them alike) and the ratios torchlike / jnp and torchlike / PyTorch.
No thresholds are asserted: the figures are for reading.

Each call reads its result into a NumPy array, as code that uses a result does
(``--read numpy``, the default: ``Tensor.numpy()`` for torchlike and PyTorch,
``np.asarray`` for jnp), which waits for the op under JAX's asynchronous dispatch.
``--read block`` waits without reading: ``block_until_ready()`` on the JAX array of
both torchlike and jnp, nothing for PyTorch (whose ops finish before they return). The
two differ by how the wait is done: torchlike's reads poll before they block (Note
[Reads poll before they block] in torchlike/_core/waiting.py), JAX's
``block_until_ready`` and ``np.asarray`` block at once.

    python benchmarks/eager_ops.py [--repeat 2000] [--read numpy|block] [--sync-dispatch]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers as P  # noqa: E402

# before anything starts JAX's backend (importing torchlike does)
DISPATCH = P.sync_dispatch("--sync-dispatch" in sys.argv[1:])

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def timeit(fns: list, repeat: int, block: int = 20) -> list:
    """Median per-call time in microseconds of each ``(fn, sync)`` in ``fns`` (None:
    skipped), after warm-up. The implementations are measured in interleaved blocks of
    ``block`` calls, ``repeat`` calls each in all, in a rotating order, so that all of
    them see the same load of a shared machine; ``sync(result)`` waits for the result
    of every call."""
    live = [(f, s) for f, s in fns if f is not None]
    for f, sync in live:
        for _ in range(50):
            r = f()
        if sync:
            sync(r)
    samples: list = [[] for _ in live]
    for r in range(max(1, repeat // block)):
        # rotate the order: no implementation always runs right after another one's
        # worker threads were busy (PyTorch's spin for a while after each op)
        k = r % len(live)
        for (f, sync), out in zip(live[k:] + live[:k], samples[k:] + samples[:k]):
            t0 = time.perf_counter()
            for _ in range(block):
                r = f()
                if sync:
                    sync(r)
            out.append((time.perf_counter() - t0) / block)
    meds = iter(statistics.median(x) * 1e6 for x in samples)
    return [next(meds) if f is not None else float("nan") for f, _ in fns]


def chain(x, y):
    z = x + y
    z = z * y
    z = z - x
    z = z / (y + 3.0)
    z = z.exp() if hasattr(z, "exp") else jnp.exp(z)
    z = z * 0.5
    z = z + 1.0
    z = z.sqrt() if hasattr(z, "sqrt") else jnp.sqrt(z)
    z = z - y
    return z * x


def jnp_chain(x, y):
    z = x + y
    z = z * y
    z = z - x
    z = z / (y + 3.0)
    z = jnp.exp(z)
    z = z * 0.5
    z = z + 1.0
    z = jnp.sqrt(z)
    z = z - y
    return z * x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=2000)
    p.add_argument("--torch-threads", type=int, default=1,
                   help="PyTorch intra-op threads (its idle threads spin, which on a shared "
                        "machine slows whatever runs next; these ops are too small to split)")
    p.add_argument("--read", choices=("numpy", "block"), default="numpy",
                   help="how each call waits for its result (see the module's docstring)")
    P.add_sync_dispatch(p)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    a8, b8 = (rng.random((8, 8), np.float32) + 1 for _ in range(2))
    a64, b64 = (rng.random((64, 64), np.float32) for _ in range(2))

    ja8, jb8, ja64, jb64 = (jnp.asarray(x) for x in (a8, b8, a64, b64))
    ta8, tb8, ta64, tb64 = (tl.tensor(x) for x in (a8, b8, a64, b64))
    if args.read == "numpy":
        sync_j, sync_t = np.asarray, tl.Tensor.numpy
        sync_p = torch.Tensor.numpy if torch is not None else None
    else:
        sync_j = lambda r: r.block_until_ready()  # noqa: E731
        sync_t = lambda r: r._value.block_until_ready()  # noqa: E731
        sync_p = None

    has_mm = hasattr(tl, "matmul")
    cases = [
        ("add 8x8", lambda: ta8 + tb8, lambda: ja8 + jb8,
         (lambda: pa8 + pb8) if torch else None),
        ("matmul 64x64", (lambda: tl.matmul(ta64, tb64)) if has_mm else None,
         lambda: jnp.matmul(ja64, jb64), (lambda: torch.matmul(pa64, pb64)) if torch else None),
        ("10-op chain 8x8", lambda: chain(ta8, tb8), lambda: jnp_chain(ja8, jb8),
         (lambda: chain(pa8, pb8)) if torch else None),
    ]
    if torch is not None:
        torch.set_num_threads(args.torch_threads)
        pa8, pb8, pa64, pb64 = (torch.tensor(x) for x in (a8, b8, a64, b64))

    print(f"# eager per-call time, median over blocks of {args.repeat} calls (us); machine: "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"jax {jax.__version__}, torch {torch.__version__ if torch else 'absent'}; CPU "
          f"dispatch {DISPATCH}; each result read by {args.read}")
    print(f"{'case':<18}{'torchlike':>11}{'jnp':>9}{'torch':>9}{'tl/jnp':>9}{'tl/torch':>10}")
    for name, f_tl, f_j, f_t in cases:
        t_tl, t_j, t_t = timeit([(f_tl, sync_t), (f_j, sync_j), (f_t, sync_p)], args.repeat)
        print(f"{name:<18}{t_tl:>11.2f}{t_j:>9.2f}{t_t:>9.2f}{t_tl / t_j:>9.2f}"
              f"{t_tl / t_t:>10.2f}")


if __name__ == "__main__":
    main()
