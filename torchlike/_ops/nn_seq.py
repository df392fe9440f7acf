"""nn kernels: recurrent layers, packed sequences and scaled dot-product attention,
declared in the op table.

All of them are private kernels (``function=False, method=False``) reached through
``torchlike.nn`` (``nn.LSTM``, ``nn.utils.rnn``, ``F.scaled_dot_product_attention``).

# Note [One op per recurrent stack]
# ``_rnn`` runs a whole ``nn.RNN``/``nn.LSTM``/``nn.GRU`` forward (every layer and
# direction) as one pure function: the input projection of all time steps is one matmul
# per layer and direction, the time loop is a ``jax.lax.scan``. In eager mode that is one
# dispatch and one cached executable instead of thousands of tiny ops, and its gradient
# is ``jax.vjp`` of the whole function (one backward node). Dropout between layers comes
# in as pre-drawn, pre-scaled masks so the kernel stays pure.
#
# Note [Packed sequences inside the kernel]
# A packed input (``data`` of shape (sum(batch_sizes), *), time-major, the first
# ``batch_sizes[t]`` sequences at step ``t``) is scattered into a padded (T, B, *)
# array by a static gather (``batch_sizes`` are static: host values), the scan then
# freezes the state of every sequence past its own length (so the forward direction
# ends at each sequence's last step and the reverse direction starts there), and the
# outputs are gathered back into packed order.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._core.tensor import Tensor
from .samples import S, arr
from .spec import OpSpec, register

__all__: list = []

RNN_MODES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


# ---------------------------------------------------------------------------
# packed <-> padded index maps (static)
def packed_index(batch_sizes: tuple) -> tuple[np.ndarray, int]:
    """``(idx, n)``: ``idx[t, b]`` is the packed row of step ``t`` of sequence ``b``, or
    ``n`` (one past the last row) where that sequence has already ended."""
    bs = np.asarray(batch_sizes, np.int64)
    n = int(bs.sum())
    t_len, b_max = len(bs), int(bs[0]) if len(bs) else 0
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]]) if len(bs) else np.zeros(0, np.int64)
    idx = np.full((t_len, b_max), n, np.int64)
    for t in range(t_len):
        idx[t, :bs[t]] = offsets[t] + np.arange(bs[t])
    return idx, n


def _unpack(data, batch_sizes: tuple):
    """Packed ``data`` (N, *) -> padded (T, B, *) and the validity mask (T, B)."""
    idx, n = packed_index(batch_sizes)
    ext = jnp.concatenate([data, jnp.zeros((1,) + data.shape[1:], data.dtype)], axis=0)
    return ext[jnp.asarray(idx)], jnp.asarray(idx < n)


def _pack(padded, batch_sizes: tuple):
    """Padded (T, B, *) -> packed (N, *) in time-major order."""
    idx, n = packed_index(batch_sizes)
    t_len, b_max = idx.shape
    flat = np.nonzero((idx < n).reshape(-1))[0]
    rows = padded.reshape((t_len * b_max,) + padded.shape[2:])
    return rows[jnp.asarray(flat)]


# ---------------------------------------------------------------------------
# recurrent cells
def _mm_t(x, w):
    """``x @ w.T`` over the last axis."""
    return lax.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())))


def _gates(mode: str, xp, h, c, w_hh, b_hh, w_hr):
    """One step given the precomputed input projection ``xp`` (B, G)."""
    gh = _mm_t(h, w_hh)
    if b_hh is not None:
        gh = gh + b_hh
    if mode == "RNN_TANH":
        h2 = jnp.tanh(xp + gh)
        return h2, c
    if mode == "RNN_RELU":
        h2 = jnp.maximum(xp + gh, 0)
        return h2, c
    if mode == "LSTM":
        i, f, g, o = jnp.split(xp + gh, 4, axis=-1)
        c2 = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h2 = jax.nn.sigmoid(o) * jnp.tanh(c2)
        if w_hr is not None:
            h2 = _mm_t(h2, w_hr)
        return h2, c2
    # GRU
    xr, xz, xn = jnp.split(xp, 3, axis=-1)
    hr, hz, hn = jnp.split(gh, 3, axis=-1)
    r = jax.nn.sigmoid(xr + hr)
    z = jax.nn.sigmoid(xz + hz)
    n = jnp.tanh(xn + r * hn)
    return (1 - z) * n + z * h, c


def _run_direction(mode: str, x, mask, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse: bool):
    """One layer, one direction over a time-major (T, B, I) input."""
    xp = _mm_t(x, w_ih)
    if b_ih is not None:
        xp = xp + b_ih

    def step(carry, inp):
        h, c = carry
        if mask is None:
            h2, c2 = _gates(mode, inp, h, c, w_hh, b_hh, w_hr)
            return (h2, c2), h2
        xt, mt = inp
        h2, c2 = _gates(mode, xt, h, c, w_hh, b_hh, w_hr)
        m = mt[:, None]
        h2 = jnp.where(m, h2, h)
        c2 = jnp.where(m, c2, c)
        return (h2, c2), jnp.where(m, h2, jnp.zeros((), h2.dtype))

    xs = xp if mask is None else (xp, mask)
    (h_n, c_n), ys = lax.scan(step, (h0, c0), xs, reverse=reverse)
    return ys, h_n, c_n


def _rnn_fn(input, hx, cx, weights, dropout_masks, mode, has_biases, num_layers,
            bidirectional, batch_first, proj_size, batch_sizes):
    nd = 2 if bidirectional else 1
    if batch_sizes is not None:
        x, mask = _unpack(input, batch_sizes)
    else:
        x, mask = (jnp.swapaxes(input, 0, 1) if batch_first else input), None
    nw = 2 + (2 if has_biases else 0) + (1 if proj_size > 0 else 0)
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(nd):
            k = layer * nd + d
            ws = list(weights[k * nw:(k + 1) * nw])
            w_ih, w_hh = ws[0], ws[1]
            b_ih, b_hh = (ws[2], ws[3]) if has_biases else (None, None)
            w_hr = ws[-1] if proj_size > 0 else None
            c0 = cx[k] if cx is not None else hx[k]
            y, h_n, c_n = _run_direction(mode, x, mask, hx[k], c0, w_ih, w_hh, b_ih, b_hh,
                                         w_hr, reverse=d == 1)
            outs.append(y)
            hs.append(h_n)
            cs.append(c_n)
        x = outs[0] if nd == 1 else jnp.concatenate(outs, axis=-1)
        if dropout_masks is not None and layer < num_layers - 1:
            x = x * dropout_masks[layer]
    if batch_sizes is not None:
        out = _pack(x, batch_sizes)
    else:
        out = jnp.swapaxes(x, 0, 1) if batch_first else x
    if mode == "LSTM":
        return out, jnp.stack(hs), jnp.stack(cs)
    return out, jnp.stack(hs)


def _rnn_grad_name(input, hx, cx, weights, dropout_masks, mode, *rest) -> str:
    return {"RNN_TANH": "RnnTanhBackward0", "RNN_RELU": "RnnReluBackward0",
            "LSTM": "LstmBackward0", "GRU": "GruBackward0"}[mode]


register(OpSpec(
    "_rnn", _rnn_fn,
    "input, hx, cx, weights, dropout_masks, mode, has_biases, num_layers, bidirectional, "
    "batch_first, proj_size, batch_sizes",
    tensor_args=("input", "hx", "cx", "weights", "dropout_masks"), promote="none",
    function=False, method=False, grad_name=_rnn_grad_name,
    doc="Kernel of ``torch._VF.rnn_tanh/rnn_relu/lstm/gru``: a whole recurrent stack. "
        "See Note [One op per recurrent stack]. Returns ``(output, h_n)`` or, for LSTM, "
        "``(output, h_n, c_n)``.",
    samples=lambda: []))


def _rnn_cell_fn(input, hx, cx, w_ih, w_hh, b_ih, b_hh, mode):
    xp = _mm_t(input, w_ih)
    if b_ih is not None:
        xp = xp + b_ih
    h2, c2 = _gates(mode, xp, hx, cx if cx is not None else hx, w_hh, b_hh, None)
    if mode == "LSTM":
        return h2, c2
    return h2


def _cell_grad_name(input, hx, cx, w_ih, w_hh, b_ih, b_hh, mode) -> str:
    return {"RNN_TANH": "TanhBackward0", "RNN_RELU": "ReluBackward0",
            "LSTM": "LstmCellBackward0", "GRU": "AddBackward0"}[mode]


register(OpSpec(
    "_rnn_cell", _rnn_cell_fn, "input, hx, cx, w_ih, w_hh, b_ih, b_hh, mode",
    tensor_args=("input", "hx", "cx", "w_ih", "w_hh", "b_ih", "b_hh"), promote="none",
    function=False, method=False, grad_name=_cell_grad_name,
    doc="Kernel of ``torch._VF.rnn_tanh_cell/rnn_relu_cell/lstm_cell/gru_cell``: one step.",
    samples=lambda: []))


# ---------------------------------------------------------------------------
# packed sequences
def _pack_padded_fn(input, batch_sizes, batch_first):
    x = jnp.swapaxes(input, 0, 1) if batch_first else input
    return _pack(x[:len(batch_sizes)], batch_sizes)


register(OpSpec(
    "_pack_padded_sequence", _pack_padded_fn, "input, batch_sizes, batch_first",
    promote="none", function=False, method=False, grad_name="PackPaddedSequenceBackward0",
    saves=False, doc="Kernel of ``torch._VF._pack_padded_sequence`` (batch sizes known).",
    samples=lambda: []))


def _pad_packed_fn(data, batch_sizes, batch_first, padding_value, total_length):
    x, mask = _unpack(data, batch_sizes)
    x = jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - 2)), x,
                  jnp.asarray(padding_value, x.dtype))
    extra = total_length - x.shape[0]
    if extra > 0:
        x = jnp.concatenate(
            [x, jnp.full((extra,) + x.shape[1:], padding_value, x.dtype)], axis=0)
    return jnp.swapaxes(x, 0, 1) if batch_first else x


register(OpSpec(
    "_pad_packed_sequence", _pad_packed_fn,
    "data, batch_sizes, batch_first, padding_value, total_length", tensor_args=("data",),
    promote="none", function=False, method=False, grad_name="CopySlices", saves=False,
    doc="Kernel of ``torch._VF._pad_packed_sequence`` (batch sizes known).",
    samples=lambda: []))


def _pad_sequence_fn(sequences, batch_first, padding_value, padding_side):
    t_max = max(s.shape[0] for s in sequences)
    dt = jnp.result_type(*sequences)
    rows = []
    for s in sequences:
        pad = [(0, t_max - s.shape[0]) if padding_side == "right" else
               (t_max - s.shape[0], 0)] + [(0, 0)] * (s.ndim - 1)
        rows.append(jnp.pad(s.astype(dt), pad, constant_values=padding_value))
    out = jnp.stack(rows, axis=0)
    return out if batch_first else jnp.swapaxes(out, 0, 1)


def _pad_sequence_check(sequences, batch_first, padding_value, padding_side):
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences:
        if s.dim() == 0 or tuple(s.shape[1:]) != trailing:
            raise RuntimeError("The size of tensor a must match the size of tensor b "
                               "at all dimensions but the first")


register(OpSpec(
    "_pad_sequence", _pad_sequence_fn, "sequences, batch_first, padding_value, padding_side",
    tensor_args=("sequences",), promote="none", function=False, method=False,
    check=_pad_sequence_check, grad_name="CopySlices", saves=False,
    doc="Kernel of ``torch._C._nn.pad_sequence``.", samples=lambda: []))


# ---------------------------------------------------------------------------
# scaled dot-product attention
def _sdpa_fn(query, key, value, attn_mask, dropout_mask, is_causal, scale, enable_gqa):
    q, k, v = query, key, value
    L, Sk = q.shape[-2], k.shape[-2]
    sf = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        k = jnp.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = jnp.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    s = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) * jnp.asarray(sf, q.dtype)
    neg = jnp.asarray(-jnp.inf, s.dtype)
    if is_causal:
        s = jnp.where(jnp.tril(jnp.ones((L, Sk), bool)), s, neg)
    if attn_mask is not None:
        if attn_mask.dtype == jnp.bool_:
            s = jnp.where(attn_mask, s, neg)
        else:
            s = s + attn_mask.astype(s.dtype)
    # torch's math kernel uses ``_safe_softmax``: a row whose scores are all -inf (every
    # key masked) gives zero weights, and zero gradients, rather than NaN.
    dead = jnp.all(s == neg, axis=-1, keepdims=True)
    w = jax.nn.softmax(jnp.where(dead, jnp.zeros((), s.dtype), s), axis=-1)
    w = jnp.where(dead, jnp.zeros((), w.dtype), w)
    if dropout_mask is not None:
        w = w * dropout_mask.astype(w.dtype)
    return jnp.matmul(w, v)


def _sdpa_check(query, key, value, attn_mask, dropout_mask, is_causal, scale, enable_gqa):
    for nm, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{nm}' must be Tensor, "
                            f"not {type(t).__name__}")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cname(query.dtype)} key.dtype: {_cname(key.dtype)} and value.dtype: "
            f"{_cname(value.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at "
                           f"least 2-D, got {query.dim()}-D, {key.dim()}-D and "
                           f"{value.dim()}-D")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"Expected query and key to have the same embedding size, got "
                           f"{query.shape[-1]} and {key.shape[-1]}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"Expected key and value to have the same sequence length, got "
                           f"{key.shape[-2]} and {value.shape[-2]}")
    if attn_mask is not None:
        if not (attn_mask.dtype.name == "bool" or attn_mask.dtype == query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_cname(attn_mask.dtype)} and  query.dtype: "
                f"{_cname(query.dtype)} instead.")
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk != 0 or hk != hv:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in query")


def _cname(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


register(OpSpec(
    "_scaled_dot_product_attention", _sdpa_fn,
    "query, key, value, attn_mask, dropout_mask, is_causal, scale, enable_gqa",
    tensor_args=("query", "key", "value", "attn_mask", "dropout_mask"), promote="none",
    function=False, method=False, check=_sdpa_check,
    grad_name="ScaledDotProductAttentionBackward0",
    doc="Kernel of ``torch.nn.functional.scaled_dot_product_attention`` (the math "
        "formulation); ``dropout_mask`` holds the pre-scaled keep mask or None.",
    samples=lambda: [S(arr(2, 3, 4), arr(2, 5, 4), arr(2, 5, 6), None, None, False, None,
                       False)]))
