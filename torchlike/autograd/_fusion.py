"""The fused backward: a repeated graph's whole backward as one jitted program.

Used by the engine (``engine.run_backward`` and ``Tensor.backward``) where nothing can
tell the difference from walking the graph node by node.

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

import jax

from .._core import xla
from .._core.tensor import Tensor
from .._ops.dispatch import _tensor_of
from .graph import AccumulateGrad, OpNode, _bwd_impl


@jax.jit
def _add_arrays(a, b):
    return a + b


def _all_none(grads: list) -> bool:
    for g in grads:
        if g is not None:
            return False
    return True


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
        convolutions = any(st[0] is not _ADD and st[8] for st in program[1])
        fn = _fused[program] = xla.jit(functools.partial(_replay, program),
                                       convolutions=convolutions)
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
            spec = node._spec
            steps.append((spec.extra["runner"], node._statics, node._cast, node._mask,
                          node._zavals, tuple(gs), n_res, _avals(node._dyn_t),
                          spec.convolution))
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
            runner, statics, cast, mask, zavals, gs, n_res = st[:7]
            cts = tuple(None if s is None else slots[s] for s in gs)
            res = _bwd_impl(runner, statics, cast, mask, zavals, dyns[k], cts)
            if len(res) != n_res:   # the slot numbering would be off: refuse to fuse
                raise ValueError(f"{runner.__name__}: {len(res)} gradients, expected {n_res}")
            slots.extend(res)
            k += 1
    return tuple(slots[s] for s in outs)
