"""Window functions, as ``torch.signal.windows``: SciPy-style windows (``sym=True`` for
filter design, ``sym=False`` for spectral analysis). The functions live in the
``windows`` submodule, as PyTorch's do, and are re-exported here."""

from .windows import (
    bartlett,
    blackman,
    cosine,
    exponential,
    gaussian,
    general_cosine,
    general_hamming,
    hamming,
    hann,
    kaiser,
    nuttall,
)

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]
