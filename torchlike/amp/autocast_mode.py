"""``torchlike.autocast`` (``torchlike.amp.autocast``), ``custom_fwd`` and ``custom_bwd``,
mirroring ``torch.amp.autocast_mode``. Which ops cast and how: Note [Autocast] in
``torchlike/_ops/autocast_policy.py``."""

from __future__ import annotations

import collections.abc
import functools
import warnings
from typing import Any, Callable

from .._core import autocast_state as _acs
from .._core import dtype as _dt
from .._core.tensor import Tensor
from .._ops.autocast_policy import eligible

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Mirrors ``torch.amp.is_autocast_available``: True for the device types torchlike's
    tensors live on ('cpu', and 'cuda' for JAX's accelerator). PyTorch also names
    'xpu', 'mps', 'hpu'... which torchlike has no tensors on."""
    return device_type in _acs.DEVICE_TYPES


class autocast:
    """Mirrors ``torch.autocast(device_type, dtype=None, enabled=True,
    cache_enabled=None)``: a context manager (and decorator) inside which the ops
    PyTorch lists run in a lower-precision dtype (bfloat16 on 'cpu', float16 on 'cuda'
    by default), in float32, or in their inputs' widest type. The state is thread-local;
    regions nest, and ``enabled=False`` turns autocast off inside. On a machine without
    an accelerator, ``device_type='cuda'`` warns and does nothing, as PyTorch does
    without CUDA. Inside ``torchlike.compile`` the casts become part of the traced
    program, and the autocast state is part of the compiled function's cache key."""

    def __init__(self, device_type: str, dtype: _dt.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{device_type}'")
        self.device = device_type
        self.fast_dtype = _acs.get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = (_acs.is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        if enabled:
            if device_type == "cuda":
                from .. import cuda
                if not cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in (_dt.bfloat16, _dt.float16):
                warnings.warn("In CPU autocast, but the target dtype is not supported. "
                              "Disabling autocast.\nCPU Autocast only supports dtypes of "
                              "torchlike.bfloat16, torchlike.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _acs.is_autocast_cache_enabled()
        self.prev = _acs.is_autocast_enabled(self.device)
        self.prev_fastdtype = _acs.get_autocast_dtype(self.device)
        _acs.set_autocast_enabled(self.device, self._enabled)
        _acs.set_autocast_dtype(self.device, self.fast_dtype)
        _acs.autocast_increment_nesting()
        _acs.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        if _acs.autocast_decrement_nesting() == 0:
            _acs.clear_autocast_cache()
        _acs.set_autocast_enabled(self.device, self.prev)
        _acs.set_autocast_dtype(self.device, self.prev_fastdtype)
        _acs.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: Callable) -> Callable:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type: str, dtype):
    """``torch.amp.autocast_mode._cast``: floating tensors on ``device_type`` (not
    float64) in ``value``, nested in lists, tuples and mappings, cast to ``dtype``."""
    if isinstance(value, Tensor):
        return value.to(dtype) if eligible(value, device_type) else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable) and not hasattr(value, "__array__"):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd: Callable | None = None, *, device_type: str, cast_inputs=None):
    """Mirrors ``torch.amp.custom_fwd``: decorates a custom ``Function``'s ``forward``.
    With ``cast_inputs``, inside an autocast region its floating tensors are cast to that
    dtype and it runs with autocast off; without, it runs under the current state, and
    ``custom_bwd`` runs ``backward`` under the same state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type,
                                 cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _acs.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _acs.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = _acs.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if on:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd: Callable | None = None, *, device_type: str):
    """Mirrors ``torch.amp.custom_bwd``: runs a custom ``Function``'s ``backward`` with
    the autocast state its ``forward`` (decorated with ``custom_fwd``) ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
