"""The ``*_copy`` functions (``torchlike.permute_copy``, ``view_copy``, ...): each view op
of PyTorch's functionalization layer as a function that returns a new tensor instead of
a view. Declared in the op table (see ``torchlike/_ops/spec.py``).

Each op reuses its view op's pure function and checks (``views.py``, ``splitting.py``,
``strided.py``, ``complex_ops.py``) but declares no ``view`` metadata, so its result is a
fresh contiguous tensor (``_base`` is None; writing to it leaves the input alone). The
nodes are named as PyTorch names them: the view's node with ``_copy`` appended
(``PermuteBackward0_copy``), ``NarrowCopyBackward0`` for ``narrow_copy``.

# Note [out= of the copy variants]
# PyTorch's ``*_copy`` functions take ``out=``; the dispatcher has no ``out`` parameter,
# so ``_with_out`` wraps the op's dispatch function (``plan.run``, which the generated
# ``torchlike.<name>`` calls) before the table is bound. With ``out`` given, the op runs
# without autograd and its result is written into ``out`` as PyTorch's generated
# ``*_copy_out`` kernels do: ``out`` must have the result's dtype ("Expected out tensor
# to have dtype ..."), is resized when its shape differs (with PyTorch's deprecation
# warning when it held elements), and is returned. A leaf ``out`` that requires grad is
# refused; when an input (or ``out``) requires grad, the result gets PyTorch's
# ``NotImplemented`` node, whose backward raises "derivative for aten::<op> is not
# implemented". ``narrow_copy`` has a hand-written ``out`` kernel instead: it refuses
# any argument that requires grad, words its dtype error differently and resizes
# without a warning. The ops returning several tensors (``split_copy``,
# ``split_with_sizes_copy``, ``unbind_copy``) take a list of tensors, ``copy_`` each
# result into its tensor (broadcasting and casting as ``copy_`` does, never recording
# autograd) and return None.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.grad_mode import is_grad_enabled, no_grad
from .._core.size import Size
from .._core.tensor import Tensor, wrap_dim
from .bind import dtype_short_name, inplace_apply
from .out_param import resize_out
from .complex_ops import _view_as_complex_check, _view_as_real_check
from .dispatch import _plan_of, call_op
from .elementwise_common import tensors_only
from .histogram import _cpp, _no_derivative
from .reduction_common import _overloaded
from .samples import S, arr
from .spec import OPS, OpSpec, register
from .splitting import _split_fn, _split_meta, _split_with_sizes_meta, _unbind_fn, _unbind_meta
from .strided import _as_strided_fn, _check_set_strided, _int_tuple, as_strided_binder
from .view_scatter import _int_arg, _slice_shape
from .views import (
    _diag_meta,
    _expand_meta,
    _expand_shape,
    _permute_fn,
    _permute_meta,
    _select_fn,
    _select_index_arg,
    _select_meta,
    _squeeze_fn,
    _squeeze_meta,
    _squeeze_name,
    _t_meta,
    _transpose_fn,
    _transpose_meta,
    _unfold_check,
    _unfold_fn,
    _unsqueeze_meta,
    jax_slice,
    normalize_args,
    resolve_shape,
    shape_arg,
)

__all__: list = []

_NOT_IMPLEMENTED = "torch::autograd::NotImplemented"
_INPUT = {}   # name -> PyTorch's TypeError for a non-tensor ``input``


def _declare(name: str, fn, signature: str, *, check=None, grad_name=None, doc: str,
             samples, **kw) -> OpSpec:
    """Register the copy variant ``name`` with PyTorch's TypeError for a non-tensor
    ``input`` run before ``check``."""
    first = _INPUT[name] = tensors_only(name, ("input",), (0,))
    kw.setdefault("method", False)

    def full_check(*vals):
        first(*vals)
        if check is not None:
            check(*vals)
    return register(OpSpec(name, fn, signature, promote="none", saves=False,
                           check=full_check, grad_name=grad_name, doc=doc, samples=samples,
                           **kw))


# ---------------------------------------------------------------------------
# out= (Note [out= of the copy variants])
def _out_fn(result, input, out, op):
    return _no_derivative(op)(lax.stop_gradient(result), (input, out))


register(OpSpec(
    "_copy_out_no_derivative", _out_fn, "result, input, out, op",
    tensor_args=("result", "input", "out"), promote="none", function=False, method=False,
    saves=False, grad_name=_NOT_IMPLEMENTED, samples=lambda: []))
# the result is not one of PyTorch's inputs: no edge for it
OPS["_copy_out_no_derivative"].extra["_edge_info"] = (0, 1, 1)

# PyTorch's names of the ``out=`` kernels of the ops returning several tensors
_LIST_OUT_KERNEL = {"split_copy": "split_copy_Tensor_out()",
                    "split_with_sizes_copy": "split_with_sizes_copy_out",
                    "unbind_copy": "unbind_copy_int_out"}


_NARROW_DTYPE = ("Expected self.dtype() == output.dtype() to be true, but got false.  (Could "
                 "this error message be improved?  If so, please report an enhancement "
                 "request to PyTorch.)")


def _write_out(name: str, out: Tensor, res: Tensor, input) -> Tensor:
    """``res`` (computed without autograd) written into ``out`` as PyTorch's ``*_out``
    kernel and its autograd wrapper do; returns ``out``."""
    if res.dtype is not out.dtype:
        if name == "narrow_copy":
            raise RuntimeError(_NARROW_DTYPE)
        raise RuntimeError(f"Expected out tensor to have dtype {_cpp(res.dtype)}, but got "
                           f"{_cpp(out.dtype)} instead")
    resize_out(out, res._shape, warn=name != "narrow_copy")
    tracked = isinstance(input, Tensor) and input._requires_grad
    if is_grad_enabled() and (tracked or out._requires_grad):
        res = call_op("_copy_out_no_derivative", res, input, out, name)
    return inplace_apply(out, res, name)


def _with_out(name: str, several: bool = False) -> None:
    """Give ``torchlike.<name>`` PyTorch's ``out=`` keyword (Note [out= of the copy
    variants]); the Tensor method (``narrow_copy``) has none, as in PyTorch."""
    spec = OPS[name]
    spec.extra["out"] = True   # not the general out= (Note [out= of table functions])
    plan = _plan_of(spec)
    inner = plan.run

    def run(api, args, kwargs):
        if "out" not in kwargs or (spec.method_api is not None and api is spec.method_api):
            return inner(api, args, kwargs)
        kwargs = dict(kwargs)
        out = kwargs.pop("out")
        if out is None:
            return inner(api, args, kwargs)
        input = args[0] if args else kwargs.get("input")
        if several:
            if not isinstance(out, (list, tuple)) or not all(isinstance(o, Tensor)
                                                             for o in out):
                raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                                f"{type(out).__name__}")
            with no_grad():
                res = inner(api, args, kwargs)
                if len(out) != len(res):
                    raise RuntimeError(f"{_LIST_OUT_KERNEL[name]} expected an out= argument "
                                       f"of size {len(res)}, got size {len(out)}")
                for o, r in zip(out, res):
                    o.copy_(r)
            return None
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        if name == "narrow_copy":
            if is_grad_enabled() and (out._requires_grad or (isinstance(input, Tensor)
                                                              and input._requires_grad)):
                raise RuntimeError("narrow_copy(): functions with out=... arguments don't "
                                   "support automatic differentiation, but one of the "
                                   "arguments requires grad.")
        elif is_grad_enabled() and out._requires_grad and out.grad_fn is None:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        with no_grad():
            res = inner(api, args, kwargs)
        return _write_out(name, out, res, input)
    plan.run = run


# ---------------------------------------------------------------------------
# alias_copy / detach_copy / t_copy / transpose_copy / permute_copy
_declare(
    "alias_copy", lambda input: input, "input", grad_name="AliasBackward0_copy",
    doc="Mirrors ``torch.alias_copy(input, *, out=None)``: a new tensor equal to "
        "``input`` (not a view of it).",
    samples=lambda: [S(arr(2, 3)), S(arr()), S(arr(3, dtype="int64")),
                     S(arr(2, 2, dtype="complex64"), grad=False), S(arr(0, 2))])

_DETACH_ND = _no_derivative("detach_copy")
_declare(
    "detach_copy", lambda input: _DETACH_ND(lax.stop_gradient(input), (input,)), "input",
    grad_name=_NOT_IMPLEMENTED,
    doc="Mirrors ``torch.detach_copy(input, *, out=None)``: a new tensor equal to "
        "``input``. As in PyTorch, the result of an input that requires grad requires "
        "grad too, with a ``NotImplemented`` node whose backward raises \"derivative for "
        "aten::detach_copy is not implemented\" (use ``input.detach().clone()`` for a "
        "tensor without history).",
    samples=lambda: [S(arr(2, 3), grad=False), S(arr(), grad=False),
                     S(arr(4, dtype="int32"), grad=False)])

_declare(
    "t_copy", lambda input: input.T if input.ndim == 2 else input, "input",
    check=_t_meta, grad_name="TBackward0_copy",
    doc="Mirrors ``torch.t_copy(input, *, out=None)``: ``input.t()`` as a new contiguous "
        "tensor.",
    samples=lambda: [S(arr(3, 4)), S(arr(3)), S(arr()), S(arr(2, 3, dtype="float64")),
                     S(arr(2, 3, dtype="int64")), S(arr(2, 2, 2))])

_declare(
    "transpose_copy", _transpose_fn, "input, dim0, dim1", check=_transpose_meta,
    grad_name="TransposeBackward0_copy",
    doc="Mirrors ``torch.transpose_copy(input, dim0, dim1, *, out=None)``: "
        "``input.transpose(dim0, dim1)`` as a new contiguous tensor.",
    samples=lambda: [S(arr(3, 4), 0, 1), S(arr(2, 3, 4), -1, 0), S(arr(), 0, -1),
                     S(arr(2, 3, dtype="bool"), 1, 0), S(arr(3, 4), 0, 2)])
normalize_args("transpose_copy", dim0=_int_arg("transpose_copy", "dim0", 1),
               dim1=_int_arg("transpose_copy", "dim1", 2))

_declare(
    "permute_copy", _permute_fn, "input, dims", check=_permute_meta,
    grad_name="PermuteBackward0_copy",
    doc="Mirrors ``torch.permute_copy(input, dims, *, out=None)``: ``input.permute(dims)`` "
        "as a new contiguous tensor (its strides are contiguous, unlike the view's).",
    samples=lambda: [S(arr(2, 3, 4), (2, 0, 1)), S(arr(2, 3, 4), [-1, 1, 0]),
                     S(arr(2, 3), dims=(1, 0)), S(arr(), ()),
                     S(arr(2, 3, dtype="int64"), (1, 0)), S(arr(2, 3), (0,)),
                     S(arr(2, 3), (0, 0)), S(arr(2, 3), (0, 2))])
normalize_args("permute_copy", dims=lambda vals: shape_arg(vals[1]))


# ---------------------------------------------------------------------------
# squeeze_copy / unsqueeze_copy / expand_copy / view_copy
def _squeeze_dim(vals):
    dim = vals[1]
    if isinstance(dim, (list, Size)):
        return tuple(dim)
    return dim


_declare(
    "squeeze_copy", _squeeze_fn, "input, dim=None", check=_squeeze_meta,
    grad_name=lambda input, dim=None: _squeeze_name(input, dim) + "_copy",
    doc="Mirrors ``torch.squeeze_copy(input, dim=None, *, out=None)`` (``dim`` an int or "
        "a tuple of ints): ``input.squeeze(dim)`` as a new tensor.",
    samples=lambda: [S(arr(1, 3, 1)), S(arr(1, 3, 1), 0), S(arr(1, 3, 1), 1),
                     S(arr(1, 3, 1), (0, 2)), S(arr(1, 3, 1), [0, -1]), S(arr()),
                     S(arr(), -1), S(arr(1, 3, dtype="int32"), 0), S(arr(1, 3), 2)])
normalize_args("squeeze_copy", dim=_squeeze_dim)

_declare(
    "unsqueeze_copy", lambda input, dim: jnp.expand_dims(input, dim % (input.ndim + 1)),
    "input, dim", check=_unsqueeze_meta, grad_name="UnsqueezeBackward0_copy",
    doc="Mirrors ``torch.unsqueeze_copy(input, dim, *, out=None)``: "
        "``input.unsqueeze(dim)`` as a new tensor.",
    samples=lambda: [S(arr(3, 4), 0), S(arr(3, 4), -1), S(arr(3, 4), 1), S(arr(), 0),
                     S(arr(3, dtype="float64"), 1), S(arr(3, 4), 3)])
normalize_args("unsqueeze_copy", dim=_int_arg("unsqueeze_copy", "dim", 1))


def _size_arg(name: str):
    """A normaliser for a ``size`` parameter: a sequence of ints (PyTorch's TypeError for
    anything else)."""
    def norm(vals):
        size = vals[1]
        if not isinstance(size, (tuple, list, Size)):
            raise TypeError(f"{name}(): argument 'size' (position 2) must be tuple of ints, "
                            f"not {type(size).__name__}")
        return shape_arg(tuple(size))
    return norm


_declare(
    "expand_copy",
    lambda input, size, implicit=False: jnp.broadcast_to(input, _expand_shape(input.shape,
                                                                              size)),
    "input, size, *, implicit=False", check=lambda i, s, implicit=False: _expand_meta(i, s),
    grad_name="ExpandBackward0_copy",
    doc="Mirrors ``torch.expand_copy(input, size, *, implicit=False, out=None)``: "
        "``input.expand(size)`` as a new contiguous tensor (each broadcast element its own "
        "copy). ``implicit`` is accepted and ignored, as in PyTorch.",
    samples=lambda: [S(arr(3, 1), (3, 4)), S(arr(3, 1), [2, 3, -1]), S(arr(), (2, 2)),
                     S(arr(1, 3, dtype="int64"), (2, 3)), S(arr(3, 1), (3, 4), implicit=True),
                     S(arr(2, 3), (3, 3)), S(arr(2, 3), (3,)), S(arr(2, 3), (-1, 2, 3))])
normalize_args("expand_copy", size=_size_arg("expand_copy"))


_VIEW_COPY_OVERLOADS = ("view_copy() received an invalid combination of arguments - got "
                        "({got}), but expected one of:\n"
                        " * (Tensor input, torch.dtype dtype, *, Tensor out = None)\n"
                        " * (Tensor input, tuple of ints size, *, Tensor out = None)\n")


def _view_copy_size(vals):
    size = vals[1]
    if isinstance(size, _dt.dtype):
        return size
    if not isinstance(size, (tuple, list, Size)):
        got = ", ".join(type(v).__name__ if not isinstance(v, Tensor) else "Tensor"
                        for v in vals)
        raise TypeError(_VIEW_COPY_OVERLOADS.format(got=got))
    return shape_arg(tuple(size))


def _view_copy_fn(input, size):
    if isinstance(size, _dt.dtype):
        return _bitcast(input, size)
    return jnp.reshape(input, resolve_shape(size, int(np.prod(input.shape, dtype=np.int64))))


def _view_copy_check(input, size):
    if isinstance(size, _dt.dtype):
        _view_dtype_check(input, size)
    else:
        resolve_shape(size, input.numel())


# Note [view_copy with a dtype]
# ``view_copy(input, dtype)`` reinterprets the bytes of ``input``'s elements (read in
# row-major order) as ``dtype``. With a different element size the last dimension
# shrinks or grows by the size ratio, with PyTorch's checks on ``input``'s layout (the
# last dimension contiguous, the other strides and the offset divisible by the ratio
# when growing). The result never requires grad, as in PyTorch; the call is routed to
# the non-differentiable op ``_view_copy_dtype``.
def _view_dtype_check(input: Tensor, dtype) -> None:
    old, new = input.dtype.itemsize, dtype.itemsize
    if old == new:
        return
    what = f"to view {dtype_short_name(input.dtype)} as {dtype_short_name(dtype)} " \
           "(different element sizes)"
    if input.dim() == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    stride = input.stride()
    if old > new:
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
        return
    ratio = new // old
    if input._shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                           f"{input._shape[-1]}")
    if input._offset % ratio:
        raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but "
                           f"got {input._offset}")
    for d, s in enumerate(stride):
        if d == len(stride) - 1:
            if s != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {s}")
        elif s % ratio:
            raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but "
                               f"got {s}")


def _to_bytes(x):
    """``x``'s elements as bytes: shape ``x.shape + (itemsize,)``, uint8."""
    if jnp.iscomplexobj(x):
        x = jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)
        b = _to_bytes(x)
        return jnp.reshape(b, x.shape[:-1] + (b.shape[-1] * 2,))
    if x.dtype == jnp.bool_:
        return x.astype(jnp.uint8)[..., None]
    b = lax.bitcast_convert_type(x, jnp.uint8)
    return b if x.dtype.itemsize > 1 else b[..., None]


