"""The rules that write JAX's primitives as ONNX operators (Note [From jaxpr to ONNX] in
``_emit.py``): ``RULES`` maps a primitive's name to ``rule(builder, eqn, input names,
sizes)``, which returns the name (or names) of its output(s)."""

from __future__ import annotations

import jax.extend.core as jex
import numpy as np
from jax import lax

from ._emit import Sym, _where, onnx_dtype
from ._errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["RULES"]

# Note [Broadcasts that ONNX does itself]
# JAX broadcasts explicitly: ``x + b`` of a (N, C, H, W) and a (1, C, 1, 1) array traces
# to a ``broadcast_in_dim`` of ``b`` to (N, C, H, W), then the add; written as it is,
# that is an Expand to a shape that, with a dynamic batch, is computed at run time. ONNX's
# elementwise operators broadcast as NumPy does, so a broadcast read only by such
# operators, each of which has another operand of its full output shape that is not a
# broadcast itself, is written as the operand with its axes in place (an Unsqueeze) and
# left to the operator.
_BROADCASTING = {"add", "sub", "mul", "div", "pow", "max", "min", "eq", "ne", "lt", "le",
                 "gt", "ge", "and", "or", "xor", "rem", "select_n", "clamp"}


def _broadcast_left_to_readers(b, eqn) -> bool:
    readers, makers, outs = b._uses
    out = eqn.outvars[0]
    if out in outs:
        return False
    shape = out.aval.shape
    for r in readers.get(out, ()):
        if r.primitive.name not in _BROADCASTING or r.outvars[0].aval.shape != shape:
            return False
        if not any(v is not out and not isinstance(v, jex.Literal) and v.aval.shape == shape
                   and getattr(makers.get(v), "primitive", None) is not eqn.primitive
                   for v in r.invars):
            return False
    return True


# ---------------------------------------------------------------------------
# rules: (builder, eqn, input names, sizes) -> output name(s)
RULES: dict = {}


def _rule(*names):
    def deco(f):
        for n in names:
            RULES[n] = f
        return f
    return deco


def _simple(onnx_op: str, **attrs):
    return lambda b, eqn, ins, sz: b.one(onnx_op, ins, **attrs)


for _p, _o in {"neg": "Neg", "exp": "Exp", "log": "Log", "tanh": "Tanh", "logistic": "Sigmoid",
               "sqrt": "Sqrt", "abs": "Abs", "sign": "Sign", "floor": "Floor",
               "ceil": "Ceil", "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin",
               "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh",
               "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh", "erf": "Erf",
               "add": "Add", "sub": "Sub", "mul": "Mul", "max": "Max", "min": "Min",
               "pow": "Pow", "eq": "Equal", "lt": "Less", "le": "LessOrEqual",
               "gt": "Greater", "ge": "GreaterOrEqual"}.items():
    RULES[_p] = _simple(_o)
for _p in ("stop_gradient", "copy", "copy_p"):   # the same value, under a second name
    RULES[_p] = lambda b, eqn, ins, sz: ins[0]
RULES["device_put"] = lambda b, eqn, ins, sz: list(ins)   # one device in a graph


def _dtype_of(eqn, i=0):
    return np.dtype(eqn.invars[i].aval.dtype)


# ``div``: lax.div of integers rounds toward zero, as ONNX's integer Div does
RULES["div"] = _simple("Div")


@_rule("rem")
def _rem(b, eqn, ins, sz):   # C's fmod: the result takes the dividend's sign
    return b.one("Mod", ins, fmod=1)


@_rule("ne")
def _ne(b, eqn, ins, sz):
    return b.one("Not", [b.one("Equal", ins)])


@_rule("not")
def _not(b, eqn, ins, sz):
    return b.one("Not" if _dtype_of(eqn) == np.bool_ else "BitwiseNot", ins)


def _logical(bool_op, int_op):
    return lambda b, eqn, ins, sz: b.one(bool_op if _dtype_of(eqn) == np.bool_ else int_op,
                                         ins)


