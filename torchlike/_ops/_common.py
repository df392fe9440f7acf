"""Helpers shared by the op families: broadcasting checks and dim handling."""

from __future__ import annotations

import operator
import os
import sys
import warnings

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim

__all__ = ["broadcast_shapes_or_raise", "check_broadcast", "int_arg", "shape_of", "wrap_dim",
           "shape_str"]


def shape_of(v) -> tuple:
    return v._shape if isinstance(v, Tensor) else ()


def shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def broadcast_shapes_or_raise(a: tuple, b: tuple) -> tuple:
    """PyTorch's broadcasting with its error text naming the offending dimension."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da = a[len(a) - n + i] if len(a) - n + i >= 0 else 1
        db = b[len(b) - n + i] if len(b) - n + i >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b "
                               f"({db}) at non-singleton dimension {i}")
        out.append(db if da == 1 else da)
    return tuple(out)


def check_broadcast(*vals) -> None:
    if len(vals) == 2 and type(vals[0]) is Tensor and type(vals[1]) is Tensor and \
            vals[0]._shape == vals[1]._shape:
        return
    shapes = [v._shape for v in vals if isinstance(v, Tensor)]
    if len(shapes) < 2:
        return
    acc = shapes[0]
    for s in shapes[1:]:
        acc = broadcast_shapes_or_raise(acc, s)


def is_int_arg(v) -> bool:
    """Whether PyTorch's argument parser takes ``v`` for an ``int`` parameter: an int, a
    NumPy integer or a 0-d integer tensor; not a bool."""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, Tensor):
        return v.dim() == 0 and not (v.dtype.is_floating_point or v.dtype.is_complex
                                     or v.dtype is _dt.bool)
    try:
        operator.index(v)
    except TypeError:
        return False
    return True


def type_name(v) -> str:
    """An argument's type as PyTorch's argument parser names it in its errors."""
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def invalid_arguments(name: str, args, kwargs: dict, overloads) -> TypeError:
    """PyTorch's TypeError when no overload of ``name`` takes ``args`` and ``kwargs``."""
    got = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    lines = "\n".join(f" * {o}" for o in overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{lines}\n")


def int_arg(fname: str, name: str, pos: int | None, v) -> int:
    """``v`` as a Python int, or PyTorch's TypeError for an ``int`` parameter (a bool is
    not an int there; a 0-d integer tensor is). ``pos``: the parameter's position in the
    message, None for a keyword-only one."""
    if is_int_arg(v):
        return operator.index(v)
    where = f" (position {pos})" if pos is not None else ""
    raise TypeError(f"{fname}(): argument '{name}'{where} must be int, not "
                    f"{type(v).__name__}")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_at_caller(message: str, category: type = UserWarning) -> None:
    """``warnings.warn`` pointing at the first frame outside torchlike (its modules and
    the entry points it generates), as PyTorch's warnings from C++ point at the Python
    line that called the op, however many layers the call went through."""
    level, f = 2, sys._getframe(1)   # stacklevel 2: the frame that called this
    while f is not None:
        name = f.f_code.co_filename
        if not (name.startswith(_PACKAGE_DIR) or name.startswith(("<entry ", "<dispatch "))):
            break
        level += 1
        f = f.f_back
    warnings.warn(message, category, stacklevel=level)
