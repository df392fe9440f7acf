"""Stochastic weight averaging and EMA of a model, mirroring ``torch.optim.swa_utils``:
``AveragedModel``, the averaging-function factories (``get_ema_multi_avg_fn``,
``get_swa_multi_avg_fn``, ``get_ema_avg_fn``, ``get_swa_avg_fn``), the ``SWALR`` scheduler and
``update_bn``.

Differences from PyTorch:

* PyTorch's multi-tensor averaging functions call ``torch._foreach_*`` kernels; here they
  loop over the tensors with the same in-place ops (``lerp_``, ``add_``, ``addcdiv_``), which
  compute the same values (a compiled step fuses the loop anyway).
* ``AveragedModel.update_parameters`` also works inside ``torchlike.compile``
  (Note [Averaging inside a compiled step]).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, Literal

from .._compile import _tracing
from .._core import dtype as _dt
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from .._ops.creation import tensor
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._lr_base import LRScheduler, _format_param, _warn_get_lr_called_within_step
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]

PARAM_LIST = tuple[Tensor, ...] | list[Tensor]

# The device types whose parameters PyTorch averages with its multi-tensor (``_foreach``)
# function by default; elsewhere (CPU) it applies ``get_swa_avg_fn`` tensor by tensor. The
# two round differently, so torchlike picks the same one for the same device type.
_FOREACH_DEVICE_TYPES = ("cuda",)


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def _floating_or_complex(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """Mirrors ``torch.optim.swa_utils.get_ema_multi_avg_fn``: a function that updates a list
    of averaged tensors in place, ``ema = decay * ema + (1 - decay) * current`` (a ``lerp_``
    towards the current values for floating tensors, as PyTorch's ``_foreach_lerp_``).

    Raises ``ValueError`` unless ``0 <= decay <= 1``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list: PARAM_LIST, current_param_list: PARAM_LIST, _) -> None:
        if _floating_or_complex(ema_param_list[0]):
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """Mirrors ``torch.optim.swa_utils.get_swa_multi_avg_fn``: a function that updates a list
    of averaged tensors in place to the equal-weight running mean, ``avg += (current - avg)
    / (num_averaged + 1)`` (a ``lerp_`` with weight ``1 / (num_averaged + 1)`` for floating
    tensors, as PyTorch's ``_foreach_lerp_``)."""

    @no_grad()
    def swa_update(averaged_param_list: PARAM_LIST, current_param_list: PARAM_LIST,
                   num_averaged: Tensor | int) -> None:
        if _floating_or_complex(averaged_param_list[0]):
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                p_avg.lerp_(p_model, weight)
            return
        diffs = [p_model - p_avg
                 for p_avg, p_model in zip(averaged_param_list, current_param_list,
                                           strict=True)]
        for p_avg, diff in zip(averaged_param_list, diffs):
            if isinstance(num_averaged, Tensor):
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """Mirrors ``torch.optim.swa_utils.get_ema_avg_fn``: a function of one tensor,
    ``decay * ema_param + (1 - decay) * current_param``.

    Raises ``ValueError`` unless ``0 <= decay <= 1``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """Mirrors ``torch.optim.swa_utils.get_swa_avg_fn``: a function of one tensor,
    ``averaged + (current - averaged) / (num_averaged + 1)``."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor,
                   num_averaged: Tensor | int) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged: list[Tensor], current: list[Tensor]
                               ) -> dict[tuple[Any, Any], tuple[list[Tensor], list[Tensor]]]:
    """PyTorch's ``_group_tensors_by_device_and_dtype`` for two lists, keyed by the first."""
    groups: dict[tuple[Any, Any], tuple[list[Tensor], list[Tensor]]] = {}
    for a, c in zip(averaged, current):
        selfs, models = groups.setdefault((a.device, a.dtype), ([], []))
        selfs.append(a)
        models.append(c)
    return groups


# Note [Averaging inside a compiled step]
# PyTorch's ``update_parameters`` branches on ``n_averaged == 0`` in Python: the first call
# copies the model, later calls average. Inside ``torchlike.compile`` that count is a traced
# value, so the branch cannot be taken on the host. There the averaging runs
# unconditionally and each averaged tensor then takes ``where(n_averaged == 0, model value,
# averaged value)``: the same values as PyTorch's two branches. The averaging function is
# therefore also called on the first compiled call (its result discarded); eagerly it is
# called exactly when PyTorch calls it.


