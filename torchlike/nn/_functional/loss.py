"""``torch.nn.functional`` losses.

Each function mirrors the ``torch.nn.functional`` function of the same name: signature
(including the deprecated ``size_average``/``reduce``), defaults, warnings, errors and
the autograd graph. Losses with an ATen kernel of their own call the kernels in
``_ops/nn_loss.py``; the others are composed from table ops the way PyTorch
composes them, so ``loss.grad_fn`` has PyTorch's name (``MeanBackward0`` for
``l1_loss``, ``NllLossBackward0`` for ``cross_entropy``, ...).
"""

from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np

from ... import _ops  # noqa: F401  (declares the table)
from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..._ops.autocast_policy import autocast_function
from ..._ops.dispatch import call_op
from ..._ops.nn_common import host, is_traced
from .activation import log_softmax, logsigmoid, pairwise_distance

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "multilabel_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "soft_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]


# ---------------------------------------------------------------------------
# reduction arguments (PyTorch's torch.nn._reduction)
def legacy_get_string(size_average: bool | None, reduce: bool | None,
                      emit_warning: bool = True) -> str:
    """Map the deprecated ``size_average``/``reduce`` pair to a ``reduction`` string,
    warning as PyTorch does."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", stacklevel=3)
    return ret


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return _check_reduction(reduction)


def _check_reduction(reduction: str) -> str:
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.", stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _apply_reduction(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _size(t: Tensor) -> str:
    return repr(t.size())


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({_size(target)}) that is different to the input "
                      f"size ({_size(input)}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def _broadcast(input: Tensor, target: Tensor):
    from ... import broadcast_tensors
    if input.shape == target.shape:
        return input, target
    return broadcast_tensors(input, target)


# ---------------------------------------------------------------------------
# classification
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.nll_loss``: input ``(C)``, ``(N, C)`` or
    ``(N, C, d1, ...)`` log-probabilities, target class indices."""
    reduction = _reduction(reduction, size_average, reduce)
    return _nll(input, target, weight, reduction, ignore_index)


