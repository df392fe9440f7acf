"""``out=`` of the table's functions: ``torchlike.add(a, b, out=c)`` writes into ``c``.

# Note [out= of table functions]
# PyTorch's functions (not its Tensor methods) take ``out=`` wherever ATen has an
# ``*_out`` kernel that the Python binding exposes. The dispatcher has no ``out``
# parameter, so ``install`` wraps an op's dispatch function (``plan.run``, which the
# generated ``torchlike.<name>`` calls with any keyword argument) before the table is
# bound; calls without ``out`` pass straight through, and ``Tensor.<name>(..., out=)``
# keeps Python's "unexpected keyword argument" TypeError, as in PyTorch. With ``out``:
#
# * ``out`` must be a Tensor (a tuple or list of them, one per result, for the ops that
#   return several), else PyTorch's TypeError naming the argument;
# * with grad mode on, no argument (``out`` included) of a differentiable op may require
#   grad: PyTorch's "functions with out=... arguments don't support automatic
#   differentiation"; ops PyTorch does not differentiate (``eq``, ``argmax``) allow it;
# * the op runs as without ``out`` (its own checks and errors first), then the result is
#   written into ``out`` with the dtype rule of the op's kernel family (``RULES``):
#   - "cast" (TensorIterator ops): any dtype the result can be cast to ("result type
#     Float can't be cast to the desired output type Long" otherwise);
#   - "stack" (``cat`` and its wrappers): as "cast", with ``cat``'s TypeError;
#   - "dtype" (the reductions with a ``dtype`` parameter, ``sum``, ``cumsum``...): the op
#     computes in ``out``'s dtype when ``dtype`` is not given (so ``sum`` of 0.6 and 0.6
#     into an int64 ``out`` is 0, as in PyTorch), and ``out`` must have ``dtype`` when it is;
#   - "same" (unary ops with their own kernel, ``abs``, ``floor``...): exactly the
#     result's dtype ("Found dtype Double but expected Float");
#   - "exact" (structured kernels: products, gathers, sorts, every op with several
#     results): exactly the result's dtype ("Expected out tensor to have dtype float, but
#     got double instead"). Several kernels word this error their own way; the type,
#     RuntimeError, is PyTorch's for all of them;
# * ``out`` is resized to the result's shape when it differs, with PyTorch's deprecation
#   warning when it held elements; the values are written through ``out`` (a view's base
#   sees them), its version counter moves, and ``out`` itself is returned (a
#   ``torchlike.return_types.<name>_out`` of the outputs for ops with named results).
#
# ``torchlike.linalg``'s and ``torchlike.special``'s functions take ``out`` the same way
# (rules "linalg.<name>", "special.<name>"); those that are another op's second public
# function (``linalg.inv`` of ``inverse``) are installed with that function (``install(...,
# api=)``), so ``Tensor.inverse(out=)`` still refuses it, as in PyTorch. ``svd``, ``lu``
# and ``where``, written in Python, use the same checks (``outs_of``, ``refuse_grad``,
# ``write_all``).
#
# Which functions take ``out`` and their rule were read off PyTorch 2.13 by calling each
# table function over its sample inputs with and without ``out``; tests/test_out_param.py
# checks the list and the rules against PyTorch the same way. Some calls reach another
# overload, with no ``out`` (``_REFUSED``: ``sum`` without ``dim``, ``argsort`` without
# ``stable``, ``nonzero(as_tuple=True)``...) or another kernel and so another rule
# (``_RULE_OF``: ``clamp`` with Tensor bounds casts, with numbers it does not); "multicast"
# is "cast" for an op with several results (``geqrf``).
#
# Difference: PyTorch refuses an ``out`` that partly overlaps an input ("unsupported
# operation: some elements of the input tensor and the written-to tensor refer to a
# single memory location"); torchlike computes the whole result before writing, so such
# a call gives the values the op would give into a fresh tensor.
"""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.grad_mode import _state as _grad_state
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from ._common import warn_at_caller
from .spec import OpSpec
from .torch_function import _mode_active, _overloaded_args, _tf_state, handle_torch_function

__all__ = ["RULES", "install", "resize_out", "outs_of", "refuse_grad", "write_all"]


def _names(s: str) -> list:
    return s.split()


