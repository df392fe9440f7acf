"""Factories and conversions, compared with PyTorch: ``tensor`` dtype inference and
copying, ``as_tensor``/``from_numpy``, ``zeros``/``ones``/``full``/``empty`` and
``*_like``, ``arange``/``range``/``linspace``/``logspace``/``eye``, the legacy
constructors (``Tensor(...)``, ``FloatTensor``, ``LongTensor``...), default-dtype
effects, dtype casts, Python conversions and devices."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, outcome, same_error, torch

NP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
             "float64", "complex64", "complex128"]


LEGACY_DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                 "BFloat16Tensor": "bfloat16", "ByteTensor": "uint8", "CharTensor": "int8",
                 "ShortTensor": "int16", "IntTensor": "int32", "LongTensor": "int64",
                 "BoolTensor": "bool"}


def same(out, ref, **kw):
    """``out`` from torchlike; ``ref`` a function giving PyTorch's result, compared where
    PyTorch is installed."""
    if HAVE_TORCH:
        assert_same(out, ref(), **kw)


def skip_comparison():
    """After torchlike's half has run: without PyTorch, nothing is left to compare."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the comparison is skipped "
                    "(torchlike's half ran)")


# ---------------------------------------------------------------------------
# tensor(): dtype inference and copying
DATA = [1, 2.5, True, 1 + 2j, [1, 2, 3], [1.0, 2], [True, False], [True, 2], [1, 2.5j],
        [[1, 2], [3, 4]], [[1.5], [2]], [], [[]], [[], []], (1, 2), [(1, 2), (3, 4)],
        [np.float32(1.5), 2], [np.int32(3)], 0, -7]


@pytest.mark.parametrize("data", DATA, ids=[repr(d) for d in DATA])
def test_tensor_inference(data):
    same(tl.tensor(data), lambda: torch.tensor(data))
    skip_comparison()


@pytest.mark.parametrize("dt", NP_DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 0), (2, 3)])
def test_tensor_from_numpy_arrays(dt, shape):
    a = (np.arange(int(np.prod(shape))) % 3).reshape(shape).astype(dt)
    for out in (tl.tensor(a), tl.as_tensor(a), tl.from_numpy(a)):
        assert out.dtype is getattr(tl, dt) and tuple(out.shape) == shape
        np.testing.assert_array_equal(np.asarray(out), a)
    same(tl.tensor(a), lambda: torch.tensor(a))
    same(tl.as_tensor(a), lambda: torch.as_tensor(a))
    same(tl.from_numpy(a), lambda: torch.from_numpy(a))


@pytest.mark.parametrize("dtype", ["float16", "int32", "bool", "complex64", "float64"])
def test_tensor_explicit_dtype(dtype):
    for data in ([1, 2], [1.7, -1.7], [[True, False]]):
        out = tl.tensor(data, dtype=getattr(tl, dtype))
        assert out.dtype is getattr(tl, dtype)
        assert tuple(out.shape) == np.asarray(data).shape
        same(out, lambda: torch.tensor(data, dtype=getattr(torch, dtype)))


def test_tensor_ragged_lists_error():
    out = outcome(lambda: tl.tensor([[1, 2], [3]]))
    assert isinstance(out, ValueError), out
    if HAVE_TORCH:
        ref = outcome(lambda: torch.tensor([[1, 2], [3]]))
        assert type(out) is type(ref) and str(out) == str(ref)


def test_tensor_invalid_data_error():
    for data in (["a"], [1, "a"], [None], [[1], object()]):
        same_error(lambda: tl.tensor(data), lambda: torch.tensor(data), match_text=True)


def test_tensor_always_copies():
    a = np.array([1.0, 2.0], np.float32)
    t = tl.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]
    src = tl.tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = tl.tensor(src)
    src.add_(1)
    assert c.tolist() == [1.0, 2.0]


def test_tensor_of_tensor_warns_like_torch():
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        tl.tensor(tl.tensor([1.0]))


