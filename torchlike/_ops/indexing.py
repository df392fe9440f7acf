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
from .._core.tensor import Tensor, _host
from ._common import shape_str
from .autocast_policy import autocast_function
from .samples import S, arr
from .spec import OpSpec, register
from .torch_function import (_mode_active, _modes, _overloaded_args, _tf_state,
                             handle_torch_function)
from .views import slice_meta

__all__ = ["parse_key"]

# key components (hashable, static): ("i", int) select, ("s", start, stop, step) slice,
# ("n",) None, ("e",) Ellipsis, ("a", k) the k-th advanced index array, ("a", k, True) a
# traced 0-d integer tensor (a select, gathered), ("b0", bool, axis) a 0-d bool index


def _is_basic(k) -> bool:
    return k is None or k is Ellipsis or isinstance(k, slice) or (
        isinstance(k, (int, np.integer)) and not isinstance(k, bool))


# Note [PyTorch's indexing rules]
# PyTorch's ``applySlicing`` walks the key left to right: an int (or a 0-d integer tensor or
# array) is a ``select``, a slice a ``slice``, None an ``unsqueeze``, a 0-d bool an
# ``unsqueeze`` indexed with ``[0]`` (True) or ``[]`` (False); only the remaining tensors,
# lists and arrays are advanced indices. So unlike NumPy, an int never counts as an advanced
# index when deciding where the broadcast index dimensions go: ``x[0, :, [0, 1]]`` of a
# (2, 3, 4) tensor is (3, 2) (NumPy: (2, 3)). JAX gathers with NumPy's rule; ``_layout``
# says where each rule puts the broadcast dimensions and the results are moved to PyTorch's
# place. The checks run in PyTorch's order: selects and the dimension count while walking,
# then index dtypes, mask shapes, broadcasting, (for writes: the value's shape and dtype),
# and last the out-of-range indices.
_INDEX_ERR = "tensors used as indices must be long, int, byte or bool tensors"
_INVALID = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables " \
           "are valid indices"


def _type_name(k) -> str:
    t = type(k)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _is_mask(k) -> bool:
    return (isinstance(k, Tensor) and k.dtype in (_dt.bool, _dt.uint8)) or \
        (isinstance(k, np.ndarray) and k.dtype in (np.bool_, np.uint8)) or isinstance(k, bool)


def _is_int_scalar_tensor(k) -> bool:
    # PyTorch indexes with a 0-d integer tensor exactly as with a Python int (a select)
    return isinstance(k, Tensor) and k.dim() == 0 and not (
        k.dtype.is_floating_point or k.dtype.is_complex or k.dtype in (_dt.bool, _dt.uint8)) \
        and not isinstance(k._value, jax.core.Tracer)


def _index_array(a: np.ndarray) -> np.ndarray:
    """A list / ndarray index as PyTorch converts it: bool stays a mask, numbers become int64
    (floats truncated, as ``indexing_tensor_from_data`` does)."""
    if a.dtype == object:
        raise IndexError(_INVALID)
    if a.dtype in (np.bool_, np.uint8) or a.dtype.kind not in "iuf":
        return a  # byte arrays are (deprecated) masks, like byte tensors; others raise later
    return a.astype(np.int64) if a.dtype != np.int64 else a


def _normalize_key(key, select_scalars: bool = True) -> tuple:
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
        elif isinstance(k, (float, np.bool_, np.floating, np.complexfloating, complex)):
            raise IndexError(f"{_INVALID} (got {_type_name(k)})")
        elif select_scalars and _is_int_scalar_tensor(k):
            k = int(k.item())
        elif isinstance(k, (list, tuple)):
            a = np.asarray(k)
            k = _index_array(a if a.size else a.astype(np.int64))
        elif isinstance(k, np.ndarray):
            k = _index_array(k)
            if k.ndim == 0 and select_scalars and k.dtype == np.int64:
                k = int(k)
        out.append(k)
    return tuple(out)


