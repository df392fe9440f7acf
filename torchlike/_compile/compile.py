"""``torchlike.compile``: a function over stateful modules and optimizers as one XLA program.

# Note [Stateful outside, pure inside]
# On a call with a new signature the function is traced once with JAX: the arrays of
# every storage it can reach (Note [Finding state once]) and of its tensor arguments are
# swapped for tracers, the hyper-parameters of its optimizers and the generators' key and
# counter become traced inputs too, and the function runs as in eager mode (the eager
# autograd engine, hooks and custom Functions included: they only see tracers). What it
# changed becomes the program's outputs: the storages whose array was replaced (in-place
# updates of parameters, buffers, optimizer state, ``.grad`` accumulated in place), the
# ``.grad`` of each leaf that got a new gradient tensor, state created during the trace
# (an optimizer's first moments), the generators' counters, and the function's own
# result. ``jax.jit`` compiles that program with the replaced inputs donated; each call
# then gathers the current arrays from a cached flat list, runs the executable and writes
# the outputs back into the same Python objects. Python code runs only while tracing:
# what it does to Python values (appending to a list, printing) happens once per trace,
# as with ``jax.jit``. LR-scheduler steps are the exception: they only change Python
# floats, so they are recorded during the trace and replayed after every call (Note
# [Hyper-parameters are inputs]).
#
# Note [Hyper-parameters are inputs]
# ``param_groups[i]['lr']`` and the other float options are inputs of the program, read
# from the groups on every call, so a scheduler or a user changing them between steps
# takes effect without retracing. Optimizers ask the trace for the traced value of the
# float they read (``TraceContext.lift``, by object identity). The optimizers branch on
# some options being zero (``weight_decay != 0``); the sign of each option is therefore
# part of the cache key, and a change of sign retraces.
#
# Note [Donation]
# A donated input buffer is reused for an output, so a step does not hold two copies of
# the model. JAX deletes a donated array, and it may be shared with other holders (a
# cached constant, an array a user took with ``.jax()``), so only arrays this compiled
# function produced itself on its previous call are donated; any other array that is
# about to be replaced is first copied. In steady state nothing is copied.
#
# Note [Cost of a call]
# After the first call, a call's work outside XLA is: find the state (cached, Note
# [Finding state once]), build the cache key, hand the arrays to the executable and
# write the results back. On CPU the executable's call was measured in one sitting to
# return only after about a whole step (its inputs are the previous step's donated
# outputs), in a later one after 43-47 us (median, the MLP benchmark's step, whose
# program then ran behind the Python as plain JAX's does); either way the Python time
# around it adds to every step on a two-core machine (below). The key holds a
# small number standing for the found state's signature (a tuple of every storage's id,
# which would otherwise be hashed on every call); the arguments' storages are indexed
# apart from the found state's index instead of copying it; the write-back follows plans
# made when the program was traced (which owners' version counters move, which
# gradients are new); the recycled gradients' checks run inline. Python time per call outside the
# executable (``time.perf_counter``, best of 7, the step_overhead benchmark's SGD stacks
# of 1, 10 and 100 Linear layers): about 16, 54 and 380 us before, 14, 48 and 330 us
# after. The hyper-parameters reach the executable as the cached device scalars of their
# values (``_hyper_input``), since a Python float argument is transferred on every call:
# a compiled SGD-with-momentum step of two Linear(8, 8) layers took 38-65 us per call
# against 58-77 before (four alternating pairs of runs, best of 15 blocks of 500 calls).
# On a two-core machine this Python costs more than its own time: it runs while the
# previous or the current step's program keeps both cores busy, so it runs slower (the
# MLP benchmark's write-back of a few dozen attribute stores took about 27 us) and takes
# its CPU from the program. A single result (a loss) is therefore handed back without
# unflattening, with the inlined tensor constructor (about 15 us down to 6.5 there).
# A call that repeats the previous call's kind skips all of this through the entry's
# generated steady call (Note [Steady-state calls] in _steady.py).
#
# Note [Recycled gradient buffers]
# A PyTorch step hands back every parameter's new ``.grad``, so a compiled step has one
# output per gradient where ``jax.grad`` code keeps the gradients inside the program.
# Allocating those buffers and freeing the previous step's (which ``zero_grad()`` drops)
# took the MLP benchmark's step about 30-100 us of the two cores' time, 3-8 %. A program
# that ignores the incoming gradients therefore also takes the previous gradients' arrays
# as donated inputs it never reads, and XLA writes the new gradients into them. An old
# gradient is recycled only when nothing but its parameter can still see it: this
# function made the array, and there is no other reference to its tensor, storage or
# array (a user's ``g = p.grad``, a view of it, an array taken with ``.jax()`` all keep
# it); otherwise a fresh buffer takes its place. A recycled gradient's tensor object
# holds the new gradient, with a fresh version counter, as nothing can tell it apart from
# the new tensor PyTorch would make.
"""

