"""``FlaxModule``: a Flax NNX module used as a torchlike ``nn.Module``.

# Note [NNX state as parameters and buffers]
# ``nnx.split(module, nnx.Param, ...)`` separates an NNX module into its static graph,
# its ``Param`` variables and the rest of its state. Each ``Param`` becomes a torchlike
# ``Parameter`` registered under its state path (``('layers', 0, 'kernel')`` is
# ``layers.0.kernel``, through small container modules, so ``named_parameters()``,
# ``state_dict()`` and optimizers see ordinary names). Other variables whose dtype
# torchlike has (``BatchStat``: running mean and variance) become buffers; the rest
# (RNG keys and counters) stays NNX state held by the wrapper.
#
# ``forward`` is one pure function of arrays: merge the graph with the parameters' and
# buffers' *current* values, call the NNX module, and return its outputs together with
# the new buffer values and RNG state. It is ``jax.jit``-compiled once per graph (and
# per hashable non-tensor arguments): it closes over nothing mutable, since the RNG
# state is an input too. It runs through ``func``'s ``JaxCall``, so eagerly
# it is one node on the tape whose backward is ``jax.vjp`` of that pure function
# (Note [JAX transforms inside eager autograd]): ``loss.backward()`` fills the
# Parameters' ``.grad`` and an optimizer step changes what the next forward computes.
# Buffer updates (BatchNorm statistics in training mode) are written back after the call.
# RNG state can only be written back with concrete values: an NNX module that draws
# random numbers (Dropout in training mode) while traced by JAX raises, since keeping the
# old key would repeat the same mask on every step.
"""

from __future__ import annotations

from typing import Any

import jax

from ..._core import dtype as _dt
from ..._core import xla
from ..._core.tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["FlaxModule"]


class _NNXNode(Module):
    """A container standing for one level of an NNX state path."""

    def forward(self, *args, **kwargs):
        raise RuntimeError("this module only groups the parameters of a FlaxModule; call "
                           "the FlaxModule itself")


def _torchlike_dtype(arr) -> _dt.dtype | None:
    try:
        return _dt.from_np(arr.dtype)
    except TypeError:
        return None