def _consumed(k) -> int:
    if k is None or k is Ellipsis:
        return 0
    if _is_mask(k):
        return int(np.ndim(k)) if not isinstance(k, Tensor) else k.dim()
    return 1


class _Key:
    """A parsed key: ``desc`` (static, hashable) and ``arrays`` describe the JAX gather;
    ``entries`` are PyTorch's index tensors in order, as ``[kind, shape, array, size]`` with
    kind "index" / "mask" / "mask8" (uint8 mask tensor) / "b0" (0-d bool). ``view``: whether
    PyTorch's sliced tensor (before advanced indexing) is a view rather than ``self``."""
    __slots__ = ("desc", "arrays", "entries", "view", "pending")

    def __init__(self, desc, arrays, entries, view, pending):
        self.desc, self.arrays, self.entries = desc, arrays, entries
        self.view, self.pending = view, pending

    def check(self) -> _Key:
        """The checks PyTorch's index kernels make (deferred by ``_parse(check=False)``)."""
        if self.pending is not None:
            _check_entries(self.entries, *self.pending, self.arrays)
            self.pending = None
        return self


def _parse(t: Tensor, key, select_scalars: bool = True, check: bool = True) -> _Key:
    """Split ``key`` into a static description and the list of advanced index arrays,
    validating it as PyTorch does (out-of-range advanced indices: ``_check_index_bounds``;
    with ``check`` False the index tensors' checks wait for ``_Key.check``).
    ``select_scalars`` False keeps 0-d integer tensors advanced (``index_put``)."""
    key = _normalize_key(key, select_scalars)
    ndim = t.dim()
    consumed = sum(_consumed(k) for k in key)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    desc, arrays, entries = [], [], []
    sliced = []  # the shape of PyTorch's sliced tensor, where its index tensors apply
    masks = []
    dim = 0
    shape = t._shape
    n_b0 = 0
    partial_slice = False
    for k in key:
        if k is None:
            desc.append(("n",))
            sliced.append(1)
        elif k is Ellipsis:
            span = ndim - consumed
            desc.append(("e",))
            sliced.extend(shape[dim:dim + span])
            dim += span
        elif isinstance(k, slice):
            start, stop, step = (_int(k.start), _int(k.stop), _int(k.step))
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step is not None and step < 0:
                raise ValueError("step must be greater than zero")
            desc.append(("s", start, stop, step))
            sliced.append(len(range(*slice(start, stop, step).indices(shape[dim]))))
            # PyTorch's ``applySlice`` returns ``self`` for a literal 0:length:1 (stop
            # clamped to the length, negative bounds not normalized)
            partial_slice = partial_slice or start not in (None, 0) or step not in (None, 1) \
                or (stop is not None and stop < shape[dim])
            dim += 1
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            size = shape[dim]
            if not -size <= k < size:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            desc.append(("i", int(k)))
            dim += 1
        elif _is_mask(k):
            a = k._value if isinstance(k, Tensor) else np.asarray(k)
            mshape = tuple(np.shape(a))
            if not mshape:
                # 0-d bool: indexes a new size-1 dimension with [0] (True) or [] (False)
                if isinstance(a, jax.core.Tracer):
                    from .._core.traced import concretization_error
                    raise concretization_error()
                h = bool(np.asarray(a))
                desc.append(("b0", h, dim + n_b0))
                n_b0 += 1
                entries.append(["b0", (1 if h else 0,), None, 1])
                sliced.append(1)
                continue
            kind = "mask8" if (k.dtype is _dt.uint8 if isinstance(k, Tensor) else
                               a.dtype == np.uint8) else "mask"
            entry = [kind, mshape, a, len(sliced)]
            entries.append(entry)
            masks.append((entry, len(arrays)))
            for _ in mshape:
                desc.append(("a", len(arrays)))
                arrays.append(None)  # filled with the mask's nonzero indices below
            sliced.extend(shape[dim:dim + len(mshape)])
            dim += len(mshape)
        else:
            if isinstance(k, Tensor):
                a, dt = k._value, k.dtype
            else:
                a = np.asarray(k)
                if a.dtype.kind not in "biufc":
                    raise IndexError(_INVALID)
                dt = _dt.from_np(a.dtype)
            if select_scalars and isinstance(k, Tensor) and k.dim() == 0 and \
                    not (dt.is_floating_point or dt.is_complex):
                # a traced 0-d integer tensor: still a select (gathered, see _layout)
                desc.append(("a", len(arrays), True))
            else:
                entries.append(["index", tuple(np.shape(a)), a, shape[dim], dt])
                desc.append(("a", len(arrays)))
                sliced.append(shape[dim])
            arrays.append(a)
            dim += 1
    view = any(d[0] in ("i", "n", "b0") or (d[0] == "a" and len(d) > 2) for d in desc) \
        or partial_slice
    k = _Key(tuple(desc), arrays, entries, view,
             (masks, sliced + list(shape[dim:])) if entries else None)
    return k.check() if check else k


