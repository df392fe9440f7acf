"""``torch.svd_lowrank`` and ``torch.pca_lowrank``: randomized low-rank SVD and PCA
(Halko, Martinsson and Tropp, 2009), ported from PyTorch's ``torch/_lowrank.py`` onto
torchlike's ``randn``, ``matmul``, ``linalg.qr`` and ``linalg.svd`` (see
``THIRD_PARTY_NOTICES.md``).

The Gaussian test matrix is drawn from torchlike's default generator, so the factors
differ from PyTorch's for the same seed (as every random draw does); their shapes and
dtypes, the accuracy of the approximation and the errors are PyTorch's. Dense tensors
only: torchlike has no sparse layout.
"""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank"]


def _floating_dtype(A: Tensor) -> _dt.dtype:
    """PyTorch's ``_linalg_utils.get_floating_dtype``: float16/32/64 stay, the rest
    (integers, bfloat16) map to float32."""
    return A.dtype if A.dtype in (_dt.float16, _dt.float32, _dt.float64) else _dt.float32


def _approximate_basis(A: Tensor, q: int, niter: int | None = 2,
                       M: Tensor | None = None) -> Tensor:
    """Q with q orthonormal columns such that Q Q^H (A - M) approximates A - M
    (Algorithm 4.4 of Halko et al.), as PyTorch's ``get_approximate_basis``."""
    from .. import linalg, randn
    niter = 2 if niter is None else niter
    dtype = _floating_dtype(A) if not A.is_complex() else A.dtype
    R = randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = A.matmul(R)
    if M is not None:
        X = X - M.matmul(R)
    Q = linalg.qr(X).Q
    for _ in range(niter):
        X = A.mH.matmul(Q)
        if M is not None:
            X = X - M.mH.matmul(Q)
        Q = linalg.qr(X).Q
        X = A.matmul(Q)
        if M is not None:
            X = X - M.matmul(Q)
        Q = linalg.qr(X).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2,
                M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    r"""Mirrors ``torch.svd_lowrank``: ``(U, S, V)`` with ``A - M ≈ U diag(S) V^H`` of
    rank ``q`` (Algorithm 5.1 of Halko et al.) for a matrix or a batch ``(*, m, n)``;
    ``M`` is broadcast to ``A``'s shape. Randomized: the values depend on torchlike's
    default generator (``manual_seed`` for repeatable results) and differ from PyTorch's.

    >>> import torchlike as torch
    >>> A = torch.randn(8, 2) @ torch.randn(2, 5)
    >>> U, S, V = torch.svd_lowrank(A, q=2)
    >>> bool(torch.allclose(U @ torch.diag(S) @ V.mT, A, atol=1e-4))
    True
    """
    from .. import linalg
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:                      # work on the tall matrix
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH.matmul(A)
    if M is not None:
        B = B - Q.mH.matmul(M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    r"""Mirrors ``torch.pca_lowrank``: ``svd_lowrank`` of ``A`` minus its column means
    (``center=True``), with ``q`` defaulting to ``min(6, m, n)``; the principal
    directions are ``V``'s columns and ``S**2 / (m - 1)`` the variances. Randomized as
    ``svd_lowrank``; dense input only.

    >>> import torchlike as torch
    >>> U, S, V = torch.pca_lowrank(torch.randn(20, 4), q=2)
    >>> tuple(V.shape)
    (4, 2)
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A - C, q, niter=niter, M=None)
