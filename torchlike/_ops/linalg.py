"""Linear-algebra ops, part one: products. ``matmul`` (and ``@``), ``mm``, ``mv``,
``bmm``, ``dot``, ``vdot``, ``inner``, ``outer``/``ger``, ``einsum``, ``tensordot``,
``kron``; the checks and names the family shares.

``linalg_products.py`` holds the scaled products (``addmm`` and friends), ``cross``,
``cdist`` and chains of products. Decompositions, inverses and norms (``det``,
``inverse``, ``linalg.svd``, ...) are declared in ``torchlike/linalg/_decomp.py``; both
are imported at the bottom of this file so that they enter the op table before it is
bound.

# Note [Matmul precision]
# PyTorch computes float32 products in full float32 unless
# ``torch.set_float32_matmul_precision`` allows less (TF32 is off by default), while XLA
# on GPUs may use reduced-precision passes for float32 dots. Every product here names the
# precision of that setting (``xla.matmul_precision()``, "highest" by default), so by
# default results do not depend on the backend (Note [float32 matmul precision] in
# ``_core/xla.py``). The linear-algebra algorithms (``linalg/``) keep HIGHEST.
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .._core.xla import matmul_precision
from ._common import broadcast_shapes_or_raise, shape_str
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["LinAlgError", "HIGHEST", "dtype_title", "cpp_name", "check_float",
           "check_square"]

HIGHEST = "highest"


class LinAlgError(RuntimeError):
    """Mirrors ``torch.linalg.LinAlgError``: raised for singular or non positive-definite
    inputs of ``linalg.inv``, ``linalg.solve``, ``linalg.cholesky`` and friends."""


# PyTorch's class is called ``_LinAlgError``; the parity tests compare class names.
LinAlgError.__name__ = "_LinAlgError"
LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torchlike.linalg"


# ---------------------------------------------------------------------------
# shared checks and names
def dtype_title(d) -> str:
    """PyTorch's short dtype name as in its error messages (``Float``, ``Long``)."""
    from .bind import dtype_short_name
    return dtype_short_name(d)


cpp_name = _dt.cpp_name


def _is_float(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def check_float(name: str, t) -> None:
    if isinstance(t, Tensor) and not _is_float(t):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {dtype_title(t.dtype)}")


def check_square(name: str, t, arg: str = "A") -> None:
    if t.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    m, n = t._shape[-2:]
    if m != n:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")


def _check_no_bool(kernel: str, *ts) -> None:
    for t in ts:
        if isinstance(t, Tensor) and t.dtype is _dt.bool:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _mm_msg(a: tuple, b: tuple) -> str:
    return (f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and "
            f"{b[0]}x{b[1]})")


def _mv_msg(rows: int, k: int, n: int) -> str:
    return f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({n})"


def _dot_size_msg(n: int, m: int) -> str:
    return (f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively")


def _same_dtype_m1m2(a, b) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_name(a.dtype)} != {cpp_name(b.dtype)}")


def _same_dtype_scalar_type(a, b) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {dtype_title(a.dtype)} but found "
                           f"{dtype_title(b.dtype)}")


def _bmm_msg(batch: int, k: int, k2: int) -> str:
    return (f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] "
            f"but got: [{batch}, {k2}].")


# ---------------------------------------------------------------------------
# matmul
def _matmul(input, other):
    if input.ndim == 1 and other.ndim == 1:
        return jnp.dot(input, other, precision=matmul_precision())
    return jnp.matmul(input, other, precision=matmul_precision())


