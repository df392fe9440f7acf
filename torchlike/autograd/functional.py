"""Higher-level derivatives of Python functions of tensors.

Mirrors ``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp`` and ``vhp``, built on ``torchlike.autograd.grad`` as PyTorch's are (``jvp`` by
the double-backward trick). ``vectorize`` and the forward-mode strategies are accepted
and computed in reverse mode.
"""

from __future__ import annotations

from typing import Callable

import jax.numpy as jnp

from .._core.grad_mode import enable_grad
from .._core.tensor import Tensor
from .engine import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, name, fn):
    if isinstance(x, tuple):
        is_tuple = True
    elif isinstance(x, list):
        is_tuple, x = True, tuple(x)
    else:
        is_tuple, x = False, (x,)
    for i, el in enumerate(x):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(f"The {name} given to {fn} must be either a Tensor or a tuple "
                                f"of Tensors but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {name} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the given {name} has type {type(el)}.")
    return is_tuple, x


def _post(res, is_tuple):
    if isinstance(is_tuple, tuple):
        if not is_tuple[0]:
            res = tuple(r[0] for r in res)
        if not is_tuple[1]:
            res = res[0]
        return res
    return res if is_tuple else res[0]


def _pre(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp._requires_grad:
            from .._ops.dispatch import call_op
            res.append(call_op("view_as", inp, inp) if inp._requires_grad else inp)
        else:
            d = inp._alias()   # the tape's detach (Note [Detach under JAX transformations])
            d._requires_grad = need_graph and (d.dtype.is_floating_point or d.dtype.is_complex)
            res.append(d)
    return tuple(res)


def _postgrad(x, create_graph):
    if isinstance(x, Tensor):
        return x if create_graph else x._alias()
    return tuple(_postgrad(e, create_graph) for e in x)


def _zeros_like(t: Tensor) -> Tensor:
    return Tensor._wrap(jnp.zeros(t._shape, t.dtype.np))


def _ag(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    outs = [o for o in outputs if o is not None and (o._requires_grad or o.grad_fn)]
    gos = None
    if grad_outputs is not None:
        gos = [g for o, g in zip(outputs, grad_outputs)
               if o is not None and (o._requires_grad or o.grad_fn)]
    if not outs:
        return (None,) * len(inputs)
    return _grad(outs, inputs, gos, retain_graph=retain_graph, create_graph=create_graph,
                 allow_unused=True)


def _fill(grads, refs, strict, create_graph, fn_name, stage):
    res = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode.")
            g = _zeros_like(r)
        res.append(g)
    return tuple(res)


def _validate_v(v, other, is_tuple):
    if len(other) != len(v):
        if is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a._shape != b._shape:
            pre = f"Entry {i} in " if is_tuple else ""
            raise RuntimeError(f"{pre}v has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Mirrors ``torch.autograd.functional.vjp``: ``(func(inputs), v^T J)``."""
    with enable_grad():
        is_in, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _pre(inputs, create_graph, True)
        outputs = func(*inputs)
        is_out, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            _validate_v(v, outputs, is_out)
        else:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided "
                                   "function returns a single Tensor with a single element.")
        grads = _ag(outputs, inputs, v, create_graph=create_graph)
        res = _fill(grads, inputs, strict, create_graph, "vjp", "back")
    return _post(_postgrad(outputs, create_graph), is_out), _post(_postgrad(res,
                                                                           create_graph), is_in)


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Mirrors ``torch.autograd.functional.jvp``: ``(func(inputs), J v)`` by the
    double-backward trick."""
    with enable_grad():
        is_in, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _pre(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            _validate_v(v, inputs, is_in)
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
        outputs = func(*inputs)
        is_out, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        gos = []
        for o in outputs:
            z = _zeros_like(o)
            z._requires_grad = True
            gos.append(z)
        gi = _ag(outputs, inputs, gos, create_graph=True)
        gi_f = [g for g in gi if g is not None]
        v_f = [vv for g, vv in zip(gi, v if v is not None else (None,)) if g is not None]
        if v is None:
            v_f = [Tensor._wrap(jnp.ones(inputs[0]._shape, inputs[0].dtype.np))] * len(gi_f)
        if gi_f:
            res = _grad(gi_f, gos, v_f, create_graph=create_graph, allow_unused=True)
        else:
            res = (None,) * len(outputs)
        res = _fill(res, outputs, strict, create_graph, "jvp", "double_back")
    return _post(_postgrad(outputs, create_graph), is_out), _post(_postgrad(res,
                                                                           create_graph), is_out)


def _stack_rows(rows, out_shape, in_shape, create_graph):
    from .._ops.dispatch import call_op
    from .._ops.spec import OPS
    if create_graph and "stack" in OPS:
        st = call_op("stack", rows) if rows else None
        if st is None:
            return Tensor._wrap(jnp.zeros(tuple(out_shape) + tuple(in_shape)))
        return call_op("reshape", st, tuple(out_shape) + tuple(in_shape))
    arr = jnp.stack([r._value for r in rows]) if rows else jnp.zeros((0,) + tuple(in_shape))
    return Tensor._wrap(arr.reshape(tuple(out_shape) + tuple(in_shape)))


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """Mirrors ``torch.autograd.functional.jacobian``: ``J[i][j]`` of shape
    ``outputs[i].shape + inputs[j].shape`` (unwrapped for single tensors)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                         'Hint: If your function has more outputs than inputs, '
                         '"forward-mode" tends to be more performant. Otherwise, prefer to '
                         'use "reverse-mode".')
    with enable_grad():
        is_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _pre(inputs, create_graph, True)
        outputs = func(*inputs)
        is_out, outputs = _as_tuple(outputs, "outputs of the user-provided function",
                                    "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows_per_in = [[] for _ in inputs]
            flat = out.reshape(-1) if out.numel() else out
            for j in range(out.numel()):
                oj = flat[j]
                if oj._requires_grad or oj.grad_fn is not None:
                    gs = _grad(oj, inputs, retain_graph=True, create_graph=create_graph,
                               allow_unused=True)
                else:
                    gs = (None,) * len(inputs)
                for k, (g, inp) in enumerate(zip(gs, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode.")
                        g = _zeros_like(inp)
                    rows_per_in[k].append(g)
            jac.append(tuple(_stack_rows(rows_per_in[k], out._shape, inp._shape,
                                         create_graph) for k, inp in enumerate(inputs)))
        jac = tuple(jac)
    return _post(jac, (is_in, is_out))


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """Mirrors ``torch.autograd.functional.hessian`` for a function with a single-element
    output: ``H[i][j]`` of shape ``inputs[i].shape + inputs[j].shape``."""
    is_in, inputs = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single(*inp):
        out = func(*inp)
        is_t, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_t or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single, inp, create_graph=True)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict)
    return _post(res, (is_in, is_in))


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Mirrors ``torch.autograd.functional.vhp``: ``(func(inputs), v^T H)``."""
    with enable_grad():
        is_in, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _pre(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", "vhp")
            _validate_v(v, inputs, is_in)
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
        outputs = func(*inputs)
        is_out, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vhp")
        if is_out or not isinstance(outputs[0], Tensor) or outputs[0].numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor "
                               "with a single element.")
        jac = _ag(outputs, inputs, create_graph=True)
        jac_f = [j for j in jac if j is not None]
        vv = v if v is not None else (Tensor._wrap(jnp.ones(inputs[0]._shape,
                                                            inputs[0].dtype.np)),)
        v_f = [x for j, x in zip(jac, vv) if j is not None]
        if jac_f:
            res = _grad(jac_f, inputs, v_f, create_graph=create_graph, allow_unused=True)
        else:
            res = (None,) * len(inputs)
        res = _fill(res, inputs, strict, create_graph, "vhp", "double_back")
    return _post(_postgrad(outputs, create_graph), False), _post(_postgrad(res,
                                                                          create_graph), is_in)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Mirrors ``torch.autograd.functional.hvp``: ``(func(inputs), H v)``. Computed as
    ``v^T H`` (equal for twice continuously differentiable functions)."""
    return vhp(func, inputs, v, create_graph, strict)
