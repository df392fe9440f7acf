"""The backward engine: walks grad_fn nodes in PyTorch's order and calls their VJPs.

Mirrors ``torch.autograd.backward`` / ``torch.autograd.grad``. A node runs when all the
nodes that feed it gradients have run; among ready nodes the most recently created
runs first (``AccumulateGrad`` of leaves at once), as in PyTorch's engine. Per node:
tensor hooks (``Tensor.register_hook``), then ``retain_grad``, then ``Node`` pre-hooks,
the node itself, its post-hooks; ``AccumulateGrad`` adds into ``.grad`` and then runs
post-accumulate-grad hooks. Saved values are freed unless ``retain_graph``.

# The fused backward (one jitted program for a repeated graph) is in ``_fusion.py``,
# Note [Fused backward].
"""

from __future__ import annotations

import heapq
import itertools
import weakref
from collections import OrderedDict
from typing import Iterable, Sequence

import jax
import jax.numpy as jnp

from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor
from . import _errors
from .._ops.dispatch import _tensor_of
from .._ops.torch_function import _modes
from . import _fusion
from ._fusion import _add_arrays, _all_none
from ._graph_api import GradientEdge
from .graph import (AccumulateGrad, Node, RemovableHandle, _anomaly, accumulate_node)

__all__ = ["backward", "grad", "run_backward"]

_TensorOrTensors = Tensor | Sequence[Tensor]

# the innermost recording ``torchlike.profiler``, or None. While one records, a backward
# pass runs node by node (not fused) and each node is an event (Note [How the profiler
# sees calls] in profiler/_recorder.py); ``torchlike.compile`` reads it too
PROFILING: list = [None]


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


_ONES: dict = {}
# (shape, dtype, placement) of a tensor ``backward()`` was called on -> ones
_LOSS_ONES: dict = {}
_UNKEYED = object()


def _placement(a):
    """What decides where ``a`` lives (None for a tracer): part of the key of the cached
    ones, which are made on the output's device (Note [Made arrays follow their tensor])."""
    return None if isinstance(a, jax.core.Tracer) else a.sharding


def _ones_like(out: Tensor) -> Tensor:
    # JAX arrays are immutable, so one array per (shape, dtype, placement) serves every
    # backward
    base = out._storage.array
    key = (out._shape, out.dtype.np, _placement(base))
    a = _ONES.get(key)
    if a is None:
        with jax.ensure_compile_time_eval():   # concrete even while a caller traces
            a = jnp.ones_like(base, out.dtype.np, shape=out._shape)
        _ONES[key] = a
    return _tensor_of(a)


def _make_grads(outputs, grad_outputs, is_grads_batched: bool = False) -> list:
    res = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if type(out) is GradientEdge:
            res.append(_edge_grad(out, g))
            continue
        if g is None:
            if out._requires_grad:
                if out.numel() != 1:
                    raise RuntimeError(_errors.SCALAR_ONLY)
                if not out.dtype.is_floating_point:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                res.append(_ones_like(out))
            else:
                res.append(None)
        else:
            if not isinstance(g, Tensor):
                raise TypeError("grad_outputs should be a sequence of Tensors or None, but "
                                f"got {type(g).__name__}")
            if g._shape != out._shape and not is_grads_batched:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {out.shape}.")
            if out.dtype.is_complex != g.dtype.is_complex:
                raise RuntimeError(
                    f"For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g.dtype} and output[{i}] has a dtype of {out.dtype}.")
            res.append(g)
    return res


def _no_fast_for_edges(outputs) -> dict:
    """``run_backward``'s ``_fast`` for outputs given as ``GradientEdge``: not asked (the
    fused backward's graph key starts from tensors)."""
    for o in outputs:
        if type(o) is GradientEdge:
            return {"_fast": None}
    return {}


def _edge_grad(out, g):
    """The root gradient of a ``GradientEdge`` output: the one given (its node does not
    record the shape of the output, to check it or make ones)."""
    if g is None:
        raise RuntimeError(
            f"a GradientEdge output ({out.node.name()}, output {out.output_nr}) needs its "
            "gradient in grad_outputs/grad_tensors: torchlike's nodes do not keep the "
            "shapes of their outputs to make ones.")
    if not isinstance(g, Tensor):
        raise TypeError("grad_outputs should be a sequence of Tensors or None, but "
                        f"got {type(g).__name__}")
    return g


