"""Shape ops that make new tensors: repetition and rearrangement (``repeat``,
``repeat_interleave``, ``tile``, ``flip``, ``roll``, ``rot90``), triangles and diagonals
(``tril``, ``triu``, ``diag*``), ``broadcast_to``, ``ravel``, and the
in-place-only writers ``fill_``, ``zero_``, ``copy_``, ``fill_diagonal_``. Each is
declared once; see spec.py.

Composite helpers built from these and from the view ops (``broadcast_tensors``,
``meshgrid``, ``atleast_*d``, ``fliplr``/``flipud``) are plain functions at the end.
Joining ops are in joining.py, gather/scatter in scatter.py, the ``index_*``, masked and
``take``/``put`` ops in index_ops.py."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.size import Size
from .._core.storage import contiguous_strides
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .bind import FUNCTIONS, check_inplace_target, inplace_apply
from .samples import S, arr
from .shape_common import _host_values
from .spec import OPS, OpSpec, register
from .views import (_expand_meta, _expand_shape, _reshape_meta, _sizes, normalize_args, shape_arg)

__all__ = ["broadcast_tensors", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d",
           "fliplr", "flipud", "broadcast_shapes"]


def _is_int_tensor(t) -> bool:
    return isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex
                                          or t.dtype is _dt.bool)


# ---------------------------------------------------------------------------
# repeat / repeat_interleave / tile
def _repeat_check(input, sizes):
    if len(sizes) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    lead = len(sizes) - input.dim()
    shape = [s * (input._shape[i - lead] if i >= lead else 1) for i, s in enumerate(sizes)]
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{shape_str(shape)}")


def _repeat_fn(input, sizes):
    lead = len(sizes) - input.ndim
    x = jnp.reshape(input, (1,) * lead + input.shape)
    return jnp.tile(x, sizes)


register(OpSpec(
    "repeat", _repeat_fn, "input, *sizes", function=False, promote="none",
    check=_repeat_check,
    samples=lambda: [S(np.array([1, 2, 3]), 4, 2, method=True, grad=False),
                     S(np.array([1, 2, 3]), 4, 2, 1, method=True, grad=False),
                     S(arr(2, 3), 2, 1, method=True), S(arr(2, 3), (1, 2, 2), method=True),
                     S(arr(), 3, method=True), S(arr(2, 3), 0, 2, method=True),
                     S(arr(2, 3), 2, method=True), S(arr(2, 3), -1, 2, method=True)]))
normalize_args("repeat", keyword=("repeats",), sizes=lambda vals: _sizes(vals))


def _repeats_value(repeats):
    if isinstance(repeats, Tensor):
        h = _host_values(repeats)
        return None if h is None else h
    return np.asarray(repeats)


def _ri_check(input, repeats=None, dim=None, output_size=None):
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if not _is_int_tensor(input):
            raise RuntimeError("repeats has to be Long or Int tensor")
        h = _repeats_value(input)
        if h is not None and (h < 0).any():
            raise RuntimeError("repeats can not be negative")
        return
    if dim is not None:
        wrap_dim(dim, input.dim())
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        n = input._shape[wrap_dim(dim, input.dim())] if dim is not None and input.dim() \
            else input.numel()
        if repeats.numel() != 1 and repeats.numel() != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size("
                               f"{0 if dim is None else wrap_dim(dim, input.dim())}) = {n}")
        h = _repeats_value(repeats)
        if h is not None and (h < 0).any():
            raise RuntimeError("repeats can not be negative")
    elif repeats < 0:
        raise RuntimeError("Repeats must be non-negative")


def _ri_output_size(vals):
    input, repeats, dim, output_size = vals
    if output_size is not None:
        return output_size
    if repeats is None:
        h = _repeats_value(input) if isinstance(input, Tensor) else None
        return None if h is None else int(h.sum())
    if not isinstance(input, Tensor):
        return None
    if not isinstance(repeats, Tensor):
        n = input._shape[dim % input.dim()] if dim is not None and input.dim() else \
            input.numel()
        return int(repeats) * n
    h = _repeats_value(repeats)
    if h is None:
        from .._core.traced import concretization_error
        raise concretization_error()
    if h.size == 1:
        n = input._shape[dim % input.dim()] if dim is not None and input.dim() else \
            input.numel()
        return int(h.reshape(-1)[0]) * n
    return int(h.sum())


def _ri_fn(input, repeats=None, dim=None, output_size=None):
    if repeats is None:
        r = jnp.reshape(input, (-1,))
        return jnp.repeat(jnp.arange(r.shape[0], dtype=input.dtype), r,
                          total_repeat_length=output_size)
    if dim is None:
        input = jnp.reshape(input, (-1,))
        axis = 0
    else:
        axis = dim % max(input.ndim, 1)
        if input.ndim == 0:
            input = jnp.reshape(input, (1,))
    r = jnp.reshape(jnp.asarray(repeats, jnp.int64), (-1,))
    if r.shape[0] == 1:
        r = jnp.broadcast_to(r, (input.shape[axis],))
    return jnp.repeat(input, r, axis=axis, total_repeat_length=output_size)


register(OpSpec(
    "repeat_interleave", _ri_fn, "input, repeats=None, dim=None, *, output_size=None",
    tensor_args=("input", "repeats"), promote_args=("input",), check=_ri_check,
    doc="Mirrors ``torch.repeat_interleave``. With tensor ``repeats`` and no "
        "``output_size`` the output size is read on the host.",
    samples=lambda: [
        S(np.array([1, 2, 3]), 2, grad=False), S(np.array([[1, 2], [3, 4]]), 2, grad=False),
        S(np.array([[1, 2], [3, 4]]), 3, dim=1, grad=False),
        S(np.array([[1, 2], [3, 4]]), np.array([1, 2]), dim=0, grad=False),
        S(np.array([[1, 2], [3, 4]]), np.array([1, 2]), dim=0, output_size=3, grad=False),
        S(arr(2, 3), np.array([2, 0, 1]), dim=-1), S(arr(2, 3), 2, 0), S(arr(2, 3), 3),
        S(arr(2, 3), np.array([3]), 0), S(arr(), 2), S(np.array([1, 0, 2])),
        S(arr(2, 3), np.array([1, 2, 3]), dim=0), S(arr(2, 3), -1)]))
normalize_args("repeat_interleave", output_size=_ri_output_size)


def _tile_fn(input, dims):
    dims = tuple(dims)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return _repeat_fn(input, dims)


register(OpSpec(
    "tile", _tile_fn, "input, dims", promote="none", grad_name="RepeatBackward0",
    check=lambda input, dims: _repeat_check(
        input, (1,) * max(input.dim() - len(dims), 0) + tuple(dims)),
    samples=lambda: [S(arr(3), (2,)), S(arr(2, 2), (2,)), S(arr(2, 3), (1, 2, 2)),
                     S(np.array([1, 2]), (2, 2), grad=False), S(arr(), (3,))]))
normalize_args("tile", dims=lambda vals: shape_arg(vals[1]))


# ---------------------------------------------------------------------------
# flip / roll / rot90
def _flip_dims(input, dims):
    nd = input.dim()
    out = []
    for d in dims:
        w = wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def _flip_fn(input, dims):
    if input.ndim == 0:
        return input
    return jnp.flip(input, tuple(d % input.ndim for d in dims)) if dims else input


register(OpSpec(
    "flip", _flip_fn, "input, *dims", promote="none", saves=False,
    check=lambda input, dims: _flip_dims(input, dims),
    samples=lambda: [S(arr(2, 3), (0,)), S(arr(2, 3, 4), (0, -1)), S(arr(2, 3), [1]),
                     S(arr(2, 3), 0, 1, method=True), S(arr(), (0,)),
                     S(arr(3, dtype="int64"), (0,), grad=False), S(arr(2, 3), (0, 0))]))
normalize_args("flip", keyword=("dims",), dims=lambda vals: _sizes(vals))


def _roll_check(input, shifts, dims=None):
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, "
                           f"dims:{len(ds)}")
    for d in ds:
        wrap_dim(d, input.dim())


def _roll_fn(input, shifts, dims=None):
    if dims is None:
        sh = shifts if isinstance(shifts, int) else shifts[0]
        return jnp.reshape(jnp.roll(jnp.reshape(input, (-1,)), sh), input.shape)
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    ds = (dims,) if isinstance(dims, int) else tuple(dims)
    return jnp.roll(input, sh, tuple(d % max(input.ndim, 1) for d in ds))


register(OpSpec(
    "roll", _roll_fn, "input, shifts, dims=None", promote="none", saves=False,
    check=_roll_check,
    samples=lambda: [S(arr(4, 2), 1), S(arr(4, 2), 1, 0), S(arr(4, 2), -1, 0),
                     S(arr(4, 2), (2, 1), (0, 1)), S(arr(2, 3, dtype="int64"), 5, -1, grad=False),
                     S(arr(2, 3), 1, (0, 1))]))


def _rot90_check(input, k=1, dims=None):
    dims = (0, 1) if dims is None else tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = wrap_dim(dims[0], input.dim()), wrap_dim(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")


def _rot90_fn(input, k=1, dims=None):
    dims = (0, 1) if dims is None else dims
    return jnp.rot90(input, k, axes=tuple(d % input.ndim for d in dims))


register(OpSpec(
    "rot90", _rot90_fn, "input, k=1, dims=None", promote="none", saves=False, check=_rot90_check,
    samples=lambda: [S(arr(2, 3)), S(arr(2, 3), 2), S(arr(2, 3), -1), S(arr(2, 3, 4), 1, (2, 0)),
                     S(arr(2, 3), 0), S(arr(2, 3), 5, [1, 0]), S(arr(2, 3), 1, (0, 0)),
                     S(arr(3), 1)]))


# ---------------------------------------------------------------------------
# triangles and diagonals
def _tri_check(name):
    def check(input, diagonal=0):
        if input.dim() < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return check


for _name, _f in (("tril", jnp.tril), ("triu", jnp.triu)):
    register(OpSpec(
        _name, lambda input, diagonal=0, _f=_f: _f(input, diagonal), "input, diagonal=0",
        promote="none", inplace=True, saves=False, check=_tri_check(_name),
        samples=lambda: [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(4, 3), -1),
                         S(arr(2, 3, 3, dtype="float64"), diagonal=2),
                         S(arr(3, 3, dtype="int64"), grad=False), S(arr(0, 3)), S(arr(3), 0),
                         S(arr(3, 3), 10)]))


def _diag_check(input, diagonal=0):
    if input.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def _diag_fn(input, diagonal=0):
    if input.ndim == 1:
        return jnp.diag(input, diagonal)
    return jnp.diagonal(input, diagonal)


register(OpSpec(
    "diag", _diag_fn, "input, diagonal=0", promote="none", saves=False, check=_diag_check,
    grad_name=lambda i, d=0: "DiagEmbedBackward0" if i.dim() == 1 else "DiagonalBackward0",
    samples=lambda: [S(arr(3)), S(arr(3), 1), S(arr(3), -2), S(arr(3, 4)), S(arr(3, 4), 2),
                     S(arr(3, 4), -1), S(arr(3, 4), 7), S(arr(2, dtype="int64"), grad=False),
                     S(arr(2, 2, 2)), S(arr())]))


def _diag_embed_dims(nd, offset, dim1, dim2):
    d1, d2 = wrap_dim(dim1, nd + 1), wrap_dim(dim2, nd + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _diag_embed_fn(input, offset=0, dim1=-2, dim2=-1):
    nd = input.ndim
    d1, d2 = _diag_embed_dims(nd, offset, dim1, dim2)
    m = input.shape[-1] if nd else 1
    x = jnp.reshape(input, (1,)) if nd == 0 else input
    n = m + abs(offset)
    rows = jnp.arange(m) + max(-offset, 0)
    cols = jnp.arange(m) + max(offset, 0)
    out = jnp.zeros(x.shape[:-1] + (n, n), input.dtype).at[..., rows, cols].set(x)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


register(OpSpec(
    "diag_embed", _diag_embed_fn, "input, offset=0, dim1=-2, dim2=-1", promote="none",
    saves=False, check=lambda i, o=0, a=-2, b=-1: _diag_embed_dims(i.dim(), o, a, b),
    samples=lambda: [S(arr(3)), S(arr(2, 3)), S(arr(2, 3), 1), S(arr(2, 3), -2, 0, 2),
                     S(arr(2, 3), 0, 2, 0), S(arr(2, 3, dtype="int64"), grad=False),
                     S(arr(2, 3), 0, 0, 0)]))
register(OpSpec(
    "diagflat", lambda input, offset=0: jnp.diag(jnp.reshape(input, (-1,)), offset),
    "input, offset=0", promote="none", saves=False, grad_name="DiagEmbedBackward0",
    samples=lambda: [S(arr(3)), S(arr(2, 2), 1), S(arr(2, 2), -1), S(arr()),
                     S(arr(3, dtype="int64"), grad=False)]))


# ---------------------------------------------------------------------------
# broadcast_to / ravel
def _broadcast_to_meta(input, size):
    return _expand_meta(input, size)


def _broadcast_to_check(input, size):
    size = tuple(size)
    if -1 in size[:len(size) - input.dim()]:
        raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                           f"non-existing dimension {size.index(-1)}")
    _expand_meta(input, size)


register(OpSpec(
    "broadcast_to", lambda input, size: jnp.broadcast_to(input, _expand_shape(input.shape,
                                                                             tuple(size))),
    "input, *size", promote="none", view=_broadcast_to_meta, check=_broadcast_to_check,
    saves=False, grad_name="ExpandBackward0",
    samples=lambda: [S(arr(3, 1), (2, 3, 4)), S(arr(3), (2, 3)), S(arr(), (2,)),
                     S(arr(3, 1), (3, -1)), S(arr(3), (4,))]))
normalize_args("broadcast_to", keyword=("size",), size=lambda vals: _sizes(vals))


def _ravel_meta(input):
    return _reshape_meta(input, (-1,))


register(OpSpec(
    "ravel", lambda input: jnp.reshape(input, (-1,)), "input", promote="none",
    view=_ravel_meta, saves=False,
    grad_name=lambda i: "ViewBackward0" if _ravel_meta(i) is not None else
    "UnsafeViewBackward0",
    samples=lambda: [S(arr(2, 3)), S(arr()), S(arr(0, 3)), S(arr(2, 3, dtype="int64"),
                                                            grad=False)]))


# ---------------------------------------------------------------------------
# in-place writers: fill_, zero_, fill_diagonal_, copy_
def _fill_check(input, value):
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    if isinstance(input, Tensor) and not isinstance(value, Tensor):
        from .creation import checked_scalar
        checked_scalar(value, input.dtype)   # PyTorch's overflow error, before any write


register(OpSpec(
    "fill", lambda input, value: jnp.broadcast_to(jnp.asarray(value).astype(input.dtype),
                                                  input.shape),
    "input, value", tensor_args=("input", "value"), promote="none", method=False,
    inplace=True, check=_fill_check, saves=False,
    grad_name=lambda i, v: "FillBackward1" if isinstance(v, Tensor) else "FillBackward0",
    doc="Mirrors ``torch.fill`` and ``Tensor.fill_`` (a number or a 0-d tensor).",
    samples=lambda: [S(arr(2, 3), 1.5), S(arr(2, 3), arr()), S(arr(3, dtype="int64"), 2.7,
                                                               grad=False),
                     S(arr(), 3), S(arr(0, 2), 1.0), S(arr(2, 3), arr(2)),
                     S(arr(3, dtype="uint8"), -1, grad=False),
                     S(arr(3, dtype="int8"), 300, grad=False),
                     S(arr(3, dtype="int32"), float("nan"), grad=False),
                     S(arr(3, dtype="uint8"), -0.5, grad=False),
                     S(arr(3, dtype="int64"), 3 + 1j, grad=False),
                     S(arr(2), 1e300, grad=False)]))
register(OpSpec(
    "zero", lambda input: jnp.zeros_like(input), "input", promote="none", method=False,
    function=False, inplace="zero_", saves=False, grad_name="ZeroBackward0",
    doc="``Tensor.zero_``: fills with zeros in place.", samples=lambda: []))


def _fill_diagonal_check(input, fill_value, wrap=False):
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.dim() > 2 and len(set(input._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")


def _fill_diagonal_fn(input, fill_value, wrap=False):
    shape = input.shape
    n = int(np.prod(shape, dtype=np.int64))
    if input.ndim == 2:
        rows, cols = shape
        step = cols + 1
        end = n if (wrap and rows > cols + 1) else min(rows, cols) * cols
        pos = np.arange(0, end, step)
        if not wrap:
            pos = pos[:min(rows, cols)]
    else:
        step = int(sum(contiguous_strides(shape)))
        pos = np.arange(shape[0]) * step
    flat = jnp.reshape(input, (-1,))
    v = jnp.asarray(fill_value).astype(input.dtype)
    return jnp.reshape(flat.at[jnp.asarray(pos, jnp.int64)].set(v), shape)


register(OpSpec(
    "fill_diagonal", _fill_diagonal_fn, "input, fill_value, wrap=False",
    tensor_args=("input", "fill_value"), promote="none", method=False, function=False,
    inplace="fill_diagonal_", check=_fill_diagonal_check, saves=False,
    grad_name="FillBackward0", doc="``Tensor.fill_diagonal_`` (numpy's wrap rule).",
    samples=lambda: []))


def _copy_fn(input, src):
    return jnp.broadcast_to(src.astype(input.dtype), input.shape)


def _copy_check(input, src):
    from ._common import broadcast_shapes_or_raise
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not "
                        f"{type(src).__name__}")
    out = broadcast_shapes_or_raise(input._shape, src._shape)
    if out != input._shape:
        raise RuntimeError(f"output with shape {shape_str(input._shape)} doesn't match the "
                           f"broadcast shape {shape_str(out)}")


register(OpSpec(
    "_copy_from", _copy_fn, "input, src", tensor_args=("input", "src"), promote="none",
    method=False, function=False, check=_copy_check, saves=False,
    grad_name="CopyBackwards", samples=lambda: []))


def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Mirrors ``Tensor.copy_``: ``src`` is broadcast to ``self``'s shape, cast to its
    dtype and moved to its device; writes through views reach the base."""
    from .dispatch import call_op
    check_inplace_target(self)
    if isinstance(src, Tensor) and src.device != self.device:
        src = src.to(self.device)
    return inplace_apply(self, call_op("_copy_from", self, src), "copy_")


