"""torchlike.finfo / torchlike.iinfo against torch.finfo / torch.iinfo: values, reprs,
equality, and the errors for arguments that are not a fitting dtype."""

from __future__ import annotations

import copy
import pickle

import ml_dtypes
import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, requires_torch, torch

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = {"complex64": "float32", "complex128": "float64"}
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FINFO_FIELDS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]


def _outcome(fn):
    """What a call gives: ('ok', repr) or (exception type name, message)."""
    try:
        return "ok", repr(fn())
    except Exception as e:   # noqa: BLE001 - the exception itself is what is compared
        return type(e).__name__, str(e)


def _fields(info, names):
    return {k: (getattr(info, k), type(getattr(info, k))) for k in names}


# ------------------------------------------------------------------------------ finfo
@pytest.mark.parametrize("name", FLOATS + list(COMPLEX))
def test_finfo_values_against_numpy(name):
    real = COMPLEX.get(name, name)
    f = tl.finfo(getattr(tl, name))
    ref = ml_dtypes.finfo(getattr(tl, real).np)
    assert f.dtype == real
    assert f.bits == int(ref.bits) and type(f.bits) is int
    for k in ["eps", "max", "min", "tiny", "smallest_normal"]:
        assert getattr(f, k) == float(getattr(ref, k)) and type(getattr(f, k)) is float
    digits10 = {"float16": 3, "bfloat16": 2, "float32": 6, "float64": 15}[real]
    assert f.resolution == 10.0 ** -digits10
    assert f.smallest_normal == f.tiny and f.min == -f.max


@requires_torch
@pytest.mark.parametrize("name", FLOATS + list(COMPLEX))
def test_finfo_matches_torch(name):
    ours, theirs = tl.finfo(getattr(tl, name)), torch.finfo(getattr(torch, name))
    assert _fields(ours, FINFO_FIELDS) == _fields(theirs, FINFO_FIELDS)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)


def test_finfo_repr():
    assert repr(tl.finfo(tl.float32)) == (
        "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    assert str(tl.finfo(tl.float16)) == (
        "finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
        "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)")
    assert repr(tl.finfo) == "<class 'torchlike.finfo'>"
    assert repr(tl.iinfo) == "<class 'torchlike.iinfo'>"


def test_finfo_default_dtype():
    assert tl.finfo().dtype == "float32"
    assert tl.finfo() == tl.finfo(tl.float32)
    tl.set_default_dtype(tl.float64)    # the conftest fixture restores float32
    assert tl.finfo().dtype == "float64"
    assert repr(tl.finfo()) == repr(tl.finfo(tl.float64))


@pytest.mark.parametrize("alias,name", [("half", "float16"), ("float", "float32"),
                                        ("double", "float64"), ("cfloat", "float32"),
                                        ("cdouble", "float64")])
def test_finfo_dtype_aliases(alias, name):
    assert tl.finfo(getattr(tl, alias)).dtype == name
    assert tl.finfo(type=getattr(tl, alias)).dtype == name


def test_finfo_python_types():
    # PyTorch's argument parser takes Python's float and complex types as dtypes
    assert tl.finfo(float) == tl.finfo(tl.float64)
    assert tl.finfo(complex).dtype == "float64"
    assert tl.iinfo(int) == tl.iinfo(tl.int64)
    if HAVE_TORCH:
        assert repr(tl.finfo(float)) == repr(torch.finfo(float))
        assert repr(tl.iinfo(int)) == repr(torch.iinfo(int))


# ------------------------------------------------------------------------------ iinfo
@pytest.mark.parametrize("name", INTS)
def test_iinfo_values_against_numpy(name):
    i = tl.iinfo(getattr(tl, name))
    ref = np.iinfo(getattr(np, name))
    assert (i.bits, i.min, i.max, i.dtype) == (ref.bits, int(ref.min), int(ref.max), name)
    assert all(type(getattr(i, k)) is int for k in ["bits", "min", "max"])


@requires_torch
@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(name):
    ours, theirs = tl.iinfo(getattr(tl, name)), torch.iinfo(getattr(torch, name))
    names = ["bits", "max", "min", "dtype"]
    assert _fields(ours, names) == _fields(theirs, names)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


