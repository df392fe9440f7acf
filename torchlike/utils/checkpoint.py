"""``torchlike.utils.checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``.

``checkpoint(fn, *args)`` returns ``fn(*args)`` without keeping the intermediate values
of ``fn`` for the backward pass: the backward runs ``fn`` again (with the random
generator put back to its state at the forward, so dropout draws the same masks) and
differentiates that recomputation. Gradients equal those of ``fn`` uncheckpointed.

# Note [Two checkpoints, eager]
# ``use_reentrant=True`` is PyTorch's ``CheckpointFunction``: an ``autograd.Function``
# whose forward runs ``fn`` under ``no_grad``; its backward recomputes ``fn`` on detached
# inputs and runs a nested ``backward`` from the recomputed outputs, which accumulates
# into the parameters ``fn`` used and into the detached inputs, whose gradients it
# returns. As in PyTorch, only the tensor arguments are edges of the node: when none
# requires grad nothing does (with PyTorch's warning), and ``autograd.grad`` or
# ``backward(inputs=...)`` through it raise PyTorch's error (the engine says whether the
# running pass was given ``inputs``: ``engine.backward_has_inputs``).
#
# ``use_reentrant=False`` (PyTorch keeps the graph and drops the saved tensors through
# saved-tensor hooks, which torchlike's tape does not have) runs ``fn`` with grad mode
# on, walks the graph it recorded (the nodes made since the call began) to find its
# boundary: the edges into older nodes and into leaves (parameters, inputs, tensors of
# the closure). One ``CheckpointBackward`` node with those edges replaces the graph as
# the outputs' ``grad_fn``, so its saved values are freed. Its backward recomputes
# ``fn`` on detached inputs, points every boundary edge of the new graph at a capture
# node standing for the matching edge of the first graph, runs the new graph and returns
# the captured gradients; the engine then routes them as it would have routed those of
# the first graph. Hence gradients reach every tensor ``fn`` used, and ``autograd.grad``,
# ``backward(inputs=...)`` and keyword arguments work, as in PyTorch.
#
# Note [Checkpoint under compile]
# While ``torchlike.compile`` traces (or a JAX transformation runs torchlike code), the
# recomputation must stay a recomputation: XLA would otherwise merge it with the forward
# (common subexpressions) and keep every intermediate alive anyway. There ``fn`` becomes
# a pure function of its tensor arguments, of the arrays of the state it reaches (found
# as ``torchlike.compile`` finds it: Note [Finding state once]) and of the generator's
# key and counter, wrapped in ``jax.checkpoint`` (``jax.remat``); ``jax.vjp`` of it gives
# the outputs now and, in the backward, recomputes the region behind an optimization
# barrier. Buffers ``fn`` updates (batch-norm statistics) and the generator's counter
# come out of it and are written back, once (as under ``torch.compile``; PyTorch's eager
# recomputation updates batch-norm statistics a second time). The graph ``fn`` records
# while it is traced is checked: a gradient flowing to a tensor that is neither an
# argument nor found state raises, rather than being dropped.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, ContextManager, Iterable

import jax

from .._compile import _tracing
from .._compile.region import Region
from .._compile.region import is_inside as _is_inside
from .._compile.region import region_nodes as _region_nodes
from .._core.grad_mode import _state as _grad_state
from .._core.grad_mode import enable_grad, no_grad
from .._core.random import default_generator
from .._core.tensor import Tensor
from ..autograd import engine as _engine
from ..autograd._errors import inplace_error
from ..autograd.function import Function
from ..autograd.graph import AccumulateGrad, Node, _backward_error, _seq, edge_of
from ..nn.modules.container import Sequential

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn"]

_DEFAULT_DETERMINISM_MODE = "default"
_DETERMINISM_MODES = ("default", "none")

_NO_HIGHER_ORDER = (
    "torchlike.utils.checkpoint: create_graph=True (higher-order gradients) through a "
    "checkpointed region is not supported; call the function without checkpoint to "
    "differentiate its gradients")

_REENTRANT_INPUTS = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
    "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
    "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")


class CheckpointError(RuntimeError):
    """Mirrors ``torch.utils.checkpoint.CheckpointError``: the recomputation did not
    match the forward."""


def detach_variable(inputs: tuple) -> tuple:
    """Mirrors ``torch.utils.checkpoint.detach_variable``: each tensor of ``inputs``
    detached, keeping its ``requires_grad``."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Mirrors ``torch.utils.checkpoint.check_backward_validity``: warns when no tensor of
    ``inputs`` requires grad."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


