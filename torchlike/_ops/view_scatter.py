"""Out-of-place writes into views, and reductions to a shape: ``select_scatter``,
``slice_scatter``, ``diagonal_scatter`` (``input`` with the view that ``select``,
slicing or ``diagonal`` would give replaced by ``src``), ``renorm`` and
``Tensor.sum_to_size``. Each op is declared once; see spec.py.

The three scatters cast ``src`` to ``input``'s dtype (PyTorch copies ``src`` into a
clone of ``input``) and are linear in both, so their nodes keep no values.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.grad_mode import is_grad_enabled
from .._core.size import Size
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .bind import dtype_short_name
from .elementwise_common import tensors_only
from .samples import S, arr
from .spec import OpSpec, register
from .views import _diag_meta, _select_check, normalize_args, shape_arg

__all__: list = []


# ---------------------------------------------------------------------------
# argument conversion (PyTorch's argument parser for int and Scalar parameters)
def _int_arg(op: str, name: str, pos: int):
    """A normaliser for an int parameter: Python ints and one-element integer tensors
    are accepted (``None`` where the parameter is optional); anything else is PyTorch's
    TypeError."""
    def norm(vals):
        v = vals[pos]
        if v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, bool)):
            return v if v is None else int(v)
        if isinstance(v, Tensor) and v.numel() == 1 and not (
                v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is _dt.bool):
            return int(v.item())
        raise TypeError(f"{op}(): argument '{name}' (position {pos + 1}) must be int, not "
                        f"{type(v).__name__}")
    return norm


def _number_arg(op: str, name: str, pos: int):
    """A normaliser for a Scalar parameter: a Python number (or a one-element tensor
    holding one, as PyTorch converts it)."""
    def norm(vals):
        v = vals[pos]
        if isinstance(v, Tensor) and v.numel() == 1:
            v = v.item()
        if isinstance(v, np.number):
            v = v.item()
        if not isinstance(v, (int, float, complex)):
            raise TypeError(f"{op}(): argument '{name}' (position {pos + 1}) must be Number, "
                            f"not {type(v).__name__}")
        return v
    return norm


# PyTorch's TypeError for a non-tensor ``input`` or ``src``
_TYPES = {n: tensors_only(n, ("input", "src"), (0, 1))
          for n in ("select_scatter", "slice_scatter", "diagonal_scatter")}
_TYPES["renorm"] = tensors_only("renorm", ("input",), (0,))


# ---------------------------------------------------------------------------
# select_scatter / slice_scatter / diagonal_scatter
def _check_src(input: Tensor, src: Tensor, view_shape) -> None:
    """PyTorch's size check of ``src`` against the view of ``input`` it replaces, and
    its refusal to record a node whose result cannot carry a gradient."""
    if tuple(src._shape) != tuple(view_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                           f"size = {shape_str(src._shape)}, slice size = "
                           f"{shape_str(view_shape)}")
    if src._requires_grad and is_grad_enabled() and not (
            input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"Autograd not support dtype: {dtype_short_name(input.dtype)}")


def _select_scatter_check(input, src, dim, index):
    _TYPES["select_scatter"](input, src)
    d, _ = _select_check(input, dim, index)
    _check_src(input, src, input._shape[:d] + input._shape[d + 1:])


def _select_scatter_fn(input, src, dim, index):
    d = dim % input.ndim
    key = (slice(None),) * d + (index % input.shape[d],)
    return input.at[key].set(src)


def _select_scatter_samples():
    return [S(arr(3, 4), arr(4), 0, 1), S(arr(3, 4), arr(3), 1, -1, method=True),
            S(arr(2, 3, 4, dtype="float64"), arr(2, 3, dtype="float64"), -1, 3),
            S(arr(4), arr(), 0, 2), S(arr(0, 3), arr(0), 1, 2),
            S(arr(3, 4), arr(4, dtype="float64"), 0, 0),
            S(arr(3, 4, dtype="int64"), arr(4, dtype="int64"), 0, -3),
            S(arr(3, 4), src=arr(4), dim=0, index=2),
            S(arr(3, 4), arr(3), 0, 1), S(arr(3, 4), arr(4), 0, 3), S(arr(3, 4), arr(4), 2, 0),
            S(arr(), arr(), 0, 0), S(arr(3, 4), 1.0, 0, 0)]


register(OpSpec(
    "select_scatter", _select_scatter_fn, "input, src, dim, index",
    tensor_args=("input", "src"), promote="self", check=_select_scatter_check, saves=False,
    grad_name="SelectScatterBackward0",
    doc="Mirrors ``torch.select_scatter``: ``input`` with ``input.select(dim, index)`` "
        "replaced by ``src`` (cast to ``input``'s dtype); differentiable w.r.t. both.",
    samples=_select_scatter_samples))
normalize_args("select_scatter", dim=_int_arg("select_scatter", "dim", 2),
               index=_int_arg("select_scatter", "index", 3))


def _slice_shape(input: Tensor, dim, start, end, step) -> tuple:
    """The shape of ``input``'s slice, with PyTorch's checks (``at::slice``)."""
    nd = input.dim()
    if nd == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = input._shape[d]
    lo, hi, _ = slice(start, end, step).indices(n)
    shape = list(input._shape)
    shape[d] = max(0, math.ceil((hi - lo) / step))
    return tuple(shape)


def _slice_scatter_check(input, src, dim=0, start=None, end=None, step=1):
    _TYPES["slice_scatter"](input, src)
    _check_src(input, src, _slice_shape(input, dim, start, end, step))


def _slice_scatter_fn(input, src, dim=0, start=None, end=None, step=1):
    d = dim % input.ndim
    key = (slice(None),) * d + (slice(start, end, step),)
    return input.at[key].set(src)


def _slice_scatter_samples():
    return [S(arr(3, 4), arr(3, 2), 1, 1, 3), S(arr(3, 4), arr(3, 2), 1, 0, None, 2),
            S(arr(3, 4), arr(3, 4)), S(arr(3, 4), arr(2, 4), start=-2, method=True),
            S(arr(3, 4), arr(0, 4), start=5), S(arr(3, 4), arr(0, 4), start=2, end=1),
            S(arr(3, 4), arr(1, 4), start=-10, end=1),
            S(arr(2, 5, 3, dtype="float64"), arr(2, 2, 3), -2, 1, -1, 2),
            S(arr(3, 4, dtype="int32"), arr(3, 1, dtype="int32"), -1, 3),
            S(arr(0, 4), arr(0, 2), 1, 2), S(arr(3, 4), arr(3, 3), 1, 1, 3),
            S(arr(3, 4), arr(3, 4), step=0), S(arr(3, 4), arr(3, 4), dim=3),
            S(arr(), arr(), 0), S(arr(3, 4), arr(4), 0, 0, 1)]


register(OpSpec(
    "slice_scatter", _slice_scatter_fn, "input, src, dim=0, start=None, end=None, step=1",
    tensor_args=("input", "src"), promote="self", check=_slice_scatter_check, saves=False,
    grad_name="SliceScatterBackward0",
    doc="Mirrors ``torch.slice_scatter``: ``input`` with ``input[..., start:end:step]`` "
        "(along ``dim``) replaced by ``src`` (cast to ``input``'s dtype).",
    samples=_slice_scatter_samples))
normalize_args("slice_scatter", **{
    k: _int_arg("slice_scatter", k, i) for i, k in enumerate(("dim", "start", "end", "step"),
                                                             start=2)})


def _diagonal_scatter_check(input, src, offset=0, dim1=0, dim2=1):
    _TYPES["diagonal_scatter"](input, src)
    _check_src(input, src, _diag_meta(input, offset, dim1, dim2)[0])


def _diagonal_scatter_fn(input, src, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    moved = jnp.moveaxis(input, (d1, d2), (-2, -1))
    i = np.arange(src.shape[-1])
    moved = moved.at[..., i + max(-offset, 0), i + max(offset, 0)].set(src)
    return jnp.moveaxis(moved, (-2, -1), (d1, d2))


def _diagonal_scatter_samples():
    return [S(arr(3, 4), arr(3)), S(arr(3, 4), arr(3), 1), S(arr(3, 4), arr(2), -1),
            S(arr(3, 4), arr(0), 10), S(arr(2, 3, 4), arr(3, 2), 0, 0, 2),
            S(arr(2, 3, 4, dtype="float64"), arr(2, 3, dtype="float64"), -1, -1, -2),
            S(arr(3, 3), arr(3), method=True), S(arr(3, 4), arr(3, dtype="float64")),
            S(arr(3, 4, dtype="int32"), arr(2, dtype="int32"), 2), S(arr(0, 2), arr(0)),
            S(arr(3, 4), arr(4)), S(arr(3, 4), arr(3), 0, 0, 0), S(arr(3, 4), arr(3), 0, 0, 2),
            S(arr(3), arr(3))]


register(OpSpec(
    "diagonal_scatter", _diagonal_scatter_fn, "input, src, offset=0, dim1=0, dim2=1",
    tensor_args=("input", "src"), promote="self", check=_diagonal_scatter_check,
    saves=False, grad_name="DiagonalScatterBackward0",
    doc="Mirrors ``torch.diagonal_scatter``: ``input`` with "
        "``input.diagonal(offset, dim1, dim2)`` replaced by ``src`` (cast to ``input``'s "
        "dtype).",
    samples=_diagonal_scatter_samples))
normalize_args("diagonal_scatter", **{
    k: _int_arg("diagonal_scatter", k, i) for i, k in enumerate(("offset", "dim1", "dim2"),
                                                                start=2)})


# ---------------------------------------------------------------------------
# renorm
def _renorm_check(input, p, dim, maxnorm):
    _TYPES["renorm"](input)
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    nd = input.dim()
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    d = wrap_dim(dim, nd)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {dtype_short_name(input.dtype)}")
    if p == math.inf and input.numel() == 0:
        for i, s in enumerate(input._shape):
            if i != d and s == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the inf norm on the "
                                   f"dimension {i}because this dimension is empty and the "
                                   "operation does not have an identity")


def _renorm_fn(input, p, dim, maxnorm):
    # PyTorch: the norm of each slice in the accumulation type (float32 for half types),
    # factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1, stored in input's
    # dtype, then input * factor. The norm's gradient is kept finite (0 for zero
    # elements, as PyTorch's norm_backward) and only slices that are rescaled take one.
    nd = input.ndim
    axes = tuple(i for i in range(nd) if i != dim % nd)
    acc = jnp.float64 if input.dtype in (np.float64, np.complex128) else jnp.float32
    if jnp.iscomplexobj(input):
        re, im = jnp.real(input).astype(acc), jnp.imag(input).astype(acc)
        sq = re * re + im * im
        nz = sq > 0
        a = jnp.where(nz, jnp.sqrt(jnp.where(nz, sq, 1)), 0)
    else:
        x = input.astype(acc)
        sq = x * x
        a = jnp.sign(x) * x
    if p == 2:
        s, root = jnp.sum(sq, axes, keepdims=True), jnp.sqrt
    elif p == 1:
        s, root = jnp.sum(a, axes, keepdims=True), None
    elif p == math.inf:
        s, root = jnp.max(a, axes, keepdims=True), None
    else:
        nz = a > 0
        s = jnp.sum(jnp.where(nz, jnp.where(nz, a, 1) ** p, 0), axes, keepdims=True)
        root = lambda v: v ** (1.0 / p)  # noqa: E731
    m = jnp.asarray(maxnorm, acc)
    norm = s if root is None else root(s)
    rescale = jax.lax.stop_gradient(norm) > m
    if root is not None:
        norm = root(jnp.where(rescale, s, 1))
    factor = jnp.where(rescale, m / (norm + jnp.asarray(1e-7, acc)), jnp.ones((), acc))
    return input * factor.astype(input.dtype)


def _renorm_samples():
    big = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    return [S(arr(3, 4, low=-3, high=3), 2, 0, 1.0), S(arr(3, 4, low=-3, high=3), 1, 1, 2.0),
            S(arr(3, 4, low=-3, high=3), 3, -1, 1.5, method=True),
            S(arr(3, 4, low=-3, high=3), float("inf"), 0, 1.0),
            S(arr(2, 3, 4, dtype="float64", low=-3, high=3), 2, 1, 0.5),
            S(arr(3, 4, low=-3, high=3), 0.5, 0, 4.0), S(big, 2, 0, 1),
            S(big, 2, 0, 5.0), S(arr(3, 4), 2, 0, 0.0), S(arr(0, 3), 2, 0, 1.0),
            S(arr(3, 4, dtype="complex64"), 2, 0, 1.0, grad=False),
            S(arr(3, 4, dtype="float16"), 2, 0, 1.0, grad=False),
            S(arr(3, 4, dtype="int64"), 2, 0, 1.0), S(arr(3), 2, 0, 1.0),
            S(arr(3, 4), 0, 0, 1.0), S(arr(3, 4), 2, 0, -1.0), S(arr(3, 4), 2, 2, 1.0),
            S(arr(2, 0), float("inf"), 0, 1.0)]


register(OpSpec(
    "renorm", _renorm_fn, "input, p, dim, maxnorm", inplace=True, promote="none",
    check=_renorm_check, grad_name="RenormBackward0",
    doc="Mirrors ``torch.renorm``: each slice ``input.select(dim, i)`` whose p-norm "
        "exceeds ``maxnorm`` scaled to norm ``maxnorm`` (``maxnorm / (norm + 1e-7)``), "
        "with PyTorch's argument checks.",
    samples=_renorm_samples))
normalize_args("renorm", p=_number_arg("renorm", "p", 1), dim=_int_arg("renorm", "dim", 2),
               maxnorm=_number_arg("renorm", "maxnorm", 3))


# ---------------------------------------------------------------------------
# Tensor.sum_to_size
def _expandable(shape: tuple, desired: tuple) -> bool:
    """PyTorch's ``is_expandable_to(shape, desired)``."""
    if len(shape) > len(desired):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(desired)))