# function name -> dtype rule (see the Note)
RULES: dict = {}
for _rule, _fns in {
    "cast": """acos acosh add addcdiv addcmul addr angle asin asinh atan atan2 atanh
        bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor
        cholesky cholesky_inverse cholesky_solve clamp clamp_max clamp_min copysign cos cosh
        deg2rad diff digamma div eq erf erfc erfinv exp exp2 expm1 floor_divide fmax fmin fmod
        gcd ge gt hypot i0 igamma igammac kron lcm ldexp le lerp lgamma log log10 log1p
        log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logit
        logsumexp lt maximum minimum mul mvlgamma ne nextafter orgqr outer
        polygamma pow rad2deg reciprocal remainder rsqrt sigmoid sin sinc sinh sqrt square std
        sub tan tanh threshold true_divide var xlogy max min""",
    "mm": "chain_matmul inner matrix_power",   # see _RULE_OF
    "stack": "cat column_stack dstack hstack stack vstack",
    "dtype": "cumprod cumsum mean nanmean nansum prod sum",
    "same": """abs bitwise_not ceil conj_physical floor frac hardshrink neg round sgn
        sign trunc""",
    "multicast": "geqrf",
    "exact": """addbmm addmm addmv alias_copy all amax amin aminmax any argmax argmin argsort
        as_strided_copy baddbmm bmm bucketize complex cross cummax cummin detach_copy diag
        diagonal_copy dot expand_copy float_power frexp gather heaviside histc histogram
        index_add index_copy index_reduce index_select inverse isin isneginf isposinf
        kthvalue log_softmax logcumsumexp lu_solve lu_unpack masked_select matmul median mm
        mode msort mv nan_to_num nanmedian nanquantile nonzero nonzero_static norm ormqr
        permute_copy polar qr quantile renorm scatter scatter_add scatter_reduce
        searchsorted select_copy signbit slice_copy slice_scatter slogdet softmax sort
        squeeze_copy t_copy take take_along_dim tensordot topk transpose_copy
        triangular_solve tril triu unfold_copy unsqueeze_copy vdot view_as_complex_copy
        view_as_real_copy view_copy""",
    # torchlike.linalg (composites of other ops cast, as their last op does)
    "linalg": """linalg.cholesky linalg.cholesky_ex linalg.cross linalg.det linalg.eigh
        linalg.eigvalsh linalg.inv linalg.inv_ex linalg.ldl_factor linalg.ldl_factor_ex
        linalg.ldl_solve linalg.lu linalg.lu_factor linalg.lu_factor_ex linalg.lu_solve
        linalg.matmul linalg.matrix_norm linalg.matrix_power linalg.multi_dot linalg.norm
        linalg.qr linalg.slogdet linalg.solve linalg.solve_ex linalg.solve_triangular
        linalg.svd linalg.svdvals linalg.vecdot linalg.vector_norm""",
    "linalg-cast": """linalg.cond linalg.eig linalg.eigvals linalg.householder_product
        linalg.lstsq linalg.matrix_rank linalg.pinv linalg.tensorinv linalg.tensorsolve""",
    # torchlike.special (TensorIterator ops, but round's own kernel)
    "special": """special.digamma special.entr special.erf special.erfc special.erfcx
        special.erfinv special.exp2 special.expit special.expm1 special.gammainc
        special.gammaincc special.gammaln special.i0 special.i0e special.i1 special.i1e
        special.log1p special.log_ndtr special.logit special.multigammaln special.ndtr
        special.ndtri special.polygamma special.psi special.sinc special.xlog1py
        special.xlogy special.zeta special.airy_ai special.bessel_j0 special.bessel_j1
        special.bessel_y0 special.bessel_y1 special.modified_bessel_i0
        special.modified_bessel_i1 special.modified_bessel_k0 special.modified_bessel_k1
        special.scaled_modified_bessel_k0 special.scaled_modified_bessel_k1
        special.spherical_bessel_j0 special.chebyshev_polynomial_t
        special.chebyshev_polynomial_u special.chebyshev_polynomial_v
        special.chebyshev_polynomial_w special.shifted_chebyshev_polynomial_t
        special.shifted_chebyshev_polynomial_u special.shifted_chebyshev_polynomial_v
        special.shifted_chebyshev_polynomial_w special.hermite_polynomial_h
        special.hermite_polynomial_he special.laguerre_polynomial_l
        special.legendre_polynomial_p""",
    "special-same": "special.round",
}.items():
    for _f in _names(_fns):
        RULES[_f] = {"linalg": "exact", "linalg-cast": "multicast", "special": "cast",
                     "special-same": "same"}.get(_rule, _rule)


