"""nn kernels: normalization, linear maps, embeddings and dropout noise, declared in the
op table.

Each kernel mirrors one ATen kernel that PyTorch differentiates as a whole, so its
autograd node carries PyTorch's name (``NativeBatchNormBackward0``,
``NativeLayerNormBackward0``, ``EmbeddingBackward0``, ...). Those PyTorch also exposes as
``torch.X`` (``layer_norm``, ``group_norm``, ``rms_norm``, ``embedding``, ``bilinear``)
are bound so; the others are reached through ``torchlike.nn.functional``.

# Note [Stateful kernels stay pure]
# PyTorch's batch/instance norm kernels update ``running_mean``/``running_var`` in place.
# Here the kernels return the new statistics as extra outputs (never differentiated) and
# ``nn/_functional/normalization.py`` writes them into the buffers, so the kernel stays a
# pure function that a compiled step can trace, and the buffers' updates are visible as
# ordinary in-place writes. The momentum is a dynamic argument, so the cumulative
# average (momentum=None, factor 1/num_batches_tracked) does not recompile every step.

# Note [Gradient-shaping without custom VJPs]
# ``embedding``'s gradient skips ``padding_idx`` and can be divided by each index's
# frequency. Both are expressed in the forward function with ``stop_gradient``:
# ``where(pad, stop_gradient(y), y)`` has y's value and no gradient on padding rows;
# ``sg(y) + (y - sg(y)) * s`` has y's exact value and gradient ``s * g``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from .._core.random import drawn_flat
from .._core.xla import matmul_precision
from ._common import shape_str
from .bind import FUNCTIONS, dtype_short_name
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["dropout_noise", "check_indices"]

_sg = jax.lax.stop_gradient


def _is_traced(t) -> bool:
    return isinstance(t, Tensor) and isinstance(t._value, jax.core.Tracer)


def _opmath(dt) -> np.dtype:
    """PyTorch's accumulation type on CPU: half and bfloat16 compute in float32."""
    return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)


def _float_only(kernel: str, t) -> None:
    if isinstance(t, Tensor) and not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtype_short_name(t.dtype)}'")


def _same_dtype(input: Tensor, *others) -> None:
    if input.dtype in (_dt.float32, _dt.float64):
        for o in others:
            if isinstance(o, Tensor) and o.dtype is not input.dtype:
                raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _bshape(ndim: int, c_dim: int = 1) -> callable:
    """Reshape a per-channel vector to broadcast along dimension ``c_dim``."""
    def f(v):
        shape = [1] * ndim
        shape[c_dim] = -1
        return v.reshape(shape)
    return f


# ---------------------------------------------------------------------------
# batch norm
def _batch_norm(input, weight, bias, running_mean, running_var, momentum, training, eps):
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    axes = (0,) + tuple(range(2, x.ndim))
    bc = _bshape(x.ndim)
    if training:
        mean = jnp.mean(x, axes)
        var = jnp.mean(jnp.square(x - bc(mean)), axes)
        if running_mean is not None:
            n = x.size // max(x.shape[1], 1)
            m = jnp.asarray(momentum, acc)
            rm, rv = _sg(running_mean), _sg(running_var)
            new_rm = ((1 - m) * rm.astype(acc) + m * _sg(mean)).astype(rm.dtype)
            unbiased = _sg(var) * (n / (n - 1) if n > 1 else jnp.inf)
            new_rv = ((1 - m) * rv.astype(acc) + m * unbiased).astype(rv.dtype)
        else:
            new_rm, new_rv = _sg(mean), _sg(var)
    else:
        mean = _sg(running_mean).astype(acc)
        var = _sg(running_var).astype(acc)
        new_rm, new_rv = _sg(running_mean), _sg(running_var)
    out = (x - bc(mean)) * bc(jax.lax.rsqrt(var + jnp.asarray(eps, acc)))
    if weight is not None:
        out = out * bc(weight.astype(acc))
    if bias is not None:
        out = out + bc(bias.astype(acc))
    return out.astype(input.dtype), new_rm, new_rv


