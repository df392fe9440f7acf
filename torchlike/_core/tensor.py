"""The ``Tensor`` class: data, metadata and the view/in-place machinery.

No math lives here: the op table (``torchlike._ops``) attaches every operator,
method and in-place variant. See Note [Views over immutable arrays] in storage.py.
"""

from __future__ import annotations

import functools
import weakref
from weakref import ref as _weakref

import jax
import jax.numpy as jnp
import numpy as np

from . import dtype as _dt
from .autograd_attrs import AutogradAttributes
from .autograd_attrs import init_autograd_fields as _init_autograd_fields
from .device import CPU, device as Device, from_jax_device, jax_device
from .grad_mode import _state as _grad_state
from .grad_mode import is_grad_enabled
from .layout import strided
from .memory_formats import (check_memory_format, contiguous_format, is_contiguous_as,
                             non_overlapping_and_dense, preserve_format, result_strides,
                             suggest_memory_format)
from .memory_formats import memory_format as memory_format_type
from .size import Size
from .storage import (INFERENCE_INPLACE_ERROR, Storage, VersionCounter, compute_view_strides,
                      contiguous_strides)
from .storage import is_contiguous as _is_contiguous
from .storage import strided_index
from .waiting import host as _host

__all__ = ["Tensor", "is_inference", "is_tensor"]


@jax.jit
def _gather_flat(flat, idx):
    return flat[idx]


def _overlapping(shape, stride) -> bool:
    """Whether a layout maps two elements to one place in memory (a stride 0 over a
    dimension of two or more, or an ``unfold`` window overlapping the next)."""
    reach = 0
    for st, n in sorted((abs(st), n) for n, st in zip(shape, stride) if n > 1):
        if st <= reach:
            return True
        reach += st * (n - 1)
    return False


@jax.jit
def _scatter_flat(base, idx, values):
    flat = base.reshape(-1).at[idx.reshape(-1)].set(values.reshape(-1))
    return flat.reshape(base.shape)


class _TypedStorage:
    """What ``Tensor.storage()``/``untyped_storage()`` return: enough for ``data_ptr``,
    ``size`` and ``nbytes`` comparisons."""

    __slots__ = ("_s", "_itemsize", "_typed")

    def __init__(self, storage: Storage, itemsize: int, typed: bool):
        self._s, self._itemsize, self._typed = storage, itemsize, typed

    def data_ptr(self) -> int:
        return self._s.data_ptr()

    def size(self) -> int:
        return self._s.flat_size * (1 if self._typed else self._itemsize)

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._s.flat_size * self._itemsize

    def element_size(self) -> int:
        return self._itemsize if self._typed else 1


