"""nn kernels: convolution, pooling, resampling, padding, pixel shuffle, im2col/col2im and
grid sampling, declared in the op table.

Ops that PyTorch exposes as ``torch.X`` (``conv2d``, ``max_pool2d``, ``avg_pool1d``,
``pixel_shuffle``, ``constant_pad_nd``, ``grid_sampler``...) are public functions; the
kernels PyTorch keeps in ``torch._C._nn`` (``avg_pool2d``, ``upsample_bilinear2d``,
``reflection_pad2d``, ``im2col``...) are declared with ``function=False, method=False``
and reached through ``torchlike.nn.functional``.

# Convolutions lower through ``nn_conv_lowering.py``: lax.conv, or matmuls where those
# measured faster on CPU; see Note [Convolution lowering on CPU] there.
#
# Note [Pooling windows]
# Max pooling gathers each window's values onto a trailing axis (strided slices of the
# padded input for regular windows, a static gather for adaptive ones), takes the
# argmax and picks that element. Its gradient therefore goes to the first maximum of
# the window, as PyTorch's does, rather than being shared between tied elements (which
# is what differentiating ``max`` would do: after a ReLU ties are common).
# When the windows tile the input (kernel == stride, no padding or dilation: LeNet's and
# VGG's 2x2 pools) they are gathered by a reshape and a transpose instead of strided
# slices: the same window order, so the same values, indices and tie rule, and its
# gradient is a transpose rather than an overlap-add of padded slices. Under ``jax.jit``
# on CPU (``benchmarks/conv_lowering.py``), forward + backward of LeNet's first pool
# (64x6x28x28) took 0.75x the time of the slices (2.4 vs 3.2 ms, 2 threads), its second
# (64x16x10x10) the same; XLA's own ``reduce_window`` max is faster forward, but with its
# backward (select-and-scatter) it took 1.4-2x the time of either, so it is not used.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.tensor import Tensor
from ._common import shape_str
from .nn_conv_lowering import conv_forward, conv_transpose_forward, stacked_windows
from .samples import with_atol, S, arr
from .spec import OpSpec, register

__all__: list = []

def _nt(v, n: int) -> tuple:
    """PyTorch's ``_ntuple``: an int or a 1-element list is repeated ``n`` times."""
    if isinstance(v, (tuple, list)):
        v = tuple(v)
        return v * n if len(v) == 1 else v
    return (v,) * n


def _ctype(d) -> str:
    """c10's lower-case scalar type name: ``float``, ``double``, ``long``..."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int"}.get(d.name, d.name)


def _title(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


def _lowest(dtype):
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.array(-jnp.inf, dtype)
    if dtype == jnp.bool_:
        return jnp.array(False)
    return jnp.array(jnp.iinfo(dtype).min, dtype)


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
            raise RuntimeError(f"weight should have at least three dimensions" if weight.dim() < 3
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
            raise RuntimeError(f"Input type ({_ctype(input.dtype)}) and bias type "
                               f"({_ctype(bias.dtype)}) should be the same")
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
        grad_name=_conv_name(_nd), autocast="lower", check=_conv_check(_nd, False),
        samples=_conv_samples(_nd, False),
        doc=f"Mirrors ``torch.conv{_nd}d`` (``torch.nn.functional.conv{_nd}d``)."))
    register(OpSpec(
        f"conv_transpose{_nd}d", _conv_transpose_fn(_nd),
        "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, "
        "dilation=1",
        tensor_args=("input", "weight", "bias"), promote="none", method=False,
        grad_name=_conv_name(_nd), autocast="lower", check=_conv_check(_nd, True),
        samples=_conv_samples(_nd, True),
        doc=f"Mirrors ``torch.conv_transpose{_nd}d``."))


# ---------------------------------------------------------------------------
# pooling geometry
def pool_out_len(i: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's ``pooling_output_shape``."""
    num = i + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= i + p:
        o -= 1
    return o


def _pool_args(nd, kernel_size, stride, padding, dilation=1):
    k = _nt(kernel_size, nd)
    s = _nt(stride, nd) if stride not in (None, (), []) else k
    return k, s, _nt(padding, nd), _nt(dilation, nd)


