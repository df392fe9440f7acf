"""``torchlike.autograd.forward_ad``: forward-mode automatic differentiation with dual
tensors.

Mirrors ``torch.autograd.forward_ad``: inside a ``dual_level``, ``make_dual(x, t)`` gives
a tensor carrying the tangent ``t``; every differentiable op applied to dual tensors
returns dual tensors whose tangents are the Jacobian-vector products, and
``unpack_dual(y)`` returns ``(primal, tangent)``. As in PyTorch 2.13 a single level
exists (a nested ``dual_level`` raises PyTorch's error); tangents are dropped when it
exits. Custom ``autograd.Function``s take part through their ``jvp`` staticmethod.

Differences from PyTorch:

* A dual tensor is an instance of an internal ``Tensor`` subclass (``_DualTensor``):
  ``isinstance(d, Tensor)`` holds but ``type(d) is Tensor`` does not, and a plain tensor
  written in place with a dual value (``x.add_(d)``, ``x[0] = d``) changes its class.
  It prints as PyTorch prints a dual tensor (``tensor([...], tangent=tensor([...]))``).
  When the level exits, tensors get their class back.
* Ops compute tangents in the primal's dtype: a tangent of another dtype given to
  ``make_dual`` is kept as it is, but the results' tangents have their primals' dtype
  (PyTorch computes in the tangent's dtype). A complex tangent for a real primal raises
  ``NotImplementedError`` rather than losing its imaginary part.
* Mixed with reverse mode, a tangent's ``grad_fn`` is one node for the whole JVP of an
  op (``JaxCallBackward``) instead of PyTorch's per-formula nodes; the gradients agree.
  A primal modified in place is differentiated as a constant there.
* Views made of a base that requires grad before the base gained a tangent in place do
  not see that tangent (torchlike tracks only the views of bases that do not require
  grad); views made after do.
* Tangents come from ``jax.jvp`` of each op rather than from PyTorch's per-op formulas:
  ``out=`` calls work (PyTorch raises ``NotImplementedError``); a result that depends on
  a dual input but has no derivative gets a zero tangent, as PyTorch's ``floor``, also
  where PyTorch gives none (``histc``); an op whose tangent would need a dual input's
  values while JAX traces it (``unique``) raises ``NotImplementedError``, as PyTorch does
  for ops without a forward formula.
* ``unpack_dual(d).primal`` of a tensor that requires grad is a view with
  ``ViewBackward0`` (PyTorch's node is named ``Identity``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._core.grad_mode import _DecoratorContextManager
from .._core.tensor import Tensor
from .._ops.torch_function import DisableTorchFunctionSubclass
from ._dual import _attach, _close_level, _open, _open_level, _parallel_from, _tangent
# PyTorch's private helpers, which its forward_ad has too
from ._dual import _is_fwd_grad_enabled as _is_fwd_grad_enabled
from ._dual import _set_fwd_grad_enabled as _set_fwd_grad_enabled

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

# The level the functions of this module use when given none (as PyTorch's global; -1:
# no level). ``_dual._open`` is the level actually entered, which a user's edit of
# ``_current_level`` cannot change.
_current_level = -1


# ---------------------------------------------------------------------------
# levels

def enter_dual_level() -> int:
    """Mirrors ``torch.autograd.forward_ad.enter_dual_level``: enter the (single) forward
    AD level and return it (0)."""
    global _current_level
    if _open[0] >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    new_level = 0
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not "
                           "valid. Make sure you did not modify it directly.")
    _open_level(new_level)
    _current_level = new_level
    return new_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Mirrors ``torch.autograd.forward_ad.exit_dual_level``: exit the level, dropping
    every tangent of it."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _close_level()
    _current_level = level - 1


class dual_level(_DecoratorContextManager):
    """Mirrors ``torch.autograd.forward_ad.dual_level``: a context manager (or decorator)
    inside which forward AD computations happen; it enters the level and exits it,
    dropping its tangents, at the end. Only one level can be entered at a time, as in
    PyTorch.

    Example::

        >>> x, v = torchlike.tensor([0., 1.]), torchlike.tensor([1., 1.])
        >>> with dual_level():
        ...     y = torchlike.sin(make_dual(x, v))
        ...     unpack_dual(y).tangent
        tensor([1.0000, 0.5403])
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    """Mirrors ``torch.autograd.forward_ad.UnpackedDualTensor``: the ``(primal, tangent)``
    namedtuple ``unpack_dual`` returns."""

    primal: Tensor
    tangent: Tensor | None


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """Mirrors ``torch.autograd.forward_ad.make_dual``: a new tensor aliasing ``tensor``
    (a view of it, differentiable in reverse mode) with ``tangent`` attached: as it is
    when it has the primal's layout, else copied into that layout. Raises PyTorch's
    errors outside a level, for non-floating dtypes, for a shape mismatch and for a
    tensor or tangent that already has a tangent. Difference: see the module
    docstring on tangent dtypes."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError("Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError("Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _open[0]:
        raise RuntimeError("Invalid level given to _make_dual")
    if _tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if _tangent(tangent) is not None:
        raise RuntimeError("Setting a forward grad that itself has a forward gradient at the "
                           f"same level{level} is not supported.")
    if tangent._shape != tensor._shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    if tangent.is_complex() and not tensor.is_complex():
        raise NotImplementedError(
            f"make_dual: a complex tangent ({tangent.dtype}) for a real primal "
            f"({tensor.dtype}) is not supported by torchlike; make the primal complex")
    with DisableTorchFunctionSubclass():
        d = tensor.view_as(tensor)
    _attach(d, _parallel_from(d, tangent))
    return d


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """Mirrors ``torch.autograd.forward_ad.unpack_dual``: ``(primal, tangent)``, the
    primal a plain view of ``tensor`` and the tangent as stored (None when ``tensor``
    has none at ``level``; outside a level the primal is ``tensor`` itself)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tan = _tangent(tensor) if level == _open[0] and _is_fwd_grad_enabled() else None
    with DisableTorchFunctionSubclass():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tan)
