"""``torchlike.gradient``: derivatives estimated by finite differences.

It returns one tensor per differentiated dimension, a tuple whose length depends on the
arguments, so it is not one table op: it is written, as PyTorch's ``gradient`` is in
ATen, as a composite of table ops (slices, arithmetic, ``diff``, ``cat``). Autograd
therefore reaches the input and the coordinate tensors through those ops' nodes, and
the arithmetic (so the rounding) is PyTorch's, step by step.

# Note [gradient's overloads]
# PyTorch's binding has seven overloads, told apart by the type of ``spacing`` (a
# number, a list of numbers, a list of tensors) and of ``dim`` (an int or a list).
# ``_parse`` sorts a call the same way: a number (a 0-d tensor counts as one, read as a
# Python number as PyTorch's ``Scalar`` reads it) applies to every differentiated dim;
# a list gives one spacing per dim, and must have as many entries as ``dim`` (or, when
# ``dim`` is not given, as the input has dims); a list of tensors holds the coordinates
# of the samples along each dim. Anything else is PyTorch's TypeError. The checks
# follow ``pre_check_gradient``: uint8 input, then the spacing's length, ``edge_order``,
# the dims, then each differentiated dim's size (at least ``edge_order + 1``).
"""

from __future__ import annotations

import numbers
from typing import Sequence, Union

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import invalid_arguments, is_int_arg
from .bind import FUNCTIONS

__all__ = ["gradient"]

_OVERLOADS = (
    "(Tensor input, *, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)",
)

Spacing = Union[int, float, complex, Tensor, Sequence[Union[int, float, complex]],
                Sequence[Tensor]]


def _invalid(input, kwargs: dict) -> TypeError:
    """PyTorch's TypeError when no overload matches. PyTorch lists the keyword arguments
    in the reverse of the order they were written; written in the signature's order,
    that is edge_order, dim, spacing."""
    return invalid_arguments("gradient", (input,), kwargs, _OVERLOADS)


def _is_number(v) -> bool:
    if isinstance(v, Tensor):
        return v.dim() == 0
    return isinstance(v, (numbers.Number, np.number, np.bool_))


def _number(v):
    """A spacing number as PyTorch's ``Scalar`` holds it: a Python number."""
    return v.item() if isinstance(v, Tensor) else v


def _parse(input, spacing, dim, edge_order) -> tuple:
    """``(kind, spacing, dims)``: kind "unit" (one number), "scalars" or "coords" (a
    list); ``dims`` None (every dim), an int or a list of ints (Note [gradient's
    overloads])."""
    given = {k: v for k, v in (("edge_order", edge_order), ("dim", dim),
                               ("spacing", spacing))
             if v is not None and not (type(v) is int and v == 1 and k != "dim")}
    if not is_int_arg(edge_order):
        raise _invalid(input, given)
    if dim is not None and not is_int_arg(dim):
        if not (isinstance(dim, (list, tuple)) and all(is_int_arg(d) for d in dim)):
            raise _invalid(input, given)
        dim = [int(d) for d in dim]
    elif dim is not None:
        dim = int(dim)
    if spacing is None or _is_number(spacing):
        return "unit", (1 if spacing is None else _number(spacing)), dim
    if isinstance(spacing, (list, tuple)):
        if spacing and all(isinstance(s, Tensor) for s in spacing):
            return "coords", list(spacing), dim
        if all(_is_number(s) and not isinstance(s, Tensor) for s in spacing):
            return "scalars", list(spacing), dim
        first = next(i for i, s in enumerate(spacing) if not isinstance(s, Tensor))
        raise TypeError(f"expected Tensor as element {first} in argument 1, but got "
                        f"{type(spacing[first]).__name__}")
    raise _invalid(input, given)


def _pre_check(input: Tensor, spacing_size: int | None, dims: list | None,
               edge_order: int) -> None:
    """PyTorch's ``pre_check_gradient``."""
    from .._core.tensor import wrap_dim
    if input.dtype is _dt.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != input.dim():
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar, or a list of "
            f"length equal to 'self.dim() = {input.dim()}', since dim argument was not "
            f"given, but got a list of length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
            f"and dim arguments to have the same length, but got a spacing argument of "
            f"length {spacing_size} and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dims is not None:
        seen = set()
        for d in dims:
            w = wrap_dim(d, input.dim())
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
        sizes = [input._shape[wrap_dim(d, input.dim())] for d in dims]
    else:
        sizes = list(input._shape)
    if any(s < edge_order + 1 for s in sizes):
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")


def _along(x: Tensor, d: int, start, stop=None) -> Tensor:
    """``x[..., start:stop, ...]`` along dim ``d`` (ATen's ``slice``)."""
    return x[(slice(None),) * d + (slice(start, stop),)]