def _pool_dim_check(name: str, nd: int, input, kernel_size, stride, padding, dilation,
                    ceil_mode, kind: str):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    dim = input.dim()
    if dim not in (nd + 1, nd + 2) or (kind != "max1" and input.numel() == 0 and
                                         any(s == 0 for s in input.shape[-nd - 1:])):
        if kind == "max1":
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with "
                               f"optional 0 dim batch size for input, but got:"
                               f"{shape_str(input.shape)}")
        if kind == "avg1":
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {dim}-dimensional tensor "
                               "for argument #1 'self' (while checking arguments for avg_pool1d)")
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected "
                           "for input")
    k, s, p, d = _pool_args(nd, kernel_size, stride, padding, dilation)
    for nm, v in (("kernel_size", k), ("stride", s), ("padding", p), ("dilation", d)):
        if len(v) != nd:
            raise RuntimeError(f"{name}: {nm} must either be a single int, or a tuple of "
                               f"{nd} ints")
    if any(x <= 0 for x in k):
        raise RuntimeError(f"kernel size should be greater than zero, but got "
                           + ", ".join(f"k{a}: {v}" for a, v in zip("dhw"[3 - nd:], k)))
    if any(x <= 0 for x in s):
        raise RuntimeError(f"stride should be greater than zero, but got "
                           + ", ".join(f"d{a}: {v}" for a, v in zip("dhw"[3 - nd:], s)))
    if any(x <= 0 for x in d):
        raise RuntimeError("dilation should be greater than zero")
    for kk, pp, dd in zip(k, p, d):
        if kind.startswith("max") and pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={dd}")
        if kind.startswith("avg") and pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation=1")
    spatial = tuple(input.shape[-nd:])
    outs = [pool_out_len(i, kk, ss, pp, dd, bool(ceil_mode))
            for i, kk, ss, pp, dd in zip(spatial, k, s, p, d)]
    if any(o < 1 for o in outs):
        c = input.shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + spatial))}). "
                           f"Calculated output size: ({'x'.join(map(str, [c] + outs))}). "
                           "Output size is too small")


# ---------------------------------------------------------------------------
# max pooling
def _tiling(k, s, p, d, outs, spatial) -> bool:
    """Whether the windows tile the input: kernel == stride, no padding or dilation, and
    every window inside it (see Note [Pooling windows])."""
    return (tuple(k) == tuple(s) and not any(p) and all(dd == 1 for dd in d)
            and all(o * kk <= i for o, kk, i in zip(outs, k, spatial)))


def _tiled_windows(x, k, outs):
    """Non-overlapping windows by a reshape: (..., o0*k0, o1*k1) -> (..., o0, o1, k0*k1)."""
    nd = len(k)
    lead = x.ndim - nd
    x = x[(Ellipsis,) + tuple(slice(0, o * kk) for o, kk in zip(outs, k))]
    x = x.reshape(x.shape[:lead] + tuple(v for o, kk in zip(outs, k) for v in (o, kk)))
    perm = (tuple(range(lead)) + tuple(lead + 2 * j for j in range(nd)) +
            tuple(lead + 2 * j + 1 for j in range(nd)))
    return jnp.transpose(x, perm).reshape(x.shape[:lead] + tuple(outs) + (-1,))


def _strided_windows(x, k, s, p, d, outs):
    """Each window offset as a strided slice of the padded input, stacked last."""
    nd = len(k)
    spatial = x.shape[-nd:]
    lead = x.ndim - nd
    hi = [max(0, (o - 1) * ss + dd * (kk - 1) + 1 - i - pp)
          for o, ss, dd, kk, i, pp in zip(outs, s, d, k, spatial, p)]
    xp = lax.pad(x, _lowest(x.dtype), [(0, 0, 0)] * lead +
                 [(pp, h, 0) for pp, h in zip(p, hi)])
    cols = []
    for offs in itertools.product(*[range(kk) for kk in k]):
        start = (0,) * lead + tuple(o * dd for o, dd in zip(offs, d))
        limit = xp.shape[:lead] + tuple(o * dd + (n - 1) * ss + 1
                                        for o, dd, n, ss in zip(offs, d, outs, s))
        cols.append(lax.slice(xp, start, limit, (1,) * lead + tuple(s)))
    return jnp.stack(cols, axis=-1)


def max_pool_with_indices(x, nd, kernel_size, stride, padding, dilation, ceil_mode):
    """Max pooling over the last ``nd`` dims; returns (values, int64 flat indices)."""
    k, s, p, d = _pool_args(nd, kernel_size, stride, padding, dilation)
    spatial = x.shape[-nd:]
    lead = x.ndim - nd
    outs = [pool_out_len(i, kk, ss, pp, dd, bool(ceil_mode))
            for i, kk, ss, pp, dd in zip(spatial, k, s, p, d)]
    if _tiling(k, s, p, d, outs, spatial):
        win = _tiled_windows(x, k, outs)
    else:
        win = _strided_windows(x, k, s, p, d, outs)
    kidx = jnp.argmax(win, axis=-1)
    vals = jnp.take_along_axis(win, kidx[..., None], axis=-1)[..., 0]
    flat = jnp.zeros(kidx.shape, jnp.int64)
    rem = kidx.astype(jnp.int64)
    for j in reversed(range(nd)):
        kd = rem % k[j]
        rem = rem // k[j]
        o = lax.broadcasted_iota(jnp.int64, kidx.shape, lead + j)
        pos = o * s[j] - p[j] + kd * d[j]
        flat = flat + pos * int(np.prod(spatial[j + 1:], dtype=np.int64))
    return vals, flat