def _from_bytes(b, dt):
    """Bytes of shape ``S + (itemsize,)`` as elements of dtype ``dt`` (shape ``S``)."""
    if np.issubdtype(dt, np.complexfloating):
        half = b.shape[-1] // 2
        parts = _from_bytes(jnp.reshape(b, b.shape[:-1] + (2, half)),
                            np.dtype(np.float32 if dt == np.complex64 else np.float64))
        return lax.complex(parts[..., 0], parts[..., 1])
    if dt == np.bool_:
        return b[..., 0] != 0
    if dt.itemsize == 1:
        return lax.bitcast_convert_type(b[..., 0], dt)
    return lax.bitcast_convert_type(b, dt)


def _bitcast(x, dtype):
    new = np.dtype(dtype.np)
    b = _to_bytes(x)
    shape = x.shape
    if shape:
        shape = shape[:-1] + (shape[-1] * b.shape[-1] // new.itemsize,)
    return _from_bytes(jnp.reshape(b, shape + (new.itemsize,)), new)


def _view_copy_samples():
    return [S(arr(4, 4), (16,)), S(arr(4, 4), [-1, 8]), S(arr(2, 3, 4), Size((6, 4))),
            S(arr(), (1,)), S(arr(0, 4), (4, 0)), S(arr(2, 3, dtype="int64"), (3, 2)),
            S(arr(2, 3), size=(6,)), S(arr(2, 3), (4,)), S(arr(2, 3), (-1, -1)),
            S(arr(2, 3), (-2, 3)),
            S(arr(2, 3), _dt.int32, grad=False), S(arr(2, 4), _dt.float16, grad=False),
            S(arr(2, 4), _dt.float64, grad=False), S(arr(2, 4), _dt.complex64, grad=False),
            S(arr(3, dtype="complex64"), _dt.float32, grad=False),
            S(arr(3, dtype="complex64"), _dt.int64, grad=False),
            S(arr(2, 3, dtype="uint8"), _dt.bool, grad=False),
            S(arr(2, 3, dtype="int64"), _dt.float64, grad=False),
            S(arr(2, 2, dtype="bfloat16"), _dt.int16, grad=False),
            S(arr(2, 3), _dt.float64, grad=False), S(arr(), _dt.float16, grad=False),
            S(arr(), _dt.int32, grad=False)]


_declare(
    "view_copy", _view_copy_fn, "input, size", check=_view_copy_check,
    grad_name="ViewBackward0_copy",
    doc="Mirrors ``torch.view_copy(input, size, *, out=None)`` and "
        "``torch.view_copy(input, dtype, *, out=None)``: ``input.view(size)`` as a new "
        "tensor (any layout of ``input`` works, the result being a copy), or ``input``'s "
        "elements reinterpreted as ``dtype`` (Note [view_copy with a dtype]).",
    samples=_view_copy_samples)
normalize_args("view_copy", size=_view_copy_size)
register(OpSpec(
    "_view_copy_dtype", _view_copy_fn, "input, size", promote="none", function=False,
    method=False, differentiable=False, check=_view_copy_check, samples=lambda: []))


# ---------------------------------------------------------------------------
# diagonal_copy / narrow_copy / select_copy / slice_copy / unfold_copy
_declare(
    "diagonal_copy",
    lambda input, offset=0, dim1=0, dim2=1: jnp.diagonal(input, offset, dim1, dim2),
    "input, offset=0, dim1=0, dim2=1", check=_diag_meta, grad_name="DiagonalBackward0_copy",
    doc="Mirrors ``torch.diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None)``: "
        "``input.diagonal(offset, dim1, dim2)`` as a new tensor.",
    samples=lambda: [S(arr(4, 4)), S(arr(4, 5), 1), S(arr(4, 5), -2),
                     S(arr(2, 3, 4), 0, 1, 2), S(arr(3, 3), 5),
                     S(arr(3, 3, dtype="int64"), dim1=1, dim2=0), S(arr(4, 4), 0, 1, 1),
                     S(arr(3)), S(arr(3, 3), 0, 0, 2)])
normalize_args("diagonal_copy", **{
    k: _int_arg("diagonal_copy", k, i) for i, k in enumerate(("offset", "dim1", "dim2"),
                                                             start=1)})


def _narrow_copy_check(input, dim, start, length):
    """``narrow_copy``'s own checks (its dense kernel, not ``narrow``'s)."""
    nd = input.dim()
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= nd:   # a negative one is wrapped (and checked) as usual
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be "
                           "true, but got false.  (Could this error message be improved?  If "
                           "so, please report an enhancement request to PyTorch.)")
    size = input._shape[wrap_dim(dim, nd)]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if length < 0 or start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")