def test_as_tensor_and_from_numpy():
    t = tl.tensor([1.0, 2.0])
    assert tl.as_tensor(t) is t
    assert tl.as_tensor(t, dtype=tl.float64).dtype is tl.float64
    assert tl.as_tensor([1, 2]).dtype is tl.int64
    with pytest.raises(TypeError):
        tl.from_numpy([1, 2])


def test_from_numpy_unsupported_dtype():
    a = np.array(["x"])
    same_error(lambda: tl.from_numpy(a), lambda: torch.from_numpy(a))


# ---------------------------------------------------------------------------
# zeros/ones/full/empty and *_like
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([4],), (0,)])
def test_fill_factories(name, args):
    out = getattr(tl, name)(*args)
    shape = tuple(args[0]) if isinstance(args[0], (tuple, list)) else args
    assert tuple(out.shape) == shape and out.dtype is tl.float32
    if name != "empty":
        np.testing.assert_array_equal(np.asarray(out), np.full(shape, name == "ones"))
    if HAVE_TORCH:
        ref = getattr(torch, name)(*args)
        assert tuple(out.shape) == tuple(ref.shape) and out.dtype is tl.float32
        if name != "empty":
            same(out, lambda: ref)
    out = getattr(tl, name)(*args, dtype=tl.int16, requires_grad=False)
    assert out.dtype is tl.int16


def test_factory_requires_grad_and_device():
    t = tl.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.device == tl.device("cpu")
    same_error(lambda: tl.zeros(2, dtype=tl.int64, requires_grad=True),
               lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True))
    same_error(lambda: tl.zeros(-1), lambda: torch.zeros(-1), match_text=True)


@pytest.mark.parametrize("fill,dtype", [(1, "int64"), (2.5, "float32"), (True, "bool"),
                                        (1 + 1j, "complex64"), (-3, "int64")])
def test_full_infers_dtype(fill, dtype):
    out = tl.full((2, 2), fill)
    assert out.dtype is getattr(tl, dtype) and out.tolist() == [[fill] * 2] * 2
    same(out, lambda: torch.full((2, 2), fill))
    out = outcome(lambda: tl.full((2,), fill, dtype=tl.float64))
    if not HAVE_TORCH:
        return
    ref = outcome(lambda: torch.full((2,), fill, dtype=torch.float64))
    if isinstance(ref, Exception):
        assert type(out) is type(ref) and str(out) == str(ref)
    else:
        same(out, lambda: ref)


@pytest.mark.parametrize("like", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_factories(like):
    a = np.arange(6).reshape(2, 3).astype(np.int32)
    extra = (7,) if like == "full_like" else ()
    out = getattr(tl, like)(tl.tensor(a), *extra)
    assert out.dtype is tl.int32 and tuple(out.shape) == (2, 3)
    if like != "empty_like":
        fill = {"zeros_like": 0, "ones_like": 1, "full_like": 7}[like]
        assert out.tolist() == [[fill] * 3] * 2
    if HAVE_TORCH:
        ref = getattr(torch, like)(torch.tensor(a), *extra)
        assert out.dtype is tl.int32 and tuple(out.shape) == tuple(ref.shape)
        if like != "empty_like":
            same(out, lambda: ref)
    out = getattr(tl, like)(tl.tensor(a), *extra, dtype=tl.float64, requires_grad=True)
    assert out.dtype is tl.float64 and out.requires_grad


def test_full_like_float_fill_into_int():
    out = tl.full_like(tl.tensor([1, 2]), 2.7)
    assert out.dtype is tl.int64 and out.tolist() == [2, 2]
    same(out, lambda: torch.full_like(torch.tensor([1, 2]), 2.7))


# ---------------------------------------------------------------------------
# ranges
ARANGE = [(5,), (1, 4), (0, 1, 0.1), (1.0, 4), (10, 0, -3), (0, -1, -0.25), (2.5,),
          (0, 10, 3), (-5, 5, 2), (0, 0), (1, 2, 0.3), (0.0, 1.0, 1 / 3)]


@pytest.mark.parametrize("args", ARANGE, ids=[repr(a) for a in ARANGE])
def test_arange(args):
    out = tl.arange(*args)
    out64 = tl.arange(*args, dtype=tl.float64)
    np.testing.assert_allclose(np.asarray(out64), np.arange(*args), rtol=1e-12, atol=1e-12)
    assert tuple(out.shape) == out64.shape
    same(out, lambda: torch.arange(*args))
    same(out64, lambda: torch.arange(*args, dtype=torch.float64))


def test_arange_errors():
    same_error(lambda: tl.arange(0, 5, 0), lambda: torch.arange(0, 5, 0))
    same_error(lambda: tl.arange(5, 0, 1), lambda: torch.arange(5, 0, 1))


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (1.0, 3.0, 0.5), (5, 1, -1)])
def test_range_is_inclusive_and_deprecated(args):
    if HAVE_TORCH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = torch.range(*args)
    with pytest.warns(UserWarning, match="deprecated"):
        out = tl.range(*args)
    start, end, step = (*args, 1)[:3]
    np.testing.assert_allclose(np.asarray(out), np.arange(start, end + step / 2, step))
    same(out, lambda: ref)