def _matmul_check(input, other):
    s1, s2 = input._shape, other._shape
    if len(s1) == 2 and len(s2) == 2 and s1[1] == s2[0]:   # the common case, checked first
        dt = input._storage.dtype
        if dt is other._storage.dtype and dt is not _dt.bool:
            return
    d1, d2 = len(s1), len(s2)
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    _check_no_bool("dot" if d1 == d2 == 1 else "addmm_impl_cpu_", input, other)
    if d1 == 1 and d2 == 1:
        if input.dtype is not other.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{dtype_title(input.dtype)} and {dtype_title(other.dtype)}")
        if s1[0] != s2[0]:
            raise RuntimeError(_dot_size_msg(s1[0], s2[0]))
        return
    _same_dtype_m1m2(input, other)
    if d1 == 2 and d2 == 1:
        if s1[1] != s2[0]:
            raise RuntimeError(_mv_msg(s1[0], s1[1], s2[0]))
    elif d1 == 1 and d2 == 2:
        if s1[0] != s2[0]:
            raise RuntimeError(_mm_msg((1, s1[0]), s2))
    elif d1 == 2 and d2 == 2:
        if s1[1] != s2[0]:
            raise RuntimeError(_mm_msg(s1, s2))
    elif _folds(input, other):
        if d1 >= 3:    # the batch of the first argument folds into its rows
            rows = math.prod(s1[:-1])
            if s1[-1] != s2[0]:
                raise RuntimeError(_mv_msg(rows, s1[-1], s2[0]) if d2 == 1 else
                                   _mm_msg((rows, s1[-1]), s2))
        else:          # ... or that of the second one, transposed
            k1 = s1[-1]
            rows = math.prod(s2[:-2]) * s2[-1]
            if k1 != s2[-2]:
                raise RuntimeError(_mv_msg(rows, s2[-2], k1) if d1 == 1 else
                                   _mm_msg((rows, s2[-2]), (k1, s1[0])))
    else:
        m1 = s1 if d1 >= 2 else (1,) + s1
        m2 = s2 if d2 >= 2 else s2 + (1,)
        batch = broadcast_shapes_or_raise(m1[:-2], m2[:-2])
        if m1[-1] != m2[-2]:
            raise RuntimeError(_bmm_msg(math.prod(batch), m1[-1], m2[-2]))