Tensor.copy_ = _copy_


# ---------------------------------------------------------------------------
# composites over the ops above and the view ops
def _call(name, *args):
    from .dispatch import call_op
    return call_op(name, *args)


def _tensors_arg(tensors) -> tuple:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tuple(tensors)


def broadcast_shapes(*shapes) -> Size:
    """Mirrors ``torch.broadcast_shapes``."""
    from ._common import broadcast_shapes_or_raise
    out: tuple = ()
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        out = broadcast_shapes_or_raise(out, s)
    return Size(out)


def broadcast_tensors(*tensors) -> tuple:
    """Mirrors ``torch.broadcast_tensors``: expanded views (stride 0 where broadcast)."""
    ts = _tensors_arg(tensors)
    from ._common import broadcast_shapes_or_raise
    shape: tuple = ()
    for t in ts:
        shape = broadcast_shapes_or_raise(shape, t._shape)
    return tuple(_call("broadcast_to", t, shape) for t in ts)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Mirrors ``torch.meshgrid``; ``indexing`` defaults to ``'ij'`` (PyTorch warns that
    the default will change; torchlike does not warn). Results are expanded views."""
    ts = _tensors_arg(tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    if len({t.dtype for t in ts}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(ts) >= 2
    order = list(ts)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    out = []
    for i, t in enumerate(order):
        view_shape = [1] * len(order)
        view_shape[i] = -1
        out.append(_call("expand", _call("view", t, tuple(view_shape)), shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _atleast_nd(n):
    def f(*tensors):
        ts = _tensors_arg(tensors)
        res = []
        for t in ts:
            if t.dim() >= n:
                res.append(t)
            elif n == 3 and t.dim() == 2:
                res.append(_call("unsqueeze", t, -1))
            elif n == 3 and t.dim() == 1:
                res.append(_call("unsqueeze", _call("unsqueeze", t, 0), -1))
            else:
                res.append(_call("reshape", t, (1,) * (n - t.dim()) + t._shape))
        single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
        return res[0] if single else tuple(res)
    f.__name__ = f.__qualname__ = f"atleast_{n}d"
    f.__doc__ = (f"Mirrors ``torch.atleast_{n}d``: the input itself when it has at least "
                 f"{n} dimensions, else a view with size-1 dimensions added.")
    return f


atleast_1d = _atleast_nd(1)
atleast_2d = _atleast_nd(2)
atleast_3d = _atleast_nd(3)


def fliplr(input: Tensor) -> Tensor:
    """Mirrors ``torch.fliplr``: flips dimension 1 (a copy)."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _call("flip", input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Mirrors ``torch.flipud``: flips dimension 0 (a copy)."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _call("flip", input, (0,))


for _f in (broadcast_tensors, meshgrid, atleast_1d, atleast_2d, atleast_3d, fliplr, flipud,
           broadcast_shapes):
    FUNCTIONS[_f.__name__] = _f
for _f in (fliplr, flipud):
    setattr(Tensor, _f.__name__, _f)

_ = OPS
