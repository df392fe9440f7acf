"""Tracing a module's forward for export, at the example sizes and at others.

# Note [Dynamic axes by tracing at other sizes]
# A jaxpr holds concrete sizes: ``x.view(-1, 400)`` traces to a reshape to (2, 400) for a
# batch of 2. For each dynamic axis named in ``dynamic_axes`` the forward is traced again
# with that axis one and three longer (every input axis under the same name together).
# The traces must be the same program: the same equations with the same parameters
# except for sizes. A size that changes with one axis is ``a * size + c``, read off the
# first two traces and checked against the third (a size like ``batch // 2`` fails the
# check and is refused); the graph then computes it from the input's runtime shape. A
# size that changes with two axes at once is refused too. An axis of size 1 in the
# example is traced from 2 instead, as size-1 axes broadcast and may trace to another
# program.
"""

from __future__ import annotations

import inspect

import jax
import jax.extend.core as jex
import numpy as np

from .._core.tensor import Tensor
from .._ops.scalars import clear_scalar_cache
from ._emit import Sym, _where
from ._errors import OnnxExporterError

__all__ = ["Traced", "trace"]

_STEPS = (1, 3)   # how much longer each dynamic axis is in the other traces


class Traced:
    """The traces of one export: ``base`` (a ClosedJaxpr over the state arrays, then the
    input arrays), ``others`` (per dynamic axis name, traces at ``_STEPS`` longer),
    and what the graph's inputs and outputs are."""

    def __init__(self):
        self.base = None
        self.others: list = []          # ClosedJaxprs, ``len(_STEPS)`` per symbol
        self.symbols: list = []         # per symbol: (name, [(input, axis)...], base size)
        self.state_names: list = []
        self.state_values: list = []
        self.input_avals: list = []
        self.out_shapes: list = []      # per output: shape with a symbol name or an int

    # -- what the emitter asks (``dyn``) ----------------------------------------
    def _param_sets(self, eqn, others, param):
        return [eqn.params[param]] + [o.params[param] for o in others]

    def varies(self, eqn, others) -> bool:
        for o in others:
            if any(a.aval.shape != b.aval.shape for a, b in zip(eqn.outvars, o.outvars)):
                return True
        return False

    def sizes(self, eqn, others, param) -> tuple:
        base = tuple(eqn.params[param])
        if not others:
            return base
        vals = [tuple(o.params[param]) for o in others]
        what = f"'{eqn.primitive.name}' ({_where(eqn)}): its {param}"
        return tuple(self._size(what, i, v, [x[i] for x in vals])
                     for i, v in enumerate(base))

    def const_shape(self, v0, vs) -> tuple:
        """The shape of a constant that the traces made at their own sizes (a tensor
        built from an input's size, such as a recurrent layer's zero initial state)."""
        what = (f"a constant of shape {tuple(v0.shape)} made from the inputs' sizes "
                "(torch.zeros(x.size(0), ...)?): its shape")
        if any(np.ndim(v) != np.ndim(v0) for v in vs):
            raise OnnxExporterError(f"{what} changes rank with a dynamic axis")
        return tuple(self._size(what, i, d, [np.shape(v)[i] for v in vs])
                     for i, d in enumerate(np.shape(v0)))

    def scalar(self, v0, vs):
        """A scalar constant whose value changed with a dynamic axis, as a ``Sym``."""
        return self._size("a number made from the inputs' sizes", 0, v0.item(),
                          [v.item() for v in vs],
                          exact=np.issubdtype(v0.dtype, np.integer))

    def literal(self, eqn, others, i: int):
        """Literal input ``i`` of ``eqn``: its value, or a ``Sym`` where it follows a
        dynamic axis."""
        v0 = eqn.invars[i].val
        vs = [getattr(o.invars[i], "val", None) for o in others]
        if np.ndim(v0) != 0 or any(v is None for v in vs):
            # another trace passed the same number as an array (Note [Python numbers as
            # device scalars] in _ops/dispatch.py): a number the user wrote, not a size
            return v0
        return self._size(f"'{eqn.primitive.name}' ({_where(eqn)}): its operand", i, v0, vs,
                          exact=np.issubdtype(np.asarray(v0).dtype, np.integer))

    def _size(self, what: str, i, v0, vs, exact: bool = True):
        n = len(_STEPS)
        moved = [k for k in range(len(self.symbols))
                 if any(vs[k * n + j] != v0 for j in range(n))]
        if not moved:
            return int(v0) if exact else v0
        if len(moved) > 1:
            names = ", ".join(repr(self.symbols[k][0]) for k in moved)
            raise OnnxExporterError(f"{what}[{i}] depends on several dynamic axes ({names}), "
                                    "which the exporter cannot write")
        k = moved[0]
        name, where, size = self.symbols[k]
        a = vs[k * n] - v0
        if any(not np.isclose(vs[k * n + j], v0 + a * _STEPS[j], rtol=1e-6, atol=0)
               for j in range(n)):
            raise OnnxExporterError(
                f"{what}[{i}] is not a multiple of dynamic axis {name!r} plus a constant "
                f"({v0} at size {size}, "
                + ", ".join(f"{vs[k * n + j]} at {size + s}" for j, s in enumerate(_STEPS))
                + "); export without that dynamic axis")
        inp, axis = where[0]
        if exact:
            return Sym(inp, axis, int(a), int(v0 - a * size))
        return Sym(inp, axis, float(a), float(v0 - a * size))


def _flatten_out(out, api: str) -> list:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten_out(o, api)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flatten_out(o, api)]
    raise OnnxExporterError(f"{api}: the model returned a {type(out).__name__}; only "
                            "tensors and tuples, lists or dicts of them can be exported")


