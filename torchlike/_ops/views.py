"""View ops: results share their input's storage (see Note [Views over immutable
arrays]). Each declares its value function and a ``view`` metadata function giving
PyTorch's (shape, strides, storage offset) of the result."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core.size import Size
from .._core.storage import compute_view_strides, contiguous_strides
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .bind import FUNCTIONS
from .dispatch import call_op
from .samples import S, arr
from .spec import OPS, OpSpec, register
from .torch_function import DisableTorchFunction

__all__ = ["resolve_shape", "slice_meta", "normalize_args", "shape_arg", "view_strides"]


def shape_arg(shape) -> tuple:
    """A size given as ``2, 3``, ``(2, 3)``, ``[2, 3]``, ``Size`` or 0-d tensors, as a
    tuple of Python ints."""
    if isinstance(shape, (int, np.integer, Tensor)):
        shape = (shape,)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers as size, but got an element of "
                            f"type {type(s).__name__}")
        out.append(int(s))
    return tuple(out)


_shape_arg = shape_arg


def normalize_args(name: str, keyword: tuple = (), **normalizers) -> None:
    """Normalise some arguments of op ``name`` as soon as a call is bound.

    Sizes given as ``(2, 3)``/``[2, 3]``/``Size``/0-d tensors become one hashable tuple of
    ints before they reach the static arguments, and data-dependent output sizes (the
    number of ``True`` in a mask, the sum of ``repeats``) can be read on the host and
    passed on as static parameters. Each normaliser is ``f(vals) -> new value``.
    ``keyword`` names PyTorch's keyword spellings of a ``*sizes`` parameter
    (``x.view(size=(2, 3))``, ``x.permute(dims=(1, 0))``).
    """
    from .dispatch import prepare
    spec = OPS[name]
    if spec.binder is None:
        prepare(spec)
    inner = spec.binder
    pos = [(spec.params.index(k), f) for k, f in normalizers.items()]

    def binder(*args, **kwargs):
        for k in keyword:
            if k in kwargs:
                args = args + (kwargs.pop(k),)
        bound = inner(*args, **kwargs)
        vals = list(bound)
        for i, f in pos:
            vals[i] = f(bound)
        return tuple(vals)
    binder.__name__ = binder.__qualname__ = inner.__name__
    spec.binder = binder


def view_strides(shape, stride, new_shape):
    """PyTorch's ``computeStride``, including its 0-d input case (all strides 1)."""
    if len(shape) == 0:
        return (1,) * len(new_shape)
    return compute_view_strides(shape, stride, new_shape)


def resolve_shape(shape, numel: int) -> tuple:
    """Infer a -1 entry as PyTorch's ``infer_size`` does, with its error text."""
    shape = tuple(shape)
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"{shape_str(shape)}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if infer:
        if known == 0:
            if numel == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                                   f"{shape_str(shape)} because the unspecified dimension "
                                   "size -1 can be any value and is ambiguous")
        elif numel % known == 0:
            shape = shape[:infer[0]] + (numel // known,) + shape[infer[0] + 1:]
            return shape
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    if known != numel:
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    return shape


# ---------------------------------------------------------------------------
# view / reshape / flatten
def _view_fn(input, shape):
    return jnp.reshape(input, shape)


def _view_meta(input, shape):
    shape = resolve_shape(_shape_arg(shape), input.numel())
    strides = view_strides(input._shape, input.stride(), shape)
    if strides is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return shape, strides, input._offset


def _view_check(input, shape):
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, Size, int, np.integer,
                                                     Tensor)):
        raise NotImplementedError("Tensor.view(dtype) is not supported by torchlike")
    _view_meta(input, shape)


def _sizes(vals):
    shape = vals[1]
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, Size, int, np.integer,
                                                     Tensor)):
        return shape  # view(dtype): rejected by the check
    return shape_arg(shape)


register(OpSpec(
    "view", lambda input, shape: _view_fn(input, resolve_shape(
        _shape_arg(shape), int(np.prod(input.shape, dtype=np.int64)))),
    "input, *shape", function=False, promote="none", view=_view_meta, check=_view_check,
    saves=False, grad_name="ViewBackward0",
    samples=lambda: [S(arr(4, 4), 16, method=True), S(arr(4, 4), -1, 8, method=True),
                     S(arr(2, 3, 4), (6, 4), method=True), S(arr(), 1, method=True),
                     S(arr(0, 4), 4, 0, method=True)]))