def _batch_norm_check(input, weight, bias, running_mean, running_var, momentum, training,
                      eps):
    _float_only("batch_norm", input)
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm(): expected input to have at least 2 dimensions, "
                           f"but got {input.dim()}D")
    c = input._shape[1]
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    _same_dtype(input, weight, bias)


register(OpSpec(
    "_native_batch_norm", _batch_norm,
    "input, weight, bias, running_mean, running_var, momentum, training, eps",
    tensor_args=("input", "weight", "bias", "running_mean", "running_var", "momentum"),
    promote="none", method=False, function=False, nondiff_outputs=(1, 2),
    grad_name="NativeBatchNormBackward0", check=_batch_norm_check,
    doc="Kernel of ``torch.nn.functional.batch_norm``: (output, new running_mean, new "
        "running_var); see Note [Stateful kernels stay pure].",
    samples=lambda: []))


# ---------------------------------------------------------------------------
# instance norm: batch norm over (1, N*C, *spatial), PyTorch's construction
def _instance_norm(input, weight, bias, running_mean, running_var, momentum,
                   use_input_stats, eps):
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    axes = tuple(range(2, x.ndim))
    bc = _bshape(x.ndim)
    if use_input_stats:
        mean = jnp.mean(x, axes, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axes, keepdims=True)
        if running_mean is not None:
            n = int(np.prod(x.shape[2:]))
            m = jnp.asarray(momentum, acc)
            flat_m = _sg(mean).reshape(x.shape[:2]).mean(0)
            flat_v = (_sg(var) * (n / (n - 1) if n > 1 else jnp.inf)).reshape(
                x.shape[:2]).mean(0)
            new_rm = ((1 - m) * _sg(running_mean).astype(acc) + m * flat_m).astype(
                running_mean.dtype)
            new_rv = ((1 - m) * _sg(running_var).astype(acc) + m * flat_v).astype(
                running_var.dtype)
        else:
            new_rm = new_rv = jnp.zeros((0,), input.dtype)
    else:
        mean = bc(_sg(running_mean).astype(acc))
        var = bc(_sg(running_var).astype(acc))
        new_rm, new_rv = _sg(running_mean), _sg(running_var)
    out = (x - mean) * jax.lax.rsqrt(var + jnp.asarray(eps, acc))
    if weight is not None:
        out = out * bc(weight.astype(acc))
    if bias is not None:
        out = out + bc(bias.astype(acc))
    return out.astype(input.dtype), new_rm, new_rv


def _instance_norm_check(input, weight, bias, running_mean, running_var, momentum,
                         use_input_stats, eps):
    _float_only("batch_norm", input)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    c = input._shape[1] if input.dim() > 1 else 0
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    n = input._shape[0] * c
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {n} elements not "
                               f"{t.numel() * input._shape[0]}")


register(OpSpec(
    "_instance_norm", _instance_norm,
    "input, weight, bias, running_mean, running_var, momentum, use_input_stats, eps",
    tensor_args=("input", "weight", "bias", "running_mean", "running_var", "momentum"),
    promote="none", method=False, function=False, nondiff_outputs=(1, 2),
    grad_name="ViewBackward0", check=_instance_norm_check,
    doc="Kernel of ``torch.nn.functional.instance_norm``: (output, new running_mean, new "
        "running_var).", samples=lambda: []))


# ---------------------------------------------------------------------------
# layer norm, group norm, rms norm
def _norm_shape(normalized_shape) -> tuple:
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(int(s) for s in normalized_shape)


def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
                cudnn_enable=True):
    ns = _norm_shape(normalized_shape)
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    axes = tuple(range(x.ndim - len(ns), x.ndim))
    mean = jnp.mean(x, axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axes, keepdims=True)
    out = (x - mean) * jax.lax.rsqrt(var + jnp.asarray(eps, acc))
    if weight is not None:
        out = out * weight.astype(acc)
    if bias is not None:
        out = out + bias.astype(acc)
    return out.astype(input.dtype)


