"""The backward of a compiled forward whose outputs require grad.

Note [Differentiable compiled forward]
``compiled_model(x)`` with grad enabled returns outputs that require grad, and a later
eager ``loss.backward()`` must reach the parameters, as with ``torch.compile``. The
outputs share one node, ``CompiledFunctionBackward``, whose edges are the parameters
(and tensor arguments) that require grad; its backward is ``jax.vjp`` of the same
program with respect to those inputs, evaluated at the inputs of the call (saved, so
such an entry donates nothing), compiled once per entry.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import xla
from .._core.tensor import Tensor
from ..autograd.graph import Node, _backward_error, edge_of

__all__ = ["make_backward", "attach_backward"]


def make_backward(fun, avals, entry, convolutions: bool):
    d_idx = [i for _, i in entry.diff_in]
    o_idx = list(entry.diff_out)

    def bwd(full, cts):
        def f(*d):
            args = list(full)
            for i, a in zip(d_idx, d):
                args[i] = a
            res = fun(*args)
            return [res[j] for j in o_idx]
        _, vjp = jax.vjp(f, *[full[i] for i in d_idx])
        return vjp(cts)

    return xla.jit(bwd, convolutions=convolutions)


def attach_backward(entry, full, outs) -> dict:
    node = _CompiledBackward("CompiledFunctionBackward",
                             tuple(edge_of(t) for t, _ in entry.diff_in))
    node._entry = entry
    node._full = list(full)
    node._shapes = [(outs[j].shape, outs[j].dtype) for j in entry.diff_out]
    made = {}
    for nr, j in enumerate(entry.diff_out):
        t = Tensor._wrap(outs[j])
        t._requires_grad = True
        t.grad_fn = node
        t._output_nr = nr
        made[j] = t
    return made


class _CompiledBackward(Node):
    __slots__ = ("_entry", "_full", "_shapes")

    def _num_outputs(self) -> int:
        return len(self._shapes)

    def apply(self, grads, create_graph):
        if self._full is None:
            raise _backward_error(self._name)
        if create_graph:
            raise NotImplementedError("torchlike.compile: create_graph=True through a "
                                      "compiled forward is not supported; differentiate the "
                                      "uncompiled module for higher-order gradients")
        cts = [jnp.zeros(s, d) if g is None else g._value.astype(d)
               for g, (s, d) in zip(grads, self._shapes)]
        res = self._entry.bwd(self._full, cts)
        return [Tensor._wrap(r) for r in res]

    def _release(self) -> None:
        self._full = None
