"""Type promotion and broadcasting, compared with PyTorch.

Properties over operand pairs drawn from (dtype, 0-d or n-d tensor) and Python scalar
kinds: result dtypes of binary ops, ``where`` and comparisons, ``result_type``,
``promote_types`` and ``can_cast``; in-place ops keep the destination dtype (or raise
PyTorch's error); default-dtype changes; broadcasting shapes and error messages.

PyTorch's ``complex32`` (chalf) has no JAX counterpart: where PyTorch would produce it
torchlike produces complex64, and those draws are skipped.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchlike as tl

from ._parity import HAVE_TORCH, outcome, torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]
SCALARS = {"bool": True, "int": 3, "float": 1.5, "complex": 1 + 2j, "np.float64": None,
           "np.int64": None}

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _np_scalar(kind):
    return np.float64(1.5) if kind == "np.float64" else np.int64(3)


operand = st.one_of(
    st.tuples(st.just("tensor"), st.sampled_from(DTYPES), st.sampled_from([0, 1])),
    st.tuples(st.just("scalar"), st.sampled_from(sorted(SCALARS)), st.just(0)))


def make(spec, fw):
    """The operand ``spec`` as a torchlike (fw="tl") or PyTorch value."""
    kind, what, nd = spec
    if kind == "scalar":
        return _np_scalar(what) if what.startswith("np.") else SCALARS[what]
    mod = tl if fw == "tl" else torch
    shape = (3,) if nd else ()
    return mod.ones(shape, dtype=getattr(mod, what))


def name_of(dt) -> str:
    return str(dt).split(".")[-1]


def skip_comparison():
    """After torchlike's half has run: without PyTorch, nothing is left to compare."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the comparison is skipped "
                    "(torchlike's half ran)")


def skip_comparison_after(test):
    """Without PyTorch, run the property test (torchlike's half of every example, the
    comparisons skipped by ``assert_same_outcome``) and then skip it."""
    if HAVE_TORCH:
        return test

    @functools.wraps(test)
    def run_then_skip(*args, **kwargs):
        test(*args, **kwargs)
        skip_comparison()
    return run_then_skip


def assert_same_outcome(out, ref, what):
    """``out`` from torchlike, ``ref`` from PyTorch; nothing to compare without PyTorch."""
    if not HAVE_TORCH:
        return
    if isinstance(ref, Exception) and ("ComplexHalf" in str(ref) or "complex32" in str(ref) or
                                       "invalid default scalar type for complex" in str(ref)):
        return  # complex32 has no torchlike counterpart
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"{what}: torch raised {ref!r}, torchlike gave {out!r}"
        assert type(out).__name__ == type(ref).__name__, f"{what}: {out!r} vs torch {ref!r}"
        return
    if isinstance(out, Exception):
        raise AssertionError(f"{what}: torchlike raised {out!r}; torch gave {ref!r}")
    if isinstance(ref, torch.Tensor):
        if ref.dtype == torch.complex32:
            return
        assert name_of(out.dtype) == name_of(ref.dtype), f"{what}: {out.dtype} vs {ref.dtype}"
        assert tuple(out.shape) == tuple(ref.shape), f"{what}: {out.shape} vs {ref.shape}"
    elif isinstance(ref, torch.dtype):
        if ref == torch.complex32:
            return
        assert name_of(out) == name_of(ref), f"{what}: {out} vs {ref}"
    else:
        assert out == ref, f"{what}: {out!r} vs {ref!r}"


BINARY = ["add", "mul", "div", "eq", "lt", "maximum", "remainder", "bitwise_and"]


# ---------------------------------------------------------------------------
# promote_types / can_cast: exhaustively
@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_and_can_cast_table(a, b):
    da, db = getattr(tl, a), getattr(tl, b)
    p = tl.promote_types(da, db)
    # internal consistency: symmetric, idempotent, and both operands cast to the result
    assert tl.promote_types(db, da) is p and tl.promote_types(da, da) is da
    assert tl.can_cast(da, p) and tl.can_cast(db, p) and tl.can_cast(da, da)
    if HAVE_TORCH:
        ref = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert name_of(p) == name_of(ref)
        assert tl.can_cast(da, db) == torch.can_cast(getattr(torch, a), getattr(torch, b))


