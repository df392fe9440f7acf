"""Lazy modules: ``LazyModuleMixin`` and the lazy layers of ``torch.nn`` (``LazyLinear``,
``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``,
``LazyInstanceNorm1d/2d/3d``).

# Note [Lazy modules]
# As in PyTorch, a lazy layer is its concrete layer built with zero input features whose
# parameters and buffers are then replaced by ``UninitializedParameter``/
# ``UninitializedBuffer`` placeholders. A forward pre-hook (``_infer_parameters``) reads
# the first input's feature size, materializes the placeholders, runs the concrete
# layer's ``reset_parameters``, removes itself and the load hook, and swaps the module's
# class for ``cls_to_become`` (``type(m) is nn.Linear`` afterwards). A load pre-hook
# materializes the placeholders that a ``state_dict`` gives values for.
#
# Under ``torchlike.compile`` the first call refuses: the parameters it would create are
# new state whose initial values the compiled program would have to produce, and the
# module's class and hooks would change while the program is traced (Python side
# effects happen once per trace). One eager forward with a dummy batch first, then
# compile, as PyTorch's documentation recommends ("dry runs") anyway.
"""

from __future__ import annotations

import itertools
from typing import Any

from ..._compile import _tracing
from ..._core import dtype as _dt
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..._ops.creation import tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                   ConvTranspose3d)
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear
from .module import Module

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_COMPILE_FIRST_CALL = (
    "torchlike.compile: {name} has uninitialized parameters, which its first forward "
    "would create while the program is traced. Run one eager forward with a dummy batch "
    "first (e.g. `model(example_input)`), then compile:\n"
    "    model = MyLazyModel()\n"
    "    model(torchlike.zeros(batch_shape))   # materializes the lazy layers\n"
    "    step = torchlike.compile(step)")


class LazyModuleMixin(Module):
    """Mirrors ``torch.nn.modules.lazy.LazyModuleMixin``: parameters and buffers stay
    ``UninitializedParameter``/``UninitializedBuffer`` until the first forward infers
    their shapes (``initialize_parameters``); the module then becomes
    ``cls_to_become``. Loading a ``state_dict`` with values materializes them too.

    Differences: the first forward inside ``torchlike.compile`` raises a RuntimeError
    asking for one eager forward first (Note [Lazy modules]); the mixin derives from
    ``Module`` (PyTorch's from ``object``), which lets Python swap the instance's class
    for ``cls_to_become`` with torchlike's ``Module`` layout."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        # the placeholders themselves, not detached aliases (PyTorch's ``detach`` refuses
        # them), so that the entries print and load as uninitialized
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):
            if is_lazy(t) and prefix + name in destination:
                destination[prefix + name] = t

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs) -> None:
        """Load pre-hook: materializes each placeholder whose entry in ``state_dict`` is
        initialized, so that the load copies into it."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize the parameters from the first input's properties (each lazy layer
        overrides it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Mirrors ``LazyModuleMixin.has_uninitialized_params``: whether a parameter or
        buffer of this module (not its children) is still uninitialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        """The forward pre-hook that initializes the module from its first input."""
        if _tracing.current() is not None and module.has_uninitialized_params():
            raise RuntimeError(_COMPILE_FIRST_CALL.format(name=module._get_name()))
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


# ---------------------------------------------------------------------------- linear
class LazyLinear(LazyModuleMixin, Linear):
    """Mirrors ``torch.nn.LazyLinear``: a ``Linear`` whose ``in_features`` is inferred
    from ``input.shape[-1]`` on the first forward; it then becomes a ``Linear``."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        # bias=False: no tensor that would be replaced at once
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


# ---------------------------------------------------------------------------- conv
class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input's channel dimension (PyTorch's
    ``_LazyConvXdMixin``)."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                         *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                         *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        num_dims_no_batch = self._nd + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D "
                               f"(batched) input to {self.__class__.__name__}, but got input "
                               f"of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None) -> None:
        # bias=False: no tensor that would be replaced at once
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        _lazy_conv_params(self, out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        _lazy_conv_params(self, out_channels, bias, device, dtype)


def _lazy_conv_params(self, out_channels: int, bias: bool, device, dtype) -> None:
    self.weight = UninitializedParameter(device=device, dtype=dtype)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """Mirrors ``torch.nn.LazyConv1d``: a ``Conv1d`` whose ``in_channels`` is inferred
    from the first input (``input.size(1)``, ``size(0)`` unbatched); it then becomes a
    ``Conv1d``."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """Mirrors ``torch.nn.LazyConv2d`` (see ``LazyConv1d``); becomes a ``Conv2d``."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """Mirrors ``torch.nn.LazyConv3d`` (see ``LazyConv1d``); becomes a ``Conv3d``."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """Mirrors ``torch.nn.LazyConvTranspose1d``: a ``ConvTranspose1d`` whose
    ``in_channels`` is inferred from the first input; it then becomes a
    ``ConvTranspose1d``."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """Mirrors ``torch.nn.LazyConvTranspose2d`` (see ``LazyConvTranspose1d``)."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """Mirrors ``torch.nn.LazyConvTranspose3d`` (see ``LazyConvTranspose1d``)."""

    cls_to_become = ConvTranspose3d


# ---------------------------------------------------------------------------- norm
class _LazyNormBase(LazyModuleMixin, _NormBase):
    """``num_features`` from the first input's ``shape[1]`` (PyTorch's
    ``_LazyNormBase``)."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        # affine, bias and track_running_stats off: no tensors replaced at once
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = tensor(0, dtype=_dt.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """Mirrors ``torch.nn.LazyBatchNorm1d``: a ``BatchNorm1d`` whose ``num_features`` is
    inferred from ``input.shape[1]`` on the first forward; it then becomes a
    ``BatchNorm1d``."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """Mirrors ``torch.nn.LazyBatchNorm2d`` (see ``LazyBatchNorm1d``)."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """Mirrors ``torch.nn.LazyBatchNorm3d`` (see ``LazyBatchNorm1d``)."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """Mirrors ``torch.nn.LazyInstanceNorm1d``: an ``InstanceNorm1d`` whose
    ``num_features`` is inferred from ``input.shape[1]`` on the first forward; it then
    becomes an ``InstanceNorm1d``. Defaults as PyTorch's lazy layer: ``affine=True``,
    ``track_running_stats=True`` (``InstanceNorm1d``'s are False)."""

    cls_to_become = InstanceNorm1d
    _check_input_dim = InstanceNorm1d._check_input_dim
    _get_no_batch_dim = InstanceNorm1d._get_no_batch_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """Mirrors ``torch.nn.LazyInstanceNorm2d`` (see ``LazyInstanceNorm1d``)."""

    cls_to_become = InstanceNorm2d
    _check_input_dim = InstanceNorm2d._check_input_dim
    _get_no_batch_dim = InstanceNorm2d._get_no_batch_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """Mirrors ``torch.nn.LazyInstanceNorm3d`` (see ``LazyInstanceNorm1d``)."""

    cls_to_become = InstanceNorm3d
    _check_input_dim = InstanceNorm3d._check_input_dim
    _get_no_batch_dim = InstanceNorm3d._get_no_batch_dim
