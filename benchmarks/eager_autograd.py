"""Eager forward+backward time: torchlike vs PyTorch eager vs jax.grad (eager and jit).

Cases: an 8x8 add, a 64x64 matmul, a 10-op elementwise chain and a 3-layer MLP written
with raw tensor ops; each computes a scalar loss and its gradients w.r.t. the inputs.
torchlike runs twice: as it is (a graph walked many times gets its backward fused into
one executable, Note [Fused backward] in torchlike/autograd/_fusion.py) and per-node (that
switched off). torchlike and PyTorch are timed in interleaved blocks so that a shared
machine loads them alike. Prints per-case times and ratios measured in this one run (no
asserts); benchmarks/README.md has the recorded figures.

A step ends by reading the first input's gradient into a NumPy array (``--read numpy``,
the default: ``.grad.numpy()`` for torchlike and PyTorch alike), which waits for the
backward under JAX's asynchronous dispatch; ``--read block`` waits with
``block_until_ready()`` on that gradient's JAX array instead and reads nothing (nothing
for PyTorch, whose backward has finished when it returns). torchlike's reads poll before
they block (Note [Reads poll before they block] in torchlike/_core/waiting.py).

    python benchmarks/eager_autograd.py [--no-jax] [--torch-threads 1] [--read numpy|block]
                                        [--sync-dispatch]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

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

def _mm(T, a, b):
    if hasattr(a, "matmul"):
        return a.matmul(b)
    return (a[:, :, None] * b[None]).sum(1)


def case_add(T, a, b):
    return (a + b).sum()


def case_matmul(T, a, b):
    return _mm(T, a, b).sum()


def case_chain(T, a, b):
    x = a * b
    x = x + 1.0
    x = x.sin()
    x = x * x
    x = x - b
    x = x.exp()
    x = x / 3.0
    x = x.tanh()
    x = x + a
    return x.sum()


def case_mlp(T, x, w1, b1, w2, b2, w3, b3):
    h = _mm(T, x, w1) + b1
    h = h * (h > 0)
    h = _mm(T, h, w2) + b2
    h = h * (h > 0)
    out = _mm(T, h, w3) + b3
    return (out * out).mean()


def _inputs():
    r = np.random.default_rng(0)
    f = lambda *s: r.standard_normal(s).astype(np.float32)  # noqa: E731
    return {
        "add 8x8": (case_add, [f(8, 8), f(8, 8)]),
        "matmul 64x64": (case_matmul, [f(64, 64), f(64, 64)]),
        "chain 10 ops": (case_chain, [f(32, 32), f(32, 32)]),
        "mlp 3 layers": (case_mlp, [f(16, 32), f(32, 64), f(64), f(64, 64), f(64), f(64, 10),
                                    f(10)]),
    }


def _time(fn, n=None, budget=0.6):
    for _ in range(5):
        fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    n = n or max(10, min(2000, int(budget / one)))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def _interleaved(fns: list, rounds: int = 15, budget: float = 0.04) -> list:
    """Per-step time in microseconds of each step function in ``fns`` (None: skipped):
    after a warm-up, ``rounds`` rounds in a rotating order, each timing a block of steps
    that lasts about ``budget`` seconds; the median block. Interleaving makes the
    implementations share the load of a busy machine alike."""
    live = [f for f in fns if f is not None]
    sizes = []
    for f in live:
        for _ in range(30):    # past the engine's _FUSE_AFTER sightings
            f()
        t0 = time.perf_counter()
        f()
        sizes.append(max(3, int(budget / max(time.perf_counter() - t0, 1e-6))))
    samples: list = [[] for _ in live]
    for r in range(rounds):
        k = r % len(live)
        order = list(range(len(live)))
        for i in order[k:] + order[:k]:
            t0 = time.perf_counter()
            for _ in range(sizes[i]):
                live[i]()
            samples[i].append((time.perf_counter() - t0) / sizes[i])
    meds = iter(statistics.median(x) * 1e6 for x in samples)
    return [next(meds) if f is not None else float("nan") for f in fns]


READ = ["numpy"]   # how a step waits for its gradients: ``--read``


def torchlike_step(case, arrays, fuse=True):
    """``fuse=False``: every backward node runs as its own executable (the engine's
    fused backward, Note [Fused backward], switched off)."""
    from torchlike.autograd import _fusion
    ts = [tl.tensor(a, requires_grad=True) for a in arrays]
    read = READ[0] == "numpy"

    def step():
        for t in ts:
            t.grad = None
        case(tl, *ts).backward()
        if read:
            ts[0].grad.numpy()
        else:
            ts[0].grad._value.block_until_ready()

    def per_node_step():
        prev = _fusion._FUSE_MAX_NODES
        _fusion._FUSE_MAX_NODES = -1
        try:
            step()
        finally:
            _fusion._FUSE_MAX_NODES = prev
    return step if fuse else per_node_step


def torch_step(case, arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    read = READ[0] == "numpy"

    def step():
        for t in ts:
            t.grad = None
        case(torch, *ts).backward()
        if read:
            ts[0].grad.numpy()
    return step


class _J:
    """Just enough of a tensor namespace for the cases, on jax.numpy arrays."""


def _jax_fn(case):
    def f(*arrs):
        return case(_J, *[_JArr(a) for a in arrs]).a
    return f


class _JArr:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    def _w(self, o):
        return o.a if isinstance(o, _JArr) else o

    def __add__(self, o):
        return _JArr(self.a + self._w(o))

    __radd__ = __add__

    def __sub__(self, o):
        return _JArr(self.a - self._w(o))

    def __mul__(self, o):
        return _JArr(self.a * self._w(o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        return _JArr(self.a / self._w(o))

    def __gt__(self, o):
        return _JArr(self.a > self._w(o))

    def __getitem__(self, k):
        return _JArr(self.a[k])

    def matmul(self, o):
        return _JArr(self.a @ o.a)

    def sum(self, *d):
        return _JArr(self.a.sum(*d))

    def mean(self):
        return _JArr(self.a.mean())

    def sin(self):
        return _JArr(jnp.sin(self.a))

    def exp(self):
        return _JArr(jnp.exp(self.a))

    def tanh(self):
        return _JArr(jnp.tanh(self.a))


def bench_jax(case, arrays, jit):
    f = jax.grad(_jax_fn(case), argnums=tuple(range(len(arrays))))
    if jit:
        f = jax.jit(f)
    xs = [jnp.asarray(a) for a in arrays]

    def step():
        jax.block_until_ready(f(*xs))
    return _time(step, budget=0.6 if jit else 0.3)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--no-jax", action="store_true", help="skip the jax.grad columns")
    p.add_argument("--torch-threads", type=int, default=1,
                   help="PyTorch intra-op threads (its idle threads spin, which on a shared "
                        "machine slows whatever runs next; these cases are small)")
    p.add_argument("--read", choices=("numpy", "block"), default="numpy",
                   help="how a step waits for its gradients (see the module's docstring)")
    p.add_argument("--rounds", type=int, default=15,
                   help="timed blocks per implementation (the median is reported)")
    P.add_sync_dispatch(p)
    args = p.parse_args()
    READ[0] = args.read
    if torch is not None:
        torch.set_num_threads(args.torch_threads)
    rows = []
    nan = float("nan")
    for name, (case, arrays) in _inputs().items():
        t_tl, t_pn, t_t = _interleaved(rounds=args.rounds, fns=[
            torchlike_step(case, arrays), torchlike_step(case, arrays, fuse=False),
            torch_step(case, arrays) if torch is not None else None])
        t_je = nan if args.no_jax else bench_jax(case, arrays, jit=False)
        t_jj = nan if args.no_jax else bench_jax(case, arrays, jit=True)
        rows.append((name, t_tl, t_pn, t_t, t_je, t_jj))
    print(f"# CPU dispatch {DISPATCH}; each step's gradient read by {args.read}")
    print(f"{'case':14s} {'torchlike':>10s} {'per-node':>10s} {'torch':>10s} "
          f"{'jax.grad':>10s} {'jit(grad)':>10s} {'tl/torch':>9s} {'pn/torch':>9s} "
          f"{'tl/jaxgrad':>10s}")
    for name, a, pn, b, c, d in rows:
        print(f"{name:14s} {a:9.1f}us {pn:9.1f}us {b:9.1f}us {c:9.1f}us {d:9.1f}us "
              f"{a / b:8.2f}x {pn / b:8.2f}x {a / c:9.2f}x")


if __name__ == "__main__":
    main()
