"""The rest of ``torch.Tensor``'s surface: membership and reversal, element-wise Python
callbacks (``apply_``/``map_``/``map2_``), the legacy constructor ``new``, storage
re-pointing (``set_``/``is_set_to``), layout queries (``dim_order``), the deprecated
out-of-place ``resize``/``resize_as``, backend flags, ``Tensor._make_subclass`` and the
hook dictionaries ``_backward_hooks``/``_post_accumulate_grad_hooks``.

Each method mirrors the ``torch.Tensor`` method of the same name, with PyTorch's errors;
differences are in the docstrings.

# Note [set_ over a shared Storage]
# ``t.set_(source)`` makes ``t`` look at ``source``'s memory with ``source``'s sizes,
# strides and offset (or the ones given). In torchlike that is the ``Storage`` object
# (Note [Views over immutable arrays]): ``t`` takes ``source._storage`` and a strided
# description over it, reading the storage directly when its layout is the storage's own
# and gathering from it otherwise (Note [Tensors that own a strided storage] in
# strided.py), so a write through either tensor is seen by the other, as in PyTorch.
# ``t`` keeps its own version counter, which is bumped; views made of ``t`` before stay
# on the old storage, as PyTorch's do. What cannot be carried over faithfully raises:
# a storage of another dtype (PyTorch reinterprets its bytes; a torchlike storage is an
# array of one dtype) and a ``set_`` that autograd would have to differentiate
# (PyTorch records a node whose backward is not implemented).
"""

from __future__ import annotations

import functools
import numbers
import warnings
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.device import jax_device
from .._core.grad_mode import _state as _grad_state
from .._core.memory_formats import channels_last, channels_last_3d, is_contiguous_as, sort_dims
from .._core.storage import INFERENCE_INPLACE_ERROR, Storage, contiguous_strides, is_contiguous
from .._core.tensor import _LEGACY_NAMES, Tensor, _TypedStorage
from .creation import checked_scalar
from .dispatch import call_op
from .strided import _int_arg, _int_tuple, _replace_array, _storage_nbytes, _tensor_arg
from .torch_function import (_mode_active, _modes, _overloaded_args, _tf_state,
                             handle_torch_function)

__all__: list = []


def _overridable(fn: Callable) -> Callable:
    """Route a call to the ``__torch_function__`` of a tensor subclass (or duck type)
    among the positional arguments, as PyTorch's Python-level Tensor methods do."""
    @functools.wraps(fn)
    def m(self, *args, **kwargs):
        if (type(self) is not Tensor or _modes.on) and not _tf_state.disabled_all:
            relevant = _overloaded_args((self,) + args)
            if relevant or _mode_active():
                return handle_torch_function(m, relevant, (self,) + args, kwargs)
        return fn(self, *args, **kwargs)
    m.__qualname__ = "Tensor." + fn.__name__
    return m


def _method(fn: Callable) -> Callable:
    """Attach ``fn`` to ``Tensor`` under its own name, overridable by subclasses."""
    m = _overridable(fn)
    setattr(Tensor, fn.__name__, m)
    return m


# --------------------------------------------------------------------- membership, order
@_method
def __contains__(self, element: Any, /) -> bool:
    """Mirrors ``Tensor.__contains__``: ``(element == self).any().item()`` for a tensor or
    a number, PyTorch's ``RuntimeError`` for anything else."""
    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                       f"in a {type(element)}.")


@_method
def __reversed__(self) -> Tensor:
    """Mirrors ``Tensor.__reversed__``: ``self.flip(0)``; a 0-d tensor returns itself."""
    return self if self.dim() == 0 else self.flip(0)


# ------------------------------------------------------------- Python callbacks in place
def _to_python(t: Tensor) -> list:
    """The elements of ``t`` in row-major order as Python numbers (int, float, bool or
    complex, as PyTorch hands them to the callable)."""
    return t.detach().reshape(-1).tolist()


