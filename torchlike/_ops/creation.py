"""Factories: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty`` and ``*_like``, ``arange``, ``range``, ``linspace``, ``logspace``, ``eye``;
plus the table ops ``_to_dtype`` and ``clone``, and ``to_device``, which copies between
devices outside any program.

Factories take no tensor inputs, so they build NumPy data and place it on the
requested JAX device; tensors are created on the CPU unless ``device=`` says otherwise,
as in PyTorch (not on JAX's default device).
"""

from __future__ import annotations

import builtins
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.device import _default_device_stack, device as Device, jax_device
from .._core.grad_mode import _state as _grad_state
from .._core.memory_formats import (check_memory_format, contiguous_format, format_strides,
                                    is_contiguous_as, memory_format, preserve_format,
                                    result_strides)
from .._core.size import Size
from .._core.tensor import Tensor
from .bind import FUNCTIONS
from .dispatch import call_op
from .spec import OpSpec, register
from .samples import S, arr
from .torch_function import (_mode_active, _modes, _overloaded_args, _tf_state,
                             handle_torch_function, mode_visible, overridable)

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty",
           "zeros_like", "ones_like", "full_like", "empty_like", "clone", "arange", "range",
           "linspace", "logspace", "eye", "scalar_tensor", "place", "asarray",
           "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


def _target_device(device):
    if device is None:
        if _default_device_stack:
            return jax_device(_default_device_stack[-1])
        return jax_device("cpu")
    return jax_device(device)


def place(np_array, device=None, requires_grad: bool = False) -> Tensor:
    """Wrap a NumPy array as a new tensor on ``device`` (CPU by default)."""
    arr_ = jax.device_put(np_array, _target_device(device))
    t = Tensor._wrap(arr_)
    if requires_grad:
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.requires_grad_(True)
    return t


# Python sequences read as one more dimension (PyTorch takes any sequence; ``range`` is
# the one besides lists and tuples that code passes)
_SEQUENCES = (list, tuple, builtins.range)


