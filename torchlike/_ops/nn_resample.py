"""nn kernels: resampling (``upsample`` for ``F.interpolate``, antialiased or not),
padding (``constant_pad_nd``, reflection, replication and circular padding), pixel
shuffle and unshuffle, channel shuffle, and grid sampling (``grid_sampler``,
``affine_grid_generator``), declared in the op table.

Those PyTorch exposes as ``torch.X`` (``constant_pad_nd``, ``pixel_shuffle``,
``channel_shuffle``, ``grid_sampler``...) are public functions; the kernels PyTorch keeps
in ``torch._C._nn`` (``upsample_bilinear2d``, ``reflection_pad2d``...) are declared with
``function=False, method=False`` and reached through ``torchlike.nn.functional``.

# Note [Antialiased resampling]
# ``interpolate(..., antialias=True)`` (bilinear, bicubic) is PyTorch's separable
# ``_upsample_*2d_aa``: each output position ``k`` of a dim averages the inputs within
# ``support`` of its centre ``scale * (k + 0.5)``, weighted by the triangle (bilinear) or
# Keys' cubic with a = -0.5 (bicubic) stretched by ``scale`` when downsampling, and
# normalised to sum to one. ``align_corners`` only changes ``scale``. The weights depend
# on sizes alone, so they are computed on the host in the op's float type, step by step
# as PyTorch's ``_compute_weights_aa`` rounds them, and the resampling is a sum of
# weighted gathers, the last dim first. PyTorch's forward leaves a dim whose size does not
# change alone while its backward resamples it (not the identity when a scale_factor such
# as 1.1 kept the size); a custom VJP gives both.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.xla import matmul_precision
from ._common import shape_str
from .elementwise_common import checks, tensors_only
from .histogram import _no_derivative
from .samples import S, arr
from .spec import OpSpec, register
from .view_scatter import _int_arg
from .views import normalize_args

__all__: list = []


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


def _aa_filter(mode: str, x, dt):
    """PyTorch's antialias filters: the triangle, and Keys' cubic with a = -0.5."""
    x = np.abs(x).astype(dt)
    if mode == "linear_aa":
        return np.where(x < 1, (dt(1) - x).astype(dt), dt(0)).astype(dt)
    a = dt(-0.5)
    c1 = ((a + dt(2)) * x - (a + dt(3))) * x * x + dt(1)
    c2 = ((a * x - dt(5) * a) * x + dt(8) * a) * x - dt(4) * a
    return np.where(x < 1, c1, np.where(x < 2, c2, dt(0))).astype(dt)


def _aa_taps(mode: str, i: int, o: int, scale, align_corners: bool, dt):
    """PyTorch's ``_compute_index_ranges_weights`` with ``antialias=True`` (Note
    [Antialiased resampling]): per tap, (source index, weight) arrays over the outputs."""
    s = _scale(i, o, scale, align_corners, dt)
    interp = 2 if mode == "linear_aa" else 4
    support = dt(interp * 0.5 * float(s)) if s >= 1 else dt(interp * 0.5)
    ntaps = int(np.ceil(support)) * 2 + 1
    invscale = dt(1.0 / float(s)) if s >= 1 else dt(1)
    center = (float(s) * (np.arange(o) + 0.5)).astype(dt)
    xmin = np.maximum((center - support).astype(np.float64) + 0.5, 0).astype(np.int64)
    xmax = np.minimum(((center + support).astype(np.float64) + 0.5).astype(np.int64), i)
    xsize = np.clip(xmax - xmin, 0, ntaps)
    j = np.arange(ntaps)[None, :]
    used = j < xsize[:, None]
    pos = (j + xmin[:, None]).astype(dt)
    arg = (((pos - center[:, None]).astype(dt).astype(np.float64) + 0.5)
           * float(invscale)).astype(dt)
    w = np.where(used, _aa_filter(mode, arg, dt), dt(0)).astype(dt)
    total = np.zeros(o, dt)
    for t in range(ntaps):   # in order, as PyTorch sums them
        total = (total + w[:, t]).astype(dt)
    w = np.where(total[:, None] != 0, w / np.where(total == 0, dt(1), total)[:, None],
                 w).astype(dt)
    idx = np.where(used, j + xmin[:, None], np.minimum(xmin, i - 1)[:, None])
    return [(idx[:, t], w[:, t]) for t in range(ntaps)]


def _resample(x, output_size, mode, align_corners, scales, skip_equal: bool):
    nd = len(output_size)
    dt = np.float64 if x.dtype == jnp.float64 else np.float32
    aa = mode.endswith("_aa")
    # the antialiased kernels resample the last dim first
    for j in (reversed(range(nd)) if aa else range(nd)):
        o = output_size[j]
        ax = x.ndim - nd + j
        i = x.shape[ax]
        sc = scales[j] if scales else None
        if o == i and (skip_equal or (mode in ("nearest", "nearest-exact") and not sc)):
            continue
        acc = None
        taps = (_aa_taps if aa else _taps)(mode, i, o, sc, bool(align_corners), dt)
        for idx, w in taps:
            term = jnp.take(x, jnp.asarray(idx), axis=ax)
            if w is not None:
                term = term * jnp.asarray(w.reshape((-1,) + (1,) * (x.ndim - ax - 1)), x.dtype)
            acc = term if acc is None else acc + term
        x = acc
    return x


def _is_identity(taps, n: int) -> bool:
    return all(np.array_equal(w, (idx == np.arange(n)).astype(w.dtype)) for idx, w in taps)


def upsample(x, output_size, mode, align_corners, scales):
    if not mode.endswith("_aa"):
        return _resample(x, output_size, mode, align_corners, scales, False)
    # Note [Antialiased resampling]: a dim of unchanged size is skipped forward only
    nd = len(output_size)
    dt = np.float64 if x.dtype == jnp.float64 else np.float32
    same = [j for j in range(nd) if output_size[j] == x.shape[x.ndim - nd + j]]
    if all(_is_identity(_aa_taps(mode, output_size[j], output_size[j],
                                 scales[j] if scales else None, bool(align_corners), dt),
                        output_size[j]) for j in same):
        return _resample(x, output_size, mode, align_corners, scales, True)

    def forward(v):
        return _resample(v, output_size, mode, align_corners, scales, True)

    def full(v):
        return _resample(v, output_size, mode, align_corners, scales, False)

    # forward values, derivatives of the full resampling (which is linear): its tangent
    # is ``full`` of the tangent, its VJP (JAX's transpose of that) ``full``'s transpose,
    # so forward mode works too
    resample = jax.custom_jvp(forward)
    resample.defjvp(lambda v, t: (forward(*v), full(*t)))
    return resample(x)


_UP_NAMES = {"nearest": "UpsampleNearest{}DBackward0",
             "nearest-exact": "UpsampleNearestExact{}DBackward0",
             "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
             "cubic": "UpsampleBicubic2DBackward0", "trilinear": "UpsampleTrilinear3DBackward0",
             "linear_aa": "UpsampleBilinear2DAaBackward0",
             "cubic_aa": "UpsampleBicubic2DAaBackward0"}


def _upsample_name(input, output_size, mode, align_corners=None, scales=None):
    return _UP_NAMES[mode].format(len(output_size))


def _upsample_check(input, output_size, mode, align_corners=None, scales=None):
    if mode.endswith("_aa") and input.dtype.name not in ("float32", "float64"):
        from .bind import dtype_short_name
        raise NotImplementedError('"compute_index_ranges_weights" not implemented for '
                                  f"'{dtype_short_name(input.dtype)}'")


register(OpSpec("upsample", lambda input, output_size, mode, align_corners, scales:
                upsample(input, output_size, "linear" if mode in ("linear", "bilinear",
                                                                  "trilinear") else mode,
                         align_corners, scales),
                "input, output_size, mode, align_corners=None, scales=None", promote="none",
                method=False, function=False, grad_name=_upsample_name, check=_upsample_check,
                doc="The ``torch._C._nn.upsample_*`` kernels, one op with a static mode "
                    "(``linear_aa``/``cubic_aa``: ``_upsample_bilinear2d_aa``/"
                    "``_upsample_bicubic2d_aa``, float32 and float64 only)."))


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


def _circular_steps(shape, padding):
    """PyTorch's ``_pad_circular``: the output shape and the (dim, out slice, source
    slice) copies, in order; the source is the input for the first copy and the output
    being built for the others."""
    nd = len(padding) // 2
    lead = len(shape) - nd
    out_shape = list(shape)
    for i in range(nd):
        out_shape[lead + i] = shape[lead + i] + padding[2 * (nd - i - 1)] + \
            padding[2 * (nd - i - 1) + 1]
    first_out = [slice(None)] * len(shape)
    first_in = [slice(None)] * len(shape)
    later = []
    for i in range(nd):
        d = nd - i + lead - 1
        lo, hi = padding[2 * i], padding[2 * i + 1]
        first_out[d] = slice(max(lo, 0), out_shape[d] - max(hi, 0))
        first_in[d] = slice(max(-lo, 0), shape[d] - max(-hi, 0))
    for i in range(nd):
        d = nd - i + lead - 1
        lo, hi = padding[2 * i], padding[2 * i + 1]
        if lo > 0:
            later.append((d, slice(0, lo), slice(out_shape[d] - lo - max(hi, 0),
                                                  out_shape[d] - max(hi, 0))))
        if hi > 0:
            later.append((d, slice(out_shape[d] - hi, out_shape[d]),
                          slice(max(lo, 0), max(lo, 0) + hi)))
    return out_shape, tuple(first_out), tuple(first_in), later


def _circular_pad_fn(input, padding):
    out_shape, fo, fi, later = _circular_steps(input.shape, padding)
    out = jnp.zeros(out_shape, input.dtype).at[fo].set(input[fi])
    for d, o, i in later:
        n = out.shape[d]
        ro, ri = range(*o.indices(n)), range(*i.indices(n))
        if set(ro) & set(ri) and len(ro) == len(ri):
            # overlapping copy_: PyTorch's kernel copies element by element, in order
            for a, b in zip(ro, ri):
                out = out.at[(slice(None),) * d + (a,)].set(out[(slice(None),) * d + (b,)])
            continue
        out = out.at[(slice(None),) * d + (o,)].set(out[(slice(None),) * d + (i,)])
    return out


def _mode_pad_fn(jmode: str):
    if jmode == "wrap":
        return _circular_pad_fn

    def fn(input, padding):
        # PyTorch reads output index j from input index j - lo (reflected or clamped), so
        # negative padding crops: pad the positive parts, then slice off the negative ones.
        pairs = _pad_pairs(input.ndim, padding)
        x = jnp.pad(input, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs], mode=jmode)
        return x[tuple(slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
                       for d, (lo, hi) in enumerate(pairs))]
    return fn


def _slice_len(sl, n):
    return len(range(*sl.indices(n)))


def _mode_pad_check(kind: str, nd: int):
    def check(input, padding):
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                               f"possibly 0 batch size and other non-zero dimensions for input, "
                               f"but got: {shape_str(input.shape)}")
        shape = tuple(input.shape)
        if kind == "circular":
            lead = len(shape) - nd
            for i in range(nd):
                size = shape[lead + i]
                lo, hi = padding[2 * (nd - i - 1)], padding[2 * (nd - i - 1) + 1]
                if not (lo <= size and hi <= size):
                    raise RuntimeError("Padding value causes wrapping around more than once.")
                if size + lo + hi < 0:
                    raise RuntimeError(
                        "Negative padding value is resulting in an empty dimension")
            out_shape, fo, fi, later = _circular_steps(shape, padding)
            full = [slice(None)] * len(shape)
            steps = [(out_shape, fo, shape, fi)]
            for d, o, i in later:
                so, si = list(full), list(full)
                so[d], si[d] = o, i
                steps.append((out_shape, tuple(so), out_shape, tuple(si)))
            for oshape, o, ishape, i in steps:
                a = [_slice_len(sl, n) for sl, n in zip(o, oshape)]
                b = [_slice_len(sl, n) for sl, n in zip(i, ishape)]
                for d in range(len(a) - 1, -1, -1):
                    if a[d] != b[d] and b[d] != 1:
                        if a[d] == 1:
                            raise RuntimeError(
                                f"output with shape {shape_str(a)} doesn't match the "
                                f"broadcast shape {shape_str([max(x, y) for x, y in zip(a, b)])}")
                        raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size "
                                           f"of tensor b ({b[d]}) at non-singleton dimension "
                                           f"{d}")
            return
        outs = []
        for j in range(nd):
            d = input.dim() - 1 - j
            lo, hi = padding[2 * j], padding[2 * j + 1]
            size = shape[d]
            if kind == "reflect" and (lo >= size or hi >= size):
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, "
                                   f"{hi}) at dimension {d} of input {shape_str(input.shape)}")
            outs.append(size + lo + hi)
        outs = outs[::-1]
        sizes = shape[-nd:]
        if all(o < 1 for o in outs):   # PyTorch checks that some dim is non-empty
            if nd == 1:
                msg = f"input (W: {sizes[0]}) is too small. Calculated output W: {outs[0]}"
            elif nd == 2:
                gap = " " if kind == "replicate" else ""
                msg = (f"input (H: {sizes[0]}, W: {sizes[1]}{gap}) is too small. Calculated "
                       f"output H: {outs[0]} W: {outs[1]}")
            else:
                msg = (f"input (D: {sizes[0]} H: {sizes[1]}, W: {sizes[2]}) is too small. "
                       f"Calculated output D: {outs[0]} H: {outs[1]} W: {outs[2]}")
            raise RuntimeError(msg)
        if any(o < 0 for o in outs):
            full = list(shape[:-nd]) + outs
            neg = next(o for o in outs if o < 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: "
                               f"{shape_str(full)}")
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
# channel shuffle
def _channel_shuffle(input, groups):
    """(N, g*k, *) -> (N, k*g, *): channel ``j*g + i`` of the result is channel ``i*k + j``
    of ``input`` (PyTorch's view as (N, g, k, -1), swap, view back)."""
    n, c = input.shape[:2]
    x = input.reshape((n, groups, c // groups, int(np.prod(input.shape[2:]))))
    return jnp.swapaxes(x, 1, 2).reshape(input.shape)


_NATIVE_SHUFFLE_ND = _no_derivative("native_channel_shuffle")


def _native_channel_shuffle(input, groups):
    return _NATIVE_SHUFFLE_ND(lax.stop_gradient(_channel_shuffle(input, groups)), (input,))


def _channel_shuffle_check(input, groups):
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {shape_str(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")


def _channel_shuffle_samples():
    return [S(arr(2, 6, 3, 4), 3), S(arr(1, 6, 5), 2), S(arr(2, 4, 2, 2, 2), 4),
            S(arr(3, 5, 2), 1), S(arr(2, 6, 3, dtype="int64"), 3, grad=False),
            S(arr(0, 6, 2), 2)]


for _name, _fn, _gname in (
        ("channel_shuffle", _channel_shuffle, "ChannelShuffleBackward0"),
        ("native_channel_shuffle", _native_channel_shuffle, "torch::autograd::NotImplemented")):
    register(OpSpec(_name, _fn, "input, groups", promote="none", method=False, saves=False,
                    grad_name=_gname,
                    check=checks(tensors_only(_name, ("input",), (0,)), _channel_shuffle_check),
                    samples=_channel_shuffle_samples if _name == "channel_shuffle" else (
                        lambda: [S(arr(2, 6, 3, 4), 3, grad=False),
                                 S(arr(2, 6, 3, dtype="int64"), 2, grad=False)]),
                    doc=f"Mirrors ``torch.{_name}``: split the channels (dim 1) into "
                        "``groups`` groups and interleave them."
                        + (" As in PyTorch, it has no derivative: backward through it raises "
                           "\"derivative for aten::native_channel_shuffle is not "
                           "implemented\"." if _name.startswith("native") else "")))
    normalize_args(_name, groups=_int_arg(_name, "groups", 1))


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


def _pad_coord(c, size: int, padding_mode: int, align_corners: bool):
    """PyTorch's ``compute_coordinates``: border clips, reflection reflects then clips."""
    if padding_mode == 1:
        c = jnp.clip(c, 0, size - 1)
    elif padding_mode == 2:
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = jnp.clip(c, 0, size - 1)
    return c


def _source_index(coord, size: int, padding_mode: int, align_corners: bool):
    return _pad_coord(_unnormalize(coord, size, align_corners), size, padding_mode,
                      align_corners)


def _cubic_coeffs(t):
    """PyTorch's ``get_cubic_upsample_coefficients`` (A = -0.75) at offsets t+1, t, 1-t,
    2-t, in the dtype of ``t``."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample(x, grid, mode: int, padding_mode: int, align_corners: bool):
    """x (N, C, *in) sampled at grid (N, *out, nd) with coordinates (x, y[, z])."""
    nd = x.ndim - 2
    n, c = x.shape[:2]
    insz = x.shape[2:]
    out_sp = grid.shape[1:-1]
    # grid's last axis lists (x, y, z): the last spatial dim first
    if mode == 2:
        coords = [_unnormalize(grid[..., nd - 1 - j], insz[j], align_corners)
                  for j in range(nd)]
    else:
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
    if mode == 2:  # bicubic, 2-D only: the padding applies to each of the 4x4 taps
        cy, cx = (_cubic_coeffs(coords[j] - lo[j]) for j in range(2))
        tap = [[_pad_coord(lo[j] + (m - 1), insz[j], padding_mode, align_corners)
                .astype(jnp.int64) for m in range(4)] for j in range(2)]
        out = None
        for r in range(4):   # along x in each of 4 rows, then along y, as PyTorch
            row = None
            for m in range(4):
                v, ok = gather([tap[0][r], tap[1][m]])
                term = jnp.where(ok, v, jnp.zeros((), x.dtype)) * cx[m][:, None]
                row = term if row is None else row + term
            out = cy[r][:, None] * row if out is None else out + cy[r][:, None] * row
        return out
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
    """PyTorch's checks, in its order: batch size, grid's last dim, empty spatial dims,
    the number of dims, bicubic in 3-D, then the dtypes."""
    sizes = (f"but got input with sizes {shape_str(input.shape)} and grid with sizes "
             f"{shape_str(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"{sizes}")
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {shape_str(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {shape_str(input.shape)} with "
                               f"dimension {i} being empty")
    want = 4 if input.dim() == 4 else 5
    if input.dim() != want or grid.dim() != want:
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number "
                           f"of dimensions, {sizes}")
    if interpolation_mode == 2 and nd == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:
        from .nn_loss import _long
        raise RuntimeError(f"expected scalar type {_long(input.dtype)} but found "
                           f"{_long(grid.dtype)}")


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
                      rtol=1e-4, atol=1e-5),
                    S(arr(2, 2, 5, 6), arr(2, 3, 4, 2, low=-1.3, high=1.3), 2, 0, False,
                      rtol=1e-4, atol=1e-5),
                    S(arr(1, 2, 4, 5), arr(1, 3, 3, 2, low=-1.6, high=1.6), 2, 1, True,
                      rtol=1e-4, atol=1e-5),
                    S(arr(1, 2, 4, 5, dtype="float64"), arr(1, 3, 3, 2, low=-2.5, high=2.5,
                                                            dtype="float64"), 2, 2, False)],
                doc="Mirrors ``torch.grid_sampler`` (modes 0 bilinear, 1 nearest, 2 bicubic "
                    "(4-D only); padding 0 zeros, 1 border, 2 reflection)."))


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
    out = jnp.einsum("pk,njk->npj", base, theta, precision=matmul_precision())
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