def test_promote_types_rejects_non_dtypes():
    with pytest.raises(TypeError):
        tl.promote_types(tl.float32, "not a dtype")


# ---------------------------------------------------------------------------
# result_type and binary ops over (dtype, 0-d/n-d, Python scalar) pairs
@skip_comparison_after
@SETTINGS
@given(operand, operand)
def test_result_type(a, b):
    assert_same_outcome(outcome(lambda: tl.result_type(make(a, "tl"), make(b, "tl"))),
                        outcome(lambda: torch.result_type(make(a, "torch"), make(b, "torch"))),
                        f"result_type{a, b}")


@skip_comparison_after
@SETTINGS
@given(operand, operand, st.sampled_from(BINARY))
def test_binary_op_result_dtype(a, b, op):
    if a[0] == "scalar" and b[0] == "scalar":
        return
    if a[0] == "scalar" and op in ("eq", "lt", "maximum"):
        a, b = b, a  # these take a Tensor first in PyTorch
    out = outcome(lambda: getattr(tl, op)(make(a, "tl"), make(b, "tl")))
    ref = outcome(lambda: getattr(torch, op)(make(a, "torch"), make(b, "torch")))
    assert_same_outcome(out, ref, f"{op}{a, b}")


@skip_comparison_after
@SETTINGS
@given(operand, operand, st.sampled_from(["__add__", "__sub__", "__mul__", "__truediv__",
                                          "__floordiv__", "__mod__", "__pow__",
                                          "__radd__", "__rsub__", "__rmul__", "__rtruediv__",
                                          "__rpow__", "__and__", "__or__", "__lt__",
                                          "__eq__"]))
def test_operator_result_dtype(a, b, dunder):
    if a[0] == "scalar":
        return
    out = outcome(lambda: getattr(make(a, "tl"), dunder)(make(b, "tl")))
    ref = outcome(lambda: getattr(make(a, "torch"), dunder)(make(b, "torch")))
    assert_same_outcome(out, ref, f"{dunder}{a, b}")


@skip_comparison_after
@SETTINGS
@given(operand, operand)
def test_where_result_dtype(a, b):
    out = outcome(lambda: tl.where(tl.tensor([True, False, True]), make(a, "tl"),
                                   make(b, "tl")))
    ref = outcome(lambda: torch.where(torch.tensor([True, False, True]), make(a, "torch"),
                                      make(b, "torch")))
    assert_same_outcome(out, ref, f"where{a, b}")


@skip_comparison_after
@SETTINGS
@given(st.sampled_from(DTYPES), operand, st.sampled_from(["add_", "mul_", "div_", "sub_",
                                                         "pow_"]))
def test_inplace_keeps_destination_dtype(self_dtype, b, op):
    def run(fw):
        mod = tl if fw == "tl" else torch
        x = mod.ones(3, dtype=getattr(mod, self_dtype))
        res = getattr(x, op)(make(b, fw))
        assert res is x
        return x
    out, ref = outcome(lambda: run("tl")), outcome(lambda: run("torch"))
    assert_same_outcome(out, ref, f"{self_dtype}.{op}({b})")
    if not isinstance(ref, Exception):
        assert name_of(out.dtype) == self_dtype


def test_inplace_error_text():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        tl.ones(3, dtype=tl.int64).add_(1.5)


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("scalar", [1.5, 2, True, 1j])
@pytest.mark.parametrize("dtype", ["int64", "bool", "float32", "uint8"])
def test_default_dtype_changes_scalar_promotion(default, scalar, dtype):
    old = torch.get_default_dtype() if HAVE_TORCH else None
    try:
        if HAVE_TORCH:
            torch.set_default_dtype(getattr(torch, default))
        tl.set_default_dtype(getattr(tl, default))
        assert tl.arange(0.0, 2.0).dtype is getattr(tl, default)
        for op in ("add", "mul", "div"):
            ref = outcome(lambda: getattr(torch, op)(torch.ones(2, dtype=getattr(torch, dtype)),
                                                     scalar))
            out = outcome(lambda: getattr(tl, op)(tl.ones(2, dtype=getattr(tl, dtype)),
                                                  scalar))
            assert_same_outcome(out, ref, f"{op}({dtype}, {scalar!r}) default {default}")
        assert_same_outcome(outcome(lambda: tl.tensor([scalar])),
                            outcome(lambda: torch.tensor([scalar])), "tensor()")
        if HAVE_TORCH:
            assert_same_outcome(tl.arange(0.0, 2.0), torch.arange(0.0, 2.0), "arange")
    finally:
        if HAVE_TORCH:
            torch.set_default_dtype(old)
        tl.set_default_dtype(tl.float32)


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError):
        tl.set_default_dtype(tl.int64)
    assert tl.get_default_dtype() is tl.float32