def _infer_dtype(data) -> _dt.dtype:
    """PyTorch's inference for nested Python sequences of scalars."""
    kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            kinds.add(x.dtype)
        elif isinstance(x, np.ndarray):
            kinds.add(_dt.from_np(x.dtype))
        elif isinstance(x, _SEQUENCES):
            for y in x:
                walk(y)
        elif isinstance(x, np.generic):
            kinds.add(_dt.from_np(x.dtype))  # NumPy scalars keep their dtype
        elif isinstance(x, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(x, (int, np.integer)):
            kinds.add("int")
        elif isinstance(x, (float, np.floating)):
            kinds.add("float")
        elif isinstance(x, (complex, np.complexfloating)):
            kinds.add("complex")
        elif isinstance(x, str):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    first = data
    while isinstance(first, _SEQUENCES) and first:
        first = first[0]
    if isinstance(first, str):
        # PyTorch reads a string as one more (ragged) dimension
        raise ValueError("too many dimensions 'str'")
    walk(data)
    result = None
    for k in kinds:
        if isinstance(k, _dt.dtype):
            d = k
        else:
            d = {"bool": _dt.bool, "int": _dt.int64, "float": _dt.get_default_dtype(),
                 "complex": _dt.default_complex()}[k]
        result = d if result is None else _dt.promote_types(result, d)
    return result if result is not None else _dt.get_default_dtype()


def _to_numpy_nested(data):
    """Nested Python data (scalars, lists, 0-d or n-d tensors) as a NumPy array."""
    if isinstance(data, Tensor):
        return np.asarray(data._value)
    if isinstance(data, _SEQUENCES):
        items = [_to_numpy_nested(x) for x in data]
        if not items:
            return np.zeros((0,))
        first = np.shape(items[0])
        for it in items[1:]:
            if np.shape(it) != first:
                got = np.shape(it)
                raise ValueError(f"expected sequence of length {first[0] if first else 0} at "
                                 f"dim 1 (got {got[0] if got else 0})")
        return np.stack([np.asarray(i) for i in items])
    return data


@mode_visible
def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.tensor``: always copies ``data``; infers int64 for Python ints,
    the default dtype for floats, bool for bools; keeps a NumPy array's dtype."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.clone().detach() or sourceTensor.clone().detach()."
                      "requires_grad_(True), rather than torchlike.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        dt = _dt.to_dtype(dtype) if dtype is not None else data.dtype
        return place(np.array(np.asarray(data._value), dtype=dt.np), device or data.device,
                     requires_grad)
    if isinstance(data, np.ndarray):
        dt = _dt.to_dtype(dtype) if dtype is not None else _dt.from_np(data.dtype)
        return place(np.array(data, dtype=dt.np, copy=True), device, requires_grad)
    if isinstance(data, jax.Array):
        dt = _dt.to_dtype(dtype) if dtype is not None else _dt.from_np(data.dtype)
        return place(np.array(data, dtype=dt.np), device, requires_grad)
    dt = _dt.to_dtype(dtype) if dtype is not None else _infer_dtype(data)
    a = _to_numpy_nested(data)
    if isinstance(a, np.ndarray) and a.dtype == object and a.size == 0:
        a = np.zeros(a.shape, dt.np)
    a = np.asarray(a)
    _check_stored(a, data, dt)
    return place(a.astype(dt.np), device, requires_grad)


def _check_stored(a: np.ndarray, data, dt: _dt.dtype) -> None:
    """PyTorch's checks as it stores Python numbers in a new tensor of ``dt``: an int
    beyond int64 cannot be read (unless it becomes a float), and a number outside an
    integer dtype's range (or a NaN or infinity) is refused instead of wrapping."""
    if a.size == 0 or dt is _dt.bool or dt.is_floating_point or dt.is_complex:
        return
    if a.dtype == object or a.dtype == np.uint64:   # some int is beyond int64
        raise ValueError("Overflow when unpacking long long")
    if a.dtype.kind not in "iuf":
        return
    info = np.iinfo(dt.np)
    # c10::overflows: an unsigned type also takes ints down to -max (they wrap)
    int_lo = -info.max if info.min == 0 else info.min
    if a.dtype.kind in "iu":
        bad = not (int_lo <= int(a.min()) and int(a.max()) <= info.max)
    else:   # floats among the data: each number by its own Python type
        def walk(x):
            if isinstance(x, _SEQUENCES):
                return any(walk(y) for y in x)
            if isinstance(x, float):
                return not (info.min <= x <= info.max)   # NaN and inf included
            if isinstance(x, int) and not isinstance(x, bool):
                return not (int_lo <= x <= info.max)
            return False
        bad = walk(data)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


@mode_visible
def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Mirrors ``torch.as_tensor``: no copy when ``data`` already is a tensor of the
    right dtype and device. NumPy arrays are imported without a copy where JAX can
    (CPU, aligned memory); writes to the NumPy array afterwards are not seen."""
    if isinstance(data, Tensor):
        out = data
        if dtype is not None:
            out = out.to(_dt.to_dtype(dtype))
        if device is not None:
            out = out.to(device)
        return out
    if isinstance(data, np.ndarray):
        dt = _dt.to_dtype(dtype) if dtype is not None else _dt.from_np(data.dtype)
        return place(data.astype(dt.np, copy=False), device)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """Mirrors ``torch.from_numpy``. Difference: JAX arrays are immutable, so later
    writes to ``ndarray`` are not seen by the tensor (and vice versa)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dt.from_np(ndarray.dtype)
    return place(ndarray)


def _size_arg(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _factory_dtype(dtype):
    return _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()


def _into_out(name: str, out, dtype, make, warn_resize: bool = False):
    """A factory's ``out=``, as PyTorch's: ``make(dtype)`` builds the values (``dtype``
    defaults to ``out``'s, and must equal it), ``out`` is resized to their shape and
    takes them; returns ``out``. ``warn_resize``: warn as ``arange`` does when a
    non-empty ``out`` has another number of elements."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    dt = out.dtype if dtype is None else _dt.to_dtype(dtype)
    if dt != out.dtype:
        from .bind import dtype_short_name
        raise RuntimeError(f"dtype {dtype_short_name(dt)} does not match dtype of out "
                           f"parameter ({dtype_short_name(out.dtype)})")
    if out._requires_grad and _grad_state.enabled:
        raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    values = make(dt)
    if out._shape != values._shape:
        n, m = out.numel(), values.numel()
        if warn_resize and n and n != m:
            warnings.warn(f"The number of elements in the out tensor of shape "
                          f"[{', '.join(map(str, out._shape))}] is {n} which does not match "
                          f"the computed number of elements {m}. Note that this may occur as "
                          "a result of rounding error. The out tensor will be resized to a "
                          f"tensor of shape ({m},).", UserWarning, stacklevel=3)
        out.resize_(values._shape)
    out._set_value(values._value)
    return out


@mode_visible
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False) -> Tensor:
    """Mirrors ``torch.zeros``."""
    if any(isinstance(d, int) and d < 0 for d in
           (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    if out is not None:
        return _into_out("zeros", out, dtype, lambda dt: zeros(*size, dtype=dt))
    return place(np.zeros(_size_arg(size), _factory_dtype(dtype).np), device, requires_grad)


@mode_visible
def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    """Mirrors ``torch.ones``."""
    if out is not None:
        return _into_out("ones", out, dtype, lambda dt: ones(*size, dtype=dt))
    return place(np.ones(_size_arg(size), _factory_dtype(dtype).np), device, requires_grad)


@mode_visible
def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format: memory_format | None = None) -> Tensor:
    """Mirrors ``torch.empty(*size, *, out=None, dtype=None, device=None,
    requires_grad=False, memory_format=torch.contiguous_format)``: ``memory_format``
    gives the strides (``channels_last`` needs 4 dimensions, ``channels_last_3d`` 5;
    ``preserve_format`` and any format next to ``out=`` are refused, as in PyTorch).
    Difference: the memory is zero-filled."""
    fmt = contiguous_format if memory_format is None else \
        check_memory_format("empty", memory_format)
    if out is not None:
        if memory_format is not None:
            raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor "
                               "argument")
        return _into_out("empty", out, dtype, lambda dt: zeros(*size, dtype=dt))
    if fmt is contiguous_format:
        return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)
    stride = format_strides(fmt, _size_arg(size))
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)._lay_out(stride)


@mode_visible
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Mirrors ``torch.full``: dtype inferred from ``fill_value`` when not given."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if out is not None:
        return _into_out("full", out, dtype, lambda dt: full(size, fill_value, dtype=dt))
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    dt = _dt.to_dtype(dtype)
    fill_value = checked_scalar(fill_value, dt)
    with np.errstate(over="ignore"):   # float16 rounds 1e300 to inf, as PyTorch's Half
        vals = np.full(_size_arg((size,)), fill_value, dt.np)
    return place(vals, device, requires_grad)


_C_NAMES = {"float32": "float", "float64": "double", "float16": "at::Half",
            "bfloat16": "at::BFloat16", "int64": "int64_t", "int32": "int",
            "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def checked_scalar(value, dt: _dt.dtype):
    """A Python number converted to ``dt`` as PyTorch's ``c10::checked_convert`` does for
    ``full``, ``fill_`` and writes of a number: a value out of ``dt``'s range raises
    "value cannot be converted to type ... without overflow", except that a negative
    integer down to ``-max`` wraps into an unsigned type (``-1`` -> 255) and float16 and
    bfloat16 round out-of-range values to infinity; a float going to an integer type
    truncates toward zero (NaN and infinities overflow); a complex number needs a zero
    imaginary part unless ``dt`` is complex."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        value = value.item()
    if type(value) is int:   # what PyTorch's argument parsing takes: int64 or uint64
        if value >= 2 ** 64:
            raise OverflowError("int too big to convert")
        if value < -2 ** 63:
            raise OverflowError("can't convert negative int to unsigned")
    if dt.is_complex or dt is _dt.bool or not isinstance(value, (int, float, complex)):
        return value
    def overflow():
        return RuntimeError(f"value cannot be converted to type {_C_NAMES.get(dt.name, dt.name)}"
                            " without overflow")
    if isinstance(value, complex):
        if value.imag != 0:
            raise overflow()
        value = value.real
    if dt.is_floating_point:
        if dt.itemsize >= 4 and not isinstance(value, bool):
            try:
                f = float(value)
            except OverflowError:
                raise overflow() from None
            if math.isfinite(f) and abs(f) > float(np.finfo(dt.np).max):
                raise overflow()
        return value
    info = np.iinfo(dt.np)
    if isinstance(value, int):   # bool included
        v = int(value)
        if v > info.max or v < (-info.max if info.min == 0 else info.min):
            raise overflow()
        return v % (info.max + 1) if v < 0 and info.min == 0 else v
    if not math.isfinite(value) or value < info.min or value > info.max:
        raise overflow()
    return int(value)


def _like(input: Tensor, dtype, device):
    return (_dt.to_dtype(dtype) if dtype is not None else input.dtype,
            device if device is not None else input.device)


def like_strides(fname: str, input: Tensor, memory_format) -> tuple:
    """The strides of ``fname(input, memory_format=...)``, a ``*_like`` factory: for
    ``preserve_format`` (or None) ``input``'s when non-overlapping and dense, else dense
    ones in the same order; for another format, its strides (PyTorch's
    ``empty_like``)."""
    fmt = check_memory_format(fname, memory_format)
    return result_strides(input._shape, input._strides(), fmt)


_LIKE_DOC = """

    ``memory_format`` (default ``preserve_format``) gives the strides, as PyTorch's
    ``empty_like``: under ``preserve_format`` those of ``input`` when they are
    non-overlapping and dense, else dense strides in the order of ``input``'s."""


def _made_like(fname: str, make, input: Tensor, dtype, device, requires_grad: bool,
               memory_format) -> Tensor:
    """``make(shape, dtype=, device=, requires_grad=)`` at ``input``'s shape, dtype and
    device unless given, laid out as ``memory_format`` says; errors name ``fname``."""
    stride = like_strides(fname, input, memory_format)
    dt, dev = _like(input, dtype, device)
    return make(input._shape, dtype=dt, device=dev, requires_grad=requires_grad)._lay_out(stride)


@overridable
def zeros_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.zeros_like``."""
    return _made_like("zeros_like", zeros, input, dtype, device, requires_grad, memory_format)


@overridable
def ones_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.ones_like``."""
    return _made_like("ones_like", ones, input, dtype, device, requires_grad, memory_format)


@overridable
def empty_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.empty_like`` (zero-filled)."""
    return _made_like("empty_like", zeros, input, dtype, device, requires_grad, memory_format)


@overridable
def full_like(input: Tensor, fill_value, *, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format: memory_format | None = preserve_format
              ) -> Tensor:
    """Mirrors ``torch.full_like``: keeps ``input``'s dtype unless given."""
    return _made_like("full_like", lambda shape, **kw: full(shape, fill_value, **kw), input,
                      dtype, device, requires_grad, memory_format)


for _f in (zeros_like, ones_like, empty_like, full_like):
    _f.__doc__ += _LIKE_DOC


@mode_visible
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return full((), s, dtype=_factory_dtype(dtype), device=device, requires_grad=requires_grad)


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def _range_str(v) -> str:
    return format(v, "g") if isinstance(v, float) else str(v)   # as C++ prints a double


@mode_visible
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False) -> Tensor:
    """Mirrors ``torch.arange``: int64 for integer arguments, else the default dtype."""
    if out is not None:
        return _into_out("arange", out, dtype,
                         lambda dt: arange(start, end, step, dtype=dt), warn_resize=True)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0 or step != step:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {_range_str(start)} -> {_range_str(end)}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, (float, np.floating)) for v in (start, end, step))
        dtype = _dt.get_default_dtype() if is_float else _dt.int64
    dt = _dt.to_dtype(dtype)
    if dt is _dt.bool or dt.is_complex:
        from .bind import dtype_short_name
        raise NotImplementedError(f'"arange_cpu" not implemented for '
                                  f"'{dtype_short_name(dt)}'")
    if not abs((end - start) / step) < 2 ** 63:
        raise RuntimeError("invalid size, possible overflow?")
    if dt.is_floating_point:
        n = int(math.ceil((end - start) / step))
        vals = start + np.arange(max(n, 0), dtype=np.float64) * step
    else:
        # as ATen: the bounds and the step are truncated to int64 first; int64 counts the
        # elements in integers (a step that truncates to 0 is refused), the other integer
        # types from the bounds as given
        xs, xe, xst = int(start), int(end), int(step)
        if dt is _dt.int64:
            if xst == 0:
                raise ValueError("step must be nonzero")
            span = xe - xs + xst - ((xst > 0) - (xst < 0))
            n = abs(span) // abs(xst) * (1 if (span >= 0) == (xst > 0) else -1)
        else:
            n = int(math.ceil((end - start) / step))
        vals = np.arange(max(n, 0), dtype=np.int64) * xst + xs
    return place(vals.astype(dt.np), device, requires_grad)