def _folds(input, other) -> bool:
    """Whether PyTorch's matmul folds a batch into an mm/mv (which decides its error text),
    following its ``should_fold``."""
    d1, d2 = input.dim(), other.dim()
    big, small = (input, other) if d1 >= d2 else (other, input)
    if not (big.dim() >= 3 and small.dim() <= 2):
        return False
    if small.requires_grad:
        return True
    if d1 == 2:
        return False
    if big.numel() == 0:
        return True
    shape, stride = big._shape, big.stride()
    if d1 < d2:    # the transposed second argument
        shape = shape[:-2] + (shape[-1], shape[-2])
        stride = stride[:-2] + (stride[-1], stride[-2])
    return all(stride[i] == stride[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_grad_name(input, other):
    d1, d2 = input.dim(), other.dim()
    return {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0",
            (1, 2): "SqueezeBackward4"}.get((d1, d2), "CloneBackward0" if d1 == 2
                                             else "UnsafeViewBackward0")


def _matmul_samples():
    f64 = dict(dtype="float64")
    return [
        S(arr(3), arr(3)), S(arr(2, 3), arr(3)), S(arr(3), arr(3, 4)), S(arr(2, 3), arr(3, 4)),
        S(arr(2, 2, 3), arr(2, 3, 4)), S(arr(2, 2, 3), arr(3, 4)), S(arr(3, 4), arr(2, 4, 5)),
        S(arr(2, 1, 2, 3), arr(3, 3, 2)), S(arr(2, 3, 4), arr(4)), S(arr(4), arr(2, 4, 5)),
        S(arr(2, 3, **f64), arr(3, 2, **f64)),
        S(arr(2, 3, dtype="int64"), arr(3, 2, dtype="int64"), grad=False),
        S(arr(3, dtype="int32"), arr(3, dtype="int32"), grad=False),
        S(arr(2, 3, dtype="complex64"), arr(3, 2, dtype="complex64"), grad=False),
        S(arr(0, 3), arr(3, 2)), S(arr(2, 0), arr(0, 2)),
        # error paths, compared with PyTorch's exception type
        S(arr(2, 3), arr(4, 5), grad=False), S(arr(3), arr(4), grad=False),
        S(arr(2, 3), arr(3, dtype="float64"), grad=False), S(arr(), arr(3), grad=False),
    ]


register(OpSpec(
    "matmul", _matmul, "input, other", tensor_args=("input", "other"), promote="none",
    dunders=("__matmul__", "__rmatmul__"), check=_matmul_check,
    grad_name=_matmul_grad_name, samples=_matmul_samples,
    doc="Mirrors ``torch.matmul``: dot, matrix-vector, matrix-matrix or broadcast batched "
        "product depending on the ranks; integer inputs give integer results."))


# ---------------------------------------------------------------------------
# mm, mv, bmm, dot, vdot
def _mm_check(input, mat2):
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_no_bool("addmm_impl_cpu_", input, mat2)
    _same_dtype_m1m2(input, mat2)
    if input._shape[1] != mat2._shape[0]:
        raise RuntimeError(_mm_msg(input._shape, mat2._shape))


register(OpSpec(
    "mm", lambda input, mat2: jnp.matmul(input, mat2, precision=matmul_precision()), "input, mat2",
    tensor_args=("input", "mat2"), promote="none", check=_mm_check,
    samples=lambda: [S(arr(2, 3), arr(3, 4)), S(arr(4, 4, dtype="float64"),
                                                arr(4, 1, dtype="float64")),
                     S(arr(2, 3, dtype="int64"), arr(3, 2, dtype="int64"), grad=False),
                     S(arr(2, 3, dtype="complex128"), arr(3, 2, dtype="complex128"),
                       grad=False),
                     S(arr(2, 3), arr(4, 5), grad=False), S(arr(3), arr(3, 3), grad=False),
                     S(arr(2, 3), arr(3, 3, dtype="float64"), grad=False)]))


def _mv_check(input, vec):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{vec.dim()}")
    if input.dtype is not vec.dtype:
        v, m = dtype_title(vec.dtype), dtype_title(input.dtype)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {v}, {m}, "
                           f"and {v}")
    if input._shape[1] != vec._shape[0]:
        raise RuntimeError(_mv_msg(input._shape[0], input._shape[1], vec._shape[0]))


register(OpSpec(
    "mv", lambda input, vec: jnp.matmul(input, vec, precision=matmul_precision()), "input, vec",
    tensor_args=("input", "vec"), promote="none", check=_mv_check,
    samples=lambda: [S(arr(2, 3), arr(3)), S(arr(4, 4, dtype="float64"),
                                             arr(4, dtype="float64")),
                     S(arr(2, 3, dtype="int64"), arr(3, dtype="int64"), grad=False),
                     S(arr(2, 3), arr(4), grad=False), S(arr(2, 3), arr(3, 1), grad=False)]))


def _bmm_check(input, mat2):
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _same_dtype_scalar_type(input, mat2)
    b, _, k = input._shape
    if mat2._shape[0] != b or mat2._shape[1] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b}, {k}] but got: [{mat2._shape[0]}, {mat2._shape[1]}].")


register(OpSpec(
    "bmm", lambda input, mat2: jnp.matmul(input, mat2, precision=matmul_precision()), "input, mat2",
    tensor_args=("input", "mat2"), promote="none", check=_bmm_check,
    samples=lambda: [S(arr(2, 2, 3), arr(2, 3, 4)),
                     S(arr(3, 1, 2, dtype="float64"), arr(3, 2, 2, dtype="float64")),
                     S(arr(2, 2, 3, dtype="int64"), arr(2, 3, 2, dtype="int64"), grad=False),
                     S(arr(2, 2, 3), arr(2, 4, 5), grad=False),
                     S(arr(2, 2, 3), arr(3, 3, 5), grad=False),
                     S(arr(2, 3), arr(3, 3, 5), grad=False)]))


