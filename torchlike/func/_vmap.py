"""``vmap``, mirroring ``torch.func.vmap``, on ``jax.vmap``.

# Note [vmap over jax.vmap]
# The user's function runs once, on tensors wrapping JAX batch tracers, inside one pure
# function of the flat input arrays (Note [JAX transforms inside eager autograd]).
# PyTorch's argument rules are checked first, with its messages: ``in_dims`` is a
# prefix of the arguments' pytree, non-tensors take ``None``, mapped sizes agree. The
# output structure is only known once the function ran, so the traced body returns two
# groups, mapped outputs (``out_axes=0``, then moved to their ``out_dims``) and
# ``None``-dim outputs (``out_axes=None``: JAX itself refuses one that depends on the
# batch, which becomes PyTorch's "can not return a BatchedTensor" error). Non-tensor
# outputs with a ``None`` dim pass through. ``randomness``: the default generator draws
# from a key that is an input of the pure function, one key for 'same', one per batch
# element for 'different'; with 'error' a draw raises PyTorch's error. Keyword
# arguments are not mapped, as in PyTorch.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp

from .._core.grad_mode import is_grad_enabled
from .._core.tensor import Tensor
from ._jaxcall import check_closed_over, check_randomness_arg, draw_keys, rng_scope, run_pure
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _get_name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims, name: str) -> None:
    def bad():
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                         "None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")
    if isinstance(out_dims, int) and not isinstance(out_dims, bool):
        return
    leaves, _ = tree_flatten(out_dims)
    for d in leaves:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            bad()


def _flat_out_dims(out, out_dims, name: str) -> tuple[list, Any, list]:
    """PyTorch's ``_unwrap_batched`` rules: the output's leaves, structure and dims."""
    flat_out, spec = tree_flatten(out)

    def incompatible():
        _, od_spec = tree_flatten(out_dims)
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         "compatible with the structure of `outputs`. out_dims has structure "
                         f"{od_spec} but outputs has structure {spec}.")

    if isinstance(out, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            dims = list(out_dims)
        else:
            incompatible()
    else:
        dims = broadcast_prefix(out_dims, spec)
        if dims is None:
            incompatible()
    for o, d in zip(flat_out, dims):
        if d is not None and not isinstance(o, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(o)}. Did you mean to set out_dims= to None for output?")
    return flat_out, spec, dims


def _check_inputs(args: tuple, in_dims, name: str):
    """PyTorch's ``_process_batched_inputs``: flat args, their dims and the batch size."""
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         "be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        _, in_spec = tree_flatten(in_dims)
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{in_spec} but inputs has structure {spec}.")
    head = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    for i, (a, d) in enumerate(zip(flat_args, dims)):
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            raise ValueError(head + f"Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if isinstance(d, int) and not isinstance(a, Tensor):
            raise ValueError(head + f"Got in_dim={d} for an input but the input is of type "
                             f"{type(a)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if d is not None and not -a.dim() <= d < a.dim():
            raise ValueError(head + f"Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {a.dim()} so expected in_dim to satisfy "
                             f"-{a.dim()} <= in_dim < {a.dim()}.")
        if d is not None and d < 0:
            dims[i] = d % a.dim()
    sizes = [a.size(d) for a, d in zip(flat_args, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return flat_args, spec, dims, sizes[0]


class _Out:
    """The output structure recorded while tracing (see Note [vmap over jax.vmap])."""
    spec = None
    dims = None
    kinds = None       # per leaf: 'mapped', 'unmapped' (a tensor) or 'value'
    values = None      # the non-tensor leaves


def vmap(func: Callable, in_dims: int | tuple = 0, out_dims: int | tuple = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable:
    """Mirrors ``torch.func.vmap``: ``func`` mapped over dimension ``in_dims`` of its
    inputs, results stacked along ``out_dims``; ``chunk_size`` maps that many elements
    at a time. Implemented with ``jax.vmap`` (Note [vmap over jax.vmap]).

    Differences from PyTorch: the mapped function runs once on traced values, so Python
    code that needs a value (``.item()``, ``if x > 0:``) raises, as it does under
    ``torch.compile``; ``randomness`` governs the default generator only; gradients can
    flow back to the inputs but not to tensors the function closes over that require
    grad (a module's parameters): that raises, pass them as inputs via
    ``functional_call`` (Note [JAX transforms inside eager autograd]).

    Example::

        >>> x = torchlike.arange(6.0).reshape(2, 3)
        >>> torchlike.func.vmap(torchlike.dot)(x, x)
        tensor([ 5., 50.])
    """
    check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _get_name(func)
        flat_args, spec, dims, batch = _check_inputs(args, in_dims, name)
        _check_out_dims(out_dims, name)
        tpos = [i for i, a in enumerate(flat_args) if isinstance(a, Tensor)]
        axes = tuple(dims[i] for i in tpos)
        box = _Out()

        def body(key, *arrays):
            full = list(flat_args)
            for i, a in zip(tpos, arrays):
                full[i] = Tensor._wrap(a)
            with rng_scope(randomness, key):
                out = func(*tree_unflatten(full, spec), **kwargs)
            flat_out, box.spec, box.dims = _flat_out_dims(out, out_dims, name)
            check_closed_over(flat_out, f"vmap({name}, ...)")
            box.kinds = ["value" if not isinstance(o, Tensor) else
                         ("unmapped" if d is None else "mapped")
                         for o, d in zip(flat_out, box.dims)]
            box.values = [None if isinstance(o, Tensor) else o for o in flat_out]
            mapped = tuple(o._value for o, k in zip(flat_out, box.kinds) if k == "mapped")
            unmapped = tuple(o._value for o, k in zip(flat_out, box.kinds) if k == "unmapped")
            return mapped, unmapped

        def run(key, arrays, size):
            key_axis = 0 if randomness == "different" else None
            try:
                return jax.vmap(body, in_axes=(key_axis, *axes), out_axes=(0, None),
                                axis_size=size)(key, *arrays)
            except ValueError as e:
                if "out_axes" in str(e) and "None" in str(e):
                    raise ValueError(f"vmap({name}, ...): `{name}` can not return a "
                                     "BatchedTensor when out_dim is None") from None
                raise

        def pure(key, *arrays):
            if chunk_size is None or chunk_size >= batch:
                mapped, unmapped = run(key, arrays, batch)
            else:
                parts = []
                for start in range(0, batch, chunk_size):
                    stop = min(start + chunk_size, batch)
                    sl = [a if d is None else jax.lax.slice_in_dim(a, start, stop, axis=d)
                          for a, d in zip(arrays, axes)]
                    k = key[start:stop] if randomness == "different" else key
                    parts.append(run(k, sl, stop - start))
                mapped = tuple(jnp.concatenate([p[0][j] for p in parts])
                               for j in range(len(parts[0][0])))
                unmapped = parts[0][1]
            dims_mapped = [d for d, k in zip(box.dims, box.kinds) if k == "mapped"]
            mapped = tuple(jnp.moveaxis(m, 0, d % m.ndim) for m, d in zip(mapped, dims_mapped))
            return (*mapped, *unmapped)

        key = Tensor._wrap(jnp.zeros(2, jnp.int64)) if randomness == "error" else \
            draw_keys(batch if randomness == "different" else None)
        res = run_pure(pure, [key] + [flat_args[i] for i in tpos], is_grad_enabled())
        it_m = iter(res[:box.kinds.count("mapped")])
        it_u = iter(res[box.kinds.count("mapped"):])
        leaves = [next(it_m) if k == "mapped" else next(it_u) if k == "unmapped" else v
                  for k, v in zip(box.kinds, box.values)]
        return tree_unflatten(leaves, box.spec)

    return wrapped

