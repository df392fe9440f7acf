"""``torch.nn.functional`` attention: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``.

``scaled_dot_product_attention`` is one table op (``_scaled_dot_product_attention``,
PyTorch's math formulation); its dropout mask is drawn from torchlike's default
generator. ``multi_head_attention_forward`` is composed from table ops exactly as
PyTorch composes it (projections, masks, ``baddbmm``/``softmax``/``bmm`` when weights
are needed, SDPA otherwise), so its values and gradients follow PyTorch's.
"""

from __future__ import annotations

import math
import warnings

from ... import _ops  # noqa: F401  (declares the table)
from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..._ops.dispatch import call_op

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


# ---------------------------------------------------------------------------
# scaled dot-product attention
def _broadcast(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(x if y == 1 else y for x, y in zip(a, b))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """Mirrors ``torch.nn.functional.scaled_dot_product_attention``:
    ``softmax(q @ k^T * scale + bias) @ v`` where ``bias`` comes from ``attn_mask`` (a bool
    mask, True = take part, or an additive float mask) and ``is_causal``.

    ``dropout_p`` is always applied (pass 0.0 in eval mode, as in PyTorch); the mask is
    drawn from torchlike's default generator, so dropped positions differ from
    PyTorch's. ``attn_mask`` together with ``is_causal`` applies both for 4-D inputs (as
    PyTorch's CPU kernel does) and raises otherwise (as its math kernel does).

    Example::

        >>> q = torchlike.randn(2, 4, 5, 8)
        >>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
        torchlike.Size([2, 4, 5, 8])
    """
    if is_causal and attn_mask is not None and query.dim() != 4:
        # PyTorch's CPU kernel for 4-D inputs applies both; its math kernel refuses
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    drop = None
    if dropout_p > 0.0:
        from ... import rand, zeros
        kb = tuple(key.shape[:-2])
        if enable_gqa and len(kb) >= 1 and query.dim() >= 3:
            kb = kb[:-1] + (query.shape[-3],)
        shape = _broadcast(tuple(query.shape[:-2]), kb) + (query.shape[-2], key.shape[-2])
        if dropout_p >= 1.0:
            drop = zeros(shape, dtype=query.dtype, device=query.device)
        else:
            keep = rand(shape, dtype=query.dtype, device=query.device) >= dropout_p
            drop = keep.to(query.dtype) / (1.0 - dropout_p)
    return call_op("_scaled_dot_product_attention", query, key, value, attn_mask, drop,
                   bool(is_causal), None if scale is None else float(scale), bool(enable_gqa))


# ---------------------------------------------------------------------------
# multi-head attention helpers (PyTorch's private helpers of the same names)
def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str,
                    target_type, check_other: bool = True) -> Tensor | None:
    """A bool mask becomes an additive float mask (``-inf`` where True); float masks pass."""
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = mask.dtype.is_floating_point
        if _mask_dtype != _dt.bool and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None:
            if _mask_dtype != other_type:
                warnings.warn(f"Support for mismatched {mask_name} and {other_name} is "
                              "deprecated. Use same type for both instead.", stacklevel=3)
        if not _mask_is_float:
            from ... import zeros_like
            mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input: Tensor | None):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Tensor | None, attn_mask: Tensor | None,
                     num_heads: int) -> bool:
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be "
                                 f"3-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to "
                                 f"be 2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to "
                                 f"be `None` or 1-D but found {key_padding_mask.dim()}-D "
                                 "tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} "
                                         f"but got {attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _linear(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    from .linear import linear
    return linear(x, w, b)


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Tensor | None = None) -> list:
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = _linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
                .contiguous()
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = _linear(q, w_q, b_q)
        kv_proj = _linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
            .contiguous()
        return [q_proj, kv_proj[0], kv_proj[1]]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return [_linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)]


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None) -> tuple:
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    for nm, w, shp in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)),
                       ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shp:
            raise AssertionError(f"expecting {nm} weights shape of {shp}, but got {w.shape}")
    for nm, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {nm} bias shape of {(Eq,)}, but got {b.shape}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _pad_last(t: Tensor) -> Tensor:
    """``F.pad(t, (0, 1))``: one more zero column."""
    from ... import cat, zeros
    return cat([t, zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)], -1)


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Mirrors ``torch.nn.functional.multi_head_attention_forward`` (sequence-first
    inputs (L, N, E) or unbatched (L, E)); returns ``(attn_output, attn_weights)``, the
    weights averaged over heads when ``average_attn_weights``, None unless
    ``need_weights``."""
    from ... import baddbmm, bmm, cat, zeros
    from .activation import softmax
    from .dropout import dropout

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the causal mask is rebuilt by scaled_dot_product_attention
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for nm, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {nm}_proj_weight "
                                     "is None")
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            correct_2d_size = (tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_2d_size:
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {correct_2d_size}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != correct_3d_size:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {correct_3d_size}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    else:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")

    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got "
                                 f"{static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got "
                                 f"{static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got "
                                 f"{static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got "
                                 f"{static_v.size(2)}")
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len) \
            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            attn_output_weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = _linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = _linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None
