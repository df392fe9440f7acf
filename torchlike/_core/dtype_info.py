"""``torchlike.finfo`` and ``torchlike.iinfo``: the numerical limits of a dtype.

Mirrors ``torch.finfo``/``torch.iinfo``: the same attributes (Python floats and ints equal
to PyTorch's), the same ``repr`` (C++'s six-significant-digit formatting), the same
equality (by the dtype described), no hashing, no pickling and no attribute writes, and
PyTorch's exception types and messages for arguments that are not a fitting dtype.

    >>> import torchlike as torch
    >>> torch.finfo(torch.float16).eps
    0.0009765625
    >>> torch.iinfo(torch.uint8)
    iinfo(min=0, max=255, dtype=uint8)
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import ml_dtypes

from . import dtype as _dt

__all__ = ["finfo", "iinfo"]

_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
_INTS = (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)
# PyTorch's argument parser takes the Python scalar types where it wants a dtype.
_PY_TYPES = {builtins.float: _dt.float64, builtins.int: _dt.int64,
             builtins.bool: _dt.bool, builtins.complex: _dt.complex128}


def _tp_name(x: Any) -> str:
    """The type name PyTorch's argument errors print for ``x`` (CPython's ``tp_name``,
    with torchlike's tensor and dtype named as PyTorch names its own)."""
    from .tensor import Tensor
    if isinstance(x, _dt.dtype):
        return "torch.dtype"
    if isinstance(x, Tensor):
        return "Tensor"
    t = type(x)
    heap_type = t.__flags__ & (1 << 9)    # Py_TPFLAGS_HEAPTYPE: tp_name is the bare name
    if heap_type or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def _fmt(x: float | int) -> str:
    """A number as C++'s ``operator<<`` prints a double (``%g``), as PyTorch's reprs do."""
    return f"{float(x):g}"


def _invalid_combination(name: str, args: tuple, kwargs: dict) -> TypeError:
    """PyTorch's error for an ``finfo`` call matching neither of its signatures."""
    parts = [_tp_name(a) for a in args] + [f"{k}={_tp_name(v)}" for k, v in kwargs.items()]
    got = ", ".join(parts) if args else "".join(p + ", " for p in parts)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:\n * (torch.dtype type)\n * ()\n")


def _missing(name: str) -> TypeError:
    return TypeError(f'{name}() missing 1 required positional arguments: "type"')


def _argument(name: str, args: tuple, kwargs: dict) -> tuple[Any, bool]:
    """The one ``type`` argument of ``finfo``/``iinfo`` as PyTorch parses it: the value,
    and whether it came by position. ``finfo()`` alone is handled by the caller."""
    n = len(args) + len(kwargs)
    if n == 1 and args:
        return args[0], True
    if n == 1 and "type" in kwargs:
        return kwargs["type"], False
    if n == 1 or (not args and name == "iinfo" and "type" not in kwargs):
        raise _missing(name)
    if name == "finfo":
        raise _invalid_combination(name, args, kwargs)
    # iinfo parses its arguments the way a Python function does
    if len(args) > 1:
        raise TypeError(f"iinfo() takes 1 positional argument but {len(args)} were given")
    if args:
        raise TypeError("iinfo() got multiple values for argument 'type'")
    extra = next(k for k in kwargs if k != "type")
    raise TypeError(f"iinfo() got an unexpected keyword argument '{extra}'")


def _to_dtype(name: str, value: Any, positional: bool) -> _dt.dtype | None:
    """The dtype ``value`` names, or None for one of torchlike's legacy tensor types
    (``torchlike.FloatTensor``, ``torchlike.Tensor``), which PyTorch's parser accepts as
    a dtype and ``finfo`` then rejects as not floating."""
    from .tensor import Tensor
    if isinstance(value, _dt.dtype):
        return value
    if isinstance(value, type) and value in _PY_TYPES:
        return _PY_TYPES[value]
    legacy = isinstance(value, type) and (
        issubclass(value, Tensor) or isinstance(getattr(value, "dtype", None), _dt.dtype))
    if legacy and name == "finfo":
        return None
    where = " (position 1)" if positional else ""
    raise TypeError(f"{name}(): argument 'type'{where} must be torch.dtype, "
                    f"not {'type' if legacy else _tp_name(value)}")


