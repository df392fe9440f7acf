"""The dispatcher: unwrap → __torch_function__ → promote → check → compute → record → wrap.

Every op in the table runs through ``dispatch``; op bodies never deal with dtype
promotion, views, version counters or autograd.

# Note [Cached executables]
# An op's pure function is wrapped once in ``jax.jit`` with its static parameters (and
# the dtypes to cast inputs to) as static arguments, so JAX's C++ dispatch path caches
# one executable per (op, static args, shapes, dtypes). A result that needs grad comes
# from the same executable; its backward (autograd/graph.py) is one more cached jit of
# ``jax.vjp`` over the same runner, per op, static args and shapes.
"""

from __future__ import annotations

import builtins
import contextlib
import inspect
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.grad_mode import _state as _grad_state
from .._core.tensor import Tensor
from .spec import OPS, OpSpec

__all__ = ["dispatch", "call_op", "prepare", "DisableTorchFunctionSubclass",
           "concretization_error", "handle_torch_function"]

_np_inexact = (np.floating, np.complexfloating)


# ---------------------------------------------------------------------------
# __torch_function__
class _TFState(threading.local):
    def __init__(self):
        self.disabled_subclass = False
        self.disabled_all = False


_tf_state = _TFState()


class DisableTorchFunctionSubclass(contextlib.ContextDecorator):
    """Mirrors ``torch._C.DisableTorchFunctionSubclass``."""

    def __enter__(self):
        self.prev = _tf_state.disabled_subclass
        _tf_state.disabled_subclass = True

    def __exit__(self, *exc):
        _tf_state.disabled_subclass = self.prev


class DisableTorchFunction(contextlib.ContextDecorator):
    def __enter__(self):
        self.prev = _tf_state.disabled_all
        _tf_state.disabled_all = True

    def __exit__(self, *exc):
        _tf_state.disabled_all = self.prev


def _is_overloaded(x) -> bool:
    t = type(x)
    if t is Tensor:
        return False
    if isinstance(x, Tensor):
        return (not _tf_state.disabled_subclass and
                getattr(t, "__torch_function__", None) is not _DEFAULT_TF and
                t.__torch_function__ is not _DISABLED_TF)
    tf = getattr(t, "__torch_function__", None)
    return tf is not None and not isinstance(x, type)


def _overloaded_args(values) -> list:
    found = []
    for v in values:
        if isinstance(v, (list, tuple)):
            for w in v:
                if _is_overloaded(w) and type(w) not in [type(f) for f in found]:
                    found.append(w)
        elif _is_overloaded(v) and type(v) not in [type(f) for f in found]:
            found.append(v)
    # subclasses before their parents, as PyTorch orders them
    ordered = []
    for a in found:
        idx = len(ordered)
        for i, b in enumerate(ordered):
            if issubclass(type(a), type(b)):
                idx = i
                break
        ordered.insert(idx, a)
    return ordered


def handle_torch_function(public_api, relevant, args, kwargs):
    """Mirrors ``torch.overrides.handle_torch_function``."""
    types = tuple(type(a) for a in relevant)
    for a in relevant:
        tf = type(a).__torch_function__
        if not isinstance(a, Tensor) and not hasattr(tf, "__self__"):
            # duck types often define it as a plain function taking cls first
            res = tf(type(a), public_api, types, args, kwargs)
        else:
            res = tf(public_api, types, args, kwargs)
        if res is not NotImplemented:
            return res
    names = ", ".join(f"'{t.__module__}.{t.__name__}'" if t.__module__ != "__main__"
                      else f"'{t.__name__}'" for t in types)
    raise TypeError(f"no implementation found for '{_api_name(public_api)}' on types that "
                    f"implement __torch_function__: [{names}]")


def _api_name(api) -> str:
    q = getattr(api, "__qualname__", getattr(api, "__name__", repr(api)))
    if q.startswith("Tensor."):
        return "torchlike.Tensor." + q[len("Tensor."):]
    return "torchlike." + q


