"""Storage, version counters and stride arithmetic.

# Note [Views over immutable arrays]
# JAX arrays cannot be mutated, but PyTorch code writes through views
# (``b = t.view(2, 8); b[0][0] = 3.14``) and expects the base and every other view
# to see the write. torchlike keeps, per tensor, a ``Storage`` (the base's current
# array plus a write generation) and a strided description of the tensor over that
# storage: shape, strides and offset, exactly PyTorch's metadata. A tensor that owns
# its storage reads ``storage.array`` directly. A view caches its value together with
# the storage generation it was read at; after any write to the storage it re-reads
# itself by gathering from the flat storage with an index array derived from its
# strides. A write through a view is a functional scatter of the new values into the
# flat storage (the approach of PyTorch's functionalization), after which the
# generation and the shared version counter are bumped.
"""

from __future__ import annotations

import itertools

import numpy as np

from .dtype import _BY_NP
from .grad_mode import _state as _grad_state
from .grad_mode import inference_used as _inference_used

__all__ = ["Storage", "InferenceStorage", "VersionCounter", "contiguous_strides",
           "compute_view_strides", "strided_index"]

_uid = itertools.count(1)


class Storage:
    """The array a base tensor and all its views share.

    ``array`` has the base tensor's shape; ``gen`` counts writes (it invalidates the
    cached values of views); ``uid`` provides a stable fake ``data_ptr``.
    """

    # ``views``: the views made of a tensor over this storage while it did not require
    # grad (a list of weak references, unset until the first one); Note [Views of a
    # base that gains history] in torchlike/autograd/inplace.py
    __slots__ = ("array", "gen", "uid", "dtype", "views", "__weakref__")

    #: whether the tensors over this storage are inference tensors (Note [Inference
    #: tensors]); ``InferenceStorage`` says True
    inference = False

    def __new__(cls, *args, **kwargs):
        if cls is Storage and _inference_used[0] and _grad_state.inference:
            cls = InferenceStorage
        return object.__new__(cls)

    def __init__(self, array, dtype=None):
        self.array = array
        self.gen = 0
        self.uid = next(_uid)
        # the torchlike dtype; the array's dtype never changes (writes are cast)
        if dtype is None:
            dtype = _BY_NP[array.dtype]
        self.dtype = dtype

    @property
    def flat_size(self) -> int:
        return int(np.prod(self.array.shape, dtype=np.int64))

    def data_ptr(self) -> int:
        # A plausible, 64-byte aligned address unique to this storage.
        return 0x7F0000000000 + self.uid * 0x1000000


# Note [Inference tensors]
# As in PyTorch, a tensor made while ``inference_mode`` is on is an inference tensor
# (``is_inference()``), and so are its views and ``detach()``ed aliases: they share its
# storage, which is an ``InferenceStorage``. (A view made in inference mode of a normal
# tensor is normal: it shares a normal storage.) Outside inference mode such a tensor
# may be read and used in ops that record no saved values, but PyTorch refuses three
# things, and so does torchlike: an in-place write to it (``Tensor._set_value`` and the
# in-place metadata methods), ``requires_grad_(True)`` on it, and saving it for a
# backward (``autograd._saved.entries``).
INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
    "a clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


class InferenceStorage(Storage):
    """The storage of inference tensors (Note [Inference tensors])."""

    __slots__ = ()
    inference = True


class VersionCounter:
    """Shared by a tensor, its views and ``detach()``ed aliases; bumped by in-place ops."""

    __slots__ = ("v",)

    def __init__(self):
        self.v = 0


def contiguous_strides(shape) -> tuple:
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


def is_contiguous(shape, strides) -> bool:
    """PyTorch's definition: size-1 dims don't constrain the stride, and a tensor without
    elements is contiguous whatever its strides."""
    if 0 in shape:
        return True
    expected = 1
    for s, st in zip(reversed(shape), reversed(strides)):
        if s == 1:
            continue
        if st != expected:
            return False
        expected *= s
    return True


def compute_view_strides(old_shape, old_strides, new_shape):
    """PyTorch's ``computeStride``: strides for viewing (old_shape, old_strides) as
    new_shape without copying, or None when the memory layout does not allow it."""
    if len(old_shape) == 0:
        return (1,) * len(new_shape)
    numel = int(np.prod(old_shape, dtype=np.int64))
    if numel == 0:
        if tuple(old_shape) == tuple(new_shape):
            return tuple(old_strides)
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1] if old_strides else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def strided_index(shape, strides, offset) -> np.ndarray:
    """Flat storage positions of every element of a strided tensor (int64, ``shape``)."""
    idx = np.full((), offset, dtype=np.int64)
    for d, (s, st) in enumerate(zip(shape, strides)):
        ar = np.arange(s, dtype=np.int64) * st
        idx = idx[..., None] + ar if d else idx + ar
    return np.broadcast_to(idx, tuple(shape)) if idx.shape != tuple(shape) else idx
