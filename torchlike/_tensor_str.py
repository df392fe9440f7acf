"""Mirrors ``torch._tensor_str``: print options and the ``printoptions`` context manager.

The formatter itself lives in ``torchlike._core.printing``.
"""

from ._core.printing import (PRINT_OPTS, get_printoptions, printoptions,  # noqa: F401
                             set_printoptions)

__all__ = ["PRINT_OPTS", "get_printoptions", "printoptions", "set_printoptions"]