@pytest.mark.parametrize("args", [(0, 1, 5), (-3, 7, 11), (1, 0, 4), (0, 1, 1), (0, 1, 0),
                                  (2.5, 2.5, 3), (0, 10, 100), (-1.0, 1.0, 1000)])
def test_linspace(args):
    out, out64 = tl.linspace(*args), tl.linspace(*args, dtype=tl.float64)
    assert out.dtype is tl.float32 and out64.dtype is tl.float64
    np.testing.assert_allclose(np.asarray(out), np.linspace(*args), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(out64), np.linspace(*args), rtol=1e-6, atol=1e-6)
    same(out, lambda: torch.linspace(*args), rtol=1e-6, atol=1e-6)
    same(out64, lambda: torch.linspace(*args, dtype=torch.float64), rtol=1e-6, atol=1e-6)


def test_linspace_integer_dtype():
    out = tl.linspace(0, 10, 7, dtype=tl.int64)
    assert out.dtype is tl.int64 and out.tolist() == [0, 1, 3, 5, 6, 8, 10]  # as PyTorch
    same(out, lambda: torch.linspace(0, 10, 7, dtype=torch.int64))


@pytest.mark.parametrize("args,kw", [((0, 2, 5), {}), ((-2, 2, 9), {}), ((0, 3, 4), {"base": 2}),
                                     ((1, 0, 3), {"base": 0.5})])
def test_logspace(args, kw):
    out = tl.logspace(*args, **kw)
    assert out.dtype is tl.float32
    np.testing.assert_allclose(np.asarray(out), np.logspace(*args, **kw), rtol=1e-6, atol=1e-6)
    same(out, lambda: torch.logspace(*args, **kw), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (1, 1)])
def test_eye(args):
    out, out_int = tl.eye(*args), tl.eye(*args, dtype=tl.int64)
    assert out.dtype is tl.float32 and out_int.dtype is tl.int64
    np.testing.assert_array_equal(np.asarray(out), np.eye(*args))
    np.testing.assert_array_equal(np.asarray(out_int), np.eye(*args))
    same(out, lambda: torch.eye(*args))
    same(out_int, lambda: torch.eye(*args, dtype=torch.int64))


def test_eye_negative():
    same_error(lambda: tl.eye(-1), lambda: torch.eye(-1))


