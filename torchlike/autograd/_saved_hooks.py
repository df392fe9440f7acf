"""Saved-tensor hooks: ``torch.autograd.graph``'s ``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks`` and ``allow_mutation_on_saved_tensors``,
and how nodes pack and unpack.

# Note [Saved tensor hooks]
# While a pair of hooks is active (a thread-local stack, the innermost pair applies), a
# node made by an op passes every tensor PyTorch's node would save (``_saved.py``'s
# plan, or the tensors of a custom Function's ``ctx.save_for_backward``) to
# ``pack_hook`` once, when the op runs, with the hooks off (so an op inside the hook
# saves nothing through them), and keeps only what it returned. An ``OpNode`` normally
# keeps the arrays of all its inputs and recomputes its VJP from them (Note [Backward of
# a node is an op] in graph.py); a packed node (``PackedOpNode``) drops them:
#   - a saved input is replaced by the tensor ``unpack_hook`` gives back at backward;
#   - an input PyTorch's node does not save is not needed by PyTorch's formula (the
#     save tables say what the formulas read, conditions included: ``x * c`` with ``c``
#     not requiring grad keeps ``c`` only), so the VJP runs with zeros of its shape;
#   - an op whose node saves only its result (``exp``, ``tanh``, ``relu``...) computes
#     its gradient from the unpacked result with PyTorch's formula (``RESULT_GRADS``);
#     an op saving its result without such a formula keeps its inputs, and its
#     gradient ignores what ``unpack_hook`` returned for the result.
# So the gradient is computed from what ``unpack_hook`` returned, as PyTorch's is (an
# unpack returning ``x * 2`` for ``x.pow(2)`` gives ``4 * x``). The unpacked tensor
# takes the autograd identity of the tensor that was packed (its grad_fn and output
# number), as PyTorch's ``SavedVariable::unpack`` gives it, so ``create_graph=True``
# differentiates through the original graph. Its dtype is cast to the saved one; a
# shape that broadcasts to the saved shape is broadcast (PyTorch's elementwise formulas
# give the same gradient), another raises. As in PyTorch, a packed tensor is not
# version-checked (the hook owns what it returns), and a node's packed values are freed
# by a backward without ``retain_graph``. Differences: an in-place op (``z.exp_()``)
# records its out-of-place node first, so a result it saves reaches ``pack_hook`` as
# that node's output, of the same value, rather than as ``z`` itself; the double
# backward (``create_graph=True``) of an op is one recorded op, whose node packs each
# input and gradient it reads, where PyTorch's formula ops pack what each of them
# saves. Nodes that keep a compiled program's residuals (``torchlike.compile(model)``'s
# forward, ``torchlike.cond``/``while_loop``, ``utils.checkpoint`` regions), and the
# nodes of ops recorded while a function is traced (which keep ``jax.vjp``'s residuals,
# Note [Backward while tracing] in graph.py), keep them as they are: their saved values
# do not go through the hooks, and their gradients are those of the values saved.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Callable, Iterator

import jax.numpy as jnp

from .._core.tensor import Tensor
from .graph import OpNode, _backward_error, _saved_hooks, accumulate_node

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors"]


class saved_tensors_hooks:
    """Mirrors ``torch.autograd.graph.saved_tensors_hooks``: a context manager under
    which every tensor a node saves for backward goes through ``pack_hook(tensor)`` when
    the op runs and the node keeps only its result; ``unpack_hook(packed)`` gives the
    tensor back when backward needs it (once per use, so again on each backward with
    ``retain_graph=True``). Nested pairs: the innermost applies. See Note [Saved tensor
    hooks] for how gradients follow what ``unpack_hook`` returns.

    >>> import torchlike as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
    ...     y = x.pow(2)
    >>> torch.autograd.grad(y.sum(), x)
    (tensor([2., 4.]),)
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any],
                 unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        st = _saved_hooks
        if st.disabled is not None:
            raise RuntimeError(st.disabled)
        st.stack = st.stack + ((self.pack_hook, self.unpack_hook),)

    def __exit__(self, *args: object) -> None:
        _saved_hooks.stack = _saved_hooks.stack[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Mirrors ``torch.autograd.graph.save_on_cpu``: saved tensors are packed as
    ``(device, tensor.cpu())`` and moved back to ``device`` at backward. With
    ``pin_memory=True`` the packed tensor is always a copy (PyTorch copies into pinned
    memory; XLA has no pinned host memory, so it is an ordinary CPU copy).
    ``device_type`` names the device module asked whether pinning is possible."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        import torchlike
        device_module = getattr(torchlike, device_type, torchlike.cuda)

        def pack_to_cpu(tensor: Tensor) -> tuple:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = torchlike.empty(tensor.size(), dtype=tensor.dtype, device="cpu")
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed: tuple) -> Tensor:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Mirrors ``torch.autograd.graph.disable_saved_tensors_hooks``: inside, entering
    ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``; so does entering it
    while hooks are active. Nested, the inner message applies until it exits. Usable as
    a decorator too."""
    st = _saved_hooks
    prev = st.disabled
    try:
        if st.stack:
            raise RuntimeError(error_message)
        st.disabled = error_message
        yield
    finally:
        st.disabled = prev


class _Handle:
    """What ``allow_mutation_on_saved_tensors`` packs: a key to the saved value."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors`` yields: ``original`` maps each live
    packed handle to the value saved. JAX arrays never change, so a saved value is the
    array the tensor held when it was saved and nothing is cloned when the tensor is
    later written: ``cloned`` stays empty (PyTorch clones on the first write)."""

    def __init__(self) -> None:
        self.cloned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.original: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()


_mutation_allowed = [False]
_OUTSIDE_MUTATION_CONTEXT = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded.")


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Mirrors ``torch.autograd.graph.allow_mutation_on_saved_tensors``: inside, a
    tensor saved for backward may be modified in place; the backward (which must run
    inside the same context) sees the value it had when it was saved. Not nestable.

    >>> import torchlike as torch
    >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
    ...     a = torch.ones(2, requires_grad=True)
    ...     b = a.clone()
    ...     out = (b ** 2).sum()
    ...     _ = b.sin_()
    ...     out.backward()
    >>> a.grad
    tensor([2., 2.])
    """
    ctx = _AllowMutationOnSavedContext()

    def pack_hook(tensor: Tensor) -> _Handle:
        handle = _Handle()
        ctx.original[handle] = Tensor._wrap(tensor._value)
        return handle

    def unpack_hook(handle: _Handle) -> Tensor:
        if not _mutation_allowed[0] or handle not in ctx.original:
            raise AssertionError(_OUTSIDE_MUTATION_CONTEXT)
        return ctx.original[handle]

    with saved_tensors_hooks(pack_hook, unpack_hook):
        try:
            if _mutation_allowed[0]:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be "
                                   "nested")
            _mutation_allowed[0] = True
            yield ctx
        finally:
            ctx.clear()
            _mutation_allowed[0] = False


