"""Writing a traced forward (a jaxpr) as an ONNX graph, one equation at a time.

# Note [From jaxpr to ONNX]
# ``export`` traces the model's forward into a jaxpr (``_trace.py``), so what is written
# here is JAX's primitives, not torchlike's ops: every op of the table lowers to a few
# ``lax`` primitives, and a table of those (``_RULES``) covers every model built from
# them without an entry per torchlike op. Calls (``jit``, ``custom_jvp_call``,
# ``custom_vjp_call``) are inlined. Equations whose results nothing reads are dropped,
# and an equation whose inputs are all constants is evaluated here and written as a
# constant (``do_constant_folding``; up to ``_FOLD_MAX`` elements, so that broadcasting a
# constant does not bloat the file). A primitive without a rule raises
# ``UnsupportedOperatorError`` naming it: nothing is approximated.
#
# Shapes written into the graph (``reshape``'s sizes, ``broadcast_in_dim``'s target) are
# constants unless they depend on a dynamic axis (``dynamic_axes``); then ``_trace`` has
# worked out each such size as ``a * dim + c`` of one axis, from traces at other sizes,
# and the graph computes it from the input's runtime shape (``Shape``, ``Gather``).
"""

from __future__ import annotations

import numpy as np

import jax
import jax.extend.core as jex
from jax import lax

from ._errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["GraphBuilder"]

_FOLD_MAX = 1 << 16   # elements of a folded constant, at most


def _onnx():
    import onnx
    return onnx


def onnx_dtype(dtype) -> int:
    """The ONNX element type of a NumPy/JAX dtype."""
    onnx = _onnx()
    dt = np.dtype(dtype)
    if dt.name == "bfloat16":
        return onnx.TensorProto.BFLOAT16
    return onnx.helper.np_dtype_to_tensor_dtype(dt)


class Sym:
    """A size that depends on a dynamic axis: ``a * size(input, axis) + c``."""

    __slots__ = ("input", "axis", "a", "c")

    def __init__(self, input: int, axis: int, a: int, c: int):
        self.input, self.axis, self.a, self.c = input, axis, a, c

    def key(self):
        return (self.input, self.axis, self.a, self.c)


