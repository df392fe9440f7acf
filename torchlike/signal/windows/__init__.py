"""Window functions, as ``torch.signal.windows``: SciPy-style windows (``sym=True`` for
filter design, ``sym=False`` for spectral analysis). The functions live in the
``windows`` submodule, as PyTorch's do, and are re-exported here."""

from .windows import *  # noqa: F401,F403
from .windows import __all__  # noqa: F401
