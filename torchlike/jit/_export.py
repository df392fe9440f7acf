"""A module's forward as a pure function of (state arrays, input arrays), and its
``jax.export`` program.

# Note [The saved program]
# ``save`` needs the forward without the Python class, so it is traced into a
# ``jax.export.Exported`` of ``pure(state, inputs) -> (outputs, changed buffers)``:
# ``functional_call`` runs the module with its parameters and buffers swapped for the
# traced state (the approach of ``torch.func``), in the module's current mode, under
# ``no_grad`` (the program is differentiated by JAX, not by the eager tape). Buffers the
# forward updates in place (a BatchNorm's statistics in training mode) come back as
# extra outputs, which the loaded module writes into its buffers. It is serialized with
# ``vjp_order=1``, so the loaded program's VJP is part of the file and the loaded module
# can be trained. The leading axis of the inputs that share the first input's leading
# size is exported as a symbolic dimension ``b`` where the forward allows it (``Linear``,
# convolutions, ``flatten(1)``); where it does not (``x.view(4, -1)``, Python arithmetic
# on the size) the concrete example shapes are exported instead, and the loaded module
# refuses other shapes with an error naming both.
#
# The default generator's key and counter are inputs of the program and its new counter
# an output, so a forward that draws random numbers (dropout in training mode) draws new
# ones on every call of the loaded module, from torchlike's generator (``manual_seed``
# applies), rather than one mask baked into the program.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import xla
from .._core.random import default_generator
from .._core.tensor import Tensor
from ._helpers import _TracingFlag

__all__ = ["ExportedForward", "export_forward", "forward_jaxpr", "function_jaxpr",
           "flatten_out", "unflatten_out"]


def flatten_out(out, where: str = "output") -> tuple[list, object]:
    """The tensors of ``out`` and a JSON-ready description of its nesting."""
    if isinstance(out, Tensor):
        return [out], {"t": 0}
    if isinstance(out, (tuple, list)):
        flat, items = [], []
        for i, o in enumerate(out):
            f, d = flatten_out(o, f"{where}[{i}]")
            items.append(_shift(d, len(flat)))
            flat.extend(f)
        return flat, {"tuple" if isinstance(out, tuple) else "list": items}
    if isinstance(out, dict):
        flat, items = [], []
        for k, o in out.items():
            if not isinstance(k, str):
                raise RuntimeError(f"torchlike.jit.save: {where} is a dict with a "
                                   f"{type(k).__name__} key; only str keys can be saved")
            f, d = flatten_out(o, f"{where}[{k!r}]")
            items.append([k, _shift(d, len(flat))])
            flat.extend(f)
        return flat, {"dict": items}
    if out is None:
        return [], {"none": None}
    raise RuntimeError(f"torchlike.jit.save: the forward's {where} is a "
                       f"{type(out).__name__}; only tensors, None, and tuples, lists and "
                       "dicts of them can be saved")


def _shift(desc, n: int):
    if "t" in desc:
        return {"t": desc["t"] + n}
    if "dict" in desc:
        return {"dict": [[k, _shift(d, n)] for k, d in desc["dict"]]}
    if "none" in desc:
        return desc
    kind = "tuple" if "tuple" in desc else "list"
    return {kind: [_shift(d, n) for d in desc[kind]]}


def unflatten_out(desc, flat: list):
    """Inverse of ``flatten_out``."""
    if "t" in desc:
        return flat[desc["t"]]
    if "tuple" in desc:
        return tuple(unflatten_out(d, flat) for d in desc["tuple"])
    if "list" in desc:
        return [unflatten_out(d, flat) for d in desc["list"]]
    if "dict" in desc:
        return {k: unflatten_out(d, flat) for k, d in desc["dict"]}
    return None


class ExportedForward:
    """What ``export_forward`` made: the program and what the file must say about it."""

    def __init__(self):
        self.exported = None            # jax.export.Exported
        self.state_names: list = []     # parameters then buffers, state-dict names
        self.state: list = []           # their tensors
        self.n_params = 0
        self.out_desc = None            # flatten_out's description of the result
        self.n_out = 0
        self.mutated: list = []         # indices into state_names of buffers written back
        self.symbolic = False
        self.input_shapes: list = []    # per input: shape, with None for the batch axis
        self.input_dtypes: list = []
        self.static: list = []          # reprs of the non-tensor arguments fixed in it


def _state_of(module) -> tuple[list, list, int]:
    params = list(module.named_parameters())
    bufs = [(n, b) for n, b in module.named_buffers() if b is not None]
    names = [n for n, _ in params] + [n for n, _ in bufs]
    return names, [p for _, p in params] + [b for _, b in bufs], len(params)


def _pure(call, names: list, spec, info: dict):
    """``pure(state_arrays, input_arrays, rng) -> outputs + changed buffers + [counter]``,
    where ``rng`` is the default generator's key and counter; ``info`` receives the
    output description and the changed buffers' indices at trace time."""
    from .. import no_grad

    def pure(state_arrays, input_arrays, rng):
        named = {n: Tensor._wrap(a) for n, a in zip(names, state_arrays)}
        args, kwargs = spec.rebuild([Tensor._wrap(a) for a in input_arrays])
        saved = default_generator._state_leaves()
        default_generator._set_state_leaves(rng[0], rng[1])
        try:
            with no_grad():
                out = call(named, args, kwargs)
            counter = default_generator._state_leaves()[1]
        finally:
            default_generator._set_state_leaves(*saved)
        flat, info["desc"] = flatten_out(out)
        info["mutated"] = [i for i, (n, a) in enumerate(zip(names, state_arrays))
                           if named[n]._value is not a]
        return ([t._value for t in flat]
                + [named[names[i]]._value for i in info["mutated"]]
                + [jnp.asarray(counter, jnp.uint32)])
    return pure


