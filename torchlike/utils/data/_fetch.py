"""Fetching one batch (or one sample) from a dataset, shared by the single-process
iterator and the worker processes; mirrors ``torch.utils.data._utils.fetch``."""

from __future__ import annotations

from typing import Any, Callable


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind: int, dataset, auto_collation: bool, collate_fn: Callable,
                       drop_last: bool) -> "_BaseDatasetFetcher":
        if kind == _DatasetKind.Map:
            return _MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable,
                 drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index) -> Any:
        raise NotImplementedError


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation: bool, collate_fn: Callable,
                 drop_last: bool) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index) -> Any:
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def fetch(self, possibly_batched_index) -> Any:
        if self.auto_collation:
            if hasattr(self.dataset, "__getitems__") and self.dataset.__getitems__:
                data = self.dataset.__getitems__(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)
