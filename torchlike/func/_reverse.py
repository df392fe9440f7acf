"""Reverse mode: ``grad``, ``grad_and_value``, ``vjp`` and ``jacrev``, mirroring
``torch.func``.

# Note [Reverse mode rides the tape]
# These transforms differentiate with torchlike's own autograd rather than ``jax.grad``:
# the differentiated inputs are replaced by tensors that require grad, the function runs
# with grad mode on, and ``torchlike.autograd.grad`` computes the vector-Jacobian
# product. This is exactly how ``torch.func`` is built on PyTorch's autograd, and it
# buys PyTorch's semantics where JAX's differ: ``detach()`` and ``torch.no_grad()``
# inside the function stop gradients, custom ``autograd.Function`` backwards and tensor
# hooks run, and gradients stay connected to tensors that require grad outside the
# transform (a gradient penalty ``grad(D)(x).norm().backward()`` reaches ``D``'s
# parameters). It is also faster eagerly: ``jax.grad`` of a Python function re-traces
# it on every call, while the tape reuses each op's cached VJP (0.7 ms against 12 ms per
# call for a 16-32-1 MLP's loss on CPU).
# Everything stays a JAX computation, so the transforms work on traced tensors inside
# ``jax.jit``/``jax.vmap``/``jax.grad`` and ``torchlike.compile``.
#
# Results are connected to the surrounding tape only when the function reached a tensor
# that requires grad other than the lifted inputs (found by walking the graph once);
# otherwise the graph is built without ``create_graph`` and results come back detached,
# as PyTorch's do. ``jacrev`` maps the VJP over the rows of the identity with
# ``jax.vmap`` (PyTorch vmaps too); when its result must stay connected it loops instead,
# because a graph recorded inside ``jax.vmap`` cannot outlive it.
"""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._core.grad_mode import enable_grad, is_grad_enabled
from .._core.tensor import Tensor
from ..autograd.graph import AccumulateGrad
from ._pytree import (normalize_argnums, replace_args, slice_argnums, tree_flatten,
                      tree_map_tensors, tree_unflatten)

__all__ = ["grad", "grad_and_value", "vjp", "jacrev"]


# ---------------------------------------------------------------------------- helpers
def _lift(leaves: list) -> list:
    """Tensors standing for the differentiated inputs inside the function: a view of
    the input (connected to its history) when it requires grad, else a detached alias
    that requires grad. Both share the input's memory, as PyTorch's wrappers do."""
    out = []
    for x in leaves:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad and is_grad_enabled():
            out.append(x.view_as(x))
        else:
            t = x._alias()   # cuts the tape only: JAX transforms around still see through
            t.requires_grad_()  # PyTorch's error for integer inputs
            out.append(t)
    return out


def _reaches_outside(outs: list, lifted: list) -> bool:
    """Whether the graph of ``outs`` reaches a tensor requiring grad that is not one of
    the lifted inputs (then results must stay connected)."""
    own = {id(t) for t in lifted}
    stack = []
    for o in outs:
        if o.grad_fn is not None:
            stack.append(o.grad_fn)
        elif o.requires_grad and id(o) not in own:
            return True
    seen = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                return True
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return False


def _vjp_arrays(outs: list, lifted: list, cts: list, retain: bool, create: bool) -> list:
    """Gradients of ``outs`` (with cotangents ``cts``, None for implicit ones) w.r.t.
    ``lifted``; zeros for inputs the outputs do not depend on, as ``torch.func``."""
    from ..autograd import grad as autograd_grad
    pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
    if pairs:
        grads = autograd_grad([o for o, _ in pairs], lifted, [c for _, c in pairs],
                              retain_graph=retain, create_graph=create, allow_unused=True)
    else:
        grads = [None] * len(lifted)
    return [Tensor._wrap(jnp.zeros(t._shape, t.dtype.np)) if g is None else g
            for t, g in zip(lifted, grads)]


