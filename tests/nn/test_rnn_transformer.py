"""Recurrent and attention layers against PyTorch: outputs and gradients of inputs and of
every parameter (weights copied through ``state_dict``), in train (dropout 0) and eval
mode; packed sequences; masks; printed texts; error paths."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.nn.utils import rnn as rnn_utils

from .._parity import HAVE_TORCH, assert_same, normalize_error, torch
from ._layers import check_module, copy_state


def _a(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def _both(name, *args, **kwargs):
    """The layer in torchlike and in PyTorch (None without PyTorch)."""
    tl.manual_seed(0)
    if not HAVE_TORCH:
        return getattr(nn, name)(*args, **kwargs), None
    torch.manual_seed(0)
    return getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


def _grads_shaped(tensors):
    for i, a in enumerate(tensors):
        assert a.grad is None or tuple(a.grad.shape) == tuple(a.shape), i


# ---------------------------------------------------------------------------
# RNN / LSTM / GRU
RNN_CASES = [
    ("RNN", dict(), False),
    ("RNN", dict(nonlinearity="relu", num_layers=2), False),
    ("RNN", dict(bidirectional=True, batch_first=True), False),
    ("LSTM", dict(), False),
    ("LSTM", dict(num_layers=2, bidirectional=True), True),
    ("LSTM", dict(proj_size=3, batch_first=True), True),
    ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True), False),
    ("LSTM", dict(bias=False), False),
    ("GRU", dict(), True),
    ("GRU", dict(num_layers=3, bidirectional=True, batch_first=True), False),
    ("GRU", dict(bias=False, num_layers=2), True),
]


def _hidden(name, kw, batch, seed=5):
    nd = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    hsz = kw.get("proj_size") or 5
    h0 = _a(L * nd, batch, hsz, seed=seed)
    if name == "LSTM":
        return (h0, _a(L * nd, batch, 5, seed=seed + 1))
    return h0


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("name,kw,with_h0", RNN_CASES)
def test_rnn_layers(name, kw, with_h0, train):
    m, t = _both(name, 4, 5, **kw)
    x = _a(3, 6, 4, seed=1)
    if not with_h0:
        check_module(m, t, [x], train=train)
        return
    h0 = _hidden(name, kw, 3 if kw.get("batch_first") else 6)
    if name == "LSTM":
        check_module(m, t, [x, h0[0], h0[1]], train=train,
                     call=lambda mod, x, h, c: mod(x, (h, c)))
    else:
        check_module(m, t, [x, h0], train=train)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_rnn_unbatched(name):
    m, t = _both(name, 4, 5, num_layers=2)
    check_module(m, t, [_a(7, 4, seed=2)])
    h = _hidden(name, dict(num_layers=2), 1)
    if name == "LSTM":
        check_module(m, t, [_a(7, 4, seed=2), h[0][:, 0], h[1][:, 0]],
                     call=lambda mod, x, a, b: mod(x, (a, b)))
    else:
        check_module(m, t, [_a(7, 4, seed=2), h[:, 0]])


def _packed_call(lib, enforce_sorted, batch_first):
    def call(m, x, *h):
        lengths = [6, 2, 4] if not enforce_sorted else [6, 4, 2]
        ru = rnn_utils if lib == "tl" else torch.nn.utils.rnn
        p = ru.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                    enforce_sorted=enforce_sorted)
        if len(h) == 2:
            out, hid = m(p, (h[0], h[1]))
        elif len(h) == 1:
            out, hid = m(p, h[0])
        else:
            out, hid = m(p)
        padded, lens = ru.pad_packed_sequence(out, batch_first=batch_first, total_length=7)
        return padded, lens, out.data, hid
    return call


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("name,kw", [("LSTM", dict(num_layers=2, bidirectional=True)),
                                     ("GRU", dict(bidirectional=True, batch_first=True)),
                                     ("RNN", dict(num_layers=2)),
                                     ("LSTM", dict(proj_size=2, bidirectional=True))])
def test_rnn_packed(name, kw, enforce_sorted):
    m, t = _both(name, 4, 5, **kw)
    bf = kw.get("batch_first", False)
    x = _a(3, 7, 4, seed=3) if bf else _a(7, 3, 4, seed=3)
    h = _hidden(name, kw, 3)
    hs = list(h) if isinstance(h, tuple) else [h]
    for extra in ([], hs):
        x_tl = tl.tensor(x).requires_grad_(True)
        h_tl = [tl.tensor(a).requires_grad_(True) for a in extra]
        if not HAVE_TORCH:
            out = _packed_call("tl", enforce_sorted, bf)(m, x_tl, *h_tl)
            padded, lens = out[0], out[1]
            assert lens.tolist() == ([6, 2, 4] if not enforce_sorted else [6, 4, 2])
            nd = 2 if kw.get("bidirectional") else 1
            assert tuple(padded.shape) == ((3, 7) if bf else (7, 3)) + \
                (nd * (kw.get("proj_size") or 5),)
            pv = np.asarray(padded.detach())   # padded positions are zero
            for b, n in enumerate(lens.tolist()):
                assert not (pv[b, n:] if bf else pv[n:, b]).any()
            w = np.random.default_rng(1).uniform(0.5, 1.5, tuple(padded.shape))
            hid_o = out[3] if isinstance(out[3], tuple) else (out[3],)
            (padded.double() * tl.tensor(w)).sum().add(
                sum(h.double().sum() for h in hid_o)).backward()
            assert x_tl.grad is not None
            _grads_shaped([x_tl] + h_tl + list(m.parameters()))
            for p in m.parameters():
                p.grad = None
            continue
        copy_state(m, t)
        x_t = torch.tensor(x).requires_grad_(True)
        h_t = [torch.tensor(a).requires_grad_(True) for a in extra]
        out = _packed_call("tl", enforce_sorted, bf)(m, x_tl, *h_tl)
        ref = _packed_call("torch", enforce_sorted, bf)(t, x_t, *h_t)
        assert_same(out, ref, 1e-5, 1e-5)
        w = np.random.default_rng(1).uniform(0.5, 1.5, tuple(ref[0].shape))
        hid_o, hid_r = (out[3] if isinstance(out[3], tuple) else (out[3],),
                        ref[3] if isinstance(ref[3], tuple) else (ref[3],))
        (out[0].double() * tl.tensor(w)).sum().add(sum(h.double().sum() for h in hid_o)).backward()
        (ref[0].double() * torch.tensor(w)).sum().add(
            sum(h.double().sum() for h in hid_r)).backward()
        assert_same(x_tl.grad, x_t.grad, 1e-4, 1e-4)
        for a, b in zip(h_tl, h_t):
            assert_same(a.grad, b.grad, 1e-4, 1e-4)
        tp = dict(t.named_parameters())
        for n, p in m.named_parameters():
            assert_same(p.grad, tp[n].grad, 1e-4, 1e-4, n)
            p.grad = None
            tp[n].grad = None


@pytest.mark.parametrize("name,kw", [("RNNCell", dict()), ("RNNCell", dict(nonlinearity="relu")),
                                     ("LSTMCell", dict()), ("GRUCell", dict()),
                                     ("GRUCell", dict(bias=False))])
def test_cells(name, kw):
    m, t = _both(name, 4, 5, **kw)
    check_module(m, t, [_a(3, 4, seed=1)])
    check_module(m, t, [_a(4, seed=1)])
    if name == "LSTMCell":
        check_module(m, t, [_a(3, 4, seed=1), _a(3, 5, seed=2), _a(3, 5, seed=3)],
                     call=lambda mod, x, h, c: mod(x, (h, c)))
    else:
        check_module(m, t, [_a(3, 4, seed=1), _a(3, 5, seed=2)])


def test_rnn_float64_and_param_names():
    m, t = _both("LSTM", 3, 6, num_layers=2, bidirectional=True, proj_size=2)
    got = [(k, tuple(v.shape)) for k, v in m.state_dict().items()]
    if HAVE_TORCH:
        assert got == [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    else:
        assert len(got) == 20 and got[:5] == [
            ("weight_ih_l0", (24, 3)), ("weight_hh_l0", (24, 2)), ("bias_ih_l0", (24,)),
            ("bias_hh_l0", (24,)), ("weight_hr_l0", (2, 6))]
        assert got[-1] == ("weight_hr_l1_reverse", (2, 6))
    m = nn.GRU(3, 4).double()
    t = torch.nn.GRU(3, 4).double() if HAVE_TORCH else None
    check_module(m, t, [_a(5, 2, 3, dtype="float64")])


def test_rnn_init_range():
    m = nn.LSTM(3, 16, num_layers=2)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= 0.25 and np.abs(v).max() > 0.2
    m.flatten_parameters()
    assert len(m.all_weights) == 2 and len(m.all_weights[0]) == 4


def test_rnn_dropout_train_only():
    tl.manual_seed(0)
    m = nn.LSTM(4, 8, num_layers=3, dropout=0.5)
    x = tl.tensor(_a(5, 2, 4))
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    c, d = m(x)[0], m(x)[0]
    assert not np.array_equal(c.detach().numpy(), d.detach().numpy())
    c.sum().backward()
    assert m.weight_ih_l0.grad is not None


def test_rnn_print():
    pairs = [
        ("LSTM", (10, 20), dict(num_layers=2, batch_first=True)),
        ("GRU", (3, 4), dict(bias=False, dropout=0.5, num_layers=2, bidirectional=True)),
        ("LSTM", (3, 4), dict(proj_size=2)),
        ("RNN", (3, 4), dict(nonlinearity="relu")),
        ("RNNCell", (3, 4), dict(nonlinearity="relu", bias=False)),
        ("LSTMCell", (3, 4), dict()),
        ("GRUCell", (3, 4), dict(bias=False)),
    ]
    for name, args, kw in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = repr(getattr(nn, name)(*args, **kw))
            assert got.startswith(name + "(")
            if HAVE_TORCH:
                assert got == repr(getattr(torch.nn, name)(*args, **kw))
    assert repr(nn.LSTM(10, 20, num_layers=2, batch_first=True)) == \
        "LSTM(10, 20, num_layers=2, batch_first=True)"


def _same_error(fn_tl, fn_t):
    """Both raise the same exception type with the same message (without PyTorch:
    torchlike raises)."""
    if not HAVE_TORCH:
        with pytest.raises(Exception):  # noqa: B017 (type varies by caller)
            fn_tl()
        return
    with pytest.raises(Exception) as e1:
        fn_t()
    with pytest.raises(Exception) as e2:
        fn_tl()
    assert type(e2.value).__name__ == type(e1.value).__name__, (e1.value, e2.value)
    assert normalize_error(str(e2.value)) == str(e1.value)


def test_rnn_errors():
    m, t = _both("LSTM", 10, 20)
    _same_error(lambda: m(tl.zeros(5, 3, 7)), lambda: t(torch.zeros(5, 3, 7)))
    _same_error(lambda: m(tl.zeros(5, 3, 7, 2)), lambda: t(torch.zeros(5, 3, 7, 2)))
    _same_error(lambda: m(tl.zeros(5, 3, 10), (tl.zeros(2, 3, 20), tl.zeros(1, 3, 20))),
                lambda: t(torch.zeros(5, 3, 10), (torch.zeros(2, 3, 20), torch.zeros(1, 3, 20))))
    _same_error(lambda: m(tl.zeros(5, 3, 10), (tl.zeros(3, 20), tl.zeros(3, 20))),
                lambda: t(torch.zeros(5, 3, 10), (torch.zeros(3, 20), torch.zeros(3, 20))))
    g, tg = _both("GRU", 10, 20, num_layers=2)
    _same_error(lambda: g(tl.zeros(5, 3, 10), tl.zeros(1, 3, 20)),
                lambda: tg(torch.zeros(5, 3, 10), torch.zeros(1, 3, 20)))
    _same_error(lambda: g(tl.zeros(5, 3, 10), tl.zeros(3, 20)),
                lambda: tg(torch.zeros(5, 3, 10), torch.zeros(3, 20)))
    _same_error(lambda: g(tl.zeros(5, 3, 10, 1)), lambda: tg(torch.zeros(5, 3, 10, 1)))
    for kw in (dict(proj_size=4, hidden_size=3), dict(dropout=2), dict(num_layers=0),
               dict(hidden_size=0)):
        base = dict(input_size=3, hidden_size=5)
        base.update(kw)
        _same_error(lambda: nn.LSTM(**base), lambda: torch.nn.LSTM(**base))
    _same_error(lambda: nn.GRU(3, 4, proj_size=2), lambda: torch.nn.GRU(3, 4, proj_size=2))
    _same_error(lambda: nn.RNN(3, 4, nonlinearity="sigmoid"),
                lambda: torch.nn.RNN(3, 4, nonlinearity="sigmoid"))
    c, tc = _both("GRUCell", 3, 4)
    _same_error(lambda: c(tl.zeros(2, 2, 3)), lambda: tc(torch.zeros(2, 2, 3)))
    with pytest.warns(UserWarning, match="dropout option adds dropout"):
        nn.LSTM(3, 4, dropout=0.3)


# ---------------------------------------------------------------------------
# nn.utils.rnn
def test_pack_utils():
    seqs = [_a(5, 3, seed=1), _a(2, 3, seed=2), _a(4, 3, seed=3)]
    tl_s = [tl.tensor(s).requires_grad_(True) for s in seqs]
    t_s = [torch.tensor(s).requires_grad_(True) for s in seqs] if HAVE_TORCH else None
    for bf in (False, True):
        for side in ("right", "left"):
            out = rnn_utils.pad_sequence(tl_s, batch_first=bf, padding_value=-1.0,
                                         padding_side=side)
            if HAVE_TORCH:
                assert_same(out, torch.nn.utils.rnn.pad_sequence(
                    t_s, batch_first=bf, padding_value=-1.0, padding_side=side))
                continue
            want = np.full((3, 5, 3), -1.0, np.float32)
            for i, s in enumerate(seqs):
                want[i, :len(s)] = s
                if side == "left":
                    want[i] = np.roll(want[i], 5 - len(s), 0)
            np.testing.assert_array_equal(np.asarray(out.detach()),
                                          want if bf else want.swapaxes(0, 1))
    p1 = rnn_utils.pack_sequence(tl_s, enforce_sorted=False)
    if HAVE_TORCH:
        p2 = torch.nn.utils.rnn.pack_sequence(t_s, enforce_sorted=False)
        assert_same(tuple(p1), tuple(p2))
        assert_same(rnn_utils.pad_packed_sequence(p1, batch_first=True, padding_value=2.0),
                    torch.nn.utils.rnn.pad_packed_sequence(p2, batch_first=True,
                                                           padding_value=2.0))
        assert_same(rnn_utils.unpack_sequence(p1), torch.nn.utils.rnn.unpack_sequence(p2))
    else:   # lengths 5, 2, 4: sorted order 0, 2, 1
        assert p1.batch_sizes.tolist() == [3, 3, 2, 2, 1]
        assert p1.sorted_indices.tolist() == [0, 2, 1]
        assert p1.unsorted_indices.tolist() == [0, 2, 1]
        padded, lens = rnn_utils.pad_packed_sequence(p1, batch_first=True, padding_value=2.0)
        assert lens.tolist() == [5, 2, 4]
        for i, s in enumerate(seqs):
            np.testing.assert_array_equal(np.asarray(padded.detach())[i, :len(s)], s)
            assert (np.asarray(padded.detach())[i, len(s):] == 2.0).all()
        for u, s in zip(rnn_utils.unpack_sequence(p1), seqs):
            np.testing.assert_array_equal(np.asarray(u.detach()), s)
    p1.data.sum().backward()
    if HAVE_TORCH:
        p2.data.sum().backward()
        for a, b in zip(tl_s, t_s):
            assert_same(a.grad, b.grad)
    else:   # pad_sequence's sums did not backprop: only the packed data's
        for a in tl_s:
            np.testing.assert_array_equal(np.asarray(a.grad), np.ones(a.shape))
    assert repr(p1).startswith("PackedSequence(data=tensor(")
    padded = tl.tensor(_a(5, 3, 2))
    lens = tl.tensor([5, 2, 4])
    out = rnn_utils.unpad_sequence(padded, lens)
    if HAVE_TORCH:
        assert_same(out, torch.nn.utils.rnn.unpad_sequence(torch.tensor(_a(5, 3, 2)),
                                                           torch.tensor([5, 2, 4])))
    else:
        for i, (u, n) in enumerate(zip(out, [5, 2, 4])):
            np.testing.assert_array_equal(np.asarray(u), _a(5, 3, 2)[:n, i])
    _same_error(lambda: rnn_utils.pack_padded_sequence(tl.zeros(5, 2, 3), [3, 5]),
                lambda: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(5, 2, 3), [3, 5]))
    _same_error(lambda: rnn_utils.pack_padded_sequence(tl.zeros(5, 2, 3), [5, 0]),
                lambda: torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(5, 2, 3), [5, 0]))
    p = rnn_utils.pack_padded_sequence(tl.zeros(5, 2, 3), [5, 3])
    pt = torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(5, 2, 3), [5, 3]) \
        if HAVE_TORCH else None
    _same_error(lambda: rnn_utils.pad_packed_sequence(p, total_length=3),
                lambda: torch.nn.utils.rnn.pad_packed_sequence(pt, total_length=3))


# ---------------------------------------------------------------------------
# scaled_dot_product_attention
def _np_sdpa(q, k, v, mask=None, is_causal=False, scale=None, enable_gqa=False):
    """Softmax attention in NumPy (float64)."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    if enable_gqa:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], -3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], -3)
    s = q @ np.swapaxes(k, -1, -2) * (scale if scale is not None else 1 / np.sqrt(q.shape[-1]))
    if is_causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def _sdpa_both(q, k, v, mask=None, **kw):
    ins = [q, k, v] + ([mask] if mask is not None else [])
    tl_in = [tl.tensor(a).requires_grad_(a.dtype != np.bool_) for a in ins]
    o1 = F.scaled_dot_product_attention(*tl_in[:3], attn_mask=tl_in[3] if mask is not None
                                        else None, **kw)
    if not HAVE_TORCH:
        if mask is None or not kw.get("is_causal"):
            np.testing.assert_allclose(np.asarray(o1.detach()), _np_sdpa(q, k, v, mask, **kw),
                                       rtol=1e-5, atol=1e-5)
        w = np.random.default_rng(0).uniform(0.5, 1.5, tuple(o1.shape))
        (o1.double() * tl.tensor(w)).sum().backward()
        _grads_shaped(tl_in)
        return
    t_in = [torch.tensor(a).requires_grad_(a.dtype != np.bool_) for a in ins]
    o2 = torch.nn.functional.scaled_dot_product_attention(
        *t_in[:3], attn_mask=t_in[3] if mask is not None else None, **kw)
    assert_same(o1, o2, 1e-5, 1e-5)
    w = np.random.default_rng(0).uniform(0.5, 1.5, tuple(o2.shape))
    (o1.double() * tl.tensor(w)).sum().backward()
    (o2.double() * torch.tensor(w)).sum().backward()
    for a, b in zip(tl_in, t_in):
        if b.requires_grad:
            assert_same(a.grad, b.grad, 1e-4, 1e-4)


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal", "scale", "gqa",
                                  "broadcast_mask", "3d"])
