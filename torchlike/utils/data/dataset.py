"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``StackDataset``,
``ConcatDataset``, ``ChainDataset``, ``Subset`` and ``random_split``, mirroring
``torch.utils.data.dataset``.

``TensorDataset`` alone knows about worker processes: before workers start, the
DataLoader asks it for a NumPy snapshot of its tensors, which the workers index instead
of the tensors (see Note [DataLoader workers never touch JAX] in ``_worker.py``).
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ..._core.random import Generator, default_generator
from ..._core.tensor import Tensor
from . import _worker

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """Mirrors ``torch.utils.data.Dataset``: a map from keys to samples.

    Subclasses implement ``__getitem__`` and usually ``__len__``; they may implement
    ``__getitems__(indices)`` to load a whole batch at once. ``a + b`` concatenates.

    Example::

        >>> class Squares(Dataset):
        ...     def __len__(self): return 4
        ...     def __getitem__(self, i): return i * i
        >>> len(Squares() + Squares())
        8
    """

    def __getitem__(self, index) -> _T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset[_T_co]") -> "ConcatDataset[_T_co]":
        return ConcatDataset([self, other])

    # No default __len__ (as PyTorch): ``len()`` must raise TypeError for datasets
    # without one, so that code probing for it falls back correctly.


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """Mirrors ``torch.utils.data.IterableDataset``: a stream of samples.

    Subclasses implement ``__iter__``. With ``num_workers > 0`` every worker iterates
    its own copy of the dataset; split the work with :func:`get_worker_info` in
    ``__iter__`` (or in ``worker_init_fn``) to avoid duplicates. ``a + b`` chains.
    """

    def __add__(self, other: Dataset[_T_co]) -> "ChainDataset":
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Mirrors ``torch.utils.data.TensorDataset``: sample ``i`` is
    ``tuple(t[i] for t in tensors)``.

    Difference: inside a DataLoader worker process the samples are NumPy-backed
    stand-ins for tensors (indexed from a snapshot taken when the workers start), which
    become torchlike tensors once the batch reaches the main process.

    Example::

        >>> import torchlike as torch
        >>> ds = TensorDataset(torch.arange(3), torch.zeros(3, 2))
        >>> ds[1]
        (tensor(1), tensor([0., 0.]))
    """

    tensors: tuple

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors
        self._worker_arrays: tuple | None = None
        self._host_cache: dict = {}

    def __getitem__(self, index):
        arrays = self.__dict__.get("_worker_arrays")
        if arrays is not None and _worker.get_worker_info() is not None:
            return tuple(_worker.as_worker_tensor(a[index]) for a in arrays)
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            rows = self._rows(int(index))
            if rows is not None:
                return rows
        return tuple(tensor[index] for tensor in self.tensors)

    # Note [TensorDataset rows from host memory]
    # Loading a batch reads one row per sample. Reading rows by tensor indexing costs an
    # XLA dispatch each (and currently one compilation per distinct index), so a sample
    # is read from a host copy of each tensor instead, cached while the tensor's value
    # is unchanged (an in-place write replaces it), and placed on the tensor's device.
    # Tensors that require grad keep the indexing path, so samples stay in the graph.
    def _rows(self, index: int) -> tuple | None:
        from ..._ops.creation import place
        if any(not isinstance(t, Tensor) or t.requires_grad for t in self.tensors):
            return None
        cache = self.__dict__.setdefault("_host_cache", {})
        rows = []
        for i, t in enumerate(self.tensors):
            value = t._value
            hit = cache.get(i)
            if hit is None or hit[0] is not value:
                hit = cache[i] = (value, np.asarray(value))
            try:
                row = hit[1][index]
            except IndexError:
                return None   # the tensor path raises PyTorch's error
            rows.append(place(np.asarray(row), t.device))
        return tuple(rows)

    def __len__(self) -> int:
        return self.tensors[0].size(0)

    def _snapshot_for_workers(self) -> None:
        # Called by the DataLoader in the main process just before workers start.
        self._worker_arrays = tuple(np.asarray(t.detach()) if isinstance(t, Tensor)
                                    else np.asarray(t) for t in self.tensors)

    def _drop_worker_snapshot(self) -> None:
        self._worker_arrays = None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_host_cache"] = {}
        return state


class StackDataset(Dataset):
    """Mirrors ``torch.utils.data.StackDataset``: sample ``i`` is
    ``tuple(d[i] for d in args)`` or ``{k: d[i] for k, d in kwargs.items()}``."""

    datasets: tuple | dict

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])  # type: ignore[arg-type]
            if any(self._length != len(dataset) for dataset in args):  # type: ignore[arg-type]
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])  # type: ignore[arg-type]
            if any(self._length != len(dataset) for dataset in tmp):  # type: ignore[arg-type]
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list) -> list:
        if isinstance(self.datasets, dict):
            dict_batch: list[dict] = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for sample, item in zip(dict_batch, _load_many(dataset, indices)):
                    sample[k] = item
            return dict_batch
        list_batch: list[list] = [[] for _ in indices]
        for dataset in self.datasets:
            for sample, item in zip(list_batch, _load_many(dataset, indices)):
                sample.append(item)
        return [tuple(sample) for sample in list_batch]

    def __len__(self) -> int:
        return self._length


def _load_many(dataset, indices: list) -> list:
    if callable(getattr(dataset, "__getitems__", None)):
        items = dataset.__getitems__(indices)
        if len(items) != len(indices):
            raise ValueError("Nested dataset's output size mismatch."
                             f" Expected {len(indices)}, got {len(items)}")
        return items
    return [dataset[i] for i in indices]


class ConcatDataset(Dataset[_T_co]):
    """Mirrors ``torch.utils.data.ConcatDataset``: the datasets one after another;
    ``cumulative_sizes[i]`` is the total length of the first ``i + 1``; negative
    indices count from the end."""

    datasets: list
    cumulative_sizes: list

    @staticmethod
    def cumsum(sequence) -> list:
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        if dataset_idx == 0:
            sample_idx = idx
        else:
            sample_idx = idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self) -> list:
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Mirrors ``torch.utils.data.ChainDataset``: iterable datasets chained lazily."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset[_T_co]):
    """Mirrors ``torch.utils.data.Subset``: ``dataset`` restricted to ``indices``.

    A subclass that overrides ``__getitem__`` must also override ``__getitems__``
    (as in PyTorch, the DataLoader prefers ``__getitems__``)."""

    dataset: Dataset
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset[_T], lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset[_T]]:
    """Mirrors ``torch.utils.data.random_split``: non-overlapping random subsets of the
    given lengths, or of fractions summing to 1 (``floor(frac * len)`` each, then the
    remainder handed out one by one from the first split on).

    Difference: the permutation comes from torchlike's generator, so which indices land
    in which split differs from PyTorch's for the same seed (the lengths do not).

    Example::

        >>> import torchlike as torch
        >>> a, b = random_split(range(10), [0.3, 0.7], generator=torch.Generator().manual_seed(0))
        >>> len(a), len(b)
        (3, 7)
    """
    from ..._ops.random import randperm
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths: list[int] = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))  # type: ignore[arg-type]
        remainder = len(dataset) - sum(subset_lengths)  # type: ignore[arg-type]
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):  # type: ignore[arg-type]
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()  # type: ignore[arg-type]
    return [Subset(dataset, indices[offset - length: offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


_MAX_WALKED_SEQUENCE = 256


def _datasets_within(dataset: Any) -> Iterator:
    """Every dataset reachable from ``dataset`` through attributes, lists, tuples and
    dicts (each once), ``dataset`` included."""
    seen: set[int] = set()
    stack = [dataset]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, tuple)):
            if len(obj) <= _MAX_WALKED_SEQUENCE:   # skip long index lists
                stack.extend(x for x in obj if isinstance(x, (Dataset, list, tuple, dict)))
        elif isinstance(obj, dict):
            stack.extend(x for x in obj.values()
                         if isinstance(x, (Dataset, list, tuple, dict)))
        elif isinstance(obj, Dataset):
            yield obj
            stack.extend(x for x in getattr(obj, "__dict__", {}).values()
                         if isinstance(x, (Dataset, list, tuple, dict)))


def _snapshot_for_workers(dataset: Any) -> list:
    """Let every ``TensorDataset`` inside ``dataset`` take its NumPy snapshot; returns
    them so the caller can drop the snapshots once the workers hold their copies."""
    found = [d for d in _datasets_within(dataset) if hasattr(d, "_snapshot_for_workers")]
    for d in found:
        d._snapshot_for_workers()
    return found
