"""Autograd graph nodes (``grad_fn``) and how ops record them.

Mirrors ``torch.autograd.graph``: every differentiable op result gets a ``grad_fn``
node named like PyTorch's (``MulBackward0``), whose ``next_functions`` point at the
nodes of its inputs (``AccumulateGrad`` for leaves, ``(None, 0)`` for inputs that do
not require grad).

# Note [Backward of a node is an op]
# An ``OpNode`` keeps the op's inputs (JAX arrays, immutable, so they are the values
# the forward saw) and its static arguments. Its backward is one cached executable per
# (op, statics, shapes, dtypes): ``jax.vjp`` of the op's pure function, re-evaluated
# inside ``jax.jit`` so XLA keeps only what the cotangent map needs. The forward of a
# recorded op is therefore the very same cached executable as without grad. With
# ``create_graph=True`` the same VJP is dispatched as a differentiable torchlike op over
# the saved input *tensors*, so the gradient carries its own graph and higher
# derivatives come for free.
#
# Note [Saved tensors and versions]
# PyTorch raises when a tensor its node saved for backward was modified in place. We
# record, per node, the version counters of exactly the tensors PyTorch's node saves
# (``_saved.py`` lists them per op) and compare them before the node runs. Ops whose
# node saves no tensor (``OpSpec.saves=False``: add, views, sum...) are linear in their
# differentiable inputs: their VJP does not need the inputs' values, so the node keeps
# only their shapes and, like PyTorch's, can run again after the graph is "freed".
# Under saved-tensor hooks the same tables say what a node packs, and a packed tensor is
# not version-checked, as in PyTorch (Note [Saved tensor hooks] in _saved_hooks.py).
"""

from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Literal

from .._core import xla
from .._core.hooks import RemovableHandle
from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor
from .._ops.dispatch import _tensor_of, diff_primals, dispatch, refill, wrap_outputs
from . import _saved

__all__ = ["Node", "OpNode", "AccumulateGrad", "record_op", "RemovableHandle",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "GradientEdge", "get_gradient_edge",
           "increment_version", "allow_mutation_on_saved_tensors"]

_seq = itertools.count()
_INF_SEQ = float("inf")


class _SavedHooksState(threading.local):
    """Per thread: the saved-tensor hook pairs in force, innermost last, and the
    message of ``disable_saved_tensors_hooks`` (Note [Saved tensor hooks] in
    _saved_hooks.py). The recorders test ``stack`` once per node: empty, nothing more
    happens."""
    stack: tuple = ()
    disabled: str | None = None


_saved_hooks = _SavedHooksState()


