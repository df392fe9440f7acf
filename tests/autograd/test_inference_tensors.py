"""Inference tensors (Note [Inference tensors] in torchlike/_core/storage.py): what
``inference_mode`` makes, what may be done with it outside, and ``inference_mode(False)``.
Each scenario runs in torchlike and, where installed, in PyTorch, and both must agree."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, outcome, torch

FRAMEWORKS = [tl] + ([torch] if HAVE_TORCH else [])


def _both(scenario):
    """``scenario(fw)`` in each framework; the results (or exception types and messages)."""
    out = []
    for fw in FRAMEWORKS:
        r = outcome(lambda: scenario(fw))
        out.append((type(r).__name__, str(r)) if isinstance(r, Exception) else r)
    if len(out) == 2:
        assert out[0] == out[1], f"torchlike {out[0]!r} vs torch {out[1]!r}"
    return out[0]


def test_what_is_an_inference_tensor():
    def scenario(fw):
        normal = fw.ones(3)
        with fw.inference_mode():
            x = fw.ones(3)
            made = (x[1:], x * 2, normal * 2, normal[1:], x.detach(), fw.zeros(2),
                    fw.ones(2).view(2, 1))
            inside = fw.is_inference_mode_enabled(), fw.is_grad_enabled()
        later = (x * 2, x.clone(), x.detach(), x.view(3, 1), normal)
        with fw.no_grad():
            no_grad = fw.ones(1)
        return ([t.is_inference() for t in made], inside, [t.is_inference() for t in later],
                no_grad.is_inference(), fw.is_inference(x), fw.is_inference(normal))
    assert _both(scenario) == ([True, True, True, False, True, True, True], (True, False),
                               [False, False, True, True, False], False, True, False)


def test_parameter_and_requires_grad_made_inside():
    def scenario(fw):
        with fw.inference_mode():
            p = fw.nn.Parameter(fw.ones(2))
            y = fw.ones(2, requires_grad=True)
            z = fw.ones(2)
            z.requires_grad_()
            prod = y * 2
        return (p.is_inference(), y.requires_grad, y.is_inference(), z.requires_grad,
                prod.requires_grad, prod.grad_fn is None)
    assert _both(scenario) == (True, True, True, True, False, True)


@pytest.mark.parametrize("use", ["mul_saves", "add_saves_nothing", "inplace", "setitem",
                                 "inplace_view", "requires_grad", "fill", "inside_again"])
def test_outside_inference_mode(use):
    def scenario(fw):
        with fw.inference_mode():
            x = fw.ones(2)
        w = fw.ones(2, requires_grad=True)
        if use == "mul_saves":
            return (w * x).sum()
        if use == "add_saves_nothing":
            out = w + x
            out.sum().backward()
            return w.grad.tolist(), type(out.grad_fn).__name__ if fw is torch else \
                out.grad_fn.name()
        if use == "inplace":
            x.add_(1)
        elif use == "setitem":
            x[0] = 5.0
        elif use == "inplace_view":
            x.unsqueeze_(0)
        elif use == "requires_grad":
            x.requires_grad_()
        elif use == "fill":
            x.fill_(3)
        elif use == "inside_again":
            with fw.inference_mode():
                x.add_(1)
        return x.tolist()
    res = _both(scenario)
    if use in ("add_saves_nothing", "inside_again"):
        assert not (isinstance(res, tuple) and res and res[0] == "RuntimeError"), res
    else:
        assert res[0] == "RuntimeError", res


def test_refused_write_leaves_the_tensor_and_its_version_alone():
    with tl.inference_mode():
        x = tl.tensor([1.0, 2.0])
    for write in (lambda: x.mul_(3), lambda: x.__setitem__(0, 9.0), lambda: x[1:].zero_(),
                  lambda: x.copy_(tl.zeros(2))):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            write()
    assert x.tolist() == [1.0, 2.0]
    assert x.shape == (2,)


def test_a_normal_tensor_may_be_written_inside_inference_mode():
    a = tl.ones(2)
    with tl.inference_mode():
        a.add_(1)
        view = a[0:1]
    assert a.tolist() == [2.0, 2.0] and a._version == 1 and not view.is_inference()


def test_inference_mode_false_turns_grad_on():
    def scenario(fw):
        with fw.inference_mode():
            with fw.inference_mode(False):
                inner = (fw.is_grad_enabled(), fw.is_inference_mode_enabled(),
                         fw.ones(1).is_inference())
            after = fw.is_grad_enabled(), fw.is_inference_mode_enabled()
        with fw.no_grad():
            with fw.inference_mode(False):
                under_no_grad = fw.is_grad_enabled()
        return inner, after, under_no_grad
    assert _both(scenario) == ((True, False, False), (False, True), True)


def test_inference_mode_decorator_and_eval_loop():
    model = tl.nn.Linear(3, 2)

    @tl.inference_mode()
    def predict(x):
        return model(x)
    out = predict(tl.ones(4, 3))
    assert out.is_inference() and out.grad_fn is None
    assert not model.weight.is_inference()
    loss = model(tl.ones(4, 3)).sum()      # the model still trains outside
    loss.backward()
    assert model.weight.grad is not None
    np.testing.assert_allclose(out.numpy(), model(tl.ones(4, 3)).detach().numpy(),
                               rtol=1e-6)


def test_is_inference_errors():
    with pytest.raises(TypeError, match=r"is_inference\(\): argument 'input' \(position 1\) "
                                        r"must be Tensor, not int"):
        tl.is_inference(3)
