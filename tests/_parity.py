"""Parity helpers: build the same inputs in torchlike and PyTorch, compare results.

PyTorch is a test-only oracle. Where it is absent, ``HAVE_TORCH`` is False and only
the comparisons are skipped: torchlike is still run."""

from __future__ import annotations

import os
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import torchlike as tl

try:
    import torch
    HAVE_TORCH = True
except ImportError:  # pragma: no cover - exercised on machines without torch
    torch = None
    HAVE_TORCH = False

requires_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch (test oracle) not installed")


FWS = ["tl", "torch"] if HAVE_TORCH else ["tl"]   # the frameworks a test can run in

# The secondary sweeps over the op table (second order, out=, the generated recorders)
# take the first few samples of each op; TORCHLIKE_ALL_SAMPLES=1 runs every sample (the
# first-order forward and gradient parity in test_op_table.py always runs every sample).
ALL_SAMPLES = bool(os.environ.get("TORCHLIKE_ALL_SAMPLES"))


def samples_per_op(default: int) -> int | None:
    """How many samples of each op a secondary sweep runs (None: all)."""
    return None if ALL_SAMPLES else default


def fw_module(fw: str):
    """The module of framework ``fw`` ("tl" or "torch")."""
    return tl if fw == "tl" else torch


def both(fn):
    """``fn(torchlike)``, and ``fn(torch)`` (None without PyTorch)."""
    out = fn(tl)
    ref = fn(torch) if HAVE_TORCH else None
    return out, ref


def tl_tensor(a: np.ndarray, requires_grad: bool = False):
    t = tl.tensor(a)
    if requires_grad:
        t.requires_grad_(True)
    return t


def torch_tensor(a: np.ndarray, requires_grad: bool = False):
    if a.dtype == ml_dtypes.bfloat16:
        t = torch.tensor(a.astype(np.float32)).to(torch.bfloat16)
    else:
        t = torch.tensor(a)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _is_float_array(a) -> bool:
    return isinstance(a, np.ndarray) and (np.issubdtype(a.dtype, np.floating) or
                                          a.dtype == ml_dtypes.bfloat16 or
                                          np.issubdtype(a.dtype, np.complexfloating))


def convert(x, fw: str, grad: bool = False, leaves: list | None = None):
    """Replace NumPy arrays in ``x`` (recursively) with tensors of framework ``fw``."""
    if isinstance(x, np.ndarray):
        rg = grad and _is_float_array(x)
        t = tl_tensor(x, rg) if fw == "tl" else torch_tensor(x, rg)
        if rg and leaves is not None:
            leaves.append(t)
        return t
    if isinstance(x, list):
        return [convert(y, fw, grad, leaves) for y in x]
    if isinstance(x, tuple):
        return tuple(convert(y, fw, grad, leaves) for y in x)
    if isinstance(x, dict):
        return {k: convert(v, fw, grad, leaves) for k, v in x.items()}
    if fw == "torch" and isinstance(x, tl.dtype):
        return getattr(torch, x.name)
    return x


def to_numpy(t) -> np.ndarray:
    if HAVE_TORCH and isinstance(t, torch.Tensor):
        t = t.detach()
        if t.dtype == torch.bfloat16:
            return t.float().numpy().astype(ml_dtypes.bfloat16)
        return t.resolve_conj().numpy(force=True)
    return np.asarray(t.detach())


def dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def assert_same(a, b, rtol=1e-5, atol=1e-6, path="out"):
    """``a`` from torchlike, ``b`` from torch: same structure, dtypes, shapes, values."""
    if isinstance(a, tl.Tensor):
        assert HAVE_TORCH and isinstance(b, torch.Tensor), f"{path}: torch gave {type(b)}"
        assert dtype_name(a) == dtype_name(b), f"{path}: dtype {a.dtype} vs {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"{path}: shape {tuple(a.shape)} vs " \
                                                 f"{tuple(b.shape)}"
        x, y = to_numpy(a), to_numpy(b)
        if x.dtype == ml_dtypes.bfloat16:
            x, y = x.astype(np.float32), y.astype(np.float32)
            rtol, atol = max(rtol, 1e-2), max(atol, 1e-2)
        if x.dtype == np.float16:
            rtol, atol = max(rtol, 1e-3), max(atol, 1e-3)
        if x.dtype == np.bool_ or np.issubdtype(x.dtype, np.integer):
            np.testing.assert_array_equal(x, y, err_msg=path)
        else:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=path)
        return
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)), f"{path}: {type(a)} vs {type(b)}"
        assert len(a) == len(b), f"{path}: length {len(a)} vs {len(b)}"
        if hasattr(b, "_fields"):
            assert hasattr(a, "_fields") and tuple(a._fields) == tuple(b._fields), \
                f"{path}: named tuple fields {getattr(a, '_fields', None)} vs {b._fields}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, rtol, atol, f"{path}[{i}]")
        return
    if a is None or b is None:
        assert a is None and b is None, f"{path}: {a!r} vs {b!r}"
        return
    if isinstance(a, float) and isinstance(b, float):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
        return
    assert a == b, f"{path}: {a!r} vs {b!r}"


