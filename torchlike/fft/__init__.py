"""``torchlike.fft``: mirrors ``torch.fft`` (PyTorch 2.13).

The transforms (``fft``, ``ifft``, ``rfft2``, ``hfftn``...) run the table ops declared in
``torchlike/_ops/fft_ops.py`` (``fft_fft``, ``fft_rfft2``...) through the dispatcher, so
``__torch_function__`` overrides, autocast and autograd apply as for every table op; see
the Notes there for the kernels, dtypes and gradients. ``fftfreq``/``rfftfreq`` are
factories built in NumPy as PyTorch's recipe rounds them, and ``fftshift``/``ifftshift``
are ``roll`` calls.

# Note [out= of the transforms]
# PyTorch's transforms take ``out=``. Its dtype must be complex for a complex result and
# floating point for a real one ("fft expects a complex output tensor, but got Float";
# the n-D functions name their ``*n`` kernel), and the result is cast into it, except
# where PyTorch's last step is ``conj_physical`` (``ifft`` of a real input, ``ihfft``,
# ``ihfft2``/``ihfftn`` over one dim): there ``out`` must have the result's dtype exactly
# ("Found dtype ComplexDouble but expected ComplexFloat"). PyTorch checks ``out`` before
# the other arguments on its 1-D r2c and c2r paths and after them elsewhere; so does
# torchlike. With grad mode on, no argument may require grad (PyTorch's error names its
# kernel, ``_fft_c2c()``...). ``out`` is resized to the result's shape, with PyTorch's
# warning when it held elements. Differences: PyTorch accepts an input that requires grad
# on the ``conj_physical`` paths and fails only at backward ("derivative for
# aten::conj_physical is not implemented"); torchlike refuses the call itself. For
# ``ihfft2``/``ihfftn`` over one dim PyTorch 2.13 passes ``conj_physical_out`` its two
# arguments the other way round and leaves ``out`` unwritten (or fails on its shape);
# torchlike writes the result there, with the exact-dtype rule of ``ihfft``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence

import numpy as np

from .._core import autocast_state as _acs
from .._core import dtype as _dt
from .._core.grad_mode import _state as _grad_state
from .._core.grad_mode import no_grad as _no_grad
from .._core.tensor import Tensor
from .._ops._common import is_int_arg as _is_int_arg
from .._ops._common import warn_at_caller as _warn_at_caller
from .._ops.bind import dtype_short_name as _short
from .._ops.creation import place as _place
from .._ops.dispatch import call_op as _call_op
from .._ops.dispatch import dispatch as _dispatch
from .._ops.fft_ops import FFT_OPS as _FFT_OPS
from .._ops.fft_ops import _as_ints, _int_list_type, _wrap
from .._ops.fft_ops import check_arg_types as _check_arg_types
from .._ops.fft_ops import out_kind_error as _out_kind_error
from .._ops.fft_ops import out_plan as _out_plan
from .._ops.out_param import outs_of as _outs_of
from .._ops.out_param import refuse_grad as _refuse_grad
from .._ops.out_param import write_all as _write_all
from .._ops.spec import OPS as _OPS
from .._ops.torch_function import _overloaded_args, _tf_state, handle_torch_function
from .._ops.windows import _is_strided, _Steps

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

# ---------------------------------------------------------------------------
# the transforms
def _overloaded(args, kwargs) -> list:
    if _tf_state.disabled_all:
        return []
    return _overloaded_args(list(args) + list(kwargs.values()))


def _positional_types(spec, args, kwargs) -> None:
    """PyTorch's TypeErrors naming the position of a bad positional argument (the op's
    own check words them as for keywords)."""
    if len(args) > len(spec.params) or _overloaded(args, kwargs):
        return   # the binder's TypeError, or the overrides decide
    _check_arg_types(spec, spec.binder(*args), len(args))


def _with_out(spec, api, args: tuple, kwargs: dict):
    """A transform called with ``out=`` (Note [out= of the transforms])."""
    out = kwargs["out"]
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    if out is None:
        return api(*args, **rest)
    relevant = _overloaded(args, kwargs)
    if relevant:
        return handle_torch_function(api, relevant, args, kwargs)
    _outs_of(spec.name, out)
    vals = spec.binder(*args, **rest)
    _check_arg_types(spec, vals, len(args))
    info = spec.extra["fft"]
    input = vals[0]
    if info["nd"] == 1 and (info["family"] != "c2c" or not input.dtype.is_complex):
        if info["family"] == "r2c" and input.dtype.is_complex:
            spec.check(*vals)   # the real-input error comes first
        err = _out_kind_error(spec, out)
        if err is not None:
            raise err
        spec.check(*vals)
    else:
        spec.check(*vals)
        err = _out_kind_error(spec, out)
        if err is not None:
            raise err
    kernel, rule = _out_plan(spec, vals)
    _refuse_grad(kernel, list(args) + list(rest.values()) + [out])
    with _acs.excluded(), _no_grad():   # calls with out= are not autocast
        res = _dispatch(spec, api, args, rest)
    return _write_all(spec.name, rule, out, [out], res)


def _transform(stub):
    """The public transform ``stub`` names (its signature and docstring are the public
    ones): runs the table op ``fft_<name>``."""
    spec = _OPS[_FFT_OPS[stub.__name__]]

    @functools.wraps(stub)
    def f(*args, **kwargs):
        if "out" in kwargs:
            return _with_out(spec, f, args, kwargs)
        if len(args) > 1 or (args and not isinstance(args[0], Tensor)):
            _positional_types(spec, args, kwargs)
        return _dispatch(spec, f, args, kwargs)
    f.__module__ = "torchlike.fft"
    f.__qualname__ = "fft." + stub.__name__
    spec.api = f
    return f


@_transform
def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
        out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.fft``: the 1-D discrete Fourier transform of ``input`` along
    ``dim``, cut or zero-padded to ``n`` points; ``norm`` is "backward" (no scaling, the
    default), "forward" (``1/n``) or "ortho" (``1/sqrt(n)``). Real inputs give the
    complex dtype of their precision; integer and bool inputs use the default float
    dtype; float16/bfloat16 are refused, as on PyTorch's CPU. Takes ``out=`` (Note [out=
    of the transforms]). Differences: float16 is refused on GPUs too (PyTorch's cuFFT
    path takes it for powers of two), and a transform of a tensor with a dim of size 0
    elsewhere gives an empty result where PyTorch's MKL builds raise (Note [FFT of empty
    batches] in ``_ops/fft_ops.py``); the other transforms share these."""