# calls PyTorch's overloads give no ``out`` (their TypeError): when the predicate holds
_REFUSED = {
    "sum": lambda a, r, v: v["dim"] is None, "prod": lambda a, r, v: v["dim"] is None,
    "median": lambda a, r, v: v["dim"] is None, "nanmedian": lambda a, r, v: v["dim"] is None,
    "argsort": lambda a, r, v: "stable" not in r,   # keyword-only, as in PyTorch
    "nonzero": lambda a, r, v: bool(v["as_tuple"]),
    "bucketize": lambda a, r, v: not isinstance(v["input"], Tensor),
    "std": lambda a, r, v: len(a) > 1 and type(a[1]) is bool,
    "var": lambda a, r, v: len(a) > 1 and type(a[1]) is bool,
}

# ops whose kernel, and so dtype rule, depends on the call
_RULE_OF = {
    # a Tensor bound goes to TensorIterator; Python numbers to the unary kernel
    "clamp": lambda v: "cast" if isinstance(v["min"], Tensor) or isinstance(v["max"], Tensor)
    else "same",
    "clamp_min": lambda v: "cast" if isinstance(v["min"], Tensor) else "same",
    "clamp_max": lambda v: "cast" if isinstance(v["max"], Tensor) else "same",
    # a 0-d weight tensor is a number to PyTorch's lerp
    "lerp": lambda v: "same" if isinstance(v["weight"], Tensor) and v["weight"].dim() else "cast",
    "diff": lambda v: "exact" if v["n"] == 0 else "cast",   # n=0 copies the input
    # products that PyTorch computes by a copy or a multiplication in degenerate cases
    "chain_matmul": lambda v: "cast" if len(v["matrices"]) == 1 else "exact",
    "inner": lambda v: "cast" if not (v["input"].dim() and v["other"].dim()) else "exact",
    "matrix_power": lambda v: "cast" if v["n"] in (0, 1) else "exact",
}

RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {old}, which does "
    "not match the required output shape {new}. This behavior is deprecated, and in a "
    "future PyTorch release outputs will not be resized unless they have zero elements. "
    "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
    "with t.resize_(0).")


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def resize_out(out: Tensor, shape: tuple, warn: bool = True) -> None:
    """Give ``out`` the result's ``shape`` as PyTorch's ``resize_output`` does: warns
    (when ``warn``) if ``out`` held elements."""
    if out._shape != shape:
        if warn and out.numel():
            warn_at_caller(RESIZE_WARNING.format(old=_shape_list(out._shape),
                                                 new=_shape_list(shape)))
        out.resize_(shape)


def _dtype_error(rule: str, name: str, res_dt, out_dt) -> Exception | None:
    """The error of rule ``rule`` for a result of ``res_dt`` written into ``out_dt``, or
    None when the write is allowed."""
    from .bind import dtype_short_name as short
    from .histogram import _cpp
    if res_dt is out_dt:
        return None
    if rule in ("cast", "dtype", "multicast"):
        if _dt.can_cast(res_dt, out_dt):
            return None
        return RuntimeError(f"result type {short(res_dt)} can't be cast to the desired output "
                            f"type {short(out_dt)}")
    if rule == "stack":
        if _dt.can_cast(res_dt, out_dt):
            return None
        return TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                         f"{short(out_dt)}")
    if rule == "same":
        return RuntimeError(f"Found dtype {short(out_dt)} but expected {short(res_dt)}")
    return RuntimeError(f"Expected out tensor to have dtype {_cpp(res_dt)}, but got "
                        f"{_cpp(out_dt)} instead")


def write_out(out: Tensor, res: Tensor) -> None:
    """Write the result ``res`` into ``out`` (resized to its shape, cast to its dtype,
    through its view if it is one), moving ``out``'s version counter."""
    resize_out(out, res._shape)
    out._set_value(res._value)


def install(spec: OpSpec, name: str, api=None) -> None:
    """Give ``torchlike.<name>`` (the function of ``spec``, or ``api`` when it is another
    public function of the op, as ``torchlike.linalg.inv`` of ``inverse``) PyTorch's
    ``out=`` (Note [out= of table functions]); for the table's functions, call before
    the table is bound."""
    from .dispatch import _plan_of
    table = spec.extra.get("out_apis")
    if table is None:
        table = spec.extra["out_apis"] = {}
        plan = _plan_of(spec)
        plan.run = _out_runner(spec, plan.run, table)
    short = name.rsplit(".", 1)[-1]
    table[api] = (short, RULES[name], _REFUSED.get(short), _RULE_OF.get(short))


