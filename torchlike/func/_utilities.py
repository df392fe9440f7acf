"""``functionalize``, ``replace_all_batch_norm_modules_`` and ``debug_unwrap``, mirroring
``torch.func``'s."""

from __future__ import annotations

import functools
from typing import Any, Callable

__all__ = ["functionalize", "replace_all_batch_norm_modules_", "debug_unwrap"]

_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """Mirrors ``torch.func.functionalize``: ``func`` as a function whose in-place and
    ``out=`` ops (and with ``remove="mutations_and_views"`` its views) become
    out-of-place ops, with the same results and the same writes to its inputs.

    torchlike's tensors already work that way (DESIGN principle 4: a write through a view
    is a functional update of the base's immutable array, and under ``jax.jit`` or
    ``torchlike.compile`` every op is traced as a pure function), so the function
    returned runs ``func`` unchanged; ``remove`` is checked as PyTorch checks it."""
    if remove not in _REMOVE:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n     remove='mutations': all inplace and "
            "out= operators will be removed from the program, and replaced with their "
            "out-of-place equivalents.\n     remove='mutations_and_views': In addition to "
            "the above, all aliasing operators {view} will be replaced with their "
            "non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)
    return wrapped


def replace_all_batch_norm_modules_(root):
    """Mirrors ``torch.func.replace_all_batch_norm_modules_``: every BatchNorm module in
    ``root`` stops tracking running statistics (``running_mean``, ``running_var`` and
    ``num_batches_tracked`` become None, ``track_running_stats`` False), so that it
    normalises with each batch's statistics, as ``vmap`` over it needs. In place; returns
    ``root``."""
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse: bool = True):
    """Mirrors ``torch.func.debug_unwrap``: the tensor beneath a transform's wrapper.
    torchlike's transforms hand the function plain tensors (over JAX tracers while one
    is traced), never wrappers, so this returns ``tensor``."""
    return tensor
