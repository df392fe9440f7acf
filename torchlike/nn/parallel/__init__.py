"""``torchlike.nn.parallel``: ``DataParallel`` and ``DistributedDataParallel``; mirrors
``torch.nn.parallel``."""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