class GraphBuilder:
    """Accumulates ONNX nodes, initializers and names for one graph."""

    def __init__(self, input_names: list, fold: bool):
        self.nodes: list = []
        self.inits: list = []
        self.names: dict = {}        # jaxpr var -> ONNX value name
        self.consts: dict = {}       # ONNX value name -> NumPy value (foldable)
        self.used_names: set = set(input_names)
        self.fold = fold
        self.input_names = input_names
        self._dims: dict = {}        # Sym key -> name of its 1-d int64 value
        self._counter = 0
        self._uses: tuple = ({}, {}, set())   # of the jaxpr being written (``_uses``)

    # -- names and constants ------------------------------------------------------
    def fresh(self, hint: str = "v") -> str:
        while True:
            self._counter += 1
            name = f"{hint}_{self._counter}"
            if name not in self.used_names:
                self.used_names.add(name)
                return name

    def const(self, value, name: str | None = None, fold: bool = True) -> str:
        """An initializer holding ``value`` (a NumPy array or scalar); ``fold=False``: one
        that computations on it are not folded into (a parameter keeps its name)."""
        onnx = _onnx()
        value = np.asarray(value)
        name = name or self.fresh("const")
        self.used_names.add(name)
        if value.dtype.name == "bfloat16":
            t = onnx.helper.make_tensor(name, onnx.TensorProto.BFLOAT16, value.shape,
                                        value.view(np.uint16).ravel().tolist(), raw=False)
        else:
            t = onnx.numpy_helper.from_array(value, name)
        self.inits.append(t)
        if fold:
            self.consts[name] = value
        return name

    def used_inits(self, outputs: list) -> list:
        """The initializers that some node or graph output reads."""
        read = set(outputs)
        for n in self.nodes:
            read.update(n.input)
        return [t for t in self.inits if t.name in read]

    def name_outputs(self, values: list, names: list) -> None:
        """Give the graph's outputs their names: the node making a value writes it under
        its output's name, where it can (an Identity otherwise: an input, a constant or
        one value under two names)."""
        onnx = _onnx()
        made = {o: n for n in self.nodes for o in n.output}
        renamed: dict = {}
        for v, name in zip(values, names):
            if v in made and v not in renamed:
                renamed[v] = name
            else:
                self.nodes.append(onnx.helper.make_node("Identity", [renamed.get(v, v)],
                                                        [name]))
        for n in self.nodes:
            for field in (n.input, n.output):
                for i, x in enumerate(field):
                    if x in renamed:
                        field[i] = renamed[x]

    def ints(self, values) -> str:
        return self.const(np.asarray(values, np.int64))

    def node(self, op: str, inputs: list, n_out: int = 1, **attrs) -> list:
        onnx = _onnx()
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(onnx.helper.make_node(op, inputs, outs, **attrs))
        return outs

    def one(self, op: str, inputs: list, **attrs) -> str:
        return self.node(op, inputs, 1, **attrs)[0]

    # -- shapes that may depend on dynamic axes ---------------------------------
    def dim(self, s: Sym) -> str:
        """The 1-d int64 value ``[a * size + c]`` of ``s``."""
        name = self._dims.get(s.key())
        if name is not None:
            return name
        base = self._dims.get((s.input, s.axis, 1, 0))
        if base is None:
            shape = self.one("Shape", [self.input_names[s.input]])
            base = self.one("Gather", [shape, self.ints([s.axis])], axis=0)
            self._dims[(s.input, s.axis, 1, 0)] = base
        name = base
        if s.a != 1:
            name = self.one("Mul", [name, self.ints([s.a])])
        if s.c != 0:
            name = self.one("Add", [name, self.ints([s.c])])
        self._dims[s.key()] = name
        return name

    def shape(self, sizes) -> str:
        """A 1-d int64 value holding ``sizes`` (ints, or ``Sym`` for dynamic ones)."""
        if not any(isinstance(v, Sym) for v in sizes):
            return self.ints(list(sizes))
        parts, run = [], []
        for v in sizes:
            if isinstance(v, Sym):
                if run:
                    parts.append(self.ints(run))
                    run = []
                parts.append(self.dim(v))
            else:
                run.append(int(v))
        if run:
            parts.append(self.ints(run))
        return self.one("Concat", parts, axis=0)

    # -- the walk -----------------------------------------------------------------
    def emit_jaxpr(self, jaxprs: list, consts: list, args: list, dyn) -> list:
        """Write the equations of ``jaxprs[0]`` (``jaxprs[1:]``: the same program traced
        at other sizes, read through ``dyn``) with ``consts`` and ``args`` naming its
        constants and inputs; returns the names of its outputs."""
        jaxpr = jaxprs[0]
        env = dict(zip(jaxpr.constvars, consts))
        env.update(zip(jaxpr.invars, args))
        needed = _live(jaxpr)
        saved = self._uses
        self._uses = _uses(jaxpr)
        try:
            return self._emit_eqns(jaxpr, jaxprs, env, needed, dyn)
        finally:
            self._uses = saved

    def _emit_eqns(self, jaxpr, jaxprs, env, needed, dyn) -> list:
        for k, eqn in enumerate(jaxpr.eqns):
            if not needed[k]:
                continue
            others = [j.eqns[k] for j in jaxprs[1:]]
            ins = [self.read(env, x) if not isinstance(x, jex.Literal) or not others
                   else self.literal(eqn, others, i, dyn) for i, x in enumerate(eqn.invars)]
            outs = self.emit_eqn(eqn, others, ins, dyn)
            for v, o in zip(eqn.outvars, outs):
                if not isinstance(v, jex.DropVar):
                    env[v] = o
        return [self.read(env, x) for x in jaxpr.outvars]

    def literal(self, eqn, others, i: int, dyn) -> str:
        """Input ``i`` of ``eqn``, a literal: a constant, or computed from the dynamic
        axis it follows (``mean``'s divisor of a dynamic axis's length)."""
        x = eqn.invars[i]
        s = dyn.literal(eqn, others, i)
        dt = np.dtype(x.aval.dtype)
        if not isinstance(s, Sym):
            return self.const(np.asarray(x.val, dt))
        v = self.one("Cast", [self.dim(Sym(s.input, s.axis, 1, 0))], to=onnx_dtype(dt))
        if s.a != 1:
            v = self.one("Mul", [v, self.const(np.asarray(s.a, dt))])
        if s.c != 0:
            v = self.one("Add", [v, self.const(np.asarray(s.c, dt))])
        return self.one("Reshape", [v, self.ints([])])

    def read(self, env: dict, x) -> str:
        if isinstance(x, jex.Literal):
            return self.const(np.asarray(x.val, x.aval.dtype))
        return env[x]

    def emit_eqn(self, eqn, others: list, ins: list, dyn) -> list:
        name = eqn.primitive.name
        sub = _CALLS.get(name)
        if sub is not None:
            closed = [sub(e.params) for e in [eqn] + others]
            consts = [self.const(np.asarray(c)) for c in closed[0].consts]
            return self.emit_jaxpr([c.jaxpr for c in closed], consts, ins, dyn)
        if self.fold and ins and all(i in self.consts for i in ins) \
                and not dyn.varies(eqn, others):
            folded = self._fold(eqn, ins)
            if folded is not None:
                return folded
        rule = _RULES.get(name)
        if rule is None:
            raise UnsupportedOperatorError(
                f"Exporting the operator '{name}' to ONNX is not supported: torchlike's "
                f"exporter has no rule for JAX's primitive '{name}' (from {_where(eqn)}). "
                "Leave it out of the exported forward, or compute it outside the model.")
        out = rule(self, eqn, ins, _Sizes(eqn, others, dyn))
        return out if isinstance(out, list) else [out]

    def _fold(self, eqn, ins):
        if any(int(np.prod(v.aval.shape)) > _FOLD_MAX for v in eqn.outvars):
            return None
        if eqn.primitive.name in _NO_FOLD:
            return None
        vals = [self.consts[i] for i in ins]
        with jax.default_device(jax.local_devices(backend="cpu")[0]):
            res = eqn.primitive.bind(*vals, **eqn.params)
        res = res if eqn.primitive.multiple_results else [res]
        return [self.const(np.asarray(r)) for r in res]


