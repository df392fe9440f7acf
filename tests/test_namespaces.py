"""Small namespaces PyTorch code imports: ``torchlike.version`` (``torch.version``),
``torchlike.functional`` (``torch.functional``) and the autograd flags
``set_multithreading_enabled`` / ``is_multithreading_enabled`` /
``_force_original_view_tracking`` / ``is_view_replay_enabled``."""

from __future__ import annotations

import threading

import jax
import numpy as np
import pytest

import torchlike as tl
from torchlike import version as tl_version

from ._parity import HAVE_TORCH, requires_torch, torch

VERSION_NAMES = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]
FUNCTIONAL_NAMES = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
                    "broadcast_shapes", "broadcast_tensors", "cartesian_prod", "cdist",
                    "chain_matmul", "einsum", "istft", "lu", "meshgrid", "norm",
                    "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
                    "unique_consecutive", "unravel_index"]


# --------------------------------------------------------------------------- version
def test_version_has_pytorchs_fields():
    for name in VERSION_NAMES:
        assert hasattr(tl.version, name), name
    assert tl.version.__version__ == tl.__version__
    assert tl.version.debug is False and isinstance(tl.version.git_version, str)
    assert tl.version.hip is None and tl.version.rocm is None and tl.version.xpu is None


def test_version_cuda_is_none_without_a_cuda_plugin():
    if any(d.platform == "gpu" or d.platform == "cuda" for d in jax.devices()):
        assert isinstance(tl.version.cuda, str)
    else:
        assert tl.version.cuda is None


class _Versions:
    def __init__(self, runtime):
        self.runtime = runtime

    def cuda_runtime_get_version(self):
        if isinstance(self.runtime, Exception):
            raise self.runtime
        return self.runtime


def test_version_cuda_formats_the_runtime_as_pytorch_does():
    assert tl_version._cuda_version(_Versions(12080)) == "12.8"
    assert tl_version._cuda_version(_Versions(12040)) == "12.4"
    assert tl_version._cuda_version(_Versions(13000)) == "13.0"
    assert tl_version._cuda_version(None) is None
    assert tl_version._cuda_version(_Versions(RuntimeError("no driver"))) is None


@requires_torch
def test_version_names_match_pytorchs():
    theirs = {n for n in vars(torch.version) if not n.startswith("_") and n != "Optional"}
    assert theirs <= set(VERSION_NAMES)
    # a CPU-only build reports no CUDA in both
    if tl.version.cuda is None:
        assert torch.version.cuda is None


# --------------------------------------------------------------------------- functional
def test_functional_reexports_the_top_level_functions():
    from torchlike.functional import F, einsum
    assert F is tl.nn.functional and einsum is tl.einsum
    for name in FUNCTIONAL_NAMES:
        assert getattr(tl.functional, name) is getattr(tl, name), name


@requires_torch
def test_functional_covers_pytorchs():
    import torch.functional as tf
    ours = set(tl.functional.__all__)
    theirs = {n for n in getattr(tf, "__all__", dir(tf)) if not n.startswith("_")}
    assert theirs <= ours, sorted(theirs - ours)


def test_functional_einsum_computes():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = tl.functional.einsum("ij,jk->ik", tl.tensor(a), tl.tensor(b))
    np.testing.assert_allclose(out.numpy(), a @ b)
    if HAVE_TORCH:
        import torch.functional as tf
        want = tf.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_allclose(out.numpy(), want)


# --------------------------------------------------------------------------- flags
FLAGS = [("set_multithreading_enabled", "is_multithreading_enabled", True),
         ("_force_original_view_tracking", "is_view_replay_enabled", False)]
# what ``_flag_trace`` reads: the decorator leaves multithreading's flag set (PyTorch
# sets it when the decorator is made), view tracking's put back
TRACES = {"set_multithreading_enabled": [0, 1, 0, 1, 0, 1, 1, 0, 1],
          "_force_original_view_tracking": [0, 1, 0, 1, 0, 1, 0, 1, 0]}


def _flag_trace(ag, setter: str, getter: str) -> list:
    """What the flag reads through a sequence of uses, in PyTorch's terms."""
    set_, get = getattr(ag, setter), getattr(ag, getter)
    seen = [get()]
    with set_(not seen[0]):
        seen.append(get())
        with set_(seen[0]):
            seen.append(get())
        seen.append(get())
    seen.append(get())

    @set_(not seen[0])          # as in PyTorch, making the decorator sets the flag
    def inside():
        return get()
    seen += [inside(), get()]
    prev = get()
    set_(not prev)              # a plain call takes effect and stays
    seen.append(get())
    set_(prev)
    seen.append(get())
    set_(seen[0])
    return seen


@pytest.mark.parametrize("setter,getter,default", FLAGS)
def test_flags_nest_decorate_and_restore(setter, getter, default):
    want = [default != bool(flip) for flip in TRACES[setter]]
    assert _flag_trace(tl.autograd, setter, getter) == want
    assert getattr(tl.autograd, getter)() is default


@pytest.mark.parametrize("setter,getter,default", FLAGS)
def test_flags_are_thread_local(setter, getter, default):
    seen = []
    with getattr(tl.autograd, setter)(not default):
        t = threading.Thread(target=lambda: seen.append(getattr(tl.autograd, getter)()))
        t.start()
        t.join()
        assert getattr(tl.autograd, getter)() is (not default)
    assert seen == [default]


@requires_torch
@pytest.mark.parametrize("setter,getter,default", FLAGS)
def test_flags_behave_as_pytorchs(setter, getter, default):
    assert _flag_trace(tl.autograd, setter, getter) == \
        _flag_trace(torch.autograd, setter, getter)


def test_backward_is_the_same_with_multithreading_off():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    want = x.grad.clone()
    x.grad = None
    with tl.autograd.set_multithreading_enabled(False):
        (x * x).sum().backward()
    assert x.grad.tolist() == want.tolist() == [2.0, 4.0, 6.0]
