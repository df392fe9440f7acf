"""``DistributedDataParallel``; mirrors ``torch.nn.parallel.DistributedDataParallel``.

# Note [Gradient averaging in DistributedDataParallel]
# Construction broadcasts rank 0's parameters and buffers to every rank, so the replicas
# start equal. Every parameter that requires grad gets a post-accumulate-grad hook; the
# forward pass decides which parameters the backward will reach (all of them, or, with
# ``find_unused_parameters=True``, those reachable from the outputs' graph). When the
# last of those has its gradient accumulated, the hook averages every parameter's
# ``.grad`` over the ranks in one collective per dtype (the gradients concatenated, as
# PyTorch's buckets, plus a flag per parameter saying whether some rank used it), and
# writes the averages back in place. A parameter no rank used keeps its ``.grad``, as in
# PyTorch; one that only some ranks used gets the average with zeros for the others.
# Under ``no_sync()`` the forward marks the backward as local: gradients accumulate and
# the next synchronised backward averages the accumulated ones.
#
# Under ``torchlike.compile`` the average is a ``pmean`` inside the step's one program
# (Note [Compiled steps across processes]); there every parameter must be used.
#
# Differences from PyTorch: one collective per dtype after the whole backward instead of
# buckets overlapped with it (in a compiled step XLA schedules it); ``register_comm_hook``
# and ``join`` are not supported, and ``static_graph`` changes nothing.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator

import jax.numpy as jnp
import numpy as np

from ... import distributed as dist
from ..._core.grad_mode import no_grad
from ..._core.interop import from_jax
from ..._core.tensor import Tensor
from ..._ops.creation import zeros
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


def _coalesced(tensors: list, collective) -> list:
    """``collective`` (an in-place ``torchlike.distributed`` call) run once per dtype over
    ``tensors`` concatenated, as PyTorch's buckets; each tensor's piece of the result."""
    import torchlike as tl
    groups: dict = {}
    for i, t in enumerate(tensors):
        groups.setdefault(t.dtype, []).append(i)
    pieces: list = [None] * len(tensors)
    with no_grad():
        for idx in groups.values():
            flat = tl.cat([tensors[i].detach().reshape(-1) for i in idx])
            collective(flat)
            out, off = flat._value, 0
            for i in idx:   # tensors of their own, not views of the bucket
                n = tensors[i].numel()
                pieces[i] = from_jax(out[off:off + n].reshape(tuple(tensors[i].shape)))
                off += n
    return pieces


def _broadcast_tensors(pg, tensors: list, src: int = 0) -> None:
    """Every rank's ``tensors`` become rank ``src``'s."""
    pieces = _coalesced(tensors, lambda flat: dist.broadcast(flat, src, group=pg))
    with no_grad():
        for t, piece in zip(tensors, pieces):
            t.copy_(piece)


def _reachable_leaves(outputs: Any) -> set:
    """ids of the leaf tensors the graphs of ``outputs`` reach."""
    roots = []

    def collect(o):
        if isinstance(o, Tensor):
            if o.grad_fn is not None:
                roots.append(o.grad_fn)
            elif o.requires_grad:
                found.add(id(o))
        elif isinstance(o, (list, tuple)):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)
    found: set = set()
    collect(outputs)
    seen: set = set()
    while roots:
        n = roots.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        var = getattr(n, "variable", None)
        if var is not None:
            found.add(id(var))
        roots.extend(nxt for nxt, _ in n.next_functions)
    return found


class DistributedDataParallel(Module):
    """Mirrors ``torch.nn.parallel.DistributedDataParallel``: wraps ``module`` so that
    ``backward()`` leaves on every rank the gradients averaged over the ranks (Note
    [Gradient averaging in DistributedDataParallel]). Call
    ``torchlike.distributed.init_process_group`` first. ``device_ids`` and
    ``output_device`` apply to accelerator modules only, as in PyTorch."""

    def __init__(self, module: Module, device_ids: list | None = None,
                 output_device: Any = None, dim: int = 0, broadcast_buffers: bool = True,
                 init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False,
                 static_graph: bool = False, delay_all_reduce_named_params: Any = None,
                 param_to_hook_all_reduce: Any = None, mixed_precision: Any = None,
                 device_mesh: Any = None):
        super().__init__()
        pg = process_group if process_group is not None else dist.group.WORLD
        if pg is None:
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        devices = {p.device for _, p in module.named_parameters()}
        if (device_ids is not None or output_device is not None) and \
                all(d.type == "cpu" for d in devices):
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work "
                "with single-device/multiple-device GPU modules or CPU modules, but got "
                f"device_ids {device_ids}, output_device {output_device}, and module "
                f"parameters {devices}.")
        self.module = module
        self.process_group = pg
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._names = [n for n, _ in named]
        self._params = [p for _, p in named]
        self._expected: set = set()
        self._ready: set = set()
        self._sync_backward = False
        if init_sync and pg.size() > 1:
            _broadcast_tensors(pg, self._params + list(module.buffers()))
        ref = weakref.ref(self)

        def hook(p: Tensor) -> None:
            me = ref()
            if me is not None:
                me._grad_ready(p)
        self._hook_handles = [p.register_post_accumulate_grad_hook(hook)
                              for p in self._params]

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        from ..._core.grad_mode import is_grad_enabled
        if self._ready and self._ready != self._expected and self._sync_backward:
            missing = [n for n, p in zip(self._names, self._params)
                       if id(p) in self._expected and id(p) not in self._ready]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before "
                "starting a new one. This error indicates that your module has parameters "
                "that were not used in producing loss. You can enable unused parameter "
                "detection by passing the keyword argument `find_unused_parameters=True` "
                "to `torch.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss. Parameters "
                f"which did not receive grad for rank {self.process_group.rank()}: "
                f"{', '.join(missing)}")
        if self.broadcast_buffers and self.process_group.size() > 1:
            bufs = list(self.module.buffers())
            if bufs:
                _broadcast_tensors(self.process_group, bufs)
        out = self.module(*inputs, **kwargs)
        self._ready = set()
        self._sync_backward = self.require_backward_grad_sync and is_grad_enabled()
        if self.find_unused_parameters:
            reach = _reachable_leaves(out)
            self._expected = {id(p) for p in self._params if id(p) in reach}
        else:
            self._expected = {id(p) for p in self._params}
        return out

    def _grad_ready(self, p: Tensor) -> None:
        if not self._sync_backward:
            return
        self._ready.add(id(p))
        if self._ready >= self._expected:
            self._average_grads()
            self._ready, self._expected = set(), set()

    def _average_grads(self) -> None:
        pg = self.process_group
        params = self._params
        used_any = np.asarray([id(p) in self._ready for p in params], np.int32)
        if dist._c10d.tracing_group() is not None:
            # a compiled step (Note [Compiled steps across processes]): the mask would be a
            # traced value, and every rank's step uses every parameter
            if not used_any.all():
                unused = [n for n, u in zip(self._names, used_any) if not u]
                raise RuntimeError(
                    "inside torchlike.compile every parameter of a DistributedDataParallel "
                    f"module must get a gradient on every rank; unused here: "
                    f"{', '.join(unused)} (run such steps eagerly)")
        elif pg.size() > 1:
            used = from_jax(jnp.asarray(used_any))
            dist.all_reduce(used, op=dist.ReduceOp.MAX, group=pg)
            used_any = np.asarray(used._value)
        grads = [p.grad.detach() if p.grad is not None and id(p) in self._ready
                 else zeros(tuple(p.shape), dtype=p.dtype, device=p.device) for p in params]
        average = (lambda flat: dist.all_reduce(flat, op=dist.ReduceOp.AVG, group=pg)) \
            if pg.size() > 1 else (lambda flat: None)
        with no_grad():
            for p, piece, used_p in zip(params, _coalesced(grads, average), used_any):
                if not used_p:
                    continue
                if p.grad is None:
                    p.grad = piece
                else:
                    p.grad.copy_(piece)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Mirrors ``DistributedDataParallel.no_sync``: backward passes of forwards run
        inside accumulate gradients locally; the first synchronised one averages them."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _set_static_graph(self) -> None:
        self.static_graph = True

    def register_comm_hook(self, state: Any, hook: Any) -> None:
        raise NotImplementedError("torchlike's DistributedDataParallel averages gradients "
                                  "with one all-reduce; communication hooks are not "
                                  "supported")
