"""Cyclic learning-rate schedulers: ``CyclicLR``, ``CosineAnnealingWarmRestarts`` (SGDR)
and ``OneCycleLR``, the first and last cycling momentum (or Adam's beta1) too. Users
import them from ``torchlike.optim.lr_scheduler``."""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, TypedDict

from .._core.tensor import Tensor
from ._lr_base import (LRScheduler, _enable_get_lr_call, _format_param, _param_groups_val_list,
                       _update_param_group_val, _warn_get_lr_called_within_step)
from .optimizer import Optimizer


def _start_momentums(optimizer: Optimizer, use_beta1: bool, max_momentums, base_momentums) -> None:
    """CyclicLR's and OneCycleLR's first step: each group's momentum (or Adam's beta1)
    starts at its maximum, and the group keeps both bounds, as PyTorch's do."""
    for m_momentum, b_momentum, group in zip(max_momentums, base_momentums,
                                             optimizer.param_groups, strict=True):
        if use_beta1:
            group['betas'] = (m_momentum, *group['betas'][1:])
        else:
            group['momentum'] = m_momentum
        group['max_momentum'] = m_momentum
        group['base_momentum'] = b_momentum


class CyclicLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.CyclicLR``: triangular, triangular2 and exp_range cycles
    or a custom ``scale_fn``; with ``cycle_momentum`` it cycles ``momentum`` (or Adam's beta1)
    inversely."""

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float],
                 max_lr: float | list[float], step_size_up: int=2000,
                 step_size_down: int | None=None,
                 mode: Literal['triangular', 'triangular2', 'exp_range']='triangular',
                 gamma: float=1.0, scale_fn: Callable[[float], float] | None=None,
                 scale_mode: Literal['cycle', 'iterations']='cycle', cycle_momentum: bool=True,
                 base_momentum: float=0.8, max_momentum: float=0.9,
                 last_epoch: int=-1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')
        self.optimizer = optimizer
        base_lrs = _format_param('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _update_param_group_val(group, 'lr', lr)
        self.max_lrs = _format_param('max_lr', optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ['triangular', 'triangular2', 'exp_range'] and scale_fn is None:
            raise ValueError('mode is invalid and scale_fn is None')
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_ref: Callable[[float], float]
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
                raise ValueError('optimizer must support momentum or beta1 with `cycle_momentum` '
                                 'option enabled')
            self.use_beta1 = 'betas' in self.optimizer.defaults
            self.base_momentums = _format_param('base_momentum', optimizer, base_momentum)
            self.max_momentums = _format_param('max_momentum', optimizer, max_momentum)
            if last_epoch == -1:
                _start_momentums(optimizer, self.use_beta1, self.max_momentums, self.base_momentums)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == 'triangular':
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'triangular2':
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'exp_range':
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = 'iterations'

    def scale_fn(self, x) -> float:
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        else:
            return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x: float) -> float:
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x: float) -> float:
        return 1 / 2.0 ** (x - 1)

    @staticmethod
    def _exp_range_scale_fn(gamma: float, x: float) -> float:
        return gamma ** x

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        lrs = []
        for base_lr, max_lr in zip(self.base_lrs, self.max_lrs, strict=True):
            base_height = (max_lr - base_lr) * scale_factor
            if self.scale_mode == 'cycle':
                lr = base_lr + base_height * self.scale_fn(cycle)
            else:
                lr = base_lr + base_height * self.scale_fn(self.last_epoch)
            lrs.append(lr)
        if self.cycle_momentum:
            momentums = []
            for base_momentum, max_momentum in zip(self.base_momentums, self.max_momentums,
                                                   strict=True):
                base_height = (max_momentum - base_momentum) * scale_factor
                if self.scale_mode == 'cycle':
                    momentum = max_momentum - base_height * self.scale_fn(cycle)
                else:
                    momentum = max_momentum - base_height * self.scale_fn(self.last_epoch)
                momentums.append(momentum)
            for param_group, momentum in zip(self.optimizer.param_groups, momentums, strict=True):
                if self.use_beta1:
                    param_group['betas'] = (momentum, *param_group['betas'][1:])
                else:
                    param_group['momentum'] = momentum
        return lrs

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state.pop('_scale_fn_ref', None)
        fn = state.pop('_scale_fn_custom')
        state['_scale_fn_custom'] = None
        if fn is not None and (not isinstance(fn, types.FunctionType)):
            state['_scale_fn_custom'] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        fn = state_dict.pop('_scale_fn_custom')
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.CosineAnnealingWarmRestarts`` (SGDR): cosine annealing
    restarted every ``T_i`` epochs, ``T_i`` growing by ``T_mult``; ``step(epoch)`` accepts
    fractional epochs."""

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int=1, eta_min: float=0.0,
                 last_epoch: int=-1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f'Expected positive integer T_0, but got {T_0}')
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f'Expected integer T_mult >= 1, but got {T_mult}')
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f'Expected float or int eta_min, but got {eta_min} of type '
                             f'{type(eta_min)}')
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f'Expected non-negative epoch, but got {epoch}')
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _enable_get_lr_call(self):
            for param_group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
                _update_param_group_val(param_group, 'lr', lr)
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')


