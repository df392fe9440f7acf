"""Set membership, products and integration: ``isin``, ``cartesian_prod``,
``combinations``, ``block_diag``, ``vander``, ``trapezoid`` (and ``trapz``),
``cumulative_trapezoid`` and ``unravel_index``. Each is declared once; see spec.py.

PyTorch builds most of these from other ops (``meshgrid`` + ``stack``, ``cumprod`` +
``flip``, ``sum`` + ``mul``...), so its result's ``grad_fn`` is the node of the last of
those ops (``StackBackward0``, ``FlipBackward0``, ``MulBackward1``...). Here each is one
op whose node carries that name, and the values follow PyTorch's formulas step by step,
dtype by dtype (an integer sum accumulates in int64, a Python scalar multiplies a half
tensor in float32).

# Note [Results PyTorch builds from scratch]
# Some calls give a result that PyTorch makes with a factory instead of from the input
# (``combinations(x, r=0)``, ``vander(x, N=1)``, ``trapezoid`` over an empty dim): it
# never requires grad. The binders of those ops hand the op a detached input in exactly
# those cases, so the result is not part of the graph either.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from ._common import broadcast_shapes_or_raise, int_arg, shape_str
from .bind import FUNCTIONS
from .reduction_common import _overloaded, _short
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["unravel_index"]

_MISSING = object()
_NUMBER = (bool, int, float, complex, np.number, np.bool_)


def _no_grad(t):
    """``t`` detached when it requires grad (Note [Results PyTorch builds from scratch])."""
    if type(t) is Tensor and t._requires_grad:
        return t.detach()
    return t


def _as_bool(fname: str, name: str, v) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{fname}(): argument '{name}' must be bool, not {type(v).__name__}")
    return bool(v)


def _invalid_args(fname: str, args: tuple, kwargs: dict, expected: tuple) -> TypeError:
    """PyTorch's error for a call that matches none of an op's overloads."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}"
                                              for k, v in kwargs.items()]
    lines = "\n".join(f" * ({e})" for e in expected)
    return TypeError(f"{fname}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:\n{lines}\n")


def _tensor_list_check(tensors) -> None:
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")


def _reduced(dt) -> bool:
    return dt in (jnp.float16, jnp.bfloat16)


def _scale(a, c: float, op=operator.mul):
    """``a * c`` (or another ``op``) for a Python scalar ``c`` as PyTorch computes it: in
    ``a``'s dtype, except that half-precision tensors compute in float32 with the
    scalar unrounded, and round once."""
    if _reduced(a.dtype):
        return op(a.astype(jnp.float32), jnp.float32(c)).astype(a.dtype)
    if jnp.issubdtype(a.dtype, jnp.complexfloating):
        return op(a, jnp.asarray(c, a.real.dtype))
    return op(a, jnp.asarray(c, a.dtype))


def _float_of(np_dtype, default_float: str):
    """The dtype of ``t * 0.5`` for a tensor of ``np_dtype``: itself when floating or
    complex, else the default float dtype."""
    if jnp.issubdtype(np_dtype, jnp.inexact):
        return np_dtype
    return _dt._BY_NAME[default_float].np


def _sum_dtype(np_dtype):
    """PyTorch's ``sum`` accumulates integers and bools in int64."""
    return np_dtype if jnp.issubdtype(np_dtype, jnp.inexact) else jnp.int64


def _slice(a, dim: int, start: int, stop: int | None):
    """``a.slice(dim, start, stop)`` with PyTorch's clamping (``stop=-1``: all but last)."""
    n = a.shape[dim]
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    start, stop = min(start, n), max(min(stop, n), min(start, n))
    return lax.slice_in_dim(a, start, stop, axis=dim)


# ---------------------------------------------------------------------------
# isin
# Note [isin's two algorithms]
# PyTorch compares each element with every test element when there are few test
# elements (fewer than ``10 * numel(elements) ** 0.145``, NumPy's heuristic), and
# otherwise sorts elements and test elements together. The two promote differently: the
# first uses ``result_type`` (a 0-d tensor or Python scalar ``elements`` adopts the test
# elements' dtype), the second concatenates flattened copies (plain ``promote_types``).
# With ``assume_unique=True`` the sorting algorithm also gives a different answer when
# the inputs do have duplicates. The binder works out which one PyTorch runs, and with
# which dtype, so both are reproduced.
def _isin_kind(v):
    """(dtype, ndim, is a Python scalar, numel) of an ``isin`` argument, or None."""
    if isinstance(v, Tensor):
        return v.dtype, v.dim(), False, v.numel()
    if isinstance(v, _NUMBER):
        return _dt.scalar_dtype(v), 0, True, 1
    return None


