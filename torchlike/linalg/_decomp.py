"""Linear-algebra ops, part two: determinants, inverses, solvers, decompositions and
norms, declared in the op table (see ``torchlike/_ops/spec.py``). Ops that exist only
under ``torchlike.linalg`` are declared with ``function=False, method=False`` and a
name ``linalg_<name>``; ``_expose`` makes their public function.

The families live in their own files, imported here in the order their ops are declared:
``_solve.py`` (determinants, inverses, solvers), ``_factorize.py`` (LU, Cholesky, eigen-,
singular-value and QR decompositions) and ``_norms.py`` (norms, rank, condition number);
``_common.py`` holds what they share (Note [Singular inputs], Note [Symmetric inputs]).
"""

from __future__ import annotations

from .._core.tensor import Tensor
from .._ops.linalg import LinAlgError
# the families declare their ops on import, in this order (the op table keeps it)
from . import _solve  # noqa: F401
from . import _factorize  # noqa: F401
from . import _norms  # noqa: F401
from . import _linalg_more  # noqa: F401
from . import _ldl  # noqa: F401
from . import _torch_forms  # noqa: F401
from ._common import PUBLIC, _expose

__all__ = ["PUBLIC", "LinAlgError"]


# ---------------------------------------------------------------------------
# torchlike.linalg names for ops declared in _ops/linalg.py
_expose("matmul", "matmul")
_expose("linalg_cross", "cross")
_expose("linalg_multi_dot", "multi_dot")


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Mirrors ``torch.linalg.diagonal``: ``torchlike.diagonal`` with the last two
    dimensions as defaults; a view of ``A``."""
    from .._ops.dispatch import call_op
    return call_op("diagonal", A, offset, dim1, dim2)


diagonal.__module__ = "torchlike.linalg"
PUBLIC["diagonal"] = diagonal
