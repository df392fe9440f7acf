"""Dual tensors: the tangents of ``torchlike.autograd.forward_ad`` and how ops on
dual tensors compute theirs (Notes [Tangents over a parallel storage] and [Tangents of
an op by jax.jvp]); ``forward_ad`` is the public API over them."""

from __future__ import annotations

import threading
import weakref
from typing import Any

import jax
import jax.extend.core as jex
import jax.numpy as jnp

from .._core import autocast_state as _autocast
from .._core import dtype as _dt
from .._core.autograd_attrs import init_autograd_fields
from .._core.grad_mode import _DecoratorContextManager, is_grad_enabled
from .._core.random import default_generator
from .._core.storage import Storage, VersionCounter
from .._core.tensor import Tensor
from .._core.traced import TracedValueError
from .._ops import bind as _bind
from .._ops.torch_function import DisableTorchFunctionSubclass, _tf_state
from .._ops.transposed_jvp import jvp_by_vjp
from . import function as _function

# The level entered (-1: none); forward_ad's ``_current_level`` is what users see
_open = [-1]


class _FwGradState(threading.local):
    def __init__(self):
        self.enabled = True


_fw = _FwGradState()


def _is_fwd_grad_enabled() -> bool:
    """Mirrors ``torch._C._is_fwd_grad_enabled``: whether ops propagate tangents."""
    return _fw.enabled