@mode_visible
def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False) -> Tensor:
    """Mirrors the deprecated ``torch.range``: includes ``end``; default float dtype."""
    if out is not None:
        return _into_out("range", out, dtype, lambda dt: range(start, end, step, dtype=dt))
    warnings.warn("torchlike.range is deprecated and will be removed in a future release "
                  "because its behavior is inconsistent with Python's range builtin. "
                  "Instead, use torchlike.arange, which produces values in [start, end).",
                  UserWarning, stacklevel=2)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    dt = _factory_dtype(dtype)
    n = int(math.floor((end - start) / step)) + 1
    vals = start + np.arange(max(n, 0), dtype=np.float64) * step
    return place(vals.astype(dt.np), device, requires_grad)


def _linspace_values(start, end, steps):
    if steps == 1:
        return np.array([start], dtype=np.float64)
    step = (end - start) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    half = steps // 2
    return np.where(i < half, start + step * i, end - step * (steps - 1 - i))


@mode_visible
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """Mirrors ``torch.linspace`` (PyTorch's symmetric formula, so both ends are exact)."""
    if out is not None:
        return _into_out("linspace", out, dtype,
                         lambda dt: linspace(start, end, steps, dtype=dt))
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _factory_dtype(dtype)
    if steps == 0:
        return place(np.zeros((0,), dt.np), device, requires_grad)
    vals = _linspace_values(start, end, steps)
    if not (dt.is_floating_point or dt.is_complex):
        vals = np.trunc(vals)
    return place(vals.astype(dt.np), device, requires_grad)