def _convert_subclass(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        new = object.__new__(cls)
        for k in Tensor.__slots__:
            if k in ("__dict__", "__weakref__"):
                continue
            try:
                setattr(new, k, getattr(ret, k))
            except AttributeError:
                pass
        if ret.grad_fn is not None:
            ret.grad_fn._retarget(ret, new)
        return new
    if isinstance(ret, (tuple, list)) and not hasattr(ret, "_fields"):
        return type(ret)(_convert_subclass(r, cls) for r in ret)
    if hasattr(ret, "_fields"):
        return type(ret)(*(_convert_subclass(r, cls) for r in ret))
    return ret


_DEFAULT_TF = Tensor.__dict__["__torch_function__"].__func__


def _disabled_tf(cls, func, types, args=(), kwargs=None):
    """Like ``torch._C._disabled_torch_function_impl``: results stay plain Tensors."""
    if kwargs is None:
        kwargs = {}
    with DisableTorchFunctionSubclass():
        return func(*args, **kwargs)


_DISABLED_TF = classmethod(_disabled_tf)


# ---------------------------------------------------------------------------
# preparation of a spec
def prepare(spec: OpSpec) -> None:
    src = f"def _sig({spec.signature}): pass\n"
    ns: dict = {}
    exec(src, {}, ns)  # parse the signature exactly as Python does (defaults may hold commas)
    names = tuple(inspect.signature(ns["_sig"]).parameters)
    spec.params = names
    missing = [t for t in spec.tensor_args if t not in names]
    if missing:
        raise ValueError(f"{spec.name}: tensor_args {missing} not in signature")
    spec.tensor_pos = tuple(names.index(t) for t in spec.tensor_args)
    spec.static_pos = tuple(i for i in range(len(names)) if i not in spec.tensor_pos)
    spec.extra["cast_cache"] = {}
    src = f"def _bind({spec.signature}):\n    return ({', '.join(names)},)\n"
    ns: dict = {}
    exec(src, {}, ns)  # a real Python signature: PyTorch-like TypeErrors for bad calls
    binder = ns["_bind"]
    binder.__name__ = spec.name
    binder.__qualname__ = spec.name
    spec.binder = binder
    promote_args = spec.promote_args if spec.promote_args is not None else spec.tensor_args
    spec.extra["promote_idx"] = tuple(spec.tensor_args.index(a) for a in promote_args)
    runner = _make_runner(spec)
    spec.extra["runner"] = runner
    spec.jitted = jax.jit(runner, static_argnums=(0, 1))


def _cast(v, c):
    if c is None or v is None:
        return v
    if isinstance(v, (list, tuple)):
        return [_cast(x, c) for x in v]
    return jnp.asarray(v, dtype=c.np)


def _make_runner(spec):
    tpos = spec.tensor_pos
    spos = spec.static_pos
    n = len(spec.params)
    fn = spec.fn

    def runner(statics, cast, *dyn):
        full = [None] * n
        for p, v in zip(spos, statics):
            full[p] = v
        for p, v, c in zip(tpos, dyn, cast):
            full[p] = _cast(v, c)
        return fn(*full)
    runner.__name__ = spec.name
    return runner


def diff_primals(dyn, mask) -> list:
    """The leaves of ``dyn`` selected by ``mask`` (True / False / nested tuples)."""
    out = []
    for d, m in zip(dyn, mask):
        if m is True:
            out.append(d)
        elif isinstance(m, tuple):
            out.extend(diff_primals(d, m))
    return out


def refill(dyn, mask, it) -> list:
    """``dyn`` with the leaves selected by ``mask`` replaced from iterator ``it``."""
    full = []
    for d, m in zip(dyn, mask):
        if m is True:
            full.append(next(it))
        elif isinstance(m, tuple):
            full.append(refill(d, m, it))
        else:
            full.append(d)
    return full


# ---------------------------------------------------------------------------
# promotion
def _meta(v):
    """(dtype, ndim, is_wrapped_scalar) of a tensor-like argument, or None."""
    if isinstance(v, Tensor):
        return (v.dtype, len(v._shape), False)
    if v is None:
        return None
    if isinstance(v, (bool, int, float, complex, np.number, np.bool_)):
        return (_dt.scalar_dtype(v), 0, True)
    if isinstance(v, np.ndarray):
        return (_dt.from_np(v.dtype), v.ndim, False)
    if isinstance(v, (list, tuple)):
        return None
    raise TypeError(f"expected Tensor or Number, but got {type(v).__name__}")


def _cast_key(dyn_vals):
    key = [_dt._default[0]]  # Python floats follow the default dtype
    for v in dyn_vals:
        if isinstance(v, Tensor):
            key.append((v._storage.dtype, not v._shape))
        elif isinstance(v, (list, tuple)):
            return None
        elif isinstance(v, np.ndarray):
            key.append((v.dtype, v.ndim == 0, "ndarray"))
        else:
            key.append(type(v))
    return tuple(key)


def compute_cast(spec: OpSpec, dyn_vals, vals=()) -> tuple:
    """Per tensor argument: the torchlike dtype it is cast to (or None); and the target.

    Cached per op on the arguments' (dtype, is-0-d) / Python-scalar types, except when a
    dtype adjustment depends on other arguments."""
    mode = spec.promote
    n = len(dyn_vals)
    if mode == "none":
        return (None,) * n, None
    cacheable = "adjust_dtype" not in spec.extra
    if cacheable:
        key = _cast_key(dyn_vals)
        if key is not None:
            hit = spec.extra["cast_cache"].get(key)
            if hit is None:
                hit = spec.extra["cast_cache"][key] = _compute_cast(spec, dyn_vals, vals)
            return hit
    return _compute_cast(spec, dyn_vals, vals)


def _compute_cast(spec: OpSpec, dyn_vals, vals) -> tuple:
    mode = spec.promote
    n = len(dyn_vals)
    idx = spec.extra["promote_idx"]
    if mode == "self":
        target = dyn_vals[idx[0]].dtype
    else:
        metas = []
        for i in idx:
            v = dyn_vals[i]
            if isinstance(v, (list, tuple)):
                metas.extend(_meta(w) for w in v)
            else:
                metas.append(_meta(v))
        metas = [m for m in metas if m is not None]
        if not metas:
            return (None,) * n, None
        target = _dt.result_type_of(metas)
        if mode == "float" and not (target.is_floating_point or target.is_complex):
            target = _dt.get_default_dtype()
    adjust = spec.extra.get("adjust_dtype")
    if adjust is not None:
        target = adjust(target, vals)
    cast = tuple(target if i in idx else None for i in range(n))
    return cast, target


# ---------------------------------------------------------------------------
# the dispatcher
def _unwrap(v):
    if isinstance(v, Tensor):
        return v._value
    if isinstance(v, (list, tuple)):
        return [_unwrap(w) for w in v]
    return v


def _freeze(v):
    """A hashable static value: lists and tuples recursively, 0-d int tensors as ints."""
    if v is None or type(v) in (int, float, bool, str):
        return v
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, Tensor):
        if v.dim() == 0 and not (v.dtype.is_floating_point or v.dtype.is_complex):
            return int(v.item())
        raise TypeError("a Tensor was passed where a Python value was expected")
    if isinstance(v, np.ndarray):
        return tuple(v.tolist())
    return v


