"""Tensors to and from other array libraries: JAX arrays (zero-copy, tracers included)
and DLPack producers and consumers (NumPy, JAX, PyTorch, CuPy, ...).

# Note [What sharing means over immutable arrays]
# A torchlike tensor's memory is a JAX array held by its ``Storage`` (Note [Views over
# immutable arrays]). ``from_jax(a)`` makes that storage *be* ``a``: no copy, and
# ``from_jax(a).jax() is a``. ``Tensor.jax()``/``__jax_array__``/``__dlpack__`` hand out
# the current array the same way. JAX arrays never change, so "sharing" here means the
# same buffer at the moment of the hand-over, not PyTorch's shared writable memory:
#
# * a write through a torchlike tensor (``t.add_(1)``, ``t[0] = 5``) builds a new array
#   and installs it in the tensor's storage; the array given to ``from_jax`` and every
#   array obtained earlier from ``t.jax()`` keep their values. torchlike never writes
#   into a buffer it did not allocate itself;
# * tensors that share a storage inside torchlike (views, ``detach()``, ``.data``,
#   ``from_dlpack`` of a torchlike tensor) do see each other's writes, as in PyTorch;
# * a buffer imported by DLPack (``from_dlpack(numpy_array)``, ``from_dlpack(torch_t)``)
#   is aliased when XLA can use it in place (same device, 64-byte aligned on CPU) and
#   copied otherwise. JAX assumes such a buffer never changes: writing to the producer
#   afterwards is undefined (the tensor may or may not see it). Pass ``copy=True`` to own
#   the data. The same holds the other way: a consumer of ``__dlpack__`` (e.g.
#   ``torch.from_dlpack(t)``) reads torchlike's buffer in place and must not write to it.
#
# Note [Tensors are pytrees]
# JAX no longer reads ``__jax_array__`` while abstracting the arguments of a jitted
# function (``jnp.sin(t)`` is one), and asks array-like classes to be pytrees instead.
# ``Tensor`` (and ``nn.Parameter``/``nn.Buffer``) are therefore registered as pytree
# nodes with one child, the tensor's current array. ``jnp.sin(t)`` sees the array,
# ``jax.jit(f)(t)`` hands ``f`` a tensor over a tracer, and ``jax.tree_util`` maps over
# the arrays inside tensors. Rebuilt tensors are plain ``Tensor``s that own their array
# and do not require grad: JAX transformations see values, not torchlike's autograd
# history. JAX also rebuilds trees around placeholders that are not arrays (shape
# structs, axis specs); such a tensor only carries the placeholder through.
"""

from __future__ import annotations

import ctypes
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import dtype as _dt
from .autograd_attrs import init_autograd_fields as _init_autograd_fields
from .storage import Storage, VersionCounter
from .tensor import Tensor

__all__ = ["from_jax", "from_dlpack", "to_dlpack", "tensor_value", "is_traced"]


# ---------------------------------------------------------------------------- JAX
def _torchlike_dtype(np_dtype, what: str) -> _dt.dtype:
    try:
        return _dt.from_np(np_dtype)
    except TypeError:
        supported = ", ".join(d.name for d in _dt.ALL_DTYPES)
        raise TypeError(f"{what}: the {np_dtype} dtype has no torchlike dtype; supported "
                        f"dtypes are {supported}. Convert the array first, e.g. "
                        "a.astype(jnp.int64).") from None


def from_jax(array: jax.Array) -> Tensor:
    """A tensor whose memory is ``array`` itself (no copy): ``from_jax(a).jax() is a``.

    The JAX counterpart of ``torch.from_numpy``. The dtype maps one to one (``float32``
    to ``torchlike.float32``, ...; JAX dtypes without a PyTorch equivalent, such as
    ``uint32`` or PRNG keys, raise ``TypeError``). Tracers work too, so this can be used
    inside ``jax.jit``/``jax.grad``/``jax.vmap``; the tensor then wraps the tracer and
    torchlike ops on it are traced. The tensor does not require grad.

    Difference from PyTorch's sharing: JAX arrays are immutable, so an in-place write to
    the tensor installs a new array in it and ``array`` keeps its values (Note [What
    sharing means over immutable arrays]).

    Example::

        >>> a = jnp.arange(3.0)
        >>> t = torchlike.from_jax(a)
        >>> t.jax() is a
        True
    """
    if isinstance(array, Tensor):
        raise TypeError("from_jax expected a jax.Array, but got a torchlike Tensor; it is "
                        "already a tensor (use .detach() for an alias without history)")
    if not isinstance(array, jax.Array):
        hint = " (use torchlike.from_numpy for NumPy arrays)" \
            if isinstance(array, np.ndarray) else ""
        raise TypeError(f"from_jax expected a jax.Array, but got {type(array).__name__}{hint}")
    _torchlike_dtype(array.dtype, "from_jax")
    return Tensor._wrap(array)


def tensor_value(t: Tensor):
    """The current JAX array of ``t`` (for a view: its values, gathered)."""
    return t._value


def is_traced(t: Tensor) -> bool:
    """Whether ``t``'s value is a JAX tracer (inside jax.jit/grad/vmap)."""
    return isinstance(t._value, jax.core.Tracer)


# ---------------------------------------------------------------------------- pytrees
def _flatten(t: Tensor):
    return (t._value,), None


def _unflatten(_aux, children) -> Tensor:
    (leaf,) = children
    t = object.__new__(Tensor)
    dt = None
    if hasattr(leaf, "dtype") and hasattr(leaf, "shape"):
        try:
            dt = _dt.from_np(leaf.dtype)
        except TypeError:
            dt = None
    # A placeholder that is not an array (see Note [Tensors are pytrees]) is carried as
    # the storage's "array" with a nominal dtype; only flattening reads it back.
    t._storage = Storage(leaf, dtype=dt if dt is not None else _dt.float32)
    t._shape = tuple(leaf.shape) if dt is not None else ()
    t._stride = None
    t._offset = 0
    t._direct = True
    t._cache = None
    t._cache_gen = -1
    t._idx = None
    t._vc = VersionCounter()
    _init_autograd_fields(t, False)
    return t