# ---------------------------------------------------------------------------
# legacy constructors
LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
          "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_type_constructors(name):
    dtype = getattr(tl, LEGACY_DTYPES[name])
    # (PyTorch refuses negative floats for uint8: "value cannot be converted")
    for data in ([5], [[1, 1]], [1.7, 2.2, 0.0], (2, 3), []):
        out = getattr(tl, name)(data)
        assert out.dtype is dtype and tuple(out.shape) == np.asarray(data).shape
        same(out, lambda: getattr(torch, name)(data))
    for sizes in ((2, 3), (4,), (0,)):
        out = getattr(tl, name)(*sizes)
        assert tuple(out.shape) == sizes and out.dtype is dtype
        if HAVE_TORCH:
            ref = getattr(torch, name)(*sizes)
            assert tuple(out.shape) == tuple(ref.shape) and \
                str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert isinstance(getattr(tl, name)([1]), getattr(tl, name))
    assert getattr(tl, name).dtype is dtype
    if HAVE_TORCH:
        assert getattr(tl, name).dtype is \
            getattr(tl, str(getattr(torch, name).dtype).split(".")[-1])


def test_legacy_isinstance_and_errors():
    assert isinstance(tl.zeros(2), tl.FloatTensor)
    assert not isinstance(tl.zeros(2, dtype=tl.int64), tl.FloatTensor)
    assert isinstance(tl.zeros(2, dtype=tl.int64), tl.LongTensor)
    assert isinstance(tl.zeros(2), tl.Tensor)
    assert repr(tl.LongTensor) == "<class 'torchlike.LongTensor'>"
    same_error(lambda: tl.LongTensor(-1), lambda: torch.LongTensor(-1), match_text=True)
    same_error(lambda: tl.FloatTensor(2.5), lambda: torch.FloatTensor(2.5))
    same_error(lambda: tl.LongTensor(2, "a"), lambda: torch.LongTensor(2, "a"))
    same_error(lambda: tl.FloatTensor(tl.tensor([1, 2])),
               lambda: torch.FloatTensor(torch.tensor([1, 2])))
    out = tl.FloatTensor(tl.tensor([1.0, 2.0]))
    assert out.dtype is tl.float32 and out.tolist() == [1.0, 2.0]
    same(out, lambda: torch.FloatTensor(torch.tensor([1.0, 2.0])))


@pytest.mark.parametrize("args,shape", [(([1, 2, 3],), (3,)), ((2, 3), (2, 3)),
                                        (((2, 3),), (2,)), (([],), (0,)), ((), (0,)),
                                        (([[1.5, 2]],), (1, 2)), ((np.array([1, 2]),), (2,))])
def test_legacy_tensor_constructor(args, shape):
    out = tl.Tensor(*args)
    assert tuple(out.shape) == shape and out.dtype is tl.float32  # shapes as PyTorch's
    if len(args) == 1:  # data, not sizes
        np.testing.assert_array_equal(np.asarray(out), np.asarray(args[0], np.float32))
    if HAVE_TORCH:
        ref = torch.Tensor(*args)
        assert tuple(out.shape) == tuple(ref.shape) and out.dtype is tl.float32
        if not (len(args) == 2 or (len(args) == 1 and isinstance(args[0], tuple) and
                                   len(args[0]) == 0)):
            same(out, lambda: ref)


def test_legacy_tensor_constructor_keeps_tensor_dtype():
    out = tl.Tensor(tl.tensor([1, 2]))
    assert out.dtype is tl.int64 and out.tolist() == [1, 2]
    same(out, lambda: torch.Tensor(torch.tensor([1, 2])))
    assert tl.Tensor(tl.Size([2, 3])).shape == (2, 3)
    same(tl.Tensor(tl.Size([2, 3])).shape, lambda: torch.Tensor(torch.Size([2, 3])).shape)
    same_error(lambda: tl.Tensor(2.5), lambda: torch.Tensor(2.5))


def test_legacy_tensor_follows_default_dtype():
    try:
        tl.set_default_dtype(tl.float64)
        if HAVE_TORCH:
            torch.set_default_dtype(torch.float64)
        assert tl.Tensor([1, 2]).dtype is tl.float64
        assert tl.FloatTensor([1, 2]).dtype is tl.float32
        same(tl.Tensor([1, 2]), lambda: torch.Tensor([1, 2]))
        same(tl.FloatTensor([1, 2]), lambda: torch.FloatTensor([1, 2]))
    finally:
        if HAVE_TORCH:
            torch.set_default_dtype(torch.float32)
        tl.set_default_dtype(tl.float32)


