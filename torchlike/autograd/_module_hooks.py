"""Module-level backward hooks (``register_full_backward_hook`` and
``register_full_backward_pre_hook``), built as PyTorch builds them.

# Note [Module backward hooks]
# A module's inputs and outputs that require grad pass through an identity
# ``Function`` (``BackwardHookFunctionBackward``). A pre-hook on the output node sees
# ``grad_output`` first (and runs the module's backward pre-hooks, which may replace it);
# a hook on the input node sees the gradients w.r.t. the module's inputs and runs the
# full backward hooks, which may replace ``grad_input``. When no input requires grad,
# the hooks run at the output node with ``grad_input`` all None.
"""

from __future__ import annotations

from .._core.grad_mode import is_grad_enabled
from .._core.tensor import Tensor
from .function import Function

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """Identity over tensors; its node carries the module hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if isinstance(a, Tensor)
                                      and not a.requires_grad])
        return tuple(a.view_as(a) if isinstance(a, Tensor) else a for a in args)

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """Mirrors ``torch.utils.hooks.BackwardHook``."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if not isinstance(new_tensors, tuple):
            new_tensors = (new_tensors,)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and
                    t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue "
                               "with a code sample to reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def setup_input_hook(self, args):
        def fn(grad_fn):
            def hook(grad_input, _grad_output):
                res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if not isinstance(out, tuple):
                        out = (out,)
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of "
                                           f"grad_input, got {len(out)}, but expected "
                                           f"{len(res)}")
                    res = out
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, res)
            grad_fn.register_hook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, idx = self._apply_on_tensors(fn, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res if is_tuple else res[0]

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index,
                                                         grad_output, self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        if not isinstance(hook_grad_outputs, tuple):
                            hook_grad_outputs = (hook_grad_outputs,)
                        if len(hook_grad_outputs) != expected_len:
                            raise RuntimeError(
                                "Backward pre hook returned an invalid number of grad_output, "
                                f"got {len(hook_grad_outputs)}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                if self.input_tensors_index is None:
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and
                                                    all(el is None for el in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                if self.grad_outputs is not None:
                    return self._unpack_none(self.output_tensors_index, self.grad_outputs)
                return None
            grad_fn.register_prehook(hook)

        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res if is_tuple else res[0]