def _root_edge(t: Tensor, i: int):
    if type(t) is GradientEdge:
        return (t.node, t.output_nr)
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    raise RuntimeError(_errors.NO_GRAD_FN.format(i=i))


def _input_edge(t: Tensor):
    if type(t) is GradientEdge:
        return (t.node, t.output_nr)
    if not isinstance(t, Tensor):
        raise TypeError(f"expected Tensor as element of inputs, but got {type(t).__name__}")
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    raise RuntimeError("One of the differentiated Tensors does not require grad")


def _buffer_add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if _grad_state.enabled:
        from .._ops.dispatch import call_op
        return call_op("add", a, b)
    return _tensor_of(_add_arrays(a._value, b._value))


_inputs_given: list = []   # per running backward pass (nested ones too): given ``inputs``?


def backward_has_inputs() -> bool:
    """Whether the innermost running backward pass was given ``inputs``
    (``autograd.grad``, ``backward(inputs=...)``); a reentrant checkpoint refuses those,
    as in PyTorch."""
    return bool(_inputs_given) and _inputs_given[-1]


def run_backward(outputs, grad_outputs, retain_graph: bool, create_graph: bool,
                 inputs=None, accumulate: bool = True, _fast=_UNKEYED) -> list:
    """Core of backward()/grad(). Returns the gradients captured for ``inputs``.
    ``_fast``: what ``_fast_backward`` answered for these arguments, if it was asked."""
    _inputs_given.append(bool(inputs))
    try:
        return _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs,
                             accumulate, _fast)
    finally:
        _inputs_given.pop()


def _run_backward(outputs, grad_outputs, retain_graph, create_graph, inputs, accumulate,
                  _fast) -> list:
    fast = None if _fast is _UNKEYED else _fast
    prof = PROFILING[0]
    if _fast is _UNKEYED and not inputs and not create_graph and not _anomaly.enabled \
            and prof is None:
        fast = _fusion._fast_backward(outputs, [None if g is None else g._value
                                        for g in grad_outputs], retain_graph)
        if fast is True:
            return []
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    captures: dict = {}          # (node, nr) -> [index into inputs]
    input_nodes: set = set()
    if inputs:
        for i, t in enumerate(inputs):
            e = _input_edge(t)
            captures.setdefault(e, []).append(i)
            input_nodes.add(e[0])
            if accumulate and type(t) is not GradientEdge and t.grad_fn is not None:
                t.retain_grad()

    # discover the graph, counting each node's consumers
    deps: dict = {}
    order: list = []
    stack = list(dict.fromkeys([n for n, _ in roots]))   # two outputs of one node: once
    seen = set(stack)
    while stack:
        n = stack.pop()
        order.append(n)
        for nxt, _ in n.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    # with ``inputs``, only nodes on a path to one of them run
    needed = None
    if inputs:
        needed = _needed(order, input_nodes, accumulate)

    buffers: dict = {}
    for (n, nr), g in zip(roots, grad_outputs):
        buf = buffers.get(n)
        if buf is None:
            buf = buffers[n] = [None] * n._num_outputs()
        buf[nr] = _buffer_add(buf[nr], g)

    captured = [None] * (len(inputs) if inputs else 0)
    heap: list = []
    tie = 0
    for n in buffers:
        if deps.get(n, 0) == 0:
            heap.append((-n._seq, tie, n))
            tie += 1
    heapq.heapify(heap)

    prev = _grad_state.enabled
    _grad_state.enabled = bool(create_graph)
    _tasks.append((next(_task_ids), seen, needed, input_nodes, accumulate))
    try:
        if (not create_graph and not _anomaly.enabled and prof is None
                and len(order) <= _fusion._FUSE_MAX_NODES
                and fast is not False
                and (not inputs if accumulate else _leaves_only(input_nodes))
                and _fusion._run_fused(buffers, deps, heap, retain_graph, needed, captures,
                                       captured, fast)):
            return captured
        while heap:
            node = heapq.heappop(heap)[2]
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * node._num_outputs()
            if needed is not None and node not in needed:
                if node in input_nodes:
                    grads = _tensor_pre_hooks(node, grads)
                    _capture(node, grads, captures, captured)
                continue
            if captures and node in input_nodes:
                _capture(node, grads, captures, captured)
            if prof is None:
                in_grads = _call_function(node, grads, create_graph, accumulate)
            else:
                in_grads = prof.node_call(_call_function, node, grads, create_graph,
                                          accumulate)
            if not retain_graph:
                node._release()
            for (nxt, nr), g in zip(node.next_functions, in_grads):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt._num_outputs()
                    buf[nr] = g if buf[nr] is None else _buffer_add(buf[nr], g)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heapq.heappush(heap, (-nxt._seq, tie, nxt))
                    tie += 1
    finally:
        _grad_state.enabled = prev
        _tasks.pop()
    return captured


