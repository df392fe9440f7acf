"""PyTorch's autograd error messages, as named constants and small builders."""

from __future__ import annotations

__all__ = ["inplace_error", "LEAF_INPLACE", "NO_GRAD_FN", "SCALAR_ONLY"]

LEAF_INPLACE = ("a leaf Variable that requires grad is being used in an in-place "
                "operation.")
NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"

_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
         "gradient, with torchlike.autograd.set_detect_anomaly(True, check_nan=False).")
_HINT_ANOMALY = ("Hint: the backtrace further above shows the operation that failed to "
                 "compute its gradient. The variable in question was changed in there or "
                 "anywhere later. Good luck!")


def _type_name(dtype) -> str:
    from .._core.tensor import _LEGACY_NAMES
    return _LEGACY_NAMES.get(dtype, f"torchlike.{dtype}")


def inplace_error(vc_now: int, expected: int, dtype, shape, owner, nr) -> RuntimeError:
    """Mirrors PyTorch's error for a saved tensor modified in place."""
    from .graph import _anomaly
    import re
    shape_s = "[" + ", ".join(str(s) for s in shape) + "]"
    if nr is None:        # a saved input: named after its grad_fn now, as PyTorch does
        gf = owner.grad_fn
        owner, nr = (None, 0) if gf is None else (gf.name(), owner._output_nr)
    if owner is not None:
        owner = re.sub(r"Backward\d*$", "", owner)
    which = f", which is output {nr} of {owner}," if owner is not None else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{_type_name(dtype)} {shape_s}]{which} is at version {vc_now}; "
        f"expected version {expected} instead. "
        + (_HINT_ANOMALY if _anomaly.enabled else _HINT))