def _sum_to_size(self: Tensor, *size, **kwargs) -> Tensor:
    """Mirrors ``Tensor.sum_to_size(*size)``: sums ``self`` down to ``size`` (which must
    be expandable to ``self``'s shape) as PyTorch's ``sum_to``: one ``sum`` over the
    leading dimensions and the dimensions where ``size`` has 1 (keepdim,
    ``SumBackward1``), then a ``view`` dropping the leading ones (``ViewBackward0``).
    Returns ``self`` itself when nothing needs summing, except for an empty ``size``,
    which is always a full ``sum`` (``SumBackward0``, a new tensor even for 0-d input).

    >>> import torchlike as torch
    >>> torch.ones(2, 3).sum_to_size(1, 3).tolist()
    [[2.0, 2.0, 2.0]]
    """
    from .dispatch import call_op
    if "size" in kwargs:
        if size:
            raise TypeError("sum_to_size() got multiple values for argument 'size'")
        size = (kwargs.pop("size"),)
    if kwargs:
        raise TypeError(f"sum_to_size() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer, Tensor)):
            raise TypeError(f"sum_to_size(): argument 'size' (position 1) must be tuple of "
                            f"ints, not {type(s).__name__}")
    shape = shape_arg(size)
    have = self._shape
    if not _expandable(shape, have):
        raise RuntimeError(f"size {{{shape_str(shape)}}} is not expandable to size "
                           f"{{{shape_str(have)}}}.")
    if not shape:   # ``sum_to`` of an empty size is a full ``sum`` (SumBackward0), always
        return call_op("sum", self)
    lead = len(have) - len(shape)
    dims = tuple(range(lead)) + tuple(i for i in range(lead, len(have))
                                      if shape[i - lead] == 1 and have[i] != 1)
    out = self
    if dims:
        out = call_op("sum", out, dims, True)
    if lead:
        out = call_op("view", out, shape)
    return out


_sum_to_size.__name__ = "sum_to_size"
_sum_to_size.__qualname__ = "Tensor.sum_to_size"
Tensor.sum_to_size = _sum_to_size
