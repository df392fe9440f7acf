"""Printing parity: ``repr`` of torchlike tensors is PyTorch's, with ``torchlike.`` for
``torch.``. Each case builds the same tensor in both libraries from a NumPy array; without
PyTorch only the torchlike side runs (it must still return a string)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torchlike as tl
import torchlike._tensor_str as tl_tensor_str
from tests._parity import HAVE_TORCH, torch, torch_tensor

ALL_DTYPES = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16",
              "int32", "int64", "bool", "complex64", "complex128"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
NP_DTYPES = {"bfloat16": ml_dtypes.bfloat16}


def np_dtype(name):
    return NP_DTYPES.get(name, np.dtype(name))


@pytest.fixture(autouse=True)
def _default_print_options():
    yield
    tl.set_printoptions(profile="default")
    if HAVE_TORCH:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


def both_set_printoptions(**kw):
    tl.set_printoptions(**kw)
    if HAVE_TORCH:
        torch.set_printoptions(**kw)


def both_set_default_dtype(name):
    tl.set_default_dtype(getattr(tl, name))
    if HAVE_TORCH:
        torch.set_default_dtype(getattr(torch, name))


def expected_repr(t) -> str:
    return repr(t).replace("torch.", "torchlike.")


def check(a: np.ndarray, requires_grad: bool = False) -> str:
    """repr of ``a`` as a torchlike tensor; equal to PyTorch's when torch is installed."""
    t = tl.tensor(a)
    if requires_grad:
        t.requires_grad_(True)
    got = repr(t)
    assert isinstance(got, str)
    assert str(t) == got
    if HAVE_TORCH:
        assert got == expected_repr(torch_tensor(a, requires_grad))
    return got


def cast(values, dtype: str) -> np.ndarray:
    a = np.asarray(values)
    if dtype == "bfloat16":
        return a.astype(np.float32).astype(ml_dtypes.bfloat16)
    return a.astype(np_dtype(dtype))


# ---------------------------------------------------------------- values, dtypes, shapes
RNG = np.random.default_rng(0)

FLOAT_VALUES = {
    "ints": [1.0, 2.0, -3.0, 10.0],
    "fractions": [0.5, -1.25, 3.14159, 2.71828],
    "huge": [1e10, -3.5e12, 12345678.0],
    "above_1e8": [1.0, 2.0e8],
    "tiny": [1e-5, -2.5e-7, 3e-6],
    "mixed_magnitudes": [1e-3, 1.0, 1e3, -20.0],
    "ratio_just_1000": [1.0, 1000.0],
    "ratio_over_1000": [1.0, 1001.0],
    "nan_inf": [1.0, math.nan, math.inf, -math.inf, 2.5],
    "nan_inf_ints": [1.0, math.nan, math.inf, -math.inf],
    "only_nonfinite": [math.nan, math.inf, -math.inf],
    "negative_zero": [-0.0, 0.0, 1.0],
    "negative_zero_only": [-0.0, -0.0],
    "negative_zero_frac": [-0.0, 1.5],
    "zeros": [0.0, 0.0, 0.0],
    "rounding_up": [9.99996, 0.99999, -9.99996],
    "int_and_big": [1.0, 1e6, 123456.0],
    "normal": RNG.standard_normal(7).tolist(),
    "exp_three_digits": [1e-120, 1e120, 1.0],
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ["complex64", "complex128"])
@pytest.mark.parametrize("kind", sorted(FLOAT_VALUES))
def test_float_value_ranges(dtype, kind):
    values = np.asarray(FLOAT_VALUES[kind], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype.startswith("complex"):
            a = (values + 1j * values[::-1]).astype(dtype)
        else:
            a = cast(values, dtype)
    check(a)
    check(a[:1].reshape(()))


INT_VALUES = {
    "small": [1, 2, 3],
    "signed": [-5, 0, 7, 100],
    "wide": [-128, 127, 0],
    "single_digit": [0, 0, 0],
}


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("kind", sorted(INT_VALUES))
def test_int_values(dtype, kind):
    a = np.asarray(INT_VALUES[kind])
    if dtype == "uint8":
        a = np.abs(a)
    check(a.astype(dtype))
    check(a[:1].reshape(()).astype(dtype))


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
def test_int_extremes(dtype):
    info = np.iinfo(dtype)
    check(np.array([info.min, 0, info.max], dtype=dtype))


def test_bool():
    check(np.array([True, False, True]))
    check(np.array([True, True]))
    check(np.array([[True], [False]]))
    check(np.array(False))


SHAPES = [(), (1,), (5,), (2, 3), (2, 3, 4), (1, 1, 1), (3, 1, 2, 2)]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_dtypes_and_shapes(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        a = (np.arange(n) % 3 == 0).reshape(shape)
    elif dtype.startswith("complex"):
        a = (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).reshape(shape).astype(dtype)
    elif dtype in FLOAT_DTYPES:
        a = cast(RNG.standard_normal(n).reshape(shape) * 3, dtype)
    else:
        a = (np.arange(n) * 7 % 100).reshape(shape).astype(dtype)
    check(a)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 3), (3, 0)], ids=str)
