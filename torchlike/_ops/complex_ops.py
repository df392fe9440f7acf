"""Building and taking apart complex tensors: ``polar``, ``complex``, ``view_as_real``,
``view_as_complex``, and the function forms of the conjugate/negative bit queries
(``is_conj``, ``resolve_conj``, ``is_neg``, ``resolve_neg``). Each op is declared once;
see spec.py.

# Note [view_as_real and view_as_complex are guarded copies]
# In PyTorch both return a view: the same bytes read as pairs of floats or as complex
# numbers, so a write through either tensor is seen by the other. torchlike's storage
# model cannot say that: a ``Storage`` holds one JAX array of one dtype, and a view is
# a strided window over it in elements of that dtype (``_core/storage.py``); a float
# tensor cannot be a window over a complex array. Both functions therefore return a new
# tensor with the right values and gradients whose storage refuses to be silently
# wrong (``_CopyStorage``); ``Tensor.real`` and ``Tensor.imag`` of a complex tensor
# (elementwise.py) are guarded the same way:
#  * a write through the result, or through any view, ``detach()``, ``.data`` or
#    ``Parameter`` sharing its memory, raises instead of leaving the input unchanged;
#  * reading the result after the input (or any tensor sharing its memory) was changed
#    in place raises instead of returning the old values.
# ``torchlike.compile`` still swaps traced arrays in and out of such storages: the
# guard allows replacing the array by a tracer and putting the original back, and
# catches writes made while tracing (a tracer replaced by another tracer, or a bump
# of the result's version counter).
"""

from __future__ import annotations

import itertools
import weakref

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .autocast_policy import autocast_function
from .._core.storage import Storage, VersionCounter
from .._core.tensor import Tensor
from . import elementwise  # noqa: F401  (attaches Tensor.is_conj and friends first)
from ._common import check_broadcast
from .bind import FUNCTIONS, dtype_short_name
from .elementwise_common import tensors_only
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["view_as_real", "view_as_complex", "is_conj", "resolve_conj", "is_neg",
           "resolve_neg"]

_FLOATS = (_dt.float16, _dt.float32, _dt.float64)
_Tracer = jax.core.Tracer
_STALE_GEN = itertools.count(1)

# ---------------------------------------------------------------------------
# polar / complex
def _pair_check(name: str, first: str, second: str):
    """PyTorch's ``complex_check_dtype``: two Half/Float/Double tensors of one dtype,
    broadcastable. ``complex`` of Half tensors would be ComplexHalf (complex32), which
    torchlike does not have (JAX has no such type); PyTorch's CPU ``polar`` has no Half
    kernel."""
    types = tensors_only(name, (first, second), (0, 1))

    def chk(a, b):
        types(a, b)
        if a.dtype not in _FLOATS or b.dtype not in _FLOATS:
            raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but "
                               f"got {dtype_short_name(a.dtype)} and "
                               f"{dtype_short_name(b.dtype)}")
        if a.dtype is not b.dtype:
            raise RuntimeError(f"Expected object of scalar type {dtype_short_name(a.dtype)} "
                               f"but got scalar type {dtype_short_name(b.dtype)} for second "
                               "argument")
        check_broadcast(a, b)
        if a.dtype is _dt.float16:
            if name == "polar":
                raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
            raise NotImplementedError(
                "complex(): PyTorch returns a complex32 (ComplexHalf) tensor for Half inputs; "
                "torchlike has no complex32 dtype (JAX has none). Convert the inputs with "
                ".float() first to get complex64.")
    return chk


@jax.custom_vjp
def _polar_core(r, theta):
    return lax.complex(r * jnp.cos(theta), r * jnp.sin(theta))


def _polar_fwd(r, theta):
    out = _polar_core(r, theta)
    return out, out


def _polar_bwd(out, g):
    # PyTorch's polar_backward, which assumes abs >= 0: the gradient w.r.t. ``abs`` is
    # taken along sgn(result) (so it flips sign for negative ``abs`` and is 0 where the
    # result is 0); w.r.t. ``angle`` along i * result.
    mag = jnp.abs(out)
    nz = mag > 0
    sgn = jnp.where(nz, out / jnp.where(nz, mag, 1).astype(out.dtype), 0)
    return jnp.real(g * sgn), jnp.real(g * out * 1j)


