"""Mirrors ``torch.utils.hooks``: ``RemovableHandle``, the handle every
``register_*hook`` of tensors, autograd nodes, modules and optimizers returns, and the
``unserializable_hook``/``warn_if_has_hooks`` helpers.

``BackwardHook`` (PyTorch's machinery behind ``nn.Module.register_full_backward_hook``)
is not here: torchlike's module backward hooks are ``autograd/_module_hooks.py``.
"""

from .._core.hooks import RemovableHandle as RemovableHandle
from .._core.hooks import unserializable_hook as unserializable_hook
from .._core.hooks import warn_if_has_hooks as warn_if_has_hooks

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]

# printed and pickled under this public module, as PyTorch's under torch.utils.hooks
RemovableHandle.__module__ = __name__
unserializable_hook.__module__ = __name__
warn_if_has_hooks.__module__ = __name__