def _int_list_arg(fn: str, normalized_shape) -> None:
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")


def _normalized_shape_check(input, ns, sep: str = ", ") -> None:
    if len(ns) == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    shape = input._shape
    if len(shape) < len(ns) or tuple(shape[len(shape) - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={shape_str(ns)}, expected input with "
                           f"shape [*{sep}{', '.join(str(s) for s in ns)}], but got input "
                           f"of size{shape_str(shape)}")


def _layer_norm_check(input, normalized_shape, weight=None, bias=None, eps=1e-05,
                      cudnn_enable=True):
    _int_list_arg("layer_norm", normalized_shape)
    ns = _norm_shape(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {shape_str(t._shape)} and "
                               f"normalized_shape = {shape_str(ns)}")
    _normalized_shape_check(input, ns)
    _float_only("LayerNormKernelImpl", input)
    _same_dtype(input, weight, bias)


register(OpSpec(
    "layer_norm", _layer_norm,
    "input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True",
    tensor_args=("input", "weight", "bias"), promote="none", method=False,
    grad_name="NativeLayerNormBackward0", check=_layer_norm_check,
    doc="Mirrors ``torch.layer_norm`` (``torch.nn.functional.layer_norm``).",
    samples=lambda: [
        S(arr(4, 5), [5]), S(arr(2, 3, 4), (3, 4), arr(3, 4), arr(3, 4)),
        S(arr(2, 3, 4, dtype="float64"), [4], arr(4, dtype="float64"), None, 1e-3),
        S(arr(3, 6), 6, arr(6), arr(6)), S(arr(0, 4), [4], arr(4), arr(4)),
        S(arr(2, 3), [4], grad=False), S(arr(2, 3), [3], arr(4), grad=False),
        S(arr(2, 3), [], grad=False), S(arr(2, 3, dtype="int64"), [3], grad=False),
        S(arr(2, 3, dtype="float16"), [3], grad=False, rtol=1e-2, atol=1e-2)]))


def _group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    n = x.shape[0]
    g = x.reshape(n, num_groups, -1)
    mean = jnp.mean(g, -1, keepdims=True)
    var = jnp.mean(jnp.square(g - mean), -1, keepdims=True)
    out = ((g - mean) * jax.lax.rsqrt(var + jnp.asarray(eps, acc))).reshape(x.shape)
    bc = _bshape(x.ndim)
    if weight is not None:
        out = out * bc(weight.astype(acc))
    if bias is not None:
        out = out + bc(bias.astype(acc))
    return out.astype(input.dtype)


def _group_norm_check(input, num_groups, weight=None, bias=None, eps=1e-05,
                      cudnn_enabled=True):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    c = input._shape[1]
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shape_str(input._shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{shape_str(t._shape)} and input of shape "
                               f"{shape_str(input._shape)}")
    _float_only("group_norm", input)
    _same_dtype(input, weight, bias)


register(OpSpec(
    "group_norm", _group_norm,
    "input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True",
    tensor_args=("input", "weight", "bias"), promote="none", method=False,
    grad_name="NativeGroupNormBackward0", check=_group_norm_check,
    doc="Mirrors ``torch.group_norm`` (``torch.nn.functional.group_norm``).",
    samples=lambda: [
        S(arr(4, 6, 5), 3, arr(6), arr(6)), S(arr(2, 4, 3, 3), 2),
        S(arr(2, 4, 3, 3, dtype="float64"), 4, arr(4, dtype="float64"), None, 1e-3),
        S(arr(3, 6), 2, arr(6), arr(6)), S(arr(4, 3, 5), 2, grad=False),
        S(arr(4, 3, 5), 3, arr(4), grad=False)]))


def _rms_norm(input, normalized_shape, weight=None, eps=None):
    ns = _norm_shape(normalized_shape)
    acc = _opmath(input.dtype)
    x = input.astype(acc)
    if eps is None:
        eps = float(np.finfo(acc).eps)
    axes = tuple(range(x.ndim - len(ns), x.ndim))
    out = x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axes, keepdims=True) +
                            jnp.asarray(eps, acc))
    if weight is not None:
        out = out * weight.astype(acc)
    return out.astype(input.dtype)


