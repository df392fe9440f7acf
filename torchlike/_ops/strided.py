"""Ops on a tensor's strided layout over its storage: ``as_strided`` (a view),
``as_strided_``, ``as_strided_scatter``, ``empty_strided``/``new_empty_strided``,
``frombuffer`` and ``resize_``/``resize_as_``.

Sizes, strides and storage offsets are PyTorch's: in elements, relative to the whole
storage (not to the tensor's own first element). See Note [Views over immutable arrays]
in ``_core/storage.py`` for how a storage and the tensors over it are kept.

# Note [as_strided over a storage]
# ``as_strided`` reads any elements of the storage, also ones outside its input (a view
# ``x[2:]`` can be re-strided to reach ``x[0]``). The op therefore takes the flat storage
# as a second, non-differentiable argument and gathers from it. Its gradient is
# PyTorch's ``as_strided_backward``: the output gradient is scatter-added into a zero
# storage (so overlapping windows accumulate), then read back at the input's own
# positions, divided by how many input elements share each position (for inputs such as
# ``expand`` results); elements of the storage outside the input get no gradient.
#
# Note [Tensors that own a strided storage]
# ``empty_strided``, ``as_strided_scatter`` and ``resize_`` give tensors that are not
# views (``_base`` is None) yet whose strides or offset are not the contiguous layout of
# their storage, as in PyTorch. Such a tensor reads itself by gathering from its storage
# like a view; when its layout is the storage's contiguous one it reads the storage
# directly. When a storage's array changes shape (``resize_`` growing it, or reshaping
# it for a tensor that owns all of it), every other tensor that read the old array
# directly is switched to gathering, so none of them sees a wrongly shaped array.
"""

from __future__ import annotations

import gc
import math
import operator
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.memory_formats import (check_memory_format, format_strides, memory_format,
                                    preserve_format, suggest_memory_format)
from .._core.size import Size
from .._core.storage import Storage, contiguous_strides, strided_index
from .._core.tensor import Tensor
from ._common import is_int_arg, shape_str, warn_at_caller
from .bind import FUNCTIONS, check_inplace_target
from .creation import place
from .dispatch import call_op
from .reduction_common import _overloaded
from .samples import S, arr
from .spec import OPS, OpSpec
from .transposed_jvp import custom_jvp_from_vjp

__all__ = ["empty_strided", "frombuffer", "as_strided_", "resize_as_"]

_U64 = 1 << 64
_I64_MAX = (1 << 63) - 1


# ---------------------------------------------------------------------------
# argument parsing with PyTorch's TypeErrors
def _int_tuple(fname: str, name: str, pos: int, v) -> tuple:
    """A ``tuple of ints`` argument (list, tuple or Size of ints or 0-d int tensors)."""
    if not isinstance(v, (tuple, list, Size)):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple of "
                        f"ints, not {type(v).__name__}")
    for i, x in enumerate(v):
        if not is_int_arg(x):
            raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be tuple of "
                            f"ints, but found element of type {type(x).__name__} at pos {i}")
    return tuple(operator.index(x) if not isinstance(x, Tensor) else int(x) for x in v)


def _int_arg(fname: str, name: str, pos: int | None, v) -> int:
    if not is_int_arg(v):
        where = f" (position {pos})" if pos is not None else ""
        raise TypeError(f"{fname}(): argument '{name}'{where} must be int, not "
                        f"{type(v).__name__}")
    return int(v)


def _tensor_arg(fname: str, name: str, pos: int, v) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


# ---------------------------------------------------------------------------
# PyTorch's storage-size arithmetic (c10's overflow-checked uint64 computations)
def _storage_nbytes(sizes, strides, itemsize: int, offset: int = 0) -> int:
    """``at::detail::computeStorageNbytes``: bytes a strided tensor needs (0 if empty)."""
    if len(sizes) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(sizes)}) must match "
                           f"dimensionality of strides ({len(strides)})")
    size = (offset + 1) % _U64
    overflow = False
    for n, st in zip(sizes, strides):
        if n == 0:
            return 0
        prod = (st % _U64) * ((n - 1) % _U64)
        size += prod % _U64
        overflow |= prod >= _U64 or size >= _U64
        size %= _U64
    size *= itemsize
    overflow |= size >= _U64 or size % _U64 > _I64_MAX
    if overflow:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)} "
                           f"and strides={list(strides)}")
    return size


