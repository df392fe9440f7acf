"""``torch.X`` functions with a torch-level signature of their own: the ATen forms of
losses (``reduction`` as an int: 0 none, 1 mean, 2 sum, as ``torch.nn._reduction``'s
enum; Note [The default reduction of torch-level losses]), ``rrelu`` with a generator,
``embedding_bag``'s four results, the ``native_*`` kernels, ``convolution``/``conv_tbc``,
the RNN cells, ``batch_norm_update_stats``, ``nonzero_static`` and the ``unsafe_*``
splits, plus ``is_same_size`` and ``empty_permuted``.

Where ``torchlike.nn.functional`` already computes what ATen computes, the function here
calls it (or its table op); what is new is declared in the op table below. Each function
mirrors the ``torch`` function of the same name: signature, defaults, results, autograd
node names and errors, differences in its docstring.
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.autocast_state import _state as _autocast_state
from .autocast_policy import autocast_function, device_type_of
from .._core.grad_mode import no_grad
from .._core.storage import VersionCounter
from .._core.tensor import Tensor, wrap_dim
from ._common import shape_str
from .bind import FUNCTIONS, check_inplace_target, dtype_short_name, inplace_apply
from .dispatch import call_op
from .nn_conv import _conv_check, _conv_fn, _conv_transpose_fn
from .nn_conv_lowering import conv_forward
from .nn_norm import (_group_norm, _group_norm_check, _int_list_arg, _layer_norm,
                      _layer_norm_check, _norm_shape, _opmath, dropout_noise)
from .samples import S, arr
from .spec import OpSpec, register
from .splitting import (_chunk_fn, _chunk_meta, _split_fn, _split_meta,
                        _split_with_sizes_meta)
from .strided import _int_arg, _int_tuple, _tensor_arg, empty_strided

__all__: list = []


def _public(fn, name: str | None = None):
    """Export ``fn`` as ``torchlike.<name>``."""
    name = name or fn.__name__
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "torchlike"
    FUNCTIONS[name] = fn
    return fn


@_public
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Mirrors ``torch.is_same_size(input, other)``: ``input.is_same_size(other)``."""
    _tensor_arg("is_same_size", "input", 1, input)
    _tensor_arg("is_same_size", "other", 2, other)
    return input.is_same_size(other)


@_public
def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype=None,
                   layout=None, device=None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """Mirrors ``torch.empty_permuted(size, physical_layout, ...)``: a tensor of shape
    ``size`` laid out in memory in the order ``physical_layout`` (outermost first), that
    is ``empty(size permuted).permute(inverse)`` without being a view. Difference: the
    memory is zero-filled."""
    size = _int_tuple("empty_permuted", "size", 1, size)
    perm = _int_tuple("empty_permuted", "physical_layout", 2, physical_layout)
    nd = len(size)
    if len(perm) != nd:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {nd} is not equal to "
                           f"len(physical_layout) = {len(perm)}")
    seen = set()
    for i, p in enumerate(perm):
        if not 0 <= p < nd:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{nd - 1}, but got {p} at index {i}).  NB: negative dims not "
                               "currently supported; file an issue if you want it.")
        if p in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(p)
    stride, acc = [0] * nd, 1
    for p in reversed(perm):
        stride[p] = acc
        acc *= max(size[p], 1)
    return empty_strided(size, stride, dtype=dtype, device=device,
                         requires_grad=requires_grad)


# ---------------------------------------------------------------------------
# nonzero_static
def _nonzero_static_fn(input, size, fill_value=-1):
    if input.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    if input.size == 0:   # (jnp.nonzero leaves fill_value out for an empty input)
        return jnp.full((size, input.ndim), fill_value, jnp.int64)
    idx = jnp.nonzero(input, size=size, fill_value=fill_value)
    return jnp.stack([i.astype(jnp.int64) for i in idx], axis=1)


def _nonzero_static_check(input, size, fill_value=-1):
    _int_arg("nonzero_static", "size", None, size)
    _int_arg("nonzero_static", "fill_value", None, fill_value)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")