class _SchedulePhase(TypedDict):
    end_step: float
    start_lr: str
    end_lr: str
    start_momentum: str
    end_momentum: str


class OneCycleLR(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.OneCycleLR``: warm up to ``max_lr`` then anneal (cos or
    linear; ``three_phase``), cycling momentum or Adam's beta1 inversely; stepped per batch."""

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None=None, epochs: int | None=None,
                 steps_per_epoch: int | None=None, pct_start: float=0.3,
                 anneal_strategy: Literal['cos', 'linear']='cos', cycle_momentum: bool=True,
                 base_momentum: float | list[float]=0.85,
                 max_momentum: float | list[float]=0.95, div_factor: float=25.0,
                 final_div_factor: float=10000.0, three_phase: bool=False,
                 last_epoch: int=-1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f'Expected positive integer total_steps, but got {total_steps}')
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f'Expected positive integer epochs, but got {epochs}')
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError('Expected positive integer steps_per_epoch, but got '
                                 f'{steps_per_epoch}')
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError('You must define either total_steps OR (epochs AND steps_per_epoch)')
        self._schedule_phases: list[_SchedulePhase]
        if three_phase:
            self._schedule_phases = [
                {'end_step': float(pct_start * self.total_steps) - 1, 'start_lr': 'initial_lr',
                 'end_lr': 'max_lr', 'start_momentum': 'max_momentum',
                 'end_momentum': 'base_momentum'},
                {'end_step': float(2 * pct_start * self.total_steps) - 2, 'start_lr': 'max_lr',
                 'end_lr': 'initial_lr', 'start_momentum': 'base_momentum',
                 'end_momentum': 'max_momentum'},
                {'end_step': self.total_steps - 1, 'start_lr': 'initial_lr', 'end_lr': 'min_lr',
                 'start_momentum': 'max_momentum', 'end_momentum': 'max_momentum'}]
        else:
            self._schedule_phases = [
                {'end_step': float(pct_start * self.total_steps) - 1, 'start_lr': 'initial_lr',
                 'end_lr': 'max_lr', 'start_momentum': 'max_momentum',
                 'end_momentum': 'base_momentum'},
                {'end_step': self.total_steps - 1, 'start_lr': 'max_lr', 'end_lr': 'min_lr',
                 'start_momentum': 'base_momentum', 'end_momentum': 'max_momentum'}]
        if pct_start < 0 or pct_start > 1 or (not isinstance(pct_start, float)):
            raise ValueError(f'Expected float between 0 and 1 pct_start, but got {pct_start}')
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        else:
            self._anneal_func_type = anneal_strategy
        max_lrs = _format_param('max_lr', self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group['initial_lr'] = max_lrs[idx] / div_factor
                group['max_lr'] = max_lrs[idx]
                group['min_lr'] = group['initial_lr'] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if 'momentum' not in self.optimizer.defaults and 'betas' not in self.optimizer.defaults:
                raise ValueError('optimizer must support momentum or beta1 with `cycle_momentum` '
                                 'option enabled')
            self.use_beta1 = 'betas' in self.optimizer.defaults
            max_momentums = _format_param('max_momentum', optimizer, max_momentum)
            base_momentums = _format_param('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                _start_momentums(optimizer, self.use_beta1, max_momentums, base_momentums)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, *args, **kwargs):
        if hasattr(self, '_anneal_func_type'):
            if self._anneal_func_type == 'cos':
                return self._annealing_cos(*args, **kwargs)
            elif self._anneal_func_type == 'linear':
                return self._annealing_linear(*args, **kwargs)
            else:
                raise ValueError(f'Unknown _anneal_func_type: {self._anneal_func_type}')
        else:
            return self.anneal_func(*args, **kwargs)

    @staticmethod
    def _annealing_cos(start, end, pct):
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self) -> list[float | Tensor]:
        _warn_get_lr_called_within_step(self)
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f'Tried to step {step_num} times. The specified number of total '
                             f'steps is {self.total_steps}')
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase['end_step']
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(group[phase['start_lr']],
                                                    group[phase['end_lr']], pct)
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(group[phase['start_momentum']],
                                                              group[phase['end_momentum']], pct)
                    break
                start_step = phase['end_step']
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group['betas'] = (computed_momentum, *group['betas'][1:])
                else:
                    group['momentum'] = computed_momentum
        return lrs