def _detach(x):
    return x._alias()   # the tape's detach, not a stop for JAX transforms around


def _check_outputs(flat_out: list, api: str) -> None:
    """PyTorch's ``assert_non_empty_tensor_output`` plus vjp's dtype check."""
    if len(flat_out) < 1 or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
    for o in flat_out:
        if not (o.dtype.is_floating_point or o.dtype.is_complex):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                               f"complex Tensors, got Tensor with dtype {o.dtype}")


def _split_aux(output, api: str):
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return output


# ---------------------------------------------------------------------------- grad
def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable:
    """Mirrors ``torch.func.grad_and_value``: a function returning ``(gradient, value)``
    of ``func`` (which must return a scalar tensor) w.r.t. ``args[argnums]``, or
    ``(gradient, (value, aux))`` with ``has_aux=True``. Arguments may be pytrees
    (tuples, lists, dicts) of tensors; the gradient has the same structure.

    Built on torchlike's autograd (Note [Reverse mode rides the tape]), so ``detach()``,
    ``no_grad()``, custom Functions and hooks inside ``func`` behave as in PyTorch; works
    on traced tensors inside ``jax.jit``/``jax.vmap``/``jax.grad``.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        outer = is_grad_enabled()
        an = normalize_argnums(argnums, len(args))
        leaves, spec = tree_flatten(slice_argnums(args, an))
        lifted = _lift(leaves)
        with enable_grad():
            output = func(*replace_args(args, tree_unflatten(lifted, spec), an), **kwargs)
            aux = None
            if has_aux:
                output, aux = _split_aux(output, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use "
                                   "the vjp or jacrev APIs instead?")
            connected = outer and _reaches_outside([output], lifted)
            grads = _vjp_arrays([output], lifted, [None], connected, connected)
        g = tree_unflatten(grads, spec)
        if not connected:
            output = output._alias()
            aux = tree_map_tensors(_detach, aux)
        return (g, (output, aux)) if has_aux else (g, output)
    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """Mirrors ``torch.func.grad``: a function computing the gradient of ``func`` (which
    returns a scalar tensor) w.r.t. ``args[argnums]``; ``(gradient, aux)`` with
    ``has_aux=True``. See ``grad_and_value``.

    Example::

        >>> x = torchlike.tensor([0.0, 1.0])
        >>> torchlike.func.grad(lambda x: x.sin().sum())(x)
        tensor([1.0000, 0.5403])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


# ---------------------------------------------------------------------------- vjp
def _vjp_setup(func, args, an, has_aux):
    """Run ``func`` with the differentiated arguments lifted; PyTorch's vjp checks."""
    api = "vjp(f, *primals)"
    outer = is_grad_enabled()
    diff = args if an is None else slice_argnums(args, an)
    leaves, spec = tree_flatten(diff)
    lifted = _lift(leaves)
    new_args = tree_unflatten(lifted, spec) if an is None else \
        replace_args(args, tree_unflatten(lifted, spec), an)
    with enable_grad():
        out = func(*new_args)
    aux = None
    if has_aux:
        out, aux = _split_aux(out, api)
    flat_out, out_spec = tree_flatten(out)
    _check_outputs(flat_out, api)
    connected = outer and _reaches_outside(flat_out, lifted)
    return out, flat_out, out_spec, aux, lifted, spec, connected