class Node:
    """A node of the backward graph, as PyTorch's ``torch.autograd.graph.Node``.

    ``next_functions`` is a tuple of ``(node, input_nr)`` edges, one per differentiable
    input; ``register_hook``/``register_prehook`` add hooks run after/before the node.
    """

    __slots__ = ("_name", "next_functions", "_seq", "_pre_hooks", "_hooks",
                 "_tensor_pre_hooks", "_retain", "_metadata", "_anomaly", "__weakref__",
                 "__dict__")

    def __init__(self, name: str, next_functions: tuple = ()):
        self._name = name
        self.next_functions = next_functions
        self._seq = next(_seq)
        self._pre_hooks = None          # {id: fn(grad_outputs)}
        self._hooks = None              # {id: fn(grad_inputs, grad_outputs)}
        self._tensor_pre_hooks = None   # output_nr -> {id: fn(grad)}
        self._retain = None             # output_nr -> weakref to tensor (retain_grad)
        self._metadata = None
        self._anomaly = None            # forward traceback in anomaly mode

    def name(self) -> str:
        """The node's class name in PyTorch, e.g. ``'MulBackward0'``."""
        return self._name

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self) -> str:
        return f"<{self._name} object at {hex(id(self))}>"

    def _sequence_nr(self):
        return self._seq

    def register_hook(self, fn):
        """Mirrors ``Node.register_hook``: ``fn(grad_inputs, grad_outputs)`` runs after
        this node; it may return replacement ``grad_inputs``."""
        if self._hooks is None:
            self._hooks = OrderedDict()
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """Mirrors ``Node.register_prehook``: ``fn(grad_outputs)`` runs before this node;
        it may return replacement ``grad_outputs``."""
        if self._pre_hooks is None:
            self._pre_hooks = OrderedDict()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _add_tensor_pre_hook(self, output_nr: int, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        d = self._tensor_pre_hooks.get(output_nr)
        if d is None:
            d = self._tensor_pre_hooks[output_nr] = OrderedDict()
        h = RemovableHandle(d)
        d[h.id] = fn
        return h

    def _retarget(self, old: Tensor, new: Tensor) -> None:
        """``new`` now stands for output ``old._output_nr`` (in-place, subclass wrap)."""
        if self._retain is not None:
            ref = self._retain.get(old._output_nr)
            if ref is not None and ref() is old:
                self._retain[old._output_nr] = weakref.ref(new)

    def _num_outputs(self) -> int:
        return 1

    def apply(self, grads: list, create_graph: bool) -> list:
        """Gradients for ``next_functions`` from gradients of this node's outputs."""
        raise NotImplementedError

    def _release(self) -> None:
        """Free saved values (``retain_graph=False``)."""

    def __call__(self, *grads):
        """Mirrors calling a ``grad_fn`` directly: returns its input gradients."""
        out = self.apply(list(grads), _grad_state.enabled)
        return out[0] if len(out) == 1 else tuple(out)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds incoming gradients to ``variable.grad``.

    The leaf holds it weakly, as PyTorch's tensors hold their grad accumulator, so a leaf
    of a graph that has been freed gets a new one on nearly every training step:
    ``__init__`` therefore sets ``Node``'s fields itself rather than calling
    ``Node.__init__`` (keep the two in step)."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        self._name = "AccumulateGrad"
        self.next_functions = ()
        self._seq = _INF_SEQ  # PyTorch runs leaves as soon as they are ready
        self._pre_hooks = self._hooks = self._tensor_pre_hooks = self._retain = None
        self._metadata = self._anomaly = None
        self.variable = variable

    def name(self) -> str:
        """``'torch::autograd::AccumulateGrad'``, PyTorch's name for it (its C++ class);
        the Python class and the repr say ``AccumulateGrad``, as PyTorch's do."""
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads, create_graph):
        return []


def accumulate_node(leaf: Tensor) -> AccumulateGrad:
    """The (unique, lazily made) ``AccumulateGrad`` of a leaf requiring grad."""
    ref = leaf._node_ref
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._node_ref = _weakref(node)
    return node


class ToCopyNode(Node):
    """``ToCopyBackward0`` of a copy between devices (``torchlike._ops.creation.
    to_device``): the gradient is copied back to the source tensor's device."""

    __slots__ = ("_device",)

    @classmethod
    def record(cls, src: Tensor, out: Tensor) -> None:
        """Make ``out``, the copy of ``src``, the output of a new node."""
        node = cls("ToCopyBackward0", (edge_of(src),))
        a = src._value   # where the gradient goes back to (None while tracing)
        node._device = None if isinstance(a, _Tracer) else next(iter(a.devices()))
        if _anomaly.enabled:
            _anomaly.record(node)
        out._requires_grad = True
        out.grad_fn = node
        out._output_nr = 0

    def apply(self, grads, create_graph):
        from .._ops.creation import to_device
        g = grads[0]
        if g is None:
            return [None]
        return [g if self._device is None else to_device(g, self._device)]


def edge_of(t: Tensor):
    gf = t.grad_fn
    if gf is not None:
        return (gf, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    return (None, 0)


_NONE_EDGE = (None, 0)


def _backward_error(name):
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the "
        "graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or "
        "if you need to access saved tensors after calling backward.")


