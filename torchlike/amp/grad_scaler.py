"""``GradScaler``: gradient scaling for mixed precision, mirroring ``torch.amp.GradScaler``.

The scaler multiplies the loss by a scale factor before ``backward()`` so that small
float16 gradients do not underflow, divides the gradients by it again before the optimizer
steps (skipping the step when a gradient is inf or NaN) and adapts the factor: it backs off
after an overflow and grows after ``growth_interval`` clean steps. Its two kernels,
``_amp_foreach_non_finite_check_and_unscale_`` and ``_amp_update_scale_``, are written with
torchlike tensor ops, never reading a value back to Python, so they run inside a compiled
step too.

# Note [Skipping a step inside torchlike.compile]
# In eager mode ``step`` reads ``found_inf`` on the host and calls ``optimizer.step()``
# only when it is zero, as PyTorch does. While ``torchlike.compile`` traces a function the
# value is not known, so the step always runs and is undone where ``found_inf`` is nonzero:
# every parameter and every tensor of ``optimizer.state`` and of the param groups is
# snapshotted before ``optimizer.step()``, and each one the step replaced is written back,
# in place, as ``where(found_inf != 0, old, new)``. State the step creates (a first step)
# falls back to its value right before the update (read by wrapping the optimizer's
# ``_apply_update`` for the call): zeros and a step count of 0 for Adam, which the next
# step then treats exactly as fresh state. SGD's momentum buffer is created by the update
# itself; it falls back to zeros, which continues as a fresh buffer only without
# dampening, so other such state raises. Python numbers in the state (a step count kept as
# an int) cannot be selected by a traced value either: a step that changes one raises.
# Two differences remain: ``optimizer._step_count`` counts compiled calls whether or not
# their step was skipped, and ``step`` returns ``optimizer.step()``'s value (PyTorch
# returns None for a skipped step).
"""

from __future__ import annotations

import inspect
import warnings
from collections import abc, defaultdict
from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, Any, overload

import jax

from .._compile import _tracing
from .._core import dtype as _dt
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor

if TYPE_CHECKING:
    from .._core.device import device as Device
    from ..optim.optimizer import Optimizer

__all__ = ["OptState", "GradScaler"]


class _MultiDeviceReplicator:
    """Lazily serves copies of a tensor to requested devices (cached per device)."""

    def __init__(self, master_tensor: Tensor) -> None:
        self.master = master_tensor
        self._per_device_tensors: dict[Any, Tensor] = {}

    def get(self, device: Device) -> Tensor:
        retval = self._per_device_tensors.get(device, None)
        if retval is None:
            retval = self.master.to(device=device, non_blocking=True, copy=True)
            self._per_device_tensors[device] = retval
        return retval