def test_sdpa(kind):
    q, k, v = _a(2, 4, 5, 8, seed=1), _a(2, 4, 6, 8, seed=2), _a(2, 4, 6, 3, seed=3)
    if kind == "none":
        _sdpa_both(q, k, v)
    elif kind == "bool":
        m = np.random.default_rng(4).random((5, 6)) > 0.3
        m[:, 0] = True
        _sdpa_both(q, k, v, m)
    elif kind == "float":
        _sdpa_both(q, k, v, _a(2, 4, 5, 6, seed=5))
    elif kind == "causal":
        _sdpa_both(q, _a(2, 4, 5, 8, seed=2), _a(2, 4, 5, 3, seed=3), is_causal=True)
    elif kind == "scale":
        _sdpa_both(q, k, v, scale=0.3)
    elif kind == "gqa":
        _sdpa_both(q, k[:, :2], v[:, :2], enable_gqa=True)
    elif kind == "broadcast_mask":
        _sdpa_both(q, k, v, _a(1, 1, 5, 6, seed=6))
    else:
        _sdpa_both(q[0], k[0], v[0], is_causal=True)


def test_sdpa_dropout_and_errors():
    q = tl.tensor(_a(2, 3, 4, 8))
    tl.manual_seed(1)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    tl.manual_seed(1)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    c = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert np.array_equal(a.numpy(), b.numpy()) and not np.array_equal(a.numpy(), c.numpy())
    qt = torch.tensor(_a(2, 3, 4, 8)) if HAVE_TORCH else None
    m = np.ones((4, 4), bool)
    _same_error(lambda: F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=tl.tensor(m),
                                                       is_causal=True),
                lambda: torch.nn.functional.scaled_dot_product_attention(
                    qt[0], qt[0], qt[0], attn_mask=torch.tensor(m), is_causal=True))
    m = np.random.default_rng(3).random((4, 4)) > 0.3
    m[:, 0] = True
    _sdpa_both(_a(1, 2, 4, 8), _a(1, 2, 4, 8, seed=1), _a(1, 2, 4, 8, seed=2), m,
               is_causal=True)