def _max_pool_fn(nd: int, with_indices: bool):
    def fn(input, kernel_size, stride, padding, dilation, ceil_mode):
        v, i = max_pool_with_indices(input, nd, kernel_size, stride, padding, dilation,
                                     ceil_mode)
        return (v, i) if with_indices else v
    return fn


def _max_pool_check(nd: int, name: str, ints: bool = True):
    def check(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        if not ints and isinstance(input, Tensor) and not input.dtype.is_floating_point:
            raise NotImplementedError(f'"max_pool1d_impl" not implemented for '
                                      f"'{_title(input.dtype)}'")
        _pool_dim_check(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode,
                        "max1" if nd == 1 else "max")
    return check


def _pool_samples(nd: int, kind: str):
    def samples():
        sp = {1: (9,), 2: (7, 6), 3: (5, 6, 5)}[nd]
        out = [S(arr(2, 3, *sp), 2), S(arr(3, *sp), 3, 2, 1),
               S(arr(2, 2, *sp, dtype="float64"), 3, 2, 1, ceil_mode=True)]
        if kind == "max":
            out += [S(arr(2, 3, *sp), 2, 1, 0, 2), S(arr(1, 2, *sp), 3, 2, 1, 1, True),
                    S(arr(2, 3, *sp, dtype="int64"), 2, grad=False)]
        else:
            out += [S(arr(1, 2, *sp), 3, 2, 1, True, False)]
        return out
    return samples


for _nd in (1, 2, 3):
    _sig = "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False"
    _gname = "SqueezeBackward1" if _nd == 1 else f"MaxPool{_nd}DWithIndicesBackward0"
    register(OpSpec(f"max_pool{_nd}d", _max_pool_fn(_nd, False), _sig, method=False,
                    promote="none", grad_name=_gname,
                    check=_max_pool_check(_nd, f"max_pool{_nd}d", _nd != 1), samples=_pool_samples(_nd, "max"),
                    doc=f"Mirrors ``torch.max_pool{_nd}d``."))
    register(OpSpec(f"max_pool{_nd}d_with_indices", _max_pool_fn(_nd, True), _sig,
                    method=False, function=_nd == 1, promote="none", grad_name=_gname,
                    nondiff_outputs=(1,), check=_max_pool_check(_nd, f"max_pool{_nd}d"),
                    samples=_pool_samples(_nd, "max"),
                    doc=f"Mirrors ``torch.max_pool{_nd}d_with_indices``: (values, indices)."))


# ---------------------------------------------------------------------------
# average pooling
def _avg_divisor(spatial, k, s, p, outs, count_include_pad, divisor_override):
    div = np.ones(outs, np.int64)
    for j, (i, kk, ss, pp, o) in enumerate(zip(spatial, k, s, p, outs)):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, i + pp)
        full = end - start
        clipped = np.minimum(end, i) - np.maximum(start, 0)
        n = full if count_include_pad else clipped
        shape = [1] * len(outs)
        shape[j] = o
        div = div * n.reshape(shape)
    if divisor_override:
        div = np.full(outs, divisor_override, np.int64)
    return div


def avg_pool(x, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
             divisor_override):
    k, s, p, _ = _pool_args(nd, kernel_size, stride, padding)
    spatial = x.shape[-nd:]
    lead = x.ndim - nd
    outs = [pool_out_len(i, kk, ss, pp, 1, bool(ceil_mode))
            for i, kk, ss, pp in zip(spatial, k, s, p)]
    hi = [max(0, (o - 1) * ss + kk - i - pp) for o, ss, kk, i, pp in zip(outs, s, k, spatial, p)]
    acc = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.int64
    tot = lax.reduce_window(x.astype(acc), np.array(0, acc), lax.add,
                            (1,) * lead + k, (1,) * lead + s,
                            [(0, 0)] * lead + [(pp, h) for pp, h in zip(p, hi)])
    tot = tot[(Ellipsis,) + tuple(slice(0, o) for o in outs)]
    div = _avg_divisor(spatial, k, s, p, outs, count_include_pad, divisor_override)
    safe = np.where(div == 0, 1, div)
    if jnp.issubdtype(acc, jnp.floating):
        out = tot / jnp.asarray(safe, acc)
    else:
        out = lax.div(tot, jnp.asarray(safe, acc))
    if (div == 0).any():
        out = jnp.where(jnp.asarray(div == 0), jnp.zeros((), acc), out)
    return out.astype(x.dtype)


def _avg_fn(nd: int):
    if nd == 1:
        def fn(input, kernel_size, stride, padding, ceil_mode, count_include_pad):
            return avg_pool(input, 1, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, None)
        return fn

    def fn(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
           divisor_override):
        return avg_pool(input, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override)
    return fn


def _avg_check(nd: int):
    def check(input, kernel_size, stride=(), padding=0, ceil_mode=False,
              count_include_pad=True, divisor_override=None):
        _pool_dim_check(f"avg_pool{nd}d", nd, input, kernel_size, stride, padding, 1,
                        ceil_mode, "avg1" if nd == 1 else "avg")
        if divisor_override is not None and divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
    return check