def _any_requires_grad(values) -> bool:
    for v in values:
        if isinstance(v, Tensor):
            if v._requires_grad:
                return True
        elif isinstance(v, (list, tuple)) and _any_requires_grad(v):
            return True
    return False


def dispatch(spec: OpSpec, api, args, kwargs):
    vals = spec.binder(*args, **kwargs)
    tpos = spec.tensor_pos
    if not _tf_state.disabled_all:
        for p in tpos:
            v = vals[p]
            if type(v) is not Tensor and not isinstance(v, (int, float, type(None))):
                relevant = _overloaded_args([vals[q] for q in tpos])
                if relevant:
                    return handle_torch_function(api, relevant, args, kwargs)
                break
    dyn_t = [vals[p] for p in tpos]
    if spec.check is not None:
        spec.check(*vals)
    cast, _ = compute_cast(spec, dyn_t, vals)
    statics = tuple([_freeze(vals[i]) for i in spec.static_pos])
    dyn = [v._value if type(v) is Tensor else _unwrap(v) for v in dyn_t]

    needs_grad = spec.differentiable and _grad_state.enabled and _any_requires_grad(dyn_t)
    if needs_grad:
        from ..autograd.graph import record_op
        return record_op(spec, vals, statics, cast, dyn_t, dyn)
    out = spec.jitted(statics, cast, *dyn)
    return wrap_outputs(spec, vals, out)


def wrap_outputs(spec: OpSpec, vals, out):
    if spec.view is not None:
        meta = spec.view(*vals)
        if meta is not None:
            base = vals[spec.tensor_pos[0]]
            if isinstance(meta, list):
                return tuple(base._make_view(o, *m) for o, m in zip(out, meta))
            return base._make_view(out, *meta)
    if isinstance(out, (tuple, list)):
        res = tuple(Tensor._wrap(o) for o in out)
        if spec.out_names is not None:
            return _namedtuple(spec)(*res)
        return res
    return Tensor._wrap(out)


_NT_CACHE: dict = {}


def _namedtuple(spec):
    nt = _NT_CACHE.get(spec.name)
    if nt is None:
        from ..return_types import make
        nt = _NT_CACHE[spec.name] = make(spec.name, spec.out_names)
    return nt


def call_op(name: str, *args, **kwargs):
    """Run a table op by name (for library code that is not user-facing)."""
    spec = OPS[name]
    return dispatch(spec, spec.api, args, kwargs)


# ---------------------------------------------------------------------------
# errors
class TracedValueError(RuntimeError):
    pass


_PKG_DIR = __file__.rsplit("/_ops/", 1)[0] + "/"


def concretization_error() -> RuntimeError:
    """The error for Python code that needs a tensor's value while it is being traced."""
    frame = sys._getframe(1)
    where = ""
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_PKG_DIR):
            where = f" (at {frame.f_code.co_filename}:{frame.f_lineno})"
            break
        frame = frame.f_back
    return TracedValueError(
        "a tensor's value was needed in Python while the function is being traced for "
        f"compilation{where}: .item(), .tolist(), bool(), int() or `if tensor:` cannot run "
        "on traced values. Express the branch with torchlike.where(cond, a, b), or do it "
        "outside the compiled function.")


_ = (builtins, _np_inexact)
