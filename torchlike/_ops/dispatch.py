"""The dispatcher: unwrap → __torch_function__ → promote → check → compute → record → wrap.

Every op in the table runs through ``dispatch``; op bodies never deal with dtype
promotion, views, version counters or autograd.

# Note [Cached executables]
# An op's pure function is wrapped once in ``jax.jit`` with its static parameters (and
# the dtypes to cast inputs to) as static arguments, so JAX's C++ dispatch path caches
# one executable per (op, static args, shapes, dtypes). A result that needs grad comes
# from the same executable; its backward (autograd/graph.py) is one more cached jit of
# ``jax.vjp`` over the same runner, per op, static args and shapes.
#
# Note [Eager fast path]
# Most calls are plain: every tensor argument is a ``Tensor`` (or a subclass whose
# ``__torch_function__`` is disabled, like ``Parameter``), the others are Python
# numbers or None. For those, each op's generated ``run`` (Note [Generated dispatch
# functions]) does in one pass what the general path (``_dispatch_general``) does in
# several: it binds positional calls by appending the precomputed defaults (no binder
# call), collects the JAX arrays, whether any input requires grad and the promotion
# key (dtype and 0-d-ness per promoted tensor, type per number), runs the op's eager
# check, looks up the cast and executable per (op, key, static values) (Note [One
# executable per cast]), and builds result tensors without the generic constructor's
# layers (``_tensor_of``). Anything else (a subclass with its own
# ``__torch_function__``, lists of tensors, NumPy values, tracers passed as numbers)
# takes the general path at the first such argument, before anything ran, and gets
# the same results. The only reordering: a view's value is gathered before the check
# runs (a pure read). Nothing is keyed on values except the scalar table below and the
# choice of executable for a neutral ``alpha`` (Note [Neutral scalar arguments]), which
# only a Python number takes, so traced values (``torchlike.compile``) run through the
# fast path unchanged. An op's ``adjust_dtype(target, vals)`` may read only static
# values: they are part of the key its cast is cached under.
"""

from __future__ import annotations

import builtins
import contextlib
import inspect

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core import storage as _storage_mod
from .._core import xla
from .._core.grad_mode import _state as _grad_state
from .._core.grad_mode import inference_used as _inference_used
from .._core.storage import InferenceStorage as _InferenceStorage
from .._core.storage import Storage, VersionCounter
from .._core.tensor import Tensor
from .scalars import SCALARS, device_scalar
from .spec import OPS, OpSpec, Scalar
from .torch_function import (_NO_MODE, _modes, _overloaded_args, _tf_disabled, _tf_state,
                             _via_mode, handle_torch_function)

__all__ = ["dispatch", "call_op", "prepare"]

_np_inexact = (np.floating, np.complexfloating)




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
    spec.extra["plan"] = plan = _Plan(spec)
    spec.jitted = plan.jitted


class _Plan:
    """What the fast path needs of an op, computed once (Note [Eager fast path]).

    ``run(api, args, kwargs)`` dispatches a call; it is generated for the op's layout
    (``_fast_source``). ``tails[n]``: the default values completing a call with ``n``
    positional arguments (None when the signature has ``*args``/``**kwargs``);
    ``binder``: the binder the tails were derived from (ops that later install their
    own binder, for PyTorch's overloads, bypass the tails); ``entries``: promotion key
    and static values -> ``(cast, executable, executable without the neutral
    arguments or None)``; ``exes``: (statics, cast, skipped positions) -> executable
    (Note [One executable per cast]); ``neutral``: positions among the tensor
    arguments and neutral values of the op's ``neutral`` parameters; ``jitted``:
    ``spec.jitted``, the call ``(statics, cast, *dyn)`` on the same executables."""

    __slots__ = ("spec", "binder", "tails", "entries", "exes", "neutral", "run", "jitted")

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.binder = spec.binder
        self.tails = _default_tails(spec.binder)
        self.entries: dict = {}
        self.exes: dict = {}
        neutral = spec.neutral or {}
        self.neutral = tuple((spec.tensor_args.index(k), v) for k, v in neutral.items())
        self.run = _make_fast(self)
        self.jitted = _make_jitted(self)