def _isin_plan(elements, test_elements):
    """(name of the dtype compared in, "eq" | "each" | "sort") as PyTorch runs it."""
    e, t = _isin_kind(elements), _isin_kind(test_elements)
    if e is None or t is None or (e[2] and t[2]):
        return None
    if t[2]:   # isin(Tensor, Scalar) is eq / ne
        return _dt.result_type_of([e[:3], t[:3]]).name, "eq"
    n, m = e[3], t[3]
    if m >= int(10.0 * math.pow(n, 0.145)):
        return _dt.promote_types(e[0], t[0]).name, "sort"
    return _dt.result_type_of([e[:3], t[:3]]).name, "each"


def _isin_binder(elements, test_elements, *, assume_unique=False, invert=False):
    return (elements, test_elements, assume_unique, invert,
            _isin_plan(elements, test_elements))


def _isin_check(elements, test_elements, assume_unique, invert, plan):
    e, t = _isin_kind(elements), _isin_kind(test_elements)
    if e is None or t is None or (e[2] and t[2]):
        raise _invalid_args("isin", (elements, test_elements), {}, (
            "Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False",
            "Number element, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False",
            "Tensor elements, Number test_element, *, bool assume_unique = False, "
            "bool invert = False"))
    _as_bool("isin", "assume_unique", assume_unique)
    _as_bool("isin", "invert", invert)
    for dt in (e[0], t[0]):
        if dt is _dt.bool or dt.is_complex:
            raise RuntimeError(f"Unsupported input type encountered for isin(): {_short(dt)}")


def _isin_fn(elements, test_elements, assume_unique=False, invert=False, plan=None):
    name, how = plan
    dt = _dt._BY_NAME[name].np
    e = jnp.asarray(elements).astype(dt)
    t = jnp.asarray(test_elements).astype(dt)
    if how == "eq":
        return e != t if invert else e == t
    if e.size == 0 or t.size == 0:
        return jnp.full(e.shape, invert, bool)
    t = t.reshape(-1)
    if how == "each":
        found = jnp.any(e[..., None] == t, axis=-1)
    elif not assume_unique:
        ts = jnp.sort(t)
        pos = jnp.clip(jnp.searchsorted(ts, e.reshape(-1)), 0, ts.size - 1)
        found = (ts[pos] == e.reshape(-1)).reshape(e.shape)
    else:
        # PyTorch's isin_sorting: stable-sort elements and test elements together; an
        # element is found when the value after it is equal (Note [isin's two algorithms])
        both = jnp.concatenate([e.reshape(-1), t])
        order = jnp.argsort(both, stable=True)
        s = both[order]
        same = (s[1:] != s[:-1]) if invert else (s[1:] == s[:-1])
        mask = jnp.concatenate([same, jnp.full((1,), invert)])
        mask = jnp.zeros_like(mask).at[order].set(mask)
        return mask[:e.size].reshape(e.shape)
    return found != invert


_overloaded(OpSpec(
    "isin", _isin_fn, "elements, test_elements, assume_unique=False, invert=False, "
    "plan=None", tensor_args=("elements", "test_elements"), promote="none", method=False,
    differentiable=False, check=_isin_check,
    doc="Mirrors ``torch.isin(elements, test_elements, *, assume_unique=False, "
        "invert=False)``: either argument may be a Python number. Both of PyTorch's "
        "algorithms are reproduced with their dtype promotion, including the result "
        "``assume_unique=True`` gives for inputs that have duplicates (Note [isin's two "
        "algorithms]). Bool and complex inputs raise, as in PyTorch.",
    samples=lambda: _isin_samples()), _isin_binder)


