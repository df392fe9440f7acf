"""``torch.lobpcg``: the locally optimal block preconditioned conjugate gradient method
for the k largest (or smallest) eigenpairs of a symmetric positive definite generalized
eigenproblem, ported from PyTorch's ``torch/_lobpcg.py`` onto torchlike tensors (see
``THIRD_PARTY_NOTICES.md``).

The iteration is PyTorch's step for step ("basic" after Knyazev 2001, "ortho" after
Stathopoulos and Wu 2002), with its parameters, tracker protocol and errors; the initial
random approximation is drawn from torchlike's default generator, so the iterates (not
the converged eigenpairs) differ from PyTorch's for the same seed. The backward is
PyTorch's symmetric-eigenproblem formula for ``B = None`` (an ``autograd.Function``).
Dense tensors only: torchlike has no sparse layout.
"""

from __future__ import annotations

import torchlike as _tl

from ._core import dtype as _dt
from ._core.tensor import Tensor
from .autograd.function import Function

__all__ = ["lobpcg"]


# -- PyTorch's torch._linalg_utils, dense --------------------------------------------
def _floating_dtype(A: Tensor) -> _dt.dtype:
    return A.dtype if A.dtype in (_dt.float16, _dt.float32, _dt.float64) else _dt.float32


def _matmul(A: Tensor | None, B: Tensor) -> Tensor:
    return B if A is None else _tl.matmul(A, B)


def _qform(A: Tensor | None, S: Tensor) -> Tensor:
    """S^T A S."""
    return _matmul(S.mT, _matmul(A, S))


def _basis(A: Tensor) -> Tensor:
    return _tl.linalg.qr(A).Q


def _symeig(A: Tensor, largest: bool | None = False) -> tuple[Tensor, Tensor]:
    E, Z = _tl.linalg.eigh(A, UPLO="U")
    if largest:
        E = _tl.flip(E, dims=(-1,))
        Z = _tl.flip(Z, dims=(-1,))
    return E, Z


# -- backward ----------------------------------------------------------------------------
def _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U):
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F.pow_(-1)
    Ut = U.mT.contiguous()
    return _tl.matmul(U, _tl.matmul(_tl.diag_embed(D_grad) + _tl.matmul(Ut, U_grad) * F, Ut))


def _polynomial_coefficients_given_roots(roots):
    """The coefficients of prod_i (x - roots[..., i]), lowest power first."""
    poly_order = roots.shape[-1]
    shape = list(roots.shape)
    shape[-1] += 2
    poly_coeffs = roots.new_zeros(shape)
    poly_coeffs[..., 0] = 1
    poly_coeffs[..., -1] = 1
    for i in range(1, poly_order + 1):
        poly_coeffs_new = poly_coeffs.clone() if roots.requires_grad else poly_coeffs
        out = poly_coeffs_new.narrow(-1, poly_order - i, i + 1)
        out -= roots.narrow(-1, i - 1, 1) * poly_coeffs.narrow(-1, poly_order - i + 1, i + 1)
        poly_coeffs = poly_coeffs_new
    return poly_coeffs.narrow(-1, 1, poly_order + 1)


def _polynomial_value(poly, x, zero_power, transition):
    res = zero_power.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        res = transition(res, x, poly[..., k])
    return res


def _matrix_polynomial_value(poly, x, zero_power=None):
    def transition(curr, x, coeff):
        res = x.matmul(curr)
        res.diagonal(dim1=-2, dim2=-1).add_(coeff.unsqueeze(-1))
        return res

    if zero_power is None:
        zero_power = _tl.eye(x.size(-1), x.size(-1), dtype=x.dtype, device=x.device).view(
            *[1] * len(list(x.shape[:-2])), x.size(-1), x.size(-1))
    return _polynomial_value(poly, x, zero_power, transition)


def _vector_polynomial_value(poly, x, zero_power=None):
    def transition(curr, x, coeff):
        return _tl.addcmul(coeff.unsqueeze(-1), x, curr)

    if zero_power is None:
        zero_power = x.new_ones(1).expand(x.shape)
    return _polynomial_value(poly, x, zero_power, transition)


