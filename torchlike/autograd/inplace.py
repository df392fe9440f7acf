"""Autograd history for in-place ops, including writes through views.

# Note [In-place on a view]
# ``v = base[0]; v.mul_(w)`` must change the graph of ``base`` too (PyTorch's
# CopySlices). The new base value is recorded as a differentiable strided scatter of
# the op's result into the old base; the view then reads itself back from the new
# base with a differentiable strided gather, so gradients reach both the old base and
# the op's inputs. Both take the view's place as (size, stride, offset) in the base's
# own row-major order. A view's metadata gives it in storage positions, which is the
# same thing only while the base lays out its storage contiguously from 0; a base that
# does not (after ``t_()``, ``as_strided_()`` or ``resize_()`` on it, or made by
# ``empty_strided``) has the positions translated (``_in_base_order``), and a view
# whose elements are not strided in the base's order raises rather than be written to
# the wrong elements.
"""

from __future__ import annotations

import weakref

import numpy as np

from .._core.storage import contiguous_strides, strided_index
from .._core.tensor import Tensor

__all__ = ["rebase_history", "regenerate_view_grad_fn"]


def _move_retain(t: Tensor, old, new, old_nr: int) -> None:
    """``t.retain_grad()`` follows ``t``'s history: after an in-place op (or a stale view's
    new graph) ``.grad`` is the gradient of the new value, as PyTorch moves its
    retains_grad hook to the new ``grad_fn``. ``old_nr`` is ``t``'s output number at
    ``old``."""
    if not t._retains_grad:
        return
    if old is not None and old is not new and old._retain is not None:
        ref = old._retain.get(old_nr)
        if ref is not None and ref() is t:
            del old._retain[old_nr]
            if not old._retain:
                old._retain = None
    if new is not None:
        if new._retain is None:
            new._retain = {}
        new._retain[t._output_nr] = weakref.ref(t)


# Note [Views made under no_grad]
# A view made while grad mode was off, whose base then gets history from an in-place op
# with grad mode on, would read a history it was made to stay out of: PyTorch forbids
# it (its CreationMeta::NO_GRAD_MODE), when the view's history is read anew and when the
# view itself is written in place with grad mode on in a way autograd must record. Such
# a view carries ``_nograd_view`` (a slot set only then). As in PyTorch, it requires grad
# when its base does (ops on it are recorded, which is where its history is read).
NO_GRAD_VIEW_ADVICE = (
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can "
    "clarify your code by moving both the view and the inplace either both inside the "
    "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
    "want the inplace to be tracked).")
