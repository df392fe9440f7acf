"""``torch.nn.functional`` activations, softmax family (with ``gumbel_softmax``),
distances and ``one_hot``.

Each function mirrors the ``torch.nn.functional`` function of the same name (signature,
defaults, warnings, errors, autograd node names). Kernels live in ``_ops/nn_activation.py``
(distances: ``_ops/nn_loss.py``); softmax/log_softmax, relu, sigmoid and tanh are the table
ops ``torch.X``.

``inplace=True`` writes the result into ``input`` with PyTorch's in-place rules (a leaf
that requires grad is refused); the autograd node keeps the out-of-place name
(``LeakyReluBackward0`` where PyTorch says ``LeakyReluBackward1``).
"""

from __future__ import annotations

import warnings

from ... import _ops  # noqa: F401  (declares the table)
from ..._core import dtype as _dt
from ..._core.dtype_info import finfo
from ..._core.tensor import Tensor
from ..._ops.bind import check_inplace_target, dtype_short_name, inplace_apply
from ..._ops.creation import zeros_like
from ..._ops.dispatch import call_op
from ..._ops.nn_common import host, is_traced
from ..._ops.random import rand

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish",
           "sigmoid", "tanh", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "softplus",
           "softsign", "softmax", "softmin", "log_softmax", "gumbel_softmax", "threshold",
           "threshold_", "glu",
           "tanhshrink", "softshrink", "hardshrink", "logsigmoid", "normalize",
           "cosine_similarity", "pairwise_distance", "pdist", "one_hot"]


def _maybe_inplace(input: Tensor, inplace: bool, name: str, *args) -> Tensor:
    if not inplace:
        return call_op(name, input, *args)
    check_inplace_target(input)
    return inplace_apply(input, call_op(name, input, *args), name + "_")