class OpNode(Node):
    """The grad_fn of a table op: its inputs, static arguments and saved versions."""

    __slots__ = ("_spec", "_statics", "_cast", "_mask", "_dyn", "_dyn_t", "_zavals",
                 "_edge_pos", "_saved", "_freed", "_nout", "_vjp")

    def _num_outputs(self) -> int:
        return self._nout

    def _check_saved(self) -> None:
        if self._freed:
            raise _backward_error(self._name)
        if self._saved is not None:
            for vc, v, dtype, shape, owner, nr in self._saved:
                if vc.v != v:
                    from ._errors import inplace_error
                    raise inplace_error(vc.v, v, dtype, shape, owner, nr)

    def apply(self, grads, create_graph):
        self._check_saved()
        if create_graph:
            res = _differentiable_vjp(self, grads)
        elif self._vjp is not None:   # Note [Backward while tracing]
            outs, vjp_fn = self._vjp
            res = _apply_vjp(vjp_fn, outs, tuple(None if g is None else g._value
                                                 for g in grads))
            res = [_tensor_of(r) for r in res]
        else:
            cts = tuple(None if g is None else g._value for g in grads)
            res = _bwd_jit(self._spec.convolution)(
                self._spec.extra["runner"], self._statics, self._cast, self._mask,
                self._zavals, self._dyn, cts)
            res = [_tensor_of(r) for r in res]
        out = [None] * len(self.next_functions)
        for pos, g in zip(self._edge_pos, res):
            out[pos] = g
        return out

    def _release(self) -> None:
        if self._zavals is None:   # the VJP needs the saved values: drop them
            self._freed = True
            self._dyn = None
            self._dyn_t = None
            self._vjp = None


# ---------------------------------------------------------------------------
# the VJP of a table op, as one pure function
def _bwd_impl(runner, statics, cast, mask, zavals, dyn, cts):
    """Input cotangents (PyTorch's convention) of ``runner`` at ``dyn`` for ``cts``."""
    if zavals is not None:
        primals = [jnp.zeros(s, d) for s, d in zavals]
    else:
        primals = diff_primals(dyn, mask)

    def f(*diff_inputs):
        return runner(statics, cast, *refill(dyn, mask, iter(diff_inputs)))

    outs, vjp_fn = jax.vjp(f, *primals)
    return _apply_vjp(vjp_fn, outs, cts)


def _apply_vjp(vjp_fn, outs, cts):
    """``vjp_fn`` applied to PyTorch-convention gradients ``cts`` of ``outs`` (None for an
    output that got none); the input gradients, in PyTorch's convention too."""
    single = not isinstance(outs, (tuple, list))
    outs_l = [outs] if single else list(outs)
    full = []
    for c, o in zip(cts, outs_l):
        if not jnp.issubdtype(o.dtype, jnp.inexact):
            full.append(np.zeros(o.shape, jax.dtypes.float0))
        elif c is None:
            full.append(jnp.zeros(o.shape, o.dtype))
        else:
            c = c.astype(o.dtype) if c.dtype != o.dtype else c
            # PyTorch's complex gradients are the conjugates of JAX's cotangents
            full.append(jnp.conj(c) if jnp.iscomplexobj(c) else c)
    res = vjp_fn(full[0] if single else type(outs)(full))
    return tuple(jnp.conj(r) if jnp.iscomplexobj(r) else r for r in res)


@functools.cache
def _bwd_jit(convolutions: bool):
    # made on first use: the compiler options ask which backend is the default
    return xla.jit(_bwd_impl, convolutions=convolutions, static_argnums=(0, 1, 2, 3, 4))


def _differentiable_vjp(node: OpNode, grads):
    """The node's VJP as a recorded op over (saved input tensors, incoming grads)."""
    spec = _vjp_spec(node._spec)
    inputs = _current_inputs(node)
    res = dispatch(spec, None, (inputs, list(grads), node._statics, node._cast, node._mask,
                                node._zavals), {})
    res = list(res) if isinstance(res, tuple) else [res]
    keep = _SELF_BACKWARD.get(node._spec.name, ())
    if keep is not None:
        _detach_independent(node, inputs, grads, res, keep)
    return res


