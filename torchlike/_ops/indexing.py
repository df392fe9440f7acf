"""``Tensor.__getitem__`` / ``__setitem__`` and ``index_put``.

Basic indexing (ints, slices, None, Ellipsis) returns a view; anything with integer
or boolean tensors/lists gathers a copy, as in PyTorch. Unlike JAX, out-of-range
indices raise ``IndexError`` in eager mode instead of being clamped.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import shape_str
from .samples import S, arr
from .spec import OpSpec, register
from .views import slice_meta

__all__ = ["parse_key"]

# key components (hashable, static): ("i", int) select, ("s", start, stop, step) slice,
# ("n",) None, ("e",) Ellipsis, ("a", k) the k-th advanced index array


def _is_basic(k) -> bool:
    return k is None or k is Ellipsis or isinstance(k, slice) or (
        isinstance(k, (int, np.integer)) and not isinstance(k, bool))


def _as_index_array(k, dim_size, dim):
    """An advanced index (tensor / list / ndarray / bool) as a NumPy or JAX int array."""
    if isinstance(k, Tensor):
        a = k._value
        dt = k.dtype
    elif isinstance(k, bool):
        a = np.asarray(k)
        dt = _dt.bool
    else:
        a = np.asarray(k)
        if a.dtype == object:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             "byte or bool tensors are valid indices")
        dt = _dt.from_np(a.dtype) if a.size else _dt.int64
        if a.size == 0:
            a = a.astype(np.int64)
    if dt.is_floating_point or dt.is_complex:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return a, dt


def _is_mask(k) -> bool:
    return (isinstance(k, Tensor) and k.dtype in (_dt.bool, _dt.uint8)) or \
        (isinstance(k, np.ndarray) and k.dtype == np.bool_) or isinstance(k, (bool, np.bool_))


def _is_int_scalar_tensor(k) -> bool:
    # PyTorch indexes with a 0-d integer tensor exactly as with a Python int (a view).
    return isinstance(k, Tensor) and k.dim() == 0 and not (
        k.dtype.is_floating_point or k.dtype.is_complex or k.dtype in (_dt.bool, _dt.uint8)) \
        and not isinstance(k._value, jax.core.Tracer)


def _normalize_key(key) -> tuple:
    if isinstance(key, list) and any(
            isinstance(k, (list, tuple, slice, Tensor, np.ndarray)) or k is None or
            k is Ellipsis for k in key):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is "
                      "deprecated; use x[tuple(seq)] instead of x[seq].", UserWarning,
                      stacklevel=4)
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    out, seen_ellipsis = [], False
    for k in key:
        if k is Ellipsis:
            if seen_ellipsis:
                continue  # PyTorch ignores every ellipsis after the first
            seen_ellipsis = True
        if _is_int_scalar_tensor(k):
            k = int(k.item())
        elif isinstance(k, (list, tuple)):
            a = np.asarray(k)
            if a.dtype == object:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and "
                                 "long or byte Variables are valid indices")
            k = a if a.size else a.astype(np.int64)
        elif isinstance(k, float) or (isinstance(k, Tensor) and k.dim() == 0 and
                                      k.dtype.is_floating_point):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             "byte Variables are valid indices (got float)")
        out.append(k)
    return tuple(out)


def _consumed(k) -> int:
    if k is None or k is Ellipsis:
        return 0
    if _is_mask(k):
        return int(np.ndim(k)) if not isinstance(k, Tensor) else k.dim()
    return 1


def parse_key(t: Tensor, key):
    """Split ``key`` into a static description and the list of advanced index arrays,
    validating every index against ``t``'s shape as PyTorch does."""
    key = _normalize_key(key)
    consumed = sum(_consumed(k) for k in key)
    if consumed > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    desc = []
    arrays = []
    dim = 0
    shape = t._shape
    for k in key:
        if k is None:
            desc.append(("n",))
        elif k is Ellipsis:
            desc.append(("e",))
            dim += t.dim() - consumed
        elif isinstance(k, slice):
            start, stop, step = (_int(k.start), _int(k.stop), _int(k.step))
            if step is not None and step <= 0:
                raise ValueError("step must be greater than zero")
            desc.append(("s", start, stop, step))
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            size = shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            desc.append(("i", int(k)))
            dim += 1
        elif _is_mask(k):
            a, _ = _as_index_array(k, 0, dim)
            mshape = tuple(np.shape(a))
            for j, ms in enumerate(mshape):
                if dim + j >= len(shape) or shape[dim + j] != ms:
                    raise IndexError(
                        f"The shape of the mask {shape_str(mshape)} at index {j} does not "
                        f"match the shape of the indexed tensor {shape_str(shape)} at index "
                        f"{dim + j}")
            if isinstance(a, jax.core.Tracer):
                from .dispatch import concretization_error
                raise concretization_error()
            h = np.asarray(a).astype(bool)
            if not mshape:
                # 0-d bool: indexes a new size-1 dimension with [0] (True) or [] (False)
                n_b0 = sum(1 for d in desc if d[0] == "b0")
                desc.append(("b0", bool(h), dim + n_b0))
                continue
            for z in np.nonzero(h):
                desc.append(("a", len(arrays)))
                arrays.append(z.astype(np.int64))
            dim += len(mshape)
        else:
            a, dt = _as_index_array(k, shape[dim] if dim < len(shape) else 0, dim)
            _check_bounds(a, shape[dim], len(arrays))
            desc.append(("a", len(arrays)))
            arrays.append(a)
            dim += 1
    return tuple(desc), arrays