_NO_FOLD = {"rng_bit_generator", "random_bits", "random_seed", "random_wrap",
            "random_unwrap", "threefry2x32"}


def _where(eqn) -> str:
    """Where in the user's code an equation was traced, for error messages."""
    try:
        from jax._src import source_info_util
        return source_info_util.summarize(eqn.source_info)
    except Exception:   # pragma: no cover - JAX internals moved
        return "the model's forward"


def _uses(jaxpr) -> tuple:
    """(var -> the equations reading it, var -> the equation making it, the outputs)."""
    readers: dict = {}
    makers: dict = {}
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if not isinstance(v, jex.Literal):
                readers.setdefault(v, []).append(eqn)
        for v in eqn.outvars:
            makers[v] = eqn
    return readers, makers, {v for v in jaxpr.outvars if not isinstance(v, jex.Literal)}


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


def _live(jaxpr) -> list:
    """Per equation, whether some output of the jaxpr depends on it."""
    need = {v for v in jaxpr.outvars if not isinstance(v, jex.Literal)}
    live = [False] * len(jaxpr.eqns)
    for k in range(len(jaxpr.eqns) - 1, -1, -1):
        eqn = jaxpr.eqns[k]
        if any(v in need for v in eqn.outvars if not isinstance(v, jex.DropVar)) \
                or eqn.effects:
            live[k] = True
            need.update(v for v in eqn.invars if not isinstance(v, jex.Literal))
    return live