from __future__ import annotations

import collections
import functools
import itertools
import sys
import warnings
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.extend.core import Literal

from .._core import dtype as _dt
from .._core import xla
from .._core.autocast_state import _state as _autocast_state
from .._core.grad_mode import _state as _grad_state
from .._core.storage import VersionCounter
from .._core.tensor import Tensor
from .._ops.dispatch import _tensor_of
from .._ops.scalars import SCALARS, device_scalar
from ..profiler._recorder import PROFILER
from ..distributed import _c10d
from . import _tracing
from ._forward import attach_backward, make_backward
from ._steady import (MISS, counter_input, counter_kind, key_input, run_deferred, steady_call,
                      steady_eligible)
from .spmd import check_collective_order, spmd_runner
from .stance import LIVE, STANCE, check_stance, recompile_error
from .state import Found, Roots, find_state, fresh_floats, read_slot

_new = object.__new__
_SIG_TOKENS = itertools.count()
_LEAF_TREE = jax.tree_util.tree_structure(0)

__all__ = ["compile", "CompiledFunction", "CompileStats"]

CACHE_SIZE_LIMIT = 8   # as torch._dynamo.config.cache_size_limit


class CompileStats:
    """What a compiled function did: ``calls``, ``traces`` (compilations), ``cache_size``
    (programs kept) and ``last_trace_reason`` (why it last traced)."""

    __slots__ = ("calls", "traces", "cache_size", "last_trace_reason")

    def __init__(self):
        self.calls = 0
        self.traces = 0
        self.cache_size = 0
        self.last_trace_reason = None

    def __repr__(self) -> str:
        return (f"CompileStats(calls={self.calls}, traces={self.traces}, "
                f"cache_size={self.cache_size}, last_trace_reason={self.last_trace_reason!r})")


def _hyper_input(h):
    """A hyper-parameter as the executable takes it: a Python number as the cached device
    scalar of its value (the same aval, weak type included), from its second use on."""
    t = type(h)
    if t is float or t is int:
        a = SCALARS[t].get(h)
        return a if a is not None else device_scalar(h, t)
    return h


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _static_key(v):
    try:
        hash(v)
    except TypeError:
        return ("id", id(v))
    if isinstance(v, (int, float, str, bool, type(None), bytes, complex, tuple,
                      frozenset, _dt.dtype)):
        return (type(v), v)
    return ("id", id(v))


def _sign(v) -> int:
    return (v > 0) - (v < 0)


class _Entry:
    """One traced and compiled program and how to read and write its state."""

    __slots__ = ("run", "donate_pos", "used", "changed", "grad_plan", "new_state",
                 "gen_plan", "out_plan", "out_tree", "out_leaf", "deferred", "opt_steps",
                 "single_use", "changed_pos", "agnostic", "diff_in", "diff_out", "bwd",
                 "donors", "bump", "bump_args", "grad_new", "grad_other", "steady")


