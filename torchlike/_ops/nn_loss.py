"""nn kernels: losses and distances, declared in the op table.

Each kernel mirrors one ATen kernel that PyTorch differentiates as a whole (so its
autograd node has PyTorch's name, e.g. ``NllLossBackward0``). Losses
PyTorch builds from smaller ops (``l1_loss``, ``kl_div``, ``hinge_embedding_loss``, ...)
are composed from table ops in ``nn/_functional/loss.py`` instead, so their graphs match.

Most kernels are reachable only through ``torchlike.nn.functional`` (``function=False,
method=False``); those PyTorch also exposes as ``torch.X`` / ``Tensor.X`` are bound so.

# Note [Eager checks on values]
# PyTorch validates class indices (``Target 5 is out of bounds.``), probabilities and
# lengths while computing. Here those checks read the values on the host in eager mode
# and are skipped while tracing (jax would otherwise clamp an index silently).
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from ._common import check_broadcast, shape_str
from .elementwise import _abs, _logit
from .nn_common import (_c, _float_only, _float_promoted, _title, _zero, host, is_traced,
                        refuse_grad)
from .reduction import _vector_norm
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []

def _reduce(loss, reduction: str):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss



# ---------------------------------------------------------------------------
# distances
def pnorm(d, p, axis, keepdims=False):
    """``norm(d, p, axis)`` with PyTorch's norm_backward (first and second order): the
    one vector-norm kernel of ``_ops/reduction.py``."""
    return _vector_norm(d, float(p), (axis % d.ndim,), keepdims)


def _pdist(input, p=2.0):
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    if i.size == 0:
        return jnp.zeros((0,), input.dtype)
    return pnorm(input[i] - input[j], p, axis=-1)


def _pdist_check(input, p=2.0):
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")


register(OpSpec(
    "pdist", _pdist, "input, p=2", promote="none", method=False, check=_pdist_check,
    grad_name="PdistBackward0", doc="Mirrors ``torch.pdist`` (``F.pdist``): the distances "
    "between all row pairs i < j, in row-major order.",
    samples=lambda: [S(arr(4, 3)), S(arr(5, 2, dtype="float64"), 1.0), S(arr(3, 4), 3.0),
                     S(arr(4, 3), float("inf")), S(arr(1, 3)), S(arr(3, 3), p=0.0, grad=False)]))


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    nd = max(x1.ndim, x2.ndim)
    d = x1 - x2 + _c(eps, x1 - x2)
    if nd == 0:
        return pnorm(d.reshape(1), p, axis=0, keepdims=False) if not keepdim else \
            pnorm(d.reshape(1), p, axis=0, keepdims=True).reshape(())
    return pnorm(d, p, axis=nd - 1, keepdims=keepdim)


register(OpSpec(
    "pairwise_distance", _pairwise_distance, "x1, x2, p=2.0, eps=1e-06, keepdim=False",
    tensor_args=("x1", "x2"), promote="common", method=False,
    check=lambda x1, x2, *a: check_broadcast(x1, x2), grad_name="NormBackward1",
    doc="Mirrors ``torch.pairwise_distance``: ``norm(x1 - x2 + eps, p)`` over the last dim.",
    samples=lambda: [S(arr(3, 4), arr(3, 4)), S(arr(3, 4), arr(4), p=1.0),
                     S(arr(2, 5, dtype="float64"), arr(2, 5, dtype="float64"), 3.0, keepdim=True),
                     S(arr(3, 4), arr(3, 4), float("inf")), S(arr(4), arr(4))]))


def _cosine_similarity(x1, x2, dim=1, eps=1e-8):
    shape = jnp.broadcast_shapes(x1.shape, x2.shape)
    a, b = jnp.broadcast_to(x1, shape), jnp.broadcast_to(x2, shape)
    na = pnorm(a, 2, axis=dim, keepdims=True)
    nb = pnorm(b, 2, axis=dim, keepdims=True)
    # PyTorch clamps the norms in-place under no_grad: the clamp has no gradient
    na = na + jax.lax.stop_gradient(jnp.maximum(na, _c(eps, na)) - na)
    nb = nb + jax.lax.stop_gradient(jnp.maximum(nb, _c(eps, nb)) - nb)
    return jnp.sum((a / na) * (b / nb), axis=dim)


def _cos_check(x1, x2, dim=1, eps=1e-8):
    check_broadcast(x1, x2)
    from .._core.tensor import wrap_dim
    wrap_dim(dim, max(x1.dim(), x2.dim()))


def _cos_dtype(target, vals):
    return target if target.is_floating_point or target.is_complex else _dt.get_default_dtype()


register(OpSpec(
    "cosine_similarity", _cosine_similarity, "x1, x2, dim=1, eps=1e-08",
    tensor_args=("x1", "x2"), promote="common", method=False, check=_cos_check,
    grad_name="SumBackward1", extra={"adjust_dtype": _cos_dtype},
    doc="Mirrors ``torch.cosine_similarity``.",
    samples=lambda: [S(arr(3, 4), arr(3, 4)), S(arr(3, 4), arr(4), dim=1),
                     S(arr(2, 5, dtype="float64"), arr(2, 5, dtype="float64"), 0),
                     S(np.zeros((2, 3), np.float32), arr(2, 3)), S(arr(4), arr(4), 0)]))


def _one_hot(input, num_classes):
    return (input[..., None] == jnp.arange(num_classes, dtype=input.dtype)).astype(jnp.int64)


register(OpSpec(
    "one_hot", _one_hot, "input, num_classes", promote="none", function=False, method=False,
    differentiable=False, doc="Kernel of ``torch.nn.functional.one_hot`` (classes known).",
    samples=lambda: [S(np.array([0, 2, 1]), 3)]))


# ---------------------------------------------------------------------------
# losses with a kernel of their own
def _nll_loss(input, target, weight, reduction="mean", ignore_index=-100):
    if input.ndim == 1:
        logp, t = input[None], target[None]
    else:
        logp, t = jnp.moveaxis(input, 1, -1), target
    mask = t != ignore_index
    tc = jnp.where(mask, t, jnp.zeros((), t.dtype)).astype(jnp.int32)
    picked = jnp.take_along_axis(logp, tc[..., None], axis=-1)[..., 0]
    if weight is None:
        w = mask.astype(input.dtype)
    else:
        w = jnp.where(mask, weight.astype(input.dtype)[tc], _zero(input))
    loss = -picked * w
    if reduction == "none":
        return loss.reshape(target.shape)
    if reduction == "sum":
        return jnp.sum(loss)
    return jnp.sum(loss) / jnp.sum(w)


def check_class_targets(input, target, weight=None, ignore_index=-100):
    """PyTorch's nll_loss argument checks (shapes, dtypes, weight size, target range)."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and (target.dim() == 0 or input.shape[0] != target.shape[0]):
        tb = target.shape[0] if target.dim() else 1
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({tb}).")
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{_title(target.dtype)}")
    if input.dim() <= 2:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    else:
        want = (input.shape[0],) + tuple(input.shape[2:])
        if tuple(target.shape) != want:
            raise RuntimeError(f"Expected target size {shape_str(want)}, got "
                               f"{shape_str(target.shape)}")
    c = input.shape[0] if input.dim() == 1 else input.shape[1]
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_long(input.dtype)} but found "
                           f"{_long(weight.dtype)}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {shape_str(weight.shape)}")
    if not is_traced(target) and target.numel():
        t = host(target).astype(np.int64).reshape(-1)
        bad = t[(t != ignore_index) & ((t < 0) | (t >= c))]
        if bad.size:
            raise IndexError(f"Target {bad[0]} is out of bounds.")


