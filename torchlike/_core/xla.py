"""``jax.jit`` with the XLA compiler options torchlike's own programs are compiled with.

# Note [XLA's CPU convolution kernels]
# In jaxlib 0.10, XLA's CPU compiler hands dot products, reductions and convolutions
# to YNNPACK (``xla_cpu_experimental_ynn_fusion_type``, whose default is the three
# ``LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT``, ``..._INDIVIDUAL_CONVOLUTION`` and
# ``..._REDUCE``). Its convolutions are slower than XLA's own (Eigen) convolution kernels
# on nearly every shape a training step meets. ``benchmarks/conv_lowering.py``, the
# forward and backward of one convolution inside one ``jax.jit`` (ms, 2 cores, the rows
# of Note [Convolution lowering on CPU], each with the lowering torchlike picks; the
# other lowerings moved alike; XLA's own kernels measured by setting the option below
# in ``XLA_FLAGS``, now ``--kernels torchlike``, the default):
#
#   case                          YNNPACK convolutions   XLA's own    PyTorch eager
#   LeNet conv1 3->6 k5           4.71                   2.28         3.64
#   LeNet conv2 6->16 k5          2.71                   1.67         2.36
#   3x3 16->32 32x32              13.8                   8.1          10.3
#   ResNet 3x3 64->64 32x32       96.5                   70.6         42.2
#   ResNet 3x3 s2 32->64          17.5                   10.3         9.8
#   1-d 16->32 k5 L128            0.73                   0.98         2.20
#
# So the programs torchlike compiles that hold a convolution (a convolution op's eager
# executable and its recorded backward, a fused backward over such nodes, a
# ``torchlike.compile`` step whose trace has one, a wrapped Flax module) keep YNNPACK's
# dots and reductions and leave convolutions to XLA: ``jit`` below compiles them with
# ``xla_cpu_experimental_ynn_fusion_type`` as a per-program compiler option. Programs
# without convolutions are compiled as before, and the user's own ``jax.jit`` programs
# are untouched (a ``torchlike.func`` call traced inside one is compiled with the user's
# options). JAX accepts compiler options only on a program called outside any trace, not
# on one staged into another (``jax.jit``, ``torchlike.compile``'s trace, ``jax.grad``),
# so such a program is two jits, chosen per call by whether a trace is under way (0.6 us
# per call, measured on a trivial program, against the milliseconds of a convolution).
# The option is left out where it cannot apply: when the default backend is not the CPU,
# when the jaxlib in use does not know it (checked once, by compiling an empty program
# with it), and when ``XLA_FLAGS`` sets it, so that the user's choice wins.
"""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Any, Callable

import jax
import jax.extend.core as _jex

__all__ = ["jit", "compiler_options", "has_convolution", "conv_precision",
           "set_float32_precisions", "matmul_precision"]

