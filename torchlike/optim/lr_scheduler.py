"""Learning-rate schedulers, mirroring ``torch.optim.lr_scheduler``.

A scheduler is pure Python bookkeeping over ``optimizer.param_groups`` (floats in, floats
out), so each class follows PyTorch's own recurrences step for step: the chainable forms
(``CosineAnnealingLR``'s recursive formula, ``MultiplicativeLR``...) are what ``step()`` uses,
and the closed forms are used when ``step(epoch)`` is given, exactly as in PyTorch; the values
therefore match PyTorch's to the last bit.

Difference from PyTorch: the "``lr_scheduler.step()`` before ``optimizer.step()``" warning is
driven by a flag that every torchlike optimizer sets in ``step`` (PyTorch wraps
``optimizer.step`` from the scheduler to set the same flag).

The classes live in ``_lr_base.py`` (the base class and the schedulers that are a
``get_lr`` rule over it), ``_lr_composed.py`` (``SequentialLR``, ``ChainedScheduler``,
``ReduceLROnPlateau``) and ``_lr_cyclic.py`` (``CyclicLR``, ``CosineAnnealingWarmRestarts``,
``OneCycleLR``); they print under this module, as PyTorch's do.
"""

from __future__ import annotations

from ._lr_base import (EPOCH_DEPRECATION_WARNING, ConstantLR, CosineAnnealingLR,
                       ExponentialLR, LambdaLR, LinearLR, LRScheduler, MultiplicativeLR,
                       MultiStepLR, PolynomialLR, StepLR, _enable_get_lr_call, _initial_mode,
                       _LRScheduler)
from ._lr_composed import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]

for _cls in (LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR,
             ExponentialLR, SequentialLR, CosineAnnealingLR, ChainedScheduler,
             ReduceLROnPlateau, CyclicLR, CosineAnnealingWarmRestarts, OneCycleLR,
             PolynomialLR, LRScheduler, _LRScheduler):
    _cls.__module__ = __name__
del _cls
_ = (EPOCH_DEPRECATION_WARNING, _enable_get_lr_call, _initial_mode)   # torch has them here too
