"""Collation: ``default_collate`` (a list of samples -> a batch of tensors) and
``default_convert`` (NumPy -> tensors, without batching), mirroring
``torch.utils.data._utils.collate``, including the extensible ``collate`` with its
``default_collate_fn_map``.

In a DataLoader worker process the same functions stack with NumPy and return
``_WorkerTensor`` arrays, which become torchlike tensors in the main process (see Note
[DataLoader workers never touch JAX] in ``_worker.py``). The dtypes are PyTorch's:
Python floats -> float64, ints -> int64, bools -> bool, NumPy keeps its dtype.
"""

from __future__ import annotations

import collections
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.tensor import Tensor
from . import _worker
from ._worker import _WorkerTensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _in_worker() -> bool:
    return _worker.get_worker_info() is not None


def _batch_tensor(array: np.ndarray):
    """A NumPy batch as a tensor: a torchlike tensor in the main process, a
    ``_WorkerTensor`` in a worker."""
    if _in_worker():
        return _worker.as_worker_tensor(array)
    from ..._ops.creation import place
    return place(array if array.flags.c_contiguous else np.array(array, order="C"))


def _as_numpy(x) -> np.ndarray:
    # In a forked worker a torchlike tensor refuses here, with the explanation.
    return np.asarray(x)


def _check_equal_size(shapes: list[tuple]) -> None:
    first = shapes[0]
    for i, s in enumerate(shapes):
        if s != first:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(first)} at entry 0 and {list(s)} at entry {i}")


def default_convert(data: Any) -> Any:
    """Mirrors ``torch.utils.data.default_convert``: NumPy arrays and scalars (inside
    dicts, namedtuples, tuples, lists) become tensors; anything else is left as is.
    The collate function of a DataLoader with ``batch_size=None``.

    Example::

        >>> default_convert([np.array([0, 1]), 5])
        [tensor([0, 1]), 5]
    """
    elem_type = type(data)
    if isinstance(data, (Tensor, _WorkerTensor)):
        return data
    if (elem_type.__module__ == "numpy" and elem_type.__name__ != "str_"
            and elem_type.__name__ != "string_"):
        if (elem_type.__name__ == "ndarray"
                and np_str_obj_array_pattern.search(data.dtype.str) is not None):
            return data
        return _batch_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict | None = None) -> Any:
    """Mirrors ``torch.utils.data._utils.collate.collate``: collate ``batch`` by the type
    of its first element, looking the type up in ``collate_fn_map`` (exact type first,
    then ``isinstance`` in insertion order) and recursing into mappings, namedtuples and
    sequences."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch],
                                           collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch],
                                           collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map: dict | None = None):
    """Tensors -> one tensor with a new leading batch dimension (``stack``)."""
    if _in_worker():
        arrays = [_as_numpy(t) for t in batch]
        _check_equal_size([a.shape for a in arrays])
        return _worker.as_worker_tensor(np.stack(arrays))
    from ..._ops import FUNCTIONS
    return FUNCTIONS["stack"](list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map: dict | None = None):
    """NumPy arrays -> one tensor of their dtype (arrays of strings or objects raise)."""
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    if (collate_fn_map is not None and collate_fn_map.get(Tensor) is not collate_tensor_fn
            and not _in_worker()):
        # a customised tensor collate sees the arrays as tensors, as in PyTorch
        return collate([default_convert(np.asarray(b)) for b in batch],
                       collate_fn_map=collate_fn_map)
    arrays = [np.asarray(b) for b in batch]
    _check_equal_size([a.shape for a in arrays])
    return _batch_tensor(np.stack(arrays))


def collate_numpy_scalar_fn(batch, *, collate_fn_map: dict | None = None):
    """NumPy scalars -> a 1-d tensor (``as_tensor`` of the list: PyTorch's promotion)."""
    from ..._ops.creation import _infer_dtype
    return _batch_tensor(np.array(batch, dtype=_infer_dtype(list(batch)).np))


def collate_float_fn(batch, *, collate_fn_map: dict | None = None):
    """Python floats -> a float64 tensor."""
    return _batch_tensor(np.array(batch, dtype=np.float64))


def collate_int_fn(batch, *, collate_fn_map: dict | None = None):
    """Python ints (and bools) -> ``tensor(batch)``: int64, or bool for all-bool batches."""
    from ..._ops.creation import _infer_dtype
    return _batch_tensor(np.array(batch, dtype=_infer_dtype(list(batch)).np))


def collate_str_fn(batch, *, collate_fn_map: dict | None = None):
    """Strings and bytes are left as they are."""
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: list) -> Any:
    """Mirrors ``torch.utils.data.default_collate``: samples -> a batch with a new
    leading dimension, by element type: tensors and NumPy arrays are stacked; Python
    floats -> float64, ints -> int64, bools -> bool tensors; NumPy scalars keep their
    dtype; strings and bytes stay as they are; dicts, namedtuples, tuples and lists are
    collated field by field (tuples become lists, as in PyTorch). Samples of different
    lengths raise ``RuntimeError('each element in list of batch should be of equal
    size')``.

    Example::

        >>> default_collate([(0, 1.5), (2, 3.5)])
        [tensor([0, 2]), tensor([1.5000, 3.5000], dtype=torchlike.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