register(OpSpec("avg_pool1d", _avg_fn(1), "input, kernel_size, stride=(), padding=0, "
                "ceil_mode=False, count_include_pad=True", method=False, promote="none",
                grad_name="SqueezeBackward1", check=_avg_check(1),
                samples=_pool_samples(1, "avg"), doc="Mirrors ``torch.avg_pool1d``."))
for _nd in (2, 3):
    register(OpSpec(f"avg_pool{_nd}d", _avg_fn(_nd), "input, kernel_size, stride=(), "
                    "padding=0, ceil_mode=False, count_include_pad=True, "
                    "divisor_override=None", method=False, function=False, promote="none",
                    grad_name=f"AvgPool{_nd}DBackward0", check=_avg_check(_nd),
                    doc=f"Mirrors ``torch._C._nn.avg_pool{_nd}d``."))


# ---------------------------------------------------------------------------
# adaptive pooling
def _adaptive_ranges(i: int, o: int):
    start = (np.arange(o) * i) // o
    end = -((-(np.arange(o) + 1) * i) // o)
    return start, end


def adaptive_avg(x, output_size):
    nd = len(output_size)
    for j, o in enumerate(output_size):
        ax = x.ndim - nd + j
        i = x.shape[ax]
        st, en = _adaptive_ranges(i, o)
        taps = int((en - st).max())
        cnt = (en - st).astype(np.float64)
        acc = None
        for t in range(taps):
            idx = np.minimum(st + t, i - 1)
            w = ((st + t) < en) / cnt
            term = jnp.take(x, jnp.asarray(idx), axis=ax) * jnp.asarray(
                w.reshape((-1,) + (1,) * (x.ndim - ax - 1)), x.dtype)
            acc = term if acc is None else acc + term
        x = acc
    return x


def adaptive_max_with_indices(x, output_size):
    nd = len(output_size)
    lead = x.ndim - nd
    spatial = x.shape[lead:]
    idxs, valid, pos = [], None, None
    ks = []
    for j, (i, o) in enumerate(zip(spatial, output_size)):
        st, en = _adaptive_ranges(i, o)
        k = int((en - st).max())
        ks.append(k)
        ix = st[:, None] + np.arange(k)[None, :]
        ok = ix < en[:, None]
        ix = np.minimum(ix, i - 1)
        shape = [1] * (2 * nd)
        shape[j], shape[nd + j] = o, k
        idxs.append(ix.reshape(shape))
        stride = int(np.prod(spatial[j + 1:], dtype=np.int64))
        valid = ok.reshape(shape) if valid is None else valid & ok.reshape(shape)
        pos = ix.reshape(shape) * stride if pos is None else pos + ix.reshape(shape) * stride
    win = x[(Ellipsis,) + tuple(jnp.asarray(a) for a in idxs)]
    win = jnp.where(jnp.asarray(valid), win, _lowest(x.dtype))
    win = win.reshape(win.shape[:lead + nd] + (-1,))
    kidx = jnp.argmax(win, axis=-1)
    vals = jnp.take_along_axis(win, kidx[..., None], axis=-1)[..., 0]
    table = jnp.asarray(np.broadcast_to(pos, tuple(output_size) + tuple(ks)).reshape(
        tuple(output_size) + (-1,)), jnp.int64)
    table = jnp.broadcast_to(table, win.shape)
    ind = jnp.take_along_axis(table, kidx[..., None], axis=-1)[..., 0]
    return vals, ind


def _adaptive_check(nd: int, name: str, colon: str = ""):
    def check(input, output_size):
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            kernel = name.replace("1d", "2d")
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_title(input.dtype)}\'')
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got"
                               f"{colon} {shape_str(input.shape)}")
        for j in range(1, input.dim()):
            if input.shape[j] == 0 and (j >= input.dim() - nd or input.dim() == nd + 1):
                raise RuntimeError(f"{name}(): Expected input to have non-zero size for "
                                   f"non-batch dimensions, but input has sizes "
                                   f"{shape_str(input.shape)} with dimension {j} being empty")
        osz = _nt(output_size, nd)
        if len(osz) != nd:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
        if any(o is None or o < 0 for o in osz):
            raise RuntimeError(f"{name}(): elements of output_size must be greater than or "
                               f"equal to 0 but received {osz}")
    return check


def _adaptive_avg_name(nd):
    def name(input, output_size):
        if nd == 1:
            return "SqueezeBackward1"
        if all(o == 1 for o in _nt(output_size, nd)):
            return "MeanBackward1"
        return f"AdaptiveAvgPool{nd}DBackward0"
    return name


