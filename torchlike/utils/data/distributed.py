"""``DistributedSampler``: each process of a distributed run reads its own shard of the
dataset; mirrors ``torch.utils.data.distributed``."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypeVar

from ..._core.random import Generator
from .dataset import Dataset
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


def _from_process_group(what: str) -> int:
    """The world size or rank of the default process group, as PyTorch's sampler reads
    them (an uninitialised group raises its own ValueError)."""
    from ... import distributed as dist
    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size() if what == "world_size" else dist.get_rank()


class DistributedSampler(Sampler[_T_co]):
    """Mirrors ``torch.utils.data.distributed.DistributedSampler``: the indices of rank
    ``rank`` out of ``num_replicas``.

    The algorithm is PyTorch's: all indices (a permutation from a generator seeded with
    ``seed + epoch`` when ``shuffle``), padded by repeating indices from the start up to
    ``total_size`` (or cut to it when ``drop_last``), then every ``num_replicas``-th
    from ``rank``. Call ``set_epoch`` before each epoch to reshuffle. ``num_replicas``
    and ``rank`` default to those of ``torchlike.distributed``'s process group.

    Difference: with ``shuffle=True`` the permutation comes from torchlike's generator,
    so the shards differ from PyTorch's (they are identical on every rank for the same
    seed and epoch, as in PyTorch). With ``shuffle=False`` they are PyTorch's exactly.

    Example::

        >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
        [1, 3, 0]
    """

    def __init__(self, dataset: Dataset, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _from_process_group("world_size")
        if rank is None:
            rank = _from_process_group("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)  # type: ignore[arg-type]
        if self.drop_last and n % self.num_replicas != 0:
            # the largest length that splits evenly
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[_T_co]:
        if self.shuffle:
            from ..._ops.random import randperm
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()  # type: ignore[arg-type]
        else:
            indices = list(range(len(self.dataset)))  # type: ignore[arg-type]

        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match "
                                 f"total_size ({self.total_size})")

        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not "
                                 f"match num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``seed + epoch`` for the next iterations' shuffle (all replicas alike)."""
        self.epoch = epoch