def _narrow_copy_fn(input, dim, start, length):
    d = dim % input.ndim
    s = start + input.shape[d] if start < 0 else start
    return jax_slice(input, d, s, s + length, 1)


_declare(
    "narrow_copy", _narrow_copy_fn, "input, dim, start, length", check=_narrow_copy_check,
    method=True, grad_name="NarrowCopyBackward0",
    doc="Mirrors ``torch.narrow_copy(input, dim, start, length, *, out=None)`` and "
        "``Tensor.narrow_copy`` (which has no ``out``): ``input.narrow(dim, start, length)`` "
        "as a new tensor, with ``narrow_copy``'s own error messages.",
    samples=lambda: [
        S(arr(4, 5), 0, 1, 2), S(arr(4, 5), -1, -3, 2), S(arr(4, 5), 1, 0, 0),
        S(arr(2, 3), 0, 1, 5), S(arr(4, 5), 1, 5, 0), S(arr(4, 5, dtype="int64"), 1, 2, 3),
        S(arr(4, 5), 1, 1, 3, method=True), S(arr(4, 5), 2, 0, 1), S(arr(4, 5), -3, 0, 1),
        S(arr(4, 5), 0, 5, 1), S(arr(4, 5), 0, -5, 1), S(arr(4, 5), 0, 1, 4),
        S(arr(4, 5), 0, 0, -1), S(arr(), 0, 0, 1)])