def _adaptive_samples(kind):
    def samples():
        out = [S(arr(2, 3, 10), 4), S(arr(3, 7), 3), S(arr(2, 2, 5, dtype="float64"), 5),
               S(arr(1, 2, 6), 1), S(arr(1, 2, 4), 7),
               S(arr(1, 2, 4, dtype="int64"), 2, grad=False)]
        return out
    return samples


for _nd in (1, 2, 3):
    register(OpSpec(f"adaptive_avg_pool{_nd}d",
                    lambda input, output_size, _n=_nd: adaptive_avg(input, _nt(output_size, _n)),
                    "input, output_size", method=False, function=_nd == 1, promote="none",
                    grad_name=_adaptive_avg_name(_nd),
                    check=_adaptive_check(_nd, f"adaptive_avg_pool{_nd}d"),
                    samples=_adaptive_samples("avg") if _nd == 1 else None,
                    doc=f"Mirrors ``torch.adaptive_avg_pool{_nd}d``."))
    register(OpSpec(f"adaptive_max_pool{_nd}d",
                    lambda input, output_size, _n=_nd: adaptive_max_with_indices(
                        input, _nt(output_size, _n)),
                    "input, output_size", method=False, function=_nd == 1, promote="none",
                    grad_name="SqueezeBackward1" if _nd == 1 else f"AdaptiveMaxPool{_nd}DBackward0",
                    nondiff_outputs=(1,), check=_adaptive_check(_nd, f"adaptive_max_pool{_nd}d",
                                                                ":"),
                    samples=_adaptive_samples("max") if _nd == 1 else None,
                    doc=f"Mirrors ``torch.adaptive_max_pool{_nd}d``: (values, indices)."))


# ---------------------------------------------------------------------------
# max unpooling
def _max_unpool_fn(nd):
    def fn(input, indices, output_size):
        lead = input.shape[:-nd]
        lin = int(np.prod(input.shape[-nd:], dtype=np.int64))
        lout = int(np.prod(output_size, dtype=np.int64))
        rows = int(np.prod(lead, dtype=np.int64))
        x = input.reshape(rows, lin)
        ix = indices.reshape(rows, lin)
        r = jnp.arange(rows)[:, None]
        out = jnp.zeros((rows, lout), input.dtype).at[r, ix].set(x, mode="drop")
        return out.reshape(tuple(lead) + tuple(output_size))
    return fn


def _max_unpool_check(nd):
    def check(input, indices, output_size):
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or "
                               f"{nd + 2}d Tensor, but got a tensor with {input.dim()} "
                               "dimensions.")
        if indices.dtype.name != "int64":
            raise RuntimeError(f"elements in indices should be type int64 but got: "
                               f"{_title(indices.dtype)}")
        if tuple(indices.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected shape of indices to be same as that of the input "
                               f"tensor ({shape_str(input.shape)}) but got indices tensor with "
                               f"shape: {shape_str(indices.shape)}")
    return check


for _nd in (2, 3):
    register(OpSpec(f"max_unpool{_nd}d", _max_unpool_fn(_nd), "input, indices, output_size",
                    tensor_args=("input", "indices"), promote="none", method=False,
                    function=False, grad_name=f"MaxUnpool{_nd}DBackward0",
                    check=_max_unpool_check(_nd),
                    doc=f"Mirrors ``torch._C._nn.max_unpool{_nd}d``."))


# ---------------------------------------------------------------------------
# resampling (interpolate)
def _scale(i: int, o: int, scale, align_corners: bool, dt):
    """PyTorch's ``area_pixel_compute_scale`` in the op's math type ``dt``."""
    if align_corners:
        return dt((i - 1) / (o - 1)) if o > 1 else dt(0)
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(i) / dt(o)


def _taps(mode: str, i: int, o: int, scale, align_corners: bool, dt):
    """Per output position: a list of (source index array, weight array or None)."""
    dst = np.arange(o).astype(dt)
    if mode in ("nearest", "nearest-exact"):
        s = dt(1.0 / scale) if scale is not None and scale > 0 else np.float32(i) / np.float32(o)
        s = np.float32(s)
        if mode == "nearest":
            src = np.floor(dst.astype(np.float32) * s)
        else:
            src = np.floor((dst.astype(np.float32) + np.float32(0.5)) * s)
        return [(np.minimum(src.astype(np.int64), i - 1), None)]
    s = _scale(i, o, scale, align_corners, dt)
    if mode == "cubic":
        src = dst * s if align_corners else s * (dst + dt(0.5)) - dt(0.5)
        i0 = np.floor(src)
        t = (src - i0).astype(dt)
        a = dt(-0.75)

        def c1(x):
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def c2(x):
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        ws = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
        i0 = i0.astype(np.int64)
        return [(np.clip(i0 - 1 + m, 0, i - 1), ws[m].astype(dt)) for m in range(4)]
    src = dst * s if align_corners else np.maximum(s * (dst + dt(0.5)) - dt(0.5), dt(0))
    src = src.astype(dt)
    i0 = np.floor(src).astype(np.int64)
    i0 = np.minimum(i0, i - 1)
    i1 = np.minimum(i0 + 1, i - 1)
    l1 = (src - i0.astype(dt)).astype(dt)
    l0 = (dt(1) - l1).astype(dt)
    return [(i0, l0), (i1, l1)]