class AveragedModel(Module):
    """Mirrors ``torch.optim.swa_utils.AveragedModel``: a deep copy of ``model`` (in
    ``self.module``, moved to ``device`` if given) whose parameters (and, with
    ``use_buffers=True``, buffers) hold a running average of the model's, updated by
    ``update_parameters(model)``. The ``n_averaged`` buffer (int64) counts the updates;
    ``state_dict`` keys are ``n_averaged`` and the copy's under ``module.``, as in PyTorch.

    ``avg_fn(averaged, current, n_averaged) -> Tensor`` averages one tensor at a time;
    ``multi_avg_fn(averaged_list, current_list, n_averaged)`` updates lists in place, called
    once per (device, dtype) group. With neither, the equal-weight average (SWA) is used:
    the multi-tensor ``lerp_`` on ``cuda`` and the per-tensor ``get_swa_avg_fn`` elsewhere,
    as PyTorch chooses by device. Without ``use_buffers`` the copy's buffers are kept equal
    to the model's.

    Raises ``AssertionError`` (PyTorch's type) if both ``avg_fn`` and ``multi_avg_fn`` are
    given. ``update_parameters`` also works inside ``torchlike.compile`` (Note [Averaging
    inside a compiled step]).

    Example::

        >>> import torchlike as torch
        >>> model = torch.nn.Linear(2, 1)
        >>> ema = torch.optim.swa_utils.AveragedModel(
        ...     model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
        >>> ema.update_parameters(model)
        >>> int(ema.n_averaged)
        1
    """

    n_averaged: Tensor

    def __init__(self, model: Module, device: int | str | Any | None = None,
                 avg_fn: Callable[[Tensor, Tensor, Tensor | int], Tensor] | None = None,
                 multi_avg_fn: Callable[[PARAM_LIST, PARAM_LIST, Tensor | int], None]
                 | None = None,
                 use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dt.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Calls the averaged copy: ``self.module(*args, **kwargs)``."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Mirrors ``AveragedModel.update_parameters``: on the first call copy ``model``'s
        parameters (and buffers with ``use_buffers``), afterwards average them in; then
        count the update in ``n_averaged``."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        self_detached: list[Tensor] = []
        model_detached: list[Tensor] = []
        for p_averaged, p_model in zip(self_param, model_param, strict=False):
            self_detached.append(p_averaged.detach())
            model_detached.append(p_model.detach().to(p_averaged.device))

        with no_grad():
            if _tracing.current() is None:
                if bool(self.n_averaged == 0):
                    for p_averaged, p_model in zip(self_detached, model_detached):
                        p_averaged.copy_(p_model)
                else:
                    self._average(self_detached, model_detached)
            else:   # Note [Averaging inside a compiled step]
                self._average(self_detached, model_detached)
                first = self.n_averaged == 0
                for p_averaged, p_model in zip(self_detached, model_detached):
                    p_averaged.copy_(p_model.where(first.to(p_averaged.device),
                                                   p_averaged))

            if not self.use_buffers:
                # buffers not averaged are kept equal to the model's
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(),
                                          strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            # in place, as PyTorch's ``+=``; ``add_`` also leaves the module's attributes
            # (and so a compiled step's found state) untouched
            self.n_averaged.add_(1)

    def _average(self, self_params: list[Tensor], model_params: list[Tensor]) -> None:
        """Average ``model_params`` into ``self_params`` in place (``n_averaged > 0``)."""
        if self.multi_avg_fn is not None or self.avg_fn is None:
            for (device, _), (selfs, models) in _group_by_device_and_dtype(
                    self_params, model_params).items():
                n_averaged = self.n_averaged.to(device)
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(selfs, models, n_averaged)
                elif device.type in _FOREACH_DEVICE_TYPES:
                    get_swa_multi_avg_fn()(selfs, models, n_averaged)
                else:
                    avg_fn = get_swa_avg_fn()
                    for p_averaged, p_model in zip(selfs, models, strict=True):
                        p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
        else:
            for p_averaged, p_model in zip(self_params, model_params, strict=True):
                n_averaged = self.n_averaged.to(p_averaged.device)
                p_averaged.copy_(self.avg_fn(p_averaged, p_model, n_averaged))


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: int | str | Any | None = None
              ) -> None:
    """Mirrors ``torch.optim.swa_utils.update_bn``: recompute the running statistics of
    every BatchNorm layer of ``model`` with one pass over ``loader`` (statistics reset,
    momentum ``None``: the cumulative average over the batches), then restore each layer's
    momentum and the model's training mode. Each batch is a tensor or a list/tuple whose
    first element is the input; ``device``, if given, is where inputs are moved."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Mirrors ``torch.optim.swa_utils.SWALR``: anneals each group's learning rate from its
    current value to ``swa_lr`` (one value, or one per group, stored as ``group['swa_lr']``)
    over ``anneal_epochs`` steps, with ``anneal_strategy`` ``'cos'`` or ``'linear'``, then
    holds it there. PyTorch's recurrence, so the values match its to the last bit.

    Raises, as PyTorch: ``ValueError`` for a ``swa_lr`` list whose length is not the number
    of groups, an unknown ``anneal_strategy``, or an ``anneal_epochs`` that is not an int
    ``>= 0``.

    Example::

        >>> import torchlike as torch
        >>> opt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
        >>> sched = torch.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2,
        ...                                     anneal_strategy="linear")
        >>> opt.step(); sched.step()
        >>> [round(lr, 4) for lr in sched.get_last_lr()]
        [0.075]
    """

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float],
                 anneal_epochs: int = 10,
                 anneal_strategy: Literal["cos", "linear"] = "cos",
                 last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float | Tensor]:
        """The next learning rates: each group's ``lr`` interpolated towards ``swa_lr`` by
        the anneal function (PyTorch's chainable form)."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: Literal["cos", "linear"]) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the anneal function, as in PyTorch."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores the attributes and the anneal function named by the saved strategy."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
