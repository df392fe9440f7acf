"""Autograd history for in-place ops, including writes through views.

# Note [In-place on a view]
# ``v = base[0]; v.mul_(w)`` must change the graph of ``base`` too (PyTorch's
# CopySlices). The new base value is recorded as a differentiable strided scatter of
# the op's result into the old base; the view then reads itself back from the new
# base with a differentiable strided gather, so gradients reach both the old base and
# the op's inputs.
"""

from __future__ import annotations

from .._core.tensor import Tensor

__all__ = ["rebase_history"]


def _mark_self_saved(node, self: Tensor) -> None:
    # The op's own write must not count as "modified after being saved".
    vs = getattr(node, "_versions", None)
    if vs is None:
        return
    for i, t in enumerate(node._all_tensors):
        if t._vc is self._vc:
            vs[i] = self._vc.v


def rebase_history(self: Tensor, out: Tensor) -> None:
    """Write ``out`` (which has a grad_fn) into ``self`` and move the history there."""
    from .._ops.dispatch import call_op
    base = self._base
    if base is None or self._direct and base is None:
        self._set_value(out._value)
        _mark_self_saved(out.grad_fn, self)
        self.grad_fn = out.grad_fn
        self._output_nr = out._output_nr
        self._requires_grad = True
        out.grad_fn._retarget(out, self)
        return
    size, stride, offset = self._shape, self.stride(), self._offset
    new_base = call_op("_as_strided_scatter", base, out, size, stride, offset)
    base._set_value(new_base._value)
    _mark_self_saved(new_base.grad_fn, base)
    base.grad_fn = new_base.grad_fn
    base._output_nr = 0
    base._requires_grad = True
    _mark_self_saved(out.grad_fn, self)
    view = call_op("_as_strided", base, size, stride, offset)
    self.grad_fn = view.grad_fn
    self._output_nr = 0
    self._requires_grad = True