@mode_visible
def logspace(start, end, steps, base: float = 10.0, *, out=None, dtype=None, layout=None,
             device=None, requires_grad=False) -> Tensor:
    """Mirrors ``torch.logspace``."""
    if out is not None:
        return _into_out("logspace", out, dtype,
                         lambda dt: logspace(start, end, steps, base, dtype=dt))
    start, end = _num(start), _num(end)
    dt = _factory_dtype(dtype)
    if steps == 0:
        return place(np.zeros((0,), dt.np), device, requires_grad)
    vals = np.power(float(base), _linspace_values(start, end, steps))
    return place(vals.astype(dt.np), device, requires_grad)


@mode_visible
def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    """Mirrors ``torch.eye``."""
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    if out is not None:
        return _into_out("eye", out, dtype, lambda dt: eye(n, m, dtype=dt))
    return place(np.eye(n, m, dtype=_factory_dtype(dtype).np), device, requires_grad)


def _legacy_tensor_array(args, dtype, device):
    """The array behind the legacy constructors ``torchlike.Tensor(...)`` and
    ``torchlike.FloatTensor(...)``: ``(*sizes)`` gives a zero-filled tensor of that shape
    (PyTorch leaves it uninitialised), ``(sequence or ndarray)`` converts the data to
    ``dtype`` (the default dtype when None), ``(tensor)`` keeps that tensor's data."""
    jd = _target_device(device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        a = args[0]
        if dtype is not None and a.dtype is not _dt.to_dtype(dtype):
            raise TypeError(f"expected {_dt.to_dtype(dtype)} (got {a.dtype})")
        return a._value
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if len(args) == 0:
        return jax.device_put(np.zeros((0,), dt.np), jd)
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        a = args[0]
        if isinstance(a, Size):
            return jax.device_put(np.zeros(tuple(a), dt.np), jd)
        if isinstance(a, (bool, float, complex, np.number, str)) or a is None:
            raise TypeError(f"new(): data must be a sequence (got {type(a).__name__})")
        if isinstance(a, np.ndarray):
            return jax.device_put(a.astype(dt.np), jd)
        _infer_dtype(a)  # rejects non-numeric data with PyTorch's error
        return jax.device_put(np.asarray(_to_numpy_nested(a)).astype(dt.np), jd)
    for x in args:
        if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos "
                            f"{len(args)} with error \"type must be tuple of ints,but got "
                            f"{type(x).__name__}\"")
    return jax.device_put(np.zeros(_size_arg(args), dt.np), jd)


