"""``torchlike.cond`` and ``torchlike.while_loop``: structured control flow, as
``torch.cond`` and ``torch.while_loop``.

# Note [cond and while_loop]
# A Python predicate (a bool, a shape test) makes ``cond`` call the chosen branch, as
# PyTorch's does. A tensor predicate makes it an operation of its own, as PyTorch's
# (which compiles it with Dynamo): both branches become pure functions of the operands
# and of the state they reach (Note [Regions while traced] in _compile/region.py) and
# are traced once each, so that mismatched results raise PyTorch's errors and every
# tensor either branch reads that requires grad is an edge of the one
# ``CondAutogradOpBackward`` node of the results. Eagerly, ``jax.vjp`` of the chosen
# branch's pure function gives the results and the backward (the other branch's
# tensors get zeros, as PyTorch's backward materializes them); while traced (inside
# ``torchlike.compile`` the predicate has no Python value) the two become one
# ``lax.cond``. State a branch changes (batch-norm statistics, a generator's counter)
# comes out of it and is written back.
#
# ``while_loop`` runs a Python loop while the condition is known in Python, as PyTorch's
# eager implementation does, with the tape recording each iteration. A traced condition
# makes it one ``lax.while_loop`` over the pure body, which also carries the state the
# body changes; JAX's ``while_loop`` has no reverse-mode derivative, so a traced loop
# whose results would require grad raises (PyTorch documents its ``while_loop`` as not
# supporting training).
#
# Differences from PyTorch: a branch may return an operand unchanged (PyTorch's Dynamo
# refuses the aliasing); an int carried by a traced ``while_loop`` becomes a 0-d int64
# tensor (PyTorch makes it a symbolic int).
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._compile.region import Region
from ._core.grad_mode import _state as _grad_state
from ._core.tensor import Tensor, is_tensor

__all__ = ["cond", "while_loop"]


def _traced(x) -> bool:
    return isinstance(x, Tensor) and isinstance(x._value, jax.core.Tracer)


def _describe(avals: list) -> str:
    return "[" + ", ".join(f"{d}{list(s)}" for s, d in avals) + "]"


# --------------------------------------------------------------------------- cond
def cond(pred: bool | Tensor, true_fn: Callable, false_fn: Callable,
         operands: tuple | list = ()) -> Any:
    """Mirrors ``torch.cond``: ``true_fn(*operands)`` if ``pred`` else
    ``false_fn(*operands)``.

    A Python ``pred`` (bool, int or float) just calls the chosen branch, as PyTorch does.
    A one-element tensor ``pred`` (nonzero is true) makes ``cond`` an operation of its
    own (Note [cond and while_loop]): both branches are traced, must return the same
    structure of tensors with the same shapes and dtypes, and may read parameters and
    buffers through their closure or ``self``; the results are new tensors whose
    ``grad_fn`` is one ``CondAutogradOpBackward``, and every tensor either branch reads
    that requires grad gets a gradient (zeros from the branch not taken), as in PyTorch.
    ``operands``: a tuple or list, possibly nested in lists, tuples and dicts, of
    tensors. Inside ``torchlike.compile`` a traced ``pred`` becomes one ``lax.cond``.
    Gradients of gradients (``create_graph=True``) go through it too. Eagerly, each
    call traces both branches again (milliseconds for a small model; PyTorch's eager
    ``cond`` compiles with Dynamo, seconds on a call site's first call), so inside a
    loop prefer compiling the whole step. Difference from PyTorch: a branch may return
    an operand unchanged (PyTorch refuses the aliasing).

    >>> import torchlike
    >>> x = torchlike.tensor([1.0, 2.0])
    >>> torchlike.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
    tensor([2., 4.])
    """
    if isinstance(pred, (bool, int, float, np.bool_)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(
            isinstance(t, Tensor) for t in jax.tree_util.tree_leaves(operands,
                                                                     is_leaf=is_tensor)):
        raise RuntimeError(
            "Expect operands to be a tuple of possibly nested dict/list/tuple that only "
            f"consists of tensor leaves, but got {operands}.")
    p = pred._value.reshape(())
    if p.dtype != jnp.bool_:
        p = p != 0
    return _cond_region(p, true_fn, false_fn, tuple(operands))


def _cond_region(p, true_fn: Callable, false_fn: Callable, operands: tuple):
    region = Region([true_fn, false_fn], operands, {}, "torchlike.cond",
                    grad=_grad_state.enabled)
    # trace each branch once on its own: what it returns and which state it changes
    for i in (0, 1):
        jax.eval_shape(region.pure(i), *region.primals)
    i0, i1 = region.infos
    _check_branches(i0, i1)
    if i0["new"] or i1["new"]:
        raise NotImplementedError(
            "torchlike.cond: a branch created state (for example an optimizer's first step, "
            "which makes its buffers); create it before the cond")
    plan = (sorted(set(i0["changed"]) | set(i1["changed"])),
            sorted(set(i0["gens"]) | set(i1["gens"])))
    branches = (region.pure(0, plan), region.pure(1, plan))
    # what either branch's graph reaches gets a gradient (zeros from the other branch)
    info = dict(i0, used=[x or y for x, y in zip(i0["used"], i1["used"])])
    if isinstance(p, jax.core.Tracer):
        def transformed(*flat):
            return lax.cond(p, branches[0], branches[1], *flat)
    else:   # a concrete predicate: only the chosen branch runs
        transformed = branches[0 if bool(p) else 1]
    return region.run(transformed, info, plan, "CondAutogradOpBackward")


def _check_branches(a: dict, b: dict) -> None:
    """PyTorch's errors for branches whose results differ (its messages, RuntimeError)."""
    na, nb = len(a["consts"]), len(b["consts"])
    if na != nb:
        raise RuntimeError(f"Expected to return same number of outputs but got:"
                           f"\n  true branch returns {na} item(s)"
                           f"\n  false branch returns {nb} item(s)")
    if a["tree"] != b["tree"] or a["consts"] != b["consts"]:
        raise RuntimeError(
            "Unmatched output spec from torch.cond branches: true branch tree_spec "
            f"{a['tree']} vs false branch tree_spec {b['tree']} (non-tensor results "
            f"{a['consts']} and {b['consts']} must be equal)")
    if a["avals"] != b["avals"]:
        raise RuntimeError(
            "torchlike.cond: the branches must return tensors of the same shapes and dtypes, "
            f"but the true branch returns {_tensor_meta(a)} and the false branch "
            f"{_tensor_meta(b)}")


def _tensor_meta(info: dict) -> str:
    """A branch's tensor results as ``[torchlike.float32[4, 3], ...]``."""
    return _describe([(s, d) for (s, _), d in zip(info["avals"], info["dtypes"])])


# --------------------------------------------------------------------------- while_loop
def while_loop(cond_fn: Callable, body_fn: Callable, carried_inputs: tuple | list) -> tuple:
    """Mirrors ``torch.while_loop``: ``val = carried_inputs; while cond_fn(*val): val =
    body_fn(*val)``, returning ``val`` as a tuple (tensors cloned when the loop runs no
    iteration).

    ``carried_inputs``: a tuple or list, possibly nested, of tensors and ints;
    ``cond_fn`` returns a bool or a 0-d bool tensor; ``body_fn`` returns a tuple of as
    many values as ``carried_inputs``, each with the shape and dtype of the one it
    replaces (checked on every iteration). Inside ``torchlike.compile`` a condition
    computed from traced tensors makes one ``lax.while_loop`` (Note [cond and
    while_loop]), which is not differentiable: there a loop whose results would require
    grad raises NotImplementedError (PyTorch documents ``while_loop`` as not supporting
    training), and an int carry becomes a 0-d int64 tensor.

    >>> import torchlike
    >>> torchlike.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
    ...                      (torchlike.tensor(0), torchlike.ones(2)))
    (tensor(3), tensor([8., 8.]))
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(
            f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    leaves = jax.tree_util.tree_leaves(carried_inputs, is_leaf=is_tensor)
    if not all(isinstance(t, Tensor) or (type(t) is int) for t in leaves):
        raise RuntimeError(
            "Expect carried_inputs to be a tuple of possibly nested dict/list/tuple that only"
            f"consists of tensor or int leaves, but got {carried_inputs}.")
    carried = tuple(carried_inputs)
    should = cond_fn(*carried)
    _check_pred(should)
    if _traced(should):
        return _while_traced(cond_fn, body_fn, carried)
    if not should:
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in carried)
    while should:
        out = body_fn(*carried)
        _check_body(out, carried)
        carried = out
        should = cond_fn(*carried)
        _check_pred(should)
    return carried


def _check_pred(pred) -> None:
    if isinstance(pred, (bool, np.bool_)):
        return
    if isinstance(pred, Tensor) and pred.dim() == 0 and pred.dtype.np == np.bool_:
        return
    raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got "
                       f"{pred}")


def _meta(x) -> str:
    return f"Tensor(shape={list(x.shape)}, dtype={x.dtype})" if isinstance(x, Tensor) \
        else type(x).__name__


def _check_body(out, carried: tuple) -> None:
    if not isinstance(out, tuple):
        raise RuntimeError(f"body_fn should return a tuple but got {type(out)}")
    flat_out = jax.tree_util.tree_leaves(out, is_leaf=is_tensor)
    flat_in = jax.tree_util.tree_leaves(carried, is_leaf=is_tensor)
    if len(flat_out) != len(flat_in):
        raise RuntimeError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but "
            f"got lhs:{[_meta(x) for x in flat_out]} and rhs:{[_meta(x) for x in flat_in]}")
    for k, (o, i) in enumerate(zip(flat_out, flat_in)):
        same = (isinstance(o, Tensor) and isinstance(i, Tensor) and o.shape == i.shape
                and o.dtype is i.dtype) or (type(o) is int and type(i) is int)
        if not same:
            raise RuntimeError(
                f"Expected carried_inputs and body_fn_output to have the same metadata, but "
                f"item {k} of body_fn's output is {_meta(o)} where the carried input is "
                f"{_meta(i)}")


_WHILE_GRAD = (
    "torchlike.while_loop under torchlike.compile: the loop's results would require grad, "
    "but JAX's while_loop has no reverse-mode derivative (PyTorch's while_loop does not "
    "support training either). Run the loop under torchlike.no_grad(), or unroll it as a "
    "Python loop with a fixed number of iterations")


def _while_traced(cond_fn: Callable, body_fn: Callable, carried: tuple) -> tuple:
    leaves, tree = jax.tree_util.tree_flatten(carried, is_leaf=is_tensor)
    leaves = [x if isinstance(x, Tensor) else Tensor._wrap(jnp.asarray(x, jnp.int64))
              for x in leaves]
    grad = _grad_state.enabled
    if grad and any(t.requires_grad for t in leaves):
        raise NotImplementedError(_WHILE_GRAD)
    carried = jax.tree_util.tree_unflatten(tree, leaves)
    region = Region([cond_fn, body_fn], carried, {}, "torchlike.while_loop", grad=False)
    n_a, n_s = region.n_a, region.n_s
    # trace the body once on its own: its results must match the carried values, and the
    # state it changes is carried through the loop
    jax.eval_shape(region.pure(1), *region.primals)
    info = region.infos[1]
    body_avals = [(s, np.dtype(d)) for s, d in info["avals"]]
    in_avals = [(tuple(np.shape(a)), np.dtype(jnp.result_type(a)))
                for a in region.primals[:n_a]]
    if len(info["consts"]) != len(leaves):
        raise RuntimeError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but "
            f"got lhs:{len(info['consts'])} values and rhs:{len(leaves)} values")
    if any(c is not None for c in info["consts"]) or body_avals != in_avals:
        raise RuntimeError(
            "Expected carried_inputs and body_fn_output to have the same metadata, but "
            f"body_fn returns {_describe(body_avals)} for carried inputs "
            f"{_describe(in_avals)}")
    if info["new"]:
        raise NotImplementedError(
            "torchlike.while_loop under torchlike.compile: the loop body created state (for "
            "example an optimizer's first step, which makes its buffers); create it before "
            "the loop")
    if grad:
        _check_no_grad(body_fn, carried)
    plan = (list(info["changed"]), list(info["gens"]))
    pred_fn, step_fn = region.pure(0, ([], [])), region.pure(1, plan)
    # the loop carries the arguments, the storages the body changes and the changed
    # generators' keys and counters; the rest of the state is read as it is
    carry_pos = list(range(n_a)) + [n_a + k for k in plan[0]]
    for j in plan[1]:
        carry_pos += [n_a + n_s + 2 * j, n_a + n_s + 2 * j + 1]
    base = region.primals

    def full(carry):
        flat = list(base)
        for pos, v in zip(carry_pos, carry):
            flat[pos] = v
        return flat

    def loop_cond(carry):
        outs, _ = pred_fn(*full(carry))
        if not outs:   # cond_fn returned a Python bool
            return jnp.asarray(bool(region.infos[0]["consts"][0]))
        return outs[0].reshape(())

    def loop_body(carry):
        outs, aux = step_fn(*full(carry))
        return tuple(outs) + tuple(aux)

    init = tuple(jnp.asarray(base[pos]) for pos in carry_pos)
    init = init[:n_a] + tuple(
        x.astype(jnp.uint32) if pos >= n_a + n_s else x
        for pos, x in zip(carry_pos[n_a:], init[n_a:]))
    final = lax.while_loop(loop_cond, loop_body, init)
    it = iter(final[n_a:])
    for k in plan[0]:
        region.storages[k].array = next(it)
        region.storages[k].gen += 1
    for j in plan[1]:
        region.gens[j]._set_state_leaves(next(it), next(it))
    return tuple(jax.tree_util.tree_unflatten(tree, [Tensor._wrap(o) for o in final[:n_a]]))


def _check_no_grad(body_fn: Callable, carried) -> None:
    """Raise when the body, run with grad mode on, gives results that require grad (it
    reads parameters, or a tensor requiring grad through its closure): their gradients
    would be lost."""
    probe = Region([body_fn], carried, {}, "torchlike.while_loop", grad=True)
    jax.eval_shape(probe.pure(0), *probe.primals)
    if any(probe.infos[0]["used"]):
        raise NotImplementedError(_WHILE_GRAD)