class _set_fwd_grad_enabled(_DecoratorContextManager):
    """Mirrors ``torch.autograd.forward_ad._set_fwd_grad_enabled``: turns forward AD off
    (or on) from its construction until the block ends; while off, ops on dual tensors
    give plain results and ``unpack_dual`` finds no tangent."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.prev = _fw.enabled
        _fw.enabled = self.mode

    def clone(self) -> "_set_fwd_grad_enabled":
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        _fw.enabled = self.prev


def _active() -> bool:
    return _open[0] >= 0 and _fw.enabled


# ---------------------------------------------------------------------------
# Note [Tangents over a parallel storage]
# A dual tensor's tangent is a torchlike Tensor with the primal's exact layout (shape,
# strides, offset) over a storage of its own shaped like the primal's storage. A view
# of a dual tensor then needs no differentiation: its tangent is the same strided view
# of the tangent's storage (which is what the JVP of any view op is), and a write into
# a view's tangent (an in-place op on the view) scatters into that storage, so the
# base's tangent and every other view's see it, as with primals. A plain tensor that
# is written in place with a dual value gets a zero tangent first; if it is a view, its
# base gets it, and views of that base find their tangents through it lazily.
#
# The tangent is kept in the tensor's ``__dict__`` (``_fw_tangent``); only one level
# exists, and every tensor given a tangent is listed in ``_live`` so that exiting the
# level drops the tangents and restores the classes.

_live: list = []


def _remember(t: Tensor) -> None:
    _live.append(weakref.ref(t))
    n = len(_live)
    if n >= 1024 and not n & (n - 1):   # at powers of two: drop the dead
        _live[:] = [r for r in _live if r() is not None]


def _over(storage: Storage, like: Tensor, base: Tensor | None = None) -> Tensor:
    """A tensor with ``like``'s layout over ``storage`` (shaped like ``like``'s): a view
    of ``base`` (a tensor over ``storage``) when given."""
    v = object.__new__(Tensor)
    v._storage = storage
    v._shape = like._shape
    v._stride = like._stride
    v._offset = like._offset
    v._direct = like._direct and not like._sg
    v._cache = None
    v._cache_gen = -1
    v._idx = like._idx
    v._vc = VersionCounter() if base is None else base._vc
    init_autograd_fields(v, False)
    if base is not None:
        v._base = base if base._base is None else base._base
        v._attr_version = v._vc.v
    return v


def _is_parallel(t: Tensor, tan: Tensor) -> bool:
    return (tan._shape == t._shape and tan._offset == t._offset
            and tan._strides() == t._strides()
            and tan._storage.array.shape == t._storage.array.shape)


def _parallel_from(t: Tensor, tan) -> Tensor:
    """The tangent of ``t`` holding the values of ``tan`` (a Tensor, used as it is when
    it has ``t``'s layout already, or an array), laid out as Note [Tangents over a
    parallel storage] says."""
    if isinstance(tan, Tensor):
        if _is_parallel(t, tan):
            return tan
        tan = tan._value
    if t._direct:
        return Tensor._wrap(tan)
    if t._storage.dtype is not t.dtype:   # a view reinterpreting another dtype
        return Tensor._wrap(tan)
    T = _over(Storage(jnp.zeros(t._storage.array.shape, tan.dtype)), t)
    T._set_value(tan, bump=False)
    return T


def _dual_class(t: Tensor) -> type:
    cls = type(t)
    if isinstance(t, _DualTensor):
        return cls
    if cls is Tensor:
        return _DualTensor
    dc = _DUAL_CLASSES.get(cls)
    if dc is None:
        dc = type(cls.__name__, (_DualTensor, cls), {"_plain_cls": cls})
        _DUAL_CLASSES[cls] = dc
    return dc


_DUAL_CLASSES: dict = {}


def _make_dual_class(t: Tensor) -> None:
    if isinstance(t, _DualTensor):
        return
    try:
        t.__class__ = _dual_class(t)
    except TypeError:
        raise NotImplementedError(
            f"forward AD: a tensor of class {type(t).__name__} cannot carry a tangent in "
            "torchlike") from None
    _remember(t)


def _attach(t: Tensor, T: Tensor) -> None:
    """Make ``T`` the tangent of ``t``."""
    _make_dual_class(t)
    t._fw_tangent = T


def _tangent(t) -> Tensor | None:
    """The tangent of ``t`` at the open level, or None."""
    if not isinstance(t, _DualTensor):
        return None
    T = t.__dict__.get("_fw_tangent")
    if T is not None:
        return T
    b = t._base
    if b is not None and isinstance(b, _DualTensor) and b.dtype is t.dtype:
        Tb = b.__dict__.get("_fw_tangent")
        if Tb is not None and _is_parallel(b, Tb) and Tb.dtype is t.dtype:
            T = _over(Tb._storage, t, Tb)
            t._fw_tangent = T
            return T
    return None


def _give_base_tangent(b: Tensor) -> None:
    """A zero tangent for the base ``b`` (which has none), and the dual class for the
    views of ``b`` alive (Note [Tangents over a parallel storage])."""
    zeros = jnp.zeros(b._storage.array.shape, b._storage.array.dtype)
    _attach(b, _over(Storage(zeros), b))
    for ref in getattr(b._storage, "views", None) or ():
        v = ref()
        if v is not None and v._base is b and type(v) is Tensor:
            _make_dual_class(v)


def _write_tangent(t: Tensor, new: Tensor | None) -> None:
    """Set the tangent of ``t`` (written in place) to ``new`` (None: zeros), writing
    into its current tangent so that its base and views see it."""
    if not (t.is_floating_point() or t.is_complex()):
        return
    T = _tangent(t)
    if T is None:
        if new is None:
            return
        b = t._base
        if b is None and t._storage.dtype is t.dtype:
            _give_base_tangent(t)
            T = _tangent(t)
        elif b is not None and b._storage is t._storage and b.dtype is t.dtype:
            if _tangent(b) is None:
                _give_base_tangent(b)
            _make_dual_class(t)
            T = _tangent(t)
        if T is None:
            _attach(t, _parallel_from(t, new))
            return
    if new is None:
        T._set_value(jnp.zeros(T._shape, T.dtype.np))
    elif new.grad_fn is not None and new._shape == T._shape:
        _bind.inplace_apply(T, new)
    else:
        T._set_value(new._value)


def _inplace_hook(self: Tensor, out: Tensor) -> None:
    """``inplace_apply``'s hook while a level is open: ``self`` takes the tangent of
    ``out`` (zeros if ``out`` has none and ``self`` had one). Inside
    ``_DualTensor.__torch_function__`` (subclass overrides disabled) the override itself
    updates the tangents."""
    if _tf_state.disabled_subclass or not _fw.enabled:
        return
    if isinstance(out, _DualTensor) or isinstance(self, _DualTensor):
        _write_tangent(self, _tangent(out))


# ---------------------------------------------------------------------------
# ops on dual tensors

# Note [Tangents of an op by jax.jvp]
# ``_DualTensor.__torch_function__`` receives every torchlike function and Tensor
# method called with a dual tensor. It runs the call on the primals as usual (so the
# results, views, in-place writes, version counters and reverse-mode history are those
# of the op itself), then finds which results need a tangent:
#   * a floating result that is a view of a dual input takes the view of its tangent
#     (Note [Tangents over a parallel storage]);
#   * a fresh floating result, or an input the call wrote in place (its version counter
#     moved), takes ``jax.jvp`` of the call: a pure function of the inputs' primals and
#     tangents runs the same call on tensors over JAX tracers.
# That pure function is ``jax.jit``-compiled once per call signature (the function, the
# non-tensor arguments, the tensors' shapes and dtypes and which are dual) and cached;
# from its jaxpr, outputs whose tangent does not depend on any input tangent are known
# to be zero (JAX's symbolic zeros), and get no tangent, as PyTorch's non-differentiable
# outputs (``zeros_like``, ``detach``...). Tangents are computed through ``run_pure``,
# which records the computation on the tape when an input requires grad, so reverse mode
# differentiates tangents. A call that draws random numbers, takes unhashable arguments
# or cannot be traced with all its inputs abstract (a mask's data-dependent shape) runs
# uncached, its non-dual inputs as constants and the generator replayed to its state
# before the call.

_CACHE: dict = {}
# what a call raises when its tracing needs an input's value (a boolean mask's count)
_NEEDS_VALUES = (TracedValueError, jax.errors.ConcretizationTypeError,
                 jax.errors.NonConcreteBooleanIndexError,
                 jax.errors.TracerIntegerConversionError)
_CACHE_MAX = 4096
_NO_TANGENT = ("detach", "detach_", "_detach")


class _Slot:
    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i


def _split(obj, leaves: list):
    """``obj`` with its tensors replaced by ``_Slot``s (appended to ``leaves``), and a
    hashable description of it for the cache key."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return _Slot(len(leaves) - 1), ("T", obj._shape, obj.dtype,
                                        isinstance(obj, _DualTensor))
    if type(obj) in (tuple, list):
        parts = [_split(o, leaves) for o in obj]
        return type(obj)(p[0] for p in parts), (type(obj), tuple(p[1] for p in parts))
    if type(obj) is dict:
        parts = [(k, _split(v, leaves)) for k, v in obj.items()]
        return ({k: p[0] for k, p in parts}, ("D", tuple((k, p[1]) for k, p in parts)))
    if type(obj) is slice:
        return obj, ("S", obj.start, obj.stop, obj.step)
    return obj, (type(obj), obj)