def _uniform(x: Tensor, d: int, h, edge_order: int) -> Tensor:
    """PyTorch's ``gradient_helper_float`` along dim ``d`` for the step ``h``."""
    center = (_along(x, d, 2) - _along(x, d, 0, -2)) / h
    if edge_order == 1:
        prepend = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / h
        append = (_along(x, d, -1) - _along(x, d, -2, -1)) / h
    else:
        prepend = (-1.5 * _along(x, d, 0, 1) + 2 * _along(x, d, 1, 2)
                   - 0.5 * _along(x, d, 2, 3)) / h
        append = (0.5 * _along(x, d, -3, -2) - 2 * _along(x, d, -2, -1)
                  + 1.5 * _along(x, d, -1)) / h
    return FUNCTIONS["cat"]([prepend, center / 2, append], d)


def _coordinates(x: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    """PyTorch's ``gradient_helper`` along dim ``d`` for samples at ``coords``: the
    second-order accurate formula for unevenly spaced points."""
    if coords.dim() != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one "
                           f"dimension, but got an element with {coords.dim()} dimensions!")
    shape = [1] * x.dim()
    shape[d] = -1
    dx = coords.diff(1, 0)
    dx1, dx2 = dx[0:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _along(x, d, 0, -2) + b * _along(x, d, 1, -1) + c * _along(x, d, 2)
    if edge_order == 1:
        prepend = (_along(x, d, 1, 2) - _along(x, d, 0, 1)) / dx[0]
        append = (_along(x, d, -1) - _along(x, d, -2, -1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        a = -(2.0 * h0 + h1) / (h0 * (h0 + h1))
        b = (h0 + h1) / (h0 * h1)
        c = (-h0) / (h1 * (h0 + h1))
        prepend = a * _along(x, d, 0, 1) + b * _along(x, d, 1, 2) + c * _along(x, d, 2, 3)
        hl, hm = dx[-1], dx[-2]
        a = hl / (hm * (hl + hm))
        b = -(hl + hm) / (hl * hm)
        c = (2 * hl + hm) / (hl * (hl + hm))
        append = a * _along(x, d, -3, -2) + b * _along(x, d, -2, -1) + c * _along(x, d, -1)
    return FUNCTIONS["cat"]([prepend, center, append], d)


def gradient(input: Tensor, *, spacing: Spacing = 1, dim: int | Sequence[int] | None = None,
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """Mirrors ``torch.gradient``: the derivative of the function sampled by ``input``
    along each dim in ``dim`` (default: every dim), one tensor per dim, by central
    differences inside and one-sided differences of order ``edge_order`` (1 or 2) at the
    ends. ``spacing`` is the distance between samples: one number for every dim, a list
    of numbers (one per dim), or a list of 1-D tensors holding the sample coordinates
    along each dim (unevenly spaced points use the second-order formula PyTorch uses).
    Dtypes, values and errors are PyTorch's (Note [gradient's overloads] in
    ``_ops/finite_differences.py``); gradients flow to ``input`` and to coordinate
    tensors.

    Differences: a 0-d tensor given as ``spacing`` is read as a Python number (as
    PyTorch does), so inside a compiled function it raises the traced-value error;
    PyTorch's TypeError for arguments no overload takes lists the keyword arguments
    in a fixed order (edge_order, dim, spacing), where PyTorch's order depends on how
    the call wrote them.

    >>> import torchlike as torch
    >>> torch.gradient(torch.tensor([1., 2., 4., 8.]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if type(input) is not Tensor:
        from .torch_function import _overloaded_args, handle_torch_function
        relevant = _overloaded_args([input])
        if relevant:
            return handle_torch_function(gradient, relevant, (input,),
                                         dict(spacing=spacing, dim=dim,
                                              edge_order=edge_order))
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    kind, steps, dim = _parse(input, spacing, dim, edge_order)
    edge_order = int(edge_order)
    dims = None if dim is None else ([dim] if isinstance(dim, int) else dim)
    # one number is a spacing of the right length for every dim (PyTorch repeats it)
    _pre_check(input, None if kind == "unit" else len(steps), dims, edge_order)
    if dims is None:
        dims = list(range(input.dim()))
    from .._core.tensor import wrap_dim
    dims = [wrap_dim(d, input.dim()) for d in dims]
    if kind == "coords":
        return tuple(_coordinates(input, d, c, edge_order) for d, c in zip(dims, steps))
    if kind == "unit":
        steps = [steps] * len(dims)
    return tuple(_uniform(input, d, h, edge_order) for d, h in zip(dims, steps))


gradient.__module__ = "torchlike"
FUNCTIONS["gradient"] = gradient