# The default factory of ``_per_optimizer_states`` and its stages live at module level so
# that a scaler pickles (a lambda would not), as in PyTorch.
class OptState(Enum):
    """Where an optimizer is in the current iteration (mirrors ``torch.amp.grad_scaler``'s
    ``OptState``)."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Gradient scaling for mixed-precision training, mirroring ``torch.amp.GradScaler``.

    * ``scaler.scale(loss)`` multiplies a loss by the current scale factor;
    * ``scaler.step(optimizer)`` unscales the gradients and calls ``optimizer.step()``
      unless one of them is inf or NaN;
    * ``scaler.update()`` backs the scale off after a skipped step (``* backoff_factor``)
      or grows it after ``growth_interval`` consecutive clean steps (``* growth_factor``).

    >>> import torchlike as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale((w * w).sum()).backward()
    >>> scaler.step(opt); scaler.update()
    >>> w
    Parameter containing:
    tensor([0.8000, 0.8000], requires_grad=True)

    Args:
        device: the device type of the tensors it scales, ``"cuda"`` (default) or ``"cpu"``.
            ``"cuda"`` without a GPU warns and disables the scaler, as PyTorch does.
        init_scale: the initial scale factor (``2.0**16``).
        growth_factor: multiplies the scale after ``growth_interval`` clean steps (> 1).
        backoff_factor: multiplies the scale after a step with infs/NaNs (< 1).
        growth_interval: how many consecutive clean steps grow the scale.
        enabled: ``False`` makes every method a no-op and ``step`` a plain
            ``optimizer.step()``.

    The scale is a float32 tensor and the growth tracker an int32 tensor, both 0-d and on
    the device of the first tensor scaled, as in PyTorch. The whole ``zero_grad``/``scale``/
    ``backward``/``step``/``update`` iteration can run inside ``torchlike.compile``; see
    Note [Skipping a step inside torchlike.compile] for how a step is skipped there.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            from .. import cuda
            if enabled and not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False

        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            # ``_scale`` and ``_growth_tracker`` are made by the first ``scale()``
            self._scale: Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Tensor | None = None
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(
                _refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Tensor, Tensor]:
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev: Device) -> None:
        from .. import full
        if self._growth_tracker is not None:
            raise AssertionError("_growth_tracker initialized before _scale")
        # concrete values even while a compiled function is traced: state created by the
        # trace, which a trace that fails part-way leaves usable
        with jax.ensure_compile_time_eval():
            self._scale = full((), self._init_scale, dtype=_dt.float32, device=dev)
            self._growth_tracker = full((), self._init_growth_tracker, dtype=_dt.int32,
                                        device=dev)
        _tracing.bump_structure()   # new tensors a compiled step must find

    @overload
    def scale(self, outputs: Tensor) -> Tensor: ...

    @overload
    def scale(self, outputs: list[Tensor]) -> list[Tensor]: ...

    @overload
    def scale(self, outputs: tuple[Tensor, ...]) -> tuple[Tensor, ...]: ...

    @overload
    def scale(self, outputs: Iterable[Tensor]) -> Iterable[Tensor]: ...

    def scale(self, outputs: Tensor | Iterable[Tensor]) -> Tensor | Iterable[Tensor]:
        """Mirrors ``GradScaler.scale``: ``outputs`` (a tensor, or nested lists/tuples/
        iterables of tensors) times the scale factor. Lists and tuples keep their type;
        another iterable comes back as a lazy ``map``, as in PyTorch. Disabled, returns
        ``outputs`` unchanged. Anything else raises ``ValueError``."""
        if not self._enabled:
            return outputs

        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            scale = self._scale
            if scale is None:
                raise AssertionError("_scale should not be None after lazy init")
            return outputs * scale.to(device=outputs.device, non_blocking=True)

        stash: list[_MultiDeviceReplicator] = []   # one replicator for the whole structure

        def apply_scale(val):
            if isinstance(val, Tensor):
                if len(stash) == 0:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    scale = self._scale
                    if scale is None:
                        raise AssertionError("_scale should not be None after lazy init")
                    stash.append(_MultiDeviceReplicator(scale))
                return val * stash[0].get(val.device)
            if isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(iterable)
                return iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer: Optimizer, inv_scale: Tensor, found_inf: Tensor,
                        allow_fp16: bool) -> dict[Any, Tensor]:
        per_device_inv_scale = _MultiDeviceReplicator(inv_scale)
        per_device_found_inf = _MultiDeviceReplicator(found_inf)
        # the gradients split by device and dtype, for one kernel call per pair
        per_device_and_dtype_grads: dict[Any, dict[Any, list[Tensor]]] = defaultdict(
            lambda: defaultdict(list))
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(
                            f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if (not allow_fp16) and param.grad.dtype == _dt.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    to_unscale = param.grad
                    per_device_and_dtype_grads[to_unscale.device][to_unscale.dtype].append(
                        to_unscale)
            for device, per_dtype_grads in per_device_and_dtype_grads.items():
                for grads in per_dtype_grads.values():
                    _amp_foreach_non_finite_check_and_unscale_(
                        grads, per_device_found_inf.get(device),
                        per_device_inv_scale.get(device))
        return per_device_found_inf._per_device_tensors

    def unscale_(self, optimizer: Optimizer) -> None:
        """Mirrors ``GradScaler.unscale_``: divides the gradients of ``optimizer``'s
        parameters by the scale, in place (the ``.grad`` tensors stay the same objects),
        and records whether any of them holds an inf or NaN.

        Optional: ``step`` unscales when it was not called. At most once per optimizer
        between ``update()`` calls (else ``RuntimeError``, as in PyTorch), and never after
        ``step``. float16 gradients raise ``ValueError("Attempting to unscale FP16
        gradients.")``, as PyTorch's do. Disabled, does nothing."""
        if not self._enabled:
            return

        self._check_scale_growth_tracker("unscale_")

        optimizer_state = self._per_optimizer_states[id(optimizer)]

        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update().")
        elif optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")

        if self._scale is None:
            raise AssertionError("_scale is None in unscale_")
        # the reciprocal in float64, as PyTorch computes it
        inv_scale = self._scale.double().reciprocal().float()
        from .. import full
        found_inf = full((), 0.0, dtype=_dt.float32, device=self._scale.device)

        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _found_inf_sum(self, optimizer_state: dict[str, Any]) -> Tensor:
        scale = self._get_scale_async()
        if scale is None:
            raise AssertionError("_get_scale_async returned None")
        return sum([t.to(scale.device, non_blocking=True)
                    for t in optimizer_state["found_inf_per_device"].values()])

    def _maybe_opt_step(self, optimizer: Optimizer, optimizer_state: dict[str, Any],
                        *args: Any, **kwargs: Any) -> Any:
        if _tracing.current() is not None:
            # Note [Skipping a step inside torchlike.compile]
            return _step_unless(optimizer, self._found_inf_sum(optimizer_state), args,
                                kwargs)
        retval = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        return retval

    def step(self, optimizer: Optimizer, *args: Any, **kwargs: Any) -> Any:
        """Mirrors ``GradScaler.step``: unscales ``optimizer``'s gradients (unless
        ``unscale_`` did already) and calls ``optimizer.step(*args, **kwargs)`` unless a
        gradient held an inf or NaN; returns its result (None when skipped).

        As in PyTorch: a ``closure`` keyword raises ``RuntimeError`` ("Closure use is not
        currently supported if GradScaler is enabled."), so does a second ``step`` before
        ``update()``; an optimizer with ``_step_supports_amp_scaling`` is stepped directly,
        with ``grad_scale`` and ``found_inf`` set on it for the call (or given the scaler
        as ``grad_scaler=`` when its ``step`` takes that keyword, with PyTorch's
        FutureWarning). Disabled, just calls ``optimizer.step(*args, **kwargs)``.

        Inside ``torchlike.compile`` the step always runs and is undone where an inf was
        found (Note [Skipping a step inside torchlike.compile]): it returns
        ``optimizer.step()``'s value either way, and optimizer state that cannot be undone
        by a traced selection raises ``RuntimeError``."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)

        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")

        self._check_scale_growth_tracker("step")

        optimizer_state = self._per_optimizer_states[id(optimizer)]

        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")

        retval = None

        if getattr(optimizer, "_step_supports_amp_scaling", False):
            # the optimizer handles scaling itself: it either takes ``grad_scaler=self`` or
            # reads ``grad_scale`` and ``found_inf`` set on it for this call
            kwargs_ = kwargs
            has_grad_scaler_kwarg = "grad_scaler" in inspect.signature(
                optimizer.step).parameters
            if has_grad_scaler_kwarg:
                warnings.warn(
                    "GradScaler is going to stop passing itself as a keyword argument to the "
                    "passed optimizer. In the near future GradScaler registers `grad_scale: "
                    "Tensor` and `found_inf: Tensor` to the passed optimizer and let the "
                    "optimizer use them directly.", FutureWarning, stacklevel=2)
                kwargs_.update({"grad_scaler": self})
            else:
                if optimizer_state["stage"] is OptState.READY:
                    self._check_inf_per_device(optimizer)
                scaler = self._get_scale_async()
                if scaler is None:
                    raise AssertionError("_get_scale_async returned None")
                found_inf = self._found_inf_sum(optimizer_state)
                # the product of the scales, if the caller already set ``grad_scale``
                optimizer.grad_scale = (
                    getattr(optimizer, "grad_scale", None)
                    if optimizer_state["stage"] == OptState.UNSCALED
                    else scaler * getattr(optimizer, "grad_scale", 1))
                optimizer.found_inf = found_inf
            retval = optimizer.step(*args, **kwargs_)
            optimizer_state["stage"] = OptState.STEPPED
            if not has_grad_scaler_kwarg:
                del optimizer.grad_scale
                del optimizer.found_inf
            return retval

        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)

        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")

        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)

        optimizer_state["stage"] = OptState.STEPPED

        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Mirrors ``GradScaler.update``: the scale times ``backoff_factor`` if a step of
        this iteration found infs/NaNs, times ``growth_factor`` after ``growth_interval``
        consecutive clean iterations; then clears the per-optimizer records for the next
        iteration.

        ``new_scale`` (a Python float, or a 1-element tensor on the scaler's device type
        that does not require grad; else ``AssertionError`` with PyTorch's message) sets
        the scale instead; a tensor is copied, so later changes to it do not reach the
        scaler. Without a recorded inf check raises ``AssertionError("No inf checks were
        recorded prior to update.")``. Disabled, does nothing."""
        if not self._enabled:
            return

        _scale, _growth_tracker = self._check_scale_growth_tracker("update")

        if new_scale is not None:
            if self._scale is None:
                raise AssertionError("_scale is None in update")
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor "
                          "or torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1:
                    raise AssertionError(reason)
                if new_scale.requires_grad is True:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale)
        else:
            found_infs = [found_inf.to(device=_scale.device, non_blocking=True)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]

            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")

            found_inf_combined = found_infs[0]
            if len(found_infs) > 1:
                for i in range(1, len(found_infs)):
                    found_inf_combined += found_infs[i]

            _amp_update_scale_(_scale, _growth_tracker, found_inf_combined,
                               self._growth_factor, self._backoff_factor,
                               self._growth_interval)

        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self) -> Tensor | None:
        return self._scale

    def get_scale(self) -> float:
        """Mirrors ``GradScaler.get_scale``: the current scale as a Python float
        (``init_scale`` before the first ``scale()``), or 1.0 when disabled. Reads the
        value back from the device, so it cannot run inside ``torchlike.compile``."""
        if self._enabled:
            scale = self._get_scale_async()
            return self._init_scale if scale is None else scale.item()
        return 1.0

    def get_growth_factor(self) -> float:
        """Mirrors ``GradScaler.get_growth_factor``: the scale growth factor."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Mirrors ``GradScaler.set_growth_factor`` (no check, as in PyTorch)."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """Mirrors ``GradScaler.get_backoff_factor``: the scale backoff factor."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Mirrors ``GradScaler.set_backoff_factor`` (no check, as in PyTorch)."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """Mirrors ``GradScaler.get_growth_interval``: clean steps before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Mirrors ``GradScaler.set_growth_interval`` (no check, as in PyTorch)."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return (self._init_growth_tracker if self._growth_tracker is None
                    else self._growth_tracker.item())
        return 0

    def is_enabled(self) -> bool:
        """Mirrors ``GradScaler.is_enabled``: whether scaling is on (False for ``"cuda"``
        without a GPU)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """Mirrors ``GradScaler.state_dict``: ``{"scale", "growth_factor",
        "backoff_factor", "growth_interval", "_growth_tracker"}`` as Python numbers, or
        ``{}`` when disabled. Take it after ``update()`` to checkpoint an iteration."""
        if self._enabled:
            return {"scale": self.get_scale(),
                    "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Mirrors ``GradScaler.load_state_dict``: restores what ``state_dict`` returned,
        filling the existing scale and tracker tensors in place. An empty dict raises
        PyTorch's ``RuntimeError`` (it comes from a disabled scaler); a missing key raises
        ``KeyError``. Disabled, does nothing."""
        if not self._enabled:
            return

        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")

        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        """Mirrors ``GradScaler.__getstate__``: the scale and tracker are pickled as Python
        numbers and made again lazily; only between iterations (else ``AssertionError``)."""
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Mirrors ``GradScaler.__setstate__``."""
        self.__dict__.update(state)

    def _check_inf_per_device(self, optimizer: Optimizer) -> dict[str, Any]:
        from .. import full
        _scale, _ = self._check_scale_growth_tracker("_check_inf_per_device")

        dummy_inv_scale = full((), 1.0, dtype=_dt.float32, device=_scale.device)
        found_inf = full((), 0.0, dtype=_dt.float32, device=_scale.device)

        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = \
            self._unscale_grads_(optimizer, dummy_inv_scale, found_inf, True)

        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def _found_inf_per_device(self, optimizer: Optimizer) -> dict[str, Any]:
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]