_polar_core.defvjp(_polar_fwd, _polar_bwd)


def _polar_fn(r, theta):
    return _polar_core(*jnp.broadcast_arrays(r, theta))


def _complex_fn(real, imag):
    real, imag = jnp.broadcast_arrays(real, imag)
    return lax.complex(real, imag)


def _pair_samples(half: bool):
    """Samples of ``polar`` and ``complex``; ``half``: include Half inputs (PyTorch's
    ``polar`` rejects them; its ``complex`` gives complex32, which torchlike lacks)."""
    f64 = dict(dtype="float64")
    out = [S(arr(3, positive=True), arr(3)), S(arr(2, 1, **f64), arr(3, **f64)),
           S(arr(), arr()), S(arr(0, 2), arr(2)), S(arr(2, 3), arr(2, 3), grad=False),
           S(np.array([0.0, -1.5, 2.0], np.float32), np.array([0.3, 1.0, -2.0], np.float32)),
           S(arr(3), arr(3, **f64)), S(arr(3, dtype="int64"), arr(3, dtype="int64")),
           S(arr(3), arr(3, dtype="int32")), S(arr(2), arr(3)),
           S(arr(3, dtype="bfloat16"), arr(3, dtype="bfloat16")),
           S(arr(3, dtype="complex64"), arr(3, dtype="complex64")), S(arr(3), 1.0),
           S(1.0, arr(3))]
    if half:
        out.append(S(arr(3, dtype="float16"), arr(3, dtype="float16")))
    return out


register(OpSpec(
    "polar", _polar_fn, "abs, angle", tensor_args=("abs", "angle"), promote="none",
    method=False, check=_pair_check("polar", "abs", "angle"), grad_name="PolarBackward0",
    doc="Mirrors ``torch.polar(abs, angle)``: ``abs * (cos(angle) + i sin(angle))`` for "
        "two Float or Double tensors of one dtype (complex64 / complex128), broadcast.",
    samples=lambda: _pair_samples(half=True)))
register(OpSpec(
    "complex", _complex_fn, "real, imag", tensor_args=("real", "imag"), promote="none",
    method=False, check=_pair_check("complex", "real", "imag"), saves=False,
    grad_name="ComplexBackward0",
    doc="Mirrors ``torch.complex(real, imag)``: ``real + i imag`` for two Float or Double "
        "tensors of one dtype (complex64 / complex128), broadcast. Difference: Half inputs "
        "raise NotImplementedError (PyTorch returns complex32, which torchlike lacks).",
    samples=lambda: _pair_samples(half=False)))


# ---------------------------------------------------------------------------
# view_as_real / view_as_complex (Note [view_as_real and view_as_complex are guarded
# copies])
def _view_as_real_check(input):
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")


def _view_as_complex_check(input):
    if input.dtype not in _FLOATS:
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           "tensors, but got a tensor of scalar type: "
                           f"{dtype_short_name(input.dtype)}")
    if input.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    stride = input.stride()
    if stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if input.dtype is _dt.float16:
        raise NotImplementedError(
            "view_as_complex(): PyTorch views a Half tensor as complex32 (ComplexHalf); "
            "torchlike has no complex32 dtype (JAX has none). Convert the input with "
            ".float() first to get complex64.")


register(OpSpec(
    "_view_as_real", lambda input: jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1),
    "input", promote="none", method=False, function=False, check=_view_as_real_check,
    saves=False, grad_name="ViewAsRealBackward0", samples=lambda: []))
register(OpSpec(
    "_view_as_complex", lambda input: lax.complex(input[..., 0], input[..., 1]), "input",
    promote="none", method=False, function=False, check=_view_as_complex_check,
    saves=False, grad_name="ViewAsComplexBackward0", samples=lambda: []))