# ---------------------------------------------------------------------------
# MultiheadAttention
MHA_CASES = [
    dict(),
    dict(batch_first=True),
    dict(bias=False),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(add_bias_kv=True, add_zero_attn=True, batch_first=True),
    dict(kdim=5, vdim=3),
]


def _mha_call(mask_kind, need_weights, average, is_causal=False, cross=False):
    def call(m, q, k, v, *masks):
        kw = dict(need_weights=need_weights, average_attn_weights=average)
        if mask_kind in ("attn_bool", "attn_float", "both", "attn3d"):
            kw["attn_mask"] = masks[0]
        if mask_kind in ("kpm", "both"):
            kw["key_padding_mask"] = masks[-1]
        if is_causal:
            kw["is_causal"] = True
        if not cross:
            return m(q, q, q, **kw)
        return m(q, k, v, **kw)
    return call


def _masks(kind, L, S, N, heads):
    rng = np.random.default_rng(9)
    out = []
    if kind in ("attn_bool", "both"):
        m = rng.random((L, S)) > 0.7
        m[:, 0] = False
        out.append(m)
    if kind == "attn3d":
        m = rng.random((N * heads, L, S)) > 0.7
        m[..., 0] = False
        out.append(m)
    if kind == "attn_float":
        out.append(_a(L, S, seed=11))
    if kind in ("kpm", "both"):
        m = rng.random((N, S)) > 0.7
        m[:, 0] = False
        out.append(m)
    return out


