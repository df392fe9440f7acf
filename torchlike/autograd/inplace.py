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


def _move_saved(node, out: Tensor, target: Tensor) -> None:
    """Version bookkeeping of an in-place op's own node. Its result now lives in
    ``target``: entries for the result expect ``target``'s version after the write. Its
    input ``target`` was saved as it was before the write (PyTorch saves a copy of the
    original ``self``), so later writes to ``target`` do not invalidate it."""
    saved = getattr(node, "_saved", None)
    if not saved:
        return
    vc = target._vc
    res = []
    for e in saved:
        if e[0] is out._vc:
            res.append((vc, vc.v) + e[2:])
        elif e[0] is vc and e[5] is None:
            continue
        else:
            res.append(e)
    node._saved = res or None


def rebase_history(self: Tensor, out: Tensor) -> None:
    """Write ``out`` (which has a grad_fn) into ``self`` and move the history there."""
    from .._ops.dispatch import call_op
    base = self._base
    if base is None:
        self._set_value(out._value)
        _move_saved(out.grad_fn, out, self)
        self.grad_fn = out.grad_fn
        self._output_nr = out._output_nr
        self._requires_grad = True
        out.grad_fn._retarget(out, self)
        return
    size, stride, offset = self._shape, self.stride(), self._offset
    new_base = call_op("_as_strided_scatter", base, out, size, stride, offset)
    base._set_value(new_base._value)
    _move_saved(new_base.grad_fn, new_base, base)
    base.grad_fn = new_base.grad_fn
    base._output_nr = 0
    base._requires_grad = True
    _move_saved(out.grad_fn, out, self)
    view = call_op("_as_strided", base, size, stride, offset)
    self.grad_fn = view.grad_fn
    self._output_nr = 0
    self._requires_grad = True
