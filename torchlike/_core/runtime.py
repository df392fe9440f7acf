"""PyTorch's process-wide settings, and what each means when XLA runs the programs.

Mirrors ``torch.get_num_threads``/``set_num_threads``, ``get_num_interop_threads``/
``set_num_interop_threads``, ``torch.use_deterministic_algorithms`` and its companions,
and the small helpers ``torch.typename``, ``torch.is_storage`` and ``torch.is_signed``.

# Note [XLA's CPU thread pools]
# XLA's CPU client (``PjRtCpuClient``, which JAX's CPU backend is) makes two thread
# pools when it is created and never resizes them: "XLAEigen", the intra-op pool on which
# compiled programs run their parallel loops, matrix products and convolutions (PyTorch's
# intra-op threads), and "XLAPjRtCpuClient", on which programs are dispatched and run
# asynchronously, so that independent programs overlap (the nearest thing to PyTorch's
# inter-op threads). Both get ``num_threads = max(DefaultThreadPoolSize(), number of CPU
# devices)`` threads, the intra-op pool at most 256. ``DefaultThreadPoolSize()`` reads
# the environment variable ``PJRT_NPROC``, then ``NPROC`` (an integer, negatives as 0),
# else counts the CPUs this process may run on (its affinity mask). There is no other knob:
# no client option, XLA flag or per-program compiler option sizes these pools.
# (``--xla_cpu_multi_thread_eigen=false`` only makes a program's Eigen matrix products and
# convolutions single-threaded; its other parallel work still uses the pool.)
#
# The client is created when JAX's backends start, and importing torchlike starts them
# (it makes arrays at import, e.g. the default generator's key). So from torchlike the
# pools can only be sized through the environment before the process imports torchlike,
# ``PJRT_NPROC=1 python train.py``; ``set_num_threads`` with another number raises rather
# than be silently ignored (PyTorch itself raises when ``set_num_interop_threads`` comes
# after parallel work has started). The numbers reported are computed by XLA's rule from
# the environment as it was when this module was imported, that is when the backend had
# just started; tests/test_runtime_settings.py checks them against the threads really
# running.
#
# The client runs a program whose cost analysis counts fewer than 1000 flops in the
# calling thread and any other one on its client pool, which the caller waits for when it
# reads the result. On a small machine that handoff costs more than a small eager op (a
# 64x64 matmul: 24-26 us handed off, 12.6-17.7 us in the caller, on two vCPUs), while
# compiled training steps gain from it (their Python work overlaps the running program).
# torchlike keeps JAX's default; ``jax.config.update("jax_cpu_enable_async_dispatch",
# False)`` before importing torchlike runs every program in the caller, as PyTorch runs
# its CPU ops (benchmarks/README.md, "CPU dispatch", has the figures both ways).
#
# Note [Deterministic algorithms on XLA]
# XLA:CPU programs give the same results run after run (for a given thread-pool size):
# XLA:CPU does not autotune, and its scatters and reductions accumulate in a fixed order.
# XLA:GPU programs do not by default: scatters (the gradients of indexing and embedding),
# select-and-scatter (max-pool gradients), GEMMs, convolutions and attention may use
# atomics, and autotuning may pick different kernels in different runs. The XLA flag
# ``--xla_gpu_exclude_nondeterministic_ops`` switches these to deterministic
# implementations (and makes compilation fail for select-and-scatter, which has none:
# PyTorch's "does not have a deterministic implementation" error), and
# ``--xla_gpu_deterministic_ops`` does that and also turns autotuning off. Both are
# ``DebugOptions`` read from ``XLA_FLAGS`` once, when the backend starts; JAX also takes
# them per program (``jax.jit(f, compiler_options={"xla_gpu_deterministic_ops": True})``),
# but torchlike compiles its own programs without them. So on a GPU
# ``use_deterministic_algorithms(True)`` is honoured only when ``XLA_FLAGS`` set one of them
# at startup; otherwise it raises (with ``warn_only=True``: warns) instead of promising a
# determinism XLA will not give. XLA has no such flag for other accelerators (TPU), where
# the same applies.
"""

from __future__ import annotations

import builtins
import functools
import os
import shlex
import sys
import warnings
from typing import Any

import jax
import numpy as np

from . import xla
from .dtype_info import _tp_name

