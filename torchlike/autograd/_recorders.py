"""Generated autograd recorders: ``record_op``'s work as straight-line code per op.

# Note [Generated recorders]
# ``record_op`` treats an op's facts (edge kind per argument, save plan, whether the node
# keeps the inputs' values, non-differentiable outputs) as data: a loop over the
# arguments, another over the save plan, a third over the outputs. For every op without
# overload-specific edges (all but ``clamp``), ``fast_recorder`` writes that work out as
# straight-line code with the facts folded in, as the dispatcher's generated functions
# are (Note [Generated dispatch functions] in _ops/dispatch.py), compiled once per
# layout. It serves calls whose tensor arguments are Tensors, Python numbers or None,
# with no tracer among the arrays, and sets the same node fields to the same values as
# ``record_op``; a list argument or a traced value hands the call to ``record_op``
# before the executable ran. tests/autograd/test_recorders.py checks over the op
# table's samples that both build identical graphs. Measured on an 8x8 ``mul`` of two
# leaves: 9.2-9.5 us recorded against 10.3-11.1 with ``record_op`` (6.2-6.5 without
# grad); the 10-op chain of benchmarks/eager_autograd.py, forward and backward,
# 100-104 us against 111-117.
"""

from __future__ import annotations

from .._core.tensor import Tensor
from .._ops.dispatch import _tensor_of, wrap_outputs
from . import _saved
from .graph import (_NONE_EDGE, OpNode, _anomaly, _new, _pack_node, _recorder,
                    _saved_hooks, _seq, _Tracer, accumulate_node, record_op)

__all__ = ["fast_recorder"]

_REC_CODE: dict = {}   # layout -> compiled module code defining ``rec``


