"""The backward engine: walks grad_fn nodes in PyTorch's order and calls their VJPs.

Mirrors ``torch.autograd.backward`` / ``torch.autograd.grad``: nodes run when all
their consumers have run, ties broken by creation order (latest first), tensor hooks
before ``retain_grad``, ``AccumulateGrad`` into leaves, graph freed unless
``retain_graph``.
"""

from __future__ import annotations

import heapq
from typing import Sequence

import jax.numpy as jnp

from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor
from .graph import AccumulateGrad, Node, RemovableHandle, accumulate_node

__all__ = ["backward", "grad", "run_backward"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs, grad_outputs, is_grads_batched=False):
    res = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (out.dtype.is_floating_point or out.dtype.is_complex):
                raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                   f"outputs but got {out.dtype}")
            res.append(Tensor._wrap(jnp.ones(out._shape, out.dtype.np)))
        else:
            if not isinstance(g, Tensor):
                raise TypeError(f"grad_outputs should be a sequence of Tensors or None, but "
                                f"got {type(g).__name__}")
            if g._shape != out._shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}.")
            res.append(g)
    return res


def _root_edge(t: Tensor, i: int):
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                       "grad_fn")


def _num_outputs(node: Node) -> int:
    if isinstance(node, AccumulateGrad):
        return 1
    avals = getattr(node, "_out_avals", None)
    return len(avals) if avals is not None else getattr(node, "_num_outputs", 1)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if _grad_state.enabled:
        from .._ops.dispatch import call_op
        return call_op("add", a, b)
    return Tensor._wrap(a._value + b._value)


def run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs=None,
                 accumulate=True, allow_unused=True):
    """Core of backward()/grad(). Returns the captured grads for ``inputs`` (grad mode)."""
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    # capture targets: (node, output_nr) -> index into inputs
    captures: dict = {}
    input_edges = []
    if inputs:
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError("inputs must be Tensors")
            if t.grad_fn is not None:
                e = (t.grad_fn, t._output_nr)
            elif t._requires_grad:
                e = (accumulate_node(t), 0)
            else:
                raise RuntimeError(f"One of the differentiated Tensors does not require grad")
            input_edges.append(e)
            captures.setdefault((id(e[0]), e[1]), []).append(i)

    # discover the graph and count dependencies
    deps: dict = {}
    nodes: dict = {}
    stack = [n for n, _ in roots]
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        nodes[id(n)] = n
        for nxt, _ in n.next_functions:
            if nxt is not None:
                deps[id(nxt)] = deps.get(id(nxt), 0) + 1
                if id(nxt) not in seen:
                    stack.append(nxt)

    # which nodes must run: those that lead to a wanted input (grad mode / inputs=)
    needed = None
    if inputs:
        target_ids = {id(e[0]) for e in input_edges}
        needed = set()
        memo: dict = {}

        def leads(n):
            k = id(n)
            if k in memo:
                return memo[k]
            memo[k] = False
            r = k in target_ids
            for nxt, _ in n.next_functions:
                if nxt is not None and leads(nxt):
                    r = True
            memo[k] = r
            return r
        for n in list(nodes.values()):
            if leads(n):
                needed.add(id(n))

    buffers: dict = {}
    for (n, nr), g in zip(roots, grad_outputs):
        buf = buffers.setdefault(id(n), [None] * _num_outputs(n))
        buf[nr] = _add(buf[nr], g) if buf[nr] is not None else g

    captured = [None] * (len(inputs) if inputs else 0)
    heap = []
    for n, _ in roots:
        if deps.get(id(n), 0) == 0 and id(n) not in {i for _, _, i in heap}:
            heapq.heappush(heap, (-n._seq, id(n), n))
    pushed = {id(n) for _, _, n in heap}

    prev = _grad_state.enabled
    _grad_state.enabled = bool(create_graph)
    try:
        while heap:
            _, _, node = heapq.heappop(heap)
            grads = buffers.pop(id(node), None) or [None] * _num_outputs(node)
            run = needed is None or id(node) in needed
            if run:
                grads = _apply_pre_hooks(node, grads)
                for nr in range(len(grads)):
                    idxs = captures.get((id(node), nr))
                    if idxs:
                        for i in idxs:
                            captured[i] = grads[nr]
            if isinstance(node, AccumulateGrad):
                if run and accumulate and (not inputs or (id(node), 0) in captures):
                    _accumulate(node.variable, grads[0], create_graph)
                if not retain_graph:
                    node._release()
                continue
            if not run or all(g is None for g in grads):
                in_grads = [None] * len(node.next_functions)
            else:
                in_grads = node.apply(grads, create_graph)
                for h in list(node._hooks.values()):
                    r = h(tuple(in_grads), tuple(grads))
                    if r is not None:
                        in_grads = list(r)
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node.next_functions, in_grads):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.setdefault(id(nxt), [None] * _num_outputs(nxt))
                    buf[nr] = _add(buf[nr], g)
                deps[id(nxt)] -= 1
                if deps[id(nxt)] == 0 and id(nxt) not in pushed:
                    pushed.add(id(nxt))
                    heapq.heappush(heap, (-nxt._seq, id(nxt), nxt))
    finally:
        _grad_state.enabled = prev
    return captured


