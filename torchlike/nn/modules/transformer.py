"""nn layers: multi-head attention and the Transformer family, mirroring
``torch.nn.MultiheadAttention`` (which PyTorch keeps in ``activation.py``) and
``torch.nn.modules.transformer``.

Parameter names, shapes, initialisation and the printed module tree are PyTorch's
(``layers.0.self_attn.in_proj_weight``, ``layers.0.linear1.weight``,
``(out_proj): NonDynamicallyQuantizableLinear(...)``). PyTorch's inference fast paths
(``_native_multi_head_attention``, ``_transformer_encoder_layer_fwd``, nested tensors)
compute the same values as the composed path, which is the only one here;
``enable_nested_tensor`` is accepted (and warns as PyTorch does) but nothing is nested.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable

from ... import _ops  # noqa: F401  (declares the table)
from ..._core.tensor import Tensor
from ..._ops.nn_common import is_traced
from .. import functional as F
from .. import init
from .._functional.transformer import _canonical_mask, _none_or_dtype
from ..parameter import Parameter
from .activation import GELU, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

try:  # PyTorch keeps it in linear.py; defined here while that file lacks it
    from .linear import NonDynamicallyQuantizableLinear
except ImportError:
    class NonDynamicallyQuantizableLinear(Linear):
        """Mirrors ``torch.nn.modules.linear.NonDynamicallyQuantizableLinear``: a
        ``Linear`` under another name (the output projection of ``MultiheadAttention``)."""

        def __init__(self, in_features: int, out_features: int, bias: bool = True,
                     device=None, dtype=None) -> None:
            super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)

    NonDynamicallyQuantizableLinear.__module__ = "torchlike.nn.modules.linear"

__all__ = ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]


def _empty(shape, device, dtype) -> Tensor:
    from ... import empty
    return empty(shape, device=device, dtype=dtype)


# ---------------------------------------------------------------------------
# MultiheadAttention
class MultiheadAttention(Module):
    """Mirrors ``torch.nn.MultiheadAttention``: ``num_heads`` parallel attention heads
    over ``embed_dim`` features, with packed ``in_proj_weight`` (or separate
    ``q/k/v_proj_weight`` when ``kdim``/``vdim`` differ), ``in_proj_bias``, ``out_proj``,
    optional ``bias_k``/``bias_v`` and a zero attention slot.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(attn_output, attn_weights or None)``.

    Example::

        >>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = torchlike.randn(3, 5, 8)
        >>> out, w = mha(x, x, x)          # w: (3, 5, 5), averaged over heads
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device=None,
                 dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_empty((embed_dim, embed_dim), device, dtype))
            self.k_proj_weight = Parameter(_empty((embed_dim, self.kdim), device, dtype))
            self.v_proj_weight = Parameter(_empty((embed_dim, self.vdim), device, dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_empty((3 * embed_dim, embed_dim), device, dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_empty((3 * embed_dim,), device, dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_empty((1, 1, embed_dim), device, dtype))
            self.bias_v = Parameter(_empty((1, 1, embed_dim), device, dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """Attention of ``query`` over ``key``/``value``: (L, N, E), (N, L, E) with
        ``batch_first``, or unbatched (L, E). ``key_padding_mask`` (N, S): True (or -inf)
        marks padding; ``attn_mask`` (L, S) or (N*num_heads, L, S)."""
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if self.batch_first and is_batched and query is key and key is value and \
                not need_weights and key_padding_mask is None and self._qkv_same_embed_dim \
                and self.bias_k is None and self.bias_v is None and not self.add_zero_attn \
                and query.shape[-1] == self.embed_dim and \
                (attn_mask is None and not is_causal or attn_mask is not None and
                 tuple(attn_mask.shape) == (query.shape[1],) * 2):
            return self._batch_first_self_attention(query, attn_mask, is_causal), None
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if not self._qkv_same_embed_dim:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, training=self.training,
                key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
                is_causal=is_causal)
        else:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, training=self.training,
                key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, average_attn_weights=average_attn_weights,
                is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights

    # Note [Self-attention layout]
    # PyTorch's batch-first attention transposes its (N, L, E) input to (L, N, E), runs
    # the sequence-first ``multi_head_attention_forward`` and transposes the result
    # back. For self-attention without weights, key padding, bias_k/v or zero slots,
    # this computes the same values (the same projections, ``scaled_dot_product_attention``
    # on the same (N, H, L, head_dim) operands, the same dropout draw) in the input's own
    # layout, which saves a compiled program the transposes (and XLA's copies) of the
    # input, the packed projection and the output: 1-4% of the benchmark's Transformer
    # encoder training step on the CPU, in interleaved runs. The result has PyTorch's
    # strides (the transpose of an (L, N, E) tensor) and node (``TransposeBackward0``);
    # in a compiled program the two transposes that give it cancel.
    def _batch_first_self_attention(self, x: Tensor, attn_mask: Tensor | None,
                                    is_causal: bool) -> Tensor:
        n, seq, e = x.shape
        h = self.num_heads
        proj = F.linear(x, self.in_proj_weight, self.in_proj_bias)
        q, k, v = proj.view(n, seq, 3, h, e // h).permute(2, 0, 3, 1, 4).unbind(0)
        if is_causal:
            attn_mask = None   # as multi_head_attention_forward: the kernel's own mask
        elif attn_mask is not None:
            attn_mask = attn_mask.view(1, 1, seq, seq)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask,
                                             self.dropout if self.training else 0.0,
                                             is_causal)
        out = F.linear(out.transpose(1, 2).reshape(n * seq, e), self.out_proj.weight,
                       self.out_proj.bias).view(n, seq, e)
        return out.transpose(0, 1).contiguous().transpose(1, 0)

    def merge_masks(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                    query: Tensor) -> tuple[Tensor | None, int | None]:
        """Mirrors ``MultiheadAttention.merge_masks``: one (N, num_heads, L, L) mask and its
        type (1: key padding only, 2: attention mask, possibly plus key padding)."""
        mask_type = None
        merged_mask = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1)
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(
                    batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type


# ---------------------------------------------------------------------------
# helpers
def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    from ... import full, triu
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int | None:
    src_size = src.size()
    if len(src_size) == 2:
        return src_size[0]
    return src_size[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None,
                           size: int | None = None) -> bool:
    """Whether ``mask`` is the square subsequent mask (PyTorch's detection). While
    tracing, the mask's values are unknown: it is then kept as an explicit mask, which
    gives the same result."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal_comparison = _generate_square_subsequent_mask(sz, device=mask.device,
                                                             dtype=mask.dtype)
        if mask.size() == causal_comparison.size() and not is_traced(mask):
            make_causal = bool((mask == causal_comparison).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module: Module, N: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


# ---------------------------------------------------------------------------
# Transformer
class Transformer(Module):
    """Mirrors ``torch.nn.Transformer``: an encoder and a decoder stack (with final
    LayerNorms); parameters with more than one dimension are Xavier-uniform initialised.

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2,
        ...                        num_decoder_layers=2, dim_feedforward=32)
        >>> out = model(torchlike.randn(10, 2, 16), torchlike.randn(7, 2, 16))
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 custom_encoder: Any | None = None, custom_decoder: Any | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, **fk)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, **fk)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """Encode ``src``, decode ``tgt`` against the memory; PyTorch's masks."""
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """Mirrors ``Transformer.generate_square_subsequent_mask``: ``-inf`` above the
        diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    """Mirrors ``torch.nn.TransformerEncoder``: ``num_layers`` deep copies of
    ``encoder_layer`` and an optional final ``norm``. ``enable_nested_tensor`` is kept
    (and warned about as PyTorch does) but no nested tensors are used."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer: "TransformerEncoderLayer", num_layers: int,
                 norm: Module | None = None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        enc_layer = "encoder_layer"
        why = ""
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why = f"{enc_layer} was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why = f"{enc_layer}.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why = (f"{enc_layer}.self_attn.batch_first was not True"
                   "(use batch_first for better inference performance)")
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why = f"{enc_layer}.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why = f"{enc_layer}.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why = f"{enc_layer}.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why = f"{enc_layer}.norm1.eps was not equal to {enc_layer}.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why = f"{enc_layer}.self_attn.num_heads is odd"
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """Pass ``src`` through every layer, then ``norm``."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(mask), "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        output = src
        batch_first = self.layers[0].self_attn.batch_first
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """Mirrors ``torch.nn.TransformerDecoder``: ``num_layers`` deep copies of
    ``decoder_layer`` and an optional final ``norm``."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: "TransformerDecoderLayer", num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """Pass ``tgt`` (attending to ``memory``) through every layer, then ``norm``."""
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoderLayer(Module):
    """Mirrors ``torch.nn.TransformerEncoderLayer``: self-attention and a feed-forward
    block (``linear1`` → activation → ``dropout`` → ``linear2``), each with residual,
    dropout and LayerNorm (after, or before with ``norm_first``).

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> layer(torchlike.randn(2, 5, 16)).shape
        torchlike.Size([2, 5, 16])
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype,
                                   check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask,
                                   is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask,
                                              is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Mirrors ``torch.nn.TransformerDecoderLayer``: self-attention, cross-attention over
    the memory (``multihead_attn``) and the feed-forward block, each with residual,
    dropout and LayerNorm (after, or before with ``norm_first``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            self.activation = _get_activation_fn(activation)
        else:
            self.activation = activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None,
                   key_padding_mask: Tensor | None, is_causal: bool = False) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


for _c in (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,
           TransformerDecoderLayer):
    _c.__module__ = "torchlike.nn.modules.transformer"
MultiheadAttention.__module__ = "torchlike.nn.modules.activation"