def _from_python(obj: Any, dt: _dt.dtype):
    """``obj`` (a callable's result) stored as ``dt`` the way PyTorch's ``store_scalar``
    does: integers through the checked conversion (floats truncated), floats without a
    range check (overflow gives inf), booleans by truth value."""
    if dt.is_floating_point or dt.is_complex:
        kinds = ("__float__", "__index__") + (("__complex__",) if dt.is_complex else ())
        if isinstance(obj, (str, bytes)) or isinstance(obj, complex) and not dt.is_complex \
                or not any(hasattr(type(obj), k) for k in kinds):
            raise TypeError(f"must be real number, not {type(obj).__name__}")
        return complex(obj) if dt.is_complex else float(obj)
    if isinstance(obj, (float, complex)) and (dt is _dt.bool or isinstance(obj, float)):
        value = obj
    elif hasattr(type(obj), "__index__"):
        value = obj.__index__()
    else:
        raise TypeError(f"'{type(obj).__name__}' object cannot be interpreted as an integer")
    if dt is _dt.bool:
        return bool(value)   # as PyTorch: any non-zero value, however large, is True
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    try:
        return checked_scalar(value, dt)
    except RuntimeError:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without "
                           "overflow") from None


def _apply_elementwise(name: str, self: Tensor, others: tuple, fn: Callable) -> Tensor:
    """``self[i] = fn(self[i], *(o[i] for o in others))``, ``others`` broadcast to
    ``self``'s shape (PyTorch's ``expand_inplace``)."""
    if not self.is_cpu:
        raise TypeError(f"{name} is only implemented on CPU tensors")
    columns = [_to_python(t) for t in (self,) + tuple(o.expand(self._shape) for o in others)]
    dt = self.dtype
    out = [_from_python(fn(*vals), dt) for vals in zip(*columns)]
    with np.errstate(over="ignore"):   # float16 rounds what it cannot hold to inf
        arr = np.array(out, dtype=dt.np).reshape(self._shape)
    self._set_value(jax.device_put(arr, jax_device("cpu")))
    return self


def _no_grad_callback(name: str, *tensors: Tensor) -> None:
    if any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")


def _same_type(name: str, self: Tensor, other: Any, what: str) -> None:
    if other.dtype is not self.dtype or other.device != self.device:
        raise TypeError(f"{name}: expected {self.type()} for {what} (got {other.type()})")


@_method
def apply_(self, callable: Callable) -> Tensor:
    """Mirrors ``Tensor.apply_(callable)``: replaces each element ``x`` by
    ``callable(x)``, called with a Python number, in place; CPU tensors only, and not on a
    tensor that requires grad (PyTorch's errors). The result is converted to this dtype as
    PyTorch converts it (checked for integer types, truncated from floats).

    Difference: the version counter is bumped (PyTorch leaves it), so autograd refuses a
    tensor changed this way after it was saved for backward instead of differentiating
    with the old values.

    >>> import torchlike as torch
    >>> torch.tensor([1, 2, 3]).apply_(lambda x: x * 10).tolist()
    [10, 20, 30]
    """
    _no_grad_callback("apply_", self)
    return _apply_elementwise("apply_", self, (), callable)


@_method
def map_(self, tensor: Tensor, callable: Callable) -> Tensor:
    """Mirrors ``Tensor.map_(tensor, callable)``: ``self[i] = callable(self[i],
    tensor[i])`` in place, ``tensor`` broadcast to this shape and of this type; the
    errors and the version-counter difference of ``apply_``."""
    _tensor_arg("map_", "other", 1, tensor)
    _no_grad_callback("map_", self, tensor)
    _same_type("map_", self, tensor, "'other'")
    return _apply_elementwise("map_", self, (tensor,), callable)


