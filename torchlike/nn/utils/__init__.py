"""``torchlike.nn.utils``."""
from . import rnn  # noqa: F401,E402

from . import clip_grad, convert_parameters  # noqa: E402,F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: E402
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: E402
from . import parametrizations, parametrize  # noqa: E402,F401
from .weight_norm import (remove_spectral_norm, remove_weight_norm,  # noqa: E402
                          spectral_norm, weight_norm)
from . import fusion, stateless  # noqa: E402
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights,  # noqa: E402
                     fuse_linear_bn_eval, fuse_linear_bn_weights)
from .init import skip_init  # noqa: E402
from .memory_format import (convert_conv2d_weight_memory_format,  # noqa: E402
                            convert_conv3d_weight_memory_format)

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "get_total_norm", "parameters_to_vector", "vector_to_parameters",
           "remove_spectral_norm", "remove_weight_norm", "spectral_norm", "weight_norm",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "fusion", "stateless", "parametrizations",
           "parametrize", "rnn", "clip_grad", "convert_parameters",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