def noop_context_fn() -> tuple[ContextManager, ContextManager]:
    """The default ``context_fn``: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def _replayed_rng(state, enabled: bool):
    """The generator at ``state`` (its key and counter) inside, as it was after."""
    if not enabled:
        yield
        return
    outside = default_generator._state_leaves()
    default_generator._set_state_leaves(*state)
    try:
        yield
    finally:
        default_generator._set_state_leaves(*outside)


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _saved_versions(tensors) -> list:
    return [(t, t._vc, t._vc.v) for t in tensors]


def _check_versions(saved) -> None:
    for t, vc, v in saved:
        if vc.v != v:
            raise inplace_error(vc.v, v, t.dtype, t._shape, t, None)


# ---------------------------------------------------------------------------- reentrant
class CheckpointFunction(Function):
    """Mirrors ``torch.utils.checkpoint.CheckpointFunction``: the reentrant checkpoint
    (Note [Two checkpoints, eager]); its node is ``CheckpointFunctionBackward``."""

    @staticmethod
    def forward(ctx, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = default_generator._state_leaves()
        # non-tensor arguments are kept here, tensors saved for backward
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args: Any) -> tuple:
        if _engine.backward_has_inputs():
            raise RuntimeError(_REENTRANT_INPUTS)
        if _grad_state.enabled:   # the engine records the backward only for create_graph
            raise NotImplementedError(_NO_HIGHER_ORDER)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _replayed_rng(getattr(ctx, "fwd_rng_state", None), ctx.preserve_rng_state):
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        # backward only from the outputs that require grad
        outputs_with_grad, args_with_grad = [], []
        for i in range(len(outputs)):
            if isinstance(outputs[i], Tensor) and outputs[i].requires_grad:
                outputs_with_grad.append(outputs[i])
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _engine.backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


# ---------------------------------------------------------------------------- non-reentrant
class _Capture(Node):
    """Where the recomputed graph's gradient for one boundary edge ends up."""

    def __init__(self):
        super().__init__("CheckpointCapture")
        self.grad = None

    def apply(self, grads, create_graph):
        self.grad = grads[0]
        return []