register(OpSpec(
    "nonzero_static", _nonzero_static_fn, "input, *, size, fill_value=-1", promote="none",
    differentiable=False, check=_nonzero_static_check,
    doc="Mirrors ``torch.nonzero_static(input, *, size, fill_value=-1)``: ``nonzero`` "
        "padded with ``fill_value`` rows (or cut) to exactly ``size`` rows; unlike "
        "``nonzero`` it also works inside compiled functions.",
    samples=lambda: [
        S(np.array([[0, 1, 0], [2, 0, 3]], np.int64), size=2),
        S(np.array([[0, 1, 0], [2, 0, 3]], np.int64), size=5),
        S(np.array([[0.0, 1.5], [0.0, -2.0]], np.float32), size=4, fill_value=7),
        S(arr(2, 3, 4, dtype="bool"), size=6, method=True), S(np.array(3.0, np.float32), size=2),
        S(np.array([True, False]), size=3, fill_value=-5), S(arr(2, 0), size=2),
        S(arr(5), size=0)]))


# ---------------------------------------------------------------------------
# unsafe_split / unsafe_split_with_sizes / unsafe_chunk
# Note [Unsafe splits]: the pieces share their input's memory, as ``split``'s views do,
# but are not views: ``_base`` is None and each has its own version counter, so writing
# a piece in place goes unnoticed by autograd on the input (PyTorch's "unsafe").
for _name, _fn, _meta, _sig, _grad in (
        ("_unsafe_split", _split_fn, _split_meta, "input, split_size, dim=0",
         "UnsafeSplitBackward0"),
        ("_unsafe_split_with_sizes", _split_fn, _split_with_sizes_meta,
         "input, split_sizes, dim=0", "UnsafeSplitWithSizesBackward0"),
        ("_unsafe_chunk", _chunk_fn, _chunk_meta, "input, chunks, dim=0",
         "UnsafeSplitBackward0")):
    register(OpSpec(_name, _fn, _sig, promote="none", view=_meta, check=_meta, saves=False,
                    grad_name=_grad, function=False, method=False,
                    doc=f"Kernel of ``torch.{_name[1:]}`` (Note [Unsafe splits])."))


def _unsafe(op: str, input: Tensor, arg, dim: int) -> tuple:
    pieces = call_op(op, input, arg, dim)
    for p in pieces:
        p._base, p._vc = None, VersionCounter()
    return pieces


