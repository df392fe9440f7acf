"""Statistics along dims: var, std, var_mean, std_mean, median, nanmedian, mode,
quantile and nanquantile. Each is declared once; see spec.py. Their gradients follow
Note [Subgradient conventions] in reduction_common.py."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core import dtype as _dt
from .._core.tensor import Tensor, wrap_dim
from .arithmetic import lerp_kernel as _lerp
from .reduction_common import (_MISSING, _argsort_last, _as_1d_row, _axes, _check_dims,
                               _check_nonempty_dim, _even_reduce, _from_row, _gather_dim,
                               _grad_name, _int_dim, _is_int_like, _overloaded, _short,
                               _sort_key, _ties)
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []


# ---------------------------------------------------------------------------
# var / std and their _mean variants
def _var_binder(name):
    def bind(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):          # var(input, unbiased)
            if unbiased is not None or keepdim or correction is not None:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            "both 'unbiased' and 'correction'")
        if correction is None:
            correction = 0 if unbiased is False else 1
        return (input, dim, correction, keepdim)
    return bind


def _var_core(x, dim, correction, keepdim):
    axes = _axes(x, dim)
    mean = jnp.mean(x, axis=axes, keepdims=True)
    dev = x - mean
    sq = (dev.real ** 2 + dev.imag ** 2) if jnp.iscomplexobj(x) else dev * dev
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    denom = max(n - correction, 0)
    var = jnp.sum(sq, axis=axes, keepdims=keepdim) / jnp.asarray(denom, sq.dtype)
    return var, (mean if keepdim else jnp.squeeze(mean, axes if axes is not None
                                                  else tuple(range(x.ndim))))


def _safe_sqrt(v):
    # PyTorch's std_backward masks the gradient to 0 where the result is 0.
    zero = v == 0
    return jnp.where(zero, jnp.zeros_like(v), jnp.sqrt(jnp.where(zero, jnp.ones_like(v), v)))


def _var_fn(input, dim=None, correction=1, keepdim=False):
    return _var_core(input, dim, correction, keepdim)[0]


def _std_fn(input, dim=None, correction=1, keepdim=False):
    return _safe_sqrt(_var_core(input, dim, correction, keepdim)[0])


def _var_mean_fn(input, dim=None, correction=1, keepdim=False):
    return _var_core(input, dim, correction, keepdim)


def _std_mean_fn(input, dim=None, correction=1, keepdim=False):
    v, m = _var_core(input, dim, correction, keepdim)
    return _safe_sqrt(v), m


def _var_check(input, dim=None, correction=1, keepdim=False):
    if _is_int_like(input.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    _check_dims(input, dim)


def _var_samples():
    return [S(arr(3, 4)), S(arr(3, 4), 1), S(arr(3, 4), (0, 1), keepdim=True),
            S(arr(3, 4), 1, False), S(arr(3, 4), 1, True, True), S(arr(3, 4), False),
            S(arr(3, 4), dim=0, correction=0), S(arr(3, 4), -1, correction=2, keepdim=True),
            S(arr(3, 4), 1, unbiased=False), S(np.full((2, 3), 1.5, np.float32), 1),
            S(arr(2, 3, 4, dtype="float64"), (0, 2)), S(arr()), S(arr(5, dtype="int64")),
            S(arr(3, 4), method=True), S(arr(3, 4), 1, method=True)]


for _n, _f, _g in (("var", _var_fn, "VarBackward0"), ("std", _std_fn, "StdBackward0")):
    _overloaded(OpSpec(
        _n, _f, "input, dim=None, correction=1, keepdim=False", check=_var_check,
        grad_name=_g, doc=f"Mirrors ``torch.{_n}``: ``{_n}(input, dim, unbiased, keepdim)`` "
        f"and ``{_n}(input, dim=None, *, correction=1, keepdim=False)``.",
        samples=_var_samples), _var_binder(_n))
for _n, _f, _g in (("var_mean", _var_mean_fn, "VarMeanBackward0"),
                   ("std_mean", _std_mean_fn, "StdMeanBackward0")):
    _overloaded(OpSpec(
        _n, _f, "input, dim=None, correction=1, keepdim=False", check=_var_check,
        grad_name=_g, method=False,
        doc=f"Mirrors ``torch.{_n}``: a plain tuple of the two results.",
        samples=lambda: [s for s in _var_samples() if not s.method]), _var_binder(_n))


# ---------------------------------------------------------------------------
# median, nanmedian, mode
def _median_binder(name):
    def bind(input, dim=_MISSING, keepdim=False):
        if dim is _MISSING:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments")
            return (input, None, False)
        _int_dim(name, dim)
        return (input, int(dim), bool(keepdim))
    return bind


def _median_fn(ignore_nan):
    def fn(input, dim=None, keepdim=False):
        if dim is None:
            return _even_reduce(input, "nanmedian" if ignore_nan else "median", None, False,
                                True)
        axis = wrap_dim(dim, input.ndim)
        row = _as_1d_row(input, axis)
        n = row.shape[-1]
        order = _argsort_last(row, False)       # (value, index) order, NaN last
        if jnp.issubdtype(row.dtype, jnp.floating):
            nan = jnp.isnan(row)
            if ignore_nan:
                k = jnp.maximum((n - jnp.sum(nan, -1, keepdims=True) - 1) // 2, 0)
                pos = jnp.take_along_axis(order, k, axis=-1)
            else:
                first_nan = jnp.argmax(nan, axis=-1, keepdims=True)
                pos = jnp.where(jnp.any(nan, -1, keepdims=True), first_nan,
                                order[..., (n - 1) // 2:(n - 1) // 2 + 1])
        else:
            pos = order[..., (n - 1) // 2:(n - 1) // 2 + 1]
        return _gather_dim(input, pos, axis, keepdim)
    return fn


def _median_check(name):
    def check(input, dim=None, keepdim=False):
        if dim is not None:
            _check_nonempty_dim(name, input, dim)
    return check


def _median_samples():
    return [S(arr(3, 4)), S(arr(3, 5)), S(arr(3, 4), 1), S(arr(3, 5), 0, True), S(_ties()),
            S(_ties(), 1), S(_ties(), 0), S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32), 0),
            S(np.full(8, 2.0, np.float32), 0), S(np.full(8, 2.0, np.float32)),
            S(np.array([[1.0, np.nan, 0.5], [np.nan, np.nan, 2.0], [1.0, 2.0, 3.0]],
                       np.float32), 1),
            S(np.array([1.0, np.nan, 0.5, 3.0], np.float32)),
            S(np.array([np.nan, np.nan], np.float32)), S(np.array([np.nan, np.nan],
                                                                  np.float32), 0),
            S(arr()), S(arr(), 0), S(arr(0)), S(arr(0, 3), 0), S(arr(0, 3), 1),
            S(arr(7, dtype="int64"), grad=False), S(arr(3, 5, dtype="int32"), 1, grad=False),
            S(arr(3, 4), dim=-1, keepdim=True)]


for _n, _ign in (("median", False), ("nanmedian", True)):
    _overloaded(OpSpec(
        _n, _median_fn(_ign), "input, dim=None, keepdim=False", check=_median_check(_n),
        out_names=("values", "indices"), nondiff_outputs=(1,),
        grad_name=_grad_name(f"{_n.capitalize()}Backward0", f"{_n.capitalize()}Backward1"),
        doc=f"Mirrors ``torch.{_n}``: the lower median. Without ``dim`` a tensor (gradient "
            f"split evenly among equal elements); with ``dim`` ``(values, indices)``, the "
            f"index being the k-th in (value, index) order, as PyTorch's CPU kernel.",
        samples=_median_samples), _median_binder(_n))


def _mode_row_index(row):
    """Index (shape [..., 1]) of PyTorch's mode: the smallest most frequent value, at its
    last occurrence."""
    n = row.shape[-1]
    order = _argsort_last(row, False)
    s = jnp.take_along_axis(_sort_key(row), order, axis=-1)
    new = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], -1)
    run = jnp.cumsum(new, axis=-1) - 1
    flat_run = run.reshape(-1, n)
    counts = jax.vmap(lambda r: jnp.zeros(n, jnp.int64).at[r].add(1))(flat_run)
    cnt = jnp.take_along_axis(counts, flat_run, axis=-1).reshape(run.shape)
    best = jnp.argmax(cnt, axis=-1, keepdims=True)          # first: smallest value
    best_run = jnp.take_along_axis(run, best, axis=-1)
    last = jnp.max(jnp.where(run == best_run, lax.broadcasted_iota(jnp.int64, run.shape,
                                                                     run.ndim - 1), -1),
                   axis=-1, keepdims=True)
    return jnp.take_along_axis(order, last, axis=-1)


def _mode_fn(input, dim=-1, keepdim=False):
    axis = wrap_dim(dim, input.ndim)
    row = _as_1d_row(input, axis)
    if row.shape[-1] == 0:
        idx = jnp.zeros(row.shape[:-1] + (1,), jnp.int64)[..., :0]
        return (_from_row(row[..., :0], axis, input.ndim, False),
                _from_row(idx, axis, input.ndim, False))
    return _gather_dim(input, _mode_row_index(row), axis, keepdim)


def _mode_check(input, dim=-1, keepdim=False):
    _int_dim("mode", dim)
    _check_nonempty_dim("mode", input, dim)


register(OpSpec(
    "mode", _mode_fn, "input, dim=-1, keepdim=False", check=_mode_check,
    out_names=("values", "indices"), nondiff_outputs=(1,),
    doc="Mirrors ``torch.mode`` -> ``(values, indices)``: the smallest most frequent value "
        "and the index of its last occurrence.",
    samples=lambda: [S(np.array([3., 1, 3, 2, 1, 3, 2], np.float32)),
                     S(np.array([[1., 2, 2, 1, 3], [5, 5, 1, 1, 5]], np.float32), 1),
                     S(np.array([[1., 2, 2, 1, 3], [5, 5, 1, 1, 5]], np.float32), 0, True),
                     S(_ties(), 1), S(_ties(), 0), S(arr()), S(arr(3, 4)), S(arr(0, 3), 1),
                     S(arr(0, 3), 0), S(np.array([[1, 1, 2], [3, 2, 2]], np.int64), 1,
                                        grad=False)]))


# ---------------------------------------------------------------------------
# quantile, nanquantile
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_fn(ignore_nan):
    def fn(input, q, dim=None, keepdim=False, interpolation="linear"):
        qa = jnp.asarray(q, dtype=input.dtype)
        scalar_q = qa.ndim == 0
        qa = qa.reshape(-1)
        if dim is None:
            x = input.reshape(-1)
            axis = 0
        else:
            axis = wrap_dim(dim, input.ndim)
            x = _as_1d_row(input, axis)
        n = x.shape[-1]
        s = jnp.take_along_axis(x, _argsort_last(x, False), axis=-1)
        nan = jnp.isnan(s)
        if ignore_nan:
            cnt = jnp.sum(~nan, -1, keepdims=True).astype(qa.dtype)
            ranks = qa * (cnt - 1)
            ranks = jnp.where(ranks < 0, jnp.zeros_like(ranks), ranks)
        else:
            ranks = jnp.broadcast_to(qa * (n - 1), s.shape[:-1] + qa.shape)
            ranks = jnp.where(jnp.any(nan, -1, keepdims=True), jnp.asarray(n - 1, qa.dtype),
                              ranks)
        if interpolation == "lower":
            ranks = jnp.floor(ranks)
        elif interpolation == "higher":
            ranks = jnp.ceil(ranks)
        elif interpolation == "nearest":
            ranks = jnp.round(ranks)
        below = ranks.astype(jnp.int64)
        out = jnp.take_along_axis(s, below, axis=-1)
        if interpolation in ("linear", "midpoint"):
            w = jnp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
            above = jnp.take_along_axis(s, jnp.ceil(ranks).astype(jnp.int64), axis=-1)
            out = _lerp(out, above, w.astype(out.dtype))
        # out: reduced shape + (Q,)
        if keepdim:
            if dim is None:
                out = out.reshape((1,) * input.ndim + out.shape[-1:])
            elif input.ndim:
                out = jnp.expand_dims(out, axis)
        out = jnp.moveaxis(out, -1, 0)
        return out[0] if scalar_q else out
    return fn


def _quantile_check(name):
    def check(input, q, dim=None, keepdim=False, interpolation="linear"):
        if input.numel() == 0:
            raise RuntimeError(f"{name}() input tensor must be non-empty")
        if isinstance(q, Tensor) and q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if input.dtype not in (_dt.float32, _dt.float64):
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        if isinstance(q, Tensor) and q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if interpolation not in _INTERP:
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest, but got {interpolation}")
        if dim is not None:
            wrap_dim(dim, input.dim())
        if isinstance(q, Tensor):
            if isinstance(q._value, jax.core.Tracer):
                return
            qv = np.asarray(q._value)
            if not np.all((qv >= 0) & (qv <= 1)):
                raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        elif not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    return check


def _quantile_samples():
    f = np.float32
    return [S(arr(3, 5), 0.3), S(arr(3, 5), 0.5, 1), S(arr(3, 5), np.array([0.1, 0.5, 1.0], f),
                                                          0, True),
            S(arr(7), np.array(0.25, f)), S(arr(3, 5), 0.4, -1, interpolation="lower"),
            S(arr(3, 5), 0.4, -1, interpolation="higher"),
            S(arr(3, 5), 0.4, 1, interpolation="midpoint"),
            S(arr(3, 5), np.array([0.125, 0.375, 0.625], f), 1, interpolation="nearest"),
            S(arr(3, 5), 0.5, keepdim=True), S(arr(), 0.5), S(arr(), 0.5, 0),
            S(_ties(), 0.5, 1), S(_ties(), 0.0), S(_ties(), 1.0, 0),
            S(np.array([[1.0, np.nan, 2.0], [0.5, 3.0, 1.0], [np.nan] * 3], f), 0.5, 1),
            S(arr(3, 5, dtype="float64"), np.array([0.2, 0.8])),
            S(arr(3), 1.5), S(arr(0), 0.5), S(arr(3, dtype="int64"), 0.5),
            S(arr(3), np.array([0.5])), S(arr(3), 0.5, interpolation="foo"),
            S(arr(3), np.array([[0.5]], f))]


for _n, _ign in (("quantile", False), ("nanquantile", True)):
    register(OpSpec(
        _n, _quantile_fn(_ign), "input, q, dim=None, keepdim=False, *, "
        "interpolation='linear'", tensor_args=("input", "q"), promote="none",
        check=_quantile_check(_n), grad_name="SqueezeBackward4",
        doc=f"Mirrors ``torch.{_n}`` with PyTorch's rank arithmetic and interpolation modes.",
        samples=_quantile_samples))


# ---------------------------------------------------------------------------
# cov / corrcoef (ATen's Correlation.cpp, step by step)
def _cov_fn(input, correction=1, fweights=None, aweights=None):
    x = jnp.reshape(input, (1, -1)) if input.ndim < 2 else input
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = jnp.asarray(x.shape[1], jnp.int64)
        avg = jnp.sum(x, axis=1) / w_sum
        norm = w_sum - correction
    else:
        w_sum = jnp.sum(w)
        avg = jnp.sum(x * w, axis=1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * jnp.sum(w * aweights) / w_sum
    norm = jnp.where(norm <= 0, jnp.zeros_like(norm), norm)
    xc = x - avg[:, None]
    c = xc @ jnp.conj((xc if w is None else xc * w).T)
    return jnp.squeeze(c / norm)


def _cov_check(input, correction=1, fweights=None, aweights=None):
    from .shape_common import _host_values
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.dim()} dimensions")
    if input.dtype == _dt.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    n = input.shape[-1] if input.dim() == 2 else input.numel()
    for wname, w, kind in (("fweights", fweights, "integral"),
                           ("aweights", aweights, "floating point")):
        if w is None:
            continue
        if w.dim() > 1:
            raise RuntimeError(f"cov(): expected {wname} to have one or fewer dimensions but "
                               f"got {wname} with {w.dim()} dimensions")
        ok = (_is_int_like(w.dtype) and w.dtype != _dt.bool) if kind == "integral" \
            else w.dtype.is_floating_point
        if not ok:
            raise RuntimeError(f"cov(): expected {wname} to have {kind} dtype but got "
                               f"{wname} with {_short(w.dtype)} dtype")
        if w.numel() != n:
            raise RuntimeError(f"cov(): expected {wname} to have the same numel as there are "
                               f"observations in the input but got {w.numel()} != {n}")
        h = _host_values(w)
        if h is not None and n and h.min() < 0:
            raise RuntimeError(f"cov(): {wname} cannot be negative")


register(OpSpec(
    "cov", _cov_fn, "input, *, correction=1, fweights=None, aweights=None",
    tensor_args=("input", "fweights", "aweights"), promote="float", promote_args=("input",),
    check=_cov_check,
    grad_name="SqueezeBackward0",
    doc="Mirrors ``torch.cov``: rows are variables, columns observations, with frequency "
        "and analytic weights; as in PyTorch, a normalisation factor at or below zero "
        "gives inf/nan (PyTorch also warns).",
    samples=lambda: [
        S(arr(2, 3)), S(arr(3, 5), correction=0), S(arr(4)), S(arr(3, 5), correction=2),
        S(arr(2, 3), fweights=np.array([1, 2, 1], np.int64),
          aweights=np.array([0.5, 1.0, 2.0], np.float32), grad=False),
        S(arr(2, 3), aweights=np.array([0.5, 1.0, 2.0], np.float32), correction=0),
        S(arr(2, 3, dtype="float64"), fweights=np.array([3, 0, 1], np.int64)),
        S(arr(3, 4, dtype="int64"), grad=False), S(arr(2, 3), method=True),
        S(arr(2, 2, 2)), S(arr(2, 3), fweights=np.array([1.0, 2.0, 1.0], np.float32)),
        S(arr(2, 3), fweights=np.array([1, -2, 1], np.int64)),
        S(arr(2, 3), aweights=np.array([1.0, 2.0], np.float32)),
        S(arr(2, 3), aweights=np.array([1, 2, 1], np.int64)),
        S(np.ones((2, 3), bool))]))


def _corrcoef_fn(input):
    c = _cov_fn(input)
    if c.ndim == 0:
        return c / c
    d = jnp.diagonal(c)
    std = jnp.sqrt(jnp.real(d) if jnp.iscomplexobj(d) else d)
    c = c / std[:, None]
    c = c / std[None, :]
    if jnp.iscomplexobj(c):
        return lax.complex(jnp.clip(c.real, -1, 1), jnp.clip(c.imag, -1, 1))
    return jnp.clip(c, -1, 1)


def _corrcoef_check(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {input.dim()} dimensions")
    _cov_check(input)


register(OpSpec(
    "corrcoef", _corrcoef_fn, "input", promote="float", check=_corrcoef_check,
    grad_name=lambda input: "DivBackward0" if input.dim() < 2 or input.shape[0] == 1
    else "ClampBackward1",
    doc="Mirrors ``torch.corrcoef``: ``cov`` normalised by the standard deviations and "
        "clipped to [-1, 1].",
    samples=lambda: [S(arr(2, 3)), S(arr(4, 6)), S(arr(5)), S(arr(1, 4)),
                     S(arr(3, 4, dtype="int64"), grad=False), S(arr(2, 3), method=True),
                     S(np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], np.float32)),
                     S(arr(2, 2, 2))]))
