"""``torchlike.device``: 'cpu', 'cuda', 'cuda:N' mapped onto JAX devices.

'cuda' means JAX's accelerator backend (GPU, else TPU); 'cuda:N' its N-th device.
Asking for a device that is not there raises ``RuntimeError`` saying what exists.
"""

from __future__ import annotations

import functools

import jax

__all__ = ["device", "jax_device", "accelerator_devices"]


# Note [Made arrays follow their tensor]
# torchlike's tensors are made on the CPU unless a device is named, as PyTorch's are, while
# ``jnp.zeros``/``jnp.ones`` place a new array on JAX's default device: the GPU on a
# machine that has one. An array the library makes to stand beside a tensor (the implicit
# ``1`` that ``loss.backward()`` starts from, an optimizer's zero buffers, a zero
# gradient) is therefore made with ``jnp.full_like``/``jnp.zeros_like`` of the tensor's
# storage array (``shape=`` the tensor's), which place it as that array; else a CPU model
# on a GPU machine got CUDA gradients in its hooks and CUDA optimizer state, and every
# use of them was a transfer. While a caller traces, the new array is part of the traced
# program, which places it.


class device:
    """Mirrors ``torch.device``: ``device('cuda', 1)``, ``device('cuda:1')``, ``device(0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None):  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            self.type, self.index = "cuda", type
            return
        if not isinstance(type, str):
            raise TypeError("device() received an invalid combination of arguments - got "
                            f"({type!r})")
        s = type.strip()
        if ":" in s:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {s}")
            s, _, idx = s.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if s not in ("cpu", "cuda", "mps", "meta", "xla", "tpu"):
            raise RuntimeError(
                "Expected one of cpu, cuda, mps, meta, xla device type at start of device "
                f"string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = s, index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (str(self),))

    # context-manager form, as in ``with torch.device('cuda'):`` (only records the default)
    def __enter__(self):
        _default_device_stack.append(self)
        return self

    def __exit__(self, *exc):
        _default_device_stack.pop()


_default_device_stack: list[device] = []


@functools.lru_cache(maxsize=None)
def accelerator_devices() -> tuple:
    """JAX devices that 'cuda' refers to: this process's GPUs, else its TPUs; empty on a
    CPU-only machine. In a multi-process run (``torchlike.distributed``) 'cuda:N' is the
    N-th device of the process, as in PyTorch."""
    for backend in ("gpu", "tpu"):
        try:
            devs = jax.local_devices(backend=backend)
        except RuntimeError:
            continue
        if devs:
            return tuple(devs)
    return ()


@functools.lru_cache(maxsize=None)
def _cpu_device():
    # this process's: in a multi-process run ``jax.devices`` lists every process's
    return jax.local_devices(backend="cpu")[0]


def jax_device(d) -> "jax.Device":
    """The JAX device for a torchlike device spec, or a clear ``RuntimeError``."""
    d = device(d) if not isinstance(d, device) else d
    if d.type == "cpu":
        return _cpu_device()
    if d.type == "cuda":
        accs = accelerator_devices()
        if not accs:
            raise RuntimeError(
                f"device '{d}' requested but no CUDA/accelerator device is available to JAX "
                f"(backends: {jax.default_backend()}). Use device='cpu', or install a JAX "
                "build with GPU/TPU support.")
        idx = 0 if d.index is None else d.index
        if idx >= len(accs):
            raise RuntimeError(
                f"CUDA error: invalid device ordinal: '{d}' requested but only "
                f"{len(accs)} accelerator device(s) exist")
        return accs[idx]
    raise RuntimeError(f"device type '{d.type}' is not supported by torchlike; use 'cpu' or 'cuda'")


def from_jax_device(jd) -> device:
    if jd.platform == "cpu":
        return CPU
    accs = accelerator_devices()
    return device("cuda", accs.index(jd) if jd in accs else 0)


CPU = device("cpu")
