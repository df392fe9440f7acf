"""``__torch_function__`` overrides, as in the seed notes' ScalarTensor and LoggingTensor
examples (seed 002): torchlike functions and Tensor methods hand control to the
argument types that define it."""

from __future__ import annotations

import functools
import logging

import pytest

import torchlike as torch

HANDLED_FUNCTIONS: dict = {}


class ScalarTensor(object):
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return "ScalarTensor(N={}, value={})".format(self._N, self._value)

    def tensor(self):
        return self._value * torch.eye(self._N)

    def __torch_function__(cls, func, types, args=(), kwargs=None):  # as written in the seed
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS or not all(
            issubclass(t, (torch.Tensor, ScalarTensor))
            for t in types
        ):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **kwargs)


def implements(torch_function):
    """Register a torch function override for ScalarTensor"""
    def decorator(func):
        functools.update_wrapper(func, torch_function)
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def mean(input):
    return float(input._value) / input._N


def test_scalar_tensor_mean_dispatches_to_override():
    d = ScalarTensor(5, 2)
    assert torch.mean(d) == 0.4
    assert repr(d) == "ScalarTensor(N=5, value=2)"


def test_scalar_tensor_tensor_method_uses_eye():
    d = ScalarTensor(3, 2)
    assert d.tensor().tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]


def test_unhandled_function_raises_type_error_naming_the_type():
    d = ScalarTensor(5, 2)
    with pytest.raises(TypeError, match="ScalarTensor"):
        torch.add(d, 1)


def test_classmethod_form_and_mixed_arguments():
    class Wrapped:
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return "handled"

    w = Wrapped()
    assert torch.add(torch.ones(2), w) == "handled"
    assert Wrapped.calls == ["add"]


class LoggingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # NOTE: Logging calls Tensor.__repr__, so we can't log __repr__ without infinite recursion
        if func is not torch.Tensor.__repr__:
            logging.info(f"func: {func.__name__}, args: {args!r}, kwargs: {kwargs!r}")
        if kwargs is None:
            kwargs = {}
        return super().__torch_function__(func, types, args, kwargs)


def test_logging_tensor_logs_and_keeps_subclass(caplog):
    t = LoggingTensor([1.0, 2.0])
    with caplog.at_level(logging.INFO):
        r = t + 1
        m = torch.mul(t, 2)
        s = t.sum()
    assert type(r) is LoggingTensor and type(m) is LoggingTensor and type(s) is LoggingTensor
    names = [rec.getMessage().split(",")[0] for rec in caplog.records]
    assert names == ["func: add", "func: mul", "func: sum"]   # ``t + 1`` is Tensor.add
    assert r.tolist() == [2.0, 3.0] and m.tolist() == [2.0, 4.0] and s.item() == 3.0


def test_subclass_results_keep_autograd():
    t = LoggingTensor([1.0, 2.0]).requires_grad_()
    y = (t * t).sum()
    y.backward()
    assert t.grad.tolist() == [2.0, 4.0]


def test_as_subclass_aliases_and_stays_in_the_graph():
    from ._parity import FWS, fw_module

    for fw in map(fw_module, FWS):   # torchlike, and PyTorch where installed: alike
        class Sub(fw.Tensor):
            pass
        a = fw.ones(2, requires_grad=True)
        b = a * 2
        x = b.as_subclass(Sub)
        assert type(x) is Sub and x.requires_grad and not x.is_leaf
        assert x.grad_fn.name() == "AliasBackward0"
        assert x.data_ptr() == b.data_ptr() and x._version == b._version
        y = a.as_subclass(Sub)
        assert y.grad_fn.name() == "AliasBackward0" and not y.is_leaf
        (y * 3).sum().backward()
        x.sum().backward()
        assert a.grad.tolist() == [5.0, 5.0]
        t = fw.ones(3, 4).t()
        s = t.as_subclass(Sub)
        assert s.stride() == (1, 4) and type(s + 1) is Sub
        with fw.no_grad():
            s.add_(1)
        assert t[0].tolist() == [2.0, 2.0, 2.0] and t._version == 1
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            b.as_subclass(int)