# ---------------------------------------------------------------------------- kernels
_UNSCALE_DTYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)


def _check_tensor_list(tensors, name: str) -> None:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'self' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")


def _amp_foreach_non_finite_check_and_unscale_(grads: list[Tensor], found_inf: Tensor,
                                               inv_scale: Tensor) -> None:
    """Mirrors ``torch._amp_foreach_non_finite_check_and_unscale_``: multiplies each of
    ``grads`` in place by ``inv_scale`` and sets ``found_inf`` to 1.0 if any of them held
    an inf or NaN before (else leaves it as it was).

    ``found_inf`` and ``inv_scale`` must be 1-element float32 tensors and ``grads``
    float16/bfloat16/float32/float64 tensors, with PyTorch's errors (checked in its order;
    an unsupported gradient dtype is refused before any gradient is touched, where PyTorch
    unscales the gradients before it). float16 and bfloat16 gradients are multiplied in
    float32 and rounded once, as PyTorch's kernel does. Written with tensor ops only, so it
    runs inside ``torchlike.compile`` too. Sparse gradients do not exist in torchlike."""
    name = "_amp_foreach_non_finite_check_and_unscale_"
    _check_tensor_list(grads, name)
    if len(grads) == 0:
        return
    if inv_scale.numel() != 1:
        raise RuntimeError("inv_scale must be a 1-element tensor.")
    if found_inf.numel() != 1:
        raise RuntimeError("found_inf must be a 1-element tensor.")
    if inv_scale.dtype != _dt.float32:
        raise RuntimeError("inv_scale must be a float tensor.")
    if found_inf.dtype != _dt.float32:
        raise RuntimeError("found_inf must be a float tensor.")
    for g in grads:
        if g.is_sparse:
            raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the "
                                      "'SparseCPU' backend.")
        if g.dtype not in _UNSCALE_DTYPES:
            from .._ops.bind import dtype_short_name
            raise NotImplementedError(f'"{name}{g.device.type}" not implemented for '
                                      f"'{dtype_short_name(g.dtype)}'")
    from .. import isfinite, ones_like, where
    with no_grad():
        nonfinite = None
        for g in grads:
            bad = ~isfinite(g).all()
            nonfinite = bad if nonfinite is None else nonfinite | bad
            if g.dtype in (_dt.float16, _dt.bfloat16):
                g.copy_(g.float() * inv_scale)
            else:
                g.mul_(inv_scale)
        found_inf.copy_(where(nonfinite, ones_like(found_inf), found_inf))


