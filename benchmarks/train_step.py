"""Training-step throughput: torchlike (compiled and eager) against its peers, in one run.

Models (all float32, fixed seeds, one fixed batch reused at every step):

* ``mlp``: MLP 784-256-256-10, batch 128, SGD (momentum 0.9), cross-entropy;
* ``cnn``: LeNet-style CNN on 3x32x32, batch 64 (conv 3->6 k5, relu, maxpool 2, conv 6->16
  k5, relu, maxpool 2, flatten, fc 400-120-84-10 with relus), SGD (momentum 0.9);
* ``transformer``: ``nn.TransformerEncoder`` of 2 ``TransformerEncoderLayer(d_model=128,
  nhead=4, dim_feedforward=512, dropout=0.0, batch_first=True)``, seq 64, batch 16,
  mean-pooled, a linear head, cross-entropy, Adam.

Implementations, each the same model from the same initial weights and the same step
(zero_grad, forward, loss, backward, optimizer step):

* ``torchlike-compiled``: ``torchlike.compile`` of the step function;
* ``torchlike-eager``: the same step function, not compiled;
* ``torch``: PyTorch eager on CPU (``torch.set_num_threads(threads)``);
* ``torchax``: ``torchax.extract_jax`` of the PyTorch model in a jitted optax step (when
  torchax imports with the installed torch; otherwise the reason is printed);
* ``flax``: Flax NNX + ``nnx.Optimizer``, ``jax.jit`` over the split state with donation;
* ``jax``: a params dict, ``jax.nn``/``lax`` ops, optax, ``jax.jit`` with donation.

The limit for the compiled mode is the faster of ``flax`` and ``jax``. Goals:
torchlike-compiled / limit <= 1.05, torchlike-compiled / torch < 1. Nothing is asserted.

By default each (model, implementation) runs in a fresh subprocess, so its first step
pays its own compilation and its peak memory is its own: "peak RSS" is the process's
peak resident size (``VmHWM``: imports, compilation and training included) and "step
dRSS" that peak minus the resident size measured just before the first step (what
compiling and running the step added). Before timing, torchlike's
compiled and eager steps are run side by side from the same weights and their losses
compared; every implementation's loss after the check steps is printed so that a wrong
program shows. ``--threads N`` pins every process to N CPUs (see ``_peers.pin_threads``)
and sets ``torch.set_num_threads(N)``.

``--interleave BLOCKS`` builds every implementation once in one process and times
BLOCKS blocks of ``--steps`` steps each, the implementations interleaved block by block
(the median block is kept): on a noisy machine its ratios vary least between runs.

``--rounds N`` runs every implementation N times, in a rotating order (round k starts
with the k-th implementation), and keeps each implementation's fastest round: on a shared
machine a neighbour's burst slows whichever process runs during it, and one pass in a
fixed order had moved the compiled/limit ratio of the MLP between 1.03 and 1.60 from run
to run. The spread over rounds is printed beside each time.

    python benchmarks/train_step.py [--models mlp,cnn,transformer] [--impls ...]
        [--steps 20] [--repeat 5] [--warmup 3] [--rounds 3] [--threads 2] [--tiny]
        [--no-isolate] [--interleave BLOCKS] [--sync-dispatch]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import _peers as P  # noqa: E402  (NumPy only; JAX is imported after threads are pinned)

IMPLS = ("torchlike-compiled", "torchlike-eager", "torch", "torchax", "flax", "jax")
# Losses of two implementations after the same steps from the same weights may differ
# by float32 rounding (fusion, summation order), not more.
LOSS_RTOL = 2e-3


def title(model: str, cfg: dict) -> str:
    """One line describing ``model`` at the sizes of ``cfg``."""
    opt = "Adam" if cfg["opt"] == "adam" else f"SGD momentum {cfg['momentum']}"
    if model == "mlp":
        arch = "MLP " + "-".join(map(str, cfg["sizes"]))
    elif model == "cnn":
        arch = (f"LeNet CNN 3x32x32 (conv {cfg['c1']}, {cfg['c2']}; fc {cfg['f1']}, "
                f"{cfg['f2']}, {cfg['classes']})")
    else:
        arch = (f"TransformerEncoder {cfg['layers']}x(d{cfg['d_model']}, {cfg['nhead']} "
                f"heads, ff{cfg['ff']}), seq {cfg['seq']}, mean-pooled, linear head")
    return f"{arch}, batch {cfg['batch']}, {opt}, cross-entropy"



def build(impl: str, model: str, cfg: dict, threads: int) -> P.Runner:
    """Set up ``impl`` on ``model``; raises if the implementation is unavailable."""
    weights = P.init_weights(model, cfg)
    x, y = P.make_batch(model, cfg)
    if impl in ("torchlike-compiled", "torchlike-eager"):
        import torchlike as tl
        _, opt, train_step = P.torch_style_setup(tl, model, cfg, weights)
        compiled = impl == "torchlike-compiled"
        fn = tl.compile(train_step) if compiled else train_step
        return P.torchlike_runner(tl, fn, opt, x, y, compiled)
    if impl == "torch":
        import torch
        if threads > 0:
            torch.set_num_threads(threads)
        _, _, train_step = P.torch_style_setup(torch, model, cfg, weights)
        X, Y = torch.tensor(x), torch.tensor(y)
        return P.Runner(lambda: train_step(X, Y), lambda loss: loss.item(),
                        lambda loss: loss.item())
    if impl in ("flax", "jax", "torchax"):
        import jax.numpy as jnp
        setup = {"flax": P.flax_setup, "jax": P.jax_setup, "torchax": P.torchax_setup}[impl]
        step, state = setup(model, cfg, weights)
        if impl == "flax" and model == "cnn":
            x = x.transpose(0, 2, 3, 1)  # Flax convolutions are NHWC
        return P.state_runner(step, state, jnp.asarray(x), jnp.asarray(y, jnp.int32))
    raise KeyError(f"unknown implementation {impl!r}; expected one of {', '.join(IMPLS)}")


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:160]


def _started(impl: str, model: str, cfg: dict, threads: int, check_steps: int,
             warmup: int, out: dict) -> P.Runner:
    """``impl`` built, its first ``check_steps`` steps run one by one (their times and
    losses go into ``out``) and ``warmup`` more."""
    runner = build(impl, model, cfg, threads)
    out["rss_before"] = P.rss_mib()
    losses, secs = [], []
    for _ in range(max(check_steps, 2)):
        t0 = time.perf_counter()
        h = runner.run()
        runner.sync(h)
        secs.append(time.perf_counter() - t0)
        losses.append(runner.value(h))
    out.update(first_s=secs[0], second_s=secs[1], losses=losses[:check_steps])
    for _ in range(warmup):
        h = runner.run()
    runner.sync(h)
    return runner


def measure(impl: str, model: str, cfg: dict, *, steps: int, repeat: int, warmup: int,
            check_steps: int, threads: int) -> dict:
    """Build, run ``check_steps`` steps reading the loss, warm up, then time.

    Returns a dict: ms (median ms/step), runs (every repetition), first_s and second_s
    (the first two steps, each synced: compilation, and a retrace if the first step
    created state such as optimizer moments), losses, traces, rss_before/peak_rss (MiB);
    or ``error`` with the reason the implementation could not run."""
    out: dict[str, Any] = {"impl": impl, "model": model}
    try:
        runner = _started(impl, model, cfg, threads, check_steps, warmup, out)
        sec, runs = P.time_steps(runner.run, runner.sync, steps, repeat)
        traces = runner.traces()
        out.update(ms=sec * 1e3, runs=[r * 1e3 for r in runs],
                   traces=traces and traces[0], trace_reason=traces and traces[1],
                   peak_rss=P.peak_rss_mib())
    except Exception as e:  # reported in the table instead of a time
        out["error"] = _reason(e)
    return out


def interleaved(impls: list[str], model: str, cfg: dict, *, blocks: int, steps: int,
                warmup: int, check_steps: int, threads: int) -> list[dict]:
    """Every implementation built once in this process, then timed in ``blocks`` blocks
    of ``steps`` steps each, the implementations in a rotating order within each round:
    a neighbour's burst then slows a block of each rather than one implementation's
    whole run. ``ms`` is the median block; ``rounds`` lists every block."""
    out: dict[str, dict] = {}
    runners = {}
    for impl in impls:
        res: dict[str, Any] = {"impl": impl, "model": model, "rounds": []}
        try:
            runners[impl] = _started(impl, model, cfg, threads, check_steps, warmup, res)
        except Exception as e:  # reported in the table instead of a time
            res["error"] = _reason(e)
        out[impl] = res
    names = list(runners)
    for b in range(blocks):
        k = b % max(len(names), 1)
        for impl in names[k:] + names[:k]:
            runner = runners[impl]
            t0 = time.perf_counter()
            for _ in range(steps):
                h = runner.run()
            runner.sync(h)
            out[impl]["rounds"].append((time.perf_counter() - t0) / steps * 1e3)
    for impl in names:
        res, traces = out[impl], runners[impl].traces()
        res.update(ms=statistics.median(res["rounds"]), traces=traces and traces[0],
                   trace_reason=traces and traces[1])
    return [out[i] for i in impls]


def check_compiled(model: str, cfg: dict, steps: int = 3) -> tuple[bool, str]:
    """Run torchlike eager and compiled side by side from the same weights; compare losses."""
    try:
        eager, compiled = (build(i, model, cfg, 1) for i in ("torchlike-eager",
                                                             "torchlike-compiled"))
        le = [eager.value(eager.run()) for _ in range(steps)]
        lc = [compiled.value(compiled.run()) for _ in range(steps)]
    except Exception as e:
        return False, f"torchlike-compiled could not run: {_reason(e)}"
    worst = max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(le, lc))
    fmt = lambda ls: ", ".join(f"{v:.6f}" for v in ls)  # noqa: E731
    if not worst <= LOSS_RTOL:
        return False, (f"torchlike-compiled and -eager losses differ over {steps} steps "
                       f"(max rel. diff {worst:.2e}): eager [{fmt(le)}], compiled [{fmt(lc)}]")
    return True, f"torchlike compiled == eager over {steps} steps (max rel. diff {worst:.1e})"


# ----------------------------------------------------------------------------- running

def _run_worker(impl: str, model: str, args) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", f"{model}:{impl}",
           "--steps", str(args.steps), "--repeat", str(args.repeat),
           "--warmup", str(args.warmup), "--threads", str(args.threads),
           "--check-steps", str(args.check_steps)] + (["--tiny"] if args.tiny else []) \
        + (["--sync-dispatch"] if args.sync_dispatch else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.worker_timeout)
    except subprocess.TimeoutExpired:
        return {"impl": impl, "model": model,
                "error": f"timed out after {args.worker_timeout} s"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"impl": impl, "model": model,
            "error": f"worker exited with {p.returncode}: {tail}"[:160]}


def _fastest(rounds: list[dict]) -> dict:
    """The round with the lowest ms/step, with every round's figure under ``rounds``."""
    ok = [r for r in rounds if "error" not in r]
    if not ok:
        return rounds[0]
    best = dict(min(ok, key=lambda r: r["ms"]))
    best["rounds"] = [r["ms"] for r in ok]
    return best