def _nll(input: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    out = call_op("nll_loss", input, target, weight, reduction, ignore_index)
    if reduction == "none" and input.dim() in (3,) + tuple(range(5, 64)):
        # PyTorch reshapes such inputs to 4-D for nll_loss2d and views the result back
        out = out.view(tuple(target.shape))
    return out


@autocast_function("cross_entropy")
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Mirrors ``torch.nn.functional.cross_entropy``: ``log_softmax`` over the class dim
    followed by ``nll_loss`` for class indices, or ``-(target * log_softmax).sum`` for
    class probabilities (a target of the input's shape); optional label smoothing."""
    reduction = _reduction(reduction, size_average, reduce)
    class_dim = 0 if input.dim() == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {_long_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing,
                                    class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        return _cross_entropy_smooth(input, target, weight, reduction, ignore_index,
                                     label_smoothing, class_dim)
    if input.dim() == 0:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    logp = log_softmax(input, class_dim, dtype=None)
    return _nll(logp, target, weight, reduction, ignore_index)


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def _long_name(d) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(d.name, d.name)


def _weight_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim):
    n_classes = input.shape[class_dim]
    logp = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _weight_view(weight, input.dim(), class_dim)
    if reduction == "none":
        return -prod.sum(class_dim)
    total = -prod.sum()
    if reduction == "sum":
        return total
    if input.numel() == 0:
        return total * float("nan")
    return total / (input.numel() // n_classes)


def _cross_entropy_smooth(input, target, weight, reduction, ignore_index, label_smoothing,
                          class_dim):
    from ... import where
    n_classes = input.shape[class_dim]
    logp = log_softmax(input, class_dim)
    nll = _nll(logp, target, weight, reduction, ignore_index)
    ignore_mask = target == ignore_index
    if weight is not None:
        smooth = -(logp * _weight_view(weight, input.dim(), class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignore_mask, 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = where(ignore_mask, 0, target)
            ret = smooth.sum() / (weight[safe] * (~ignore_mask)).sum()
        else:
            ret = smooth.sum() / (~ignore_mask).sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.binary_cross_entropy`` (each log clamped at -100)."""
    reduction = _reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({_size(target)}) that is different to the "
                         f"input size ({_size(input)}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        from ... import broadcast_shapes
        weight = weight.expand(broadcast_shapes(target.size(), weight.size()))
    return call_op("binary_cross_entropy", input, target, weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.binary_cross_entropy_with_logits``; ``pos_weight``
    scales the positive term and broadcasts against the target."""
    reduction = _reduction(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Target size ({_size(target)}) must be the same as input size "
                         f"({_size(input)})")
    return call_op("binary_cross_entropy_with_logits", input, target, weight, pos_weight,
                   reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.multilabel_margin_loss`` (targets end at the first
    -1)."""
    reduction = _reduction(reduction, size_average, reduce)
    return call_op("multilabel_margin_loss", input, target, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.multilabel_soft_margin_loss``."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.multi_margin_loss`` (``p`` is 1 or 2)."""
    reduction = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return call_op("multi_margin_loss", input, target, p, margin, weight, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.soft_margin_loss``: ``log(1 + exp(-y x))``."""
    reduction = _reduction(reduction, size_average, reduce)
    return call_op("soft_margin_loss", input, target, reduction)


# ---------------------------------------------------------------------------
# regression
def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.mse_loss`` (warns when the sizes differ and then
    broadcasts; ``weight`` scales each squared error)."""
    _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is None:
        return call_op("mse_loss", input, target, reduction)
    ei, et = _broadcast(input, target)
    return _weighted((ei - et).pow(2), weight, input, reduction, "mean_by_weight")


def _weighted(errors, weight, input, reduction, mean_kind):
    from ... import sum as _sum
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    w = errors * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return _sum(w)
    if reduction == "mean":
        return _sum(w) / _sum(weight) if mean_kind == "mean_by_weight" else w.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     "'sum'.")


@autocast_function("l1_loss")
def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.l1_loss``: ``|input - target|`` reduced."""
    _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    ei, et = _broadcast(input, target)
    if weight is not None:
        return _weighted((ei - et).abs(), weight, input, reduction, "mean_by_weight")
    return _l1(ei, et, reduction)


def _l1(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    return _apply_reduction((input - target).abs(), reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Mirrors ``torch.nn.functional.smooth_l1_loss`` (``beta=0`` is ``l1_loss``)."""
    _warn_size(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    ei, et = _broadcast(input, target)
    if beta == 0.0:
        return _l1(ei, et, reduction)
    return call_op("smooth_l1_loss", ei, et, reduction, beta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.huber_loss``."""
    _warn_size(input, target)
    ei, et = _broadcast(input, target)
    if weight is None:
        return call_op("huber_loss", ei, et, _check_reduction(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(call_op("huber_loss", ei, et, "none", delta), weight, input, reduction,
                     "mean")


@autocast_function("kl_div")
def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.kl_div`` (``input`` in log space; ``'batchmean'``
    divides the sum by the batch size)."""
    from ... import exp, xlogy
    if size_average is not None or reduce is not None:
        red = legacy_get_string(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        red = "sum" if reduction == "batchmean" else _check_reduction(reduction)
    if log_target:
        out = exp(target) * (target - input)
    else:
        out = xlogy(target, target) - target * input
    out = _apply_reduction(out, red)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


@autocast_function("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.poisson_nll_loss`` (``full`` adds Stirling's term
    where ``target > 1``)."""
    from ... import exp, log
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_reduction(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.gaussian_nll_loss``: ``0.5 (log var + (x - y)^2 / var)``
    with ``var`` clamped to ``eps`` (the clamp passes gradients through, as PyTorch's
    in-place no-grad clamp does)."""
    from ... import any as _any, log, no_grad, ones_like, unsqueeze
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif not is_traced(var) and bool(_any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = unsqueeze(var, -1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():   # PyTorch's in-place clamp: the gradient passes through it
        var.clamp_(min=eps)
    loss = 0.5 * (log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)


# ---------------------------------------------------------------------------
# embeddings and ranking
@autocast_function("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.cosine_embedding_loss``."""
    from ... import where, zeros_like
    reduction = _reduction(reduction, size_average, reduce)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if tdim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = 1e-12
    prod_sum = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + eps
    mag2 = (input2 * input2).sum(tdim) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    out = where(target == 1, pos, zeros) + where(target == -1, neg, zeros)
    return _apply_reduction(out, reduction)


@autocast_function("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.margin_ranking_loss``:
    ``max(0, -y (x1 - x2) + margin)``."""
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_size(input1)}, input2: {_size(input2)}, "
                           f"target: {_size(target)} ")
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@autocast_function("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.hinge_embedding_loss``."""
    from ... import where, zeros_like
    reduction = _reduction(reduction, size_average, reduce)
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    out = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _apply_reduction(out, reduction)


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {p}D, "
                           f"and negative {n}D inputs")


@autocast_function("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.triplet_margin_loss``."""
    from ... import clamp_min, minimum
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction(clamp_min(margin + d_pos - d_neg, 0), reduction)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """Mirrors ``torch.nn.functional.triplet_margin_with_distance_loss`` (default distance:
    ``pairwise_distance``)."""
    from ... import clamp_min, minimum
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = minimum(d_neg, dist(positive, negative))
    return _apply_reduction(clamp_min(margin + d_pos - d_neg, 0), reduction)


# ---------------------------------------------------------------------------
# CTC
def _lengths(v, name: str, n: int) -> Tensor:
    from ... import tensor
    if isinstance(v, Tensor):
        t = v
    else:
        t = tensor(list(v) if isinstance(v, (list, tuple)) else v, dtype=_dt.int64)
    if t.dim() == 0:
        t = t.reshape(1)
    if t.numel() != n:
        raise RuntimeError(f"{name} must be of size batch_size")
    return t


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.ctc_loss``: log_probs ``(T, N, C)`` or ``(T, C)``,
    targets padded ``(N, S)`` or concatenated ``(sum(target_lengths),)``.

    The forward is the alpha recursion over time (``lax.scan``); the gradient w.r.t.
    log_probs is PyTorch's (see Note [CTC gradient] in ``_ops/nn_loss.py``).
    Concatenated targets are split on the host, so inside a compiled function pass
    padded targets."""
    from ... import tensor
    reduction = _check_reduction(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1 and not isinstance(target_lengths, (list, tuple)) and \
                (not isinstance(target_lengths, Tensor) or target_lengths.dim() == 0):
            targets = targets.unsqueeze(0)
    t_max, n, c = log_probs.shape
    il = _lengths(input_lengths, "input_lengths", n)
    tl = _lengths(target_lengths, "target_lengths", n)
    if blank < 0 or blank >= c:
        raise RuntimeError("blank must be in label range")
    traced = is_traced(il) or is_traced(tl) or is_traced(targets)
    if not traced:
        il_h, tl_h = host(il).astype(np.int64), host(tl).astype(np.int64)
        for i in range(n):
            if il_h[i] > t_max:
                raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but "
                                   f"got value {il_h[i]} (while checking arguments for "
                                   "ctc_loss_allocate_outputs)")
        if targets.dim() == 1:
            flat = host(targets).astype(np.int64)
            s_max = int(tl_h.max()) if n else 0
            padded = np.zeros((n, s_max), np.int64)
            off = 0
            for i in range(n):
                padded[i, :tl_h[i]] = flat[off:off + tl_h[i]]
                off += tl_h[i]
            targets = tensor(padded)
        elif n and tl_h.max(initial=0) > targets.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {int(tl_h.max())} at "
                               f"dimension 1, but got size {targets.shape[1]} for argument #2 "
                               "'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
    elif targets.dim() == 1:
        raise RuntimeError("ctc_loss with concatenated (1-D) targets needs the target lengths "
                           "on the host; inside a compiled function pass padded (N, S) "
                           "targets instead.")
    nll = call_op("ctc_loss", log_probs, targets, il, tl, blank, zero_infinity)
    if reduction == "mean":
        out = (nll / tl.clamp_min(1).to(nll.dtype)).mean()
    elif reduction == "sum":
        out = nll.sum()
    else:
        out = nll
    if unbatched and reduction == "none":
        out = out.squeeze(0)
    return out
