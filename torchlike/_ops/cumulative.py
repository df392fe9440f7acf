"""Cumulative ops along a dimension: cumsum and cumprod (with their in-place
``Tensor.cumsum_``/``cumprod_``), cummax, cummin, logcumsumexp, and diff, the forward
difference that undoes a cumsum. Each is declared once; see spec.py."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .reduction_common import _as_1d_row, _int_dim, _is_int_like, _pick_row, _short, _ties
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# cumulative ops
def _cum_fn(kind):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.astype(dtype.np)
        elif jnp.issubdtype(input.dtype, jnp.integer) or input.dtype == jnp.bool_:
            input = input.astype(jnp.int64)
        if input.ndim == 0:
            return input
        axis = wrap_dim(dim, input.ndim)
        out_dtype = input.dtype
        input = _acc(input)
        return (jnp.cumsum if kind == "sum" else jnp.cumprod)(input, axis=axis).astype(out_dtype)
    return fn


def _acc(x):
    """``x`` in the type PyTorch's cumulative kernels accumulate in: float32 for float16
    and bfloat16 (``at::acc_type``), so a running sum keeps its precision and only each
    output is rounded; other dtypes as they are."""
    return x.astype(jnp.float32) if x.dtype in (jnp.float16, jnp.bfloat16) else x


def _cum_check(input, dim, dtype=None):
    _int_dim("cumsum", dim)
    wrap_dim(dim, input.dim())


def _cum_samples():
    return [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4), -1), S(arr(), 0), S(arr(0, 3), 0),
            S(np.array([2.0, 0.0, 3.0, 0.0, 1.5], np.float32), 0),
            S(arr(4, dtype="int32"), 0, grad=False), S(arr(4, dtype="bool"), 0, grad=False),
            S(arr(3, 4), 1, dtype=_dt.float64), S(arr(3, 4), 2), S(arr(3, 4), dim=-1)]


for _k in ("sum", "prod"):
    register(OpSpec(
        "cum" + _k, _cum_fn(_k), "input, dim, *, dtype=None", promote="none",
        check=_cum_check, saves=_k == "prod",
        doc=f"Mirrors ``torch.cum{_k}``: integer and bool inputs give int64 unless ``dtype``.",
        samples=_cum_samples))


def _cum_inplace(kind: str):
    def method(self: Tensor, dim: int, *, dtype=None) -> Tensor:
        from .bind import check_inplace_target, inplace_apply
        from .dispatch import dispatch
        from .spec import OPS
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{_dt.cpp_name(self.dtype)} and output tensor dtype "
                               f"{_dt.cpp_name(dtype)} should match")
        if self.dtype is _dt.bool:
            raise NotImplementedError(f'"cum{kind}_out_cpu" not implemented for \'Bool\'')
        check_inplace_target(self)
        spec = OPS["cum" + kind]
        return inplace_apply(self, dispatch(spec, method, (self, dim), {"dtype": self.dtype}))
    method.__name__ = f"cum{kind}_"
    method.__qualname__ = f"Tensor.cum{kind}_"
    method.__doc__ = (f"Mirrors ``torch.Tensor.cum{kind}_``: computed in this tensor's dtype "
                      f"(no int64 promotion).")
    return method


Tensor.cumsum_ = _cum_inplace("sum")
Tensor.cumprod_ = _cum_inplace("prod")


def _cum_extreme_idx(row, kind):
    """Indices of the running max/min along the last axis: later ties win and NaN
    propagates (the latest NaN), as PyTorch's cummax/cummin."""
    n = row.shape[-1]
    iota = lax.broadcasted_iota(jnp.int64, row.shape, row.ndim - 1)
    floating = jnp.issubdtype(row.dtype, jnp.floating)
    v = row.astype(jnp.uint8) if row.dtype == jnp.bool_ else row

    def combine(a, b):
        va, ia = a
        vb, ib = b
        better = vb >= va if kind == "max" else vb <= va
        if floating:
            better = jnp.isnan(vb) | (~jnp.isnan(va) & better)
        return jnp.where(better, vb, va), jnp.where(better, ib, ia)

    if n == 0:
        return iota
    _, idx = lax.associative_scan(combine, (v, iota), axis=row.ndim - 1)
    return idx


