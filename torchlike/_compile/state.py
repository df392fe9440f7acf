"""Finding the mutable state a compiled function touches.

# Note [Finding state once]
# A compiled function reads tensors it was not given: parameters and buffers of modules,
# optimizer state, ``.grad``, the RNG. They must become inputs of the XLA program (a
# tensor captured as a constant would freeze its value into the program) and, when
# changed, outputs written back. We find them by walking, once, the objects the function
# can reach: its arguments, its closure cells, the globals its code names (recursively
# through the functions it names), and ``self`` of a bound method, descending into
# modules, optimizers, LR schedulers, generators, gradient scalers, containers and plain
# user objects, but not into library objects (modules of Python, NumPy, JAX, torchlike
# itself other than the classes above). The result, a ``Found``, is cached and reused while
# ``structure_epoch`` has not moved and the roots are the same objects, so a step pays
# for the walk only when the model or optimizer changed shape. Per call only the flat
# lists are read: storages' arrays, which parameters hold a ``.grad``, the hyper-parameter
# floats. Tensors that are views of one storage count once (tied weights too).
#
# Tensors reached by other routes (an attribute of a library object, a global read
# through ``getattr`` with a computed name) are not found: they enter the program as
# constants, as JAX would capture them.
"""

from __future__ import annotations

import types
from functools import lru_cache as functools_lru_cache
from functools import partial as functools_partial

import numpy as np

from .._core.random import Generator, default_generator
from .._core.tensor import Tensor

__all__ = ["Found", "find_state", "roots_of"]

_SKIP_MODULES = ("builtins", "numpy", "jax", "jaxlib", "optax", "flax", "typing",
                 "collections", "functools", "abc", "enum", "torch")


def _library_object(obj) -> bool:
    mod = type(obj).__module__ or ""
    root = mod.split(".", 1)[0]
    return root in _SKIP_MODULES or root == "torchlike"


class Found:
    """The state reachable from a compiled function's roots.

    ``storages``: the distinct storages of the tensors found (inputs of the program);
    ``owners``: one tensor per storage (to bump its version counter after a write);
    ``holders``: leaf tensors that require grad (their ``.grad`` is state too);
    ``modules``, ``optimizers``, ``schedulers``, ``generators``: the stateful objects;
    ``hyper_slots``: ``(group dict, key, index or None)`` of every number in the optimizers'
    param groups; ``roots``: what the walk started from."""

    def __init__(self):
        self.storages: list = []
        self.owners: list = []
        self.holders: list = []
        self.modules: list = []
        self.optimizers: list = []
        self.schedulers: list = []
        self.generators: list = [default_generator]
        self.hyper_slots: list = []
        self.storage_index: dict = {}
        self.holder_ids: set = set()
        self.roots: list = []

    def add_tensor(self, t: Tensor) -> None:
        st = t._storage
        if id(st) not in self.storage_index:
            self.storage_index[id(st)] = len(self.storages)
            self.storages.append(st)
            self.owners.append(t)
        if t._requires_grad and t.grad_fn is None and id(t) not in self.holder_ids:
            self.holder_ids.add(id(t))
            self.holders.append(t)


def roots_of(fn) -> list:
    """The objects ``fn`` can reach without being given them: ``self`` of a bound method,
    closure cells, and the globals its code names (module objects excluded)."""
    roots: list = []
    _fn_roots(fn, roots, set(), [])
    return roots


class Roots:
    """``roots_of(fn)``, recomputed only when a closure cell or a global it read now holds
    another object (checked per call by identity)."""

    def __init__(self, fn):
        self.fn = fn
        self.roots: list | None = None
        self.guards: list = []

    def get(self) -> list:
        if self.roots is not None:
            missing = _MISSING
            for c, k, v in self.guards:   # ``_read`` inlined: this runs on every call
                if k is None:
                    if _read(c, k) is not v:
                        break
                elif c.get(k, missing) is not v:
                    break
            else:
                return self.roots
        roots: list = []
        guards: list = []
        _fn_roots(self.fn, roots, set(), guards)
        self.roots, self.guards = roots, guards
        return roots


_MISSING = object()


def _read(container, key):
    if key is None:
        try:
            return container.cell_contents
        except ValueError:
            return _MISSING
    return container.get(key, _MISSING)