def _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest):
    Ut = U.mT.contiguous()
    proj_U_ortho = -U.matmul(Ut)
    proj_U_ortho.diagonal(dim1=-2, dim2=-1).add_(1)
    gen = _tl.Generator(A.device)
    U_ortho = proj_U_ortho.matmul(_tl.randn((*A.shape[:-1], A.size(-1) - D.size(-1)),
                                            dtype=A.dtype, device=A.device, generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    chr_poly_D = _polynomial_coefficients_given_roots(D)
    U_grad_projected = U_grad
    series_acc = U_grad_projected.new_zeros(U_grad_projected.shape)
    for k in range(1, chr_poly_D.size(-1)):
        poly_D = _vector_polynomial_value(chr_poly_D[..., k:], D)
        series_acc += U_grad_projected * poly_D.unsqueeze(-2)
        U_grad_projected = A.matmul(U_grad_projected)
    chr_poly_D_at_A = _matrix_polynomial_value(chr_poly_D, A)
    at_U_ortho = _tl.matmul(U_ortho_t, _tl.matmul(chr_poly_D_at_A, U_ortho))
    sign = -1 if largest and k % 2 == 1 else +1
    L = _tl.linalg.cholesky(sign * at_U_ortho)
    res = _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    res -= U_ortho.matmul(sign * _tl.cholesky_solve(U_ortho_t.matmul(series_acc), L)).matmul(Ut)
    return res


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    if U.size(-1) == U.size(-2):
        return _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest)


class LOBPCGAutogradFunction(Function):
    """PyTorch's ``LOBPCGAutogradFunction``: the eigenpairs, with the gradient of the
    symmetric eigenproblem (complete or partial eigenspace) for ``B = None``."""

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
                largest=None, method=None, tracker=None, ortho_iparams=None,
                ortho_fparams=None, ortho_bparams=None):
        A = A.contiguous()
        if B is not None:
            B = B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                       ortho_iparams, ortho_fparams, ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        grads = [None] * 14
        A, B, D, U = ctx.saved_tensors
        if A.is_complex() or (B is not None and B.is_complex()):
            raise ValueError("lobpcg.backward does not support complex input yet. Note that "
                             "lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        grads[0] = _symeig_backward(D_grad, U_grad, A, D, U, largest)
        return tuple(grads)


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None,
           n: int | None = None, iK: Tensor | None = None, niter: int | None = None,
           tol: float | None = None, largest: bool | None = None, method: str | None = None,
           tracker=None, ortho_iparams: dict[str, int] | None = None,
           ortho_fparams: dict[str, float] | None = None,
           ortho_bparams: dict[str, bool] | None = None) -> tuple[Tensor, Tensor]:
    """Mirrors ``torch.lobpcg``: the ``k`` largest (``largest=True``, the default) or
    smallest eigenvalues ``E`` ``(*, k)`` and eigenvectors ``X`` ``(*, m, k)`` of
    ``A x = lambda B x`` for symmetric positive definite ``A`` (and ``B``), by LOBPCG
    (``method="ortho"``, the default, or ``"basic"``), with an optional initial ``X``,
    preconditioner ``iK``, ``niter`` (-1: until convergence), ``tol`` and ``tracker``, as
    PyTorch. When ``A`` requires grad it is symmetrized first and the gradient is
    PyTorch's (``B`` must be None). The random initial approximation comes from
    torchlike's default generator. Dense input only.

    >>> import torchlike as torch
    >>> A = torch.diag(torch.arange(1., 13., dtype=torch.float64))
    >>> E, X = torch.lobpcg(A, k=2)
    >>> [round(e, 6) for e in E.tolist()]
    [12.0, 11.0]
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest,
                                            method, tracker, ortho_iparams, ortho_fparams,
                                            ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                   ortho_fparams, ortho_bparams)


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
            method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
            ortho_bparams=None):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _floating_dtype(A)
    device = A.device
    if tol is None:
        feps = {_dt.float32: 1.2e-07, _dt.float64: 2.23e-16}[dtype]
        tol = feps ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows "
                         f"(={m}) is smaller than 3 x the number of requested eigenpairs "
                         f"(={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        if ortho_iparams is not None:
            iparams.update(ortho_iparams)
        if ortho_fparams is not None:
            fparams.update(ortho_fparams)
        if ortho_bparams is not None:
            bparams.update(ortho_bparams)
        iparams["ortho_i_max"] = iparams.get("ortho_i_max", 3)
        iparams["ortho_j_max"] = iparams.get("ortho_j_max", 3)
        fparams["ortho_tol"] = fparams.get("ortho_tol", tol)
        fparams["ortho_tol_drop"] = fparams.get("ortho_tol_drop", tol)
        fparams["ortho_tol_replace"] = fparams.get("ortho_tol_replace", tol)
        bparams["ortho_use_drop"] = bparams.get("ortho_use_drop", False)

    if len(A.shape) > 2:
        N = 1
        for s in A.shape[:-2]:
            N *= s
        bA = A.reshape((N,) + tuple(A.shape[-2:]))
        bB = B.reshape((N,) + tuple(A.shape[-2:])) if B is not None else None
        bX = X.reshape((N,) + tuple(X.shape[-2:])) if X is not None else None
        bE = _tl.empty((N, k), dtype=dtype, device=device)
        bXret = _tl.empty((N, m, k), dtype=dtype, device=device)
        for i in range(N):
            A_ = bA[i]
            B_ = bB[i] if bB is not None else None
            X_ = _tl.randn((m, n), dtype=dtype, device=device) if bX is None else bX[i]
            if not (len(X_.shape) == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got {X_.shape}, expected {(m, n)}")
            iparams["batch_index"] = i
            worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
            worker.run()
            bE[i] = worker.E[:k]
            bXret[i] = worker.X[:, :k]
        return (bE.reshape(tuple(A.shape[:-2]) + (k,)),
                bXret.reshape(tuple(A.shape[:-2]) + (m, k)))
    X = _tl.randn((m, n), dtype=dtype, device=device) if X is None else X
    if not (len(X.shape) == 2 and tuple(X.shape) == (m, n)):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, iparams, fparams, bparams, method, tracker)
    worker.run()
    return worker.E[:k], worker.X[:, :k]


class LOBPCG:
    """PyTorch's LOBPCG worker: the iteration state (``iparams``/``fparams``/``bparams``,
    ``ivars``/``fvars``/``bvars``/``tvars``, ``A``, ``B``, ``iK``, ``E``, ``X``, ``S``,
    ``R``) that ``tracker`` receives at every step; a tracker that sets
    ``bvars["force_stop"] = True`` stops the iteration."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker) -> None:
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method = method
        self.tracker = tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = _tl.zeros((n,), dtype=X.dtype, device=X.device)
        self.R = _tl.zeros((m, n), dtype=X.dtype, device=X.device)
        self.S = _tl.zeros((m, 3 * n), dtype=X.dtype, device=X.device)
        self.tvars: dict[str, Tensor] = {}
        self.ivars: dict[str, int] = {"istep": 0}
        self.fvars: dict[str, float] = {"_": 0.0}
        self.bvars: dict[str, bool] = {"_": False}

    def __str__(self) -> str:
        lines = ["LOBPCG:", f"  iparams={self.iparams}", f"  fparams={self.fparams}",
                 f"  bparams={self.bparams}", f"  ivars={self.ivars}",
                 f"  fvars={self.fvars}", f"  bvars={self.bvars}", f"  tvars={self.tvars}",
                 f"  A={self.A}", f"  B={self.B}", f"  iK={self.iK}", f"  X={self.X}",
                 f"  E={self.E}"]
        return "".join(line + "\n" for line in lines)

    def update(self) -> None:
        """One iteration step (the first one also sets up the norms and counters)."""
        if self.ivars["istep"] == 0:
            X_norm = float(_tl.norm(self.X))
            iX_norm = X_norm ** (-1)
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(_tl.norm(_matmul(self.A, self.X))) * iX_norm
            self.fvars["B_norm"] = float(_tl.norm(_matmul(self.B, self.X))) * iX_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] = self.ivars["iterations_left"] - 1
        self.ivars["istep"] = self.ivars["istep"] + 1

    def update_residual(self) -> None:
        self.R = _matmul(self.A, self.X) - _matmul(self.B, self.X) * self.E

    def update_converged_count(self) -> int:
        """The number of leading eigenpairs whose relative residual is below ``tol``."""
        prev_count = self.ivars["converged_count"]
        tol = self.fparams["tol"]
        A_norm, B_norm = self.fvars["A_norm"], self.fvars["B_norm"]
        E, X, R = self.E, self.X, self.R
        rerr = _tl.norm(R, 2, (0,)) / (_tl.norm(X, 2, (0,))
                                        * (A_norm + _tl.abs(E[:X.shape[-1]]) * B_norm))
        count = 0
        for b in (rerr < tol).tolist():
            if not b:
                break
            count += 1
        if count < prev_count:
            raise AssertionError(f"the number of converged eigenpairs (was {prev_count}, "
                                 f"got {count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self) -> bool:
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def run(self) -> None:
        self.update()
        if self.tracker is not None:
            self.call_tracker()
        while not self.stop_iteration():
            self.update()
            if self.tracker is not None:
                self.call_tracker()

    def call_tracker(self) -> None:
        self.tracker(self)

    def _update_basic(self) -> None:
        mm = _tl.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            E, Z = _symeig(M, largest)
            self.X[:] = mm(self.X, mm(Ri, Z))
            self.E[:] = E
            np_ = 0
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            W = _matmul(self.iK, self.R)
            self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
            self.S[:, n + np_:ns] = W
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            M = _qform(_qform(self.A, S_), Ri)
            E_, Z = _symeig(M, largest)
            self.X[:, nc:] = mm(S_, mm(Ri, Z[:, :n - nc]))
            self.E[nc:] = E_[:n - nc]
            P = mm(S_, mm(Ri, Z[:, n:2 * n - nc]))
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[..., :n] = self.X
            self.S[:, n:n + np_] = P
            W = _matmul(self.iK, self.R[:, nc:])
            self.ivars["converged_end"] = ns = n + np_ + W.shape[-1]
            self.S[:, n + np_:ns] = W

    def _update_ortho(self) -> None:
        mm = _tl.matmul
        ns = self.ivars["converged_end"]
        nc = self.ivars["converged_count"]
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            M = _qform(_qform(self.A, self.X), Ri)
            _E, Z = _symeig(M, largest)
            self.X = mm(self.X, mm(Ri, Z))
            self.update_residual()
            np_ = 0
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
            ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
            self.S[:, n + np_:ns] = W
        else:
            S_ = self.S[:, nc:ns]
            E_, Z = _symeig(_qform(self.A, S_), largest)
            self.X[:, nc:] = mm(S_, Z[:, :n - nc])
            self.E[nc:] = E_[:n - nc]
            P = mm(S_, mm(Z[:, n - nc:], _basis(Z[:n - nc, n - nc:].mT)))
            np_ = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n:n + np_] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, :n + np_])
            ns = self.ivars["converged_end"] = n + np_ + W.shape[-1]
            self.S[:, n + np_:ns] = W

    def _get_rayleigh_ritz_transform(self, S):
        """Ri such that Ri^T S^T B S Ri = I (Cholesky of the scaled S^T B S)."""
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** (-0.5)
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = _tl.linalg.cholesky(SBS * d_row * d_col, upper=True)
        return _tl.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop: bool, tau: float):
        """B-orthonormalize U's columns (SVQB), dropping or lifting the small ones."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        nz = _tl.where(abs(d) != 0.0)
        if len(nz[0]) < len(d):
            U = U[:, nz[0]]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
            nz = _tl.where(abs(d) != 0.0)
            if len(nz[0]) != len(d):
                raise AssertionError(f"expected nz[0] length {len(d)}, got {len(nz[0])}")
        d_col = (d ** (-0.5)).reshape(d.shape[0], 1)
        DUBUD = UBU * d_col * d_col.mT
        E, Z = _symeig(DUBUD)
        t = tau * abs(E).max()
        if drop:
            keep = _tl.where(E > t)
            E = E[keep[0]]
            Z = Z[:, keep[0]]
            d_col = d_col[keep[0]]
        else:
            E[_tl.where(E < t)[0]] = t
        return _tl.matmul(U * d_col.mT, Z * E ** (-0.5))

    def _get_ortho(self, U, V):
        """U's columns B-orthonormalized against V's and among themselves."""
        mm = _tl.matmul
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for vkey in list(self.fvars.keys()):
            if vkey.startswith("ortho_") and vkey.endswith("_rerr"):
                self.fvars.pop(vkey)
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = _tl.norm(_matmul(self.B, V))
        BU = _matmul(self.B, U)
        VBU = mm(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - mm(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop = True
                    tau_svqb = tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.numel() == 0:
                    self.ivars["ortho_i"] = i
                    self.ivars["ortho_j"] = j
                    return U
                BU = _matmul(self.B, U)
                UBU = mm(U.mT, BU)
                U_norm = _tl.norm(U)
                BU_norm = _tl.norm(BU)
                R = UBU - _tl.eye(UBU.shape[-1], device=UBU.device, dtype=UBU.dtype)
                rerr = float(_tl.norm(R)) * float(BU_norm * U_norm) ** (-1)
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = mm(V.mT, BU)
            rerr = float(_tl.norm(VBU)) * float(BV_norm * _tl.norm(U)) ** (-1)
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                B = self.B
                if B is None:
                    raise AssertionError("B must not be None")
                raise ValueError(f"Overdetermined shape of U: #B-cols(={B.shape[-1]}) >= "
                                 f"#U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must "
                                 "hold")
        self.ivars["ortho_i"] = i
        self.ivars["ortho_j"] = j
        return U
