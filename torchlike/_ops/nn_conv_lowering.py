"""Convolution kernels and how they lower to XLA: ``lax.conv_general_dilated``, or matmuls
where that measured faster on CPU.

The op table's ``conv{1,2,3}d`` and ``conv_transpose{1,2,3}d`` (``nn_conv.py``) call
``conv_forward`` and ``conv_transpose_forward``; everything here is pure JAX.

# Note [Convolution lowering on CPU]
# On CPU, XLA runs ``lax.conv_general_dilated`` and the two convolutions of its VJP with
# kernels that are slow when the channel counts are small, and slower still for the
# weight gradient of a transposed convolution, while its matmuls and its convolutions
# with a dozen or more channels are good. ``benchmarks/conv_lowering.py`` times each
# candidate inside one ``jax.jit`` of forward + backward (what a compiled training step
# runs), interleaving the candidates so that machine load hits them alike. Median ms on
# the 2-core CI machine (shared, so repeated runs moved by up to 15%), jaxlib 0.10.2,
# float32, with XLA's own convolution kernels (Note [XLA's CPU convolution kernels] in
# ``_core/xla.py``; the first figures, in brackets, were taken with YNNPACK's):
#
#   case (batch, C_in -> C_out, input, kernel)   lax.conv      chosen                ratio
#   LeNet conv1 3->6 5x5, 32x32, 64 (no dx)      7.7 (11.0)    space_to_depth 2.2    0.29
#   LeNet conv2 6->16 5x5, 14x14, 64             3.3 (6.0)     space_to_depth 1.8    0.55 *
#   3x3 8->16, 16x16, 32                         2.3 (2.4)     col2im 2.5            1.11
#   1-d 4->16 k5, 256, 32                        1.0 (1.3)     space_to_depth 0.6    0.55
#   1x1 stride 2 64->128, 32x32, 32              11.8 (26.6)   matmul 8.4            0.71
#   transposed 64->32 k4 s2, 8x8, 32             35.6 (86.7)   adjoint 4.0           0.11
#   transposed 1-d 32->16 k4 s2, 64, 16          1.5 (2.9)     adjoint 0.5           0.32
#   LeNet training step (both convs, 2 pools)    15.1 (26.2)   5.6 (PyTorch eager 8.7)
#
# and where lax.conv stays (the alternatives measured slower): 3x3 16->32 (col2im 1.3x,
# space_to_depth 1.4x), ResNet's 3x3 64->64 (col2im 1.9x, space_to_depth 1.7x), strided
# 3x3 32->64, 1-d 16->32, stride-1 transposed convolutions, and, with XLA's own kernels,
# a stride-1 kernel of ones (64->128 on 16x16: the matmul 1.12-1.17x; with YNNPACK's
# kernels the matmul took 0.5x). 3x3 8->16 (col2im 0.93-1.11x over two runs) and 3x3
# 3->64 (col2im 0.93-1.03x, space_to_depth 0.84-0.93x) are within the noise either way.
# Full im2col (patches + one matmul, JAX's VJP) lost everywhere once the backward is
# included: a 3-channel input's patches are a concatenation along a 3-wide minor axis,
# and the weight gradient reads them again. A direct sum of shifted multiply-adds beat
# lax.conv on 3-channel forwards in isolation, but inside a training step XLA fuses it
# into each consumer (pooling, the ReLU mask of the backward) and recomputes it there,
# doubling the step; it is not used.
#
# The rule, applied at trace time when the computation runs on CPU
# (``jax.default_backend()``, or the platform of a concrete input or of
# ``jax.default_device``), for float32/float64 and groups == 1:
#   * kernel of ones, no padding, a stride > 1 (or YNNPACK's kernels) -> ``matmul``:
#     the strided input times the (O, C) weight; forward and both gradients are matmuls.
#   * 1-d or 2-d, stride 1, dilation 1, C_in <= 4, C_out <= 32 -> ``space_to_depth``:
#     the same convolution on 2x2 tiles of the input (C_in*4 channels in, C_out*4 out,
#     a kernel of ceil((k+1)/2) tiles gathered from the weight); more multiply-adds (some
#     against zeros), but in a channel range where XLA's kernels are fast. Plain JAX
#     ops, so JAX's VJP and JVP apply.
#   * C_in <= 8 -> ``col2im``: lax.conv for the forward and the weight gradient; the
#     input gradient is a matmul with the kernel followed by an overlap-add of shifted
#     windows (the transpose of im2col), as PyTorch computes it.
#   * transposed convolution with a stride > 1 -> ``adjoint``: lax's forward (a
#     convolution of the stride-dilated input), but the weight gradient taken as the
#     weight gradient of the ordinary strided convolution that the transposed one is the
#     adjoint of; JAX's own rule keeps the input dilation in it.
#   * otherwise, and always on GPU/TPU (whose convolution kernels win), lax.conv with
#     JAX's VJP.
# * LeNet's conv2 (6 -> 16) took space_to_depth until a whole compiled training step was
# measured with each lowering forced per convolution (``torchlike.compile`` of SGD with
# momentum, batch 64, median of 30 interleaved blocks of 10 steps, quiet machine): 4.78
# and 4.78 ms with space_to_depth, 4.60 and 4.61 with col2im (plain lax.conv 5.75,
# im2col 5.17), though in isolation (forward and backward of ``sum(tanh(conv))``) it
# measured 1.58 ms against col2im's 1.79: inside the step XLA fuses col2im's forward,
# a lax.conv, with the ReLU and the pool that follow. conv1 (3 -> 6, no input gradient)
# stayed fastest with space_to_depth (col2im 10.8 ms, lax.conv 10.8, im2col 9.1). So
# space_to_depth now takes at most 4 input channels (the 1-d 4 -> 16 row above).
# ``col2im`` and ``adjoint`` choose per pass with ``jax.custom_jvp``, not ``custom_vjp``:
# the tangent rule is written so that its transpose (what reverse mode runs) is the fast
# form, and forward mode (``torchlike.func.jvp``, ``jacfwd``, ``hessian``) keeps working.
# Every lowering computes the same function; results differ from lax.conv only by float
# rounding (tests/nn/test_conv_lowering.py compares them with lax.conv and with PyTorch,
# values and first and second derivatives).
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero

from .._core import xla

__all__ = ["conv_forward", "conv_transpose_forward", "conv_lowering",
           "conv_transpose_lowering", "stacked_windows", "LOWERINGS", "TRANSPOSE_LOWERINGS"]

DN = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW"),
      3: ("NCDHW", "OIDHW", "NCDHW")}

LOWERINGS = ("auto", "lax", "matmul", "space_to_depth", "col2im", "im2col")
TRANSPOSE_LOWERINGS = ("auto", "lax", "adjoint")

# Channel limits of the CPU rules (see the Note): space_to_depth for at most 4 input and
# 32 output channels (6 inputs lost to col2im inside a training step, 8 inputs or 64
# outputs measured slower); col2im for at most 8 input channels (16 measured slower).
_S2D_MAX_CIN = 4
_S2D_MAX_COUT = 32
_COL2IM_MAX_CIN = 8


# ---------------------------------------------------------------------------
# when
_on_cpu = xla.runs_on_cpu


def _float32_or_64(*arrays) -> bool:
    return all(a.dtype in (jnp.float32, jnp.float64) for a in arrays)


# Note [Half-precision convolution on CPU]
# XLA's CPU backend has no fast float16/bfloat16 convolution: a LeNet training step in
# bfloat16 took 13.4 ms against 5.4 in float32 (``benchmarks/amp_step.py --models cnn``),
# the case autocast creates. On CPU a half-precision convolution therefore runs in
# float32, bias included, and is rounded once, which is also what PyTorch's CPU kernels
# compute (float32 accumulation, one rounding); its gradients come back through the same
# casts, in the inputs' dtypes. Other backends keep XLA's own half-precision kernels.
def _half_on_cpu(x, w) -> bool:
    return x.dtype in (jnp.float16, jnp.bfloat16) and w.dtype == x.dtype and _on_cpu(x)


def _in_float32(forward, x, w, b, *args):
    f32 = jnp.float32
    y = forward(x.astype(f32), w.astype(f32), None if b is None else b.astype(f32), *args)
    return y.astype(x.dtype)


def conv_lowering(x, w, stride, pads, dilation, groups: int) -> str:
    """The lowering ``conv_forward(..., lowering="auto")`` picks; see the Note."""
    if groups != 1 or not _float32_or_64(x, w) or not _on_cpu(x):
        return "lax"
    ks = w.shape[2:]
    if all(k == 1 for k in ks):
        if all(tuple(p) == (0, 0) for p in pads):
            # XLA's own kernels beat the matmul on a stride-1 kernel of ones; YNNPACK's
            # (when the user's XLA_FLAGS keep them) do not
            if any(s > 1 for s in stride) or xla.compiler_options() is None:
                return "matmul"
            return "lax"
    elif (len(ks) <= 2 and all(s == 1 for s in stride) and all(d == 1 for d in dilation)
          and w.shape[1] <= _S2D_MAX_CIN and w.shape[0] <= _S2D_MAX_COUT):
        return "space_to_depth"
    if w.shape[1] <= _COL2IM_MAX_CIN:
        return "col2im"
    return "lax"


def conv_transpose_lowering(x, w, stride) -> str:
    """The lowering ``conv_transpose_forward(..., lowering="auto")`` picks; see the Note."""
    if any(s > 1 for s in stride) and _float32_or_64(x, w) and _on_cpu(x):
        return "adjoint"
    return "lax"


# ---------------------------------------------------------------------------
# building blocks
def _out_sizes(spatial, ksize, stride, pads, dilation) -> list:
    return [(i + lo + hi - d * (k - 1) - 1) // s + 1
            for i, k, s, (lo, hi), d in zip(spatial, ksize, stride, pads, dilation)]


def windows(x, ksize, stride, dilation, lead: int = 2, trail: int = 0) -> tuple:
    """The shifted strided views of ``x`` (already padded) under each kernel offset, in
    row-major offset order, over the spatial dims between ``lead`` leading and ``trail``
    trailing ones: a list of arrays of shape ``x.shape[:lead] + out + trailing``."""
    nd = x.ndim - lead - trail
    spatial = x.shape[lead:lead + nd]
    tail = x.shape[lead + nd:]
    out = _out_sizes(spatial, ksize, stride, [(0, 0)] * nd, dilation)
    views = []
    for offs in itertools.product(*[range(k) for k in ksize]):
        start = (0,) * lead + tuple(o * d for o, d in zip(offs, dilation)) + (0,) * trail
        limit = (x.shape[:lead] + tuple(o * d + (n - 1) * s + 1
                                        for o, d, n, s in zip(offs, dilation, out, stride))
                 + tail)
        views.append(lax.slice(x, start, limit,
                               (1,) * lead + tuple(stride) + (1,) * trail))
    return views, out


def stacked_windows(x, ksize, stride, dilation):
    """(N, C, *spatial) already padded -> (N, C, K, *out): im2col's patches."""
    views, out = windows(x, ksize, stride, dilation)
    return jnp.stack(views, axis=2), out