def _check_entries(entries, masks, sliced, arrays):
    """PyTorch's ``make_info``: index dtypes, then mask shapes, then broadcasting."""
    for e in entries:
        if e[0] == "index" and e[4] not in (_dt.int64, _dt.int32):
            raise IndexError(_INDEX_ERR)
    for entry, first in masks:
        _, mshape, a, pos = entry
        for j, ms in enumerate(mshape):
            if sliced[pos + j] != ms:
                raise IndexError(
                    f"The shape of the mask {shape_str(mshape)} at index {j} does not match "
                    f"the shape of the indexed tensor {shape_str(sliced)} at index {pos + j}")
        if entry[0] == "mask8":
            warnings.warn("indexing with dtype torchlike.uint8 is now deprecated, please use a "
                          "dtype torchlike.bool instead.", UserWarning, stacklevel=5)
        if isinstance(a, jax.core.Tracer):
            from .._core.traced import concretization_error
            raise concretization_error()
        for j, z in enumerate(np.nonzero(np.asarray(a).astype(bool))):
            arrays[first + j] = z.astype(np.int64)
        entry[1] = (len(arrays[first]),) * len(mshape)
    shapes = []
    for e in entries:
        shapes.extend([e[1][:1]] * len(e[1]) if e[0].startswith("mask") else [e[1]])
    if len(shapes) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(shape_str(s) for s in shapes)) from None


def _check_index_bounds(t: Tensor, k: _Key) -> None:
    """PyTorch's index kernel: the first out-of-range index, walking the broadcast index
    elements in order and the index tensors (numbered after expansion) within each."""
    checks, pos = [], 0
    for e in k.entries:
        if e[0] == "index" and not isinstance(e[2], jax.core.Tracer) and int(np.prod(e[1])):
            checks.append((_host(e[2]), e[3], pos))
        pos += len(e[1]) if e[0].startswith("mask") else 1
    if not checks:
        return
    if any(((h >= size) | (h < -size)).any() for h, size, _ in checks):
        target = _layout(t._shape, k.desc, k.arrays)[0]
        if 0 in target:
            return  # PyTorch's kernel never runs on an empty result
        b = np.broadcast_shapes(*(h.shape for h, _, _ in checks))
        hs = [np.broadcast_to(h, b).reshape(-1) for h, _, _ in checks]
        bad = np.stack([(h >= size) | (h < -size) for h, (_, size, _) in zip(hs, checks)], -1)
        elem, j = divmod(int(np.argmax(bad.reshape(-1))), len(checks))
        raise IndexError(f"index {int(hs[j][elem])} is out of bounds for dimension "
                         f"{checks[j][2]} with size {checks[j][1]}")


def parse_key(t: Tensor, key):
    """Split ``key`` into a static description and the list of advanced index arrays,
    validating every index against ``t``'s shape as PyTorch does."""
    k = _parse(t, key)
    _check_index_bounds(t, k)
    return k.desc, k.arrays