RULES["and"] = _logical("And", "BitwiseAnd")
RULES["or"] = _logical("Or", "BitwiseOr")
RULES["xor"] = _logical("Xor", "BitwiseXor")


@_rule("rsqrt")
def _rsqrt(b, eqn, ins, sz):
    return b.one("Reciprocal", [b.one("Sqrt", ins)])


@_rule("log1p")
def _log1p(b, eqn, ins, sz):
    return b.one("Log", [b.one("Add", [ins[0], b.const(np.ones((), _dtype_of(eqn)))])])


@_rule("expm1")
def _expm1(b, eqn, ins, sz):
    return b.one("Sub", [b.one("Exp", ins), b.const(np.ones((), _dtype_of(eqn)))])


@_rule("erfc")
def _erfc(b, eqn, ins, sz):   # 1 - erf(x): absolute error near float epsilon for large x
    return b.one("Sub", [b.const(np.ones((), _dtype_of(eqn))), b.one("Erf", ins)])


@_rule("exp2")
def _exp2(b, eqn, ins, sz):
    return b.one("Pow", [b.const(np.asarray(2, _dtype_of(eqn))), ins[0]])


@_rule("square")
def _square(b, eqn, ins, sz):
    return b.one("Mul", [ins[0], ins[0]])


@_rule("integer_pow")
def _integer_pow(b, eqn, ins, sz):
    y = eqn.params["y"]
    if y == 2:
        return b.one("Mul", [ins[0], ins[0]])
    return b.one("Pow", [ins[0], b.const(np.asarray(y, _dtype_of(eqn)))])


@_rule("is_finite")
def _is_finite(b, eqn, ins, sz):
    return b.one("Not", [b.one("Or", [b.one("IsInf", ins), b.one("IsNaN", ins)])])


@_rule("round")
def _round(b, eqn, ins, sz):
    if eqn.params.get("rounding_method") != lax.RoundingMethod.TO_NEAREST_EVEN:
        # ONNX's Round rounds half to even only
        half = b.const(np.asarray(0.5, _dtype_of(eqn)))
        mag = b.one("Floor", [b.one("Add", [b.one("Abs", ins), half])])
        return b.one("Mul", [b.one("Sign", ins), mag])
    return b.one("Round", ins)


@_rule("clamp")
def _clamp(b, eqn, ins, sz):
    lo, x, hi = ins
    return b.one("Min", [b.one("Max", [x, lo]), hi])


@_rule("convert_element_type")
def _convert(b, eqn, ins, sz):
    return b.one("Cast", ins, to=onnx_dtype(eqn.params["new_dtype"]))


@_rule("select_n")
def _select_n(b, eqn, ins, sz):
    pred, cases = ins[0], ins[1:]
    if len(cases) == 1:
        return cases[0]
    if _dtype_of(eqn) == np.bool_:
        return b.one("Where", [pred, cases[1], cases[0]])
    # an integer selector: pick case k where pred == k, from the last down
    out = cases[-1]
    pdt = _dtype_of(eqn)
    for k in range(len(cases) - 2, -1, -1):
        is_k = b.one("Equal", [pred, b.const(np.asarray(k, pdt))])
        out = b.one("Where", [is_k, cases[k], out])
    return out


# -- shapes ---------------------------------------------------------------------
@_rule("reshape")
def _reshape(b, eqn, ins, sz):
    if eqn.params.get("dimensions") is not None:
        raise UnsupportedOperatorError("reshape with dimensions is not supported")
    return b.one("Reshape", [ins[0], b.shape(sz("new_sizes"))])


@_rule("transpose")
def _transpose(b, eqn, ins, sz):
    return b.one("Transpose", ins, perm=list(eqn.params["permutation"]))


@_rule("squeeze")
def _squeeze(b, eqn, ins, sz):
    dims = list(eqn.params["dimensions"])
    return b.one("Squeeze", [ins[0], b.ints(dims)]) if dims else ins[0]