def _out_runner(spec: OpSpec, inner, table: dict):
    """``inner`` (the op's dispatch function) with ``out=`` for the public functions in
    ``table`` (function -> (name, rule, refusal predicate, rule of the call); None
    stands for ``spec.api``)."""

    def run(api, args, kwargs):
        if "out" not in kwargs:
            return inner(api, args, kwargs)
        got = table.get(api)
        if got is None:
            if api is not spec.api or None not in table:
                return inner(api, args, kwargs)
            got = table[None]
        name, rule, refused, rule_of = got
        out = kwargs["out"]
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        if out is None:
            return inner(api, args, rest)
        if not _tf_state.disabled_all:
            relevant = _overloaded_args(list(args) + list(kwargs.values()))
            if relevant or _mode_active():
                return handle_torch_function(api, relevant, args, kwargs)
        several, outs = outs_of(name, out)
        vals = spec.binder(*args, **rest)   # PyTorch's TypeErrors for a bad call
        named = dict(zip(spec.params, vals))
        if refused is not None and refused(args, rest, named):
            raise TypeError(f"{name}() received an invalid combination of arguments: "
                            "PyTorch's overload for this call has no 'out'")
        rule_now = rule if rule_of is None else rule_of(named)
        if spec.differentiable:
            refuse_grad(name, list(args) + list(rest.values()) + outs)
        if rule == "dtype" and not several:
            dt = vals[spec.params.index("dtype")]
            if dt is None:
                rest["dtype"] = outs[0].dtype
            elif _dt.to_dtype(dt) is not outs[0].dtype:
                raise _dtype_error("exact", name, _dt.to_dtype(dt), outs[0].dtype)
        with no_grad():
            res = inner(api, args, rest)
        return write_all(name, rule_now, out, outs, res, spec.out_names and spec.name)
    run.__name__ = run.__qualname__ = inner.__name__
    run.__wrapped__ = inner
    return run


def outs_of(name: str, out) -> tuple:
    """``(several, [tensors])`` of an ``out`` argument: a Tensor, or a tuple or list of
    them; PyTorch's TypeError for anything else."""
    several = isinstance(out, (tuple, list))
    outs = list(out) if several else [out]
    if not all(isinstance(o, Tensor) for o in outs):
        bad = next(o for o in outs if not isinstance(o, Tensor))
        raise TypeError(f"{name}(): argument 'out' must be "
                        f"{'tuple of Tensors' if several else 'Tensor'}, not "
                        f"{type(bad if several else out).__name__}")
    return several, outs


def refuse_grad(name: str, values) -> None:
    """PyTorch's error for ``out=`` when grad mode is on and an argument (``out``
    included) requires grad."""
    from .dispatch import _any_requires_grad
    if _grad_state.enabled and _any_requires_grad(values):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad.")


def write_all(name: str, rule: str, out, outs: list, res, nt_name: str | None = None):
    """Write the result ``res`` (a tensor or a tuple of them) into ``out`` (its tensors
    ``outs``, from ``outs_of``) under dtype rule ``rule``, all checks before any write;
    returns ``out``, or for several results the tuple of them (a
    ``return_types.<nt_name>_out`` when ``res`` is a named tuple)."""
    several = isinstance(out, (tuple, list))
    if isinstance(res, (tuple, list)) != several:
        raise TypeError(f"{name}(): argument 'out' must be "
                        f"{'tuple of Tensors' if not several else 'Tensor'}, not "
                        f"{type(out).__name__}")
    results = list(res) if several else [res]
    if len(results) != len(outs):
        raise RuntimeError(f"{name}(): expected {len(results)} out tensors, got "
                           f"{len(outs)}")
    for o, r in zip(outs, results):
        err = _dtype_error("exact" if several and rule != "multicast" else rule,
                           name, r.dtype, o.dtype)
        if err is not None:
            raise err
    for o, r in zip(outs, results):
        write_out(o, r)
    if not several:
        return out
    fields = getattr(res, "_fields", None)
    if fields is not None:
        from ..return_types import make
        return make((nt_name or type(res).__name__) + "_out", fields)(*outs)
    return tuple(outs)