__all__ = [
    "get_num_threads", "set_num_threads", "get_num_interop_threads",
    "set_num_interop_threads", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode", "get_deterministic_debug_mode", "typename",
    "is_storage", "is_signed", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "set_warn_always", "is_warn_always_enabled", "set_flush_denormal", "get_default_device",
    "set_default_device", "set_anomaly_enabled", "set_default_tensor_type", "get_device",
    "get_device_module", "is_distributed",
]

# The environment XLA's client and compiler read when the backend started (Note [XLA's
# CPU thread pools]): torchlike's import has started it by the time this module runs.
_STARTUP_ENV = {k: os.environ.get(k) for k in ("PJRT_NPROC", "NPROC", "XLA_FLAGS")}

_MAX_INTRA_OP_THREADS = 256   # XLA's cap on its intra-op pool (kMaxIntraOpThreads)


# ------------------------------------------------------------- float32 matmul precision
_PRECISIONS = ("highest", "high", "medium")


def set_float32_matmul_precision(precision: str) -> None:
    """Mirrors ``torch.set_float32_matmul_precision``: "highest" (float32, the default),
    "high" (TensorFloat-32 or bfloat16x3 where the accelerator has them) or "medium"
    (bfloat16). Another string warns and changes nothing, as in PyTorch. Applies to the
    programs torchlike traces from then on, on accelerators; XLA's CPU products stay
    float32 (Note [float32 matmul precision] in ``_core/xla.py``)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got "
                           f"{type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning,
                      stacklevel=2)
        return
    xla.set_float32_precisions(matmul=precision)


def get_float32_matmul_precision() -> str:
    """Mirrors ``torch.get_float32_matmul_precision``: "highest", "high" or "medium"."""
    return xla._precision[0]


# ---------------------------------------------------------------------------- threads
def _simple_atoi(text: str | None) -> int | None:
    """absl::SimpleAtoi for a 32-bit int: surrounding whitespace, an optional sign and
    decimal digits, in range; None where it would fail."""
    if text is None:
        return None
    s = text.strip(" \t\n\v\f\r")
    digits = s[1:] if s[:1] in ("+", "-") else s
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    value = int(s)
    return value if -2**31 <= value < 2**31 else None


def _cpu_device_count() -> int:
    try:
        return len(jax.devices("cpu"))
    except RuntimeError:    # JAX_PLATFORMS without cpu: XLA's default of one CPU device
        return 1


@functools.cache
def _client_threads() -> int:
    """``num_threads`` of XLA's CPU client (Note [XLA's CPU thread pools])."""
    for var in ("PJRT_NPROC", "NPROC"):
        value = _simple_atoi(_STARTUP_ENV[var])
        if value is not None:
            pool = max(0, value)
            break
    else:
        affinity = getattr(os, "sched_getaffinity", None)
        pool = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return max(pool, _cpu_device_count())


def _thread_count_arg(name: str, n: Any) -> int:
    """PyTorch's checks of a thread count: an int (not bool), 32-bit, positive."""
    if not ((isinstance(n, int) and not isinstance(n, builtins.bool))
            or isinstance(n, np.integer)):
        raise RuntimeError(f"{name} expects an int, but got {_tp_name(n)}")
    value = int(n)
    if not -2**63 <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if not -2**31 <= value < 2**31:
        raise ValueError("Overflow when unpacking long")
    if value <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return value


def _fixed_pool_advice(n: int) -> str:
    advice = (f"To use {n} instead, set the environment variable PJRT_NPROC={n} "
              f"before the process imports torchlike (e.g. `PJRT_NPROC={n} python "
              "script.py`).")
    devices = _cpu_device_count()
    if n < devices:
        advice += (f" XLA gives each pool at least one thread per CPU device, and there are "
                   f"{devices} (--xla_force_host_platform_device_count).")
    return advice


def get_num_threads() -> int:
    """Mirrors ``torch.get_num_threads``: the number of intra-op threads on the CPU.

    Here it is the size of XLA's intra-op pool ("XLAEigen"), on which compiled CPU programs
    run their parallel loops, matrix products and convolutions: ``PJRT_NPROC`` (else
    ``NPROC``, else the CPUs this process may run on) as the environment held it when
    torchlike was imported, at least the number of CPU devices, at most 256 (Note [XLA's
    CPU thread pools]). PyTorch reads ``OMP_NUM_THREADS`` instead; XLA does not.
    """
    return min(_client_threads(), _MAX_INTRA_OP_THREADS)


