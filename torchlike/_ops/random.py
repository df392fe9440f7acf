"""Random sampling: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
``bernoulli``, ``multinomial``, ``poisson``, ``binomial``, the ``*_like`` variants and the in-place
``Tensor.normal_``/``uniform_``/``bernoulli_``/``exponential_``/``random_``/``cauchy_``/
``log_normal_``/``geometric_``.

Random ops are not table ops: their values cannot be compared with PyTorch's, so they
have no parity samples. Each draw takes ``(key, counter)`` from a ``Generator`` (the
default one unless ``generator=`` is given, see Note [RNG is state] in
``_core/random.py``) and runs one cached ``jax.jit`` executable per (distribution,
shape, dtype), on the device the result lives on. In-place variants write through
views with ``Tensor._set_value``, so ``w.data.normal_(0, 0.02)`` changes ``w``.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.memory_formats import memory_format, preserve_format
from .._core.grad_mode import is_grad_enabled
from .._core.random import Generator, default_generator, drawn_flat
from .._core.tensor import Tensor
from ._common import broadcast_shapes_or_raise
from .bind import check_inplace_target, dtype_short_name
from .creation import _size_arg, _target_device, like_strides
from .spec import OpSpec, register
from .torch_function import mode_visible, overridable

__all__ = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial",
           "poisson", "binomial", "rand_like", "randn_like", "randint_like"]


# ---------------------------------------------------------------------------
# the compiled samplers: (key data, counter, static shape/dtype, parameters) -> array
def _fold(key, counter):
    return jax.random.fold_in(jax.random.wrap_key_data(key, impl="threefry2x32"), counter)


def _real_np(dt: np.dtype) -> np.dtype:
    return np.empty((), dt).real.dtype


@functools.partial(jax.jit, static_argnums=(2, 3))
def _uniform(key, counter, shape, dtype, low, high):
    k = _fold(key, counter)
    dt = np.dtype(dtype)
    if np.issubdtype(dt, np.complexfloating):
        kr, ki = jax.random.split(k)
        r = _real_np(dt)
        return (drawn_flat(lambda s: jax.random.uniform(kr, s, r, low, high), shape) +
                1j * drawn_flat(lambda s: jax.random.uniform(ki, s, r, low, high), shape)
                ).astype(dt)
    return drawn_flat(lambda s: jax.random.uniform(k, s, dt, low, high), shape)


@functools.partial(jax.jit, static_argnums=(2, 3))
def _normal(key, counter, shape, dtype, mean, std):
    k = _fold(key, counter)
    return mean + std * drawn_flat(lambda s: jax.random.normal(k, s, np.dtype(dtype)), shape)


@functools.partial(jax.jit, static_argnums=(2, 3))
def _randint(key, counter, shape, dtype, low, high):
    dt = np.dtype(dtype)
    draw_dt = dt if np.issubdtype(dt, np.integer) else np.int64
    k = _fold(key, counter)
    v = drawn_flat(lambda s: jax.random.randint(k, s, low, high, draw_dt), shape)
    return v.astype(dt)


@functools.partial(jax.jit, static_argnums=(2, 3))
def _permutation(key, counter, n, dtype):
    return jax.random.permutation(_fold(key, counter), n).astype(np.dtype(dtype))


@jax.jit
def _bernoulli(key, counter, p):
    k = _fold(key, counter)
    dt = _real_np(p.dtype) if np.issubdtype(p.dtype, np.floating) else np.float32
    return drawn_flat(lambda s: jax.random.uniform(k, s, dt), p.shape) < p


@functools.partial(jax.jit, static_argnums=(3, 4))
def _multinomial(key, counter, probs, n, replacement):
    k = _fold(key, counter)
    logits = jnp.log(probs)
    if replacement:
        shape = probs.shape[:-1] + (n,)
        return jax.random.categorical(k, logits[..., None, :], axis=-1, shape=shape)
    gumbel = drawn_flat(lambda s: jax.random.gumbel(k, s, probs.dtype), probs.shape)
    return jax.lax.top_k(logits + gumbel, n)[1]


@jax.jit
def _poisson(key, counter, lam):
    return jax.random.poisson(_fold(key, counter), lam, lam.shape).astype(lam.dtype)


# Note [Binomial draws, padded]
# ``jax.random.binomial`` is a large program (inversion for small means, rejection
# otherwise) that takes about a second to compile, once per shape. ``binomial`` therefore
# draws over the flattened values padded to a power of two (at least 64), so that a few
# executables serve every shape; padding lanes draw with count 0 and are dropped. Inside a
# compiled step the padding is traced too, and the draws are the eager ones.
def _bucket(n: int) -> int:
    return max(64, 1 << max(n - 1, 0).bit_length())


@jax.jit
def _binomial(key, counter, count, prob):
    return jax.random.binomial(_fold(key, counter), count, prob, count.shape, count.dtype)


def _binomial_padded(key, counter, count, prob):
    shape = count.shape
    n = int(np.prod(shape, dtype=np.int64))
    pad = _bucket(n) - n
    c = jnp.pad(jnp.ravel(count), (0, pad))
    p = jnp.pad(jnp.ravel(prob), (0, pad), constant_values=0.5)
    return _binomial(key, counter, c, p)[:n].reshape(shape)


# ---------------------------------------------------------------------------
# helpers
def _gen(generator) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torchlike.Generator as generator, but got "
                        f"{type(generator).__name__}")
    return generator


# Note [Eager draws share executables]
# Each sampler is one ``jax.jit`` per static shape, and XLA's CPU compiler takes 0.1-0.3 s
# over the threefry program whatever its size, so building a model, whose parameters
# have as many element counts as shapes, used to compile one sampler per parameter: ten
# for LeNet. The samplers draw flat (Note [Random draws are flat]) and threefry numbers
# each element by its position, so the first ``n`` numbers of a longer draw under the
# same key are the ``n``-element draw, bit for bit (the elementwise transforms after the
# bits - scaling, ``erf_inv``, ``randint``'s modular step - keep that). An eager draw on
# the CPU therefore asks for a bucket of elements, a power of two of at least 4096, and
# keeps the first ``n``: LeNet's ten parameters take three executables, and the next
# model's share them. The prefix is cut on the host (reading a CPU array is a view), not
# with a sliced program, which would compile once per (bucket, n) again. A count that
# has been drawn ``_EXACT_AFTER`` times gets its own executable, so a loop that draws
# the same size (eager dropout, noise inputs) stops paying for the unused part of its
# bucket; counts above ``_BUCKET_MAX`` (run time then outweighs compilation) and draws
# inside a trace always draw exactly.
_BUCKETED = frozenset((_uniform, _normal, _randint))
_BUCKET_MIN = 1 << 12
_BUCKET_MAX = 1 << 22
_EXACT_AFTER = 8
_drawn_counts: dict = {}


def _bucket_draw(sampler, key, counter, jdev, shape, *rest):
    """``sampler``'s draw of ``shape`` through a bucketed executable, or None where the
    exact one serves (Note [Eager draws share executables])."""
    if jdev.platform != "cpu" or isinstance(counter, jax.core.Tracer) or \
            isinstance(key, jax.core.Tracer):
        return None
    n = math.prod(shape)
    if n == 0 or n > _BUCKET_MAX:
        return None
    k = (sampler, n, rest[0])
    seen = _drawn_counts.get(k, 0)
    if seen >= _EXACT_AFTER:
        return None
    _drawn_counts[k] = seen + 1
    b = max(_BUCKET_MIN, 1 << (n - 1).bit_length())
    if b == n:
        return None
    flat = sampler(jax.device_put(key, jdev), counter, (b,), *rest)
    if isinstance(flat, jax.core.Tracer):   # drawn inside a transformation (vmap)
        return flat[:n].reshape(shape)
    return jax.device_put(np.asarray(flat)[:n].reshape(shape), jdev)


def _draw(sampler, generator, jdev, *args):
    key, counter = _gen(generator)._take()
    if sampler in _BUCKETED:
        arr = _bucket_draw(sampler, key, counter, jdev, *args)
        if arr is not None:
            return arr
    return sampler(jax.device_put(key, jdev), counter, *args)


def _finish(arr, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype, kernel: str) -> _dt.dtype:
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype_short_name(dt)}'")
    return dt


def _check_out(out) -> None:
    if out is not None:
        raise NotImplementedError("torchlike random functions do not support out=; assign "
                                  "the result instead")


def _tensor_device(t: Tensor):
    """The JAX device of ``t``'s array; of its ``device`` while it is traced (a traced
    value has no devices to ask)."""
    v = t._value
    if isinstance(v, jax.core.Tracer):
        return _target_device(t.device)
    return next(iter(v.devices()))


# ---------------------------------------------------------------------------
# factories
@mode_visible
def rand(*size, generator: Generator | None = None, out=None, dtype=None, layout=None,
         device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.rand``: uniform on [0, 1). Complex dtypes draw both parts so."""
    _check_out(out)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    shape = _size_arg(size)
    arr = _draw(_uniform, generator, _target_device(device), shape, dt.np, 0.0, 1.0)
    return _finish(arr, requires_grad)


