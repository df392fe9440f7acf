"""The error for Python code that needs a tensor's value while a function is traced
(``.item()``, ``bool(t)``, ``if t:`` inside ``torchlike.compile`` or ``jax.jit``): it names
the user's line, the first frame outside the package."""

from __future__ import annotations

import sys

__all__ = ["TracedValueError", "concretization_error"]


class TracedValueError(RuntimeError):
    """A tensor's value was needed in Python while it was a traced value."""


_PKG_DIR = __file__.rsplit("/_core/", 1)[0] + "/"


def concretization_error() -> RuntimeError:
    """The error for Python code that needs a tensor's value while it is being traced."""
    frame = sys._getframe(1)
    where = ""
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PKG_DIR):
            where = f" (at {frame.f_code.co_filename}:{frame.f_lineno})"
            break
        frame = frame.f_back
    return TracedValueError(
        "a tensor's value was needed in Python while the function is being traced for "
        f"compilation{where}: .item(), .tolist(), bool(), int() or `if tensor:` cannot run "
        "on traced values. Express the branch with torchlike.where(cond, a, b), "
        "torchlike.cond(pred, true_fn, false_fn, operands) or torchlike.while_loop, or do "
        "it outside the compiled function.")
