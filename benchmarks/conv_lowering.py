"""Convolution and max-pool lowerings inside one ``jax.jit`` of forward + backward.

See Note [Convolution lowering on CPU] in ``torchlike/_ops/nn_conv_lowering.py`` and
Note [Pooling windows] in ``torchlike/_ops/nn_pool.py``: these are the measurements the
rules there come from. Three parts:

* ``conv``: for each shape, ``jax.jit(jax.grad(...))`` of a convolution with every
  lowering of ``conv_forward`` / ``conv_transpose_forward`` that applies (``lax`` is
  ``lax.conv_general_dilated`` with JAX's VJP; ``auto`` is what torchlike picks; ``s2d``
  is ``space_to_depth``), and PyTorch eager CPU forward + backward for reference;
* ``pool``: a 2x2 max pool with its gradient, windows by reshape (torchlike's path for
  tiling windows), by strided slices (its general path) and XLA's ``reduce_window``;
* ``lenet``: a whole LeNet training step (forward, cross-entropy, backward, SGD) under
  ``jax.jit``, written with torchlike's functional ops on wrapped arrays, in plain JAX
  (``lax.conv`` + ``reduce_window``), and PyTorch eager.

The JAX candidates are timed in interleaved rounds so that load on the machine hits them
alike (PyTorch is timed on its own afterwards); each entry is the median over rounds of
the mean time of ``--inner`` calls (ms), and the ratio columns divide by the ``lax`` (or
plain-JAX) time. Asserts nothing.

    python benchmarks/conv_lowering.py [--parts conv,pool,lenet] [--rounds 15]
        [--inner 3] [--threads 2] [--kernels torchlike|xla-default]

``--kernels`` (default ``torchlike``) compiles every JAX candidate with the compiler
options torchlike gives its programs with convolutions (Note [XLA's CPU convolution
kernels] in ``torchlike/_core/xla.py``); ``xla-default`` with XLA's defaults.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# PyTorch's OpenMP threads otherwise spin after each op and steal the cores from the JAX
# call timed next.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import torchlike  # noqa: E402,F401  (turns on x64 as the library does)
from torchlike._core import xla  # noqa: E402
from torchlike._ops import nn_pool  # noqa: E402
from torchlike._ops.nn_conv_lowering import (conv_forward, conv_lowering,  # noqa: E402
                                             conv_transpose_forward,
                                             conv_transpose_lowering)

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

# name, (batch, C_in, spatial, C_out, kernel, stride, padding), input gradient needed
CONVS = [
    ("LeNet conv1 3->6 k5", (64, 3, (32, 32), 6, 5, 1, 0), False),
    ("LeNet conv2 6->16 k5", (64, 6, (14, 14), 16, 5, 1, 0), True),
    ("3x3 3->64 32x32 (stem)", (32, 3, (32, 32), 64, 3, 1, 1), False),
    ("3x3 8->16 16x16", (32, 8, (16, 16), 16, 3, 1, 1), True),
    ("3x3 16->32 32x32", (32, 16, (32, 32), 32, 3, 1, 1), True),
    ("ResNet 3x3 64->64 32x32", (32, 64, (32, 32), 64, 3, 1, 1), True),
    ("ResNet 3x3 s2 32->64", (32, 32, (32, 32), 64, 3, 2, 1), True),
    ("1x1 64->128 16x16", (32, 64, (16, 16), 128, 1, 1, 0), True),
    ("1x1 s2 64->128 32x32", (32, 64, (32, 32), 128, 1, 2, 0), True),
    ("1-d 16->32 k5 L128", (32, 16, (128,), 32, 5, 1, 2), True),
    ("1-d 4->16 k5 L256", (32, 4, (256,), 16, 5, 1, 2), True),
]
# name, (batch, C_in, spatial, C_out, kernel, stride, padding)
TRANSPOSED = [
    ("T 64->32 k4 s2 8x8", (32, 64, (8, 8), 32, 4, 2, 1)),
    ("T 1-d 32->16 k4 s2 L64", (16, 32, (64,), 16, 4, 2, 1)),
    ("T 16->8 k3 s1 16x16", (32, 16, (16, 16), 8, 3, 1, 1)),
]


_KERNELS = ["torchlike"]


def _jit(fun):
    """``jax.jit`` as ``--kernels`` says: with the compiler options torchlike compiles its
    programs with convolutions with (Note [XLA's CPU convolution kernels]), or XLA's
    defaults (YNNPACK's convolution kernels on CPU)."""
    if _KERNELS[0] == "torchlike":
        return xla.jit(fun, convolutions=True)
    return jax.jit(fun)


def bench(fns: dict, rounds: int, inner: int) -> dict:
    """name -> median ms per call: the JAX entries in interleaved rounds, a ``torch``
    entry on its own afterwards."""
    jax_fns = {k: f for k, f in fns.items() if k != "torch"}
    out = _interleaved(jax_fns, rounds, inner)
    if "torch" in fns:
        out.update(_interleaved({"torch": fns["torch"]}, rounds, inner))
    return out


def _interleaved(fns: dict, rounds: int, inner: int) -> dict:
    for f in fns.values():
        _block(f())
        _block(f())
    ts: dict = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(inner):
                r = f()
            _block(r)
            ts[k].append((time.perf_counter() - t0) / inner * 1e3)
    return {k: statistics.median(v) for k, v in ts.items()}


def _block(r):
    if torch is None or not isinstance(r, torch.Tensor):
        jax.block_until_ready(r)


def _row(name: str, times: dict, base: str, cols: list, pick: str) -> None:
    cells = " ".join(f"{times[c]:9.2f}" if c in times else f"{'-':>9}" for c in cols)
    ratio = times["auto"] / times[base]
    tr = times["auto"] / times["torch"] if "torch" in times else float("nan")
    print(f"{name:26} {cells}  {ratio:9.2f} {tr:9.2f}  {pick}", flush=True)


def conv_part(a) -> None:
    cols = ["lax", "auto", "s2d", "col2im", "im2col", "matmul", "torch"]
    print(f"\nconvolution, jit(grad) of sum(tanh(conv)), ms ({jax.default_backend()})")
    print(f"{'case':26} " + " ".join(f"{c:>9}" for c in cols) +
          f"  {'auto/lax':>9} {'auto/torch':>9}  auto picks")
    rng = np.random.default_rng(0)
    for name, (n, c, sp, o, k, s, p), need_dx in CONVS:
        nd = len(sp)
        x = jnp.asarray(rng.standard_normal((n, c) + sp, np.float32))
        w = jnp.asarray(rng.standard_normal((o, c) + (k,) * nd, np.float32)
                        / np.float32(np.sqrt(c * k)))
        cfg = ((s,) * nd, [(p, p)] * nd, (1,) * nd, 1)
        lowerings = ["lax", "auto", "col2im"]
        if c < 32:
            lowerings.append("im2col")        # seconds per call at 64 channels
        if k == 1:
            lowerings.append("matmul")
        elif s == 1:
            lowerings.append("space_to_depth")
        argnums = (0, 1) if need_dx else (1,)
        fns = {}
        for low in lowerings:
            loss = (lambda x, w, low=low:
                    jnp.sum(jnp.tanh(conv_forward(x, w, None, *cfg, lowering=low))))
            g = _jit(jax.grad(loss, argnums=argnums))
            fns["s2d" if low == "space_to_depth" else low] = lambda g=g: g(x, w)
        if torch is not None:
            fns["torch"] = _torch_conv(x, w, s, p, need_dx, transposed=False)
        _row(name, bench(fns, a.rounds, a.inner), "lax", cols, conv_lowering(x, w, *cfg))
    cols = ["lax", "auto", "adjoint", "torch"]
    print("\ntransposed convolution, jit(grad) wrt input and weight, ms")
    print(f"{'case':26} " + " ".join(f"{c:>9}" for c in cols) +
          f"  {'auto/lax':>9} {'auto/torch':>9}  auto picks")
    for name, (n, c, sp, o, k, s, p) in TRANSPOSED:
        nd = len(sp)
        x = jnp.asarray(rng.standard_normal((n, c) + sp, np.float32))
        w = jnp.asarray(rng.standard_normal((c, o) + (k,) * nd, np.float32)
                        / np.float32(np.sqrt(c * k)))
        cfg = ((s,) * nd, (p,) * nd, (0,) * nd, 1, (1,) * nd)
        fns = {}
        for low in ("lax", "auto", "adjoint"):
            loss = (lambda x, w, low=low: jnp.sum(jnp.tanh(
                conv_transpose_forward(x, w, None, *cfg, lowering=low))))
            g = _jit(jax.grad(loss, argnums=(0, 1)))
            fns[low] = lambda g=g: g(x, w)
        if torch is not None:
            fns["torch"] = _torch_conv(x, w, s, p, True, transposed=True)
        _row(name, bench(fns, a.rounds, a.inner), "lax", cols,
             conv_transpose_lowering(x, w, cfg[0]))


def _torch_conv(x, w, s, p, need_dx, transposed):
    nd = x.ndim - 2
    F = torch.nn.functional
    op = getattr(F, f"conv_transpose{nd}d" if transposed else f"conv{nd}d")
    tx = torch.tensor(np.asarray(x), requires_grad=need_dx)
    tw = torch.tensor(np.asarray(w), requires_grad=True)

    def run():
        tx.grad = tw.grad = None
        torch.tanh(op(tx, tw, None, s, p)).sum().backward()
        return tw.grad
    return run


def pool_part(a) -> None:
    print("\n2x2 max pool, jit(grad) of sum(sin(pool)), ms")
    print(f"{'input':26} {'reshape':>9} {'slices':>9} {'r_window':>9} {'torch':>9}  "
          f"{'reshape/slices':>14}")
    k, s, p, d = (2, 2), (2, 2), (0, 0), (1, 1)

    def pick(win):
        kidx = jnp.argmax(win, axis=-1)
        return jnp.take_along_axis(win, kidx[..., None], axis=-1)[..., 0]

    for shape in [(64, 6, 28, 28), (64, 16, 10, 10)]:
        outs = [i // 2 for i in shape[2:]]
        x = jnp.asarray(np.maximum(np.random.default_rng(0).standard_normal(shape), 0),
                        jnp.float32)
        variants = {
            "reshape": lambda x: pick(nn_pool._tiled_windows(x, k, outs)),
            "slices": lambda x: pick(nn_pool._strided_windows(x, k, s, p, d, outs)),
            "r_window": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 1) + k,
                                                    (1, 1) + s, "VALID"),
        }
        fns = {}
        for nm, f in variants.items():
            g = _jit(jax.grad(lambda x, f=f: jnp.sum(jnp.sin(f(x)))))
            fns[nm] = lambda g=g: g(x)
        if torch is not None:
            tx = torch.tensor(np.asarray(x), requires_grad=True)

            def run():
                tx.grad = None
                torch.sin(torch.nn.functional.max_pool2d(tx, 2)).sum().backward()
                return tx.grad
            fns["torch"] = run
        t = bench(fns, a.rounds, a.inner)
        cells = " ".join(f"{t.get(c, float('nan')):9.2f}"
                         for c in ("reshape", "slices", "r_window", "torch"))
        print(f"{str(shape):26} {cells}  {t['reshape'] / t['slices']:14.2f}", flush=True)


def _lenet_params(rng) -> dict:
    def u(shape, fan):
        return (rng.uniform(-1, 1, shape) / np.sqrt(fan)).astype(np.float32)
    return {"c1w": u((6, 3, 5, 5), 75), "c1b": u((6,), 75), "c2w": u((16, 6, 5, 5), 150),
            "c2b": u((16,), 150), "f1w": u((120, 400), 400), "f1b": u((120,), 400),
            "f2w": u((84, 120), 120), "f2b": u((84,), 120), "f3w": u((10, 84), 84),
            "f3b": u((10,), 84)}


def _tl_loss(params, x, y):
    import torchlike.nn.functional as F
    W = {k: torchlike.Tensor._wrap(v) for k, v in params.items()}
    h = F.max_pool2d(F.relu(F.conv2d(torchlike.Tensor._wrap(x), W["c1w"], W["c1b"])), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, W["c2w"], W["c2b"])), 2).flatten(1)
    h = F.relu(F.linear(h, W["f1w"], W["f1b"]))
    h = F.relu(F.linear(h, W["f2w"], W["f2b"]))
    out = F.linear(h, W["f3w"], W["f3b"])
    return F.cross_entropy(out, torchlike.Tensor._wrap(y))._value


