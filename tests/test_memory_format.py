"""Memory formats: ``channels_last`` and friends, the strides of copies and factories made
in a format or preserving the input's, ``is_contiguous`` per format, gradients through
them, ``Module.to(memory_format=...)`` and PyTorch's errors.

Each case states the strides PyTorch gives, so torchlike is checked without PyTorch too;
where PyTorch is installed, the same calls are also run through it."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")


def _libs():
    return (tl, torch) if HAVE_TORCH else (tl,)


def _fmt(L, name):
    return getattr(L, name)


def _x(L, *shape):
    """``arange`` reshaped: values that show any reordering."""
    return L.arange(float(np.prod(shape))).reshape(*shape)


def _words(e: BaseException) -> str:
    return str(e).replace("torchlike", "torch")


# ----------------------------------------------------------------------- the objects
def test_the_four_formats_print_pickle_and_copy_as_themselves():
    for name in FORMATS:
        f = getattr(tl, name)
        assert isinstance(f, tl.memory_format)
        assert repr(f) == str(f) == f"torchlike.{name}"
        assert pickle.loads(pickle.dumps(f)) is f
        assert copy.copy(f) is f and copy.deepcopy(f) is f
        if HAVE_TORCH:
            assert repr(getattr(torch, name)) == f"torch.{name}"
    assert tl.channels_last == tl.channels_last and tl.channels_last != tl.contiguous_format
    assert tl.legacy_contiguous_format is tl.contiguous_format
    assert tl.memory_format.__module__ == "torchlike"
    assert tl.memory_format.__name__ == "memory_format"
    with pytest.raises(TypeError, match="cannot create 'torchlike.memory_format' instances"):
        tl.memory_format()
    if HAVE_TORCH:
        assert torch.legacy_contiguous_format is torch.contiguous_format
        with pytest.raises(TypeError, match="cannot create 'torch.memory_format' instances"):
            torch.memory_format()


# ----------------------------------------------------------------------- strides
# (name, call, strides PyTorch gives); ``x`` is (2, 3, 4, 5) contiguous, ``c`` the same
# values channels-last, ``v`` (2, 3, 4, 5, 6) contiguous
def _cases():
    cl = "channels_last"
    return {
        "contiguous_cl": (lambda L, x, c, v: x.contiguous(memory_format=L.channels_last),
                          (60, 1, 15, 3)),
        "contiguous_cl3d": (lambda L, x, c, v: v.contiguous(memory_format=L.channels_last_3d),
                            (360, 1, 90, 18, 3)),
        "contiguous_back": (lambda L, x, c, v: c.contiguous(), (60, 20, 5, 1)),
        "clone_cl": (lambda L, x, c, v: x.clone(memory_format=L.channels_last), (60, 1, 15, 3)),
        "clone_fn_cl": (lambda L, x, c, v: L.clone(x, memory_format=_fmt(L, cl)),
                        (60, 1, 15, 3)),
        "clone_preserves": (lambda L, x, c, v: c.clone(), (60, 1, 15, 3)),
        "clone_preserves_transpose": (lambda L, x, c, v: x.transpose(1, 2).clone(),
                                      (60, 5, 20, 1)),
        "clone_none_preserves": (lambda L, x, c, v: c.clone(memory_format=None),
                                 (60, 1, 15, 3)),
        "clone_of_gapped_keeps_order": (lambda L, x, c, v: _x(L, 4, 6).t()[:, ::2].clone(),
                                        (1, 6)),
        "clone_of_expanded": (lambda L, x, c, v: _x(L, 3, 1).expand(3, 4).clone(), (4, 1)),
        "clone_contiguous_of_cl": (lambda L, x, c, v: c.clone(
            memory_format=L.contiguous_format), (60, 20, 5, 1)),
        "clone_of_gapped_cl": (lambda L, x, c, v: c[:, :, ::2].clone(), (30, 1, 15, 3)),
        "to_cl": (lambda L, x, c, v: x.to(memory_format=L.channels_last), (60, 1, 15, 3)),
        "to_dtype_cl": (lambda L, x, c, v: x.to(L.float64, memory_format=L.channels_last),
                        (60, 1, 15, 3)),
        "to_device_dtype_cl": (lambda L, x, c, v: x.to("cpu", L.float16,
                                                       memory_format=L.channels_last),
                               (60, 1, 15, 3)),
        "to_dtype_preserves": (lambda L, x, c, v: c.to(L.float64), (60, 1, 15, 3)),
        "to_dtype_contiguous": (lambda L, x, c, v: c.to(L.float64,
                                                        memory_format=L.contiguous_format),
                                (60, 20, 5, 1)),
        "to_other_contiguous": (lambda L, x, c, v: c.to(x, memory_format=L.contiguous_format),
                                (60, 20, 5, 1)),
        "to_copy_preserves": (lambda L, x, c, v: c.to(copy=True), (60, 1, 15, 3)),
        "to_transpose_dtype": (lambda L, x, c, v: _x(L, 4, 6).t().to(L.float64), (1, 6)),
        "double_cl": (lambda L, x, c, v: x.double(memory_format=L.channels_last),
                      (60, 1, 15, 3)),
        "float_contiguous": (lambda L, x, c, v: c.float(memory_format=L.contiguous_format),
                             (60, 20, 5, 1)),
        "cpu_contiguous": (lambda L, x, c, v: c.cpu(memory_format=L.contiguous_format),
                           (60, 20, 5, 1)),
        "type_preserves": (lambda L, x, c, v: c.type(L.float64), (60, 1, 15, 3)),
        "empty_cl": (lambda L, x, c, v: L.empty(2, 3, 4, 5, memory_format=L.channels_last),
                     (60, 1, 15, 3)),
        "empty_cl_zero_channels": (lambda L, x, c, v: L.empty(
            2, 0, 3, 4, memory_format=L.channels_last), (0, 1, 0, 0)),
        "empty_cl3d": (lambda L, x, c, v: L.empty((2, 3, 4, 5, 6),
                                                  memory_format=L.channels_last_3d),
                       (360, 1, 90, 18, 3)),
        "empty_none": (lambda L, x, c, v: L.empty(2, 3, memory_format=None), (3, 1)),
        "empty_like": (lambda L, x, c, v: L.empty_like(c), (60, 1, 15, 3)),
        "zeros_like": (lambda L, x, c, v: L.zeros_like(c), (60, 1, 15, 3)),
        "ones_like_cl": (lambda L, x, c, v: L.ones_like(x, memory_format=L.channels_last),
                         (60, 1, 15, 3)),
        "full_like": (lambda L, x, c, v: L.full_like(c, 2.0), (60, 1, 15, 3)),
        "rand_like": (lambda L, x, c, v: L.rand_like(c), (60, 1, 15, 3)),
        "rand_like_cl": (lambda L, x, c, v: L.rand_like(x, memory_format=L.channels_last),
                         (60, 1, 15, 3)),
        "zeros_like_contiguous": (lambda L, x, c, v: L.zeros_like(
            c, memory_format=L.contiguous_format), (60, 20, 5, 1)),
        "zeros_like_none": (lambda L, x, c, v: L.zeros_like(c, memory_format=None),
                            (60, 1, 15, 3)),
        "empty_like_transpose": (lambda L, x, c, v: L.empty_like(_x(L, 4, 6).t()), (1, 6)),
        "one_channel_already_cl": (lambda L, x, c, v: _x(L, 2, 1, 4, 5).contiguous(
            memory_format=L.channels_last), (20, 20, 5, 1)),
        "resize_cl": (lambda L, x, c, v: L.arange(24.).resize_(
            1, 2, 3, 4, memory_format=L.channels_last), (24, 1, 8, 2)),
        "resize_as_preserve": (lambda L, x, c, v: L.arange(120.).resize_as_(
            c, memory_format=L.preserve_format), (60, 1, 15, 3)),
        "resize_as_none": (lambda L, x, c, v: L.arange(120.).resize_as_(c), (60, 20, 5, 1)),
        "make_tensor_cl": (lambda L, x, c, v: L.testing.make_tensor(
            2, 3, 4, 5, dtype=L.float32, device="cpu", memory_format=L.channels_last),
            (60, 1, 15, 3)),
    }


CASES = _cases()


def _inputs(L):
    x = _x(L, 2, 3, 4, 5)
    return x, x.contiguous(memory_format=L.channels_last), _x(L, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_strides_and_values(name):
    fn, want = CASES[name]
    out = fn(tl, *_inputs(tl))
    assert out.stride() == want
    if HAVE_TORCH:
        ref = fn(torch, *_inputs(torch))
        assert ref.stride() == want
        assert tuple(out.shape) == tuple(ref.shape)
        assert str(out.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
        if not name.startswith(("empty", "rand", "make_tensor")):
            np.testing.assert_array_equal(out.float().numpy(), ref.float().numpy())


def test_values_survive_a_change_of_layout():
    x = _x(tl, 2, 3, 4, 5)
    want = x.numpy()
    c = x.contiguous(memory_format=tl.channels_last)
    np.testing.assert_array_equal(c.numpy(), want)
    # the storage holds the NHWC order: the permuted view is contiguous, over the same memory
    nhwc = c.permute(0, 2, 3, 1)
    assert nhwc.is_contiguous() and nhwc.stride() == (60, 15, 3, 1)
    np.testing.assert_array_equal(nhwc.numpy(), want.transpose(0, 2, 3, 1))
    assert c.storage_offset() == 0 and c._base is None
    np.testing.assert_array_equal(c.contiguous().numpy(), want)
    np.testing.assert_array_equal(c.to(tl.float64).numpy(), want)
    for kept in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):   # as PyTorch's
        np.testing.assert_array_equal(kept.numpy(), want)
        assert kept.stride() == (60, 1, 15, 3)


# ----------------------------------------------------------------------- is_contiguous
# (geometry builder, is_contiguous per format in FORMATS order), as PyTorch answers
CONTIGUITY = {
    "nchw": (lambda L: _x(L, 2, 3, 4, 5), (True, False, False, True)),
    "nhwc": (lambda L: _x(L, 2, 3, 4, 5).contiguous(memory_format=L.channels_last),
             (False, True, False, False)),
    "one_by_one": (lambda L: _x(L, 2, 3, 1, 1), (True, True, False, True)),
    "one_channel": (lambda L: _x(L, 2, 1, 4, 5), (True, True, False, True)),
    "ndhwc": (lambda L: _x(L, 2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d),
              (False, False, True, False)),
    "three_d": (lambda L: _x(L, 3, 4, 5), (True, False, False, True)),
    "transposed": (lambda L: _x(L, 2, 3, 4, 5).transpose(1, 2), (False, False, False, False)),
    "empty_batch": (lambda L: L.empty(0, 3, 4, 5), (True, False, False, True)),
}


@pytest.mark.parametrize("name", sorted(CONTIGUITY))
def test_is_contiguous_per_format(name):
    make, want = CONTIGUITY[name]
    for L in _libs():
        t = make(L)
        got = tuple(t.is_contiguous(memory_format=_fmt(L, f)) for f in FORMATS)
        assert got == want, (L.__name__, got)
        assert t.is_contiguous() == want[0]


def test_to_returns_self_when_the_format_is_the_suggested_one():
    for L in _libs():
        x = _x(L, 2, 3, 4, 5)
        c = x.contiguous(memory_format=L.channels_last)
        assert x.to(memory_format=L.contiguous_format) is x
        assert x.to(memory_format=L.preserve_format) is x
        assert c.to(memory_format=L.channels_last) is c
        assert c.to(x) is c   # same dtype and device: preserve_format aliases
        # a slice of a channels-last tensor still suggests channels_last
        s = c[:, :, 1:]
        assert s.to(memory_format=L.channels_last) is s
        assert s.contiguous(memory_format=L.channels_last) is not s
        assert x.to(copy=True) is not x
        assert c.contiguous(memory_format=L.channels_last) is c
        y = _x(L, 3, 4, 5)
        assert y.to(memory_format=L.contiguous_format) is y


# random layouts (permuted, gapped, overlapping): every answer equals PyTorch's; the
# strides of copies are read from the rule itself, which the table above checks end to end
@pytest.mark.skipif(not HAVE_TORCH, reason="compares with PyTorch")
def test_random_layouts_match_pytorch():
    from torchlike._core.memory_formats import result_strides, suggest_memory_format
    rng = random.Random(0)

    def outcome(f):
        try:
            return f()
        except RuntimeError as e:
            return ("RuntimeError", _words(e))

    for _ in range(300):
        nd = rng.choice([1, 2, 3, 4, 4, 4, 5, 5])
        shape = tuple(rng.choice([0, 1, 2, 3, 3] if rng.random() < 0.1 else [1, 2, 3, 4])
                      for _ in range(nd))
        stride = tuple(rng.choice([0, 1, 2, 3, 4, 6, 12, 24, 60]) for _ in range(nd))
        a, b = tl.empty_strided(shape, stride), torch.empty_strided(shape, stride)
        for f in FORMATS:
            fa, fb = getattr(tl, f), getattr(torch, f)
            case = (shape, stride, f)
            assert a.is_contiguous(memory_format=fa) == b.is_contiguous(memory_format=fb), case
            # ``to`` aliases when the format is the one the strides suggest
            aliases = fa is tl.preserve_format or suggest_memory_format(shape, stride) is fa
            assert aliases == (outcome(lambda: b.to(memory_format=fb) is b) is True), case
            assert outcome(lambda: result_strides(shape, stride, fa)) == \
                outcome(lambda: b.clone(memory_format=fb).stride()), case


# ----------------------------------------------------------------------- errors
# (call, exception type, PyTorch's message with ``torch`` for the library name)
ERRORS = {
    "contiguous_cl_3d": (lambda L: _x(L, 3, 4, 5).contiguous(memory_format=L.channels_last),
                         RuntimeError, "required rank 4 tensor to use channels_last format"),
    "clone_cl3d_4d": (lambda L: _x(L, 2, 3, 4, 5).clone(memory_format=L.channels_last_3d),
                      RuntimeError, "required rank 5 tensor to use channels_last_3d format"),
    "to_cl_3d": (lambda L: _x(L, 3, 4, 5).to(memory_format=L.channels_last),
                 RuntimeError, "required rank 4 tensor to use channels_last format"),
    "empty_cl_3d": (lambda L: L.empty(2, 3, 4, memory_format=L.channels_last),
                    RuntimeError, "required rank 4 tensor to use channels_last format"),
    "empty_like_cl3d": (lambda L: L.empty_like(_x(L, 3, 4), memory_format=L.channels_last_3d),
                        RuntimeError, "required rank 5 tensor to use channels_last_3d format"),
    "zeros_like_cl_3d": (lambda L: L.zeros_like(_x(L, 3, 4, 5), memory_format=L.channels_last),
                         RuntimeError, "required rank 4 tensor to use channels_last format"),
    "randn_like_cl_3d": (lambda L: L.randn_like(_x(L, 3, 4, 5), memory_format=L.channels_last),
                         RuntimeError, "required rank 4 tensor to use channels_last format"),
    "randint_like_cl3d": (lambda L: L.randint_like(_x(L, 3, 4, 5), 1, 5,
                                                   memory_format=L.channels_last_3d),
                          RuntimeError, "required rank 5 tensor to use channels_last_3d format"),
    "empty_preserve": (lambda L: L.empty(2, 3, memory_format=L.preserve_format),
                       RuntimeError, "unsupported memory format Preserve"),
    "empty_out_format": (lambda L: L.empty(2, 3, out=L.zeros(3),
                                           memory_format=L.contiguous_format),
                         RuntimeError, "'memory_format' argument is incompatible with 'out' "
                         "tensor argument"),
    "contiguous_preserve": (lambda L: _x(L, 2, 3).t().contiguous(
        memory_format=L.preserve_format), RuntimeError,
        "preserve memory format is unsupported by the contiguous operator"),
    "resize_preserve": (lambda L: L.arange(6.).resize_(2, 3, memory_format=L.preserve_format),
                        RuntimeError, "Unsupported memory formatPreserve"),
    "resize_cl_3d": (lambda L: L.arange(24.).resize_(2, 3, 4, memory_format=L.channels_last),
                     RuntimeError, "required rank 4 tensor to use channels_last format"),
    "module_cl_5d": (lambda L: _Holder(L).to(memory_format=L.channels_last),
                     RuntimeError, "required rank 4 tensor to use channels_last format"),
    "module_cl3d_4d": (lambda L: _Holder(L).to(memory_format=L.channels_last_3d),
                       RuntimeError, "required rank 5 tensor to use channels_last_3d format"),
    "is_contiguous_int": (lambda L: _x(L, 2, 3).is_contiguous(memory_format=3), TypeError,
                          "is_contiguous(): argument 'memory_format' must be "
                          "torch.memory_format, not int"),
    "is_contiguous_none": (lambda L: _x(L, 2, 3).is_contiguous(memory_format=None), TypeError,
                           "is_contiguous(): argument 'memory_format' must be "
                           "torch.memory_format, not NoneType"),
    "contiguous_str": (lambda L: _x(L, 2, 3).contiguous(memory_format="channels_last"),
                       TypeError, "contiguous(): argument 'memory_format' must be "
                       "torch.memory_format, not str"),
    "clone_int": (lambda L: L.clone(_x(L, 2, 3), memory_format=3), TypeError,
                  "clone(): argument 'memory_format' must be torch.memory_format, not int"),
    "empty_int": (lambda L: L.empty(2, 3, memory_format=3), TypeError,
                  "empty(): argument 'memory_format' must be torch.memory_format, not int"),
    "zeros_like_int": (lambda L: L.zeros_like(_x(L, 2), memory_format=3), TypeError,
                       "zeros_like(): argument 'memory_format' must be torch.memory_format, "
                       "not int"),
    "full_like_int": (lambda L: L.full_like(_x(L, 2), 1.0, memory_format=3), TypeError,
                      "full_like(): argument 'memory_format' must be torch.memory_format, "
                      "not int"),
    "float_int": (lambda L: _x(L, 2).float(memory_format=3), TypeError,
                  "float(): argument 'memory_format' must be torch.memory_format, not int"),
    "resize_int": (lambda L: L.arange(6.).resize_(2, 3, memory_format=3), TypeError,
                   "resize_(): argument 'memory_format' must be torch.memory_format, not int"),
    "to_positional": (lambda L: _x(L, 2).to(L.channels_last), TypeError,
                      "to() received an invalid combination of arguments - got "
                      "(torch.memory_format), but expected one of:"),
    "to_int": (lambda L: _x(L, 2).to(memory_format=3), TypeError,
               "to() received an invalid combination of arguments - got (memory_format=int, "
               "), but expected one of:"),
    "module_to_positional": (lambda L: L.nn.Linear(2, 2).to(L.channels_last), TypeError,
                             "to() received an invalid combination of arguments - got "
                             "(torch.memory_format), but expected one of:"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    fn, exc, words = ERRORS[name]
    for L in _libs():
        with pytest.raises(exc) as info:
            fn(L)
        assert _words(info.value).startswith(words), (L.__name__, str(info.value))


def test_rand_like_refuses_a_non_format():
    with pytest.raises(TypeError, match="memory_format"):
        tl.rand_like(_x(tl, 2), memory_format=3)
    if HAVE_TORCH:
        with pytest.raises(TypeError, match="memory_format"):
            torch.rand_like(_x(torch, 2), memory_format=3)


# ----------------------------------------------------------------------- autograd
def _grads(L, make):
    x = L.tensor(np.arange(120.0).reshape(2, 3, 4, 5) / 7, requires_grad=True)
    w = L.tensor(np.cos(np.arange(120.0)).reshape(2, 3, 4, 5))
    out = make(L, x)
    name = out.grad_fn.name()
    strides = out.stride()
    ((out * w).sum() + (out.permute(0, 2, 3, 1) ** 2).sum()).backward()
    return name, strides, out.detach().numpy(), x.grad.numpy()


GRAD_CASES = {
    "contiguous_cl": (lambda L, x: x.contiguous(memory_format=L.channels_last),
                      "CloneBackward0", (60, 1, 15, 3)),
    "clone_cl": (lambda L, x: x.clone(memory_format=L.channels_last), "CloneBackward0",
                 (60, 1, 15, 3)),
    "to_cl": (lambda L, x: x.to(memory_format=L.channels_last), "ToCopyBackward0",
              (60, 1, 15, 3)),
    "to_dtype_cl": (lambda L, x: x.to(L.float32, memory_format=L.channels_last),
                    "ToCopyBackward0", (60, 1, 15, 3)),
    "round_trip": (lambda L, x: x.contiguous(memory_format=L.channels_last).contiguous(),
                   "CloneBackward0", (60, 20, 5, 1)),
    "written_in_place": (lambda L, x: x.contiguous(memory_format=L.channels_last).mul_(3),
                         "MulBackward0", (60, 1, 15, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients(name):
    make, grad_name, strides = GRAD_CASES[name]
    got = _grads(tl, make)
    assert got[:2] == (grad_name, strides)
    x = np.arange(120.0).reshape(2, 3, 4, 5) / 7
    w = np.cos(np.arange(120.0)).reshape(2, 3, 4, 5)
    scale = 3.0 if name == "written_in_place" else 1.0
    np.testing.assert_allclose(got[2], scale * x, rtol=1e-6)
    np.testing.assert_allclose(got[3], scale * w + 2 * scale * scale * x, rtol=1e-6)
    if HAVE_TORCH:
        ref = _grads(torch, make)
        assert got[:2] == ref[:2]
        np.testing.assert_allclose(got[2], ref[2], rtol=1e-6)
        np.testing.assert_allclose(got[3], ref[3], rtol=1e-6)


def test_writes_through_views_of_a_channels_last_tensor():
    for L in _libs():
        c = _x(L, 1, 2, 3, 4).contiguous(memory_format=L.channels_last)
        nhwc = c.permute(0, 2, 3, 1)
        nhwc[0, 0, 0, 1] = -1.0
        c[0, 0, 2, 3] = -2.0
        assert c[0, 1, 0, 0].item() == -1.0
        assert nhwc[0, 2, 3, 0].item() == -2.0
        assert c.stride() == (24, 1, 8, 2) and c._version == nhwc._version == 2


def test_compiled_step_with_channels_last():
    """The conversion runs inside a compiled step, and gradients flow through it."""
    def step(x, w):
        y = x.contiguous(memory_format=tl.channels_last) * w
        loss = (y.permute(0, 2, 3, 1) ** 2).sum()
        loss.backward()
        return loss

    x = tl.tensor(np.arange(24.0).reshape(1, 2, 3, 4) / 5, requires_grad=True)
    w = tl.tensor(np.linspace(-1, 1, 24).reshape(1, 2, 3, 4))
    loss = tl.compile(step)(x, w)
    want = (x.detach().numpy() * w.numpy()) ** 2
    np.testing.assert_allclose(loss.item(), want.sum(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() * w.numpy() ** 2,
                               rtol=1e-6)


# ----------------------------------------------------------------------- nn.Module.to
def _Holder(L, five_d: bool = True):
    """A module with parameters and buffers of 1, 2, 4 (and 5) dimensions."""
    def t(a):
        return L.tensor(a, dtype=L.float32)
    m = L.nn.Module()
    m.w4 = L.nn.Parameter(t(np.sin(np.arange(24.0)).reshape(2, 3, 2, 2)))
    m.b1 = L.nn.Parameter(t(np.arange(3.0)))
    m.w2 = L.nn.Parameter(t(np.arange(6.0).reshape(2, 3)))
    m.register_buffer("r4", t(np.arange(24.0).reshape(2, 2, 2, 3)))
    if five_d:
        m.w5 = L.nn.Parameter(t(np.arange(48.0).reshape(2, 3, 2, 2, 2)))
    return m


def _module_run(L, fmt_name, dtype_name=None):
    m = _Holder(L, five_d=fmt_name != "channels_last")
    w = m.w4
    kw = {"memory_format": getattr(L, fmt_name)}
    if dtype_name:
        m.to(getattr(L, dtype_name), **kw)
    else:
        m.to(**kw)
    assert m.w4 is w   # the Parameter keeps its identity
    # gradients reach the converted parameter, and an in-place update (an optimizer
    # step's) writes through its layout
    (w * L.tensor(np.cos(np.arange(24.0)).reshape(2, 3, 2, 2), dtype=w.dtype)).sum().backward()
    with L.no_grad():
        w.sub_(w.grad, alpha=0.5)
    five = m.w5.stride() if hasattr(m, "w5") else None
    return (w.stride(), m.b1.stride(), m.w2.stride(), m.r4.stride(), five,
            str(w.dtype).split(".")[1], w.grad.numpy(), w.detach().numpy(), m.r4.numpy())


MODULE_CASES = {
    ("channels_last", None): ((12, 1, 6, 3), (1,), (3, 1), (12, 1, 6, 2), None, "float32"),
    ("channels_last", "float64"): ((12, 1, 6, 3), (1,), (3, 1), (12, 1, 6, 2), None,
                                   "float64"),
    ("contiguous_format", None): ((12, 4, 2, 1), (1,), (3, 1), (12, 6, 3, 1),
                                  (24, 8, 4, 2, 1), "float32"),
}


@pytest.mark.parametrize("fmt,dtype", sorted(MODULE_CASES, key=str))
def test_module_to_memory_format(fmt, dtype):
    got = _module_run(tl, fmt, dtype)
    assert got[:6] == MODULE_CASES[fmt, dtype]
    k = np.cos(np.arange(24.0)).reshape(2, 3, 2, 2)
    np.testing.assert_allclose(got[6], k, rtol=1e-6)
    np.testing.assert_allclose(got[7], np.sin(np.arange(24.0)).reshape(2, 3, 2, 2) - 0.5 * k,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[8], np.arange(24.0).reshape(2, 2, 2, 3))
    if HAVE_TORCH:
        ref = _module_run(torch, fmt, dtype)
        assert got[:6] == ref[:6]
        for g, r in zip(got[6:], ref[6:]):
            np.testing.assert_allclose(g, r, rtol=1e-6)


def test_module_to_channels_last_3d():
    for L in _libs():
        m = L.nn.Module()
        m.w5 = L.nn.Parameter(L.zeros(2, 3, 2, 2, 2))
        m.b = L.nn.Parameter(L.zeros(3))
        m.to(memory_format=L.channels_last_3d)
        assert m.w5.stride() == (24, 1, 12, 6, 3) and m.b.stride() == (1,)
        assert m.w5.is_contiguous(memory_format=L.channels_last_3d)