def test_uint8_int8_and_half_bfloat16():
    assert tl.promote_types(tl.uint8, tl.int8) is tl.int16
    assert tl.promote_types(tl.float16, tl.bfloat16) is tl.float32
    assert (tl.ones(2, dtype=tl.uint8) + tl.ones(2, dtype=tl.int8)).dtype is tl.int16
    assert (tl.ones(2, dtype=tl.float16) * tl.ones(2, dtype=tl.bfloat16)).dtype is tl.float32
    # a 0-d tensor of a higher category still wins over an n-d tensor
    assert (tl.ones(2, dtype=tl.int32) + tl.tensor(1.5, dtype=tl.float64)).dtype is tl.float64
    assert (tl.ones(2, dtype=tl.float16) + tl.tensor(1.5, dtype=tl.float64)).dtype is tl.float16
    assert (tl.ones(2, dtype=tl.int32) + tl.tensor(5, dtype=tl.int64)).dtype is tl.int32


# ---------------------------------------------------------------------------
# broadcasting
dims = st.integers(min_value=1, max_value=4)


@st.composite
def broadcastable_pair(draw):
    n = draw(st.integers(0, 4))
    base = draw(st.lists(dims, min_size=n, max_size=n))
    a = [d if draw(st.booleans()) else 1 for d in base]
    b = [d if draw(st.booleans()) else 1 for d in base]
    a = a[draw(st.integers(0, len(a))):]
    b = b[draw(st.integers(0, len(b))):]
    return tuple(a), tuple(b)


@st.composite
def mismatched_pair(draw):
    n = draw(st.integers(1, 4))
    a = draw(st.lists(dims, min_size=n, max_size=n))
    b = list(a)
    i = draw(st.integers(0, n - 1))
    b[i] = draw(st.integers(2, 5).filter(lambda d: d != a[i] and a[i] != 1))
    return tuple(a), tuple(b)


@SETTINGS
@given(broadcastable_pair())
def test_broadcast_shapes_match_torch(shapes):
    sa, sb = shapes
    out = tl.add(tl.ones(sa), tl.ones(sb))
    assert tuple(out.shape) == np.broadcast_shapes(sa, sb)
    if HAVE_TORCH:
        ref = torch.add(torch.ones(sa), torch.ones(sb))
        assert tuple(out.shape) == tuple(ref.shape)


@SETTINGS
@given(mismatched_pair(), st.sampled_from(["add", "mul", "lt", "maximum"]))
def test_broadcast_errors_match_torch(shapes, op):
    sa, sb = shapes
    if HAVE_TORCH:
        with pytest.raises(RuntimeError) as ref:
            getattr(torch, op)(torch.ones(sa), torch.ones(sb))
    with pytest.raises(RuntimeError) as out:
        getattr(tl, op)(tl.ones(sa), tl.ones(sb))
    assert str(out.value).startswith("The size of tensor a (")
    if HAVE_TORCH:
        assert str(out.value) == str(ref.value)


def test_broadcast_error_text():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size "
                                           r"of tensor b \(4\) at non-singleton dimension 1"):
        tl.ones(2, 3) + tl.ones(2, 4)


def test_inplace_cannot_broadcast_self():
    if HAVE_TORCH:
        with pytest.raises(RuntimeError) as ref:
            torch.ones(3).add_(torch.ones(2, 3))
    with pytest.raises(RuntimeError) as out:
        tl.ones(3).add_(tl.ones(2, 3))
    if HAVE_TORCH:
        assert str(out.value) == str(ref.value)
