"""The rest of ``torch.autograd.graph``'s public names: ``GradientEdge``,
``get_gradient_edge``, ``increment_version`` and ``register_multi_grad_hook``
(re-exported by ``graph.py``)."""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from typing import Callable, Iterable, Literal, NamedTuple, Sequence

from .._core.hooks import RemovableHandle
from .._core.tensor import Tensor
from .graph import Node, accumulate_node

__all__ = ["GradientEdge", "get_gradient_edge", "increment_version",
           "register_multi_grad_hook"]


class GradientEdge(NamedTuple):
    """Mirrors ``torch.autograd.graph.GradientEdge``: where a tensor's gradient is
    computed, ``(node, output_nr)``. ``autograd.grad``/``backward`` take one in
    ``inputs`` (the gradient flowing into it) and in ``outputs`` (with its gradient
    given: torchlike's nodes do not keep their outputs' shapes to make ones)."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def _grad_fn_or_grad_acc(t: Tensor) -> Node:
    gf = t.grad_fn
    return gf if gf is not None else accumulate_node(t)


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """Mirrors ``torch.autograd.graph.get_gradient_edge``: the tensor's ``grad_fn`` (its
    ``AccumulateGrad`` for a leaf) and output number, so that ``autograd.grad(loss,
    get_gradient_edge(x))`` equals ``autograd.grad(loss, x)``. torchlike's nodes are
    Python objects the edge keeps alive: ``ownership_token`` is None."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor "
                           "that does not require gradients")
    return GradientEdge(_grad_fn_or_grad_acc(tensor), tensor._output_nr)


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Mirrors ``torch.autograd.graph.increment_version``: bump the version counter of
    a tensor (or of each of several) modified in a way autograd cannot see, so that a
    node that saved it raises PyTorch's error. Inference tensors have no counter and are
    left alone."""
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    try:
        ts = list(tensor)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    for t in ts:
        if not isinstance(t, Tensor):
            raise RuntimeError("increment_version expect a Iterable[Tensor] as input")
    for t in ts:
        if not t._storage.inference:
            t._vc.v += 1


class _MultiHandle(RemovableHandle):
    """The handle of ``register_multi_grad_hook``: removes each tensor's hook."""

    handles: tuple

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __getstate__(self) -> tuple:
        return self.handles

    def __setstate__(self, state: tuple) -> None:
        self.handles = state


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable, *,
                             mode: Literal["all", "any"] = "all") -> RemovableHandle:
    """Mirrors ``torch.autograd.graph.register_multi_grad_hook``.

    ``mode="all"``: once per backward pass, after the gradients of all of ``tensors``
    that the pass computes are known, ``fn(grads)`` runs with one entry per tensor
    (None for a tensor whose node does not run: outside the graph, or not needed for
    the pass's ``inputs``). ``mode="any"``: ``fn(grad)`` runs with the first of their
    gradients a pass computes. Returns a handle removing the hooks."""
    from .engine import current_graph_task_id, will_execute_node
    supported_modes = ("all", "any")
    lock = threading.Lock()
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "all":
        count: dict = {}
        nb_calls = None
        buffer: dict = {}
        grad_fns = list(map(_grad_fn_or_grad_acc, tensors))
        len_tensors = len(tensors)

        def get_inner_hook(idx: int) -> Callable:
            def inner_hook(grad: Tensor) -> None:
                nonlocal nb_calls
                id = current_graph_task_id()
                if id == -1:
                    raise AssertionError("expected this hook to be called inside a "
                                         "backward call")
                count[id] = count.get(id, 0)
                buffer[id] = buffer.get(id, [None] * len_tensors)
                with lock:
                    curr_count, count[id] = count[id], count[id] + 1
                    if curr_count == 0:
                        nb_calls = sum(map(will_execute_node, grad_fns))
                buffer[id][idx] = grad
                if curr_count == nb_calls - 1:
                    fn(buffer[id])
                    del count[id]
                    del buffer[id]
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran_hook: dict = defaultdict(bool)

        @functools.wraps(fn)
        def wrapped_fn(grad: Tensor) -> None:
            id = current_graph_task_id()
            if id == -1:
                raise AssertionError("expected this hook to be called inside a backward "
                                     "call")
            with lock:
                prev, ran_hook[id] = ran_hook[id], True
            if prev:
                return
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)

