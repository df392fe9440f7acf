"""The backward engine: walks grad_fn nodes in PyTorch's order and calls their VJPs.

Mirrors ``torch.autograd.backward`` / ``torch.autograd.grad``. A node runs when all the
nodes that feed it gradients have run; among ready nodes the most recently created
runs first (``AccumulateGrad`` of leaves at once), as in PyTorch's engine. Per node:
tensor hooks (``Tensor.register_hook``), then ``retain_grad``, then ``Node`` pre-hooks,
the node itself, its post-hooks; ``AccumulateGrad`` adds into ``.grad`` and then runs
post-accumulate-grad hooks. Saved values are freed unless ``retain_graph``.

# Note [Fused backward]
# Eagerly, each node's backward is one cached executable (Note [Backward of a node is an
# op] in graph.py), so a graph of small ops costs one executable launch per node, plus
# one per addition of gradients meeting at a node. A training loop walks the same graph
# (same ops, static arguments, wiring, shapes and dtypes) again and again; then the
# whole backward runs as one executable instead. ``_fused_plan`` walks the graph in
# exactly the eager order without running anything and writes the walk down as a
# program: VJP steps and additions over numbered gradient slots, and the slots that
# reach each leaf. The program is the cache key; ``_replay``, jitted per program, runs
# it with the roots' gradients and the nodes' saved inputs as arguments, so XLA fuses
# across nodes and the launch is paid once. The leaves' gradients are then accumulated
# into ``.grad`` as the eager walk would, in the same order. The computation is the
# same, op for op; only XLA's fusion across nodes may round differently, so a fused
# gradient can differ from the eager one in the last bit of some elements (as two
# PyTorch kernels for the same op can).
#
# It is taken only where nothing can tell the difference: ``backward()`` without
# ``inputs``, or ``autograd.grad`` w.r.t. leaves only (the program then skips the nodes
# with no path to them, as the eager walk does, and its gradients are returned instead
# of accumulated), without ``create_graph`` or anomaly mode; every node a table op
# (``OpNode``) or a leaf's ``AccumulateGrad``, with no hooks, ``retain_grad`` or traced
# values; every saved tensor at its saved version (else the eager walk raises PyTorch's
# error at the right node); no leaf's ``.grad`` saved by the graph (accumulating into it
# would bump a version a later node checks).
#
# Compiling a program costs a fraction of the graph's first eager step (which compiles
# each op's forward and backward): measured on the 2-core CI machine, 0.05-0.2 s for
# benchmarks/eager_autograd.py's cases (15-35% of their first step), saving 0.1-2 ms
# per step. So a program is compiled only on its ``_FUSE_AFTER``-th sighting (a loop,
# not a debugging session), graphs of more than ``_FUSE_MAX_NODES`` nodes always run
# eagerly, at most ``_FUSED_MAX`` programs are kept and at most
# ``_Budget.compiles_left`` are ever compiled (a graph whose shapes change every step
# cannot make the engine compile without end). A program that fails to trace is
# remembered and runs eagerly.
#
# Once a graph's program has run, ``backward()`` skips the engine's setup (dependency
# counts, buffers, heap) and the plan: ``_graph_key`` walks the graph once, breadth
# first, checking what the plan checks (hooks, ``retain_grad``, freed nodes, saved
# versions, node types) and writing one flat key that determines the program: per node
# its step's constants and input shapes and dtypes (what the plan's step holds) and its
# wiring by position in the walk, the order of the nodes' sequence numbers (which
# decides the eager order) and the roots' shapes and dtypes. ``_fast`` maps the key to
# the compiled replay and the walk positions of the nodes whose saved inputs it takes,
# of the leaves and of the nodes to free; ``_run_fused`` fills it when a planned program
# has run (False: a graph that never runs fused) and it is emptied with ``_fused``. The
# executable, its arguments and the accumulation are the planned run's, so results are
# the same bits; ``autograd.grad`` and everything the key refuses take the general path.
# Measured on the 2-core CI machine (a shared, loaded one: ranges over interleaved
# runs), ``loss.backward()`` alone after a fresh forward, min over rounds: add 8x8
# 21-27 -> 12-17 us (the executable call is ~6 us of it, the key ~3), the 10-op chain
# 74-118 -> 39-71 us, the 3-layer MLP 93-166 -> 57-103 us; in
# benchmarks/eager_autograd.py the forward+backward step's tl/torch ratio went from
# 1.49-1.50 to 1.15-1.22 (add), 2.10-3.02 to 1.70-2.39 (chain), 1.69-2.03 to
# 1.56-1.99 (MLP). The key costs about 1 us a node; a graph that cannot run fused pays
# its walk up to where it bails (at most ``_FUSE_MAX_NODES`` nodes) on top of the eager
# walk, whose nodes cost over 10 us each.
"""

