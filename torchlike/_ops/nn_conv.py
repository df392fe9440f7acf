"""nn kernels: convolution (``conv1d``/``2d``/``3d``, ``conv_transpose1d``/``2d``/``3d``)
and im2col/col2im (the kernels of ``F.unfold``/``F.fold``), declared in the op table.

The convolutions are public functions, as ``torch.conv2d`` is; ``im2col``/``col2im``,
which PyTorch keeps in ``torch._C._nn``, are declared with ``function=False,
method=False`` and reached through ``torchlike.nn.functional``. Pooling is in
nn_pool.py; resampling, padding, pixel shuffle and grid sampling in nn_resample.py.

# Convolutions lower through ``nn_conv_lowering.py``: lax.conv, or matmuls where those
# measured faster on CPU; see Note [Convolution lowering on CPU] there.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import shape_str
from .nn_common import _nt, _title
from .nn_conv_lowering import conv_forward, conv_transpose_forward, stacked_windows
from .samples import S, arr, with_atol
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# convolution
def _conv_pads(padding, ksize, dilation) -> list:
    if padding == "valid":
        return [(0, 0)] * len(ksize)
    if padding == "same":
        out = []
        for k, d in zip(ksize, dilation):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))
        return out
    return [(p, p) for p in _nt(padding, len(ksize))]


def _conv_fn(nd: int):
    def fn(input, weight, bias, stride, padding, dilation, groups):
        unb = input.ndim == nd + 1
        x = input[None] if unb else input
        dil = _nt(dilation, nd)
        y = conv_forward(x, weight, bias, _nt(stride, nd),
                         _conv_pads(padding, weight.shape[2:], dil), dil, groups)
        return y[0] if unb else y
    return fn


def _conv_transpose_fn(nd: int):
    def fn(input, weight, bias, stride, padding, output_padding, groups, dilation):
        unb = input.ndim == nd + 1
        x = input[None] if unb else input
        y = conv_transpose_forward(x, weight, bias, _nt(stride, nd), _nt(padding, nd),
                                   _nt(output_padding, nd), groups, _nt(dilation, nd))
        return y[0] if unb else y
    return fn


def _check_len(name: str, v, nd: int) -> tuple:
    t = _nt(v, nd)
    if len(t) != nd:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {nd} "
                           f"values to match the convolution dimensions, but got {name}="
                           f"{list(_nt(v, len(t)))}")
    return t


def _conv_check(nd: int, transposed: bool):
    opname = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"

    def check(input, weight, bias=None, stride=1, padding=0, *rest):
        if transposed:
            output_padding, groups, dilation = (list(rest) + [0, 1, 1][len(rest):])[:3]
        else:
            dilation, groups = (list(rest) + [1, 1][len(rest):])[:2]
        for nm, v in (("input", input), ("weight", weight)):
            if not isinstance(v, Tensor):
                raise TypeError(f"{opname}() argument '{nm}' must be Tensor, not "
                                f"{type(v).__name__}")
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input "
                               f"to {opname}, but got input of size: {shape_str(input.shape)}")
        if weight.dim() != nd + 2:
            raise RuntimeError("weight should have at least three dimensions" if weight.dim() < 3
                               else f"Expected {nd + 2}-dimensional weight for {nd + 2}-"
                               f"dimensional input, but got {weight.dim()}-dimensional "
                               f"weight of size {shape_str(weight.shape)} instead")
        if input.dtype != weight.dtype:
            if input.dtype.is_floating_point and weight.dtype.is_floating_point:
                raise RuntimeError(f"expected scalar type {_title(input.dtype)} but found "
                                   f"{_title(weight.dtype)}")
            raise RuntimeError(f"Input type (torch.{_title(input.dtype)}Tensor) and weight type "
                               f"(torch.{_title(weight.dtype)}Tensor) should be the same")
        if bias is not None and isinstance(bias, Tensor) and bias.dtype != input.dtype:
            raise RuntimeError(f"Input type ({_dt.cpp_name(input.dtype)}) and bias type "
                               f"({_dt.cpp_name(bias.dtype)}) should be the same")
        if isinstance(padding, str):
            if transposed:
                raise TypeError(f"{opname}(): argument 'padding' must be tuple of ints, not str")
            if padding not in ("same", "valid"):
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        st = _check_len("stride", stride, nd)
        dil = _check_len("dilation", dilation, nd)
        pad = (0,) * nd if isinstance(padding, str) else _check_len("padding", padding, nd)
        if any(s <= 0 for s in st):
            raise RuntimeError("non-positive stride is not supported")
        if any(p < 0 for p in pad):
            raise RuntimeError("negative padding is not supported")
        if any(d <= 0 for d in dil):
            raise RuntimeError("dilation should be greater than zero")
        if not isinstance(groups, int) or groups <= 0:
            raise RuntimeError("non-positive groups is not supported")
        if padding == "same" and any(s != 1 for s in st):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        bshape = input.shape if input.dim() == nd + 2 else (1,) + tuple(input.shape)
        cin = bshape[1]
        w = shape_str(weight.shape)
        if transposed:
            op = _check_len("output_padding", output_padding, nd)
            if any(o >= s and o >= d for o, s, d in zip(op, st, dil)):
                names = ("depth", "height", "width")[3 - nd:] if nd > 1 else ("",)
                if nd == 1:
                    parts = [f"output_padding: {op[0]}", f"stride: {st[0]}",
                             f"dilation: {dil[0]}"]
                else:
                    parts = ([f"output_padding_{n}: {v}" for n, v in zip(names, op)] +
                             [f"stride_{n}: {v}" for n, v in zip(names, st)] +
                             [f"dilation_{n}: {v}" for n, v in zip(names, dil)])
                raise RuntimeError("output padding must be smaller than either stride or "
                                   "dilation, but got " + " ".join(parts))
            if cin != weight.shape[0]:
                raise RuntimeError(f"Given transposed=1, weight of size {w}, expected input"
                                   f"{shape_str(bshape)} to have {weight.shape[0]} channels, "
                                   f"but got {cin} channels instead")
            if weight.shape[0] % groups:
                raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                                   f"{groups} at dimension 0, but got weight of size {w} instead")
            cout = weight.shape[1] * groups
        else:
            if weight.shape[0] % groups:
                raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by "
                                   f"{groups} at dimension 0, but got weight of size {w} instead")
            if cin != weight.shape[1] * groups:
                raise RuntimeError(f"Given groups={groups}, weight of size {w}, expected input"
                                   f"{shape_str(bshape)} to have {weight.shape[1] * groups} "
                                   f"channels, but got {cin} channels instead")
            cout = weight.shape[0]
            pads = _conv_pads(padding, weight.shape[2:], dil)
            padded = [i + lo + hi for i, (lo, hi) in zip(bshape[2:], pads)]
            ksz = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dil)]
            if any(p < k for p, k in zip(padded, ksz)):
                raise RuntimeError(
                    f"Calculated padded input size per channel: ({' x '.join(map(str, padded))})"
                    f". Kernel size: ({' x '.join(map(str, ksz))}). Kernel size can't be greater "
                    "than actual input size")
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != cout):
            raise RuntimeError(f"Given weight of size {w}, expected bias to be 1-dimensional "
                               f"with {cout} elements, but got bias of size "
                               f"{shape_str(bias.shape)} instead")
    return check


def _conv_samples(nd: int, transposed: bool):
    def samples():
        sp = {1: (7,), 2: (6, 5), 3: (4, 5, 4)}[nd]
        k = (3,) * nd
        if transposed:
            return [
                S(arr(2, 4, *sp), arr(4, 3, *k), arr(3)),
                S(arr(2, 4, *sp), arr(4, 2, *k), None, 2, 1, 1, 2, rtol=1e-4, atol=1e-5),
                S(arr(4, *sp), arr(4, 3, *k), arr(3), stride=2, padding=1, dilation=2),
                S(arr(1, 2, *sp, dtype="float64"), arr(2, 2, *k, dtype="float64")),
            ]
        return [
            S(arr(2, 4, *sp), arr(3, 4, *k), arr(3), rtol=1e-4, atol=1e-5),
            S(arr(2, 4, *sp), arr(6, 2, *k), None, 2, 1, 1, 2, rtol=1e-4, atol=1e-5),
            S(arr(4, *sp), arr(3, 4, *k), padding="same", dilation=2, rtol=1e-4, atol=1e-5),
            S(arr(1, 2, *sp, dtype="float64"), arr(2, 2, *k, dtype="float64"), padding="valid"),
            S(arr(2, 3, *sp), arr(2, 4, *k)),            # channel mismatch: both raise
        ]
    return samples


def _conv_name(nd: int):
    # an unbatched input is unsqueezed, convolved and squeezed back, as in PyTorch
    def name(input, *rest):
        return "SqueezeBackward1" if input.dim() == nd + 1 else "ConvolutionBackward0"
    return name


for _nd in (1, 2, 3):
    register(OpSpec(
        f"conv{_nd}d", _conv_fn(_nd),
        "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",
        tensor_args=("input", "weight", "bias"), promote="none", method=False,
        grad_name=_conv_name(_nd), check=_conv_check(_nd, False),
        convolution=True,
        samples=_conv_samples(_nd, False),
        doc=f"Mirrors ``torch.conv{_nd}d`` (``torch.nn.functional.conv{_nd}d``)."))
    register(OpSpec(
        f"conv_transpose{_nd}d", _conv_transpose_fn(_nd),
        "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, "
        "dilation=1",
        tensor_args=("input", "weight", "bias"), promote="none", method=False,
        grad_name=_conv_name(_nd), check=_conv_check(_nd, True),
        convolution=True,
        samples=_conv_samples(_nd, True),
        doc=f"Mirrors ``torch.conv_transpose{_nd}d``."))


# ---------------------------------------------------------------------------
# im2col / col2im (unfold / fold)
def im2col(x, kernel_size, dilation, padding, stride):
    """(N, C, H, W) -> (N, C*kh*kw, L), PyTorch's ``im2col`` order."""
    x = jnp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    p, _ = stacked_windows(x, kernel_size, stride, dilation)
    n, c, k = p.shape[:3]
    return p.reshape(n, c * k, -1)