def _isin_samples():
    i64, f32, f64 = np.int64, np.float32, np.float64
    dup = np.array([[1, 1, 2], [3, 4, 4]], i64)
    many = np.array([1, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], i64)
    nan = np.array([np.nan, 0.0, -0.0, 1.5], f32)
    return [
        S(arr(3, 4, dtype="int64"), arr(5, dtype="int64")),
        S(arr(3, 4, dtype="int64"), arr(5, dtype="int64"), invert=True),
        S(arr(2, 3, dtype="int32"), arr(2, 2, dtype="int64")),
        S(arr(6, dtype="int64"), arr(40, dtype="int64")),
        S(arr(6, dtype="int64"), arr(40, dtype="int64"), invert=True),
        S(dup, many, assume_unique=True), S(dup, many, assume_unique=True, invert=True),
        S(dup, many), S(dup, np.array([1, 1, 4], i64), assume_unique=True),
        S(nan, np.array([np.nan, 0.0], f32)), S(nan, np.full(12, 0.0, f32)),
        S(nan, np.array([np.nan, 0.0] * 6, f32), assume_unique=True),
        S(np.array([1.5, 2.0, 3.0], f32), np.array([2.0, 1.5], f64)),
        S(np.array(0.1, f64), np.full(3, 0.1, f32)),
        S(np.array(0.1, f64), np.full(12, 0.1, f32)),
        S(2, np.array([2, 5], i64)), S(2.5, np.array([2, 3], i64)), S(0.1, np.full(12, 0.1, f32)),
        S(258, np.full(3, 2, np.uint8)), S(258, np.full(12, 2, np.uint8)),
        S(np.array([1, 2, 3], i64), 2), S(np.array([1.0, 2.5], f32), 2.5),
        S(np.array([255, 2], np.uint8), -1), S(arr(0, 3), arr(4)), S(arr(4), arr(0)),
        S(arr(), arr(5)), S(arr(3, dtype="float16"), arr(4, dtype="float16")),
        S(arr(3, dtype="bfloat16"), arr(12, dtype="bfloat16")),
        S(arr(3, dtype="bool"), arr(2, dtype="bool")),
        S(arr(3, dtype="complex64"), arr(2)), S(arr(3), arr(2, dtype="complex64")),
        S(np.array([1, 2], i64), True), S(2, 3)]


# ---------------------------------------------------------------------------
# cartesian_prod
def _cartesian_binder(*tensors):
    return (tensors[0] if tensors else None, tuple(tensors[1:]))