def upsample(x, output_size, mode, align_corners, scales):
    nd = len(output_size)
    dt = np.float64 if x.dtype == jnp.float64 else np.float32
    for j, o in enumerate(output_size):
        ax = x.ndim - nd + j
        i = x.shape[ax]
        sc = scales[j] if scales else None
        if o == i and mode in ("nearest", "nearest-exact") and not sc:
            continue
        acc = None
        for idx, w in _taps(mode, i, o, sc, bool(align_corners), dt):
            term = jnp.take(x, jnp.asarray(idx), axis=ax)
            if w is not None:
                term = term * jnp.asarray(w.reshape((-1,) + (1,) * (x.ndim - ax - 1)), x.dtype)
            acc = term if acc is None else acc + term
        x = acc
    return x


_UP_NAMES = {"nearest": "UpsampleNearest{}DBackward0",
             "nearest-exact": "UpsampleNearestExact{}DBackward0",
             "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
             "cubic": "UpsampleBicubic2DBackward0", "trilinear": "UpsampleTrilinear3DBackward0"}


def _upsample_name(input, output_size, mode, align_corners=None, scales=None):
    return _UP_NAMES[mode].format(len(output_size))


register(OpSpec("upsample", lambda input, output_size, mode, align_corners, scales:
                upsample(input, output_size, "cubic" if mode == "cubic" else
                         ("linear" if mode in ("linear", "bilinear", "trilinear") else mode),
                         align_corners, scales),
                "input, output_size, mode, align_corners=None, scales=None", promote="none",
                method=False, function=False, grad_name=_upsample_name,
                doc="The ``torch._C._nn.upsample_*`` kernels, one op with a static mode."))


# ---------------------------------------------------------------------------
# padding
def _pad_pairs(ndim: int, pad) -> list:
    """PyTorch's pad tuple (last dim first) as per-dim (lo, hi) for all ``ndim`` dims."""
    pairs = [(0, 0)] * ndim
    for j in range(len(pad) // 2):
        pairs[ndim - 1 - j] = (pad[2 * j], pad[2 * j + 1])
    return pairs


def _constant_pad_fn(input, pad, value):
    v = jnp.asarray(value if value is not None else 0).astype(input.dtype)
    return lax.pad(input, v, [(lo, hi, 0) for lo, hi in _pad_pairs(input.ndim, pad)])


def _constant_pad_check(input, pad, value=0):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.dim()}")
    for d, (lo, hi) in enumerate(_pad_pairs(input.dim(), pad)):
        n = input.shape[d] + lo + hi
        if n < 0:
            raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding {lo} and "
                               f"{hi} resulted in a negative output size, which is invalid. "
                               f"Check dimension {d} of your input.")


register(OpSpec("constant_pad_nd", _constant_pad_fn, "input, pad, value=0", promote="none",
                method=False, grad_name="ConstantPadNdBackward0", saves=False,
                check=_constant_pad_check,
                samples=lambda: [S(arr(2, 3, 4), (1, 2)), S(arr(2, 3, 4), (1, 0, 2, 1), 1.5),
                                 S(arr(2, 3, 4), (-1, 1, 0, 0, 1, 1)),
                                 S(arr(3, 4, dtype="int64"), (1, 1), 7, grad=False),
                                 S(arr(2, 3), (1, 1, 1)), S(arr(2, 3), (-3, -1))],
                doc="Mirrors ``torch.constant_pad_nd`` (pad tuple from the last dim)."))


def _mode_pad_fn(jmode: str):
    def fn(input, padding):
        return jnp.pad(input, _pad_pairs(input.ndim, padding), mode=jmode)
    return fn


def _mode_pad_check(kind: str, nd: int):
    def check(input, padding):
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                               f"possibly 0 batch size and other non-zero dimensions for input, "
                               f"but got: {shape_str(input.shape)}")
        for j in range(nd):
            d = input.dim() - 1 - j
            lo, hi = padding[2 * j], padding[2 * j + 1]
            size = input.shape[d]
            if kind == "reflect" and (lo >= size or hi >= size):
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {d} of input {shape_str(input.shape)}")
            if kind == "circular" and (lo > size or hi > size):
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if kind == "replicate" and size + lo + hi < 1:
                raise RuntimeError(f"input (H: {size}) is too small. Calculated output H: "
                                   f"{size + lo + hi}")
            if min(lo, hi) < 0 and kind != "circular":
                raise RuntimeError(f"Negative padding is not supported for {kind} padding")
    return check