_declare(
    "select_copy", _select_fn, "input, dim, index", tensor_args=("input", "index"),
    check=_select_meta, grad_name="SelectBackward0_copy",
    doc="Mirrors ``torch.select_copy(input, dim, index, *, out=None)``: "
        "``input.select(dim, index)`` as a new tensor.",
    samples=lambda: [S(arr(4, 5), 0, 1), S(arr(4, 5), 1, -1), S(arr(2, 3, 4), -1, 3),
                     S(arr(4, dtype="int32"), 0, 2), S(arr(4, 5), 0, 4), S(arr(4, 5), 2, 0),
                     S(arr(), 0, 0)])
normalize_args("select_copy", index=_select_index_arg)
# the index is not one of PyTorch's differentiable inputs: no edge for it
OPS["select_copy"].extra["_edge_info"] = (1, 0)


def _slice_copy_fn(input, dim=0, start=None, end=None, step=1):
    return jax_slice(input, dim % input.ndim, start, end, step)


_declare(
    "slice_copy", _slice_copy_fn, "input, dim=0, start=None, end=None, step=1",
    check=lambda input, *rest: _slice_shape(input, *rest), grad_name="SliceBackward0_copy",
    doc="Mirrors ``torch.slice_copy(input, dim=0, start=None, end=None, step=1, *, "
        "out=None)``: ``input[..., start:end:step]`` (along ``dim``) as a new tensor.",
    samples=lambda: [S(arr(3, 4), 1, 1, 3), S(arr(3, 4), 1, 0, None, 2), S(arr(3, 4)),
                     S(arr(3, 4), start=-2), S(arr(3, 4), 0, 5), S(arr(3, 4), 1, 2, 1),
                     S(arr(3, 4), 1, -10, 10), S(arr(2, 5, 3, dtype="float64"), -2, 1, -1, 2),
                     S(arr(3, 4, dtype="int32"), -1, 3), S(arr(3, 4), step=0),
                     S(arr(3, 4), 0, 0, 2, -1), S(arr(3, 4), dim=2), S(arr())])