from __future__ import annotations

import functools
import heapq
import weakref
from typing import Iterable, Sequence

import jax
import jax.numpy as jnp

from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor
from . import _errors
from .._ops.dispatch import _tensor_of
from .graph import (AccumulateGrad, Node, OpNode, RemovableHandle, _anomaly, _bwd_impl,
                    accumulate_node)

__all__ = ["backward", "grad", "run_backward"]

_TensorOrTensors = Tensor | Sequence[Tensor]


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


@jax.jit
def _add_arrays(a, b):
    return a + b


_ONES: dict = {}
_LOSS_ONES: dict = {}    # (shape, dtype) of a tensor ``backward()`` was called on -> ones
_UNKEYED = object()


def _ones_like(out: Tensor) -> Tensor:
    # JAX arrays are immutable, so one array per (shape, dtype) serves every backward
    key = (out._shape, out.dtype.np)
    a = _ONES.get(key)
    if a is None:
        with jax.ensure_compile_time_eval():   # concrete even while a caller traces
            a = _ONES[key] = jnp.ones(out._shape, out.dtype.np)
    return _tensor_of(a)


def _make_grads(outputs, grad_outputs, is_grads_batched: bool = False) -> list:
    res = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
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


def _root_edge(t: Tensor, i: int):
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    raise RuntimeError(_errors.NO_GRAD_FN.format(i=i))


def _input_edge(t: Tensor):
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


