"""``torchlike.linalg``: mirrors ``torch.linalg``. Re-exports only; the ops are declared
in ``torchlike/_ops/linalg.py`` and in the files ``torchlike/linalg/_decomp.py`` imports
(``_solve.py``, ``_factorize.py``, ``_norms.py``, ``_linalg_more.py``, ``_ldl.py``)."""

from ._common import SPECS as _SPECS
from ._decomp import PUBLIC as _PUBLIC
from .._ops.linalg import LinAlgError as LinAlgError
from .._ops.out_param import RULES as _OUT_RULES
from .._ops.out_param import install as _install_out

# PyTorch's linalg functions take out= (Note [out= of table functions])
for _name, _f in _PUBLIC.items():
    if "linalg." + _name in _OUT_RULES:
        _install_out(_SPECS[_name], "linalg." + _name, api=_f)

cholesky = _PUBLIC["cholesky"]
cholesky_ex = _PUBLIC["cholesky_ex"]
cond = _PUBLIC["cond"]
cross = _PUBLIC["cross"]
det = _PUBLIC["det"]
diagonal = _PUBLIC["diagonal"]
eig = _PUBLIC["eig"]
eigh = _PUBLIC["eigh"]
eigvals = _PUBLIC["eigvals"]
eigvalsh = _PUBLIC["eigvalsh"]
householder_product = _PUBLIC["householder_product"]
inv = _PUBLIC["inv"]
inv_ex = _PUBLIC["inv_ex"]
ldl_factor = _PUBLIC["ldl_factor"]
ldl_factor_ex = _PUBLIC["ldl_factor_ex"]
ldl_solve = _PUBLIC["ldl_solve"]
lstsq = _PUBLIC["lstsq"]
lu = _PUBLIC["lu"]
lu_factor = _PUBLIC["lu_factor"]
lu_factor_ex = _PUBLIC["lu_factor_ex"]
lu_solve = _PUBLIC["lu_solve"]
matmul = _PUBLIC["matmul"]
matrix_exp = _PUBLIC["matrix_exp"]
matrix_norm = _PUBLIC["matrix_norm"]
matrix_power = _PUBLIC["matrix_power"]
matrix_rank = _PUBLIC["matrix_rank"]
multi_dot = _PUBLIC["multi_dot"]
norm = _PUBLIC["norm"]
pinv = _PUBLIC["pinv"]
qr = _PUBLIC["qr"]
slogdet = _PUBLIC["slogdet"]
solve = _PUBLIC["solve"]
solve_ex = _PUBLIC["solve_ex"]
solve_triangular = _PUBLIC["solve_triangular"]
svd = _PUBLIC["svd"]
svdvals = _PUBLIC["svdvals"]
tensorinv = _PUBLIC["tensorinv"]
tensorsolve = _PUBLIC["tensorsolve"]
vander = _PUBLIC["vander"]
vecdot = _PUBLIC["vecdot"]
vector_norm = _PUBLIC["vector_norm"]

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal",
           "eig", "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex",
           "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet",
           "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
           "tensorsolve", "vander", "vecdot", "vector_norm"]
