"""Writing a traced forward (a jaxpr) as an ONNX graph, one equation at a time.

# Note [From jaxpr to ONNX]
# ``export`` traces the model's forward into a jaxpr (``_trace.py``), so what is written
# here is JAX's primitives, not torchlike's ops: every op of the table lowers to a few
# ``lax`` primitives, and a table of those (``_RULES``) covers every model built from
# them without an entry per torchlike op. Calls (``jit``, ``custom_jvp_call``,
# ``custom_vjp_call``) are inlined. Equations whose results nothing reads are dropped,
# and an equation whose inputs are all constants is evaluated here and written as a
# constant (``do_constant_folding``; up to ``_FOLD_MAX`` elements, so that broadcasting a
# constant does not bloat the file). The rules are in ``_rules.py``. A primitive without
# a rule raises
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

from ._errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["GraphBuilder", "Sym", "onnx_dtype"]

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

    def __init__(self, input_names: list, fold: bool, rules: dict):
        self.rules = rules           # primitive name -> rule (``_rules.RULES``)
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

    def closed_consts(self, closed: list, dyn) -> list:
        """Names for the constants of ``closed[0]`` (``closed[1:]``: the same program
        traced at other sizes). A constant whose shape follows a dynamic axis (made from
        an input's size, as a recurrent layer's zero state is) is written as
        ConstantOfShape of its runtime shape when all its elements are equal."""
        names = []
        for k, c in enumerate(closed[0].consts):
            v0 = np.asarray(c)
            vs = [np.asarray(o.consts[k]) for o in closed[1:]]
            if all(v.shape == v0.shape for v in vs):
                if v0.size > _FOLD_MAX or all(np.array_equal(v, v0) for v in vs):
                    names.append(self.const(v0))
                elif v0.ndim == 0:   # a number made from a size: ``x.size(0) * 2.0``
                    s = dyn.scalar(v0, vs)
                    names.append(self.sym_value(s, v0.dtype) if isinstance(s, Sym)
                                 else self.const(v0))
                else:
                    raise OnnxExporterError(
                        f"a constant of shape {v0.shape} made from the inputs' sizes has "
                        "other values when a dynamic axis changes, which the exporter "
                        "cannot write; export without that dynamic axis")
                continue
            shape = dyn.const_shape(v0, vs)
            flat = v0.ravel()
            if not flat.size or not (flat == flat[0]).all() or any(
                    v.size and not (v.ravel() == flat[0]).all() for v in vs):
                raise OnnxExporterError(
                    f"a constant of shape {v0.shape} made from the inputs' sizes varies "
                    "with a dynamic axis and is not one value repeated, which the exporter "
                    "cannot write; export without that dynamic axis")
            onnx = _onnx()
            value = onnx.numpy_helper.from_array(flat[:1].copy(), "value")
            names.append(self.one("ConstantOfShape", [self.shape(shape)], value=value))
        return names

    def literal(self, eqn, others, i: int, dyn) -> str:
        """Input ``i`` of ``eqn``, a literal: a constant, or computed from the dynamic
        axis it follows (``mean``'s divisor of a dynamic axis's length)."""
        x = eqn.invars[i]
        s = dyn.literal(eqn, others, i)
        dt = np.dtype(x.aval.dtype)
        if not isinstance(s, Sym):
            return self.const(np.asarray(x.val, dt))
        return self.sym_value(s, dt)

    def sym_value(self, s: Sym, dt) -> str:
        """A scalar of dtype ``dt`` holding ``s``'s value at run time."""
        dt = np.dtype(dt)
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
            return self.emit_jaxpr([c.jaxpr for c in closed], self.closed_consts(closed, dyn),
                                   ins, dyn)
        if self.fold and ins and all(i in self.consts for i in ins) \
                and not dyn.varies(eqn, others):
            folded = self._fold(eqn, ins)
            if folded is not None:
                return folded
        rule = self.rules.get(name)
        if rule is not None and others:
            _same_params(eqn, others)
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


# The parameters a rule reads through ``_Sizes`` (which writes a size that follows a
# dynamic axis as one, or refuses it) or does not read at all; any other parameter that
# differs between the traces at other sizes would be written with the example's value.
_SIZED = {"reshape": {"new_sizes"}, "broadcast_in_dim": {"shape"}, "iota": {"shape"},
          "slice": {"start_indices", "limit_indices"}, "split": {"sizes"},
          "gather": {"slice_sizes"}, "scan": {"length", "jaxpr"}}


def _same_params(eqn, others) -> None:
    sized = _SIZED.get(eqn.primitive.name, ())
    for k, v in eqn.params.items():
        if k in sized or isinstance(v, (jex.Jaxpr, jex.ClosedJaxpr)):
            continue
        for o in others:
            w = o.params[k]
            try:
                same = bool(v == w)
            except Exception:   # arrays and the like
                same = False
            same = same or repr(v) == repr(w)   # NaN, or values without equality
            if not same:
                raise OnnxExporterError(
                    f"'{eqn.primitive.name}' ({_where(eqn)}): its {k} changes with a dynamic "
                    f"axis ({v} at the example's size, {w} at another), which the exporter "
                    "cannot write; export without that dynamic axis")


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