for _nd in (1, 2, 3):
    register(OpSpec(f"reflection_pad{_nd}d", _mode_pad_fn("reflect"), "input, padding",
                    promote="none", method=False, function=False, saves=False,
                    grad_name=f"ReflectionPad{_nd}DBackward0",
                    check=_mode_pad_check("reflect", _nd)))
    register(OpSpec(f"replication_pad{_nd}d", _mode_pad_fn("edge"), "input, padding",
                    promote="none", method=False, function=False, saves=False,
                    grad_name=f"ReplicationPad{_nd}DBackward0",
                    check=_mode_pad_check("replicate", _nd)))
    register(OpSpec(f"circular_pad{_nd}d", _mode_pad_fn("wrap"), "input, padding",
                    promote="none", method=False, function=False, saves=False,
                    grad_name="torch::autograd::CopySlices",
                    check=_mode_pad_check("circular", _nd)))


# ---------------------------------------------------------------------------
# pixel shuffle
def _pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    *lead, c, h, w = input.shape
    x = input.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    x = jnp.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    *lead, c, h, w = input.shape
    n = len(lead)
    x = input.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    x = jnp.transpose(x, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return x.reshape(tuple(lead) + (c * r * r, h // r, w // r))


def _shuffle_check(name: str):
    def check(input, factor):
        if input.dim() < 3:
            raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got "
                               f"input with {input.dim()} dimension(s)")
        if factor <= 0:
            what = "upscale_factor" if name == "pixel_shuffle" else "downscale_factor"
            raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")
        c, h, w = input.shape[-3:]
        if name == "pixel_shuffle" and c % (factor * factor):
            raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                               f"divisible by the square of upscale_factor, but input.size(-3)="
                               f"{c} is not divisible by {factor * factor}")
        if name == "pixel_unshuffle":
            if h % factor:
                raise RuntimeError("pixel_unshuffle expects height to be divisible by "
                                   f"downscale_factor, but input.size(-2)={h} is not divisible "
                                   f"by {factor}")
            if w % factor:
                raise RuntimeError("pixel_unshuffle expects width to be divisible by "
                                   f"downscale_factor, but input.size(-1)={w} is not divisible "
                                   f"by {factor}")
    return check


register(OpSpec("pixel_shuffle", _pixel_shuffle, "input, upscale_factor", promote="none",
                method=False, saves=False, check=_shuffle_check("pixel_shuffle"),
                samples=lambda: [S(arr(2, 8, 3, 4), 2), S(arr(9, 2, 2), 3),
                                 S(arr(2, 1, 4, 2, 2), 2), S(arr(2, 3, 2, 2), 2),
                                 S(arr(4, 4), 2)],
                doc="Mirrors ``torch.pixel_shuffle``."))
register(OpSpec("pixel_unshuffle", _pixel_unshuffle, "input, downscale_factor", promote="none",
                method=False, saves=False, check=_shuffle_check("pixel_unshuffle"),
                samples=lambda: [S(arr(2, 2, 4, 6), 2), S(arr(1, 6, 3), 3),
                                 S(arr(2, 2, 4, 5), 2)],
                doc="Mirrors ``torch.pixel_unshuffle``."))


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


# ---------------------------------------------------------------------------
# grid sampling
def _unnormalize(coord, size: int, align_corners: bool):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low: int, twice_high: int):
    if twice_low == twice_high:
        return jnp.zeros_like(coord)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = jnp.abs(coord - mn)
    extra = jnp.fmod(c, span)
    flips = jnp.floor(c / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + mn, span - extra + mn)


def _source_index(coord, size: int, padding_mode: int, align_corners: bool):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == 1:
        c = jnp.clip(c, 0, size - 1)
    elif padding_mode == 2:
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = jnp.clip(c, 0, size - 1)
    return c