def _rms_norm_check(input, normalized_shape, weight=None, eps=None):
    _int_list_arg("rms_norm", normalized_shape)
    ns = _norm_shape(normalized_shape)
    if weight is not None and tuple(weight._shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but "
                           f"got weight of shape {shape_str(weight._shape)} and "
                           f"normalized_shape = {shape_str(ns)}")
    _normalized_shape_check(input, ns, sep="")
    _float_only("rms_norm", input)


register(OpSpec(
    "rms_norm", _rms_norm, "input, normalized_shape, weight=None, eps=None",
    tensor_args=("input", "weight"), promote="none", method=False,
    grad_name="MulBackward0", check=_rms_norm_check,
    doc="Mirrors ``torch.rms_norm`` (``torch.nn.functional.rms_norm``).",
    samples=lambda: [
        S(arr(4, 5), [5]), S(arr(2, 3, 4), (3, 4), arr(3, 4)),
        S(arr(2, 3, 4, dtype="float64"), [4], arr(4, dtype="float64"), 1e-3),
        S(arr(2, 3), [4], grad=False), S(arr(2, 3), 3, grad=False)]))


# ---------------------------------------------------------------------------
# local response norm: the channel-window average of squares, as PyTorch's avg_pool
def _local_response_norm(input, size, alpha, beta, k):
    sq = input * input
    c = input.shape[1]
    pad = [(0, 0)] * input.ndim
    pad[1] = (size // 2, (size - 1) // 2)
    sq = jnp.pad(sq, pad)
    acc = sum(jax.lax.slice_in_dim(sq, i, i + c, axis=1) for i in range(size))
    div = acc / size
    div = (div * alpha + k) ** beta
    return input / div


register(OpSpec(
    "_local_response_norm", _local_response_norm, "input, size, alpha, beta, k",
    promote="none", method=False, function=False, grad_name="DivBackward0",
    doc="Kernel of ``torch.nn.functional.local_response_norm``.", samples=lambda: []))


# ---------------------------------------------------------------------------
# linear and bilinear
def _linear(input, weight, bias=None):
    # ``input @ weight.T`` written as one contraction over ``weight``'s dim 1: its VJP
    # gives the weight's gradient in the weight's layout, with no transpose that would
    # sit between the casts of an autocast region's backward (Note [Autocast]). Half
    # inputs sum in float32 and round once, as PyTorch's addmm (Note [Half-precision
    # add*-products] in linalg_products.py).
    half = input.dtype in (jnp.float16, jnp.bfloat16)
    out = jax.lax.dot_general(input, weight, (((input.ndim - 1,), (1,)), ((), ())),
                              precision=matmul_precision(),
                              preferred_element_type=jnp.float32 if half else None)
    if bias is not None:
        out = out + (bias.astype(jnp.float32) if half else bias)
    return out.astype(input.dtype) if half else out


def _linear_grad_name(input, weight, bias=None):
    # the last node of ATen's linear: addmm (2-D), addmm then view (n-D, contiguous),
    # matmul then add (otherwise); without bias, mm / matmul's view
    if bias is not None:
        if input.dim() == 2:
            return "AddmmBackward0"
        if input.is_contiguous() and (input.dim() == 3 or bias.dim() == 1):
            return "ViewBackward0"
        return "AddBackward0"
    if input.dim() == 1:
        return "SqueezeBackward4"
    return "MmBackward0" if input.dim() == 2 else "UnsafeViewBackward0"


def _linear_check(input, weight, bias=None):
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if weight.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{weight.dim()}D")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cpp(input.dtype)} != {_cpp(weight.dtype)}")
    k = input._shape[-1]
    rows = int(np.prod(input._shape[:-1])) if input.dim() > 1 else 1
    wt = tuple(reversed(weight._shape))
    if wt[0] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{'x'.join(str(s) for s in wt)})")
    if bias is not None:
        out = wt[1] if len(wt) == 2 else 1
        if bias.dim() > 0 and bias._shape[-1] not in (1, out):
            target = list(input._shape[:-1]) + ([out] if len(wt) == 2 else [])
            raise RuntimeError(f"The expanded size of the tensor ({out}) must match the "
                               f"existing size ({bias._shape[-1]}) at non-singleton dimension "
                               f"{len(target) - 1}.  Target sizes: {shape_str(target)}.  "
                               f"Tensor sizes: {shape_str(bias._shape)}")