def _split_arg(fname: str, name: str, v, sizes: bool):
    if sizes:
        return list(_int_tuple(fname, name, 2, v))
    return _int_arg(fname, name, 2, v)


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """Mirrors ``torch.unsafe_split``: ``split`` with an int size, whose pieces share the
    input's memory without being views of it (Note [Unsafe splits])."""
    _tensor_arg("unsafe_split", "input", 1, input)
    return _unsafe("_unsafe_split", input,
                   _split_arg("unsafe_split", "split_size", split_size, False), dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """Mirrors ``torch.unsafe_split_with_sizes``: ``split_with_sizes`` whose pieces are not
    views (Note [Unsafe splits])."""
    _tensor_arg("unsafe_split_with_sizes", "input", 1, input)
    return _unsafe("_unsafe_split_with_sizes", input,
                   _split_arg("unsafe_split_with_sizes", "split_sizes", split_sizes, True),
                   dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Mirrors ``torch.unsafe_chunk``: ``chunk`` whose pieces are not views (Note [Unsafe
    splits])."""
    _tensor_arg("unsafe_chunk", "input", 1, input)
    return _unsafe("_unsafe_chunk", input, _split_arg("unsafe_chunk", "chunks", chunks, False),
                   dim)


def _function_and_method(fn):
    """Export ``fn`` as ``torchlike.<name>`` and ``Tensor.<name>``."""
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__, m.__qualname__, m.__doc__ = fn.__name__, "Tensor." + fn.__name__, fn.__doc__
    setattr(Tensor, fn.__name__, m)
    return _public(fn)


for _f in (unsafe_split, unsafe_split_with_sizes, unsafe_chunk):
    _function_and_method(_f)


# ---------------------------------------------------------------------------
# losses with ATen's int reduction
# Note [The default reduction of torch-level losses]
# PyTorch's stubs give ``reduction=1`` (the mean) as the default of ``torch.kl_div``,
# ``torch.hinge_embedding_loss`` and the other losses here, but its Python binding reads
# the C++ default ``at::Reduction::Mean`` as 0: called without ``reduction``, they return
# the unreduced loss. torchlike mirrors what PyTorch does, so their default is 0.
def _reduction(fname: str, pos: int | None, reduction) -> str:
    """ATen's ``Reduction`` enum as ``nn.functional``'s string: 1 mean, 2 sum, any other
    int none (ATen's ``apply_loss_reduction``)."""
    if not isinstance(reduction, (int, np.integer)) or isinstance(reduction, bool):
        where = f" (position {pos})" if pos is not None else ""
        raise TypeError(f"{fname}(): argument 'reduction'{where} must be int, not "
                        f"{type(reduction).__name__}")
    return {1: "mean", 2: "sum"}.get(int(reduction), "none")


def _F():
    from ..nn import functional
    return functional


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    from ..nn._functional.loss import _apply_reduction
    return _apply_reduction(loss, reduction)


@_public
@autocast_function("kl_div")
def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *,
           log_target: bool = False) -> Tensor:
    """Mirrors ``torch.kl_div(input, target, reduction=1, *, log_target=False)``: the
    pointwise KL divergence of ``nn.functional.kl_div`` reduced by ATen's enum (no
    ``'batchmean'``, no warning for the mean)."""
    red = _reduction("kl_div", 3, reduction)
    if input.dtype.is_complex or target.dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    return _reduce(_F().kl_div(input, target, reduction="none", log_target=log_target), red)


@_public
@autocast_function("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """Mirrors ``torch.cosine_embedding_loss`` (``reduction`` an int)."""
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction("cosine_embedding_loss", 5,
                                                           reduction))


@_public
@autocast_function("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: int = 0) -> Tensor:
    """Mirrors ``torch.hinge_embedding_loss`` (``reduction`` an int)."""
    return _F().hinge_embedding_loss(input, target, margin,
                                     reduction=_reduction("hinge_embedding_loss", 4,
                                                          reduction))


@_public
@autocast_function("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """Mirrors ``torch.margin_ranking_loss``: ``max(0, -target * (input1 - input2) +
    margin)`` with broadcasting (the equal-dimensions check is ``nn.functional``'s)."""
    red = _reduction("margin_ranking_loss", 5, reduction)
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), red)


@_public
@autocast_function("poisson_nll_loss")
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """Mirrors ``torch.poisson_nll_loss`` (every argument required, ``reduction`` an
    int)."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction("poisson_nll_loss", 6, reduction))


@_public
@autocast_function("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: int = 0) -> Tensor:
    """Mirrors ``torch.triplet_margin_loss`` (``reduction`` an int; any margin, where
    ``nn.functional``'s requires a positive one)."""
    from ..nn._functional.loss import _check_triplet_dims
    red = _reduction("triplet_margin_loss", 8, reduction)
    _check_triplet_dims(anchor, positive, negative)
    F = _F()
    d_pos = F.pairwise_distance(anchor, positive, p, eps)
    d_neg = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(F.pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), red)


@_public
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """Mirrors ``torch.ctc_loss`` (``reduction`` an int; the lengths a tensor or a
    sequence of ints), the computation of ``nn.functional.ctc_loss``."""
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction("ctc_loss", 6, reduction), zero_infinity)


@_public
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: int = 0) -> Tensor:
    """Mirrors ``torch.binary_cross_entropy_with_logits`` (``reduction`` an int; without
    ``nn.functional``'s same-size check)."""
    return call_op("binary_cross_entropy_with_logits", input, target, weight, pos_weight,
                   _reduction("binary_cross_entropy_with_logits", 5, reduction))