def _dot_check(name):
    def check(input, other):
        if input.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and "
                               f"{other.dim()}D tensors")
        _check_no_bool(name, input, other)
        if input.dtype is not other.dtype:
            raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                               f"{dtype_title(input.dtype)} and {dtype_title(other.dtype)}")
        if input._shape[0] != other._shape[0]:
            raise RuntimeError(_dot_size_msg(input._shape[0], other._shape[0]))
    return check


def _dot_samples():
    return [S(arr(3), arr(3)), S(arr(5, dtype="float64"), arr(5, dtype="float64")),
            S(arr(3, dtype="int64"), arr(3, dtype="int64"), grad=False),
            S(arr(3, dtype="complex64"), arr(3, dtype="complex64"), grad=False),
            S(arr(0), arr(0)),
            S(arr(3), arr(4), grad=False), S(arr(3, 1), arr(3), grad=False),
            S(arr(3), arr(3, dtype="float64"), grad=False)]


register(OpSpec(
    "dot", lambda input, other: jnp.dot(input, other, precision=matmul_precision()), "input, other",
    tensor_args=("input", "other"), promote="none", check=_dot_check("dot"),
    samples=_dot_samples))
register(OpSpec(
    "vdot", lambda input, other: jnp.vdot(input, other, precision=matmul_precision()),
    "input, other",
    tensor_args=("input", "other"), promote="none", check=_dot_check("vdot"),
    samples=_dot_samples))


def _trace(input):
    d = jnp.diagonal(input)
    if jnp.issubdtype(input.dtype, jnp.integer):
        return jnp.sum(d, dtype=jnp.int64)   # integral inputs sum in int64, as sum() does
    return jnp.sum(d)


def _trace_check(input):
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    _check_no_bool("trace", input)


register(OpSpec(
    "trace", _trace, "input", promote="none", check=_trace_check,
    samples=lambda: [S(arr(3, 3)), S(arr(2, 4)), S(arr(4, 2, dtype="float64")),
                     S(arr(0, 3)), S(arr(3, 3, dtype="int32"), grad=False),
                     S(arr(2, 2, dtype="uint8"), grad=False),
                     S(arr(2, 2, dtype="complex64"), grad=False),
                     S(arr(3), grad=False), S(arr(2, 2, 2), grad=False),
                     S(arr(2, 2, dtype="bool"), grad=False)]))


# ---------------------------------------------------------------------------
# inner, outer, tensordot, einsum, kron
def _inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    return jnp.tensordot(input, other, axes=([-1], [-1]), precision=matmul_precision())


def _inner_check(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if input._shape[-1] != other._shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {shape_str(input._shape)} and "
                           f"{shape_str(other._shape)}")


register(OpSpec(
    "inner", _inner, "input, other", tensor_args=("input", "other"), promote="common",
    check=_inner_check,
    samples=lambda: [S(arr(3), arr(3)), S(arr(2, 3), arr(4, 3)), S(arr(2, 2, 3), arr(3)),
                     S(arr(), arr(2, 3)), S(arr(2, 3), arr(4, 2), grad=False),
                     S(arr(3, dtype="int64"), arr(3, dtype="int64"), grad=False)]))


def _outer_check(input, vec2):
    if input.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")


register(OpSpec(
    "outer", lambda input, vec2: jnp.outer(input, vec2), "input, vec2",
    tensor_args=("input", "vec2"), promote="common", check=_outer_check, aliases=("ger",),
    samples=lambda: [S(arr(3), arr(4)), S(arr(3, dtype="float64"), arr(2)),
                     S(arr(3, dtype="int64"), arr(2, dtype="int64"), grad=False),
                     S(arr(3, 1), arr(4), grad=False)]))