# ---------------------------------------------------------------------------
# rectifiers and friends
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.relu``: ``max(input, 0)``."""
    return input.relu_() if inplace else call_op("relu", input)


def relu_(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.relu_``."""
    return input.relu_()


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.hardtanh``: clamp to ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, "hardtanh", min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """Mirrors ``torch.nn.functional.hardtanh_``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.relu6`` (``hardtanh(input, 0, 6)``)."""
    return _maybe_inplace(input, inplace, "hardtanh", 0.0, 6.0)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.leaky_relu``."""
    return _maybe_inplace(input, inplace, "leaky_relu", negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """Mirrors ``torch.nn.functional.leaky_relu_``."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.prelu``: slopes ``weight`` (one, or one per channel)."""
    return call_op("prelu", input, weight)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.rrelu``. In training, each non-positive element is
    scaled by a slope drawn from ``U(lower, upper)`` (torchlike's generator, so the draws
    differ from PyTorch's); in evaluation the slope is ``(lower + upper) / 2``."""
    if training:
        from ... import empty_like, where
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f'"leaky_relu_cpu" not implemented for '
                                      f"'{_short(input.dtype)}'")
        r = empty_like(input.detach()).uniform_(lower, upper)
        noise = where(input.detach() <= 0, r, 1.0)
    else:
        noise = input.detach()
    if not inplace:
        return call_op("rrelu_with_noise", input, noise, lower, upper, training)
    check_inplace_target(input)
    return inplace_apply(input, call_op("rrelu_with_noise", input, noise, lower, upper,
                                        training), "rrelu_")


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.rrelu_``."""
    return rrelu(input, lower, upper, training, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.elu``."""
    return _maybe_inplace(input, inplace, "elu", alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Mirrors ``torch.nn.functional.elu_``."""
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.selu`` (an ELU with fixed scale and alpha)."""
    return _maybe_inplace(input, inplace, "selu")


def selu_(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.selu_``."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.celu``."""
    return _maybe_inplace(input, inplace, "celu", alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Mirrors ``torch.nn.functional.celu_``."""
    return celu(input, alpha, inplace=True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Mirrors ``torch.nn.functional.gelu`` (``approximate='none' | 'tanh'``)."""
    return call_op("gelu", input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.silu``: ``x * sigmoid(x)``."""
    return _maybe_inplace(input, inplace, "silu")


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.mish``: ``x * tanh(softplus(x))``."""
    return _maybe_inplace(input, inplace, "mish")


def sigmoid(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.sigmoid`` (``torch.sigmoid``)."""
    return call_op("sigmoid", input)


def tanh(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.tanh`` (``torch.tanh``)."""
    return call_op("tanh", input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.hardsigmoid``: ``relu6(x + 3) / 6``."""
    return _maybe_inplace(input, inplace, "hardsigmoid")


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.hardswish``: ``x * relu6(x + 3) / 6``."""
    return _maybe_inplace(input, inplace, "hardswish")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Mirrors ``torch.nn.functional.softplus``: ``log(1 + exp(beta x)) / beta``, linear
    where ``beta * x > threshold``."""
    return call_op("softplus", input, beta, threshold)


def softsign(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.softsign``: ``x / (|x| + 1)``."""
    return input / (input.abs() + 1)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.threshold``: ``x if x > threshold else value``."""
    return _maybe_inplace(input, inplace, "threshold", threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """Mirrors ``torch.nn.functional.threshold_``."""
    return _maybe_inplace(input, True, "threshold", threshold, value)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Mirrors ``torch.nn.functional.glu``: ``a * sigmoid(b)`` for the halves along ``dim``."""
    return call_op("glu", input, dim)


def tanhshrink(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.tanhshrink``: ``x - tanh(x)``."""
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Mirrors ``torch.nn.functional.softshrink``."""
    return call_op("softshrink", input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Mirrors ``torch.nn.functional.hardshrink`` (``torch.hardshrink``)."""
    return call_op("hardshrink", input, lambd)


def logsigmoid(input: Tensor) -> Tensor:
    """Mirrors ``torch.nn.functional.logsigmoid``: ``log(sigmoid(x))``, computed stably."""
    return call_op("log_sigmoid", input)


# ---------------------------------------------------------------------------
# softmax family
def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: _dt.dtype | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.softmax`` (warns and picks a dim when ``dim=None``)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return call_op("softmax", input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: _dt.dtype | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.softmin``: ``softmax(-input)``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return call_op("softmax", -input, dim)
    return call_op("softmax", -input.to(dtype), dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: _dt.dtype | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.log_softmax``."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return call_op("log_softmax", input, dim, dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """Mirrors ``torch.nn.functional.gumbel_softmax``: ``softmax((logits + g) / tau)``
    with ``g`` standard Gumbel noise (``-log`` of exponential samples). With ``hard=True``
    the result is the one-hot of each row's argmax, differentiated as the soft sample
    (``y_hard - y_soft.detach() + y_soft``). ``eps`` is deprecated and ignored (a warning).

    The noise comes from the default torchlike generator, one fresh draw per call
    (reproducible after ``torchlike.manual_seed``, also in compiled code); its values
    differ from PyTorch's (another generator), and an exponential sample that rounds to
    zero is raised to the smallest normal number so the noise stays finite.

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> F.gumbel_softmax(torch.zeros(2, 3), hard=True).sum(-1)
    tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not logits.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability "
                           "distribution. dtype must be a floating point but you specified "
                           f"{dtype_short_name(logits.dtype)}")
    u = rand(logits.shape, dtype=logits.dtype, device=logits.device)
    exponential = u.neg().log1p().neg().clamp_min(finfo(logits.dtype).tiny)
    gumbels = (logits + exponential.log().neg()) / tau   # ~Gumbel(logits, tau)
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------------------
# distances and normalisation
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.normalize``: ``input / max(||input||_p, eps)``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from ... import div
    return div(input, denom, out=out)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Mirrors ``torch.nn.functional.cosine_similarity`` (each norm clamped to ``eps``)."""
    return call_op("cosine_similarity", x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.pairwise_distance``: ``||x1 - x2 + eps||_p`` over the
    last dimension."""
    return call_op("pairwise_distance", x1, x2, p, eps, keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """Mirrors ``torch.nn.functional.pdist``."""
    return call_op("pdist", input, p)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Mirrors ``torch.nn.functional.one_hot``: an int64 tensor with a trailing class dim.

    ``num_classes=-1`` infers ``max + 1`` from the values, which needs them on the host:
    inside a compiled function pass ``num_classes`` explicitly."""
    if not isinstance(tensor, Tensor) or tensor.dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1 and tensor.numel() == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    if is_traced(tensor):
        if num_classes == -1:
            from ..._core.traced import concretization_error
            raise concretization_error()
    elif tensor.numel():
        v = host(tensor)
        if int(v.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(v.max()) + 1
        elif int(v.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return call_op("one_hot", tensor, int(num_classes))


def _short(d) -> str:
    from ..._ops.bind import dtype_short_name
    return dtype_short_name(d)