def rng_avals() -> list:
    key = default_generator._state_leaves()[0]
    return [jax.ShapeDtypeStruct(np.shape(key), np.asarray(key).dtype),
            jax.ShapeDtypeStruct((), np.uint32)]


def _module_call(module):
    from ..func import functional_call

    def call(named, args, kwargs):
        return functional_call(module, named, args, kwargs)
    return call


def _target(sm):
    """The module whose forward is saved, and the call spec to save it at."""
    from ._script import CallSpec
    orig = sm.__dict__.get("_orig")
    spec = CallSpec.of(sm.__dict__.get("_spec"))
    if orig is None:
        if "_program" in sm.__dict__:
            raise RuntimeError("torchlike.jit.save: this module was made by "
                               "torchlike.jit.load; save the module it was loaded from "
                               "instead")
        raise RuntimeError(f"torchlike.jit.save: {type(sm).__name__} subclasses "
                           "ScriptModule directly; save torchlike.jit.script(module) or "
                           "torchlike.jit.trace(module, inputs) of an nn.Module instead")
    if spec is None:
        raise RuntimeError(
            f"torchlike.jit.save: the scripted {sm.original_name} has not been called yet, "
            "so the input shapes to save its forward at are unknown; call it once on "
            "example inputs (or pass script(..., example_inputs=[(x,)])) before saving")
    return orig, spec


def forward_jaxpr(sm):
    """The jaxpr of ``sm``'s saved forward at its recorded shapes."""
    orig, spec = _target(sm)
    names, state, _ = _state_of(orig)
    info: dict = {}
    avals = [jax.ShapeDtypeStruct(tuple(t.shape), t._value.dtype) for t in state]
    with _TracingFlag(), xla.portable_lowering():
        return jax.make_jaxpr(_pure(_module_call(orig), names, spec, info))(
            avals, spec.input_avals, rng_avals())


def function_jaxpr(fn, spec):
    info: dict = {}

    def call(named, args, kwargs):
        return fn(*args, **kwargs)
    with _TracingFlag(), xla.portable_lowering():
        return jax.make_jaxpr(_pure(call, [], spec, info))([], spec.input_avals,
                                                             rng_avals())


def export_forward(sm) -> ExportedForward:
    """Trace and export ``sm``'s forward (Note [The saved program])."""
    orig, spec = _target(sm)
    ex = ExportedForward()
    ex.state_names, ex.state, ex.n_params = _state_of(orig)
    state_avals = [jax.ShapeDtypeStruct(tuple(t.shape), t._value.dtype) for t in ex.state]
    in_avals = spec.input_avals
    lead = in_avals[0].shape[0] if in_avals and in_avals[0].shape else None
    batched = [lead is not None and len(a.shape) >= 1 and a.shape[0] == lead
               for a in in_avals]

    def export(avals):
        info: dict = {}
        fn = _pure(_module_call(orig), ex.state_names, spec, info)
        with _TracingFlag(), xla.portable_lowering():
            exported = jax.export.export(jax.jit(fn))(state_avals, avals, rng_avals())
        return exported, info

    exported = None
    if lead is not None:
        (b,) = jax.export.symbolic_shape("b")
        sym_avals = [jax.ShapeDtypeStruct((b,) + tuple(a.shape[1:]), a.dtype) if bt else a
                     for a, bt in zip(in_avals, batched)]
        try:
            exported, info = export(sym_avals)
            ex.symbolic = True
        except Exception:   # the forward needs concrete sizes: export those instead
            pass
    if exported is None:
        exported, info = export(in_avals)
    ex.exported = exported
    ex.out_desc = info["desc"]
    ex.mutated = info["mutated"]
    ex.n_out = len(exported.out_avals) - len(ex.mutated) - 1
    ex.input_dtypes = [a.dtype for a in in_avals]
    ex.static = [repr(x) for i, x in enumerate(spec.leaves) if i not in spec.tensor_pos]
    ex.input_shapes = [[None if (ex.symbolic and bt and k == 0) else int(d)
                        for k, d in enumerate(a.shape)] for a, bt in zip(in_avals, batched)]
    return ex


def state_arrays(ex: ExportedForward) -> list:
    """The state's values as NumPy arrays, in ``ex.state_names`` order."""
    return [np.asarray(t.detach().cpu().numpy()) for t in ex.state]
