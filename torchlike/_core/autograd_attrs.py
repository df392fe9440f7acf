"""The autograd attributes of ``Tensor``: ``requires_grad``, ``grad``, ``grad_fn``,
``is_leaf``, ``retains_grad`` and ``detach_``.

``Tensor`` takes them from ``AutogradAttributes``, which holds behaviour only: the fields
it reads (``_requires_grad``, ``_grad``, ``_grad_fn``, ``_base``, ...) are slots declared
on ``Tensor`` with the rest of its layout, and ``init_autograd_fields`` gives them their
values for a fresh tensor. ``backward``, ``register_hook``, ``retain_grad`` and the other
methods that need the engine are attached by torchlike.autograd.engine.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from . import dtype as _dt
from .grad_mode import _state as _grad_state

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["AutogradAttributes", "init_autograd_fields"]


class AutogradAttributes:
    """Mixin of ``Tensor``'s autograd attributes (see the module docstring)."""

    __slots__ = ()

    @property
    def requires_grad(self) -> bool:
        """Mirrors ``Tensor.requires_grad``: whether gradients are computed for this tensor."""
        if self._base is not None and not self._requires_grad:
            return self.grad_fn is not None   # Note [Stale view history]
        return self._requires_grad

    # Note [Stale view history]
    # A view remembers the version of its memory when its ``grad_fn`` was set
    # (``_attr_version``). When the base or another view has been written in place since,
    # its graph is stale: reading ``grad_fn`` makes it anew, as PyTorch does, as an
    # ``AsStridedBackward0`` of the base's current history
    # (``torchlike.autograd.inplace.regenerate_view_grad_fn``).
    @property
    def grad_fn(self):
        """Mirrors ``Tensor.grad_fn``: the node that made this tensor, None for a leaf."""
        if self._base is None or self._attr_version == self._vc.v:
            return self._grad_fn
        from ..autograd.inplace import regenerate_view_grad_fn
        return regenerate_view_grad_fn(self)

    @grad_fn.setter
    def grad_fn(self, fn) -> None:
        # (a view given new history after a write records the version itself)
        self._grad_fn = fn

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, "Only Tensors of floating point and complex dtype "
                                       "can require gradients")

    def _set_requires_grad(self, value: bool, msg: str) -> None:
        if self.grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(msg)
        if value and self._storage.inference and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Mirrors ``Tensor.requires_grad_``: sets the flag in place and returns self."""
        self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can "
                                               "require gradients")
        return self

    def is_inference(self) -> bool:
        """Mirrors ``Tensor.is_inference``: whether this tensor (or the tensor it views)
        was made under ``inference_mode`` (Note [Inference tensors])."""
        return self._storage.inference

    @property
    def is_leaf(self) -> bool:
        """Mirrors ``Tensor.is_leaf``: True for tensors not produced by a recorded op."""
        return self.grad_fn is None

    @property
    def grad(self):
        """Mirrors ``Tensor.grad``: None until a backward computes gradients for this
        leaf (or this non-leaf after ``retain_grad()``)."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.", UserWarning,
                stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            from .tensor import Tensor
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value.dtype is not self.dtype:
                from .._ops.bind import dtype_short_name
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dt.cpp_name(value.dtype)}' "
                    f"to a tensor with grad_dtype '{dtype_short_name(self.dtype)}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's "
                    "dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging "
                    "the dtypes of a tensor and its gradient may break downstream systems that "
                    "assume they match.")
            if value._shape != self._shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._shape)}' to a "
                    f"tensor of size '{list(self._shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        """Mirrors ``Tensor.retains_grad``."""
        return self._retains_grad

    @property
    def output_nr(self) -> int:
        return self._output_nr


    def detach_(self) -> "Tensor":
        """Mirrors ``Tensor.detach_``: makes this tensor a leaf that does not require grad."""
        if self._base is not None and (self.grad_fn is not None or self._requires_grad):
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self


def init_autograd_fields(t: "Tensor", requires_grad: bool) -> None:
    """The autograd state of a fresh tensor: a leaf, with no grad, hooks or base."""
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = None
    t._attr_version = 0
    t._retains_grad = False
    t._hooks = None
    t._post_acc_hooks = None
    t._output_nr = 0
    t._base = None
    t._node_ref = None