def test_empty(dtype, shape):
    check(np.zeros(shape, dtype=np_dtype(dtype)))


def test_empty_literals():
    assert repr(tl.tensor([])) == "tensor([])"
    assert repr(tl.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(tl.zeros(0, dtype=tl.int64)) == "tensor([], dtype=torchlike.int64)"


# ---------------------------------------------------------------- summarisation, wrapping
@pytest.mark.parametrize("shape", [(1000,), (1001,), (2000,), (40, 50), (11, 11, 11),
                                   (3, 400), (400, 3), (2, 2, 300), (7, 200)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16", "complex64", "bool"])
def test_summarised(shape, dtype):
    n = int(np.prod(shape))
    if dtype == "bool":
        a = (np.arange(n) % 2 == 0).reshape(shape)
    elif dtype == "complex64":
        a = (np.arange(n) + 0.5j * np.arange(n)[::-1]).reshape(shape).astype(dtype)
    else:
        a = (np.arange(n) % 997).reshape(shape).astype(dtype)
    check(a)


@pytest.mark.parametrize("edgeitems", [0, 1, 2, 5])
@pytest.mark.parametrize("threshold", [0, 5, 30, 1000])
@pytest.mark.parametrize("shape", [(), (4,), (20,), (6, 7), (3, 9, 9)], ids=str)
def test_threshold_and_edgeitems(edgeitems, threshold, shape):
    both_set_printoptions(edgeitems=edgeitems, threshold=threshold)
    a = RNG.standard_normal(shape).astype(np.float32)
    check(a)
    check(np.arange(int(np.prod(shape))).reshape(shape))


def test_summarised_values_decide_format():
    # the big outlier is in the hidden middle: not seen by the formatter
    a = np.ones(2000, dtype=np.float32)
    a[1000] = 1e9
    check(a)
    a[0] = 1e9
    check(a)


@pytest.mark.parametrize("linewidth", [1, 20, 40, 79, 80, 81, 120])
@pytest.mark.parametrize("case", ["long_float", "long_int", "matrix", "complex", "suffix"])
def test_linewidth(linewidth, case):
    both_set_printoptions(linewidth=linewidth)
    if case == "long_float":
        a = RNG.standard_normal(40).astype(np.float32)
    elif case == "long_int":
        a = np.arange(60)
    elif case == "matrix":
        a = RNG.standard_normal((3, 25)) * 100
    elif case == "complex":
        a = (RNG.standard_normal(20) + 1j * RNG.standard_normal(20)).astype(np.complex64)
    else:
        a = np.arange(15, dtype=np.int32)
    check(a)


@pytest.mark.parametrize("n", range(10, 22))
def test_suffix_wraps_at_line_end(n):
    check(np.arange(n, dtype=np.int16))
    check(np.linspace(0.5, 1.5, n), requires_grad=True)


# ---------------------------------------------------------------- print options
@pytest.mark.parametrize("precision", [0, 1, 2, 6, 10])
def test_precision(precision):
    both_set_printoptions(precision=precision)
    check(np.array([1.123456789, -2.5, 1234.5678]))
    check(np.array([1e-6, 1.0]))
    check(np.array([1.0, 2.0]))
    check(np.array(3.14159))


@pytest.mark.parametrize("sci_mode", [True, False])
def test_sci_mode_forced(sci_mode):
    both_set_printoptions(sci_mode=sci_mode)
    check(np.array([1.0, 2.0, 3.0]))
    check(np.array([0.5, 1e-7, 1e9]))
    check(np.array([1e10, 2e10]))
    check(np.array([[math.nan, 1.5], [math.inf, 0.0]]))


@pytest.mark.parametrize("profile", ["default", "short", "full"])
def test_profiles(profile):
    both_set_printoptions(profile=profile)
    check(np.array([1.123456, 2.0]))
    check(np.arange(1200))
    check(RNG.standard_normal((5, 6)))


def test_profile_then_override():
    both_set_printoptions(profile="short", precision=5)
    check(np.array([1.123456, 2.0]))
    check(np.arange(12))


def test_get_printoptions_and_context_manager():
    assert tl_tensor_str.get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
    with tl_tensor_str.printoptions(precision=1):
        assert tl_tensor_str.get_printoptions()["precision"] == 1
        got = repr(tl.tensor([1.25, 2.5]))
    assert tl_tensor_str.get_printoptions()["precision"] == 4
    assert got == "tensor([1.2, 2.5])"
    if HAVE_TORCH:
        assert tl_tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
        with torch._tensor_str.printoptions(precision=1):
            assert got == repr(torch.tensor([1.25, 2.5]))


def test_set_printoptions_resets_sci_mode():
    tl.set_printoptions(sci_mode=True)
    tl.set_printoptions(precision=4)
    assert tl_tensor_str.get_printoptions()["sci_mode"] is None


def test_set_printoptions_is_exported():
    assert tl.set_printoptions is tl_tensor_str.set_printoptions


# ---------------------------------------------------------------- default dtype
@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64",
                                   "complex128", "int64", "bool"])
def test_dtype_suffix_follows_default_dtype(default, dtype):
    both_set_default_dtype(default)
    check(np.array([1.5, 2.0]).astype(dtype))
    check(np.zeros((0,), dtype=dtype))


# ---------------------------------------------------------------- autograd suffixes
def test_requires_grad_and_grad_fn():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = tl.tensor(a, requires_grad=True)
    y = x * 2
    assert repr(x) == "tensor([1., 2., 3.], requires_grad=True)"
    assert repr(y) == "tensor([2., 4., 6.], grad_fn=<MulBackward0>)"
    assert repr(y.detach()) == "tensor([2., 4., 6.])"
    if HAVE_TORCH:
        tx = torch.tensor(a, requires_grad=True)
        assert repr(x) == expected_repr(tx)
        assert repr(y) == expected_repr(tx * 2)


def test_grad_fn_with_dtype_and_wrapping():
    x = tl.tensor(np.linspace(-1, 1, 13), requires_grad=True)
    y = x * 3
    got = repr(y)
    assert got.endswith(", dtype=torchlike.float64,\n       grad_fn=<MulBackward0>)")
    if HAVE_TORCH:
        tx = torch.tensor(np.linspace(-1, 1, 13), requires_grad=True)
        assert got == expected_repr(tx * 3)


def test_printing_records_no_graph():
    x = tl.tensor(np.arange(2000.0), requires_grad=True)
    y = x * 2
    before = y.grad_fn
    repr(y)
    assert y.grad_fn is before and x.grad is None


# ---------------------------------------------------------------- randomised parity
finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.floats(min_value=-1e4, max_value=1e4, width=32),
    st.integers(-1000, 1000).map(float),
    st.sampled_from([0.0, -0.0, 1e-5, 9.99995, 99999.5, 1e8, 1.00001e8]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(finite_or_not, min_size=1, max_size=40),
       st.sampled_from(["float16", "bfloat16", "float32", "float64", "complex64"]),
       st.sampled_from([0, 2, 4, 7]))
def test_random_floats(values, dtype, precision):
    both_set_printoptions(precision=precision)
    try:
        v = np.asarray(values, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            if dtype == "complex64":
                a = (v + 1j * v[::-1]).astype(np.complex64)
            else:
                a = cast(v, dtype)
        check(a)
        if a.size % 2 == 0:
            check(a.reshape(2, -1))
    finally:
        both_set_printoptions(profile="default")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-2**40, 2**40), min_size=1, max_size=50))
