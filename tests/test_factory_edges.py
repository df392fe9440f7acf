"""Factories and number writes at their edges, against PyTorch: ``out=`` on factories,
``arange`` with an integer dtype and fractional bounds, PyTorch's checked conversion of a
Python number (``full``, ``fill_``, writing a number through indexing), and
``where(condition)``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, both, outcome, raises_in_both, torch

FACTORIES = [
    ("zeros", lambda m, out: m.zeros(3, out=out)),
    ("ones", lambda m, out: m.ones(2, 2, out=out)),
    ("full", lambda m, out: m.full((2, 3), 2, out=out)),
    ("arange", lambda m, out: m.arange(1, 7, 2, out=out)),
    ("linspace", lambda m, out: m.linspace(0, 1, 5, out=out)),
    ("logspace", lambda m, out: m.logspace(0, 2, 3, out=out)),
    ("eye", lambda m, out: m.eye(2, 3, out=out)),
]


@pytest.mark.parametrize("name,make", FACTORIES, ids=[f[0] for f in FACTORIES])
@pytest.mark.parametrize("start", [(2,), (0,), (7,)])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_factory_writes_into_out(name, make, start, dtype):
    def run(m):
        out = m.full(start, 7, dtype=getattr(m, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # arange's resize warning: tested below
            res = make(m, out)
        return res is out, out
    (same, out), ref = both(run)
    assert same
    if HAVE_TORCH:
        assert ref[0]
        assert_same(out, ref[1])


def test_arange_warns_when_it_resizes_a_non_empty_out():
    with pytest.warns(UserWarning, match="number of elements in the out tensor of shape "
                                         r"\[2\] is 2 .* resized to a tensor of shape \(3,\)"):
        tl.arange(1, 7, 2, out=tl.zeros(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.arange(1, 7, 2, out=tl.zeros(0))      # an empty out is resized silently
        tl.zeros(3, out=tl.zeros(2))             # as are the other factories' outs


def test_factory_out_through_a_view_writes_the_base():
    def run(m):
        base = m.zeros(4)
        m.full((2,), 5.0, out=base[::2])
        return base
    out, ref = both(run)
    np.testing.assert_array_equal(out.numpy(), [5, 0, 5, 0])
    if HAVE_TORCH:
        assert_same(out, ref)


@pytest.mark.parametrize("case,same_text", [
    (lambda m: m.zeros(3, dtype=m.int64, out=m.empty(3)), True),         # dtype mismatch
    (lambda m: m.zeros(3, out=m.empty(3, requires_grad=True)), True),    # out needs grad
    (lambda m: m.arange(0, 1, 0.25, out=m.empty(0, dtype=m.int64)), True),   # step -> 0
    (lambda m: m.arange(3, out=[1, 2, 3]), False),                       # not a tensor
])
def test_factory_out_errors(case, same_text):
    raises_in_both(case, same_text=same_text)


ARANGE = [(0, 2.5), (-0.5, 2), (0, 5, 1.5), (0, 1, 0.3), (5, 0, -1.5), (0.5, 3.7, 0.9),
          (-3.5, -0.2, 0.7), (2.9,), (0, 10, 3), (10, 0, -3), (-7, 7, 2), (1, 10, 2.5)]


@pytest.mark.parametrize("args", ARANGE, ids=[str(a) for a in ARANGE])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float32", "bool"])
def test_arange_with_fractional_arguments(args, dtype):
    out, ref = both(lambda m: outcome(lambda: m.arange(*args, dtype=getattr(m, dtype))))
    if isinstance(out, Exception):
        assert dtype in ("int64", "bool")
    if HAVE_TORCH:
        if isinstance(ref, Exception):
            assert type(out).__name__ == type(ref).__name__, (out, ref)
        else:
            assert_same(out, ref)


# Python numbers into typed storage: in range, wrapping, overflowing
VALUES = [-1, -255, -256, 255, 256, 2.7, -2.7, -1.0, 300.0, math.nan, math.inf, 1e20, True,
          3 + 0j, 3 + 1j]
WRITES = {
    "full": lambda m, v, dt: m.full((2,), v, dtype=dt),
    "fill_": lambda m, v, dt: m.zeros(2, dtype=dt).fill_(v),
    "setitem": lambda m, v, dt: _setitem(m.zeros(2, dtype=dt), v),
}


def _setitem(t, v):
    t[0] = v
    return t


@pytest.mark.parametrize("value", VALUES, ids=[repr(v) for v in VALUES])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "bool"])
@pytest.mark.parametrize("how", list(WRITES))
def test_number_writes_convert_as_pytorch(how, dtype, value):
    out, ref = both(lambda m: outcome(lambda: WRITES[how](m, value, getattr(m, dtype))))
    if not HAVE_TORCH:
        return
    if isinstance(ref, Exception):
        assert type(out).__name__ == type(ref).__name__, (out, ref)
        assert str(out).replace("torchlike", "torch") == str(ref)
    else:
        assert_same(out, ref)


@pytest.mark.parametrize("value,dtype", [(1e300, "float32"), (1e300, "float16"),
                                         (70000.0, "float16"), (2 ** 63, "int64"),
                                         (2 ** 200, "float32"), (1e300, "float64"),
                                         (2 ** 64 - 1, "float32"), (-2 ** 63 - 1, "int64"),
                                         (2 ** 64, "bool")])
def test_full_range_checks_per_dtype(value, dtype):
    out, ref = both(lambda m: outcome(lambda: m.full((1,), value, dtype=getattr(m, dtype))))
    if HAVE_TORCH:
        if isinstance(ref, Exception):
            assert type(out).__name__ == type(ref).__name__ and \
                str(out).replace("torchlike", "torch") == str(ref)
        else:
            assert_same(out, ref)
    if dtype == "float32" and value == 1e300:
        assert isinstance(out, RuntimeError) and "without overflow" in str(out)


def test_where_with_only_a_condition_is_nonzero_as_tuple():
    x = np.array([[1.0, -2.0, 0.0], [0.0, 3.0, -1.0]], np.float32)
    out, ref = both(lambda m: m.where(m.tensor(x) > 0))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_array_equal(out[0].numpy(), [0, 1])
    np.testing.assert_array_equal(out[1].numpy(), [0, 1])
    if HAVE_TORCH:
        assert_same(out, ref)
    same, _ = both(lambda m: m.where(m.tensor(x) > 0, m.tensor(x), 0.0))
    np.testing.assert_array_equal(same.numpy(), np.where(x > 0, x, 0))
    raises_in_both(lambda m: m.where(m.tensor(x) > 0, m.tensor(x)), TypeError,
                   same_text=False)


def test_where_is_still_the_op_for_torch_function_and_methods():
    t = tl.tensor([1.0, -1.0])
    np.testing.assert_array_equal(t.where(t > 0, tl.tensor(0.0)).numpy(), [1, 0])
    assert tl.where.__name__ == "where"
    _ = torch


@pytest.mark.parametrize("make", [
    lambda m: m.tensor(range(3)), lambda m: m.as_tensor(range(2, 5)),
    lambda m: m.tensor([range(2), range(2)], dtype=m.float64), lambda m: m.tensor(range(0)),
])
def test_ranges_are_sequences(make):
    out, ref = both(make)
    assert isinstance(out, tl.Tensor)
    if HAVE_TORCH:
        assert_same(out, ref)


_NAN, _INF = float("nan"), float("inf")


@pytest.mark.parametrize("data,dtype,exc,text", [
    ([2 ** 63], None, ValueError, "Overflow when unpacking long long"),
    ([-2 ** 63 - 1], None, ValueError, "Overflow when unpacking long long"),
    ([2 ** 64], "uint8", ValueError, "Overflow when unpacking long long"),
    ([300], "uint8", RuntimeError, "value cannot be converted to type uint8 without overflow"),
    ([-256], "uint8", RuntimeError, "value cannot be converted to type uint8 without overflow"),
    ([-1.0], "uint8", RuntimeError, "value cannot be converted to type uint8 without overflow"),
    ([128], "int8", RuntimeError, "value cannot be converted to type int8 without overflow"),
    ([2 ** 31], "int32", RuntimeError, "value cannot be converted to type int32 without overflow"),
    ([1.5e10], "int32", RuntimeError, "value cannot be converted to type int32 without overflow"),
    ([_NAN], "int64", RuntimeError, "value cannot be converted to type int64 without overflow"),
    ([[1], [_INF]], "int64", RuntimeError, "value cannot be converted to type int64 without"),
    ("a", None, TypeError, "new(): invalid data type 'str'"),
])
def test_tensor_refuses_numbers_its_dtype_cannot_hold(data, dtype, exc, text):
    # PyTorch checks each Python number as it stores it, where a cast would wrap
    def make(m):
        return m.tensor(data, dtype=None if dtype is None else getattr(m, dtype))
    with pytest.raises(exc, match=text.replace("(", r"\(").replace(")", r"\)")):
        make(tl)
    raises_in_both(make, exc)


@pytest.mark.parametrize("data,dtype,want", [
    ([-1], "uint8", [255]), ([-255], "uint8", [1]),       # unsigned types take -max..max
    ([-1, 2.5], "uint8", [255, 2]),                       # each number by its own type
    ([2 ** 63], "float32", [2.0 ** 63]), ([2 ** 70], "float64", [2.0 ** 70]),
    ([300, 2 ** 63], "bool", [True, True]), ([1e40], "float32", [_INF]),
])
def test_tensor_keeps_numbers_pytorch_keeps(data, dtype, want):
    out, ref = both(lambda m: m.tensor(data, dtype=getattr(m, dtype)))
    assert out.tolist() == want
    if HAVE_TORCH:
        assert_same(out, ref)


@pytest.mark.parametrize("args,exc,text", [
    ((0, _NAN), RuntimeError, "unsupported range: 0 -> nan"),
    ((_NAN, 5), RuntimeError, "unsupported range: nan -> 5"),
    ((0, _INF), RuntimeError, "unsupported range: 0 -> inf"),
    ((0, 5, _NAN), RuntimeError, "step must be nonzero"),
    ((0.0, 1e300, 1e-300), RuntimeError, r"invalid size, possible overflow\?"),
    ((5, 0), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
])
def test_arange_refuses_ranges_as_pytorch_does(args, exc, text):
    with pytest.raises(exc, match=text):
        tl.arange(*args)
    raises_in_both(lambda m: m.arange(*args), exc)
