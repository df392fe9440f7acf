"""Autocast: which ops cast their inputs inside ``torchlike.autocast``, and the casts.

# Note [Autocast]
# PyTorch's autocast is a dispatch key: inside ``torch.autocast(device_type, dtype)``,
# an op on its list casts its floating-point tensor arguments on that device type, then
# runs with autocast excluded (its inner ops are not autocast again). Each device type
# has its own lists (PyTorch 2.13's ``aten/src/ATen/autocast_mode.{h,cpp}``, checked
# against the kernels its dispatcher registers for AutocastCPU and AutocastCUDA); the
# policies are:
#   lower     cast to the autocast dtype (bfloat16 on CPU, float16 on CUDA by default);
#   fp32      cast to float32;
#   fp32_opt  (fp32_set_opt_dtype) pass ``dtype=float32`` when the call gives none and
#             the first argument is eligible (``softmax``, ``sum``, ``cumsum``...);
#   promote   cast to the widest floating type among the arguments (float32 over the
#             autocast dtype).
# A tensor is eligible when it is floating point, on that device type and not float64.
# In-place ops, calls with ``out=`` and calls given an explicit ``dtype`` (other than
# the fp32_opt ops, which keep it) are not autocast. Casts to the autocast dtype of
# float32 leaves that require grad are cached until the outermost region ends, as in
# PyTorch (not while ``torchlike.compile`` traces: the cache would keep traced values).
#
# Here the op table holds each op's policies (``OpSpec.autocast``, {device type:
# policy}, filled from the lists below when the table is bound), so the op's function,
# method, operators and compiled traces all autocast, and ops off the lists pay only a
# thread-local flag read on the calls that go to their dispatch function, nothing on
# their plain calls. Python functions that PyTorch lists but that are not table ops here
# (``F.cross_entropy`` on CPU, ``F.l1_loss``...) take the same casts through
# ``autocast_function``. The casts are ``Tensor.to`` calls, so they are recorded
# (``ToCopyBackward0``) and gradients reach float32 weights in float32.
"""

from __future__ import annotations

import functools
from typing import Callable

from .._core import autocast_state as _acs
from .._core import dtype as _dt
from .._core.tensor import Tensor
from .._core.xla import runs_on_cpu
from .torch_function import _mode_active, _overloaded_args, _tf_state

__all__ = ["POLICIES", "policies_of", "install", "autocast_function", "device_type_of",
           "eligible"]

_CPU_LOWER = """conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm addbmm linear
    _convolution matmul conv_tbc mkldnn_rnn_layer conv_transpose1d conv_transpose2d
    conv_transpose3d prelu scaled_dot_product_attention _native_multi_head_attention
    _addmm_activation"""
_CPU_FP32 = """avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft
    cdist grid_sampler_2d _grid_sampler_2d_cpu_fallback grid_sampler_3d trace
    view_as_complex cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr
    ormqr pinverse max_pool3d max_unpool2d max_unpool3d adaptive_avg_pool3d
    reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d
    replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d
    hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy l1_loss
    huber_loss margin_ranking_loss soft_margin_loss triplet_margin_loss
    multi_margin_loss ctc_loss kl_div multilabel_margin_loss
    binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn
    fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft
    fft_ihfft linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky
    linalg_svdvals linalg_eigvals linalg_eigvalsh linalg_inv
    linalg_householder_product linalg_tensorinv linalg_tensorsolve
    fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve
    fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d
    multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex linalg_svd
    linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex"""
_CPU_PROMOTE = "stack cat index_copy"

_CUDA_LOWER = """_convolution conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
    conv_transpose3d convolution prelu addmm addmv addr matmul einsum mm mv linalg_vecdot
    linear addbmm baddbmm bmm chain_matmul linalg_multi_dot _thnn_fused_lstm_cell
    _thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell
    _scaled_dot_product_flash_attention scaled_dot_product_attention cudnn_convolution
    cudnn_convolution_transpose"""
_CUDA_FP32 = """acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan
    pow softplus layer_norm native_layer_norm group_norm rms_norm frobenius_norm
    nuclear_norm cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss
    nll_loss2d hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss mse_loss
    margin_ranking_loss multilabel_margin_loss soft_margin_loss triplet_margin_loss
    multi_margin_loss binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp
    upsample_nearest1d _upsample_nearest_exact1d upsample_nearest2d _upsample_nearest_exact2d
    upsample_nearest3d _upsample_nearest_exact3d upsample_linear1d upsample_bilinear2d
    _upsample_bilinear2d_aa upsample_trilinear3d upsample_bicubic2d _upsample_bicubic2d_aa"""
_CUDA_FP32_OPT = """prod softmax log_softmax cumprod cumsum linalg_vector_norm
    linalg_matrix_norm sum norm"""
_CUDA_PROMOTE = """addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put
    tensordot scatter_add"""


def _table() -> dict:
    out: dict = {}
    for dev, lists in (("cpu", ((_CPU_LOWER, "lower"), (_CPU_FP32, "fp32"),
                                (_CPU_PROMOTE, "promote"))),
                       ("cuda", ((_CUDA_LOWER, "lower"), (_CUDA_FP32, "fp32"),
                                 (_CUDA_FP32_OPT, "fp32_opt"), (_CUDA_PROMOTE, "promote")))):
        for names, policy in lists:
            for name in names.split():
                out.setdefault(name, {})[dev] = policy
    return out


POLICIES: dict = _table()   # PyTorch's op name -> {device type: policy}