@pytest.mark.parametrize("kw", MHA_CASES)
@pytest.mark.parametrize("mask_kind,need_weights,average",
                         [("none", True, True), ("attn_bool", False, True),
                          ("kpm", True, False), ("both", False, True),
                          ("attn_float", True, True), ("attn3d", True, False)])
def test_multihead_attention(kw, mask_kind, need_weights, average):
    m, t = _both("MultiheadAttention", 8, 2, **kw)
    bf = kw.get("batch_first", False)
    L, S, N = 4, 5, 3
    cross = "kdim" in kw or mask_kind != "none"
    q = _a(N, L, 8, seed=1) if bf else _a(L, N, 8, seed=1)
    k = _a(N, S, kw.get("kdim", 8), seed=2) if bf else _a(S, N, kw.get("kdim", 8), seed=2)
    v = _a(N, S, kw.get("vdim", 8), seed=3) if bf else _a(S, N, kw.get("vdim", 8), seed=3)
    if not cross:
        k, v = q, q
        S = L
    masks = _masks(mask_kind, L, S, N, 2)
    if mask_kind == "attn_float":
        masks = [masks[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for train in (True, False):
            check_module(m, t, [q, k, v] + masks, train=train,
                         call=_mha_call(mask_kind, need_weights, average, cross=cross))


def test_multihead_attention_unbatched_and_causal():
    m, t = _both("MultiheadAttention", 8, 2)
    x = _a(4, 8, seed=1)
    check_module(m, t, [x, x, x], call=_mha_call("none", True, True))
    mask = np.triu(np.ones((4, 4), bool), 1)
    for nw in (True, False):
        check_module(m, t, [x, x, x, mask], call=_mha_call("attn_bool", nw, True, is_causal=True))
    if HAVE_TORCH:
        assert repr(m) == repr(t)
        assert repr(nn.MultiheadAttention(8, 2, kdim=4, vdim=4)) == \
            repr(torch.nn.MultiheadAttention(8, 2, kdim=4, vdim=4))
    else:
        assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                           "in_features=8, out_features=8, bias=True)\n)")
    assert list(m.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                    "out_proj.bias"]


def test_multihead_attention_errors():
    m, t = _both("MultiheadAttention", 8, 2)
    _same_error(lambda: nn.MultiheadAttention(8, 3), lambda: torch.nn.MultiheadAttention(8, 3))
    _same_error(lambda: nn.MultiheadAttention(0, 2), lambda: torch.nn.MultiheadAttention(0, 2))
    x, xt = tl.zeros(4, 2, 8), torch.zeros(4, 2, 8) if HAVE_TORCH else None
    _same_error(lambda: m(x, x, x, attn_mask=tl.zeros(3, 4)),
                lambda: t(xt, xt, xt, attn_mask=torch.zeros(3, 4)))
    _same_error(lambda: m(x, x, x, key_padding_mask=tl.zeros(2, 4, 1, dtype=tl.bool)),
                lambda: t(xt, xt, xt, key_padding_mask=torch.zeros(2, 4, 1, dtype=torch.bool)))
    _same_error(lambda: m(x, x, x, is_causal=True), lambda: t(xt, xt, xt, is_causal=True))
    _same_error(lambda: m(x, x, x, attn_mask=tl.zeros(4, 4, dtype=tl.int64)),
                lambda: t(xt, xt, xt, attn_mask=torch.zeros(4, 4, dtype=torch.int64)))


@pytest.mark.parametrize("mask,causal", [(None, False), ("float", False), ("bool", False),
                                         ("bool", True)])
def test_batch_first_self_attention_layout(mask, causal):
    """Note [Self-attention layout]: batch-first self-attention without weights runs in
    the input's layout, with the values, dropout draw, gradients, strides and node of
    the sequence-first computation (which a distinct ``key`` object still takes)."""
    n, seq = 3, 4
    x = _a(n, seq, 8, seed=1)
    am = {None: None, "float": _a(seq, seq, seed=2),
          "bool": np.triu(np.ones((seq, seq), bool), 1)}[mask]
    tl.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True)
    calls, fast_path = [], m._batch_first_self_attention
    m._batch_first_self_attention = lambda *a: calls.append(1) or fast_path(*a)
    for train in (True, False):
        m.train(train)
        runs = []
        for same in (True, False):
            xt = tl.tensor(x, requires_grad=True)
            key = xt if same else xt.view_as(xt)   # not ``query``: the general path
            tl.manual_seed(5)
            out, w = m(xt, key, key, need_weights=False, is_causal=causal,
                       attn_mask=None if am is None else tl.tensor(am))
            assert w is None
            m.zero_grad()
            (out * tl.tensor(_a(n, seq, 8, seed=3))).sum().backward()
            runs.append((out, xt.grad, m.in_proj_weight.grad.clone()))
        (fast, gx, gw), (ref, rgx, rgw) = runs
        assert len(calls) == 1 + (not train)   # taken by the first run only
        assert fast.stride() == ref.stride() and fast.shape == ref.shape
        assert fast.grad_fn.name() == ref.grad_fn.name() == "TransposeBackward0"
        for a, b in ((fast, ref), (gx, rgx), (gw, rgw)):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5,
                                       atol=1e-6)
    if HAVE_TORCH:   # and PyTorch's values, strides and node, without dropout
        t = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        copy_state(m, t)
        m.eval()
        mask_t = None if am is None else torch.tensor(am)
        got = m(*[tl.tensor(x)] * 3, need_weights=False, is_causal=causal,
                attn_mask=None if am is None else tl.tensor(am))[0]
        xt = torch.tensor(x)
        want = t(xt, xt, xt, need_weights=False, is_causal=causal, attn_mask=mask_t)[0]
        assert got.stride() == want.stride()
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