@_rule("expand_dims")
def _expand_dims(b, eqn, ins, sz):
    return b.one("Unsqueeze", [ins[0], b.ints(list(eqn.params["dimensions"]))])


@_rule("broadcast_in_dim")
def _broadcast_in_dim(b, eqn, ins, sz):
    shape = sz("shape")
    bdims = eqn.params["broadcast_dimensions"]
    x = ins[0]
    rank = len(shape)
    in_shape = eqn.invars[0].aval.shape
    if list(bdims) != sorted(bdims):
        raise UnsupportedOperatorError("broadcast_in_dim that reorders axes")
    left = _broadcast_left_to_readers(b, eqn)   # Note [Broadcasts that ONNX does itself]
    if left and not in_shape:
        return x
    if len(in_shape) != rank:   # put the operand's axes where they go, 1 elsewhere
        x = b.one("Unsqueeze", [x, b.ints([d for d in range(rank) if d not in bdims])])
    if left or tuple(eqn.outvars[0].aval.shape) == tuple(in_shape):
        return x
    return b.one("Expand", [x, b.shape(shape)])


@_rule("concatenate")
def _concatenate(b, eqn, ins, sz):
    return b.one("Concat", ins, axis=int(eqn.params["dimension"]))


@_rule("stack")
def _stack(b, eqn, ins, sz):
    axis = int(eqn.params.get("axis", eqn.params.get("dimension", 0)))
    parts = [b.one("Unsqueeze", [i, b.ints([axis])]) for i in ins]
    return b.one("Concat", parts, axis=axis)


@_rule("split")
def _split(b, eqn, ins, sz):
    sizes = sz.static("sizes")
    return b.node("Split", [ins[0], b.ints(sizes)], len(sizes), axis=int(eqn.params["axis"]))


@_rule("slice")
def _slice(b, eqn, ins, sz):
    starts = sz.static("start_indices")
    limits = sz("limit_indices")
    strides = eqn.params["strides"] or (1,) * len(starts)
    axes = list(range(len(starts)))
    return b.one("Slice", [ins[0], b.ints(starts), b.shape(limits), b.ints(axes),
                           b.ints(list(strides))])


@_rule("rev")
def _rev(b, eqn, ins, sz):
    x = ins[0]
    dims = list(eqn.params["dimensions"])
    n = len(dims)
    big = np.iinfo(np.int64).max
    return b.one("Slice", [x, b.ints([-1] * n), b.ints([-big] * n), b.ints(dims),
                           b.ints([-1] * n)])


@_rule("pad")
def _pad(b, eqn, ins, sz):
    cfg = eqn.params["padding_config"]
    if any(int(i) != 0 for _, _, i in cfg):
        raise UnsupportedOperatorError("pad with interior padding is not supported")
    lo = [int(lo) for lo, _, _ in cfg]
    hi = [int(hi) for _, hi, _ in cfg]
    x = ins[0]
    if any(v < 0 for v in lo + hi):   # negative padding crops
        rank = len(cfg)
        starts = [max(0, -v) for v in lo]
        ends = [-v if v < 0 else np.iinfo(np.int64).max for v in hi]
        x = b.one("Slice", [x, b.ints(starts), b.ints(ends), b.ints(list(range(rank)))])
        lo, hi = [max(0, v) for v in lo], [max(0, v) for v in hi]
    if not any(lo + hi):
        return x
    return b.one("Pad", [x, b.ints(lo + hi), ins[1]], mode="constant")


@_rule("iota")
def _iota(b, eqn, ins, sz):
    shape = sz("shape")
    dim = int(eqn.params["dimension"])
    dt = np.dtype(eqn.params["dtype"])
    n = shape[dim]
    if isinstance(n, Sym):
        stop = b.one("Squeeze", [b.dim(n), b.ints([0])])
    else:
        stop = b.const(np.asarray(n, np.int64))
    r = b.one("Range", [b.const(np.asarray(0, np.int64)), stop,
                        b.const(np.asarray(1, np.int64))])
    r = b.one("Cast", [r], to=onnx_dtype(dt))
    axes = [d for d in range(len(shape)) if d != dim]
    if axes:
        r = b.one("Unsqueeze", [r, b.ints(axes)])
        r = b.one("Expand", [r, b.shape(shape)])
    return r