@mode_visible
def randn(*size, generator: Generator | None = None, out=None, dtype=None, layout=None,
          device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.randn``: standard normal (complex: each part of variance 1/2)."""
    _check_out(out)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    shape = _size_arg(size)
    arr = _draw(_normal, generator, _target_device(device), shape, dt.np, 0.0, 1.0)
    return _finish(arr, requires_grad)


def _check_range(low: int, high: int) -> None:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")


@mode_visible
def randint(*args, generator: Generator | None = None, out=None, dtype=None, layout=None,
            device=None, requires_grad: bool = False, pin_memory: bool = False,
            **kwargs) -> Tensor:
    """Mirrors ``torch.randint(low=0, high, size)``: integers in [low, high), int64 unless
    ``dtype`` says otherwise."""
    _check_out(out)
    low = kwargs.pop("low", None)
    high = kwargs.pop("high", None)
    size = kwargs.pop("size", None)
    if kwargs:
        raise TypeError(f"randint() got unexpected keyword arguments {sorted(kwargs)}")
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list)):
        size = pos.pop()
    if high is None and pos:
        high = pos.pop()
    if low is None:
        low = pos.pop() if pos else 0
    if size is None or high is None or pos:
        raise TypeError("randint() received an invalid combination of arguments - expected "
                        "(int high, tuple of ints size) or (int low, int high, tuple of ints "
                        "size)")
    low, high = int(low), int(high)
    _check_range(low, high)
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    arr = _draw(_randint, generator, _target_device(device), _size_arg((size,)), dt.np,
                low, high)
    return _finish(arr, requires_grad)


@mode_visible
def randperm(n: int, *, generator: Generator | None = None, out=None, dtype=None,
             layout=None, device=None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.randperm``: a random permutation of ``0..n-1`` (int64)."""
    _check_out(out)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.int64
    arr = _draw(_permutation, generator, _target_device(device), n, dt.np)
    return _finish(arr, requires_grad)


@overridable
def rand_like(input: Tensor, *, generator: Generator | None = None, dtype=None, layout=None,
              device=None, requires_grad: bool = False,
              memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.rand_like``. ``memory_format`` gives the strides as for
    ``empty_like`` (default ``preserve_format``: ``input``'s when non-overlapping and
    dense)."""
    stride = like_strides("rand_like", input, memory_format)
    return rand(input._shape, generator=generator, dtype=dtype or input.dtype,
                device=device or input.device, requires_grad=requires_grad)._lay_out(stride)


@overridable
def randn_like(input: Tensor, *, generator: Generator | None = None, dtype=None, layout=None,
               device=None, requires_grad: bool = False,
               memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.randn_like``. ``memory_format`` gives the strides as for
    ``empty_like`` (default ``preserve_format``: ``input``'s when non-overlapping and
    dense)."""
    stride = like_strides("randn_like", input, memory_format)
    return randn(input._shape, generator=generator, dtype=dtype or input.dtype,
                 device=device or input.device, requires_grad=requires_grad)._lay_out(stride)


@overridable
def randint_like(input: Tensor, low: int = 0, high: int | None = None, *,
                 generator: Generator | None = None, dtype=None, layout=None, device=None,
                 requires_grad: bool = False,
                 memory_format: memory_format | None = preserve_format) -> Tensor:
    """Mirrors ``torch.randint_like(input, high)`` / ``(input, low, high)``.
    ``memory_format`` gives the strides as for ``empty_like`` (default
    ``preserve_format``: ``input``'s when non-overlapping and dense)."""
    stride = like_strides("randint_like", input, memory_format)
    if high is None:
        low, high = 0, low
    return randint(low, high, input._shape, generator=generator, dtype=dtype or input.dtype,
                   device=device or input.device, requires_grad=requires_grad)._lay_out(stride)


# ---------------------------------------------------------------------------
# normal: four overloads; tensor mean/std give PyTorch's (zero) gradients
def _normal_affine(mean, std, noise):
    # PyTorch's normal() is not reparameterised: gradients w.r.t. mean and std are zero.
    return jax.lax.stop_gradient(mean + std * noise)


def _normal_grad_name(mean, std, noise):
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return "NormalBackward3"
    return "NormalBackward1" if isinstance(mean, Tensor) else "NormalBackward2"


register(OpSpec(
    "_normal_affine", _normal_affine, "mean, std, noise",
    tensor_args=("mean", "std", "noise"), promote="common", promote_args=("mean", "std"),
    method=False, function=False, grad_name=_normal_grad_name, saves=False,
    samples=lambda: []))


@mode_visible
def normal(mean=0.0, std=1.0, size=None, *, generator: Generator | None = None, out=None,
           dtype=None, layout=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Mirrors ``torch.normal``: ``normal(mean_tensor, std_tensor)``,
    ``normal(mean_tensor, std=1.0)``, ``normal(mean_float, std_tensor)`` (broadcast
    shapes) and ``normal(mean, std, size)``. Gradients w.r.t. tensor ``mean``/``std``
    are zero, as in PyTorch."""
    _check_out(out)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - with "
                            "float mean and std, size is required")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
        dt = _float_dtype(dtype, "normal_kernel_cpu")
        arr = _draw(_normal, generator, _target_device(device), _size_arg((size,)),
                    dt.np, float(mean), float(std))
        return _finish(arr, requires_grad)
    if st:
        if not isinstance(std._value, jax.core.Tracer) and bool(np.any(np.asarray(std._value)
                                                                       < 0)):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    shape = broadcast_shapes_or_raise(mean._shape if mt else (), std._shape if st else ())
    ref = mean if mt else std
    dt = _dt.result_type(mean, std) if mt and st else ref.dtype
    noise = _draw(_normal, generator, _tensor_device(ref), shape, dt.np, 0.0, 1.0)
    from .dispatch import call_op
    return call_op("_normal_affine", mean, std, Tensor._wrap(noise))


def _fmt(x) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# ---------------------------------------------------------------------------
# bernoulli, multinomial, poisson
@overridable
def bernoulli(input: Tensor, p=None, *, generator: Generator | None = None,
              out=None) -> Tensor:
    """Mirrors ``torch.bernoulli``: 1 with probability ``input`` (or ``p``), in
    ``input``'s dtype."""
    _check_out(out)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                  f"'{dtype_short_name(input.dtype)}'")
    if p is None:
        probs = input._value
        if not isinstance(probs, jax.core.Tracer):
            a = np.asarray(probs)
            if a.size and not bool(np.all((a >= 0) & (a <= 1))):
                raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false."
                                   "  (Could this error message be improved?  If so, please "
                                   "report an enhancement request to PyTorch.)")
    else:
        _check_p(p)
        probs = jnp.full(input._shape, p, input.dtype.np)
    arr = _draw(_bernoulli, generator, _tensor_device(input), probs)
    return Tensor._wrap(arr.astype(input.dtype.np))


def _check_p(p) -> None:
    if isinstance(p, Tensor):
        return
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")


@overridable
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None, out=None) -> Tensor:
    """Mirrors ``torch.multinomial``: ``num_samples`` category indices per row of
    ``input`` (unnormalised, non-negative weights). Without replacement the indices of
    a row are distinct (Gumbel top-k)."""
    _check_out(out)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtype_short_name(input.dtype)}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n_cat = input._shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if n_cat > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    probs = input._value
    if not isinstance(probs, jax.core.Tracer):
        a = np.asarray(probs, np.float64)
        if not bool(np.all(np.isfinite(a) & (a >= 0))):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element "
                               "< 0")
        if bool(np.any(a.sum(-1) <= 0)):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    arr = _draw(_multinomial, generator, _tensor_device(input), probs, int(num_samples),
                bool(replacement))
    return Tensor._wrap(arr.astype(np.int64))