def vjp(func: Callable, *primals, has_aux: bool = False):
    """Mirrors ``torch.func.vjp``: returns ``(func(*primals), vjp_fn)`` (plus ``aux``
    with ``has_aux=True``). ``vjp_fn(cotangents, retain_graph=True, create_graph=None)``
    takes cotangents with the structure of the output and returns a tuple with one
    gradient per primal (a pytree where the primal is one). Built on torchlike's
    autograd (Note [Reverse mode rides the tape])."""
    out, flat_out, out_spec, aux, lifted, spec, connected = _vjp_setup(func, primals, None,
                                                                       has_aux)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{ct_spec.pprint()}, primal output: {out_spec.pprint()}")
        create = create_graph and (connected or any(
            isinstance(c, Tensor) and c.requires_grad for c in flat_ct))
        grads = _vjp_arrays(flat_out, lifted, flat_ct, retain_graph, create)
        return tree_unflatten(grads, spec)

    result = out if connected else tree_map_tensors(_detach, out)
    if has_aux:
        return result, vjp_fn, (aux if connected else tree_map_tensors(_detach, aux))
    return result, vjp_fn


# ---------------------------------------------------------------------------- jacrev
def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """Mirrors ``torch.func.jacrev``: the Jacobian of ``func`` w.r.t. ``args[argnums]``
    by reverse mode. For an output ``o`` and input ``x`` the block has shape
    ``o.shape + x.shape``; several outputs give the outputs' structure, a tuple
    ``argnums`` a tuple per output. ``chunk_size`` bounds how many VJPs run at once.
    Built on torchlike's autograd with ``jax.vmap`` over the identity's rows
    (Note [Reverse mode rides the tape])."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        an = normalize_argnums(argnums, len(args))
        _, flat_out, out_spec, aux, lifted, spec, connected = _vjp_setup(func, args, an,
                                                                         has_aux)
        rows = _jacobian_rows(flat_out, lifted, connected, chunk_size)
        per_output = []
        off = 0
        for o in flat_out:
            n = o.numel()
            blocks = [r[off:off + n].reshape(tuple(o.shape) + tuple(t.shape))
                      for r, t in zip(rows, lifted)]
            per_output.append(tree_unflatten(blocks, spec))
            off += n
        jac = tree_unflatten(per_output, out_spec)
        if has_aux:
            return jac, (aux if connected else tree_map_tensors(_detach, aux))
        return jac
    return wrapper


def _jacobian_rows(flat_out: list, lifted: list, connected: bool, chunk_size) -> list:
    """For each lifted input ``x``, a tensor of shape ``(N, *x.shape)``: the VJPs of the
    N rows of the identity over the flattened, concatenated outputs."""
    numels = [o.numel() for o in flat_out]
    total = sum(numels)
    if connected:
        # One VJP per row, recorded on the tape (see Note [Reverse mode rides the tape]).
        from .._ops.dispatch import call_op
        per_row = []
        for k in range(total):
            cts = _basis(flat_out, numels, np.arange(k, k + 1))
            cts = [Tensor._wrap(c[0]) for c in cts]
            per_row.append(_vjp_arrays(flat_out, lifted, cts, True, True))
        return [call_op("stack", [r[j] for r in per_row], 0) for j in range(len(lifted))]

    def rows_of(*cts):
        gs = _vjp_arrays(flat_out, lifted, [Tensor._wrap(c) for c in cts], True, False)
        return tuple(g._value for g in gs)

    step = total if chunk_size is None else chunk_size
    pieces = []
    for start in range(0, total, max(step, 1)):
        idx = np.arange(start, min(start + step, total))
        pieces.append(jax.vmap(rows_of)(*_basis(flat_out, numels, idx)))
    if len(pieces) == 1:
        return [Tensor._wrap(a) for a in pieces[0]]
    return [Tensor._wrap(jnp.concatenate([p[j] for p in pieces])) for j in range(len(lifted))]


def _basis(flat_out: list, numels: list, idx: np.ndarray) -> list:
    """Rows ``idx`` of the identity over the concatenated outputs, split per output and
    shaped like it: a list of arrays ``(len(idx), *o.shape)``."""
    res = []
    off = 0
    for o, n in zip(flat_out, numels):
        eye = (idx[:, None] == (off + np.arange(n))[None, :])
        res.append(jnp.asarray(eye.reshape((len(idx),) + tuple(o.shape)), o.dtype.np))
        off += n
    return res