def torchify_repr(s: str) -> str:
    """torchlike prints ``torchlike.`` where PyTorch prints ``torch.``."""
    return s.replace("torchlike.", "torch.")


def normalize_error(msg: str) -> str:
    msg = re.sub(r"torchlike", "torch", msg)
    # a printed set literal's order depends on the hash seed its .pyc was compiled with,
    # which differs between PyTorch's files and ours: compare sets of words as sorted
    return re.sub(r"\{('[^']*'(?:, '[^']*')+)\}",
                  lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)


def check_gradient_shapes(outs, leaves) -> None:
    """Without PyTorch: torchlike's backward of ``outs`` (their real parts, summed in
    float64) still runs, giving each input a gradient of its shape or None."""
    outs = [o for o in outs if isinstance(o, tl.Tensor) and o.requires_grad]
    if not outs or not leaves:
        return
    loss = sum((o.real if o.is_complex() else o).to(tl.float64).sum() for o in outs)
    grads = tl.autograd.grad(loss, leaves, allow_unused=True)
    for g, leaf in zip(grads, leaves):
        assert g is None or tuple(g.shape) == tuple(leaf.shape)


def outcome(fn):
    """``fn()``'s result, or the exception it raised (warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return e


def same_error(fn_tl, fn_torch, exc: type = Exception, match_text: bool = False):
    """torchlike raises ``exc``; where PyTorch is installed, it raises too, the same type
    (and, with ``match_text``, the same message with ``torch`` for ``torchlike``)."""
    out = outcome(fn_tl)
    assert isinstance(out, exc), f"expected {exc.__name__}, got {out!r}"
    if not HAVE_TORCH:
        return
    ref = outcome(fn_torch)
    assert isinstance(ref, Exception), f"torch did not raise: {ref!r}"
    assert type(out).__name__ == type(ref).__name__, f"{out!r} vs torch {ref!r}"
    if match_text:
        assert str(out).replace("torchlike", "torch") == str(ref)


def raises_like(fn_tl, fn_torch, exc=Exception, same_text: bool = True):
    """torchlike raises ``exc``; with PyTorch, the same type and first line of text."""
    with pytest.raises(exc) as ei:
        fn_tl()
    if HAVE_TORCH:
        with pytest.raises(Exception) as er:
            fn_torch()
        assert type(ei.value).__name__ == type(er.value).__name__, (ei.value, er.value)
        if same_text:
            assert normalize_error(str(ei.value)).split("\n")[0] == \
                str(er.value).split("\n")[0]
    return ei.value


def raises_in_both(fn, exc=Exception, same_text: bool = True):
    """``fn(torchlike)`` raises ``exc``; with PyTorch, ``fn(torch)`` raises the same type
    and (with ``same_text``) the same first line. Warnings are silenced."""
    def quiet(m):
        def call():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(m)
        return call
    return raises_like(quiet(tl), quiet(torch), exc, same_text)


def error_like_torch(case):
    """``case(fw)`` raises in torchlike; with PyTorch, the same type and the same message
    (``torchlike`` read as ``torch``)."""
    with pytest.raises(Exception) as info:
        case(tl)
    if not HAVE_TORCH:
        return info.value
    with pytest.raises(Exception) as ref:
        case(torch)
    assert type(info.value).__name__ == type(ref.value).__name__, (info.value, ref.value)
    assert normalize_error(str(info.value)) == str(ref.value)
    return info.value


def parity(run, rtol=1e-5, atol=1e-6):
    """``run(tl)`` (``run`` takes the framework module), compared with ``run(torch)``
    where PyTorch is installed; returns torchlike's result."""
    out = run(tl)
    if HAVE_TORCH:
        assert_same(out, run(torch), rtol=rtol, atol=atol)
    return out


def error_of(fn):
    """(exception type name, whole message with ``torchlike`` read as ``torch``) of
    ``fn()``, or None when it returns."""
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - compared across frameworks
        return type(e).__name__, str(e).replace("torchlike", "torch")
    return None


def equal_in_both(run):
    """``run(torchlike)``; equal (``==``) to ``run(torch)`` where PyTorch is installed."""
    out = run(tl)
    if HAVE_TORCH:
        assert out == run(torch)
    return out


def first_error(fn):
    """(exception type name, first line of the message in PyTorch's spelling) of
    ``fn()`` with warnings silenced, or None when it returns."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return type(e).__name__, normalize_error(str(e)).split("\n")[0]
    return None


def same_first_error(case, exc: type, text: str | None = None, exact: bool = True):
    """``case(tl)`` raises ``exc`` (its message starting with ``text`` when given); with
    PyTorch, ``case(torch)`` raises the same type and (``exact``) the same first line."""
    got = first_error(lambda: case(tl))
    assert got is not None and got[0] == exc.__name__, got
    if text is not None:
        assert got[1].startswith(text), got
    if HAVE_TORCH:
        ref = first_error(lambda: case(torch))
        assert (ref == got) if exact else (ref is not None and ref[0] == got[0]), (ref, got)
    return got
