"""Batch normalisation with statistics over every rank of a process group: what
``SyncBatchNorm`` runs in training inside a ``torchlike.distributed`` run.

# Note [Synchronised batch statistics]
# As PyTorch's ``SyncBatchNorm`` (its ``batch_norm_gather_stats_with_counts`` and
# ``batch_norm_backward_reduce``): each rank computes its per-channel count, mean and
# biased variance; the ranks exchange them (``all_gather``) and merge them into the
# statistics of the union of their batches (the mean weighted by counts, the variance
# with the spread of the means added), which normalise the input and update the running
# statistics (unbiased with the total count). Backward all-reduces the per-channel
# sums of ``dy`` and ``dy * (x - mean)``; the weight and bias gradients stay local, as
# in PyTorch, and ``DistributedDataParallel`` averages them with the other gradients.
# So the ranks together compute what one process computes with ``BatchNorm`` on the
# concatenated batch.
"""

from __future__ import annotations

from typing import Any

import jax

from ... import distributed as dist
from ..._core.grad_mode import no_grad
from ...autograd.function import Function

__all__ = ["sync_batch_norm"]


def _reduce_dims(x) -> list:
    return [0] + list(range(2, x.dim()))


class _SyncBatchNorm(Function):
    # ``forward`` + ``setup_context``: inside a compiled step the tape's context is then
    # filled from the outputs, not by running the forward (and its collective) again
    @staticmethod
    def forward(input, weight, bias, eps, group):
        import torchlike as tl
        c = input.shape[1]
        dims = _reduce_dims(input)
        shape = [1, c] + [1] * (input.dim() - 2)
        mean_l = input.mean(dims)
        var_l = input.var(dims, correction=0)
        local = tl.stack([tl.full_like(mean_l, input.numel() // max(c, 1)), mean_l, var_l])
        rows = [tl.zeros_like(local) for _ in range(dist.get_world_size(group))]
        dist.all_gather(rows, local, group=group)
        g = tl.stack(rows)
        counts, means, variances = g[:, 0], g[:, 1], g[:, 2]
        n = counts.sum(0)
        total = 0 if not c else -1 if isinstance(n._value, jax.core.Tracer) else \
            int(n[0].item())   # a traced count is not known while tracing
        if 0 <= total <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got "
                             f"input size {total}")
        mean = (counts * means).sum(0) / n
        var = (counts * (variances + (means - mean) ** 2)).sum(0) / n
        invstd = (var + eps).rsqrt()
        out = (input - mean.view(shape)) * invstd.view(shape)
        if weight is not None:
            out = out * weight.view(shape)
        if bias is not None:
            out = out + bias.view(shape)
        return out, mean, invstd, n, var

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, group = inputs[0], inputs[1], inputs[4]
        _, mean, invstd, n, var = output
        ctx.mark_non_differentiable(mean, invstd, n, var)
        ctx.save_for_backward(input, weight, mean, invstd, n)
        ctx.group = group

    @staticmethod
    def backward(ctx, grad_out, *_):
        import torchlike as tl
        input, weight, mean, invstd, n = ctx.saved_tensors
        dims = _reduce_dims(input)
        shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
        xmu = input - mean.view(shape)
        sum_dy = grad_out.sum(dims)
        sum_dy_xmu = (grad_out * xmu).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[1] and weight is not None:
            grad_weight = sum_dy_xmu * invstd
        if ctx.needs_input_grad[2]:
            grad_bias = sum_dy
        if ctx.needs_input_grad[0]:
            both = tl.stack([sum_dy, sum_dy_xmu])
            dist.all_reduce(both, group=ctx.group)
            mean_dy, mean_dy_xmu = both[0] / n, both[1] / n
            scale = invstd if weight is None else invstd * weight
            grad_input = (grad_out - mean_dy.view(shape)
                          - xmu * (invstd * invstd * mean_dy_xmu).view(shape)) \
                * scale.view(shape)
        return grad_input, grad_weight, grad_bias, None, None


def sync_batch_norm(input, weight, bias, running_mean, running_var, eps: float,
                    momentum: Any, group) -> Any:
    """Training-mode batch norm over every rank of ``group`` (Note [Synchronised batch
    statistics]); ``running_mean``/``running_var`` (or None) are updated in place."""
    out, mean, _, n, var = _SyncBatchNorm.apply(input, weight, bias, eps, group)
    if running_mean is not None:
        # here rather than in the Function: inside a compiled step its forward is traced
        # apart, and the update must be part of the step
        with no_grad():
            running_mean.mul_(1 - momentum).add_(mean * momentum)
            running_var.mul_(1 - momentum).add_(var * (n / (n - 1)) * momentum)
    return out