def set_num_threads(n: int, /) -> None:
    """Mirrors ``torch.set_num_threads(n)``, with PyTorch's argument errors (an int, not
    bool: ``RuntimeError``; beyond 32 bits: ``ValueError``; ``n <= 0``: ``RuntimeError``).

    XLA sizes its CPU thread pool once, when JAX's backend starts, and importing torchlike
    starts it (Note [XLA's CPU thread pools]). So ``n`` equal to :func:`get_num_threads`
    is accepted and changes nothing, and any other ``n`` raises ``RuntimeError`` saying to
    set ``PJRT_NPROC=n`` in the environment before importing torchlike: PyTorch would
    resize its pool; ignoring the call would leave the program running on a thread count it
    did not ask for.

    Example::

        >>> torchlike.set_num_threads(torchlike.get_num_threads())
    """
    value = _thread_count_arg("set_num_threads", n)
    current = get_num_threads()
    if value != current:
        raise RuntimeError(
            f"set_num_threads({value}): XLA's CPU thread pool has {current} threads; XLA "
            "sizes it when JAX's backend starts, which importing torchlike does, and cannot "
            f"resize it afterwards. {_fixed_pool_advice(value)}")


def get_num_interop_threads() -> int:
    """Mirrors ``torch.get_num_interop_threads``: the number of inter-op threads.

    Here it is the size of XLA's CPU client pool ("XLAPjRtCpuClient"), which dispatches
    and runs programs asynchronously so that independent ones overlap: the same
    ``PJRT_NPROC`` rule as :func:`get_num_threads`, without its 256 cap (Note [XLA's CPU
    thread pools]).
    """
    return _client_threads()


def set_num_interop_threads(n: int, /) -> None:
    """Mirrors ``torch.set_num_interop_threads(n)``, with PyTorch's argument errors.

    PyTorch raises ``RuntimeError`` once parallel work has started. XLA's client pool
    started with JAX's backend, when torchlike was imported, and is sized by the same
    ``PJRT_NPROC`` as the intra-op pool (Note [XLA's CPU thread pools]): ``n`` equal to
    :func:`get_num_interop_threads` is accepted and changes nothing, any other ``n``
    raises PyTorch's error, followed by how to choose the size.
    """
    value = _thread_count_arg("set_num_interop_threads", n)
    current = get_num_interop_threads()
    if value != current:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            f"set_num_interop_threads called. XLA's CPU client pool has {current} threads, "
            "fixed when JAX's backend started (importing torchlike starts it); its size is "
            f"the intra-op pool's. {_fixed_pool_advice(value)}")


# ---------------------------------------------------------------------- determinism
_deterministic = {"mode": False, "warn_only": False}


def _xla_flag_on(flags: str | None, name: str) -> builtins.bool:
    """Whether the XLA_FLAGS string ``flags`` turns the boolean flag ``name`` on (the
    last mention wins, as in XLA's parser)."""
    on = False
    try:
        tokens = shlex.split(flags or "")
    except ValueError:
        tokens = (flags or "").split()
    for token in tokens:
        if token in (f"--{name}", f"--{name}=true", f"--{name}=1"):
            on = True
        elif token in (f"--no{name}", f"--{name}=false", f"--{name}=0"):
            on = False
    return on


def _nondeterminism() -> str | None:
    """Why XLA here does not promise deterministic results, or None where it does (Note
    [Deterministic algorithms on XLA])."""
    backend = jax.default_backend()
    if backend == "cpu":
        return None
    flags = _STARTUP_ENV["XLA_FLAGS"]
    if backend in ("gpu", "cuda", "rocm"):
        if (_xla_flag_on(flags, "xla_gpu_deterministic_ops")
                or _xla_flag_on(flags, "xla_gpu_exclude_nondeterministic_ops")):
            return None
        return ("Deterministic algorithms were requested, but XLA:GPU compiles scatters, "
                "select-and-scatters, GEMMs and convolutions to non-deterministic kernels "
                "unless it was started with the flag --xla_gpu_deterministic_ops=true. XLA "
                "reads XLA_FLAGS once, when JAX's backend starts (importing torchlike starts "
                "it): set XLA_FLAGS=--xla_gpu_deterministic_ops=true in the environment "
                "before the process imports torchlike, or pass warn_only=True to go on "
                "without the guarantee.")
    return (f"Deterministic algorithms were requested, but XLA has no flag that makes "
            f"programs on the '{backend}' backend deterministic, so torchlike cannot promise "
            "it there. Pass warn_only=True to go on without the guarantee.")


