"""nn layers: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d`` and ``SyncBatchNorm``,
mirroring ``torch.nn``'s classes (parameters ``weight``/``bias``, buffers
``running_mean``/``running_var``/``num_batches_tracked`` in PyTorch's order,
``extra_repr`` text, train/eval behaviour).

In training the batch statistics normalise the input and update the running ones
(momentum, or the cumulative average when ``momentum=None``); in evaluation the running
statistics are used. The cumulative-average factor ``1 / num_batches_tracked`` stays a
tensor, so a compiled training step never reads it on the host.
"""

from __future__ import annotations

from typing import Any

from ..._core import dtype as _dt
from ..._core.grad_mode import no_grad
from ..._core.tensor import Tensor
from ..._ops.creation import empty, ones, tensor, zeros
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Common base of the batch and instance norm layers (PyTorch's ``_NormBase``)."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked",
                                 tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, *args) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked
                                   if self.num_batches_tracked is not None
                                   else tensor(0, dtype=_dt.int64))
        # ``*args``: Module here passes ``assign`` positionally after ``error_msgs``
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs, *args)


class _BatchNorm(_NormBase):
    def _factor_and_count(self):
        """PyTorch's ``exponential_average_factor`` (counting the batch when tracked)."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                with no_grad():
                    self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    factor = 1.0 / self.num_batches_tracked
        return factor

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = self._factor_and_count()
        if self.training:
            bn_training = True
        else:
            bn_training = self.running_mean is None and self.running_var is None
        use_buffers = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_buffers else None,
                            self.running_var if use_buffers else None, self.weight,
                            self.bias, bn_training, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Mirrors ``torch.nn.BatchNorm1d``: inputs (N, C) or (N, C, L)."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Mirrors ``torch.nn.BatchNorm2d``: inputs (N, C, H, W)."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Mirrors ``torch.nn.BatchNorm3d``: inputs (N, C, D, H, W)."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Mirrors ``torch.nn.SyncBatchNorm``: in training inside a ``torchlike.distributed``
    run of several ranks, the statistics are those of the batches of every rank of
    ``process_group`` (the default group when None), Note [Synchronised batch
    statistics]; otherwise it is a batch norm of the local batch.
    ``convert_sync_batchnorm`` swaps every batch norm layer of a model for this one,
    sharing parameters and buffers.

    Difference from PyTorch: it synchronises CPU tensors too (PyTorch's CPU kernels
    refuse to, with a ValueError). Inside a compiled step its collectives run in the
    step's program (Note [Compiled steps across processes])."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any | None = None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        from ... import distributed as dist
        group = self.process_group or dist.group.WORLD
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        if not (self.training and bn_training and group is not None and group.size() > 1):
            return super().forward(input)
        factor = self._factor_and_count()
        from ._sync_batchnorm import sync_batch_norm
        track = self.track_running_stats
        return sync_batch_norm(input, self.weight, self.bias,
                               self.running_mean if track else None,
                               self.running_var if track else None, self.eps, factor, group)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """Mirrors ``torch.nn.SyncBatchNorm.convert_sync_batchnorm``."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats,
                                          process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