def run_backward(outputs, grad_outputs, retain_graph: bool, create_graph: bool,
                 inputs=None, accumulate: bool = True, _fast=_UNKEYED) -> list:
    """Core of backward()/grad(). Returns the gradients captured for ``inputs``.
    ``_fast``: what ``_fast_backward`` answered for these arguments, if it was asked."""
    fast = None if _fast is _UNKEYED else _fast
    if _fast is _UNKEYED and not inputs and not create_graph and not _anomaly.enabled:
        fast = _fast_backward(outputs, [None if g is None else g._value
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
            if accumulate and t.grad_fn is not None:
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
    try:
        if (not create_graph and not _anomaly.enabled and len(order) <= _FUSE_MAX_NODES
                and fast is not False
                and (not inputs if accumulate else _leaves_only(input_nodes))
                and _run_fused(buffers, deps, heap, retain_graph, needed, captures,
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
            in_grads = _call_function(node, grads, create_graph, accumulate)
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
    return captured


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


def _all_none(grads: list) -> bool:
    for g in grads:
        if g is not None:
            return False
    return True


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
# the fused backward (Note [Fused backward])
_FUSE_AFTER = 20         # sightings of a program before it is compiled
_FUSE_MAX_NODES = 256
_SIGHTINGS_MAX = 512     # programs counted before the table is cleared
_FUSED_MAX = 64          # compiled programs kept (the oldest is dropped beyond)
_ADD = "add"             # a program step adding two slots (VJP steps start with a runner)
_NOT_COMPILED = object()


class _Budget:
    compiles_left = 256  # programs compiled in this process, at most


_sightings: dict = {}    # program -> times seen
_fused: dict = {}        # program -> jitted replay, or None when it cannot be traced


def _run_fused(buffers: dict, deps: dict, heap: list, retain_graph: bool,
               needed=None, captures=None, captured=None, fast=None) -> bool:
    """Run this backward as one executable if its program is known; False to go eager.

    Called with the engine's initial state (root buffers, dependency counts, the heap
    of ready nodes), which it does not modify. With ``needed`` (``autograd.grad`` of
    leaves) the gradients reaching the leaves go to ``captured`` instead of ``.grad``.
    ``fast``: the graph's ``(key, nodes)`` from ``_graph_key``, under which a program
    that ran (or will never run) is remembered for ``_fast_backward``."""
    plan = _fused_plan(buffers, deps, heap, needed)
    if plan is None:
        return False
    program, roots, dyns, leaves, walked, stepped = plan
    fn = _fused.get(program, _NOT_COMPILED)
    if fn is _NOT_COMPILED:
        n = _sightings.get(program, 0) + 1
        if n < _FUSE_AFTER:
            if len(_sightings) >= _SIGHTINGS_MAX:
                _sightings.clear()
            _sightings[program] = n
            return False
        _sightings.pop(program, None)
        if _Budget.compiles_left <= 0:
            _remember(fast, False)
            return False
        _Budget.compiles_left -= 1
        if len(_fused) >= _FUSED_MAX:
            del _fused[next(iter(_fused))]
        fn = _fused[program] = jax.jit(functools.partial(_replay, program))
    elif fn is None:
        _remember(fast, False)
        return False
    try:
        grads = fn(roots, dyns)
    except Exception:   # e.g. a VJP that cannot be traced here: the eager walk decides
        _fused[program] = None
        _remember(fast, False)
        return False
    if fast is not None:
        nodes = fast[1]
        at = {n: i for i, n in enumerate(nodes)}
        _remember(fast, (fn, tuple([at[n] for n in stepped]),
                         tuple([at[n] for n in leaves]),
                         tuple([at[n] for n in walked
                                if type(n) is OpNode and n._zavals is None])))
    if needed is not None:
        for sink, g in zip(leaves, grads):
            for i in captures.get((sink, 0), ()):
                captured[i] = _tensor_of(g)
        grads = ()
    _accumulate_fused([sink.variable for sink in leaves], grads)
    if not retain_graph:
        for node in walked:
            node._release()
    return True


_fast: dict = {}         # graph key -> (jitted replay, step, leaf, release node indices),
                         # or False: a graph whose program never runs fused
_fast_for = [None]       # the ``_fused`` table the entries of ``_fast`` were made with
_fast_last: list = [None, None]   # the last key found and its entry: a loop's next step
                                  # compares equal to it, which costs less than hashing
_INF = float("inf")
_Tracer = jax.core.Tracer


def _remember(fast, entry) -> None:
    if fast is not None:
        _fast_last[0] = None
        if len(_fast) >= _FUSED_MAX * 2:
            del _fast[next(iter(_fast))]
        _fast[fast[0]] = entry


def _graph_key(outputs, arrays):
    """``(key, nodes)`` for a graph the fused backward may run from the root gradients
    ``arrays`` (one per output): ``nodes`` in the order of a breadth-first walk from
    ``outputs``, and a key that determines the program ``_fused_plan`` would write for
    it: the roots' shapes and dtypes; per node its step as in the program and its
    wiring by position in ``nodes``; the order of the nodes' sequence numbers, which
    decides the eager order. Flat, so that building, hashing and comparing it is cheap.
    None where the plan would bail out (hooks, a freed graph, a modified saved tensor,
    a node other than a table op or a leaf's) or where the roots are not one gradient
    for each of distinct nodes."""
    nodes: list = []
    at: dict = {}
    key: list = [len(nodes)]
    for t, a in zip(outputs, arrays):
        n = t.grad_fn
        if n is None or a is None or n in at or isinstance(a, _Tracer):
            return None
        at[n] = len(nodes)
        nodes.append(n)
        aval = a.aval
        key += (t._output_nr, aval.shape, aval.dtype)
    key[0] = len(nodes)
    last = _INF
    ordered = True        # the table ops met in decreasing sequence numbers
    i = 0
    limit = _FUSE_MAX_NODES
    for n in nodes:       # grows while walked
        i += 1
        if i > limit or n._pre_hooks or n._hooks:
            return None
        if type(n) is OpNode:
            if n._tensor_pre_hooks or n._retain or n._freed or n._vjp is not None:
                return None
            saved = n._saved
            if saved:
                for e in saved:
                    if e[0].v != e[1]:
                        return None    # the eager walk raises PyTorch's error
            s = n._seq
            if s > last:
                ordered = False
            last = s
            pos = n._edge_pos
            nf = n.next_functions
            key += (n._spec.extra["runner"], n._statics, n._cast, n._mask, n._zavals,
                    n._nout, len(pos), len(nf))
            key += pos
            # the inputs' shapes and dtypes, as ``_avals`` (one entry per ``mask`` entry)
            for v in n._dyn_t:
                if isinstance(v, Tensor):
                    key += (v._shape, v._storage.dtype)
                elif v is None:
                    key.append(None)
                elif isinstance(v, (list, tuple)):
                    key += (list, _avals(v))
                else:
                    key.append(type(v))
            for nxt, nr in nf:
                if nxt is None:
                    key.append(-1)
                else:
                    j = at.get(nxt)
                    if j is None:
                        j = at[nxt] = len(nodes)
                        nodes.append(nxt)
                    key += (j, nr)
        elif type(n) is AccumulateGrad:
            var = n.variable
            if var._hooks or var._post_acc_hooks:
                return None
            key.append(AccumulateGrad)
        else:
            return None
    if ordered:
        key.append(None)
    else:
        seqs = [n._seq for n in nodes if type(n) is OpNode]
        key.append(tuple(sorted(range(len(seqs)), key=seqs.__getitem__)))
    return tuple(key), nodes


def _fast_backward(outputs, arrays, retain_graph: bool):
    """``backward()`` of a graph whose program already ran fused: straight from the
    graph's key to the jitted replay, with no dependency counts, buffers or plan.
    True when done; False when the graph must run eagerly; otherwise what
    ``_run_fused`` takes as ``fast`` (None, or what ``_graph_key`` returned)."""
    if _fast_for[0] is not _fused:    # the tables were replaced: start afresh
        _fast.clear()
        _fast_last[0] = None
        _fast_for[0] = _fused
    g = _graph_key(outputs, arrays)
    if g is None:
        return None
    key, nodes = g
    if key == _fast_last[0]:
        entry = _fast_last[1]
    else:
        entry = _fast.get(key)
        if not entry:
            return g if entry is None else False
        _fast_last[0] = key
        _fast_last[1] = entry
    fn, steps, sinks, release = entry
    leaves = [nodes[i].variable for i in sinks]
    for var in leaves:
        if var._grad is not None and _grad_saved(var, nodes):
            return g   # ``_fused_plan`` refuses it: the eager walk decides
    try:
        res = fn(arrays, [nodes[i]._dyn for i in steps])
    except Exception:
        return g
    _accumulate_fused(leaves, res)
    if not retain_graph:
        for i in release:
            nodes[i]._release()
    return True


def _accumulate_fused(variables, arrays) -> None:
    """``_accumulate`` of a fused backward's leaf gradients: without grad mode, hooks or
    create_graph (neither the plan nor the fast path's key has any)."""
    for var, a in zip(variables, arrays):
        if var._grad is None:
            var._grad = _tensor_of(a)
        else:
            var._grad._set_value(_add_arrays(var._grad._value, a))


def _grad_saved(var: Tensor, nodes: list) -> bool:
    """Whether some node saved ``var.grad`` for its backward (accumulating into it would
    bump the version that node checks)."""
    vc = var._grad._vc
    for n in nodes:
        if type(n) is OpNode and n._saved:
            for e in n._saved:
                if e[0] is vc:
                    return True
    return False


def _fused_plan(buffers: dict, deps: dict, heap: list, needed=None):
    """Walk the graph as ``run_backward`` would, recording a program instead of running
    nodes: ``(program, root arrays, per-VJP-step saved inputs, leaves' AccumulateGrad
    nodes, walked nodes)``, or None when the walk meets something only the eager engine
    handles. With ``needed``, as ``autograd.grad`` of leaves: nodes not needed are
    skipped and the leaves reached are those captured."""
    deps = dict(deps)
    heap = list(heap)
    tie = len(heap)
    roots: list = []
    root_avals: list = []
    slots: dict = {}      # node -> slot number per output (None: no gradient)
    for node, buf in buffers.items():
        s = []
        for g in buf:
            if g is None:
                s.append(None)
            else:
                a = g._value
                if isinstance(a, jax.core.Tracer):
                    return None
                s.append(len(roots))
                roots.append(a)
                root_avals.append((a.shape, a.dtype))
        slots[node] = s
    n_slots = len(roots)
    steps: list = []
    dyns: list = []
    leaves: list = []
    leaf_slots: list = []
    walked: list = []
    stepped: list = []    # the nodes whose saved inputs ``dyns`` holds
    saved_vcs: set = set()
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap:
        node = heappop(heap)[2]
        gs = slots.pop(node, None)
        if needed is not None and node not in needed:
            # a leaf among ``inputs``, or a node with no path to them: not run
            if type(node) is AccumulateGrad and gs is not None and gs[0] is not None:
                if node.variable._hooks:
                    return None
                leaves.append(node)
                leaf_slots.append(gs[0])
            continue
        walked.append(node)
        if node._pre_hooks or node._hooks:
            return None
        if type(node) is AccumulateGrad:
            var = node.variable
            if var._hooks or var._post_acc_hooks:
                return None
            if gs is not None and gs[0] is not None:
                leaves.append(node)
                leaf_slots.append(gs[0])
            continue
        if (type(node) is not OpNode or node._tensor_pre_hooks or node._retain
                or node._freed or node._vjp is not None):
            return None
        if node._saved:
            for e in node._saved:
                if e[0].v != e[1]:
                    return None    # the eager walk raises PyTorch's error at this node
                saved_vcs.add(id(e[0]))
        nf = node.next_functions
        out = None
        if gs is not None and (gs[0] is not None or not _all_none(gs)):
            n_res = _count_true(node._mask)
            steps.append((node._spec.extra["runner"], node._statics, node._cast, node._mask,
                          node._zavals, tuple(gs), n_res, _avals(node._dyn_t)))
            dyns.append(node._dyn)
            stepped.append(node)
            out = [None] * len(nf)
            for pos, k in zip(node._edge_pos, range(n_slots, n_slots + n_res)):
                out[pos] = k
            n_slots += n_res
        for i, (nxt, nr) in enumerate(nf):
            if nxt is None:
                continue
            k = None if out is None else out[i]
            if k is not None:
                b = slots.get(nxt)
                if b is None:
                    b = slots[nxt] = [None] * nxt._num_outputs()
                if b[nr] is None:
                    b[nr] = k
                else:
                    steps.append((_ADD, b[nr], k))
                    b[nr] = n_slots
                    n_slots += 1
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                heappush(heap, (-nxt._seq, tie, nxt))
                tie += 1
    for sink in leaves:
        var = sink.variable
        if var._grad is not None and id(var._grad._vc) in saved_vcs and needed is None:
            return None
    # shapes and dtypes are part of the key: each program compiles once, after its
    # sightings, never on a new shape the first time it is met
    program = (tuple(root_avals), tuple(steps), tuple(leaf_slots))
    return program, roots, dyns, leaves, walked, stepped


def _avals(dyn_t) -> tuple:
    """Shapes and dtypes of a node's input tensors (a Python number's type), read from
    the tensors' metadata, which is cheaper than the arrays'. A tensor whose shape
    changed in place since (``t_()``, ``resize_()``) only makes the key imprecise: the
    jitted replay traces again for arrays of another shape by itself."""
    out = []
    for v in dyn_t:
        if isinstance(v, Tensor):
            out.append((v._shape, v._storage.dtype))
        elif isinstance(v, (list, tuple)):
            out.append(_avals(v))
        else:
            out.append(None if v is None else type(v))
    return tuple(out)


def _count_true(mask: tuple) -> int:
    """How many leaves of a (nested) differentiability mask are True: the number of
    gradients the node's VJP returns."""
    n = 0
    for m in mask:
        if m is True:
            n += 1
        elif type(m) is tuple:
            n += _count_true(m)
    return n


def _replay(program: tuple, roots: list, dyns: list) -> tuple:
    """The pure function a program stands for: the gradients reaching each leaf."""
    _, steps, outs = program
    slots = list(roots)
    k = 0
    for st in steps:
        if st[0] is _ADD:
            slots.append(slots[st[1]] + slots[st[2]])
        else:
            runner, statics, cast, mask, zavals, gs, n_res, _ = st
            cts = tuple(None if s is None else slots[s] for s in gs)
            res = _bwd_impl(runner, statics, cast, mask, zavals, dyns[k], cts)
            if len(res) != n_res:   # the slot numbering would be off: refuse to fuse
                raise ValueError(f"{runner.__name__}: {len(res)} gradients, expected {n_res}")
            slots.extend(res)
            k += 1
    return tuple(slots[s] for s in outs)


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
    run_backward(tensors, grads, retain_graph, create_graph, inputs=ins, accumulate=True)


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
        if not (o._requires_grad or o.grad_fn is not None):
            raise RuntimeError(_errors.NO_GRAD_FN.format(i=i))
    grads = _make_grads(outputs, go)
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                       accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs_t, res)):
        if g is None:
            if materialize_grads:
                g = Tensor._wrap(jnp.zeros(t._shape, t.dtype.np))
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
    if type(self) is not Tensor:
        from .._ops.dispatch import _is_overloaded, handle_torch_function
        if _is_overloaded(self):
            return handle_torch_function(Tensor.backward, [self], (self, gradient),
                                         dict(retain_graph=retain_graph,
                                              create_graph=create_graph, inputs=inputs))
    if gradient is None and retain_graph is None and not create_graph and inputs is None:
        # the common ``loss.backward()``: skip the general argument handling
        if not (self._requires_grad or self.grad_fn is not None):
            raise RuntimeError(_errors.NO_GRAD_FN.format(i=0))
        ones = _LOSS_ONES.get((self._shape, self._storage.dtype))
        if ones is not None and not _anomaly.enabled:
            fast = _fast_backward((self,), [ones], False)
            if fast is True:
                return None
            run_backward((self,), [_tensor_of(ones)], False, False, _fast=fast)
            return None
        grads = _make_grads((self,), (None,))
        if grads[0] is not None:   # a scalar of a floating dtype: ones of it will do again
            _LOSS_ONES[(self._shape, self._storage.dtype)] = grads[0]._value
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
        self._hooks = {}
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
        self._post_acc_hooks = {}
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


Tensor.backward = _tensor_backward
Tensor.register_hook = _register_hook
Tensor.register_post_accumulate_grad_hook = _register_post_accumulate_grad_hook
Tensor.retain_grad = _retain_grad

_ = Iterable