def _set_deterministic(mode: builtins.bool, warn_only: builtins.bool) -> None:
    if mode:
        problem = _nondeterminism()
        if problem is not None:
            if not warn_only:
                raise RuntimeError(problem)
            warnings.warn(problem, UserWarning, stacklevel=3)
    _deterministic["mode"] = mode
    _deterministic["warn_only"] = warn_only


def use_deterministic_algorithms(mode: builtins.bool, *,
                                 warn_only: builtins.bool = False) -> None:
    """Mirrors ``torch.use_deterministic_algorithms(mode, *, warn_only=False)``, with
    PyTorch's ``TypeError`` when ``mode`` or ``warn_only`` is not a bool.

    What ``mode=True`` means on XLA (Note [Deterministic algorithms on XLA]):

    - CPU: XLA:CPU programs are already deterministic run to run; nothing changes.
    - GPU: deterministic only when ``XLA_FLAGS`` held ``--xla_gpu_deterministic_ops=true``
      (or ``--xla_gpu_exclude_nondeterministic_ops=true``) when torchlike was imported;
      then XLA compiles every program with deterministic scatters, GEMMs and convolutions,
      and fails to compile select-and-scatter (max-pool gradients), which has no
      deterministic form, as PyTorch raises for such ops. Without the flag the call raises
      ``RuntimeError`` saying to set it, since it can no longer take effect.
    - other accelerators (TPU): XLA offers no such flag; the call raises the same way.

    With ``warn_only=True`` the cases that would raise warn (``UserWarning``) once, here,
    rather than at each op as PyTorch does. ``mode=False`` only records the setting: a
    flag set at startup keeps XLA deterministic. Difference: PyTorch fills the tensors
    ``torch.empty`` makes with NaN (integers: their maximum) in this mode
    (``torch.utils.deterministic.fill_uninitialized_memory``); ``torchlike.empty`` stays
    zero-filled, which is deterministic too.

    Example::

        >>> torchlike.use_deterministic_algorithms(True)   # on the CPU
        >>> torchlike.are_deterministic_algorithms_enabled()
        True
        >>> torchlike.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must "
                        f"be bool, not {_tp_name(mode)}")
    if not isinstance(warn_only, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {_tp_name(warn_only)}")
    _set_deterministic(mode, warn_only)


def are_deterministic_algorithms_enabled() -> builtins.bool:
    """Mirrors ``torch.are_deterministic_algorithms_enabled``: the ``mode`` last set with
    :func:`use_deterministic_algorithms` or :func:`set_deterministic_debug_mode`."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    """Mirrors ``torch.is_deterministic_algorithms_warn_only_enabled``: the ``warn_only``
    last set."""
    return _deterministic["warn_only"]


def set_deterministic_debug_mode(debug_mode: builtins.int | str) -> None:
    """Mirrors ``torch.set_deterministic_debug_mode``: ``"default"``/0 turns
    deterministic algorithms off, ``"warn"``/1 on with ``warn_only=True``, ``"error"``/2
    on; PyTorch's ``TypeError``/``RuntimeError`` for other values. The effect on XLA is
    that of :func:`use_deterministic_algorithms`.
    """
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if debug_mode == 0:
        _set_deterministic(False, False)
    elif debug_mode == 1:
        _set_deterministic(True, True)
    elif debug_mode == 2:
        _set_deterministic(True, False)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")


def get_deterministic_debug_mode() -> builtins.int:
    """Mirrors ``torch.get_deterministic_debug_mode``: 0 off, 1 warn only, 2 error."""
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


# -------------------------------------------------------------------------- helpers
def _public_module(module: str, name: str, target: Any) -> str:
    """``module``, or the public torchlike package before its first private part when
    that package exports ``target`` as ``name`` (``torchlike._core.tensor`` → ``torchlike``
    for ``Tensor``), as PyTorch's C types report ``torch``."""
    parts = module.split(".")
    if parts[0] != "torchlike":
        return module
    private = next((i for i, p in enumerate(parts) if p.startswith("_")), None)
    if private is None:
        return module
    public = ".".join(parts[:private])
    if getattr(sys.modules.get(public), name, None) is target:
        return public
    return module


