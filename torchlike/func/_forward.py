"""Forward mode: ``jvp``, ``jacfwd`` and ``hessian``, mirroring ``torch.func``, on
``jax.jvp`` (see Note [JAX transforms inside eager autograd] in ``_jaxcall.py``).

Difference from PyTorch: JAX's forward mode sees values, not torchlike's autograd
history, so a ``detach()`` or ``torchlike.no_grad()`` inside the function does not
stop the tangent (PyTorch's forward-mode AD gives it a zero tangent there).
"""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._core.grad_mode import is_grad_enabled
from .._core.tensor import Tensor
from ._jaxcall import check_closed_over, check_randomness_arg, draw_keys, rng_scope, run_pure
from ._pytree import normalize_argnums, replace_args, slice_argnums, tree_flatten, tree_unflatten
from ._reverse import jacrev

__all__ = ["jvp", "jacfwd", "hessian", "linearize"]

_JVP = "jvp(f, primals, tangents)"


def _check_tensors(leaves: list, argname: str) -> None:
    """PyTorch's ``assert_non_empty_list_of_tensors``."""
    if len(leaves) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got "
                               f"{type(x)}")


def _tangent_array(p: Tensor, t: Tensor):
    if p.shape != t.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} "
            f"while the given forward gradient is of size {list(t.shape)}.")
    return t._value


class _Traced:
    """What one run of the user's function inside JAX produced, besides arrays: the
    output structure and aux's non-tensor leaves."""

    def __init__(self):
        self.out_spec = None
        self.out_meta = None
        self.aux_spec = None
        self.aux_leaves = None


def _run_flat(func, call_args, has_aux: bool, box: _Traced):
    """Run ``func(*call_args)`` (tensors over tracers); return (output arrays, aux arrays)
    and record the structure in ``box``."""
    out = func(*call_args)
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(f"{_JVP}: output of function f should be a tuple: (output, aux) "
                               "if has_aux is True")
        out, aux = out
    flat_out, box.out_spec = tree_flatten(out)
    if len(flat_out) < 1 or (len(flat_out) == 1 and flat_out[0] is None):
        raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{_JVP}: expected f(*args) to return only tensors, got "
                               f"unsupported type {type(o)}")
    check_closed_over(flat_out, _JVP)
    box.out_meta = [(tuple(o.shape), o.dtype.np) for o in flat_out]
    aux_leaves, box.aux_spec = tree_flatten(aux)
    box.aux_leaves = aux_leaves
    aux_arrays = tuple(a._value for a in aux_leaves if isinstance(a, Tensor))
    return tuple(o._value for o in flat_out), aux_arrays


def _rebuild_aux(box: _Traced, aux_tensors: list):
    it = iter(aux_tensors)
    return tree_unflatten([next(it) if isinstance(a, Tensor) else a for a in box.aux_leaves],
                          box.aux_spec)


def _float_tangents(touts, box: _Traced):
    """Integer outputs have float0 tangents in JAX; PyTorch gives zeros of their dtype."""
    return tuple(jnp.zeros(s, dt) if t.dtype == jax.dtypes.float0 else t
                 for t, (s, dt) in zip(touts, box.out_meta))


def jvp(func: Callable, primals: tuple, tangents, *, strict: bool = False,
        has_aux: bool = False):
    """Mirrors ``torch.func.jvp``: ``(func(*primals), J @ tangents)`` (plus ``aux`` with
    ``has_aux=True``), by ``jax.jvp``. Tangents must match the primals' structure and
    shapes (a tangent of another floating dtype is cast, as PyTorch accepts it).
    Differences: ``strict=True`` is not supported, ``detach()``/``no_grad()`` inside
    ``func`` do not stop tangents (see the module docstring), and each call takes one
    draw from the default generator (the key of random ops inside ``func``)."""
    if strict:
        raise NotImplementedError(f"{_JVP}: strict=True is not supported by torchlike")
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got "
            f"primals with structure {p_spec} and tangents with structure {t_spec}")
    _check_tensors(flat_p, "primals")
    _check_tensors(flat_t, "tangents")
    for p, t in zip(flat_p, flat_t):
        _tangent_array(p, t)
    return _jvp(func, flat_p, p_spec, flat_t, has_aux, draw_keys(None))