_cpp = _dt.cpp_name


register(OpSpec(
    "linear", _linear, "input, weight, bias=None", tensor_args=("input", "weight", "bias"),
    promote="none", method=False, function=False, grad_name=_linear_grad_name,
    check=_linear_check,
    doc="Kernel of ``torch.nn.functional.linear``: ``input @ weight.T + bias``.",
    samples=lambda: []))


def _bilinear(input1, input2, weight, bias=None):
    out = jnp.einsum("...i,oij,...j->...o", input1, weight, input2, precision=matmul_precision())
    if bias is not None:
        out = out + bias
    return out


def _bilinear_check(input1, input2, weight, bias=None):
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} "
                           f"and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1._shape[i] != input2._shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1._shape[i]} and {input2._shape[i]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got "
                           f"{weight.dim()}D")
    if input1._shape[-1] != weight._shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1._shape[-1]} but expected {weight._shape[1]}")
    if input2._shape[-1] != weight._shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2._shape[-1]} but expected {weight._shape[2]}")
    if bias is not None and bias._shape[-1:] != weight._shape[:1]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias._shape[-1] if bias.dim() else 1} but expected "
                           f"{weight._shape[0]}")
    for t in (input2, weight, bias):
        if t is not None and t.dtype is not input1.dtype:
            raise RuntimeError(f"expected scalar type {_cpp(input1.dtype)} but found "
                               f"{_cpp(t.dtype)}")


register(OpSpec(
    "bilinear", _bilinear, "input1, input2, weight, bias=None",
    tensor_args=("input1", "input2", "weight", "bias"), promote="none", method=False,
    grad_name=lambda i1, i2, w, b=None: "AddBackward0" if b is not None else "ViewBackward0",
    check=_bilinear_check,
    doc="Mirrors ``torch.bilinear`` (``torch.nn.functional.bilinear``).",
    samples=lambda: [
        S(arr(3, 5), arr(3, 4), arr(2, 5, 4), arr(2)), S(arr(3, 5), arr(3, 4), arr(2, 5, 4)),
        S(arr(2, 3, 5, dtype="float64"), arr(2, 3, 4, dtype="float64"),
          arr(6, 5, 4, dtype="float64"), arr(6, dtype="float64")),
        S(arr(3, 5), arr(3, 3), arr(2, 5, 4), grad=False),
        S(arr(3, 5), arr(2, 4), arr(2, 5, 4), grad=False),
        S(arr(3, 5), arr(3, 4), arr(2, 5, 4), arr(3), grad=False)]))


# ---------------------------------------------------------------------------
# embeddings
def check_indices(indices: Tensor, num: int, fn: str = "embedding") -> None:
    """PyTorch's index checks (eager only; see Note [Eager checks on values] in
    nn_loss.py): integer dtype, and every index in ``[0, num)``."""
    if indices.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got "
                           f"torch.{_legacy_type(indices.dtype)} instead (while checking "
                           f"arguments for {fn})")
    if _is_traced(indices) or indices.numel() == 0:
        return
    a = np.asarray(indices._value)
    if a.min() < 0 or a.max() >= num:
        raise IndexError("index out of range in self")


def _legacy_type(d) -> str:
    return {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
            "bfloat16": "BFloat16Tensor", "bool": "BoolTensor", "uint8": "ByteTensor",
            "int8": "CharTensor", "int16": "ShortTensor"}.get(d.name, "Tensor")


