"""Per-call cost of a compiled training step on a tiny input, where Python dominates.

A stack of 1, 10 and 100 ``Linear(8, 8)`` layers (ReLU between them), batch 1, MSE loss,
one SGD step (lr 0.01): forward, backward and update are almost free for XLA, so the
time per call is what each framework does in Python around the executable: finding and
flattening the state, checking the cache, writing results back. Compared in one run:

* ``torchlike-compiled``: ``torchlike.compile`` of the PyTorch-style step;
* ``flax-nnx.jit``: Flax NNX's ``@nnx.jit`` over the model and ``nnx.Optimizer`` (Flax's
  tutorial style: the object graph is walked on every call);
* ``flax-split``: the same NNX objects split once, ``jax.jit`` over the state, donated;
* ``jax``: a params dict, ``jax.jit`` with ``donate_argnums`` (the floor);
* ``torch``: PyTorch eager, for reference (``--impls`` to leave it out);
* ``torchlike-eager``: not run by default (slow at 100 layers; name it in ``--impls``).

Prints the median µs per step (``--steps`` calls back to back, synced at the end, median
of ``--repeat`` runs), the first call's time (tracing and compilation) and each
implementation's ratio to ``jax``. Losses of the first steps are compared across
implementations (they start from the same weights). Nothing is asserted.

    python benchmarks/step_overhead.py [--depths 1,10,100] [--impls ...] [--steps 200]
        [--repeat 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import _peers as P  # noqa: E402  (NumPy only; JAX is imported after threads are pinned)

IMPLS = ("torchlike-compiled", "flax-nnx.jit", "flax-split", "jax", "torch",
         "torchlike-eager")
DEFAULT_IMPLS = IMPLS[:-1]
WIDTH = 8
LR = 0.01


def init_weights(depth: int, seed: int = 0) -> dict:
    """``depth`` Linear(8, 8) layers named as in ``nn.Sequential`` with ReLUs between."""
    import numpy as np
    rng = np.random.default_rng(seed)
    sd: dict = {}
    for i in range(depth):
        P.init_linear(rng, sd, str(2 * i), WIDTH, WIDTH)
    return sd


def _torch_style(T, depth: int, weights: dict):
    nn = T.nn
    layers: list = []
    for _ in range(depth):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    net = nn.Sequential(*layers[:-1])
    net.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
    opt = T.optim.SGD(net.parameters(), lr=LR)
    F = T.nn.functional

    def train_step(x, t):
        opt.zero_grad()
        loss = F.mse_loss(net(x), t)
        loss.backward()
        opt.step()
        return loss
    return opt, train_step


def _flax_model(depth: int, weights: dict):
    """The stack in Flax NNX, built abstractly (no initialiser runs), then loaded."""
    import jax.numpy as jnp
    from flax import nnx

    class Stack(nnx.Module):
        def __init__(self, rngs):
            self.layers = nnx.List([nnx.Linear(WIDTH, WIDTH, rngs=rngs)
                                    for _ in range(depth)])

        def __call__(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if i < depth - 1:
                    x = nnx.relu(x)
            return x

    net = nnx.eval_shape(lambda: Stack(nnx.Rngs(0)))
    for i, layer in enumerate(net.layers):
        layer.kernel.set_value(jnp.asarray(weights[f"{2 * i}.weight"].T))
        layer.bias.set_value(jnp.asarray(weights[f"{2 * i}.bias"]))
    return net


def build(impl: str, depth: int, threads: int) -> P.Runner:
    """A ``Runner`` for ``impl`` on a ``depth``-layer stack (raises if unavailable)."""
    import numpy as np
    weights = init_weights(depth)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, WIDTH)).astype(np.float32)
    t = rng.standard_normal((1, WIDTH)).astype(np.float32)
    if impl in ("torchlike-compiled", "torchlike-eager"):
        import torchlike as tl
        opt, train_step = _torch_style(tl, depth, weights)
        compiled = impl == "torchlike-compiled"
        fn = tl.compile(train_step) if compiled else train_step
        return P.torchlike_runner(tl, fn, opt, x, t, compiled)
    if impl == "torch":
        import torch
        if threads > 0:
            torch.set_num_threads(threads)
        _, train_step = _torch_style(torch, depth, weights)
        X, T = torch.tensor(x), torch.tensor(t)
        return P.Runner(lambda: train_step(X, T), lambda loss: loss.item(),
                        lambda loss: loss.item())

    import jax
    import jax.numpy as jnp
    import optax
    X, T = jnp.asarray(x), jnp.asarray(t)
    tx = optax.sgd(LR)
    if impl == "jax":
        def apply(p, x):
            for i in range(depth):
                x = x @ p[f"{2 * i}.weight"].T + p[f"{2 * i}.bias"]
                if i < depth - 1:
                    x = jax.nn.relu(x)
            return x

        def step(state, x, t):
            params, opt_state = state
            loss, g = jax.value_and_grad(lambda p: ((apply(p, x) - t) ** 2).mean())(params)
            updates, opt_state = tx.update(g, opt_state, params)
            return loss, (optax.apply_updates(params, updates), opt_state)
        params = {k: jnp.asarray(v) for k, v in weights.items()}
        return P.state_runner(jax.jit(step, donate_argnums=0), (params, tx.init(params)), X, T)

    from flax import nnx
    net = _flax_model(depth, weights)
    opt = nnx.Optimizer(net, tx, wrt=nnx.Param)

    def loss_fn(m, x, t):
        return ((m(x) - t) ** 2).mean()
    if impl == "flax-nnx.jit":
        @nnx.jit
        def nnx_step(net, opt, x, t):
            loss, grads = nnx.value_and_grad(loss_fn)(net, x, t)
            opt.update(net, grads)
            return loss
        sync = lambda loss: jax.block_until_ready((loss, nnx.state(net)))
        return P.Runner(lambda: nnx_step(net, opt, X, T), sync, float)
    if impl == "flax-split":
        graphdef, state = nnx.split((net, opt))

        def split_step(state, x, t):
            net, opt = nnx.merge(graphdef, state)
            loss, grads = nnx.value_and_grad(loss_fn)(net, x, t)
            opt.update(net, grads)
            return loss, nnx.state((net, opt))
        return P.state_runner(jax.jit(split_step, donate_argnums=0), state, X, T)
    raise KeyError(f"unknown implementation {impl!r}; expected one of {', '.join(IMPLS)}")


def measure(impl: str, depth: int, *, steps: int, repeat: int, threads: int,
            check_steps: int = 3) -> dict[str, Any]:
    """First-call seconds, losses of the first steps, median µs per step (or ``error``)."""
    out: dict[str, Any] = {"impl": impl, "depth": depth}
    try:
        r = build(impl, depth, threads)
        t0 = time.perf_counter()
        h = r.run()
        r.sync(h)
        out["first_s"] = time.perf_counter() - t0
        losses = [r.value(h)] + [r.value(r.run()) for _ in range(check_steps - 1)]
        for _ in range(max(10, steps // 10)):
            h = r.run()
        r.sync(h)
        sec, _ = P.time_steps(r.run, r.sync, steps, repeat)
        traces = r.traces()
        out.update(losses=losses, us=sec * 1e6, traces=traces and traces[0])
    except Exception as e:  # reported in the table instead of a time
        text = str(e).strip().splitlines()
        out["error"] = f"{type(e).__name__}: {text[0] if text else ''}"[:160]
    return out


def report(depth: int, results: list[dict]) -> list[str]:
    """The table for one depth, and a WARNING line per implementation whose loss differs."""
    lines = [f"\n## {depth} x Linear(8, 8), batch 1, MSE, SGD"]
    lines.append(f"{'impl':<20}{'us/step':>10}{'first call s':>14}{'/ jax':>8}{'loss@3':>12}"
                 f"{'traces':>8}")
    ok = {r["impl"]: r for r in results if "error" not in r}
    floor = ok.get("jax")
    for r in results:
        if "error" in r:
            lines.append(f"{r['impl']:<20}  n/a: {r['error']}")
            continue
        ratio = r["us"] / floor["us"] if floor else math.nan
        traces = "-" if r["traces"] is None else str(r["traces"])
        lines.append(f"{r['impl']:<20}{r['us']:10.1f}{r['first_s']:14.2f}{ratio:8.2f}"
                     f"{r['losses'][-1]:12.6f}{traces:>8}")
    ref = floor or next(iter(ok.values()), None)
    for r in ok.values():
        a, b = r["losses"][-1], ref["losses"][-1]
        if not abs(a - b) <= 2e-3 * max(abs(b), 1e-12):
            lines.append(f"WARNING: {r['impl']} loss {a:.6f} differs from {ref['impl']}'s "
                         f"{b:.6f}: not the same program")
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depths", default="1,10,100", help="comma-separated layer counts")
    p.add_argument("--impls", default=",".join(DEFAULT_IMPLS),
                   help=f"comma-separated subset of {','.join(IMPLS)}")
    p.add_argument("--steps", type=int, default=200, help="calls per timed repetition")
    p.add_argument("--repeat", type=int, default=5, help="timed repetitions (median kept)")
    p.add_argument("--threads", type=int, default=2,
                   help="CPUs for XLA and torch (0: leave them as they are)")
    args = p.parse_args(argv)
    impls = [i for i in args.impls.split(",") if i]
    bad = [i for i in impls if i not in IMPLS]
    if bad:
        p.error(f"unknown implementation(s) {', '.join(bad)}; expected some of "
                f"{', '.join(IMPLS)}")
    depths = [int(d) for d in args.depths.split(",") if d]
    pinned = P.pin_threads(args.threads)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    print(f"# compiled step overhead: {platform.machine()}, {os.cpu_count()} CPUs visible, "
          f"{pinned}; jax {jax.__version__}; {args.steps} calls x repeat {args.repeat} "
          f"(median)")
    for depth in depths:
        results = [measure(i, depth, steps=args.steps, repeat=args.repeat,
                           threads=args.threads) for i in impls]
        print("\n".join(report(depth, results)), flush=True)


if __name__ == "__main__":
    main()