# Note [One executable per cast]
# ``jax.jit(runner, static_argnums=(0, 1))`` would serve every call of an op, but JAX's
# C++ dispatch then hashes and compares the static values and the cast tuple on every
# call, and each argument costs time. Instead each (op, static values, cast) gets its
# own ``jax.jit`` of the runner with those bound, so a call passes only arrays: the fast
# path finds it in ``_Plan.entries`` with the cast itself, under the promotion key it
# already built, and hands the same one to ``record_op`` when the call is recorded;
# ``spec.jitted(statics, cast, *dyn)`` (the general path) finds the same executables in
# ``_Plan.exes`` (one compilation per op, static values, cast, shapes and dtypes).
# Static values are keyed by equality, as ``static_argnums`` keys a tuple of them. Both
# tables are bounded (``_EXES_MAX``), like JAX's own cache.
#
# Note [Neutral scalar arguments]
# ``alpha`` of ``add``/``sub`` is a dynamic argument (a new value must not compile a new
# executable) that is nearly always the default 1. A call with the neutral value runs an
# executable compiled without that argument (``fn`` receives None), saving a transfer
# and an argument per call; the result is bit-identical because ``other * 1`` is exact
# in every real dtype (so ``input + other * alpha`` rounds once, fused or not). That
# does not hold everywhere a 1 multiplies: ``addcmul``'s ``input + t1 * t2 * 1`` could
# become one fused multiply-add without the 1, so it declares no neutral value. Complex
# results keep the argument: PyTorch computes ``alpha * other`` and ``(1+0j) * (inf+0j)``
# is ``inf+nanj``, not ``inf+0j``. Only the exact Python type of the neutral value
# counts (``alpha=True`` or ``1.0`` pass the value as before).
_EXES_MAX = 4096


def _executable(plan: _Plan, statics: tuple, cast: tuple, skip: tuple = ()):
    """The jitted runner of ``plan``'s op for ``statics`` and ``cast``, taking the
    dynamic arguments except those at positions ``skip`` (which ``fn`` sees as None)."""
    exes = plan.exes
    key = (statics, cast, skip)
    exe = exes.get(key)
    if exe is not None:
        return exe
    spec = plan.spec
    runner = spec.extra["runner"]
    if skip:
        def op(*dyn):
            full = list(dyn)
            for i in skip:
                full.insert(i, None)
            return runner(statics, cast, *full)
    else:
        def op(*dyn):
            return runner(statics, cast, *dyn)
    op.__name__ = op.__qualname__ = spec.name
    if len(exes) >= _EXES_MAX:
        exes.clear()
        plan.entries.clear()
    exe = exes[key] = xla.jit(op, convolutions=spec.convolution)
    return exe


def _make_jitted(plan: _Plan):
    exes = plan.exes

    def jitted(statics, cast, *dyn):
        try:
            exe = exes.get((statics, cast, ()))
        except TypeError:   # an unhashable static value: JAX raises its own error
            return xla.jit(plan.spec.extra["runner"], convolutions=plan.spec.convolution,
                           static_argnums=(0, 1))(
                statics, cast, *dyn)
        if exe is None:
            exe = _executable(plan, statics, cast)
        return exe(*dyn)
    jitted.__name__ = jitted.__qualname__ = plan.spec.name
    return jitted


def _new_entry(plan: _Plan, key: tuple, dyn_t: list, vals, statics: tuple) -> tuple:
    """The fast path's ``(cast, executable, neutral executable)`` for a new key."""
    spec = plan.spec
    if spec.promote == "none":
        cast = (None,) * len(spec.tensor_pos)
    else:
        cast = _compute_cast(spec, dyn_t, vals)[0]
    exe = _executable(plan, statics, cast)
    fast = None
    if plan.neutral and spec.promote != "none" and not any(
            c is not None and c.is_complex for c in cast):
        fast = _executable(plan, statics, cast, tuple(i for i, _ in plan.neutral))
    ent = plan.entries[key] = (cast, exe, fast)
    return ent