class _LegacyTensorType(type):
    """Metaclass of ``torchlike.FloatTensor`` and friends (PyTorch's ``tensortype``):
    calling one builds a tensor of its dtype; ``isinstance(t, torchlike.FloatTensor)``
    tests the dtype of a ``Tensor``."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None) -> Tensor:
        return Tensor._wrap(_legacy_tensor_array(args, cls.dtype, device))

    def __repr__(cls) -> str:
        return f"<class 'torchlike.{cls.__name__}'>"


def _legacy_type(name: str, dt: _dt.dtype) -> type:
    doc = (f"Mirrors the legacy ``torch.{name}``: ``{name}(data)`` converts data to "
           f"{dt}, ``{name}(*sizes)`` gives a (zero-filled) tensor of that shape, and "
           f"``isinstance(t, {name})`` is true for tensors of dtype {dt}.")
    return _LegacyTensorType(name, (), {"dtype": dt, "is_cuda": False, "is_sparse": False,
                                        "__doc__": doc, "__module__": "torchlike"})


FloatTensor = _legacy_type("FloatTensor", _dt.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dt.float64)
HalfTensor = _legacy_type("HalfTensor", _dt.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _dt.bfloat16)
ByteTensor = _legacy_type("ByteTensor", _dt.uint8)
CharTensor = _legacy_type("CharTensor", _dt.int8)
ShortTensor = _legacy_type("ShortTensor", _dt.int16)
IntTensor = _legacy_type("IntTensor", _dt.int32)
LongTensor = _legacy_type("LongTensor", _dt.int64)
BoolTensor = _legacy_type("BoolTensor", _dt.bool)
LEGACY_TYPES = (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor,
                CharTensor, ShortTensor, IntTensor, LongTensor, BoolTensor)


# ---------------------------------------------------------------------------
# table ops: dtype/device moves and copies
def _to_dtype_fn(input, dtype):
    if input.dtype == dtype.np:
        # ``to(copy=True)`` or a change of memory format: a copy with its own buffer
        return jnp.array(input, copy=True)
    if jnp.issubdtype(input.dtype, jnp.floating) and jnp.issubdtype(dtype.np, jnp.integer) \
            and dtype.itemsize < 8:
        # PyTorch converts floats to narrow integers through int64 (so -1.0 -> 255 as
        # uint8); XLA would saturate instead
        return input.astype(jnp.int64).astype(dtype.np)
    return input.astype(dtype.np)


register(OpSpec(
    "_to_dtype", _to_dtype_fn, "input, dtype", promote="none", method=False, function=False,
    grad_name="ToCopyBackward0", saves=False,
    samples=lambda: []))


def to_device(t: Tensor, jd) -> Tensor:
    """``t`` copied onto the JAX device ``jd``: ``Tensor.to(device)``, ``.cuda()`` and
    ``.cpu()``. As in PyTorch the copy's ``grad_fn`` is ``ToCopyBackward0``, which copies
    the gradient back to ``t``'s device.

    The copy is made here, outside any compiled program: ``jax.device_put`` inside a
    jitted one does not move data between devices (its program runs where its input is),
    and a table op made that way left tensors where they were. While a caller traces, the
    program places its values and the copy only marks the device."""
    out = Tensor._wrap(jax.device_put(t._value, jd))
    if _grad_state.enabled and (t._requires_grad or t.grad_fn is not None):
        from ..autograd.graph import ToCopyNode
        ToCopyNode.record(t, out)
    return out


def _clone_fn(input):
    return jnp.array(input, copy=True)


# the copy itself (``CloneBackward0``); ``clone`` below gives it its strides
register(OpSpec(
    "clone", _clone_fn, "input", promote="none", saves=False, function=False, method=False,
    samples=lambda: [S(arr(3, 4)), S(arr(dtype="int64")), S(arr(0, 3))]))


def _clone(api, input: Tensor, memory_format) -> Tensor:
    """``api`` (``torchlike.clone`` or ``Tensor.clone``) of ``input``: overrides by
    ``__torch_function__`` first, then the copy in its layout."""
    if (type(input) is not Tensor or _modes.on) and not _tf_state.disabled_all:
        relevant = _overloaded_args((input,))
        if relevant or _mode_active():
            return handle_torch_function(api, relevant, (input,),
                                         {"memory_format": memory_format})
    if not isinstance(input, Tensor):
        raise TypeError(f"clone(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if memory_format is preserve_format and input._direct:
        # owns its storage in row-major order: the copy's layout is its own
        out = call_op("clone", input)
        return out if input._stride is None else out._lay_out(input._stride)
    stride = result_strides(input._shape, input._strides(),
                            check_memory_format("clone", memory_format))
    return call_op("clone", input)._lay_out(stride)


def clone(input: Tensor, *, memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.clone(input, *, memory_format=torch.preserve_format)`` and
    ``Tensor.clone``: a copy with its own memory, recorded as ``CloneBackward0``. Under
    ``preserve_format`` the copy has ``input``'s strides when they are non-overlapping
    and dense, else dense strides in the order of ``input``'s (as PyTorch); another
    format gives its strides (``channels_last``: 4-d tensors only, PyTorch's
    RuntimeError otherwise).

    >>> import torchlike as torch
    >>> torch.zeros(2, 3).t().clone().stride()
    (1, 3)
    >>> torch.zeros(1, 2, 3, 4).clone(memory_format=torch.channels_last).stride()
    (24, 1, 8, 2)
    """
    return _clone(clone, input, memory_format)