# ---------------------------------------------------------------------------
# Transformer family
@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True), dict(activation="gelu"),
                                dict(batch_first=True, bias=False),
                                dict(activation=F.gelu, layer_norm_eps=1e-3)])
def test_transformer_encoder_layer(kw):
    act = kw.get("activation")
    tkw = dict(kw)
    if act is F.gelu and HAVE_TORCH:
        tkw["activation"] = torch.nn.functional.gelu
    tl.manual_seed(0)
    m = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)
    t = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **tkw) \
        if HAVE_TORCH else None
    bf = kw.get("batch_first", False)
    x = _a(3, 4, 8, seed=1) if bf else _a(4, 3, 8, seed=1)
    mask = np.triu(np.ones((4, 4), bool), 1)
    kpm = np.zeros((3, 4), bool)
    kpm[1, 3] = True
    for train in (True, False):
        check_module(m, t, [x], train=train)
        check_module(m, t, [x, mask, kpm], train=train,
                     call=lambda mod, s, a, b: mod(s, src_mask=a, src_key_padding_mask=b))


@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True, activation="gelu"),
                                dict(batch_first=True)])
def test_transformer_decoder_layer(kw):
    tl.manual_seed(0)
    m = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)
    t = torch.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw) \
        if HAVE_TORCH else None
    tgt, mem = _a(3, 4, 8, seed=1), _a(3, 5, 8, seed=2) if kw.get("batch_first") \
        else _a(5, 3, 8, seed=2)
    if not kw.get("batch_first"):
        tgt = _a(4, 3, 8, seed=1)
    cm = np.triu(np.full((4, 4), -np.inf, np.float32), 1)
    for train in (True, False):
        check_module(m, t, [tgt, mem], train=train)
        check_module(m, t, [tgt, mem, cm], train=train,
                     call=lambda mod, a, b, c: mod(a, b, tgt_mask=c, tgt_is_causal=True))


