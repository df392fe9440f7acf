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
