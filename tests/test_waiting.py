"""Host reads wait for their array by polling before they block (Note [Reads poll before
they block] in torchlike/_core/waiting.py): the values read are the computed ones, a
poll that runs out makes the next waits block at once, and reads keep their errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl
from torchlike._core import waiting
from torchlike._core.tensor import _host
from torchlike._core.traced import TracedValueError

ROOT = Path(__file__).resolve().parent.parent


class _Pending:
    """An array stand-in that turns ready after ``polls`` calls of ``is_ready`` (never,
    for None), counting its calls."""

    def __init__(self, polls):
        self.polls, self.asked, self.blocked = polls, 0, 0

    def is_deleted(self) -> bool:
        return False

    def is_ready(self) -> bool:
        self.asked += 1
        return self.polls is not None and self.asked > self.polls

    def block_until_ready(self):
        self.blocked += 1
        return self


@pytest.fixture
def fresh_poll(monkeypatch):
    monkeypatch.setattr(waiting._Poll, "skip", 0)
    monkeypatch.setattr(waiting._Poll, "misses", 0)
    monkeypatch.setattr(waiting._Poll, "limit", 2e-3)
    return waiting._Poll


def test_a_poll_that_succeeds_never_blocks(fresh_poll):
    arr = _Pending(polls=5)
    waiting.wait(arr)
    assert arr.asked == 6 and arr.blocked == 0
    assert fresh_poll.misses == 0 and fresh_poll.skip == 0


def test_polls_that_run_out_back_off_until_one_succeeds(fresh_poll):
    fresh_poll.limit = 1e-4
    slow = [_Pending(polls=None) for _ in range(4)]
    waiting.wait(slow[0])                 # polls, runs out, blocks
    assert slow[0].asked > 1 and slow[0].blocked == 1
    assert (fresh_poll.misses, fresh_poll.skip) == (1, 1)
    waiting.wait(slow[1])                 # blocks at once: asked only whether it is ready
    assert (slow[1].asked, slow[1].blocked, fresh_poll.skip) == (1, 1, 0)
    waiting.wait(slow[2])                 # polls again, runs out: now skips two
    assert slow[2].asked > 1 and (fresh_poll.misses, fresh_poll.skip) == (2, 2)
    for _ in range(2):
        arr = _Pending(polls=3)
        waiting.wait(arr)
        assert arr.asked == 1 and arr.blocked == 1
    quick = _Pending(polls=3)             # the count is spent: a poll that succeeds
    waiting.wait(quick)
    assert quick.blocked == 0 and fresh_poll.misses == 0


def test_the_skip_count_is_bounded(fresh_poll):
    fresh_poll.limit = 0.0
    for _ in range(12):
        fresh_poll.skip = 0
        waiting.wait(_Pending(polls=None))
    assert fresh_poll.skip == waiting._SKIP_MAX


def test_things_without_a_ready_state_return_at_once(fresh_poll):
    waiting.wait(np.ones(3))
    waiting.wait(object())
    assert fresh_poll.misses == 0


def test_reads_return_the_computed_values():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    x, y = tl.tensor(a), tl.tensor(b)
    want = np.asarray(jnp.matmul(jnp.asarray(a), jnp.asarray(b)))
    for _ in range(20):   # each read waits for a product run on XLA's worker thread
        np.testing.assert_array_equal(tl.matmul(x, y).numpy(), want)
    assert tl.matmul(x, y).sum().item() == pytest.approx(float(want.sum()), rel=1e-5)
    assert tl.matmul(x, y).tolist() == want.tolist()


def test_a_long_program_is_waited_for():
    x = tl.randn(300, 300)
    for _ in range(8):
        x = x @ x / 300.0
    want = np.asarray(x._value.block_until_ready())
    y = tl.randn(300, 300)
    for _ in range(8):
        y = y @ y / 300.0
    assert np.isfinite(y.numpy()).all() and np.isfinite(want).all()


def test_cpu_synchronize_waits_for_issued_work():
    x = tl.randn(400, 400)
    for _ in range(6):
        x = x @ x / 400.0
    tl.cpu.synchronize()
    assert x._value.is_ready()


def test_a_deleted_array_still_raises_on_read():
    # e.g. a tensor over a JAX array that the user's own jax.jit donated
    t = tl.arange(3.0) * 2.0   # an array of its own (factories may share theirs)
    t._value.delete()
    for read in (lambda: t.numpy(), t.tolist, lambda: t[0].item(), lambda: np.asarray(t)):
        with pytest.raises(RuntimeError, match="deleted"):
            read()
    waiting.wait(t._value)   # returns: the read that follows raises


def test_a_traced_read_raises_the_concretization_error():
    def f(v):
        return _host(v)

    with pytest.raises(TracedValueError, match="while the function is being traced"):
        jax.jit(f)(jnp.ones(2))


@pytest.mark.parametrize("read", ["numpy", "block"])
def test_eager_ops_benchmark_runs(read):
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "eager_ops.py"), "--repeat", "40",
         "--read", read], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert f"each result read by {read}" in out.stdout
    rows = [line for line in out.stdout.splitlines()
            if line.startswith(("add 8x8", "matmul 64x64", "10-op chain 8x8"))]
    assert len(rows) == 3, out.stdout
    for row in rows:   # torchlike's and jnp's times are numbers (PyTorch's may be nan)
        assert all(float(v) > 0 for v in row.split()[-5:-3]), row


def test_eager_autograd_benchmark_runs():
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "eager_autograd.py"), "--no-jax",
         "--rounds", "1"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "each step's gradient read by numpy" in out.stdout
    rows = [line for line in out.stdout.splitlines()
            if line.startswith(("add 8x8", "matmul 64x64", "chain 10 ops", "mlp 3 layers"))]
    assert len(rows) == 4, out.stdout
