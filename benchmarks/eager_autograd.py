"""Eager forward+backward time: torchlike vs PyTorch eager vs jax.grad (eager and jit).

Cases: an 8x8 add, a 64x64 matmul, a 10-op elementwise chain and a 3-layer MLP written
with raw tensor ops; each computes a scalar loss and its gradients w.r.t. the inputs.
Prints per-case times and ratios measured in this one run (no asserts).

Latest recorded run (2-core CPU container shared with other busy processes, so the
absolute figures, PyTorch's included, are noisy; us per forward+backward step):

    case            torchlike      torch   jax.grad  jit(grad)  tl/torch tl/jaxgrad
    add 8x8            511.4us     210.0us    4131.5us      33.9us     2.43x      0.12x
    matmul 64x64      1165.3us   10071.7us   12708.7us     589.4us     0.12x      0.09x
    chain 10 ops      6554.4us     440.0us   21431.5us     374.7us    14.90x      0.31x
    mlp 3 layers      4830.2us   22796.4us   34325.4us     555.3us     0.21x      0.14x
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

import torchlike as tl

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


def bench_torchlike(case, arrays):
    ts = [tl.tensor(a, requires_grad=True) for a in arrays]

    def step():
        for t in ts:
            t.grad = None
        case(tl, *ts).backward()
        ts[0].grad._value.block_until_ready()
    return _time(step)


def bench_torch(case, arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]

    def step():
        for t in ts:
            t.grad = None
        case(torch, *ts).backward()
    return _time(step)


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
    rows = []
    for name, (case, arrays) in _inputs().items():
        t_tl = bench_torchlike(case, arrays)
        t_t = bench_torch(case, arrays) if torch is not None else float("nan")
        t_je = bench_jax(case, arrays, jit=False)
        t_jj = bench_jax(case, arrays, jit=True)
        rows.append((name, t_tl, t_t, t_je, t_jj))
    print(f"{'case':14s} {'torchlike':>10s} {'torch':>10s} {'jax.grad':>10s} "
          f"{'jit(grad)':>10s} {'tl/torch':>9s} {'tl/jaxgrad':>10s}")
    for name, a, b, c, d in rows:
        print(f"{name:14s} {a:9.1f}us {b:9.1f}us {c:9.1f}us {d:9.1f}us {a / b:8.2f}x "
              f"{a / c:9.2f}x")


if __name__ == "__main__":
    main()
