"""Samplers: ``Sampler``, ``SequentialSampler``, ``RandomSampler``,
``SubsetRandomSampler``, ``WeightedRandomSampler`` and ``BatchSampler``, mirroring
``torch.utils.data.sampler``.

Random samplers draw from torchlike generators, so their orders differ from PyTorch's
for the same seed; their structure (what is drawn, how much, with or without
replacement, reproducibility under a seeded generator) is PyTorch's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from ..._core import dtype as _dt
from ..._core.random import Generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]

_T_co = TypeVar("_T_co", covariant=True)


def _random_int64(generator: Generator | None = None) -> int:
    """PyTorch's ``torch.empty((), dtype=torch.int64).random_(generator=g).item()``:
    a non-negative int64 drawn from ``generator`` (the default one if None)."""
    from ..._ops.creation import empty
    return int(empty((), dtype=_dt.int64).random_(generator=generator).item())


class Sampler(Generic[_T_co]):
    """Mirrors ``torch.utils.data.Sampler``: subclasses implement ``__iter__`` (indices
    or lists of indices) and, optionally, ``__len__``."""

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError

    # No default __len__, as PyTorch (see ``Dataset``).


class SequentialSampler(Sampler[int]):
    """Mirrors ``torch.utils.data.SequentialSampler``: ``0, 1, ..., len(data_source) - 1``."""

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Mirrors ``torch.utils.data.RandomSampler``: a random permutation (repeated and cut
    to ``num_samples``), or ``num_samples`` draws with ``replacement=True``.

    Without ``generator``, each iteration seeds a fresh generator with a number drawn
    from torchlike's default generator, so ``torchlike.manual_seed`` makes it
    reproducible (as PyTorch). The orders differ from PyTorch's.

    Example::

        >>> import torchlike as torch
        >>> sorted(RandomSampler(range(4), generator=torch.Generator().manual_seed(1)))
        [0, 1, 2, 3]
    """

    data_source: Sized
    replacement: bool

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # the dataset size may change between epochs
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        from ..._ops.random import randint, randperm
        n = len(self.data_source)
        if self.generator is None:
            generator = Generator()
            generator.manual_seed(_random_int64())
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=_dt.int64,
                                   generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=_dt.int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Mirrors ``torch.utils.data.SubsetRandomSampler``: ``indices`` in random order."""

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ..._ops.random import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Mirrors ``torch.utils.data.WeightedRandomSampler``: ``num_samples`` indices in
    ``[0, len(weights))`` drawn with probabilities proportional to ``weights`` (with
    or without replacement), by ``torchlike.multinomial``."""

    num_samples: int
    replacement: bool

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        from ..._ops.creation import as_tensor
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=_dt.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ..._ops.random import multinomial
        rand_tensor = multinomial(self.weights, self.num_samples, self.replacement,
                                  generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Mirrors ``torch.utils.data.BatchSampler``: lists of ``batch_size`` indices from
    ``sampler``; the last, shorter one is dropped when ``drop_last``.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*([sampler_iter] * self.batch_size)):
                yield [*batch]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size  # type: ignore[arg-type]
        n = len(self.sampler)  # type: ignore[arg-type]
        return (n + self.batch_size - 1) // self.batch_size
