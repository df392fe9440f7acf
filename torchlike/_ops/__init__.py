"""The op table and its families. Importing this package declares every op and binds
functions, methods, in-place variants and operators onto ``torchlike`` and ``Tensor``."""

from . import (  # noqa: F401  (each module declares its family of ops)
    arithmetic,
    combinatorics,
    complex_ops,
    copy_variants,
    comparison,
    counting,
    creation,
    cumulative,
    elementwise,
    fft_ops,
    finite_differences,
    histogram,
    index_ops,
    indexing,
    joining,
    linalg,
    nn_activation,
    nn_conv,
    nn_fractional,
    nn_linear_cross_entropy,
    nn_loss,
    nn_norm,
    nn_pool,
    nn_resample,
    nn_seq,
    random,
    reduction,
    scatter,
    segments,
    shape,
    sorting,
    special_bessel,
    special_functions,
    spectral,
    splitting,
    statistics,
    strided,
    tensor_surface,
    torch_level,
    view_scatter,
    views,
)
from .bind import FUNCTIONS, bind_all

bind_all()

__all__ = ["FUNCTIONS"]
