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

from ._parity import assert_same, requires_torch, torch

NP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
             "float64", "complex64", "complex128"]


def same(out, ref, **kw):
    assert_same(out, ref, **kw)


def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return e


def same_error(fn_tl, fn_torch, match_text: bool = False):
    ref, out = outcome(fn_torch), outcome(fn_tl)
    assert isinstance(ref, Exception), f"torch did not raise: {ref!r}"
    assert isinstance(out, Exception), f"torchlike did not raise: {out!r}"
    assert type(out).__name__ == type(ref).__name__, f"{out!r} vs torch {ref!r}"
    if match_text:
        assert str(out).replace("torchlike", "torch") == str(ref)


# ---------------------------------------------------------------------------
# tensor(): dtype inference and copying
DATA = [1, 2.5, True, 1 + 2j, [1, 2, 3], [1.0, 2], [True, False], [True, 2], [1, 2.5j],
        [[1, 2], [3, 4]], [[1.5], [2]], [], [[]], [[], []], (1, 2), [(1, 2), (3, 4)],
        [np.float32(1.5), 2], [np.int32(3)], 0, -7]


@requires_torch
@pytest.mark.parametrize("data", DATA, ids=[repr(d) for d in DATA])
def test_tensor_inference(data):
    same(tl.tensor(data), torch.tensor(data))


@requires_torch
@pytest.mark.parametrize("dt", NP_DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 0), (2, 3)])
def test_tensor_from_numpy_arrays(dt, shape):
    a = (np.arange(int(np.prod(shape))) % 3).reshape(shape).astype(dt)
    same(tl.tensor(a), torch.tensor(a))
    same(tl.as_tensor(a), torch.as_tensor(a))
    same(tl.from_numpy(a), torch.from_numpy(a))


@requires_torch
@pytest.mark.parametrize("dtype", ["float16", "int32", "bool", "complex64", "float64"])
def test_tensor_explicit_dtype(dtype):
    for data in ([1, 2], [1.7, -1.7], [[True, False]]):
        same(tl.tensor(data, dtype=getattr(tl, dtype)),
             torch.tensor(data, dtype=getattr(torch, dtype)))


@requires_torch
def test_tensor_ragged_lists_error():
    ref = outcome(lambda: torch.tensor([[1, 2], [3]]))
    out = outcome(lambda: tl.tensor([[1, 2], [3]]))
    assert type(out) is type(ref) and str(out) == str(ref)


@requires_torch
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


@requires_torch
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


@requires_torch
def test_from_numpy_unsupported_dtype():
    a = np.array(["x"])
    same_error(lambda: tl.from_numpy(a), lambda: torch.from_numpy(a))


# ---------------------------------------------------------------------------
# zeros/ones/full/empty and *_like
@requires_torch
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([4],), (0,)])
def test_fill_factories(name, args):
    out = getattr(tl, name)(*args)
    ref = getattr(torch, name)(*args)
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype is tl.float32
    if name != "empty":
        same(out, ref)
    out = getattr(tl, name)(*args, dtype=tl.int16, requires_grad=False)
    assert out.dtype is tl.int16


@requires_torch
def test_factory_requires_grad_and_device():
    t = tl.zeros(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.device == tl.device("cpu")
    same_error(lambda: tl.zeros(2, dtype=tl.int64, requires_grad=True),
               lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True))
    same_error(lambda: tl.zeros(-1), lambda: torch.zeros(-1), match_text=True)


@requires_torch
@pytest.mark.parametrize("fill", [1, 2.5, True, 1 + 1j, -3])
def test_full_infers_dtype(fill):
    same(tl.full((2, 2), fill), torch.full((2, 2), fill))
    ref = outcome(lambda: torch.full((2,), fill, dtype=torch.float64))
    out = outcome(lambda: tl.full((2,), fill, dtype=tl.float64))
    if isinstance(ref, Exception):
        assert type(out) is type(ref) and str(out) == str(ref)
    else:
        same(out, ref)


