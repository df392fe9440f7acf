"""Generated entry points of table ops: ``torchlike.X``, ``Tensor.X`` and the operators
run the common positional call themselves (Note [Plain calls]) and hand any other call
to the op's dispatch function (``dispatch.py``)."""

from __future__ import annotations

from .._core.autocast_state import _state as _acs_state
from .dispatch import _freeze, fast_namespace, _Plan, _plan_of, arg_code, wrap_code
from .spec import OpSpec
from .torch_function import _modes

__all__ = ["plain_entry"]


# Note [Plain calls]
# Most calls of an op in user code pass its leading parameters positionally and leave
# the others at their defaults: ``a + b``, ``z * 0.5``, ``x.exp()``, ``torch.matmul(a,
# b)``, ``x.sum()``. For those, the generated entry points (``torchlike.X``,
# ``Tensor.X``, the operators) do the fast path's work themselves rather than calling
# ``run``: the arguments are already named, the defaults are constants of the
# generated code, and no argument tuple is built; that is what ``run`` spends on top of
# the executable beyond the per-argument work, about a tenth of an 8x8 ``add``. The
# code is ``run``'s (the same promotion key, entries, executables, checks, recording
# and result wrapping) for the calls it takes; anything else (keyword arguments,
# another number of arguments, a subclass, a number whose device scalar is not yet
# cached, a new key) goes to ``run`` unchanged, so each call gets what ``run`` gives;
# the entry is looked up before the check runs, so that such a call runs the check
# (which may warn) once. Warnings raised by checks name the user's line whatever the
# path (``warn_at_caller`` in _common.py).
# While a TorchFunctionMode is on any thread's stack, every entry hands its call to
# ``run`` at once, which asks this thread's stack (Note [Torch function modes] in
# torch_function.py); without one, that test is the one attribute read the modes cost.
# An op family may declare ``extra["plain_check_free"]``: "tensors" when two plain
# Tensors of one shape, with the other parameters at their defaults, pass its check
# (the binary ops), "any" when a Python number in either place passes too; the entry
# then skips the check call for those.

# entry kinds: (header, the test and unpacking for ``n`` arguments, the call of ``run``
# a block falls back to, the call of ``run`` after the blocks). ``api`` is what
# overrides receive as ``func``: the entry itself, or for an operator the method
# PyTorch passes (``Tensor.add`` for ``t + u``; ``bind.py`` sets it)
_PLAIN_ENTRIES = {
    "function": ("def entry(*args, **kwargs):",
                 "    if not kwargs and len(args) == {n}:\n        {names} = args",
                 "run(api, args, kwargs)", "run(api, args, kwargs)"),
    "method": ("def entry(self, *args, **kwargs):",
               "    if not kwargs and len(args) == {m}:\n        a0 = self{rest}",
               "run(api, (self,) + args, kwargs)", "run(api, (self,) + args, kwargs)"),
    "dunder": ("def entry(self, other=_MISSING, *args, **kwargs):",
               "    if not args and not kwargs:\n        a0 = self\n        a1 = other",
               "run(api, (self, other), {})",
               "run(api, (self,) + args if other is _MISSING else (self, other) + args, "
               "kwargs)"),
    "reflected": ("def entry(self, other):",
                  "    if True:\n        a0 = self\n        a1 = other",
                  "run(api, (a0, a1), {})", "run(api, (self, other), {})"),
    "swapped": ("def entry(self, other):",
                "    if True:\n        a0 = other\n        a1 = self",
                "run(api, (a0, a1), {})", "run(api, (other, self), {})"),
}
_MISSING = object()