def _lax_conv(x, w, stride, pads, dilation, groups: int = 1):
    return lax.conv_general_dilated(x, w, stride, pads, rhs_dilation=dilation,
                                    feature_group_count=groups,
                                    dimension_numbers=DN[x.ndim - 2],
                                    precision=xla.conv_precision())


def _pad_spatial(x, pads):
    if all(tuple(p) == (0, 0) for p in pads):
        return x
    return jnp.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads])


def _conv_matmul(x, w, stride, pads):
    """A convolution with a kernel of ones: the strided input times the (O, C) weight."""
    x = _pad_spatial(x, pads)
    if any(s != 1 for s in stride):
        x = x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
    y = lax.dot_general(x, w.reshape(w.shape[:2]), (((1,), (1,)), ((), ())))
    return jnp.moveaxis(y, -1, 1)


def _conv_im2col(x, w, stride, pads, dilation):
    """Patches times the flattened weight, channels last: the patches are (N, *out, K*C)
    and the matmul's output is already (N, *out, O), so that reverse mode's transpose
    (col2im) is one matmul and an overlap-add of column blocks, with no big transposes."""
    nd = x.ndim - 2
    xh = jnp.moveaxis(_pad_spatial(x, pads), 1, -1)             # (N, *padded, C)
    views, _ = windows(xh, w.shape[2:], stride, dilation, lead=1, trail=1)
    p = jnp.concatenate(views, axis=-1)                          # (N, *out, K*C)
    wm = jnp.moveaxis(w, 0, -1)                                  # (C, *k, O)
    wm = jnp.moveaxis(wm, 0, -2).reshape(-1, w.shape[0])         # (K*C, O)
    y = lax.dot_general(p, wm, (((nd + 1,), (0,)), ((), ())))
    return jnp.moveaxis(y, -1, 1)


