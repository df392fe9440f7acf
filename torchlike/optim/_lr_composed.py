"""Learning-rate schedulers with a ``step`` of their own: ``SequentialLR`` and
``ChainedScheduler``, built from other schedulers, and ``ReduceLROnPlateau``, driven by a
metric. Users import them from ``torchlike.optim.lr_scheduler``."""

from __future__ import annotations

import warnings
from bisect import bisect_right
from collections.abc import Sequence
from math import inf
from typing import Any, Literal, SupportsFloat

from ._lr_base import (EPOCH_DEPRECATION_WARNING, LRScheduler, _param_groups_val_list,
                       _update_param_group_val)
from .optimizer import Optimizer


class _ComposedScheduler(LRScheduler):
    """What SequentialLR and ChainedScheduler share: a state dict holding each inner
    scheduler's own state dict."""

    _schedulers: list[LRScheduler]

    def _check_schedulers(self, schedulers, optimizer) -> None:
        """PyTorch's checks of the composed schedulers: each has an optimizer, is not a
        ``ReduceLROnPlateau`` and steps ``optimizer``."""
        for scheduler_idx, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, 'optimizer'):
                raise TypeError(f'{self.__class__.__name__} at index {scheduler_idx} should have '
                                '`optimizer` as its attribute.')
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(f'{self.__class__.__name__} does not support '
                                 '`ReduceLROnPlateau` scheduler as it requires additional kwargs '
                                 'to be specified when calling `step`, but got one at index '
                                 f'{scheduler_idx} in the given schedulers sequence.')
            if optimizer != scheduler.optimizer:
                raise ValueError(f'{self.__class__.__name__} expects all schedulers to belong to '
                                 'the same optimizer, but got scheduler '
                                 f'{scheduler.__class__.__name__} at index {scheduler_idx} has '
                                 f'{scheduler.optimizer}, which is different from '
                                 f'{optimizer.__class__.__name__}.')

    def state_dict(self) -> dict[str, Any]:
        state_dict = {key: value for key, value in self.__dict__.items()
                      if key not in ('optimizer', '_schedulers')}
        state_dict['_schedulers'] = [None] * len(self._schedulers)
        for idx, s in enumerate(self._schedulers):
            state_dict['_schedulers'][idx] = s.state_dict()
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _schedulers = state_dict.pop('_schedulers')
        self.__dict__.update(state_dict)
        state_dict['_schedulers'] = _schedulers
        for idx, s in enumerate(_schedulers):
            self._schedulers[idx].load_state_dict(s)


class SequentialLR(_ComposedScheduler):
    """Mirrors ``torch.optim.lr_scheduler.SequentialLR``: hands over from one scheduler to the
    next at each milestone."""

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int=-1) -> None:
        if len(schedulers) < 1:
            raise ValueError(f'{self.__class__.__name__} expects at least one scheduler, but '
                             'got no scheduler.')
        self._check_schedulers(schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError('Sequential Schedulers expects number of schedulers provided to be '
                             'one more than the number of milestone points, but got number of '
                             f'schedulers {len(schedulers)} and the number of milestones to be '
                             f'equal to {len(milestones)}')
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            _update_param_group_val(group, 'lr', group['initial_lr'])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        scheds = self if sched is None else sched
        if hasattr(scheds, '_schedulers'):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, 'last_epoch'):
            scheds.last_epoch -= 1

    def step(self) -> None:
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_ComposedScheduler):
    """Mirrors ``torch.optim.lr_scheduler.ChainedScheduler``: steps every scheduler in turn."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None=None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f'{self.__class__.__name__} expects at least one scheduler to be '
                             'chained, but got no scheduler.')
        optimizer = optimizer or schedulers[0].optimizer
        self._check_schedulers(schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, 'lr')

    def step(self) -> None:
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, 'lr')

class ReduceLROnPlateau(LRScheduler):
    """Mirrors ``torch.optim.lr_scheduler.ReduceLROnPlateau``: ``step(metric)`` multiplies lr by
    ``factor`` after ``patience`` epochs without improvement (``mode`` min/max,
    ``threshold_mode`` rel/abs, ``cooldown``, ``min_lr``, changes smaller than ``eps`` ignored)."""

    def __init__(self, optimizer: Optimizer, mode: Literal['min', 'max']='min',
                 factor: float=0.1, patience: int=10, threshold: float=0.0001,
                 threshold_mode: Literal['rel', 'abs']='rel', cooldown: int=0,
                 min_lr: list[float] | float=0, eps: float=1e-08) -> None:
        if factor >= 1.0:
            raise ValueError('Factor should be < 1.0.')
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f'expected {len(optimizer.param_groups)} min_lrs, got '
                                 f'{len(min_lr)}')
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch=None) -> None:
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')

    def _reduce_lr(self, epoch) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError('The number of param groups in the `optimizer` '
                                   f'({len(self.optimizer.param_groups)}) differs from when '
                                   f'`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), '
                                   'usually due to a new param group being added to the '
                                   'optimizer. Please modify the `min_lrs` field to match the '
                                   'length of the `optimizer` param groups.')
            else:
                self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, param_group in enumerate(self.optimizer.param_groups):
            old_lr = float(param_group['lr'])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _update_param_group_val(param_group, 'lr', new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == 'min' and self.threshold_mode == 'rel':
            rel_epsilon = 1.0 - self.threshold
            return a < best * rel_epsilon
        elif self.mode == 'min' and self.threshold_mode == 'abs':
            return a < best - self.threshold
        elif self.mode == 'max' and self.threshold_mode == 'rel':
            rel_epsilon = self.threshold + 1.0
            return a > best * rel_epsilon
        else:
            return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        if mode not in {'min', 'max'}:
            raise ValueError('mode ' + mode + ' is unknown!')
        if threshold_mode not in {'rel', 'abs'}:
            raise ValueError('threshold mode ' + threshold_mode + ' is unknown!')
        if mode == 'min':
            self.mode_worse = inf
        else:
            self.mode_worse = -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)
