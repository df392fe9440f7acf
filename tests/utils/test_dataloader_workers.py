"""torchlike.utils.data.DataLoader with worker processes: same batches as in the main
process, seeding, worker_init_fn/get_worker_info, persistent workers, and every failure
(an exception, a killed worker, a timeout, JAX used in a forked worker) reported
quickly and clearly, never a hang."""

import os
import signal
import time

import numpy as np
import pytest

import torchlike
from torchlike.utils import data as tld

from ._data_helpers import describe, make_iterable_dataset, make_map_dataset


def batches(loader):
    return [describe(b) for b in loader]


class Squares(tld.Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        return np.array([i, i * i], dtype=np.int32), float(i)


class WhoAmI(tld.Dataset):
    """Each sample says which worker made it and how that worker was seeded."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = tld.get_worker_info()
        return {"id": info.id, "num_workers": info.num_workers, "seed": info.seed,
                "initial_seed": torchlike.initial_seed(), "np": np.random.randint(1 << 30),
                "dataset_is_copy": info.dataset is not None, "tag": getattr(info.dataset,
                                                                            "tag", -1),
                "pid": os.getpid()}


class Raises(tld.Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise self.exc
        return i


class Dies(tld.Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            if self.how == "exit":
                os._exit(7)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Sleeps(tld.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(5)
        return i


class ComputesWithTensors(tld.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torchlike.tensor([i]) * 2


class Counts(tld.Dataset):
    """Counts, inside each worker, how often it was asked for data."""

    def __init__(self):
        self.calls = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.calls += 1
        return self.calls, os.getpid()


def test_workers_give_the_same_batches_as_main_process():
    for kw in ({"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None}):
        ds = make_map_dataset(torchlike)()
        single = batches(tld.DataLoader(ds, **kw))
        multi = batches(tld.DataLoader(ds, num_workers=2, **kw))
        assert multi == single


def test_workers_shuffled_same_as_main_process_with_same_generator():
    def run(n):
        return batches(tld.DataLoader(Squares(), batch_size=3, shuffle=True, num_workers=n,
                                      generator=torchlike.Generator().manual_seed(4)))
    assert run(2) == run(0)


def test_workers_tensor_dataset_and_types():
    x = torchlike.arange(20.).reshape(10, 2)
    y = torchlike.arange(10)
    ds = tld.TensorDataset(x, y)
    single = batches(tld.DataLoader(ds, batch_size=4))
    out = list(tld.DataLoader(ds, batch_size=4, num_workers=2, prefetch_factor=1))
    assert [describe(b) for b in out] == single
    assert all(type(t) is torchlike.Tensor for b in out for t in b)
    assert out[0][0].dtype is torchlike.float32 and out[0][1].dtype is torchlike.int64
    sub = tld.Subset(ds, [9, 0, 4])   # datasets wrapping a TensorDataset work too
    assert batches(tld.DataLoader(sub, batch_size=2, num_workers=2)) == \
        batches(tld.DataLoader(sub, batch_size=2))


def test_workers_out_of_order_delivery_gives_every_batch():
    loader = tld.DataLoader(Squares(), batch_size=2, num_workers=2, in_order=False)
    got = sorted(b[1].tolist() for b in loader)
    assert got == sorted(b[1].tolist() for b in tld.DataLoader(Squares(), batch_size=2))


def test_worker_info_seeding_and_init_fn():
    def init_fn(worker_id):
        tld.get_worker_info().dataset.tag = 100 + worker_id

    loader = tld.DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=init_fn,
                            generator=torchlike.Generator().manual_seed(0))
    out = list(loader)
    ids = [b["id"].tolist() for b in out]
    assert ids == [[0, 0], [1, 1], [0, 0], [1, 1]]   # round-robin, in order
    seeds = {b["id"][0].item(): b["seed"][0].item() for b in out}
    assert seeds[1] == seeds[0] + 1                   # base_seed + worker id
    for b in out:
        assert b["initial_seed"].tolist() == b["seed"].tolist()
        assert b["tag"].tolist() == [100 + b["id"][0].item()] * 2
        assert b["num_workers"].tolist() == [2, 2]
    # NumPy is seeded per worker: the workers' streams differ
    assert out[0]["np"].tolist() != out[1]["np"].tolist()
    # same loader generator seed -> same worker seeds
    again = list(tld.DataLoader(WhoAmI(), batch_size=2, num_workers=2,
                                generator=torchlike.Generator().manual_seed(0)))
    assert [b["seed"].tolist() for b in again] == [b["seed"].tolist() for b in out]
    assert [b["np"].tolist() for b in again] == [b["np"].tolist() for b in out]
    assert tld.get_worker_info() is None


def test_iterable_dataset_with_workers():
    plain = make_iterable_dataset(torchlike)
    out = [v for b in tld.DataLoader(plain(0, 5), batch_size=2, num_workers=2)
           for v in b.tolist()]
    assert sorted(out) == sorted(list(range(5)) * 2)   # each worker yields everything
    split = make_iterable_dataset(torchlike, split_by_worker=True)
    out = [b.tolist() for b in tld.DataLoader(split(0, 7), batch_size=2, num_workers=2)]
    assert sorted(v for b in out for v in b) == list(range(7))
    assert out == [[0, 1], [4, 5], [2, 3], [6]]
    out = [b.item() for b in tld.DataLoader(split(3, 7), batch_size=None, num_workers=2)]
    assert out == [3, 5, 4, 6]


def test_persistent_workers_across_epochs():
    loader = tld.DataLoader(Counts(), batch_size=2, num_workers=2, persistent_workers=True)
    e1, e2 = list(loader), list(loader)
    pids = {p for b in e1 for p in b[1].tolist()}
    assert pids == {p for b in e2 for p in b[1].tolist()} and len(pids) == 2
    # each worker's dataset copy kept its state from the first epoch
    assert [b[0].tolist() for b in e1] == [[1, 2], [1, 2]]
    assert [b[0].tolist() for b in e2] == [[3, 4], [3, 4]]
    workers = loader._iterator._workers
    del loader, e1, e2
    import gc
    gc.collect()
    for w in workers:
        w.join(timeout=5)
        assert not w.is_alive()


def test_breaking_out_shuts_workers_down():
    it = iter(tld.DataLoader(Squares(), batch_size=1, num_workers=2))
    next(it)
    workers = list(it._workers)
    del it
    for w in workers:
        w.join(timeout=5)
        assert not w.is_alive()


@pytest.mark.parametrize("exc,name", [(ValueError("bad sample 5"), "ValueError"),
                                      (KeyError("bad sample 5"), "KeyError")])
def test_worker_exception_is_reraised_with_its_type(exc, name):
    loader = tld.DataLoader(Raises(exc), batch_size=2, num_workers=2)
    with pytest.raises(type(exc)) as info:
        list(loader)
    text = str(info.value)
    assert f"Caught {name} in DataLoader worker process 0." in text
    assert "Original Traceback" in text and "bad sample 5" in text
    assert "raise self.exc" in text   # the worker's own traceback


def test_worker_init_fn_exception():
    def init_fn(worker_id):
        raise ZeroDivisionError(f"init of {worker_id}")
    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader "
                                                "worker process 0"):
        list(tld.DataLoader(Squares(), num_workers=2, worker_init_fn=init_fn))


@pytest.mark.parametrize("how,detail", [("exit", "worker 0 exited with exit code 7"),
                                        ("kill", "worker 0 was killed by signal SIGKILL")])
def test_dead_worker_is_reported_not_hung(how, detail):
    start = time.monotonic()
    it = iter(tld.DataLoader(Dies(how), batch_size=2, num_workers=2))
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           r"unexpectedly: " + detail):
        list(it)
    with pytest.raises(RuntimeError, match="exited unexpectedly"):   # and stays failed
        next(it)
    assert time.monotonic() - start < 30


def test_timeout():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        list(tld.DataLoader(Sleeps(), num_workers=1, timeout=0.3))
    assert time.monotonic() - start < 10


def test_tensor_computation_in_forked_worker_raises_clearly():
    with pytest.raises(RuntimeError, match="cannot be computed in a DataLoader worker "
                                           "process started with 'fork'"):
        list(tld.DataLoader(ComputesWithTensors(), num_workers=1))


def test_unpicklable_batch_is_an_error_not_a_hang():
    loader = tld.DataLoader(Squares(), num_workers=1,
                            collate_fn=lambda batch: (lambda: batch))
    with pytest.raises(Exception, match="in DataLoader worker process 0"):
        list(loader)