def _conv_space_to_depth(x, w, pads, block: int = 2):
    """A stride-1 convolution as one on ``block``-by-``block`` tiles of the input: the
    input's channels times block**nd, the output's too (one per output phase), a kernel
    of ``ceil((k + block - 1) / block)`` tiles gathered from the zero-padded weight, then
    the output phases put back in place. Same sums as lax.conv, some against zeros."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o = w.shape[0]
    ks = w.shape[2:]
    padded = [i + lo + hi for i, (lo, hi) in zip(x.shape[2:], pads)]
    outs = [i - k + 1 for i, k in zip(padded, ks)]
    kt = [-(-(k + block - 1) // block) for k in ks]               # kernel, in tiles
    tiles = [max(-(-i // block), -(-ot // block) + q - 1)          # input, in tiles
             for i, ot, q in zip(padded, outs, kt)]
    x = jnp.pad(x, [(0, 0), (0, 0)] + [(lo, t * block - i - lo)
                                       for (lo, _), t, i in zip(pads, tiles, x.shape[2:])])
    # (N, C, t0*b, t1*b) -> (N, C, b, b, t0, t1) -> (N, C*b*b, t0, t1)
    x = x.reshape((n, c) + tuple(v for t in tiles for v in (t, block)))
    x = jnp.transpose(x, (0, 1) + tuple(3 + 2 * j for j in range(nd)) +
                      tuple(2 + 2 * j for j in range(nd)))
    x = x.reshape((n, c * block ** nd) + tuple(tiles))
    # kernel tap u of output phase p reads input phase r of tile offset q: u = b*q + r - p
    wt = jnp.pad(w, [(0, 0), (0, 0)] + [(block - 1, q * block + block - k)
                                        for k, q in zip(ks, kt)])
    for j, q in enumerate(kt):
        p, r, qq = np.ix_(range(block), range(block), range(q))
        ax = 2 + 3 * j
        taps = (block * qq + r - p + block - 1).reshape(-1)
        wt = jnp.take(wt, jnp.asarray(taps), axis=ax)
        wt = wt.reshape(wt.shape[:ax] + (block, block, q) + wt.shape[ax + 1:])
    # (O, C, p0, r0, q0, p1, r1, q1) -> (O, p0, p1, C, r0, r1, q0, q1)
    wt = jnp.transpose(wt, [0] + [2 + 3 * j for j in range(nd)] + [1] +
                       [3 + 3 * j for j in range(nd)] + [4 + 3 * j for j in range(nd)])
    wt = wt.reshape((o * block ** nd, c * block ** nd) + tuple(kt))
    y = _lax_conv(x, wt, (1,) * nd, [(0, 0)] * nd, (1,) * nd)
    # (N, O*b*b, u0, u1) -> (N, O, u0, b, u1, b) -> crop
    ot = y.shape[2:]
    y = y.reshape((n, o) + (block,) * nd + tuple(ot))
    y = jnp.transpose(y, (0, 1) + tuple(v for j in range(nd) for v in (2 + nd + j, 2 + j)))
    y = y.reshape((n, o) + tuple(u * block for u in ot))
    return y[(slice(None), slice(None)) + tuple(slice(0, u) for u in outs)]


def _is_zero(t) -> bool:
    return isinstance(t, SymbolicZero)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4))
def _conv_col2im_grad(x, w, stride, pads, dilation):
    """lax.conv whose input gradient, under reverse mode, is col2im (see the Note)."""
    return _lax_conv(x, w, stride, pads, dilation)


@functools.partial(_conv_col2im_grad.defjvp, symbolic_zeros=True)
def _conv_col2im_grad_jvp(stride, pads, dilation, primals, tangents):
    # The tangent in x goes through im2col, so its transpose is col2im; the tangent in w
    # goes through lax.conv, so its transpose is XLA's weight-gradient convolution.
    x, w = primals
    dx, dw = tangents
    y = _lax_conv(x, w, stride, pads, dilation)
    terms = []
    if not _is_zero(dx):
        terms.append(_conv_im2col(dx, w, stride, pads, dilation))
    if not _is_zero(dw):
        terms.append(_lax_conv(x, dw, stride, pads, dilation))
    if not terms:
        return y, jnp.zeros_like(y)
    return y, terms[0] if len(terms) == 1 else terms[0] + terms[1]


# ---------------------------------------------------------------------------
# convolution
def conv_forward(x, w, b, stride, pads, dilation, groups, lowering: str = "auto"):
    """N-d convolution of batched ``x`` (N, C, *spatial) with ``w`` (O, C/groups, *k),
    plus ``b``. ``pads`` is a list of (low, high) pairs. ``lowering`` is one of
    ``LOWERINGS`` (``auto`` applies Note [Convolution lowering on CPU]); all compute the
    same function, and the non-``lax`` ones need ``groups == 1`` (``matmul`` also a kernel
    of ones, ``space_to_depth`` stride and dilation 1)."""
    nd = x.ndim - 2
    pads = tuple(tuple(p) for p in pads)
    stride, dilation = tuple(stride), tuple(dilation)
    if lowering == "auto" and _half_on_cpu(x, w):   # Note [Half-precision convolution on CPU]
        return _in_float32(conv_forward, x, w, b, stride, pads, dilation, groups)
    if lowering == "auto":
        lowering = conv_lowering(x, w, stride, pads, dilation, groups)
    if lowering != "lax" and groups != 1:
        raise ValueError(f"conv lowering {lowering!r} needs groups=1, got groups={groups}")
    if lowering == "lax":
        y = _lax_conv(x, w, stride, pads, dilation, groups)
    elif lowering == "matmul":
        if any(k != 1 for k in w.shape[2:]):
            raise ValueError(f"conv lowering 'matmul' needs a kernel of ones, got weight of "
                             f"shape {tuple(w.shape)}")
        y = _conv_matmul(x, w, stride, pads)
    elif lowering == "space_to_depth":
        if any(v != 1 for v in stride + dilation):
            raise ValueError(f"conv lowering 'space_to_depth' needs stride 1 and dilation 1, "
                             f"got stride={stride}, dilation={dilation}")
        y = _conv_space_to_depth(x, w, pads)
    elif lowering == "col2im":
        y = _conv_col2im_grad(x, w, stride, pads, dilation)
    elif lowering == "im2col":
        y = _conv_im2col(x, w, stride, pads, dilation)
    else:
        raise ValueError(f"unknown conv lowering {lowering!r}; expected one of {LOWERINGS}")
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd).astype(y.dtype)
    return y


# ---------------------------------------------------------------------------
# transposed convolution
def _lax_conv_transpose(x, w, stride, padding, output_padding, groups, dilation):
    """Transposed convolution as the gradient of a convolution: dilate the input by the
    stride, pad by ``dilation*(k-1)-padding`` and convolve with the flipped kernel."""
    nd = x.ndim - 2
    ks = w.shape[2:]
    cin, cout_g = w.shape[0], w.shape[1]
    w2 = w.reshape((groups, cin // groups, cout_g) + ks)
    w2 = jnp.swapaxes(w2, 1, 2).reshape((groups * cout_g, cin // groups) + ks)
    w2 = jnp.flip(w2, axis=tuple(range(2, 2 + nd)))
    pads = [(d * (k - 1) - p, d * (k - 1) - p + op)
            for k, d, p, op in zip(ks, dilation, padding, output_padding)]
    return lax.conv_general_dilated(x, w2, (1,) * nd, pads, lhs_dilation=stride,
                                    rhs_dilation=dilation, feature_group_count=groups,
                                    dimension_numbers=DN[nd], precision=xla.conv_precision())


def _adjoint_conv(stride, padding, output_padding, groups, dilation):
    """The ordinary convolution (output space -> input space, same weight) that the
    transposed convolution is the adjoint of. Its high padding ``p - output_padding``
    may be negative: lax.conv then crops, as the adjoint must."""
    pads = [(p, p - op) for p, op in zip(padding, output_padding)]
    return lambda g, w: _lax_conv(g, w, stride, pads, dilation, groups)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4, 5, 6))
def _conv_transpose_adjoint(x, w, stride, padding, output_padding, groups, dilation):
    """lax's transposed convolution whose weight gradient, under reverse mode, is the
    weight gradient of the adjoint strided convolution (see the Note)."""
    return _lax_conv_transpose(x, w, stride, padding, output_padding, groups, dilation)


@functools.partial(_conv_transpose_adjoint.defjvp, symbolic_zeros=True)
def _conv_transpose_adjoint_jvp(stride, padding, output_padding, groups, dilation,
                                primals, tangents):
    # y = C^T(x; w) where C(g; w) is the adjoint convolution. In w, the tangent
    # C^T(x; dw) is written as the transpose of q: g -> d<x, C(g; w)>/dw (linear in g),
    # so reverse mode transposes it back into q itself: XLA's weight-gradient
    # convolution of an ordinary strided convolution, without input dilation.
    x, w = primals
    dx, dw = tangents
    args = (stride, padding, output_padding, groups, dilation)
    y = _lax_conv_transpose(x, w, *args)
    terms = []
    if not _is_zero(dx):
        terms.append(_lax_conv_transpose(dx, w, *args))
    if not _is_zero(dw):
        conv = _adjoint_conv(stride, padding, output_padding, groups, dilation)

        def q(g):
            return jax.vjp(lambda v: conv(g, v), w)[1](x)[0]
        (t,) = jax.linear_transpose(q, jax.ShapeDtypeStruct(y.shape, y.dtype))(dw)
        terms.append(t)
    if not terms:
        return y, jnp.zeros_like(y)
    return y, terms[0] if len(terms) == 1 else terms[0] + terms[1]


def conv_transpose_forward(x, w, b, stride, padding, output_padding, groups, dilation,
                           lowering: str = "auto"):
    """N-d transposed convolution of batched ``x`` (N, C_in, *spatial) with ``w``
    (C_in, C_out/groups, *k), plus ``b``, as PyTorch's ``conv_transpose{n}d``.
    ``lowering`` is one of ``TRANSPOSE_LOWERINGS``; both compute the same function."""
    nd = x.ndim - 2
    args = (tuple(stride), tuple(padding), tuple(output_padding), groups, tuple(dilation))
    if lowering == "auto" and _half_on_cpu(x, w):   # Note [Half-precision convolution on CPU]
        return _in_float32(conv_transpose_forward, x, w, b, *args)
    if lowering == "auto":
        lowering = conv_transpose_lowering(x, w, args[0])
    if lowering == "lax":
        y = _lax_conv_transpose(x, w, *args)
    elif lowering == "adjoint":
        y = _conv_transpose_adjoint(x, w, *args)
    else:
        raise ValueError(f"unknown conv_transpose lowering {lowering!r}; expected one of "
                         f"{TRANSPOSE_LOWERINGS}")
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd).astype(y.dtype)
    return y