def test_transformer_full():
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
              dim_feedforward=16, dropout=0.0)
    tl.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nn.Transformer(**kw)
        t = torch.nn.Transformer(**kw) if HAVE_TORCH else None
    if HAVE_TORCH:
        assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    assert "layers.0.self_attn.in_proj_weight" in m.encoder.state_dict()
    src, tgt = _a(6, 2, 8, seed=1), _a(4, 2, 8, seed=2)
    tmask = nn.Transformer.generate_square_subsequent_mask(4)
    if HAVE_TORCH:
        assert_same(tmask, torch.nn.Transformer.generate_square_subsequent_mask(4))
    else:
        np.testing.assert_array_equal(np.asarray(tmask),
                                      np.triu(np.full((4, 4), -np.inf, np.float32), 1))
    kpm = np.zeros((2, 6), bool)
    kpm[0, 5] = True

    def call(mod, s, tg, k):
        lib = tl if isinstance(s, tl.Tensor) else torch
        return mod(s, tg, tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(4),
                   src_key_padding_mask=k, memory_key_padding_mask=k)
    for train in (True, False):
        check_module(m, t, [src, tgt, kpm], train=train, call=call, rtol=1e-4, atol=1e-4)
    if HAVE_TORCH:
        for a, b in ((m, t), (m.encoder.layers[0], t.encoder.layers[0])):
            assert repr(a) == repr(b)


