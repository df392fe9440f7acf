"""``torchlike.nn.utils.skip_init``, as ``torch.nn.utils.init``."""

from __future__ import annotations

import inspect
from typing import Any

from ..._core.random import fork_rng
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Module:
    """Mirrors ``torch.nn.utils.skip_init``: an instance of ``module_cls(*args,
    **kwargs)`` whose parameters and buffers are left uninitialized (as by
    ``torchlike.empty``) on ``device`` (default ``"cpu"``). The class must take a
    ``device`` argument.

    Difference: torchlike has no ``meta`` device, so the module is built on ``device``
    and its tensors are then emptied with ``to_empty``; the random generator's state is
    put back, so, as in PyTorch, no random numbers are consumed (the initialization's
    compute is not saved)."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = final_device
    with fork_rng():
        module = module_cls(*args, **kwargs)
    return module.to_empty(device=final_device)
