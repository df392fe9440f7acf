"""``torchlike.cuda``, ``torchlike.backends`` and ``torchlike.testing``."""

from __future__ import annotations

import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch


def test_backends_queries_like_pytorch_cpu_build():
    from torchlike._core.device import accelerator_devices
    if accelerator_devices():
        pytest.skip("an accelerator is present")
    assert tl.cuda.is_available() is False
    assert tl.cuda.device_count() == 0
    assert tl.backends.cudnn.is_available() is False
    assert tl.backends.cudnn.version() is None
    assert tl.backends.cudnn.enabled is True
    if HAVE_TORCH:
        assert tl.backends.cudnn.version() == torch.backends.cudnn.version()
        assert tl.backends.cudnn.enabled == torch.backends.cudnn.enabled
    with pytest.raises(RuntimeError, match="no CUDA/accelerator"):
        tl.cuda.current_device()


def test_assert_close_passes_and_reports():
    tl.testing.assert_close(tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.0 + 1e-7]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        tl.testing.assert_close(tl.tensor([1.0, 2.0]), tl.tensor([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        tl.testing.assert_close(tl.tensor([1.0]), tl.tensor([1.0], dtype=tl.float64))
    tl.testing.assert_close([tl.ones(2)], [tl.ones(2)])


def test_make_tensor():
    t = tl.testing.make_tensor(3, 4, dtype=tl.float32, low=0, high=1)
    assert t.shape == (3, 4) and t.dtype is tl.float32
    assert 0 <= t.min().item() if hasattr(t, "min") else True
