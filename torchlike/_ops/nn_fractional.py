"""nn kernels: fractional max pooling (``fractional_max_pool2d``/``3d``), declared in the
op table as PyTorch keeps them, in ``torch._C._nn`` (``function=False, method=False``);
``torchlike.nn.functional`` draws the random samples and calls them.

# Note [Fractional pooling intervals]
# Each (batch, channel) plane has one random sample ``u`` per spatial dim (PyTorch's
# ``_random_samples``, shape (N, C, nd); in 2-D sample 0 drives the width and sample 1 the
# height, in 3-D samples 0, 1, 2 drive time, height and width). Along a dim of size ``i``
# pooled to ``o`` outputs with a window ``k``, window ``j < o - 1`` starts at
# ``int((j + u) * alpha) - int(u * alpha)`` with ``alpha = (i - k) / (o - 1)``, and the
# last one at ``i - k``. PyTorch evaluates this in the input's dtype (``generate_intervals
# <scalar_t>``): float32 and float64 directly, float16/bfloat16 with c10's half arithmetic,
# which rounds every intermediate result to the half type. The samples are traced values,
# so the starts are computed on the device, in float32 with ``lax.reduce_precision`` after
# each operation for the half types (an explicit rounding that XLA may not drop as excess
# precision), which gives PyTorch's window starts exactly. The windows are then gathered
# and reduced like ``max_pool``'s (Note [Pooling windows] in ``nn_pool.py``): the first
# maximum of each window wins, and the gradient goes to it.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.grad_mode import is_grad_enabled
from .._core.tensor import Tensor
from ._common import shape_str
from .indexing import _type_name
from .nn_common import _nt, _title
from .nn_pool import _lowest
from .spec import OpSpec, register
from .views import normalize_args

__all__: list = []

# (exponent bits, mantissa bits) of the half types, for lax.reduce_precision
_HALF_BITS = {jnp.dtype(jnp.float16): (5, 10), jnp.dtype(jnp.bfloat16): (8, 7)}


def _rounder(dtype):
    """The op dtype's rounding after each arithmetic step (Note [Fractional pooling
    intervals]) and the float type the arithmetic runs in."""
    bits = _HALF_BITS.get(jnp.dtype(dtype))
    if bits is None:
        calc = np.float64 if jnp.dtype(dtype) == jnp.float64 else np.float32
        return (lambda v: v), calc
    return (lambda v: lax.reduce_precision(v, *bits)), np.float32


def _alpha(i: int, o: int, k: int, dtype) -> float:
    """``(i - k) / (o - 1)`` as PyTorch computes it in ``dtype`` (host side: static)."""
    if jnp.dtype(dtype) in _HALF_BITS:
        h = jnp.dtype(dtype).type
        return float(h(np.float32(h(i - k)) / np.float32(h(o - 1))))
    calc = np.float64 if jnp.dtype(dtype) == jnp.float64 else np.float32
    return float(calc(i - k) / calc(o - 1))


def _starts(sample, i: int, o: int, k: int, dtype):
    """Window starts (..., o) along one dim from per-plane samples (...)."""
    rnd, calc = _rounder(dtype)
    lead = sample.shape
    last = jnp.full(lead + (min(o, 1),), i - k, jnp.int64)
    if o <= 1:
        return last
    u = rnd(sample.astype(calc))[..., None]
    alpha = calc(_alpha(i, o, k, dtype))
    j = jnp.arange(o - 1, dtype=calc)
    hi = rnd(rnd(j + u) * alpha).astype(jnp.int64)
    lo = rnd(u * alpha).astype(jnp.int64)
    return jnp.concatenate([hi - lo, last], axis=-1)


def fractional_max_pool(x, kernel, output, samples):
    """Fractional max pooling of (N, C, *spatial) ``x`` with (N', C, nd) ``samples``
    (N' >= N); returns (values, int64 indices into each plane)."""
    nd = len(kernel)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    samples = samples[:n]
    # 2-D samples run (width, height); 3-D (time, height, width)
    order = list(range(nd))[::-1] if nd == 2 else list(range(nd))
    starts = [_starts(samples[..., order[j]], spatial[j], output[j], kernel[j], x.dtype)
              for j in range(nd)]
    strides = [int(np.prod(spatial[j + 1:], dtype=np.int64)) for j in range(nd)]
    if any(kk <= 0 for kk in kernel) or 0 in output:
        # an empty window: PyTorch leaves -inf and the window's start
        flat = 0
        for j in range(nd):
            shape = [n, c] + [1] * nd
            shape[2 + j] = output[j]
            flat = flat + starts[j].reshape(shape) * strides[j]
        out_shape = (n, c) + tuple(output)
        vals = jnp.full(out_shape, _lowest(x.dtype), x.dtype)
        return vals, jnp.broadcast_to(flat, out_shape).astype(jnp.int64)
    win = x
    for j in range(nd):
        idx = starts[j][..., None] + jnp.arange(kernel[j])
        idx = jnp.clip(idx, 0, spatial[j] - 1).reshape(
            (n, c) + (1,) * j + (output[j] * kernel[j],) + (1,) * (nd - 1 - j))
        win = jnp.take_along_axis(win, idx, axis=2 + j)
    split = tuple(v for o, kk in zip(output, kernel) for v in (o, kk))
    win = win.reshape((n, c) + split)
    perm = (0, 1) + tuple(2 + 2 * j for j in range(nd)) + tuple(3 + 2 * j for j in range(nd))
    win = jnp.transpose(win, perm).reshape((n, c) + tuple(output) +
                                           (int(np.prod(kernel, dtype=np.int64)),))
    kidx = jnp.argmax(win, axis=-1)
    vals = jnp.take_along_axis(win, kidx[..., None], axis=-1)[..., 0]
    flat = jnp.zeros(kidx.shape, jnp.int64)
    rem = kidx.astype(jnp.int64)
    for j in reversed(range(nd)):
        shape = [n, c] + [1] * nd
        shape[2 + j] = output[j]
        pos = starts[j].reshape(shape) + rem % kernel[j]
        rem = rem // kernel[j]
        flat = flat + pos * strides[j]
    return vals, flat


def _fractional_fn(nd: int):
    def fn(input, kernel_size, output_size, random_samples):
        batched = input.ndim == nd + 2
        x = input if batched else input[None]
        v, i = fractional_max_pool(x, _nt(kernel_size, nd), _nt(output_size, nd),
                                   random_samples)
        return (v, i) if batched else (v[0], i[0])
    return fn


def _sizes_arg(nd: int, name: str, pos: int):
    """PyTorch's parser for an ``int[nd]`` parameter: an int or a sequence of ints."""
    def norm(vals):
        v = vals[pos]
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return (int(v),) * nd
        if isinstance(v, (tuple, list)) and all(isinstance(e, (int, np.integer))
                                                and not isinstance(e, bool) for e in v):
            return tuple(int(e) for e in v)
        raise TypeError(f"fractional_max_pool{nd}d(): argument '{name}' (position {pos + 1}) "
                        f"must be tuple of ints, not {type(v).__name__}")
    return norm


def _fractional_check(nd: int):
    name = f"fractional_max_pool{nd}d"
    where = f"{name}()" if nd == 2 else f"{name}_out()"
    ints = "tuple of Ints" if nd == 2 else "tuple of three Ints"
    dims = ("height", "width") if nd == 2 else ("time", "height", "width")

    def check(input, kernel_size, output_size, random_samples):
        for arg, v in (("input", input), ("random_samples", random_samples)):
            if not isinstance(v, Tensor):
                raise TypeError(f"{name}(): argument '{arg}' (position "
                                f"{1 if arg == 'input' else 4}) must be Tensor, not "
                                f"{_type_name(v)}")
        if random_samples.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to "
                               "argument 'random_samples'. This input cannot have "
                               "requires_grad True.")
        if len(kernel_size) != nd:
            raise RuntimeError(f"{name}: kernel_size must either be a single Int or {ints}")
        if len(output_size) != nd:
            raise RuntimeError(f"{name}: output_size must either be a single Int or {ints}")
        dim = input.dim()
        if dim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{where}: Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                               f"{shape_str(input.shape)}")
        for j in range(1, dim):
            if input.shape[j] == 0:
                raise RuntimeError(f"{where}: Expected input to have non-zero size for "
                                   f"non-batch dimensions, but got{shape_str(input.shape)} "
                                   f"with dimension {j} being empty.")
        spatial = input.shape[-nd:]
        for d, o, k, i in zip(dims, output_size, kernel_size, spatial):
            # PyTorch's 3-D kernel wants one spare position more than the 2-D one
            if o + k - 1 > i - (nd == 3):
                raise RuntimeError(f"{where}: pool {d} {k} too large relative to input {d} "
                                   f"{i}")
        if any(o < 0 for o in output_size):
            o = next(o for o in output_size if o < 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: "
                               f"{shape_str(tuple(input.shape[:-nd]) + tuple(output_size))}")
        if random_samples.dtype != input.dtype:
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f'"{name}_out_frame" not implemented for '
                                      f"'{_title(input.dtype)}'")
        if random_samples.dim() != 3:
            raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got "
                               f"{random_samples.dim()}")
        batch, chan = (1, input.shape[0]) if dim == nd + 1 else input.shape[:2]
        if random_samples.shape[0] < batch:
            raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
        if random_samples.shape[1] != chan:
            raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
        if random_samples.shape[2] != nd:
            raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                               f"{random_samples.shape[2]}.")
    return check


for _nd in (2, 3):
    register(OpSpec(f"fractional_max_pool{_nd}d", _fractional_fn(_nd),
                    "input, kernel_size, output_size, random_samples",
                    tensor_args=("input", "random_samples"), promote="none", method=False,
                    function=False, nondiff_outputs=(1,),
                    grad_name=f"FractionalMaxPool{_nd}DBackward0",
                    check=_fractional_check(_nd),
                    doc=f"Mirrors ``torch._C._nn.fractional_max_pool{_nd}d(input, "
                        "kernel_size, output_size, random_samples)``: (values, indices)."))
    normalize_args(f"fractional_max_pool{_nd}d",
                   kernel_size=_sizes_arg(_nd, "kernel_size", 1),
                   output_size=_sizes_arg(_nd, "output_size", 2))