@_method
def map2_(self, x: Tensor, y: Tensor, callable: Callable) -> Tensor:
    """Mirrors ``Tensor.map2_(x, y, callable)``: ``self[i] = callable(self[i], x[i],
    y[i])`` in place, ``x`` and ``y`` broadcast to this shape and of this type; the
    errors and the version-counter difference of ``apply_``."""
    _tensor_arg("map2_", "x", 1, x)
    _tensor_arg("map2_", "y", 2, y)
    _no_grad_callback("map2_", self, x, y)
    _same_type("map2_", self, x, "argument 'x'")
    _same_type("map2_", self, y, "argument 'y'")
    return _apply_elementwise("map2_", self, (x, y), callable)


# --------------------------------------------------------------------- dtypes and layout
@_method
def chalf(self, memory_format=None) -> Tensor:
    """Mirrors ``Tensor.chalf``, which gives a complex32 (ComplexHalf) tensor. torchlike
    has no complex32 dtype (JAX has none), so this raises ``NotImplementedError`` rather
    than return another dtype; ``cfloat()`` gives complex64."""
    raise NotImplementedError(
        f"chalf(): PyTorch returns a complex32 (ComplexHalf) tensor; torchlike has no "
        f"complex32 dtype (JAX has none), so the {self.dtype} tensor cannot be converted. "
        "Use .cfloat() for complex64.")


def _channels_last(shape: tuple, stride: tuple) -> bool:
    """PyTorch's ``is_channels_last_contiguous_2d``/``_3d`` (4-d or 5-d only)."""
    return is_contiguous_as(shape, stride, channels_last) or \
        is_contiguous_as(shape, stride, channels_last_3d)


def _logical_to_physical(shape: tuple, stride: tuple, ambiguity_check: bool) -> tuple:
    """``torch._prims_common.compute_elementwise_output_logical_to_physical_perm`` for one
    tensor: (permutation, whether it is ambiguous)."""
    nd = len(shape)
    if nd <= 1:
        return list(range(nd)), False
    contiguous = is_contiguous(shape, stride)
    channels_last = _channels_last(shape, stride)
    if contiguous and not channels_last:
        return list(range(nd)), False
    if channels_last and not contiguous:
        return [0, *range(2, nd), 1], False

    def should_swap(a: int, b: int) -> int:
        sa, sb = stride[a], stride[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if _ge(shape[b], shape[a]) else 1
        if _ge(sb, sa):
            return -1
        return 1 if _ge(sa, sb) else 0

    perm = sort_dims(nd, should_swap)
    ambiguous = ambiguity_check and any(should_swap(perm[i], perm[i + 1]) != -1
                                        for i in range(nd - 1))
    return list(reversed(perm)), ambiguous


def _ge(a: int, b: int) -> bool:
    return b == 0 or (a != 0 and (a >= b or a % b == 0))


@_method
def dim_order(self, *, ambiguity_check: bool | list = False) -> tuple:
    """Mirrors ``Tensor.dim_order(*, ambiguity_check=False)``: the dimensions from the
    outermost to the innermost in memory, from the strides. With ``ambiguity_check=True``
    a layout that several orders describe (size-1 dimensions, equal strides) raises
    PyTorch's ``RuntimeError``. A list of memory formats is accepted only empty: torchlike
    has no memory-format objects."""
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or ambiguity_check:
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory "
                            "formats.")
    shape, stride = self._shape, self.stride()
    check = ambiguity_check if isinstance(ambiguity_check, bool) else True
    if check and (any(a == b for a, b in zip(stride, stride[1:])) or 1 in shape):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to "
                           "exact one of the given memory formats.")
    perm, ambiguous = _logical_to_physical(shape, stride, ambiguity_check is True)
    if ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(perm)


@_method
def to_dense(self, dtype=None, *, masked_grad: bool | None = None) -> Tensor:
    """Mirrors ``Tensor.to_dense``: a strided tensor is already dense, so this returns
    ``self`` (converted when ``dtype`` differs)."""
    return self if dtype is None or _dt.to_dtype(dtype) is self.dtype else self.to(dtype)


