"""Autograd graph nodes (``grad_fn``) and how ops record them.

# Note [Backward of a node is an op]
# An ``OpNode`` keeps the VJP closure JAX returned when the op ran (its residuals), so a
# plain ``backward()`` is one cached executable per node. With ``create_graph=True`` the
# node instead dispatches its VJP as a differentiable torchlike op over the saved
# inputs, so the gradient carries its own graph and higher derivatives come for free.
"""

from __future__ import annotations

import itertools
import re
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .._core.tensor import Tensor

__all__ = ["Node", "OpNode", "AccumulateGrad", "record_op", "RemovableHandle"]

_seq = itertools.count()


class RemovableHandle:
    """Mirrors ``torch.utils.hooks.RemovableHandle``."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, extra_dicts=()):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        self.extra = [weakref.ref(d) for d in extra_dicts]

    def remove(self) -> None:
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]
        for ref in self.extra:
            e = ref()
            if e is not None and self.id in e:
                del e[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"_+", name.strip("_")))


class Node:
    """A node of the backward graph, as PyTorch's ``torch.autograd.graph.Node``."""

    def __init__(self, name: str, next_functions: tuple = ()):
        self._name = name
        self.next_functions = next_functions
        self._seq = next(_seq)
        self._pre_hooks: dict = {}
        self._hooks: dict = {}
        self._tensor_pre_hooks: dict = {}   # output_nr -> {id: fn}
        self._retain: dict = {}             # output_nr -> weakref to tensor
        self.metadata: dict = {}

    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<{self._name} object at {hex(id(self))}>"

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` after this node runs; may return new grad_inputs."""
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` before this node runs; may return new grad_outputs."""
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _add_tensor_pre_hook(self, output_nr: int, fn):
        d = self._tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(d)
        d[h.id] = fn
        return h

    def _retarget(self, old: Tensor, new: Tensor) -> None:
        ref = self._retain.get(old._output_nr)
        if ref is not None and ref() is old:
            self._retain[old._output_nr] = weakref.ref(new)

    def apply(self, grads: list, create_graph: bool) -> list:
        raise NotImplementedError

    def _release(self) -> None:
        pass


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds incoming gradients to ``variable.grad``."""

    def __init__(self, variable: Tensor):
        super().__init__("AccumulateGrad")
        self.variable = variable

    def apply(self, grads, create_graph):
        return []


def accumulate_node(leaf: Tensor) -> AccumulateGrad:
    ref = leaf._node_ref
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._node_ref = weakref.ref(node)
    return node


def edge_of(t: Tensor):
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (accumulate_node(t), 0)
    return (None, 0)


class OpNode(Node):
    """The grad_fn of a table op: VJP residuals, saved inputs and their versions."""

    def __init__(self, name, spec, statics, cast, diff_mask, vjp_fn, diff_tensors,
                 all_tensors, out_avals):
        edges = tuple(edge_of(t) if (t._requires_grad or t.grad_fn is not None) else (None, 0)
                      for t in all_tensors)
        super().__init__(name, edges)
        self._spec = spec
        self._statics = statics
        self._cast = cast
        self._diff_mask = diff_mask
        self._vjp = vjp_fn
        self._diff_tensors = diff_tensors
        self._all_tensors = all_tensors
        self._diff_index = [i for i, t in enumerate(all_tensors)
                            if any(t is d for d in diff_tensors)]
        self._versions = [t._vc.v for t in all_tensors] if spec.saves else None
        self._out_avals = out_avals
        self._freed = False

    def _check_saved(self) -> None:
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or "
                "if you need to access saved tensors after calling backward.")
        if self._versions is not None:
            for t, v in zip(self._all_tensors, self._versions):
                if t._vc.v != v:
                    from ..autograd._errors import inplace_error
                    raise inplace_error(t, v, self)

    def _cotangents(self, grads):
        cts = []
        for g, (shape, dt) in zip(grads, self._out_avals):
            if not (np.issubdtype(dt, np.inexact)):
                cts.append(np.zeros(shape, dtype=jax.dtypes.float0))
            elif g is None:
                cts.append(jnp.zeros(shape, dt))
            else:
                cts.append(g._value if isinstance(g, Tensor) else g)
        return cts[0] if self._single else tuple(cts)

    def apply(self, grads, create_graph):
        self._check_saved()
        if create_graph:
            in_grads = _differentiable_vjp(self, grads)
        else:
            res = _run_vjp(self._vjp, self._cotangents(grads))
            in_grads = [Tensor._wrap(r) for r in res]
        out = [None] * len(self.next_functions)
        for i, g in zip(self._diff_index, in_grads):
            out[i] = g
        return out

    def _release(self) -> None:
        if self._spec.saves:
            self._freed = True
            self._vjp = None


