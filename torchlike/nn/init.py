"""``torchlike.nn.init``: in-place initialisers mirroring ``torch.nn.init``.

Every function fills its tensor in place under ``no_grad`` (so it works on parameters
that require grad, and through views) and returns it. Random ones draw from
``generator`` (the default torchlike generator when None): the distributions, bounds and
fan computations are PyTorch's, the individual values are not (another generator).
"""

from __future__ import annotations

import math
import warnings
from typing import Callable, Literal

from .._core.grad_mode import no_grad
from .._core.random import Generator
from .._core.tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "uniform",
           "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_FanMode = Literal["fan_in", "fan_out"]


def _no_grad_uniform_(tensor: Tensor, a: float, b: float,
                      generator: Generator | None = None) -> Tensor:
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float,
                     generator: Generator | None = None) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def calculate_gain(nonlinearity: str, param: int | float | None = None) -> float:
    """Mirrors ``torch.nn.init.calculate_gain``: the recommended gain for a nonlinearity
    (``linear``/conv/``sigmoid`` 1, ``tanh`` 5/3, ``relu`` sqrt(2), ``leaky_relu``
    sqrt(2 / (1 + slope**2)), ``selu`` 3/4)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == "selu":
        return 3.0 / 4
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.uniform_``: fill with U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.normal_``: fill with N(mean, std²)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.trunc_normal_``: N(mean, std²) restricted to [a, b], by
    PyTorch's rejection sampling (redraw normals outside [a, b] when the interval holds
    enough mass, else uniform proposals on [a, b] accepted by the normal density)."""
    from .._ops.creation import empty_like
    import torchlike

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = tensor.new_tensor(a).item()
            hi = tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = torchlike.where(
                    mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            candidates = empty_like(tensor)
            accept_buf = empty_like(tensor)
            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = torchlike.where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = torchlike.where(
                        pending, accept_buf.uniform_(generator=generator).log_().gt(candidates),
                        pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Mirrors ``torch.nn.init.constant_``: fill with ``val``."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Mirrors ``torch.nn.init.ones_``."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Mirrors ``torch.nn.init.zeros_``."""
    return _no_grad_zero_(tensor)


def eye_(tensor: Tensor) -> Tensor:
    """Mirrors ``torch.nn.init.eye_``: the (rectangular) identity of a 2-D tensor."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._ops.creation import eye
    with no_grad():
        tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Mirrors ``torch.nn.init.dirac_``: the identity convolution kernel (per group) of a
    3-, 4- or 5-D tensor."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    import numpy as np
    from .._ops.creation import tensor as make_tensor
    a = np.zeros(tuple(sizes), dtype=np.float64)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            a[(g * out_chans_per_grp + d, d) + centre] = 1
    with no_grad():
        tensor.copy_(make_tensor(a, dtype=tensor.dtype))
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """PyTorch's fans: ``size(1) * receptive field`` and ``size(0) * receptive field``,
    the receptive field being the product of the dimensions after the second."""
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         "2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    fan_in = num_input_fmaps * receptive_field_size
    fan_out = num_output_fmaps * receptive_field_size
    return fan_in, fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.xavier_uniform_``: U(-a, a), a = gain * sqrt(6 / (fan_in +
    fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.xavier_normal_``: N(0, std²), std = gain * sqrt(2 /
    (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor: Tensor, mode: _FanMode) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: _FanMode = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.kaiming_uniform_``: U(-bound, bound), bound = gain *
    sqrt(3 / fan_mode)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: _FanMode = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.kaiming_normal_``: N(0, std²), std = gain /
    sqrt(fan_mode)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.orthogonal_``: a (semi-)orthogonal matrix (trailing
    dimensions flattened) from the QR decomposition of a Gaussian matrix, times
    ``gain``."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .. import linalg
    import torchlike
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            flattened = flattened.t()
        q, r = linalg.qr(flattened)
        d = torchlike.diag(r, 0)
        ph = d.sign()
        q = q * ph
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.nn.init.sparse_``: N(0, std²) with ``ceil(sparsity * rows)``
    randomly chosen zeros in every column of a 2-D tensor."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._ops.random import randperm
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = randperm(rows, generator=generator)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth: Callable) -> Callable:
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)
    deprecated_init.__doc__ = f"Deprecated alias of ``torch.nn.init.{new_name}``."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