class Tensor(AutogradAttributes):
    """A multi-dimensional array with PyTorch's semantics, backed by a JAX array.

    Mirrors ``torch.Tensor``: dtype/device/shape metadata, strides and views over a
    shared storage, a version counter bumped by in-place ops, and the autograd
    attributes (``requires_grad``, ``grad``, ``grad_fn``, ``is_leaf``).
    ``Tensor(data)`` behaves like the legacy ``torch.Tensor(data)`` constructor
    (always the default float dtype).
    """

    __slots__ = ("_storage", "_shape", "_stride", "_offset", "_direct", "_cache",
                 "_cache_gen", "_idx", "_vc", "_requires_grad", "_grad", "_grad_fn",
                 # set only on a view made under no_grad (read with getattr)
                 "_nograd_view",
                 "_retains_grad", "_hooks", "_post_acc_hooks", "_output_nr", "_base",
                 "_node_ref", "_attr_version", "__dict__", "__weakref__")

    __array_priority__ = 1000  # numpy defers binary ops to us

    # Note [Detach under JAX transformations]
    # ``detach()`` and ``.data`` share memory with their source, and torchlike's tape
    # never differentiates through them; JAX's own differentiation (``jax.grad`` of
    # torchlike code, the VJP of a compiled forward) would, since the alias reads the
    # same array. An alias made while JAX traces therefore reads its value through
    # ``lax.stop_gradient``: it is an indirect tensor whose cached value is the stopped
    # one (so its views are indirect too), and writes through it still scatter into the
    # shared storage. After such a write the alias re-reads the storage, unstopped.
    _sg = False

    # ------------------------------------------------------------------ creation
    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        return self

    def __init__(self, *args, device=None, dtype=None):
        # Legacy constructor ``torch.Tensor(data)`` / ``torch.Tensor(2, 3)``.
        from .._ops.creation import _legacy_tensor_array
        arr = _legacy_tensor_array(args, dtype, device)
        Tensor._init_from_array(self, arr)

    @staticmethod
    def _init_from_array(self, arr, requires_grad: bool = False):
        self._storage = Storage(arr)
        self._shape = tuple(arr.shape)
        self._stride = None  # computed lazily: contiguous
        self._offset = 0
        self._direct = True
        self._cache = None
        self._cache_gen = -1
        self._idx = None
        self._vc = VersionCounter()
        _init_autograd_fields(self, requires_grad)
        return self

    @classmethod
    def _wrap(cls, arr, requires_grad: bool = False):
        """A new tensor owning ``arr`` (a JAX array)."""
        self = object.__new__(cls)
        return Tensor._init_from_array(self, arr, requires_grad)

    def _make_view(self, arr, shape, stride, offset):
        """A view of ``self``'s storage with the given strided metadata, whose current
        value is ``arr`` (already computed by the view op)."""
        v = object.__new__(Tensor)
        st = self._storage
        v._storage = st
        v._shape = tuple(shape)
        v._stride = tuple(stride)
        v._offset = offset
        v._direct = (offset == 0 and v._shape == tuple(st.array.shape)
                     and _is_contiguous(v._shape, v._stride)
                     and v._stride == contiguous_strides(v._shape)) and not self._sg
        if self._sg:
            v._sg = True   # Note [Detach under JAX transformations]
        v._cache = arr
        v._cache_gen = st.gen
        v._idx = None
        v._vc = self._vc
        _init_autograd_fields(v, False)
        v._base = self if self._base is None else self._base
        v._attr_version = v._vc.v   # Note [Stale view history]
        if not _grad_state.enabled:
            # Note [Views made under no_grad] (autograd/inplace.py)
            v._nograd_view = True
            if self._requires_grad:
                v._requires_grad = True
        if not self._requires_grad and (st.dtype.is_floating_point or st.dtype.is_complex):
            # Note [Views of a base that gains history] (autograd/inplace.py)
            vs = getattr(st, "views", None)
            if vs is None:
                st.views = [_weakref(v)]
            else:
                vs.append(_weakref(v))
                n = len(vs)
                if n >= 64 and not n & (n - 1):   # at powers of two: drop the dead
                    vs[:] = [r for r in vs if r() is not None]
        return v

    # ------------------------------------------------------------------ value
    @property
    def _value(self):
        """The current JAX array of this tensor (re-read from storage after writes)."""
        if self._direct:
            return self._storage.array
        st = self._storage
        if self._cache_gen != st.gen:
            self._cache = _gather_flat(st.array.reshape(-1), self._index_array())
            self._cache_gen = st.gen
        return self._cache

    def _index_array(self):
        if self._idx is None:
            with jax.ensure_compile_time_eval():   # a constant, never a tracer to cache
                self._idx = jnp.asarray(strided_index(self._shape, self.stride(),
                                                      self._offset))
        return self._idx

    def _set_value(self, new, bump: bool = True) -> None:
        """Write ``new`` (same shape; cast to this dtype) into this tensor's memory.

        For a view the values are scattered into the shared storage, so the base and
        every other view see them. An inference tensor outside inference mode refuses
        (Note [Inference tensors])."""
        if self._storage.inference and not _grad_state.inference:
            raise RuntimeError(INFERENCE_INPLACE_ERROR)
        if new.dtype != self.dtype.np:
            new = new.astype(self.dtype.np)
        if tuple(new.shape) != self._shape:
            new = jnp.broadcast_to(new, self._shape)
        st = self._storage
        if self._direct:
            st.array = new
        elif _overlapping(self._shape, self.stride()):
            # several elements of the view are one element of the storage (``expand``,
            # ``unfold``): only the elements this write changed are stored, so that
            # ``x.expand(2, 3)[0, 0] = 5`` sets ``x[0]`` as in PyTorch (a scatter of the
            # whole view would let an unchanged duplicate win); the view is read afresh
            old = self._value
            kept = (new == old) | ((new != new) & (old != old))
            idx = jnp.where(kept, st.array.size, self._index_array())
            st.array = st.array.reshape(-1).at[idx.reshape(-1)].set(
                new.reshape(-1), mode="drop").reshape(st.array.shape)
            st.gen += 1
            if bump:
                self._vc.v += 1
            return
        else:
            st.array = _scatter_flat(st.array, self._index_array(), new)
            self._cache = new
            st.gen += 1
            self._cache_gen = st.gen
            if bump:
                self._vc.v += 1
            return
        st.gen += 1
        if bump:
            self._vc.v += 1

    # ------------------------------------------------------------------ metadata
    @property
    def dtype(self) -> _dt.dtype:
        return self._storage.dtype

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None):
        """Mirrors ``Tensor.size``: the ``Size``, or one dimension's length."""
        if dim is None:
            return Size(self._shape)
        return self._shape[_size_dim(dim, len(self._shape))]

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def stride(self, dim: int | None = None):
        """Mirrors ``Tensor.stride``: strides in elements over the shared storage."""
        if self._stride is None:
            self._stride = contiguous_strides(self._shape)
        if dim is None:
            return self._stride
        return self._stride[_size_dim(dim, len(self._shape))]

    def _strides(self) -> tuple:
        """``stride()``, without storing the strides of a tensor that has not computed its
        contiguous ones yet: compiled functions key on ``_stride``, and reading a layout
        must not change that key."""
        st = self._stride
        return contiguous_strides(self._shape) if st is None else st

    def storage_offset(self) -> int:
        return self._offset

    def is_contiguous(self, *, memory_format: memory_format_type = contiguous_format) -> bool:
        """Mirrors ``Tensor.is_contiguous(memory_format=torch.contiguous_format)``: whether
        the strides are those of ``memory_format`` (sizes of 1 do not count);
        ``channels_last`` asks it of 4-d tensors, ``channels_last_3d`` of 5-d ones (other
        ranks: False), ``preserve_format`` the same as ``contiguous_format``."""
        if memory_format is contiguous_format:
            return _is_contiguous(self._shape, self._strides())
        fmt = check_memory_format("is_contiguous", memory_format, optional=False)
        return is_contiguous_as(self._shape, self._strides(), fmt)

    def _lay_out(self, stride: tuple) -> "Tensor":
        """Give this fresh tensor (one that owns its storage in row-major order, as every
        op result does) the non-overlapping, dense strides ``stride``: its storage then
        holds its elements in that order (Note [Memory formats over immutable arrays]
        in memory_formats.py). Returns self."""
        stride = tuple(stride)
        if stride == self._strides():
            return self
        if _is_contiguous(self._shape, stride):
            # row-major already (strides differ only at sizes of 1, or there are no
            # elements): the storage stays as it is
            self._stride = stride
            return self
        value = self._value
        outer_first = sorted(range(len(stride)), key=lambda d: -stride[d])
        st = Storage(jnp.transpose(value, outer_first).reshape(-1), self._storage.dtype)
        self._storage, self._stride, self._offset = st, stride, 0
        self._direct, self._idx = False, None
        self._cache, self._cache_gen = value, st.gen
        return self

    def data_ptr(self) -> int:
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    def untyped_storage(self) -> _TypedStorage:
        return _TypedStorage(self._storage, self.dtype.itemsize, typed=False)

    def storage(self) -> _TypedStorage:
        return _TypedStorage(self._storage, self.dtype.itemsize, typed=True)

    @property
    def _version(self) -> int:
        return self._vc.v

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def device(self) -> Device:
        arr = self._storage.array
        try:
            devs = arr.devices()
        except (AttributeError, jax.errors.ConcretizationTypeError):
            return CPU
        if len(devs) != 1:
            return CPU
        return from_jax_device(next(iter(devs)))

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def layout(self):
        """Mirrors ``Tensor.layout``: always ``torchlike.strided``."""
        return strided

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def is_quantized(self) -> bool:
        return False

    @property
    def is_meta(self) -> bool:
        return False

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def get_device(self) -> int:
        d = self.device
        return -1 if d.type == "cpu" else (d.index or 0)

    # ------------------------------------------------------------------ aliases
    @property
    def data(self) -> "Tensor":
        """Mirrors ``Tensor.data``: same memory, no autograd history, own version counter
        (so in-place writes through it go unnoticed by autograd, as in PyTorch)."""
        d = self._alias()
        d._vc = VersionCounter()
        self._stop_if_traced(d)
        return d

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        from .._compile._tracing import bump_structure
        bump_structure()   # compiled functions must see the new storage
        self._storage = value._storage
        self._shape = value._shape
        self._stride = value._stride
        self._offset = value._offset
        self._direct = value._direct
        self._cache = value._cache
        self._cache_gen = value._cache_gen
        self._idx = value._idx

    def _alias(self, cls: type = None) -> "Tensor":
        """A tensor (of class ``cls``, default Tensor) over the same memory and version
        counter, without autograd history."""
        a = object.__new__(Tensor if cls is None else cls)
        for k in ("_storage", "_shape", "_stride", "_offset", "_direct", "_cache",
                  "_cache_gen", "_idx", "_vc"):
            setattr(a, k, getattr(self, k))
        _init_autograd_fields(a, False)
        return a

    def detach(self) -> "Tensor":
        """Mirrors ``Tensor.detach``: shares memory and version counter, no grad."""
        a = self._alias()
        self._stop_if_traced(a)
        return a

    def _stop_if_traced(self, alias: "Tensor") -> None:
        """Note [Detach under JAX transformations]."""
        v = self._value
        if isinstance(v, jax.core.Tracer):
            alias._direct = False
            alias._cache = jax.lax.stop_gradient(v)
            alias._cache_gen = alias._storage.gen
            alias._sg = True

    # ------------------------------------------------------------------ conversion
    def item(self):
        """Mirrors ``Tensor.item``: the Python number of a one-element tensor."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted "
                               "to Scalar")
        v = _host(self._value).reshape(())
        return v.item() if self.dtype is not _dt.bfloat16 else float(v)

    def tolist(self):
        """Mirrors ``Tensor.tolist``: nested Python lists of Python numbers."""
        a = _host(self._value)
        if self.dtype in (_dt.bfloat16,):
            a = a.astype(np.float32)
        return a.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """Mirrors ``Tensor.numpy``. Differences: the result is a read-only copy-free view
        of the JAX buffer when possible; writes to it do not reach the tensor."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return _host(self._storage.array if self._direct else self._value)

    def __array__(self, dtype=None, copy=None):
        a = _host(self._value)
        if dtype is not None:
            a = a.astype(dtype)
        if copy:
            a = a.copy()
        return a

    def __jax_array__(self):
        return self._value

    def jax(self) -> jax.Array:
        """The tensor's current JAX array, without copying (for a view: its values).

        torchlike's counterpart of ``Tensor.numpy()`` for JAX; works on tensors that
        require grad (the array carries no autograd history) and on traced tensors (the
        tracer). JAX arrays are immutable: later in-place writes to the tensor install a
        new array and leave the returned one as it was (see
        Note [What sharing means over immutable arrays] in ``_core/interop.py``)."""
        return self._value

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Mirrors ``Tensor.__dlpack__``: a DLPack capsule over the current buffer
        (zero-copy). Raises ``BufferError`` for tensors that require grad, as PyTorch."""
        from .interop import dlpack_export
        return dlpack_export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple:
        """Mirrors ``Tensor.__dlpack_device__``: ``(DLDeviceType, index)``."""
        from .interop import dlpack_device
        return dlpack_device(self)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            if self.numel() == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to "
                            "an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        # As PyTorch: a plain 0-d tensor formats as its Python number.
        if self.dim() == 0 and type(self) is Tensor and not isinstance(
                self._value, jax.core.Tracer):
            return self.detach().item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None) -> str:
        from .printing import tensor_repr
        return tensor_repr(self, tensor_contents=tensor_contents)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # object.__new__: a subclass's own __new__ may need arguments (one that returns
        # ``Tensor._make_subclass(cls, data)``); PyTorch rebuilds it without calling it too
        new = object.__new__(type(self))
        Tensor._init_from_array(new, jnp.array(self._value, copy=True),
                                self._requires_grad)
        if self._stride is not None and non_overlapping_and_dense(self._shape, self._stride):
            new._lay_out(self._stride)   # a layout is kept, as PyTorch's copy of the storage
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update({k: __import__("copy").deepcopy(v, memo)
                             for k, v in self.__dict__.items()})
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        args = (type(self), _host(self._value), self._requires_grad, dict(self.__dict__))
        st = self._stride
        if st is not None and st != contiguous_strides(self._shape) and \
                non_overlapping_and_dense(self._shape, st):
            args += (st,)   # a layout (channels_last, a transposed copy) is kept, as in PyTorch
        return (_rebuild_tensor, args)

    # ------------------------------------------------------------------ device/dtype moves
    def to(self, *args, **kwargs) -> "Tensor":
        """Mirrors ``Tensor.to(device=None, dtype=None, non_blocking=False, copy=False, *,
        memory_format=torch.preserve_format)``, ``to(other, ...)``, ``to(dtype, ...)`` and
        ``to(device, dtype, ...)``. Returns self when nothing changes: same dtype and
        device, no ``copy=True``, and ``memory_format`` either ``preserve_format`` or the
        one the strides suggest (PyTorch's ``suggest_memory_format``). A copy
        (``ToCopyBackward0``) keeps the input's strides under ``preserve_format`` when
        they are non-overlapping and dense (else dense ones in the same order), or takes
        those of ``memory_format``; ``channels_last`` needs a 4-d tensor,
        ``channels_last_3d`` a 5-d one (PyTorch's RuntimeError)."""
        dev, dt, copy, fmt = _parse_to(self, args, kwargs)
        if dt is self.dtype:
            dt = None
        jd = None
        if dev is not None:
            jd = jax_device(dev)  # raises clearly when the device does not exist
            if self.device == dev:
                dev = None
        if self._stride is None and fmt is preserve_format:
            # row-major and never given other strides (most tensors): so is the result
            if dt is None and dev is None and not copy:
                return self
            stride = None
        else:
            cur = self._strides()
            if dt is None and dev is None and not copy and (
                    fmt is preserve_format or fmt is suggest_memory_format(self._shape, cur)):
                return self
            stride = result_strides(self._shape, cur, fmt)
        out = self
        if dt is not None or dev is None:
            from .._ops.dispatch import call_op
            out = call_op("_to_dtype", self, self.dtype if dt is None else dt)
        if dev is not None:
            from .._ops.creation import to_device
            out = to_device(out, jd)
        return out if stride is None else out._lay_out(stride)

    def cpu(self, memory_format: memory_format_type = preserve_format) -> "Tensor":
        """Mirrors ``Tensor.cpu(memory_format=torch.preserve_format)``: ``self.to('cpu',
        memory_format=memory_format)``."""
        return self.to("cpu", memory_format=check_memory_format("cpu", memory_format))

    def cuda(self, device=None, non_blocking: bool = False,
             memory_format: memory_format_type = preserve_format) -> "Tensor":
        """Mirrors ``Tensor.cuda``: 'cuda' is JAX's accelerator; errors clearly without one."""
        d = Device("cuda", device) if isinstance(device, int) or device is None else Device(device)
        return self.to(d, memory_format=check_memory_format("cuda", memory_format))

    def type(self, dtype=None, non_blocking: bool = False):
        """Mirrors ``Tensor.type``: the legacy type string, or a cast."""
        if dtype is None:
            return _LEGACY_NAMES[self.dtype]
        if isinstance(dtype, str):
            if dtype.startswith("torch."):
                dtype = "torchlike." + dtype[len("torch."):]
            rev = {v: k for k, v in _LEGACY_NAMES.items()}
            if dtype not in rev:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = rev[dtype]
        return self.to(_dt.to_dtype(dtype))

    def is_pinned(self, device=None) -> bool:
        """Mirrors ``Tensor.is_pinned``: False. JAX manages host memory and its transfers to
        an accelerator; torchlike tensors are never page-locked by the user."""
        return False

    def pin_memory(self, device=None) -> "Tensor":
        """Mirrors ``Tensor.pin_memory``: PyTorch's error without an accelerator; with one,
        the tensor itself (JAX stages host-to-device copies on its own, so there is
        nothing to pin; ``DataLoader(pin_memory=True)`` does nothing either)."""
        from .device import accelerator_devices
        if not accelerator_devices():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self

    def is_same_size(self, other: "Tensor") -> bool:
        """Mirrors ``Tensor.is_same_size``: whether the shapes are equal."""
        if not isinstance(other, Tensor):
            raise TypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, "
                            f"not {type(other).__name__}")
        return self._shape == other._shape

    def type_as(self, other: "Tensor") -> "Tensor":
        """Mirrors ``Tensor.type_as``: ``self.type(other.type())``, this tensor cast to
        ``other``'s dtype (itself when it has it already); ``other`` gives only its type,
        so the result's graph has no edge to it."""
        if not isinstance(other, Tensor):
            raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}")
        return self.type(other.type())

    # ------------------------------------------------------------------ __torch_function__
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Default implementation, as ``torch.Tensor.__torch_function__``: run ``func``
        with overrides disabled, then return results as ``cls``."""
        from .._ops.torch_function import DisableTorchFunctionSubclass, _convert_subclass
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            return _convert_subclass(ret, cls)


_LEGACY_NAMES = {
    _dt.float32: "torchlike.FloatTensor", _dt.float64: "torchlike.DoubleTensor",
    _dt.float16: "torchlike.HalfTensor", _dt.bfloat16: "torchlike.BFloat16Tensor",
    _dt.uint8: "torchlike.ByteTensor", _dt.int8: "torchlike.CharTensor",
    _dt.int16: "torchlike.ShortTensor", _dt.int32: "torchlike.IntTensor",
    _dt.int64: "torchlike.LongTensor", _dt.bool: "torchlike.BoolTensor",
    _dt.complex64: "torchlike.ComplexFloatTensor",
    _dt.complex128: "torchlike.ComplexDoubleTensor",
}


def _rebuild_tensor(cls, arr, requires_grad, state, stride=None):
    t = object.__new__(cls)   # as in __deepcopy__: a subclass's __new__ is not called
    Tensor._init_from_array(t, jnp.asarray(arr), requires_grad)
    if stride is not None:
        t._lay_out(stride)
    t.__dict__.update(state)
    return t


_TO_SIGNATURES = (
    " * (torchlike.device device = None, torchlike.dtype dtype = None, bool non_blocking = "
    "False, bool copy = False, *, torchlike.memory_format memory_format = None)\n"
    " * (torchlike.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torchlike.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torchlike.memory_format memory_format = None)\n")


def _parse_to(self, args, kwargs):
    """``Tensor.to``'s arguments: (device, dtype, copy, memory_format), the memory
    format ``preserve_format`` when not given (as PyTorch's ``_parse_to``)."""
    dev = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = kwargs.pop("memory_format", None)
    if fmt is None:
        fmt = preserve_format
    elif not isinstance(fmt, memory_format_type):
        raise TypeError(f"to() received an invalid combination of arguments - got "
                        f"(memory_format={type(fmt).__name__}, ), but expected one of:\n"
                        + _TO_SIGNATURES)
    for a in args:
        if isinstance(a, memory_format_type):   # keyword-only in PyTorch
            raise TypeError("to() received an invalid combination of arguments - got "
                            "(torchlike.memory_format), but expected one of:\n"
                            + _TO_SIGNATURES)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword(s) {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a.device, a.dtype
        elif isinstance(a, _dt.dtype):
            dt = a
        elif isinstance(a, (str, Device, int)):
            dev = Device(a)
        elif isinstance(a, bool):
            pass
        elif a is None:
            pass
        else:
            dt = _dt.to_dtype(a)
    if isinstance(dev, str):
        dev = Device(dev)
    return dev, (None if dt is None else _dt.to_dtype(dt)), copy, fmt


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


wrap_dim = _wrap_dim


def _size_dim(dim: int, ndim: int) -> int:
    """``size(dim)``/``stride(dim)``'s dimension: as ``_wrap_dim``, but a 0-d tensor has
    none to give (PyTorch: "Dimension specified as 0 but tensor has no dimensions")."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def is_tensor(obj) -> bool:
    """Mirrors ``torch.is_tensor``."""
    return isinstance(obj, Tensor)


def is_inference(input: Tensor) -> bool:
    """Mirrors ``torch.is_inference``: ``input.is_inference()``, with PyTorch's TypeError
    for a non-tensor."""
    if not isinstance(input, Tensor):
        raise TypeError("is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()


_ = (functools, weakref, is_grad_enabled, compute_view_strides)