# -- reductions -----------------------------------------------------------------
def _reduce(onnx_op):
    def rule(b, eqn, ins, sz):
        axes = list(eqn.params["axes"])
        if not axes:
            return ins[0]
        return b.one(onnx_op, [ins[0], b.ints(axes)], keepdims=0)
    return rule


RULES["reduce_sum"] = _reduce("ReduceSum")
RULES["reduce_max"] = _reduce("ReduceMax")
RULES["reduce_min"] = _reduce("ReduceMin")
RULES["reduce_prod"] = _reduce("ReduceProd")


@_rule("reduce_and", "reduce_or")
def _reduce_bool(b, eqn, ins, sz):
    axes = list(eqn.params["axes"])
    x = b.one("Cast", ins, to=onnx_dtype(np.int32))
    op = "ReduceMin" if eqn.primitive.name == "reduce_and" else "ReduceMax"
    r = b.one(op, [x, b.ints(axes)], keepdims=0) if axes else x
    return b.one("Cast", [r], to=onnx_dtype(np.bool_))


@_rule("argmax", "argmin")
def _arg(b, eqn, ins, sz):
    (axis,) = eqn.params["axes"]
    op = "ArgMax" if eqn.primitive.name == "argmax" else "ArgMin"
    r = b.one(op, ins, axis=int(axis), keepdims=0)
    dt = np.dtype(eqn.params["index_dtype"])
    return r if dt == np.int64 else b.one("Cast", [r], to=onnx_dtype(dt))


@_rule("cumsum")
def _cumsum(b, eqn, ins, sz):
    return b.one("CumSum", [ins[0], b.const(np.asarray(eqn.params["axis"], np.int64))],
                 reverse=int(bool(eqn.params.get("reverse", False))))


# -- products and convolutions --------------------------------------------------
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@_rule("dot_general")
def _dot_general(b, eqn, ins, sz):
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lr, rr = (len(v.aval.shape) for v in eqn.invars)
    out_dt = np.dtype(eqn.outvars[0].aval.dtype)
    x, y = ins
    if not lb and not rb and len(lc) == 1 and lc[0] == lr - 1 and rr == 2 and rc[0] in (0, 1):
        if rc[0] == 1:   # x @ y.T, as nn.Linear has it
            y = b.one("Transpose", [y], perm=[1, 0])
        out = b.one("MatMul", [x, y])
    else:   # any other contraction, as an einsum
        letters = iter(_LETTERS)
        ls = [next(letters) for _ in range(lr)]
        rs = [None] * rr
        for i, j in zip(lb, rb):
            rs[j] = ls[i]
        for i, j in zip(lc, rc):
            rs[j] = ls[i]
        for j in range(rr):
            if rs[j] is None:
                rs[j] = next(letters)
        out_s = ([ls[i] for i in lb] + [ls[i] for i in range(lr) if i not in lb and i not in lc]
                 + [rs[j] for j in range(rr) if j not in rb and j not in rc])
        eq = f"{''.join(ls)},{''.join(rs)}->{''.join(out_s)}"
        out = b.one("Einsum", [x, y], equation=eq)
    if np.dtype(eqn.invars[0].aval.dtype) != out_dt:
        out = b.one("Cast", [out], to=onnx_dtype(out_dt))
    return out


