"""torchlike.utils.data in the main process: datasets, samplers, collation and the
single-process DataLoader, compared with torch.utils.data where values are comparable."""

import collections
import warnings

import numpy as np
import pytest

import torchlike
from torchlike.utils import data as tld

from .._parity import HAVE_TORCH, torch
from ._data_helpers import Point, describe, make_iterable_dataset, make_map_dataset

MODULES = (torch, torchlike) if HAVE_TORCH else (torchlike,)


def both(fn):
    """Run ``fn(module)`` on torch (None without it) and on torchlike; return both."""
    return fn(torch) if HAVE_TORCH else None, fn(torchlike)


def compared(t, tl):
    """Assert the torch and torchlike results agree; without PyTorch, once torchlike's
    half has run, skip: nothing is left to check."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the results are compared")
    assert t == tl


def raises_both(fn, exc=Exception):
    """``fn(module)`` raises the same exception type and message on both (without
    PyTorch: on torchlike)."""
    errors = []
    if not HAVE_TORCH:
        with pytest.raises(exc):
            fn(torchlike)
        return
    for m in (torch, torchlike):
        with pytest.raises(exc) as info:
            fn(m)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1])
    assert str(errors[0]) == str(errors[1])


# ---------------------------------------------------------------------------
# public namespace
def test_namespace():
    assert torchlike.utils.data is tld
    for name in ["DataLoader", "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset",
                 "ChainDataset", "Subset", "StackDataset", "random_split", "Sampler",
                 "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
                 "WeightedRandomSampler", "BatchSampler", "DistributedSampler",
                 "default_collate", "default_convert", "get_worker_info"]:
        assert hasattr(tld, name), name
    assert tld.get_worker_info() is None


# ---------------------------------------------------------------------------
# collation
@pytest.mark.parametrize("batch", [
    [0, 1, 2],
    [0.5, 1.5],
    [True, False],
    [True, 2],
    [1, 2.5],
    ["a", "b"],
    [b"a", b"b"],
    [np.float16(1), np.float16(2)],
    [np.int32(1), np.int64(2)],
    [np.bool_(True), np.bool_(False)],
    [np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)],
    [np.array(1.0), np.array(2.0)],
    [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    [Point(1, 2.0), Point(3, 4.0)],
    [(1, "x"), (2, "y")],
    [[1, 2], [3, 4]],
    [collections.OrderedDict(z=np.int8(1), a=2), collections.OrderedDict(z=np.int8(3), a=4)],
])
def test_default_collate_matches_torch(batch):
    t, tl = both(lambda m: m.utils.data.default_collate(batch))
    compared(describe(t), describe(tl))
    assert type(t).__name__ == type(tl).__name__


def test_default_collate_tensors_and_dtypes():
    out = tld.default_collate([torchlike.ones(2, dtype=torchlike.float16),
                               torchlike.zeros(2, dtype=torchlike.float16)])
    assert out.dtype is torchlike.float16 and out.shape == (2, 2)
    out = tld.default_collate([(torchlike.tensor(1), 1.0)] * 3)
    assert out[0].dtype is torchlike.int64 and out[1].dtype is torchlike.float64
    assert isinstance(out, list)
    a = torchlike.ones(3, requires_grad=True)
    assert tld.default_collate([a, a * 2]).requires_grad


def test_default_collate_errors_match_torch():
    raises_both(lambda m: m.utils.data.default_collate([[1, 2], [3]]), RuntimeError)
    raises_both(lambda m: m.utils.data.default_collate([object(), object()]), TypeError)
    raises_both(lambda m: m.utils.data.default_collate(
        [np.array(["a"]), np.array(["b"])]), TypeError)
    raises_both(lambda m: m.utils.data.default_collate(
        [np.zeros(2), np.zeros(3)]), RuntimeError)
    raises_both(lambda m: m.utils.data.default_collate(
        [m.zeros(2), m.zeros(3)]), RuntimeError)


@pytest.mark.parametrize("data", [
    np.arange(3), np.float32(2.5), 3, "s", (np.int8(1), 2), [np.zeros(2), "x"],
    {"a": np.ones(2, np.float16), "b": 1}, Point(np.array(1), 2), np.array(["a", "b"]),
])
def test_default_convert_matches_torch(data):
    t, tl = both(lambda m: m.utils.data.default_convert(data))
    compared(describe(t), describe(tl))


# ---------------------------------------------------------------------------
# datasets
def test_tensor_dataset():
    x, y = torchlike.arange(12.).reshape(6, 2), torchlike.arange(6)
    ds = tld.TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8.0, 9.0] and b.item() == 4 and b.dtype is torchlike.int64
    assert ds[-1][1].item() == 5
    assert [s.tolist() for s in ds[1:3]] == [[[2.0, 3.0], [4.0, 5.0]], [1, 2]]
    x.add_(1)   # samples follow in-place changes of the tensors
    assert ds[4][0].tolist() == [9.0, 10.0]
    with pytest.raises(IndexError):
        ds[6]
    raises_both(lambda m: m.utils.data.TensorDataset(m.zeros(3), m.zeros(4)), AssertionError)


def test_tensor_dataset_keeps_grad():
    w = torchlike.ones(3, 2, requires_grad=True)
    (row,) = tld.TensorDataset(w)[1]
    assert row.requires_grad


def test_concat_dataset_matches_torch():
    def run(m):
        class R(m.utils.data.Dataset):
            def __init__(self, lo, hi):
                self.r = list(range(lo, hi))

            def __len__(self):
                return len(self.r)

            def __getitem__(self, i):
                return self.r[i]
        ds = m.utils.data.ConcatDataset([R(0, 3), R(10, 12), R(20, 24)])
        plus = R(0, 2) + R(5, 6)
        return (ds.cumulative_sizes, len(ds), [ds[i] for i in range(-9, 9)],
                type(plus).__name__, [plus[i] for i in range(3)])
    t, tl = both(run)
    if HAVE_TORCH:
        assert t == tl
    else:
        assert tl == ([3, 5, 9], 9, [0, 1, 2, 10, 11, 20, 21, 22, 23] * 2,
                      "ConcatDataset", [0, 1, 5])
    raises_both(lambda m: m.utils.data.ConcatDataset([]), AssertionError)
    raises_both(lambda m: m.utils.data.ConcatDataset([[1, 2]])[-3], ValueError)
    raises_both(lambda m: m.utils.data.ConcatDataset([make_iterable_dataset(m)(0, 3)]),
                AssertionError)


def test_chain_subset_stack_datasets():
    def run(m):
        S = make_iterable_dataset(m)
        chain = S(0, 3) + S(10, 12)
        sub = m.utils.data.Subset(list(range(10, 20)), [3, 1, 7])
        stack_t = m.utils.data.StackDataset([1, 2, 3], ["a", "b", "c"])
        stack_d = m.utils.data.StackDataset(x=[1, 2], y=[3, 4])
        return ([int(v) for v in chain], len(chain), type(chain).__name__,
                [sub[i] for i in range(3)], len(sub),
                sub.__getitems__([2, 0]), stack_t[1], stack_t.__getitems__([0, 2]),
                stack_d[1], stack_d.__getitems__([1]), len(stack_d))
    t, tl = both(run)
    if HAVE_TORCH:
        assert t == tl
    else:
        assert tl == ([0, 1, 2, 10, 11], 5, "ChainDataset", [13, 11, 17], 3, [17, 13],
                      (2, "b"), [(1, "a"), (3, "c")], {"x": 2, "y": 4}, [{"x": 2, "y": 4}], 2)
    raises_both(lambda m: m.utils.data.StackDataset([1], [1, 2]), ValueError)
    raises_both(lambda m: m.utils.data.StackDataset(), ValueError)
    raises_both(lambda m: m.utils.data.StackDataset([1], x=[1]), ValueError)
    raises_both(lambda m: list(m.utils.data.ChainDataset([[1, 2]])), AssertionError)


def test_dataset_base_errors():
    raises_both(lambda m: m.utils.data.Dataset()[0], NotImplementedError)
    raises_both(lambda m: len(m.utils.data.Dataset()), TypeError)


@pytest.mark.parametrize("n,lengths", [
    (10, [3, 7]), (10, [0.3, 0.7]), (11, [0.5, 0.5]), (7, [0.2, 0.2, 0.6]),
    (10, [0.3, 0.3, 0.4]), (11, [1.0]), (7, [0.1, 0.1, 0.8]),
])
def test_random_split_lengths_match_torch(n, lengths):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t, tl = both(lambda m: [len(s) for s in m.utils.data.random_split(
            range(n), lengths, generator=m.Generator().manual_seed(0))])
    if HAVE_TORCH:
        assert t == tl
    else:   # floors, then the remainder one by one from the first split on
        assert tl == {(10, (3, 7)): [3, 7], (10, (0.3, 0.7)): [3, 7],
                      (11, (0.5, 0.5)): [6, 5], (7, (0.2, 0.2, 0.6)): [2, 1, 4],
                      (10, (0.3, 0.3, 0.4)): [3, 3, 4], (11, (1.0,)): [11],
                      (7, (0.1, 0.1, 0.8)): [1, 1, 5]}[n, tuple(lengths)]


def test_random_split_is_a_partition_and_reproducible():
    g = torchlike.Generator().manual_seed(3)
    parts = tld.random_split(range(20), [5, 15], generator=g)
    a, b = list(parts[0]), list(parts[1])
    assert sorted(a + b) == list(range(20))
    again = tld.random_split(range(20), [5, 15], generator=torchlike.Generator().manual_seed(3))
    assert list(again[0]) == a
    torchlike.manual_seed(7)
    first = list(tld.random_split(range(20), [10, 10])[0])
    torchlike.manual_seed(7)
    assert list(tld.random_split(range(20), [10, 10])[0]) == first


def test_random_split_errors_match_torch():
    raises_both(lambda m: m.utils.data.random_split(range(10), [3, 3]), ValueError)
    raises_both(lambda m: m.utils.data.random_split(range(10), [1.5, -0.5]), ValueError)
    for m in MODULES:
        with pytest.warns(UserWarning, match="Length of split at index 0 is 0"):
            m.utils.data.random_split(range(3), [0.0, 1.0])


# ---------------------------------------------------------------------------
# samplers
def test_sequential_and_batch_samplers_match_torch():
    def run(m):
        D = m.utils.data
        seq = D.SequentialSampler(range(7))
        out = [list(seq), len(seq)]
        for bs in (1, 2, 3, 7, 8):
            for dl in (False, True):
                b = D.BatchSampler(seq, bs, dl)
                out += [list(b), len(b)]
        return out
    t, tl = both(run)
    if HAVE_TORCH:
        assert t == tl
    else:
        assert tl[:2] == [list(range(7)), 7]
        for k, (bs, dl) in enumerate((bs, dl) for bs in (1, 2, 3, 7, 8)
                                     for dl in (False, True)):
            want = [list(range(i, min(i + bs, 7))) for i in range(0, 7, bs)]
            if dl and len(want[-1]) < bs:
                want = want[:-1]
            assert tl[2 + 2 * k:4 + 2 * k] == [want, len(want)], (bs, dl)
    raises_both(lambda m: m.utils.data.BatchSampler(range(3), 0, False), ValueError)
    raises_both(lambda m: m.utils.data.BatchSampler(range(3), True, False), ValueError)
    raises_both(lambda m: m.utils.data.BatchSampler(range(3), 2, 1), ValueError)


def test_random_sampler():
    s = tld.RandomSampler(range(10), generator=torchlike.Generator().manual_seed(1))
    first = list(s)
    assert sorted(first) == list(range(10)) and len(s) == 10
    assert list(tld.RandomSampler(range(10), generator=torchlike.Generator().manual_seed(1))) \
        == first
    torchlike.manual_seed(5)
    a = list(tld.RandomSampler(range(10)))
    torchlike.manual_seed(5)
    assert list(tld.RandomSampler(range(10))) == a
    s = tld.RandomSampler(range(4), num_samples=10)
    drawn = list(s)
    assert len(drawn) == 10 == len(s)
    assert sorted(drawn[:8]) == sorted(list(range(4)) * 2)   # whole permutations first
    r = list(tld.RandomSampler(range(3), replacement=True, num_samples=70))
    assert len(r) == 70 and set(r) <= {0, 1, 2}
    raises_both(lambda m: m.utils.data.RandomSampler(range(3), replacement=1), TypeError)
    raises_both(lambda m: m.utils.data.RandomSampler(range(3), num_samples=0), ValueError)
    raises_both(lambda m: m.utils.data.RandomSampler([], num_samples=None), ValueError)


def test_subset_and_weighted_samplers():
    s = tld.SubsetRandomSampler([5, 7, 9], generator=torchlike.Generator().manual_seed(0))
    assert sorted(s) == [5, 7, 9] and len(s) == 3
    w = tld.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50)
    drawn = list(w)
    assert len(drawn) == 50 == len(w) and set(drawn) <= {1, 3}
    w = tld.WeightedRandomSampler([1.0, 1.0, 0.0, 2.0], 3, replacement=False,
                                  generator=torchlike.Generator().manual_seed(0))
    assert sorted(w) == [0, 1, 3]
    raises_both(lambda m: m.utils.data.WeightedRandomSampler([1.0], 0), ValueError)
    raises_both(lambda m: m.utils.data.WeightedRandomSampler([1.0], True), ValueError)
    raises_both(lambda m: m.utils.data.WeightedRandomSampler([1.0], 1, replacement=0),
                ValueError)
    raises_both(lambda m: m.utils.data.WeightedRandomSampler([[1.0, 2.0]], 1), ValueError)
    raises_both(lambda m: list(m.utils.data.WeightedRandomSampler([1.0, 1.0], 3,
                                                                  replacement=False)),
                RuntimeError)


# ---------------------------------------------------------------------------
# DataLoader, single process
@pytest.mark.parametrize("kwargs", [
    {}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 7},
    {"batch_size": 10}, {"batch_size": None},
])
def test_loader_batches_match_torch(kwargs):
    def run(m):
        loader = m.utils.data.DataLoader(make_map_dataset(m)(), **kwargs)
        return len(loader), [describe(b) for b in loader]
    t, tl = both(run)
    compared(t, tl)


def test_loader_with_samplers_match_torch():
    def run(m):
        D = m.utils.data
        ds = make_map_dataset(m)()
        bs = D.BatchSampler(D.SequentialSampler(range(7)), 3, False)
        a = D.DataLoader(ds, batch_sampler=bs)
        b = D.DataLoader(ds, sampler=[6, 0, 3], batch_size=2)
        c = D.DataLoader(ds, batch_size=2, collate_fn=lambda batch: [s["i"] for s in batch])
        return [len(a), len(b)] + [describe(x) for loader in (a, b, c) for x in loader]
    t, tl = both(run)
    if not HAVE_TORCH:
        assert tl[:2] == [3, 2] and tl[-4:] == [[0, 1], [2, 3], [4, 5], [6]]
    else:
        assert t == tl


def test_loader_tensor_dataset_matches_torch():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)

    def run(m):
        ds = m.utils.data.TensorDataset(m.tensor(x), m.tensor(y))
        return [describe(b) for b in m.utils.data.DataLoader(ds, batch_size=4)]
    t, tl = both(run)
    if not HAVE_TORCH:
        assert tl == [[("T", "float32", (n, 2), x[i:i + 4].tolist()),
                       ("T", "int64", (n,), y[i:i + 4].tolist())]
                      for i, n in ((0, 4), (4, 4), (8, 2))]
    else:
        assert t == tl


def test_loader_shuffle_is_a_permutation_and_reproducible():
    ds = tld.TensorDataset(torchlike.arange(10))

    def epoch(loader):
        return [v for (b,) in loader for v in b.tolist()]
    loader = tld.DataLoader(ds, batch_size=3, shuffle=True,
                            generator=torchlike.Generator().manual_seed(0))
    e1, e2 = epoch(loader), epoch(loader)
    assert sorted(e1) == sorted(e2) == list(range(10)) and e1 != e2
    again = tld.DataLoader(ds, batch_size=3, shuffle=True,
                           generator=torchlike.Generator().manual_seed(0))
    assert epoch(again) == e1
    torchlike.manual_seed(11)
    a = epoch(tld.DataLoader(ds, batch_size=4, shuffle=True))
    torchlike.manual_seed(11)
    assert epoch(tld.DataLoader(ds, batch_size=4, shuffle=True)) == a


def test_loader_iterable_dataset_matches_torch():
    def run(m):
        S = make_iterable_dataset(m)
        out = []
        for kw in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                   {"batch_size": None}):
            loader = m.utils.data.DataLoader(S(2, 9), **kw)
            out += [len(loader), [describe(b) for b in loader]]
        return out
    t, tl = both(run)
    if not HAVE_TORCH:
        T = [("T", "int64", (len(b),), b) for b in ([2, 3, 4], [5, 6, 7], [8])]
        assert tl == [7, [("T", "int64", (1,), [v]) for v in range(2, 9)], 3, T, 2, T[:2],
                      7, [("T", "int64", (), v) for v in range(2, 9)]]
    else:
        assert t == tl


def test_loader_iterable_len_warning_matches_torch():
    for m in MODULES:
        class Liar(m.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 2
        loader = m.utils.data.DataLoader(Liar(), batch_size=None)
        assert len(loader) == 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        messages = [str(w.message) for w in caught]
        assert len(messages) == 3
        assert "was reported to be 2(when accessing len(dataloader)), but 3 samples" \
            in messages[0]


def test_loader_argument_errors_match_torch():
    D = "utils"

    def mk(**kw):
        return lambda m: getattr(m, D).data.DataLoader(make_map_dataset(m)(), **kw)
    for kw in [dict(sampler=[0, 1], shuffle=True),
               dict(batch_sampler=[[0]], batch_size=2),
               dict(batch_sampler=[[0]], shuffle=True),
               dict(batch_sampler=[[0]], sampler=[0]),
               dict(batch_sampler=[[0]], drop_last=True),
               dict(batch_size=None, drop_last=True),
               dict(prefetch_factor=2),
               dict(num_workers=-1),
               dict(timeout=-1),
               dict(persistent_workers=True),
               dict(multiprocessing_context="fork"),
               dict(num_workers=1, multiprocessing_context="nope"),
               dict(num_workers=1, prefetch_factor=-1)]:
        raises_both(mk(**kw), ValueError)
    raises_both(lambda m: m.utils.data.DataLoader(make_iterable_dataset(m)(0, 3),
                                                  shuffle=True), ValueError)
    raises_both(lambda m: m.utils.data.DataLoader(make_iterable_dataset(m)(0, 3),
                                                  sampler=[0]), ValueError)

    def set_after(m):
        loader = m.utils.data.DataLoader([1, 2])
        loader.batch_size = 3
    raises_both(set_after, ValueError)


def test_loader_accepts_full_signature():
    loader = tld.DataLoader(tld.TensorDataset(torchlike.arange(4)), batch_size=2,
                            shuffle=False, sampler=None, batch_sampler=None, num_workers=0,
                            collate_fn=None, pin_memory=True, drop_last=False, timeout=0,
                            worker_init_fn=None, multiprocessing_context=None,
                            generator=None, prefetch_factor=None, persistent_workers=False,
                            pin_memory_device="", in_order=True)
    assert [b[0].tolist() for b in loader] == [[0, 1], [2, 3]]


# ---------------------------------------------------------------------------
# the examples in the docstrings run
@pytest.mark.parametrize("module", ["", ".dataset", ".sampler", "._collate", ".dataloader",
                                    ".distributed"])
def test_docstring_examples(module):
    import doctest
    import importlib
    mod = importlib.import_module("torchlike.utils.data" + module)
    globs = dict(vars(mod), np=np, **{k: getattr(tld, k) for k in tld.__all__})
    result = doctest.testmod(mod, extraglobs=globs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
