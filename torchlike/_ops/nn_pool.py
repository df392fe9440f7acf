"""nn kernels: pooling (max, average and adaptive pooling in 1, 2 and 3 dimensions,
max pooling with indices, and max unpooling), declared in the op table.

Those PyTorch exposes as ``torch.X`` (``max_pool2d``, ``avg_pool1d``,
``adaptive_avg_pool1d``...) are public functions; the kernels PyTorch keeps in
``torch._C._nn`` (``avg_pool2d``, ``max_unpool2d``...) are declared with
``function=False, method=False`` and reached through ``torchlike.nn.functional``.

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

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import xla
from .._core.tensor import Tensor
from ._common import shape_str
from .nn_common import _nt, _title
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


def _lowest(dtype):
    """The identity of max in ``dtype``, as a NumPy value (a concrete constant even while
    a caller traces, so that JAX recognises ``reduce_window``'s max)."""
    dt = np.dtype(dtype)
    if jnp.issubdtype(dt, jnp.floating):
        return np.array(-np.inf, dt)
    if dt == np.bool_:
        return np.array(False)
    return np.array(np.iinfo(dt).min, dt)


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
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + ", ".join(f"k{a}: {v}" for a, v in zip("dhw"[3 - nd:], k)))
    if any(x <= 0 for x in s):
        raise RuntimeError("stride should be greater than zero, but got "
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


def _pad_after(k, s, p, d, outs, spatial) -> list:
    """Per spatial axis, the padding after the input that the last window reaches."""
    return [max(0, (o - 1) * ss + dd * (kk - 1) + 1 - i - pp)
            for o, ss, dd, kk, i, pp in zip(outs, s, d, k, spatial, p)]


def _strided_windows(x, k, s, p, d, outs):
    """Each window offset as a strided slice of the padded input, stacked last."""
    nd = len(k)
    spatial = x.shape[-nd:]
    lead = x.ndim - nd
    hi = _pad_after(k, s, p, d, outs, spatial)
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


def _max_pool_values(x, nd, kernel_size, stride, padding, dilation, ceil_mode):
    """The values of max pooling as one window maximum (Note [Portable lowering]): the
    same values as ``max_pool_with_indices``'s, without its gradient's tie rule."""
    k, s, p, d = _pool_args(nd, kernel_size, stride, padding, dilation)
    spatial = x.shape[-nd:]
    lead = x.ndim - nd
    outs = [pool_out_len(i, kk, ss, pp, dd, bool(ceil_mode))
            for i, kk, ss, pp, dd in zip(spatial, k, s, p, d)]
    hi = _pad_after(k, s, p, d, outs, spatial)
    return lax.reduce_window(x, _lowest(x.dtype), lax.max, (1,) * lead + tuple(k),
                             (1,) * lead + tuple(s),
                             [(0, 0)] * lead + [(pp, h) for pp, h in zip(p, hi)],
                             window_dilation=(1,) * lead + tuple(d))


def _max_pool_fn(nd: int, with_indices: bool):
    def fn(input, kernel_size, stride, padding, dilation, ceil_mode):
        if not with_indices and xla.portable():
            return _max_pool_values(input, nd, kernel_size, stride, padding, dilation,
                                    ceil_mode)
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
            out += [S(arr(1, 2, *sp), 3, 2, 1, True, False),
                    S(arr(2, 3, *sp, dtype="int64"), 3, 2, 1, grad=False),
                    S(arr(2, 3, *sp, dtype="int64"), 3, 2, 1, True, False, grad=False),
                    S(arr(2, 3, *sp, dtype="int32"), 2, grad=False)]
        return out
    return samples


for _nd in (1, 2, 3):
    _sig = "input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False"
    _gname = "SqueezeBackward1" if _nd == 1 else f"MaxPool{_nd}DWithIndicesBackward0"
    register(OpSpec(f"max_pool{_nd}d", _max_pool_fn(_nd, False), _sig, method=False,
                    promote="none", grad_name=_gname,
                    check=_max_pool_check(_nd, f"max_pool{_nd}d", _nd != 1),
                    samples=_pool_samples(_nd, "max"),
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
        # C++ integer division on CPU: truncation toward zero (lax.div rounds so).
        d = jnp.broadcast_to(jnp.asarray(safe, acc), tot.shape)
        out = lax.div(tot, d)
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
        dt = input.dtype
        # CPU kernels: floating types and int64 only (no half types for 3-D).
        if (not dt.is_floating_point and dt.name != "int64") or dt.is_complex or (
                nd == 3 and dt.name in ("float16", "bfloat16")):
            kernel = "avg_pool3d_out_frame" if nd == 3 else "avg_pool2d"
            from .bind import dtype_short_name
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtype_short_name(dt)}'")
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
