"""nn layers: ``InstanceNorm1d``, ``InstanceNorm2d``, ``InstanceNorm3d``, mirroring
``torch.nn``'s classes (defaults ``affine=False``, ``track_running_stats=False``;
unbatched inputs; the num_features check and warning)."""

from __future__ import annotations

import warnings

from ..._core.tensor import Tensor
from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _get_no_batch_dim(self) -> int:
        raise NotImplementedError

    def _handle_no_batch_input(self, input: Tensor) -> Tensor:
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, *args) -> None:
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            running_stats_keys = [prefix + n for n in ("running_mean", "running_var")
                                  if prefix + n in state_dict]
            if running_stats_keys:
                klass = self.__class__.__name__
                names = " and ".join(f'"{k}"' for k in running_stats_keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with "
                    f"track_running_stats=False. If state_dict is a checkpoint saved before "
                    f"0.4.0, this may be expected because {klass} does not track running "
                    f"stats by default since 0.4.0. Please remove these keys from "
                    f"state_dict. If the running stats are actually needed, instead set "
                    f"track_running_stats=True in {klass} to enable them. See the "
                    f"documentation of {klass} for details.")
                for key in running_stats_keys:
                    state_dict.pop(key)
        # ``*args``: Module here passes ``assign`` positionally after ``error_msgs``
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs, *args)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            else:
                warnings.warn(f"input's size at dim={feature_dim} does not match "
                              f"num_features. You can silence this warning by not passing in "
                              f"num_features, which is not used because affine=False",
                              stacklevel=2)
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Mirrors ``torch.nn.InstanceNorm1d``: inputs (N, C, L) or (C, L)."""

    def _get_no_batch_dim(self) -> int:
        return 2

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Mirrors ``torch.nn.InstanceNorm2d``: inputs (N, C, H, W) or (C, H, W)."""

    def _get_no_batch_dim(self) -> int:
        return 3

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Mirrors ``torch.nn.InstanceNorm3d``: inputs (N, C, D, H, W) or (C, D, H, W)."""

    def _get_no_batch_dim(self) -> int:
        return 4

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")