def _fill(template, tensors: list):
    if isinstance(template, _Slot):
        return tensors[template.i]
    if type(template) in (tuple, list):
        return type(template)(_fill(o, tensors) for o in template)
    if type(template) is dict:
        return {k: _fill(v, tensors) for k, v in template.items()}
    return template


def _flat_out(out) -> list:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat_out(o))
        return res
    return []


def _is_float(t: Tensor) -> bool:
    dt = t.dtype
    return dt.is_floating_point or dt.is_complex


def _depends(jaxpr, marked_in: list) -> list:
    """Per output of ``jaxpr``: whether it depends on an input marked in ``marked_in``
    (through calls of jitted functions, looked into; other sub-jaxprs count as
    depending on all their inputs)."""
    marked = {id(v) for v, m in zip(jaxpr.invars, marked_in) if m}
    for eqn in jaxpr.eqns:
        ins = [not isinstance(v, jex.Literal) and id(v) in marked for v in eqn.invars]
        if not any(ins):
            continue
        sub = eqn.params.get("jaxpr")
        sub = getattr(sub, "jaxpr", sub)
        if isinstance(sub, jex.Jaxpr) and len(sub.invars) == len(ins) \
                and len(sub.outvars) == len(eqn.outvars):
            outs = _depends(sub, ins)
        else:
            outs = [True] * len(eqn.outvars)
        marked.update(id(v) for v, m in zip(eqn.outvars, outs) if m)
    return [not isinstance(v, jex.Literal) and id(v) in marked for v in jaxpr.outvars]


def _tangent_kinds(closed, prim_mask: list, tan_mask: list) -> list:
    """Per tangent output of a pure function (its tangents, then its primal outputs):
    whether it is computed (it depends on an input tangent), or zeros (JAX's symbolic
    zero of a result that depends on a dual primal: ``floor``, ``sign``, as PyTorch's
    zero formulas) rather than absent (a result that does not depend on the dual
    inputs at all: ``zeros_like``, ``rand_like``, PyTorch's non-differentiable ops)."""
    m = len(closed.jaxpr.outvars) // 2
    tan = _depends(closed.jaxpr, tan_mask)[:m]
    prim = _depends(closed.jaxpr, prim_mask)[m:]
    return [t or p for t, p in zip(tan, prim)]