def _storage_nbytes_contiguous(sizes, itemsize: int, offset: int = 0) -> int:
    """``computeStorageNbytesContiguous`` (PyTorch's 0-d ``as_strided`` takes this)."""
    size, overflow = 1, False
    for n in sizes:
        size *= n % _U64
        overflow |= size >= _U64
        size %= _U64
    size += offset % _U64
    overflow |= size >= _U64
    size = (size % _U64) * itemsize
    overflow |= size >= _U64 or size % _U64 > _I64_MAX
    if overflow:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")
    return size


def _check_numel(sizes) -> None:
    """The new sizes' element count, as ``TensorImpl`` checks it."""
    if any(n < 0 for n in sizes):
        if 0 in sizes:
            # PyTorch makes a tensor with a negative size here; torchlike cannot
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: {list(sizes)}")
        raise RuntimeError("numel: integer multiplication overflow")
    if math.prod(sizes) > _I64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")


def _check_set_strided(input: Tensor, size, stride, offset: int) -> None:
    """``setStrided``'s checks for ``as_strided(size, stride, offset)`` over ``input``'s
    storage, in PyTorch's order."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    item = input.dtype.itemsize
    if size:
        needed = _storage_nbytes(size, stride, item)
        with_offset = _storage_nbytes(size, stride, item, offset) if needed else 0
    else:
        needed = _storage_nbytes_contiguous(size, item)
        with_offset = _storage_nbytes_contiguous(size, item, offset)
    have = input._storage.flat_size * item
    if needed and with_offset > have:
        raise RuntimeError(f"setStorage: sizes {shape_str(size)}, strides "
                           f"{shape_str(stride)}, storage offset {offset}, and itemsize "
                           f"{item} requiring a storage size of {with_offset} are out of "
                           f"bounds for storage of size {have}")
    _check_numel(size)


def _flat_storage(t: Tensor) -> Tensor:
    """The whole storage of ``t`` as a 1-d tensor without autograd history (an
    argument of the ops below; Note [as_strided over a storage])."""
    arr_ = t._storage.array
    if t._sg:   # Note [Detach under JAX transformations]
        arr_ = jax.lax.stop_gradient(arr_)
    return Tensor._wrap(arr_.reshape(-1))


# ---------------------------------------------------------------------------
# as_strided (Note [as_strided over a storage])
def _strided_read(x, flat, out_idx: np.ndarray, in_idx: np.ndarray):
    """``flat[out_idx]`` with PyTorch's ``as_strided_backward`` as its VJP w.r.t. ``x``
    (whose elements sit at ``in_idx`` of ``flat``)."""
    counts = np.bincount(in_idx.reshape(-1), minlength=flat.shape[0])[in_idx] \
        if in_idx.size else np.ones(in_idx.shape, np.int64)
    overlap = bool(counts.size) and int(counts.max()) > 1

    def fwd(x, flat):
        return flat[out_idx], None

    def bwd(_, g):
        acc = jnp.zeros(flat.shape, g.dtype).at[out_idx.reshape(-1)].add(g.reshape(-1))
        gx = acc[in_idx]
        if overlap:
            gx = gx / counts.astype(np.dtype(g.dtype))
        return gx, None

    # the tangent, the transpose of bwd (Note [Tangent rules as the transpose of the
    # VJP]), reads x's tangent laid out over the storage, as PyTorch's forward formula
    read = custom_jvp_from_vjp(lambda x, flat: flat[out_idx], fwd, bwd)
    return read(x, flat)


def _as_strided_fn(input, size, stride, storage_offset, _storage, _geometry):
    in_stride, in_offset = _geometry
    out_idx = strided_index(size, stride, storage_offset)
    in_idx = strided_index(input.shape, in_stride, in_offset)
    return _strided_read(input, _storage, out_idx, in_idx)


def as_strided_binder(name: str):
    """The binder of ``as_strided``-like op ``name``: ``(input, size, stride,
    storage_offset)`` checked as PyTorch's argument parser does, plus the input's flat
    storage and geometry."""
    def parse(input, size, stride, storage_offset=None):
        _tensor_arg(name, "input", 1, input)
        size = _int_tuple(name, "size", 2, size)
        stride = _int_tuple(name, "stride", 3, stride)
        if storage_offset is None:
            storage_offset = input._offset
        else:
            storage_offset = _int_arg(name, "storage_offset", 4, storage_offset)
        return (input, size, stride, storage_offset, _flat_storage(input),
                (tuple(input.stride()), input._offset))
    parse.__name__ = parse.__qualname__ = name

    def binder(*args, **kwargs):
        return parse(*args, **kwargs)
    return binder


_as_strided_binder = as_strided_binder("as_strided")


def _as_strided_check(input, size, stride, storage_offset, _storage, _geometry):
    _check_set_strided(input, size, stride, storage_offset)


def _as_strided_meta(input, size, stride, storage_offset, _storage, _geometry):
    return size, stride, storage_offset


def _as_strided_samples():
    return [
        S(arr(12), (3, 3), (3, 1)),
        S(arr(12), (3, 3), (1, 1), note="overlapping windows"),
        S(arr(12), (2, 2), (4, 1), 3),
        S(arr(3, 4), (4, 3), (1, 4), method=True),
        S(arr(3, 4), (2, 2, 2), (0, 4, 1), 1, method=True),
        S(arr(6), (), (), 5),
        S(arr(6, dtype="float64"), (0, 3), (1, 1)),
        S(arr(6, dtype="int64"), (2, 2), (1, 2)),
        S(arr(6, dtype="complex64"), (3,), (2,), grad=False),
        S(arr(), (3,), (0,)),
        # PyTorch's errors
        S(arr(12), (3, 5), (4, 1), 1),
        S(arr(12), (3, 3), (4,)),
        S(arr(12), (3, 3), (4, -1)),
        S(arr(12), (3,), (1,), -1),
        S(arr(12), (2,), (2 ** 62,)),
        S(arr(12), (-1,), (1,)),
    ]


_overloaded(OpSpec(
    "as_strided", _as_strided_fn,
    "input, size, stride, storage_offset, _storage, _geometry",
    tensor_args=("input", "_storage"), promote="none", view=_as_strided_meta,
    check=_as_strided_check, grad_name="AsStridedBackward0", saves=False,
    doc="""Mirrors ``torch.as_strided(input, size, stride, storage_offset=None)`` and
    ``Tensor.as_strided``: a view of ``input``'s storage with the given sizes, strides
    and storage offset (in elements, relative to the storage; default: ``input``'s
    offset). Writes through it reach ``input`` and every other view of the storage.
    Gradients are PyTorch's ``AsStridedBackward0``: overlapping windows accumulate.
    Raises PyTorch's errors for negative strides and offsets and for layouts beyond the
    storage (``setStorage: ... out of bounds for storage of size ...``).

    >>> import torchlike as torch
    >>> torch.arange(6.).as_strided((2, 3), (1, 2), 0).tolist()
    [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    """,
    samples=_as_strided_samples), _as_strided_binder)
# the storage argument is not one of PyTorch's: no edge in ``next_functions``
OPS["as_strided"].extra["_edge_info"] = (2, 0)


def as_strided_(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """Mirrors ``Tensor.as_strided_`` (and ``torch.as_strided_``): gives ``input`` the
    sizes, strides and storage offset in place, over the same storage (PyTorch's
    checks and errors as ``as_strided``; the node is ``AsStridedBackward1``). Bumps the
    version counter."""
    _tensor_arg("as_strided_", "input", 1, input)
    check_inplace_target(input)
    out = call_op("as_strided", input, size, stride, storage_offset)
    _take_layout(input, out)
    if out.grad_fn is not None:
        out.grad_fn._name = "AsStridedBackward1"   # PyTorch's in-place overload
        input.grad_fn, input._output_nr = out.grad_fn, out._output_nr
        input._requires_grad = True
        out.grad_fn._retarget(out, input)
    input._vc.v += 1
    return input


def _take_layout(t: Tensor, src: Tensor) -> None:
    """Give ``t`` the metadata (and current value) of ``src``, a tensor over the same
    storage."""
    t._shape, t._stride, t._offset = src._shape, src._stride, src._offset
    t._direct, t._idx = src._direct, None
    t._cache, t._cache_gen = src._cache, src._cache_gen
    _bump_structure()


def _bump_structure() -> None:
    from .._compile._tracing import bump_structure
    bump_structure()   # compiled functions must see the new layout


# ---------------------------------------------------------------------------
# as_strided_scatter
def _last_writers(out_idx: np.ndarray):
    """Positions written by ``out_idx`` and, per position, the element of the source
    that writes it last in row-major order (PyTorch's ``copy_`` into an overlapping
    slice)."""
    flat = out_idx.reshape(-1)
    rev = flat[::-1]
    pos, first_in_rev = np.unique(rev, return_index=True)
    return pos, flat.size - 1 - first_in_rev


def _as_strided_scatter_fn(input, src, size, stride, storage_offset, _storage, _geometry):
    in_stride, in_offset, overlap = _geometry
    if overlap:   # PyTorch clones such an input contiguously
        base = input.reshape(-1)
        in_idx = np.arange(input.size).reshape(input.shape)
    else:
        in_idx = strided_index(input.shape, in_stride, in_offset)
        base = _storage.at[in_idx.reshape(-1)].set(input.reshape(-1))
    if jnp.iscomplexobj(src) and not jnp.iscomplexobj(input):
        src = jnp.real(src)   # PyTorch's ``copy_`` warns and drops the imaginary part
    pos, which = _last_writers(strided_index(size, stride, storage_offset))
    full = base.at[pos].set(src.reshape(-1)[which].astype(input.dtype))
    return full[in_idx], full


def _internal_overlap(t: Tensor) -> bool:
    """``at::has_internal_overlap(t) == MemOverlap::Yes``: a dimension of stride 0."""
    return any(n > 1 and s == 0 for n, s in zip(t._shape, t.stride()))


def _as_strided_scatter_binder(*args, **kwargs):
    def parse(input, src, size, stride, storage_offset=None):
        _tensor_arg("as_strided_scatter", "input", 1, input)
        _tensor_arg("as_strided_scatter", "src", 2, src)
        size = _int_tuple("as_strided_scatter", "size", 3, size)
        stride = _int_tuple("as_strided_scatter", "stride", 4, stride)
        overlap = _internal_overlap(input)
        if storage_offset is None:
            storage_offset = 0 if overlap else input._offset
        else:
            storage_offset = _int_arg("as_strided_scatter", "storage_offset", 5,
                                      storage_offset)
        return (input, src, size, stride, storage_offset, _flat_storage(input),
                (tuple(input.stride()), input._offset, overlap))
    return parse(*args, **kwargs)


def _as_strided_scatter_check(input, src, size, stride, storage_offset, _storage,
                              _geometry):
    if input._requires_grad and not input.is_contiguous():
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous "
                           "inputs")
    overlap = _geometry[2]
    flat = input.numel() if overlap else _storage.numel()
    probe = _StorageProbe(input.dtype, flat)
    _check_set_strided(probe, size, stride, storage_offset)
    if tuple(src._shape) != tuple(size):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {shape_str(src._shape)}, slice size = {shape_str(size)}")
    if any(n > 1 and s == 0 for n, s in zip(size, stride)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if src.dtype.is_complex and not input.dtype.is_complex:
        warn_at_caller("Casting complex values to real discards the imaginary part")


class _StorageProbe:
    """What ``_check_set_strided`` reads of a tensor: its dtype and storage size."""

    class _St:
        def __init__(self, n: int):
            self.flat_size = n

    def __init__(self, dtype, flat_size: int):
        self.dtype = dtype
        self._storage = self._St(flat_size)


_overloaded(OpSpec(
    "_strided_scatter", _as_strided_scatter_fn,
    "input, src, size, stride, storage_offset, _storage, _geometry",
    tensor_args=("input", "src", "_storage"), promote="none",
    check=_as_strided_scatter_check,
    grad_name="AsStridedScatterBackward0", saves=False, nondiff_outputs=(1,),
    function=False, method=False, samples=lambda: []), _as_strided_scatter_binder)
OPS["_strided_scatter"].extra["_edge_info"] = (2, 2, 0)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride,
                       storage_offset=None) -> Tensor:
    """Mirrors ``torch.as_strided_scatter`` and ``Tensor.as_strided_scatter``: a copy of
    ``input`` in which the elements that ``input.as_strided(size, stride,
    storage_offset)`` would view are replaced by ``src`` (cast to ``input``'s dtype).
    As in PyTorch the copy is of ``input``'s whole storage, so the result has
    ``input``'s strides and storage offset (a contiguous copy for an input whose
    elements overlap), ``storage_offset`` defaults to ``input``'s, and among
    overlapping elements of the slice the last in row-major order wins. PyTorch's
    errors; an input that requires grad must be contiguous.

    Difference: the gradient w.r.t. ``input`` is the true one (zero where ``src`` was
    written, the incoming gradient elsewhere). PyTorch's ``AsStridedScatterBackward0``
    returns the incoming gradient at the written positions instead (its gradcheck
    fails), and for an input with a storage offset misplaces both gradients.

    >>> import torchlike as torch
    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    if type(input) is not Tensor or type(src) is not Tensor:
        from .torch_function import _overloaded_args, handle_torch_function
        rel = _overloaded_args([input, src])
        if rel:
            return handle_torch_function(as_strided_scatter, rel,
                                         (input, src, size, stride, storage_offset), {})
    out, full = call_op("_strided_scatter", input, src, size, stride, storage_offset)
    if _internal_overlap(input):
        return out
    return _own_layout(out, full._value, tuple(input.stride()), input._offset)


def _own_layout(t: Tensor, flat, stride: tuple, offset: int) -> Tensor:
    """Make ``t`` (a fresh result holding its value) own the storage ``flat`` with the
    given strides and offset (Note [Tensors that own a strided storage])."""
    if offset == 0 and stride == contiguous_strides(t._shape) and \
            int(flat.shape[0]) == t.numel():
        t._stride = stride
        return t
    value = t._value
    st = Storage(flat, t.dtype)
    t._storage, t._stride, t._offset = st, stride, offset
    t._direct, t._idx = False, None
    t._cache, t._cache_gen = value, st.gen
    return t


# ---------------------------------------------------------------------------
# empty_strided / new_empty_strided
def _strided_new(fname: str, size, stride, dtype, device, requires_grad) -> Tensor:
    size = _int_tuple(fname, "size", 1, size)
    stride = _int_tuple(fname, "stride", 2, stride)
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(size)}")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    nbytes = _storage_nbytes(size, stride, dt.itemsize)
    _check_numel(size)
    t = place(np.zeros((nbytes // dt.itemsize,), dt.np), device, requires_grad)
    n = math.prod(size)
    if stride == contiguous_strides(size) and nbytes // dt.itemsize == n:
        t._storage.array = t._storage.array.reshape(size)
        t._shape, t._stride = size, stride
        return t
    t._shape, t._stride, t._offset = size, stride, 0
    t._direct, t._idx, t._cache, t._cache_gen = False, None, None, -1
    return t


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.empty_strided(size, stride, *, dtype=None, device=None,
    requires_grad=False)``: a tensor whose ``stride()`` is ``stride``, over a storage
    just large enough for it (``storage().size()`` as in PyTorch; overlapping strides
    such as 0 share elements). PyTorch's errors for negative sizes, mismatched lengths
    and overflowing layouts.

    Difference: the memory is zero-filled (PyTorch leaves it uninitialised).

    >>> import torchlike as torch
    >>> torch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    return _strided_new("empty_strided", size, stride, dtype, device, requires_grad)


def _new_empty_strided(self: Tensor, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Mirrors ``Tensor.new_empty_strided``: ``empty_strided`` with this tensor's dtype
    and device unless given (zero-filled, as ``empty_strided``)."""
    return _strided_new("new_empty_strided", size, stride,
                        self.dtype if dtype is None else dtype,
                        self.device if device is None else device, requires_grad)


# ---------------------------------------------------------------------------
# frombuffer
class _FixedStorage(Storage):
    """The storage of a ``frombuffer`` tensor: not resizable, as in PyTorch."""

    __slots__ = ()
    resizable = False


_WARNED_READONLY = [False]


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.frombuffer(buffer, *, dtype, count=-1, offset=0,
    requires_grad=False)``: a 1-d tensor of ``count`` elements of ``dtype`` (all when
    negative) read from the bytes of ``buffer`` after ``offset`` bytes, with PyTorch's
    ValueErrors for empty buffers, bad offsets and counts, its error for objects without
    the buffer protocol, and its once-per-program UserWarning for a non-writable buffer.
    The tensor is not resizable.

    Difference: PyTorch's tensor shares memory with ``buffer``; a torchlike tensor lives
    in an immutable JAX array, so it holds a copy of the bytes: later writes to the
    buffer do not show in the tensor, and writes to the tensor do not reach the buffer.

    >>> import array
    >>> import torchlike as torch
    >>> torch.frombuffer(array.array("i", [1, 2, 3]), dtype=torch.int32).tolist()
    [1, 2, 3]
    """
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torchlike.dtype, not "
                        f"{type(dtype).__name__}")
    count = _int_arg("frombuffer", "count", None, count)
    offset = _int_arg("frombuffer", "offset", None, offset)
    if not isinstance(requires_grad, bool):
        raise TypeError(f"frombuffer(): argument 'requires_grad' must be bool, not "
                        f"{type(requires_grad).__name__}")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    with view:
        if not view.c_contiguous:
            raise RuntimeError("could not retrieve buffer from object")
        if view.readonly and not _WARNED_READONLY[0]:
            _WARNED_READONLY[0] = True
            warnings.warn(
                "The given buffer is not writable, and PyTorch does not support non-writable "
                "tensors. torchlike copies the buffer's bytes into the tensor, so writes to "
                "the tensor never reach the buffer. This type of warning will be suppressed "
                "for the rest of this program.", UserWarning, stacklevel=2)
        size = view.nbytes
        item = dtype.itemsize
        if size == 0 or count == 0:
            raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
        if not 0 <= offset < size:
            raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater "
                             f"than buffer length ({size} bytes) minus 1")
        if count < 0 and (size - offset) % item:
            raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({item})")
        n = (size - offset) // item if count < 0 else count
        if offset + n * item > size:
            raise ValueError(f"requested buffer length ({n} * {item} bytes) after offset "
                             f"({offset} bytes) must not be greater than actual buffer "
                             f"length ({size} bytes)")
        raw = np.frombuffer(view.cast("B") if view.format != "B" or view.ndim != 1
                            else view, np.uint8, count=n * item, offset=offset)
        data = (raw != 0) if dtype is _dt.bool else raw.view(dtype.np).copy()
    t = place(data, None, requires_grad)
    t._storage = _FixedStorage(t._storage.array, dtype)
    return t


# ---------------------------------------------------------------------------
# resize_ / resize_as_ (Note [Tensors that own a strided storage])
def _replace_array(t: Tensor, new) -> None:
    """Install ``new`` as the array of ``t``'s storage; tensors other than ``t`` that
    read the old array directly are switched to gathering from it."""
    # references: ``t._storage``, ``st`` and ``getrefcount``'s argument; more means that
    # other tensors (views, aliases) may share the storage
    st = t._storage
    if sys.getrefcount(st) > 3:
        for o in gc.get_referrers(st):
            if isinstance(o, Tensor) and o is not t and o._storage is st and o._direct:
                o._direct, o._idx, o._cache, o._cache_gen = False, None, None, -1
    st.array = new
    st.gen += 1


def _resize_sizes(args, kwargs) -> tuple:
    if "size" in kwargs:
        if args:
            raise TypeError("resize_() got multiple values for argument 'size'")
        args = (kwargs.pop("size"),)
    if kwargs:
        raise TypeError(f"resize_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        return _int_tuple("resize_", "size", 1, args[0])
    for a in args:
        if not is_int_arg(a):
            raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(a).__name__}")
    return tuple(int(a) for a in args)


def resize_(self: Tensor, *sizes, memory_format: memory_format | None = None,
            **kwargs) -> Tensor:
    """Mirrors ``Tensor.resize_(*sizes, memory_format=None)``: this tensor takes the
    sizes with contiguous strides (or those of ``memory_format``: ``channels_last`` for
    4-d sizes, ``channels_last_3d`` for 5-d ones), keeping its storage offset and its
    data in storage order (same sizes and strides: no change at all). A storage too
    small is grown in place, so the tensor's views and aliases keep sharing it; a larger
    tensor keeps its old elements first. Raises PyTorch's "cannot resize variables that
    require grad", its errors for ``preserve_format`` and for a format of another rank,
    and, for a ``frombuffer`` tensor that would outgrow its buffer, "Trying to resize
    storage that is not resizable". Bumps the version counter.

    Differences: the new elements are zeros (PyTorch leaves them uninitialised); a
    memory format that does not fit leaves the tensor as it was (PyTorch resizes it
    before it raises); a negative size next to a zero one is refused (PyTorch makes
    such a tensor).

    >>> import torchlike as torch
    >>> torch.arange(4.).resize_(2, 3).tolist()
    [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]
    """
    shape = _resize_sizes(sizes, kwargs)
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    stride = contiguous_strides(shape)
    if memory_format is not None:
        fmt = check_memory_format("resize_", memory_format, optional=False)
        if fmt is preserve_format:
            raise RuntimeError("Unsupported memory formatPreserve")
        stride = format_strides(fmt, shape)
    _check_numel(shape)
    if shape == self._shape and (memory_format is None or stride == self._strides()):
        return self
    numel = math.prod(shape)
    flat_size = self._storage.flat_size
    needed = self._offset + numel if numel else 0
    if needed > flat_size:
        if not getattr(self._storage, "resizable", True):
            raise RuntimeError("Trying to resize storage that is not resizable")
        old = self._storage.array.reshape(-1)
        grown = jnp.concatenate([old, jnp.zeros((needed - flat_size,), old.dtype)])
        _replace_array(self, grown)
        flat_size = needed
    self._shape, self._stride = shape, stride
    self._idx, self._cache, self._cache_gen = None, None, -1
    if self._offset == 0 and numel == flat_size and not self._sg and \
            stride == contiguous_strides(shape):
        if tuple(self._storage.array.shape) != shape:
            _replace_array(self, self._storage.array.reshape(shape))
        self._direct = True
    else:
        self._direct = False
    self._vc.v += 1
    _bump_structure()
    return self


def resize_as_(input: Tensor, the_template: Tensor, *,
               memory_format: memory_format | None = None) -> Tensor:
    """Mirrors ``Tensor.resize_as_(the_template, *, memory_format=None)`` and
    ``torch.resize_as_``: ``input.resize_(the_template.shape, memory_format=...)`` (see
    ``resize_``), where ``preserve_format`` means the format ``the_template``'s strides
    suggest, as in PyTorch."""
    _tensor_arg("resize_as_", "input", 0, input)
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        f"not {type(the_template).__name__}")
    if memory_format is not None:
        fmt = check_memory_format("resize_as_", memory_format, optional=False)
        if fmt is preserve_format:
            memory_format = suggest_memory_format(the_template._shape,
                                                  the_template._strides())
    return resize_(input, the_template._shape, memory_format=memory_format)


def _public(fn, name: str | None = None):
    fn.__module__ = "torchlike"
    if name is not None:
        fn.__name__ = fn.__qualname__ = name
    return fn


def _method(fn, name: str):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    m.__doc__ = fn.__doc__
    return m


# Non-table functions and methods of this family.
FUNCTIONS.update({f.__name__: _public(f) for f in (
    as_strided_, as_strided_scatter, empty_strided, frombuffer, resize_as_)})
Tensor.as_strided_ = _method(as_strided_, "as_strided_")
Tensor.as_strided_scatter = _method(as_strided_scatter, "as_strided_scatter")
Tensor.new_empty_strided = _new_empty_strided
Tensor.resize_ = resize_
Tensor.resize_as_ = _method(resize_as_, "resize_as_")
