"""torchlike: PyTorch-style code running on JAX.

``import torchlike as torch`` and write tensors, autograd, ``nn`` and ``optim`` code as
for PyTorch; it runs on CPU, GPU or TPU through XLA. This module only re-exports.
"""

import jax as _jax

# PyTorch has int64/float64; JAX needs x64 enabled for them. float32 stays the default.
_jax.config.update("jax_enable_x64", True)

# Numeric constants, as ``torch.e``/``pi``/``inf``/``nan`` (Python floats from ``math``) and
# ``torch.newaxis`` (None, for indexing)
from math import e, inf, nan, pi  # noqa: E402

newaxis: None = None

from ._core.dtype import (bfloat16, bool, complex64, complex128, dtype, float16,  # noqa: E402
                          float32, float64, get_default_dtype, int8, int16, int32, int64,
                          promote_types, result_type, set_default_dtype, uint8, can_cast)
from ._core.dtype import ALIASES as _ALIASES  # noqa: E402
from ._core.device import device  # noqa: E402
from ._core.memory_formats import (channels_last, channels_last_3d,  # noqa: E402
                                   contiguous_format, legacy_contiguous_format,
                                   memory_format, preserve_format)
from ._core.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402
                              is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._core.size import Size  # noqa: E402
from ._core.tensor import Tensor, is_inference, is_tensor  # noqa: E402
from ._core.printing import get_printoptions, set_printoptions  # noqa: E402
from . import _ops  # noqa: E402
from . import linalg  # noqa: E402
from . import fft  # noqa: E402
from . import special  # noqa: E402
from ._ops.creation import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor,  # noqa: E402,E501
                            DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
                            ShortTensor)
from ._core.random import (Generator, default_generator, get_rng_state,  # noqa: E402
                           initial_seed, manual_seed, seed, set_rng_state)
from ._ops.random import (bernoulli, binomial, multinomial, normal, poisson, rand,  # noqa: E402,E501
                          rand_like, randint, randint_like, randn, randn_like, randperm)
from ._ops.creation import (arange, as_tensor, asarray, empty, empty_like, eye,  # noqa: E402
                            from_numpy, full, full_like, linspace, logspace, ones, ones_like,
                            range, scalar_tensor, tensor, zeros, zeros_like)
from . import _tensor_str, autograd, backends, cuda, nn, return_types, testing  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402,E501
from . import serialization  # noqa: E402
from . import accelerator, distributed, multiprocessing  # noqa: E402,F401
from .serialization import load, save  # noqa: E402

globals().update(_ops.FUNCTIONS)
from ._ops.indexing import index_put  # noqa: E402
from .nn.functional import celu_, selu_, threshold_  # noqa: E402
globals().update(_ALIASES)
del _ALIASES

from . import optim, utils  # noqa: E402
from ._core.interop import from_dlpack, from_jax  # noqa: E402
from . import func  # noqa: E402
from .func import vmap  # noqa: E402  (torch.vmap is torch.func.vmap)
from ._core.dtype_info import *  # noqa: E402,F401,F403
from ._core.runtime import *  # noqa: E402,F401,F403
from ._ops.windows import *  # noqa: E402,F401,F403
from ._compile.compile import compile  # noqa: E402
from . import compiler, random  # noqa: E402,F401
from . import quasirandom  # noqa: E402,F401
from ._ops.segments import segment_reduce  # noqa: E402,F401
from ._ops.lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401
from .random import thread_safe_generator  # noqa: E402,F401
from ._lobpcg import lobpcg  # noqa: E402,F401
from ._streams import Event, Stream  # noqa: E402
from .cuda.memory import AcceleratorError, OutOfMemoryError  # noqa: E402
from .utils.dlpack import to_dlpack  # noqa: E402
from .control_flow import cond, while_loop  # noqa: E402
from ._core.layout import (jagged, layout, sparse_bsc, sparse_bsr, sparse_coo,  # noqa: E402
                           sparse_csc, sparse_csr, strided)
from ._core.symbolic import *  # noqa: E402,F401,F403
from ._ops.legacy import (eig, frobenius_norm, lstsq, matrix_rank, nuclear_norm,  # noqa: E402
                          solve, symeig)
from .amp import GradScaler  # noqa: E402  (torch.GradScaler is torch.amp.GradScaler)
from . import jit  # noqa: E402
from . import amp, cpu  # noqa: E402
from . import onnx  # noqa: E402,F401  (imports the onnx package only to export)
from . import distributions  # noqa: E402,F401
from .amp import autocast  # noqa: E402
from ._core.autocast_state import *  # noqa: E402,F401,F403
from . import overrides  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401
from ._ops.torch_function import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401,E501
from . import functional, signal, version  # noqa: E402,F401
from .version import __version__  # noqa: E402,F401