def _cartesian_check(input, others):
    ts = ([input] if input is not None else []) + list(others)
    _tensor_list_check(ts)
    for t in ts:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(t._shape)}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if len({t.dtype for t in ts}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if len({t.device for t in ts}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same device")


def _cartesian_fn(input, others):
    if not others:
        return input
    grids = jnp.meshgrid(input, *others, indexing="ij")
    return jnp.stack([g.reshape(-1) for g in grids], axis=1)


def _cartesian_view(input, others):
    # PyTorch returns a single input itself; here it is a view of it
    if not others:
        return input._shape, input.stride(), input._offset
    return None


_overloaded(OpSpec(
    "cartesian_prod", _cartesian_fn, "input, others", tensor_args=("input", "others"),
    promote="none", method=False, check=_cartesian_check, view=_cartesian_view,
    saves=False,
    grad_name=lambda input, others: "StackBackward0" if others else "AliasBackward0",
    doc="Mirrors ``torch.cartesian_prod(*tensors)``: the rows of the cartesian product of "
        "1-D tensors of one dtype. Difference: for a single tensor PyTorch returns that "
        "tensor object itself; here the result is a view of it (same data, writes go "
        "through both ways) whose ``grad_fn`` is ``AliasBackward0``.",
    samples=lambda: [
        S(arr(3), arr(2)), S(arr(3), arr(2), arr(4)), S(arr(3)), S(arr(0), arr(3)),
        S(arr(2, dtype="float64"), arr(3, dtype="float64"), arr(1, dtype="float64")),
        S(arr(3, dtype="int64"), arr(2, dtype="int64")),
        S(arr(2, dtype="bool"), arr(2, dtype="bool")), S(arr(3), arr(2, dtype="float64")),
        S(arr(3), arr()), S(arr()), S(arr(2, 2)), S()]), _cartesian_binder)


# ---------------------------------------------------------------------------
# combinations
def _combinations_binder(input, r=2, with_replacement=False):
    if isinstance(r, int) and r == 0:
        input = _no_grad(input)
    return (input, r, with_replacement)


def _combinations_check(input, r=2, with_replacement=False):
    int_arg("combinations", "r", 2, r)
    _as_bool("combinations", "with_replacement", with_replacement)
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(input._shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")


def _combinations_fn(input, r=2, with_replacement=False):
    if r == 0:
        return jnp.zeros((0,), input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    idx = np.fromiter(itertools.chain.from_iterable(pick(range(input.shape[0]), r)),
                      np.int64).reshape(-1, r)
    return input[idx]


_overloaded(OpSpec(
    "combinations", _combinations_fn, "input, r=2, with_replacement=False", promote="none",
    method=False, check=_combinations_check, saves=False, grad_name="StackBackward0",
    doc="Mirrors ``torch.combinations``: the length-``r`` combinations of a 1-D tensor's "
        "elements, in lexicographic order of positions (as ``itertools``); ``r=0`` gives "
        "an empty 1-D tensor that does not require grad.",
    samples=lambda: [
        S(arr(4)), S(arr(4), 3), S(arr(4), r=1), S(arr(3), 2, True),
        S(arr(3), r=3, with_replacement=True), S(arr(0)), S(arr(3), 0), S(arr(3), 5),
        S(arr(5, dtype="int64")), S(arr(3, dtype="bool"), 2, True),
        S(arr(4, dtype="float64"), 2), S(arr(2, 2)), S(arr()), S(arr(3), -1),
        S(arr(3), 2.0)]), _combinations_binder)


# ---------------------------------------------------------------------------
# block_diag
def _block_diag_binder(*tensors):
    # with no tensors PyTorch returns an empty (1, 0) tensor of the default dtype
    return (tuple(tensors), None if tensors else _dt.get_default_dtype().name)


def _block_diag_check(tensors, empty_dtype=None):
    _tensor_list_check(tensors)
    for i, t in enumerate(tensors):
        if t.device != tensors[0].device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same "
                               f"device. Input 0 is on device {tensors[0].device} and input "
                               f"{i} is on device {t.device}")
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")


def _block_diag_fn(tensors, empty_dtype=None):
    if not tensors:
        return jnp.zeros((1, 0), _dt._BY_NAME[empty_dtype].np)
    blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    out = jnp.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)),
                    blocks[0].dtype)
    r = c = 0
    for b in blocks:
        out = lax.dynamic_update_slice(out, b, (r, c))
        r, c = r + b.shape[0], c + b.shape[1]
    return out


_overloaded(OpSpec(
    "block_diag", _block_diag_fn, "tensors, empty_dtype=None", tensor_args=("tensors",),
    method=False, check=_block_diag_check, saves=False, grad_name="BlockDiagBackward0",
    doc="Mirrors ``torch.block_diag(*tensors)``: 0-d tensors are 1x1 blocks, 1-D tensors "
        "1xN rows; the dtype is PyTorch's ``result_type`` of all inputs.",
    samples=lambda: [
        S(arr(2, 2), arr(3)), S(arr(), arr(2, 3), arr(4)),
        S(arr(2, 2), arr(1, 3, dtype="float64")), S(arr(2, dtype="int64"), arr(2, 2)),
        S(arr(dtype="int64"), arr(dtype="float64")), S(arr(1, dtype="int64"),
                                                       arr(dtype="float64")),
        S(arr(2), arr(dtype="float64")),
        S(arr(2, 2, dtype="int32"), arr(3, dtype="int64")),
        S(arr(2, dtype="bool"), arr(1, 2, dtype="bool")), S(arr(3, dtype="complex64"),
                                                            arr(2, dtype="int64"),
                                                            grad=False),
        S(arr(0, 2), arr(2, 0), arr(0)), S(arr(3, 2)), S(), S(arr(2, 2, 2)),
        S(arr(2), arr(2, 1, 1))]), _block_diag_binder)


# ---------------------------------------------------------------------------
# vander
def _vander_binder(x, N=None, increasing=False):
    if isinstance(x, Tensor) and x.dim() == 1:
        n = x.shape[0] if N is None else N
        if isinstance(n, int) and n <= 1:
            x = _no_grad(x)
    return (x, N, increasing)