def typename(obj: Any, /) -> str:
    """Mirrors ``torch.typename``: a tensor's legacy type name (``Tensor.type()``),
    otherwise the object's (or its class's) module and qualified name.

    As torchlike's reprs say ``torchlike.`` where PyTorch's say ``torch.``, a tensor gives
    ``'torchlike.FloatTensor'`` where PyTorch gives ``'torch.FloatTensor'``, and the core
    types defined in private modules are named by their public home, as PyTorch names its
    C types: ``'torchlike.Tensor'``, ``'torchlike.dtype'`` (for ``torchlike.float32``),
    ``'torchlike.device'``, ``'torchlike.Size'``, ``'torchlike.finfo'``. Other objects
    report their real module, as in PyTorch (``'torchlike.nn.modules.linear.Linear'``).

    Example::

        >>> torchlike.typename(torchlike.tensor([1, 2, 3]))
        'torchlike.LongTensor'
    """
    from .tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    target = obj
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        target = obj.__class__
        module = target.__module__ or ""
        qualname = target.__qualname__
    if not isinstance(module, str):
        module = ""
    module = _public_module(module, qualname, target)
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def is_storage(obj: Any, /) -> builtins.bool:
    """Mirrors ``torch.is_storage``: whether ``obj`` is a storage, i.e. what
    ``Tensor.storage()`` or ``Tensor.untyped_storage()`` returns (a tensor is not)."""
    from .tensor import _TypedStorage
    return type(obj) is _TypedStorage


def is_signed(input: Any) -> builtins.bool:
    """Mirrors ``torch.is_signed(input)``: ``input.is_signed()``, False only for uint8 and
    bool (complex and floating dtypes are signed); PyTorch's ``TypeError`` for a
    non-tensor."""
    from .tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError("is_signed(): argument 'input' (position 1) must be Tensor, not "
                        f"{_tp_name(input)}")
    return input.is_signed()


# ------------------------------------------------------------------ warnings, denormals
_warn_always = [False]


def _bool_flag(what: str, value: Any) -> builtins.bool:
    if not isinstance(value, builtins.bool):
        raise RuntimeError(f"{what} expects a bool, but got {_tp_name(value)}")
    return value


def set_warn_always(b: builtins.bool, /) -> None:
    """Mirrors ``torch.set_warn_always(b)``: with True, warnings PyTorch gives once per
    process are to be given every time; ``RuntimeError`` for a non-bool, as PyTorch.
    torchlike's warnings are Python warnings, whose repetition Python's ``warnings``
    filters decide; the flag is recorded and reported by :func:`is_warn_always_enabled`."""
    _warn_always[0] = _bool_flag("setWarnOnlyOnce", b)


def is_warn_always_enabled() -> builtins.bool:
    """Mirrors ``torch.is_warn_always_enabled``: the flag :func:`set_warn_always` set."""
    return _warn_always[0]


def set_flush_denormal(mode: builtins.bool) -> builtins.bool:
    """Mirrors ``torch.set_flush_denormal(mode)``, which returns whether the CPU's flush
    denormal mode could be set as asked.

    XLA's CPU backend always flushes denormal floats to zero (float64 too; README,
    "Differences from PyTorch"), and has no switch to keep them. So ``True`` returns True
    (the mode is on) and ``False`` returns False (it cannot be turned off, the answer
    PyTorch gives where the mode cannot be configured); nothing changes either way.
    ``RuntimeError`` for a non-bool, as PyTorch.

    Example::

        >>> torchlike.set_flush_denormal(True)
        True
    """
    return _bool_flag("flush_denormal", mode)


# ---------------------------------------------------------------------- default device
# Note [The global default device]
# ``with torchlike.device(d):`` pushes ``d`` on ``_default_device_stack``, which the
# factories read (its top; CPU when empty). ``set_default_device`` keeps its device at
# the bottom of that stack, so a ``with`` block still wins inside it, as PyTorch's device
# context does over its global default.
_global_default: list = [None]


def set_default_device(device: Any) -> None:
    """Mirrors ``torch.set_default_device(device)``: the factories (``zeros``, ``tensor``,
    ``randn``, ...) called without ``device=`` make their tensors there; ``None`` goes back
    to the CPU. A device that is not there (``'cuda'`` without an accelerator, or a type
    torchlike does not run on) is refused at once, with the error ``Tensor.cuda()``
    gives, where PyTorch fails at the next factory call.

    Example::

        >>> torchlike.set_default_device("cpu")
        >>> torchlike.get_default_device()
        device(type='cpu')
        >>> torchlike.set_default_device(None)
    """
    from .device import _default_device_stack, device as Device, jax_device
    new = None
    if device is not None:
        new = Device(device)   # a fresh object: the stack entry is found by identity
        jax_device(new)
    old = _global_default[0]
    for i, d in enumerate(_default_device_stack):
        if d is old:
            del _default_device_stack[i]
            break
    if new is not None:
        _default_device_stack.insert(0, new)
    _global_default[0] = new