# Note [Which double-backward results require grad]
# With ``create_graph=True`` PyTorch's gradient requires grad when its backward formula
# read a tensor that requires grad through differentiable ops: ``(2 * x).sum()`` gives
# a gradient ``2 * grad`` that does not (the incoming gradient does not require grad),
# nor do those of a matmul by a constant matrix, ``clamp``, ``where`` or ``max``, whose
# formulas use the input only through a mask. The VJP op is recorded over every saved
# input, so its results would all require grad; ``_detach_independent`` finds, once per
# (op, static arguments, shapes), which results depend on which inputs through
# floating-point values in the VJP's jaxpr (a comparison's boolean result carries no
# dependence, as PyTorch's boolean tensors never require grad), and detaches the results
# that depend on no input requiring grad. Some PyTorch backward formulas are ops of
# their own that take the input as a differentiable argument (``threshold_backward``
# for ``relu``, ``max_pool2d_with_indices_backward``, ``nll_loss_backward``...): their
# results require grad whenever the input does, as here for the ops in
# ``_SELF_BACKWARD``; so do all the results of a fused backward op (the bias gradient of
# ``convolution_backward`` or ``native_layer_norm_backward``). Calls inside nested
# jaxprs (``jit``, custom derivatives, the branches of ``cond``) are followed; other
# control flow counts as depending on all of its operands.
_SELF_BACKWARD: dict = {
    # op -> the edges (positions in ``next_functions``) whose gradient keeps requiring
    # grad like the input; None: all of them
    **dict.fromkeys((
        "abs", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "layer_norm", "_native_batch_norm", "_instance_norm",
        "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
        "adaptive_avg_pool2d", "adaptive_avg_pool3d", "relu", "leaky_relu", "hardtanh",
        "hardsigmoid", "threshold", "softshrink", "hardshrink", "rrelu_with_noise", "prelu",
        "nll_loss", "multilabel_margin_loss", "multi_margin_loss", "max_pool1d",
        "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
        "max_pool3d_with_indices", "adaptive_max_pool1d", "adaptive_max_pool2d",
        "adaptive_max_pool3d", "convolution", "native_layer_norm",
        # norms: PyTorch's formulas read the input through ``sgn`` for p = 1 and infinity
        "norm", "linalg_vector_norm", "linalg_norm", "linalg_matrix_norm", "cdist",
        "pairwise_distance")),
    "copysign": (0,),    # ``grad * result / input``; the sign's gradient is zeros
}
_DEPS: dict = {}
_DEPS_MAX = 1024


def _detach_independent(node: OpNode, inputs, grads, res, keep=()) -> None:
    if all(r._requires_grad is False for r in res if r is not None):
        return
    flat_t: list = []     # the tensors behind the VJP's array arguments, in order
    flat_a: list = []
    sig: list = []

    def walk(t, a):
        if isinstance(a, (list, tuple)):
            sig.append(("[", len(a)))
            for x, y in zip(t, a):
                walk(x, y)
        elif isinstance(a, (jax.Array, np.ndarray)):
            flat_t.append(t)
            flat_a.append(a)
            sig.append((a.shape, a.dtype))
        else:
            sig.append(("s", type(a), a if isinstance(a, (int, float, bool, complex,
                                                          type(None))) else id(a)))
    for t, a in zip(inputs, node._dyn):
        walk(t, a)
    for g in grads:
        walk(g, None if g is None else g._value)
    key = (node._spec.name, node._statics, node._cast, node._mask, node._zavals, tuple(sig))
    try:
        deps = _DEPS.get(key)
    except TypeError:     # an unhashable static value: keep every result as it is
        return
    if deps is None:
        deps = _vjp_deps(node, grads, flat_a)
        if deps is None:
            return
        if len(_DEPS) >= _DEPS_MAX:
            _DEPS.clear()
        _DEPS[key] = deps
    live = 0
    for i, t in enumerate(flat_t):
        if isinstance(t, Tensor) and t._requires_grad:
            live |= 1 << i
    for r, d, pos in zip(res, deps, node._edge_pos):
        if r is not None and r._requires_grad and not d & live and pos not in keep:
            r._requires_grad = False
            r.grad_fn = None


def _vjp_deps(node: OpNode, grads, flat_a):
    """Per VJP result, a bit mask of the array arguments it depends on through floating
    point values (Note [Which double-backward results require grad]); None if the VJP
    cannot be traced here."""
    runner = node._spec.extra["runner"]

    def rebuild(it, a):
        if isinstance(a, (list, tuple)):
            return type(a)(rebuild(it, x) for x in a)
        if isinstance(a, (jax.Array, np.ndarray)):
            return next(it)
        return a

    def f(*flat):
        it = iter(flat)
        dyn = [rebuild(it, a) for a in node._dyn]
        cts = tuple(None if g is None else next(it) for g in grads)
        return _bwd_impl(runner, node._statics, node._cast, node._mask, node._zavals,
                         dyn, cts)
    try:
        closed = jax.make_jaxpr(f)(*[jax.ShapeDtypeStruct(a.shape, a.dtype)
                                     for a in flat_a])
    except Exception:   # noqa: BLE001  (keep PyTorch-style conservative results)
        return None
    return _float_deps(closed.jaxpr, [1 << i for i in range(len(flat_a))])


