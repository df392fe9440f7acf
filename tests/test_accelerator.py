"""``torchlike.accelerator``, the memory queries of ``torchlike.cuda`` and
``torchlike.nn.attention``: against PyTorch's CPU build where there is no accelerator,
and against a stand-in JAX device for the statistics' mapping."""

from __future__ import annotations

import time
from collections import OrderedDict

import pytest

import torchlike as tl
from torchlike._core import device as device_mod
from torchlike.cuda import memory as memory_mod
from torchlike.cuda import streams as streams_mod

from ._parity import HAVE_TORCH, torch

NONE = "Cannot access accelerator device when none is available."


@pytest.fixture
def no_accelerator(monkeypatch):
    monkeypatch.setattr(device_mod, "accelerator_devices", lambda: ())
    for mod in (memory_mod, streams_mod, tl.cuda, tl.accelerator):
        monkeypatch.setattr(mod, "accelerator_devices", lambda: ())


class _FakeGpu:
    """What torchlike reads of a JAX GPU device."""

    def __init__(self, i):
        self.id = i
        self.device_kind = "NVIDIA H100 80GB HBM3"
        self.compute_capability = "9.0"
        self.core_count = 132
        self.stats = {"bytes_in_use": 1024 * (i + 1), "peak_bytes_in_use": 4096,
                      "pool_bytes": 8192, "peak_pool_bytes": 16384, "num_allocs": 7,
                      "bytes_limit": 80 * 2**30}

    def memory_stats(self):
        return self.stats


@pytest.fixture
def two_gpus(monkeypatch):
    gpus = (_FakeGpu(0), _FakeGpu(1))
    for mod in (memory_mod, streams_mod, tl.cuda, tl.accelerator):
        monkeypatch.setattr(mod, "accelerator_devices", lambda: gpus)
    monkeypatch.setattr(memory_mod, "_current", [0])
    monkeypatch.setattr(tl.cuda, "_current", memory_mod._current)
    return gpus


def test_without_an_accelerator_answers_as_pytorch_cpu(no_accelerator):
    assert tl.accelerator.is_available() is False
    assert tl.accelerator.device_count() == 0
    assert tl.accelerator.current_accelerator() is None
    assert tl.accelerator.current_accelerator(check_available=True) is None
    for call in (tl.accelerator.current_device_index, tl.accelerator.synchronize,
                 tl.accelerator.empty_cache, tl.accelerator.memory_allocated,
                 tl.accelerator.memory_stats, lambda: tl.accelerator.set_device_index(0)):
        with pytest.raises(RuntimeError, match=NONE):
            call()
    # torch.cuda's memory queries answer zero / empty on a machine without CUDA
    assert tl.cuda.memory_allocated() == 0 and tl.cuda.max_memory_allocated() == 0
    assert tl.cuda.memory_reserved() == 0 and tl.cuda.max_memory_reserved() == 0
    assert tl.cuda.memory_stats() == OrderedDict()
    assert tl.cuda.empty_cache() is None
    assert tl.cuda.is_bf16_supported() is False
    with pytest.raises(RuntimeError, match="no CUDA/accelerator"):
        tl.cuda.get_device_properties(0)
    with pytest.raises(RuntimeError, match="no CUDA/accelerator"):
        tl.cuda.get_device_capability()


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch (test oracle) not installed")
def test_same_answers_as_pytorch_cpu_build(no_accelerator):
    if torch.accelerator.is_available():
        pytest.skip("PyTorch sees an accelerator")
    assert tl.accelerator.is_available() == torch.accelerator.is_available()
    assert tl.accelerator.device_count() == torch.accelerator.device_count()
    assert tl.accelerator.current_accelerator() == torch.accelerator.current_accelerator()
    for name in ("current_device_index", "synchronize", "empty_cache", "memory_allocated"):
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch.accelerator, name)()
        with pytest.raises(RuntimeError) as ours:
            getattr(tl.accelerator, name)()
        assert str(ours.value) == str(theirs.value)
    assert tl.cuda.memory_allocated() == torch.cuda.memory_allocated()
    assert tl.cuda.memory_stats() == torch.cuda.memory_stats()
    assert tl.cuda.is_bf16_supported() == torch.cuda.is_bf16_supported()


def test_memory_statistics_take_pytorchs_names(two_gpus):
    stats = tl.cuda.memory_stats()
    assert list(stats) == sorted(stats)
    assert stats["allocated_bytes.all.current"] == 1024
    assert stats["allocated_bytes.all.peak"] == 4096
    assert stats["reserved_bytes.all.current"] == 8192
    assert stats["reserved_bytes.all.peak"] == 16384
    assert stats["allocation.all.allocated"] == 7
    assert tl.cuda.memory_allocated("cuda:1") == 2048
    assert tl.cuda.memory_allocated(1) == 2048
    assert tl.cuda.max_memory_allocated() == 4096
    assert tl.cuda.memory_reserved() == 8192 and tl.cuda.max_memory_reserved() == 16384
    with pytest.raises(RuntimeError, match="invalid device ordinal 2"):
        tl.cuda.memory_allocated(2)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        tl.cuda.memory_allocated("cpu")
    # an allocator that keeps no pool: reserved falls back to what is in use
    del two_gpus[0].stats["pool_bytes"], two_gpus[0].stats["peak_pool_bytes"]
    assert tl.cuda.memory_reserved() == 1024 and tl.cuda.max_memory_reserved() == 4096


