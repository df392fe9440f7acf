"""The handle every ``register_*hook`` returns, and the helpers ``torch.utils.hooks``
has; public as ``torchlike.utils.hooks``.

It lives here, below ``autograd`` and ``nn``, because both hand it out and
``torchlike.utils`` imports them: one class serves tensor, node, module and optimizer
hooks, as ``torch.utils.hooks.RemovableHandle`` does in PyTorch.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from typing import Any, Callable

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle:
    """Mirrors ``torch.utils.hooks.RemovableHandle``: ``remove()`` deletes the hook
    (key ``id``) from ``hooks_dict`` and from each ``extra_dict``.

    The dicts are held weakly, as in PyTorch, so they must accept weak references
    (``OrderedDict`` does, a plain ``dict`` does not). Usable as a context manager
    (the hook is removed on exit) and picklable: the state is ``(hooks_dict, id,
    extra_dicts)``, and unpickling moves ``next_id`` past the restored ``id``.

    >>> from collections import OrderedDict
    >>> hooks = OrderedDict()
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove()
    >>> len(hooks)
    0
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, (list, tuple)):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        if state[0] is None:
            self.hooks_dict_ref = weakref.ref(OrderedDict())   # a dead reference
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        if len(state) < 3 or state[2] is None:
            self.extra_dict_ref = ()
        else:
            self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2])

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, type: Any, value: Any, tb: Any) -> None:
        self.remove()


def unserializable_hook(f: Callable) -> Callable:
    """Mirrors ``torch.utils.hooks.unserializable_hook``: marks ``f`` (sets
    ``f.__torch_unserializable__``) so that ``warn_if_has_hooks`` stays silent about it."""
    f.__torch_unserializable__ = True
    return f


def _backward_hooks(tensor) -> dict | None:
    """A tensor's ``register_hook`` hooks: a leaf keeps them itself, a non-leaf's live
    on its ``grad_fn`` under its output number (PyTorch's ``Tensor._backward_hooks``)."""
    if tensor.grad_fn is None:
        return getattr(tensor, "_hooks", None)
    pre = getattr(tensor.grad_fn, "_tensor_pre_hooks", None)
    return None if not pre else pre.get(tensor._output_nr)


def warn_if_has_hooks(tensor) -> None:
    """Mirrors ``torch.utils.hooks.warn_if_has_hooks``: a ``UserWarning`` per backward
    hook of ``tensor`` that is not marked ``unserializable_hook`` (hooks are not saved
    with a tensor)."""
    hooks = _backward_hooks(tensor)
    if hooks:
        for k in hooks:
            hook = hooks[k]
            if not hasattr(hook, "__torch_unserializable__"):
                warnings.warn(f"backward hook {repr(hook)} on tensor will not be "
                              "serialized.  If this is expected, you can "
                              "decorate the function with @torch.utils.hooks.unserializable_hook "
                              "to suppress this warning", stacklevel=2)