def _vander_check(x, N=None, increasing=False):
    if N is not None:
        int_arg("vander", "N", 2, N)
    _as_bool("vander", "increasing", increasing)
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")


def _vander_fn(x, N=None, increasing=False):
    m = x.shape[0]
    n = m if N is None else N
    # an integer or bool x gives int64, as PyTorch's cumprod promotes them
    dt = _dt.promote_types(_dt.from_np(x.dtype), _dt.int64).np
    out = jnp.ones((m, n), dt)
    if n > 1:
        powers = jnp.cumprod(jnp.broadcast_to(x.astype(dt)[:, None], (m, n - 1)), axis=1)
        out = jnp.concatenate([out[:, :1], powers], axis=1)
    return out if increasing else jnp.flip(out, axis=1)


_overloaded(OpSpec(
    "vander", _vander_fn, "x, N=None, increasing=False", tensor_args=("x",),
    promote="none", method=False, check=_vander_check,
    grad_name=lambda x, N=None, increasing=False: "CopySlices" if increasing
    else "FlipBackward0",
    doc="Mirrors ``torch.vander``: columns ``x ** (N-1), ..., x, 1`` (reversed when "
        "``increasing``), as PyTorch's running product; integer and bool inputs give "
        "int64. With ``N <= 1`` the result does not require grad, as in PyTorch. "
        "Difference: PyTorch 2.13's backward of a result with ``N > 1`` raises (its "
        "``cumprod`` saves a tensor that a later ``copy_`` modifies); here it gives the "
        "gradient.",
    samples=lambda: _vander_samples()), _vander_binder)


def _vander_samples():
    # PyTorch's backward raises for these (see the doc above): values only
    out = [S(arr(4)), S(arr(4), 3), S(arr(4), 2, True), S(arr(3), increasing=True),
           S(arr(0), 3), S(arr(5, dtype="float64"), 6, True),
           S(arr(3, dtype="complex64")), S(arr(3, dtype="float16"))]
    for smp in out:
        smp.grad = False
    return out + [
        S(arr(3), N=0), S(arr(3), N=1), S(arr(3), N=1, increasing=True), S(arr(0)),
        S(arr(4, dtype="int64")), S(arr(3, dtype="int8"), 4), S(arr(3, dtype="uint8")),
        S(arr(3, dtype="bool")), S(arr(3), -1), S(arr(2, 2)), S(arr()), S(arr(3), 2.0)]


# ----------------------------------------------------------------------
# trapezoid / trapz / cumulative_trapezoid
# Note [trapezoid's overloads]
# PyTorch has ``f(y, x, *, dim=-1)`` and ``f(y, *, dx=1, dim=-1)`` (``dx`` a Number, for
# ``trapz`` a float); ``x=None`` or ``dx=None`` match neither. The binders map a call on
# the op's ``(y, x, dx, dim, default_float)``: ``x`` None for the ``dx`` overload, and the
# default dtype (the result dtype of integer inputs) as a static value.
_TRAPZ_OVERLOADS = {
    "trapezoid": ("Tensor y, Tensor x, *, int dim = -1",
                  "Tensor y, *, Number dx = 1, int dim = -1"),
    "trapz": ("Tensor y, *, float dx = 1, int dim = -1",
              "Tensor y, Tensor x, *, int dim = -1"),
    "cumulative_trapezoid": ("Tensor y, Tensor x, *, int dim = -1",
                             "Tensor y, *, Number dx = 1, int dim = -1"),
}


def _trapz_binder(name: str):
    def bind(y, x=_MISSING, *, dx=_MISSING, dim=-1):
        args = (y,) + (() if x is _MISSING else (x,))
        kwargs = {k: v for k, v in (("dx", dx), ("dim", dim)) if v is not _MISSING}

        def bad():
            return _invalid_args(name, args, kwargs, _TRAPZ_OVERLOADS[name])
        if (x is not _MISSING and dx is not _MISSING) or x is None or dx is None:
            raise bad()
        if x is not _MISSING and not isinstance(x, Tensor):
            raise bad()
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise bad()
        if dx is _MISSING:
            dx = 1
        elif isinstance(dx, Tensor) and dx.dim() == 0:
            dx = dx.item()
        if name == "trapz" and isinstance(dx, (complex, np.complexfloating)) or \
                not isinstance(dx, _NUMBER):
            raise bad()
        if name == "trapz":
            dx = float(dx)
        elif isinstance(dx, int) and not -2 ** 63 <= dx < 2 ** 63:
            raise OverflowError("int too big to convert")
        x = None if x is _MISSING else x
        if name != "cumulative_trapezoid" and isinstance(y, Tensor) and y.dim() and \
                -y.dim() <= dim < y.dim() and y.shape[dim] == 0:
            y, x = _no_grad(y), _no_grad(x)   # zeros made from scratch
        return (y, x, None if x is not None else dx, int(dim),
                _dt.get_default_dtype().name)
    bind.__name__ = bind.__qualname__ = name
    return bind