def _int(v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return int(v)
    return int(v)


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


def _layout(shape, desc, arrays):
    """(PyTorch's result shape, where PyTorch puts the broadcast index dimensions, where
    JAX's NumPy rule puts them, how many there are) for indexing a ``shape`` tensor."""
    consumed = sum(1 for d in desc if d[0] in ("s", "i", "a"))
    span = len(shape) - consumed
    rest, adv = [], []
    pt = pj = None
    t_run = j_run = 0  # 0: no advanced index yet, 1: inside the first run, 2: after it
    t_split = j_split = False
    dim = 0
    for d in desc:
        tag = d[0]
        select = tag == "i" or (tag == "a" and len(d) > 2)
        # NumPy/JAX: ints and arrays are advanced; anything else (even an empty
        # ellipsis) separates them
        if tag in ("i", "a", "b0"):
            if j_run == 0:
                pj, j_run = len(rest), 1
            elif j_run == 2:
                j_split = True
        elif j_run == 1:
            j_run = 2
        # PyTorch: selects are gone before advanced indexing; an empty ellipsis adds no dim
        if tag in ("a", "b0") and not select:
            if t_run == 0:
                pt, t_run = len(rest), 1
            elif t_run == 2:
                t_split = True
        elif t_run == 1 and not select and not (tag == "e" and span == 0):
            t_run = 2
        if tag == "n":
            rest.append(1)
        elif tag == "e":
            rest.extend(shape[dim:dim + span])
            dim += span
        elif tag == "s":
            rest.append(len(range(*slice(d[1], d[2], d[3]).indices(shape[dim]))))
            dim += 1
        elif tag == "i":
            dim += 1
        elif tag == "a":
            adv.append(tuple(np.shape(arrays[d[1]])))
            dim += 1
        else:
            adv.append((1 if d[1] else 0,))
    rest.extend(shape[dim:])
    b = np.broadcast_shapes(*adv) if adv else ()
    pt = 0 if pt is None or t_split else pt
    pj = 0 if pj is None or j_split else pj
    return tuple(rest[:pt]) + tuple(b) + tuple(rest[pt:]), pt, pj, len(b)


def _with_b0_axes(x, desc):
    """``x`` with the new size-1 axes that 0-d boolean indices select from."""
    for d in desc:
        if d[0] == "b0":
            x = jnp.expand_dims(x, d[2]) if not isinstance(x, jax.ShapeDtypeStruct) else \
                jax.ShapeDtypeStruct(x.shape[:d[2]] + (1,) + x.shape[d[2]:], x.dtype)
    return x


def _moved(x, src: int, dst: int, n: int):
    if n == 0 or src == dst:
        return x
    return jnp.moveaxis(x, tuple(range(src, src + n)), tuple(range(dst, dst + n)))


def _index_fn(input, desc, arrays):
    key = _build_key(desc, arrays, input.ndim)
    _, pt, pj, nb = _layout(input.shape, desc, arrays)
    return _moved(_with_b0_axes(input, desc)[key], pj, pt, nb)


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
    if (type(self) is not Tensor or _modes.on) and not _tf_state.disabled_all:
        rel = _overloaded_args([self])
        if rel or _mode_active():
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
    target, pt, pj, nb = _layout(shape, desc, arrays)
    input = _with_b0_axes(input, desc)
    v = jnp.asarray(values).astype(input.dtype)
    while v.ndim > len(target) and v.shape[0] == 1:
        v = v[0]  # PyTorch drops leading singleton dims of the value
    v = _moved(jnp.broadcast_to(v, target), pt, pj, nb)  # into JAX's (NumPy's) layout
    out = input.at[key].add(v) if accumulate else input.at[key].set(v)
    return jnp.reshape(out, shape)


def _check_values_shape(t, desc, arrays, values, copy=None):
    """``values`` must broadcast to the indexing result; ``copy`` (default: the key has no
    advanced index) words the error as ``copy_``'s expand does."""
    target = _layout(t._shape, desc, arrays)[0]
    vs = values._shape if isinstance(values, Tensor) else ()
    if copy is None:
        copy = not any(d[0] in ("a", "b0") for d in desc)
    if copy:
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


def _check_put(self: Tensor, k: _Key, value: Tensor, accumulate: bool) -> Tensor:
    """PyTorch's ``index_put_`` checks, in its order; returns the value to write.
    A single bool mask with a one-element value takes ``masked_fill_`` (any value dtype);
    otherwise the value's shape, then its dtype (no casting), then the indices' range."""
    entries = k.entries
    if not accumulate and len(entries) == 1 and entries[0][0].startswith("mask") and \
            int(np.prod(value._shape)) == 1:
        if entries[0][0] == "mask8":
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                               "dtype unsigned char")
        return value if value.dtype is self.dtype else value.to(self.dtype)
    _check_values_shape(self, k.desc, k.arrays, value, copy=False)
    if value.dtype is not self.dtype:
        from .bind import dtype_short_name
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{dtype_short_name(self.dtype)} for the destination and "
                           f"{dtype_short_name(value.dtype)} for the source.")
    _check_index_bounds(self, k)
    return value