_YNN_OPTION = "xla_cpu_experimental_ynn_fusion_type"
_CPU_OPTIONS = {_YNN_OPTION: "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}

# Outside any trace, JAX's current trace is its one evaluating trace (torchlike is
# imported outside any trace).
_current_trace = getattr(_jex, "find_top_trace", None)
_EVAL_TRACE = _current_trace(()) if _current_trace is not None else None


@functools.cache
def _supported() -> bool:
    if _EVAL_TRACE is None:
        return False
    try:
        jax.jit(lambda x: x, compiler_options=_CPU_OPTIONS).lower(0.0).compile()
    except Exception:   # an older jax (no compiler_options) or jaxlib (no such option)
        return False
    return True


def compiler_options() -> dict[str, Any] | None:
    """The compiler options of torchlike's programs with convolutions here (Note [XLA's
    CPU convolution kernels]), or None where there are none to pass."""
    if _YNN_OPTION in os.environ.get("XLA_FLAGS", ""):
        return None
    if jax.default_backend() != "cpu" or not _supported():
        return None
    return _CPU_OPTIONS


class _Tuned:
    """A program compiled with compiler options when called outside any trace, and
    without them when staged into one (where JAX refuses them)."""

    __slots__ = ("tuned", "plain", "__wrapped__", "__weakref__")

    def __init__(self, fun: Callable, options: dict, kwargs: dict):
        self.tuned = jax.jit(fun, compiler_options=options, **kwargs)
        self.plain = jax.jit(fun, **kwargs)
        self.__wrapped__ = fun

    def _pick(self):
        return self.tuned if _current_trace(()) is _EVAL_TRACE else self.plain

    def __call__(self, *args, **kwargs):
        return self._pick()(*args, **kwargs)

    def lower(self, *args, **kwargs):
        return self._pick().lower(*args, **kwargs)


# Note [float32 matmul precision]
# PyTorch multiplies float32 matrices in full float32 unless told otherwise
# (``torch.set_float32_matmul_precision("high")`` or the older
# ``torch.backends.cuda.matmul.allow_tf32 = True`` allow TensorFloat-32, "medium"
# bfloat16), while its convolutions may use TensorFloat-32 by default
# (``torch.backends.cudnn.allow_tf32``, True). JAX's default on a GPU is the fastest
# precision for both (TensorFloat-32 on recent NVIDIA GPUs, bfloat16 passes on TPU). So
# the products of the op table (``matmul``, ``mm``, ``linear``, ``einsum``...) name the
# precision of the setting (:func:`matmul_precision`: "highest" -> HIGHEST, "high" ->
# HIGH, "medium" -> DEFAULT; so by default they do not depend on the backend), and on
# accelerators every program torchlike compiles is also traced under
# ``jax.default_matmul_precision`` of the setting, for the products that name none.
# Convolutions name theirs on accelerators (DEFAULT with ``cudnn.allow_tf32``, else
# HIGHEST). The precision is recorded in the traced program, so a change of setting
# drops JAX's caches, and the programs are traced again. XLA's CPU products of float32
# are float32 at any precision (PyTorch's CPU "medium" may use bfloat16 through oneDNN;
# torchlike's does not).
_MATMUL_PRECISION = {"highest": "highest", "high": "high", "medium": "default"}
_precision = ["highest"]    # torchlike.get_float32_matmul_precision()
_conv_tf32 = [True]         # torchlike.backends.cudnn.allow_tf32


def set_float32_precisions(matmul: str | None = None, conv_tf32: bool | None = None) -> None:
    """Set the float32 matmul precision ("highest", "high", "medium") and whether
    convolutions may use TensorFloat-32; programs traced under other settings are
    dropped (Note [float32 matmul precision])."""
    changed = False
    if matmul is not None and matmul != _precision[0]:
        _precision[0] = matmul
        changed = True
    if conv_tf32 is not None and bool(conv_tf32) != _conv_tf32[0]:
        _conv_tf32[0] = bool(conv_tf32)
        changed = True
    if changed:
        jax.clear_caches()


def matmul_precision() -> str:
    """The ``precision`` torchlike's float32 products pass to JAX, after
    ``torchlike.set_float32_matmul_precision`` (read while a program is traced)."""
    return _MATMUL_PRECISION[_precision[0]]


def _applies() -> bool:
    return jax.default_backend() != "cpu"


def conv_precision():
    """The ``precision`` a convolution passes to ``lax.conv_general_dilated``: None on the
    CPU, else after ``torchlike.backends.cudnn.allow_tf32``."""
    if not _applies():
        return None
    return "default" if _conv_tf32[0] else "highest"


def _with_precision(fun: Callable) -> Callable:
    @functools.wraps(fun)
    def traced(*args, **kwargs):
        if not _applies():
            return fun(*args, **kwargs)
        with jax.default_matmul_precision(_MATMUL_PRECISION[_precision[0]]):
            return fun(*args, **kwargs)
    return traced


# Note [Portable lowering]
# Some ops lower differently on the CPU, for speed (convolutions as matmuls, Note [XLA's
# CPU convolution kernels]), and max pooling gathers each window's first maximum so that
# its gradient goes where PyTorch's does. A program traced to be written out for another
# runtime (``torchlike.onnx.export``) wants neither: inside ``portable_lowering()`` ops
# trace to their plain forms (``lax.conv``, a window maximum), which compute the same
# values, so that the exported graph has one Conv or MaxPool node per op. JAX keeps the
# traces of each op's executable, so the ops get executables of their own for the mode
# (``_ops.dispatch.separate_executables``), which are dropped after it.
_portable = [False]


@contextlib.contextmanager
def portable_lowering():
    """Trace ops in their backend-neutral forms (Note [Portable lowering])."""
    from .._ops.dispatch import separate_executables
    prev = _portable[0]
    _portable[0] = True
    try:
        with separate_executables():
            yield
    finally:
        _portable[0] = prev


def portable() -> bool:
    """Whether ops are being traced in their backend-neutral forms."""
    return _portable[0]


def runs_on_cpu(x) -> bool:
    """Whether the computation of array ``x`` runs on the CPU, as far as trace time can
    tell: a concrete array's own device, else JAX's default device or backend (where a
    traced program runs). False inside ``portable_lowering()``."""
    if _portable[0]:
        return False
    if isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer):
        return all(d.platform == "cpu" for d in x.devices())
    dev = jax.config.jax_default_device
    if dev is not None:
        return (dev if isinstance(dev, str) else dev.platform) == "cpu"
    return jax.default_backend() == "cpu"


def jit(fun: Callable, *, convolutions: bool, **kwargs) -> Callable:
    """``jax.jit(fun, **kwargs)``, traced under the float32 matmul precision of the
    settings (Note [float32 matmul precision]); for a program with ``convolutions``,
    compiled with :func:`compiler_options` where there are any (Note [XLA's CPU
    convolution kernels]). Arguments the program does not read stay its inputs
    (``keep_unused``, unless the caller says otherwise), so that they place it: the array
    ``t.zero_()`` or ``t.fill_(2.0)`` writes into ``t`` reads none of ``t``'s values, and
    without ``t`` among its inputs it was made on JAX's default device, a GPU where there
    is one, instead of ``t``'s (Note [Made arrays follow their tensor] in device.py)."""
    fun = _with_precision(fun)
    kwargs.setdefault("keep_unused", True)
    options = compiler_options() if convolutions else None
    if options is None:
        return jax.jit(fun, **kwargs)
    return _Tuned(fun, options, kwargs)


def has_convolution(jaxpr) -> bool:
    """Whether ``jaxpr`` (or a jaxpr inside it) has a convolution."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "conv_general_dilated":
            return True
        for sub in _jex.jaxprs_in_params(eqn.params):
            if has_convolution(sub):
                return True
    return False