# ---------------------------------------------------------------------------
# rrelu with a generator
def _rrelu(input: Tensor, lower, upper, training: bool, generator, inplace: bool) -> Tensor:
    from .creation import empty_like
    if training:
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for '
                                      f"'{dtype_short_name(input.dtype)}'")
        r = empty_like(input.detach()).uniform_(lower, upper, generator=generator)
        noise = r.where(input.detach() <= 0, 1.0)
    else:
        noise = input.detach()
    if inplace:
        check_inplace_target(input)
    out = call_op("rrelu_with_noise", input, noise, lower, upper, training)
    return inplace_apply(input, out, "rrelu_") if inplace else out


@_public
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator=None) -> Tensor:
    """Mirrors ``torch.rrelu(input, lower=1/8, upper=1/3, training=False,
    generator=None)``: in training each non-positive element is scaled by a slope drawn
    from ``U(lower, upper)`` with ``generator`` (the default one when None; the draws
    differ from PyTorch's), in evaluation by ``(lower + upper) / 2``
    (``RreluWithNoiseBackward0``)."""
    return _rrelu(input, lower, upper, training, generator, False)


@_public
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator=None) -> Tensor:
    """Mirrors ``torch.rrelu_``: ``rrelu`` in place."""
    return _rrelu(input, lower, upper, training, generator, True)


# ---------------------------------------------------------------------------
# embedding_bag: the output and ATen's CPU bookkeeping results
def _embedding_bag_aux(weight, indices, offsets, mode, include_last_offset, padding_idx,
                       fast):
    n, it = indices.shape[0], offsets.dtype
    nbags = offsets.shape[0] - (1 if include_last_offset else 0)
    bag = jnp.searchsorted(offsets[:nbags], jnp.arange(n), side="right") - 1
    offset2bag = jnp.zeros((0,), it) if fast else bag.astype(it)
    if mode == 0:
        zeros = jnp.zeros((nbags,), it)
        return offset2bag, zeros, zeros
    keep = jnp.ones((n,), bool) if padding_idx is None or padding_idx < 0 else \
        indices != padding_idx
    bag_size = jax.ops.segment_sum(keep.astype(it), bag, nbags)
    if mode == 1:
        return offset2bag, bag_size, bag_size
    if n == 0:
        return offset2bag, bag_size, jnp.zeros((nbags, weight.shape[1]), it)
    rows = weight[indices]
    best = jax.ops.segment_max(jnp.where(keep[:, None], rows, -jnp.inf), bag, nbags)
    pos = jnp.where(keep[:, None] & (rows == best[bag]), jnp.arange(n)[:, None], n)
    first = jax.ops.segment_min(pos, bag, nbags)     # the first maximum, as ATen's loop
    max_indices = jnp.where(first < n, indices[jnp.minimum(first, n - 1)], 0)
    return offset2bag, bag_size, max_indices.astype(it)


register(OpSpec(
    "_embedding_bag_aux", _embedding_bag_aux,
    "weight, indices, offsets, mode, include_last_offset, padding_idx, fast",
    tensor_args=("weight", "indices", "offsets"), promote="none", differentiable=False,
    function=False, method=False,
    doc="``offset2bag``, ``bag_size`` and ``max_indices`` of ``torch.embedding_bag`` as "
        "ATen's CPU kernel makes them."))


