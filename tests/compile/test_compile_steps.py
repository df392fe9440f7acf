"""torchlike.compile of whole training steps: the same results as eager mode over 50 steps.

Each case builds its model, optimizer(s) and data from a fixed seed twice, runs the step
eagerly on one copy and compiled on the other, and compares every loss and, at the end,
parameters, buffers, optimizer state, learning rates, step counts and the RNG state.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F

STEPS = 50


def _snapshot(objs):
    out = []
    for o in objs:
        if isinstance(o, torch.Tensor):
            out.append(np.array(o.detach().numpy()))
        elif isinstance(o, torch.optim.Optimizer):
            for st in o.state.values():
                for v in st.values():
                    if isinstance(v, torch.Tensor):
                        out.append(np.array(v.numpy()))
            out.append([g["lr"] for g in o.param_groups])
            out.append(o._step_count)
        elif isinstance(o, nn.Module):
            out.extend(np.array(t.detach().numpy()) for t in o.state_dict().values())
    out.append(np.array(torch.get_rng_state().numpy()))
    return out


def _compare(build, steps=STEPS, rtol=1e-4, atol=1e-5):
    results = {}
    for mode in ("eager", "compiled"):
        torch.manual_seed(0)
        step, data, state = build()
        torch.manual_seed(1)
        fn = torch.compile(step) if mode == "compiled" else step
        losses = [float(fn(*data).item()) for _ in range(steps)]
        results[mode] = (losses, _snapshot(state()), fn)
    (le, se, _), (lc, sc, fc) = results["eager"], results["compiled"]
    np.testing.assert_allclose(lc, le, rtol=rtol, atol=atol)
    assert len(se) == len(sc)
    for a, b in zip(se, sc):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            np.testing.assert_allclose(b, a, rtol=rtol * 10, atol=atol * 10)
        else:
            np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
    # traced for the first call and once more when the optimizer state exists; never again
    assert fc.stats.traces <= 2 and fc.stats.calls == steps
    return fc


def _classifier_step(model, opt, sched):
    """The standard step: zero_grad, forward, cross-entropy, backward, step, schedule."""
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        return loss
    return step


def mlp():
    model = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True,
                          weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10, gamma=0.5)
    x, y = torch.randn(8, 12), torch.randint(0, 4, (8,))
    return _classifier_step(model, opt, sched), (x, y), lambda: [model, opt]


def cnn_bn_dropout():
    # no conv bias before BatchNorm: its gradient is zero up to rounding, and AdamW would
    # turn that noise into full steps that differ between any two implementations
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25), nn.Flatten(),
                          nn.Linear(4 * 3 * 3, 5))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=STEPS)
    x, y = torch.randn(6, 1, 6, 6), torch.randint(0, 5, (6,))
    return _classifier_step(model, opt, sched), (x, y), lambda: [model, opt]


def transformer_adam():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1,
                                                           batch_first=True), 1)
    head = nn.Linear(8, 3)
    params = list(enc.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    x, y = torch.randn(3, 4, 8), torch.randint(0, 3, (3,))

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(head(enc(x).mean(1)), y)
        loss.backward()
        opt.step()
        return loss
    # Adam turns the rounding noise of gradients that are exactly zero in theory (the
    # attention key bias) into full-size steps, so only the losses are compared closely
    return step, (x, y), lambda: [head, opt.param_groups[0]["lr"]]


def gan_two_optimizers():
    G = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 5))
    D = nn.Sequential(nn.Linear(5, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real = torch.randn(6, 5)

    def step(real):
        fake = G(torch.randn(6, 3))
        opt_d.zero_grad()
        loss_d = F.binary_cross_entropy_with_logits(D(real), torch.ones(6, 1)) + \
            F.binary_cross_entropy_with_logits(D(fake.detach()), torch.zeros(6, 1))
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = F.binary_cross_entropy_with_logits(D(fake), torch.ones(6, 1))
        loss_g.backward()
        opt_g.step()
        return loss_d + loss_g
    return step, (real,), lambda: [G, D, opt_g, opt_d]


def clipping_frozen_groups():
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 7), nn.Tanh(),
                          nn.Linear(7, 2))
    for p in model[0].parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD([{"params": model[2].parameters(), "lr": 0.01},
                           {"params": model[4].parameters()}], lr=0.1, momentum=0.5)
    x, y = torch.randn(9, 5), torch.randn(9, 2)

    def step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.05)
        opt.step()
        return loss
    return step, (x, y), lambda: [model, opt]


class _HalfSquare(torch.autograd.Function):
    """x**2 with a deliberately halved gradient, so a dropped custom backward shows."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return x * g


def custom_function_and_hooks():
    model = nn.Linear(4, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.weight.register_hook(lambda g: g * 0.5)
    x = torch.randn(5, 4)

    def step(x):
        opt.zero_grad()
        h = model(x)
        h.register_hook(lambda g: g * 3)
        loss = _HalfSquare.apply(h).mean()
        loss.backward()
        opt.step()
        return loss
    return step, (x,), lambda: [model, opt]


CASES = [mlp, cnn_bn_dropout, transformer_adam, gan_two_optimizers, clipping_frozen_groups,
         custom_function_and_hooks]


@pytest.mark.parametrize("build", CASES, ids=[c.__name__ for c in CASES])
def test_compiled_step_matches_eager(build):
    _compare(build)



def test_custom_backward_and_hooks_take_effect():
    # the compiled step must follow the custom backward and both hooks: with the true
    # gradient of mean(h**2) and no hooks the update would be 2 * 3 / 0.5 = 12x larger
    torch.manual_seed(0)
    step, (x,), state = custom_function_and_hooks()
    model = state()[0]
    w0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    torch.compile(step)(x)
    h = x @ w0.t() + b0
    g_h = h * 3 / h.numel()                      # custom backward x * g, tensor hook x3
    expected_w = w0 - 0.01 * 0.5 * (g_h.t() @ x)  # weight hook x0.5
    np.testing.assert_allclose(model.weight.detach().numpy(), expected_w.numpy(), rtol=1e-5,
                               atol=1e-7)