def _fmt(v, spec: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-".rjust(int(spec.split(".")[0].rstrip("df")))
    return format(v, spec)


def _spread(values: list[float]) -> str:
    """Every round's time, or for many interleaved blocks their count and range."""
    if len(values) > 8:
        return f"{len(values)} blocks, {min(values):.3g} to {max(values):.3g}"
    return " ".join(format(v, ".3g") for v in values)


def report(model: str, cfg: dict, results: list[dict], check: str | None,
           isolated: bool) -> list[str]:
    """The table and ratio lines for one model."""
    lines = [f"\n## {model}: {title(model, cfg)}"]
    if check:
        lines.append(check)
    lines.append(f"{'impl':<20}{'ms/step':>10}{'1st step s':>12}{'2nd step s':>12}"
                 f"{'peak RSS MiB':>14}{'step dRSS':>11}{'loss@check':>12}{'traces':>8}"
                 f"  rounds (ms/step)")
    ok = {r["impl"]: r for r in results if "error" not in r}
    for r in results:
        if "error" in r:
            lines.append(f"{r['impl']:<20}  n/a: {r['error']}")
            continue
        peak = r.get("peak_rss") if isolated else None
        drss = peak - r["rss_before"] if peak is not None else None
        lines.append(f"{r['impl']:<20}{_fmt(r['ms'], '10.3f')}{_fmt(r['first_s'], '12.2f')}"
                     f"{_fmt(r['second_s'], '12.2f')}"
                     f"{_fmt(peak, '14.0f')}{_fmt(drss, '11.0f')}"
                     f"{_fmt(r['losses'][-1], '12.6f')}{_fmt(r['traces'], '8d')}"
                     f"  {_spread(r.get('rounds', [r['ms']]))}")
    ref = next((ok[i] for i in ("torch", "jax", "flax", "torchlike-eager") if i in ok),
               next(iter(ok.values()), None))
    for r in ok.values():
        a, b = r["losses"][-1], ref["losses"][-1]
        if not abs(a - b) <= LOSS_RTOL * max(abs(b), 1e-12):
            lines.append(f"WARNING: {r['impl']} loss {a:.6f} differs from {ref['impl']}'s "
                         f"{b:.6f} after {len(r['losses'])} steps: not the same program")
        if r["traces"] is not None and r["traces"] > 1:
            # The first call of a step creates the optimizer's state (momentum buffers,
            # Adam's moments), so the second call sees new state and traces once more.
            # More than that means the step retraces while it is being timed.
            lines.append(f"{'note' if r['traces'] == 2 else 'WARNING'}: {r['impl']} traced "
                         f"{r['traces']} times (last reason: {r['trace_reason']})")
    limits = [ok[i] for i in ("flax", "jax") if i in ok]
    tc = ok.get("torchlike-compiled")
    if tc and limits:
        lim = min(limits, key=lambda r: r["ms"])
        lines.append(f"torchlike-compiled / limit ({lim['impl']}, {lim['ms']:.3f} ms) = "
                     f"{tc['ms'] / lim['ms']:.2f}  (goal <= 1.05)")
    if tc and "torch" in ok:
        lines.append(f"torchlike-compiled / torch eager = {tc['ms'] / ok['torch']['ms']:.2f}"
                     f"  (goal < 1)")
    if "torchlike-eager" in ok and "torch" in ok:
        lines.append(f"torchlike-eager / torch eager = "
                     f"{ok['torchlike-eager']['ms'] / ok['torch']['ms']:.2f}")
    if not isolated:
        lines.append("(in-process run: peak memory not measured per implementation)")
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=",".join(P.MODELS),
                   help=f"comma-separated subset of {','.join(P.MODELS)}")
    p.add_argument("--impls", default=",".join(IMPLS),
                   help=f"comma-separated subset of {','.join(IMPLS)}")
    p.add_argument("--steps", type=int, default=20, help="steps per timed repetition")
    p.add_argument("--repeat", type=int, default=5, help="timed repetitions (median kept)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps after the first")
    p.add_argument("--rounds", type=int, default=3,
                   help="runs of every implementation, in rotating order (fastest kept)")
    p.add_argument("--threads", type=int, default=2,
                   help="CPUs for XLA and torch (0: leave them as they are)")
    p.add_argument("--check-steps", type=int, default=3,
                   help="steps whose losses are compared across implementations")
    p.add_argument("--tiny", action="store_true", help="tiny sizes (a quick smoke run)")
    p.add_argument("--no-isolate", dest="isolate", action="store_false",
                   help="run every implementation in this process (no memory figures)")
    p.add_argument("--interleave", type=int, default=0, metavar="BLOCKS",
                   help="build every implementation once in this process and time BLOCKS "
                        "blocks of --steps steps each, interleaved (median block kept; "
                        "replaces --rounds and --repeat; no memory figures)")
    P.add_sync_dispatch(p)   # in every implementation's process
    p.add_argument("--worker-timeout", type=int, default=1800, help=argparse.SUPPRESS)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    impls = [i for i in args.impls.split(",") if i]
    for names, known, what in ((models, P.MODELS, "model"), (impls, IMPLS, "implementation")):
        bad = [n for n in names if n not in known]
        if bad:
            p.error(f"unknown {what}(s) {', '.join(bad)}; expected some of {', '.join(known)}")
    pinned = P.pin_threads(args.threads)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    dispatch = P.sync_dispatch(args.sync_dispatch)
    cfgs = P.TINY if args.tiny else P.FULL
    if args.worker:
        model, impl = args.worker.split(":", 1)
        res = measure(impl, model, cfgs[model], steps=args.steps, repeat=args.repeat,
                      warmup=args.warmup, check_steps=args.check_steps, threads=args.threads)
        print("RESULT " + json.dumps(res), flush=True)
        return
    import jax
    try:
        import torch
        tv = torch.__version__
    except ImportError:
        tv = "absent"
    print(f"# train step: {platform.machine()}, {os.cpu_count()} CPUs visible, {pinned}; "
          f"jax {jax.__version__}, torch {tv}; "
          + (f"{args.interleave} interleaved blocks of {args.steps} steps (median)"
             if args.interleave > 0 else
             f"steps {args.steps} x repeat {args.repeat} (median), {args.rounds} round(s)")
          + f", warm-up {args.warmup}; {'tiny' if args.tiny else 'full'} sizes; CPU dispatch "
          f"{dispatch}; memory: "
          f"{'VmHWM per subprocess' if args.isolate and not args.interleave else 'not measured'}")
    for model in models:
        check = None
        if {"torchlike-compiled", "torchlike-eager"} <= set(impls):
            ok, msg = check_compiled(model, cfgs[model], args.check_steps)
            check = msg if ok else "WARNING: " + msg
        if args.interleave > 0:
            results = interleaved(impls, model, cfgs[model], blocks=args.interleave,
                                  steps=args.steps, warmup=args.warmup,
                                  check_steps=args.check_steps, threads=args.threads)
            print("\n".join(report(model, cfgs[model], results, check, False)), flush=True)
            continue
        runs: dict[str, list[dict]] = {i: [] for i in impls}
        for k in range(max(args.rounds, 1)):
            for i in impls[k % len(impls):] + impls[:k % len(impls)]:
                runs[i].append(_run_worker(i, model, args) if args.isolate else
                               measure(i, model, cfgs[model], steps=args.steps,
                                       repeat=args.repeat, warmup=args.warmup,
                                       check_steps=args.check_steps, threads=args.threads))
        results = [_fastest(runs[i]) for i in impls]
        print("\n".join(report(model, cfgs[model], results, check, args.isolate)), flush=True)


if __name__ == "__main__":
    main()