def _cummax_fn(kind):
    def fn(input, dim):
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        idx = _cum_extreme_idx(row, kind)
        return _pick_row(input, axis, row, idx)
    return fn


for _k in ("max", "min"):
    register(OpSpec(
        "cum" + _k, _cummax_fn(_k), "input, dim", check=lambda input, dim: wrap_dim(
            dim, input.dim()), out_names=("values", "indices"), nondiff_outputs=(1,),
        doc=f"Mirrors ``torch.cum{_k}`` -> ``(values, indices)``; among ties the latest "
            f"index wins, as in PyTorch.",
        samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(_ties(), 1), S(_ties(), 0),
                         S(arr(), 0), S(arr(0, 3), 0),
                         S(np.array([1.0, np.nan, 3.0, np.nan, 0.0], np.float32), 0),
                         S(arr(5, dtype="int64"), 0, grad=False),
                         S(arr(5, dtype="bool"), 0, grad=False), S(arr(3, 4), -1)]))


def _logcumsumexp_fn(input, dim):
    if input.ndim == 0:
        return input
    return lax.cumlogsumexp(_acc(input), axis=wrap_dim(dim, input.ndim)).astype(input.dtype)


def _float_only(kernel):
    def check(input, *rest, **kw):
        if _is_int_like(input.dtype):
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_short(input.dtype)}'")
    return check


register(OpSpec(
    "logcumsumexp", _logcumsumexp_fn, "input, dim", promote="none",
    check=lambda input, dim: (_float_only("logcumsumexp_out_cpu")(input),
                              wrap_dim(dim, input.dim())),
    doc="Mirrors ``torch.logcumsumexp``.",
    samples=lambda: [S(arr(3, 4), 1), S(arr(3, 4), 0), S(arr(2, 3, 4, dtype="float64"), -1),
                     S(arr(), 0), S(arr(0, 3), 1), S(arr(3, dtype="int64"), 0)]))


# ---------------------------------------------------------------------------
# diff
def _diff_fn(input, n=1, dim=-1, prepend=None, append=None):
    axis = wrap_dim(dim, input.ndim)
    parts = [p for p in (prepend, input, append) if p is not None]
    x = jnp.concatenate(parts, axis=axis) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[axis]
        if m == 0:
            break
        hi = lax.slice_in_dim(x, 1, m, axis=axis)
        lo = lax.slice_in_dim(x, 0, m - 1, axis=axis)
        x = hi != lo if x.dtype == jnp.bool_ else hi - lo
    return x


def _diff_check(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = wrap_dim(dim, input.dim())
    for name, p in (("prepend", prepend), ("append", append)):
        if isinstance(p, Tensor):
            if p.dim() != input.dim() or any(a != b for i, (a, b) in
                                              enumerate(zip(p.shape, input.shape))
                                              if i != axis):
                raise RuntimeError(f"diff expects {name} to have the same number of "
                                   f"dimensions as input and the same shape except along "
                                   f"dim {axis}; got {shape_str(p.shape)} and "
                                   f"{shape_str(input.shape)}")


register(OpSpec(
    "diff", _diff_fn, "input, n=1, dim=-1, prepend=None, append=None",
    tensor_args=("input", "prepend", "append"), check=_diff_check, grad_name="SubBackward0",
    doc="Mirrors ``torch.diff`` (bool inputs use xor).",
    samples=lambda: [S(arr(5)), S(arr(3, 4)), S(arr(3, 4), 2, 0), S(arr(3, 4), 0),
                     S(arr(3, 4), 1, -1, arr(3, 1), arr(3, 2)), S(arr(3, 4), 5),
                     S(arr(4, dtype="int64"), grad=False), S(arr(5, dtype="bool"), grad=False),
                     S(arr(4), 1, 0, arr(1, dtype="float64")), S(arr(0)), S(arr()),
                     S(arr(4), -1)]))