def _clone_method(self, *, memory_format: memory_format | None = preserve_format) -> Tensor:
    return _clone(_clone_method, self, memory_format)


_clone_method.__name__ = "clone"
_clone_method.__qualname__ = "Tensor.clone"
_clone_method.__doc__ = clone.__doc__
Tensor.clone = _clone_method
FUNCTIONS["clone"] = clone


def _float_cast(dt, name):
    def f(self, memory_format: memory_format | None = preserve_format) -> Tensor:
        return self.to(dt, memory_format=check_memory_format(name, memory_format))
    return f


for _name, _d in (("float", _dt.float32), ("double", _dt.float64), ("half", _dt.float16),
                  ("bfloat16", _dt.bfloat16), ("long", _dt.int64), ("int", _dt.int32),
                  ("short", _dt.int16), ("char", _dt.int8), ("byte", _dt.uint8),
                  ("bool", _dt.bool), ("cfloat", _dt.complex64), ("cdouble", _dt.complex128)):
    _f = _float_cast(_d, _name)
    _f.__name__ = _name
    _f.__qualname__ = "Tensor." + _name
    _f.__doc__ = (f"Mirrors ``torch.Tensor.{_name}(memory_format=torch.preserve_format)``: "
                  f"``self.to({_d}, memory_format=memory_format)``.")
    setattr(Tensor, _name, overridable(_f))