def _int(v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return int(v)
    return int(v)


def _check_bounds(a, size, dim):
    if isinstance(a, jax.core.Tracer):
        return  # traced: cannot check here (compiled code clamps like JAX)
    h = np.asarray(a)
    if h.size == 0:
        return
    bad_mask = (h >= size) | (h < -size)
    if bad_mask.any():
        bad = int(h.reshape(-1)[np.argmax(bad_mask.reshape(-1))])
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _build_key(desc, arrays, ndim):
    key = []
    for d in desc:
        tag = d[0]
        if tag == "n":
            key.append(None)
        elif tag == "e":
            key.append(Ellipsis)
        elif tag == "s":
            key.append(slice(d[1], d[2], d[3]))
        elif tag == "i":
            key.append(d[1])
        elif tag == "b0":
            key.append(np.arange(1 if d[1] else 0, dtype=np.int64))
        else:
            key.append(arrays[d[1]])
    return tuple(key)


def _with_b0_axes(x, desc):
    """``x`` with the new size-1 axes that 0-d boolean indices select from."""
    for d in desc:
        if d[0] == "b0":
            x = jnp.expand_dims(x, d[2]) if not isinstance(x, jax.ShapeDtypeStruct) else \
                jax.ShapeDtypeStruct(x.shape[:d[2]] + (1,) + x.shape[d[2]:], x.dtype)
    return x


def _index_fn(input, desc, arrays):
    key = _build_key(desc, arrays, input.ndim)
    return _with_b0_axes(input, desc)[key]


register(OpSpec(
    "_index", _index_fn, "input, desc, arrays", tensor_args=("input", "arrays"),
    promote="none", method=False, function=False, grad_name="IndexBackward0",
    saves=False, samples=lambda: []))


# ---------------------------------------------------------------------------
# Note [Dynamic basic indexing]
# ``x[i]`` and ``x[i:i + b]`` in a Python loop must not compile one executable per value
# of ``i``. Keys made only of ints, slices, None and Ellipsis therefore run through
# ``_basic_index``: positions (ints, slice starts) are dynamic arguments applied with
# ``lax.dynamic_index_in_dim``/``dynamic_slice_in_dim``; only lengths, steps and the key's
# structure are static. Bounds were already checked eagerly by ``parse_key``.
def _to_basic(t: Tensor, desc) -> tuple | None:
    """(static description, dynamic positions) of a key of ints/slices/None/Ellipsis."""
    if any(d[0] in ("a", "b0") for d in desc):
        return None
    consumed = sum(1 for d in desc if d[0] in ("s", "i"))
    out, ints = [], []
    dim = 0
    for d in desc:
        tag = d[0]
        if tag == "n":
            out.append(("n",))
        elif tag == "e":
            span = t.dim() - consumed
            out.append(("e", span))
            dim += span
        elif tag == "i":
            out.append(("i",))
            ints.append(d[1] % t._shape[dim])
            dim += 1
        else:
            n = t._shape[dim]
            start, stop, step = slice(d[1], d[2], d[3]).indices(n)
            length = max(0, -(-(stop - start) // step))
            out.append(("s", length, step))
            ints.append(start)
            dim += 1
    return tuple(out), ints


def _basic_index_fn(input, desc, ints):
    x = input
    axis = 0
    it = iter(ints)
    for d in desc:
        tag = d[0]
        if tag == "n":
            x = jnp.expand_dims(x, axis)
            axis += 1
        elif tag == "e":
            axis += d[1]
        elif tag == "i":
            x = jax.lax.dynamic_index_in_dim(x, next(it), axis, keepdims=False)
        else:
            length, step = d[1], d[2]
            start = next(it)
            span = (length - 1) * step + 1 if length else 0
            x = jax.lax.dynamic_slice_in_dim(x, start, span, axis)
            if step != 1:
                x = jax_slice_static(x, axis, step)
            axis += 1
    return x


def jax_slice_static(x, axis, step):
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, step)
    return x[tuple(idx)]


def _basic_index_meta(input, desc, ints):
    shape, stride, off = list(input._shape), list(input.stride()), input._offset
    dim = 0
    it = iter(ints)
    for d in desc:
        tag = d[0]
        if tag == "n":
            shape.insert(dim, 1)
            stride.insert(dim, shape[dim + 1] * stride[dim] if dim < len(stride) else 1)
            dim += 1
        elif tag == "e":
            dim += d[1]
        elif tag == "i":
            off += next(it) * stride[dim]
            del shape[dim], stride[dim]
        else:
            length, step = d[1], d[2]
            start = next(it)
            shape, stride, off = slice_meta(shape, stride, off, dim, start,
                                            start + (length - 1) * step + 1 if length
                                            else start, step)
            dim += 1
    return shape, stride, off


def _basic_index_name(input, desc, ints):
    last = [d[0] for d in desc if d[0] != "e"]
    if not last:
        return "AliasBackward0"
    return {"i": "SelectBackward0", "s": "SliceBackward0", "n": "UnsqueezeBackward0"}[last[-1]]


register(OpSpec(
    "_basic_index", _basic_index_fn, "input, desc, ints", tensor_args=("input", "ints"),
    promote="none", method=False, function=False, view=_basic_index_meta,
    grad_name=_basic_index_name, saves=False, samples=lambda: []))


def _getitem(self: Tensor, key):
    """Mirrors ``Tensor.__getitem__``."""
    from .dispatch import call_op
    from .torch_function import _overloaded_args, handle_torch_function
    if type(self) is not Tensor:
        rel = _overloaded_args([self])
        if rel:
            return handle_torch_function(Tensor.__getitem__, rel, (self, key), {})
    if self.dim() == 0 and not (key is None or key is Ellipsis or (
            isinstance(key, tuple) and all(k is None or k is Ellipsis for k in key))) and \
            not isinstance(key, (Tensor, list, np.ndarray)):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    desc, arrays = parse_key(self, key)
    basic = _to_basic(self, desc)
    if basic is not None:
        return call_op("_basic_index", self, basic[0], basic[1])
    return call_op("_index", self, desc, arrays)


# ---------------------------------------------------------------------------
# writes
def _index_put_fn(input, desc, arrays, values, accumulate=False):
    key = _build_key(desc, arrays, input.ndim)
    shape = input.shape
    input = _with_b0_axes(input, desc)
    target_shape = jax.eval_shape(lambda x: x[key], input).shape
    v = jnp.asarray(values).astype(input.dtype)
    while v.ndim > len(target_shape) and v.shape[0] == 1:
        v = v[0]  # PyTorch drops leading singleton dims of the value
    v = jnp.broadcast_to(v, target_shape)
    out = input.at[key].add(v) if accumulate else input.at[key].set(v)
    return jnp.reshape(out, shape)


def _check_values_shape(t, desc, arrays, values):
    target = jax.eval_shape(lambda x: x[_build_key(desc, arrays, t.dim())],
                            _with_b0_axes(jax.ShapeDtypeStruct(t._shape, t.dtype.np),
                                          desc)).shape
    vs = values._shape if isinstance(values, Tensor) else ()
    if not arrays and not any(d[0] == "b0" for d in desc):
        # basic indexing writes with copy_ semantics: the value expands to the target
        from .views import _expand_shape
        trimmed = list(vs)
        while len(trimmed) > len(target) and trimmed[0] == 1:
            trimmed.pop(0)
        _expand_shape(tuple(trimmed), tuple(target))
        return
    # values may broadcast to the indexed shape (leading 1s may be dropped)
    vs_trim = list(vs)
    while len(vs_trim) > len(target) and vs_trim[0] == 1:
        vs_trim.pop(0)
    ok = len(vs_trim) <= len(target) and all(
        a == b or a == 1 for a, b in zip(reversed(vs_trim), reversed(target)))
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape_str(vs)} cannot be "
                           f"broadcast to indexing result of shape {shape_str(target)}")