@_public
def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple:
    """Mirrors ``torch.embedding_bag(weight, indices, offsets, ...)`` (``mode`` 0 sum,
    1 mean, 2 max; ``padding_idx`` None or negative: none): ``(output, offset2bag,
    bag_size, max_indices)``. ``output`` is ``nn.functional.embedding_bag``'s; the other
    three are what ATen's CPU kernel returns for its backward: ``offset2bag`` the bag of
    each index (empty on its fast path, a sum over float32/float16/bfloat16 weights
    without padding), ``bag_size`` the non-padding count per bag (zeros for a sum),
    ``max_indices`` the index chosen per bag and column for a max (``bag_size`` for a
    mean, zeros for a sum). ``scale_grad_by_freq`` is ignored for a max, as PyTorch.

    Differences: ``sparse=True`` raises ``NotImplementedError`` (no sparse gradients);
    ``scale_grad_by_freq`` divides each row's gradient by its own index's count, as
    PyTorch's CUDA kernel (see Note [embedding_bag and scale_grad_by_freq] in
    ``nn_norm.py``)."""
    for name, pos, t in (("weight", 1, weight), ("indices", 2, indices),
                         ("offsets", 3, offsets)):
        _tensor_arg("embedding_bag", name, pos, t)
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is not None and mode != 0:
        raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
    if sparse:
        raise NotImplementedError("torchlike has no sparse tensors: sparse=True gradients "
                                  "are not supported; use sparse=False (dense gradients)")
    out = call_op("_embedding_bag", weight, indices, offsets, per_sample_weights,
                  bool(scale_grad_by_freq), mode, bool(include_last_offset), padding_idx)
    fast = mode == 0 and weight.dtype in (_dt.float32, _dt.float16, _dt.bfloat16) and \
        (padding_idx is None or padding_idx < 0)
    aux = call_op("_embedding_bag_aux", weight.detach(), indices, offsets, mode,
                  bool(include_last_offset), padding_idx, fast)
    return (out,) + tuple(aux)


# ---------------------------------------------------------------------------
# native normalization kernels: the output and the statistics PyTorch saves
def _moments(x, axes: tuple, eps: float):
    """Mean and ``1 / sqrt(biased variance + eps)`` over ``axes`` (kept)."""
    mean = jnp.mean(x, axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axes, keepdims=True)
    return mean, jax.lax.rsqrt(var + jnp.asarray(eps, x.dtype))


def _native_layer_norm(input, normalized_shape, weight, bias, eps):
    ns = _norm_shape(normalized_shape)
    axes = tuple(range(input.ndim - len(ns), input.ndim))
    mean, rstd = _moments(input.astype(_opmath(input.dtype)), axes, eps)
    return (_layer_norm(input, ns, weight, bias, eps), mean.astype(input.dtype),
            rstd.astype(input.dtype))


def _native_layer_norm_check(input, normalized_shape, weight, bias, eps):
    _int_list_arg("native_layer_norm", normalized_shape)
    _layer_norm_check(input, normalized_shape, weight, bias, eps)


register(OpSpec(
    "native_layer_norm", _native_layer_norm, "input, normalized_shape, weight, bias, eps",
    tensor_args=("input", "weight", "bias"), promote="none", method=False,
    nondiff_outputs=(1, 2), grad_name="NativeLayerNormBackward0",
    check=_native_layer_norm_check,
    doc="Mirrors ``torch.native_layer_norm``: ``(layer_norm(...), mean, rstd)``, the "
        "statistics over the normalized dimensions kept as size-1 dimensions.",
    samples=lambda: [
        S(arr(2, 3, 4), [4], arr(4), arr(4), 1e-5), S(arr(2, 3, 4), (3, 4), None, None, 1e-3),
        S(arr(4, 5, dtype="float64"), [5], arr(5, dtype="float64"), None, 1e-5)]))


def _native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    x = input.reshape(N, C, HxW)
    mean, rstd = _moments(x.astype(_opmath(input.dtype)).reshape(N, group, -1), (2,), eps)
    out = _group_norm(x, group, weight, bias, eps).reshape(input.shape)
    return out, mean[..., 0].astype(input.dtype), rstd[..., 0].astype(input.dtype)


def _native_group_norm_check(input, weight, bias, N, C, HxW, group, eps):
    if input.numel() != N * C * HxW:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    _group_norm_check(input, group, weight, bias, eps)