def _long(d) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half",
            "bfloat16": "BFloat16"}.get(d.name, _title(d))


def _nll_check(input, target, weight=None, reduction="mean", ignore_index=-100):
    _float_only("nll_loss_forward_reduce_cuda_kernel_2d_index")(input)
    check_class_targets(input, target, weight, ignore_index)
    refuse_grad("nll_loss_forward", weight=weight)


register(OpSpec(
    "nll_loss", _nll_loss, "input, target, weight=None, reduction='mean', ignore_index=-100",
    tensor_args=("input", "target", "weight"), promote="none", function=False, method=False,
    check=_nll_check,
    grad_name=lambda *v: "NllLoss2DBackward0" if v[0].dim() > 2 else "NllLossBackward0",
    doc="Kernel of ``torch.nn.functional.nll_loss`` (``nll_loss_nd``): input ``(C)``, "
        "``(N, C)`` or ``(N, C, d1, ...)``; ``reduction`` is a string.",
    samples=lambda: [S(arr(3, 5), np.array([1, 0, 4])),
                     S(arr(3, 5), np.array([1, -100, 4]), None, "sum"),
                     S(arr(3, 5), np.array([1, 2, 4]), arr(5, positive=True), "none"),
                     S(arr(2, 3, 4, dtype="float64"), np.array([[0, 1, 2, 1], [2, 2, 0, 1]])),
                     S(arr(5), np.array(3)), S(arr(0, 5), np.zeros(0, np.int64))]))


