"""Forward-mode rules for kernels whose gradient follows PyTorch's conventions: a
``jax.custom_jvp`` whose tangent rule is the transpose of a VJP rule, and the JVP of any
function as the transpose of its VJP. They declare no ops.

# Note [Tangent rules as the transpose of the VJP]
# Several kernels carry PyTorch's backward formula rather than JAX's derivative (ties
# share the gradient of amax/max/median evenly, norms have gradient 0 at 0, ...). Written
# as ``jax.custom_vjp`` they have no forward mode: ``func.jvp``/``jacfwd``/``hessian``
# raise JAX's "can't apply forward-mode autodiff (jvp) to a custom_vjp function". PyTorch's
# forward formulas for these ops are the transposes of its backward ones (``amaxamin_jvp``
# and ``evenly_read_jvp`` split the tangent among ties as the backward splits the
# gradient, ``norm_jvp`` is 0 where the norm is 0), so ``custom_jvp_from_vjp`` keeps the
# kernel's ``fwd``/``bwd`` pair and declares a ``jax.custom_jvp`` whose tangent rule is
# ``jax.linear_transpose`` of ``bwd``. Reverse mode, which JAX gets by transposing the
# tangent rule, runs ``bwd``'s operations again (the transpose of a transpose), so
# gradients stay those of the custom VJP; forward mode and forward-over-reverse
# (``hessian``) now work. ``bwd`` must be linear in the cotangent, built from operations
# JAX can transpose; a backward that raises (an op with no derivative) stays a
# ``jax.custom_vjp``.
#
# One linear map cannot be both where PyTorch's forward formula is not the transpose of
# its backward: a full ``max``/``min``/``median`` of an input with a NaN (PyTorch's
# ``evenly_read_jvp`` gives NaN, its backward the gradient to the NaN, whose transpose
# this tangent is); ``cholesky_inverse`` (PyTorch's ``cholesky_inverse_jvp`` is not the
# derivative of ``(L L^H)^-1``; this tangent, the transpose of its backward, is). Reverse
# mode keeps PyTorch's values there. ``polar`` stays a ``jax.custom_vjp``: its backward
# takes the gradient along ``sgn(result)``, its forward formula along ``exp(i angle)``,
# which differ where ``abs <= 0``.
#
# Where a kernel stays a ``jax.custom_vjp``, ``jvp_by_vjp`` gives the JVP of a whole
# function as the transpose of its VJP (the dual tensors of ``autograd.forward_ad`` use it).
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax
import jax.numpy as jnp

__all__ = ["custom_jvp_from_vjp", "jvp_by_vjp"]


def custom_jvp_from_vjp(fun: Callable, fwd: Callable, bwd: Callable,
                        nondiff_argnums: Sequence[int] = ()) -> Callable:
    """``fun`` as a ``jax.custom_jvp`` with the VJP ``fwd``/``bwd`` would give it as a
    ``jax.custom_vjp`` (same signatures: ``fwd(*args) -> (out, res)``,
    ``bwd(*nondiff, res, g) -> tuple``), and the transpose of ``bwd`` as its tangent
    rule (Note [Tangent rules as the transpose of the VJP]). ``bwd`` may return None for
    an argument with no gradient; its tangent is ignored."""
    nondiff = tuple(nondiff_argnums)
    f = jax.custom_jvp(fun, nondiff_argnums=nondiff)

    def rule(*args):
        nd = args[:len(nondiff)]
        primals, tangents = args[len(nondiff)], args[len(nondiff) + 1]
        full, it_nd, it_p = [], iter(nd), iter(primals)
        for i in range(len(nd) + len(primals)):
            full.append(next(it_nd) if i in nondiff else next(it_p))
        # the value from ``f`` itself, so that an outer transformation (forward over
        # reverse) differentiates it by this rule too; ``fwd`` should do the same for the
        # values it saves
        out, (_, res) = f(*full), fwd(*full)
        keep = [g is not None for g in jax.eval_shape(
            lambda o: bwd(*nd, res, o), out)]

        def vjp(g):
            return tuple(c for c, k in zip(bwd(*nd, res, g), keep) if k)

        spec = jax.tree.map(lambda o: jax.ShapeDtypeStruct(o.shape, o.dtype), out)
        (t_out,) = jax.linear_transpose(vjp, spec)(
            tuple(t for t, k in zip(tangents, keep) if k))
        return out, t_out

    f.defjvp(rule)
    return f


def jvp_by_vjp(f: Callable, primals: Sequence, tangents: Sequence) -> tuple:
    """``(*tangents_out, *outs)`` of ``jax.jvp(f, primals, tangents)`` (``f`` returning a
    tuple) for an ``f`` JAX's forward mode cannot differentiate (a ``jax.custom_vjp``
    kernel): the VJP is linear in the cotangent, and the VJP of that linear map with
    ``tangents`` as cotangent is ``J @ tangents``."""
    out, vjp = jax.vjp(f, *primals)
    zeros = tuple(jnp.zeros_like(o) for o in out)
    _, transpose = jax.vjp(lambda ct: vjp(ct), zeros)
    return (*transpose(tuple(tangents))[0], *out)
