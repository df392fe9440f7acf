"""The seed notes' mixed-precision loops (002: ``GradScaler`` + ``autocast``, and
``autocast`` alone), run as written with the device set to what this machine has, in
torchlike and in PyTorch from the same weights: the same losses, scales and weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from .._parity import FWS, HAVE_TORCH, fw_module


def _data(n_batches=6):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((8, 10)).astype(np.float32), rng.integers(0, 4, 8))
            for _ in range(n_batches)]


def _loop(mod, weights, scaled: bool, device_type: str, dtype_name: str):
    nn, optim = mod.nn, mod.optim
    model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 4))
    if weights is not None:
        model.load_state_dict({k: mod.tensor(v) for k, v in weights.items()})
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = [(mod.tensor(x), mod.tensor(y)) for x, y in _data()]
    scaler = mod.amp.GradScaler(device_type, init_scale=2.0**10, growth_interval=2)
    losses, scales = [], []
    for _epoch in range(2):
        for input, target in data:
            optimizer.zero_grad()
            # Runs the forward pass with autocasting.
            with mod.autocast(device_type=device_type, dtype=getattr(mod, dtype_name)):
                output = model(input)
                loss = loss_fn(output, target)
            if scaled:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                scales.append(scaler.get_scale())
            else:
                loss.backward()
                optimizer.step()
            losses.append(loss.item())
    return model, losses, scales


def _init_weights():
    rng = np.random.default_rng(1)
    return {"0.weight": rng.uniform(-0.3, 0.3, (16, 10)).astype(np.float32),
            "0.bias": rng.uniform(-0.3, 0.3, 16).astype(np.float32),
            "2.weight": rng.uniform(-0.25, 0.25, (4, 16)).astype(np.float32),
            "2.bias": rng.uniform(-0.25, 0.25, 4).astype(np.float32)}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("scaled", [True, False])
def test_seed_amp_loops_like_torch(scaled, dtype_name):
    runs = {}
    for fw in FWS:
        model, losses, scales = _loop(fw_module(fw), _init_weights(), scaled, "cpu",
                                      dtype_name)
        runs[fw] = ({k: v.detach().float().numpy() for k, v in model.state_dict().items()},
                    losses, scales)
    weights, losses, scales = runs["tl"]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]
    if scaled:
        assert scales[:2] == [1024.0, 2048.0]   # grows every second clean step
    if HAVE_TORCH:
        np.testing.assert_allclose(losses, runs["torch"][1], rtol=2e-2, atol=2e-2)
        assert scales == runs["torch"][2]
        for k, v in runs["torch"][0].items():
            np.testing.assert_allclose(weights[k], v, rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize("fw", FWS)
def test_seed_amp_loop_without_cuda_is_plain_training(fw):
    """The seed's ``GradScaler()`` and ``autocast(device_type='cuda')`` on a machine
    without CUDA: both warn and step as plain float32 training."""
    mod = fw_module(fw)
    if mod.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        scaler = mod.amp.GradScaler()
        ac = mod.autocast(device_type="cuda", dtype=mod.float16)
    assert any("CUDA is not available" in str(x.message) for x in w)
    model = mod.nn.Linear(3, 2)
    opt = mod.optim.SGD(model.parameters(), lr=0.1)
    with ac:
        loss = model(mod.ones(4, 3)).sum()
    assert loss.dtype is mod.float32
    assert scaler.scale(loss) is loss
    loss.backward()
    before = model.weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    assert not mod.equal(before, model.weight.detach())
    assert scaler.get_scale() == 1.0