def _make_pure(func, template, n: int, dual_idx: list, need_out: list, need_leaf: list,
               consts: list | None = None, gen_state=None, by_vjp: bool = False):
    """The pure function ``(*primals, *tangents) -> output tangents`` of one call (Note
    [Tangents of an op by jax.jvp]). With ``consts`` the non-dual leaves are those
    concrete tensors and only the dual primals are inputs."""

    def pure(*arrays):
        if consts is None:
            prims, tans = list(arrays[:n]), arrays[n:]
        else:
            k = len(dual_idx)
            prims, tans = [None] * n, arrays[k:]
            for j, i in enumerate(dual_idx):
                prims[i] = arrays[j]
        dprims = tuple(prims[i] for i in dual_idx)
        tans = tuple(t.astype(p.dtype) for t, p in zip(tans, dprims))

        def f(*dp):
            vals = list(prims)
            for i, a in zip(dual_idx, dp):
                vals[i] = a
            wrapped = [Tensor._wrap(a) if a is not None else consts[i]
                       for i, a in enumerate(vals)]
            args, kwargs = _fill(template, wrapped)
            saved = None
            if gen_state is not None:
                saved = default_generator._key, default_generator._counter
                default_generator._key, default_generator._counter = gen_state
            try:
                with DisableTorchFunctionSubclass(), _set_fwd_grad_enabled(False):
                    out = func(*args, **kwargs)
            finally:
                if saved is not None:
                    default_generator._key, default_generator._counter = saved
            flat = _flat_out(out)
            return (tuple(flat[j]._value for j in need_out)
                    + tuple(wrapped[i]._value for i in need_leaf))

        if by_vjp:
            return jvp_by_vjp(f, dprims, tans)
        outs, touts = jax.jvp(f, dprims, tans)
        return (*touts, *outs)
    return pure


def _compute_tangents(func, template, key, leaves, pre, tangents, dual_idx, need_out,
                      need_leaf, gen_state) -> list:
    """The tangents of the outputs ``need_out`` and the written leaves ``need_leaf``
    (None where symbolically zero)."""
    n = len(leaves)
    inputs = list(pre) + [tangents[i] for i in dual_idx]
    if gen_state is None and key is not None:
        try:
            entry = _CACHE.get(key)
        except TypeError:   # an unhashable argument
            entry, key = None, None
        if entry is not None:
            return _run_entry(entry, inputs)
        if key is not None:
            def make(by_vjp):
                return _make_pure(func, template, n, dual_idx, need_out, need_leaf,
                                  by_vjp=by_vjp)
            try:
                return _first_run(make, inputs, n, key, dual_idx)
            except _NEEDS_VALUES:
                pass   # data-dependent shapes and the like: run with constants, uncached
    consts = [None if i in dual_idx else pre[i] for i in range(n)]

    def make(by_vjp):
        return _make_pure(func, template, n, dual_idx, need_out, need_leaf, consts,
                          gen_state, by_vjp)
    inputs = [pre[i] for i in dual_idx] + [tangents[i] for i in dual_idx]
    try:
        return _first_run(make, inputs, len(dual_idx), None, range(len(dual_idx)))
    except _NEEDS_VALUES as e:
        name = getattr(func, "__name__", repr(func))
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has "
            "not been implemented yet.\nIn torchlike, its tangent would need the values "
            f"of a dual input while jax.jvp traces it ({type(e).__name__}).") from None


def _run_entry(entry, inputs: list) -> list:
    from ..func._jaxcall import run_pure
    fn, kinds = entry
    with _set_fwd_grad_enabled(False):
        outs = run_pure(fn, inputs, is_grad_enabled())
    return [o if k else None for o, k in zip(outs, kinds)]