@overridable
def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.poisson``: Poisson counts with rates ``input``, in its dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for "
                                  f"'{dtype_short_name(input.dtype)}'")
    lam = input._value
    if not isinstance(lam, jax.core.Tracer) and bool(np.any(np.asarray(lam) < 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return Tensor._wrap(_draw(_poisson, generator, _tensor_device(input), lam))


@functools.cache
def _binomial_node():
    """A ``Function`` whose backward raises PyTorch's error: PyTorch records ``binomial``
    on the tape with no derivative (built on first use: autograd imports this module)."""
    from ..autograd.function import Function

    class _Binomial(Function):
        @staticmethod
        def forward(ctx, count, prob, out):
            return out.clone()

        @staticmethod
        def backward(ctx, grad):
            raise RuntimeError("derivative for aten::binomial is not implemented")

    return _Binomial


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Mirrors ``torch.binomial``: the number of successes in ``count`` trials of
    probability ``prob`` (floating tensors of one dtype, broadcast together), in their
    dtype. The draws come from ``jax.random.binomial`` (Note [Binomial draws, padded]),
    so their values differ from PyTorch's. As in PyTorch, the probabilities are not
    checked (values outside [0, 1] give meaningless counts, whereas a NaN count makes
    PyTorch loop forever and gives NaN here), and differentiating through the draw
    raises PyTorch's error."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' (position "
                            f"{1 if name == 'count' else 2}) must be Tensor, not "
                            f"{type(t).__name__}")
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, "
                             f"got: {dtype_short_name(t.dtype)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {dtype_short_name(prob.dtype)} but expected "
                           f"{dtype_short_name(count.dtype)}")
    if count.dtype.np not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise NotImplementedError(f"\"binomial_cpu\" not implemented for "
                                  f"'{dtype_short_name(count.dtype)}'")
    shape = broadcast_shapes_or_raise(tuple(count.shape), tuple(prob.shape))
    c = jnp.broadcast_to(count._value, shape)
    p = jnp.broadcast_to(prob._value, shape)
    out = Tensor._wrap(_draw(_binomial_padded, generator, _tensor_device(count), c, p))
    if (count.requires_grad or prob.requires_grad) and is_grad_enabled():
        out = _binomial_node().apply(count, prob, out)
    return out


# ---------------------------------------------------------------------------
# in-place samplers on Tensor
def _write(self: Tensor, arr) -> Tensor:
    check_inplace_target(self)
    self._set_value(arr)
    return self


def _self_float(self: Tensor, kernel: str) -> None:
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dtype_short_name(self.dtype)}'")