@_method
def const_data_ptr(self) -> int:
    """Mirrors ``Tensor.const_data_ptr``: the same address as ``data_ptr()``."""
    return self.data_ptr()


# ------------------------------------------------------------------------ shared memory
@_method
def share_memory_(self) -> Tensor:
    """Mirrors ``Tensor.share_memory_`` and returns ``self``. torchlike's memory is XLA's
    buffers, which cannot be placed in shared memory: nothing moves, and ``is_shared()``
    stays False (as ``Module.share_memory`` is a no-op). Tensors passed to other
    processes are pickled copies."""
    return self


@_method
def is_shared(self) -> bool:
    """Mirrors ``Tensor.is_shared``: always False, as no torchlike tensor is in shared
    memory (see ``share_memory_``)."""
    return False


@_method
def record_stream(self, stream: Any) -> None:
    """Mirrors ``Tensor.record_stream``. torchlike has no streams (XLA orders a device's
    work itself), so there is nothing to record; ``None`` raises as in PyTorch."""
    if stream is None:
        raise RuntimeError("unknown parameter type")


class _LegacyStorageType(type):
    def __repr__(cls) -> str:
        return f"<class 'torchlike.{cls.__name__}'>"

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _TypedStorage) and obj._s.dtype is cls.dtype


_STORAGE_TYPES = {   # FloatTensor -> FloatStorage, ...
    d: _LegacyStorageType(name.split(".")[1].replace("Tensor", "Storage"), (),
                          {"dtype": d, "__module__": "torchlike"})
    for d, name in _LEGACY_NAMES.items()}
_TYPED_STORAGE_WARNED = [False]


@_method
def storage_type(self) -> type:
    """Mirrors ``Tensor.storage_type``: the legacy storage class of this dtype
    (``<class 'torchlike.FloatStorage'>``), ``isinstance`` of which holds for
    ``self.storage()``; warns once, as PyTorch, that typed storages are deprecated."""
    if not _TYPED_STORAGE_WARNED[0]:
        _TYPED_STORAGE_WARNED[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                      "UntypedStorage will be the only storage class. This should only "
                      "matter to you if you are using storages directly.  To access "
                      "UntypedStorage directly, use tensor.untyped_storage() instead of "
                      "tensor.storage()", UserWarning, stacklevel=3)
    return _STORAGE_TYPES[self.dtype]


# ------------------------------------------------------------------------ backend flags
def _flag(name: str, doc: str) -> property:
    p = property(lambda self: False, doc=doc)
    setattr(Tensor, name, p)
    return p


for _name, _what in (("is_nested", "a nested tensor (torchlike has none)"),
                     ("is_mps", "on an Apple MPS device"), ("is_xpu", "on an Intel XPU"),
                     ("is_xla", "on a torch_xla device (torchlike's devices are 'cpu' and "
                                "'cuda', though XLA runs them)"),
                     ("is_ipu", "on a Graphcore IPU"), ("is_maia", "on a MAIA device"),
                     ("is_mtia", "on an MTIA device"), ("is_vulkan", "a Vulkan tensor"),
                     ("is_mkldnn", "an MKL-DNN tensor")):
    _flag(_name, f"Mirrors ``Tensor.{_name}``: False, a torchlike tensor is never {_what}.")


# ------------------------------------------------------------------ legacy constructor
@_method
def new(self, *args, device=None) -> Tensor:
    """Mirrors the legacy ``Tensor.new(...)``: a tensor of this dtype and device.
    ``new()`` is empty, ``new(*sizes)`` (or a ``Size``) zero-filled (PyTorch leaves it
    uninitialised), ``new(data)`` converts a sequence or array to this dtype, and
    ``new(tensor)`` of the same type is an alias of it (shared memory, ``AliasBackward0``).
    ``device`` must be of this tensor's device type."""
    from .creation import _legacy_tensor_array
    if device is not None:
        from .._core.device import device as Device
        if Device(device).type != self.device.type:
            raise RuntimeError(f"legacy constructor expects device type: {self.device.type} "
                               f"but device type: {Device(device).type} was passed")
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src.dtype is not self.dtype or src.device != self.device:
            raise TypeError(f"expected {_options(self)} (got {_options(src)})")
        return call_op("alias", src)
    return Tensor._wrap(_legacy_tensor_array(args, self.dtype,
                                             self.device if device is None else device))