def _default_tails(binder) -> dict | None:
    params = list(inspect.signature(binder).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    kwonly = [p for p in params if p.kind is p.KEYWORD_ONLY]
    if any(p.default is p.empty for p in kwonly):
        return None
    kw = tuple(p.default for p in kwonly)
    tails = {}
    for n in range(len(pos) + 1):
        rest = pos[n:]
        if all(p.default is not p.empty for p in rest):
            tails[n] = tuple(p.default for p in rest) + kw
    return tails


def _plan_of(spec: OpSpec) -> _Plan:
    plan = spec.extra.get("plan")
    if plan is None:
        if spec.binder is None:
            prepare(spec)
        plan = spec.extra["plan"] = _Plan(spec)
    return plan


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
    scalars = frozenset(spec.params.index(k) for k in spec.scalars)
    zero_dim = spec.zero_dim_scalars

    def runner(statics, cast, *dyn):
        full = [None] * n
        for p, v in zip(spos, statics):
            full[p] = v
        for p, v, c in zip(tpos, dyn, cast):
            full[p] = _cast(v, c)
            if p in scalars and v is not None and (_is_number(v) or
                                                   zero_dim and jnp.ndim(v) == 0):
                # Note [Scalar overloads]
                full[p] = Scalar(full[p], v)
        return fn(*full)
    runner.__name__ = spec.name
    return runner


def _is_number(v) -> bool:
    """Whether a dynamic argument came from a Python number: the number itself, or its
    device scalar (a weakly typed 0-d array, concrete or traced)."""
    if type(v) in (int, float, bool, complex):
        return True
    if not isinstance(v, jax.Array):   # (tracers are jax.Arrays too)
        return False
    aval = jax.typeof(v)
    return aval.weak_type and not aval.shape


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


def dispatch(spec: OpSpec, api, args: tuple, kwargs: dict):
    """Run table op ``spec`` for the call ``api(*args, **kwargs)``.

    ``api`` is the public function or method called (what ``__torch_function__``
    overrides receive). Returns the wrapped result, with a ``grad_fn`` when autograd
    records the op."""
    return _plan_of(spec).run(api, args, kwargs)


# Note [Generated dispatch functions]
# The fast path is Python code specialised per op layout (how positional calls bind,
# which parameters are tensors and which static, whether the op promotes, how outputs
# are wrapped):
# straight-line code per argument, with the cast tuple, executable and wrapping chosen
# once, runs about twice as fast as a loop over the arguments. ``_fast_source`` writes
# that code; it is compiled once per layout and bound to each op's constants. Per
# tensor argument ``i``: ``v{i}`` the value, ``d{i}`` what the executable receives,
# ``k{i}``/``z{i}`` its promotion key (dtype and 0-d-ness, or the number's type),
# ``g{i}`` whether it requires grad, ``t{i}`` its type.
_ARG_SOURCE = """
{I}t{i} = type({a})
{I}if t{i} is Tensor:
{I}    st = {a}._storage
{I}    d{i} = st.array if {a}._direct else {a}._value{kt}
{I}    g{i} = {a}._requires_grad
{I}elif t{i} is float or t{i} is int or t{i} is bool or t{i} is complex:
{I}    d{i} = _SCALARS[t{i}].get({a})
{I}    if d{i} is None:
{I}        {miss}{kn}
{I}    g{i} = False
{I}elif {a} is None:
{I}    d{i} = None{k0}
{I}    g{i} = False
{I}elif isinstance({a}, Tensor) and (_tf_disabled(t{i}) or _tf_state.disabled_subclass or
{I}                                  _tf_state.disabled_all):
{I}    st = {a}._storage
{I}    d{i} = {a}._value{kt}
{I}    g{i} = {a}._requires_grad
{I}else:
{I}    return {fb}"""


def arg_code(i: int, a: str, keyed: bool, indent: int, miss: str, fb: str) -> str:
    """The code that reads tensor argument ``i`` from the variable ``a`` (Note [Generated
    dispatch functions]), at ``indent`` spaces; ``keyed``: it is part of the promotion
    key; ``miss``: the statement for a number with no cached device scalar; ``fb``: the
    call returned for an argument of any other kind. Note [Plain calls] (entries.py)
    uses it too."""
    I = " " * indent
    kt = kn = k0 = ""
    if keyed:
        ind = "\n" + I + "    "
        kt = f"{ind}k{i} = st.dtype{ind}z{i} = not {a}._shape"
        kn = f"{ind}k{i} = t{i}{ind}z{i} = False"
        k0 = f"{ind}k{i} = None{ind}z{i} = False"
    return _ARG_SOURCE.format(I=I, i=i, a=a, kt=kt, kn=kn, k0=k0, miss=miss, fb=fb)


def _arg_source(i: int, p: int, keyed: bool) -> str:
    """The fast path's code for tensor argument ``i`` (parameter ``p``)."""
    return f"\n    v{i} = vals[{p}]" + arg_code(
        i, f"v{i}", keyed, 4, f"d{i} = _device_scalar(v{i}, t{i})",
        "_dispatch_general(spec, api, args, kwargs, vals)")


def wrap_code(indent: int) -> list:
    """The lines that return the result tensors of ``out``, an op's plain outputs."""
    I = " " * indent
    return [f"{I}if type(out) is _Array:",
            f"{I}    return _tensor_of(out)",
            f"{I}if isinstance(out, (tuple, list)):",
            f"{I}    return tuple([_tensor_of(o) for o in out])",
            f"{I}return _tensor_of_other(out)"]


_STATIC_SOURCE = """
    s = vals[{p}]
    s{p} = s if type(s) in _PLAIN_STATIC else _freeze(s)"""

_PLAIN_STATIC = frozenset({int, float, bool, str, type(None)})
_FAST_CODE: dict = {}   # layout -> compiled module code defining ``run``


def _fast_source(complete: int, tpos: tuple, spos: tuple, promoted: tuple,
                 plain_out: bool, has_tails: bool, neutral: tuple) -> str:
    """``complete``: the number of positional arguments that bind every parameter (-1
    when keyword-only parameters always take their defaults from ``tails``);
    ``promoted``: positions among the tensor arguments that decide the cast (empty when
    the op does not promote); ``neutral``: those of the op's neutral parameters (their
    values are ``nv{i}`` in the namespace)."""
    n = len(tpos)
    dts = ", ".join(f"v{i}" for i in range(n))
    # a mode on this thread's stack takes the call first (Note [Torch function modes])
    lines = ["def run(api, args, kwargs):",
             "    if _modes.on:",
             "        res = _via_mode(api, args, kwargs)",
             "        if res is not _NO_MODE:",
             "            return res"]
    if has_tails:
        lines += [
            "    if kwargs or type(args) is not tuple or spec.binder is not binder:",
            "        vals = spec.binder(*args, **kwargs)",
        ]
        if complete >= 0:
            lines += [f"    elif len(args) == {complete}:",
                      "        vals = args"]
        lines += [
            "    else:",
            "        tail = tails.get(len(args))",
            "        vals = spec.binder(*args) if tail is None else args + tail",
        ]
    else:   # ``*args`` in the signature: the binder packs them
        lines.append("    vals = spec.binder(*args, **kwargs)")
    lines += [_arg_source(i, p, i in promoted) for i, p in enumerate(tpos)]
    lines += ["    check = spec.check",
              "    if check is not None:",
              "        check(*vals)"]
    lines += [_STATIC_SOURCE.format(p=p) for p in spos]
    statics = f"({''.join(f's{p}, ' for p in spos)})"
    # the entry key: the promotion key (dtype and 0-d-ness per promoted tensor, type per
    # number, the default dtype), then the static values
    key = "".join(f"k{i}, z{i}, " for i in promoted) + "_default[0], " if promoted else ""
    key += "".join(f"s{p}, " for p in spos)
    lines.append(f"    key = ({key})")
    if spos:   # an unhashable static value: the general path raises JAX's error
        lines += ["    try:",
                  "        ent = entries.get(key)",
                  "    except TypeError:",
                  "        return _dispatch_general(spec, api, args, kwargs, vals)"]
    else:
        lines.append("    ent = entries.get(key)")
    lines += ["    if ent is None:",
              f"        ent = _new_entry(plan, key, [{dts}], vals, {statics})"]
    grad = " or ".join(f"g{i}" for i in range(n)) or "False"
    dyn = ", ".join(f"d{i}" for i in range(n))
    # a recorded op runs the executable chosen here too (Note [Cost of recording])
    record = f"_record(spec, vals, {statics}, ent[0], [{dts}], [{dyn}]"
    lines.append(f"    if ({grad}) and spec.differentiable and _grad_state.enabled:")
    if neutral:
        cond = " and ".join(f"type(v{i}) is nt{i} and v{i} == nv{i}" for i in neutral)
        rest = ", ".join(f"d{i}" for i in range(n) if i not in neutral)
        lines += ["        exe = ent[2]",
                  f"        if exe is not None and {cond}:",
                  f"            return {record}, exe, ({rest}{',' if rest else ''}))"]
    lines.append(f"        return {record}, ent[1])")
    if neutral:
        lines += ["    exe = ent[2]",
                  f"    if exe is not None and {cond}:",
                  f"        out = exe({rest})",
                  "    else:",
                  f"        out = ent[1]({dyn})"]
    else:
        lines.append(f"    out = ent[1]({dyn})")
    if plain_out:
        lines += wrap_code(4)
    else:
        lines.append("    return wrap_outputs(spec, vals, out)")
    return "\n".join(lines) + "\n"


def _make_fast(plan: _Plan):
    spec = plan.spec
    complete = -1
    if plan.tails is not None and plan.tails.get(len(spec.params)) == ():
        complete = len(spec.params)   # no keyword-only parameters
    promoted = () if spec.promote == "none" else spec.extra["promote_idx"]
    layout = (complete, spec.tensor_pos, spec.static_pos, promoted,
              spec.view is None and spec.out_names is None, plan.tails is not None,
              tuple(i for i, _ in plan.neutral))
    code = _FAST_CODE.get(layout)
    if code is None:
        code = _FAST_CODE[layout] = compile(_fast_source(*layout),
                                            f"<dispatch {layout[:3]}>", "exec")
    ns = fast_namespace(spec=spec, plan=plan, binder=plan.binder, tails=plan.tails,
                        entries=plan.entries)
    for i, v in plan.neutral:
        ns[f"nv{i}"], ns[f"nt{i}"] = v, type(v)
    exec(code, ns)
    run = ns["run"]
    run.__qualname__ = run.__name__ = f"dispatch_{spec.name}"
    return run


_fast_recorder = None   # autograd._recorders.fast_recorder, imported on first use (import cycle)


def _record(spec, vals, statics, cast, dyn_t, dyn, exe, args=None):
    """Record a call the fast path chose ``exe`` for, with the op's generated recorder
    (Note [Generated recorders] in autograd/_recorders.py)."""
    rec = spec.extra.get("_fast_recorder")
    if rec is None:
        global _fast_recorder
        if _fast_recorder is None:
            from ..autograd._recorders import fast_recorder as _fast_recorder
        rec = _fast_recorder(spec)
    return rec(spec, vals, statics, cast, dyn_t, dyn, exe, args)


def _dispatch_general(spec: OpSpec, api, args, kwargs, vals):
    """Any call: ``__torch_function__`` overrides, lists of tensors, NumPy values..."""
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
    """Result tensors for the op's JAX outputs: views of the input for view ops, a
    named tuple for ops with ``out_names``."""
    if spec.view is not None:
        meta = spec.view(*vals)
        if meta is not None:
            base = vals[spec.tensor_pos[0]]
            if isinstance(meta, list):
                return tuple(base._make_view(o, *m) for o, m in zip(out, meta))
            return base._make_view(out, *meta)
    if isinstance(out, (tuple, list)):
        res = tuple([_tensor_of(o) for o in out])
        if spec.out_names is not None:
            return _namedtuple(spec)(*res)
        return res
    return _tensor_of(out)


# Note [Inlined tensor construction]
# ``_tensor_of(arr)`` is ``Tensor._wrap(arr)`` with the constructor's layers
# (``_init_from_array``, ``Storage.__init__``, ``VersionCounter()``,
# ``_init_autograd_fields``) written out: it runs for every op result, where the calls
# cost about a microsecond. tests/test_dispatch.py checks that both give a tensor with
# the same fields, so a field added to one and not the other fails there. The storage
# is an ``InferenceStorage`` under ``inference_mode`` (Note [Inference tensors]); the
# thread-local mode is read only once some thread has entered it.
_new = object.__new__
_BY_NP = _dt._BY_NP
_uid = _storage_mod._uid


# Note [The array type is learnt]
# Generated dispatch functions test ``type(out) is _Array`` before anything else, with
# ``_Array`` the concrete class of JAX's arrays. JAX names that class only in private
# modules, and making an array at import to ask its type would start JAX's backends, after
# which ``jax.distributed.initialize`` (``torchlike.distributed.init_process_group``)
# refuses to run. So ``_Array`` starts as a class nothing is an instance of, and the first
# concrete result that reaches the fallback (``_tensor_of_other``) sets it, in every
# generated function's namespace (``fast_namespace`` keeps them).
class _NotLearnt:
    pass


_learnt = [False]
_NAMESPACES: list = []


def fast_namespace(**extra) -> dict:
    """The globals of a generated dispatch or entry function."""
    ns = dict(_FAST_GLOBALS, **extra)
    _NAMESPACES.append(ns)
    return ns


def _tensor_of_other(out) -> Tensor:
    """``_tensor_of`` for a result that failed the ``type(out) is _Array`` test: a tracer,
    or the first concrete array of the process."""
    if not _learnt[0] and isinstance(out, jax.Array) and not isinstance(out, jax.core.Tracer):
        _learnt[0] = True
        _FAST_GLOBALS["_Array"] = t = type(out)
        for ns in _NAMESPACES:
            ns["_Array"] = t
    return _tensor_of(out)


def _tensor_of(arr) -> Tensor:
    st = _new(_InferenceStorage if _inference_used[0] and _grad_state.inference else Storage)
    st.array = arr
    st.gen = 0
    st.uid = next(_uid)
    aval = arr.aval   # ``arr.dtype`` and ``arr.shape`` are properties reading it
    st.dtype = _BY_NP[aval.dtype]
    vc = _new(VersionCounter)
    vc.v = 0
    t = _new(Tensor)
    t._storage = st
    t._shape = aval.shape   # a tuple, for arrays and tracers alike
    t._stride = None
    t._offset = 0
    t._direct = True
    t._cache = None
    t._cache_gen = -1
    t._idx = None
    t._vc = vc
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._attr_version = 0
    t._retains_grad = False
    t._hooks = None
    t._post_acc_hooks = None
    t._output_nr = 0
    t._base = None
    t._node_ref = None
    return t


@contextlib.contextmanager
def separate_executables():
    """Inside, every op compiles executables of its own, which are dropped on the way
    out, when the ops' existing ones come back. An op's executable is a ``jax.jit`` that
    keeps its traces, so a trace under other lowering rules (Note [Portable lowering] in
    _core/xla.py) must not reuse them, nor leave its own behind."""
    saved = {}
    for spec in OPS.values():
        plan = spec.extra.get("plan")
        if plan is not None:
            saved[id(plan)] = (dict(plan.entries), dict(plan.exes))
            plan.entries.clear()
            plan.exes.clear()
    try:
        yield
    finally:
        for spec in OPS.values():
            plan = spec.extra.get("plan")
            if plan is None:
                continue
            entries, exes = saved.get(id(plan), ({}, {}))
            plan.entries.clear()
            plan.entries.update(entries)
            plan.exes.clear()
            plan.exes.update(exes)


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
    return _plan_of(spec).run(spec.api, args, kwargs)


_ = (builtins, _np_inexact)

# what the generated dispatch functions refer to (Note [Generated dispatch functions])
_FAST_GLOBALS = dict(
    Tensor=Tensor, _SCALARS=SCALARS, _device_scalar=device_scalar,
    _tf_disabled=_tf_disabled, _tf_state=_tf_state, _dispatch_general=_dispatch_general,
    _modes=_modes, _via_mode=_via_mode, _NO_MODE=_NO_MODE,
    _default=_dt._default, _PLAIN_STATIC=_PLAIN_STATIC,
    _freeze=_freeze, _grad_state=_grad_state, _record=_record, _tensor_of=_tensor_of,
    wrap_outputs=wrap_outputs, _new_entry=_new_entry, _Array=_NotLearnt,
    _tensor_of_other=_tensor_of_other)
