"""``nn.utils.convert_conv2d_weight_memory_format`` and
``convert_conv3d_weight_memory_format`` against PyTorch: which weights change strides
in a nested model, the values kept, the module returned, the errors."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, same_error, torch

FWS = [tl, torch] if HAVE_TORCH else [tl]


def _model(fw):
    fw.manual_seed(0)
    return fw.nn.Sequential(
        fw.nn.Conv2d(3, 4, 3),
        fw.nn.Sequential(fw.nn.ConvTranspose2d(4, 2, 3), fw.nn.Conv3d(2, 2, 3),
                         fw.nn.ConvTranspose3d(2, 3, 2)),
        fw.nn.Conv1d(2, 2, 2), fw.nn.Linear(3, 3))


def _strides(m):
    return [p.stride() for p in m.parameters()]


def _convert(fw):
    m = _model(fw)
    before = [p.detach().numpy().copy() for p in m.parameters()]
    assert fw.nn.utils.convert_conv2d_weight_memory_format(m, fw.channels_last) is m
    after2d = _strides(m)
    assert fw.nn.utils.convert_conv3d_weight_memory_format(m, fw.channels_last_3d) is m
    after3d = _strides(m)
    for p, b in zip(m.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b)
        assert p.requires_grad and type(p).__name__ == "Parameter"
    flags = [m[0].weight.is_contiguous(memory_format=fw.channels_last),
             m[1][1].weight.is_contiguous(memory_format=fw.channels_last_3d),
             m[0].weight.is_contiguous()]
    back = fw.nn.utils.convert_conv2d_weight_memory_format(m, fw.contiguous_format)
    return after2d, after3d, flags, _strides(back)


def test_converts_only_convolution_weights_as_pytorch():
    after2d, after3d, flags, back = _convert(tl)
    assert after2d[0] == (27, 1, 9, 3) and after2d[2] == (18, 1, 6, 2)
    assert after2d[4] == (54, 27, 9, 3, 1)          # Conv3d untouched by the 2-d form
    assert after3d[4] == (54, 1, 18, 6, 2)
    assert after3d[-2:] == [(3, 1), (1,)]            # Linear untouched
    assert flags == [True, True, False]
    assert back[0] == (27, 9, 3, 1)
    if HAVE_TORCH:
        assert (after2d, after3d, flags, back) == _convert(torch)


def test_converted_model_still_trains():
    m = _model(tl)
    tl.nn.utils.convert_conv2d_weight_memory_format(m, tl.channels_last)
    out = m[0](tl.randn(1, 3, 5, 5))
    out.sum().backward()
    assert tuple(m[0].weight.grad.shape) == (4, 3, 3, 3)


@pytest.mark.parametrize("which, fmt", [("3d", "channels_last"), ("2d", "channels_last_3d")])
def test_wrong_rank_format_errors(which, fmt):
    def call(fw):
        f = getattr(fw.nn.utils, f"convert_conv{which}_weight_memory_format")
        return lambda: f(_model(fw), getattr(fw, fmt))

    same_error(call(tl), call(torch) if HAVE_TORCH else None, RuntimeError, match_text=True)


def test_thread_safe_generator_at_top_level():
    assert tl.thread_safe_generator is tl.random.thread_safe_generator
    assert tl.thread_safe_generator() is None
    if HAVE_TORCH:
        assert torch.thread_safe_generator() is None
