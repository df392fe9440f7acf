"""Generated steady-state calls of a compiled function.

# Note [Steady-state calls]
# A training loop calls its compiled step again and again with the same state and with
# arguments of the same shapes. The general call (``CompiledFunction.__call__``) works that
# out afresh each time: it flattens the arguments, builds a cache key of every argument's
# layout, the hyper-parameters' signs and the global settings, hashes it, gathers the
# state's arrays into a flat list and follows the write-back's plans in loops. After a
# call that ran an entry with a simple shape (positional tensor arguments that do not
# require grad, a program that does not read the incoming gradients, creates no state
# and returns no differentiable outputs), ``steady_call`` writes out that entry's call as
# straight-line code for that state: a guard that checks, without side effects, exactly
# what the key would have held (the same ``Found``, roots and structure epoch; each
# argument's shape, dtype, layout and storage position; each hyper-parameter's type and
# sign or value; the generators' counter types; grad mode, default dtype, precision
# settings and autocast state), then the used arrays read from their storages by name,
# the donation and gradient-recycling checks of ``_run`` (Notes [Donation] and [Recycled
# gradient buffers]) per input, the executable's call, and the write-back with its plans folded
# in. A guard that fails returns ``MISS`` and the general path serves the call (and arms
# the steady call of whatever entry it ran). The general path stays the reference:
# tests/compile/test_steady_call.py runs the same steps through both and compares every
# written array, gradient, version counter and result.
#
# On two cores this Python runs while the previous step's program keeps both cores busy,
# so each microsecond of it costs the step several (Note [Cost of a call]). Measured in one
# process, alternating blocks of calls through each path (not waited for, median of 40
# blocks): the MLP benchmark's SGD step at the smoke sizes (16-8-8-4, where the Python
# dominates) took 0.67-0.71 of the general path's time in three runs (39.4 against 56.3 us
# on the quietest; plain JAX 28.3); at the full sizes (784-256-256-10) 0.95 and 1.00 on a
# quiet machine, 1.02-1.04 on a loaded one: there the program's time and the machine's
# noise decide.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core import xla
from .._core.autocast_state import _state as _autocast_state
from .._core.grad_mode import _state as _grad_state
from .._core.storage import VersionCounter
from .._core.tensor import Tensor
from .._ops.dispatch import _tensor_of
from . import _tracing

__all__ = ["MISS", "steady_call", "run_deferred"]

MISS = object()
_new = object.__new__


def run_deferred(deferred, outs) -> None:
    """Replay the calls recorded during the trace (LR-scheduler steps) with the program's
    outputs (Note [Hyper-parameters are inputs])."""
    import jax
    for obj, method, plan, d_tree in deferred:
        vals = [Tensor._wrap(outs[x[1]]) if x[0] == "t" else x[1] for x in plan]
        d_args, d_kwargs = jax.tree_util.tree_unflatten(d_tree, vals)
        method(obj, *d_args, **d_kwargs)


def steady_eligible(entry, args, kwargs, others) -> bool:
    """Whether ``entry``, just run for ``args``, has a steady call (see the Note)."""
    return (entry.agnostic and not entry.single_use and not entry.diff_out and not kwargs
            and not others and all([type(a) is Tensor and not a._requires_grad
                                    for a in args]))


def counter_kind(c):
    """A generator counter's part of a compiled function's key. A Python int (the counter
    after seeding or eager draws, passed as ``np.uint32``) and the uint32 array a compiled
    call writes back are the same input to the program, so they share a kind: otherwise
    every function that draws random numbers traced and compiled twice, on its first
    call and again on its second."""
    if type(c) is np.uint32 or (isinstance(c, jax.Array) and not isinstance(c, jax.core.Tracer)
                                and c.dtype == np.uint32 and c.shape == ()):
        return np.uint32
    return type(c)


def counter_input(c, storages):
    """A generator counter as the program takes it. An int (the counter after seeding or
    eager draws) becomes a uint32 scalar on the device of the first committed array among
    ``storages``' (the state the program reads), which is where the counter it writes
    back will be: given as an uncommitted scalar, it would make JAX compile the program
    once more when the committed one comes back (in-argument placements are part of
    jit's cache key)."""
    if type(c) is not int:
        return c
    return _place_like(np.uint32(c & 0xFFFFFFFF), storages)


def key_input(g, storages):
    """A generator's key as the program takes it: committed where the state is, as
    ``counter_input`` says and for the same reason; kept so, so that this happens once."""
    k = g._key
    if type(k) is np.ndarray or (not isinstance(k, jax.core.Tracer) and not k.committed):
        k = _place_like(k, storages)
        if not (type(k) is np.ndarray or isinstance(k, jax.core.Tracer)):
            g._key = k
    return k


def _place_like(v, storages):
    for st in storages:
        a = st.array
        if isinstance(a, jax.Array) and not isinstance(a, jax.core.Tracer) and a.committed:
            return jax.device_put(v, a.sharding)
    return v


def steady_call(cf, entry, found, args, arg_pos, hyper, gen_vals):
    """The steady call of ``entry`` for the state ``found`` and arguments laid out as
    ``args`` (at ``arg_pos`` among the storages): a function of the positional arguments
    that returns the call's result, or ``MISS`` having done nothing."""
    from .compile import _hyper_input
    n_found = len(found.storages)
    n_b = n_found + len({p for p in arg_pos if p >= n_found})
    n_h = len(hyper)
    ns = dict(MISS=MISS, Tensor=Tensor, cf=cf, F=found, ROOTS=cf._roots,
              _current=_tracing._current, _epoch=_tracing._epoch, _grad=_grad_state,
              _dflt=_dt._default, _prec=xla._precision, _tf32=xla._conv_tf32,
              DD=_dt.get_default_dtype(), PREC=xla._precision[0], TF32=xla._conv_tf32[0],
              GE=_grad_state.enabled, _jnp=jnp, _getrefcount=sys.getrefcount,
              _counter_input=counter_input, _key_input=key_input,
              _STORAGES=found.storages,
              _hyper_input=_hyper_input, _tensor_of=_tensor_of, _new=_new,
              VersionCounter=VersionCounter, run_deferred=run_deferred,
              DEFERRED=entry.deferred, ENTRY=entry, _ac=_autocast_state,
              ACT=_autocast_state.token)
    n = len(args)
    names = ", ".join(f"a{i}" for i in range(n)) + ("," if n == 1 else "")
    L = ["def call(args):",
         f"    if _current.ctx is not None or len(args) != {n}:",
         "        return MISS"]
    if n:   # a function of no arguments has nothing to unpack or check
        L += [f"    {names} = args",
              "    if (" + " or ".join(f"type(a{i}) is not Tensor" for i in range(n)) + "):",
              "        return MISS"]
    L += ["    if (cf._found is not F or ROOTS.get() is not cf._steady_roots"
         " or _epoch.value != cf._found_epoch):",
         "        return MISS",
         "    if (_grad.enabled is not GE or _dflt[0] is not DD or _prec[0] != PREC"
         " or _tf32[0] != TF32 or _ac.token != ACT):",
         "        return MISS"]
    # the arguments: layout as at the trace, storage at the same position
    first_at: dict = {}     # storage position -> first argument there
    for i, (a, p) in enumerate(zip(args, arg_pos)):
        ns[f"S{i}"], ns[f"D{i}"] = a._shape, a._storage.dtype
        ns[f"O{i}"], ns[f"R{i}"] = a._offset, a._stride
        L += [f"    st{i} = a{i}._storage",
              f"    if (st{i}.dtype is not D{i} or a{i}._shape != S{i} or a{i}._requires_grad"
              f" or a{i}._offset != O{i} or a{i}._stride != R{i}):",
              "        return MISS"]
        if p < n_found:
            ns[f"B{p}"] = found.storages[p]
            L += [f"    if st{i} is not B{p}:", "        return MISS"]
        elif p in first_at:
            L += [f"    if st{i} is not st{first_at[p]}:", "        return MISS"]
        else:
            # a storage of its own: not found state, and not any earlier argument's
            L += [f"    if id(st{i}) in F.storage_index:", "        return MISS"]
            for q, j in first_at.items():
                if q >= n_found:
                    L += [f"    if st{i} is st{j}:", "        return MISS"]
            first_at[p] = i
    # where each storage position's array comes from
    src = {}
    for p in range(n_found):
        ns[f"B{p}"] = found.storages[p]
        src[p] = f"B{p}"
    for p, i in first_at.items():
        if p >= n_found:
            src[p] = f"st{i}"
    # the hyper-parameters: type and sign (floats) or value (ints), as the key holds them
    for j, (slot, v) in enumerate(zip(found.hyper_slots, hyper)):
        group, k, idx = slot
        ns[f"G{j}"], ns[f"K{j}"] = group, k
        L.append(f"    h{j} = G{j}[K{j}]" + ("" if idx is None else f"[{idx}]"))
        if type(v) is float:
            cond = "not h{j} > 0" if v > 0 else "not h{j} < 0" if v < 0 else \
                "not h{j} == 0" if v == 0 else "h{j} == h{j}"   # NaN: sign 0, never equal
            L += [f"    if type(h{j}) is not float or {cond.format(j=j)}:",
                  "        return MISS"]
        else:
            ns[f"HV{j}"], ns[f"HT{j}"] = v, type(v)
            L += [f"    if type(h{j}) is not HT{j} or h{j} != HV{j}:", "        return MISS"]
    for j, g in enumerate(found.generators):
        # the key holds the counter's kind (``counter_kind``)
        kind = counter_kind(gen_vals[2 * j + 1])
        ns[f"GEN{j}"] = g
        L.append(f"    c{j} = GEN{j}._counter")
        if kind is np.uint32:
            ns["_ARRAY_T"] = type(jnp.zeros((), jnp.uint32))
            L += [f"    if type(c{j}) is not int and type(c{j}) is not _ARRAY_T:",
                  "        return MISS"]
        else:
            ns[f"CT{j}"] = kind
            L += [f"    if type(c{j}) is not CT{j}:", "        return MISS"]
    # ---- nothing above has side effects; below is the call
    L += ["    cf.stats.calls += 1",
          "    owned = cf._owned"]
    call_args = []
    donated = set(entry.donate_pos)
    for k, i in enumerate(entry.used):
        x = f"x{k}"
        if i < n_b:
            L.append(f"    {x} = {src[i]}.array")
        elif i < n_b + n_h:
            L.append(f"    {x} = _hyper_input(h{i - n_b})")
        else:
            j, kk = divmod(i - n_b - n_h, 2)
            L.append(f"    {x} = _key_input(GEN{j}, _STORAGES)" if kk == 0 else
                     f"    {x} = _counter_input(c{j}, _STORAGES) if type(c{j}) is int "
                     f"else c{j}")
        if k in donated:   # Note [Donation]: never delete a foreign buffer
            L += [f"    if owned.get(id({x})) is not {x}:", f"        {x} = _jnp.copy({x})"]
        call_args.append(x)
    for h, shape, dtype in entry.donors:
        ns[f"P{h}"], ns[f"PS{h}"], ns[f"PD{h}"] = found.holders[h], shape, dtype
        # as ``_run``: the old gradient's array if only the parameter can see it
        L += [f"    g{h} = P{h}._grad",
              f"    r{h} = False",
              f"    if g{h} is not None and g{h}._direct:",
              f"        gs = g{h}._storage",
              "        ga = gs.array",
              f"        if (owned.get(id(ga)) is ga and _getrefcount(g{h}) == 3"
              " and _getrefcount(gs) == 3 and _getrefcount(ga) == 4):",
              "            aval = ga.aval",
              f"            if aval.shape == PS{h} and aval.dtype == PD{h}:",
              f"                r{h} = True",
              f"                e{h} = ga",
              f"    if not r{h}:",
              f"        e{h} = _jnp.empty_like(P{h}._storage.array, PD{h}, shape=PS{h})"]
        call_args.append(f"e{h}")
    L += ["    gs = ga = None",
          f"    outs = ENTRY.run({', '.join(call_args)})",
          "    owned = {}"]
    for j, i in enumerate(entry.changed):
        L += [f"    o = outs[{j}]",
              f"    {src[i]}.array = o",
              f"    {src[i]}.gen += 1",
              "    owned[id(o)] = o"]
    for i in entry.bump:
        ns[f"OW{i}"] = found.owners[i]
        L.append(f"    OW{i}._vc.v += 1")
    for k in entry.bump_args:
        L.append(f"    a{k}._vc.v += 1")
    for h, j in entry.grad_new:
        ns[f"P{h}"] = found.holders[h]
        L += [f"    o = outs[{j}]",
              "    owned[id(o)] = o"]
        if any(d[0] == h for d in entry.donors):
            L += [f"    if r{h}:   # nothing else could see the old gradient",
                  f"        gs = g{h}._storage",
                  "        gs.array = o",
                  "        gs.gen += 1",
                  "        vc = _new(VersionCounter)",
                  "        vc.v = 0",
                  f"        g{h}._vc = vc",
                  "    else:",
                  f"        P{h}._grad = _tensor_of(o)"]
        else:
            L.append(f"    P{h}._grad = _tensor_of(o)")
    for h, plan in entry.grad_other:
        assert plan[0] == "none"   # what an agnostic entry has besides "keep" and "new"
        ns[f"P{h}"] = found.holders[h]
        L.append(f"    P{h}._grad = None")
    for j, (_g, at) in enumerate(zip(found.generators, entry.gen_plan)):
        if at is not None:
            L.append(f"    GEN{j}._set_state_leaves(outs[{at}], outs[{at + 1}])")
    L.append("    cf._owned = owned")
    if entry.deferred:
        L.append("    run_deferred(DEFERRED, outs)")
    for j, (opt, n_steps) in enumerate(entry.opt_steps):
        ns[f"OPT{j}"] = opt
        L.append(f"    OPT{j}._step_count += {n_steps}")
    L.append("    cf._found_epoch = _epoch.value")
    if entry.out_leaf and entry.out_plan[0][0] == "new":
        L.append(f"    return _tensor_of(outs[{entry.out_plan[0][1]}])")
    else:
        L.append("    return cf._outputs(ENTRY, outs)")
    src_code = "\n".join(L) + "\n"
    exec(compile(src_code, f"<steady call of {getattr(cf._fn, '__qualname__', cf._fn)}>",
                 "exec"), ns)
    return ns["call"]