# ---------------------------------------------------------------------------
# default dtype
@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_default_dtype_effects(default):
    try:
        tl.set_default_dtype(getattr(tl, default))
        if HAVE_TORCH:
            torch.set_default_dtype(getattr(torch, default))
        assert tl.get_default_dtype() is getattr(tl, default)
        for fn, args in (("zeros", (2,)), ("ones", (2,)), ("tensor", ([1.5, 2],)),
                         ("tensor", ([1, 2],)), ("full", ((2,), 1.5)),
                         ("arange", (0.0, 2.0)), ("arange", (3,)), ("linspace", (0, 1, 3)),
                         ("eye", (2,)), ("Tensor", ([1, 2],))):
            out = getattr(tl, fn)(*args)
            integral = (fn, args) in (("tensor", ([1, 2],)), ("arange", (3,)))
            assert out.dtype is (tl.int64 if integral else getattr(tl, default)), (fn, args)
            same(out, lambda: getattr(torch, fn)(*args), rtol=1e-2, atol=1e-2)
    finally:
        if HAVE_TORCH:
            torch.set_default_dtype(torch.float32)
        tl.set_default_dtype(tl.float32)


# ---------------------------------------------------------------------------
# casts and conversions
CASTS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"]


CAST_DTYPES = {"float": "float32", "double": "float64", "half": "float16",
               "bfloat16": "bfloat16", "long": "int64", "int": "int32", "short": "int16",
               "char": "int8", "byte": "uint8", "bool": "bool"}


@pytest.mark.parametrize("cast", CASTS)
def test_cast_methods(cast):
    a = np.array([1.7, -1.2, 0.0, 3.0], np.float32)
    out = getattr(tl.tensor(a), cast)()
    assert out.dtype is getattr(tl, CAST_DTYPES[cast]) and tuple(out.shape) == (4,)
    same(out, lambda: getattr(torch.tensor(a), cast)())


@pytest.mark.parametrize("dt", ["float64", "int32", "bool", "complex64", "bfloat16"])
def test_to_dtype(dt):
    a = np.array([1.5, -2.0, 0.0], np.float32)
    out, out_kw = tl.tensor(a).to(getattr(tl, dt)), tl.tensor(a).to(dtype=getattr(tl, dt))
    assert out.dtype is out_kw.dtype is getattr(tl, dt)
    want = {"int32": [1, -2, 0], "bool": [True, True, False]}.get(dt, a.tolist())
    assert out.tolist() == out_kw.tolist() == want
    same(out, lambda: torch.tensor(a).to(getattr(torch, dt)))
    same(out_kw, lambda: torch.tensor(a).to(dtype=getattr(torch, dt)))


def test_to_same_returns_self():
    t = tl.tensor([1.0])
    assert t.to(tl.float32) is t
    assert t.to("cpu") is t
    assert t.to(tl.device("cpu")) is t
    assert t.to("cpu", copy=True) is not t


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int64", "int32", "uint8",
                                "bool", "int8", "int16", "bfloat16"])
def test_type_strings_and_predicates(dt):
    out = tl.zeros(2, dtype=getattr(tl, dt))
    legacy = {v: k for k, v in LEGACY_DTYPES.items()}[dt]
    assert out.type().split(".")[-1] == legacy
    floating = dt.startswith(("float", "bfloat"))
    assert out.is_floating_point() is tl.is_floating_point(out) is floating
    assert tl.is_complex(out) is False
    if HAVE_TORCH:
        ref = torch.zeros(2, dtype=getattr(torch, dt))
        assert out.type().split(".")[-1] == ref.type().split(".")[-1]
        assert out.is_floating_point() == ref.is_floating_point()
        assert tl.is_floating_point(out) == torch.is_floating_point(ref)
        assert tl.is_complex(out) == torch.is_complex(ref)
    assert out.type(tl.LongTensor).dtype is tl.int64
    assert out.type(tl.float64).dtype is tl.float64


