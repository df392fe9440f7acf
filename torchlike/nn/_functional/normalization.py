"""``torch.nn.functional`` normalization: ``batch_norm``, ``instance_norm``,
``layer_norm``, ``group_norm``, ``rms_norm``, ``local_response_norm``.

Each mirrors the ``torch.nn.functional`` function of the same name (signature, checks,
error texts, autograd node). Kernels live in ``_ops/nn_norm.py``. In training,
``batch_norm`` and ``instance_norm`` write the new running statistics into the
``running_mean``/``running_var`` tensors passed in (PyTorch's in-place update: momentum
``m`` gives ``(1 - m) * running + m * batch``, with the unbiased batch variance); see
Note [Stateful kernels stay pure] in ``_ops/nn_norm.py``.
"""

from __future__ import annotations

from typing import Sequence, Union

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op
from ..._ops.nn_common import refuse_grad

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
           "local_response_norm"]

_Shape = Union[int, Sequence[int]]


def _verify_batch_size(size) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def _verify_spatial_size(size) -> None:
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input "
                         f"size {size}")


def _stat_alias(t: Tensor | None) -> Tensor | None:
    # The kernel sees the statistics through an alias with its own version counter: the
    # buffers are overwritten right after the forward, which must not count as modifying
    # a tensor saved for backward (PyTorch's kernel updates them before saving).
    return None if t is None else t.data


def _write(buf: Tensor, new: Tensor) -> None:
    buf._set_value(new._value)


def _batch_norm_impl(input: Tensor, running_mean, running_var, weight, bias,
                     training: bool, momentum, eps: float) -> Tensor:
    """``torch.batch_norm`` without the Python-level checks of ``F.batch_norm``."""
    m = 0.0 if momentum is None else momentum
    # the statistics have no derivative: PyTorch refuses ones that require grad
    refuse_grad("native_batch_norm", running_mean=running_mean, running_var=running_var)
    out, new_mean, new_var = call_op("_native_batch_norm", input, weight, bias,
                                     _stat_alias(running_mean), _stat_alias(running_var), m,
                                     bool(training), float(eps))
    if training and running_mean is not None:
        _write(running_mean, new_mean)
    if training and running_var is not None:
        _write(running_var, new_var)
    return out


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Mirrors ``torch.nn.functional.batch_norm``: normalise over every dimension but the
    channel one (dim 1) with the batch statistics (``training``) or the running ones.
    In training, the running statistics are updated in place. ``momentum`` may also be
    a 0-d tensor (used by the layers for the cumulative average, so a compiled step
    does not read it on the host)."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm_impl(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Mirrors ``torch.nn.functional.instance_norm``: normalise each (sample, channel)
    over its spatial dimensions. With ``use_input_stats`` and running statistics, those
    are updated in place with the batch average of the per-instance statistics."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    refuse_grad("native_batch_norm", running_mean=running_mean, running_var=running_var)
    out, new_mean, new_var = call_op("_instance_norm", input, weight, bias,
                                     _stat_alias(running_mean), _stat_alias(running_var),
                                     0.0 if momentum is None else momentum,
                                     bool(use_input_stats), float(eps))
    if use_input_stats and running_mean is not None:
        _write(running_mean, new_mean)
    if use_input_stats and running_var is not None:
        _write(running_var, new_var)
    return out


def layer_norm(input: Tensor, normalized_shape: _Shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Mirrors ``torch.nn.functional.layer_norm``: normalise over the trailing
    ``normalized_shape`` dimensions (biased variance), then scale and shift."""
    return call_op("layer_norm", input, normalized_shape, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: _Shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """Mirrors ``torch.nn.functional.rms_norm``: ``x / sqrt(mean(x**2) + eps) * weight``
    over the trailing ``normalized_shape`` dimensions; ``eps=None`` is the machine
    epsilon of the computation dtype."""
    return call_op("rms_norm", input, normalized_shape, weight, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Mirrors ``torch.nn.functional.group_norm``: normalise each group of
    ``C / num_groups`` channels of every sample, then scale and shift per channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] +
                       list(input.size()[2:]))
    return call_op("group_norm", input, num_groups, weight, bias, eps)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Mirrors ``torch.nn.functional.local_response_norm``: divide by
    ``(k + alpha * mean of squares over size neighbouring channels) ** beta``."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    return call_op("_local_response_norm", input, int(size), float(alpha), float(beta),
                   float(k))