def test_random_ints(values):
    check(np.asarray(values, dtype=np.int64))


# ---------------------------------------------------------------- subclasses, devices, jit
class Parameter(tl.Tensor):
    """Stands for nn.Parameter: printing keys on the class name."""


class MyTensor(tl.Tensor):
    pass


def test_parameter_prefix():
    p = Parameter._wrap(jnp.ones(2, dtype=jnp.float32), requires_grad=True)
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    if HAVE_TORCH:
        assert repr(p) == expected_repr(torch.nn.Parameter(torch.ones(2)))


def test_subclass_prefix():
    t = MyTensor._wrap(jnp.array([1.0, 2.5], dtype=jnp.float32))
    assert repr(t) == "MyTensor([1.0000, 2.5000])"


def test_tensor_contents():
    t = tl.tensor([1, 2], dtype=tl.int32)
    assert tl._core.printing.tensor_repr(t, tensor_contents="[...]") == \
        "tensor([...], dtype=torchlike.int32)"


@pytest.fixture
def on_accelerator(monkeypatch):
    """Pretend tensors live on 'cuda:0' (the machine may have no accelerator)."""
    monkeypatch.setattr(tl.Tensor, "device", property(lambda self: tl.device("cuda", 0)))


def test_device_suffix(on_accelerator):
    assert repr(tl.tensor([1.0, 2.0])) == "tensor([1., 2.], device='cuda:0')"
    assert repr(tl.tensor([1, 2], dtype=tl.int32)) == \
        "tensor([1, 2], device='cuda:0', dtype=torchlike.int32)"
    x = tl.tensor([1.0], requires_grad=True)
    assert repr(x) == "tensor([1.], device='cuda:0', requires_grad=True)"