def _options(t: Tensor) -> str:
    return (f"TensorOptions(dtype={_dt.cpp_name(t.dtype)}, device={t.device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


# ------------------------------------------------------------------ out-of-place resize
def _resize_function():
    """PyTorch's ``torch.autograd._functions.Resize``, on torchlike's ``Function``."""
    from ..autograd.function import Function

    class Resize(Function):
        @staticmethod
        def forward(ctx, tensor, sizes):
            ctx.sizes = sizes
            ctx.numel = functools.reduce(lambda a, b: a * b, sizes, 1)
            if tensor.numel() != ctx.numel:
                raise RuntimeError(
                    f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements "
                    f"in total), but the given tensor has a size of "
                    f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                    "autograd's resize can only change the shape of a given tensor, while "
                    "preserving the number of elements. ")
            ctx.input_sizes = tensor.size()
            return tensor.contiguous().view(*sizes)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.contiguous().view(ctx.input_sizes), None

    Resize.__module__ = "torchlike.autograd._functions.tensor"
    return Resize


@functools.cache
def _resize() -> type:
    return _resize_function()


@_method
def resize(self, *sizes) -> Tensor:
    """Mirrors the deprecated ``Tensor.resize(*sizes)``: warns, then views a copy-free
    reshape of the same number of elements (``ResizeBackward``); another number of
    elements raises PyTorch's error."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=3)
    return _resize().apply(self, sizes)


@_method
def resize_as(self, tensor: Tensor) -> Tensor:
    """Mirrors the deprecated ``Tensor.resize_as(tensor)``: ``resize(*tensor.size())``."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=3)
    return _resize().apply(self, tensor.size())


# ----------------------------------------------------------------------- set_/is_set_to
_SET_SIGNATURES = (
    " * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, tuple "
    "of ints size, tuple of ints stride = None)\n * (Tensor source)\n * (Tensor source, "
    "int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


def _set_args(self: Tensor, args: tuple, kwargs: dict):
    """(storage, offset, shape, stride) from ``set_``'s overloads."""
    names = ("source", "storage_offset", "size", "stride")
    for k in kwargs:
        if k not in names:
            raise TypeError(f"set_() got an unexpected keyword argument '{k}'")
    vals = dict(zip(names, args), **kwargs)
    if len(args) > 4 or len(vals) != len(args) + len(kwargs):
        raise TypeError("set_() got multiple values for an argument")
    src = vals.get("source")
    if src is None and len(vals) == 0:
        return None, 0, (0,), (1,)
    if not isinstance(src, (Tensor, _TypedStorage)) or len(vals) in (2, 3) and \
            not {"storage_offset", "size"} <= set(vals):
        got = ", ".join(type(v).__name__ for v in args)
        raise TypeError(f"set_() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n{_SET_SIGNATURES}")
    if isinstance(src, _TypedStorage):
        st = src._s
        if src._typed and st.dtype is not self.dtype:
            raise RuntimeError(f"Expected a Storage of type {_dt.cpp_name(self.dtype)} or an "
                               f"UntypedStorage, but got type {_dt_title(st.dtype)} for "
                               "argument 1 'storage'")
        default = (0, (st.flat_size,), (1,))
    else:
        if src.dtype is not self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_dt.cpp_name(src.dtype)} to a "
                               f"tensor of type {_dt.cpp_name(self.dtype)}")
        st = src._storage
        default = (src._offset, src._shape, src.stride())
    if st.dtype is not self.dtype:
        raise NotImplementedError(
            f"set_(): this untyped storage holds {st.dtype} elements; PyTorch would "
            f"reinterpret its bytes as {self.dtype}, which torchlike cannot do (its "
            "storages are arrays of one dtype). Use a tensor or storage of the same dtype.")
    if "size" not in vals:
        return st, *default
    offset = _int_arg("set_", "storage_offset", 2, vals["storage_offset"])
    shape = _int_tuple("set_", "size", 3, vals["size"])
    stride = vals.get("stride")
    stride = contiguous_strides(shape) if stride is None else \
        _int_tuple("set_", "stride", 4, stride)
    if len(stride) != len(shape):
        raise RuntimeError(f"unequal size length ({len(shape)}) and stride length "
                           f"({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    return st, offset, shape, stride


def _dt_title(d: _dt.dtype) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


@_method
def set_(self, *args, **kwargs) -> Tensor:
    """Mirrors ``Tensor.set_()``, ``set_(source)`` and ``set_(source, storage_offset,
    size, stride=None)``, ``source`` a tensor or a storage (``t.untyped_storage()``,
    ``t.storage()``): this tensor then shares that memory (Note [set_ over a shared
    Storage]); ``set_()`` gives it an empty storage. A storage too small for the layout is
    grown, its new elements zero (PyTorch leaves them uninitialised). PyTorch's errors for
    mismatched dtypes, offsets and lengths; bumps the version counter.

    Differences: a storage of another dtype raises ``NotImplementedError`` (PyTorch
    reinterprets its bytes), as does a ``set_`` with grad mode on and ``source`` (or this
    tensor's history) requiring grad (PyTorch records a node whose backward is not
    implemented; call it on ``.detach()``ed tensors or under ``no_grad``). A view that is
    ``set_`` stops being a view (``_base`` is None; PyTorch keeps reporting the old base).

    >>> import torchlike as torch
    >>> a, b = torch.zeros(2), torch.arange(4.)
    >>> a.set_(b).tolist(), a.is_set_to(b)
    ([0.0, 1.0, 2.0, 3.0], True)
    """
    if self._storage.inference and not _grad_state.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    from .bind import check_inplace_target
    check_inplace_target(self)
    st, offset, shape, stride = _set_args(self, args, kwargs)
    source = args[0] if args else kwargs.get("source")
    if _grad_state.enabled and (self.grad_fn is not None or (
            isinstance(source, Tensor) and source.requires_grad)):
        raise NotImplementedError(
            "set_(): the derivative for 'set_' is not implemented (PyTorch records a node "
            "whose backward raises). Call it on detached tensors (source.detach()) or under "
            "torchlike.no_grad().")
    if st is None:
        st = Storage(jnp.zeros_like(self._storage.array, shape=(0,)), self.dtype)
    needed = _storage_nbytes(shape, stride, 1, offset)
    if needed > st.flat_size and not getattr(st, "resizable", True):
        raise RuntimeError("Trying to resize storage that is not resizable")
    from .._compile._tracing import bump_structure
    bump_structure()   # compiled functions must see the new storage
    self._storage = st
    if needed > st.flat_size:   # grown in place, so its other tensors keep sharing it
        old = st.array.reshape(-1)
        _replace_array(self, jnp.concatenate([old, jnp.zeros_like(
            old, shape=(needed - old.size,))]))
    self._shape, self._stride, self._offset = tuple(shape), tuple(stride), offset
    self._direct = (offset == 0 and tuple(shape) == tuple(st.array.shape)
                    and tuple(stride) == contiguous_strides(shape) and not self._sg)
    self._idx, self._cache, self._cache_gen = None, None, -1
    self._base = None
    self._vc.v += 1
    return self


@_method
def is_set_to(self, tensor: Tensor) -> bool:
    """Mirrors ``Tensor.is_set_to(tensor)``: whether both tensors look at the same memory
    with the same offset, sizes and strides."""
    _tensor_arg("is_set_to", "tensor", 1, tensor)
    return (self._storage is tensor._storage and self._offset == tensor._offset
            and self._shape == tensor._shape and self.stride() == tensor.stride())


# --------------------------------------------------------------------- subclass factory
def _make_subclass(cls, data, require_grad: bool = False, *,
                   dispatch_sizes_strides_policy=None, dispatch_device: bool = False,
                   dispatch_layout: bool = False, _extra_dispatch_keys=None,
                   storage_size=None) -> Tensor:
    """Mirrors ``torch.Tensor._make_subclass(cls, data, require_grad=False)``: a ``cls``
    instance over ``data``'s memory and version counter, without its history, requiring
    grad as asked; ``cls.__init__`` is not called (how ``nn.Parameter``-like subclasses
    are built). The dispatch arguments, which only matter to PyTorch's C++ dispatcher,
    are accepted and ignored."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    _tensor_arg("_make_subclass", "data", 2, data)
    if not isinstance(require_grad, bool):
        raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be "
                        f"bool, not {type(require_grad).__name__}")
    t = data._alias(cls)
    data._stop_if_traced(t)
    t.requires_grad = require_grad
    return t


Tensor._make_subclass = staticmethod(_make_subclass)
_legacy_init = Tensor.__init__


def _init(self, *args, **kwargs) -> None:
    """The legacy constructor ``Tensor(data)`` (see ``Tensor``), except that a tensor
    already made by ``__new__`` is left as it is, as PyTorch's ``Tensor.__init__`` leaves
    it: a subclass whose ``__new__`` returns ``Tensor._make_subclass(cls, data)`` is
    called as ``cls(data)``, and Python then calls ``__init__`` with ``data`` too."""
    try:
        self._storage  # noqa: B018 (probe: set once the tensor was made)
    except AttributeError:
        _legacy_init(self, *args, **kwargs)


_init.__name__, _init.__qualname__ = "__init__", "Tensor.__init__"
Tensor.__init__ = _init


# ------------------------------------------------------------------------- hook storage
def _hooks_get(self) -> dict | None:
    if self.grad_fn is None:
        return self._hooks
    if "_backward_hooks" in self.__dict__:
        return self.__dict__["_backward_hooks"]
    pre = self.grad_fn._tensor_pre_hooks
    return None if pre is None else pre.get(self._output_nr)


def _hooks_set(self, value) -> None:
    # as PyTorch: a leaf runs the hooks of the dict set (None: none); for a non-leaf the
    # attribute only changes what it reads, its node keeps running what register_hook added
    if self.grad_fn is None:
        self._hooks = value
    else:
        self.__dict__["_backward_hooks"] = value


Tensor._backward_hooks = property(
    _hooks_get, _hooks_set,
    doc="Mirrors ``Tensor._backward_hooks``: the dict of hooks ``register_hook`` added "
        "(id -> hook), None before the first; for a non-leaf, the hooks its ``grad_fn`` "
        "runs on this output's gradient. Setting it on a leaf replaces its hooks.")


def _post_hooks_set(self, value) -> None:
    self._post_acc_hooks = value


Tensor._post_accumulate_grad_hooks = property(
    lambda self: self._post_acc_hooks, _post_hooks_set,
    doc="Mirrors ``Tensor._post_accumulate_grad_hooks``: the dict of hooks "
        "``register_post_accumulate_grad_hook`` added (id -> hook), None before the first.")


# Python-level Tensor methods declared elsewhere that PyTorch routes through
# ``__torch_function__``: overrides and modes see them under their own names rather than
# as the internal ops they run (``_to_dtype``, ``_copy_from``, ``zeros``)
for _name in ("to", "type", "cpu", "copy_", "new_zeros", "new_ones", "new_empty",
              "new_full", "new_tensor"):
    _m = _overridable(getattr(Tensor, _name))
    _m.__name__, _m.__qualname__ = _name, "Tensor." + _name
    setattr(Tensor, _name, _m)