register(OpSpec(
    "native_group_norm", _native_group_norm,
    "input, weight, bias, N, C, HxW, group, eps", tensor_args=("input", "weight", "bias"),
    promote="none", method=False, grad_name="NativeGroupNormBackward0",
    check=_native_group_norm_check,
    doc="Mirrors ``torch.native_group_norm``: ``(group_norm(...), mean, rstd)``, the "
        "statistics of shape ``(N, group)``; all three are differentiable, as in PyTorch.",
    samples=lambda: [
        S(arr(2, 4, 3), arr(4), arr(4), 2, 4, 3, 2, 1e-5),
        S(arr(3, 6, 2, 2), None, None, 3, 6, 4, 3, 1e-3),
        S(arr(2, 4, 5, dtype="float64"), arr(4, dtype="float64"), None, 2, 4, 5, 4, 1e-5)]))


def _batch_stats(input: Tensor, dtype) -> tuple:
    """Per-channel (dim 1) mean and biased variance, accumulated as PyTorch's CPU kernels
    do (float32 for half types), in ``dtype``; no history."""
    dims = [0] + list(range(2, input.dim()))
    x = input.detach().to(_dt.to_dtype(_opmath(input.dtype.np)))
    return x.mean(dims).to(dtype), x.var(dims, correction=0).to(dtype)


@_public
def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None,
                      training: bool, momentum: float, eps: float) -> tuple:
    """Mirrors ``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``, the
    output that of ``torchlike.batch_norm`` (running statistics updated in place in
    training, ``NativeBatchNormBackward0``); in training the batch mean and ``1 /
    sqrt(biased var + eps)`` per channel (in the running statistics' dtype), in
    evaluation empty tensors, as PyTorch's CPU kernel."""
    from ..nn._functional.normalization import _batch_norm_impl
    out = _batch_norm_impl(input, running_mean, running_var, weight, bias, training,
                           momentum, eps)
    dtype = input.dtype if running_mean is None else running_mean.dtype
    if not training:
        from .creation import empty
        return out, empty(0, dtype=dtype), empty(0, dtype=dtype)
    mean, var = _batch_stats(input, dtype)
    with no_grad():
        return out, mean, (var + eps).rsqrt()


@_public
def batch_norm_update_stats(input: Tensor, running_mean: Tensor | None,
                            running_var: Tensor | None, momentum: float) -> tuple:
    """Mirrors ``torch.batch_norm_update_stats``: the per-channel batch mean and biased
    variance, and, given, ``running_mean``/``running_var`` updated in place with
    ``momentum`` (the variance unbiased), as ``batch_norm`` does in training."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"batch_norm_update_stats_cpu" not implemented for '
                                  f"'{dtype_short_name(input.dtype)}'")
    wrap_dim(1, input.dim())
    mean, var = _batch_stats(input, input.dtype)
    n = input.numel() // max(input.size(1), 1)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean * momentum + running_mean * (1 - momentum))
        if running_var is not None:
            unbiased = var * (n / (n - 1)) if n > 1 else var * float("inf")
            running_var.copy_(unbiased * momentum + running_var * (1 - momentum))
    return mean, var


def _native_dropout_fn(input, scale):
    return input * scale, scale != 0


register(OpSpec(
    "_native_dropout", _native_dropout_fn, "input, scale", tensor_args=("input", "scale"),
    promote="none", function=False, method=False, nondiff_outputs=(1,),
    grad_name="NativeDropoutBackward0",
    doc="Kernel of ``torch.native_dropout``: ``(input * scale, scale != 0)``."))


@_public
def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple:
    """Mirrors ``torch.native_dropout(input, p, train)``: ``(output, mask)``. In training
    (``train`` True or None) each element is kept with probability ``1 - p`` and scaled
    by ``1 / (1 - p)`` (``p == 1`` zeroes everything), ``mask`` the kept ones; otherwise
    a copy and an all-True mask. ``NativeDropoutBackward0``. The mask comes from
    torchlike's default generator (other draws than PyTorch's)."""
    from .creation import ones_like, zeros_like
    if train is None or train:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
        if not (input.dtype.is_floating_point or input.dtype.is_complex):
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{dtype_short_name(input.dtype)}")
        scale = zeros_like(input) if p == 1 else dropout_noise(input, p)[0]
    else:
        scale = ones_like(input)
    return tuple(call_op("_native_dropout", input, scale))


@_public
def native_norm(input: Tensor, p=2, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Mirrors ``torch.native_norm``, which PyTorch implements for sparse tensors only:
    for a strided tensor it raises ``NotImplementedError``, and torchlike has no sparse
    tensors. ``torchlike.linalg.vector_norm`` computes the norm."""
    _tensor_arg("native_norm", "input", 1, input)
    raise NotImplementedError("Could not run 'aten::native_norm' with arguments from the "
                              f"'{input.device.type.upper()}' backend: it is implemented for "
                              "sparse tensors only, which torchlike does not have. Use "
                              "torchlike.linalg.vector_norm.")