@_rule("conv_general_dilated")
def _conv(b, eqn, ins, sz):
    p = eqn.params
    dn = p["dimension_numbers"]
    nd = len(p["window_strides"])
    ident = tuple(range(nd + 2))
    if (tuple(dn.lhs_spec) != ident or tuple(dn.rhs_spec) != ident
            or tuple(dn.out_spec) != ident):
        raise UnsupportedOperatorError(f"a convolution with dimension numbers {dn} "
                                       "(only NC... / OI... layouts are written)")
    if p["batch_group_count"] != 1:
        raise UnsupportedOperatorError("a convolution with batch groups (a convolution's "
                                       "weight gradient)")
    x = ins[0]
    if any(d != 1 for d in p["lhs_dilation"]):   # a transposed convolution
        x = _dilate(b, eqn, sz, x, p["lhs_dilation"])
    lo = [int(v) for v, _ in p["padding"]]
    hi = [int(v) for _, v in p["padding"]]
    if any(v < 0 for v in lo + hi):   # negative padding crops the (dilated) input
        big = np.iinfo(np.int64).max
        x = b.one("Slice", [x, b.ints([max(0, -v) for v in lo]),
                            b.ints([v if v < 0 else big for v in hi]),
                            b.ints(list(range(2, nd + 2)))])
        lo, hi = [max(0, v) for v in lo], [max(0, v) for v in hi]
    pads = lo + hi
    kernel = list(eqn.invars[1].aval.shape[2:])
    out = b.one("Conv", [x] + ins[1:], kernel_shape=kernel, strides=list(p["window_strides"]),
                dilations=list(p["rhs_dilation"]), pads=pads,
                group=int(p["feature_group_count"]))
    out_dt = np.dtype(eqn.outvars[0].aval.dtype)
    if np.dtype(eqn.invars[0].aval.dtype) != out_dt:
        out = b.one("Cast", [out], to=onnx_dtype(out_dt))
    return out


def _dilate(b, eqn, sz, x: str, factors) -> str:
    """``x`` (N, C, spatial...) with ``factor - 1`` zeros between neighbours along each
    spatial axis: a convolution's ``lhs_dilation``, which ONNX's Conv lacks."""
    shape = list(eqn.invars[0].aval.shape)
    for o in sz.others:
        if list(o.invars[0].aval.shape[2:]) != shape[2:]:
            raise OnnxExporterError(
                f"a transposed convolution ({_where(eqn)}) over a dynamic spatial axis "
                "cannot be written; export without dynamic_axes on spatial axes")
    for i, f in enumerate(factors):
        if f == 1:
            continue
        ax = 2 + i
        n = shape[ax]
        x = b.one("Unsqueeze", [x, b.ints([ax + 1])])
        rank = len(shape) + 1
        pads = [0] * (2 * rank)
        pads[rank + ax + 1] = f - 1
        x = b.one("Pad", [x, b.ints(pads)], mode="constant")
        # 0 keeps the batch's and channels' sizes (the batch may be dynamic)
        x = b.one("Reshape", [x, b.ints([0, 0] + shape[2:ax] + [n * f] + shape[ax + 1:])])
        x = b.one("Slice", [x, b.ints([0]), b.ints([(n - 1) * f + 1]), b.ints([ax])])
        shape[ax] = (n - 1) * f + 1
    return x


def _pool_attrs(eqn):
    p = eqn.params
    dims, strides = p["window_dimensions"], p["window_strides"]
    pad, base, wdil = p["padding"], p["base_dilation"], p["window_dilation"]
    if dims[:2] != (1, 1) or strides[:2] != (1, 1) or tuple(pad[:2]) != ((0, 0), (0, 0)) \
            or any(d != 1 for d in base) or len(dims) < 3:
        raise UnsupportedOperatorError(f"a window reduction over dimensions {dims} (only "
                                       "windows over the spatial axes of N, C, ... are "
                                       "written)")
    return dict(kernel_shape=list(dims[2:]), strides=list(strides[2:]),
                pads=[int(lo) for lo, _ in pad[2:]] + [int(hi) for _, hi in pad[2:]],
                dilations=list(wdil[2:]))


@_rule("reduce_window_max")
def _max_window(b, eqn, ins, sz):
    return b.one("MaxPool", ins, **_pool_attrs(eqn))