def _mse_loss(input, target, reduction="mean"):
    d = input - target
    return _reduce(d * d, reduction)


def _loss_samples(extra=(), positive=False, target01=False):
    kw = dict(low=0.05, high=0.95) if target01 else {}
    return [S(arr(3, 4), arr(3, 4, **kw)), S(arr(3, 4), arr(3, 4, **kw), "sum"),
            S(arr(2, 3, dtype="float64"), arr(2, 3, dtype="float64", **kw), "none"),
            S(arr(), arr(**kw)), S(arr(0, 3), arr(0, 3, **kw))] + list(extra)


register(OpSpec(
    "mse_loss", _mse_loss, "input, target, reduction='mean'", tensor_args=("input", "target"),
    promote="common", function=False, method=False, grad_name="MseLossBackward0",
    check=lambda i, t, r="mean": (_float_promoted("mse_cpu")(i, t), check_broadcast(i, t)),
    doc="Kernel of ``torch.nn.functional.mse_loss``.",
    samples=lambda: _loss_samples([S(arr(3), arr(2, 3)),
                                   # the check is on the promoted dtype, as PyTorch's
                                   S(arr(3, 4), arr(3, 4, dtype="int64")),
                                   S(arr(3, dtype="int64"), arr(3), grad=False),
                                   S(arr(3, dtype="int64"), arr(3, dtype="int64"),
                                     grad=False)])))


def _smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    d = input - target
    z = _abs(d)
    b = _c(beta, z)
    # d * d (== z * z bit for bit) keeps the second derivative 1 / beta at d == 0; the
    # square sees 0 on the linear side, so an infinite difference gets that side's
    # gradient +-1 (PyTorch's) instead of 0 * inf, while a NaN one still gets NaN
    q = jnp.where(z >= b, _zero(d), d)
    return _reduce(jnp.where(z < b, 0.5 * q * q / b, z - 0.5 * b), reduction)