normalize_args("slice_copy", **{
    k: _int_arg("slice_copy", k, i) for i, k in enumerate(("dim", "start", "end", "step"),
                                                          start=1)})


def _unfold_copy_check(input, dimension, size, step):
    if input.dim():
        wrap_dim(dimension, input.dim())
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    _unfold_check(input, dimension, size, step)


def _unfold_copy_fn(input, dimension, size, step):
    if input.ndim == 0:
        return jnp.reshape(input, (1,))[:size]
    return _unfold_fn(input, dimension, size, step)


_declare(
    "unfold_copy", _unfold_copy_fn, "input, dimension, size, step", check=_unfold_copy_check,
    grad_name="UnfoldBackward0_copy",
    doc="Mirrors ``torch.unfold_copy(input, dimension, size, step, *, out=None)``: "
        "``input.unfold(dimension, size, step)`` (windows of ``size`` along ``dimension``, "
        "``step`` apart, in a new last dimension) as a new contiguous tensor.",
    samples=lambda: [S(arr(7), 0, 2, 1), S(arr(3, 8), 1, 3, 2), S(arr(3, 8), -2, 2, 1),
                     S(arr(), 0, 1, 1), S(arr(), 0, 0, 1), S(arr(3, 4), 1, 0, 1),
                     S(arr(3, 8, dtype="int64"), 1, 8, 3), S(arr(3, 4), 1, 5, 1),
                     S(arr(3, 4), 1, 2, 0), S(arr(3, 4), 1, -1, 1), S(arr(3, 4), 2, 2, 1),
                     S(arr(), 0, 2, 1)])