def _jvp(func: Callable, flat_p: list, p_spec, flat_t: list, has_aux: bool, key: Tensor):
    """``jvp`` of checked, flattened primals and tangents, random ops inside ``func``
    drawing from ``key``."""
    n = len(flat_p)
    box = _Traced()

    def pure(key, *arrays):
        prim = arrays[:n]
        tan = tuple(np.zeros(p.shape, jax.dtypes.float0) if not jnp.issubdtype(
            p.dtype, jnp.inexact) else t.astype(p.dtype) for p, t in zip(prim, arrays[n:]))

        def f_arr(*ps):
            with rng_scope("same", key):
                return _run_flat(func, tree_unflatten([Tensor._wrap(a) for a in ps], p_spec),
                                 has_aux, box)

        outs, touts, aux = jax.jvp(f_arr, prim, tan, has_aux=True)
        return (*outs, *_float_tangents(touts, box), *aux)

    res = run_pure(pure, [key, *flat_p, *flat_t], is_grad_enabled())
    k = len(box.out_meta)
    out = tree_unflatten(res[:k], box.out_spec)
    tout = tree_unflatten(res[k:2 * k], box.out_spec)
    if has_aux:
        return out, tout, _rebuild_aux(box, res[2 * k:])
    return out, tout


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """Mirrors ``torch.func.jacfwd``: the Jacobian of ``func`` w.r.t. ``args[argnums]``
    by forward mode (``jax.jvp`` mapped over the identity's columns with ``jax.vmap``);
    blocks have shape ``output.shape + input.shape`` as with ``jacrev``. ``randomness``
    is vmap's ('error', 'different' or 'same'); with 'different' ``aux`` is the first
    column's. Differences as for ``jvp``."""
    check_randomness_arg(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        an = normalize_argnums(argnums, len(args))
        flat_d, d_spec = tree_flatten(slice_argnums(args, an))
        _check_tensors(flat_d, "primals")
        shapes = [tuple(x.shape) for x in flat_d]
        numels = [x.numel() for x in flat_d]
        total = sum(numels)
        box = _Traced()

        def pure(key, *diff):
            def f_arr(*ps):
                new = tree_unflatten([Tensor._wrap(a) for a in ps], d_spec)
                return _run_flat(func, replace_args(args, new, an), has_aux, box)

            def push(tans, k):
                with rng_scope(randomness, k):
                    _, touts, aux = jax.jvp(f_arr, diff, tans, has_aux=True)
                return _float_tangents(touts, box), aux

            basis = []
            off = 0
            for x, s, m in zip(diff, shapes, numels):
                eye = np.arange(total)[:, None] == (off + np.arange(m))[None, :]
                basis.append(jnp.asarray(eye.reshape((total,) + s), x.dtype))
                off += m
            aux_axis = 0 if randomness == "different" else None
            cols, aux = jax.vmap(push, in_axes=(0, 0 if randomness == "different" else None),
                                 out_axes=(0, aux_axis))(tuple(basis), key)
            if randomness == "different":
                aux = tuple(a[0] for a in aux)
            blocks = []
            for c, (oshape, _) in zip(cols, box.out_meta):
                off = 0
                for s, m in zip(shapes, numels):
                    b = jnp.moveaxis(c[off:off + m], 0, -1)
                    blocks.append(b.reshape(oshape + s))
                    off += m
            return (*blocks, *aux)

        key = _no_key() if randomness == "error" else \
            draw_keys(total if randomness == "different" else None)
        res = run_pure(pure, [key, *flat_d], is_grad_enabled())
        nd = len(flat_d)
        k = len(box.out_meta)
        per_output = [tree_unflatten(res[i * nd:(i + 1) * nd], d_spec) for i in range(k)]
        jac = tree_unflatten(per_output, box.out_spec)
        if has_aux:
            return jac, _rebuild_aux(box, res[k * nd:])
        return jac
    return wrapper


def _no_key() -> Tensor:
    """The key input of a pure function that must not draw (randomness='error')."""
    return Tensor._wrap(jnp.zeros(2, jnp.int64))


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """Mirrors ``torch.func.hessian``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func: Callable, *primals) -> tuple:
    """Mirrors ``torch.func.linearize``: ``(func(*primals), jvp_fn)``, where
    ``jvp_fn(*tangents)`` is the Jacobian-vector product of ``func`` at ``primals``, with
    PyTorch's checks of the tangents' structure, shapes and dtypes. Random ops inside
    ``func`` draw the same numbers in every evaluation (one key, drawn from the default
    generator when ``linearize`` is called).

    Difference from PyTorch: PyTorch traces ``func`` once into a graph of the linearised
    computation; here each ``jvp_fn`` call runs ``jax.jvp`` of ``func`` at the saved
    primals again (the same values, at the cost of the primal computation), so Python
    side effects of ``func`` happen on each call."""
    flat_p, p_spec = tree_flatten(primals)
    for p in flat_p:
        if not isinstance(p, Tensor):
            raise AttributeError(f"linearize: primals must be tensors, got "
                                 f"'{type(p).__name__}'")
    key = draw_keys(None)
    zeros = [Tensor._wrap(jnp.zeros(p._shape, p.dtype.np)) for p in flat_p]
    out = _jvp(func, flat_p, p_spec, zeros, False, key)[0]

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec} to have the same argspec as "
                               f"the primals {p_spec}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            if not isinstance(t, Tensor):
                raise RuntimeError(f"tangent:{i} in flattened pytree is not a Tensor, got "
                                   f"{type(t).__name__}")
            if t.shape != p.shape:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree "
                                   f"doesn't match the shape {p.shape} of the corresponding "
                                   "primal.")
            if t.dtype != p.dtype:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree "
                                   f"doesn't match the dtype {p.dtype} of the corresponding "
                                   "primal.")
        return _jvp(func, flat_p, p_spec, flat_t, False, key)[1]
    return out, jvp_fn