def _sl1_check(input, target, reduction="mean", beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _float_promoted("smooth_l1_cpu")(input, target)


register(OpSpec(
    "smooth_l1_loss", _smooth_l1_loss, "input, target, reduction='mean', beta=1.0",
    tensor_args=("input", "target"), promote="common", function=False, method=False,
    grad_name="SmoothL1LossBackward0", check=_sl1_check,
    doc="Kernel of ``torch.nn.functional.smooth_l1_loss``.",
    samples=lambda: _loss_samples([S(arr(3, 4), arr(3, 4), beta=0.5),
                                   S(arr(3, 4), arr(3, 4, dtype="int64")),
                                   S(arr(3, dtype="int64"), arr(3, dtype="int64"),
                                     grad=False)])))


def _huber_loss(input, target, reduction="mean", delta=1.0):
    diff = input - target
    z = _abs(diff)
    d = _c(delta, z)
    q = jnp.where(z >= d, _zero(diff), diff)   # as in _smooth_l1_loss
    return _reduce(jnp.where(z < d, 0.5 * q * q, d * (z - 0.5 * d)), reduction)


def _huber_check(input, target, reduction="mean", delta=1.0):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _float_promoted("huber_cpu", out_is_input=True)(input, target)


register(OpSpec(
    "huber_loss", _huber_loss, "input, target, reduction='mean', delta=1.0",
    tensor_args=("input", "target"), promote="common", function=False, method=False,
    grad_name="HuberLossBackward0", check=_huber_check,
    doc="Kernel of ``torch.nn.functional.huber_loss``.",
    samples=lambda: _loss_samples([S(arr(3, 4), arr(3, 4), delta=0.5),
                                   S(arr(3, 4), arr(3, 4, dtype="int64")),
                                   S(arr(3, dtype="int64"), arr(3), grad=False)])))


@jax.custom_jvp
def _bce_elem(input, target):
    lo = _c(-100.0, input)
    return (target - 1) * jnp.maximum(jnp.log1p(-input), lo) - \
        target * jnp.maximum(jnp.log(input), lo)


@_bce_elem.defjvp
def _bce_elem_jvp(primals, tangents):
    # PyTorch differentiates the clamped loss by formula, not through the clamp:
    # binary_cross_entropy_backward for the input (finite at 0 and 1, where the clamped
    # logs would give NaN) and binary_cross_entropy_target_backward, -logit(input)
    (x, t), (tx, tt) = primals, tangents
    return _bce_elem(x, t), tx * _bce_grad(x, t) + tt * -_logit(x)


@jax.custom_jvp
def _bce_grad(x, t):
    # binary_cross_entropy_backward: (input - target) / max(input (1 - input), 1e-12)
    return (x - t) / jnp.maximum(x * (1 - x), _c(1e-12, x))


@_bce_grad.defjvp
def _bce_grad_jvp(primals, tangents):
    # binary_cross_entropy_double_backward (input) and ..._double_backward_target
    (x, t), (tx, tt) = primals, tangents
    eps = _c(1e-12, x)
    # the barrier keeps XLA from folding (1 - x) + eps into (1 + eps) - x, which loses
    # eps in float32 (PyTorch: 1 - input + eps, rounded step by step)
    one_m = jax.lax.optimization_barrier(1 - x)
    gx = (x * x - 2 * x * t + t) / (jnp.square(x + eps) * jnp.square(one_m + eps))
    gt = -1 / jnp.maximum(x * (1 - x), eps)
    return _bce_grad(x, t), tx * gx + tt * gt


def _bce(input, target, weight, reduction="mean"):
    loss = _bce_elem(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_check(input, target, weight=None, reduction="mean"):
    _float_only("binary_cross_entropy", (0, 1))(input, target)
    refuse_grad("binary_cross_entropy", weight=weight)
    if not is_traced(input) and input.numel():
        v = host(input)
        if not bool(np.all((v >= 0) & (v <= 1))):
            raise RuntimeError("all elements of input should be between 0 and 1")


register(OpSpec(
    "binary_cross_entropy", _bce, "input, target, weight=None, reduction='mean'",
    tensor_args=("input", "target", "weight"), promote="common", function=False, method=False,
    grad_name="BinaryCrossEntropyBackward0", check=_bce_check,
    doc="Kernel of ``torch.nn.functional.binary_cross_entropy`` (logs clamped at -100).",
    samples=lambda: [S(arr(3, 4, low=0.05, high=0.95), arr(3, 4, low=0, high=1)),
                     S(arr(3, 4, low=0.05, high=0.95), arr(3, 4, low=0, high=1),
                       arr(3, 4, positive=True), "sum"),
                     S(np.array([0.0, 1.0, 0.5], np.float32), np.array([1.0, 0.0, 0.5],
                                                                       np.float32), grad=False,
                       reduction="none")]))


def _bce_logits(input, target, weight, pos_weight, reduction="mean"):
    log_sig = jax.nn.log_sigmoid(input)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


register(OpSpec(
    "binary_cross_entropy_with_logits", _bce_logits,
    "input, target, weight=None, pos_weight=None, reduction='mean'",
    tensor_args=("input", "target", "weight", "pos_weight"), promote="common",
    function=False, method=False, grad_name="BinaryCrossEntropyWithLogitsBackward0",
    check=lambda i, t, *a: (_float_only("binary_cross_entropy_with_logits", (0, 1))(i, t),
                            check_broadcast(*[v for v in (i, t) + tuple(a[:2])
                                              if v is not None]),
                            refuse_grad("binary_cross_entropy_with_logits",
                                         pos_weight=a[1] if len(a) > 1 else None)),
    doc="Kernel of ``torch.nn.functional.binary_cross_entropy_with_logits``.",
    samples=lambda: [S(arr(3, 4), arr(3, 4, low=0, high=1)),
                     S(arr(3, 4), arr(3, 4, low=0, high=1), arr(4, positive=True),
                       arr(4, positive=True), "sum"),
                     S(arr(2, 3, dtype="float64"), arr(2, 3, low=0, high=1, dtype="float64"),
                       None, arr(3, positive=True, dtype="float64"), "none")]))


def _soft_margin(input, target, reduction="mean"):
    return _reduce(jnp.log1p(jnp.exp(-input * target)), reduction)


register(OpSpec(
    "soft_margin_loss", _soft_margin, "input, target, reduction='mean'",
    tensor_args=("input", "target"), promote="common", function=False, method=False,
    grad_name="SoftMarginLossBackward0",
    check=lambda i, t, r="mean": (check_broadcast(i, t),
                                  refuse_grad("soft_margin_loss", target=t)),
    doc="Kernel of ``torch.nn.functional.soft_margin_loss``.",
    samples=lambda: _loss_samples()))


def _multilabel_margin(input, target, reduction="mean"):
    x = input[None] if input.ndim == 1 else input
    t = (target[None] if target.ndim == 1 else target).astype(jnp.int32)
    c = x.shape[-1]
    valid = jnp.cumprod((t != -1).astype(jnp.int32), axis=-1).astype(bool)   # (N, C)
    tc = jnp.where(valid, t, 0)
    is_target = jnp.any(valid[:, :, None] & (tc[:, :, None] == jnp.arange(c)), axis=1)
    xy = jnp.take_along_axis(x, tc, axis=-1)                                 # (N, C)
    z = 1 - xy[:, :, None] + x[:, None, :]                                   # (N, j, i)
    keep = valid[:, :, None] & ~is_target[:, None, :]
    hinge = jnp.where(keep & (z > 0), z, _zero(z))
    loss = jnp.sum(hinge, axis=(1, 2)) / c
    if input.ndim == 1 and reduction == "none":
        return loss.reshape(())
    return _reduce(loss, reduction)


def _mlm_check(input, target, reduction="mean"):
    if input.dim() > 2 or tuple(input.shape) != tuple(target.shape):
        raise RuntimeError(f"inconsistent target size: {shape_str(target.shape)} for input "
                           f"of size: {shape_str(input.shape)}")
    if not is_traced(target) and target.numel():
        t = host(target)
        c = input.shape[-1]
        if bool(np.any((t < -1) | (t >= c))):
            raise RuntimeError("argument #2 'target' is out of range")


register(OpSpec(
    "multilabel_margin_loss", _multilabel_margin, "input, target, reduction='mean'",
    tensor_args=("input", "target"), promote="none", function=False, method=False,
    grad_name="MultilabelMarginLossBackward0", check=_mlm_check,
    doc="Kernel of ``torch.nn.functional.multilabel_margin_loss``.",
    samples=lambda: [S(arr(3, 5), np.array([[1, 2, -1, 0, 0], [4, -1, 2, 2, 2],
                                             [0, 1, 2, 3, 4]])),
                     S(arr(5), np.array([3, 0, -1, 1, 1]), "none"),
                     S(arr(2, 4, dtype="float64"), np.array([[1, 1, -1, 0], [-1, 0, 0, 0]]),
                       "sum")]))


def _multi_margin(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    x = input[None] if input.ndim == 1 else input
    t = (target.reshape(1) if input.ndim == 1 else target).astype(jnp.int32)
    c = x.shape[-1]
    xy = jnp.take_along_axis(x, t[:, None], axis=-1)
    z = _c(margin, x) - xy + x
    h = jnp.where(z > 0, z, _zero(z))
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.astype(x.dtype)[t][:, None]
    h = jnp.where(jnp.arange(c) == t[:, None], _zero(h), h)
    loss = jnp.sum(h, axis=-1) / c
    if input.ndim == 1 and reduction == "none":
        return loss.reshape(())
    return _reduce(loss, reduction)


def _mm_check(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    if input.dim() > 2 or (input.dim() == 2 and tuple(target.shape) != (input.shape[0],)):
        raise RuntimeError(f"inconsistent target size, expected {input.shape[0]} but got "
                           f"{shape_str(target.shape)}")
    if not is_traced(target) and target.numel():
        t = host(target)
        if bool(np.any((t < 0) | (t >= input.shape[-1]))):
            raise RuntimeError("target out of range")
    refuse_grad("multi_margin_loss", weight=weight)


register(OpSpec(
    "multi_margin_loss", _multi_margin,
    "input, target, p=1, margin=1.0, weight=None, reduction='mean'",
    tensor_args=("input", "target", "weight"), promote="none", function=False, method=False,
    grad_name="MultiMarginLossBackward0", check=_mm_check,
    doc="Kernel of ``torch.nn.functional.multi_margin_loss``.",
    samples=lambda: [S(arr(3, 5), np.array([1, 0, 4])),
                     S(arr(3, 5), np.array([1, 0, 4]), 2, 0.5, arr(5, positive=True), "sum"),
                     S(arr(4), np.array(2), reduction="none")]))


# ---------------------------------------------------------------------------
# CTC
def _lse(*xs):
    """log(sum(exp(x))) that is -inf (with zero gradients, never NaN) when all are -inf."""
    m = xs[0]
    for x in xs[1:]:
        m = jnp.maximum(m, x)
    finite = m > -jnp.inf
    ms = jnp.where(finite, m, jnp.zeros((), m.dtype))
    s = sum(jnp.exp(x - ms) for x in xs)
    s = jnp.where(finite, s, jnp.ones((), s.dtype))
    return jnp.where(finite, jnp.log(s) + ms, -jnp.inf)


def _ctc_nll(log_probs, targets, input_lengths, target_lengths, blank):
    """Per-sample negative log-likelihood, the alpha recursion over time with lax.scan.

    log_probs (T, N, C); targets (N, S) padded; lengths (N,)."""
    t_max, n, _ = log_probs.shape
    s_max = targets.shape[1]
    L = 2 * s_max + 1
    tg = targets.astype(jnp.int32)
    ext = jnp.full((n, L), blank, jnp.int32).at[:, 1::2].set(tg)             # l'
    prev2 = jnp.concatenate([jnp.full((n, 2), blank, jnp.int32), ext[:, :-2]], axis=1)
    skip = (ext != blank) & (ext != prev2) & (jnp.arange(L) >= 2)
    ninf = jnp.asarray(-jnp.inf, log_probs.dtype)
    tl_ = target_lengths.astype(jnp.int32)
    il = input_lengths.astype(jnp.int32)
    lp0 = jnp.take_along_axis(log_probs[0], ext, axis=1)                     # (N, L)
    s_idx = jnp.arange(L)
    alpha0 = jnp.where((s_idx == 0) | ((s_idx == 1) & (tl_[:, None] > 0)), lp0, ninf)

    def step(alpha, xs):
        lp_t, t = xs
        a1 = jnp.concatenate([jnp.full((n, 1), ninf), alpha[:, :-1]], axis=1)
        a2 = jnp.concatenate([jnp.full((n, 2), ninf), alpha[:, :-2]], axis=1)
        a2 = jnp.where(skip, a2, ninf)
        new = _lse(alpha, a1, a2) + jnp.take_along_axis(lp_t, ext, axis=1)
        new = jnp.where((t < il)[:, None], new, alpha)
        return new, None

    if t_max > 1:
        alpha, _ = jax.lax.scan(step, alpha0, (log_probs[1:], jnp.arange(1, t_max)))
    else:
        alpha = alpha0
    end = 2 * tl_
    last = jnp.take_along_axis(alpha, end[:, None], axis=1)[:, 0]
    before = jnp.take_along_axis(alpha, jnp.maximum(end - 1, 0)[:, None], axis=1)[:, 0]
    before = jnp.where(tl_ > 0, before, ninf)
    nll = -_lse(last, before)
    return jnp.where(il > 0, nll, jnp.where(tl_ > 0, jnp.inf, 0).astype(log_probs.dtype))


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
              zero_infinity=False):
    # Note [CTC gradient]
    # PyTorch's CTC backward returns exp(log_probs) - (posterior occupancy), i.e. the
    # gradient as if log_probs were log_softmax outputs (the two agree after a
    # log_softmax). It is the true gradient plus exp(log_probs) for t < input_length.
    @jax.custom_vjp
    def f(lp):
        return _ctc_nll(lp, targets, input_lengths, target_lengths, blank)

    def fwd(lp):
        out, vjp = jax.vjp(lambda z: _ctc_nll(z, targets, input_lengths, target_lengths,
                                              blank), lp)
        return out, (out, vjp, lp)

    def bwd(res, g):
        out, vjp, lp = res
        inf = jnp.isinf(out)
        if zero_infinity:
            g = jnp.where(inf, jnp.zeros((), g.dtype), g)
        (true_grad,) = vjp(g)
        t_mask = jnp.arange(lp.shape[0])[:, None] < input_lengths.astype(jnp.int32)[None, :]
        grad = true_grad + jnp.exp(lp) * (g * t_mask)[:, :, None]
        if not zero_infinity:
            # PyTorch's formula gives NaN (inf - inf) for an impossible alignment
            grad = jnp.where((inf[None, :] & t_mask)[:, :, None], jnp.nan, grad)
        return (grad,)

    f.defvjp(fwd, bwd)
    nll = f(log_probs)
    if zero_infinity:
        nll = jnp.where(jnp.isinf(nll), jnp.zeros((), nll.dtype), nll)
    return nll


register(OpSpec(
    "ctc_loss", _ctc_loss,
    "log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False",
    tensor_args=("log_probs", "targets", "input_lengths", "target_lengths"), promote="none",
    function=False, method=False, grad_name="CtcLossBackward0",
    doc="Kernel of ``torch.nn.functional.ctc_loss``: per-sample losses for log_probs "
        "``(T, N, C)`` and padded targets ``(N, S)``.",
    samples=lambda: [S(np.log(np.full((5, 2, 4), 0.25, np.float32)),
                       np.array([[1, 2], [3, 3]]), np.array([5, 4]), np.array([2, 1]))]))