NO_GRAD_VIEW_REBASED = (
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled. " + NO_GRAD_VIEW_ADVICE)
NO_GRAD_VIEW_WRITTEN = (
    "A view was created in no_grad mode and is being modified inplace with grad mode "
    "enabled. " + NO_GRAD_VIEW_ADVICE)


def regenerate_view_grad_fn(view: Tensor):
    """The ``grad_fn`` of ``view`` after its memory was written in place through its base
    or another view (Note [Stale view history] in tensor.py): as PyTorch, an
    ``AsStridedBackward0`` reading the view's elements from the base's current history.
    A view without history of a base that does not require grad stays as it is."""
    base = view._base
    old = view._grad_fn
    if old is None and not base._requires_grad:
        return None
    if getattr(view, "_nograd_view", False):
        raise RuntimeError(NO_GRAD_VIEW_REBASED)
    old_nr = view._output_nr
    try:
        size, stride, offset = _in_base_order(view, base)
    except RuntimeError:   # not strided in its base's order: keep the history it has
        return old
    return _view_history(view, base, size, stride, offset, old, old_nr)


def _view_history(view: Tensor, base: Tensor, size, stride, offset, old, old_nr: int):
    """Give ``view`` the history of an ``as_strided`` read of ``base``'s current graph
    (recorded even under ``no_grad``: the base's history is what it reads), as of the
    memory's current version; ``old``/``old_nr`` are its previous node and output
    number, where ``retain_grad`` moves from. Returns the new node."""
    from .._core.grad_mode import enable_grad
    from .._ops.dispatch import call_op
    with enable_grad():
        node = call_op("_as_strided", base, size, stride, offset)._grad_fn
    view._grad_fn = node
    view._attr_version = view._vc.v   # Note [Stale view history] in tensor.py
    view._output_nr = 0
    view._requires_grad = True
    _move_retain(view, old, node, old_nr)
    return node


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


# Note [Views of a base that gains history]
# A view of a base that requires grad is itself marked as requiring grad when it is
# made (``_requires_grad``, which the dispatcher reads to decide whether to record).
# A view made while its base did not require grad reads its history anew once the base
# is written in place with a value that does (``b = zeros(4); v = b[:2];
# b.copy_(a * 2)``: ``v`` then has an ``AsStridedBackward0`` reading ``a * 2``, as in
# PyTorch). So that the dispatcher records ops on such a view, the storage keeps weak
# references to the views made while their base did not require grad (floating and
# complex ones only: others never get history), and the in-place op that gives the base
# history marks them; their ``grad_fn`` is then made when read (Note [Stale view
# history] in tensor.py). Views of a ``detach()`` alias have the alias as their base
# and are left alone, as in PyTorch.
def _views_gain_history(base: Tensor) -> None:
    """Mark the views of ``base`` made while it did not require grad as requiring grad,
    now that an in-place op gave it history."""
    views = getattr(base._storage, "views", None)
    if not views:
        return
    rest = []
    for r in views:
        v = r()
        if v is None:
            continue
        if v._base is base:
            v._requires_grad = True
        else:
            rest.append(r)
    views[:] = rest


def rebase_history(self: Tensor, out: Tensor) -> None:
    """Write ``out`` (which has a grad_fn) into ``self`` and move the history there."""
    from .._ops.dispatch import call_op
    base = self._base
    if base is not None and getattr(self, "_nograd_view", False):
        raise RuntimeError(NO_GRAD_VIEW_WRITTEN)   # Note [Views made under no_grad]
    old, old_nr = self._grad_fn, self._output_nr
    if base is None:
        self._set_value(out._value)
        _move_saved(out.grad_fn, out, self)
        self.grad_fn = out.grad_fn
        self._output_nr = out._output_nr
        self._requires_grad = True
        out.grad_fn._retarget(out, self)
        _move_retain(self, old, self.grad_fn, old_nr)
        _views_gain_history(self)
        return
    size, stride, offset = _in_base_order(self, base)
    new_base = call_op("_as_strided_scatter", base, out, size, stride, offset)
    base._set_value(new_base._value)
    _move_saved(new_base.grad_fn, new_base, base)
    base.grad_fn = new_base.grad_fn
    base._output_nr = 0
    base._requires_grad = True
    _move_saved(out.grad_fn, out, self)
    _view_history(self, base, size, stride, offset, old, old_nr)
    _views_gain_history(base)


def _in_base_order(view: Tensor, base: Tensor) -> tuple:
    """``view``'s elements as ``(size, stride, offset)`` in ``base``'s row-major order
    (Note [In-place on a view])."""
    size, stride, offset = view._shape, view.stride(), view._offset
    bshape, bstride = base._shape, base.stride()
    if base._offset == 0 and bstride == contiguous_strides(bshape):
        return size, stride, offset
    wanted = strided_index(size, stride, offset)
    if not wanted.size:
        return size, tuple(0 for _ in size), 0
    where = strided_index(bshape, bstride, base._offset).reshape(-1)
    order = np.argsort(where, kind="stable")
    ranked = where[order]
    k = np.clip(np.searchsorted(ranked, wanted), 0, max(ranked.size - 1, 0))
    if ranked.size and np.all(ranked[k] == wanted) and np.all(ranked[1:] != ranked[:-1]):
        logical = order[k]
        start = int(logical.reshape(-1)[0])
        new_stride = tuple(int(logical[(0,) * d + (1,) + (0,) * (len(size) - d - 1)]) - start
                           if n > 1 else 0 for d, n in enumerate(size))
        if np.array_equal(logical, strided_index(size, new_stride, start)):
            return size, new_stride, start
    raise RuntimeError(
        f"in-place operation on a view of shape {list(size)}: its elements are not strided "
        f"in the order of its base (shape {list(bshape)}, stride {list(bstride)}, storage "
        f"offset {base._offset}), whose gradient history the write must update. Write to "
        "a .clone() of the view, or to the base itself.")