def _apply_pre_hooks(node: Node, grads: list) -> list:
    grads = list(grads)
    if isinstance(node, AccumulateGrad):
        var = node.variable
        if var._hooks:
            for h in list(var._hooks.values()):
                r = h(grads[0])
                if r is not None:
                    grads[0] = r
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            if grads[nr] is None:
                continue
            for h in list(hooks.values()):
                r = h(grads[nr])
                if r is not None:
                    grads[nr] = r
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = grads[nr]
                if t._grad is None:
                    t._grad = g if _grad_state.enabled else g.detach()
                else:
                    t._grad = Tensor._wrap(t._grad._value + g._value)
    if node._pre_hooks:
        for h in list(node._pre_hooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    return grads


def _accumulate(var: Tensor, g, create_graph: bool) -> None:
    if g is None:
        return
    if var._grad is None:
        var._grad = g if create_graph else (g.detach() if g.grad_fn is None else g.detach())
        if not create_graph and g._base is not None:
            var._grad = Tensor._wrap(g._value)
    elif create_graph:
        from .._ops.dispatch import call_op
        var._grad = call_op("add", var._grad, g)
    else:
        var._grad._set_value(var._grad._value + g._value)
    if var._post_acc_hooks:
        for h in list(var._post_acc_hooks.values()):
            h(var)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Mirrors ``torch.autograd.backward``: accumulate gradients of ``tensors`` into the
    ``.grad`` of graph leaves (or of ``inputs`` only)."""
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    gt = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(gt) != len(tensors):
        raise RuntimeError(f"got {len(gt)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(tensors, gt)
    ins = _as_tuple(inputs) if inputs is not None else None
    if ins is not None and len(ins) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=ins, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False):
    """Mirrors ``torch.autograd.grad``: gradients of ``outputs`` w.r.t. ``inputs``,
    returned as a tuple, without touching ``.grad``."""
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    go = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(go) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(go)} and "
                           f"{len(outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, go)
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                       accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs_t, res)):
        if g is None:
            if materialize_grads:
                g = Tensor._wrap(jnp.zeros(t._shape, t.dtype.np))
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        elif not create_graph and g.grad_fn is not None:
            g = g.detach()
        out.append(g)
    return tuple(out)


# ---------------------------------------------------------------------------
# Tensor methods that belong to autograd
def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Mirrors ``Tensor.backward``."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _register_hook(self, hook):
    """Mirrors ``Tensor.register_hook``: ``hook(grad)`` may return a replacement grad."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_pre_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = {}
    h = RemovableHandle(self._hooks)
    self._hooks[h.id] = hook
    return h


def _register_post_accumulate_grad_hook(self, hook):
    """Mirrors ``Tensor.register_post_accumulate_grad_hook`` (leaves only)."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                           "tensors")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = {}
    h = RemovableHandle(self._post_acc_hooks)
    self._post_acc_hooks[h.id] = hook
    return h


def _retain_grad(self) -> None:
    """Mirrors ``Tensor.retain_grad``."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is not None and not self._retains_grad:
        import weakref
        self.grad_fn._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True


Tensor.backward = _tensor_backward
Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
Tensor.retain_grad = _retain_grad

_ = Sequence