@_rule("reduce_window_sum")
def _sum_window(b, eqn, ins, sz):
    attrs = _pool_attrs(eqn)
    if any(d != 1 for d in attrs.pop("dilations")):
        raise UnsupportedOperatorError("a dilated window sum")
    avg = b.one("AveragePool", ins, count_include_pad=1, **attrs)
    n = int(np.prod(attrs["kernel_shape"]))
    return b.one("Mul", [avg, b.const(np.asarray(n, _dtype_of(eqn)))])


@_rule("gather")
def _gather(b, eqn, ins, sz):
    """``jnp.take(x, idx, axis=k)``'s form of gather (one collapsed axis, whole slices of
    the others, the indices' own axes where ``k`` was) as ONNX's Gather; others raise."""
    dn = eqn.params["dimension_numbers"]
    x_shape = eqn.invars[0].aval.shape
    idx_shape = eqn.invars[1].aval.shape
    coll = tuple(dn.collapsed_slice_dims)
    ok = (len(coll) == 1 and tuple(dn.start_index_map) == coll
          and not tuple(getattr(dn, "operand_batching_dims", ()))
          and idx_shape and idx_shape[-1] == 1)
    if ok:
        k = coll[0]
        nb = len(idx_shape) - 1
        rank_out = len(x_shape) - 1 + nb
        sizes = eqn.params["slice_sizes"]
        ok = (all(s == d for i, (s, d) in enumerate(zip(sizes, x_shape)) if i != k)
              and sizes[k] == 1
              and tuple(dn.offset_dims) == tuple(range(k)) + tuple(range(k + nb, rank_out)))
    if not ok:
        raise UnsupportedOperatorError(
            f"Exporting the operator 'gather' to ONNX is not supported in this form "
            f"({dn}, from {_where(eqn)}): only gathers along one axis, as "
            "torchlike.index_select or jnp.take make, are written")
    idx = b.one("Squeeze", [ins[1], b.ints([len(idx_shape) - 1])])
    return b.one("Gather", [ins[0], idx], axis=int(coll[0]))


_UNROLL_MAX = 512   # steps of a scan written out one by one, at most


@_rule("scan")
def _scan(b, eqn, ins, sz):
    """A scan of a fixed length (a recurrent layer over a sequence) written out step by
    step: the body once per element, the carry threaded through, the per-step outputs
    stacked. A length that follows a dynamic axis cannot be written this way."""
    p = eqn.params
    n = int(p["length"])
    if any(int(o.params["length"]) != n for o in sz.others):
        raise OnnxExporterError(
            f"a loop over a dynamic axis ({_where(eqn)}, a recurrent layer over a dynamic "
            "sequence length?) cannot be written; export without that dynamic axis")
    if n > _UNROLL_MAX:
        raise UnsupportedOperatorError(f"a loop of {n} steps (at most {_UNROLL_MAX} are "
                                       "written out)")
    nc, nk = int(p["num_consts"]), int(p["num_carry"])
    consts, carry, xs = ins[:nc], ins[nc:nc + nk], ins[nc + nk:]
    bodies = [p["jaxpr"]] + [o.params["jaxpr"] for o in sz.others]
    body_consts = b.closed_consts(bodies, sz.dyn)
    ys: list = []
    steps = range(n - 1, -1, -1) if p["reverse"] else range(n)
    for t in steps:
        idx = b.const(np.asarray(t, np.int64))
        x_t = [b.one("Gather", [x, idx], axis=0) for x in xs]
        out = b.emit_jaxpr([j.jaxpr for j in bodies], body_consts, consts + carry + x_t,
                           sz.dyn)
        carry, y_t = out[:nk], out[nk:]
        ys.append([b.one("Unsqueeze", [y, b.ints([0])]) for y in y_t])
    if p["reverse"]:
        ys.reverse()
    stacked = [b.one("Concat", [step[k] for step in ys], axis=0) if n else None
               for k in range(len(eqn.outvars) - nk)]
    if n == 0 and stacked:
        raise UnsupportedOperatorError("a loop of no steps with outputs")
    return list(carry) + stacked