def _no_dims(dim) -> IndexError:
    return IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


def _x_view(y_ndim: int, x_shape: tuple, d: int) -> tuple:
    """The shape PyTorch views ``x`` as, so that its differences broadcast with ``y``'s
    (a 1-D ``x`` lies along ``dim``; a shorter one gets leading ones)."""
    if len(x_shape) == 1:
        shape = [1] * y_ndim
        shape[d] = x_shape[0]
        return tuple(shape)
    return (1,) * (y_ndim - len(x_shape)) + tuple(x_shape)


def _sliced(shape: tuple, d: int) -> tuple:
    return shape[:d] + (max(shape[d] - 1, 0),) + shape[d + 1:]


def _trapz_check(name: str):
    cumulative = name == "cumulative_trapezoid"

    def check(y, x, dx, dim, default_float):
        if not isinstance(y, Tensor):
            raise _invalid_args(name, (y,), {}, _TRAPZ_OVERLOADS[name])
        if x is None:       # the dx overload
            if cumulative:
                if y.dtype is _dt.bool:
                    raise RuntimeError(f"{name}: received a bool input for `y`, but bool "
                                       f"is not supported")
            else:
                if y.dim() == 0:
                    raise _no_dims(dim)
                d = wrap_dim(dim, y.dim())
                if y.shape[d] == 0:
                    return
                if y.dtype is _dt.bool:
                    raise RuntimeError(f"{name}: received a bool input for `y`, but bool "
                                       f"is not supported")
            if isinstance(dx, (bool, complex, np.bool_, np.complexfloating)):
                raise RuntimeError(f"{name}: Currently, we only support dx as a real "
                                   f"number.")
            if cumulative:
                if y.dim() == 0:
                    raise IndexError("slice() cannot be applied to a 0-dim tensor.")
                wrap_dim(dim, y.dim())
            return
        d = wrap_dim(dim, y.dim())
        if not cumulative:
            if y.dim() == 0:
                raise _no_dims(d)
            if y.shape[d] == 0:
                return
        if y.dtype is _dt.bool or x.dtype is _dt.bool:
            raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is "
                               f"not supported")
        if x.dim() == 1:
            if y.dim() == 0:
                raise _no_dims(d)
            if x.shape[0] != y.shape[d]:
                raise RuntimeError(f"{name}: There must be one `x` value for each sample "
                                   f"point")
        if y.dim() == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        xs = _x_view(y.dim(), tuple(x._shape), d)
        broadcast_shapes_or_raise(_sliced(tuple(y._shape), d), _sliced(xs, d))
    return check


def _trapz_terms(y, x, d: int):
    """``(left + right) * dx`` of PyTorch's trapezoid rule for sample points ``x``, in
    the promoted dtype of ``y`` and ``x``."""
    xs = x.reshape(_x_view(y.ndim, x.shape, d))
    dxs = _slice(xs, d, 1, None) - _slice(xs, d, 0, -1)
    pair = _slice(y, d, 0, -1) + _slice(y, d, 1, None)
    dt = _dt.promote_types(_dt.from_np(y.dtype), _dt.from_np(x.dtype)).np
    return pair.astype(dt) * dxs.astype(dt)


def _div2(s, default_float):
    """``s / 2.`` as PyTorch's division by a Python float."""
    return _scale(s.astype(_float_of(s.dtype, default_float)), 2.0, operator.truediv)