def get_default_device() -> Any:
    """Mirrors ``torch.get_default_device``: the device of ``with torchlike.device(...)``
    innermost, else the one :func:`set_default_device` set, else the CPU; without an
    index, the device a tensor made there lands on (``'cuda'`` gives ``cuda:0``)."""
    from .device import CPU, _default_device_stack, from_jax_device, jax_device
    if not _default_device_stack:
        return CPU
    d = _default_device_stack[-1]
    return d if d.index is not None else from_jax_device(jax_device(d))


# ---------------------------------------------------------------------------- anomaly
def set_anomaly_enabled(enabled: builtins.bool, check_nan: builtins.bool = True) -> None:
    """Mirrors ``torch.set_anomaly_enabled(enabled, check_nan=True)``: turns autograd's
    anomaly detection on or off (``torchlike.autograd.set_detect_anomaly`` without the
    context manager), with PyTorch's ``TypeError`` for non-bool arguments."""
    if not isinstance(enabled, builtins.bool):
        raise TypeError("set_anomaly_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {_tp_name(enabled)}")
    if not isinstance(check_nan, builtins.bool):
        raise TypeError("set_anomaly_enabled(): argument 'check_nan' must be bool, not "
                        f"{_tp_name(check_nan)}")
    from ..autograd.graph import _anomaly
    _anomaly.enabled, _anomaly.check_nan = enabled, check_nan


# ---------------------------------------------------------------------- legacy tensor types
def set_default_tensor_type(t: Any) -> None:
    """Mirrors the deprecated ``torch.set_default_tensor_type(t)``: ``t`` is a legacy
    floating-point tensor type (``torchlike.DoubleTensor``) or its name
    (``'torch.FloatTensor'``, ``'torchlike.DoubleTensor'``); it sets the default dtype,
    and a ``cuda`` type name the default device too (as PyTorch's CUDA tensor types
    do). Warns as PyTorch does, and raises its TypeError for other types."""
    import warnings

    from .._ops.creation import LEGACY_TYPES
    from .dtype import set_default_dtype
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                  "use torch.set_default_dtype() and torch.set_default_device() as "
                  "alternatives.", UserWarning, stacklevel=2)
    cuda = False
    if isinstance(t, str):
        parts = t.split(".")
        cuda = len(parts) == 3 and parts[1] == "cuda"
        if parts[0] not in ("torch", "torchlike") or len(parts) not in (2, 3) or \
                (len(parts) == 3 and not cuda):
            raise TypeError(f"invalid type: '{t}'")
        named = {cls.__name__: cls for cls in LEGACY_TYPES}
        if parts[-1] not in named:
            raise TypeError(f"invalid type: '{t}'")
        t = named[parts[-1]]
    if t not in LEGACY_TYPES:
        raise TypeError("invalid type object: only floating-point types are supported as "
                        "the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if cuda:
        set_default_device("cuda")
    set_default_dtype(t.dtype)


def get_device(input: Any) -> int:
    """Mirrors ``torch.get_device(input)``: ``input.get_device()``, -1 on the CPU."""
    return input.get_device()


def get_device_module(device: Any = None) -> Any:
    """Mirrors ``torch.get_device_module(device=None)``: the module of a device type
    (``torchlike.cuda`` for ``'cuda'``/``'cuda:1'``, ``torchlike.cpu`` for ``'cpu'``); with
    no argument, the current accelerator's (``torchlike.cpu`` without one)."""
    import importlib

    from .device import device as Device
    if device is None:
        from .. import accelerator
        acc = accelerator.current_accelerator()
        name = "cpu" if acc is None else acc.type
    elif isinstance(device, Device):
        name = device.type
    elif isinstance(device, str):
        name = Device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, "
                           "or None")
    try:
        return importlib.import_module(f"torchlike.{name}")
    except ImportError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module "
                           f"registered as 'torch.{name}'.") from None


def is_distributed(input: Any) -> bool:
    """Mirrors ``torch.is_distributed``: False (no torchlike tensor is a distributed
    tensor)."""
    return False