@_public
def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """Mirrors ``torch.norm_except_dim(v, pow=2, dim=0)``: the ``pow``-norm over every
    dimension but ``dim``, kept as size-1 dimensions (``dim=-1``: over all of ``v``);
    the composition of ATen's (``weight_norm``'s helper)."""
    if dim == -1:
        return v.norm(pow)
    nd = v.dim()
    if dim == 0:
        shape = [v.size(0)] + [1] * (nd - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == nd - 1:
        shape = [1] * (nd - 1) + [v.size(-1)]
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


# ---------------------------------------------------------------------------
# convolution, conv_tbc
def _convolution_fn(input, weight, bias, stride, padding, dilation, transposed,
                    output_padding, groups):
    nd = weight.ndim - 2
    if transposed:
        return _conv_transpose_fn(nd)(input, weight, bias, stride, padding, output_padding,
                                      groups, dilation)
    return _conv_fn(nd)(input, weight, bias, stride, padding, dilation, groups)


def _convolution_check(input, weight, bias, stride, padding, dilation, transposed,
                       output_padding, groups):
    for pos, name, v in ((4, "stride", stride), (5, "padding", padding),
                         (6, "dilation", dilation), (8, "output_padding", output_padding)):
        _int_tuple("convolution", name, pos, v)
    nd = weight.dim() - 2
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-"
                           f"dimensional weight {shape_str(weight._shape)}, but got "
                           f"{input.dim()}-dimensional input of size {shape_str(input._shape)}"
                           " instead")
    if nd not in (1, 2, 3):
        raise RuntimeError(f"convolution: torchlike supports 1-d, 2-d and 3-d convolutions, "
                           f"got weight of size {shape_str(weight._shape)}")
    check = _conv_check(nd, transposed)
    if transposed:
        check(input, weight, bias, stride, padding, output_padding, groups, dilation)
    else:
        check(input, weight, bias, stride, padding, dilation, groups)


register(OpSpec(
    "convolution", _convolution_fn,
    "input, weight, bias, stride, padding, dilation, transposed, output_padding, groups",
    tensor_args=("input", "weight", "bias"), promote="none", method=False,
    grad_name="ConvolutionBackward0", check=_convolution_check,
    convolution=True,
    doc="Mirrors ``torch.convolution``: ``conv{1,2,3}d`` or ``conv_transpose{1,2,3}d`` "
        "after the weight's dimensions, batched input only, every geometry argument a "
        "list of ints.",
    samples=lambda: [
        S(arr(2, 4, 7), arr(3, 4, 3), arr(3), [1], [0], [1], False, [0], 1, rtol=1e-4,
          atol=1e-5),
        S(arr(2, 4, 6, 5), arr(6, 2, 3, 3), None, [2, 1], [1, 1], [1, 2], False, [0, 0], 2,
          rtol=1e-4, atol=1e-5),
        S(arr(2, 4, 5), arr(4, 3, 3), arr(3), [2], [1], [1], True, [1], 1, rtol=1e-4,
          atol=1e-5),
        S(arr(1, 2, 3, 4, 4, dtype="float64"), arr(2, 2, 2, 2, 2, dtype="float64"), None,
          [1, 1, 1], [0, 1, 0], [1, 1, 1], False, [0, 0, 0], 1)]))


def _conv_tbc_fn(input, weight, bias, pad=0):
    y = conv_forward(jnp.transpose(input, (1, 2, 0)), jnp.transpose(weight, (2, 1, 0)), bias,
                     (1,), [(pad, pad)], (1,), 1)
    return jnp.transpose(y, (2, 0, 1))