def _register_pytrees() -> None:
    from ..nn.parameter import Buffer, Parameter
    for cls in (Tensor, Parameter, Buffer):
        try:
            jax.tree_util.register_pytree_node(cls, _flatten, _unflatten)
        except ValueError:  # already registered (module reloaded)
            pass


_register_pytrees()


# ---------------------------------------------------------------------------- DLPack
class _Capsule:
    """Presents a bare DLPack capsule as a producer object (JAX only takes those)."""

    def __init__(self, capsule, device: tuple):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _is_capsule(obj) -> bool:
    return type(obj).__name__ == "PyCapsule"


def _capsule_device(capsule) -> tuple:
    """``(device_type, device_id)`` read from a legacy ``dltensor`` capsule: the
    ``DLManagedTensor`` starts with a ``DLTensor`` whose ``data`` pointer is followed
    by ``DLDevice {int32 device_type; int32 device_id}``."""
    name = _get_name(capsule)
    if name == b"used_dltensor" or name == b"used_dltensor_versioned":
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor "
                           "capsules can be consumed only once, so you might have already "
                           "constructed a tensor from it once.")
    if name != b"dltensor":
        raise RuntimeError(f"from_dlpack: unsupported capsule {name!r}; pass the producer "
                           "object itself (anything with __dlpack__), not a capsule")
    ptr = _get_pointer(capsule, b"dltensor")
    dev = (ctypes.c_int32 * 2).from_address(ptr + ctypes.sizeof(ctypes.c_void_p))
    return int(dev[0]), int(dev[1])


def from_dlpack(ext_tensor: Any, *, device=None, copy: bool | None = None) -> Tensor:
    """Mirrors ``torch.from_dlpack`` (and ``torch.utils.dlpack.from_dlpack``): a tensor
    over the memory of ``ext_tensor``, any object with ``__dlpack__`` (NumPy and JAX
    arrays, PyTorch tensors, ...) or a DLPack capsule from a ``to_dlpack`` function.

    A JAX array becomes the tensor's storage as is (as ``from_jax``); a torchlike tensor
    gives a tensor sharing its storage (writes through either are seen by both, as in
    PyTorch). Other producers' buffers are imported by JAX, zero-copy where XLA allows
    (same device; on CPU a 64-byte aligned buffer), else copied. ``device`` moves the
    result, ``copy=True`` always copies, ``copy=False`` refuses to.

    Differences from PyTorch: JAX assumes imported buffers never change, so writing to
    the producer afterwards is undefined, and a write through the tensor never reaches
    the producer (Note [What sharing means over immutable arrays]).
    """
    from .device import device as Device
    from .device import jax_device
    if isinstance(ext_tensor, Tensor):
        if ext_tensor.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use "
                              "tensor.detach()")
        out = ext_tensor.data
        if copy:
            out = out.clone()
        if device is not None:
            out = out.to(device)
        return out
    if isinstance(ext_tensor, jax.Array) and not copy and device is None:
        return from_jax(ext_tensor)
    jdev = None if device is None else jax_device(Device(device) if not isinstance(
        device, Device) else device)
    if _is_capsule(ext_tensor):
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is "
                                 "already a DLPack capsule.")
        ext_tensor = _Capsule(ext_tensor, _capsule_device(ext_tensor))
    elif not (hasattr(ext_tensor, "__dlpack__") and hasattr(ext_tensor, "__dlpack_device__")):
        raise TypeError(f"from_dlpack expected an object with __dlpack__ and "
                        f"__dlpack_device__ methods or a DLPack capsule, but got "
                        f"{type(ext_tensor).__name__}")
    try:
        # jax 0.10's from_dlpack(copy=True) keeps a 64-byte aligned NumPy buffer as is;
        # ``copy=True`` promises memory of its own, so the copy is made here
        arr = jax.dlpack.from_dlpack(ext_tensor, device=jdev, copy=None if copy else copy)
        if copy:
            arr = jnp.array(arr, copy=True)
    except BufferError:
        # NumPy refuses to export a read-only array through a legacy capsule (DLPack
        # before 1.0 cannot mark it read-only); such an array is copied.
        if isinstance(ext_tensor, np.ndarray) and copy is not False:
            arr = jax.device_put(np.array(ext_tensor), jdev)
        else:
            raise
    _torchlike_dtype(arr.dtype, "from_dlpack")
    return Tensor._wrap(arr)


def to_dlpack(tensor: Tensor):
    """Mirrors ``torch.utils.dlpack.to_dlpack``: a DLPack capsule over the tensor's
    current buffer (zero-copy; consumers must not write to it, see Note [What sharing
    means over immutable arrays])."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack expected a torchlike Tensor, but got "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()


def dlpack_export(t: Tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: PyTorch's export checks, then JAX's capsule."""
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    arr = _exportable(t)
    kwargs = {"stream": stream}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return arr.__dlpack__(**kwargs)


def dlpack_device(t: Tensor) -> tuple:
    """``Tensor.__dlpack_device__``: ``(DLDeviceType, device id)`` of the buffer."""
    return _exportable(t).__dlpack_device__()


def _exportable(t: Tensor):
    arr = t._value
    if isinstance(arr, jax.core.Tracer):
        raise BufferError("Can't export a tensor whose value is being traced by JAX (inside "
                          "jax.jit/jax.grad/jax.vmap or a compiled function); export it "
                          "outside the traced function")
    return arr