def _uniform_draw(self, generator, low=0.0, high=1.0):
    return _draw(_uniform, generator, _tensor_device(self), self._shape, self.dtype.np,
                 low, high)


def _normal_(self, mean: float = 0.0, std: float = 1.0, *,
             generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.normal_``: fill with N(mean, std²) samples (writes through views)."""
    _self_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    return _write(self, _draw(_normal, generator, _tensor_device(self), self._shape,
                              self.dtype.np, float(mean), float(std)))


def _uniform_(self, a: float = 0.0, b: float = 1.0, *,
              generator: Generator | None = None, **kwargs) -> Tensor:
    """Mirrors ``Tensor.uniform_(from=0, to=1)``."""
    a = kwargs.pop("from", a)
    b = kwargs.pop("to", b)
    _self_float(self, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(a)} > to={_fmt(b)}")
    return _write(self, _uniform_draw(self, generator, float(a), float(b)))


def _bernoulli_(self, p=0.5, *, generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.bernoulli_(p)``: ``p`` a float or a tensor of probabilities."""
    _check_p(p)
    probs = p._value if isinstance(p, Tensor) else jnp.full(self._shape, p, np.float64)
    probs = jnp.broadcast_to(probs, self._shape)
    return _write(self, _draw(_bernoulli, generator, _tensor_device(self), probs))


def _exponential_(self, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.exponential_``: samples of rate ``lambd``."""
    _self_float(self, "exponential_cpu")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    u = _uniform_draw(self, generator)
    return _write(self, -jnp.log1p(-u) / lambd)


def _cauchy_(self, median: float = 0.0, sigma: float = 1.0, *,
             generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.cauchy_``."""
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_cpp(self.dtype)}")
    u = _uniform_draw(self, generator)
    return _write(self, median + sigma * jnp.tan(math.pi * (u - 0.5)))


_cpp = _dt.cpp_name


def _log_normal_(self, mean: float = 1.0, std: float = 2.0, *,
                 generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.log_normal_``: ``exp`` of N(mean, std²) samples."""
    _self_float(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    z = _draw(_normal, generator, _tensor_device(self), self._shape, self.dtype.np,
              float(mean), float(std))
    return _write(self, jnp.exp(z))


def _geometric_(self, p: float, *, generator: Generator | None = None) -> Tensor:
    """Mirrors ``Tensor.geometric_``: number of trials up to the first success (>= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    u = _draw(_uniform, generator, _tensor_device(self), self._shape, np.dtype("float64"), 0.0, 1.0)
    return _write(self, jnp.floor(jnp.log1p(-u) / math.log1p(-p)) + 1)


_FLOAT_RANDOM_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _random_(self, *args, generator: Generator | None = None, **kwargs) -> Tensor:
    """Mirrors ``Tensor.random_()``, ``random_(to)`` and ``random_(from, to)``: integers
    drawn uniformly (for floats, from [0, 2**mantissa] by default)."""
    low = kwargs.pop("from", None)
    high = kwargs.pop("to", None)
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    low = 0 if low is None else int(low)
    d = self.dtype
    if high is None:
        if d is _dt.bool:
            high = 2
        elif d.is_floating_point:
            high = (1 << _FLOAT_RANDOM_BITS[d.name]) + 1
        else:
            high = int(np.iinfo(d.np).max)
    high = int(high)
    _check_range(low, high)
    return _write(self, _draw(_randint, generator, _tensor_device(self), self._shape,
                              d.np, low, high))


for _name, _fn in (("normal_", _normal_), ("uniform_", _uniform_),
                   ("bernoulli_", _bernoulli_), ("exponential_", _exponential_),
                   ("cauchy_", _cauchy_), ("log_normal_", _log_normal_),
                   ("geometric_", _geometric_), ("random_", _random_)):
    _fn.__name__ = _name
    _fn.__qualname__ = "Tensor." + _name
    setattr(Tensor, _name, _fn)


def _bernoulli_method(self, p=None, *, generator: Generator | None = None) -> Tensor:
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples: int, replacement: bool = False, *,
                        generator: Generator | None = None) -> Tensor:
    return multinomial(self, num_samples, replacement, generator=generator)


Tensor.bernoulli = _bernoulli_method
Tensor.multinomial = _multinomial_method
