"""Host reads wait for their array by polling before they block (Note [Reads poll before
they block] in torchlike/_core/waiting.py): the values read are the computed ones, a
poll that runs out makes the next waits block at once, and reads keep their errors."""

from __future__ import annotations

import subprocess
import sys
import time
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


class _Slow(_Pending):
    """Never ready while polled; blocking takes ``seconds``."""

    def __init__(self, seconds: float):
        super().__init__(polls=None)
        self.seconds = seconds

    def block_until_ready(self):
        time.sleep(self.seconds)
        return super().block_until_ready()


@pytest.fixture
def fresh_poll(monkeypatch):
    monkeypatch.setattr(waiting._Poll, "rate", 1.0)
    monkeypatch.setattr(waiting._Poll, "limit", 2e-3)
    # a yield on a loaded machine can give the core away for milliseconds: the
    # machine's load must not decide these tests
    monkeypatch.setattr(waiting, "_yield", lambda: None)
    return waiting._Poll


def test_a_poll_that_succeeds_never_blocks(fresh_poll):
    arr = _Pending(polls=5)
    waiting.wait(arr)
    assert arr.asked == 6 and arr.blocked == 0
    assert fresh_poll.rate == 1.0


def test_long_waits_stop_the_polling_and_quick_ones_bring_it_back(fresh_poll):
    fresh_poll.limit = 1e-4
    polled = 0
    for _ in range(10):              # a loop reading a long program's results
        arr = _Slow(5e-4)
        waiting.wait(arr)
        assert arr.blocked == 1
        polled += arr.asked > 1
    assert polled == 3                # 1, 0.875, 0.766 poll; 0.67 is below 0.75
    assert fresh_poll.rate < waiting._POLL_ABOVE
    for _ in range(30):              # blocked waits that end at once count as quick
        waiting.wait(_Pending(polls=None))
    assert fresh_poll.rate >= waiting._POLL_ABOVE
    arr = _Pending(polls=3)
    waiting.wait(arr)                 # polls again
    assert arr.blocked == 0


def test_a_blocked_wait_that_outlasts_the_limit_counts_as_long(fresh_poll):
    fresh_poll.limit = 1e-4
    fresh_poll.rate = 0.5
    waiting.wait(_Slow(2e-3))
    assert fresh_poll.rate == pytest.approx(0.5 * (1 - waiting._WEIGHT))
    waiting.wait(_Pending(polls=None))   # blocked, and done at once
    assert fresh_poll.rate > 0.5 * (1 - waiting._WEIGHT)


def test_alternating_long_and_quick_waits_end_up_blocking(fresh_poll):
    fresh_poll.limit = 1e-4
    for _ in range(20):
        waiting.wait(_Slow(5e-4))
        waiting.wait(_Pending(polls=2))
    polled = []
    for _ in range(10):
        arr = _Slow(5e-4)
        waiting.wait(arr)
        polled.append(arr.asked > 1)
        waiting.wait(_Pending(polls=2))
    assert not any(polled)


def test_things_without_a_ready_state_return_at_once(fresh_poll):
    waiting.wait(np.ones(3))
    waiting.wait(object())
    assert fresh_poll.rate == 1.0


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
