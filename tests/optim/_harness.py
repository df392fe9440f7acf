"""A small model written twice (torchlike and torch) from the same numbers, for parity runs.
Where PyTorch (the test oracle) is absent, the torch model is None, ``train_step`` on it does
nothing, and the torchlike model still trains.

Parameters: ``w1`` (4x3), ``b1`` (3), ``w2`` (3x2, frozen: requires_grad=False), ``b2`` (2)
and ``unused`` (5, never reaches the loss, so its grad stays None). Optimizers skip the last
two, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

import torchlike

from .._parity import HAVE_TORCH, torch

NAMES = ("w1", "b1", "w2", "b2", "unused")
SHAPES = {"w1": (4, 3), "b1": (3,), "w2": (3, 2), "b2": (2,), "unused": (5,)}


def init_values(seed: int = 0, dtype=np.float32) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    vals = {n: (rng.standard_normal(s) * 0.5).astype(dtype) for n, s in SHAPES.items()}
    vals["x"] = rng.standard_normal((8, 4)).astype(dtype)
    vals["y"] = rng.standard_normal((8, 2)).astype(dtype)
    return vals


class Model:
    """The same parameters and loss in one library (``lib`` is torch or torchlike)."""

    def __init__(self, lib, vals: dict[str, np.ndarray]):
        self.lib = lib
        self.params = {}
        for n in NAMES:
            p = lib.nn.Parameter(lib.tensor(vals[n]))
            if n == "w2":
                p.requires_grad_(False)
            self.params[n] = p
        self.initial = {n: vals[n] for n in NAMES}
        self.x = lib.tensor(vals["x"])
        self.y = lib.tensor(vals["y"])

    def param_list(self):
        return [self.params[n] for n in NAMES]

    def loss(self):
        p = self.params
        h = (self.x @ p["w1"] + p["b1"]).tanh()
        return (((h @ p["w2"] + p["b2"]) - self.y) ** 2).mean()

    def closure_for(self, opt):
        def closure():
            opt.zero_grad()
            loss = self.loss()
            loss.backward()
            return loss
        return closure

    def numpy(self) -> dict[str, np.ndarray]:
        return {n: np.asarray(p.detach().numpy()) for n, p in self.params.items()}


def make_pair(seed: int = 0, dtype=np.float32):
    """(torchlike model, torch model), the torch one None where PyTorch is absent."""
    vals = init_values(seed, dtype)
    return Model(torchlike, vals), (Model(torch, vals) if HAVE_TORCH else None)


def train_step(model: Model | None, opt, sched=None):
    if model is None:   # the torch side where PyTorch is absent
        return None
    opt.zero_grad()
    loss = model.loss()
    loss.backward()
    opt.step()
    if sched is not None:
        sched.step()
    return float(loss.detach())


def assert_params_close(tl: Model, th: Model, rtol: float = 1e-5, atol: float = 1e-6,
                        msg: str = "") -> None:
    a, b = tl.numpy(), th.numpy()
    for n in NAMES:
        np.testing.assert_allclose(a[n], b[n], rtol=rtol, atol=atol, err_msg=f"{msg} {n}")


def assert_untouched_without_grad(model: Model) -> None:
    """torchlike's own check after training: every parameter is finite, and one whose grad
    is None (frozen ``w2``, ``unused``) still holds its initial value, as optimizers skip
    it."""
    for n, v in model.numpy().items():
        assert np.isfinite(v).all(), n
        if model.params[n].grad is None:
            np.testing.assert_array_equal(v, model.initial[n], err_msg=n)


def to_torch_state(sd):
    """A torchlike optimizer state_dict with its tensors converted for torch."""
    return _convert(sd, lambda t: torch.tensor(np.asarray(t)), torchlike.Tensor)


def to_torchlike_state(sd):
    return _convert(sd, lambda t: torchlike.tensor(t.numpy()), torch.Tensor)


def _convert(obj, fn, cls):
    if isinstance(obj, cls):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: _convert(v, fn, cls) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_convert(v, fn, cls) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_convert(v, fn, cls) for v in obj)
    return obj