class _CopyStorage(Storage):
    """The storage of a ``view_as_real``/``view_as_complex`` result (Note [view_as_real
    and view_as_complex are guarded copies]). ``array`` refuses new values, except the
    tracers ``torchlike.compile`` swaps in and the original put back; reading it (or
    its write generation, which views consult) fails once the source tensor's memory
    was written after the result was made."""

    __slots__ = ("_arr", "_gen", "_concrete", "_prev", "_op", "_src_storage", "_src_ref",
                 "_src_vc", "_src_version")

    @property
    def array(self):
        self._check_fresh()
        return self._arr

    @array.setter
    def array(self, value):
        cur = self._arr
        traced = isinstance(value, _Tracer)
        if value is self._concrete and value is not None:
            pass                           # a compiled call puts the original back
        elif traced and not isinstance(cur, _Tracer):
            pass                           # a compiled call swaps a tracer in
        elif not traced and isinstance(cur, _Tracer) and self._concrete is None:
            # made while tracing; the compiled call hands out its value
            self._concrete = value
            self._snapshot_source()
        else:
            raise _write_error(self._op)
        self._prev = cur
        self._arr = value

    # Views of the result read their cached value while ``gen`` is unchanged, so a stale
    # storage reports a new generation on every read: they re-read ``array``, which
    # raises. (Raising here would break the bookkeeping of torchlike.compile, which
    # bumps ``gen`` while putting arrays back after a failed trace.)
    @property
    def gen(self) -> int:
        if self._stale():
            return -next(_STALE_GEN)
        return self._gen

    @gen.setter
    def gen(self, value: int) -> None:
        self._gen = value

    def _snapshot_source(self) -> None:
        src = self._src_storage
        a = src._arr if isinstance(src, _CopyStorage) else src.array
        try:
            self._src_ref = weakref.ref(a)   # (not keeping an outdated array alive)
        except TypeError:
            self._src_ref = lambda: a
        self._src_version = self._src_vc.v

    def _stale(self) -> bool:
        """Whether the source's memory was written since the result was made (its
        version moved, or its storage holds another concrete array)."""
        if self._src_vc.v != self._src_version:
            return True
        src = self._src_storage
        if isinstance(src, _CopyStorage):   # a copy of a copy: stale when its source is
            if src._stale():
                return True
            a = src._arr
        else:
            a = src.array
        return a is not self._src_ref() and not isinstance(a, _Tracer)

    def _check_fresh(self) -> None:
        if self._stale():
            raise _stale_error(self._op)


class _CopyVersionCounter(VersionCounter):
    """The version counter of a guarded copy: an in-place write bumps it, so bumping
    it raises (and undoes the write that a traced call let through the storage)."""

    __slots__ = ("_v", "_storage")

    @property
    def v(self) -> int:
        return self._v

    @v.setter
    def v(self, value: int) -> None:
        if value != self._v:
            st = self._storage
            st._arr = st._prev
            raise _write_error(st._op)
        self._v = value


def _write_error(op: str) -> RuntimeError:
    return RuntimeError(
        f"{op}(): in PyTorch the result is a view sharing memory with the input, so an "
        "in-place write to it changes the input; torchlike's result is a copy (its storage "
        "model cannot view one dtype as another), so the write is refused rather than "
        "leaving the input unchanged. Write to the input instead and call "
        f"{op}() again, or .clone() the result to get a tensor you may modify.")


def _stale_error(op: str) -> RuntimeError:
    return RuntimeError(
        f"{op}(): the input was modified in place after this result was made. In PyTorch "
        "the result is a view and would show the change; torchlike's result is a copy "
        "(its storage model cannot view one dtype as another), so reading it would give "
        f"the old values. Call {op}() again after modifying the input, or .clone() the "
        "result before modifying the input to keep the old values.")


def _guard(out: Tensor, source: Tensor, op: str) -> Tensor:
    """Give ``out`` (a fresh result of ``op`` on ``source``) a guarded storage and
    version counter."""
    st = out._storage
    g = object.__new__(_CopyStorage)
    g._gen, g.uid, g.dtype = st.gen, st.uid, st.dtype
    g._arr = g._prev = st.array
    g._concrete = None if isinstance(g._arr, _Tracer) else g._arr
    g._op = op
    g._src_storage = source._storage
    g._src_vc = source._vc
    g._snapshot_source()
    vc = object.__new__(_CopyVersionCounter)
    vc._v = out._vc.v
    vc._storage = g
    out._storage = g
    out._vc = vc
    return out