def _cumsum(a, axis: int):
    """PyTorch's CPU ``cumsum``: half-precision inputs accumulate in float32."""
    if _reduced(a.dtype):
        return jnp.cumsum(a.astype(jnp.float32), axis=axis).astype(a.dtype)
    return jnp.cumsum(a, axis=axis, dtype=_sum_dtype(a.dtype))


def _trapezoid_fn(y, x=None, dx=None, dim=-1, default_float="float32"):
    d = dim % y.ndim
    if y.shape[d] == 0:
        return jnp.zeros(y.shape[:d] + y.shape[d + 1:], y.dtype)
    if x is not None:
        terms = _trapz_terms(y, x, d)
        return _div2(jnp.sum(terms, axis=d, dtype=_sum_dtype(terms.dtype)), default_float)
    ft = _float_of(y.dtype, default_float)
    total = jnp.sum(y, axis=d, dtype=_sum_dtype(y.dtype)).astype(ft)
    ends = (jnp.take(y, 0, axis=d) + jnp.take(y, -1, axis=d)).astype(ft)
    return _scale(total - _scale(ends, 0.5), dx)


def _trapz_grad_name(y, x=None, dx=None, dim=-1, default_float=None):
    return "MulBackward1" if x is None else "DivBackward1"


for _name in ("trapezoid", "trapz"):
    _overloaded(OpSpec(
        _name, _trapezoid_fn, "y, x=None, dx=None, dim=-1, default_float='float32'",
        tensor_args=("y", "x"), promote="none", method=False,
        check=_trapz_check("trapezoid"), grad_name=_trapz_grad_name,
        doc=f"Mirrors ``torch.{_name}``: ``{_name}(y, x, *, dim=-1)`` integrates over "
            f"sample points ``x`` (broadcast with ``y`` after taking differences, as "
            f"NumPy), ``{_name}(y, *, dx=1, dim=-1)`` over a constant spacing. Integer "
            f"inputs give the default float dtype; an empty ``dim`` gives zeros of "
            f"``y``'s dtype. ``x=None``/``dx=None`` raise TypeError as in PyTorch."
            + (" Same as ``trapezoid`` except that ``dx`` is a float." if _name == "trapz"
               else ""),
        samples=lambda: _trapz_samples()), _trapz_binder(_name))


def _cumulative_trapezoid_fn(y, x=None, dx=None, dim=-1, default_float="float32"):
    d = dim % y.ndim
    if x is not None:
        terms = _trapz_terms(y, x, d)
        return _div2(_cumsum(terms, d), default_float)
    pair = _slice(y, d, 0, -1) + _slice(y, d, 1, None)
    pair = pair.astype(_float_of(pair.dtype, default_float))
    return _cumsum(_scale(pair, dx / 2.0), d)


_overloaded(OpSpec(
    "cumulative_trapezoid", _cumulative_trapezoid_fn,
    "y, x=None, dx=None, dim=-1, default_float='float32'", tensor_args=("y", "x"),
    promote="none", method=False, check=_trapz_check("cumulative_trapezoid"),
    grad_name=lambda y, x=None, *rest: "CumsumBackward0" if x is None else "DivBackward1",
    doc="Mirrors ``torch.cumulative_trapezoid``: the running trapezoid rule along ``dim`` "
        "(one element fewer than ``y`` there), with ``trapezoid``'s two overloads.",
    samples=lambda: _trapz_samples(cumulative=True)),
    _trapz_binder("cumulative_trapezoid"))