def _inexact(aval) -> bool:
    return jnp.issubdtype(getattr(aval, "dtype", np.int32), jnp.inexact)


def _float_deps(jaxpr, in_deps: list) -> list:
    env: dict = {}
    for v, d in zip(jaxpr.invars, in_deps):
        env[v] = d if _inexact(v.aval) else 0
    for eqn in jaxpr.eqns:
        ins = [0 if isinstance(v, Literal) else env.get(v, 0) for v in eqn.invars]
        inner = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
        inner = getattr(inner, "jaxpr", inner)
        branches = eqn.params.get("branches") if eqn.primitive.name == "cond" else None
        if (inner is not None and hasattr(inner, "eqns")
                and len(inner.invars) == len(ins) and len(inner.outvars) == len(eqn.outvars)):
            outs = _float_deps(inner, ins)
        elif branches:
            # each branch takes the operands after the (integer) index; any may run
            outs = [0] * len(eqn.outvars)
            for br in branches:
                outs = [a | b for a, b in zip(outs, _float_deps(br.jaxpr, ins[1:]))]
        else:
            m = 0
            for d in ins:
                m |= d
            outs = [m] * len(eqn.outvars)
        for o, d in zip(eqn.outvars, outs):
            env[o] = d if _inexact(o.aval) else 0
    return [0 if isinstance(v, Literal) else env.get(v, 0) for v in jaxpr.outvars]


def _current_inputs(node: OpNode):
    """The saved input tensors; a tensor modified since is replaced by an alias of the
    value the forward saw (keeping its autograd identity)."""
    def fix(t, a):
        if isinstance(t, Tensor):
            if a is None:
                return None
            if t._value is a:
                return t
            al = t._alias()
            al._storage = type(t._storage)(a)
            al._shape, al._stride, al._offset, al._direct = tuple(a.shape), None, 0, True
            al._requires_grad, al.grad_fn, al._output_nr = t._requires_grad, t.grad_fn, \
                t._output_nr
            al._node_ref = t._node_ref
            if t.grad_fn is None and t._requires_grad:
                al._node_ref = weakref.ref(accumulate_node(t))
            return al
        if isinstance(t, (list, tuple)):
            return [fix(x, y) for x, y in zip(t, a)]
        return t
    return [fix(t, a) for t, a in zip(node._dyn_t, node._dyn)]


_VJP_SPECS: dict = {}


def _vjp_spec(op_spec):
    """A table-less op computing the VJP of ``op_spec``; differentiable itself."""
    spec = _VJP_SPECS.get(op_spec.name)
    if spec is not None:
        return spec
    from .._ops.dispatch import prepare
    from .._ops.spec import OpSpec

    runner = op_spec.extra["runner"]

    def fn(inputs, cts, statics, cast, mask, zavals):
        return _bwd_impl(runner, statics, cast, mask, zavals, inputs, cts)

    spec = OpSpec(name=op_spec.name + "_backward", fn=fn,
                  signature="inputs, cts, statics, cast, mask, zavals",
                  tensor_args=("inputs", "cts"), promote="none", method=False,
                  function=False, grad_name=_saved.camel(op_spec.name) + "BackwardBackward0")
    prepare(spec)
    _VJP_SPECS[op_spec.name] = spec
    return spec


# ---------------------------------------------------------------------------
# recording
def _recorder(spec) -> tuple:
    """What recording ``spec`` needs, worked out once and kept in ``spec.extra``:
    ``(edge kind per tensor argument, grad_fn name, or None and the function of the
    op's arguments that names it, save plan, whether the node keeps the inputs' values,
    nondifferentiable outputs, whether outputs are plain tensors, the function that
    completes the edges of an overload or None)``."""
    rec = spec.extra.get("_recorder")
    if rec is not None:
        return rec
    g = spec.grad_name
    if g is None:
        g = _saved.NAMES.get(spec.name, _saved.camel(spec.name) + "Backward0")
    name, name_fn = (None, g) if callable(g) else (g, None)
    rec = spec.extra["_recorder"] = (
        _saved.edge_info(spec), name, name_fn, _saved.save_plan(spec), bool(spec.saves),
        frozenset(spec.nondiff_outputs), spec.view is None and spec.out_names is None,
        _saved.OVERLOAD_EDGES.get(spec.name) if name is None else None)
    return rec