def _first_run(make, inputs: list, n_prim: int, key, dual) -> list:
    """Trace the pure function ``make(by_vjp)`` (compiled and cached under ``key``, or
    evaluated from its jaxpr when ``key`` is None; ``n_prim`` primal inputs, the dual
    ones at the positions ``dual``) and run it; a kernel JAX's forward mode cannot
    differentiate (``jax.custom_vjp``, found when JAX lowers the call) makes it run
    again by ``jvp_by_vjp``."""
    arrays = [t._value for t in inputs]
    k = len(inputs) - n_prim
    prim_mask = [False] * (n_prim + k)
    for i in dual:
        prim_mask[i] = True
    tan_mask = [False] * n_prim + [True] * k
    for by_vjp in (False, True):
        pure = make(by_vjp)
        closed = jax.make_jaxpr(pure)(*arrays)
        entry = (jex.jaxpr_as_fun(closed) if key is None else jax.jit(pure),
                 _tangent_kinds(closed, prim_mask, tan_mask))
        try:
            res = _run_entry(entry, inputs)
        except TypeError as e:
            if by_vjp or "custom_vjp" not in str(e):
                raise
            continue
        if key is not None:
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            _CACHE[key] = entry
        return res


class _DualTensor(Tensor):
    """A tensor carrying a forward-AD tangent (see the module docstring)."""

    _plain_cls = Tensor

    def __repr__(self, *, tensor_contents=None) -> str:
        from .._core.printing import _add_suffixes, tensor_repr
        plain = object.__new__(Tensor)
        for k in Tensor.__slots__:
            if k not in ("__dict__", "__weakref__") and hasattr(self, k):
                setattr(plain, k, getattr(self, k))
        s = tensor_repr(plain, tensor_contents=tensor_contents)
        if self._plain_cls is not Tensor and self._plain_cls.__name__ == "Parameter":
            s = "Parameter containing:\n" + s
        T = _tangent(self) if _active() else None
        if T is None:
            return s
        return _add_suffixes(s[:-1], [f"tangent={T!r}"], len("tensor("), False)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        """A copy is a plain tensor, without the tangent, as in PyTorch."""
        new = Tensor.__deepcopy__(self, memo)
        if isinstance(new, _DualTensor):
            new.__dict__.pop("_fw_tangent", None)
            new.__class__ = new._plain_cls
        return new

    def __reduce_ex__(self, protocol):
        """Pickled as the plain tensor (tangents are not saved, as in PyTorch)."""
        fn, args = Tensor.__reduce_ex__(self, protocol)
        state = {k: v for k, v in args[3].items() if k != "_fw_tangent"}
        return fn, (self._plain_cls, args[1], args[2], state, *args[4:])

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if not _active():
            with DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        leaves: list = []
        template, key = _split((args, kwargs), leaves)
        tangents = [_tangent(t) for t in leaves]
        dual_idx = [i for i, T in enumerate(tangents) if T is not None]
        if not dual_idx:
            with DisableTorchFunctionSubclass():
                return func(*args, **kwargs)
        before = [(t._vc.v, t._shape, t._stride, t._offset) for t in leaves]
        pre_values = [t._value for t in leaves]
        gen = default_generator
        gen_before = gen._key, gen._counter
        with DisableTorchFunctionSubclass():
            out = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name in _NO_TANGENT:
            if name == "detach_" and isinstance(out, _DualTensor):
                out.__dict__.pop("_fw_tangent", None)
            return out
        random = gen._key is not gen_before[0] or gen._counter != gen_before[1]

        # in-place writes: per version counter, the leaf written (self, else out=)
        written = []
        seen_vc = set()
        out_kw = kwargs.get("out")
        for i, (t, b) in enumerate(zip(leaves, before)):
            if t._vc.v != b[0] and id(t._vc) not in seen_vc and _is_float(t):
                group = [j for j, u in enumerate(leaves) if u._vc is t._vc]
                pick = next((j for j in group if leaves[j] is (args[0] if args else None)),
                            next((j for j in group if leaves[j] is out_kw), i))
                seen_vc.add(id(t._vc))
                written.append(pick)
            elif (t._shape, t._stride, t._offset) != b[1:] and tangents[i] is not None:
                # an in-place view op (t_, unsqueeze_...): the same op on the tangent
                T = tangents[i]
                repl = [T if j == i else u for j, u in enumerate(leaves)]
                a2, k2 = _fill(template, repl)
                with DisableTorchFunctionSubclass(), _set_fwd_grad_enabled(False):
                    func(*a2, **k2)
                if T._shape != t._shape:
                    t.__dict__.pop("_fw_tangent", None)

        need_out = []
        flat = _flat_out(out)
        written_ids = {id(leaves[i]) for i in written}
        for j, o in enumerate(flat):
            if not _is_float(o) or id(o) in written_ids:
                continue
            if any(o is t for t in leaves):
                continue   # an input returned as it is keeps its tangent
            src = next((i for i in dual_idx if leaves[i]._storage is o._storage), None)
            if src is not None:
                T = tangents[src]
                if (o.dtype is leaves[src].dtype and T.dtype is o.dtype
                        and _is_parallel(leaves[src], T)):
                    _attach(o, _over(T._storage, o, T))
                    continue
            elif any(t._storage is o._storage for t in leaves):
                continue   # a view of an input without tangent
            need_out.append(j)
        if not need_out and not written:
            return out

        pre = [t if t._vc.v == b[0] else Tensor._wrap(v)
               for t, b, v in zip(leaves, before, pre_values)]
        res = _compute_tangents(func, template,
                                None if random else (func, key, _state_key(),
                                                     tuple(dual_idx)),
                                leaves, pre, tangents, dual_idx, need_out, written,
                                gen_before if random else None)
        for j, T in zip(need_out, res):
            if T is not None:
                _attach(flat[j], _parallel_from(flat[j], T))
        for i, T in zip(written, res[len(need_out):]):
            _write_tangent(leaves[i], T)
        return out


