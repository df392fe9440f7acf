"""``torchlike.nn.utils.stateless.functional_call``: the deprecated name of
``torchlike.func.functional_call``, as ``torch.nn.utils.stateless``."""

from __future__ import annotations

import warnings
from typing import Any

from ...func import functional_call as _func_functional_call
from ..modules.module import Module

__all__ = ["functional_call"]


def functional_call(module: Module, parameters_and_buffers: dict, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Mirrors the deprecated ``torch.nn.utils.stateless.functional_call`` (with its
    FutureWarning): ``module(*args, **kwargs)`` with the named parameters and buffers
    replaced by ``parameters_and_buffers``; see ``torchlike.func.functional_call``."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
                  "and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _func_functional_call(module, parameters_and_buffers, args, kwargs,
                                 tie_weights=tie_weights, strict=strict)