def _index_put_internal_check(input, desc, arrays, values, accumulate=False):
    _check_values_shape(input, desc, arrays, values)


register(OpSpec(
    "_index_put", _index_put_fn, "input, desc, arrays, values, accumulate=False",
    tensor_args=("input", "arrays", "values"), promote="none", method=False, function=False,
    check=_index_put_internal_check, grad_name="IndexPutBackward0", saves=False,
    samples=lambda: []))


def _setitem(self: Tensor, key, value) -> None:
    """Mirrors ``Tensor.__setitem__``: writes through views reach the base."""
    from .bind import check_inplace_target, inplace_apply
    from .dispatch import call_op
    check_inplace_target(self)
    if not isinstance(value, Tensor):
        if not isinstance(value, (bool, int, float, complex, np.number)):
            raise TypeError(f"can't assign a {type(value).__name__} to a "
                            f"{_legacy(self)}")
    if isinstance(value, Tensor) and value.dtype is not self.dtype:
        value = value.to(self.dtype)
    if not isinstance(value, Tensor):
        from .creation import full
        value = full((), value, dtype=self.dtype, device=self.device)
    desc, arrays = parse_key(self, key)
    if any(d[0] == "b0" and not d[1] for d in desc):
        _check_values_shape(self, desc, arrays, value)
        return  # ``x[False] = v`` selects nothing: PyTorch writes nothing (no version bump)
    out = call_op("_index_put", self, desc, arrays, value)
    inplace_apply(self, out)


def _legacy(t):
    from .._core.tensor import _LEGACY_NAMES
    return _LEGACY_NAMES[t.dtype].replace("torchlike.", "torchlike.")


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem


# ---------------------------------------------------------------------------
# public index_put / index_put_
def _index_put_public(input, indices, values, accumulate=False):
    key = tuple(indices)
    desc, arrays = parse_key(input, key)
    from .dispatch import call_op
    return call_op("_index_put", input, desc, arrays, values, accumulate)


def _index_put_(self, indices, values, accumulate=False):
    from .bind import check_inplace_target, inplace_apply
    check_inplace_target(self)
    return inplace_apply(self, _index_put_public(self, indices, values, accumulate))


Tensor.index_put = _index_put_public
Tensor.index_put_ = _index_put_
index_put = _index_put_public

_ = (S, arr)