def _reshape_meta(input, shape):
    shape = resolve_shape(_shape_arg(shape), input.numel())
    strides = view_strides(input._shape, input.stride(), shape)
    if strides is None:
        return None
    return shape, strides, input._offset


def _reshape_name(input, shape):
    return "ViewBackward0" if _reshape_meta(input, shape) is not None else \
        "UnsafeViewBackward0"


register(OpSpec(
    "reshape", lambda input, shape: _view_fn(input, resolve_shape(
        _shape_arg(shape), int(np.prod(input.shape, dtype=np.int64)))),
    "input, *shape", promote="none", view=_reshape_meta, saves=False, grad_name=_reshape_name,
    check=lambda input, shape: resolve_shape(_shape_arg(shape), input.numel()),
    samples=lambda: [S(arr(4, 4), (16,)), S(arr(4, 4), (-1, 2)), S(arr(2, 3, 4), (4, -1))]))


for _name in ("view", "reshape"):
    normalize_args(_name, keyword=("size", "shape"), shape=_sizes)


def _view_as_meta(input, other):
    return _view_meta(input, other._shape)


register(OpSpec(
    "view_as", lambda input, other: jnp.reshape(input, other.shape), "input, other",
    tensor_args=("input", "other"), function=False, promote="none", view=_view_as_meta,
    saves=False, grad_name="ViewBackward0",
    samples=lambda: [S(arr(4, 4), arr(2, 8), method=True)]))