_tasks: list = []    # the running backward passes: (id, nodes met, needed, input nodes,
                     # whether into .grad)
_task_ids = itertools.count()


def current_graph_task_id() -> int:
    """An id of the innermost running backward pass, -1 outside one (PyTorch's
    ``torch._C._current_graph_task_id``)."""
    return _tasks[-1][0] if _tasks else -1


def will_execute_node(node: Node) -> bool:
    """Whether the innermost running backward pass runs ``node`` (or hands it a
    gradient to capture): PyTorch's ``torch._C._will_engine_execute_node``."""
    if not _tasks:
        raise RuntimeError("_will_engine_execute_node should only be called during the "
                           "backward pass")
    _, seen, needed, input_nodes, accumulate = _tasks[-1]
    if not accumulate and type(node) is AccumulateGrad:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not "
                           "supported.")
    if needed is None:
        return node in seen
    return node in needed or node in input_nodes


def _leaves_only(nodes: set) -> bool:
    for n in nodes:
        if type(n) is not AccumulateGrad:
            return False
    return True


def _needed(order: list, input_nodes: set, accumulate: bool) -> set:
    """The nodes that run: those with a path to one of ``input_nodes``, and with
    ``accumulate`` (``backward(inputs=...)``) the input nodes themselves. As in
    PyTorch, ``autograd.grad`` only captures the gradient flowing into an input: its
    node (a non-leaf's grad_fn) runs only when it leads to another input, so its saved
    values are not freed and its node hooks do not run. One depth-first pass that
    settles each node after everything it feeds gradients to."""
    needed: set = set()
    done: set = set()
    for start in order:
        if start in done:
            continue
        stack = [(start, iter(start.next_functions))]
        done.add(start)
        while stack:
            node, it = stack[-1]
            for nxt, _ in it:
                if nxt is not None and nxt not in done:
                    done.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                if accumulate and node in input_nodes:
                    needed.add(node)
                    continue
                for nxt, _ in node.next_functions:
                    if nxt is not None and (nxt in needed or nxt in input_nodes):
                        needed.add(node)
                        break
    return needed


def _capture(node, grads, captures, captured) -> None:
    for nr, g in enumerate(grads):
        idxs = captures.get((node, nr))
        if idxs:
            for i in idxs:
                captured[i] = g


def _call_function(node: Node, grads: list, create_graph: bool, accumulate: bool) -> list:
    if type(node) is AccumulateGrad:
        if node.variable._hooks:
            grads = _tensor_pre_hooks(node, grads)
    elif node._tensor_pre_hooks or node._retain:
        grads = _tensor_pre_hooks(node, grads)
    if node._pre_hooks:
        for h in list(node._pre_hooks.values()):
            r = h(tuple(grads))
            if r is not None:
                grads = list(r)
    if type(node) is AccumulateGrad:
        if accumulate:
            _accumulate(node.variable, grads[0], create_graph)
        in_grads: list = []
    elif _all_none(grads) and not getattr(node, "_runs_on_none", False):
        in_grads = [None] * len(node.next_functions)
    else:
        try:
            in_grads = node.apply(grads, create_graph)
        except Exception:
            if _anomaly.enabled and node._anomaly:
                _anomaly_warn(node)
            raise
        if _anomaly.enabled and _anomaly.check_nan:
            _check_nan(node, in_grads)
    if node._hooks:
        for h in list(node._hooks.values()):
            r = h(tuple(in_grads), tuple(grads))
            if r is not None:
                in_grads = list(r)
    return in_grads