def _amp_update_scale_(scale: Tensor, growth_tracker: Tensor, found_inf: Tensor,
                       scale_growth_factor: float, scale_backoff_factor: float,
                       growth_interval: int) -> Tensor:
    """Mirrors ``torch._amp_update_scale_``: updates ``scale`` and ``growth_tracker`` in
    place and returns ``scale``.

    If ``found_inf`` is nonzero (NaN counts), the scale is multiplied by
    ``scale_backoff_factor`` and the tracker reset to 0. Else the tracker counts one more
    clean step; when it reaches ``growth_interval`` the scale is multiplied by
    ``scale_growth_factor`` (kept only if finite) and the tracker reset to 0. The products
    are taken in float64 and rounded once to float32, as PyTorch's kernel does. ``scale``
    and ``found_inf`` must be 1-element float32 tensors and ``growth_tracker`` a 1-element
    int32 tensor, with PyTorch's errors in its order. Written with tensor ops only, so it
    runs inside ``torchlike.compile`` too."""
    if not isinstance(growth_interval, int) or isinstance(growth_interval, bool):
        raise TypeError("_amp_update_scale_(): argument 'growth_interval' (position 6) must "
                        f"be int, not {type(growth_interval).__name__}")
    if growth_tracker.numel() != 1:
        raise RuntimeError("growth_tracker must be a 1-element tensor.")
    if scale.numel() != 1:
        raise RuntimeError("current_scale must be a 1-element tensor.")
    if found_inf.numel() != 1:
        raise RuntimeError("found_inf must be a 1-element tensor.")
    if growth_tracker.dtype != _dt.int32:
        raise RuntimeError("growth_tracker must be an int tensor.")
    if scale.dtype != _dt.float32:
        raise RuntimeError("current_scale must be a float tensor.")
    if found_inf.dtype != _dt.float32:
        raise RuntimeError("found_inf must be a float tensor.")
    from .. import isfinite, where, zeros_like
    with no_grad():
        inf = found_inf != 0
        successful = growth_tracker + 1
        grow = successful == growth_interval
        grown = (scale.double() * float(scale_growth_factor)).float()
        backed_off = (scale.double() * float(scale_backoff_factor)).float()
        new_scale = where(inf, backed_off, where(grow & isfinite(grown), grown, scale))
        new_tracker = where(inf | grow, zeros_like(successful), successful)
        scale.copy_(new_scale.reshape(scale.shape))
        growth_tracker.copy_(new_tracker.reshape(growth_tracker.shape))
    return scale


