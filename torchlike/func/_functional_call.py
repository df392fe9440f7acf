"""``functional_call`` and ``stack_module_state``, mirroring ``torch.func``.

# Note [Swapping a module's tensors]
# ``functional_call(module, tensors, args)`` calls ``module(*args)`` with some of its
# parameters and buffers replaced by the given tensors, as PyTorch does: the tensors are
# put in the owning modules' ``_parameters``/``_buffers`` dicts (or set as attributes
# for names the module does not have), and the originals are put back afterwards, also
# when the call raises. The given tensors are used as they are (not wrapped in
# ``Parameter``), so they may be tensors over JAX tracers: this is how a torchlike
# module runs inside ``jax.jit``/``jax.grad`` with its weights as JAX inputs.
#
# Under a JAX trace a module may write a traced value into a tensor it was *not* given
# (a BatchNorm's running statistics updated in place). That value would outlive the
# trace and fail later far from its cause, so the original array is put back and a
# ``RuntimeError`` names the tensor to pass in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax

from .._core.tensor import Tensor
from .._ops.dispatch import call_op

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _get_submodule(module, path: str, memo: dict):
    if not path:
        return module
    if path in memo:
        return memo[path]
    prefix, dot, attr = path.rpartition(".")
    parent = _get_submodule(module, prefix, memo) if dot else module
    try:
        sub = getattr(parent, attr)
    except AttributeError:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from None
    from ..nn.modules.module import Module
    if not isinstance(sub, Module):
        raise TypeError(f"{sub} is not an instance of torch.nn.Module")
    memo[path] = sub
    return sub


def _swap(module, name: str, value):
    """PyTorch's ``swap_tensor``: put ``value`` (or remove it, for ``_MISSING``) under
    ``name`` and return what was there."""
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    if name in module._parameters:
        orig = module._parameters[name]
        if value is _MISSING:
            del module._parameters[name]
        else:
            module._parameters[name] = value
    elif name in module._buffers:
        orig = module._buffers[name]
        if value is _MISSING:
            del module._buffers[name]
        else:
            module._buffers[name] = value
    else:
        orig = getattr(module, name) if hasattr(module, name) else _MISSING
        if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
            raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
        if value is not _MISSING:
            setattr(module, name, value)
        elif hasattr(module, name):
            delattr(module, name)
    return orig


def _swap_all(module, named: dict, memo: dict) -> dict:
    """Swap every entry of ``named``; on error put back what was swapped, then raise."""
    orig: dict = {}
    try:
        for name, value in named.items():
            prefix, _, attr = name.rpartition(".")
            orig[name] = _swap(_get_submodule(module, prefix, memo), attr, value)
    except Exception:
        for name, value in orig.items():
            prefix, _, attr = name.rpartition(".")
            _swap(_get_submodule(module, prefix, memo), attr, value)
        raise
    return orig


def _untie(module, given: dict) -> dict:
    """PyTorch's ``_untie_named_tensors_map``: a value given for one name of a tied
    tensor is used for all its names; different values for one tied tensor raise."""
    groups: dict[int, set] = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), set()).add(name)
    tied = {n: names for names in groups.values() if len(names) > 1 for n in names}
    given_tied = [n for n in given if n in tied]
    for n in given_tied:
        names = tied[n]
        vals = {id(given[m]) for m in names if m in given}
        if len(vals) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                             "which are tied. Consider using tie_weights=False")
    out = dict(given)
    for n in given_tied:
        for m in tied[n]:
            out[m] = given[n]
    return out


def functional_call(module, parameter_and_buffer_dicts: dict | Sequence[dict], args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Mirrors ``torch.func.functional_call``: ``module(*args, **kwargs)`` with the
    parameters and buffers named in ``parameter_and_buffer_dicts`` (a dict, or a tuple/
    list of dicts with distinct keys) replaced by the given tensors for the duration of
    the call; the module's own tensors are restored afterwards, even on error.

    ``args`` that is not a tuple is the single positional argument. With
    ``tie_weights=True`` a value given for one name of tied weights is used for all of
    them. With ``strict=True`` every parameter and buffer must be given, and no other
    name. The given tensors may wrap JAX tracers, which makes a torchlike module usable
    inside ``jax.jit``/``jax.grad``/``jax.vmap`` (see Note [Swapping a module's tensors])::

        def loss_fn(params, x, y):   # params: dict of jax.Array
            p = {k: torchlike.from_jax(v) for k, v in params.items()}
            out = functional_call(model, p, (torchlike.from_jax(x),))
            return ((out - torchlike.from_jax(y)) ** 2).mean().jax()
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence) and not isinstance(
            parameter_and_buffer_dicts, str):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)

    named = _untie(module, given) if tie_weights else given
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(named)), sorted(set(named) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))

    watched = _untraced_state(module, named)
    memo: dict = {}
    orig = _swap_all(module, named, memo)
    try:
        return module(*args, **kwargs)
    finally:
        current = _swap_all(module, orig, memo)
        given.update({k: current[k] for k in given if k in current})
        _check_no_leak(watched)


def _untraced_state(module, named: dict) -> list:
    """When a given tensor is traced: the module's other tensors whose arrays are not
    traced, with those arrays (Note [Swapping a module's tensors])."""
    if not any(isinstance(v, Tensor) and isinstance(v._value, jax.core.Tracer)
               for v in named.values()):
        return []
    out = []
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        if name not in named and not isinstance(t._storage.array, jax.core.Tracer):
            out.append((name, t, t._storage.array))
    return out


def _check_no_leak(watched: list) -> None:
    leaked = []
    for name, t, arr in watched:
        if isinstance(t._storage.array, jax.core.Tracer):
            t._storage.array = arr
            t._storage.gen += 1
            leaked.append(name)
    if leaked:
        raise RuntimeError(
            f"functional_call: the module wrote traced values into {leaked}, which were not "
            "given in parameter_and_buffer_dicts, while being traced by JAX; the values "
            "would outlive the trace. Pass these tensors in parameter_and_buffer_dicts too "
            "(e.g. dict(module.named_buffers())), and read their new values from that dict "
            "after the call.")


def stack_module_state(models) -> tuple[dict, dict]:
    """Mirrors ``torch.func.stack_module_state``: ``(params, buffers)`` dicts whose
    entries stack the same-named tensors of ``models`` along a new first dimension
    (stacked parameters are new leaves that require grad), for ``vmap`` over an ensemble
    with ``functional_call``."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tensors, name):
        req = [t.requires_grad for t in tensors]
        if any(req) and not all(req):
            raise RuntimeError(f"Expected {name} from each model to have the same "
                               ".requires_grad")
        out = call_op("stack", [t._alias() for t in tensors], 0)
        return out.requires_grad_() if all(req) else out

    all_p = [dict(m.named_parameters()) for m in models]
    all_b = [dict(m.named_buffers()) for m in models]
    params = {k: stacked([p[k] for p in all_p], k) for k in all_p[0]}
    buffers = {k: stacked([b[k] for b in all_b], k) for k in all_b[0]}
    return params, buffers