def _gather_rows(weight, indices, padding_idx, scale_grad_by_freq):
    """``weight[indices]`` with PyTorch's embedding gradient rules; see Note
    [Gradient-shaping without custom VJPs]."""
    out = jnp.take(weight, indices, axis=0)
    if scale_grad_by_freq:
        counts = jnp.zeros(weight.shape[0], weight.dtype).at[indices.reshape(-1)].add(1)
        s = (1 / jnp.take(counts, indices))[..., None]
        out = _sg(out) + (out - _sg(out)) * s
    if padding_idx is not None and padding_idx >= 0:
        out = jnp.where((indices == padding_idx)[..., None], _sg(out), out)
    return out


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _gather_rows(weight, indices, padding_idx, scale_grad_by_freq)


def _embedding_check(weight, indices, padding_idx=-1, scale_grad_by_freq=False,
                     sparse=False):
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    check_indices(indices, weight._shape[0])
    if sparse:
        raise NotImplementedError("torchlike has no sparse tensors: sparse=True gradients "
                                  "are not supported; use sparse=False (dense gradients)")


register(OpSpec(
    "embedding", _embedding,
    "weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False",
    tensor_args=("weight", "indices"), promote="none", method=False,
    grad_name="EmbeddingBackward0", check=_embedding_check,
    doc="Mirrors ``torch.embedding`` (the kernel of ``torch.nn.functional.embedding``): rows "
        "of ``weight``; no gradient reaches row ``padding_idx``; ``scale_grad_by_freq`` "
        "divides each row's gradient by its index's count in ``indices``.",
    samples=lambda: [
        S(arr(10, 3), np.array([[1, 2, 4], [4, 3, 9]])),
        S(arr(10, 3), np.array([1, 2, 4, 4, 0, 0]), 0),
        S(arr(10, 3, dtype="float64"), np.array([1, 2, 2, 2, 5]), -1, True),
        S(arr(10, 3), np.array([3, 3, 0, 7]), 3, True),
        S(arr(5, 2), np.array(2)), S(arr(5, 2), np.array([], dtype=np.int64)),
        S(arr(10, 3), np.array([1, 10]), grad=False),
        S(arr(10, 3), np.array([1.0, 2.0], dtype=np.float32), grad=False)]))


def _embedding_renorm(weight, indices, max_norm, norm_type):
    used = jnp.zeros(weight.shape[0], bool).at[indices.reshape(-1)].set(True)
    w = weight.astype(_opmath(weight.dtype))
    if norm_type == float("inf"):
        norm = jnp.max(jnp.abs(w), -1)
    elif norm_type == 0:
        norm = jnp.sum(w != 0, -1).astype(w.dtype)
    else:
        norm = jnp.sum(jnp.abs(w) ** norm_type, -1) ** (1.0 / norm_type)
    scale = jnp.where(used & (norm > max_norm), max_norm / (norm + 1e-7), 1.0)
    return (w * scale[:, None]).astype(weight.dtype)


register(OpSpec(
    "_embedding_renorm", _embedding_renorm, "weight, indices, max_norm, norm_type",
    tensor_args=("weight", "indices"), promote="none", method=False, function=False,
    differentiable=False,
    doc="The new weight of ``torch.embedding_renorm_``: rows named in ``indices`` whose "
        "``norm_type``-norm exceeds ``max_norm`` rescaled to ``max_norm``.",
    samples=lambda: []))


_MODES = {"sum": 0, "mean": 1, "max": 2}

# Note [embedding_bag and scale_grad_by_freq]
# For modes sum and mean, each looked-up row's gradient is divided by the number of times
# its index occurs in the whole ``indices`` (padding entries and entries outside every bag
# included), as ``torch.embedding``'s backward, PyTorch's CUDA embedding_bag backward and
# the documentation do. PyTorch's CPU embedding_bag backward instead divides the k-th
# distinct index's gradient by the count of ``sorted(indices)[k]`` (it indexes its counts
# with the loop counter), which equals the documented scale only when those counts agree
# (e.g. every index occurs equally often); torchlike keeps the documented scale there.
# Mode max ignores the flag (both PyTorch kernels do; ``F.embedding_bag`` refuses it).


