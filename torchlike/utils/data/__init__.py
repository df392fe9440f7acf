"""Mirrors ``torch.utils.data``: datasets, samplers, ``DataLoader`` and collation.

Example::

    >>> import torchlike as torch
    >>> from torchlike.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(torch.arange(6.)), batch_size=4, shuffle=True)
    >>> [len(b[0]) for b in loader]
    [4, 2]
"""

from ._collate import default_collate as default_collate
from ._collate import default_convert as default_convert
from ._fetch import _DatasetKind as _DatasetKind
from ._worker import WorkerInfo as WorkerInfo
from ._worker import get_worker_info as get_worker_info
from .dataloader import DataLoader as DataLoader
from .dataset import ChainDataset as ChainDataset
from .dataset import ConcatDataset as ConcatDataset
from .dataset import Dataset as Dataset
from .dataset import IterableDataset as IterableDataset
from .dataset import StackDataset as StackDataset
from .dataset import Subset as Subset
from .dataset import TensorDataset as TensorDataset
from .dataset import random_split as random_split
from .distributed import DistributedSampler as DistributedSampler
from .sampler import BatchSampler as BatchSampler
from .sampler import RandomSampler as RandomSampler
from .sampler import Sampler as Sampler
from .sampler import SequentialSampler as SequentialSampler
from .sampler import SubsetRandomSampler as SubsetRandomSampler
from .sampler import WeightedRandomSampler as WeightedRandomSampler

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