@functools_lru_cache(maxsize=1024)
def _code_names(code) -> tuple:
    out: set = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.update(_code_names(c))
    return tuple(sorted(out))


def _fn_roots(fn, roots, seen, guards) -> None:
    if id(fn) in seen:
        return
    seen.add(id(fn))
    if isinstance(fn, types.MethodType):
        roots.append(fn.__self__)
        _fn_roots(fn.__func__, roots, seen, guards)
        return
    if isinstance(fn, functools_partial):
        roots.extend(fn.args)
        roots.extend(fn.keywords.values())
        _fn_roots(fn.func, roots, seen, guards)
        return
    if not isinstance(fn, types.FunctionType):
        roots.append(fn)   # a callable object (a Module, a user class)
        return
    mod = (fn.__module__ or "").split(".", 1)[0]
    if mod in _SKIP_MODULES or mod == "torchlike":
        return
    for cell in fn.__closure__ or ():
        v = _read(cell, None)
        guards.append((cell, None, v))
        if v is not _MISSING:
            _root_value(v, roots, seen, guards)
    g = fn.__globals__
    for n in _code_names(fn.__code__):
        v = g.get(n, _MISSING)
        guards.append((g, n, v))
        if v is not _MISSING:
            _root_value(v, roots, seen, guards)


def _root_value(v, roots, seen, guards) -> None:
    if isinstance(v, (types.ModuleType, type)):
        return
    if isinstance(v, (types.FunctionType, types.MethodType, functools_partial)):
        _fn_roots(v, roots, seen, guards)
    else:
        roots.append(v)


def find_state(roots) -> Found:
    """Walk ``roots`` and everything stateful they hold (Note [Finding state once])."""
    from ..amp.grad_scaler import GradScaler
    from ..nn.modules.module import Module
    from ..optim.lr_scheduler import LRScheduler
    from ..optim.optimizer import Optimizer

    found = Found()
    seen: set = set()
    stack = list(reversed(roots))
    while stack:
        obj = stack.pop()
        if obj is None or isinstance(obj, (int, float, str, bytes, bool, complex,
                                           np.ndarray, np.generic)):
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Tensor):
            found.add_tensor(obj)   # its .grad is read per call, not here
            continue
        if isinstance(obj, Module):
            found.modules.append(obj)
            stack.extend(reversed(list(obj.__dict__.values())))
        elif isinstance(obj, Optimizer):
            found.optimizers.append(obj)
            for group in obj.param_groups:
                _hyper_slots(group, found.hyper_slots)
                stack.extend(group["params"])
            for p, st in obj.state.items():
                stack.append(p)
                stack.append(st)
        elif isinstance(obj, LRScheduler):
            found.schedulers.append(obj)
            stack.append(obj.optimizer)
        elif isinstance(obj, Generator):
            if all(g is not obj for g in found.generators):
                found.generators.append(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, (types.FunctionType, types.MethodType, functools_partial)):
            stack.extend(roots_of(obj))
        elif isinstance(obj, GradScaler):   # its scale and growth tracker
            stack.extend(vars(obj).values())
        elif not _library_object(obj) and hasattr(obj, "__dict__") \
                and not isinstance(obj, (types.ModuleType, type)):
            stack.extend(vars(obj).values())
    return found


def _number(v) -> bool:
    # a tensor is listed too, so that compiling refuses it instead of freezing its value
    return type(v) is float or type(v) is int or isinstance(v, Tensor)


def _hyper_slots(group: dict, out: list) -> None:
    """Every number in ``group`` (a tuple of numbers counts per element)."""
    for k, v in group.items():
        if k == "params":
            continue
        if _number(v):
            out.append((group, k, None))
        elif isinstance(v, tuple) and v and all(_number(x) for x in v):
            out.extend((group, k, i) for i in range(len(v)))


def fresh_floats(slots) -> None:
    """Give every float hyper-parameter its own float object, so that a traced input can
    be found by identity (Note [Hyper-parameters are inputs]); values are unchanged."""
    for group, k, i in slots:
        v = group[k]
        if i is None:
            if type(v) is float:
                group[k] = float(repr(v))
        elif type(v[i]) is float:
            group[k] = v[:i] + (float(repr(v[i])),) + v[i + 1:]


def read_slot(slot):
    group, k, i = slot
    v = group[k]
    return v if i is None else v[i]