@_transform
def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ifft``: the 1-D inverse discrete Fourier transform along
    ``dim`` (``n`` points; "backward" norm scales by ``1/n``). Dtypes, errors and
    empty batches as for ``fft``. Difference: with ``out=``, a real input that requires
    grad is refused at the call (PyTorch fails at backward; Note [out= of the
    transforms])."""


@_transform
def fft2(input: Tensor, s: Sequence[int] | None = None,
         dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.fft2``: ``fftn`` over ``dim`` (the last two dims by default),
    the signal cut or zero-padded to ``s`` (``-1`` keeps a dim's size)."""


@_transform
def ifft2(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ifft2``: ``ifftn`` over the last two dims by default."""


@_transform
def fftn(input: Tensor, s: Sequence[int] | None = None,
         dim: int | Sequence[int] | None = None, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.fftn``: the N-D discrete Fourier transform over ``dim`` (all
    dims by default, the last ``len(s)`` when only ``s`` is given), the signal cut or
    zero-padded to ``s``; ``norm`` scales by the product of the signal sizes. No dims
    (``dim=()``, or a 0-d input) gives the input as complex."""


@_transform
def ifftn(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ifftn``: the N-D inverse discrete Fourier transform."""


@_transform
def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.rfft``: the one-sided 1-D Fourier transform of a real input
    (``n // 2 + 1`` frequencies); complex inputs are refused with PyTorch's error."""


@_transform
def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.irfft``: the real signal of ``n`` points (default
    ``2 * (m - 1)``) whose one-sided spectrum ``input`` holds; the input is cut or
    zero-padded to ``n // 2 + 1`` and the imaginary parts of its zero-frequency (and
    Nyquist) terms are ignored, as by PyTorch's kernels. Real-valued result."""


@_transform
def rfft2(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.rfft2``: ``rfftn`` over the last two dims by default."""


@_transform
def irfft2(input: Tensor, s: Sequence[int] | None = None,
           dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.irfft2``: ``irfftn`` over the last two dims by default."""


@_transform
def rfftn(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.rfftn``: the N-D Fourier transform of a real input, one-sided
    along the last transformed dim."""


@_transform
def irfftn(input: Tensor, s: Sequence[int] | None = None,
           dim: int | Sequence[int] | None = None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.irfftn``: the inverse of ``rfftn``; the last entry of ``s``
    (default ``2 * (m - 1)``) is the output size of the last transformed dim."""


@_transform
def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
         out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.hfft``: the Fourier transform of the Hermitian-symmetric
    signal whose one-sided half ``input`` holds, ``n`` real points (default
    ``2 * (m - 1)``)."""


@_transform
def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ihfft``: the inverse of ``hfft``, the one-sided half of the
    inverse transform of a real input; complex inputs are refused. ``out=`` as for
    ``ifft`` of a real input."""


@_transform
def hfft2(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.hfft2``: ``hfftn`` over the last two dims by default. As in
    PyTorch, autocast leaves it alone (it is not on PyTorch's CPU list)."""


@_transform
def ihfft2(input: Tensor, s: Sequence[int] | None = None,
           dim: int | Sequence[int] | None = (-2, -1), norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ihfft2``: ``ihfftn`` over the last two dims by default; not
    autocast, as in PyTorch. Difference: over one dim, ``out=`` receives the result
    (PyTorch 2.13 leaves it unwritten; Note [out= of the transforms])."""


@_transform
def hfftn(input: Tensor, s: Sequence[int] | None = None,
          dim: int | Sequence[int] | None = None, norm: str | None = None, *,
          out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.hfftn``: the N-D Fourier transform of a Hermitian-symmetric
    signal given by its half along the last transformed dim; real-valued result. Not
    autocast, as in PyTorch."""


@_transform
def ihfftn(input: Tensor, s: Sequence[int] | None = None,
           dim: int | Sequence[int] | None = None, norm: str | None = None, *,
           out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.fft.ihfftn``: the inverse of ``hfftn`` for a real input, one-sided
    along the last transformed dim; complex inputs are refused. Not autocast, as in
    PyTorch. ``out=`` over one dim as for ``ihfft2``."""


# ---------------------------------------------------------------------------
# helpers: frequencies and shifts
def _bound(impl):
    """Decorator: the public function ``stub`` (its signature and docstring) running
    ``impl(name, api, npos, args, kwargs, **arguments)``, where ``npos`` counts the
    arguments given by position (PyTorch's TypeErrors name their positions)."""
    def deco(stub):
        sig = inspect.signature(stub)
        name = stub.__name__

        @functools.wraps(stub)
        def f(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"fft_{name}(): {e}") from None
            bound.apply_defaults()
            return impl(name, f, len(args), args, kwargs, **bound.arguments)
        f.__module__ = "torchlike.fft"
        f.__qualname__ = "fft." + name
        return f
    return deco


def _float_arg(fname: str, name: str, v, pos: int | None) -> float:
    if isinstance(v, Tensor) and v.dim() == 0 and not v.dtype.is_complex:
        return float(v.item())
    if isinstance(v, (int, float, np.integer, np.floating, np.bool_)):
        return float(v)
    where = f" (position {pos})" if pos else ""
    raise TypeError(f"{fname}(): argument '{name}'{where} must be float, not "
                    f"{type(v).__name__}")


def _frequencies(kind: str, api, npos: int, args, kwargs, n, d, out, dtype, layout, device,
                 requires_grad, pin_memory):
    """``fftfreq``/``rfftfreq`` as PyTorch's recipe computes them: ``arange`` in the
    dtype, then one in-place multiply by ``1 / (n * d)`` (rounded to the dtype)."""
    fname = "fft_" + kind
    if not _is_int_arg(n):
        raise TypeError(f"{fname}(): argument 'n'{' (position 1)' if npos else ''} must be "
                        f"int, not {type(n).__name__}")
    n = int(n)
    d = _float_arg(fname, "d", d, 2 if npos > 1 else None)
    half = abs(n) // 2 * (1 if n >= 0 else -1)   # C++ division truncates
    count = n if kind == "fftfreq" else half + 1
    if count < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {count}: "
                           f"[{count}]")
    if not _is_strided(layout):
        raise RuntimeError(f"{kind} supports only the strided layout, got {layout}")
    if out is not None:
        _outs_of(fname, out)
        if dtype is not None and _dt.to_dtype(dtype) is not out.dtype:
            raise RuntimeError(f"dtype {_short(_dt.to_dtype(dtype))} does not match dtype of "
                               f"out parameter ({_short(out.dtype)})")
        if out._requires_grad and _grad_state.enabled:
            raise RuntimeError(f"aten::{fname}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments "
                               "requires grad.")
        dt = out.dtype
    else:
        dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{kind} requires a floating point or complex dtype")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_short(dt)}'")
    steps = _Steps(dt)
    values = steps.arange(count)
    if kind == "fftfreq":
        values[(n + 1) // 2:] = np.arange(-(n // 2), 0, dtype=np.float64).astype(dt.np)
    with np.errstate(all="ignore"):
        scale = np.float64(1.0) / np.float64(n * d)
        values = steps(lambda a: a * steps.c(scale), values)
    if out is None:
        return _place(values, device, requires_grad)
    if out._shape != values.shape:
        if out.numel() and out.numel() != count:
            _warn_at_caller(f"The number of elements in the out tensor of shape "
                            f"[{', '.join(map(str, out._shape))}] is {out.numel()} which does "
                            f"not match the computed number of elements {count}. Note that "
                            "this may occur as a result of rounding error. The out tensor "
                            f"will be resized to a tensor of shape ({count},).")
        out.resize_(values.shape)
    out._set_value(_place(values, out.device)._value)
    if requires_grad:
        out.requires_grad_(True)
    return out


@_bound(_frequencies)
def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: _dt.dtype | None = None,
            layout=None, device=None, requires_grad: bool = False,
            pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.fft.fftfreq``: the sample frequencies of a signal of ``n`` points
    spaced ``d`` apart, ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``, in
    ``dtype`` (default: the default float dtype), rounded as PyTorch's recipe rounds
    them. Takes ``out=``, ``device`` and ``requires_grad``; ``layout`` must be strided;
    ``pin_memory`` has no effect (JAX manages host memory)."""


@_bound(_frequencies)
def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None,
             dtype: _dt.dtype | None = None, layout=None, device=None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.fft.rfftfreq``: the ``n // 2 + 1`` non-negative sample frequencies
    of ``rfft``, ``[0, 1, ..., n // 2] / (n * d)``; arguments as for ``fftfreq``."""


def _shift(kind: str, api, npos: int, args, kwargs, input, dim):
    """``fftshift``/``ifftshift``: ``roll`` by ``size // 2`` (``(size + 1) // 2``) along
    each dim, with PyTorch's argument checks."""
    relevant = _overloaded([input], {})
    if relevant:
        return handle_torch_function(api, relevant, args, kwargs)
    fname = "fft_" + kind
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input'{' (position 1)' if npos else ''} must "
                        f"be Tensor, not {type(input).__name__}")
    _int_list_type(fname, "dim", dim, 2 if npos > 1 else None)
    shape = input._shape
    dims = list(range(len(shape))) if dim is None else [_wrap(d, len(shape))
                                                        for d in _as_ints(dim)]
    if not dims:
        raise RuntimeError("`shifts` required")
    up = 0 if kind == "fftshift" else 1
    return _call_op("roll", input, [(shape[d] + up) // 2 for d in dims], dims)


@_bound(_shift)
def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Mirrors ``torch.fft.fftshift``: ``roll`` by half of each dim in ``dim`` (all dims by
    default), moving the zero frequency to the centre; differentiable
    (``RollBackward0``). Takes no ``out=``, as in PyTorch."""


@_bound(_shift)
def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Mirrors ``torch.fft.ifftshift``: the inverse of ``fftshift`` (rolls by
    ``(size + 1) // 2``)."""