normalize_args("unfold_copy", **{
    k: _int_arg("unfold_copy", k, i) for i, k in enumerate(("dimension", "size", "step"),
                                                           start=1)})


# ---------------------------------------------------------------------------
# split_copy / split_with_sizes_copy / unbind_copy
def _split_size_arg(vals):
    v = vals[1]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer, Tensor)):
        raise TypeError(f"split_copy(): argument 'split_size' (position 2) must be int, not "
                        f"{type(v).__name__}")
    return int(v)


def _split_sizes_arg(vals):
    v = vals[1]
    if not isinstance(v, (tuple, list, Size)):
        raise TypeError(f"split_with_sizes_copy(): argument 'split_sizes' (position 2) must "
                        f"be tuple of ints, not {type(v).__name__}")
    return _int_tuple("split_with_sizes_copy", "split_sizes", 2, v)


def _one_dim_at_least(input: Tensor) -> None:
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")


_declare(
    "split_copy", _split_fn, "input, split_size, dim=0",
    check=lambda i, s, d=0: (_one_dim_at_least(i), _split_meta(i, s, d)),
    grad_name="SplitBackward0_copy",
    doc="Mirrors ``torch.split_copy(input, split_size, dim=0, *, out=None)``: "
        "``input.split(split_size, dim)`` (an int ``split_size``) as a tuple of new "
        "tensors; with ``out`` (a list of tensors) each piece is copied into its tensor "
        "and None is returned.",
    samples=lambda: [S(arr(5, 2), 2), S(arr(3, 6), 4, 1), S(arr(3, 6), 6, -1),
                     S(arr(0, 2), 0), S(arr(5, 2, dtype="int64"), 3),
                     S(arr(5, 2), [1, 4]), S(arr(5, 2), -1), S(arr(5, 2), 0), S(arr(), 1),
                     S(arr(5, 2), 1, 2)])