def test_transformer_encoder_stack_and_print():
    with warnings.catch_warnings(record=True) as w1:
        warnings.simplefilter("always")
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
        enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
    tenc = None
    if HAVE_TORCH:
        with warnings.catch_warnings(record=True) as w2:
            warnings.simplefilter("always")
            tlayer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
            tenc = torch.nn.TransformerEncoder(tlayer, 2, norm=torch.nn.LayerNorm(8))
        assert [str(w.message) for w in w1] == [str(w.message) for w in w2]
        assert repr(enc) == repr(tenc)
    else:
        assert any("enable_nested_tensor is True" in str(w.message) for w in w1)
        assert [n for n, _ in enc.named_children()] == ["layers", "norm"]
    x = _a(5, 2, 8, seed=3)
    mask = np.triu(np.full((5, 5), -np.inf, np.float32), 1)
    check_module(enc, tenc, [x, mask], call=lambda mod, a, b: mod(a, mask=b))
    check_module(enc, tenc, [x, mask], call=lambda mod, a, b: mod(a, mask=b, is_causal=True),
                 train=False)


def test_transformer_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=8)
        t = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
                                 num_decoder_layers=1, dim_feedforward=8) \
            if HAVE_TORCH else None
    _same_error(lambda: m(tl.zeros(3, 2, 8), tl.zeros(3, 1, 8)),
                lambda: t(torch.zeros(3, 2, 8), torch.zeros(3, 1, 8)))
    _same_error(lambda: m(tl.zeros(3, 2, 4), tl.zeros(3, 2, 4)),
                lambda: t(torch.zeros(3, 2, 4), torch.zeros(3, 2, 4)))
    _same_error(lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"))
