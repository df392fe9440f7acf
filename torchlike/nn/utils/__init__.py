"""``torchlike.nn.utils``."""
from . import rnn  # noqa: F401,E402

from . import clip_grad, convert_parameters  # noqa: E402,F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: E402
                        clip_grads_with_norm_, get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: E402
from . import parametrizations, parametrize  # noqa: E402,F401
from .weight_norm import (remove_spectral_norm, remove_weight_norm,  # noqa: E402
                          spectral_norm, weight_norm)
