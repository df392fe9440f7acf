"""Running a user function inside a JAX transformation (``jax.vmap``, ``jax.jvp``), and
connecting the result to torchlike's eager autograd.

# Note [JAX transforms inside eager autograd]
# ``vmap``, ``jvp`` and ``jacfwd`` run the user's function on tensors that wrap JAX
# tracers, inside one pure function of JAX arrays (``pure``). Its explicit tensor inputs
# may require grad in the surrounding eager program (``vmap(f)(x)`` with ``x`` a leaf
# that requires grad, then ``loss.backward()``): the whole call is then recorded on the
# tape as one node, ``JaxCall``, whose backward is ``jax.vjp`` of ``pure``, itself run
# through ``JaxCall`` so that ``create_graph=True`` differentiates it again. The
# backward re-runs ``pure`` rather than keeping JAX's linearization from the forward:
# under tracing (``torchlike.compile``) the forward and backward are traced apart and a
# linearization would leak tracers. Random draws stay identical on the re-run because
# ``pure`` takes its PRNG key as an input (see ``rng_scope``).
#
# Tensors that are *not* inputs (a module's parameters closed over by the function) are
# JAX constants to ``pure``: no gradient can reach them. Eager autograd would record
# their use inside the transform on the tape with tracer values that die with it, so an
# output that requires grad inside the transform means a gradient PyTorch would compute
# is about to be lost: ``check_closed_over`` raises instead, naming the way out.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np

from .._core.grad_mode import is_grad_enabled, set_grad_enabled
from .._core.random import default_generator
from .._core.tensor import Tensor
from ..autograd.function import Function

__all__ = ["run_pure", "rng_scope", "draw_keys", "check_closed_over", "is_diff"]

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please "
                "either use the 'same' or 'different' randomness flags on vmap or perform "
                "the randomness operation out of vmap")


def is_diff(dt) -> bool:
    """Whether a torchlike dtype or NumPy dtype can carry gradients."""
    if hasattr(dt, "is_floating_point") and not callable(dt.is_floating_point):
        return dt.is_floating_point or dt.is_complex
    return bool(jnp.issubdtype(dt, jnp.inexact))


def _conj(a):
    return jnp.conj(a) if jnp.iscomplexobj(a) else a


class JaxCall(Function):
    """One tape node for ``pure(*arrays)``; see Note [JAX transforms inside eager
    autograd]."""

    @staticmethod
    def forward(ctx, pure, grad_mode, *inputs):
        ctx.pure = pure
        ctx.save_for_backward(*inputs)
        with set_grad_enabled(grad_mode):
            outs = pure(*[t._value for t in inputs])
        res = tuple(Tensor._wrap(o) for o in outs)
        ctx.mark_non_differentiable(*[r for r in res if not is_diff(r.dtype)])
        ctx.out_meta = [(tuple(o.shape), o.dtype) for o in outs]
        return res

    @staticmethod
    def backward(ctx, *grads):
        inputs = ctx.saved_tensors
        pure, out_meta = ctx.pure, ctx.out_meta
        n = len(inputs)
        diff = [i for i, t in enumerate(inputs) if is_diff(t.dtype)]
        diff_out = [k for k, (_, dt) in enumerate(out_meta) if is_diff(dt)]

        def pure_bwd(*arrs):
            prims, cts_in = arrs[:n], arrs[n:]

            def f_diff(*d):
                full = list(prims)
                for i, a in zip(diff, d):
                    full[i] = a
                return tuple(pure(*full))

            _, vjp = jax.vjp(f_diff, *[prims[i] for i in diff])
            it = iter(cts_in)
            cts = tuple(_conj(next(it)) if k in diff_out else np.zeros(s, jax.dtypes.float0)
                        for k, (s, _) in enumerate(out_meta))
            return tuple(_conj(g) for g in vjp(cts))

        cts = []
        for k in diff_out:
            g = grads[k]
            if g is None:
                shape, dt = out_meta[k]
                g = Tensor._wrap(jnp.zeros(shape, dt))
            cts.append(g)
        gin = JaxCall.apply(pure_bwd, is_grad_enabled(), *inputs, *cts)
        out = [None] * n
        for i, g in zip(diff, gin):
            out[i] = g
        return (None, None, *out)


def run_pure(pure, inputs: list, grad_mode: bool) -> list:
    """``pure`` applied to the inputs' arrays, as tensors; recorded as one tape node when
    grad mode is on and an input requires grad."""
    if grad_mode and any(t.requires_grad for t in inputs):
        return list(JaxCall.apply(pure, grad_mode, *inputs))
    return [Tensor._wrap(o) for o in pure(*[t._value for t in inputs])]


def check_closed_over(flat_out, api: str) -> None:
    """Raise when an output requires grad through tensors that are not inputs of the
    transform (Note [JAX transforms inside eager autograd])."""
    if not is_grad_enabled():
        return
    if any(isinstance(o, Tensor) and o.requires_grad for o in flat_out):
        raise RuntimeError(
            f"{api}: an output requires grad through tensors that are not inputs of the "
            "transform (for example a module's parameters used inside the function). "
            "Their gradients cannot flow back through it. Pass them as inputs (for a "
            "module: torchlike.func.functional_call(model, params, args) with params an "
            "argument of the transformed function), or call it under torchlike.no_grad() "
            "if no gradient is needed.")


def draw_keys(batch: int | None):
    """One draw from the default generator as an int64 tensor of key data: shape (2,),
    or (batch, 2) independent keys when ``batch`` is given."""
    key = default_generator._next_key()
    if batch is not None:
        key = jax.random.split(key, batch)
    return Tensor._wrap(jax.random.key_data(key).astype(jnp.int64))


@contextlib.contextmanager
def rng_scope(randomness: str, key):
    """Inside: the default generator draws from ``key`` (int64 key data, possibly a
    tracer), so draws are inputs of the pure function; with ``randomness='error'`` any
    draw raises PyTorch's vmap error. The generator's state is restored on exit."""
    gen = default_generator
    saved = gen._key, gen._counter
    if randomness != "error":
        gen._key = jnp.asarray(key).astype(jnp.uint32)
    gen._counter = 0
    try:
        yield
        if randomness == "error" and not (type(gen._counter) is int and gen._counter == 0):
            raise RuntimeError(RANDOM_ERROR)
    finally:
        gen._key, gen._counter = saved


def check_randomness_arg(randomness) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