def grid_sample(x, grid, mode: int, padding_mode: int, align_corners: bool):
    """x (N, C, *in) sampled at grid (N, *out, nd) with coordinates (x, y[, z])."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    insz = x.shape[2:]
    out_sp = grid.shape[1:-1]
    # grid's last axis lists (x, y, z): the last spatial dim first
    coords = [_source_index(grid[..., nd - 1 - j], insz[j], padding_mode, align_corners)
              for j in range(nd)]
    flat = x.reshape(n, c, -1)
    strides = [int(np.prod(insz[j + 1:], dtype=np.int64)) for j in range(nd)]

    def gather(idx_list):
        ok = None
        lin = 0
        for j, ix in enumerate(idx_list):
            inb = (ix >= 0) & (ix < insz[j])
            ok = inb if ok is None else ok & inb
            lin = lin + jnp.clip(ix, 0, insz[j] - 1) * strides[j]
        lin = lin.reshape(n, 1, -1)
        v = jnp.take_along_axis(flat, jnp.broadcast_to(lin, (n, c, lin.shape[-1])), axis=2)
        return v.reshape((n, c) + tuple(out_sp)), ok[:, None]

    if mode == 1:  # nearest (round half to even, as nearbyint)
        v, ok = gather([jnp.round(ci).astype(jnp.int64) for ci in coords])
        return jnp.where(ok, v, jnp.zeros((), x.dtype))
    lo = [jnp.floor(ci) for ci in coords]
    out = jnp.zeros((n, c) + tuple(out_sp), x.dtype)
    for corner in itertools.product((0, 1), repeat=nd):
        idx = [(lo[j] + corner[j]).astype(jnp.int64) for j in range(nd)]
        w = 1
        for j in range(nd):
            frac = coords[j] - lo[j]
            w = w * (frac if corner[j] else 1 - frac)
        v, ok = gather(idx)
        out = out + jnp.where(ok, v, jnp.zeros((), x.dtype)) * w[:, None].astype(x.dtype)
    return out


def _grid_check(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {shape_str(input.shape)} "
                           f"and grid with sizes {shape_str(grid.shape)}")
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {shape_str(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {shape_str(input.shape)} and grid with "
                           f"sizes {shape_str(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but "
                           f"input has {input.dtype} and grid has {grid.dtype}")
    if interpolation_mode == 2 and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if interpolation_mode == 2:
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported by torchlike "
                                  "yet; use 'bilinear' or 'nearest'")


register(OpSpec("grid_sampler", grid_sample,
                "input, grid, interpolation_mode, padding_mode, align_corners",
                tensor_args=("input", "grid"), promote="none", method=False,
                grad_name=lambda input, grid, *a: f"GridSampler{input.dim() - 2}DBackward0",
                check=_grid_check,
                samples=lambda: [
                    S(arr(2, 3, 5, 6), arr(2, 4, 3, 2, low=-1.2, high=1.2), 0, 0, False,
                      rtol=1e-4, atol=1e-5),
                    S(arr(1, 2, 4, 4), arr(1, 3, 3, 2, low=-1.5, high=1.5), 0, 1, True,
                      rtol=1e-4, atol=1e-5),
                    S(arr(1, 2, 4, 5), arr(1, 3, 3, 2, low=-2.5, high=2.5), 0, 2, False,
                      rtol=1e-4, atol=1e-5),
                    S(arr(1, 2, 4, 5), arr(1, 3, 3, 2, low=-2.5, high=2.5), 0, 2, True,
                      rtol=1e-4, atol=1e-5),
                    S(arr(2, 2, 4, 4), arr(2, 3, 3, 2, low=-1.1, high=1.1), 1, 0, False),
                    S(arr(1, 2, 3, 4, 4), arr(1, 2, 3, 2, 3, low=-1.1, high=1.1), 0, 0, False,
                      rtol=1e-4, atol=1e-5)],
                doc="Mirrors ``torch.grid_sampler`` (modes 0 bilinear, 1 nearest; padding "
                    "0 zeros, 1 border, 2 reflection). Bicubic is not supported."))


def _base_grid(size: int, align_corners: bool, dt):
    if size <= 1:
        return np.zeros(max(size, 0), dt)
    g = np.linspace(-1.0, 1.0, size)
    if not align_corners:
        g = g * (size - 1) / size
    return g.astype(dt)


def _affine_grid(theta, size, align_corners):
    nd = len(size) - 2
    dt = np.float64 if theta.dtype == jnp.float64 else np.float32
    sp = size[2:]
    axes = [_base_grid(s, bool(align_corners), dt) for s in sp]
    mesh = np.meshgrid(*axes, indexing="ij")
    # (x, y[, z], 1): x runs over the last spatial dim
    base = np.stack([mesh[nd - 1 - j] for j in range(nd)] + [np.ones_like(mesh[0])], -1)
    base = jnp.asarray(base.reshape(-1, nd + 1), theta.dtype)
    out = jnp.einsum("pk,njk->npj", base, theta, precision=lax.Precision.HIGHEST)
    return out.reshape((size[0],) + tuple(sp) + (nd,))


def _affine_check(theta, size, align_corners):
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"torch.Size({list(size)}). Got {_size_repr(theta.shape)}.")
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"torch.Size({list(size)}). Got {_size_repr(theta.shape)}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size "
                                  f"torch.Size({list(size)}).")


def _size_repr(shape) -> str:
    return f"torch.Size({list(shape)})"


register(OpSpec("affine_grid_generator", _affine_grid, "theta, size, align_corners",
                tensor_args=("theta",), promote="none", method=False,
                grad_name="AffineGridGeneratorBackward0", check=_affine_check,
                samples=lambda: [S(arr(2, 2, 3), (2, 3, 4, 5), False),
                                 S(arr(1, 2, 3), (1, 1, 3, 3), True),
                                 S(arr(2, 3, 4, dtype="float64"), (2, 1, 2, 3, 4), False)],
                doc="Mirrors ``torch.affine_grid_generator``."))


# Long float32 sums: XLA's and PyTorch's convolutions accumulate in different orders.
for _name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d"):
    with_atol(_name, 1e-5)