def _contiguous(self, *, memory_format: memory_format = contiguous_format) -> Tensor:
    """Mirrors ``Tensor.contiguous(memory_format=torch.contiguous_format)``: self if its
    strides already are those of ``memory_format`` (``is_contiguous``), else a copy in
    that format (``clone(memory_format=...)``). As in PyTorch, ``preserve_format`` is
    refused for a tensor that is not contiguous, and ``channels_last`` for one that is
    not 4-d."""
    fmt = check_memory_format("contiguous", memory_format, optional=False)
    if is_contiguous_as(self._shape, self._strides(), fmt):
        return self
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return self.clone(memory_format=fmt)


Tensor.contiguous = _contiguous


def _new_factory(fn):
    def m(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        return fn(*size, dtype=dtype if dtype is not None else self.dtype,
                  device=device if device is not None else self.device,
                  requires_grad=requires_grad)
    return m


Tensor.new_zeros = _new_factory(zeros)
Tensor.new_ones = _new_factory(ones)
Tensor.new_empty = _new_factory(empty)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    if dtype is None and not isinstance(data, (Tensor, np.ndarray)):
        dtype = self.dtype
    return tensor(data, dtype=dtype, device=device or self.device,
                  requires_grad=requires_grad)


Tensor.new_full = _new_full
Tensor.new_tensor = _new_tensor

_ = (builtins, Device)