def _tensor_pre_hooks(node: Node, grads: list) -> list:
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks:
            g = grads[0]
            for h in list(hooks.values()):
                r = h(g)
                if r is not None:
                    g = r
            grads = [g]
        return grads
    tph = node._tensor_pre_hooks
    if tph:
        grads = list(grads)
        for nr, hooks in tph.items():
            g = grads[nr]
            if g is None:
                continue
            for h in list(hooks.values()):
                r = h(g)
                if r is not None:
                    g = r
            grads[nr] = g
    if node._retain:
        for nr, ref in node._retain.items():
            t = ref()
            g = grads[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = _clone(g)
            else:
                t._grad = _buffer_add(t._grad, g)
    return grads


def _clone(g: Tensor) -> Tensor:
    if _grad_state.enabled and g._requires_grad:
        from .._ops.dispatch import call_op
        return call_op("clone", g)
    return Tensor._wrap(g._value)


def _accumulate(var: Tensor, g, create_graph: bool) -> None:
    if g is None:
        return
    if var._grad is None:
        if create_graph and g._requires_grad:
            var._grad = g
        else:
            var._grad = _tensor_of(g._value)
    elif not _grad_state.enabled:
        var._grad._set_value(_add_arrays(var._grad._value, g._value))
    else:
        from .._ops.dispatch import call_op
        var._grad = call_op("add", var._grad, g)
    if var._post_acc_hooks:
        for h in list(var._post_acc_hooks.values()):
            h(var)


def _check_nan(node: Node, in_grads: list) -> None:
    for i, g in enumerate(in_grads):
        if g is not None and bool(jnp.any(jnp.isnan(g._value))):
            if node._anomaly:
                _anomaly_warn(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def _anomaly_warn(node: Node) -> None:
    import warnings
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                  "the error:\n" + "".join(node._anomaly), UserWarning, stacklevel=3)


# ---------------------------------------------------------------------------
# public API
def backward(tensors: _TensorOrTensors, grad_tensors=None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables=None, inputs=None) -> None:
    """Mirrors ``torch.autograd.backward``: accumulate the gradients of ``tensors`` into
    the ``.grad`` of the graph's leaves (only of ``inputs`` when given).

    ``grad_tensors`` holds one gradient per tensor (None for a scalar: ones); with
    ``retain_graph`` the graph can be walked again; ``create_graph`` records the
    backward itself, for higher-order derivatives.
    """
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    gt = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(gt) != len(tensors):
        raise RuntimeError(f"got {len(gt)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    ins = _as_tuple(inputs) if inputs is not None else None
    if ins is not None and len(ins) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _make_grads(tensors, gt)
    run_backward(tensors, grads, retain_graph, create_graph, inputs=ins, accumulate=True,
                 **_no_fast_for_edges(tensors))


def grad(outputs: _TensorOrTensors, inputs: _TensorOrTensors, grad_outputs=None,
         retain_graph: bool | None = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """Mirrors ``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``,
    as a tuple, without touching any ``.grad``. Differences: ``is_grads_batched`` is
    computed with a Python loop over the batch."""
    outputs = _as_tuple(outputs)
    t_outputs = outputs
    inputs_t = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if not inputs_t:
        raise RuntimeError("grad requires non-empty inputs.")
    go = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(go) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(go)} "
                           f"grad_outputs and {len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs_t, go, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    for i, o in enumerate(t_outputs):
        if type(o) is not GradientEdge and not (o._requires_grad or o.grad_fn is not None):
            raise RuntimeError(_errors.NO_GRAD_FN.format(i=i))
    grads = _make_grads(outputs, go)
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                       accumulate=False, **_no_fast_for_edges(outputs))
    out = []
    for i, (t, g) in enumerate(zip(inputs_t, res)):
        if g is None:
            if materialize_grads and type(t) is GradientEdge:
                raise RuntimeError("materialize_grads cannot be used when the given input "
                                   "is a GradientEdge")
            if materialize_grads:
                g = Tensor._wrap(jnp.zeros_like(t._storage.array, t.dtype.np, shape=t._shape))
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not "
                                   "have been used in the graph. Set allow_unused=True if this "
                                   "is the desired behavior.")
        elif not create_graph and (g.grad_fn is not None or g._requires_grad):
            g = g._alias()   # no history; JAX transforms around still see through
        out.append(g)
    return tuple(out)