def _state_key():
    return _dt.get_default_dtype(), _autocast._state.token


# ---------------------------------------------------------------------------
# custom Functions

def _apply_function(cls, args: tuple):
    """``Function.apply`` while a level is open: with dual inputs, the forward runs on
    the primals with forward AD off, then ``cls.jvp(ctx, *tangents)`` gives the
    outputs' tangents (PyTorch's custom Function forward AD). ``ctx.saved_tensors``
    inside ``jvp`` are the tensors given to ``ctx.save_for_forward``."""
    from ..func._jaxcall import JaxCall
    tangents = [_tangent(a) if isinstance(a, Tensor) else None for a in args]
    if not _fw.enabled or cls is JaxCall or all(T is None for T in tangents):
        return _function._apply_eager(cls, args)
    for k, (a, T) in enumerate(zip(args, tangents)):
        if T is None and isinstance(a, Tensor) and _is_float(a):
            tangents[k] = Tensor._wrap(jnp.zeros(a._shape, a.dtype.np))
    box = []

    def forward(ctx):
        box.append(ctx)
        with _set_fwd_grad_enabled(False):
            return _function._run_forward(cls, ctx, args)

    out = _function._apply_eager(cls, args, forward_outputs=forward)
    ctx = box[0]
    saved = ctx._saved, ctx._saved_versions, ctx.to_save, getattr(ctx, "_packed", None)
    ctx._saved, ctx._saved_versions, ctx._packed = None, [], None
    ctx.to_save = tuple(getattr(ctx, "saved_for_forward", ()))
    try:
        with _set_fwd_grad_enabled(False):
            res = cls.jvp(ctx, *tangents)
    finally:
        ctx._saved, ctx._saved_versions, ctx.to_save, ctx._packed = saved
    outs = out if isinstance(out, tuple) else (out,)
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(res)})")
    for o, g in zip(outs, res):
        if not isinstance(o, Tensor) or g is None or not _is_float(o):
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"function {cls.__name__}Backward returned a forward gradient of "
                            f"type {type(g).__name__}, expected a Tensor or None")
        if g._shape != o._shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of "
                f"the original Tensor, this is not supported. Tensor is of size "
                f"{list(o.shape)} while the given forward gradient is of size "
                f"{list(g.shape)}.")
        if any(o is a for a in args):
            _write_tangent(o, g)
        else:
            _attach(o, _parallel_from(o, g))
    return out


def _open_level(level: int) -> None:
    _open[0] = level
    _function._dual_apply = _apply_function
    _bind.inplace_tangent = _inplace_hook


def _close_level() -> None:
    """Drop every tangent of the level, the tensors getting their classes back."""
    _open[0] = -1
    _function._dual_apply = None
    _bind.inplace_tangent = None
    for ref in _live:
        t = ref()
        if t is not None and isinstance(t, _DualTensor):
            t.__dict__.pop("_fw_tangent", None)
            t.__class__ = t._plain_cls
    _live.clear()