def _im2col_fn(input, kernel_size, dilation, padding, stride):
    unb = input.ndim == 3
    x = input[None] if unb else input
    y = im2col(x, _nt(kernel_size, 2), _nt(dilation, 2), _nt(padding, 2), _nt(stride, 2))
    return y[0] if unb else y


def _col2im_fn(input, output_size, kernel_size, dilation, padding, stride):
    unb = input.ndim == 2
    x = input[None] if unb else input
    k = _nt(kernel_size, 2)
    c = x.shape[1] // (k[0] * k[1])
    shape = jax.ShapeDtypeStruct((x.shape[0], c) + _nt(output_size, 2), x.dtype)
    fwd = jax.linear_transpose(
        lambda a: im2col(a, k, _nt(dilation, 2), _nt(padding, 2), _nt(stride, 2)), shape)
    (y,) = fwd(x)
    return y[0] if unb else y


def _blocks(size, k, d, p, s):
    return [(i + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for i, kk, dd, pp, ss in
            zip(size, k, d, p, s)]


def _im2col_check(input, kernel_size, dilation, padding, stride):
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{shape_str(input.shape)}")
    sz = input.shape[-2:]
    b = _blocks(sz, _nt(kernel_size, 2), _nt(dilation, 2), _nt(padding, 2), _nt(stride, 2))
    if any(x < 1 for x in b):
        k = _nt(kernel_size, 2)
        raise RuntimeError(f"Given input with spatial size ({sz[0]}, {sz[1]}), "
                           f"kernel_size=({k[0]}, {k[1]}), dilation={_nt(dilation, 2)}, "
                           f"padding={_nt(padding, 2)}, calculated shape of the array of sliding "
                           f"blocks as ({b[0]}, {b[1]}), but its components must be at least one.")


def _col2im_check(input, output_size, kernel_size, dilation, padding, stride):
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{shape_str(input.shape)}")
    k = _nt(kernel_size, 2)
    c = input.shape[-2]
    if c % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={c} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    b = _blocks(_nt(output_size, 2), k, _nt(dilation, 2), _nt(padding, 2), _nt(stride, 2))
    if b[0] * b[1] != input.shape[-1]:
        o = _nt(output_size, 2)
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation={_nt(dilation, 2)}, padding={_nt(padding, 2)}, "
                           f"stride={_nt(stride, 2)}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {b[0]} * {b[1]} = "
                           f"{b[0] * b[1]}, but got input.size(2)={input.shape[-1]}.")


register(OpSpec("im2col", _im2col_fn, "input, kernel_size, dilation, padding, stride",
                promote="none", method=False, function=False, saves=False,
                grad_name="Im2ColBackward0", check=_im2col_check,
                doc="Mirrors ``torch._C._nn.im2col`` (``F.unfold``)."))
register(OpSpec("col2im", _col2im_fn,
                "input, output_size, kernel_size, dilation, padding, stride", promote="none",
                method=False, function=False, saves=False, grad_name="Col2ImBackward0",
                check=_col2im_check, doc="Mirrors ``torch._C._nn.col2im`` (``F.fold``)."))


# Long float32 sums: XLA's and PyTorch's convolutions accumulate in different orders.
for _name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d"):
    with_atol(_name, 1e-5)
