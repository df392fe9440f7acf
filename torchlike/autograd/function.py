"""User-defined differentiable operations: ``torchlike.autograd.Function``.

Mirrors ``torch.autograd.Function``. Subclasses write ``forward`` and ``backward`` as
static methods, either ``forward(ctx, *args)`` or ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``, and run with ``MyFn.apply(*args)``.

# Note [Function on the tape and under tracing]
# Eagerly, ``apply`` runs ``forward`` without recording and makes the outputs' grad_fn a
# ``<Name>Backward`` node (which is also ``ctx``, as in PyTorch); the engine calls the
# user's ``backward`` with it. When the inputs are JAX tracers (the function is being
# traced by jax.jit / jax.grad), the forward is additionally wrapped in
# ``jax.custom_vjp`` whose backward calls the user's ``backward``, so JAX's own
# differentiation uses exactly the user's formula, never a derivative of the forward.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._core.grad_mode import _state as _grad_state
from .._core.grad_mode import no_grad
from .._core.tensor import Tensor
from .engine import _placement
from .graph import Node, _anomaly, _backward_error, _saved_hooks, edge_of

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction", "NestedIOFunction"]


class FunctionCtx:
    """Mirrors ``torch.autograd.function.FunctionCtx``: what ``forward`` and
    ``setup_context`` use to pass information to ``backward``."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for ``backward``, read back as ``ctx.saved_tensors``.
        Modifying one in place before backward raises PyTorch's error."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs modified in place by ``forward``."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages "
                           "are automatically tracked.")

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that never require grad (their gradient in backward is zeros)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` receives None instead of zeros for outputs that got no
        gradient."""
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs, named ``<Name>Backward``; it is also
    the ``ctx`` given to ``forward``/``setup_context``/``backward``."""

    _forward_cls: Any = None

    def __init__(self):
        Node.__init__(self, type(self).__name__)
        self.materialize_grads = True
        self.needs_input_grad: tuple = ()
        self.to_save: tuple = ()
        self.non_differentiable: tuple = ()
        self.dirty_tensors: tuple = ()
        self._saved_versions: list = []
        self._saved: tuple | None = None
        self._packed = None   # (unpack hook, entries) under saved-tensor hooks
        self._freed = False
        self._nout = 1
        self._out_meta: list = []
        # per output: its array's sharding, where a materialized zero gradient is made
        # (Note [Made arrays follow their tensor]); None while a caller traces (the
        # program places the zeros) or for an array spread over several devices
        self._out_places: list = []
        self._tensor_pos: list = []
        self._nargs = 0
        self._runs_on_none = False

    def _num_outputs(self) -> int:
        return self._nout

    # saved tensors ----------------------------------------------------------
    def _pack_saved(self, outputs) -> None:
        # Note [Saved tensor hooks] in _saved_hooks.py
        if _saved_hooks.stack and any(t is not None for t in self.to_save):
            from ._saved_hooks import pack_ctx
            pack_ctx(self, outputs)
            return
        saved = []
        vers = []
        out_ids = {id(o): i for i, o in enumerate(outputs) if isinstance(o, Tensor)}
        for t in self.to_save:
            saved.append(t)
            if t is None:
                vers.append(None)
            else:
                nr = out_ids.get(id(t))
                vers.append((t._vc, t._vc.v, t.dtype, t._shape,
                             t if nr is None else self._name, nr))
        self._saved = tuple(saved)
        self._saved_versions = vers

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``; raises if one was modified in place
        since, or after the graph was freed."""
        if self._freed:
            raise _backward_error(self._name)
        if self._packed is not None:
            from ._saved_hooks import unpack_ctx
            return unpack_ctx(self)
        if self._saved is None:
            return tuple(self.to_save)
        from ._errors import inplace_error
        for e in self._saved_versions:
            if e is not None and e[0].v != e[1]:
                raise inplace_error(e[0].v, e[1], e[2], e[3], e[4], e[5])
        return self._saved

    saved_variables = saved_tensors

    def _release(self) -> None:
        self._freed = True
        self._saved = None
        self._packed = None

    # backward ------------------------------------------------------------------
    def apply(self, grads, create_graph):
        if self._freed:
            raise _backward_error(self._name)
        fcls = self._forward_cls
        grads = list(grads)
        for i, g in enumerate(grads):
            if g is None and self.materialize_grads:
                shape, dt = self._out_meta[i]
                if dt is not None:
                    grads[i] = Tensor._wrap(jnp.zeros(shape, dt, device=self._out_places[i]))
        res = fcls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        nargs = self._nargs
        if len(res) != nargs:
            if len(res) > nargs and all(r is None for r in res[nargs:]):
                res = res[:nargs]
            else:
                raise RuntimeError(f"function {self._name} returned an incorrect number of "
                                   f"gradients (expected {nargs}, got {len(res)})")
        out = []
        for k, pos in enumerate(self._tensor_pos):
            g = res[pos]
            if g is not None:
                if not isinstance(g, Tensor):
                    raise TypeError(f"function {self._name} returned a gradient of type "
                                    f"{type(g).__name__}, expected a Tensor or None")
                shape, dt = self._in_meta[k]
                if g._shape != shape:
                    try:
                        g = _sum_to(g, shape)
                    except ValueError:
                        raise RuntimeError(
                            f"Function {self._name} returned an invalid gradient at index "
                            f"{k} - got [{', '.join(map(str, g._shape))}] but expected shape "
                            f"compatible with [{', '.join(map(str, shape))}]") from None
                if dt is not None and g.dtype.np != dt:
                    g = g.to(_dtype_of(dt))
            out.append(g)
        for pos in range(nargs):
            if pos not in self._tensor_pos and res[pos] is not None:
                raise RuntimeError(f"function {self._name} returned a gradient different than "
                                   f"None at position {pos + 1}, but the corresponding forward "
                                   "input was not a Variable")
        return out


def _dtype_of(np_dt):
    from .._core import dtype as _dt
    return _dt._BY_NP[np.dtype(np_dt)]


def _sum_to(g: Tensor, shape) -> Tensor:
    from .._ops.dispatch import call_op
    if len(g._shape) < len(shape):
        raise ValueError
    lead = len(g._shape) - len(shape)
    dims = list(range(lead))
    for i, (a, b) in enumerate(zip(g._shape[lead:], shape)):
        if a != b:
            if b != 1:
                raise ValueError
            dims.append(lead + i)
    if not dims:
        return g
    r = call_op("sum", g, dims, True)
    return call_op("reshape", r, shape) if r._shape != tuple(shape) else r


class _FunctionMeta(type):
    """Gives each Function subclass its ``<Name>Backward`` node class, as PyTorch's
    ``FunctionMeta`` does."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn._compiled_autograd_should_lift = False
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Mirrors ``torch.autograd.Function``: subclass with static ``forward`` and
    ``backward`` (and optionally ``setup_context``), then call ``apply``.

    Example::

        class Exp(Function):
            @staticmethod
            def forward(ctx, i):
                result = i.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                result, = ctx.saved_tensors
                return grad_output * result

        y = Exp.apply(x)

    Under ``jax.jit``/``jax.grad`` tracing the Function becomes a ``jax.custom_vjp``
    (see Note [Function on the tape and under tracing]).
    """

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on ``args``, recording it for autograd."""
        if kwargs:
            import inspect
            sig = inspect.signature(cls.forward)
            params = list(sig.parameters)
            if not _uses_setup_context(cls):
                params = params[1:]
            bound = inspect.Signature([sig.parameters[p] for p in params]).bind(*args, **kwargs)
            bound.apply_defaults()
            args = bound.args
        if any(isinstance(a, Tensor) and isinstance(a._value, jax.core.Tracer) for a in args):
            return _apply_traced(cls, args)
        if _dual_apply is not None:
            return _dual_apply(cls, args)
        return _apply_eager(cls, args)


# Set by torchlike.autograd.forward_ad while a dual level is open: runs a Function whose
# inputs may carry tangents (calling its ``jvp``), else ``_apply_eager``.
_dual_apply = None


def _uses_setup_context(cls) -> bool:
    return _find_setup_context(cls) is not None


def _find_setup_context(cls):
    for k in cls.__mro__:
        if k is Function:
            return None
        if "setup_context" in k.__dict__:
            return k.__dict__["setup_context"]
    return None


def _run_forward(cls, ctx, args):
    if _find_setup_context(cls) is not None:
        with no_grad():
            outputs = cls.forward(*args)
        cls.setup_context(ctx, args, outputs)
        return outputs
    with no_grad():
        return cls.forward(ctx, *args)


def _is_diff_dtype(t: Tensor) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _apply_eager(cls, args, forward_outputs=None):
    ctx = cls._backward_cls()
    tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
    ctx.needs_input_grad = needs
    ctx._nargs = len(args)
    ctx._tensor_pos = tensor_pos
    ctx._in_meta = [(args[i]._shape, args[i].dtype.np if _is_diff_dtype(args[i]) else None)
                    for i in tensor_pos]
    record = _grad_state.enabled and any(needs)
    outputs = _run_forward(cls, ctx, args) if forward_outputs is None else forward_outputs(ctx)
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else tuple(outputs)
    if not record:
        return outputs
    ctx.next_functions = tuple(edge_of(args[i]) for i in tensor_pos)
    ctx._nout = len(outs)
    nondiff = {id(t) for t in ctx.non_differentiable}
    dirty = {id(t) for t in ctx.dirty_tensors}
    inputs_by_id = {id(args[i]): args[i] for i in tensor_pos}
    new_outs = []
    meta = []
    places = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            meta.append(((), None))
            places.append(None)
            new_outs.append(o)
            continue
        meta.append((o._shape, o.dtype.np if _is_diff_dtype(o) else None))
        place = _placement(o._storage.array)
        places.append(place if place is None or len(place.device_set) == 1 else None)
        if id(o) in inputs_by_id and id(o) not in dirty:
            # an input returned as is: PyTorch returns a view of it with the new history
            o = o._make_view(o._value, o._shape, o.stride(), o._offset) \
                if o._base is None else o._alias()
        if id(o) in dirty:
            if o._requires_grad and o.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
        if id(outs[i]) in nondiff or not _is_diff_dtype(o):
            o._requires_grad = False
            new_outs.append(o)
            continue
        o.grad_fn = ctx
        o._output_nr = i
        o._requires_grad = True
        new_outs.append(o)
    ctx._out_meta = meta
    ctx._out_places = places
    # saved tensors refer to the final outputs
    if ctx.to_save:
        remap = {id(a): b for a, b in zip(outs, new_outs)}
        ctx.to_save = tuple(remap.get(id(t), t) for t in ctx.to_save)
    ctx._pack_saved(new_outs)
    if _anomaly.enabled:
        _anomaly.record(ctx)
    return new_outs[0] if single else tuple(new_outs)


# ---------------------------------------------------------------------------
# under tracing: jax.custom_vjp
def _apply_traced(cls, args):
    tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    state: dict = {}

    def rebuild(arrs):
        full = list(args)
        for p, a in zip(tensor_pos, arrs):
            full[p] = Tensor._wrap(a, requires_grad=args[p]._requires_grad)
        return full

    def run_fwd(*arrs):
        ctx = cls._backward_cls()
        full = rebuild(arrs)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and
                                     (_is_diff_dtype(a)) for a in full)
        ctx._nargs = len(args)
        ctx._tensor_pos = tensor_pos
        ctx._in_meta = [(full[i]._shape, full[i].dtype.np if _is_diff_dtype(full[i])
                         else None) for i in tensor_pos]
        outputs = _run_forward(cls, ctx, full)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else tuple(outputs)
        state["single"] = single
        state["out_meta"] = [(o._shape, o.dtype.np if _is_diff_dtype(o) else None)
                             if isinstance(o, Tensor) else ((), None) for o in outs]
        state["out_kinds"] = [isinstance(o, Tensor) for o in outs]
        state["nonten"] = [None if isinstance(o, Tensor) else o for o in outs]
        return ctx, outs

    def out_arrays(outs):
        return tuple(o._value if isinstance(o, Tensor) else None for o in outs)

    @jax.custom_vjp
    def f(*arrs):
        _, outs = run_fwd(*arrs)
        return out_arrays(outs)

    def f_fwd(*arrs):
        ctx, outs = run_fwd(*arrs)
        out_ids = {id(o): i for i, o in enumerate(outs)}
        saved = []
        for t in ctx.to_save:
            if t is None:
                saved.append(("none", None))
            elif id(t) in out_ids:
                saved.append(("out", out_ids[id(t)]))
            else:
                saved.append(("arr", None))
        saved_arrs = tuple(t._value for t, s in zip(ctx.to_save, saved) if s[0] == "arr")
        # tensors stashed as ctx attributes also cross into the backward as residuals
        attrs = {k: v for k, v in vars(ctx).items() if isinstance(v, Tensor)
                 and k not in ("to_save",)}
        attr_arrs = tuple(v._value for v in attrs.values())
        state["ctx"] = ctx
        state["saved"] = saved
        state["attr_names"] = list(attrs)
        return out_arrays(outs), (out_arrays(outs), saved_arrs, attr_arrs)

    def f_bwd(res, cts):
        outs_arr, saved_arrs, attr_arrs = res
        ctx = state["ctx"]
        it = iter(saved_arrs)
        saved = []
        for kind, i in state["saved"]:
            if kind == "none":
                saved.append(None)
            elif kind == "out":
                saved.append(Tensor._wrap(outs_arr[i]))
            else:
                saved.append(Tensor._wrap(next(it)))
        ctx._saved = tuple(saved)
        ctx._saved_versions = [None] * len(saved)
        for k, a in zip(state["attr_names"], attr_arrs):
            setattr(ctx, k, Tensor._wrap(a))
        grads = []
        for c, (_shape, dt), is_t in zip(cts, state["out_meta"], state["out_kinds"]):
            if not is_t or dt is None:
                grads.append(None)
            else:
                grads.append(None if c is None else Tensor._wrap(c))
        ctx._out_meta = state["out_meta"]
        ctx._out_places = [None] * len(state["out_meta"])
        ctx._freed = False
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            in_grads = BackwardCFunction.apply(ctx, grads, False)
        finally:
            _grad_state.enabled = prev
        res_out = []
        for k, p in enumerate(tensor_pos):
            g = in_grads[k]
            a = args[p]
            if not _is_diff_dtype(a):
                res_out.append(np.zeros(a._shape, jax.dtypes.float0))
            elif g is None:
                res_out.append(jnp.zeros_like(a._storage.array, a.dtype.np, shape=a._shape))
            else:
                v = g._value
                res_out.append(jnp.conj(v) if jnp.iscomplexobj(v) else v)
        return tuple(res_out)

    f.defvjp(f_fwd, f_bwd)
    arrs = [args[p]._value for p in tensor_pos]
    out_arrs = f(*arrs)
    outs = [Tensor._wrap(a) if a is not None else state["nonten"][i]
            for i, a in enumerate(out_arrs)]
    if _grad_state.enabled and any(args[p]._requires_grad for p in tensor_pos):
        result = outs[0] if state["single"] else tuple(outs)
        return _apply_eager(cls, args, forward_outputs=lambda ctx: _replay_ctx(
            cls, ctx, args, result))
    return outs[0] if state["single"] else tuple(outs)


def _replay_ctx(cls, ctx, args, result):
    """Fill ``ctx`` for the tape; the outputs stay those of the custom_vjp."""
    if _find_setup_context(cls) is not None:
        cls.setup_context(ctx, args, result)
        return result
    with no_grad():
        again = cls.forward(ctx, *args)
    a = again if isinstance(again, tuple) else (again,)
    r = result if isinstance(result, tuple) else (result,)
    remap = {id(x): y for x, y in zip(a, r)}
    ctx.to_save = tuple(remap.get(id(t), t) for t in ctx.to_save)
    return result


# ---------------------------------------------------------------------------
class _DelayedErrorNode(Node):
    def __init__(self, msg: str, edges):
        super().__init__("DelayedError", edges)
        self._msg = msg

    def apply(self, grads, create_graph):
        raise RuntimeError(self._msg)


def once_differentiable(fn: Callable) -> Callable:
    """Mirrors ``torch.autograd.function.once_differentiable``: ``backward`` runs without
    recording; differentiating its result again raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _grad_state.enabled:
            return outputs
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires:
            return outputs
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        edges = tuple(edge_of(a) for a in args if isinstance(a, Tensor) and a._requires_grad)
        err = _DelayedErrorNode("trying to differentiate twice a function that was marked "
                                "with @once_differentiable", edges)
        res = []
        for o in tup:
            if isinstance(o, Tensor) and _is_diff_dtype(o):
                o = o._alias()
                o.grad_fn = err
                o._requires_grad = True
            res.append(o)
        return tuple(res) if isinstance(outputs, tuple) else res[0]
    return wrapper


class InplaceFunction(Function):
    """Mirrors ``torch.autograd.function.InplaceFunction``."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Placeholder for the legacy ``torch.autograd.function.NestedIOFunction``."""
