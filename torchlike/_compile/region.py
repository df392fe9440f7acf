"""A torchlike function as a pure function of arrays, for JAX's control-flow transforms.

# Note [Regions while traced]
# Some constructs must hand JAX a pure function of arrays while a compiled function (or
# a JAX transformation of torchlike code) is traced: ``jax.checkpoint`` for a
# checkpointed region (Note [Checkpoint under compile] in utils/checkpoint.py), and
# ``lax.cond`` for the branches of ``torchlike.cond`` (Note [cond and while_loop] in
# control_flow.py). A ``Region`` builds that function from torchlike functions over
# the same arguments. Its inputs are the tensor arguments, the arrays of the state the
# functions reach (found as ``torchlike.compile`` finds it: Note [Finding state once])
# and the generators' keys and counters. Its outputs are the function's tensors and,
# as auxiliary outputs, the state it changed or created. ``jax.vjp`` of the transformed
# function gives one node for the whole region whose edges are the arguments and state
# tensors requiring grad, so gradients reach the parameters a function reads through
# its closure or ``self``. The graph a function records while it is traced is walked:
# a gradient flowing to a tensor that is neither an argument nor found state raises,
# rather than being dropped.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._core.grad_mode import enable_grad, no_grad
from .._core.tensor import Tensor, is_tensor
from ..autograd._errors import inplace_error
from ..autograd.graph import AccumulateGrad, Node, _backward_error, _seq, edge_of
from .state import find_state, roots_of

__all__ = ["Region", "RegionBackward", "is_inside", "region_nodes"]


def is_inside(node, start: int) -> bool:
    """Whether ``node`` was made by the region that began at sequence number ``start``
    (a leaf's ``AccumulateGrad`` never is)."""
    return type(node) is not AccumulateGrad and node._seq >= start


def region_nodes(roots, start: int) -> list:
    """The nodes of the region reachable from ``roots``, not walking past its boundary."""
    seen = set()
    order = []
    stack = [n for n in roots if is_inside(n, start)]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        for nxt, _ in n.next_functions:
            if nxt is not None and nxt not in seen and is_inside(nxt, start):
                stack.append(nxt)
    return order


class RegionBackward(Node):
    """The node of a region: the backward of the JAX transform of its pure function.
    ``check()`` runs before it (an error the construct raises there). The first-order
    backward applies ``vjp_fn``, the linearization made in the forward; with
    ``create_graph`` the backward is recorded instead, as ``JaxCall`` of the VJP of
    ``fn`` (the outputs as a function of the differentiated inputs' arrays) over the
    ``tensors`` those inputs are, so that it can be differentiated again."""

    def __init__(self, name: str, edges, vjp_fn, out_avals, used, fn: Callable,
                 tensors: list, check: Callable[[], None] | None = None):
        super().__init__(name, tuple(edges))
        self._vjp_fn = vjp_fn
        self._out_avals = out_avals
        self._used = used
        self._fn = fn
        self._versions = [(t, t._vc, t._vc.v) for t in tensors]
        self._check = check

    def _num_outputs(self) -> int:
        return len(self._out_avals)

    def _release(self) -> None:
        self._vjp_fn = self._fn = self._versions = None

    def apply(self, grads, create_graph):
        if self._vjp_fn is None:
            raise _backward_error(self._name)
        if self._check is not None:
            self._check()
        if create_graph:
            return self._recorded_backward(grads)
        cts = []
        for g, (shape, dtype) in zip(grads, self._out_avals):
            if not jnp.issubdtype(dtype, jnp.inexact):
                cts.append(np.zeros(shape, jax.dtypes.float0))
            elif g is None:
                cts.append(jnp.zeros(shape, dtype))
            else:
                cts.append(g._value.astype(dtype))
        return [Tensor._wrap(r) if used else None
                for r, used in zip(self._vjp_fn(tuple(cts)), self._used)]

    def _recorded_backward(self, grads) -> list:
        from ..func._jaxcall import JaxCall
        for t, vc, v in self._versions:
            if vc.v != v:
                raise inplace_error(vc.v, v, t.dtype, t._shape, t, None)
        tensors = [t for t, _, _ in self._versions]
        fn, avals, n = self._fn, self._out_avals, len(self._versions)
        inexact = [k for k, (_, d) in enumerate(avals) if jnp.issubdtype(d, jnp.inexact)]

        def backward(*arrays):
            _, vjp = jax.vjp(fn, *arrays[:n])
            it = iter(arrays[n:])
            return tuple(vjp(tuple(next(it).astype(d) if k in inexact
                                   else np.zeros(s, jax.dtypes.float0)
                                   for k, (s, d) in enumerate(avals))))

        cts = [grads[k] if grads[k] is not None
               else Tensor._wrap(jnp.zeros(*avals[k])) for k in inexact]
        gin = JaxCall.apply(backward, True, *tensors, *cts)
        return [g if used else None for g, used in zip(gin, self._used)]


class Region:
    """``functions`` (called alike on ``args``/``kwargs``) as pure functions of
    ``primals`` (Note [Regions while traced]); ``what`` names the construct in errors.

    ``pure(i, plan)`` is function ``i`` as ``flat -> (outs, aux)``, ``outs`` the arrays
    of its tensor results; it fills ``infos[i]`` when traced: ``tree`` and ``consts``
    (its results' structure and non-tensor values), ``avals``, ``used`` (which
    differentiated inputs its graph reaches), ``changed``/``gens`` (the positions of the
    storages and generators it changed) and ``new`` (state it created). ``aux`` holds the
    arrays of ``plan``'s storages and generators (its own changes when None), then those
    of ``new``. With ``grad`` False the functions run under ``no_grad`` and nothing is
    differentiated. ``run(transformed)`` applies a JAX transform of the pure functions
    (``flat -> (outs, aux)``) with ``jax.vjp`` when something requires grad, writes the
    auxiliary outputs back and returns the results as tensors whose ``grad_fn`` is one
    ``RegionBackward``."""

    def __init__(self, functions: list, args: tuple, kwargs: dict, what: str,
                 grad: bool = True):
        self.functions = functions
        self.grad = grad
        self.what = what
        leaves, self.treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_tensor)
        self.leaves = leaves
        self.arg_pos = arg_pos = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        self.roots = roots = [r for f in functions for r in roots_of(f)]
        found = find_state(roots)
        self.storages, self.gens = storages, gens = found.storages, found.generators
        self.known = {id(s) for s in storages}
        self.n_a, self.n_s = n_a, _ = len(arg_pos), len(storages)
        primals = [leaves[i]._value for i in arg_pos] + [s.array for s in storages]
        for g in gens:
            k, c = g._state_leaves()
            primals += [k, np.uint32(c & 0xFFFFFFFF) if type(c) is int else c]
        self.primals = primals
        # what is differentiated: arguments and state tensors requiring grad
        diff = [(j, leaves[i]) for j, i in enumerate(arg_pos)
                if grad and leaves[i]._requires_grad]
        by_storage = {id(s): k for k, s in enumerate(storages)}
        state_diff = list({id(t): t for t in found.owners + found.holders
                           if grad and t._requires_grad}.values())
        for t in state_diff:
            if not t._direct:
                raise NotImplementedError(
                    f"{what}: a tensor requiring grad that the "
                    f"function reaches is a view of another (shape {tuple(t._shape)}); pass "
                    "it as an argument instead")
            diff.append((n_a + by_storage[id(t._storage)], t))
        self.diff = diff
        self.diff_idx = diff_idx = [j for j, _ in diff]
        if len(set(diff_idx)) != len(diff_idx):
            raise NotImplementedError(
                f"{what}: two tensors requiring grad reached by the "
                "function share memory; pass one of them as an argument")
        if any(t.is_complex() for _, t in diff):
            raise NotImplementedError(f"{what}: complex tensors "
                                      "requiring grad are not supported")
        self.leaf_ids = {id(t) for t in state_diff if t.grad_fn is None}
        self.node_ids = {id(t.grad_fn) for t in state_diff if t.grad_fn is not None}
        self.infos: list = [{} for _ in functions]
        self.replaying = False

    def pure(self, i: int, plan: tuple | None = None) -> Callable:
        function, info = self.functions[i], self.infos[i]
        storages, gens, leaves = self.storages, self.gens, self.leaves
        n_a, n_s, diff_args = self.n_a, self.n_s, set(self.diff_idx)

        def pure(*flat):
            outside = [s.array for s in storages]
            outside_gens = [g._state_leaves() for g in gens]
            inner = [Tensor._wrap(flat[j], requires_grad=j in diff_args) for j in range(n_a)]
            new_leaves = list(leaves)
            for t, k in zip(inner, self.arg_pos):
                new_leaves[k] = t
            for s, a in zip(storages, flat[n_a:]):
                s.array = a
                s.gen += 1
            for j, g in enumerate(gens):
                g._set_state_leaves(flat[n_a + n_s + 2 * j], flat[n_a + n_s + 2 * j + 1])
            try:
                call_args, call_kwargs = jax.tree_util.tree_unflatten(self.treedef, new_leaves)
                start = next(_seq)
                # a replay (the recorded backward re-running the function) only needs
                # the outputs' arrays: JAX differentiates them
                replay = self.replaying
                with enable_grad() if self.grad and not replay else no_grad():
                    out = function(*call_args, **call_kwargs)
                o_leaves, tree = jax.tree_util.tree_flatten(out, is_leaf=is_tensor)
                outs = tuple(x._value for x in o_leaves if isinstance(x, Tensor))
                if not replay:
                    self._describe(info, tree, o_leaves, outs, start, inner, flat)
                changed, gen_pos = (info["changed"], info["gens"]) if plan is None else plan
                aux = [storages[k].array for k in changed]
                for j in gen_pos:
                    key, counter = gens[j]._state_leaves()
                    aux += [key, jnp.asarray(counter, jnp.uint32)]
                aux += [s.array for s in info["new"]]
                return outs, aux
            finally:
                for s, a in zip(storages, outside):
                    s.array = a
                    s.gen += 1
                for g, st in zip(gens, outside_gens):
                    g._set_state_leaves(*st)

        return pure

    def _describe(self, info: dict, tree, o_leaves: list, outs: tuple, start: int,
                  inner: list, flat: tuple) -> None:
        """Fill ``info`` from a call of the function (see the class docstring)."""
        n_a, storages, gens = self.n_a, self.storages, self.gens
        info["tree"] = tree
        reached = self._check_graph(o_leaves, start, {id(t) for t in inner}) \
            if self.grad else set()
        # a tensor the region does not use gets no gradient (None), as in eager mode
        info["used"] = [id(inner[j] if j < n_a else t if t.grad_fn is None
                           else t.grad_fn) in reached for j, t in self.diff]
        if any(t._storage.array is not flat[j] for j, t in enumerate(inner)):
            raise NotImplementedError(f"{self.what}: the function modified an argument in "
                                      "place")
        info["consts"] = [None if isinstance(x, Tensor) else x for x in o_leaves]
        info["avals"] = [(tuple(o.shape), o.dtype) for o in outs]
        info["dtypes"] = [x.dtype for x in o_leaves if isinstance(x, Tensor)]
        # state the region changed or created comes out as auxiliary outputs
        info["changed"] = [k for k, (s, a) in enumerate(zip(storages, flat[n_a:]))
                           if s.array is not a]
        info["new"] = [s for s in find_state(self.roots).storages
                       if id(s) not in self.known and isinstance(s.array, jax.core.Tracer)]
        n_s = self.n_s
        info["gens"] = [j for j, g in enumerate(gens)
                        if any(x is not y for x, y in zip(
                            g._state_leaves(), flat[n_a + n_s + 2 * j:n_a + n_s + 2 * j + 2]))]

    def _replayed(self, fn: Callable, *args):
        """``fn(*args)`` with the functions run only for their outputs' arrays."""
        self.replaying = True
        try:
            return fn(*args)
        finally:
            self.replaying = False

    def _check_graph(self, outs, start: int, arg_ids: set) -> set:
        """The ids of the arguments, leaves and nodes among the differentiated inputs
        that the graph a function recorded while traced reaches; raise when it reaches
        a tensor requiring grad that is neither an argument nor found state (its gradient
        would be lost)."""
        reached = set()
        roots = [o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
        for node in region_nodes(roots, start):
            for nxt, _ in node.next_functions:
                if nxt is None or is_inside(nxt, start):
                    continue
                if type(nxt) is AccumulateGrad:
                    v = id(nxt.variable)
                    if v in self.leaf_ids or v in arg_ids:
                        reached.add(v)
                        continue
                elif id(nxt) in self.node_ids:
                    reached.add(id(nxt))
                    continue
                raise RuntimeError(
                    f"{self.what}: the function uses a tensor "
                    "requiring grad that is neither one of its arguments nor a parameter or "
                    "buffer of the modules it reaches (through its closure, globals or "
                    "self); pass that tensor as an argument")
        return reached

    def run(self, transformed: Callable, info: dict, plan: tuple | None, node_name: str,
            check: Callable[[], None] | None = None):
        """Apply ``transformed`` (``flat -> (outs, aux)``, aux laid out by ``plan``: the
        changed storages' and generators' positions, or None for ``info``'s own) to the
        primals, differentiated by
        ``jax.vjp`` when an input requires grad; write the auxiliary outputs back and
        return the results (structured as ``info``'s)."""
        primals, diff_idx = self.primals, self.diff_idx

        def differentiable(*diff_primals):
            full = list(primals)
            for j, d in zip(diff_idx, diff_primals):
                full[j] = d
            return transformed(*full)

        if self.diff:

            outs, vjp_fn, aux = jax.vjp(differentiable, *[primals[j] for j in diff_idx],
                                        has_aux=True)
        else:   # nothing to differentiate: the outputs do not require grad
            (outs, aux), vjp_fn = transformed(*primals), None
        it = iter(aux)
        changed, gen_pos = (info["changed"], info["gens"]) if plan is None else plan
        for s in [self.storages[k] for k in changed] + info["new"]:
            s.array = next(it)
            s.gen += 1
        for j in gen_pos:
            self.gens[j]._set_state_leaves(next(it), next(it))
        node = None
        if outs and vjp_fn is not None:
            node = RegionBackward(node_name, [edge_of(t) for _, t in self.diff], vjp_fn,
                                  [(o.shape, o.dtype) for o in outs], info["used"],
                                  lambda *d: self._replayed(differentiable, *d)[0],
                                  [t for _, t in self.diff], check)
        it = iter(outs)
        out_leaves = []
        nr = 0
        for c in info["consts"]:
            if c is not None:
                out_leaves.append(c)
                continue
            t = Tensor._wrap(next(it))
            if node is not None and t.is_floating_point():
                t._requires_grad = True
                t.grad_fn = node
                t._output_nr = nr
            nr += 1
            out_leaves.append(t)
        return jax.tree_util.tree_unflatten(info["tree"], out_leaves)