def _leaf_mask(v, kind, edges, pos):
    """Whether ``v`` (or, for a list, each element) gets a gradient; appends its edges
    (``kind``: 0 none, 1 for tensors, 2 for tensors and numbers) to ``edges``."""
    if isinstance(v, Tensor):
        m = bool(kind) and v._requires_grad and (v.dtype.is_floating_point
                                                 or v.dtype.is_complex)
        if kind:
            if m:
                pos.append(len(edges))
                edges.append(edge_of(v))
            else:
                edges.append(_NONE_EDGE)
        return m
    if isinstance(v, (list, tuple)):
        return tuple(_leaf_mask(w, kind if kind != 2 else 1, edges, pos) for w in v)
    if kind == 2 and v is not None:   # a wrapped Python scalar: PyTorch's (None, 0)
        edges.append(_NONE_EDGE)
    return False


# Note [Backward while tracing]
# Eagerly, a node keeps the op's inputs and its backward re-runs the forward inside one
# cached executable (Note [Backward of a node is an op]). While a whole function is traced
# (``torchlike.compile``, ``jax.jit`` of torchlike code) there is nothing to cache and
# re-running the forward would only enlarge the program: the op is then run through
# ``jax.vjp`` once and the node keeps the VJP closure, exactly what ``jax.grad`` of the
# same code would build.
#
# Note [Cost of recording]
# ``record_op`` runs for every differentiable op of an eager forward, next to an
# executable launch of about 5 us, so it is written for speed: what depends only on the
# op is worked out once (``_recorder``), the common arguments (tensors and numbers) are
# handled inline with ``_leaf_mask`` only for lists, and the node's fields are set
# directly rather than through ``Node.__init__`` (keep the two in step). The output
# comes from the executable the fast path already chose (passed in as ``exe``), so a
# recorded op does not look it up again under ``(statics, cast)`` and, like an
# unrecorded one, skips a neutral ``alpha``; the node still keeps every argument, so
# the backward (and ``create_graph``'s ``_vjp_spec``) differentiates the op's full
# function with the value that was passed. Calls from the fast path go through the op's
# generated recorder (Note [Generated recorders] in _recorders.py), the same work as
# straight-line code: a change to the fields set here must be made there too.
def record_op(spec, vals, statics, cast, dyn_t, dyn, exe=None, args=None):
    """Run ``spec`` and attach a grad_fn to its differentiable outputs.

    ``exe``: the executable the dispatcher chose for this call (Note [One executable per
    cast]), run on ``args``, or on ``dyn`` when ``args`` is None (``args`` lacks a
    neutral argument, Note [Neutral scalar arguments]); without it, ``spec.jitted``
    finds the executable. The node keeps the whole ``dyn`` either way, so its backward
    sees the same arguments."""
    rec = spec.extra.get("_recorder")
    if rec is None:
        rec = _recorder(spec)
    kinds, name, name_fn, plan, saves, nondiff, plain, overload_edges = rec
    edges: list = []
    pos: list = []
    mask: list = []
    zavals: list = []     # a linear op's differentiable inputs: (shape, dtype)
    nested = traced = False
    for v, d, kind in zip(dyn_t, dyn, kinds):
        if isinstance(v, Tensor):
            dt = v._storage.dtype
            if kind and v._requires_grad and (dt.is_floating_point or dt.is_complex):
                mask.append(True)
                if not saves:
                    # the tensor's shape and dtype are the array's, without its properties
                    zavals.append((v._shape, dt.np))
                if kind:
                    pos.append(len(edges))
                    gf = v.grad_fn
                    edges.append((gf, v._output_nr) if gf is not None else
                                 (accumulate_node(v), 0))
            else:
                mask.append(False)
                if kind:
                    edges.append(_NONE_EDGE)
        elif isinstance(v, (list, tuple)):
            mask.append(_leaf_mask(v, kind, edges, pos))
            nested = True
        else:
            mask.append(False)
            if kind == 2 and v is not None:   # a wrapped Python scalar: (None, 0)
                edges.append(_NONE_EDGE)
        if isinstance(d, _Tracer):
            traced = True
    mask = tuple(mask)
    vjp = None
    if pos and (traced or nested and _is_traced(dyn)):
        runner = spec.extra["runner"]

        def f(*diff_inputs):
            return runner(statics, cast, *refill(dyn, mask, iter(diff_inputs)))

        out, vjp_fn = jax.vjp(f, *diff_primals(dyn, mask))
        vjp = (out, vjp_fn)
    elif exe is None:
        out = spec.jitted(statics, cast, *dyn)
    elif args is None:
        out = exe(*dyn)
    else:
        out = exe(*args)
    if not pos:
        # only arguments PyTorch does not differentiate require grad (``other`` of
        # ``view_as``): the result is not part of the graph
        return wrap_outputs(spec, vals, out)
    if plain:
        if isinstance(out, (tuple, list)):
            result = outs = tuple([_tensor_of(o) for o in out])
        else:
            result = _tensor_of(out)
            outs = (result,)
    else:
        result = wrap_outputs(spec, vals, out)
        outs = result if isinstance(result, tuple) else (result,)
    if name is None:   # named per call, by the overload
        name = name_fn(*vals)
        if overload_edges is not None:
            overload_edges(edges, pos, *vals)
    node = _new(OpNode)
    node._name = name
    node.next_functions = tuple(edges)
    node._seq = next(_seq)
    node._pre_hooks = node._hooks = node._tensor_pre_hooks = node._retain = None
    node._metadata = node._anomaly = None
    node._spec = spec
    node._statics = statics
    node._cast = cast
    node._vjp = vjp
    node._mask = mask
    node._edge_pos = pos
    node._freed = False
    node._nout = len(outs)
    if saves:
        node._dyn = dyn
        node._zavals = None
    else:
        if nested:
            zavals = [(a.shape, a.dtype) for a in diff_primals(dyn, mask)]
        node._zavals = tuple(zavals)
        node._dyn = _strip(dyn, mask) if nested else \
            [None if m is True else d for d, m in zip(dyn, mask)]
    node._dyn_t = dyn_t
    node._saved = _saved.entries(plan, dyn_t, outs if saves else (), name) if plan \
        else None
    if _anomaly.enabled:
        _anomaly.record(node)
    for i, t in enumerate(outs):
        if i in nondiff:
            continue
        dt = t._storage.dtype
        if dt.is_floating_point or dt.is_complex:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = i
    if _saved_hooks.stack:
        _pack_node(node, plan, dyn_t, outs, saves)
    return result


