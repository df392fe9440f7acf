"""Shared helpers for the torchlike.utils.data tests: NumPy-based datasets that both
torch and torchlike can load, and a structural description of a batch to compare them."""

import collections

import numpy as np

Point = collections.namedtuple("Point", ["x", "y"])


def describe(batch):
    """A batch as plain data: tensors (torch or torchlike) become
    ('T', dtype name, shape, values); containers keep their kind."""
    if hasattr(batch, "dtype") and hasattr(batch, "shape") and hasattr(batch, "tolist") \
            and not isinstance(batch, np.ndarray):
        return ("T", str(batch.dtype).split(".")[-1], tuple(batch.shape), batch.tolist())
    if isinstance(batch, np.ndarray):
        return ("ndarray", str(batch.dtype), batch.tolist())
    if isinstance(batch, dict):
        return {k: describe(v) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return (type(batch).__name__,) + tuple(describe(v) for v in batch)
    if isinstance(batch, tuple):
        return ("tuple",) + tuple(describe(v) for v in batch)
    if isinstance(batch, list):
        return [describe(v) for v in batch]
    return batch


def make_map_dataset(base):
    """A map-style dataset over ``base.utils.data.Dataset`` whose samples mix every kind
    default_collate knows, all NumPy/Python (so torch and torchlike load the same)."""

    class Mixed(base.utils.data.Dataset):
        def __init__(self, n=7):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return {
                "x": np.arange(3, dtype=np.float32) + i,
                "m": np.full((2, 2), i, dtype=np.int16),
                "i": i,
                "f": i / 2,
                "b": i % 2 == 0,
                "s": f"s{i}",
                "np_scalar": np.float16(i),
                "np_int": np.int32(i),
                "pt": Point(i, float(i)),
                "pair": (i, [i + 1, i + 2]),
            }

    return Mixed


def make_iterable_dataset(base, split_by_worker=False):
    class Stream(base.utils.data.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            start, end = self.start, self.end
            info = base.utils.data.get_worker_info()
            if split_by_worker and info is not None:
                per = -(-(end - start) // info.num_workers)
                start = start + info.id * per
                end = min(start + per, end)
            return iter(np.arange(start, end, dtype=np.int64))

        def __len__(self):
            return self.end - self.start

    return Stream