@requires_torch
@pytest.mark.parametrize("like", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_factories(like):
    a = np.arange(6).reshape(2, 3).astype(np.int32)
    extra = (7,) if like == "full_like" else ()
    out = getattr(tl, like)(tl.tensor(a), *extra)
    ref = getattr(torch, like)(torch.tensor(a), *extra)
    assert out.dtype is tl.int32 and tuple(out.shape) == tuple(ref.shape)
    if like != "empty_like":
        same(out, ref)
    out = getattr(tl, like)(tl.tensor(a), *extra, dtype=tl.float64, requires_grad=True)
    assert out.dtype is tl.float64 and out.requires_grad


@requires_torch
def test_full_like_float_fill_into_int():
    same(tl.full_like(tl.tensor([1, 2]), 2.7), torch.full_like(torch.tensor([1, 2]), 2.7))


# ---------------------------------------------------------------------------
# ranges
ARANGE = [(5,), (1, 4), (0, 1, 0.1), (1.0, 4), (10, 0, -3), (0, -1, -0.25), (2.5,),
          (0, 10, 3), (-5, 5, 2), (0, 0), (1, 2, 0.3), (0.0, 1.0, 1 / 3)]


@requires_torch
@pytest.mark.parametrize("args", ARANGE, ids=[repr(a) for a in ARANGE])
def test_arange(args):
    same(tl.arange(*args), torch.arange(*args))
    same(tl.arange(*args, dtype=tl.float64), torch.arange(*args, dtype=torch.float64))


@requires_torch
def test_arange_errors():
    same_error(lambda: tl.arange(0, 5, 0), lambda: torch.arange(0, 5, 0))
    same_error(lambda: tl.arange(5, 0, 1), lambda: torch.arange(5, 0, 1))


@requires_torch
@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (1.0, 3.0, 0.5), (5, 1, -1)])
def test_range_is_inclusive_and_deprecated(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = torch.range(*args)
    with pytest.warns(UserWarning, match="deprecated"):
        out = tl.range(*args)
    same(out, ref)


@requires_torch
@pytest.mark.parametrize("args", [(0, 1, 5), (-3, 7, 11), (1, 0, 4), (0, 1, 1), (0, 1, 0),
                                  (2.5, 2.5, 3), (0, 10, 100), (-1.0, 1.0, 1000)])
def test_linspace(args):
    same(tl.linspace(*args), torch.linspace(*args), rtol=1e-6, atol=1e-6)
    same(tl.linspace(*args, dtype=tl.float64), torch.linspace(*args, dtype=torch.float64),
         rtol=1e-6, atol=1e-6)


@requires_torch
def test_linspace_integer_dtype():
    same(tl.linspace(0, 10, 7, dtype=tl.int64), torch.linspace(0, 10, 7, dtype=torch.int64))


@requires_torch
@pytest.mark.parametrize("args,kw", [((0, 2, 5), {}), ((-2, 2, 9), {}), ((0, 3, 4), {"base": 2}),
                                     ((1, 0, 3), {"base": 0.5})])
def test_logspace(args, kw):
    same(tl.logspace(*args, **kw), torch.logspace(*args, **kw), rtol=1e-6, atol=1e-6)


@requires_torch
@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (1, 1)])
def test_eye(args):
    same(tl.eye(*args), torch.eye(*args))
    same(tl.eye(*args, dtype=tl.int64), torch.eye(*args, dtype=torch.int64))


@requires_torch
def test_eye_negative():
    same_error(lambda: tl.eye(-1), lambda: torch.eye(-1))


# ---------------------------------------------------------------------------
# legacy constructors
LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
          "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


@requires_torch
@pytest.mark.parametrize("name", LEGACY)
def test_legacy_type_constructors(name):
    # (PyTorch refuses negative floats for uint8: "value cannot be converted")
    for data in ([5], [[1, 1]], [1.7, 2.2, 0.0], (2, 3), []):
        same(getattr(tl, name)(data), getattr(torch, name)(data))
    for sizes in ((2, 3), (4,), (0,)):
        out, ref = getattr(tl, name)(*sizes), getattr(torch, name)(*sizes)
        assert tuple(out.shape) == tuple(ref.shape) and \
            str(out.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert isinstance(getattr(tl, name)([1]), getattr(tl, name))
    assert getattr(tl, name).dtype is getattr(tl, str(getattr(torch, name).dtype).split(".")[-1])


@requires_torch
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
    same(tl.FloatTensor(tl.tensor([1.0, 2.0])), torch.FloatTensor(torch.tensor([1.0, 2.0])))


@requires_torch
@pytest.mark.parametrize("args", [([1, 2, 3],), (2, 3), ((2, 3),), ([],), (), ([[1.5, 2]],),
                                  (np.array([1, 2]),)])
def test_legacy_tensor_constructor(args):
    out, ref = tl.Tensor(*args), torch.Tensor(*args)
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype is tl.float32
    if not (len(args) == 2 or (len(args) == 1 and isinstance(args[0], tuple) and
                               len(args[0]) == 0)):
        same(out, ref)


@requires_torch
def test_legacy_tensor_constructor_keeps_tensor_dtype():
    same(tl.Tensor(tl.tensor([1, 2])), torch.Tensor(torch.tensor([1, 2])))
    same(tl.Tensor(tl.Size([2, 3])).shape, torch.Tensor(torch.Size([2, 3])).shape)
    same_error(lambda: tl.Tensor(2.5), lambda: torch.Tensor(2.5))


@requires_torch
def test_legacy_tensor_follows_default_dtype():
    try:
        tl.set_default_dtype(tl.float64)
        torch.set_default_dtype(torch.float64)
        same(tl.Tensor([1, 2]), torch.Tensor([1, 2]))
        same(tl.FloatTensor([1, 2]), torch.FloatTensor([1, 2]))
    finally:
        torch.set_default_dtype(torch.float32)
        tl.set_default_dtype(tl.float32)


# ---------------------------------------------------------------------------
# default dtype
@requires_torch
@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_default_dtype_effects(default):
    try:
        tl.set_default_dtype(getattr(tl, default))
        torch.set_default_dtype(getattr(torch, default))
        assert tl.get_default_dtype() is getattr(tl, default)
        for fn, args in (("zeros", (2,)), ("ones", (2,)), ("tensor", ([1.5, 2],)),
                         ("tensor", ([1, 2],)), ("full", ((2,), 1.5)),
                         ("arange", (0.0, 2.0)), ("arange", (3,)), ("linspace", (0, 1, 3)),
                         ("eye", (2,)), ("Tensor", ([1, 2],))):
            same(getattr(tl, fn)(*args), getattr(torch, fn)(*args), rtol=1e-2, atol=1e-2)
    finally:
        torch.set_default_dtype(torch.float32)
        tl.set_default_dtype(tl.float32)


# ---------------------------------------------------------------------------
# casts and conversions
CASTS = ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"]


@requires_torch
@pytest.mark.parametrize("cast", CASTS)
def test_cast_methods(cast):
    a = np.array([1.7, -1.2, 0.0, 3.0], np.float32)
    same(getattr(tl.tensor(a), cast)(), getattr(torch.tensor(a), cast)())


@requires_torch
@pytest.mark.parametrize("dt", ["float64", "int32", "bool", "complex64", "bfloat16"])
def test_to_dtype(dt):
    a = np.array([1.5, -2.0, 0.0], np.float32)
    same(tl.tensor(a).to(getattr(tl, dt)), torch.tensor(a).to(getattr(torch, dt)))
    same(tl.tensor(a).to(dtype=getattr(tl, dt)), torch.tensor(a).to(dtype=getattr(torch, dt)))


def test_to_same_returns_self():
    t = tl.tensor([1.0])
    assert t.to(tl.float32) is t
    assert t.to("cpu") is t
    assert t.to(tl.device("cpu")) is t
    assert t.to("cpu", copy=True) is not t


@requires_torch
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int64", "int32", "uint8",
                                "bool", "int8", "int16", "bfloat16"])