class _Info:
    """What finfo and iinfo share: read-only attributes, equality by the dtype described,
    no hash, no pickling and no subclassing, as PyTorch's C types behave."""

    __slots__ = ("_type",)
    _FIELDS: tuple[str, ...] = ()
    _TORCH_NAME = ""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._FIELDS:
            raise AttributeError(f"attribute '{name}' of '{self._TORCH_NAME}' objects is not "
                                 "writable")
        raise AttributeError(f"'{self._TORCH_NAME}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        self.__setattr__(name, None)

    def __eq__(self, other: object) -> builtins.bool:
        return type(other) is type(self) and other._type is self._type

    def __ne__(self, other: object) -> builtins.bool:
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # PyTorch's finfo/iinfo are unhashable

    def __reduce_ex__(self, protocol):
        raise TypeError(f"cannot pickle '{self._TORCH_NAME}' object")

    @property
    def dtype(self) -> str:
        """The name of the dtype described, e.g. ``'float32'`` (a string, as PyTorch's)."""
        return self._type.name

    def __str__(self) -> str:
        return self.__repr__()


class finfo(_Info):
    """Mirrors ``torch.finfo(type=None)``: the limits of a floating dtype.

    ``finfo()`` describes the default dtype; a complex dtype is described by its real
    counterpart (``finfo(complex64).dtype == 'float32'``). ``bits``, ``eps``, ``max``,
    ``min``, ``tiny``, ``smallest_normal`` and ``resolution`` (``10 ** -digits10``) are
    Python numbers equal to PyTorch's. Python's ``float``/``complex`` types are accepted as
    PyTorch accepts them (float64, complex128). A non-floating dtype raises PyTorch's
    ``TypeError``. Instances compare equal when they describe the same dtype and, like
    PyTorch's, cannot be hashed, pickled, subclassed or changed.

    Example::

        >>> torchlike.finfo(torchlike.bfloat16).max
        3.3895313892515355e+38
    """

    __slots__ = ("_bits", "_eps", "_max", "_min", "_tiny", "_resolution")
    _FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution",
               "dtype")
    _TORCH_NAME = "torch.finfo"

    def __new__(cls, *args: Any, **kwargs: Any) -> "finfo":
        if not args and not kwargs:
            d = _dt.get_default_dtype()
        else:
            value, positional = _argument("finfo", args, kwargs)
            d = _to_dtype("finfo", value, positional)
        if d is not None and d.is_complex:
            d = d.to_real()
        if d not in _FLOATS:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = ml_dtypes.finfo(d.np)
        self = object.__new__(cls)
        for name, value in (("_type", d), ("_bits", int(info.bits)),
                            ("_eps", float(info.eps)), ("_max", float(info.max)),
                            ("_min", float(info.min)), ("_tiny", float(info.tiny)),
                            # C++'s pow(10, -numeric_limits<T>::digits10)
                            ("_resolution",
                             10.0 ** -math.floor(int(info.nmant) * math.log10(2)))):
            object.__setattr__(self, name, value)
        return self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("type 'torch.finfo' is not an acceptable base type")

    @property
    def bits(self) -> int:
        """The number of bits of the type."""
        return self._bits

    @property
    def eps(self) -> float:
        """The smallest number such that ``1.0 + eps != 1.0``."""
        return self._eps

    @property
    def max(self) -> float:
        """The largest finite number."""
        return self._max

    @property
    def min(self) -> float:
        """The most negative finite number (``-max``)."""
        return self._min

    @property
    def tiny(self) -> float:
        """The smallest positive normal number (same as ``smallest_normal``)."""
        return self._tiny

    @property
    def smallest_normal(self) -> float:
        """The smallest positive normal number."""
        return self._tiny

    @property
    def resolution(self) -> float:
        """The approximate decimal resolution, ``10 ** -digits10``."""
        return self._resolution

    def __repr__(self) -> str:
        return (f"finfo(resolution={_fmt(self._resolution)}, min={_fmt(self._min)}, "
                f"max={_fmt(self._max)}, eps={_fmt(self._eps)}, "
                f"smallest_normal={_fmt(self._tiny)}, tiny={_fmt(self._tiny)}, "
                f"dtype={self.dtype})")


class iinfo(_Info):
    """Mirrors ``torch.iinfo(type)``: the limits of an integer dtype.

    ``bits``, ``min`` and ``max`` are Python ints; ``dtype`` is the dtype's name. Python's
    ``int`` type is accepted as PyTorch accepts it (int64). ``bool`` raises PyTorch's
    ``TypeError`` (``torch.bool is not supported by torch.iinfo``), and so do floating and
    complex dtypes. Instances compare equal when they describe the same dtype and, like
    PyTorch's, cannot be hashed, pickled, subclassed or changed.

    Difference from PyTorch: ``torch.iinfo(torch.FloatTensor)`` (a legacy tensor type
    where a dtype belongs) answers with uint8's limits there; here it raises ``TypeError``.

    Example::

        >>> torchlike.iinfo(torchlike.int16).max
        32767
    """

    __slots__ = ("_bits", "_min", "_max")
    _FIELDS = ("bits", "max", "min", "dtype")
    _TORCH_NAME = "torch.iinfo"

    def __new__(cls, *args: Any, **kwargs: Any) -> "iinfo":
        value, positional = _argument("iinfo", args, kwargs)
        d = _to_dtype("iinfo", value, positional)
        if d is _dt.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d not in _INTS:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = ml_dtypes.iinfo(d.np)
        self = object.__new__(cls)
        for name, value in (("_type", d), ("_bits", int(info.bits)),
                            ("_min", int(info.min)), ("_max", int(info.max))):
            object.__setattr__(self, name, value)
        return self

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("type 'torch.iinfo' is not an acceptable base type")

    @property
    def bits(self) -> int:
        """The number of bits of the type."""
        return self._bits

    @property
    def max(self) -> int:
        """The largest value."""
        return self._max

    @property
    def min(self) -> int:
        """The smallest value."""
        return self._min

    def __repr__(self) -> str:
        return f"iinfo(min={_fmt(self._min)}, max={_fmt(self._max)}, dtype={self.dtype})"


# Like PyTorch's ``torch.finfo``, the classes print under the public namespace.
finfo.__module__ = "torchlike"
iinfo.__module__ = "torchlike"
