"""Joining ops: ``cat`` (alias ``concat``/``concatenate``), ``stack`` and the
``*stack`` family (``hstack``, ``vstack``/``row_stack``, ``dstack``, ``column_stack``).
Each is declared once; see spec.py."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .samples import S, arr
from .spec import OpSpec, register
from .views import normalize_args

__all__: list = []


# ---------------------------------------------------------------------------
# cat / stack and friends
def _cat_skipped(shape) -> bool:
    # PyTorch's legacy rule: 1-D empty tensors are ignored by cat.
    return len(shape) == 1 and shape[0] == 0


def _cat_check(tensors, dim=0):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError("cat() received an invalid combination of arguments - expected a "
                        "tuple or list of Tensors")
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if not _cat_skipped(t._shape)]
    if not kept:
        wrap_dim(dim, 1)
        return
    ref = kept[0][1]
    d = wrap_dim(dim, ref.dim())
    for i, t in kept[1:]:
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{ref.dim()} and {t.dim()}")
        for j in range(ref.dim()):
            if j != d and t._shape[j] != ref._shape[j]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref._shape[j]} but got size "
                                   f"{t._shape[j]} for tensor number {i} in the list.")
    devs = {t.device for t in tensors}
    if len(devs) > 1:
        raise RuntimeError("Expected all tensors to be on the same device, but found at "
                           "least two devices, " + ", ".join(sorted(str(x) for x in devs)) +
                           "!")


def _cat_fn(tensors, dim=0):
    kept = [t for t in tensors if not _cat_skipped(t.shape)]
    if not kept:
        return tensors[0]
    return jnp.concatenate(kept, axis=dim % kept[0].ndim)


_SEQ = (list, tuple)


def _tensor_list(vals):
    v = vals[0]
    return list(v) if isinstance(v, _SEQ) else v


register(OpSpec(
    "cat", _cat_fn, "tensors, dim=0", tensor_args=("tensors",), method=False,
    aliases=("concat", "concatenate"), check=_cat_check, saves=False,
    doc="Mirrors ``torch.cat``: PyTorch's dtype promotion across the inputs; 1-D empty "
        "tensors are skipped (legacy rule).",
    samples=lambda: [
        S([arr(2, 3), arr(4, 3)]), S([arr(2, 3), arr(2, 1), arr(2, 2)], 1),
        S([arr(2, 3), arr(2, 3)], -1), S([arr(2, 3), arr(0)]),
        S([arr(3, dtype="int64"), arr(2)]),
        S([arr(2, dtype="int32"), arr(2, dtype="int64")], grad=False),
        S([arr(0, 3), arr(2, 3, dtype="float64")]), S([arr(0), arr(0)]),
        S([arr(2, 3), arr(2)], 1), S([arr(2, 3), arr(3, 4)], 1), S([arr(2, 3)], 2),
        S([arr(), arr()])]))
normalize_args("cat", tensors=_tensor_list)


def _stack_check(tensors, dim=0):
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != ref._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{shape_str(ref._shape)} at entry 0 and "
                               f"{shape_str(t._shape)} at entry {i}")
    wrap_dim(dim, ref.dim() + 1)


register(OpSpec(
    "stack", lambda tensors, dim=0: jnp.stack(tensors, axis=dim % (tensors[0].ndim + 1)),
    "tensors, dim=0", tensor_args=("tensors",), method=False, check=_stack_check,
    saves=False,
    samples=lambda: [S([arr(2, 3), arr(2, 3)]), S([arr(2, 3), arr(2, 3)], -1),
                     S([arr(3), arr(3, dtype="float64")], 1), S([arr(), arr()]),
                     S([arr(0, 2), arr(0, 2)], 1), S([arr(2, 3), arr(2, 4)]),
                     S([arr(3, dtype="int64"), arr(3, dtype="int64")], grad=False)]))
normalize_args("stack", tensors=_tensor_list)


def _atleast(a, n):
    if a.ndim >= n:
        return a
    if n == 1 or a.ndim == 0:
        return jnp.reshape(a, (1,) * n)
    if n == 2:
        return a[None]
    return a[None, :, None] if a.ndim == 1 else a[..., None]


def _hstack(tensors):
    ts = [_atleast(t, 1) for t in tensors]
    return _cat_fn(ts, 0 if ts[0].ndim == 1 else 1)


def _vstack(tensors):
    return _cat_fn([_atleast(t, 2) for t in tensors], 0)


def _dstack(tensors):
    return _cat_fn([_atleast(t, 3) for t in tensors], 2)


def _column_stack(tensors):
    ts = [jnp.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors]
    return _cat_fn(ts, 1)


def _meta_atleast(shape, n):
    if len(shape) >= n:
        return tuple(shape)
    if n == 1 or len(shape) == 0:
        return (1,) * n
    if n == 2:
        return (1,) + tuple(shape)
    return (1, shape[0], 1) if len(shape) == 1 else tuple(shape) + (1,)


def _stack_like_check(name, reshape, dim_of):
    def check(tensors):
        if len(tensors) == 0:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        shapes = [reshape(t._shape) for t in tensors]
        d = dim_of(shapes[0])
        for i, s in enumerate(shapes[1:], 1):
            if _cat_skipped(s) or _cat_skipped(shapes[0]):
                continue
            if len(s) != len(shapes[0]):
                raise RuntimeError(f"Tensors must have same number of dimensions: got "
                                   f"{len(shapes[0])} and {len(s)}")
            for j in range(len(s)):
                if j != d and s[j] != shapes[0][j]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension "
                                       f"{d}. Expected size {shapes[0][j]} but got size "
                                       f"{s[j]} for tensor number {i} in the list.")
    return check


def _stack_samples(extra=()):
    return lambda: [S([arr(3), arr(2)]), S([arr(2, 3), arr(2, 1)]), S([arr(), arr()]),
                    S([arr(2, 3), arr(2, 3, dtype="float64")]),
                    S([arr(2, 3, 2), arr(2, 3, 2)]),
                    S([arr(2, dtype="int64"), arr(2, dtype="int64")], grad=False),
                    *[S(*a) for a in extra]]


for _name, _fn, _reshape, _dim, _al in (
        ("hstack", _hstack, lambda s: _meta_atleast(s, 1),
         lambda s: 0 if len(s) == 1 else 1, ()),
        ("vstack", _vstack, lambda s: _meta_atleast(s, 2), lambda s: 0, ("row_stack",)),
        ("dstack", _dstack, lambda s: _meta_atleast(s, 3), lambda s: 2, ()),
        ("column_stack", _column_stack,
         lambda s: (int(np.prod(s, dtype=np.int64)), 1) if len(s) <= 1 else tuple(s),
         lambda s: 1, ())):
    register(OpSpec(
        _name, _fn, "tensors", tensor_args=("tensors",), method=False, aliases=_al,
        check=_stack_like_check(_name, _reshape, _dim), saves=False,
        grad_name="CatBackward0", samples=_stack_samples(
            [([arr(2, 3), arr(3, 3)],)] if _name == "vstack" else
            [([arr(3), arr(3, 2)],)] if _name == "column_stack" else ())))
    normalize_args(_name, tensors=_tensor_list)