class _RegionBackward(Node):
    """``CheckpointBackward``: the non-reentrant checkpoint's node (Note [Two checkpoints,
    eager]); edges are the boundary of the graph ``fn`` recorded."""

    def __init__(self, fn, leaves, treedef, boundary, out_pos, out_meta, rng_state,
                 recompute_context, determinism_check):
        super().__init__("CheckpointBackward", tuple(boundary))
        self._fn = fn
        self._leaves = leaves
        self._treedef = treedef
        self._index = {e: i for i, e in enumerate(boundary)}
        self._out_pos = out_pos
        self._out_meta = out_meta
        self._rng_state = rng_state
        self._recompute_context = recompute_context
        self._determinism_check = determinism_check
        self._versions = _saved_versions([x for x in leaves if isinstance(x, Tensor)])
        self._freed = False

    def _num_outputs(self) -> int:
        return len(self._out_pos)

    def _release(self) -> None:
        self._freed = True
        self._fn = self._leaves = self._versions = None

    def apply(self, grads, create_graph):
        if self._freed:
            raise _backward_error(self._name)
        if create_graph:
            raise NotImplementedError(_NO_HIGHER_ORDER)
        _check_versions(self._versions)
        detached = {}   # id of a detached input -> the edge its original stands for
        leaves = []
        for x in self._leaves:
            if isinstance(x, Tensor):
                d = x.detach().requires_grad_(x.requires_grad)
                if x.requires_grad:
                    detached[id(d)] = edge_of(x)
                x = d
            leaves.append(x)
        args, kwargs = jax.tree_util.tree_unflatten(self._treedef, leaves)
        with _replayed_rng(self._rng_state, self._rng_state is not None):
            start = next(_seq)
            with enable_grad(), self._recompute_context:
                out = self._fn(*args, **kwargs)
        outs = jax.tree_util.tree_leaves(out, is_leaf=_is_tensor)
        recomputed = self._recomputed_outputs(outs, start)
        sinks = [_Capture() for _ in self.next_functions]
        for node in _region_nodes([o.grad_fn for o in recomputed], start):
            edges = []
            for nxt, nr in node.next_functions:
                if nxt is not None and not _is_inside(nxt, start):
                    key = (nxt, nr)
                    if type(nxt) is AccumulateGrad and id(nxt.variable) in detached:
                        key = detached[id(nxt.variable)]
                    i = self._index.get(key)
                    if i is None:
                        raise CheckpointError(
                            "torch.utils.checkpoint: the recomputation of the checkpointed "
                            "function used a tensor requiring grad that its forward did not "
                            "use: the function must compute the same thing when run again")
                    nxt, nr = sinks[i], 0
                edges.append((nxt, nr))
            node.next_functions = tuple(edges)
        roots = [(o, g) for o, g in zip(recomputed, grads) if g is not None]
        if roots:
            _engine.run_backward([o for o, _ in roots], [g for _, g in roots], False, False)
        return [s.grad for s in sinks]

    def _recomputed_outputs(self, outs, start: int) -> list:
        if len(outs) <= max(self._out_pos, default=-1):
            raise CheckpointError("torch.utils.checkpoint: the recomputed function returned "
                                  f"{len(outs)} values, fewer than in the forward")
        res = [outs[i] for i in self._out_pos]
        for k, (o, (shape, dtype)) in enumerate(zip(res, self._out_meta)):
            if not isinstance(o, Tensor) or o.grad_fn is None or \
                    not _is_inside(o.grad_fn, start):
                raise CheckpointError(f"torch.utils.checkpoint: output {k} of the "
                                      "recomputation is not computed by the function")
            if self._determinism_check == "default" and (o._shape != shape or
                                                         o.dtype is not dtype):
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have "
                    f"different metadata than during the forward pass.\noutput {k}: saved "
                    f"{{'shape': {list(shape)}, 'dtype': {dtype}}}, recomputed "
                    f"{{'shape': {list(o._shape)}, 'dtype': {o.dtype}}}")
        return res


def _checkpoint_eager(function, preserve: bool, context_fn, determinism_check, args, kwargs):
    forward_context, recompute_context = context_fn()
    rng_state = default_generator._state_leaves() if preserve else None
    start = next(_seq)
    with forward_context:
        out = function(*args, **kwargs)
    out_leaves, out_tree = jax.tree_util.tree_flatten(out, is_leaf=_is_tensor)
    out_pos = [i for i, o in enumerate(out_leaves) if isinstance(o, Tensor)
               and o.grad_fn is not None and _is_inside(o.grad_fn, start)]
    if not out_pos:
        return out
    boundary = {}
    for node in _region_nodes([out_leaves[i].grad_fn for i in out_pos], start):
        for nxt, nr in node.next_functions:
            if nxt is not None and not _is_inside(nxt, start):
                boundary.setdefault((nxt, nr), None)
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_tensor)
    node = _RegionBackward(function, leaves, treedef, list(boundary), out_pos,
                           [(out_leaves[i]._shape, out_leaves[i].dtype) for i in out_pos],
                           rng_state, recompute_context, determinism_check)
    for k, i in enumerate(out_pos):
        o = out_leaves[i]._alias()
        o._requires_grad = True
        o.grad_fn = node
        o._output_nr = k
        out_leaves[i] = o
    return jax.tree_util.tree_unflatten(out_tree, out_leaves)