def _trapz_samples(cumulative: bool = False):
    y = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], np.float32)
    out = [
        S(arr(2, 5)), S(arr(2, 5), arr(5)), S(arr(2, 5), dx=2), S(arr(4, 3), dx=0.25, dim=0),
        S(arr(4, 3), arr(4), dim=0), S(arr(4, 3), x=arr(3)), S(arr(6)), S(arr(6), arr(6)),
        S(arr(2, 3, 4), arr(3, 4), dim=1), S(arr(2, 3), arr(2, 3, dtype="float64")),
        S(arr(2, 3), arr(1, 3)), S(arr(3, 2), arr(3, 1), dim=0), S(arr(2, 3), arr(4, 2, 3)),
        S(arr(2, 3, dtype="int32"), grad=False), S(arr(2, 3, dtype="int64"), dx=3),
        S(arr(2, 3, dtype="int32"), arr(2, 3, dtype="int32"), grad=False),
        S(arr(2, 3, dtype="int64"), arr(3)), S(np.array([[1, 2], [3, 5]], np.uint8), dx=2),
        S(arr(2, 3, dtype="float64"), dx=1.5, dim=-2),
        S(arr(2, 3, dtype="float16"), dx=2, grad=False, atol=2e-3),
        S(arr(2, 3, dtype="complex64"), arr(3), grad=False), S(arr(2, 3), dx=-1),
        S(arr(2, 0)), S(arr(2, 0), arr(0)), S(arr(2, 0, dtype="int32")),
        S(np.zeros((2, 0), bool)), S(np.zeros((2, 0), np.float32), np.zeros(0, bool)),
        S(arr(2, 1)), S(arr(2, 1), arr(1)), S(arr(2), arr()),
        S(y, np.ones((2, 1), np.float32), dim=0),
        # PyTorch's errors
        S(arr(2, 3, dtype="bool")), S(arr(2, 3), arr(3, dtype="bool")), S(arr(2, 3), dx=True),
        S(arr(2, 3), dx=1j), S(arr(2, 3), arr(2)), S(arr(2, 3), arr(4, 2, 3), dim=0),
        S(arr(2, 3), arr(3, 3)), S(arr(2, 3), dim=2), S(arr(2, 3), arr(3), dim=-3),
        S(arr()), S(arr(), dx=2), S(arr(), arr()), S(arr(), arr(1)), S(arr(), arr(1, 1)),
        S(arr(), dim=1), S(arr(2, 3), arr(3), dx=2), S(arr(2, 3), None), S(arr(2, 3), dx=None),
        S(arr(2, 3), 2), S(arr(2, 3), dim=1.0), S(arr(2, 3), arr(2, 3).T, dim=0)]
    if cumulative:
        out.append(S(arr(5, 4), arr(5), dim=0))
    return out


# ---------------------------------------------------------------------------
# unravel_index: an op giving the (..., len(shape)) coordinates, unbound as PyTorch does
def _unravel_check(indices, shape):
    if any(s == 0 for s in shape) and indices.numel():
        raise RuntimeError("ZeroDivisionError")


def _unravel_fn(indices, shape):
    coefs = np.cumprod((tuple(shape[1:]) + (1,))[::-1], dtype=np.int64)[::-1].copy()
    idx = indices.astype(jnp.int64)[..., None]
    return jnp.remainder(jnp.floor_divide(idx, jnp.asarray(coefs)),
                         jnp.asarray(np.array(shape, np.int64)))


register(OpSpec(
    "_unravel_index", _unravel_fn, "indices, shape", tensor_args=("indices",),
    promote="none", method=False, function=False, differentiable=False,
    check=_unravel_check,
    doc="``indices.unsqueeze(-1) // strides % shape`` with Python's floor semantics "
        "(``torch.functional._unravel_index``).",
    samples=lambda: [S(np.array([5, 7, -1, 100]), (2, 3))]))


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """Mirrors ``torch.unravel_index``: flat indices into a tensor of ``shape`` as a tuple
    of coordinate tensors (int64, ``indices``' shape), views of one result as in
    PyTorch. Indices out of range wrap around with Python's floor division and modulo
    (PyTorch does not check them either); a ``shape`` with a zero raises
    PyTorch's ``RuntimeError: ZeroDivisionError`` for non-empty ``indices``.

    >>> import torchlike as torch
    >>> torch.unravel_index(torch.tensor([4, 1]), (3, 2))
    (tensor([2, 0]), tensor([0, 1]))
    """
    from .dispatch import _overloaded_args, call_op, handle_torch_function
    relevant = _overloaded_args([indices])
    if relevant:
        return handle_torch_function(unravel_index, relevant, (indices,), {"shape": shape})
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute "
                             f"'is_complex'")
    dt = indices.dtype
    if dt.is_complex or dt.is_floating_point or dt is _dt.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {dt}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got "
                        f"{type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for s in shape:
        if not isinstance(s, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got "
                            f"{type(s)}")
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    return call_op("unbind", call_op("_unravel_index", indices, shape), -1)


unravel_index.__module__ = "torchlike"
FUNCTIONS["unravel_index"] = unravel_index
