"""Memory formats: ``torchlike.contiguous_format``, ``channels_last``, ``channels_last_3d``
and ``preserve_format``, and PyTorch's stride arithmetic for them.

# Note [Memory formats over immutable arrays]
# A memory format names an order of a tensor's elements in memory: row-major
# (``contiguous_format``), channels innermost for 4-d NCHW tensors (``channels_last``,
# strides of an NHWC array) or 5-d NCDHW ones (``channels_last_3d``). A tensor in such a
# layout is nothing new for torchlike: it is a tensor that owns a storage holding its
# elements in that order, with the strides that say so, exactly as the result of
# ``permute`` on a fresh contiguous tensor but without a base (Note [Tensors that own a
# strided storage] in _ops/strided.py). ``Tensor._lay_out`` turns a fresh contiguous
# result into one; views, in-place writes and autograd then work as for any strided
# tensor. ``preserve_format`` (the default of ``clone``, ``to`` and the ``*_like``
# factories) keeps the input's strides when they are non-overlapping and dense, and
# otherwise gives dense strides in the order of the input's (PyTorch's
# ``infer_dense_strides``). Which layout a result gets is computed here from shapes and
# strides alone, as PyTorch's c10 does; XLA, which picks its own physical layouts, never
# sees any of it.
"""

from __future__ import annotations

from .storage import contiguous_strides, is_contiguous

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "legacy_contiguous_format"]


class memory_format:
    """The type of ``torchlike.contiguous_format``, ``channels_last``,
    ``channels_last_3d`` and ``preserve_format``, mirroring ``torch.memory_format``.

    There are exactly these four instances (PyTorch refuses to make others, and so does
    torchlike); they compare by identity, print as ``torchlike.channels_last`` (where
    PyTorch prints ``torch.channels_last``) and pickle and copy as themselves.

    >>> import torchlike as torch
    >>> torch.channels_last
    torchlike.channels_last
    """

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torchlike.memory_format' instances")

    @classmethod
    def _make(cls, name: str) -> "memory_format":
        self = object.__new__(cls)
        self._name = name
        return self

    def __repr__(self) -> str:
        return f"torchlike.{self._name}"

    __str__ = __repr__

    def __reduce__(self) -> str:
        # by reference: unpickling and copying give the same object
        return self._name


memory_format.__module__ = "torchlike"

contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")
#: PyTorch's other name of ``contiguous_format`` (the same object)
legacy_contiguous_format = contiguous_format

# the dimensions of a channels-last layout from the innermost to the outermost
_CL_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}
_CL_FORMAT = {4: channels_last, 5: channels_last_3d}


def check_memory_format(fname: str, value, optional: bool = True):
    """``value`` as a ``memory_format`` argument of ``fname``: PyTorch's TypeError for
    anything else (None is allowed where ``optional``; it means ``preserve_format``)."""
    if value is None and optional:
        return preserve_format
    if not isinstance(value, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be "
                        f"torchlike.memory_format, not {type(value).__name__}")
    return value


def format_strides(fmt: memory_format, shape) -> tuple:
    """The strides a new tensor of ``shape`` gets in format ``fmt`` (PyTorch's
    ``empty_tensor_restride``), with its errors for a rank the format does not fit and
    for ``preserve_format``, which names no layout of its own."""
    shape = tuple(shape)
    if fmt is contiguous_format:
        return contiguous_strides(shape)
    if fmt is channels_last:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
    elif fmt is channels_last_3d:
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
    else:
        raise RuntimeError("unsupported memory format Preserve")
    # ``get_channels_last_strides_2d/3d``: unlike contiguous strides, a size of 0 is not
    # read as 1
    strides = [0] * len(shape)
    acc = 1
    for d in _CL_ORDER[len(shape)]:
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def is_contiguous_as(shape, stride, fmt: memory_format) -> bool:
    """``Tensor.is_contiguous(memory_format=fmt)`` for a tensor of this geometry: for the
    channels-last formats, whether the strides are those of the format (dimensions of
    size 1 do not count); ``preserve_format`` asks about ``contiguous_format``, as in
    PyTorch."""
    if fmt is contiguous_format or fmt is preserve_format:
        return is_contiguous(shape, stride)
    order = _CL_ORDER.get(len(shape))
    if order is None or _CL_FORMAT[len(shape)] is not fmt:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def _strides_like_channels_last(shape, stride) -> bool:
    """c10's ``is_channels_last_strides_2d_s4``/``_3d_s5``: whether the strides order the
    dimensions as a channels-last layout does (gaps allowed), ambiguous cases going to
    the contiguous format."""
    order = _CL_ORDER[len(shape)]
    if stride[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or stride[d] < low:
            return False
        if d == 0 and low == stride[1]:
            return False
        low = stride[d]
        if shape[d] > 1:
            low *= shape[d]
    return True


def suggest_memory_format(shape, stride) -> memory_format:
    """``TensorBase::suggest_memory_format()``: the format whose strides these resemble
    (``channels_last`` for a 4-d tensor strided like NHWC, ``channels_last_3d`` for a 5-d
    one strided like NDHWC, else ``contiguous_format``)."""
    fmt = _CL_FORMAT.get(len(shape))
    if fmt is not None and _strides_like_channels_last(shape, stride):
        return fmt
    return contiguous_format


def non_overlapping_and_dense(shape, stride) -> bool:
    """c10's ``is_non_overlapping_and_dense``: the elements fill a block of memory
    without gaps or repeats, in some order of the dimensions."""
    if is_contiguous(shape, stride):
        return True
    n = len(shape)
    if n in _CL_FORMAT and is_contiguous_as(shape, stride, _CL_FORMAT[n]):
        return True
    if n == 1:
        return shape[0] < 2 or stride[0] == 1
    dims = sorted((d for d in range(n) if shape[d] >= 2), key=lambda d: stride[d])
    need = 1
    for d in dims:
        if stride[d] != need:
            return False
        need *= shape[d]
    return True


def sort_dims(n: int, should_swap) -> list:
    """The dimensions ``0..n-1``, innermost first, ordered by the stable insertion sort
    that PyTorch's ``infer_dense_strides`` and its elementwise output layout both use:
    ``should_swap(d0, d1)`` is 1 to swap, -1 when in order, 0 when it cannot tell."""
    perm = list(range(n - 1, -1, -1))
    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def infer_dense_strides(shape, stride) -> tuple:
    """ATen's ``infer_dense_strides``: dense strides that order the dimensions as
    ``stride`` does (a stable insertion sort where a stride of 0 compares equal to
    any, and among equal strides the smaller dimension goes inside)."""
    n = len(shape)
    if n == 0:
        return ()
    if n == 1:
        return (1,)

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = sort_dims(n, should_swap)
    out = [0] * n
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def result_strides(shape, stride, fmt: memory_format) -> tuple:
    """The strides of a copy of a tensor of this geometry made in format ``fmt``, as
    ``clone``, ``Tensor.to`` and the ``*_like`` factories give them: for
    ``preserve_format`` the input's own strides when they are non-overlapping and dense,
    else ``infer_dense_strides``; for another format, its strides."""
    if fmt is preserve_format:
        shape, stride = tuple(shape), tuple(stride)
        if non_overlapping_and_dense(shape, stride):
            return stride
        return infer_dense_strides(shape, stride)
    return format_strides(fmt, shape)
