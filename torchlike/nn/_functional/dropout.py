"""``torch.nn.functional`` dropout family: ``dropout``, ``dropout1d/2d/3d``,
``alpha_dropout``, ``feature_alpha_dropout``.

As on PyTorch's CPU path, the result is ``input * noise`` (``MulBackward0``; alpha
dropout adds a shift, ``AddBackward0``). The noise comes from the default torchlike
generator, one fresh key per call (``_ops/nn_norm.dropout_noise``): masks differ from
call to call and repeat after ``torchlike.manual_seed``; the values differ from
PyTorch's (another generator). In evaluation (``training=False``), with ``p=0`` or an
empty input, ``input`` itself is returned.
"""

from __future__ import annotations

import warnings

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.bind import dtype_short_name
from ..._ops.nn_norm import dropout_noise

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input: Tensor, p: float, train: bool, inplace: bool, feature: bool,
             alpha: bool) -> Tensor:
    """ATen's ``_dropout_impl``."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        from ..._ops.creation import zeros
        zero = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input.mul(zero)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{dtype_short_name(input.dtype)}")
    scale, shift = dropout_noise(input, p, feature=feature, alpha=alpha)
    if inplace:
        input.mul_(scale)
        return input if shift is None else input.add_(shift)
    out = input.mul(scale)
    return out if shift is None else out.add(shift)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.dropout``: zero each element with probability ``p``
    and scale the kept ones by ``1 / (1 - p)``."""
    _check_p(p)
    return _dropout(input, p, training, inplace, False, False)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    return _dropout(input, p, training, inplace, True, False)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.dropout1d``: zero whole channels of (N, C, L) or
    (C, L) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.dropout2d``: zero whole channels (dim 1)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout2d exists to provide channel-wise dropout on inputs "
                      "with 2 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.dropout3d``: zero whole channels of (N, C, D, H, W)
    or (C, D, H, W) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain "
                      "the behavior and silence this warning, please use dropout instead. "
                      "Note that dropout3d exists to provide channel-wise dropout on inputs "
                      "with 3 spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.alpha_dropout``: dropout that keeps the SELU
    self-normalising mean and variance (dropped units go to the SELU saturation value,
    then an affine correction)."""
    _check_p(p)
    return _dropout(input, p, training, inplace, False, True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.feature_alpha_dropout``: alpha dropout of whole
    channels."""
    _check_p(p)
    return _dropout(input, p, training, inplace, True, True)
