"""dtype objects and PyTorch's type-promotion rules.

Mirrors ``torch.dtype``: singletons such as ``torchlike.float32`` that print as
``torchlike.float32``, carry ``is_floating_point``/``is_complex``/``is_signed``/
``itemsize`` and map one to one onto a NumPy/JAX dtype.
"""

from __future__ import annotations

import numpy as np
import jax.numpy as jnp
import ml_dtypes

__all__ = [
    "dtype", "float16", "float32", "float64", "bfloat16", "uint8", "int8", "int16",
    "int32", "int64", "bool", "complex64", "complex128", "get_default_dtype",
    "set_default_dtype", "promote_types", "result_type", "can_cast",
]


class dtype:
    """A tensor element type, mirroring ``torch.dtype``."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_complex",
                 "is_signed", "_category", "_aliases")

    def __init__(self, name: str, np_dtype, category: int, aliases=()):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = name not in ("uint8", "bool")
        # 0 bool, 1 integer, 2 floating, 3 complex: PyTorch's promotion categories.
        self._category = category
        self._aliases = aliases

    def __repr__(self) -> str:
        return f"torchlike.{self.name}"

    __str__ = __repr__

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> "dtype":
        return {float16: complex64, bfloat16: complex64, float32: complex64,
                float64: complex128}.get(self, self)


float16 = dtype("float16", np.float16, 2, ("half",))
float32 = dtype("float32", np.float32, 2, ("float",))
float64 = dtype("float64", np.float64, 2, ("double",))
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1, ("short",))
int32 = dtype("int32", np.int32, 1, ("int",))
int64 = dtype("int64", np.int64, 1, ("long",))
bool = dtype("bool", np.bool_, 0)  # noqa: A001 - the public name PyTorch uses
complex64 = dtype("complex64", np.complex64, 3, ("cfloat",))
complex128 = dtype("complex128", np.complex128, 3, ("cdouble",))

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32,
              float64, complex64, complex128)
_BY_NP = {d.np: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
for _d in ALL_DTYPES:
    for _a in _d._aliases:
        _BY_NAME[_a] = _d
ALIASES = {a: d for d in ALL_DTYPES for a in d._aliases}


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_np(np_dtype) -> dtype:
    """The torchlike dtype of a NumPy/JAX dtype (``TypeError`` if it has none)."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only "
                        "supported types are: float64, float32, float16, complex64, "
                        "complex128, int64, int32, int16, int8, uint8, and bool.") from None


def to_dtype(d) -> dtype:
    """Accept a torchlike dtype, a Python type (float/int/bool/complex) or NumPy dtype."""
    if isinstance(d, dtype):
        return d
    import builtins
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        return complex128
    if isinstance(d, str) and d in _BY_NAME:
        return _BY_NAME[d]
    if isinstance(getattr(d, "dtype", None), dtype) and isinstance(d, type):
        return d.dtype  # a legacy tensor type such as torchlike.LongTensor
    try:
        return from_np(d)
    except TypeError:
        raise TypeError(f"invalid dtype: expected a torchlike.dtype, got {d!r}") from None


# ---------------------------------------------------------------------------
# default dtype
_default = [float32]


def get_default_dtype() -> dtype:
    """Mirrors ``torch.get_default_dtype`` (float32 unless changed)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Mirrors ``torch.set_default_dtype``: only floating dtypes are accepted."""
    d = to_dtype(d)
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


# ---------------------------------------------------------------------------
# promotion (c10/core/ScalarType.cpp's table, written as rules)
def promote_types(a: dtype, b: dtype) -> dtype:
    """Mirrors ``torch.promote_types``: the smallest dtype both can be cast to."""
    a, b = to_dtype(a), to_dtype(b)
    if a is b:
        return a
    if a._category == 3 or b._category == 3:
        # complex wins; its precision must hold the other operand's float width
        prec = max((x.to_real().itemsize if x._category >= 2 else 0) for x in (a, b))
        return complex128 if prec >= 8 else complex64
    if a._category == 2 or b._category == 2:
        if a._category == 2 and b._category == 2:
            if {a, b} == {float16, bfloat16}:
                return float32
            return a if a.itemsize >= b.itemsize else b
        return a if a._category == 2 else b
    if a is bool:
        return b
    if b is bool:
        return a
    # both integers
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        # preserve the value type of higher if it is floating
        if higher.is_floating_point:
            return higher.to_complex()
        return lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


class _ResultTypeState:
    __slots__ = ("dim", "zero", "wrapped")

    def __init__(self):
        self.dim = None
        self.zero = None
        self.wrapped = None

    def update(self, dt: dtype, ndim: int, is_wrapped: builtins_bool = False):
        if is_wrapped:
            if dt.is_complex:
                dt = default_complex()
            elif dt.is_floating_point:
                dt = get_default_dtype()
            self.wrapped = dt if self.wrapped is None else promote_types(self.wrapped, dt)
        elif ndim == 0:
            self.zero = dt if self.zero is None else promote_types(self.zero, dt)
        else:
            self.dim = dt if self.dim is None else promote_types(self.dim, dt)

    def result(self) -> dtype:
        return _combine_categories(self.dim, _combine_categories(self.zero, self.wrapped))


builtins_bool = type(True)


def scalar_dtype(x) -> dtype:
    """dtype PyTorch gives a Python scalar when it is wrapped into a tensor."""
    if isinstance(x, builtins_bool) or isinstance(x, np.bool_):
        return bool
    if isinstance(x, (int, np.integer)):
        return int64
    if isinstance(x, (float, np.floating)):
        return float64
    if isinstance(x, (complex, np.complexfloating)):
        return complex128
    raise TypeError(f"unsupported scalar type {type(x).__name__}")


def result_type_of(operands) -> dtype:
    """PyTorch's ``result_type`` over (dtype, ndim, is_python_scalar) triples."""
    state = _ResultTypeState()
    for dt, ndim, wrapped in operands:
        state.update(dt, ndim, wrapped)
    return state.result()


def result_type(a, b) -> dtype:
    """Mirrors ``torch.result_type(tensor_or_scalar, tensor_or_scalar)``."""
    from .tensor import Tensor
    ops = []
    for x in (a, b):
        if isinstance(x, Tensor):
            ops.append((x.dtype, x.dim(), False))
        else:
            ops.append((scalar_dtype(x), 0, True))
    return result_type_of(ops)


def can_cast(from_: dtype, to: dtype) -> builtins_bool:
    """Mirrors ``torch.can_cast``: no casting down a category (float→int, complex→float…)."""
    return from_._category <= to._category


def jnp_dtype(d: dtype):
    return d.np


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def cpp_name(d: dtype) -> str:
    """The C++ name of ``d``'s scalar type that many PyTorch messages print (caffe2's
    ``TypeMeta``: ``float``, ``long int``, ``c10::Half``)."""
    return _CPP_NAMES.get(d.name, d.name)


_ = jnp  # JAX must be importable for bfloat16 arrays