# table ops whose PyTorch counterpart has another name
_ALIASES = {"_scaled_dot_product_attention": "scaled_dot_product_attention"}


def policies_of(name: str) -> dict | None:
    """The autocast policies of the table op or function ``name``, per device type."""
    return POLICIES.get(_ALIASES.get(name, name))


def _inplace(api) -> bool:
    name = getattr(api, "__name__", "")
    if name.startswith("__"):
        return name.startswith("__i") and name not in ("__invert__", "__index__")
    return name.endswith("_")


def device_type_of(t: Tensor) -> str:
    """The autocast device type of ``t``'s computation: 'cpu' or 'cuda' (JAX's
    accelerator), also for a value traced by ``torchlike.compile``, whose program runs
    where JAX's default device is (``Tensor.device`` says 'cpu' for those)."""
    return "cpu" if runs_on_cpu(t._storage.array) else "cuda"


def _first_tensor(args, kwargs):
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, Tensor):
            return v
        if isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, Tensor):
                    return w
    return None


def eligible(t, dev: str) -> bool:
    """Whether autocast for device type ``dev`` casts ``t``: a floating tensor on that
    device type, not float64 (PyTorch's ``is_eligible``)."""
    if not isinstance(t, Tensor):
        return False
    d = t.dtype
    return d.is_floating_point and d is not _dt.float64 and device_type_of(t) == dev


def _cast_to(t: Tensor, to, dev: str):
    if t.dtype is to:
        return t
    from .._compile import _tracing
    if (to is _acs._state.dtype[dev] and t.dtype is _dt.float32 and t._requires_grad
            and t.grad_fn is None and not t._is_view() and _acs._state.cache_enabled
            and _tracing._current.ctx is None):
        return _acs.cached(t, lambda: t.to(to))
    return t.to(to)


def _map(v, fn):
    if isinstance(v, Tensor):
        return fn(v)
    if isinstance(v, (list, tuple)) and any(isinstance(w, Tensor) for w in v):
        return type(v)(fn(w) if isinstance(w, Tensor) else w for w in v)
    return v


def _widest(args, kwargs, dev: str):
    lower = _acs._state.dtype[dev]
    to = lower
    seen = []
    for v in list(args) + list(kwargs.values()):
        _map(v, seen.append)
    for t in seen:
        if not eligible(t, dev):
            continue
        d = t.dtype
        if to is _dt.float32 or d is _dt.float32:
            to = _dt.float32
        elif not (to is lower and d is lower):
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return to


def cast_call(policies: dict, call: Callable, args: tuple, kwargs: dict,
              dtype_given: Callable | None = None):
    """``call(args, kwargs)`` inside an autocast region, with the casts of the policy of
    the device type of its first tensor argument (Note [Autocast]); autocast stays off
    while ``call`` runs."""
    first = _first_tensor(args, kwargs)
    st = _acs._state
    if first is None:
        return call(args, kwargs)
    dev = device_type_of(first)
    policy = policies.get(dev)
    if policy is None or not st.enabled[dev]:
        return call(args, kwargs)
    if policy == "fp32_opt":
        if eligible(first, dev) and (dtype_given is None or not dtype_given(args, kwargs)):
            kwargs = dict(kwargs, dtype=_dt.float32)
    else:
        if kwargs.get("dtype") is not None:
            return call(args, kwargs)
        to = (st.dtype[dev] if policy == "lower" else _dt.float32 if policy == "fp32"
              else _widest(args, kwargs, dev))

        def cast(t):
            return _cast_to(t, to, dev) if eligible(t, dev) else t
        args = tuple(_map(v, cast) for v in args)
        kwargs = {k: _map(v, cast) for k, v in kwargs.items()}
    with _acs.excluded():
        return call(args, kwargs)


def install(spec) -> None:
    """Wrap the dispatch function of table op ``spec`` (whose ``autocast`` holds its
    policies) with the casts; the plain entry points send their calls there while an
    autocast region is open (``entries.py``)."""
    from .dispatch import _plan_of
    plan = _plan_of(spec)
    inner = plan.run
    policies = spec.autocast
    dtype_pos = spec.params.index("dtype") if "dtype" in spec.params else None

    def dtype_given(args, kwargs):
        if kwargs.get("dtype") is not None:
            return True
        return dtype_pos is not None and len(args) > dtype_pos and args[dtype_pos] is not None

    def call_of(api):
        return lambda a, k: inner(api, a, k)

    def run(api, args, kwargs):
        if not _acs._state.on or _inplace(api) or kwargs.get("out") is not None:
            return inner(api, args, kwargs)
        if not _tf_state.disabled_all and (
                _overloaded_args(list(args) + list(kwargs.values())) or _mode_active()):
            # PyTorch's overrides and modes run before its dispatcher autocasts: they
            # see the arguments as given, and their own call of the op is cast
            return inner(api, args, kwargs)
        return cast_call(policies, call_of(api), args, kwargs, dtype_given)
    plan.run = run


def autocast_function(name: str) -> Callable:
    """Decorator: the Python function ``fn`` implements PyTorch's op ``name``, which
    PyTorch autocasts; give it the same casts (Note [Autocast])."""
    policies = POLICIES[name]

    def deco(fn):
        def call(a, k):
            return fn(*a, **k)

        @functools.wraps(fn)
        def f(*args, **kwargs):
            if not _acs._state.on:
                return fn(*args, **kwargs)
            return cast_call(policies, call, args, kwargs)
        return f
    return deco