class FlaxModule(Module):
    """Wraps a Flax NNX module (``flax.nnx.Module``) as a torchlike ``nn.Module``.

    The NNX ``Param`` variables appear as ``Parameter``s named by their state paths joined
    with '.' (``l1.kernel``, ``layers.0.bias``); other array state with a torchlike dtype
    (BatchNorm statistics) appears as buffers. ``forward(*args, **kwargs)`` calls the NNX
    module on the parameters' current values (tensors in ``args`` are passed as JAX
    arrays; the outputs come back as tensors, in the NNX module's output structure).
    Gradients flow to the Parameters and to the tensor inputs through torchlike's
    autograd, so PyTorch-style training loops and optimizers work on it.
    ``train()``/``eval()`` switch the NNX module's modes too. ``nnx_module`` returns the
    NNX module with the current values written into it.

    Flax is an optional dependency, imported when a ``FlaxModule`` is made.
    See Note [NNX state as parameters and buffers].

    Example::

        >>> from flax import nnx
        >>> m = torchlike.nn.FlaxModule(nnx.Linear(3, 2, rngs=nnx.Rngs(0)))
        >>> [n for n, _ in m.named_parameters()]
        ['bias', 'kernel']
    """

    def __init__(self, module: Any) -> None:
        super().__init__()
        try:
            from flax import nnx
        except ImportError:  # pragma: no cover - flax is installed where this is tested
            raise ImportError("FlaxModule needs flax (pip install flax)") from None
        if not isinstance(module, nnx.Module):
            raise TypeError(f"FlaxModule expected a flax.nnx.Module, but got "
                            f"{type(module).__name__}")
        graphdef, params, rest = nnx.split(module, nnx.Param, ...)
        object.__setattr__(self, "_nnx", module)
        object.__setattr__(self, "_graphdef", graphdef)
        # (path, variable template) per parameter, buffer and opaque (NNX-only) variable
        object.__setattr__(self, "_param_vars", [])
        object.__setattr__(self, "_buffer_vars", [])
        object.__setattr__(self, "_opaque", [])
        for path, var in nnx.to_flat_state(params):
            arr = var.get_value()
            if _torchlike_dtype(arr) is None:
                raise TypeError(f"FlaxModule: parameter {'.'.join(map(str, path))} has dtype "
                                f"{arr.dtype}, which torchlike does not have")
            owner, name = self._owner(path)
            owner.register_parameter(name, Parameter(Tensor._wrap(arr)))
            self._param_vars.append((path, var, owner, name))
        for path, var in nnx.to_flat_state(rest):
            arr = var.get_value()
            if isinstance(arr, jax.Array) and _torchlike_dtype(arr) is not None:
                owner, name = self._owner(path)
                owner.register_buffer(name, Tensor._wrap(arr))
                self._buffer_vars.append((path, var, owner, name))
            else:
                self._opaque.append((path, var))
        self._make_apply()

    def _owner(self, path: tuple) -> tuple[Module, str]:
        """The container module holding the tensor at NNX state ``path``, and its name."""
        mod: Module = self
        for part in path[:-1]:
            key = str(part)
            sub = mod._modules.get(key)
            if sub is None:
                sub = _NNXNode()
                mod.add_module(key, sub)
            mod = sub
        return mod, str(path[-1])

    # ---------------------------------------------------------------- forward
    def _make_apply(self):
        """The pure function of the NNX call, jitted once per graph (Note [NNX state as
        parameters and buffers]): ``apply(static, params, buffers, rng_state, inputs)``
        returns ``(outputs, new buffers, new rng state)``."""
        from flax import nnx

        from ...func._pytree import tree_unflatten

        graphdef = self._graphdef
        p_tpl = [(path, var) for path, var, _, _ in self._param_vars]
        b_tpl = [(path, var) for path, var, _, _ in self._buffer_vars]
        o_tpl = list(self._opaque)

        def apply(static, p_arr, b_arr, o_vals, t_arr):
            in_spec, leaves, tpos = static
            # fresh Variables: NNX lets only the trace that made a Variable mutate it
            p_state = nnx.from_flat_state([(path, var.replace(a))
                                           for (path, var), a in zip(p_tpl, p_arr)])
            r_state = nnx.from_flat_state(
                [(path, var.replace(a)) for (path, var), a in zip(b_tpl, b_arr)] +
                [(path, var.replace(v)) for (path, var), v in zip(o_tpl, o_vals)])
            m = nnx.merge(graphdef, p_state, r_state)
            full = list(leaves)
            for i, a in zip(tpos, t_arr):
                full[i] = a
            call_args, call_kwargs = tree_unflatten(full, in_spec)
            out = m(*call_args, **call_kwargs)
            new = dict(nnx.to_flat_state(nnx.split(m, nnx.Param, ...)[2]))
            return (out, tuple(new[path].get_value() for path, _ in b_tpl),
                    tuple(new[path].get_value() for path, _ in o_tpl))

        object.__setattr__(self, "_apply_fn", apply)
        object.__setattr__(self, "_apply_jit", xla.jit(apply, convolutions=True,
                                                             static_argnums=0))

    def forward(self, *args, **kwargs):
        from ...func._jaxcall import run_pure
        from ...func._pytree import tree_flatten
        from ..._core.grad_mode import is_grad_enabled

        params = [owner._parameters[name] for _, _, owner, name in self._param_vars]
        buffers = [owner._buffers[name] for _, _, owner, name in self._buffer_vars]
        flat_in, in_spec = tree_flatten((args, kwargs))
        tpos = tuple(i for i, a in enumerate(flat_in) if isinstance(a, Tensor))
        static = (in_spec, tuple(None if isinstance(a, Tensor) else a for a in flat_in), tpos)
        try:
            hash(static)
            apply = self._apply_jit
        except TypeError:  # an unhashable non-tensor argument: trace the call each time
            apply = self._apply_fn
        o_vals = tuple(var.get_value() for _, var in self._opaque)
        n_p, n_b = len(params), len(buffers)
        box: dict = {}

        def pure(*arrays):
            out, new_b, new_o = apply(static, arrays[:n_p], arrays[n_p:n_p + n_b], o_vals,
                                      arrays[n_p + n_b:])
            leaves, treedef = jax.tree_util.tree_flatten(out)
            arr_pos = [k for k, x in enumerate(leaves) if isinstance(x, jax.Array)]
            box.update(treedef=treedef, leaves=leaves, arr_pos=arr_pos, opaque=new_o)
            return (*[leaves[k] for k in arr_pos], *new_b)

        # buffers enter by value: writing their new values back below must not look
        # like an in-place change of something saved for backward
        inputs = params + [Tensor._wrap(b._value) for b in buffers] + \
            [flat_in[i] for i in tpos]
        res = run_pure(pure, inputs, is_grad_enabled())
        n_out = len(box["arr_pos"])
        self._write_back(buffers, res[n_out:], box["opaque"])
        leaves = list(box["leaves"])
        for k, t in zip(box["arr_pos"], res[:n_out]):
            leaves[k] = t
        return jax.tree_util.tree_unflatten(box["treedef"], leaves)

    def _write_back(self, buffers: list, new_buffers: list, new_opaque: tuple) -> None:
        for buf, new in zip(buffers, new_buffers):
            if new._value is not buf._value:
                buf._set_value(new._value)
        changed = [path for (path, var), v in zip(self._opaque, new_opaque)
                   if v is not var.get_value()]
        if not changed:
            return
        if any(isinstance(v, jax.core.Tracer) for v in new_opaque):
            names = [".".join(map(str, path)) for path in changed]
            raise RuntimeError(
                f"FlaxModule: the NNX module changed its RNG state {names} while traced by "
                "JAX; the new state cannot be kept outside the trace, and reusing the old "
                "one would draw the same random numbers on every call. Call it in eval() "
                "mode (deterministic) inside traced code, or eagerly.")
        object.__setattr__(self, "_opaque", [(path, var.replace(v)) for (path, var), v
                                             in zip(self._opaque, new_opaque)])

    # ---------------------------------------------------------------- modes, export
    def train(self, mode: bool = True) -> "FlaxModule":
        """Mirrors ``Module.train``; also switches the NNX module (``train()``/``eval()``,
        e.g. Dropout's ``deterministic`` and BatchNorm's ``use_running_average``)."""
        super().train(mode)
        from flax import nnx
        if mode:
            self._nnx.train()
        else:
            self._nnx.eval()
        object.__setattr__(self, "_graphdef", nnx.split(self._nnx, nnx.Param, ...)[0])
        self._make_apply()
        return self

    @property
    def nnx_module(self) -> Any:
        """The wrapped NNX module, updated with the current parameter and buffer values
        and RNG state."""
        from flax import nnx
        values = {}
        for path, _, owner, name in self._param_vars:
            values[path] = owner._parameters[name].detach()._value
        for path, _, owner, name in self._buffer_vars:
            values[path] = owner._buffers[name]._value
        for path, var in self._opaque:
            values[path] = var.get_value()
        state = nnx.state(self._nnx)
        flat = [(path, var.replace(values[path]) if path in values else var)
                for path, var in nnx.to_flat_state(state)]
        nnx.update(self._nnx, nnx.from_flat_state(flat))
        return self._nnx

    def extra_repr(self) -> str:
        return type(self._nnx).__name__