def _tensordot_axes(na: int, nb: int, dims):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        return tuple(range(na - dims, na)), tuple(range(dims)), \
            tuple(range(-dims, 0)), tuple(range(dims))
    da, db = dims
    da = (da,) if isinstance(da, int) else tuple(da)
    db = (db,) if isinstance(db, int) else tuple(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return da, db, da, db


def _tensordot(a, b, dims=2, out=None):
    da, db, _, _ = _tensordot_axes(a.ndim, b.ndim, dims)
    return jnp.tensordot(a, b, axes=(da, db), precision=matmul_precision())


def _tensordot_check(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        raise TypeError("torchlike.tensordot: pass dims as an int or a pair of lists, not a "
                        "tensor (dims.tolist())")
    da, db, sa, sb = _tensordot_axes(a.dim(), b.dim(), dims)
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, y, px, py in zip(da, db, sa, sb):
        xa, yb = a._shape[wrap_dim(x, a.dim())], b._shape[wrap_dim(y, b.dim())]
        if xa != yb:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {xa} "
                               f"in dim {px} and second has size {yb} in dim {py}")


register(OpSpec(
    "tensordot", _tensordot, "a, b, dims=2", tensor_args=("a", "b"),
    promote="none", method=False, check=_tensordot_check,
    samples=lambda: [S(arr(2, 3, 4), arr(3, 4, 5)), S(arr(2, 3), arr(3, 4), dims=1),
                     S(arr(2, 3, 4), arr(4, 3, 5), dims=[[1, 2], [1, 0]]),
                     S(arr(2, 3), arr(4, 5), dims=0),
                     S(arr(2, 3), arr(4, 5), dims=1, grad=False)]))


# The signature ``equation, operands, *more`` accepts both ``einsum(eq, a, b)`` and
# ``einsum(eq, [a, b])`` with every tensor at most one list deep, where the dispatcher
# looks for tensors that require grad.
def _einsum_operands(operands, more) -> list:
    first = list(operands) if isinstance(operands, (list, tuple)) else [operands]
    return first + list(more)


def _einsum(equation, operands, more):
    ops = _einsum_operands(operands, more)
    return jnp.einsum(equation, *ops, precision=matmul_precision())


def _einsum_check(equation, operands, more):
    ops = _einsum_operands(operands, more)
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs = equation.split("->")[0]
    n_spec = len(lhs.split(","))
    if len(ops) < n_spec:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(ops) > n_spec:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    for op in ops[1:]:
        _same_dtype_scalar_type(ops[0], op)
    seen: dict = {}
    for i, (sub, op) in enumerate(zip(lhs.split(","), ops)):
        sub = sub.replace(" ", "")
        if "." in sub:
            continue
        if len(sub) != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(sub)}) does not match the number of dimensions "
                               f"({op.dim()}) for operand {i} and no ellipsis was given")
        for c, size in zip(sub, op._shape):
            if c in seen and seen[c] != size and size != 1 and seen[c] != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {size} for operand {i} "
                                   f"which does not broadcast with previously seen size "
                                   f"{seen[c]}")
            if c not in seen or seen[c] == 1:
                seen[c] = size


register(OpSpec(
    "einsum", _einsum, "equation, operands, *more", tensor_args=("operands", "more"),
    promote="none",
    method=False, check=_einsum_check,
    samples=lambda: [S("ij,jk->ik", arr(2, 3), arr(3, 4)), S("ii", arr(3, 3)),
                     S("bij,bjk->bik", [arr(2, 2, 3), arr(2, 3, 4)]),
                     S("i,j->ij", arr(3), arr(4)), S("...ij->...ji", arr(2, 3, 4)),
                     S("ij->", arr(2, 3, dtype="float64")),
                     S("ij,jk->ik", arr(2, 3), arr(4, 5), grad=False),
                     S("ij,jk->ik", arr(2, 3), grad=False)]))


def _kron(input, other):
    return jnp.kron(input, other)


register(OpSpec(
    "kron", _kron, "input, other", tensor_args=("input", "other"), promote="common",
    samples=lambda: [S(arr(2, 2), arr(3, 3)), S(arr(2), arr(2, 3)), S(arr(3), arr(2)),
                     S(arr(2, 2, dtype="int64"), arr(2, dtype="int64"), grad=False)]))


# The rest of the family: scaled products, cross, cdist, chains; decompositions, inverses,
# norms.
from . import linalg_products  # noqa: E402,F401
from ..linalg import _decomp  # noqa: E402,F401