def test_summarised_on_accelerator(on_accelerator):
    a = np.arange(3000, dtype=np.float32).reshape(30, 100)
    got = repr(tl.tensor(a))
    assert got.endswith("device='cuda:0')")
    if HAVE_TORCH:
        want = expected_repr(torch.tensor(a))[:-1] + ", device='cuda:0')"
        assert got == want


def test_tracer_prints():
    seen = []

    def f(x):
        t = tl.Tensor._wrap(x)
        seen.append((repr(t), str(x)))
        return x

    jax.jit(f)(jnp.ones((3, 4), dtype=jnp.float32))
    jax.jit(f)(jnp.ones((2,), dtype=jnp.int32))
    (r1, s1), (r2, s2) = seen
    assert r1 == f"tensor({s1})"
    assert r2 == f"tensor({s2}, dtype=torchlike.int32)"
    assert "float32[3,4]" in s1


# ---------------------------------------------------------------- other reprs
def test_dtype_size_device_reprs():
    assert repr(tl.float32) == "torchlike.float32"
    assert str(tl.int64) == "torchlike.int64"
    assert repr(tl.Size([2, 3])) == "torchlike.Size([2, 3])"
    assert repr(tl.Size([])) == "torchlike.Size([])"
    assert repr(tl.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert repr(tl.device("cpu")) == "device(type='cpu')"
    assert str(tl.device("cuda:0")) == "cuda:0"
    if HAVE_TORCH:
        for name in ALL_DTYPES:
            assert repr(getattr(tl, name)) == expected_repr(getattr(torch, name))
        assert repr(tl.Size([2, 3])) == expected_repr(torch.Size([2, 3]))
        assert repr(tl.device("cuda", 1)) == repr(torch.device("cuda", 1))
        assert repr(tl.device("cuda")) == repr(torch.device("cuda"))


def test_format_spec_on_scalar():
    t = tl.tensor(3.14159)
    assert f"{t:.3f}" == "3.142"
    assert f"{tl.tensor(7):>4}" == "   7"
    assert f"{tl.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
    with pytest.raises(TypeError):
        format(tl.tensor([1.0, 2.0]), ".3f")


def test_format_empty_spec_on_scalar():
    assert f"{tl.tensor(1.5)}" == "1.5"


# ---------------------------------------------------------------- the seed notes' prints
# Printed results from the user's notes, with the tensors that produced them.
SEED_PRINTS = [
    ([[-0.4620, 0.3139], [0.3898, -0.7197], [0.0478, -0.1657]],
     "tensor([[-0.4620,  0.3139],\n        [ 0.3898, -0.7197],\n        [ 0.0478, -0.1657]])"),
    ([[-2.0, -2.0], [0.0, 4.0]], "tensor([[-2., -2.],\n        [ 0.,  4.]])"),
    ([[-4.0, -4.0], [0.0, 8.0]], "tensor([[-4., -4.],\n        [ 0.,  8.]])"),
    (4.0, "tensor(4.)"),
    (-4.0, "tensor(-4.)"),
    (1.0, "tensor(1.)"),
    (-2.0, "tensor(-2.)"),
    (2.0, "tensor(2.)"),
    ([[0, 1], [2, 3]], "tensor([[0, 1],\n        [2, 3]])"),
    ([[4, 5], [6, 7]], "tensor([[4, 5],\n        [6, 7]])"),
    ([[8, 9]], "tensor([[8, 9]])"),
    ([[0, 1]], "tensor([[0, 1]])"),
    ([[2, 3], [4, 5], [6, 7], [8, 9]],
     "tensor([[2, 3],\n        [4, 5],\n        [6, 7],\n        [8, 9]])"),
    ([1, 1, 2, 2, 3, 3], "tensor([1, 1, 2, 2, 3, 3])"),
    ([1, 1, 2, 2, 3, 3, 4, 4], "tensor([1, 1, 2, 2, 3, 3, 4, 4])"),
    ([[1, 2], [3, 4], [3, 4]], "tensor([[1, 2],\n        [3, 4],\n        [3, 4]])"),
    ([1], "tensor([1])"),
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
     "tensor([[1., 2., 3.],\n        [4., 5., 6.],\n        [7., 8., 9.]])"),
    ([[2.0, 2.0, 2.0, 2.0, 2.0], [6.0, 4.0, 5.0, 6.0, 4.0], [8.0, 9.0, 7.0, 7.0, 9.0]],
     "tensor([[2., 2., 2., 2., 2.],\n        [6., 4., 5., 6., 4.],\n"
     "        [8., 9., 7., 7., 9.]])"),
    ([[0.0, 0.0, 0.0]] * 3,
     "tensor([[0., 0., 0.],\n        [0., 0., 0.],\n        [0., 0., 0.]])"),
    ([[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0]],
     "tensor([[ 1.,  2.,  3.,  4.,  5.],\n        [ 6.,  7.,  8.,  9., 10.],\n"
     "        [11., 12., 13., 14., 15.]])"),
    ([[0.0, 4.0, 0.0], [7.0, 8.0, 9.0], [12.0, 13.0, 14.0]],
     "tensor([[ 0.,  4.,  0.],\n        [ 7.,  8.,  9.],\n        [12., 13., 14.]])"),
]