def _plain_block(plan: _Plan, n: int, fb: str) -> list | None:
    """The code of a call with ``n`` positional arguments ``a0``... (Note [Plain
    calls]), or None when such calls are not plain for this op. The defaults are ``c{p}``
    in the namespace, frozen static ones ``f{p}``, the types of number defaults ``T{p}``."""
    spec = plan.spec
    tails = plan.tails
    if tails is None or n not in tails or spec.view is not None or \
            spec.out_names is not None or spec.binder is not plan.binder:
        return None
    tpos, spos = spec.tensor_pos, spec.static_pos
    params = len(spec.params)
    if any(p not in tpos and p not in spos for p in range(params)):
        return None
    const = dict(zip(range(n, params), tails[n]))
    for p, v in const.items():
        if p in spos:
            try:
                hash(_freeze(v))
            except TypeError:
                return None
        elif v is not None and type(v) not in (int, float, bool, complex):
            return None
    neutral = dict(plan.neutral)   # index among the tensor arguments -> neutral value
    for i, v in neutral.items():
        if tpos[i] < n or type(const[tpos[i]]) is not type(v) or const[tpos[i]] != v:
            return None
    promoted = () if spec.promote == "none" else spec.extra["promote_idx"]
    nt = len(tpos)
    given = [tpos[i] < n for i in range(nt)]
    num = {i for i in range(nt) if not given[i] and const[tpos[i]] is not None}
    I = " " * 8
    lines = []
    for i in range(nt):
        if given[i]:
            # a number with no device scalar yet: ``run`` makes it (on its second use)
            lines.append(arg_code(i, f"a{tpos[i]}", i in promoted, 8, f"return {fb}", fb))
        elif i in promoted:
            v = const[tpos[i]]
            lines += [f"{I}k{i} = {'None' if v is None else f'T{tpos[i]}'}", f"{I}z{i} = False"]
    vals = ", ".join(f"a{p}" if p < n else f"c{p}" for p in range(params))
    cond = ""
    free = spec.extra.get("plain_check_free")
    if free and n == 2 and tpos[:2] == (0, 1):
        cond = (" and not (t0 is Tensor and t1 is Tensor and a0._shape == a1._shape)"
                if free == "tensors" else
                " and (t0 is Tensor and t1 is Tensor and a0._shape != a1._shape or "
                "t0 is not Tensor and t1 is not Tensor)")
    # the entry is looked up before the check runs, so that a call ``run`` serves (a new
    # key, a static value to freeze) runs the check once, in ``run``
    for p in spos:
        if p < n:
            lines += [f"{I}if type(a{p}) not in _PLAIN_STATIC:",
                      f"{I}    return {fb}"]
    statics = "".join(f"a{p}, " if p < n else f"f{p}, " for p in spos)
    key = "".join(f"k{i}, z{i}, " for i in promoted) + "_default[0], " if promoted else ""
    key += statics
    lines += [f"{I}ent = entries.get(({key}))",
              f"{I}if ent is None:",
              f"{I}    return {fb}",
              f"{I}check = spec.check",
              f"{I}if check is not None{cond}:",
              f"{I}    check({vals},)"]
    dts = ", ".join(f"a{tpos[i]}" if given[i] else f"c{tpos[i]}" for i in range(nt))
    dyn = ", ".join(f"d{i}" if given[i] or i in num else "None" for i in range(nt))
    # a number default reaches the executable as ``run`` passes it: a cached device scalar
    scal = []
    for i in sorted(num):
        p = tpos[i]
        scal += [f"d{i} = _SCALARS[T{p}].get(c{p})",
                 f"if d{i} is None:",
                 f"    d{i} = _device_scalar(c{p}, T{p})"]
    grad = " or ".join(f"g{i}" for i in range(nt) if given[i]) or "False"
    record = f"_record(spec, ({vals},), ({statics}), ent[0], [{dts}], [{dyn}]"
    lines.append(f"{I}if ({grad}) and spec.differentiable and _grad_state.enabled:")
    if neutral:
        rest = ", ".join(f"d{i}" for i in range(nt) if i not in neutral)
        lines += [f"{I}    exe = ent[2]"]
        lines += [f"{I}    {x}" for x in scal]
        lines += [f"{I}    if exe is not None:",
                  f"{I}        return {record}, exe, ({rest},))",
                  f"{I}    return {record}, ent[1])",
                  f"{I}exe = ent[2]",
                  f"{I}if exe is not None:",
                  f"{I}    out = exe({rest})",
                  f"{I}else:"]
        lines += [f"{I}    {x}" for x in scal]
        lines.append(f"{I}    out = ent[1]({dyn})")
    else:
        lines += [f"{I}    {x}" for x in scal]
        lines.append(f"{I}    return {record}, ent[1])")
        lines += [f"{I}{x}" for x in scal]
        lines.append(f"{I}out = ent[1]({dyn})")
    return lines + wrap_code(8)


def plain_entry(spec: OpSpec, kind: str, name: str):
    """The public entry point ``name`` of ``spec``, of ``kind`` "function" (``f(*args,
    **kwargs)``), "method" (``m(self, *args, **kwargs)``), "dunder" (``t + u``),
    "reflected" (``2 + t`` as ``run((self, other))``) or "swapped" (``2 / t`` as
    ``run((other, self))``), with the code of Note [Plain calls] for the calls it covers
    (up to three numbers of positional arguments)."""
    plan = _plan_of(spec)
    head, test, fb, last = _PLAIN_ENTRIES[kind]
    # with a mode on some thread's stack, ``run`` asks this thread's (Note [Torch
    # function modes]); inside an autocast region, ``run`` casts (Note [Autocast])
    lines = [head, "    if _modes.on:", f"        return {last}"]
    if spec.autocast:
        lines += ["    if _acs.on:", f"        return {last}"]
    counts = range(1, len(spec.params) + 1) if kind in ("function", "method") else (2,)
    blocks = 0
    for n in counts:
        block = _plain_block(plan, n, fb) if blocks < 3 else None
        if block is None:
            continue
        names = ", ".join(f"a{p}" for p in range(n)) + ("," if n == 1 else "")
        rest = "".join(f"\n        a{p} = args[{p - 1}]" for p in range(1, n))
        lines.append(test.format(n=n, m=n - 1, names=names, rest=rest))
        lines += block
        blocks += 1
    lines.append(f"    return {last}")
    ns = fast_namespace(spec=spec, plan=plan, run=plan.run, entries=plan.entries,
                        _MISSING=_MISSING, _acs=_acs_state, _modes=_modes)
    for n, tail in (plan.tails or {}).items():
        for p, v in zip(range(n, len(spec.params)), tail):
            ns[f"c{p}"], ns[f"T{p}"] = v, type(v)
            if p in spec.static_pos:
                ns[f"f{p}"] = _freeze(v)
    code = compile("\n".join(lines) + "\n", f"<entry {spec.name} {kind}>", "exec")
    exec(code, ns)
    entry = ns["api"] = ns["entry"]
    entry.__name__ = name
    return entry
