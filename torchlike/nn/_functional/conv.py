"""``torch.nn.functional`` convolution, pooling, resampling, padding, pixel and channel
shuffle, fold/unfold and grid sampling.

Each function mirrors the ``torch.nn.functional`` function of the same name (signature,
defaults, errors, autograd node names). Kernels live in ``_ops/nn_conv.py``,
``_ops/nn_pool.py`` and ``_ops/nn_resample.py``; those that
PyTorch exposes as ``torch.X`` (``conv2d``, ``max_pool2d``, ``avg_pool1d``,
``pixel_shuffle``...) are the same table ops.

Differences from PyTorch: ``interpolate(..., mode='lanczos')`` and
``interpolate(..., antialias=True)`` of ``uint8`` images (PyTorch's fixed-point kernel)
raise ``NotImplementedError``. With ``antialias=True`` and an output width of 1, PyTorch's
CPU kernel copies the first output row into every row; torchlike resamples each row (as
PyTorch does for the transposed image).
"""

from __future__ import annotations

import math
import warnings
from typing import Optional, Sequence, Union

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
           "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
           "pad", "unfold", "fold", "grid_sample",
           "affine_grid"]

_Size = Union[int, Sequence[int]]


# ---------------------------------------------------------------------------
# convolution
def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[_Size, str] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv1d``: input (N, C_in, L) or (C_in, L), weight
    (C_out, C_in/groups, k); ``padding`` may be ``'same'`` or ``'valid'``."""
    return call_op("conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[_Size, str] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv2d``: input (N, C_in, H, W) or (C_in, H, W),
    weight (C_out, C_in/groups, kH, kW).

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3)).shape
    torchlike.Size([1, 1, 2, 2])
    """
    return call_op("conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[_Size, str] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv3d``."""
    return call_op("conv3d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv_transpose1d``: weight (C_in, C_out/groups, k)."""
    return call_op("conv_transpose1d", input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv_transpose2d``."""
    return call_op("conv_transpose2d", input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.conv_transpose3d``."""
    return call_op("conv_transpose3d", input, weight, bias, stride, padding, output_padding,
                   groups, dilation)


# ---------------------------------------------------------------------------
# max pooling
def _stride(stride):
    return () if stride is None else stride


def max_pool1d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.max_pool1d_with_indices``: (values, int64 indices)."""
    return call_op("max_pool1d_with_indices", input, kernel_size, _stride(stride), padding,
                   dilation, ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.max_pool2d_with_indices``."""
    return call_op("max_pool2d_with_indices", input, kernel_size, _stride(stride), padding,
                   dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.max_pool3d_with_indices``."""
    return call_op("max_pool3d_with_indices", input, kernel_size, _stride(stride), padding,
                   dilation, ceil_mode)


def max_pool1d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Mirrors ``torch.nn.functional.max_pool1d`` over (N, C, L) or (C, L);
    ``stride`` defaults to ``kernel_size``. With ``return_indices`` returns (values,
    indices)."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call_op("max_pool1d", input, kernel_size, _stride(stride), padding, dilation,
                   ceil_mode)


def max_pool2d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Mirrors ``torch.nn.functional.max_pool2d`` over (N, C, H, W) or (C, H, W).

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> F.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call_op("max_pool2d", input, kernel_size, _stride(stride), padding, dilation,
                   ceil_mode)


def max_pool3d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Mirrors ``torch.nn.functional.max_pool3d``."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return call_op("max_pool3d", input, kernel_size, _stride(stride), padding, dilation,
                   ceil_mode)


def _ntuple(v, n: int) -> list:
    if isinstance(v, (list, tuple)):
        v = list(v)
        return v * n if len(v) == 1 else v
    return [v] * n


def _unpool_output_size(input: Tensor, kernel_size, stride, padding, output_size) -> list:
    """PyTorch's ``_unpool_output_size`` (same checks and messages)."""
    input_size = input.size()
    default_size = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d]
                    - 2 * padding[d] for d in range(len(kernel_size))]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(
                "output_size should be a sequence containing "
                f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length "
                f"of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f"between {min_size} and {max_size})")
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise RuntimeError("max_unpooling: output_size must contain non-negative spatial "
                               f"dimensions, but got output_size[{d}]={ret[d]}")
    return [int(r) for r in ret]


def _unpool_args(nd, kernel_size, stride, padding):
    k = _ntuple(kernel_size, nd)
    s = _ntuple(stride, nd) if stride is not None else k
    return k, s, _ntuple(padding, nd)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.max_unpool1d`` (through ``max_unpool2d``, as PyTorch)."""
    k, s, p = _unpool_args(1, kernel_size, stride, padding)
    osz = _unpool_output_size(input, k, s, p, output_size) + [1]
    return call_op("max_unpool2d", input.unsqueeze(-1), indices.unsqueeze(-1),
                   osz).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.max_unpool2d``: scatter ``input`` at ``indices``
    (from ``max_pool2d(..., return_indices=True)``) into zeros."""
    k, s, p = _unpool_args(2, kernel_size, stride, padding)
    return call_op("max_unpool2d", input, indices,
                   _unpool_output_size(input, k, s, p, output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.max_unpool3d``."""
    k, s, p = _unpool_args(3, kernel_size, stride, padding)
    return call_op("max_unpool3d", input, indices,
                   _unpool_output_size(input, k, s, p, output_size))


# ---------------------------------------------------------------------------
# average pooling
def avg_pool1d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mirrors ``torch.nn.functional.avg_pool1d`` (``torch.avg_pool1d``)."""
    return call_op("avg_pool1d", input, kernel_size, _stride(stride), padding, ceil_mode,
                   count_include_pad)


def avg_pool2d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.avg_pool2d``."""
    return call_op("avg_pool2d", input, kernel_size, _stride(stride), padding, ceil_mode,
                   count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.avg_pool3d``."""
    return call_op("avg_pool3d", input, kernel_size, _stride(stride), padding, ceil_mode,
                   count_include_pad, divisor_override)


# ---------------------------------------------------------------------------
# adaptive pooling
def _adaptive_size(input: Tensor, output_size, nd: int):
    """``None`` entries keep the input's size (PyTorch's ``_list_with_default``)."""
    if isinstance(output_size, int):
        return output_size
    osz = list(output_size)
    if len(osz) != nd:
        return osz
    return [input.shape[input.dim() - nd + i] if o is None else o for i, o in enumerate(osz)]


def adaptive_avg_pool1d(input: Tensor, output_size: _Size) -> Tensor:
    """Mirrors ``torch.nn.functional.adaptive_avg_pool1d``."""
    return call_op("adaptive_avg_pool1d", input, _adaptive_size(input, output_size, 1))


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Mirrors ``torch.nn.functional.adaptive_avg_pool2d``; ``None`` in ``output_size``
    keeps that dimension's size."""
    return call_op("adaptive_avg_pool2d", input, _adaptive_size(input, output_size, 2))


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Mirrors ``torch.nn.functional.adaptive_avg_pool3d``."""
    return call_op("adaptive_avg_pool3d", input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: _Size,
                                     return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.adaptive_max_pool1d_with_indices``."""
    return call_op("adaptive_max_pool1d", input, _adaptive_size(input, output_size, 1))


def adaptive_max_pool2d_with_indices(input: Tensor, output_size,
                                     return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.adaptive_max_pool2d_with_indices``."""
    return call_op("adaptive_max_pool2d", input, _adaptive_size(input, output_size, 2))


def adaptive_max_pool3d_with_indices(input: Tensor, output_size,
                                     return_indices: bool = False) -> tuple:
    """Mirrors ``torch.nn.functional.adaptive_max_pool3d_with_indices``."""
    return call_op("adaptive_max_pool3d", input, _adaptive_size(input, output_size, 3))


def adaptive_max_pool1d(input: Tensor, output_size: _Size, return_indices: bool = False):
    """Mirrors ``torch.nn.functional.adaptive_max_pool1d``."""
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Mirrors ``torch.nn.functional.adaptive_max_pool2d``."""
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Mirrors ``torch.nn.functional.adaptive_max_pool3d``."""
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


# ---------------------------------------------------------------------------
# power-average pooling
def _lp_pool(nd, input, norm_type, kernel_size, stride, ceil_mode):
    k = _ntuple(kernel_size, nd)
    maxp = (max_pool1d, max_pool2d, max_pool3d)[nd - 1]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.lp_pool1d``: ``(sum x^p)^(1/p)`` over windows."""
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: _Size,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.lp_pool2d``."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: _Size,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.lp_pool3d``."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# ---------------------------------------------------------------------------
# interpolate
def _is_integer(x) -> bool:
    if isinstance(x, Tensor):
        return not x.dtype.is_floating_point
    return isinstance(x, int)


_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.interpolate`` for modes ``nearest``,
    ``nearest-exact``, ``linear``, ``bilinear``, ``bicubic``, ``trilinear`` and ``area``,
    with ``size`` or ``scale_factor``, ``align_corners`` and ``recompute_scale_factor``.
    ``antialias=True`` (bilinear and bicubic, 4-D float32/float64 input) is PyTorch's
    separable antialiased kernel (see Note [Antialiased resampling] in
    ``_ops/nn_resample.py``); for ``uint8`` input it raises ``NotImplementedError``, as
    does ``mode='lanczos'``. Where PyTorch's CPU antialias kernel gives every row the first
    row's value (an output width of 1), torchlike resamples each row.

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> x = torch.arange(16.).reshape(1, 1, 4, 4)
    >>> F.interpolate(x, size=2, mode='bilinear', antialias=True)
    tensor([[[[ 3.5714,  5.1429],
              [ 9.8571, 11.4286]]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, "
                                "int] or Tuple[int, int, int], but got size with types "
                                f"{[type(x) for x in size]}")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(float(input.shape[i + 2]) * scale_factors[i])
                       for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos":
        raise NotImplementedError("interpolate: mode='lanczos' is not supported by torchlike")
    if antialias and input.dtype.name == "uint8":
        raise NotImplementedError("interpolate: antialias=True is not supported by torchlike "
                                  "for uint8 input (PyTorch uses a fixed-point kernel); "
                                  "convert to float32 first")
    if output_size is None:
        output_size = [int(math.floor(input.shape[i + 2] * scale_factors[i]))
                       for i in range(dim)]
    wanted = {"nearest": None, "nearest-exact": None, "area": None, "linear": 3,
              "bilinear": 4, "trilinear": 5, "bicubic": 4}
    if mode not in wanted or input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
            f"for the modes: {_MODES} (got {mode})")
    need = wanted[mode]
    if need is not None and input.dim() != need:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{need}D input")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](
            input, output_size)
    if any(o <= 0 for o in output_size):
        def sizes(v):
            return ", ".join(f"{a}: {n}" for a, n in zip("DHW"[3 - dim:], v))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({sizes(input.shape[2:])}){' and' if dim == 1 else ''} output "
                           f"({sizes(output_size)})")
    kmode = "cubic" if mode == "bicubic" else mode
    if antialias:
        kmode = "linear_aa" if mode == "bilinear" else "cubic_aa"
    return call_op("upsample", input, output_size, kmode,
                   align_corners if mode not in ("nearest", "nearest-exact") else None,
                   scale_factors)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """Mirrors the deprecated ``torch.nn.functional.upsample`` (warns, then
    ``interpolate``)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Mirrors the deprecated ``torch.nn.functional.upsample_nearest``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Mirrors the deprecated ``torch.nn.functional.upsample_bilinear``
    (``align_corners=True``)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------
# pixel shuffle
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Mirrors ``torch.nn.functional.pixel_shuffle``: (*, C*r^2, H, W) -> (*, C, H*r, W*r)."""
    return call_op("pixel_shuffle", input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Mirrors ``torch.nn.functional.pixel_unshuffle``: the inverse of ``pixel_shuffle``."""
    return call_op("pixel_unshuffle", input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Mirrors ``torch.nn.functional.channel_shuffle`` (``torch.channel_shuffle``):
    (N, g*k, *) -> (N, k*g, *), channel ``j*g + i`` taken from channel ``i*k + j``.

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> F.channel_shuffle(torch.arange(4.).reshape(1, 4, 1), 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    return call_op("channel_shuffle", input, groups)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Mirrors ``torch.nn.functional.native_channel_shuffle``: as ``channel_shuffle``, but
    without a derivative (backward through it raises, as in PyTorch)."""
    return call_op("native_channel_shuffle", input, groups)


# ---------------------------------------------------------------------------
# padding
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: Optional[float] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.pad``. ``pad`` lists (left, right) pairs starting from
    the last dimension; ``mode`` is ``'constant'`` (negative padding crops),
    ``'reflect'``, ``'replicate'`` or ``'circular'``.

    >>> import torchlike as torch, torchlike.nn.functional as F
    >>> F.pad(torch.ones(1, 2), (1, 2)).tolist()
    [[0.0, 1.0, 1.0, 0.0, 0.0]]
    """
    pad = [int(p) for p in pad]
    if mode == "constant":
        return call_op("constant_pad_nd", input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    kinds = {"reflect": "reflection_pad", "replicate": "replication_pad",
             "circular": "circular_pad"}
    if mode not in kinds:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    n = len(pad) // 2
    if n not in (1, 2, 3) or input.dim() not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    return call_op(f"{kinds[mode]}{n}d", input, pad)


# ---------------------------------------------------------------------------
# unfold / fold
def unfold(input: Tensor, kernel_size: _Size, dilation: _Size = 1, padding: _Size = 0,
           stride: _Size = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.unfold`` (im2col): (N, C, H, W) -> (N, C*kH*kW, L)."""
    return call_op("im2col", input, _ntuple(kernel_size, 2), _ntuple(dilation, 2),
                   _ntuple(padding, 2), _ntuple(stride, 2))


def fold(input: Tensor, output_size: _Size, kernel_size: _Size, dilation: _Size = 1,
         padding: _Size = 0, stride: _Size = 1) -> Tensor:
    """Mirrors ``torch.nn.functional.fold`` (col2im): sums overlapping blocks."""
    return call_op("col2im", input, _ntuple(output_size, 2), _ntuple(kernel_size, 2),
                   _ntuple(dilation, 2), _ntuple(padding, 2), _ntuple(stride, 2))


# ---------------------------------------------------------------------------
# grid sampling
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Optional[bool] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.grid_sample`` for 4-D and 5-D inputs, modes
    ``'bilinear'``, ``'nearest'`` and ``'bicubic'`` (4-D only), padding ``'zeros'``,
    ``'border'``, ``'reflection'``."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    m = {"bilinear": 0, "nearest": 1, "bicubic": 2}[mode]
    p = {"zeros": 0, "border": 1, "reflection": 2}[padding_mode]
    return call_op("grid_sampler", input, grid, m, p, bool(align_corners))


def affine_grid(theta: Tensor, size: Sequence[int],
                align_corners: Optional[bool] = None) -> Tensor:
    """Mirrors ``torch.nn.functional.affine_grid``: the sampling grid (N, H, W, 2) or
    (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3) or (N, 3, 4)."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    size = [int(s) for s in size]
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return call_op("affine_grid_generator", theta, size, bool(align_corners))