def test_type_strings_and_predicates(dt):
    out = tl.zeros(2, dtype=getattr(tl, dt))
    ref = torch.zeros(2, dtype=getattr(torch, dt))
    assert out.type().split(".")[-1] == ref.type().split(".")[-1]
    assert out.is_floating_point() == ref.is_floating_point()
    assert tl.is_floating_point(out) == torch.is_floating_point(ref)
    assert tl.is_complex(out) == torch.is_complex(ref)
    assert out.type(tl.LongTensor).dtype is tl.int64
    assert out.type(tl.float64).dtype is tl.float64


@requires_torch
@pytest.mark.parametrize("data", [[1.5, 2.0], [[1, 2], [3, 4]], [True], 3.5, 7, [],
                                  [1 + 2j]])
def test_python_conversions(data):
    out, ref = tl.tensor(data), torch.tensor(data)
    assert out.tolist() == ref.tolist()
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))
    assert out.numpy().dtype == ref.numpy().dtype
    if out.numel() == 1:
        assert out.item() == ref.item() and type(out.item()) is type(ref.item())
    if out.dim() > 0:
        assert len(out) == len(ref)
        assert [x.tolist() for x in out] == [x.tolist() for x in ref]


@requires_torch
def test_bfloat16_numpy_and_item():
    t = tl.tensor([1.5], dtype=tl.bfloat16)
    assert t.item() == 1.5 and isinstance(t.item(), float)
    assert t.tolist() == [1.5]
    same_error(lambda: tl.tensor([1.5, 2.0]).item(), lambda: torch.tensor([1.5, 2.0]).item(),
               match_text=True)
    assert np.asarray(t).dtype == ml_dtypes.bfloat16


@requires_torch
@pytest.mark.parametrize("data", [[0.0], [2], [True], [False], 0.0, [[3]]])
def test_bool_single_value(data):
    assert bool(tl.tensor(data)) == bool(torch.tensor(data))
    assert tl.is_nonzero(tl.tensor(data)) == torch.is_nonzero(torch.tensor(data))


@requires_torch
@pytest.mark.parametrize("data", [[1, 2], []])
def test_bool_ambiguous(data):
    same_error(lambda: bool(tl.tensor(data)), lambda: bool(torch.tensor(data)),
               match_text=True)
    same_error(lambda: tl.is_nonzero(tl.tensor(data)), lambda: torch.is_nonzero(torch.tensor(data)),
               match_text=True)


@requires_torch
def test_len_and_iteration_of_0d():
    same_error(lambda: len(tl.tensor(1.0)), lambda: len(torch.tensor(1.0)), match_text=True)
    same_error(lambda: iter(tl.tensor(1.0)), lambda: iter(torch.tensor(1.0)), match_text=True)
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