def test_iinfo_repr():
    assert repr(tl.iinfo(tl.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"
    assert repr(tl.iinfo(tl.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    assert tl.iinfo(tl.int64).max == 2**63 - 1


# ---------------------------------------------------------------------------- errors
_NO_FLOAT = ("TypeError", "torch.finfo() requires a floating point input type. Use "
             "torch.iinfo to handle 'torch.finfo'")
_NO_INT = ("TypeError", "torch.iinfo() requires an integer input type. Use torch.finfo to "
           "handle 'torch.iinfo'")
_COMBINATION = ("finfo() received an invalid combination of arguments - got ({}), but "
                "expected one of:\n * (torch.dtype type)\n * ()\n")

# (call on a module m (torchlike or torch), what PyTorch 2.13 gives)
ERROR_CASES = {
    "finfo(int32)": (lambda m: m.finfo(m.int32), _NO_FLOAT),
    "finfo(int64)": (lambda m: m.finfo(m.int64), _NO_FLOAT),
    "finfo(uint8)": (lambda m: m.finfo(m.uint8), _NO_FLOAT),
    "finfo(bool)": (lambda m: m.finfo(m.bool), _NO_FLOAT),
    "finfo(type=int32)": (lambda m: m.finfo(type=m.int32), _NO_FLOAT),
    "finfo(int type)": (lambda m: m.finfo(int), _NO_FLOAT),
    "finfo(FloatTensor)": (lambda m: m.finfo(m.FloatTensor), _NO_FLOAT),
    "finfo(Tensor)": (lambda m: m.finfo(m.Tensor), _NO_FLOAT),
    "finfo('float32')": (lambda m: m.finfo("float32"), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not str")),
    "finfo(None)": (lambda m: m.finfo(None), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not "
        "NoneType")),
    "finfo(type=None)": (lambda m: m.finfo(type=None), (
        "TypeError", "finfo(): argument 'type' must be torch.dtype, not NoneType")),
    "finfo(1)": (lambda m: m.finfo(1), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not int")),
    "finfo(np.float32)": (lambda m: m.finfo(np.float32), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not type")),
    "finfo(np.dtype)": (lambda m: m.finfo(np.dtype("float32")), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not "
        "numpy.dtypes.Float32DType")),
    "finfo(tensor)": (lambda m: m.finfo(m.zeros(1)), (
        "TypeError", "finfo(): argument 'type' (position 1) must be torch.dtype, not "
        "Tensor")),
    "finfo(a, b)": (lambda m: m.finfo(m.float32, m.float32), (
        "TypeError", _COMBINATION.format("torch.dtype, torch.dtype"))),
    "finfo(1, 2, 3)": (lambda m: m.finfo(1, 2, 3), (
        "TypeError", _COMBINATION.format("int, int, int"))),
    "finfo(a, foo=1)": (lambda m: m.finfo(m.float32, foo=1), (
        "TypeError", _COMBINATION.format("torch.dtype, foo=int"))),
    "finfo(a, type=a)": (lambda m: m.finfo(m.float32, type=m.float32), (
        "TypeError", _COMBINATION.format("torch.dtype, type=torch.dtype"))),
    "finfo(dtype=a)": (lambda m: m.finfo(dtype=m.float32), (
        "TypeError", 'finfo() missing 1 required positional arguments: "type"')),
    "iinfo(float32)": (lambda m: m.iinfo(m.float32), _NO_INT),
    "iinfo(float16)": (lambda m: m.iinfo(m.float16), _NO_INT),
    "iinfo(complex64)": (lambda m: m.iinfo(m.complex64), _NO_INT),
    "iinfo(type=float64)": (lambda m: m.iinfo(type=m.float64), _NO_INT),
    "iinfo(float type)": (lambda m: m.iinfo(float), _NO_INT),
    "iinfo(bool)": (lambda m: m.iinfo(m.bool), (
        "TypeError", "torch.bool is not supported by torch.iinfo")),
    "iinfo(bool type)": (lambda m: m.iinfo(bool), (
        "TypeError", "torch.bool is not supported by torch.iinfo")),
    "iinfo()": (lambda m: m.iinfo(), (
        "TypeError", 'iinfo() missing 1 required positional arguments: "type"')),
    "iinfo(dtype=a)": (lambda m: m.iinfo(dtype=m.int32), (
        "TypeError", 'iinfo() missing 1 required positional arguments: "type"')),
    "iinfo('int32')": (lambda m: m.iinfo("int32"), (
        "TypeError", "iinfo(): argument 'type' (position 1) must be torch.dtype, not str")),
    "iinfo(type=None)": (lambda m: m.iinfo(type=None), (
        "TypeError", "iinfo(): argument 'type' must be torch.dtype, not NoneType")),
    "iinfo(a, b)": (lambda m: m.iinfo(m.int8, m.int8), (
        "TypeError", "iinfo() takes 1 positional argument but 2 were given")),
    "iinfo(a, type=a)": (lambda m: m.iinfo(m.int8, type=m.int8), (
        "TypeError", "iinfo() got multiple values for argument 'type'")),
    "iinfo(type=a, foo=1)": (lambda m: m.iinfo(type=m.int8, foo=1), (
        "TypeError", "iinfo() got an unexpected keyword argument 'foo'")),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors(case):
    call, expected = ERROR_CASES[case]
    assert _outcome(lambda: call(tl)) == expected
    if HAVE_TORCH:
        assert _outcome(lambda: call(torch)) == expected


def test_legacy_tensor_type_in_iinfo_raises():
    # PyTorch answers torch.iinfo(torch.FloatTensor) with uint8's limits; torchlike raises
    with pytest.raises(TypeError, match=r"must be torch\.dtype, not type"):
        tl.iinfo(tl.LongTensor)


# ------------------------------------------------------------------ object behaviour
def _behaviour(m):
    f32 = m.finfo(m.float32)
    i32 = m.iinfo(m.int32)
    return {
        "eq same": f32 == m.finfo(m.float32),
        "eq complex's real": f32 == m.finfo(m.complex64),
        "ne other": f32 != m.finfo(m.float64),
        "eq f16/bf16": m.finfo(m.float16) == m.finfo(m.bfloat16),
        "eq int": f32 == 3,
        "eq iinfo": f32 == i32,
        "iinfo eq": m.iinfo(m.int8) == m.iinfo(m.int8),
        "iinfo ne": m.iinfo(m.int8) != m.iinfo(m.uint8),
        "identity": f32 is m.finfo(m.float32),
        "isinstance": isinstance(f32, m.finfo) and isinstance(i32, m.iinfo),
        "type name": (type(f32).__name__, type(i32).__name__),
        "hash finfo": _outcome(lambda: hash(f32))[0],
        "hash iinfo": _outcome(lambda: hash(i32))[0],
        "set bits": _outcome(lambda: setattr(f32, "bits", 3)),
        "set max": _outcome(lambda: setattr(i32, "max", 3)),
        "set other": _outcome(lambda: setattr(f32, "foo", 3)),
        "pickle": _outcome(lambda: pickle.dumps(f32)),
        "copy": _outcome(lambda: copy.copy(i32)),
        "order": _outcome(lambda: f32 < f32)[0],
        "subclass": _outcome(lambda: type("Sub", (m.finfo,), {})),
    }


def test_object_behaviour():
    ours = _behaviour(tl)
    assert ours["eq same"] and ours["eq complex's real"] and ours["ne other"]
    assert not ours["eq f16/bf16"] and not ours["eq int"] and not ours["eq iinfo"]
    assert ours["iinfo eq"] and ours["iinfo ne"] and not ours["identity"]
    assert ours["set bits"] == ("AttributeError",
                                "attribute 'bits' of 'torch.finfo' objects is not writable")
    assert ours["pickle"] == ("TypeError", "cannot pickle 'torch.finfo' object")
    assert ours["hash finfo"] == ours["hash iinfo"] == "TypeError"
    if HAVE_TORCH:
        assert ours == _behaviour(torch)


def test_public_namespace():
    from torchlike._core import dtype_info
    assert set(dtype_info.__all__) == {"finfo", "iinfo"}
    assert tl.finfo is dtype_info.finfo and tl.iinfo is dtype_info.iinfo