normalize_args("split_copy", split_size=_split_size_arg,
               dim=_int_arg("split_copy", "dim", 2))

_declare(
    "split_with_sizes_copy", _split_fn, "input, split_sizes, dim=0",
    check=lambda i, s, d=0: (_one_dim_at_least(i), _split_with_sizes_meta(i, s, d)),
    grad_name="SplitWithSizesBackward0_copy",
    doc="Mirrors ``torch.split_with_sizes_copy(input, split_sizes, dim=0, *, out=None)``: "
        "``input.split_with_sizes(split_sizes, dim)`` as a tuple of new tensors; with "
        "``out`` (a list of tensors) each piece is copied into its tensor and None is "
        "returned.",
    samples=lambda: [S(arr(5, 2), [1, 4]), S(arr(3, 6), (2, 0, 4), -1),
                     S(arr(3, 6), [3, 3], 1), S(arr(3, 6, dtype="int32"), [6], 1),
                     S(arr(3, 6), [2, 3], 1), S(arr(3, 6), [2, -1, 5], 1),
                     S(arr(3, 6), 2, 1), S(arr(3, 6), [3], 2)])
normalize_args("split_with_sizes_copy", split_sizes=_split_sizes_arg,
               dim=_int_arg("split_with_sizes_copy", "dim", 2))

_declare(
    "unbind_copy", _unbind_fn, "input, dim=0", check=_unbind_meta,
    grad_name="UnbindBackward0_copy",
    doc="Mirrors ``torch.unbind_copy(input, dim=0, *, out=None)``: ``input.unbind(dim)`` "
        "as a tuple of new tensors; with ``out`` (a list of tensors) each slice is copied "
        "into its tensor and None is returned.",
    samples=lambda: [S(arr(3, 2)), S(arr(3, 2), 1), S(arr(2, 3, 4), -1),
                     S(arr(2, 3, dtype="int64"), 1), S(arr(0, 3)), S(arr()), S(arr(3, 2), 2)])
normalize_args("unbind_copy", dim=_int_arg("unbind_copy", "dim", 1))


# ---------------------------------------------------------------------------
# as_strided_copy
_as_strided_copy_binder = as_strided_binder("as_strided_copy")


def _as_strided_copy_samples():
    return [S(arr(12), (3, 3), (3, 1)), S(arr(12), (3, 3), (1, 1)),
            S(arr(12), (2, 2), (4, 1), 3), S(arr(3, 4), (4, 3), (1, 4)),
            S(arr(3, 4), (2, 2, 2), (0, 4, 1), 1), S(arr(6), (), (), 5),
            S(arr(6, dtype="int64"), (2, 2), (1, 2)), S(arr(), (3,), (0,)),
            S(arr(12), (3, 5), (4, 1), 1), S(arr(12), (3, 3), (4,)),
            S(arr(12), (3, 3), (4, -1)), S(arr(12), (3,), (1,), -1)]