# ---------------------------------------------------------------------------- compiled step
def _state_value_changed(old, new) -> bool:
    if old is new:
        return False
    if isinstance(old, (int, float, complex)) and isinstance(new, (int, float, complex)):
        return old != new
    return True


def _tensor_snapshots(tensors) -> list:
    """``(tensor, its array now, a copy of its value)`` for each distinct tensor."""
    seen: set = set()
    out = []
    for t in tensors:
        if id(t) in seen:
            continue
        seen.add(id(t))
        out.append((t, t._storage.array, t.detach().clone()))
    return out


def _step_unless(optimizer: Optimizer, found_inf: Tensor, args, kwargs) -> Any:
    """Run ``optimizer.step(*args, **kwargs)`` and undo it where ``found_inf`` is nonzero,
    with traced selections (Note [Skipping a step inside torchlike.compile])."""
    from .. import where, zeros_like
    state = optimizer.state
    params = [p for group in optimizer.param_groups for p in group["params"]]
    group_tensors = [v for group in optimizer.param_groups for k, v in group.items()
                     if k != "params" and isinstance(v, Tensor)]
    group_values = [(group, k, v) for group in optimizer.param_groups
                    for k, v in group.items() if k != "params" and not isinstance(v, Tensor)]
    before = {id(key): (key, dict(st)) for key, st in state.items()}
    snaps = _tensor_snapshots(params + group_tensors +
                              [v for _, st in before.values() for v in st.values()
                               if isinstance(v, Tensor)])

    # the value of each state tensor right before the update: the fallback of state
    # created by this step (Adam's zeros and step count 0)
    pre_update: dict[tuple[int, str], Tensor] = {}
    base_apply = getattr(optimizer, "_apply_update", None)
    own_apply = "_apply_update" in vars(optimizer)
    if base_apply is not None:
        def recording_apply(update, ps, keys, hp, **static):
            keys = list(keys)
            for p in ps:
                st = state.get(p)
                for k in keys:
                    v = None if st is None else st.get(k)
                    if isinstance(v, Tensor) and (id(p), k) not in pre_update:
                        pre_update[(id(p), k)] = v.detach().clone()
            return base_apply(update, ps, keys, hp, **static)
        optimizer._apply_update = recording_apply
    try:
        retval = optimizer.step(*args, **kwargs)
    finally:
        if base_apply is not None:
            if own_apply:
                optimizer._apply_update = base_apply
            else:
                del optimizer._apply_update

    for group, k, v in group_values:
        if _state_value_changed(v, group.get(k)):
            raise RuntimeError(
                f"GradScaler.step inside torchlike.compile: the optimizer step changed "
                f"param_groups option {k!r} ({v!r} -> {group.get(k)!r}), which cannot be "
                f"undone when the step is skipped; keep the step outside torchlike.compile "
                f"or store {k!r} as a tensor")

    skip = found_inf != 0
    with no_grad():
        for t, array, old in snaps:
            if t._storage.array is not array:
                t.copy_(where(skip, old, t))
        for key, st in state.items():
            prev = before.get(id(key), (key, {}))[1]
            groups = [g for g in optimizer.param_groups
                      if any(p is key for p in g["params"])]
            for name, v in st.items():
                old = prev.get(name)
                if isinstance(v, Tensor):
                    if isinstance(old, Tensor):
                        if v is not old:   # replaced rather than updated in place
                            v.copy_(where(skip, old, v))
                        continue
                    init = pre_update.get((id(key), name))
                    if init is None:
                        if name == "momentum_buffer" and groups and all(
                                _as_number(g.get("dampening", 0)) == 0 for g in groups):
                            init = zeros_like(v)   # the next step starts it afresh
                        else:
                            raise RuntimeError(
                                f"GradScaler.step inside torchlike.compile: the optimizer "
                                f"step created state {name!r} whose value without the step "
                                f"is unknown, so a skipped step cannot be undone; keep the "
                                f"step outside torchlike.compile")
                    v.copy_(where(skip, init, v))
                elif name not in prev or _state_value_changed(old, v):
                    raise RuntimeError(
                        f"GradScaler.step inside torchlike.compile: the optimizer step "
                        f"changed state {name!r} held as a Python {type(v).__name__}, which "
                        f"cannot be undone when the step is skipped; keep the step outside "
                        f"torchlike.compile or store {name!r} as a tensor")
    return retval


def _as_number(v):
    return v.item() if isinstance(v, Tensor) else v