class CompiledFunction:
    """The result of ``torchlike.compile(fn)``: call it like ``fn``.

    ``stats`` (a ``CompileStats``) shows how often it traced. See ``torchlike.compile``."""

    def __init__(self, fn: Callable, *, fullgraph: bool = False, dynamic: bool | None = None,
                 mode: str | None = None, backend: str | Callable = "inductor",
                 options: dict | None = None):
        self._fn = fn
        self.fullgraph, self.dynamic, self.mode, self.backend = fullgraph, dynamic, mode, \
            backend
        self.options = options or {}
        self.stats = CompileStats()
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._agnostic: collections.OrderedDict = collections.OrderedDict()
        self._found: Found | None = None
        self._found_sig = None
        self._found_token = -1        # stands for ``_found_sig`` in cache keys
        self._sig_tokens: dict = {}   # found signature -> its token
        self._found_epoch = -1
        self._root_ids = None
        self._owned: dict = {}
        self._treedefs: dict = {}     # number of tensor arguments -> their treedef
        self._recycled: set = set()   # ids of gradient tensors whose buffer this call reuses
        self._roots = Roots(fn)
        self._steady = None           # the last entry's steady call (Note [Steady-state calls])
        self._steady_roots = None     # the roots list it was made under
        functools.update_wrapper(self, fn, updated=())
        LIVE.add(self)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __repr__(self) -> str:
        return f"<compiled {getattr(self._fn, '__qualname__', self._fn)!r}>"

    # ------------------------------------------------------------------ call
    def __call__(self, *args, **kwargs):
        prof = PROFILER[0]
        if prof is not None and prof.sees(self):   # Note [How the profiler sees calls]
            return prof.compiled_call(self, args, kwargs)
        steady = self._steady
        if steady is not None and not kwargs:
            r = steady(args)
            if r is not MISS:
                return r
            self._steady = None
        if _tracing.current() is not None:
            # inside another compiled function's trace: simply part of that program
            return self._fn(*args, **kwargs)
        if STANCE[0] != "default" and check_stance() == "force_eager":   # Note [Stances]
            return self._fn(*args, **kwargs)
        self.stats.calls += 1
        if not kwargs and all([type(a) is Tensor for a in args]):   # the common call
            leaves = arg_tensors = list(args)
            others = []
            treedef = self._treedefs.get(len(args))
            if treedef is None:
                treedef = self._treedefs[len(args)] = jax.tree_util.tree_structure(
                    (args, {}), is_leaf=_is_tensor)
        else:
            leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=_is_tensor)
            arg_tensors = [x for x in leaves if isinstance(x, Tensor)]
            others = [x for x in leaves if not isinstance(x, Tensor)]
        found = self._state(others)

        # the storages of this call: found state and the arguments' (``base``), then the
        # gradients' (last, so a program that ignores them serves any gradient layout)
        base = found.storages
        index = found.storage_index
        arg_pos = []
        extra = None    # positions of the arguments' storages that are not found state
        for t in arg_tensors:
            st = t._storage
            i = index.get(id(st))
            if i is None:
                if extra is None:
                    base, extra = list(base), {}
                i = extra.get(id(st))
                if i is None:
                    i = extra[id(st)] = len(base)
                    base.append(st)
            arg_pos.append(i)
        holders = found.holders
        arg_holders = [t for t in arg_tensors if t._requires_grad and t.grad_fn is None
                       and id(t) not in found.holder_ids]
        if arg_holders:
            holders = holders + arg_holders
        hyper = [read_slot(s) for s in found.hyper_slots]
        gen_vals = []
        for g in found.generators:
            gen_vals.append(key_input(g, base))
            gen_vals.append(counter_input(g._counter, base))
        base_key = (self._found_token,
                    tuple([(x._shape, x._storage.dtype, x._requires_grad, x._offset,
                            x._stride) if isinstance(x, Tensor) else _static_key(x)
                           for x in leaves]),
                    treedef, tuple(arg_pos),
                    tuple([_sign(h) if type(h) is float else h for h in hyper]),
                    tuple([counter_kind(c) for c in gen_vals[1::2]]),
                    _grad_state.enabled, _dt.get_default_dtype(),
                    # traced products name the precision (Note [float32 matmul precision])
                    xla._precision[0], xla._conv_tf32[0],
                    _autocast_state.token)   # the casts are traced (Note [Autocast])
        # the hyper-parameters as cached device scalars: a constant learning rate is not
        # transferred again on every call (Note [Python numbers as device scalars] in
        # _ops/scalars.py)
        full = [s.array for s in base] + [_hyper_input(h) for h in hyper] + gen_vals
        grad_storages = []
        entry = self._agnostic.get(base_key)
        key = base_key
        if entry is None:
            gidx = {}
            grad_pat = []
            for p in holders:
                g = p._grad
                if g is None:
                    grad_pat.append(-1)
                    continue
                st = g._storage
                i = index.get(id(st))
                if i is None and extra is not None:
                    i = extra.get(id(st))
                if i is None:
                    i = gidx.get(id(st))
                    if i is None:
                        i = gidx[id(st)] = len(base) + len(grad_storages)
                        grad_storages.append(st)
                grad_pat.append(i)
            key = (base_key, tuple(grad_pat))
            entry = self._cache.get(key)
            full.extend(s.array for s in grad_storages)
        if entry is None:
            if self.stats.traces and STANCE[0] != "default":   # Note [Stances]
                if check_stance() == "eager_on_recompile":
                    return self._fn(*args, **kwargs)
                raise recompile_error(self._fn, "new input signature or state")
            bad = [f"{slot[1]}={type(v).__name__}"
                   for slot, v in zip(found.hyper_slots, hyper)
                   if type(v) not in (float, int)]
            if bad:
                raise TypeError("torchlike.compile: optimizer hyper-parameters must be Python "
                                "numbers when the step is compiled; got " + ", ".join(bad))
            fresh_floats(found.hyper_slots)
            hyper = [read_slot(s) for s in found.hyper_slots]
            full[len(base):len(base) + len(hyper)] = hyper
            entry = self._trace(found, base, grad_storages, arg_tensors, holders, hyper,
                                gen_vals, leaves, treedef)
            self._remember(key, base_key, entry)
            traced = True
        else:
            traced = False
        storages = base + grad_storages
        outs = self._run(entry, full, holders)
        self._write_back(entry, storages, holders, found, outs, traced, arg_tensors)
        if entry.single_use:
            self._forget(entry)
            self._found = None
        else:
            self._found_epoch = _tracing.structure_epoch()
            if steady_eligible(entry, args, kwargs, others):
                # the next call of the same kind skips all of the above
                st = entry.steady
                if st is None or st[0] is not found:
                    st = entry.steady = (found, steady_call(self, entry, found, args, arg_pos,
                                                            hyper, gen_vals))
                self._steady, self._steady_roots = st[1], self._roots.roots
        made = attach_backward(entry, full, outs) if entry.diff_out else None
        return self._outputs(entry, outs, made)

    def _state(self, others) -> Found:
        """The cached ``Found`` for the current roots (Note [Finding state once])."""
        roots = self._roots.get() + others
        root_ids = tuple(map(id, roots))
        if (self._found is None or root_ids != self._root_ids
                or _tracing.structure_epoch() != self._found_epoch):
            found = find_state(roots)
            sig = (tuple(map(id, found.storages)), tuple(map(id, found.holders)),
                   tuple((id(g), k, i) for g, k, i in found.hyper_slots),
                   tuple(map(id, found.generators)), tuple(m.training for m in found.modules))
            if sig != self._found_sig or self._found is None:
                found.roots = roots
                self._found, self._found_sig = found, sig
                # a large tuple of ids: the cache keys hold a small number standing for
                # it, so that a call hashes a short key (numbers are never reused)
                token = self._sig_tokens.get(sig)
                if token is None:
                    if len(self._sig_tokens) >= 4 * CACHE_SIZE_LIMIT:
                        self._sig_tokens.clear()
                    token = self._sig_tokens[sig] = next(_SIG_TOKENS)
                self._found_token = token
            self._found_epoch = _tracing.structure_epoch()
            self._root_ids = root_ids
        return self._found

    def _remember(self, key, base_key, entry) -> None:
        if entry.agnostic:
            self._agnostic[base_key] = entry
        else:
            self._cache[key] = entry
        while len(self._cache) + len(self._agnostic) > CACHE_SIZE_LIMIT:
            (self._cache if self._cache else self._agnostic).popitem(last=False)
            warnings.warn(f"torchlike.compile: {getattr(self._fn, '__qualname__', self._fn)} "
                          f"was traced for more than {CACHE_SIZE_LIMIT} different "
                          "signatures; the oldest programs are dropped (inputs of varying "
                          "shapes retrace: pad them to a few fixed sizes)", stacklevel=4)
        self.stats.cache_size = len(self._cache) + len(self._agnostic)

    def _reset(self) -> None:
        """Forget every program and the state found (``torchlike.compiler.reset``)."""
        self._cache.clear()
        self._agnostic.clear()
        self._steady = self._found = None
        self.stats.cache_size = 0

    def _forget(self, entry) -> None:
        for d in (self._cache, self._agnostic):
            for k, e in list(d.items()):
                if e is entry:
                    del d[k]
        self.stats.cache_size = len(self._cache) + len(self._agnostic)

    # ------------------------------------------------------------------ trace
    def _trace(self, found, base, grad_storages, arg_tensors, holders, hyper, gen_vals,
               leaves, treedef) -> _Entry:
        reason = "first call" if not self.stats.traces else "new input signature or state"
        gens = found.generators
        storages = base + grad_storages
        n_b, n_h, n_g = len(base), len(hyper), len(gen_vals)
        orig_arrays = [s.array for s in storages]
        # the in-place ops the trace runs move the version counters of the state and the
        # arguments they write; the write-back moves them once per call instead
        orig_versions = [(t._vc, t._vc.v) for t in found.owners + arg_tensors]
        orig_grads = [p._grad for p in holders]
        orig_gens = [g._state_leaves() for g in gens]
        opt_snap = [(opt, {p: dict(st) for p, st in opt.state.items()})
                    for opt in found.optimizers]
        args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
        ctx = _tracing.TraceContext()
        entry = _Entry()
        entry.steady = None
        known = {id(s) for s in storages}
        # position in the flat input list of storage i
        flat_pos = list(range(n_b)) + [n_b + n_h + n_g + j for j in range(len(grad_storages))]

        def pure(flat):
            s_in = flat[:n_b] + flat[n_b + n_h + n_g:]
            h_in, g_in = flat[n_b:n_b + n_h], flat[n_b + n_h:n_b + n_h + n_g]
            for s, a in zip(storages, s_in):
                s.array = a
                s.gen += 1
            ctx.hyper = {id(v): t for v, t in zip(hyper, h_in) if type(v) is float}
            for j, g in enumerate(gens):
                g._set_state_leaves(g_in[2 * j], g_in[2 * j + 1])
            with ctx:
                result = self._fn(*args, **kwargs)
            outs: list = []
            entry.changed = [i for i, (s, a) in enumerate(zip(storages, s_in))
                             if s.array is not a]
            outs.extend(storages[i].array for i in entry.changed)
            changed_ids = {id(storages[i]) for i in entry.changed}
            entry.grad_plan = []
            for p, g0 in zip(holders, orig_grads):
                g = p._grad
                if g is None:
                    entry.grad_plan.append(("keep",) if g0 is None else ("none",))
                elif g is g0:
                    entry.grad_plan.append(("inplace",) if id(g._storage) in changed_ids
                                           else ("keep",))
                elif id(g._storage) in known:
                    entry.grad_plan.append(("obj", g))
                else:
                    entry.grad_plan.append(("new", len(outs)))
                    outs.append(g._value)
            grad_ids = {id(p._grad._storage) for p in holders if p._grad is not None}
            post = find_state(found.roots)
            entry.new_state = []
            for st in post.storages:
                if id(st) not in known and id(st) not in grad_ids \
                        and isinstance(st.array, jax.core.Tracer):
                    entry.new_state.append((st, len(outs)))
                    outs.append(st.array)
            entry.gen_plan = []
            for j, g in enumerate(gens):
                k, c = g._state_leaves()
                if k is g_in[2 * j] and c is g_in[2 * j + 1]:
                    entry.gen_plan.append(None)
                else:
                    entry.gen_plan.append(len(outs))
                    outs.append(k)
                    outs.append(jnp.asarray(c, jnp.uint32))
            o_leaves, entry.out_tree = jax.tree_util.tree_flatten(result, is_leaf=_is_tensor)
            # a result that is one tensor (a loss) needs no unflattening on each call
            entry.out_leaf = entry.out_tree == _LEAF_TREE
            entry.out_plan = []
            diff_out = entry.diff_out = []
            for x in o_leaves:
                if isinstance(x, Tensor):
                    if any(x is t for t in arg_tensors) or (
                            (x._direct or x._sg) and id(x._storage) in known
                            and x.grad_fn is None):
                        entry.out_plan.append(("obj", x))
                    else:
                        entry.out_plan.append(("new", len(outs)))
                        if x._requires_grad:
                            diff_out.append(len(outs))
                        outs.append(x._value)
                elif isinstance(x, jax.core.Tracer):
                    entry.out_plan.append(("array", len(outs)))
                    outs.append(x)
                else:
                    entry.out_plan.append(("const", x))
            entry.deferred = []
            for obj, method, d_args, d_kwargs in ctx.deferred:
                d_leaves, d_tree = jax.tree_util.tree_flatten((d_args, d_kwargs),
                                                              is_leaf=_is_tensor)
                plan = []
                for x in d_leaves:
                    if isinstance(x, Tensor):
                        plan.append(("t", len(outs)))
                        outs.append(x._value)
                    else:
                        plan.append(("c", x))
                entry.deferred.append((obj, method, plan, d_tree))
            entry.opt_steps = list(ctx.opt_steps.items())
            entry.single_use = bool(entry.new_state)
            return outs

        flat_in = orig_arrays[:n_b] + list(hyper) + gen_vals + orig_arrays[n_b:]
        group = _c10d.multi_process_group()   # Note [Compiled steps across processes]
        try:
            if group is None:
                closed = jax.make_jaxpr(pure)(flat_in)
            else:
                with _c10d.tracing_collectives(group) as rec:
                    closed = jax.make_jaxpr(pure, axis_env=[(_c10d.AXIS, group.size())])(
                        flat_in)
                group = group if rec.used else None
                if group is not None:
                    check_collective_order(closed.jaxpr)
        except BaseException:
            self._restore(storages, orig_arrays, holders, orig_grads, gens, orig_gens,
                          opt_snap)
            raise
        finally:
            for vc, v in orig_versions:
                vc.v = v
        # the Python objects now hold tracers: put the concrete values back until the
        # program has run and the write-back replaces what changed
        self._restore(storages, orig_arrays, holders, None, gens, orig_gens, None)

        invars = closed.jaxpr.invars
        used_vars = set()
        for eqn in closed.jaxpr.eqns:
            used_vars.update(v for v in eqn.invars if not isinstance(v, Literal))
        used_vars.update(v for v in closed.jaxpr.outvars if not isinstance(v, Literal))
        entry.used = [i for i, v in enumerate(invars) if v in used_vars]
        entry.changed_pos = [flat_pos[i] for i in entry.changed]
        entry.agnostic = (all(pl[0] in ("keep", "none", "new") for pl in entry.grad_plan)
                          and not any(i >= n_b + n_h + n_g for i in entry.used)
                          and not any(i >= n_b for i in entry.changed))

        # Note [Differentiable compiled forward] in _forward.py
        entry.diff_in = []
        backward_ran = any(pl[0] != "keep" for pl in entry.grad_plan)
        if entry.diff_out and not backward_ran and _grad_state.enabled:
            for t in holders + [t for t in arg_tensors
                                if t._requires_grad and all(t is not h for h in holders)]:
                if not t._direct:
                    raise NotImplementedError(
                        "torchlike.compile: a tensor that requires grad and is a view of "
                        f"another (shape {tuple(t.shape)}) cannot be differentiated through "
                        "a compiled forward; pass its base tensor (or .clone() it) instead")
                i = next(k for k, st in enumerate(storages) if st is t._storage)
                entry.diff_in.append((t, flat_pos[i]))
        else:
            entry.diff_out = []

        pos = {i: k for k, i in enumerate(entry.used)}
        entry.donate_pos = () if entry.diff_out else \
            tuple(pos[i] for i in entry.changed_pos if i in pos)
        avals = [v.aval for v in invars]
        jaxpr, consts = closed.jaxpr, list(closed.consts)
        leaked = [c for c in consts if isinstance(c, jax.core.Tracer)]
        if leaked:   # a cache somewhere kept a value of an earlier trace
            raise RuntimeError(f"torchlike.compile: internal error: the trace captured "
                               f"{len(leaked)} value(s) of an earlier trace "
                               f"({leaked[0].aval}); please report this")

        def fun(*full):
            return jax.core.eval_jaxpr(jaxpr, consts, *full)

        prog = _Program(jaxpr, tuple(avals), tuple(entry.used))
        entry.donors = []
        if entry.agnostic and not entry.single_use and not entry.diff_out:
            # Note [Recycled gradient buffers]: donated after the used inputs, never read
            out_avals = closed.out_avals
            entry.donors = [(h, out_avals[pl[1]].shape, out_avals[pl[1]].dtype)
                            for h, pl in enumerate(entry.grad_plan) if pl[0] == "new"]
        n_used = len(entry.used)
        convolutions = xla.has_convolution(jaxpr)
        jitted = xla.jit(_execute, convolutions=convolutions, static_argnums=0,
                         keep_unused=bool(entry.donors),
                         donate_argnums=tuple(k + 2 for k in entry.donate_pos)
                         + tuple(n_used + 2 + d for d in range(len(entry.donors))))
        if group is not None:
            if entry.diff_out:
                raise RuntimeError("torchlike.compile: a compiled forward whose outputs "
                                   "require grad cannot run collectives; call backward() "
                                   "inside the compiled step")
            entry.run = spmd_runner(group, _execute, prog, consts, tuple(entry.donate_pos)
                                    + tuple(n_used + d for d in range(len(entry.donors))),
                                    bool(entry.donors))
        elif entry.single_use:
            # a program that creates state (an optimizer's first step) runs once: compile
            # it for speed of compilation (about half the time on CPU), not of execution
            def once(*args, _jitted=jitted, _prog=prog, _consts=consts):
                lowered = _jitted.lower(_prog, _consts, *args)
                return lowered.compile({"xla_backend_optimization_level": 0})(_consts, *args)
            entry.run = once
        else:
            entry.run = functools.partial(jitted, prog, consts)
        entry.bwd = (make_backward(fun, avals, entry, convolutions) if entry.diff_out
                     else None)
        # the write-back's plan (Note [Cost of a call]): the changed storages whose owner's
        # version counter moves, and the gradients by kind ("keep" and "inplace" need
        # nothing after the call)
        n_found = len(found.owners)
        entry.bump = [i for i in entry.changed if i < n_found]
        # an argument written in place moves its version counter as in eager mode (the
        # first argument on each changed storage stands for it)
        changed = set(entry.changed)
        seen_pos: set = set()
        entry.bump_args = []
        for k, t in enumerate(arg_tensors):
            p = next(j for j, st in enumerate(storages) if st is t._storage)
            if p >= n_found and p in changed and p not in seen_pos:
                entry.bump_args.append(k)
            seen_pos.add(p)
        entry.grad_new = [(h, pl[1]) for h, pl in enumerate(entry.grad_plan) if pl[0] == "new"]
        entry.grad_other = [(h, pl) for h, pl in enumerate(entry.grad_plan)
                            if pl[0] in ("none", "obj")]
        self.stats.traces += 1
        self.stats.last_trace_reason = reason
        return entry

    @staticmethod
    def _restore(storages, arrays, holders, grads, gens, gen_states, opt_snap) -> None:
        for s, a in zip(storages, arrays):
            s.array = a
            s.gen += 1
        if grads is not None:
            for p, g in zip(holders, grads):
                p._grad = g
        for g, st in zip(gens, gen_states):
            g._set_state_leaves(*st)
        if opt_snap is not None:
            for opt, snap in opt_snap:
                opt.state.clear()
                opt.state.update(snap)

    # ------------------------------------------------------------------ run
    def _run(self, entry: _Entry, full, holders) -> list:
        args = [full[i] for i in entry.used]
        owned = self._owned
        for k in entry.donate_pos:
            a = args[k]
            if owned.get(id(a)) is not a:
                args[k] = jnp.copy(a)   # Note [Donation]: never delete a foreign buffer
        recycled = self._recycled
        recycled.clear()
        getrefcount = sys.getrefcount
        for h, shape, dtype in entry.donors:
            # the parameter's old gradient array if only the parameter can see it (its
            # tensor then goes into ``recycled``), else a fresh buffer (Note [Recycled
            # gradient buffers]); written out here, as it runs for every gradient
            g = holders[h]._grad
            if g is not None and g._direct:
                st = g._storage
                a = st.array
                # each is held once where it lives (the parameter's attribute, the
                # tensor's storage, the storage's array and the map of owned arrays), once
                # by the local name and once by getrefcount's argument
                if (owned.get(id(a)) is a and getrefcount(g) == 3
                        and getrefcount(st) == 3 and getrefcount(a) == 4):
                    aval = a.aval
                    if aval.shape == shape and aval.dtype == dtype:
                        recycled.add(id(g))
                        args.append(a)
                        continue
            # on the parameter's device (Note [Made arrays follow their tensor]): one on
            # JAX's default device would be copied over on every call
            args.append(jnp.empty_like(holders[h]._storage.array, dtype, shape=shape))
        return entry.run(*args)

    def _write_back(self, entry: _Entry, storages, holders, found, outs, traced,
                    arg_tensors) -> None:
        owned = {}
        for a, i in zip(outs, entry.changed):
            s = storages[i]
            s.array = a
            s.gen += 1
            owned[id(a)] = a
        owners = found.owners
        for i in entry.bump:
            owners[i]._vc.v += 1
        for k in entry.bump_args:
            arg_tensors[k]._vc.v += 1
        recycled = self._recycled
        for h, j in entry.grad_new:
            a = outs[j]
            owned[id(a)] = a
            p = holders[h]
            g = p._grad
            if g is not None and id(g) in recycled:
                # nothing else could see the old gradient: its tensor holds the new one
                st = g._storage
                st.array = a
                st.gen += 1
                vc = _new(VersionCounter)
                vc.v = 0
                g._vc = vc
            elif traced and g is not None and isinstance(g._storage.array, jax.core.Tracer):
                g._storage.array = a    # the tensor the trace created
                g._storage.gen += 1
            else:
                p._grad = _tensor_of(a)
        for h, plan in entry.grad_other:
            holders[h]._grad = None if plan[0] == "none" else plan[1]
        for st, j in entry.new_state:
            st.array = a = outs[j]
            st.gen += 1
            owned[id(a)] = a
        for g, j in zip(found.generators, entry.gen_plan):
            if j is not None:
                g._set_state_leaves(outs[j], outs[j + 1])
        self._owned = owned
        if entry.deferred:
            run_deferred(entry.deferred, outs)
        if not traced:
            for opt, n in entry.opt_steps:
                opt._step_count += n

    @staticmethod
    def _outputs(entry: _Entry, outs, made=None):
        if entry.out_leaf and made is None:
            kind, x = entry.out_plan[0]
            return _tensor_of(outs[x]) if kind == "new" else outs[x] if kind == "array" \
                else x
        vals = []
        for plan in entry.out_plan:
            kind = plan[0]
            if kind == "obj":
                vals.append(plan[1])
            elif kind == "new":
                t = None if made is None else made.get(plan[1])
                vals.append(_tensor_of(outs[plan[1]]) if t is None else t)
            elif kind == "array":
                vals.append(outs[plan[1]])
            else:
                vals.append(plan[1])
        return jax.tree_util.tree_unflatten(entry.out_tree, vals)