def _recorder_source(kinds: tuple, saves: bool, plan: tuple, nondiff: frozenset,
                     named: bool, plain: bool) -> str:
    """``named``: the node's name is a constant (``name``), else ``name_fn(*vals)``;
    ``plain``: the outputs are plain tensors, else ``wrap_outputs`` makes them."""
    n = len(kinds)
    vs = ", ".join(f"v{i}" for i in range(n)) + ("," if n == 1 else "")
    ds = ", ".join(f"d{i}" for i in range(n)) + ("," if n == 1 else "")
    L = ["def rec(spec, vals, statics, cast, dyn_t, dyn, exe=None, args=None):",
         f"    {vs} = dyn_t",
         f"    {ds} = dyn",
         "    edges = []",
         "    pos = []"]
    if not saves:
        L.append("    zavals = []")
    for i, kind in enumerate(kinds):
        L += [f"    if isinstance(v{i}, Tensor):"]
        if kind:
            L += [f"        dt = v{i}._storage.dtype",
                  f"        if v{i}._requires_grad and (dt.is_floating_point or dt.is_complex):",
                  f"            m{i} = True"]
            if not saves:
                L.append(f"            zavals.append((v{i}._shape, dt.np))")
            L += ["            pos.append(len(edges))",
                  f"            gf = v{i}.grad_fn",
                  f"            edges.append((gf, v{i}._output_nr) if gf is not None else "
                  f"(_accumulate(v{i}), 0))",
                  "        else:",
                  f"            m{i} = False",
                  "            edges.append(_NONE_EDGE)"]
        else:
            L.append(f"        m{i} = False")
        L += [f"    elif isinstance(v{i}, (list, tuple)):",
              "        return record_op(spec, vals, statics, cast, dyn_t, dyn, exe, args)",
              "    else:",
              f"        m{i} = False"]
        if kind == 2:   # a wrapped Python scalar: (None, 0)
            L += [f"        if v{i} is not None:",
                  "            edges.append(_NONE_EDGE)"]
        L += [f"    if isinstance(d{i}, _Tracer):",
              "        return record_op(spec, vals, statics, cast, dyn_t, dyn, exe, args)"]
    L += ["    if exe is None:",
          "        out = spec.jitted(statics, cast, *dyn)",
          "    elif args is None:",
          "        out = exe(*dyn)",
          "    else:",
          "        out = exe(*args)",
          "    if not pos:",
          "        return wrap_outputs(spec, vals, out)"]
    if plain:
        L += ["    if isinstance(out, (tuple, list)):",
              "        result = outs = tuple([_tensor_of(o) for o in out])",
              "    else:",
              "        result = _tensor_of(out)",
              "        outs = (result,)"]
    else:   # views of the input, named tuples
        L += ["    result = wrap_outputs(spec, vals, out)",
              "    outs = result if isinstance(result, tuple) else (result,)"]
    if not named:
        L.append("    name = name_fn(*vals)")
    L += ["    node = _new(OpNode)",
          "    node._name = name",
          "    node.next_functions = tuple(edges)",
          "    node._seq = next(_seq)",
          "    node._pre_hooks = node._hooks = node._tensor_pre_hooks = node._retain = None",
          "    node._metadata = node._anomaly = None",
          "    node._spec = spec",
          "    node._statics = statics",
          "    node._cast = cast",
          "    node._vjp = None",
          f"    node._mask = ({', '.join(f'm{i}' for i in range(n))}{',' if n == 1 else ''})",
          "    node._edge_pos = pos",
          "    node._freed = False",
          "    node._nout = len(outs)"]
    if saves:
        L += ["    node._dyn = dyn",
              "    node._zavals = None"]
    else:
        L += ["    node._zavals = tuple(zavals)",
              "    node._dyn = [" + ", ".join(f"None if m{i} else d{i}" for i in range(n)) + "]"]
    L.append("    node._dyn_t = dyn_t")
    if not saves:   # record_op hands the save plan no outputs then
        plan = tuple(e for e in plan if not e[0])
    if plan:
        L.append("    sv = []")
        for is_out, i, ci in plan:
            I = "    "
            if ci is not None:
                L.append(f"    if isinstance(v{ci}, Tensor) and v{ci}._requires_grad:")
                I = "        "
            if is_out:
                L += [f"{I}for k, t in enumerate(outs):"]
                if i is not None:
                    L += [f"{I}    if k != {i}:", f"{I}        continue"]
                L += [f"{I}    vc = t._vc",
                      f"{I}    sv.append((vc, vc.v, t._storage.dtype, t._shape, name, k))"]
            else:
                L += [f"{I}if isinstance(v{i}, Tensor):",
                      f"{I}    st = v{i}._storage",
                      f"{I}    if st.inference:",
                      f"{I}        raise RuntimeError(_INFERENCE_SAVED_ERROR)",
                      f"{I}    vc = v{i}._vc",
                      f"{I}    sv.append((vc, vc.v, st.dtype, v{i}._shape, v{i}, None))"]
        L.append("    node._saved = sv or None")
    else:
        L.append("    node._saved = None")
    L += ["    if _anomaly.enabled:",
          "        _anomaly.record(node)",
          "    for i, t in enumerate(outs):"]
    if nondiff:
        L += ["        if i in nondiff:",
              "            continue"]
    L += ["        dt = t._storage.dtype",
          "        if dt.is_floating_point or dt.is_complex:",
          "            t._requires_grad = True",
          "            t._grad_fn = node",
          "            t._output_nr = i",
          "    if _saved_hooks.stack:",
          "        _pack_node(node, plan, dyn_t, outs, saves)",
          "    return result"]
    return "\n".join(L) + "\n"


def fast_recorder(spec):
    """``spec``'s recorder (Note [Generated recorders]): generated code for an op
    without overload-specific edges, else ``record_op``. Kept in ``spec.extra``."""
    rec = spec.extra.get("_fast_recorder")
    if rec is not None:
        return rec
    kinds, name, name_fn, plan, saves, nondiff, plain, overload_edges = _recorder(spec)
    if overload_edges is not None or not kinds:
        rec = record_op
    else:
        layout = (kinds, saves, plan, nondiff, name is not None, plain)
        code = _REC_CODE.get(layout)
        if code is None:
            code = _REC_CODE[layout] = compile(_recorder_source(*layout),
                                               f"<recorder {layout}>", "exec")
        ns = dict(Tensor=Tensor, OpNode=OpNode, record_op=record_op, _Tracer=_Tracer,
                  _NONE_EDGE=_NONE_EDGE, _accumulate=accumulate_node, _new=_new, _seq=_seq,
                  _tensor_of=_tensor_of, wrap_outputs=wrap_outputs, _anomaly=_anomaly,
                  _INFERENCE_SAVED_ERROR=_saved.INFERENCE_SAVED_ERROR, name=name,
                  name_fn=name_fn, nondiff=nondiff, _saved_hooks=_saved_hooks,
                  _pack_node=_pack_node, plan=plan, saves=saves)
        exec(code, ns)
        rec = ns["rec"]
        rec.__name__ = rec.__qualname__ = f"record_{spec.name}"
    spec.extra["_fast_recorder"] = rec
    return rec