def _jax_loss(params, x, y):
    dn = ("NCHW", "OIHW", "NCHW")

    def block(h, w, b):
        h = lax.conv_general_dilated(h, w, (1, 1), "VALID", dimension_numbers=dn)
        h = jax.nn.relu(h + b[:, None, None])
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    h = block(block(x, params["c1w"], params["c1b"]), params["c2w"], params["c2b"])
    h = h.reshape(h.shape[0], -1)
    h = jax.nn.relu(h @ params["f1w"].T + params["f1b"])
    h = jax.nn.relu(h @ params["f2w"].T + params["f2b"])
    out = h @ params["f3w"].T + params["f3b"]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(out), y[:, None], 1))


def _sgd_step(loss_fn):
    @_jit
    def step(params, x, y):
        loss, g = jax.value_and_grad(loss_fn)(params, x, y)
        return {k: params[k] - 0.01 * g[k] for k in params}, loss
    return step


def lenet_part(a) -> None:
    print("\nLeNet training step (batch 64, 3x32x32, SGD), ms")
    rng = np.random.default_rng(0)
    params = _lenet_params(rng)
    xn = rng.standard_normal((64, 3, 32, 32)).astype(np.float32)
    yn = rng.integers(0, 10, 64)
    jp = {k: jnp.asarray(v) for k, v in params.items()}
    x, y = jnp.asarray(xn), jnp.asarray(yn)
    steps = {"torchlike ops in jax.jit": _sgd_step(_tl_loss),
             "plain jax (lax.conv)": _sgd_step(_jax_loss)}
    l_tl = float(steps["torchlike ops in jax.jit"](jp, x, y)[1])
    l_jax = float(steps["plain jax (lax.conv)"](jp, x, y)[1])
    fns = {k: (lambda s=s: s(jp, x, y)) for k, s in steps.items()}
    if torch is not None:
        tp = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
        tx, ty = torch.tensor(xn), torch.tensor(yn)
        F = torch.nn.functional

        def tstep():
            for v in tp.values():
                v.grad = None
            h = F.max_pool2d(F.relu(F.conv2d(tx, tp["c1w"], tp["c1b"])), 2)
            h = F.max_pool2d(F.relu(F.conv2d(h, tp["c2w"], tp["c2b"])), 2).flatten(1)
            h = F.relu(F.linear(h, tp["f1w"], tp["f1b"]))
            h = F.relu(F.linear(h, tp["f2w"], tp["f2b"]))
            loss = F.cross_entropy(F.linear(h, tp["f3w"], tp["f3b"]), ty)
            loss.backward()
            with torch.no_grad():
                for v in tp.values():
                    v -= 0.01 * v.grad
            return loss
        fns["torch eager"] = tstep
    print(f"first-step loss: torchlike {l_tl:.6f}, jax {l_jax:.6f}")
    t = bench(fns, a.rounds, a.inner)
    base = t["plain jax (lax.conv)"]
    for k, v in t.items():
        print(f"   {k:26} {v:9.2f}  x{v / base:5.2f} of plain jax", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="conv,pool,lenet")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--inner", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="PyTorch's intra-op threads")
    ap.add_argument("--kernels", choices=("torchlike", "xla-default"), default="torchlike",
                    help="compile every candidate with torchlike's compiler options for "
                         "programs with convolutions, or with XLA's defaults")
    a = ap.parse_args()
    _KERNELS[0] = a.kernels
    if torch is not None:
        torch.set_num_threads(a.threads)
    options = xla.compiler_options() if a.kernels == "torchlike" else None
    print(f"backend={jax.default_backend()} devices={jax.devices()} jax={jax.__version__} "
          f"kernels={a.kernels} compiler options={options}")
    parts = a.parts.split(",")
    if "conv" in parts:
        conv_part(a)
    if "pool" in parts:
        pool_part(a)
    if "lenet" in parts:
        lenet_part(a)


if __name__ == "__main__":
    main()
