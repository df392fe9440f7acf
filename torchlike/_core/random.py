"""Random number generators: ``Generator``, the default generator and the global seeding
functions (``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``,
``set_rng_state``, ``fork_rng``).

# Note [RNG is state]
# A generator is a JAX PRNG key plus a counter. Each draw uses
# ``fold_in(key, counter)`` and increments the counter, so the stream after
# ``manual_seed(s)`` is reproducible, successive draws are independent, and the whole
# state is two plain attributes: ``_key`` (uint32[2], threefry key data) and ``_counter``
# (an int, or a uint32 scalar array). A compiled step reads them as inputs and writes
# them back as outputs (``_state_leaves`` / ``_set_state_leaves``); a key captured as a
# constant would instead repeat the same numbers on every step.
# Values differ from PyTorch's (a different generator), and so does the size of the
# state tensor: 24 bytes (seed, key, counter) instead of PyTorch's 5056.
"""

from __future__ import annotations

import contextlib
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from .device import device as Device

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fork_rng", "DEFAULT_SEED", "drawn_flat"]

DEFAULT_SEED = 67280421310721   # PyTorch's seed of a fresh torch.Generator()
_STATE_BYTES = 24
_U64 = 1 << 64


# Note [Random draws are flat]
# JAX's threefry numbers each element of a draw by its row-major position, computed from
# one iota per axis in 32-bit halves, and XLA's CPU compiler takes far longer over that
# index arithmetic in more dimensions: ``jax.random.uniform`` of a (6, 3, 5, 5) conv
# weight took 0.79 s to compile against 0.14 s for the same 450 numbers drawn as a
# vector and reshaped (1-d: 0.09-0.11 s; (64, 3, 32, 32) normal draws 0.60 against
# 0.18 s), which made building a small CNN cost seconds of compilation (one sampler per
# parameter shape) and did the same to dropout inside a compiled step. The vector's
# positions are the row-major positions, so the reshaped draw holds the same values bit
# for bit (tests/test_random.py compares the two). Samplers therefore draw flat.
def drawn_flat(draw, shape: tuple):
    """``draw(shape)``, computed as ``draw((n,)).reshape(shape)`` with ``n`` the element
    count of ``shape`` (Note [Random draws are flat])."""
    if len(shape) <= 1:
        return draw(tuple(shape))
    return draw((math.prod(shape),)).reshape(shape)


def _key_from_seed(seed: int):
    """threefry2x32's own mapping of a 64-bit seed: (high word, low word). A NumPy array:
    seeding puts nothing on a device, so ``import torchlike`` and ``manual_seed`` leave
    JAX's backends uninitialised (``jax.distributed.initialize`` must run before they
    start); the first draw moves it to the device (``_device_key``)."""
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def _normalize_seed(seed) -> int:
    try:
        s = int(seed)
    except (TypeError, ValueError):
        raise TypeError(f"manual_seed expected an int, but got {type(seed).__name__}") from None
    if not -(1 << 63) <= s < _U64:
        raise ValueError("Overflow when unpacking long long")
    return s % _U64


def _eager_counter(c):
    """The counter as a Python int outside traces. A compiled step writes it back as a
    uint32 array; eager samplers take it as a uint32 scalar made from an int (one argument
    type, so they never recompile for it)."""
    if type(c) is int or isinstance(c, jax.core.Tracer):
        return c
    return int(c)


class Generator:
    """Mirrors ``torch.Generator``: a stream of random numbers with its own state.

    Differences from PyTorch: the values differ (JAX's threefry generator), and
    ``get_state()`` returns a 24-byte state. See Note [RNG is state]."""

    def __init__(self, device="cpu"):
        self._device = Device(device) if not isinstance(device, Device) else device
        self._seed = DEFAULT_SEED
        self._key = _key_from_seed(DEFAULT_SEED)
        self._counter = 0

    # -- state --------------------------------------------------------------
    @property
    def device(self) -> Device:
        return self._device

    def manual_seed(self, seed) -> "Generator":
        """Reset the stream to the one determined by ``seed``; returns ``self``."""
        s = _normalize_seed(seed)
        self._seed = s
        self._key = _key_from_seed(s)
        self._counter = 0
        return self

    def seed(self) -> int:
        """Seed from a non-deterministic source; returns the seed used."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor: seed, key and counter (8 bytes each)."""
        from .._ops.creation import place
        counter = int(np.asarray(self._counter)) if not isinstance(self._counter, int) \
            else self._counter
        buf = (np.array([self._seed], "<u8").tobytes() +
               np.asarray(self._key, "<u4").tobytes() +
               np.array([counter % _U64], "<u8").tobytes())
        return place(np.frombuffer(buf, np.uint8).copy())

    def set_state(self, new_state) -> "Generator":
        from .tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torchlike.ByteTensor")
        if new_state.numel() != _STATE_BYTES:
            raise RuntimeError(f"Expected a generator state of size {_STATE_BYTES} but found "
                               f"the input RNG state size to be {new_state.numel()}")
        buf = np.asarray(new_state._value).tobytes()
        self._seed = int(np.frombuffer(buf[:8], "<u8")[0])
        self._key = np.frombuffer(buf[8:16], "<u4").copy()
        self._counter = int(np.frombuffer(buf[16:], "<u8")[0])
        return self

    def clone_state(self) -> "Generator":
        g = Generator(self._device)
        g._seed, g._key, g._counter = self._seed, self._key, self._counter
        return g

    # -- drawing ------------------------------------------------------------
    def _next_key(self):
        """A fresh typed JAX key for one draw: ``fold_in(key, counter)``, then the counter
        moves on. Works with traced ``_key``/``_counter`` too (compiled steps)."""
        key = jax.random.wrap_key_data(self._device_key(), impl="threefry2x32")
        c = _eager_counter(self._counter)
        k = jax.random.fold_in(key, c)
        self._counter = c + 1
        return k

    def _device_key(self):
        k = self._key
        if type(k) is np.ndarray:
            k = self._key = jnp.asarray(k)
        return k

    def _take(self):
        """``(key data, counter)`` for one draw, advancing the counter; the caller folds
        them together inside its own compiled function."""
        c = _eager_counter(self._counter)
        self._counter = c + 1
        return self._device_key(), (np.uint32(c & 0xFFFFFFFF) if type(c) is int else c)

    def _state_leaves(self) -> tuple:
        return self._key, self._counter

    def _set_state_leaves(self, key, counter) -> None:
        self._key, self._counter = key, counter

    def __repr__(self) -> str:
        return f"<torchlike.Generator object at {hex(id(self))}>"


Generator.__module__ = "torchlike"

default_generator = Generator()
default_generator.seed()   # as PyTorch, a fresh process starts from a random seed


def manual_seed(seed) -> Generator:
    """Mirrors ``torch.manual_seed``: seeds the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Mirrors ``torch.seed``: a non-deterministic seed for the default generator."""
    return default_generator.seed()


def initial_seed() -> int:
    """Mirrors ``torch.initial_seed``."""
    return default_generator.initial_seed()


def get_rng_state():
    """Mirrors ``torch.get_rng_state`` (a 24-byte uint8 tensor, see ``Generator``)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Mirrors ``torch.set_rng_state``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, **kwargs):
    """Mirrors ``torch.random.fork_rng``: the default generator's state is restored on
    exit."""
    if not enabled:
        yield
        return
    saved = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(saved)
