"""torchlike.utils.data.DistributedSampler: PyTorch's shard structure (padding,
truncation, rank slicing), exact indices without shuffling, and consistent shuffles."""

import math

import pytest

import torchlike
from torchlike.utils import data as tld

from .._parity import HAVE_TORCH, torch


def shards(n, replicas, module=torchlike, **kw):
    return [list(module.utils.data.DistributedSampler(range(n), num_replicas=replicas,
                                                      rank=r, **kw))
            for r in range(replicas)]


@pytest.mark.parametrize("n,replicas", [(10, 3), (10, 2), (2, 5), (7, 7), (1, 4), (11, 4)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_indices_equal_torch(n, replicas, drop_last):
    kw = dict(shuffle=False, drop_last=drop_last)
    got = shards(n, replicas, **kw)
    # PyTorch's documented structure: pad by wrapping around, or drop the tail; rank r
    # takes every replicas-th index from r
    num = math.ceil((n - replicas) / replicas if drop_last and n % replicas else n / replicas)
    total = num * replicas
    idx = list(range(n))
    idx = (idx * math.ceil(total / n))[:total]
    assert got == [idx[r:total:replicas] for r in range(replicas)]
    s = tld.DistributedSampler(range(n), num_replicas=replicas, rank=0, **kw)
    assert (len(s), s.num_samples, s.total_size) == (num, num, total)
    if not HAVE_TORCH:
        return
    assert got == shards(n, replicas, torch, **kw)
    t = torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=0, **kw)
    assert (len(s), s.num_samples, s.total_size) == (len(t), t.num_samples, t.total_size)


@pytest.mark.parametrize("n,replicas", [(10, 3), (12, 4), (5, 2)])
def test_shuffled_shards_structure(n, replicas):
    parts = shards(n, replicas, seed=3)
    total = [i for p in parts for i in p]
    assert len({len(p) for p in parts}) == 1
    assert set(total) == set(range(n))                    # together they cover the dataset
    if n % replicas == 0:
        assert sorted(total) == list(range(n))            # disjoint
    else:                                                 # padded from the start
        assert len(total) - n == replicas - n % replicas
    # rank slicing of one permutation: interleave the shards to recover it
    perm = [parts[r][k] for k in range(len(parts[0])) for r in range(replicas)]
    assert perm[n:] == perm[:len(perm) - n]
    assert sorted(perm[:n]) == list(range(n))
    dropped = shards(n, replicas, seed=3, drop_last=True)
    flat = [i for p in dropped for i in p]
    assert len(flat) == (n // replicas) * replicas and len(set(flat)) == len(flat)


def test_same_seed_and_epoch_same_everywhere_set_epoch_reshuffles():
    a = tld.DistributedSampler(range(40), num_replicas=2, rank=0, seed=1)
    b = tld.DistributedSampler(range(40), num_replicas=2, rank=0, seed=1)
    assert list(a) == list(b) == list(a)     # identical, and stable within an epoch
    first = list(a)
    a.set_epoch(1)
    assert a.epoch == 1 and list(a) != first and sorted(a) != first
    b.set_epoch(1)
    assert list(a) == list(b)
    other = tld.DistributedSampler(range(40), num_replicas=2, rank=1, seed=1)
    other.set_epoch(1)
    assert sorted(list(a) + list(other)) == list(range(40))
    assert list(tld.DistributedSampler(range(40), num_replicas=2, rank=0, seed=2)) != first


def test_with_dataloader():
    ds = tld.TensorDataset(torchlike.arange(10))
    sampler = tld.DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False)
    got = [b[0].tolist() for b in tld.DataLoader(ds, batch_size=2, sampler=sampler)]
    assert got == [[1, 3], [5, 7], [9]]


def test_errors_match_torch():
    for rank in (2, -1):
        errors = []
        for m in (torch, torchlike) if HAVE_TORCH else (torchlike,):
            with pytest.raises(ValueError) as info:
                m.utils.data.DistributedSampler(range(4), num_replicas=2, rank=rank)
            errors.append(str(info.value))
        assert f"Invalid rank {rank}" in errors[-1]
        if HAVE_TORCH:
            assert errors[0] == errors[1]


def test_needs_process_group_when_not_given():
    """Without ``num_replicas``/``rank`` the sampler asks the default process group,
    which must be initialised: PyTorch's ValueError."""
    for m in (torch, torchlike) if HAVE_TORCH else (torchlike,):
        assert not m.distributed.is_initialized()
        with pytest.raises(ValueError, match="Default process group has not been "
                                             "initialized"):
            m.utils.data.DistributedSampler(range(4))
        with pytest.raises(ValueError, match="Default process group has not been "
                                             "initialized"):
            m.utils.data.DistributedSampler(range(4), num_replicas=2)