@pytest.mark.parametrize("data,want", SEED_PRINTS, ids=lambda x: None)
def test_seed_prints(data, want):
    assert repr(tl.tensor(data)) == want
    if HAVE_TORCH:
        assert expected_repr(torch.tensor(data)) == want


# The notes also quote three prints from PyTorch 0.4's documentation, whose formatter
# padded integer-valued floats to the precision and kept a sign column. PyTorch 2.x (the
# version torchlike matches) prints them more compactly; both forms are recorded.
LEGACY_SEED_PRINTS = [
    ([[1.0, 0.3139], [0.3898, 1.0], [0.0478, 1.0]],
     "tensor([[ 1.0000,  0.3139],\n        [ 0.3898,  1.0000],\n        [ 0.0478,  1.0000]])",
     "tensor([[1.0000, 0.3139],\n        [0.3898, 1.0000],\n        [0.0478, 1.0000]])"),
    ([[1.0, -1.0], [1.0, -1.0]],
     "tensor([[ 1.0000, -1.0000],\n        [ 1.0000, -1.0000]])",
     "tensor([[ 1., -1.],\n        [ 1., -1.]])"),
    (np.array([[1, 2, 3], [4, 5, 6]]),
     "tensor([[ 1,  2,  3],\n        [ 4,  5,  6]])",
     "tensor([[1, 2, 3],\n        [4, 5, 6]])"),
]


@pytest.mark.parametrize("data,legacy,want", LEGACY_SEED_PRINTS, ids=lambda x: None)
def test_legacy_seed_prints(data, legacy, want):
    got = repr(tl.tensor(data))
    assert got == want
    assert got.replace(" ", "").replace(".0000", ".") == legacy.replace(" ", "").replace(
        ".0000", ".")
    if HAVE_TORCH:
        assert expected_repr(torch.tensor(data)) == want