# ---------------------------------------------------------------------------- traced
def _checkpoint_traced(function, reentrant: bool, args, kwargs):
    """The region as ``jax.checkpoint`` of its pure function (Note [Checkpoint under
    compile], Note [Regions while traced] in _compile/region.py)."""
    region = Region([function], args, kwargs,
                    "torchlike.utils.checkpoint under torchlike.compile")

    def check() -> None:
        if reentrant and _engine.backward_has_inputs():
            raise RuntimeError(_REENTRANT_INPUTS)

    return region.run(jax.checkpoint(region.pure(0)), region.infos[0], None,
                      "CheckpointBackward", check)


def _traced(args, kwargs) -> bool:
    if _tracing.current() is not None:
        return True
    return any(isinstance(x, Tensor) and isinstance(x._value, jax.core.Tracer)
               for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=_is_tensor))


# ---------------------------------------------------------------------------- public API
def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[ContextManager, ContextManager]] =
               noop_context_fn, determinism_check: str = _DEFAULT_DETERMINISM_MODE,
               debug: bool = False, early_stop: bool = True, **kwargs: Any) -> Any:
    """Mirrors ``torch.utils.checkpoint.checkpoint``: ``function(*args, **kwargs)``
    whose intermediate values are recomputed in the backward instead of kept.

    ``use_reentrant`` should be given: without it PyTorch's warning is issued and the
    reentrant variant runs. ``preserve_rng_state`` (keyword, default True) replays the
    generator's state in the recomputation, so random ops (dropout) draw the same
    values. The reentrant variant takes no keyword arguments for ``function`` and only
    differentiates through tensor arguments that require grad (Note [Two checkpoints,
    eager]); the non-reentrant one also takes ``context_fn`` (two context managers, for
    the forward and the recomputation) and ``determinism_check`` ("default" compares
    the recomputed outputs' shapes and dtypes, "none").

    Under ``torchlike.compile`` the region becomes ``jax.checkpoint`` (Note [Checkpoint
    under compile]): the compiled program recomputes it in the backward. Differences:
    ``debug`` and ``early_stop`` are accepted and ignored (the whole function is
    recomputed); higher-order gradients through a checkpoint raise; the non-reentrant
    outputs' ``grad_fn`` is one ``CheckpointBackward`` node; under compile a custom
    ``context_fn`` raises, and state the function reaches must be reachable as
    ``torchlike.compile`` finds it (else it raises).

    >>> import torchlike
    >>> lin = torchlike.nn.Linear(3, 3)
    >>> x = torchlike.ones(2, 3, requires_grad=True)
    >>> y = checkpoint(lin, x, use_reentrant=False)
    >>> y.sum().backward()
    >>> tuple(lin.weight.grad.shape)
    (3, 3)
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more "
                      "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
    elif determinism_check not in _DETERMINISM_MODES:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_MODES)}, "
                         f"but got {determinism_check}")
    if _traced(args, kwargs):
        if use_reentrant:
            check_backward_validity(args)
            if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
                with no_grad():
                    return function(*args)
        elif context_fn is not noop_context_fn:
            raise NotImplementedError("torchlike.utils.checkpoint under torchlike.compile: "
                                      "a custom context_fn is not supported")
        if not _grad_state.enabled:
            return function(*args, **kwargs)
        return _checkpoint_traced(function, use_reentrant, args, kwargs)
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    if not _grad_state.enabled:
        return function(*args, **kwargs)
    return _checkpoint_eager(function, preserve, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions, segments: int, input: Tensor,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Tensor:
    """Mirrors ``torch.utils.checkpoint.checkpoint_sequential``: runs ``functions`` (an
    ``nn.Sequential`` or a list of modules/functions) on ``input``, split into
    ``segments`` chunks of which all but the last are checkpointed
    (``preserve_rng_state`` as in ``checkpoint``; ``use_reentrant`` should be given)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise "
                      "an exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more "
                      "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    # the last chunk runs normally: its outputs are needed at once
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