register(OpSpec(
    "alias", lambda input: input, "input", promote="none", function=False, method=False,
    view=lambda input: (input._shape, input.stride(), input._offset), saves=False,
    grad_name="AliasBackward0", doc="``at::alias``: a view of all of ``input`` (not public "
    "in PyTorch either; ``as_subclass`` uses it)."))


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """Mirrors ``Tensor.as_subclass(cls)``: a ``cls`` instance over the same memory and
    version counter, attached to the autograd graph (its node is ``AliasBackward0``).
    Not routed through ``__torch_function__``, as in PyTorch."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit "
                        "from Tensor is not possible. Make sure your class inherits from "
                        "Tensor.")
    with DisableTorchFunction():
        out = call_op("alias", self)
    out.__class__ = cls
    return out


Tensor.as_subclass = as_subclass


register(OpSpec(
    "reshape_as", lambda input, other: jnp.reshape(input, other.shape), "input, other",
    tensor_args=("input", "other"), function=False, promote="none",
    view=lambda i, o: _reshape_meta(i, o._shape), saves=False, grad_name="ViewBackward0",
    samples=lambda: [S(arr(4, 4), arr(2, 8), method=True)]))


def _flatten_shape(shape, start_dim, end_dim):
    nd = len(shape)
    if nd == 0:
        return (1,)
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return tuple(shape[:s]) + (n,) + tuple(shape[e + 1:])


def _flatten_fn(input, start_dim=0, end_dim=-1):
    return jnp.reshape(input, _flatten_shape(input.shape, start_dim, end_dim))


def _flatten_meta(input, start_dim=0, end_dim=-1):
    shape = _flatten_shape(input._shape, start_dim, end_dim)
    if shape == input._shape:
        return input._shape, input.stride(), input._offset
    return _reshape_meta(input, shape)


register(OpSpec(
    "flatten", _flatten_fn, "input, start_dim=0, end_dim=-1", promote="none",
    view=_flatten_meta, saves=False, grad_name="ViewBackward0",
    check=lambda input, s=0, e=-1: _flatten_shape(input._shape, s, e),
    samples=lambda: [S(arr(2, 3, 4)), S(arr(2, 3, 4), 1), S(arr(2, 3, 4), 0, 1), S(arr())]))


def _unflatten_shape(shape, dim, sizes):
    d = wrap_dim(dim, len(shape))
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:   # (two -1s are resolve_shape's error)
        fits = sizes.count(-1) > 1 or (known != 0 and shape[d] % known == 0)
    else:
        fits = known == shape[d]
    if not fits:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                           f"the size of dim {d} ({shape[d]}) in the input tensor")
    sizes = resolve_shape(sizes, shape[d])
    return tuple(shape[:d]) + tuple(sizes) + tuple(shape[d + 1:])


register(OpSpec(
    "unflatten", lambda input, dim, sizes: jnp.reshape(
        input, _unflatten_shape(input.shape, dim, sizes)), "input, dim, sizes",
    promote="none", saves=False, grad_name="ViewBackward0",
    view=lambda input, dim, sizes: _reshape_meta(input, _unflatten_shape(input._shape, dim,
                                                                         sizes)),
    samples=lambda: [S(arr(2, 12), 1, (3, 4)), S(arr(2, 12), -1, (-1, 2))]))


# ---------------------------------------------------------------------------
# transpose / permute / t
def _transpose_fn(input, dim0, dim1):
    return jnp.swapaxes(input, dim0, dim1) if input.ndim else input


def _transpose_meta(input, dim0, dim1):
    nd = input.dim()
    if nd == 0:
        wrap_dim(dim0, 0)
        wrap_dim(dim1, 0)
        return (), (), input._offset
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    shape, stride = list(input._shape), list(input.stride())
    shape[d0], shape[d1] = shape[d1], shape[d0]
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return shape, stride, input._offset


register(OpSpec(
    "transpose", _transpose_fn, "input, dim0, dim1", promote="none", view=_transpose_meta,
    inplace=True, saves=False, aliases=("swapaxes", "swapdims"),
    check=lambda i, a, b: _transpose_meta(i, a, b),
    samples=lambda: [S(arr(3, 4), 0, 1), S(arr(2, 3, 4), -1, 0), S(arr(), 0, -1)]))


def _permute_dims(input, dims):
    dims = shape_arg(dims)
    nd = input.dim()
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    wrapped = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(wrapped)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return wrapped


def _permute_meta(input, dims):
    p = _permute_dims(input, dims)
    return ([input._shape[i] for i in p], [input.stride()[i] for i in p], input._offset)


def _permute_fn(input, dims):
    return jnp.transpose(input, [d % max(input.ndim, 1) for d in dims]) if input.ndim else input


register(OpSpec(
    "permute", _permute_fn, "input, *dims", promote="none", view=_permute_meta,
    check=_permute_meta, saves=False,
    samples=lambda: [S(arr(2, 3, 4), (2, 0, 1)), S(arr(2, 3, 4), (-1, 1, 0)),
                     S(arr(2, 3), 1, 0, method=True)]))
normalize_args("permute", keyword=("dims",), dims=_sizes)


def _t_meta(input):
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.dim()}D")
    if input.dim() < 2:
        return input._shape, input.stride(), input._offset
    return _transpose_meta(input, 0, 1)


register(OpSpec(
    "t", lambda input: input.T if input.ndim == 2 else input, "input", promote="none",
    view=_t_meta, check=_t_meta, inplace=True, saves=False, grad_name="TBackward0",
    samples=lambda: [S(arr(3, 4)), S(arr(3)), S(arr())]))


def _numpy_T_meta(input):
    nd = input.dim()
    return _permute_meta(input, tuple(range(nd - 1, -1, -1)))


def _T(self):
    """Mirrors ``Tensor.T``: all dimensions reversed."""
    from .dispatch import call_op
    return call_op("permute", self, tuple(range(self.dim() - 1, -1, -1)))


def _mT(self, what: str = "tensor.mT"):
    """Mirrors ``Tensor.mT``: the last two dimensions swapped (a view)."""
    if self.dim() < 2:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                           f"Got {self.dim()}-D tensor.")
    from .dispatch import call_op
    return call_op("transpose", self, -2, -1)


def _mH(self, what: str = "tensor.mH"):
    """Mirrors ``Tensor.mH``: ``mT``, conjugated for complex tensors."""
    t = _mT(self, what)
    return t.conj() if self.is_complex() else t


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.mH = property(_mH)
Tensor.H = property(lambda self: _mH(self) if self.dim() == 2 else _T(self))


def adjoint(input: Tensor) -> Tensor:
    """Mirrors ``torch.adjoint`` / ``Tensor.adjoint``: ``input.mH``, with PyTorch's error
    naming ``tensor.adjoint()`` for fewer than two dimensions."""
    return _mH(input, "tensor.adjoint()")


def detach(input: Tensor) -> Tensor:
    """Mirrors ``torch.detach``: ``input.detach()``."""
    if not isinstance(input, Tensor):
        raise TypeError("detach(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.detach()


Tensor.adjoint = adjoint
FUNCTIONS["adjoint"] = adjoint
FUNCTIONS["detach"] = detach
adjoint.__module__ = detach.__module__ = "torchlike"


# ---------------------------------------------------------------------------
# squeeze / unsqueeze / expand
def _squeeze_dims(input, dim):
    nd = input.dim()
    if dim is None:
        return tuple(i for i, s in enumerate(input._shape) if s == 1)
    dims = dim if isinstance(dim, tuple) else (dim,)
    return tuple(sorted({wrap_dim(d, nd) for d in dims
                         if nd and input._shape[wrap_dim(d, nd)] == 1}))


def _squeeze_meta(input, dim=None):
    if input.dim() == 0 and dim is not None:
        for d in (dim if isinstance(dim, tuple) else (dim,)):
            wrap_dim(d, 0)
    drop = set(_squeeze_dims(input, dim))
    shape = [s for i, s in enumerate(input._shape) if i not in drop]
    stride = [s for i, s in enumerate(input.stride()) if i not in drop]
    return shape, stride, input._offset


def _squeeze_fn(input, dim=None):
    if dim is None:
        return jnp.squeeze(input)
    dims = dim if isinstance(dim, tuple) else (dim,)
    nd = input.ndim
    if nd == 0:
        return input
    dims = tuple(sorted({d % nd for d in dims if input.shape[d % nd] == 1}))
    return jnp.squeeze(input, dims) if dims else input


def _squeeze_name(input, dim=None):
    if dim is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, tuple) else "SqueezeBackward1"


register(OpSpec(
    "squeeze", _squeeze_fn, "input, dim=None", promote="none", view=_squeeze_meta,
    check=_squeeze_meta, inplace=True, saves=False, grad_name=_squeeze_name,
    samples=lambda: [S(arr(1, 3, 1)), S(arr(1, 3, 1), 0), S(arr(1, 3, 1), 1),
                     S(arr(1, 3, 1), (0, 2)), S(arr()), S(arr(1, 3, 1), -1)]))


def _unsqueeze_meta(input, dim):
    nd = input.dim()
    d = wrap_dim(dim, nd + 1)
    shape, stride = list(input._shape), list(input.stride())
    new_stride = shape[d] * stride[d] if d < nd else 1
    shape.insert(d, 1)
    stride.insert(d, new_stride)
    return shape, stride, input._offset


register(OpSpec(
    "unsqueeze", lambda input, dim: jnp.expand_dims(input, dim % (input.ndim + 1)),
    "input, dim", promote="none", view=_unsqueeze_meta, check=_unsqueeze_meta, inplace=True,
    saves=False, samples=lambda: [S(arr(3, 4), 0), S(arr(3, 4), -1), S(arr(3, 4), 1),
                                  S(arr(), 0)]))


def _expand_shape(input_shape, sizes):
    sizes = _shape_arg(sizes)
    nd = len(input_shape)
    if len(sizes) < nd:
        raise RuntimeError(f"expand({_type_name(input_shape)}{{{shape_str(input_shape)}}}, "
                           f"size={shape_str(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({nd})")
    out = []
    lead = len(sizes) - nd
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension " + str(i))
            out.append(s)
        else:
            cur = input_shape[i - lead]
            if s == -1:
                out.append(cur)
            elif cur == 1 or cur == s:
                out.append(s)
            else:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({cur}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {shape_str(sizes)}.  Tensor sizes: "
                                   f"{shape_str(input_shape)}")
    return tuple(out)


def _type_name(shape):
    return "torch.FloatTensor"


def _expand_meta(input, sizes):
    shape = _expand_shape(input._shape, sizes)
    lead = len(shape) - input.dim()
    stride = []
    for i, s in enumerate(shape):
        if i < lead:
            stride.append(0)
        else:
            cur = input._shape[i - lead]
            stride.append(input.stride()[i - lead] if cur == s else 0)
    return shape, stride, input._offset


register(OpSpec(
    "expand", lambda input, sizes: jnp.broadcast_to(input, _expand_shape(input.shape, sizes)),
    "input, *sizes", function=False, promote="none", view=_expand_meta, check=_expand_meta,
    saves=False,
    samples=lambda: [S(arr(3, 1), 3, 4, method=True), S(arr(3, 1), (2, 3, -1), method=True),
                     S(arr(), 2, 2, method=True)]))
normalize_args("expand", keyword=("size",), sizes=_sizes)
register(OpSpec(
    "expand_as", lambda input, other: jnp.broadcast_to(input, other.shape), "input, other",
    tensor_args=("input", "other"), function=False, promote="none",
    view=lambda i, o: _expand_meta(i, o._shape), check=lambda i, o: _expand_meta(i, o._shape),
    saves=False, grad_name="ExpandBackward0",
    samples=lambda: [S(arr(3, 1), arr(3, 4), method=True)]))


# ---------------------------------------------------------------------------
# narrow / select / slice / diagonal / unfold
def slice_meta(shape, stride, offset, dim, start, stop, step):
    """Metadata of ``t[..., start:stop:step]`` along ``dim`` (Python slice semantics)."""
    n = shape[dim]
    start, stop, step = slice(start, stop, step).indices(n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    length = max(0, math.ceil((stop - start) / step))
    shape, stride = list(shape), list(stride)
    offset += start * stride[dim]
    shape[dim] = length
    stride[dim] *= step
    return shape, stride, offset


def _narrow_check(input, dim, start, length):
    nd = input.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    size = input._shape[d]
    if isinstance(start, Tensor):
        start = int(start)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return d, start


def _narrow_meta(input, dim, start, length):
    d, s = _narrow_check(input, dim, start, length)
    return slice_meta(input._shape, input.stride(), input._offset, d, s, s + length, 1)


def _narrow_fn(input, dim, start, length):
    d = dim % input.ndim
    s = start % input.shape[d] if start < 0 else start
    return jax_slice(input, d, s, s + length, 1)


def jax_slice(x, dim, start, stop, step):
    idx = [slice(None)] * x.ndim
    idx[dim] = slice(start, stop, step)
    return x[tuple(idx)]


register(OpSpec(
    "narrow", _narrow_fn, "input, dim, start, length", promote="none", view=_narrow_meta,
    check=_narrow_meta, saves=False, grad_name="SliceBackward0",
    samples=lambda: [S(arr(4, 5), 0, 1, 2), S(arr(4, 5), -1, -3, 2), S(arr(4, 5), 1, 0, 0)]))


def _select_check(input, dim, index):
    nd = input.dim()
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, nd)
    size = input._shape[d]
    if isinstance(index, Tensor):
        index = int(index)
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{shape_str(input._shape)} at dimension {d}")
    return d, index % size if size else index


def _select_meta(input, dim, index):
    d, i = _select_check(input, dim, index)
    shape, stride = list(input._shape), list(input.stride())
    offset = input._offset + i * stride[d]
    del shape[d], stride[d]
    return shape, stride, offset


def _select_fn(input, dim, index):
    # ``index`` is dynamic (see Note [Dynamic basic indexing]); bounds were checked eagerly.
    d = dim % input.ndim
    index = jnp.where(index < 0, index + input.shape[d], index)
    return jax.lax.dynamic_index_in_dim(input, index, d, keepdims=False)


def _select_index_arg(vals):
    index = vals[2]
    return int(index) if isinstance(index, Tensor) else index


register(OpSpec(
    "select", _select_fn, "input, dim, index", tensor_args=("input", "index"),
    promote="none", view=_select_meta, check=_select_meta, saves=False,
    samples=lambda: [S(arr(4, 5), 0, 1), S(arr(4, 5), 1, -1), S(arr(2, 3, 4), -1, 3)]))
normalize_args("select", index=_select_index_arg)


def _diag_meta(input, offset=0, dim1=0, dim2=1):
    nd = input.dim()
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, stride = list(input._shape), list(input.stride())
    off = input._offset
    if offset >= 0:
        n = max(min(shape[d1], shape[d2] - offset), 0)
        if n > 0:
            off += offset * stride[d2]
    else:
        n = max(min(shape[d1] + offset, shape[d2]), 0)
        if n > 0:
            off -= offset * stride[d1]
    new_stride = stride[d1] + stride[d2]
    keep = [i for i in range(nd) if i not in (d1, d2)]
    return ([shape[i] for i in keep] + [n], [stride[i] for i in keep] + [new_stride], off)


register(OpSpec(
    "diagonal", lambda input, offset=0, dim1=0, dim2=1: jnp.diagonal(input, offset, dim1, dim2),
    "input, offset=0, dim1=0, dim2=1", promote="none", view=_diag_meta, check=_diag_meta,
    saves=False,
    samples=lambda: [S(arr(4, 4)), S(arr(4, 5), 1), S(arr(4, 5), -2), S(arr(2, 3, 4), 0, 1, 2),
                     S(arr(3, 3), 5)]))


def _unfold_check(input, dimension, size, step):
    nd = input.dim()
    d = wrap_dim(dimension, nd)
    n = input._shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return d, n


def _unfold_meta(input, dimension, size, step):
    d, n = _unfold_check(input, dimension, size, step)
    if input.dim() == 0:
        return (size,), (1,), input._offset
    shape, stride = list(input._shape), list(input.stride())
    shape[d] = (n - size) // step + 1
    st = stride[d]
    stride[d] = st * step
    return shape + [size], stride + [st], input._offset


def _unfold_fn(input, dimension, size, step):
    if input.ndim == 0:
        return jnp.reshape(input, (1,))
    d = dimension % input.ndim
    n = input.shape[d]
    count = (n - size) // step + 1
    idx = (np.arange(count)[:, None] * step + np.arange(size)[None, :])
    out = jnp.take(input, jnp.asarray(idx), axis=d)  # (..., count, size, ...)
    return jnp.moveaxis(out, d + 1, -1)


register(OpSpec(
    "unfold", _unfold_fn, "input, dimension, size, step", function=False, promote="none",
    view=_unfold_meta, check=_unfold_meta, saves=False,
    samples=lambda: [S(arr(7), 0, 2, 1, method=True), S(arr(3, 8), 1, 3, 2, method=True)]))


# ---------------------------------------------------------------------------
# movedim
def _movedim_perm(nd, source, destination):
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} "
                           f"dims) should contain the same number of dims as destination "
                           f"({list(dst)} dims)")
    for name, given in (("source", src), ("destination", dst)):
        if len({wrap_dim(s, nd) for s in given}) != len(given):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
    src = [wrap_dim(s, nd) for s in src]
    dst = [wrap_dim(s, nd) for s in dst]
    order = [i for i in range(nd) if i not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    return tuple(p if p is not None else next(it) for p in perm)


def _movedim_meta(input, source, destination):
    p = _movedim_perm(input.dim(), source, destination)
    return _permute_meta(input, p)


register(OpSpec(
    "movedim", lambda input, source, destination: jnp.moveaxis(input, source, destination),
    "input, source, destination", promote="none", view=_movedim_meta, check=_movedim_meta,
    saves=False, grad_name="PermuteBackward0", aliases=("moveaxis",),
    samples=lambda: [S(arr(2, 3, 4), 0, -1), S(arr(2, 3, 4), (0, 1), (2, 0))]))


# ---------------------------------------------------------------------------
# internal ops used for writes through views and autograd of in-place ops
def _as_strided_fn(input, size, stride, offset):
    from .._core.storage import strided_index
    idx = strided_index(size, stride, offset)
    return jnp.reshape(input, (-1,))[jnp.asarray(idx)]


def _as_strided_scatter_fn(input, src, size, stride, offset):
    from .._core.storage import strided_index
    idx = strided_index(size, stride, offset).reshape(-1)
    flat = jnp.reshape(input, (-1,)).at[jnp.asarray(idx)].set(jnp.reshape(src, (-1,)))
    return jnp.reshape(flat, input.shape)


register(OpSpec(
    "_as_strided", _as_strided_fn, "input, size, stride, offset", promote="none",
    method=False, function=False, saves=False, grad_name="AsStridedBackward0",
    samples=lambda: []))
register(OpSpec(
    "_as_strided_scatter", _as_strided_scatter_fn, "input, src, size, stride, offset",
    tensor_args=("input", "src"), promote="self", method=False, function=False, saves=False,
    grad_name="CopySlices", samples=lambda: []))


_ = contiguous_strides