def _batched_grad(outputs, inputs, go, retain_graph, create_graph, allow_unused, mat):
    from .._ops.dispatch import call_op
    n = go[0].shape[0]
    per = []
    for b in range(n):
        per.append(grad(outputs, inputs, [g[b] for g in go], retain_graph=True,
                        create_graph=create_graph, allow_unused=allow_unused,
                        materialize_grads=mat))
    res = []
    for k in range(len(inputs)):
        col = [p[k] for p in per]
        res.append(None if col[0] is None else
                   Tensor._wrap(jnp.stack([c._value for c in col])) if not create_graph
                   else _stack(col, call_op))
    return tuple(res)


def _stack(ts, call_op):
    return call_op("stack", ts) if "stack" in __import__(
        "torchlike._ops.spec", fromlist=["OPS"]).OPS else Tensor._wrap(
        jnp.stack([t._value for t in ts]))


# ---------------------------------------------------------------------------
# Tensor methods that belong to autograd
def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False,
                     inputs=None) -> None:
    """Mirrors ``Tensor.backward``: see ``torchlike.autograd.backward``."""
    if type(self) is not Tensor or _modes.on:
        from .._ops.torch_function import _is_overloaded, _mode_active, handle_torch_function
        if _is_overloaded(self) or _mode_active():
            return handle_torch_function(Tensor.backward,
                                         [self] if _is_overloaded(self) else [],
                                         (self, gradient),
                                         dict(retain_graph=retain_graph,
                                              create_graph=create_graph, inputs=inputs))
    if gradient is None and retain_graph is None and not create_graph and inputs is None:
        # the common ``loss.backward()``: skip the general argument handling
        if not (self._requires_grad or self.grad_fn is not None):
            raise RuntimeError(_errors.NO_GRAD_FN.format(i=0))
        key = (self._shape, self._storage.dtype, _placement(self._storage.array))
        ones = _LOSS_ONES.get(key)
        if ones is not None and not _anomaly.enabled and PROFILING[0] is None:
            fast = _fusion._fast_backward((self,), [ones], False)
            if fast is True:
                return None
            run_backward((self,), [_tensor_of(ones)], False, False, _fast=fast)
            return None
        grads = _make_grads((self,), (None,))
        if grads[0] is not None:   # a scalar of a floating dtype: ones of it will do again
            _LOSS_ONES[key] = grads[0]._value
        run_backward((self,), grads, False, False)
        return None
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)
    return None


def _register_hook(self, hook):
    """Mirrors ``Tensor.register_hook``: ``hook(grad)`` runs when the gradient w.r.t. this
    tensor is computed and may return a replacement. Returns a handle with ``remove()``."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_pre_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = OrderedDict()
    h = RemovableHandle(self._hooks)
    self._hooks[h.id] = hook
    return h


def _register_post_accumulate_grad_hook(self, hook):
    """Mirrors ``Tensor.register_post_accumulate_grad_hook``: ``hook(tensor)`` runs after
    the gradient was accumulated into the ``.grad`` of this leaf."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                           "tensors")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = OrderedDict()
    h = RemovableHandle(self._post_acc_hooks)
    self._post_acc_hooks[h.id] = hook
    return h


def _retain_grad(self) -> None:
    """Mirrors ``Tensor.retain_grad``: populate ``.grad`` of this non-leaf in backward."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None or self._retains_grad:
        return
    node = self.grad_fn
    if node._retain is None:
        node._retain = {}
    node._retain[self._output_nr] = weakref.ref(self)
    self._retains_grad = True


_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
Tensor.backward = _tensor_backward
Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
Tensor.retain_grad = _retain_grad

_ = Iterable