class _Sizes:
    """The shape-like parameters of one equation, with the sizes that vary with a
    dynamic axis as ``Sym``."""

    def __init__(self, eqn, others, dyn):
        self.eqn, self.others, self.dyn = eqn, others, dyn

    def __call__(self, param: str) -> tuple:
        return self.dyn.sizes(self.eqn, self.others, param)

    def static(self, param: str) -> tuple:
        vals = self(param)
        if any(isinstance(v, Sym) for v in vals):
            raise OnnxExporterError(
                f"'{self.eqn.primitive.name}' ({_where(self.eqn)}) has a {param} that "
                "depends on a dynamic axis, which the exporter cannot write; export "
                "without dynamic_axes for that input")
        return vals


# ---------------------------------------------------------------------------
# calls, inlined
def _closed(p, key):
    j = p[key]
    return j if isinstance(j, jex.ClosedJaxpr) else jex.ClosedJaxpr(j, ())


_CALLS = {
    "jit": lambda p: _closed(p, "jaxpr"),
    "pjit": lambda p: _closed(p, "jaxpr"),
    "closed_call": lambda p: _closed(p, "call_jaxpr"),
    "core_call": lambda p: _closed(p, "call_jaxpr"),
    "remat": lambda p: _closed(p, "jaxpr"),
    "checkpoint": lambda p: _closed(p, "jaxpr"),
    "custom_jvp_call": lambda p: _closed(p, "call_jaxpr"),
    "custom_vjp_call": lambda p: _closed(p, "call_jaxpr"),
    "custom_vjp_call_jaxpr": lambda p: _closed(p, "fun_jaxpr"),
}


# ---------------------------------------------------------------------------
# rules: (builder, eqn, input names, sizes) -> output name(s)
_RULES: dict = {}


def _rule(*names):
    def deco(f):
        for n in names:
            _RULES[n] = f
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
    _RULES[_p] = _simple(_o)
for _p in ("stop_gradient", "copy", "copy_p"):   # the same value, under a second name
    _RULES[_p] = lambda b, eqn, ins, sz: ins[0]


def _dtype_of(eqn, i=0):
    return np.dtype(eqn.invars[i].aval.dtype)


# ``div``: lax.div of integers rounds toward zero, as ONNX's integer Div does
_RULES["div"] = _simple("Div")


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


_RULES["and"] = _logical("And", "BitwiseAnd")
_RULES["or"] = _logical("Or", "BitwiseOr")
_RULES["xor"] = _logical("Xor", "BitwiseXor")


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


_RULES["reduce_sum"] = _reduce("ReduceSum")
_RULES["reduce_max"] = _reduce("ReduceMax")
_RULES["reduce_min"] = _reduce("ReduceMin")
_RULES["reduce_prod"] = _reduce("ReduceProd")


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
    if any(d != 1 for d in p["lhs_dilation"]) or p["batch_group_count"] != 1:
        raise UnsupportedOperatorError("a convolution with input dilation or batch groups "
                                       "(a transposed convolution's gradient form)")
    pads = [int(lo) for lo, _ in p["padding"]] + [int(hi) for _, hi in p["padding"]]
    if any(v < 0 for v in pads):
        raise UnsupportedOperatorError("a convolution with negative padding")
    kernel = list(eqn.invars[1].aval.shape[2:])
    out = b.one("Conv", ins, kernel_shape=kernel, strides=list(p["window_strides"]),
                dilations=list(p["rhs_dilation"]), pads=pads,
                group=int(p["feature_group_count"]))
    out_dt = np.dtype(eqn.outvars[0].aval.dtype)
    if np.dtype(eqn.invars[0].aval.dtype) != out_dt:
        out = b.one("Cast", [out], to=onnx_dtype(out_dt))
    return out


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
