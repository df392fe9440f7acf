"""Convolution lowering on the current JAX backend: ``lax.conv_general_dilated`` vs
im2col (strided slices + one ``dot_general``), forward and forward+backward, each
jitted; PyTorch's CPU ``conv2d`` for reference. See Note [Convolution lowering on CPU]
in ``torchlike/_ops/nn_conv.py``: the kernel picks im2col on CPU for small 2-D
ungrouped convolutions. Prints median milliseconds per call; asserts nothing.

    python benchmarks/conv_lowering.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from torchlike._ops.nn_conv import _im2col_wins, conv_forward  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

# (batch, C_in, H, W, C_out, k, stride, padding)
SHAPES = [
    (64, 3, 32, 32, 6, 5, 1, 0),      # LeNet conv1
    (64, 6, 14, 14, 16, 5, 1, 0),     # LeNet conv2
    (32, 16, 32, 32, 32, 3, 1, 1),
    (32, 64, 16, 16, 64, 3, 1, 1),
    (8, 128, 28, 28, 128, 3, 1, 1),
    (4, 3, 224, 224, 64, 7, 2, 3),    # ResNet stem
]


def timeit(fn, repeat: int) -> float:
    jax.block_until_ready(fn())
    jax.block_until_ready(fn())
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def torch_time(fn, repeat: int) -> float:
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    print(f"backend={jax.default_backend()}  devices={jax.devices()}")
    print(f"{'shape (N,Cin,H,W,Cout,k,s,p)':34} {'pass':8} {'lax.conv':>9} {'im2col':>9} "
          f"{'torch':>9}  auto-picks")
    for n, c, h, w, o, k, s, p in SHAPES:
        rng = np.random.default_rng(0)
        x = jnp.asarray(rng.standard_normal((n, c, h, w), np.float32))
        wt = jnp.asarray(rng.standard_normal((o, c, k, k), np.float32))
        res = {}
        for lowering in ("lax", "im2col"):
            def f(x, wt, lowering=lowering):
                return conv_forward(x, wt, None, (s, s), [(p, p), (p, p)], (1, 1), 1, lowering)
            fwd = jax.jit(f)
            bwd = jax.jit(jax.grad(lambda x, wt, f=f: (f(x, wt) ** 2).sum(), argnums=(0, 1)))
            res[lowering] = (timeit(lambda: fwd(x, wt), a.repeat),
                             timeit(lambda: bwd(x, wt), a.repeat))
        if torch is not None:
            tx = torch.tensor(np.asarray(x), requires_grad=True)
            tw = torch.tensor(np.asarray(wt), requires_grad=True)
            with torch.no_grad():
                tf = torch_time(lambda: torch.nn.functional.conv2d(tx, tw, None, s, p), a.repeat)

            def tb():
                tx.grad = tw.grad = None
                (torch.nn.functional.conv2d(tx, tw, None, s, p) ** 2).sum().backward()
            tbk = torch_time(tb, a.repeat)
        else:
            tf = tbk = float("nan")
        pick = "im2col" if _im2col_wins(x.shape, wt.shape, 1) else "lax.conv"
        label = str((n, c, h, w, o, k, s, p))
        print(f"{label:34} {'fwd':8} {res['lax'][0]:9.3f} {res['im2col'][0]:9.3f} {tf:9.3f}  "
              f"{pick}")
        print(f"{'':34} {'fwd+bwd':8} {res['lax'][1]:9.3f} {res['im2col'][1]:9.3f} {tbk:9.3f}")


if __name__ == "__main__":
    main()