@pytest.mark.parametrize("data", [[1.5, 2.0], [[1, 2], [3, 4]], [True], 3.5, 7, [],
                                  [1 + 2j]])
def test_python_conversions(data):
    out = tl.tensor(data)
    assert out.tolist() == data
    np.testing.assert_array_equal(out.numpy(), np.asarray(data))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(data))
    if out.numel() == 1:
        first = np.asarray(data).ravel()[0].item()
        assert out.item() == first and type(out.item()) is type(first)
    if out.dim() > 0:
        assert len(out) == len(data)
        assert [x.tolist() for x in out] == list(data)
    if not HAVE_TORCH:
        return
    ref = torch.tensor(data)
    assert out.tolist() == ref.tolist()
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))
    assert out.numpy().dtype == ref.numpy().dtype
    if out.numel() == 1:
        assert out.item() == ref.item() and type(out.item()) is type(ref.item())
    if out.dim() > 0:
        assert len(out) == len(ref)
        assert [x.tolist() for x in out] == [x.tolist() for x in ref]


def test_bfloat16_numpy_and_item():
    t = tl.tensor([1.5], dtype=tl.bfloat16)
    assert t.item() == 1.5 and isinstance(t.item(), float)
    assert t.tolist() == [1.5]
    same_error(lambda: tl.tensor([1.5, 2.0]).item(), lambda: torch.tensor([1.5, 2.0]).item(),
               match_text=True)
    assert np.asarray(t).dtype == ml_dtypes.bfloat16


@pytest.mark.parametrize("data", [[0.0], [2], [True], [False], 0.0, [[3]]])
def test_bool_single_value(data):
    want = bool(np.asarray(data).item())
    assert bool(tl.tensor(data)) is tl.is_nonzero(tl.tensor(data)) is want
    if HAVE_TORCH:
        assert bool(tl.tensor(data)) == bool(torch.tensor(data))
        assert tl.is_nonzero(tl.tensor(data)) == torch.is_nonzero(torch.tensor(data))


@pytest.mark.parametrize("data", [[1, 2], []])
def test_bool_ambiguous(data):
    same_error(lambda: bool(tl.tensor(data)), lambda: bool(torch.tensor(data)),
               match_text=True)
    same_error(lambda: tl.is_nonzero(tl.tensor(data)), lambda: torch.is_nonzero(torch.tensor(data)),
               match_text=True)


def test_len_and_iteration_of_0d():
    same_error(lambda: len(tl.tensor(1.0)), lambda: len(torch.tensor(1.0)), match_text=True)
    same_error(lambda: iter(tl.tensor(1.0)), lambda: iter(torch.tensor(1.0)), match_text=True)
    assert tl.numel(tl.zeros(2, 3)) == 6
    if HAVE_TORCH:
        assert tl.numel(tl.zeros(2, 3)) == torch.numel(torch.zeros(2, 3)) == 6


def test_requires_grad_numpy_error():
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires "
                                           "grad"):
        tl.zeros(2, requires_grad=True).numpy()


# ---------------------------------------------------------------------------
# devices
def test_device_parsing_and_repr():
    d = tl.device("cuda:1")
    assert (d.type, d.index) == ("cuda", 1)
    assert repr(d) == "device(type='cuda', index=1)" and str(d) == "cuda:1"
    assert repr(tl.device("cpu")) == "device(type='cpu')"
    assert tl.device("cuda", 0) == tl.device("cuda:0")
    assert tl.zeros(1).device == tl.device("cpu")
    assert tl.zeros(1).device.type == "cpu"
    with pytest.raises(RuntimeError):
        tl.device("gpu:0")


def test_cuda_without_accelerator_raises():
    if tl.cuda.is_available():
        pytest.skip("an accelerator is present")
    with pytest.raises(RuntimeError, match="cuda"):
        tl.zeros(2).cuda()
    with pytest.raises(RuntimeError):
        tl.zeros(2, device="cuda")
