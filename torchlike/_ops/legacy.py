"""Functions PyTorch keeps only to tell old code what replaced them.

``solve``, ``lstsq``, ``symeig``, ``eig`` and ``matrix_rank`` were removed from PyTorch
(1.9) and raise its RuntimeError, whose text says which ``linalg`` function replaces
each; ``nuclear_norm`` and ``frobenius_norm`` are deprecated and still compute, with
PyTorch's warning (once per process, as its ``TORCH_WARN_ONCE``).
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from .._core.tensor import Tensor

__all__ = ["solve", "lstsq", "symeig", "eig", "matrix_rank", "nuclear_norm",
           "frobenius_norm"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False, *,
                out: Any = None) -> Tensor:
    """Mirrors the removed ``torch.matrix_rank``: raises PyTorch's RuntimeError."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\n"
        "Please use the `torch.linalg.matrix_rank` function instead. "
        "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to "
        "'hermitian'.")


def solve(input: Tensor, A: Tensor, *, out: Any = None) -> tuple:
    """Mirrors the removed ``torch.solve``: raises PyTorch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\n"
        "To get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\n"
        "X = torch.solve(B, A).solution should be replaced with:\n"
        "X = torch.linalg.solve(A, B)")


def lstsq(input: Tensor, A: Tensor, *, out: Any = None) -> tuple:
    """Mirrors the removed ``torch.lstsq``: raises PyTorch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR "
        "decomposition in the returned tuple (although it returns other information about "
        "the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\n"
        "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution")


def symeig(input: Tensor, eigenvectors: bool = False, upper: bool = True, *,
           out: Any = None) -> tuple:
    """Mirrors the removed ``torch.symeig``: raises PyTorch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular "
        "portion of the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
        "and\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def eig(self: Tensor, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> tuple:
    """Mirrors the removed ``torch.eig``: raises PyTorch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or "
        "`cdouble` rather than real tensors mimicking complex tensors.\n\n"
        "L, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\n"
        "and\n\n"
        "L, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


_warned: set = set()


def _deprecated(name: str, instead: str) -> None:
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. "
                      "It will be removed in a future PyTorch release. Please use "
                      f"`{instead}` instead", UserWarning, stacklevel=3)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False, *,
                 out: Tensor | None = None) -> Tensor:
    """Mirrors the deprecated ``torch.nuclear_norm(input, keepdim=False)`` and
    ``torch.nuclear_norm(input, dim, keepdim=False)``: the sum of the singular values of
    the matrices over the last two dimensions (or ``dim``), as
    ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``, with PyTorch's warning once."""
    from .. import linalg
    if isinstance(dim, bool):   # the overload without ``dim``: nuclear_norm(input, True)
        dim, keepdim = None, dim
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    return linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim),
                              keepdim=keepdim, out=out)


def frobenius_norm(input: Tensor, dim: Sequence[int], keepdim: bool = False, *,
                   out: Tensor | None = None) -> Tensor:
    """Mirrors the deprecated ``torch.frobenius_norm(input, dim, keepdim=False)``: the
    square root of the sum of squares over ``dim``, as ``linalg.vector_norm(input, 2,
    dim, keepdim)``, with PyTorch's warning once."""
    from .. import linalg
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    return linalg.vector_norm(input, 2.0, dim=tuple(dim) if isinstance(dim, (list, tuple))
                              else dim, keepdim=keepdim, out=out)


for _name in ("eig", "lstsq", "solve", "symeig"):
    setattr(Tensor, _name, globals()[_name])
