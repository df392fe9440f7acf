"""The base of the learning-rate schedulers (``LRScheduler``: ``last_epoch``, ``base_lrs``,
``step``, the state dict) and the schedulers that are only a ``get_lr`` rule over it, in
PyTorch's chainable form with the closed form for ``step(epoch)``: ``LambdaLR``,
``MultiplicativeLR``, ``StepLR``, ``MultiStepLR``, ``ConstantLR``, ``LinearLR``,
``ExponentialLR``, ``PolynomialLR`` and ``CosineAnnealingLR``. Users import them from
``torchlike.optim.lr_scheduler``."""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from .._compile import _tracing
from .._core.tensor import Tensor
from .optimizer import Optimizer, _to_scalar


def _deferred_in_compiled(step):
    """Wraps a scheduler's ``step``: while a compiled function is traced the call is
    recorded and replayed after each call of the program, since it changes only Python
    floats (Note [Hyper-parameters are inputs] in ``torchlike/_compile/compile.py``)."""
    @wraps(step)
    def wrapper(self, *args, **kwargs):
        ctx = _tracing.current()
        if ctx is not None and not self._is_initial:
            ctx.defer(self, wrapper, args, kwargs)
            return None
        return step(self, *args, **kwargs)

    wrapper._deferred = True
    return wrapper


EPOCH_DEPRECATION_WARNING = (
    'The epoch parameter in `scheduler.step()` was not necessary and is being deprecated '
    'where possible. Please use `scheduler.step()` to step the scheduler. During the '
    'deprecation, if epoch is different from None, the closed form is used instead of the new '
    'chainable form, where available. Please open an issue if you are unable to replicate '
    'your use case: https://github.com/pytorch/pytorch/issues/new/choose.')


def _format_param(name: str, optimizer: Optimizer, param):

    def _copy(_param):
        return _param.clone() if isinstance(_param, Tensor) else _param
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f'{name} must have the same length as optimizer.param_groups. '
                             f'{name} has {len(param)} values, param_groups has '
                             f'{len(optimizer.param_groups)}.')
    else:
        param = [param] * len(optimizer.param_groups)
    return list(map(_copy, param))


def _param_groups_val_list(optimizer: Optimizer, key: str) -> list[Any]:
    return [group[key].clone() if isinstance(group[key], Tensor) else group[key]
            for group in optimizer.param_groups]


def _update_param_group_val(param_group: dict[str, Any], key: str, val: float | Tensor) -> None:
    if isinstance(param_group[key], Tensor):
        param_group[key].fill_(_to_scalar(val))
    else:
        param_group[key] = val


class LRScheduler:
    """Base class of the epoch-based schedulers, mirroring ``torch.optim.lr_scheduler.LRScheduler``:
    ``last_epoch``, ``base_lrs`` (from each group's ``initial_lr``), ``get_last_lr()``, ``get_lr()``
    (the chainable rule, called inside ``step``), ``state_dict``/``load_state_dict`` (every
    attribute but the optimizer) and ``_step_count``. Construction performs the initial step."""
    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_deferred", False):
            cls.step = _deferred_in_compiled(step)

    def __init__(self, optimizer: Optimizer, last_epoch: int=-1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group['lr']
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault('initial_lr', initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if 'initial_lr' not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs: list[float | Tensor] = _param_groups_val_list(optimizer, 'initial_lr')
        self.last_epoch = last_epoch

        self._initial_step()

    def _initial_step(self) -> None:
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != 'optimizer'}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float | Tensor]:
        return self._last_lr

    def get_lr(self) -> list[float | Tensor]:
        raise NotImplementedError

    def step(self, epoch: int | None=None) -> None:
        if self._step_count == 1 and not getattr(self.optimizer, '_opt_called', False):
            warnings.warn(
                'Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch '
                '1.1.0 and later, you should call them in the opposite order: '
                '`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will '
                'result in PyTorch skipping the first value of the learning rate schedule. '
                'See more details at '
                'https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate',
                UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None=None) -> None:
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, '_get_closed_form_lr'):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        for param_group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _update_param_group_val(param_group, 'lr', lr)
        self._last_lr: list[float | Tensor] = _param_groups_val_list(self.optimizer, 'lr')


LRScheduler.step = _deferred_in_compiled(LRScheduler.step)


def _warn_get_lr_called_within_step(lr_scheduler: LRScheduler) -> None:
    if not lr_scheduler._get_lr_called_within_step:
        warnings.warn('To get the last learning rate computed by the scheduler, please use '
                      '`get_last_lr()`.', UserWarning, stacklevel=2)


class _LRScheduler(LRScheduler):
    """Deprecated alias of ``LRScheduler`` kept by PyTorch."""
    pass