class _Program:
    """A traced program as a static argument of ``_execute`` (hashed by identity)."""

    __slots__ = ("jaxpr", "avals", "used")

    def __init__(self, jaxpr, avals, used):
        self.jaxpr, self.avals, self.used = jaxpr, avals, used


def _execute(prog: _Program, consts, *used_args):
    """Evaluate ``prog`` with the inputs it uses; the others are never read, nor are
    the recycled gradient buffers after them (Note [Recycled gradient buffers]).

    One module-level function for every program, with the captured constants as explicit
    arguments: a jitted closure per program (or over the constants) loses ``jax.jit``'s
    fast call path (measured: 2-5 ms instead of ~0.2 ms per call for a 10-layer step)."""
    full = [jnp.zeros(a.shape, a.dtype) for a in prog.avals]
    for i, a in zip(prog.used, used_args):
        full[i] = a
    return jax.core.eval_jaxpr(prog.jaxpr, consts, *full)


def compile(model: Callable | None = None, *, fullgraph: bool = False,
            dynamic: bool | None = None, backend: str | Callable = "inductor",
            mode: str | None = None, options: dict[str, Any] | None = None,
            disable: bool = False):
    """Compile ``model`` (a function or an ``nn.Module``) into one XLA program per input
    signature, mirroring ``torch.compile``'s interface.

    A function may read and change modules, optimizers, LR schedulers and the random
    generator it reaches (its arguments, closure and the globals it names): parameters,
    buffers, ``.grad``, optimizer state and hyper-parameters, BatchNorm statistics and the
    RNG state are inputs of the program and what it changes is written back after each
    call, so ``optimizer.zero_grad(); loss = loss_fn(model(x), y); loss.backward();
    optimizer.step(); scheduler.step()`` compiles as a whole and matches eager mode.
    ``compile(module)`` returns a module whose forward is compiled (``_orig_mod`` is the
    original, as in PyTorch).

    Keyword arguments, as ``torch.compile``'s:

    * ``fullgraph``: accepted; the whole function is always one program (there are no
      graph breaks: what cannot be traced raises instead).
    * ``dynamic``: accepted and ignored: XLA programs have static shapes, so every new
      input shape traces again (``stats.traces`` counts it; at most 8 programs are kept).
    * ``mode``: accepted and ignored (XLA chooses its own optimisations).
    * ``backend``: ``"eager"``/``"aot_eager"`` run ``model`` uncompiled (useful to debug);
      any other value (``"inductor"``, the default) compiles with XLA through ``jax.jit``.
    * ``disable=True`` returns ``model`` unchanged.

    Differences from PyTorch: Python side effects of the function (printing, appending to
    lists, hooks' own bookkeeping) happen while tracing, not on every call; tensors
    returned after a ``backward()`` inside the function carry no ``grad_fn``; code that
    needs a tensor's value in Python (``.item()``, ``if t:``) raises while tracing.
    """
    def wrap(m):
        if disable or backend in ("eager", "aot_eager") or getattr(m, "_torchlike_disabled",
                                                                   False):
            return m   # a ``torchlike.compiler.disable``d function runs uncompiled
        from ..nn.modules.module import Module
        if isinstance(m, Module):
            from .module import OptimizedModule
            return OptimizedModule(m, CompiledFunction(m.__call__, fullgraph=fullgraph,
                                                       dynamic=dynamic, mode=mode,
                                                       backend=backend, options=options))
        if not callable(m):
            raise RuntimeError(f"torchlike.compile: expected a callable or a Module, got "
                               f"{type(m).__name__}")
        return CompiledFunction(m, fullgraph=fullgraph, dynamic=dynamic, mode=mode,
                                backend=backend, options=options)

    if model is None:
        return wrap
    return wrap(model)
