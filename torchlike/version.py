"""``torchlike.version``: mirrors ``torch.version``, the build a program runs on.

``cuda`` is the CUDA runtime of the JAX CUDA plugin in use ("12.8"), None without one,
as PyTorch's is None for a CPU-only build; ``hip``, ``rocm`` and ``xpu`` are None
(JAX's ROCm plugin is not reported). ``git_version`` is "Unknown", as PyTorch's for a
build made outside a git checkout.
"""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
debug = False
git_version = "Unknown"
hip = None
rocm = None
xpu = None


def _cuda_version(versions) -> str | None:
    """"major.minor" of the CUDA runtime that ``versions`` (jaxlib's ``_versions`` module
    of a CUDA plugin, or None) reports as an integer such as 12080."""
    if versions is None:
        return None
    try:
        v = int(versions.cuda_runtime_get_version())
    except Exception:   # a plugin without a usable runtime
        return None
    return f"{v // 1000}.{v % 1000 // 10}"


def _plugin_versions():
    try:
        from jax._src.lib import cuda_versions
    except ImportError:
        return None
    return cuda_versions


cuda = _cuda_version(_plugin_versions())
