"""Mixed-precision training step: ``torchlike.autocast`` in a compiled step against the
same step in float32, PyTorch eager with ``torch.autocast``, and plain JAX written by hand
to compute what autocast computes (products in the low-precision dtype, the loss in
float32), all from one set of weights, timed in interleaved blocks in one process.

    python benchmarks/amp_step.py                       # MLP, bfloat16
    python benchmarks/amp_step.py --models mlp,cnn --dtype float16

Prints ms/step per implementation and the ratios: torchlike's autocast step against the
hand-written JAX one (the limit) and against PyTorch's, and each library's autocast step
against its own float32 step. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics

import _peers as P

IMPLS = ("torchlike-compiled", "torchlike-compiled-amp", "jax-amp", "torch", "torch-amp")


def _torch_style(T, model: str, cfg: dict, weights: dict, amp_dtype):
    net, opt, plain = P.torch_style_setup(T, model, cfg, weights)
    if amp_dtype is None:
        return opt, plain
    F = T.nn.functional

    def train_step(x, y):
        opt.zero_grad()
        with T.autocast("cpu", dtype=amp_dtype):
            loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss
    return opt, train_step


def _jax_amp(model: str, cfg: dict, weights: dict, dtype: str):
    """Plain JAX, cast as autocast casts: every product in ``dtype``, the loss in float32,
    float32 parameters and optimizer state."""
    import jax
    import jax.numpy as jnp
    import optax

    low = jnp.dtype(dtype)
    apply = P.jax_forward(model, cfg)
    tx = P._optax_tx(cfg)
    params = {k: jnp.asarray(v) for k, v in weights.items()}

    def loss_fn(p, x, y):
        logits = apply({k: v.astype(low) for k, v in p.items()}, x.astype(low))
        return P._ce(logits.astype(jnp.float32), y)

    def step(state, x, y):
        p, s = state
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        updates, s = tx.update(g, s, p)
        return loss, (optax.apply_updates(p, updates), s)
    return jax.jit(step, donate_argnums=0), (params, tx.init(params))


def build(impl: str, model: str, cfg: dict, dtype: str, threads: int) -> P.Runner:
    weights = P.init_weights(model, cfg)
    x, y = P.make_batch(model, cfg)
    amp = impl.endswith("-amp")
    if impl.startswith("torchlike"):
        import torchlike as tl
        opt, step = _torch_style(tl, model, cfg, weights, getattr(tl, dtype) if amp else None)
        return P.torchlike_runner(tl, tl.compile(step), opt, x, y, True)
    if impl.startswith("torch"):
        import torch
        if threads > 0:
            torch.set_num_threads(threads)
        _, step = _torch_style(torch, model, cfg, weights,
                               getattr(torch, dtype) if amp else None)
        X, Y = torch.tensor(x), torch.tensor(y)
        return P.Runner(lambda: step(X, Y), lambda loss: None, lambda loss: loss.item())
    import jax.numpy as jnp
    step, state = _jax_amp(model, cfg, weights, dtype)
    return P.state_runner(step, state, jnp.asarray(x), jnp.asarray(y))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp", help="comma-separated subset of "
                   + ",".join(P.MODELS))
    p.add_argument("--impls", default=",".join(IMPLS))
    p.add_argument("--dtype", default="bfloat16", choices=("bfloat16", "float16"))
    p.add_argument("--steps", type=int, default=20, help="steps per timed block")
    p.add_argument("--blocks", type=int, default=20, help="interleaved blocks (median kept)")
    p.add_argument("--threads", type=int, default=2, help="CPUs (0: leave as they are)")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a quick smoke run)")
    args = p.parse_args(argv)
    pinned = P.pin_threads(args.threads)
    impls = args.impls.split(",")
    sizes = P.TINY if args.tiny else P.FULL
    print(f"# amp step: {args.dtype} autocast on the CPU, {pinned}; {args.blocks} "
          f"interleaved blocks of {args.steps} steps (median)")
    for model in args.models.split(","):
        cfg = sizes[model]
        runners, losses = {}, {}
        for impl in impls:
            try:
                r = runners[impl] = build(impl, model, cfg, args.dtype, args.threads)
                for _ in range(3):   # compile and warm up
                    h = r.run()
                r.sync(h)
                losses[impl] = r.value(h)
            except ImportError as e:
                print(f"{impl}: n/a ({e})")
        times: dict = {k: [] for k in runners}
        for b in range(args.blocks):
            order = list(runners)[b % len(runners):] + list(runners)[:b % len(runners)]
            for impl in order:
                r = runners[impl]
                times[impl].append(P.time_steps(r.run, r.sync, args.steps, 1)[0])
        ms = {k: 1e3 * statistics.median(v) for k, v in times.items()}
        print(f"\n## {model}")
        print(f"{'impl':24s} {'ms/step':>9s} {'loss@3':>10s}")
        for impl in runners:
            print(f"{impl:24s} {ms[impl]:9.3f} {losses[impl]:10.5f}")
        amp_losses = [losses[k] for k in runners if k.endswith("-amp")]
        if amp_losses and max(amp_losses) - min(amp_losses) > 0.05 * abs(max(amp_losses)):
            print("WARNING: the autocast steps' losses disagree")

        def ratio(a, b, what):
            if a in ms and b in ms:
                print(f"{a} / {b} = {ms[a] / ms[b]:.2f}  ({what})")
        ratio("torchlike-compiled-amp", "jax-amp", "against the hand-written limit")
        ratio("torchlike-compiled-amp", "torch-amp", "against PyTorch eager autocast")
        ratio("torchlike-compiled-amp", "torchlike-compiled", "autocast against float32")
        ratio("torch-amp", "torch", "autocast against float32")


if __name__ == "__main__":
    main()