def _setitem(self: Tensor, key, value) -> None:
    """Mirrors ``Tensor.__setitem__``: writes through views reach the base. Basic keys
    (and a bare ``True``) copy the value in with ``copy_`` (any dtype); keys with advanced
    indices go through ``index_put_`` (Note [PyTorch's indexing rules])."""
    from .bind import check_inplace_target, inplace_apply
    from .dispatch import call_op
    if (type(self) is not Tensor or type(value) is not Tensor and isinstance(value, Tensor)
            or _modes.on) and not _tf_state.disabled_all:
        rel = _overloaded_args([self, value])
        if rel or _mode_active():
            handle_torch_function(Tensor.__setitem__, rel, (self, key, value), {})
            return
    if not isinstance(value, Tensor):
        if not isinstance(value, (bool, int, float, complex, np.number)):
            raise TypeError(f"can't assign a {type(value).__name__} to a "
                            f"{_legacy(self)}")
    if key is False:
        return  # PyTorch returns before any other check: nothing written, no version bump
    k = _parse(self, key, check=False)
    try:
        check_inplace_target(self)
    except RuntimeError as e:
        if k.view and str(e).startswith("a leaf Variable"):
            # PyTorch writes into its sliced tensor: a view of the leaf
            raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                               "in an in-place operation.") from None
        raise
    k.check()
    if not isinstance(value, Tensor):
        from .creation import full
        value = full((), value, dtype=self.dtype, device=self.device)
    if key is True or not k.entries:
        _check_values_shape(self, k.desc, k.arrays, value, copy=True)
        if value.dtype is not self.dtype:
            value = value.to(self.dtype)
    else:
        value = _check_put(self, k, value, False)
    out = call_op("_index_put", self, k.desc, k.arrays, value)
    inplace_apply(self, out)


def _legacy(t):
    from .._core.tensor import _LEGACY_NAMES
    return _LEGACY_NAMES[t.dtype].replace("torchlike.", "torchlike.")


_getitem.__name__, _getitem.__qualname__ = "__getitem__", "Tensor.__getitem__"
_setitem.__name__, _setitem.__qualname__ = "__setitem__", "Tensor.__setitem__"
Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem


# ---------------------------------------------------------------------------
# public index_put / index_put_
def _index_put_public(input, indices, values, accumulate=False):
    k = _parse(input, tuple(indices), select_scalars=False)
    if isinstance(values, Tensor):
        values = _check_put(input, k, values, accumulate)
    else:
        _check_index_bounds(input, k)
    from .dispatch import call_op
    return call_op("_index_put", input, k.desc, k.arrays, values, accumulate)


def _index_put_(self, indices, values, accumulate=False):
    from .bind import check_inplace_target, inplace_apply
    check_inplace_target(self)
    return inplace_apply(self, _index_put_public(self, indices, values, accumulate))


index_put = autocast_function("index_put")(_index_put_public)   # Note [Autocast]
Tensor.index_put = index_put
Tensor.index_put_ = _index_put_

_ = (S, arr)