def _embedding_bag(weight, indices, offsets, per_sample_weights, scale_grad_by_freq, mode,
                   include_last_offset, padding_idx):
    """``torch.embedding_bag``'s output; gradient scaling as in Note [embedding_bag and
    scale_grad_by_freq]."""
    n = indices.shape[0]
    nbags = offsets.shape[0] - (1 if include_last_offset else 0)
    seg = jnp.searchsorted(offsets, jnp.arange(n), side="right") - 1
    valid = seg < nbags
    if padding_idx is not None and padding_idx >= 0:
        valid = valid & (indices != padding_idx)
    seg = jnp.where(valid, seg, nbags)          # invalid entries go to a dropped bag
    rows = _gather_rows(weight, indices, None, scale_grad_by_freq and mode != 2)
    if mode == 2:
        neg = jnp.asarray(-jnp.inf, weight.dtype)
        m = jax.ops.segment_max(jnp.where(valid[:, None], rows, neg), seg, nbags + 1)[:nbags]
        count = jax.ops.segment_sum(valid.astype(np.int32), seg, nbags + 1)[:nbags]
        return jnp.where((count > 0)[:, None], m, jnp.zeros((), weight.dtype))
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    rows = jnp.where(valid[:, None], rows, jnp.zeros((), weight.dtype))
    total = jax.ops.segment_sum(rows, seg, nbags + 1)[:nbags]
    if mode == 1:
        count = jax.ops.segment_sum(valid.astype(weight.dtype), seg, nbags + 1)[:nbags]
        total = total / jnp.maximum(count, 1)[:, None]
    return total


def _embedding_bag_check(weight, indices, offsets, per_sample_weights, scale_grad_by_freq,
                         mode, include_last_offset, padding_idx):
    for name, t in (("indices", indices), ("offsets", offsets)):
        if t.dtype not in (_dt.int64, _dt.int32):
            raise RuntimeError(f"Expected tensor for argument #1 '{name}' to have one of the "
                               f"following scalar types: Long, Int; but got "
                               f"torch.{_legacy_type(t.dtype)} instead (while checking "
                               f"arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'per_sample_weights' to have "
                           f"the same type as tensor for argument #1 'weight'; but type "
                           f"torch.{_legacy_type(per_sample_weights.dtype)} does not equal "
                           f"torch.{_legacy_type(weight.dtype)} (while checking arguments "
                           f"for embedding_bag)")
    if _is_traced(indices) or _is_traced(offsets):
        return
    off = np.asarray(offsets._value)
    n = indices.numel()
    if off.size and off[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the "
                           f"mini-batch has to start from position 0. However, got {off[0]}\n"
                           f"[ torch.{dtype_short_name(offsets.dtype)}Tensor{{}} ]")
    if off.size and off[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {off[-1]}")
    idx = np.asarray(indices._value)
    num = weight._shape[0]
    bad = np.nonzero((idx < 0) | (idx >= num))[0]
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not "
                           f"in the valid range [0, {num})")


register(OpSpec(
    "_embedding_bag", _embedding_bag,
    "weight, indices, offsets, per_sample_weights, scale_grad_by_freq, mode, "
    "include_last_offset, padding_idx",
    tensor_args=("weight", "indices", "offsets", "per_sample_weights"), promote="none",
    method=False, function=False, grad_name="EmbeddingBagBackward0",
    check=_embedding_bag_check,
    doc="Kernel of ``torch.nn.functional.embedding_bag`` (the output only; ``mode`` is "
        "0 sum, 1 mean, 2 max). ``scale_grad_by_freq`` divides each row's gradient by its "
        "index's count in ``indices`` for sum and mean, and is ignored for max.",
    samples=lambda: []))