_overloaded(OpSpec(
    "as_strided_copy", _as_strided_fn,
    "input, size, stride, storage_offset, _storage, _geometry",
    tensor_args=("input", "_storage"), promote="none", method=False, saves=False,
    check=lambda i, size, stride, off, *_: _check_set_strided(i, size, stride, off),
    grad_name="AsStridedBackward0_copy",
    doc="Mirrors ``torch.as_strided_copy(input, size, stride, storage_offset=None, *, "
        "out=None)``: ``input.as_strided(size, stride, storage_offset)`` (over ``input``'s "
        "storage, the offset defaulting to ``input``'s) as a new contiguous tensor; "
        "overlapping windows accumulate their gradients, as in PyTorch.",
    samples=_as_strided_copy_samples), _as_strided_copy_binder)
# the storage argument is not one of PyTorch's: no edge in ``next_functions``
OPS["as_strided_copy"].extra["_edge_info"] = (1, 0)


# ---------------------------------------------------------------------------
# view_as_real_copy / view_as_complex_copy
_declare(
    "view_as_real_copy", lambda input: jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1),
    "input", check=_view_as_real_check, grad_name="ViewAsRealBackward0_copy",
    doc="Mirrors ``torch.view_as_real_copy(input, *, out=None)``: a complex tensor of "
        "shape ``S`` as a new real tensor of shape ``S + (2,)``.",
    samples=lambda: [S(arr(3, dtype="complex64")), S(arr(2, 3, dtype="complex128")),
                     S(arr(dtype="complex64")), S(arr(3))])


def _view_as_complex_copy_check(input):
    _view_as_complex_check(input)
    if is_grad_enabled() and input._requires_grad:
        raise RuntimeError("view_as_complex_copy does not support automatic "
                           "differentiation for outputs with complex dtype.")


_declare(
    "view_as_complex_copy", lambda input: lax.complex(input[..., 0], input[..., 1]), "input",
    check=_view_as_complex_copy_check, grad_name="ViewAsComplexBackward0_copy",
    doc="Mirrors ``torch.view_as_complex_copy(input, *, out=None)``: a Float/Double tensor "
        "whose last dimension has size 2 (and stride 1) as a new complex tensor, with "
        "PyTorch's checks of ``view_as_complex``. As in PyTorch, an input that requires "
        "grad is refused while grad mode is on (RuntimeError). Difference: Half inputs "
        "raise NotImplementedError (PyTorch gives complex32, which torchlike lacks).",
    samples=lambda: [S(arr(3, 2), grad=False), S(arr(2, 3, 2, dtype="float64"), grad=False),
                     S(arr(2), grad=False), S(arr(3, 3), grad=False),
                     S(arr(), grad=False), S(arr(3, 2, dtype="int64"), grad=False)])


# ---------------------------------------------------------------------------
# the dtype overload of view_copy, then out= (which wraps it)
def _route_dtype() -> None:
    """``view_copy(input, dtype)`` runs the non-differentiable ``_view_copy_dtype``
    (Note [view_copy with a dtype])."""
    plan = _plan_of(OPS["view_copy"])
    inner = plan.run
    dtype_run = _plan_of(OPS["_view_copy_dtype"]).run

    def run(api, args, kwargs):
        if len(args) > 2:   # PyTorch's parser lists both overloads
            got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__
                            for v in args)
            raise TypeError(_VIEW_COPY_OVERLOADS.format(got=got))
        size = args[1] if len(args) > 1 else kwargs.get("size", kwargs.get("dtype"))
        if isinstance(size, _dt.dtype) and len(args) <= 2:
            if "dtype" in kwargs:
                kwargs = dict(kwargs)
                kwargs["size"] = kwargs.pop("dtype")
            return dtype_run(api, args, kwargs)
        return inner(api, args, kwargs)
    plan.run = run


_route_dtype()
for _name in ("alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
              "narrow_copy", "permute_copy", "select_copy", "slice_copy", "squeeze_copy",
              "t_copy", "transpose_copy", "unfold_copy", "unsqueeze_copy",
              "view_as_complex_copy", "view_as_real_copy", "view_copy"):
    _with_out(_name)
for _name in ("split_copy", "split_with_sizes_copy", "unbind_copy"):
    _with_out(_name, several=True)
