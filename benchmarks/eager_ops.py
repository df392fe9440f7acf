"""Per-op eager time: torchlike vs raw ``jax.numpy`` vs PyTorch, measured in one run.

Cases: an 8x8 add, a 64x64 matmul, and a 10-op elementwise chain. Prints the median
time per call in microseconds and the ratios torchlike / jnp and torchlike / PyTorch.
No thresholds are asserted: the figures are for reading.

    python benchmarks/eager_ops.py [--repeat 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None


def timeit(fn, repeat: int, block=None) -> float:
    """Median of ``repeat`` single-call timings in microseconds (after warm-up)."""
    for _ in range(50):
        r = fn()
    if block:
        block(r)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        if block:
            block(r)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


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
    args = p.parse_args()
    rng = np.random.default_rng(0)
    a8, b8 = (rng.random((8, 8), np.float32) + 1 for _ in range(2))
    a64, b64 = (rng.random((64, 64), np.float32) for _ in range(2))

    ja8, jb8, ja64, jb64 = (jnp.asarray(x) for x in (a8, b8, a64, b64))
    ta8, tb8, ta64, tb64 = (tl.tensor(x) for x in (a8, b8, a64, b64))
    block_j = lambda r: r.block_until_ready()  # noqa: E731
    block_t = lambda r: r._value.block_until_ready()  # noqa: E731

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
        torch.set_num_threads(max(1, os.cpu_count() or 1))
        pa8, pb8, pa64, pb64 = (torch.tensor(x) for x in (a8, b8, a64, b64))

    print(f"# eager per-call time, median of {args.repeat} (us); machine: "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"jax {jax.__version__}, torch {torch.__version__ if torch else 'absent'}")
    print(f"{'case':<18}{'torchlike':>11}{'jnp':>9}{'torch':>9}{'tl/jnp':>9}{'tl/torch':>10}")
    for name, f_tl, f_j, f_t in cases:
        t_tl = timeit(f_tl, args.repeat, block_t) if f_tl else float("nan")
        t_j = timeit(f_j, args.repeat, block_j)
        t_t = timeit(f_t, args.repeat) if f_t else float("nan")
        print(f"{name:<18}{t_tl:>11.2f}{t_j:>9.2f}{t_t:>9.2f}{t_tl / t_j:>9.2f}"
              f"{t_tl / t_t:>10.2f}")


if __name__ == "__main__":
    main()