def _tensor_arg(name: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _overridden(api, input):
    """The result of a ``__torch_function__`` override of ``api`` for ``input``, or
    None when there is none."""
    if type(input) is Tensor:
        return None
    from .torch_function import _overloaded_args, handle_torch_function
    rel = _overloaded_args([input])
    if not rel:
        return None
    return (handle_torch_function(api, rel, (input,), {}),)


def view_as_real(input: Tensor) -> Tensor:
    """Mirrors ``torch.view_as_real``: a complex tensor of shape ``S`` as a real tensor of
    shape ``S + (2,)`` (real and imaginary parts last), with ``ViewAsRealBackward0``.

    Difference: PyTorch returns a view sharing memory with ``input``; torchlike returns
    a copy (Note [view_as_real and view_as_complex are guarded copies] in
    ``_ops/complex_ops.py``). It is never silently stale: an in-place write through the
    result (or a view, ``detach()`` or ``.data`` of it) raises RuntimeError, and so
    does reading it after ``input`` was modified in place. ``result._base`` is None.

    >>> import torchlike as torch
    >>> torch.view_as_real(torch.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    res = _overridden(view_as_real, input)
    if res is not None:
        return res[0]
    _tensor_arg("view_as_real", input)
    from .dispatch import call_op
    return _guard(call_op("_view_as_real", input), input, "view_as_real")


@autocast_function("view_as_complex")
def view_as_complex(input: Tensor) -> Tensor:
    """Mirrors ``torch.view_as_complex``: a Float/Double tensor whose last dimension has
    size 2 and stride 1 (other strides and the storage offset even) as a complex tensor
    without that dimension, with ``ViewAsComplexBackward0`` and PyTorch's errors.

    Differences: PyTorch returns a view sharing memory with ``input``; torchlike returns
    a copy that refuses in-place writes and reads after ``input`` changed (see
    ``view_as_real``). Half inputs raise NotImplementedError (PyTorch gives complex32,
    which torchlike lacks).

    >>> import torchlike as torch
    >>> torch.view_as_complex(torch.tensor([[1.0, 2.0]])).tolist()
    [(1+2j)]
    """
    res = _overridden(view_as_complex, input)
    if res is not None:
        return res[0]
    _tensor_arg("view_as_complex", input)
    from .dispatch import call_op
    return _guard(call_op("_view_as_complex", input), input, "view_as_complex")


# ---------------------------------------------------------------------------
# function forms of the Tensor methods for the conjugate and negative bits
def is_conj(input: Tensor) -> bool:
    """Mirrors ``torch.is_conj``: ``input.is_conj()`` (always False in torchlike, whose
    ``conj`` materialises)."""
    _tensor_arg("is_conj", input)
    return input.is_conj()


def resolve_conj(input: Tensor) -> Tensor:
    """Mirrors ``torch.resolve_conj``: ``input.resolve_conj()``."""
    _tensor_arg("resolve_conj", input)
    return input.resolve_conj()


def is_neg(input: Tensor) -> bool:
    """Mirrors ``torch.is_neg``: ``input.is_neg()`` (always False in torchlike)."""
    _tensor_arg("is_neg", input)
    return input.is_neg()


def resolve_neg(input: Tensor) -> Tensor:
    """Mirrors ``torch.resolve_neg``: ``input.resolve_neg()``."""
    _tensor_arg("resolve_neg", input)
    return input.resolve_neg()


def _public(fn):
    fn.__module__ = "torchlike"
    return fn


# Non-table functions of this family, exported as ``torchlike.<name>`` with the table's.
FUNCTIONS.update({f.__name__: _public(f) for f in (view_as_real, view_as_complex)})
FUNCTIONS.update({f.__name__: _public(f) for f in (is_conj, resolve_conj, is_neg, resolve_neg)
                  if hasattr(Tensor, f.__name__)})