def _conv_tbc_check(input, weight, bias, pad=0):
    for pos, name, t in ((1, "self", input), (2, "weight", weight), (3, "bias", bias)):
        _tensor_arg("conv_tbc", name, pos, t)
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input._shape[2] != weight._shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight._shape[2] != bias._shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output "
                           "channels).")
    olen = input._shape[0] - weight._shape[0] + 1 + 2 * pad
    if olen < 0:
        shape = [olen, input._shape[1], weight._shape[2]]
        raise RuntimeError(f"Trying to create tensor with negative dimension {olen}: "
                           f"{shape_str(shape)}")


register(OpSpec(
    "conv_tbc", _conv_tbc_fn, "input, weight, bias, pad=0",
    tensor_args=("input", "weight", "bias"), promote="none", method=False,
    grad_name="ConvTbcBackward0", check=_conv_tbc_check, convolution=True,
    doc="Mirrors ``torch.conv_tbc(input, weight, bias, pad=0)``: a 1-d convolution over "
        "(time, batch, channels) input with a (kernel, in, out) weight, ``pad`` zeros on "
        "both ends of time.",
    samples=lambda: [
        S(arr(7, 2, 4), arr(3, 4, 5), arr(5), rtol=1e-4, atol=1e-5),
        S(arr(6, 3, 2), arr(2, 2, 3), arr(3), 1, rtol=1e-4, atol=1e-5),
        S(arr(5, 1, 3, dtype="float64"), arr(4, 3, 2, dtype="float64"),
          arr(2, dtype="float64"), 2)]))


# ---------------------------------------------------------------------------
# RNN cells (the kernel of nn.RNNCell / LSTMCell / GRUCell)
def _cell(mode: str, input: Tensor, hx: Tensor, cx, w_ih: Tensor, w_hh: Tensor, b_ih, b_hh):
    st = _autocast_state
    if st.on and st.enabled["cpu"] and device_type_of(input) == "cpu":
        return _cell_composed(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh)
    return call_op("_rnn_cell", input, hx, cx, w_ih, w_hh, b_ih, b_hh, mode)


def _cell_composed(mode, input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """The cell as PyTorch composes it (``aten/src/ATen/native/RNN.cpp``): under CPU
    autocast its two ``linear`` calls compute in the autocast dtype and the state
    arithmetic promotes with the float32 state, which one fused op would not show
    (Note [Autocast] in autocast_policy.py)."""
    from ..nn.functional import linear
    gi, gh = linear(input, w_ih, b_ih), linear(hx, w_hh, b_hh)
    if mode == "RNN_TANH":
        return (gi + gh).tanh()
    if mode == "RNN_RELU":
        return (gi + gh).relu()
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        cy = f.sigmoid() * cx + i.sigmoid() * g.tanh()
        return o.sigmoid() * cy.tanh(), cy
    i_r, i_i, i_n = gi.chunk(3, 1)
    h_r, h_i, h_n = gh.chunk(3, 1)
    z = (i_i + h_i).sigmoid()
    n = (i_n + (i_r + h_r).sigmoid() * h_n).tanh()
    return (hx - n) * z + n


@_public
@autocast_function("rnn_tanh_cell")
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.rnn_tanh_cell``: ``tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)``."""
    return _cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)


@_public
@autocast_function("rnn_relu_cell")
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.rnn_relu_cell``: ``relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)``."""
    return _cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)


@_public
@autocast_function("lstm_cell")
def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple:
    """Mirrors ``torch.lstm_cell(input, (h, c), w_ih, w_hh, b_ih=None, b_hh=None)``:
    one LSTM step, ``(h', c')``."""
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise RuntimeError("lstm_cell: Expected hx to be a sequence of two tensors (h, c)")
    return tuple(_cell("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh))


@_public
@autocast_function("gru_cell")
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """Mirrors ``torch.gru_cell``: one GRU step with PyTorch's gate formulas."""
    return _cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)