class _enable_get_lr_call:

    def __init__(self, o: LRScheduler) -> None:
        self.o = o

    def __enter__(self) -> '_enable_get_lr_call':
        self.o._get_lr_called_within_step = True
        return self

    def __exit__(self, type, value, traceback) -> None:
        self.o._get_lr_called_within_step = False


class _initial_mode:

    def __init__(self, o: LRScheduler) -> None:
        self.o = o

    def __enter__(self):
        self.o._is_initial = True

    def __exit__(self, type, value, traceback):
        self.o._is_initial = False


class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one ``lr_lambda`` per param group, and a
    state dict that keeps the callable objects' attributes (never plain functions)."""

    lr_lambdas: list[Callable[[int], float]]

    def _set_lambdas(self, optimizer: Optimizer, lr_lambda) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, list) and (not isinstance(lr_lambda, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f'Expected {len(optimizer.param_groups)} lr_lambdas, but got '
                                 f'{len(lr_lambda)}')
            self.lr_lambdas = list(lr_lambda)

    def state_dict(self) -> dict[str, Any]:
        state_dict = {key: value for key, value in self.__dict__.items()
                      if key not in ('optimizer', 'lr_lambdas')}
        state_dict['lr_lambdas'] = [None] * len(self.lr_lambdas)
        for idx, fn in enumerate(self.lr_lambdas):
            if not isinstance(fn, types.FunctionType):
                state_dict['lr_lambdas'][idx] = fn.__dict__.copy()
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        lr_lambdas = state_dict.pop('lr_lambdas')
        self.__dict__.update(state_dict)
        state_dict['lr_lambdas'] = lr_lambdas
        for idx, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(_LambdaScheduler):
    """Mirrors ``torch.optim.lr_scheduler.LambdaLR``: ``lr = base_lr * lr_lambda(epoch)``."""

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int=-1) -> None:
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        return [base_lr * lmbda(self.last_epoch)
                for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaScheduler):
    """Mirrors ``torch.optim.lr_scheduler.MultiplicativeLR``: ``lr *= lr_lambda(epoch)``."""

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int=-1) -> None:
        self._set_lambdas(optimizer, lr_lambda)
        for lr_lambda in self.lr_lambdas:
            if not callable(lr_lambda):
                raise TypeError('lr_lambda should be a function, but got '
                                f'{type(lr_lambda).__name__}')
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if not self._is_initial:
            return [group['lr'] * lmbda(self.last_epoch) for lmbda, group
                    in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]
        else:
            return _param_groups_val_list(self.optimizer, 'lr')


class StepLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.StepLR``: multiply by ``gamma`` every ``step_size``
    epochs."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float=0.1,
                 last_epoch: int=-1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.MultiStepLR``: multiply by ``gamma`` at each milestone
    (repeated milestones count once per repetition)."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float=0.1,
                 last_epoch: int=-1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.ConstantLR``: ``factor * lr`` until ``total_iters``."""

    def __init__(self, optimizer: Optimizer, factor: float=1.0 / 3, total_iters: int=5,
                 last_epoch: int=-1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError('Constant multiplicative factor expected to be between 0 and 1.')
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group['lr'] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.LinearLR``: the factor goes linearly from
    ``start_factor`` to ``end_factor`` over ``total_iters`` (PyTorch's chainable ratio form)."""

    def __init__(self, optimizer: Optimizer, start_factor: float=1.0 / 3, end_factor: float=1.0,
                 total_iters: int=5, last_epoch: int=-1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError('Starting multiplicative factor expected to be greater than 0 and '
                             'less or equal to 1.')
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError('Ending multiplicative factor expected to be between 0 and 1.')
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group['lr'] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * (1.0 + (self.end_factor - self.start_factor)
                               / (self.total_iters * self.start_factor
                                  + (self.last_epoch - 1) * (self.end_factor - self.start_factor)))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.ExponentialLR``: ``lr *= gamma`` each epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int=-1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.PolynomialLR``: polynomial decay to 0 over
    ``total_iters``."""

    def __init__(self, optimizer: Optimizer, total_iters: int=5, power: float=1.0,
                 last_epoch: int=-1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        decay_factor = ((1.0 - self.last_epoch / self.total_iters)
                        / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group['lr'] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.CosineAnnealingLR`` in PyTorch's recursive form (the
    closed form only with ``step(epoch)``), which also differs from SGDR after ``T_max``."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float=0.0,
                 last_epoch: int=-1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, 'lr')
        elif self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups,
                                              strict=True)]
        elif (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group['lr']
                    + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups,
                                              strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group['lr'] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float | Tensor]:
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]