@jax.jit
def _run_vjp(vjp_fn, cts):
    return vjp_fn(cts)


def _differentiable_vjp(node: OpNode, grads):
    """The node's VJP as a recorded op over (saved inputs, incoming grads)."""
    from .._ops.dispatch import dispatch
    spec = _vjp_spec(node._spec)
    out_grads = []
    for g, (shape, dt) in zip(grads, node._out_avals):
        if g is None and np.issubdtype(dt, np.inexact):
            g = Tensor._wrap(jnp.zeros(shape, dt))
        out_grads.append(g)
    res = dispatch(spec, None, (node._spec, node._statics, node._cast, node._diff_mask,
                                node._single, node._inputs_struct, out_grads), {})
    return list(res) if isinstance(res, tuple) else [res]


_VJP_SPECS: dict = {}


def _vjp_spec(op_spec):
    """A table-less op computing ``vjp(op)(cotangents)``; differentiable itself."""
    spec = _VJP_SPECS.get(op_spec.name)
    if spec is not None:
        return spec
    from .._ops.dispatch import diff_primals, prepare, refill
    from .._ops.spec import OpSpec

    runner = op_spec.extra["runner"]

    def fn(opspec, statics, cast, mask, single, inputs, cts):
        def f(*diff_inputs):
            return runner(statics, cast, *refill(inputs, mask, iter(diff_inputs)))
        primals = diff_primals(inputs, mask)
        outs, vjp_fn = jax.vjp(f, *primals)
        outs = [outs] if single else list(outs)
        full_cts = [np.zeros(o.shape, jax.dtypes.float0)
                    if not np.issubdtype(o.dtype, np.inexact) else c
                    for c, o in zip(cts, outs)]
        return tuple(vjp_fn(full_cts[0] if single else tuple(full_cts)))

    spec = OpSpec(name=op_spec.name + "_backward", fn=fn,
                  signature="opspec, statics, cast, mask, single, inputs, cts",
                  tensor_args=("inputs", "cts"), promote="none", method=False,
                  function=False, grad_name=_camel(op_spec.name) + "BackwardBackward0")
    prepare(spec)
    _VJP_SPECS[op_spec.name] = spec
    return spec


def grad_name(spec, vals) -> str:
    g = spec.grad_name
    if g is None:
        return _camel(spec.name) + "Backward0"
    if callable(g):
        return g(*vals)
    return g


def record_op(spec, vals, statics, cast, dyn_t, dyn):
    """Run ``spec`` with its VJP and attach a grad_fn to the differentiable outputs."""
    diff_tensors: list = []
    all_tensors: list = []
    mask = _mask_of(dyn_t, diff_tensors, all_tensors)
    out, vjp_fn = spec.jitted_vjp(statics, cast, mask, *dyn)
    result = _wrap_recorded(spec, vals, out)
    outs = result if isinstance(result, tuple) else (result,)
    single = not isinstance(out, (tuple, list))
    out_list = [out] if single else list(out)
    avals = [(tuple(o.shape), o.dtype) for o in out_list]
    node = OpNode(grad_name(spec, vals), spec, statics, cast, mask, vjp_fn, diff_tensors,
                  all_tensors, avals)
    node._single = single
    node._inputs_struct = [v for v in dyn_t]
    for i, t in enumerate(outs):
        if i in spec.nondiff_outputs:
            continue
        if t.dtype.is_floating_point or t.dtype.is_complex:
            t._requires_grad = True
            t.grad_fn = node
            t._output_nr = i
    return result


def _mask_of(values, diff_tensors, all_tensors) -> tuple:
    mask = []
    for v in values:
        if isinstance(v, Tensor):
            all_tensors.append(v)
            m = v._requires_grad and (v.dtype.is_floating_point or v.dtype.is_complex)
            if m:
                diff_tensors.append(v)
            mask.append(bool(m))
        elif isinstance(v, (list, tuple)):
            mask.append(_mask_of(v, diff_tensors, all_tensors))
        else:
            mask.append(False)
    return tuple(mask)


def _wrap_recorded(spec, vals, out):
    from .._ops.dispatch import wrap_outputs
    return wrap_outputs(spec, vals, out)
