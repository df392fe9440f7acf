"""The chunked kernel of ``torch.nn.functional.linear_cross_entropy`` (``options`` given):
per-row losses of ``cross_entropy(input @ weight.T + bias, target)`` computed over
chunks of the batch, so that neither the forward nor the backward holds the whole
``(N, num_classes)`` logits (Note [Chunked linear cross entropy])."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .samples import S, arr
from .spec import OpSpec, register

__all__: list[str] = []

# Note [Chunked linear cross entropy]
# The batch is padded to a multiple of the chunk size (the padding rows are ignored
# targets) and reshaped to (chunks, chunk, in_features). The forward maps over the
# chunks (lax.map): each computes its (chunk, C) logits, their logsumexp and the target's
# logit, and keeps only the (chunk,) losses. The gradient is a custom_vjp that recomputes
# each chunk's logits in a lax.scan, turns them into softmax - one_hot scaled by the
# rows' upstream gradients and class weights, and accumulates the weight and bias
# gradients in the carry while emitting the input's gradient chunk by chunk: its
# residuals are the inputs, never the logits, so peak memory is one chunk's logits.
# float16/bfloat16 inputs are computed in float32, as PyTorch's default acc_dtype does
# on CPU. Unlike PyTorch's chunked op, whose backward consumes gradients it computed in
# the forward, this backward is an ordinary differentiable function: retain_graph works
# and a second derivative is the derivative of the backward.


def _acc_dtype(dtype):
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else dtype


def _linear_cross_entropy_rows(input, weight, target, bias, class_weight, ignore_index,
                               chunk):
    n, f = input.shape
    c = weight.shape[0]
    acc = _acc_dtype(input.dtype)
    chunks = max(1, -(-n // chunk))
    pad = chunks * chunk - n
    tgt = jnp.pad(target.astype(jnp.int64), (0, pad), constant_values=ignore_index)
    tgt = tgt.reshape(chunks, chunk)
    cw = (class_weight.astype(acc) if class_weight is not None else jnp.ones((c,), acc))
    b0 = bias if bias is not None else jnp.zeros((c,), input.dtype)

    def pieces(x):
        return jnp.pad(x, ((0, pad), (0, 0))).reshape(chunks, chunk, f)

    def logits_of(xc, w, b):
        return xc.astype(acc) @ w.astype(acc).T + b.astype(acc)

    def row_weights(tc):
        valid = tc != ignore_index
        safe = jnp.where(valid, tc, 0)
        return valid, safe, jnp.where(valid, cw[safe], jnp.zeros((), acc))

    def forward(x, w, b):
        def one(args):
            xc, tc = args
            z = logits_of(xc, w, b)
            _, safe, rw = row_weights(tc)
            picked = jnp.take_along_axis(z, safe[:, None], axis=1)[:, 0]
            return rw * (jax.nn.logsumexp(z, axis=1) - picked)

        losses = jax.lax.map(one, (pieces(x), tgt))
        return losses.reshape(-1)[:n].astype(input.dtype)

    def backward(x, w, b, g):
        gs = jnp.pad(g.astype(acc), (0, pad)).reshape(chunks, chunk)

        def step(carry, args):
            dw, db = carry
            xc, tc, gc = args
            z = logits_of(xc, w, b)
            _, safe, rw = row_weights(tc)
            dz = jax.nn.softmax(z, axis=1) - jax.nn.one_hot(safe, c, dtype=acc)
            dz = dz * (gc * rw)[:, None]
            return (dw + dz.T @ xc.astype(acc), db + dz.sum(0)), dz @ w.astype(acc)

        init = (jnp.zeros((c, f), acc), jnp.zeros((c,), acc))
        (dw, db), dx = jax.lax.scan(step, init, (pieces(x), tgt, gs))
        return (dx.reshape(-1, f)[:n].astype(x.dtype), dw.astype(w.dtype),
                db.astype(b.dtype))

    @jax.custom_vjp
    def rows(x, w, b):
        return forward(x, w, b)

    def fwd(x, w, b):
        return forward(x, w, b), (x, w, b)

    def bwd(res, g):
        return backward(*res, g)

    rows.defvjp(fwd, bwd)
    return rows(input, weight, b0)


register(OpSpec(
    "_linear_cross_entropy_rows", _linear_cross_entropy_rows,
    "input, weight, target, bias, class_weight, ignore_index, chunk",
    tensor_args=("input", "weight", "target", "bias", "class_weight"), promote="none",
    function=False, method=False,
    grad_name=("GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_"
               "no_reduction_defaultBackward"),
    doc="Per-row losses of ``cross_entropy(linear(input, weight, bias), target, "
        "weight=class_weight, reduction='none')`` over batch chunks of ``chunk`` rows.",
    samples=lambda: [S(arr(5, 3), arr(7, 3), np.array([0, 6, -100, 2, 2]), arr(7),
                       None, -100, 2)]))