def _split_args(args, kwargs):
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    if args and isinstance(args[-1], dict) and not kwargs:
        # torch.onnx.export's convention: a trailing dict holds keyword arguments
        args, kwargs = args[:-1], args[-1]
    return args, dict(kwargs or {})


def input_positions(args, kwargs) -> list:
    """The tensors among ``args`` and ``kwargs``'s values, in order, as (where, key)."""
    out = [("arg", i) for i, a in enumerate(args) if isinstance(a, Tensor)]
    out += [("kw", k) for k, v in kwargs.items() if isinstance(v, Tensor)]
    return out


def default_input_names(model, args, kwargs) -> list:
    """The forward's parameter names of the tensor arguments, as PyTorch's dynamo
    exporter names graph inputs."""
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for where, key in input_positions(args, kwargs):
        if where == "kw":
            names.append(key)
        elif key < len(params) and inspect.signature(model.forward).parameters[
                params[key]].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                      inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(params[key])
        else:
            names.append(f"input_{key}")
    return names


def trace(model, args, kwargs, axes: dict, api: str) -> Traced:
    """Trace ``model(*args, **kwargs)``; ``axes``: input position -> {axis: name}."""
    from ..func import functional_call
    tr = Traced()
    state = {}
    for n, p in model.named_parameters():
        state[n] = p
    for n, b in model.named_buffers():
        state[n] = b
    tr.state_names = list(state)
    tr.state_values = [np.asarray(t.detach().cpu().numpy()) for t in state.values()]
    where = input_positions(args, kwargs)
    inputs = [args[k] if w == "arg" else kwargs[k] for w, k in where]

    def fn(state_arrays, input_arrays):
        call_args, call_kwargs = list(args), dict(kwargs)
        for (w, k), a in zip(where, input_arrays):
            t = Tensor._wrap(a)
            if w == "arg":
                call_args[k] = t
            else:
                call_kwargs[k] = t
        named = {n: Tensor._wrap(a) for n, a in zip(tr.state_names, state_arrays)}
        out = functional_call(model, named, tuple(call_args), call_kwargs)
        return [t._value for t in _flatten_out(out, api)]

    state_avals = [jax.ShapeDtypeStruct(v.shape, v.dtype) for v in tr.state_values]
    base_shapes = [list(t.shape) for t in inputs]

    # the symbols: every input axis under one name moves together
    by_name: dict = {}
    for i, ax in axes.items():
        for axis, name in ax.items():
            by_name.setdefault(name, []).append((i, axis))
    for name, places in by_name.items():
        sizes = {base_shapes[i][axis] for i, axis in places}
        if len(sizes) > 1:
            raise OnnxExporterError(f"{api}: the axes named {name!r} in dynamic_axes have "
                                    f"different sizes in the example inputs ({sorted(sizes)})")
        size = max(2, sizes.pop())
        for i, axis in places:
            base_shapes[i][axis] = size
        tr.symbols.append((name, places, size))

    def make(shapes):
        # every trace starts from the same cache of Python numbers, so that a number is
        # a literal or a constant alike in all of them and their constants line up
        clear_scalar_cache()
        avals = [jax.ShapeDtypeStruct(tuple(s), t._value.dtype) for s, t in zip(shapes, inputs)]
        closed, out_shape = jax.make_jaxpr(fn, return_shape=True)(state_avals, avals)
        return closed, [o.shape for o in out_shape], avals

    tr.base, base_out, tr.input_avals = make(base_shapes)
    out_others = []
    for name, places, size in tr.symbols:
        for step in _STEPS:
            shapes = [list(s) for s in base_shapes]
            for i, axis in places:
                shapes[i][axis] = size + step
            try:
                closed, outs, _ = make(shapes)
            except Exception as e:
                raise OnnxExporterError(
                    f"{api}: the forward fails when dynamic axis {name!r} has size "
                    f"{size + step} ({type(e).__name__}: {e}); export without that dynamic "
                    "axis") from e
            _same_program(tr.base.jaxpr, closed.jaxpr, name, api)
            tr.others.append(closed)
            out_others.append(outs)
    # the outputs' shapes: a size that moves with one axis as the axis's name
    n = len(_STEPS)
    tr.out_shapes = []
    for o, shape in enumerate(base_out):
        dims = []
        for d, v in enumerate(shape):
            moved = [k for k in range(len(tr.symbols))
                     if any(out_others[k * n + j][o][d] != v for j in range(n))]
            if not moved:
                dims.append(int(v))
            elif len(moved) == 1 and all(
                    out_others[moved[0] * n + j][o][d] == v + s for j, s in enumerate(_STEPS)):
                dims.append(tr.symbols[moved[0]][0])
            else:
                dims.append(None)   # a size of its own: an unnamed dynamic dimension
        tr.out_shapes.append(dims)
    return tr


def _same_program(a, b, name: str, api: str) -> None:
    """Raise unless jaxprs ``a`` and ``b`` have the same equations, calls included."""
    if len(a.eqns) != len(b.eqns) or any(
            x.primitive is not y.primitive for x, y in zip(a.eqns, b.eqns)):
        raise OnnxExporterError(
            f"{api}: the forward traces to a different program when the dynamic axis "
            f"{name!r} has another size (Python code that branches on a size?); export "
            "without that dynamic axis")
    for x, y in zip(a.eqns, b.eqns):
        for sa, sb in zip(jex.jaxprs_in_params(x.params), jex.jaxprs_in_params(y.params)):
            _same_program(sa, sb, name, api)