# ---------------------------------------------------------------------------
# dropout noise: one draw from a torchlike Generator per call (Note [RNG is state])
@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def _noise(key, counter, shape, dtype, alpha, p):
    k = jax.random.fold_in(jax.random.wrap_key_data(key, impl="threefry2x32"), counter)
    acc = _opmath(np.dtype(dtype))
    keep = drawn_flat(lambda s: jax.random.uniform(k, s, acc), shape) < (1 - p)
    if not alpha:
        return (keep.astype(acc) / (1 - p)).astype(dtype), None
    # PyTorch's alpha dropout: a * (x * keep + alpha' * (1 - keep)) + b
    alpha_p = 1.7580993408473766   # SELU scale * SELU alpha
    a = 1.0 / jnp.sqrt((alpha_p * alpha_p * p + 1) * (1 - p))
    keepf = keep.astype(acc)
    b = (keepf - 1) * (alpha_p * a) + alpha_p * a * p
    return (keepf * a).astype(dtype), b.astype(dtype)


def dropout_noise(input: Tensor, p: float, feature: bool = False, alpha: bool = False,
                  generator=None):
    """PyTorch's dropout noise for ``input``: ``(scale, shift)`` tensors with
    ``input * scale (+ shift)`` the dropped-out result. ``scale`` is ``keep / (1 - p)``
    (alpha dropout: PyTorch's affine correction, with ``shift``); ``feature`` draws one
    value per (batch, channel). The mask comes from ``generator`` (the default generator
    when None) with a fresh key per call, so masks differ between calls and repeat after
    ``manual_seed``."""
    from .._core.random import default_generator
    g = default_generator if generator is None else generator
    shape = input._shape
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:2] + (1,) * (input.dim() - 2)
    key, counter = g._take()
    if not _is_traced(input) and not isinstance(key, jax.core.Tracer):
        key = jax.device_put(key, next(iter(input._value.devices())))
    scale, shift = _noise(key, counter, tuple(shape), input.dtype.np, bool(alpha), float(p))
    return Tensor._wrap(scale), (None if shift is None else Tensor._wrap(shift))


# ---------------------------------------------------------------------------
# torch.X functions whose kernels write state: thin wrappers over nn.functional
def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps, cudnn_enabled=True):
    """Mirrors ``torch.batch_norm`` (running statistics updated in place in training)."""
    from ..nn._functional.normalization import _batch_norm_impl
    return _batch_norm_impl(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)


def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps, cudnn_enabled=True):
    """Mirrors ``torch.instance_norm``."""
    from ..nn import functional as F
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def _vf_dropout(name: str, fn: str, inplace: bool):
    def f(input, p, train):
        from ..nn._functional import dropout as D
        return getattr(D, fn)(input, p, train, inplace)
    f.__name__ = f.__qualname__ = name
    f.__module__ = "torchlike"
    f.__doc__ = f"Mirrors ``torch.{name}(input, p, train)``."
    return f


_torch_batch_norm.__name__ = _torch_batch_norm.__qualname__ = "batch_norm"
_torch_instance_norm.__name__ = _torch_instance_norm.__qualname__ = "instance_norm"
_torch_batch_norm.__module__ = _torch_instance_norm.__module__ = "torchlike"
FUNCTIONS.update({
    "batch_norm": _torch_batch_norm, "instance_norm": _torch_instance_norm,
    "dropout": _vf_dropout("dropout", "dropout", False),
    "dropout_": _vf_dropout("dropout_", "dropout", True),
    "alpha_dropout": _vf_dropout("alpha_dropout", "alpha_dropout", False),
    "alpha_dropout_": _vf_dropout("alpha_dropout_", "alpha_dropout", True),
    "feature_dropout": _vf_dropout("feature_dropout", "_feature_dropout", False),
    "feature_dropout_": _vf_dropout("feature_dropout_", "_feature_dropout", True),
    "feature_alpha_dropout": _vf_dropout("feature_alpha_dropout", "feature_alpha_dropout",
                                         False),
    "feature_alpha_dropout_": _vf_dropout("feature_alpha_dropout_", "feature_alpha_dropout",
                                          True),
})