# ---------------------------------------------------------------------------
# packing and unpacking
def _current_pair():
    st = _saved_hooks
    if st.disabled is not None:
        raise RuntimeError(st.disabled)
    return st.stack[-1]


def _identity(t: Tensor) -> tuple:
    """What an unpacked tensor takes from ``t``: (requires_grad, grad_fn, output_nr,
    the leaf's AccumulateGrad)."""
    rg = t._requires_grad
    gf = t.grad_fn
    return (rg, gf, t._output_nr, accumulate_node(t) if rg and gf is None else None)


def _pack_all(pack, tensors: list) -> list:
    """``pack(t)`` for each tensor, with the hooks off meanwhile (as PyTorch's)."""
    st = _saved_hooks
    stack = st.stack
    st.stack = ()
    try:
        return [pack(t) for t in tensors]
    finally:
        st.stack = stack


def _broadcast_error(a: tuple, b: tuple) -> RuntimeError | None:
    for k in range(1, min(len(a), len(b)) + 1):
        x, y = a[-k], b[-k]
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor "
                                f"b ({y}) at non-singleton dimension {max(len(a), len(b)) - k}")
    return None


def _unpack(unpack, packed, shape: tuple, dtype, ident: tuple) -> Tensor:
    """``unpack(packed)``, checked as PyTorch checks it, as a tensor of the saved shape
    and dtype with the saved tensor's autograd identity."""
    u = unpack(packed)
    if not isinstance(u, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(u).__name__}")
    rg = ident[0]
    if rg and not (u.dtype.is_floating_point or u.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    a = u._value
    if tuple(u._shape) != tuple(shape):
        err = _broadcast_error(tuple(shape), tuple(u._shape))
        if err is not None:
            raise err
        if jnp.broadcast_shapes(tuple(u._shape), tuple(shape)) != tuple(shape):
            raise RuntimeError(
                f"saved_tensors_hooks: unpack_hook returned a tensor of shape "
                f"{list(u._shape)} for a saved tensor of shape {list(shape)}; torchlike "
                "computes the gradient at the saved tensor's shape (a shape that "
                "broadcasts to it is broadcast). Return a tensor of the saved shape.")
        a = jnp.broadcast_to(a, shape)
    if a.dtype != dtype.np:
        a = a.astype(dtype.np)
    return _with_identity(a, ident)


def _with_identity(a, ident: tuple) -> Tensor:
    """A tensor of ``a`` with the autograd identity ``ident`` (``_identity``'s tuple)."""
    rg, gf, nr, acc = ident
    t = Tensor._wrap(a)
    if rg:
        t._requires_grad = True
        t._grad_fn = gf
        t._output_nr = nr
        if acc is not None:
            t._node_ref = weakref.ref(acc)
    return t


class _Packing:
    """A packed node's saved values: the unpack hook, per saved tensor ``(packed, shape,
    dtype, identity)``, where each goes back (``slots``: per input position, None to keep
    the node's own value, or per element for a list), and the packed results."""

    __slots__ = ("unpack", "saved", "slots", "results", "formula", "in_meta")


class PackedOpNode(OpNode):
    """An ``OpNode`` recorded under saved-tensor hooks (Note [Saved tensor hooks]):
    its saved tensors are the packed objects, unpacked at each backward."""

    __slots__ = ()

    def apply(self, grads, create_graph):
        if self._freed:
            raise _backward_error(self._name)
        p: _Packing = self.__dict__["_packing"]
        vals = [_unpack(p.unpack, *s) for s in p.saved]
        if p.formula is not None:
            return self._from_result(p, vals, grads)
        dyn = list(self._dyn)
        dyn_t = list(self._dyn_t)
        for i, slot in enumerate(p.slots):
            if slot is None:
                continue
            if isinstance(slot, list):
                d, dt = list(dyn[i]), list(dyn_t[i])
                for j, s in enumerate(slot):
                    if s is not None:
                        d[j], dt[j] = _fill(s, vals)
                dyn[i], dyn_t[i] = d, dt
            else:
                dyn[i], dyn_t[i] = _fill(slot, vals)
        kept = self._dyn, self._dyn_t
        self._dyn, self._dyn_t = dyn, dyn_t
        try:
            return OpNode.apply(self, grads, create_graph)
        finally:
            self._dyn, self._dyn_t = kept

    def _from_result(self, p: _Packing, vals: list, grads: list) -> list:
        out = [None] * len(self.next_functions)
        g = grads[0]
        if g is None or not self._edge_pos:
            return out
        r = vals[p.results[0]]
        gi = p.formula(g, r)
        dtype = p.in_meta
        if dtype is not None and gi.dtype != dtype:
            gi = gi.to(dtype)
        out[self._edge_pos[0]] = gi
        return out

    def _release(self) -> None:
        self._freed = True
        self.__dict__.pop("_packing", None)
        self._dyn = self._dyn_t = None
        self._vjp = None


def _fill(slot, vals):
    """(array, tensor) for one input position of a packed node."""
    if slot[0] == "p":
        t = vals[slot[1]]
        return t._value, t
    _, shape, dtype, ident = slot          # an unsaved input: zeros (not read)
    a = jnp.zeros(shape, dtype)
    return a, _with_identity(a, ident)


def _conj(t: Tensor) -> Tensor:
    return t.conj() if t.dtype.is_complex else t


# PyTorch's formulas (derivatives.yaml) of ops whose node saves only the result.
RESULT_GRADS: dict = {
    "exp": lambda g, r: g * _conj(r),
    "exp2": lambda g, r: g * _conj(r) * 0.6931471805599453,
    "expm1": lambda g, r: g * (_conj(r) + 1),
    "tanh": lambda g, r: g * _conj(1 - r * r),
    "sigmoid": lambda g, r: g * _conj(r * (1 - r)),
    "sqrt": lambda g, r: g / (2 * _conj(r)),
    "rsqrt": lambda g, r: -0.5 * g * _conj(r.pow(3)),
    "reciprocal": lambda g, r: -g * _conj(r * r),
    "tan": lambda g, r: g * _conj(1 + r.pow(2)),
    "relu": lambda g, r: g.masked_fill(r <= 0, 0),
}


def pack_op_node(node: OpNode, plan: tuple, dyn_t, outs, saves: bool) -> None:
    """Pack what ``node`` saves with the active hooks (Note [Saved tensor hooks]) and
    make it a ``PackedOpNode``. Called by the recorders when the hook stack is not
    empty."""
    tensors: list = []
    where: list = []           # per saved tensor: ("in", i, j) or ("out", k)
    for is_out, i, ci in plan:
        if ci is not None:
            c = dyn_t[ci]
            if not (isinstance(c, Tensor) and c._requires_grad):
                continue
        if is_out:
            if saves:
                for k, t in enumerate(outs):
                    if i is None or i == k:
                        tensors.append(t)
                        where.append(("out", k))
            continue
        v = dyn_t[i]
        if isinstance(v, Tensor):
            tensors.append(v)
            where.append(("in", i, None))
        elif isinstance(v, (list, tuple)):
            for j, t in enumerate(v):
                if isinstance(t, Tensor):
                    tensors.append(t)
                    where.append(("in", i, j))
    if not tensors or node._vjp is not None:   # traced: JAX keeps the residuals
        return
    pack, unpack = _current_pair()
    metas = [(t._shape, t._storage.dtype, _identity(t)) for t in tensors]
    packed = _pack_all(pack, tensors)
    p = _Packing()
    p.unpack = unpack
    p.saved = [(pk,) + m for pk, m in zip(packed, metas)]
    p.results = [n for n, w in enumerate(where) if w[0] == "out"]
    saved_in = {(w[1], w[2]): n for n, w in enumerate(where) if w[0] == "in"}
    name = node._spec.name
    p.formula = RESULT_GRADS.get(name) if not saved_in and p.results else None
    p.in_meta = None
    if p.formula is not None:
        t0 = dyn_t[0]
        p.in_meta = t0._storage.dtype if isinstance(t0, Tensor) else None
    # Which input values the node drops: all of them when it has what PyTorch's formula
    # reads (saved inputs, or a result with its formula); none when it saves only a
    # result it has no formula for.
    drop = bool(saved_in) or p.formula is not None
    keep = _VJP_READS.get(name, ())
    slots: list = []
    dyn = list(node._dyn)
    new_t = list(dyn_t)
    for i, v in enumerate(dyn_t):
        if isinstance(v, Tensor):
            slot = _slot(v, saved_in.get((i, None)),
                         drop and node._spec.params[i] not in keep, dyn[i])
            if slot is not None:
                dyn[i] = new_t[i] = None
            slots.append(slot)
        elif isinstance(v, (list, tuple)) and drop:
            sub = [_slot(t, saved_in.get((i, j)), drop, a) if isinstance(t, Tensor)
                   else None for j, (t, a) in enumerate(zip(v, dyn[i] or [None] * len(v)))]
            if any(s is not None for s in sub):
                dyn[i] = [None if s is not None else a for s, a in zip(sub, dyn[i])]
                new_t[i] = [None if s is not None else t for s, t in zip(sub, v)]
                slots.append(sub)
            else:
                slots.append(None)
        else:
            slots.append(None)
    p.slots = slots
    node._dyn = dyn
    node._dyn_t = new_t
    node._saved = None           # packed tensors are not version-checked (PyTorch's)
    node.__class__ = PackedOpNode
    node.__dict__["_packing"] = p


# Inputs whose values an op's VJP here reads although PyTorch's node does not save them
# (its formula reads the result instead): a packed node keeps them as they are.
# ``tests/autograd/test_saved_tensor_hooks.py`` runs every differentiable sample of the
# op table under identity hooks to find such ops.
_VJP_READS = {"copysign": ("other",)}


def _slot(t: Tensor, n, drop: bool, arr):
    if n is not None:
        return ("p", n)
    if not drop or arr is None:
        return None
    return ("z", t._shape, t._storage.dtype.np, _identity(t))


# ---------------------------------------------------------------------------
# custom Functions (``ctx.save_for_backward``)
def pack_ctx(ctx, outputs) -> None:
    """Pack ``ctx.to_save`` with the active hooks; ``ctx.saved_tensors`` unpacks."""
    pack, unpack = _current_pair()
    out_ids = {id(o) for o in outputs if isinstance(o, Tensor)}
    tensors = [t for t in ctx.to_save if t is not None]
    metas = []
    for t in tensors:
        ident = (True, ctx, t._output_nr, None) if id(t) in out_ids and \
            t._requires_grad else _identity(t)
        metas.append((t._shape, t._storage.dtype, ident))
    packed = iter(_pack_all(pack, tensors))
    mi = iter(metas)
    entries = [None if t is None else (next(packed),) + next(mi) for t in ctx.to_save]
    ctx._packed = (unpack, entries)
    ctx._saved = None
    ctx._saved_versions = []
    ctx.to_save = ()


def unpack_ctx(ctx) -> tuple:
    unpack, entries = ctx._packed
    return tuple(None if e is None else _unpack(unpack, *e) for e in entries)