def _pack_node(node, plan, dyn_t, outs, saves) -> None:
    from ._saved_hooks import pack_op_node
    pack_op_node(node, plan, dyn_t, outs, saves)


_new = object.__new__
_weakref = weakref.ref
_Tracer = jax.core.Tracer


def _is_traced(dyn) -> bool:
    for d in dyn:
        if isinstance(d, jax.core.Tracer):
            return True
        if isinstance(d, (list, tuple)) and _is_traced(d):
            return True
    return False


def _strip(dyn, mask):
    """``dyn`` with its differentiable leaves replaced by None (linear ops)."""
    out = []
    for d, m in zip(dyn, mask):
        if m is True:
            out.append(None)
        elif isinstance(m, tuple):
            out.append(_strip(d, m))
        else:
            out.append(d)
    return out


class _AnomalyState:
    enabled = False
    check_nan = True

    @staticmethod
    def record(node):
        import traceback
        node._anomaly = traceback.format_stack()[:-3]


_anomaly = _AnomalyState()


# the rest of torch.autograd.graph's public names (modules that import this one)
from ._graph_api import GradientEdge, get_gradient_edge  # noqa: E402
from ._graph_api import increment_version, register_multi_grad_hook  # noqa: E402
from ._saved_hooks import disable_saved_tensors_hooks, save_on_cpu  # noqa: E402
from ._saved_hooks import allow_mutation_on_saved_tensors, saved_tensors_hooks  # noqa: E402