def test_accelerator_over_two_devices(two_gpus):
    assert tl.accelerator.is_available() and tl.accelerator.device_count() == 2
    assert tl.accelerator.current_accelerator() == tl.device("cuda")
    assert tl.accelerator.current_device_index() == 0
    with tl.accelerator.device_index(1):
        assert tl.accelerator.current_device_index() == 1
        assert tl.accelerator.memory_allocated() == 2048
        assert tl.cuda.current_device() == 1
    assert tl.accelerator.current_device_index() == 0
    with tl.accelerator.device_index(None):
        assert tl.accelerator.current_device_index() == 0
    tl.accelerator.set_device_index(1)
    assert tl.accelerator.current_device_idx() == 1
    with pytest.raises(RuntimeError, match="invalid device ordinal 5"):
        tl.accelerator.set_device_index(5)
    assert tl.accelerator.current_device_index() == 1


def test_device_properties(two_gpus):
    p = tl.cuda.get_device_properties(0)
    assert (p.name, p.major, p.minor, p.multi_processor_count) == (
        "NVIDIA H100 80GB HBM3", 9, 0, 132)
    assert p.total_memory == 80 * 2**30
    assert repr(p) == ("_CudaDeviceProperties(name='NVIDIA H100 80GB HBM3', major=9, "
                       "minor=0, total_memory=81920MB, multi_processor_count=132)")
    assert tl.cuda.get_device_capability() == (9, 0)
    assert tl.cuda.get_device_name(1) == "NVIDIA H100 80GB HBM3"
    assert tl.cuda.is_bf16_supported() is True


def test_sdpa_kernel_like_pytorch():
    from torchlike.nn.attention import SDPBackend, current_backends, sdpa_kernel
    assert [(m, int(v)) for m, v in SDPBackend.__members__.items()] == [
        ("ERROR", -1), ("MATH", 0), ("FLASH_ATTENTION", 1), ("EFFICIENT_ATTENTION", 2),
        ("CUDNN_ATTENTION", 3), ("OVERRIDEABLE", 4)]
    if HAVE_TORCH:
        from torch.nn.attention import SDPBackend as TB
        assert [(m, int(v)) for m, v in TB.__members__.items()] == [
            (m, int(v)) for m, v in SDPBackend.__members__.items()]
        assert str(SDPBackend.MATH) == str(TB.MATH)
    q = tl.randn(2, 3, 4, 8)
    want = tl.nn.functional.scaled_dot_product_attention(q, q, q)
    before = current_backends()
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.FLASH_ATTENTION]) as r:
        assert r == {}
        assert current_backends() == [SDPBackend.FLASH_ATTENTION]
        got = tl.nn.functional.scaled_dot_product_attention(q, q, q)
    assert current_backends() == before
    assert tl.equal(got, want)
    for bad in ("math", (SDPBackend.MATH,)):
        with pytest.raises(AssertionError) as ours:
            with sdpa_kernel(bad):
                pass
        if HAVE_TORCH:
            from torch.nn.attention import sdpa_kernel as tk
            with pytest.raises(AssertionError) as theirs:
                with tk(bad):
                    pass
            assert str(ours.value) == str(theirs.value)


def test_synchronize_waits_for_issued_work(no_accelerator):
    x = tl.randn(400, 400)
    for _ in range(6):
        x = x @ x / 400.0
    tl.cuda.synchronize()
    assert x._value.is_ready()


def test_events_time_the_work_between_them(two_gpus):
    for g in two_gpus:
        g.platform = "cpu"
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    tl.cuda.synchronize()
    assert 15.0 <= start.elapsed_time(end) < 5000.0
    assert end.query() and start.elapsed_time(end) > 0
    plain = tl.cuda.Event()
    plain.record()
    with pytest.raises(ValueError, match=r"^Both events must be created with argument "
                                         r"'enable_timing=True'\.$"):
        start.elapsed_time(plain)
    with pytest.raises(ValueError, match=r"^Both events must be recorded before "
                                         r"calculating elapsed time\.$"):
        start.elapsed_time(tl.cuda.Event(enable_timing=True))
    s = tl.cuda.current_stream()
    assert s == tl.cuda.default_stream() and s.query()
    with tl.cuda.stream(tl.cuda.Stream()):
        y = tl.ones(3) * 2
    s.wait_stream(tl.cuda.Stream())
    ev = s.record_event()
    assert isinstance(ev, tl.cuda.Event) and ev._time is not None
    assert y.tolist() == [2.0, 2.0, 2.0]


def test_streams_and_events_need_an_accelerator(no_accelerator):
    for make in (tl.cuda.Event, tl.cuda.Stream, tl.cuda.current_stream):
        with pytest.raises(RuntimeError, match="no CUDA/accelerator"):
            make()
