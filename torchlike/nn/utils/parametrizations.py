"""``torchlike.nn.utils.parametrizations``: ``orthogonal``, ``spectral_norm`` and
``weight_norm``, as PyTorch's (same parametrization modules, buffers and state-dict
keys)."""

from __future__ import annotations

from enum import Enum, auto

from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _torch():
    # the public namespace (ops and ``nn.functional``), imported when first needed: this
    # module is imported while ``torchlike`` itself is
    import torchlike
    return torchlike


# ---------------------------------------------------------------------------- orthogonal
def _is_orthogonal(Q: Tensor) -> bool:
    tl = _torch()
    n, k = Q.size(-2), Q.size(-1)
    Id = tl.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * tl.finfo(Q.dtype).eps
    return tl.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q factor of ``A = QR`` (``A`` tall) with ``diag(R)`` real and non-negative."""
    tl = _torch()
    X, tau = tl.geqrf(A)
    Q = tl.linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """The parametrization ``orthogonal`` registers (PyTorch's ``_Orthogonal``): maps a
    matrix (or batch) to one with orthonormal columns (tall) or rows (wide). With
    ``use_trivialization`` the result is ``base @ Q`` with the buffer ``base``."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        tl = _torch()
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # here n >= k and X is a tall matrix
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # the lower triangle of X as a skew-symmetric (skew-Hermitian) n x n matrix
            X = X.tril()
            if n != k:
                X = tl.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = tl.matrix_exp(A)
            else:
                # (I + A/2)(I - A/2)^{-1}
                Id = tl.eye(n, dtype=A.dtype, device=A.device)
                Q = tl.linalg.solve(tl.add(Id, A, alpha=-0.5), tl.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            # the lower triangle of X holds the Householder reflectors
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = tl.linalg.householder_product(A, tau)
            # the diagonal of X (1 or -1) chooses the orthogonal matrix's signs
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """The original tensor giving ``Q``: with the trivialization, ``base`` becomes
        ``Q`` (orthogonalized by QR unless orthogonal, completed with random columns when
        not square) and the original is minus the identity."""
        tl = _torch()
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape "
                                 f"{self.shape}. Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                # the reflectors of Q with the signs of its diagonal: 1 or -1 (a zero
                # reflector, tau == 0, flips the sign the householder map reads)
                A, tau = tl.geqrf(Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:
                # complete Q to a square matrix with random columns, then orthogonalize
                N = tl.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(tl.cat([Q, N], dim=-1))
            self.base = Q
            # forward(-Id) = base
            neg_Id = tl.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Mirrors ``torch.nn.utils.parametrizations.orthogonal``: ``module.<name>`` (a matrix
    or a batch of matrices) becomes orthogonal (orthonormal columns when tall, rows when
    wide) through ``orthogonal_map``: ``"matrix_exp"`` or ``"cayley"`` of a
    skew-symmetric matrix, or ``"householder"`` reflectors (default: ``"matrix_exp"`` for
    square or complex matrices, else ``"householder"``). With ``use_trivialization`` the
    buffer ``parametrizations.<name>.0.base`` holds the current point (the initial value is
    the tensor itself if orthogonal, else its QR orthogonalization).

    >>> import torchlike
    >>> m = orthogonal(torchlike.nn.Linear(3, 5))
    >>> W = m.weight
    >>> bool(torchlike.allclose(W.T @ W, torchlike.eye(3), atol=1e-5))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    return v * (g / _norm_except_dim(v, 2, dim))


def _norm_except_dim(v: Tensor, pow: float, dim: int) -> Tensor:
    if dim == -1:
        return v.norm(pow)
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, dim=dims, keepdim=True) if dims else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        weight_g = _norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module: Module, name: str = "weight", dim: int = 0) -> Module:
    """Mirrors ``torch.nn.utils.parametrizations.weight_norm``: ``name`` becomes
    ``g * v / ||v||`` with ``parametrizations.<name>.original0`` (g) and ``original1``
    (v) as parameters."""
    _weight_norm_module = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm_module, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs) -> None:
        # checkpoints of the hook-based ``nn.utils.weight_norm`` (``<name>_g``/``_v``)
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------------------- spectral norm
def _weight_to_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` as a matrix whose rows run along ``dim`` (the output dimension)."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.flatten(1)


class _SpectralNorm(Module):
    """The parametrization ``spectral_norm`` registers (PyTorch's ``_SpectralNorm``):
    ``weight / sigma`` with ``sigma`` estimated from the buffers ``_u``/``_v``, which
    ``n_power_iterations`` steps of the power method refine on every access in training
    mode (15 steps at registration)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        F = _torch().nn.functional
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good estimates of the singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        return _weight_to_matrix(weight, self.dim)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """Update ``_u``/``_v`` in place: ``u = normalize(W v)``, ``v = normalize(W^H u)``."""
        tl = _torch()
        F = tl.nn.functional
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(tl.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(tl.mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        tl = _torch()
        if weight.ndim == 1:
            return tl.nn.functional.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies, so that a later in-place update does not disturb this graph's backward
        u = self._u.clone()
        v = self._v.clone()
        sigma = tl.vdot(u, tl.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def _default_dim(module: Module) -> int:
    """The output dimension of ``module``'s weight: 1 for transposed convolutions."""
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Mirrors ``torch.nn.utils.parametrizations.spectral_norm``: ``module.<name>``
    becomes ``W / sigma(W)``, ``sigma`` the largest singular value of ``W`` reshaped to a
    matrix along ``dim`` (default 0, 1 for transposed convolutions), estimated with the
    power method. The buffers ``parametrizations.<name>.0._u`` and ``._v`` hold the
    singular vectors; in training mode every access runs ``n_power_iterations`` steps
    that update them, in eval mode they stay. A 1-D tensor is simply normalized.
    Difference: the random initial vectors come from torchlike's generator.

    >>> import torchlike
    >>> m = spectral_norm(torchlike.nn.Linear(4, 3))
    >>> list(m.state_dict())[-2:]
    ['parametrizations.weight.0._u', 'parametrizations.weight.0._v']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _default_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
