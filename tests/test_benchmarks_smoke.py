"""The benchmark scripts still run: every implementation of ``benchmarks/train_step.py``,
``benchmarks/step_overhead.py`` and ``benchmarks/amp_step.py`` (and of
``benchmarks/ddp_step.py`` all but torchlike-eager, see ``test_ddp_step_runs``)
does two steps on tiny sizes, from the same weights, and their losses agree (the scripts
print a WARNING line when they do not).

Only the MLP runs every implementation: the CNN and the Transformer each cost seconds of
XLA compilation per implementation, and the code that differs between models (the peer
definitions in ``benchmarks/_peers.py``) is checked by one forward pass of each against
the others. PyTorch and torchax rows are left out where PyTorch is absent; Flax rows where
Flax is absent. No timing is checked.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tests._parity import HAVE_TORCH, torch

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import _peers as P  # noqa: E402
import amp_step  # noqa: E402
import ddp_step  # noqa: E402
import step_overhead  # noqa: E402
import train_step  # noqa: E402

HAVE_FLAX = importlib.util.find_spec("flax") is not None
TINY_RUN = ["--steps", "2", "--repeat", "1", "--threads", "0"]


def _available(impls) -> list[str]:
    out = []
    for impl in impls:
        if impl in ("torch", "torchax") and not HAVE_TORCH:
            continue
        if impl.startswith("flax") and not HAVE_FLAX:
            continue
        out.append(impl)
    return out


def _rows(text: str, impls) -> dict[str, str]:
    """The table row of each implementation (its first number, or 'n/a: reason')."""
    rows = {}
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if name in impls and not rest.lstrip().startswith("/"):  # not a ratio line
            rows[name] = rest.strip()
    return rows


def _assert_ran(rows: dict[str, str], impls) -> None:
    assert set(rows) == set(impls), rows
    for impl, row in rows.items():
        if impl == "torchax" and row.startswith("n/a: "):
            assert len(row) > len("n/a: "), "torchax failed without a reason"
            continue
        assert re.match(r"[0-9.]+\s", row), f"{impl} did not run: {row}"


def test_train_step_every_implementation(capsys):
    impls = _available(train_step.IMPLS)
    train_step.main(["--tiny", "--no-isolate", "--models", "mlp", "--impls", ",".join(impls),
                     "--warmup", "0", "--check-steps", "2", "--rounds", "1"] + TINY_RUN)
    out = capsys.readouterr().out
    assert "WARNING" not in out, out
    assert "torchlike compiled == eager over 2 steps" in out, out
    _assert_ran(_rows(out, impls), impls)
    assert "torchlike-compiled / limit" in out and "(goal <= 1.05)" in out
    if HAVE_TORCH:
        assert "torchlike-compiled / torch eager" in out


def test_train_step_rounds_keep_the_fastest(capsys):
    # Every implementation runs once per round; the table shows the fastest round and,
    # beside it, every round's time.
    train_step.main(["--tiny", "--no-isolate", "--models", "mlp", "--impls", "jax",
                     "--warmup", "0", "--steps", "2", "--repeat", "1", "--threads", "0",
                     "--rounds", "2"])
    row = _rows(capsys.readouterr().out, ["jax"])["jax"].split()
    best, rounds = float(row[0]), [float(v) for v in row[7:]]
    assert len(rounds) == 2 and best == pytest.approx(min(rounds), rel=1e-2)
    assert train_step._fastest([{"ms": 3.0, "a": 1}, {"error": "x"}, {"ms": 2.0, "a": 2}]) \
        == {"ms": 2.0, "a": 2, "rounds": [3.0, 2.0]}


def test_train_step_interleaved_blocks(capsys):
    # --interleave: built once, timed in blocks interleaved across implementations; the
    # table shows the median block and, beside it, every block's time.
    impls = _available(["torchlike-compiled", "jax", "torch"])
    train_step.main(["--tiny", "--models", "mlp", "--impls", ",".join(impls), "--warmup",
                     "0", "--check-steps", "2", "--interleave", "3", "--steps", "2",
                     "--threads", "0"])
    out = capsys.readouterr().out
    rows = _rows(out, impls)
    _assert_ran(rows, impls)
    for _impl, row in rows.items():
        cells = row.split()
        blocks = [float(v) for v in cells[7:]]
        assert len(blocks) == 3 and float(cells[0]) == pytest.approx(
            sorted(blocks)[1], rel=1e-2), row
    assert "torchlike-compiled / limit" in out


@pytest.mark.parametrize("flags", [[], ["--sync-dispatch"]])
def test_train_step_worker_subprocess(capsys, flags):
    # The default mode: one fresh process per implementation, which also reports memory;
    # --sync-dispatch reaches the worker (its flag is read before its backend starts).
    train_step.main(["--tiny", "--models", "mlp", "--impls", "jax", "--warmup", "0",
                     "--rounds", "1"] + TINY_RUN + flags)
    out = capsys.readouterr().out
    assert ("CPU dispatch synchronous" in out) == bool(flags)
    row = _rows(out, ["jax"])["jax"]
    ms, first, second, peak, drss = row.split()[:5]
    assert float(ms) > 0 and float(peak) > float(drss) >= 0, row


def test_step_overhead_every_implementation(capsys):
    impls = _available(step_overhead.IMPLS)
    step_overhead.main(["--depths", "2", "--impls", ",".join(impls)] + TINY_RUN)
    out = capsys.readouterr().out
    assert "WARNING" not in out, out
    _assert_ran(_rows(out, impls), impls)


def test_amp_step_every_implementation(capsys):
    impls = [i for i in amp_step.IMPLS if HAVE_TORCH or not i.startswith("torch-")
             and i != "torch"]
    amp_step.main(["--tiny", "--impls", ",".join(impls), "--steps", "2", "--blocks", "1",
                   "--threads", "0"])
    out = capsys.readouterr().out
    assert "WARNING" not in out, out
    _assert_ran(_rows(out, impls), impls)


def test_ddp_step_runs(capsys):
    # every implementation but torchlike-eager, which is torchlike-compiled's step without
    # ``compile`` (each costs two fresh processes; DDP itself is tested in tests/distributed)
    impls = [i for i in ddp_step.IMPLS if (HAVE_TORCH or i != "torch")
             and i != "torchlike-eager"]
    ddp_step.main(["--impls", ",".join(impls), "--steps", "1", "--blocks", "1"])
    _assert_ran(_rows(capsys.readouterr().out, impls), impls)


@pytest.mark.parametrize("model", ["cnn", "transformer"])
def test_peer_models_agree(model):
    # One forward pass of each peer definition from the shared weights: plain JAX against
    # Flax (two independent definitions), and both against PyTorch where it is installed.
    import jax
    import jax.numpy as jnp
    cfg = P.TINY[model]
    weights = P.init_weights(model, cfg)
    x, _ = P.make_batch(model, cfg)
    params = {k: jnp.asarray(v) for k, v in weights.items()}
    got = {"jax": jax.jit(P.jax_forward(model, cfg))(params, jnp.asarray(x))}
    if HAVE_FLAX:
        xf = x.transpose(0, 2, 3, 1) if model == "cnn" else x
        got["flax"] = jax.jit(lambda m, x: m(x))(P.flax_model(model, cfg, weights),
                                                  jnp.asarray(xf))
    if HAVE_TORCH:
        net = P.torch_style_model(torch, model, cfg)
        net.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
        got["torch"] = net(torch.tensor(x)).detach().numpy()
    if len(got) < 2:
        pytest.skip("needs Flax or PyTorch to compare with")
    ref_name, ref = next(iter(got.items()))
    for name, out in got.items():
        np.testing.assert_allclose(np.asarray(out), np.asarray(ref), rtol=1e-5, atol=1e-5,
                                   err_msg=f"{name} vs {ref_name}")


def test_report_flags_wrong_programs():
    # The checks the tables rely on can fail: a loss that differs and a step that keeps
    # retracing are flagged.
    base = dict(ms=1.0, first_s=1.0, second_s=0.1, rss_before=0, peak_rss=1,
                trace_reason="x")
    results = [dict(base, impl="torchlike-compiled", losses=[2.0], traces=3),
               dict(base, impl="jax", losses=[1.0], traces=None)]
    lines = "\n".join(train_step.report("mlp", P.TINY["mlp"], results, None, isolated=True))
    assert "WARNING: torchlike-compiled loss 2.000000 differs from jax's 1.000000" in lines, lines
    assert "WARNING: torchlike-compiled traced 3 times" in lines
    assert "torchlike-compiled / limit (jax, 1.000 ms) = 1.00" in lines


def test_bad_names_are_rejected(capsys):
    with pytest.raises(SystemExit):
        train_step.main(["--models", "mlp,vgg"])
    assert "unknown model(s) vgg" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        step_overhead.main(["--impls", "jax,mxnet"])
    assert "unknown implementation(s) mxnet" in capsys.readouterr().err
    with pytest.raises(KeyError, match="unknown model 'vgg'"):
        P.init_weights("vgg", {})
