"""``torchlike.overrides``: TorchFunctionMode (what a mode sees, in which order, with
subclasses, under DisableTorchFunction, per thread) and the ``has_torch_function`` family,
run on torchlike and, where installed, on PyTorch with the same script."""

from __future__ import annotations

import importlib
import re
import threading

import pytest

import torchlike as tl
from torchlike.overrides import TorchFunctionMode

from ._parity import FWS, HAVE_TORCH, requires_torch, torch


def _ov(fw):
    return importlib.import_module(("torchlike" if fw == "tl" else "torch") + ".overrides")


def _mod(fw):
    return tl if fw == "tl" else torch


def _disable(fw, subclass: bool):
    if fw == "tl":
        return tl.DisableTorchFunctionSubclass() if subclass else tl.DisableTorchFunction()
    return (torch._C.DisableTorchFunctionSubclass() if subclass
            else torch._C.DisableTorchFunction())


def _log_mode(fw, tag="m", log=None, not_implemented=False):
    """A mode of framework ``fw`` logging (tag, func name, type names, stack depth)."""
    ov = _ov(fw)

    class Log(ov.TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.log = [] if log is None else log

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.log.append((tag, func.__name__, [t.__name__ for t in types],
                             ov._len_torch_function_stack()))
            if not_implemented:
                return NotImplemented
            return func(*args, **(kwargs or {}))
    return Log()


def _sub_class(fw, log):
    class Sub(_mod(fw).Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(("Sub", func.__name__, [t.__name__ for t in types]))
            return super().__torch_function__(func, types, args, kwargs or {})
    return Sub


def _script(fw):
    t = _mod(fw)
    F = importlib.import_module(t.__name__ + ".nn.functional")
    x = t.ones(2, 2)
    y = t.full((2, 2), 2.0)
    with _log_mode(fw) as m:
        r = [t.add(x, 1), x.sum(), x + y, x[0], F.relu(x), t.zeros(2), x.view(4),
             x.add_(1)]
    return [e[1] for e in m.log], r, x


# the names PyTorch's mode records for the script (asserted without PyTorch too)
SCRIPT_NAMES = ["add", "sum", "add", "__getitem__", "relu", "zeros", "view", "add_"]


@pytest.mark.parametrize("fw", FWS)
def test_logging_mode_records_what_pytorch_records(fw):
    names, r, x = _script(fw)
    assert names == SCRIPT_NAMES
    assert r[0].tolist() == [[2.0, 2.0], [2.0, 2.0]] and r[1].item() == 4.0
    assert r[7] is x and x.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert r[5].tolist() == [0.0, 0.0] and r[6].shape == (4,)


LONGER_SCRIPT_NAMES = [
    "tensor", "arange", "ones", "eye", "__setitem__", "linear", "softmax", "float", "double",
    "mul", "mul", "neg", "__rdiv__", "__rsub__", "matmul", "zeros_like", "clone", "cat", "t",
    "reshape", "unsqueeze", "mean", "exp", "gt", "where", "add_", "mul_", "sub_", "div_",
    "to", "cpu", "copy_", "new_zeros", "new_tensor", "randn", "rand", "randint", "rand_like",
    "div", "bernoulli"]


@pytest.mark.parametrize("fw", FWS)
def test_logging_mode_names_on_a_longer_script(fw):
    t = _mod(fw)
    F = importlib.import_module(t.__name__ + ".nn.functional")
    x = t.ones(2, 2)
    y = t.ones(2, 2)
    with _log_mode(fw) as m:
        t.tensor([1.0]), t.arange(3), t.ones(2, dtype=t.float64), t.eye(2)
        x[0] = 2
        F.linear(x, y), F.softmax(x, 0), x.float(), x.double(), 2 * x, x * 2, -x
        2 / x, 1 - x, x @ y, t.zeros_like(x), x.clone(), t.cat([x, y]), x.t()
        x.reshape(4), x.unsqueeze(0), x.mean(), x.exp(), t.where(x > 0, x, y)
        x += 1
        x *= 2
        x -= 1
        x /= 5
        x.to(t.float64), x.cpu(), x.copy_(y), x.new_zeros(2), x.new_tensor([1.0])
        t.randn(2), t.rand(2), t.randint(0, 3, (2,)), t.rand_like(x), t.bernoulli(x / 2)
    assert [e[1] for e in m.log] == LONGER_SCRIPT_NAMES
    assert x.tolist() == [[1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("fw", FWS)
def test_no_mode_after_exit_and_calls_without_mode_are_plain(fw):
    t = _mod(fw)
    x = t.ones(2)
    with _log_mode(fw) as m:
        x + 1
    x + 1, t.zeros(2), x.sum()
    assert [e[1] for e in m.log] == ["add"]
    assert _ov(fw)._len_torch_function_stack() == 0


@pytest.mark.parametrize("fw", FWS)
def test_mode_replaces_results(fw):
    t = _mod(fw)

    class Double(_ov(fw).TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func.__name__ == "add":
                return out * 2   # inside the handler: not seen again
            if func.__name__ == "zeros":
                return "no zeros"
            return out
    x = t.ones(3)
    with Double():
        a, b, z, s = t.add(x, 1), x + x, t.zeros(2), x.sum()
    assert a.tolist() == [4.0, 4.0, 4.0] and b.tolist() == [4.0, 4.0, 4.0]
    assert z == "no zeros" and s.item() == 3.0


@pytest.mark.parametrize("fw", FWS)
def test_nested_modes_innermost_first_and_popped_while_handling(fw):
    t = _mod(fw)
    log: list = []
    x = t.ones(2)
    with _log_mode(fw, "outer", log), _log_mode(fw, "inner", log):
        t.mul(x, 2)
        t.arange(2)
    assert log == [("inner", "mul", [], 1), ("outer", "mul", [], 0),
                   ("inner", "arange", [], 1), ("outer", "arange", [], 0)]


@pytest.mark.parametrize("fw", FWS)
def test_mode_before_subclass_and_the_types_each_sees(fw):
    log: list = []
    Sub = _sub_class(fw, log)
    s = _mod(fw).ones(2).as_subclass(Sub)
    with _log_mode(fw, "m", log):
        r = _mod(fw).add(s, 1)
    assert log == [("m", "add", ["Sub"], 0), ("Sub", "add", ["Sub"])]
    assert type(r) is Sub and r.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("fw", FWS)
def test_disable_torch_function_turns_off_modes_and_subclasses(fw):
    log: list = []
    Sub = _sub_class(fw, log)
    t = _mod(fw)
    s = t.ones(2).as_subclass(Sub)
    with _log_mode(fw, "m", log):
        with _disable(fw, subclass=False):
            r = t.add(s, 1)
            t.zeros(1)
    assert log == [] and type(r) is t.Tensor
    with _disable(fw, subclass=False):
        with _log_mode(fw, "m", log):
            t.add(t.ones(1), 1)
    assert log == []


@pytest.mark.parametrize("fw", FWS)
def test_disable_torch_function_subclass_keeps_modes(fw):
    log: list = []
    Sub = _sub_class(fw, log)
    t = _mod(fw)
    s = t.ones(2).as_subclass(Sub)
    with _log_mode(fw, "m", log):
        with _disable(fw, subclass=True):
            r = t.add(s, 1)
    assert log == [("m", "add", [], 0)] and type(r) is t.Tensor


def _dispatch_error(fw, fn) -> str:
    with pytest.raises(TypeError) as info:
        fn()
    msg = re.sub(r" at 0x[0-9a-f]+", "", str(info.value))
    return msg.replace("torchlike.", "torch.").replace(".tests.", ".").replace(
        "tests.test_torch_function_mode", "M")


@pytest.mark.parametrize("fw", FWS)
def test_not_implemented_from_the_mode(fw):
    t = _mod(fw)
    x = t.ones(2)
    log: list = []
    with _log_mode(fw, "m", log, not_implemented=True):
        msg = _dispatch_error(fw, lambda: t.add(x, 1))
    assert msg.startswith("Multiple dispatch failed for 'torch.add'; all __torch_function__ "
                          "handlers returned NotImplemented:\n\n  - mode object <")
    assert msg.endswith(">\n\nFor more information, try re-running with "
                        "TORCH_LOGS=not_implemented")
    assert log == [("m", "add", [], 0)]
    # the inner mode declining does not ask the outer one
    log.clear()
    with _log_mode(fw, "outer", log), _log_mode(fw, "inner", log, not_implemented=True):
        _dispatch_error(fw, lambda: t.mul(x, 2))
    assert log == [("inner", "mul", [], 1)]


@pytest.mark.parametrize("fw", FWS)
def test_not_implemented_from_the_mode_goes_to_the_subclass_with_the_mode_back(fw):
    log: list = []
    Sub = _sub_class(fw, log)
    s = _mod(fw).ones(2).as_subclass(Sub)
    with _log_mode(fw, "m", log, not_implemented=True):
        # Sub's own call of add reaches the mode again, which declines: all declined
        msg = _dispatch_error(fw, lambda: _mod(fw).add(s, 1))
    assert log == [("m", "add", ["Sub"], 0), ("Sub", "add", ["Sub"]), ("m", "add", [], 0)]
    assert "  - mode object <" in msg


@requires_torch
def test_not_implemented_messages_match_pytorch():
    class N:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    def msg(fw):
        t = _mod(fw)
        return _dispatch_error(fw, lambda: t.add(N(), 1)) + "|" + _dispatch_error(
            fw, lambda: t.ones(2).as_subclass(_sub_class(fw, [])).add(N()))
    assert msg("tl") == msg("torch")


@pytest.mark.parametrize("fw", FWS)
def test_a_raising_handler_restores_the_stack(fw):
    ov = _ov(fw)
    t = _mod(fw)

    class Boom(ov.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")
    outer = _log_mode(fw, "outer")
    with outer:
        x = t.ones(1)
        with pytest.raises(ValueError, match="boom"):
            with Boom():
                t.add(x, 1)
        assert ov._get_current_function_mode_stack() == [outer]
        t.zeros(1)
    assert ov._len_torch_function_stack() == 0 and ov._get_current_function_mode() is None
    assert [e[1] for e in outer.log] == ["ones", "zeros"]
    with pytest.raises(NotImplementedError):   # the base class's handler
        with ov.TorchFunctionMode():
            t.add(t.ones(1), 1)
    assert ov._len_torch_function_stack() == 0


@pytest.mark.parametrize("fw", FWS)
def test_modes_are_per_thread(fw):
    t = _mod(fw)
    seen: dict = {}

    def worker():
        t.add(t.ones(1), 1)
        with _log_mode(fw, "w") as w:
            t.mul(t.ones(1), 2)
        seen["worker"] = [e[1] for e in w.log]
        seen["depth"] = _ov(fw)._len_torch_function_stack()
    with _log_mode(fw, "main") as m:
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        t.sub(t.ones(1), 1)
    assert [e[1] for e in m.log] == ["ones", "sub"]
    assert seen == {"worker": ["ones", "mul"], "depth": 0}


@pytest.mark.parametrize("fw", FWS)
def test_mode_stack_helpers(fw):
    ov = _ov(fw)
    m = _log_mode(fw)
    with m as entered:
        assert entered is m and ov._get_current_function_mode() is m
        with m:
            assert ov._len_torch_function_stack() == 2
        with ov._pop_mode_temporarily() as old:
            assert old is m and ov._len_torch_function_stack() == 0
            _mod(fw).zeros(1)   # not seen
        assert ov._len_torch_function_stack() == 1
    assert m.log == []
    ov._push_mode(m)
    assert ov._pop_mode() is m
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        ov._pop_mode()


@pytest.mark.parametrize("fw", FWS)
def test_backward_is_one_call_for_the_mode(fw):
    t = _mod(fw)
    x = t.ones(2, requires_grad=True)
    with _log_mode(fw) as m:
        (x * 2).sum().backward()
    assert [e[1] for e in m.log] == ["mul", "sum", "backward"]
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("fw", FWS)
def test_has_torch_function_family(fw):
    ov = _ov(fw)
    t = _mod(fw)
    x = t.ones(1)
    s = x.as_subclass(_sub_class(fw, []))
    p = _mod(fw).nn.Parameter(t.ones(1))

    def row():
        return (ov.has_torch_function((x,)), ov.has_torch_function((s,)),
                ov.has_torch_function([1, s]), ov.has_torch_function(()),
                ov.has_torch_function((p,)), ov.has_torch_function_unary(x),
                ov.has_torch_function_unary(s), ov.has_torch_function_variadic(x, 1),
                ov.has_torch_function_variadic(x, s))
    assert row() == (False, True, True, False, False, False, True, False, True)
    with _log_mode(fw):
        assert row() == (True, True, True, False, True, True, True, True, True)
        with _disable(fw, subclass=True):
            assert ov.has_torch_function((x,)) and ov.has_torch_function_unary(s)
        with _disable(fw, subclass=False):
            assert not ov.has_torch_function((s,)) and not ov.has_torch_function_unary(x)


@pytest.mark.parametrize("fw", FWS)
def test_is_tensor_like_and_is_tensor_method_or_property(fw):
    ov = _ov(fw)
    t = _mod(fw)

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return -1
    assert [ov.is_tensor_like(v) for v in (t.ones(1), Duck(), 6, None, t.Tensor)] == \
        [True, True, False, False, True]
    assert ov.is_tensor_method_or_property(t.Tensor.add)
    assert not ov.is_tensor_method_or_property(t.add)


@pytest.mark.parametrize("fw", FWS)
def test_handle_and_wrap_torch_function_on_a_duck_type(fw):
    ov = _ov(fw)
    t = _mod(fw)

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("Duck", func.__name__, [c.__name__ for c in types], args, kwargs)

    class Declines:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    @ov.wrap_torch_function(lambda a, b=None: (a, b))
    def f(a, b=None):
        return "plain"
    d = Duck()
    assert f(t.ones(1)) == "plain" and f(1) == "plain"
    assert f(d) == ("Duck", "f", ["Duck"], (d,), {})
    assert f(1, b=d) == ("Duck", "f", ["Duck"], (1,), {"b": d})
    assert ov.handle_torch_function(f, (d,), 1, b=2) == ("Duck", "f", ["Duck"], (1,),
                                                          {"b": 2})
    with pytest.raises(TypeError, match=r"no implementation found for '.*\.f' on types "
                       r"that implement __torch_function__: \[<class '.*Declines'>\]$"):
        f(Declines())
    # a mode sees a wrapped function, with the types PyTorch's Python path passes
    x = t.ones(1)
    with _log_mode(fw) as m:
        assert f(x) == "plain"
    assert m.log == [("m", "f", ["Tensor"], 0)]
    with _log_mode(fw, not_implemented=True):
        with pytest.raises(TypeError, match=r"\] nor in mode <"):
            f(Declines())


def test_ignored_and_overridable_functions():
    ov = tl.overrides
    F = tl.nn.functional
    ignored = ov.get_ignored_functions()
    over = ov.get_overridable_functions()
    assert isinstance(ignored, set) and {tl.zeros, tl.tensor, tl.arange, tl.is_tensor} <= ignored
    assert tl.add not in ignored
    assert {tl.add, tl.mul, tl.matmul, tl.sum, tl.cat} <= set(over[tl])
    assert {tl.Tensor.add, tl.Tensor.sum, tl.Tensor.view, tl.Tensor.__getitem__} <= \
        set(over[tl.Tensor])
    assert {F.relu, F.linear, F.softmax} <= set(over[F])
    assert not ignored & {f for fs in over.values() for f in fs}


@requires_torch
def test_ignored_and_overridable_agree_with_pytorch_on_common_names():
    tig = {getattr(f, "__name__", None) for f in torch.overrides.get_ignored_functions()
           if getattr(f, "__module__", "") == "torch"}
    lig = {getattr(f, "__name__", None) for f in tl.overrides.get_ignored_functions()
           if getattr(f, "__module__", "").startswith("torchlike")}
    for name in ("zeros", "tensor", "arange", "add", "mul", "matmul", "is_tensor"):
        assert (name in tig) == (name in lig), name


@pytest.mark.parametrize("fw", FWS)
def test_base_mode_and_push(fw):
    ov = _ov(fw)
    with ov.BaseTorchFunctionMode():
        assert _mod(fw).add(_mod(fw).ones(1), 1).tolist() == [2.0]
    with pytest.warns(UserWarning, match="no longer necessary"):
        m = ov.TorchFunctionMode.push()
    assert isinstance(m, ov.TorchFunctionMode)


def test_public_names():
    assert tl.DisableTorchFunction is tl.overrides.DisableTorchFunction
    assert tl.DisableTorchFunctionSubclass is tl.overrides.DisableTorchFunctionSubclass
    assert TorchFunctionMode is tl.overrides.TorchFunctionMode
    assert "TorchFunctionMode" in tl.overrides.__all__
    if HAVE_TORCH:
        public = {n for n in dir(torch.overrides) if not n.startswith("_")} - {
            "Any", "Callable", "Iterable", "ParamSpec", "TypeVar", "cast", "collections",
            "contextlib", "functools", "sys", "torch", "types", "warnings", "wraps",
            "get_testing_overrides", "get_default_nowrap_functions", "redispatch_function",
            "resolve_name"}
        assert public <= set(dir(tl.overrides))
