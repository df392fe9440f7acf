"""float16 and bfloat16 inputs of the LAPACK-backed linear-algebra functions raise
PyTorch's errors (the kernel's NotImplementedError, or the low-precision RuntimeError of
the functions that check the dtype first) instead of JAX's."""

from __future__ import annotations

import numpy as np
import pytest

from ._parity import error_like_torch

A = 2 * np.eye(3) + 0.1

# name -> call on the library and a square float16/bfloat16 matrix; the expected error
# (exception type, first words) is checked without PyTorch too
CASES = {
    "linalg.qr": (lambda m, a: m.linalg.qr(a), NotImplementedError, '"geqrf_cpu"'),
    "qr": (lambda m, a: m.qr(a), NotImplementedError, '"geqrf_cpu"'),
    "linalg.svd": (lambda m, a: m.linalg.svd(a), NotImplementedError, '"linalg_svd_cpu"'),
    "linalg.svdvals": (lambda m, a: m.linalg.svdvals(a), NotImplementedError,
                       '"linalg_svd_cpu"'),
    "linalg.eigh": (lambda m, a: m.linalg.eigh(a), NotImplementedError, '"linalg_eigh_cpu"'),
    "linalg.eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), NotImplementedError,
                        '"linalg_eigh_cpu"'),
    "linalg.eig": (lambda m, a: m.linalg.eig(a), NotImplementedError,
                   '"linalg_eig_out_cpu"'),
    "linalg.eigvals": (lambda m, a: m.linalg.eigvals(a), NotImplementedError,
                       '"linalg_eig_out_cpu"'),
    "linalg.inv": (lambda m, a: m.linalg.inv(a), RuntimeError, "linalg.inv: Low precision"),
    "inverse": (lambda m, a: m.inverse(a), RuntimeError, "linalg.inv: Low precision"),
    "linalg.inv_ex": (lambda m, a: m.linalg.inv_ex(a), RuntimeError,
                      "linalg.inv: Low precision"),
    "linalg.matrix_power": (lambda m, a: m.linalg.matrix_power(a, -1), RuntimeError,
                            "linalg.inv: Low precision"),
    "linalg.det": (lambda m, a: m.linalg.det(a), NotImplementedError, '"lu_cpu"'),
    "det": (lambda m, a: m.det(a), NotImplementedError, '"lu_cpu"'),
    "linalg.slogdet": (lambda m, a: m.linalg.slogdet(a), RuntimeError,
                       "linalg.slogdet: Low precision"),
    "logdet": (lambda m, a: m.logdet(a), RuntimeError, "logdet: Low precision"),
    "linalg.solve": (lambda m, a: m.linalg.solve(a, a), NotImplementedError, '"lu_cpu"'),
    "linalg.lu_factor": (lambda m, a: m.linalg.lu_factor(a), NotImplementedError,
                         '"lu_cpu"'),
    "linalg.cholesky": (lambda m, a: m.linalg.cholesky(a), NotImplementedError,
                        '"cholesky_cpu"'),
    "linalg.cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(a), NotImplementedError,
                           '"cholesky_cpu"'),
    "cholesky": (lambda m, a: m.cholesky(a), NotImplementedError, '"cholesky_cpu"'),
    "linalg.solve_triangular": (lambda m, a: m.linalg.solve_triangular(a, a, upper=True),
                                NotImplementedError, '"triangular_solve_cpu"'),
    "linalg.lstsq": (lambda m, a: m.linalg.lstsq(a, a), RuntimeError,
                     "This function doesn't handle"),
    "linalg.matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), RuntimeError,
                           "This function doesn't handle"),
    "linalg.matrix_norm_2": (lambda m, a: m.linalg.matrix_norm(a, 2), RuntimeError,
                             "linalg.matrix_norm: Low precision"),
    "linalg.matrix_norm_nuc": (lambda m, a: m.linalg.matrix_norm(a, "nuc", dtype=m.float32),
                               RuntimeError, "linalg.matrix_norm: Low precision"),
    "norm_nuc": (lambda m, a: m.norm(a, "nuc"), RuntimeError,
                 "linalg.matrix_norm: Low precision"),
    "linalg.norm_2": (lambda m, a: m.linalg.norm(a, 2), RuntimeError,
                      "linalg.matrix_norm: Low precision"),
    "linalg.cond": (lambda m, a: m.linalg.cond(a), NotImplementedError, '"linalg_svd_cpu"'),
    "linalg.cond_fro": (lambda m, a: m.linalg.cond(a, "fro"), RuntimeError,
                        "linalg.inv: Low precision"),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", CASES)
def test_low_precision_error(name, dtype):
    fn, exc, start = CASES[name]
    err = error_like_torch(lambda m: fn(m, m.tensor(A, dtype=getattr(m, dtype))))
    assert type(err) is exc and str(err).startswith(start), err
    title = "Half" if dtype == "float16" else "BFloat16"
    assert title in str(err) or exc is RuntimeError and "handle" in str(err)


@pytest.mark.parametrize("name", ["linalg.qr", "linalg.inv", "linalg.det", "linalg.lstsq",
                                  "linalg.matrix_norm_2", "linalg.solve_triangular"])
def test_float32_still_computes(name):
    import torchlike as tl
    fn, _, _ = CASES[name]
    fn(tl, tl.tensor(A, dtype=tl.float32))
