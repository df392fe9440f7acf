"""The fused backward (Note [Fused backward] in torchlike/autograd/_fusion.py): a graph
walked repeatedly runs as one executable with PyTorch's results, and everything the
fused walk cannot reproduce (hooks, retain_grad, in-place errors, freed graphs) still
behaves as in PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd import _fusion

from .._parity import HAVE_TORCH, assert_same, normalize_error, torch

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
W = rng.standard_normal((4, 2)).astype(np.float32)


pytestmark = pytest.mark.usefixtures("fuse_early")


def leaves(fw):
    return [fw.tensor(a, requires_grad=True) for a in (A, B, W)]


def loss_of(fw, a, b, w):
    h = (a * b + 1.0).sin() * a - b / 3.0
    parts = fw.cat([h.exp().tanh(), a[:1] * 2])      # a list input and a view
    m = parts.matmul(w).max(0)                        # a named tuple, an int output
    return (m.values * m.values).sum() + h.mean()


def run_steps(fw, n, zero=True):
    ps = leaves(fw)
    out = []
    for _ in range(n):
        if zero:
            for p in ps:
                p.grad = None
        loss_of(fw, *ps).backward()
        out.append([p.grad.clone() for p in ps])
    return out


def test_fused_steps_match_eager_and_pytorch():
    steps = run_steps(tl, 4)
    assert len(_fusion._fused) == 1            # the steps after the first ran fused
    for s in steps[1:]:
        for g, g0 in zip(s, steps[0]):
            np.testing.assert_allclose(np.asarray(g), np.asarray(g0), rtol=1e-6, atol=1e-7)
    if HAVE_TORCH:
        assert_same(steps[-1], run_steps(torch, 1)[0])


def test_accumulation_into_existing_grads():
    steps = run_steps(tl, 4, zero=False)
    assert len(_fusion._fused) == 1
    if HAVE_TORCH:
        assert_same(steps[-1], run_steps(torch, 4, zero=False)[-1], rtol=1e-5, atol=1e-5)


def test_new_shape_is_a_new_program():
    for n in (3, 5):
        x = tl.ones(n, requires_grad=True)
        for _ in range(3):
            x.grad = None
            (x.exp() * 2).sum().backward()
            np.testing.assert_allclose(np.asarray(x.grad), 2 * np.e * np.ones(n), rtol=1e-6)
    assert len(_fusion._fused) == 2


def hooked_steps(fw, n):
    a, b, w = leaves(fw)
    calls = []
    for _ in range(n):
        a.grad = None
        h = a * b
        h.register_hook(lambda g: calls.append(float(g.sum())) or g * 2)
        h.retain_grad()
        w.register_post_accumulate_grad_hook(lambda p: calls.append("acc"))
        (h.sin().matmul(w)).sum().backward()
    return a.grad, h.grad, calls


def test_hooks_and_retain_grad_still_run():
    g, hg, calls = hooked_steps(tl, 3)
    assert len(calls) == 3 + 6    # one tensor hook per step, the post-hooks pile up
    assert len(_fusion._fused) == 0
    if HAVE_TORCH:
        tg, thg, tcalls = hooked_steps(torch, 3)
        assert_same([g, hg], [tg, thg])
        assert [c if c == "acc" else round(c, 4) for c in calls] == \
            [c if c == "acc" else round(c, 4) for c in tcalls]


def error_after_fusion(fw, case):
    a, b, _ = leaves(fw)
    for _ in range(3):
        (a * b).sin().sum().backward()
    y = (a * b).sin()
    loss = y.sum()
    try:
        if case == "inplace":
            with fw.no_grad():
                b.mul_(2)
            loss.backward()
        else:
            loss.backward()
            loss.backward()
    except RuntimeError as e:
        return normalize_error(str(e))
    return None


@pytest.mark.parametrize("case", ["inplace", "twice"])
def test_errors_still_raised_after_fusion(case):
    msg = error_after_fusion(tl, case)
    assert len(_fusion._fused) == 1
    assert msg is not None and ("modified by an inplace operation" in msg
                                or "backward through the graph a second time" in msg)
    if HAVE_TORCH:
        assert msg == error_after_fusion(torch, case)


def test_retain_graph_lets_a_fused_graph_run_again():
    a, b, _ = leaves(tl)
    for _ in range(3):
        a.grad = None
        loss = (a * b).sin().sum()
        loss.backward(retain_graph=True)
        loss.backward()
    np.testing.assert_allclose(np.asarray(a.grad), 2 * np.cos(A * B) * B, rtol=1e-5)
    assert len(_fusion._fused) == 1


def test_compile_budget_is_respected(monkeypatch):
    monkeypatch.setattr(_fusion._Budget, "compiles_left", 0)
    run_steps(tl, 3)
    assert len(_fusion._fused) == 0
