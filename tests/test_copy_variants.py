"""The ``*_copy`` functions (``permute_copy``, ``view_copy``, ``split_copy``, ...):
values, dtypes, shapes and contiguous strides, that results never alias their input,
gradients and node names, ``out=``, and PyTorch's errors; against PyTorch, and against
NumPy and the view ops without it."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, assert_same, fw_module, raises_in_both, torch

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    a = RNG.uniform(-2, 2, shape)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        a = a + 1j * RNG.uniform(-2, 2, shape)
    return a.astype(dtype)


def contiguous(shape) -> tuple:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def strided(a, size, stride, offset=0):
    """NumPy's reading of ``as_strided`` over the flat storage ``a``."""
    flat = a.reshape(-1)
    idx = np.full(tuple(size), offset, np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n) * st).reshape(shape)
    return flat[idx]


def windows(a, dim, size, step):
    if a.ndim == 0:
        return a.reshape(1)[:size]
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    return np.take(w, np.arange(0, w.shape[dim], step), axis=dim)


def slc(a, dim, start, end, step=1):
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, end, step)
    return a[tuple(idx)]


@dataclass
class C:
    """A call ``<fw>.<name>(x, *args, **kwargs)`` on ``x = a``; ``ref(a)``: NumPy's
    result; ``view(x)``: the view op whose gradient the copy must have; ``node``:
    PyTorch's node name."""

    name: str
    a: np.ndarray
    args: tuple
    ref: Callable
    view: Callable | None
    node: str | None
    kwargs: dict = field(default_factory=dict)

    def call(self, fw, x, **extra):
        return getattr(fw_module(fw), self.name)(x, *self.args, **self.kwargs, **extra)


CASES = [
    C("alias_copy", rand(2, 3), (), lambda a: a, lambda x: x.view_as(x),
      "AliasBackward0_copy"),
    C("as_strided_copy", rand(12), ((3, 3), (1, 1)), lambda a: strided(a, (3, 3), (1, 1)),
      lambda x: x.as_strided((3, 3), (1, 1)), "AsStridedBackward0_copy"),
    C("as_strided_copy", rand(3, 4), ((2, 3), (1, 4), 1),
      lambda a: strided(a, (2, 3), (1, 4), 1), lambda x: x.as_strided((2, 3), (1, 4), 1),
      "AsStridedBackward0_copy"),
    C("detach_copy", rand(2, 3), (), lambda a: a, None, "torch::autograd::NotImplemented"),
    C("diagonal_copy", rand(3, 4), (1,), lambda a: np.diagonal(a, 1),
      lambda x: x.diagonal(1), "DiagonalBackward0_copy"),
    C("diagonal_copy", rand(2, 3, 4), (-1, 2, 0), lambda a: np.diagonal(a, -1, 2, 0),
      lambda x: x.diagonal(-1, 2, 0), "DiagonalBackward0_copy"),
    C("expand_copy", rand(3, 1), ((2, 3, 4),), lambda a: np.broadcast_to(a, (2, 3, 4)),
      lambda x: x.expand(2, 3, 4), "ExpandBackward0_copy"),
    C("narrow_copy", rand(4, 5), (1, -3, 2), lambda a: a[:, 2:4],
      lambda x: x.narrow(1, -3, 2), "NarrowCopyBackward0"),
    C("permute_copy", rand(2, 3, 4), ((2, 0, 1),), lambda a: np.transpose(a, (2, 0, 1)),
      lambda x: x.permute(2, 0, 1), "PermuteBackward0_copy"),
    C("permute_copy", rand(2, 3), ((1, 0),), lambda a: a.T, lambda x: x.permute(1, 0),
      "PermuteBackward0_copy"),
    C("select_copy", rand(3, 4), (1, -1), lambda a: a[:, -1], lambda x: x.select(1, -1),
      "SelectBackward0_copy"),
    C("slice_copy", rand(3, 6), (1, 1, None, 2), lambda a: a[:, 1::2], lambda x: x[:, 1::2],
      "SliceBackward0_copy"),
    C("slice_copy", rand(3, 6), (), lambda a: a, lambda x: x[:], "SliceBackward0_copy"),
    C("squeeze_copy", rand(1, 3, 1), (), lambda a: np.squeeze(a), lambda x: x.squeeze(),
      "SqueezeBackward0_copy"),
    C("squeeze_copy", rand(1, 3, 1), (0,), lambda a: a[0], lambda x: x.squeeze(0),
      "SqueezeBackward1_copy"),
    C("squeeze_copy", rand(1, 3, 1), ((0, 2),), lambda a: a[0, :, 0],
      lambda x: x.squeeze((0, 2)), "SqueezeBackward2_copy"),
    C("t_copy", rand(3, 4), (), lambda a: a.T, lambda x: x.t(), "TBackward0_copy"),
    C("transpose_copy", rand(2, 3, 4), (0, 2), lambda a: np.swapaxes(a, 0, 2),
      lambda x: x.transpose(0, 2), "TransposeBackward0_copy"),
    C("unfold_copy", rand(3, 8), (1, 3, 2), lambda a: windows(a, 1, 3, 2),
      lambda x: x.unfold(1, 3, 2), "UnfoldBackward0_copy"),
    C("unsqueeze_copy", rand(3, 4), (1,), lambda a: a[:, None], lambda x: x.unsqueeze(1),
      "UnsqueezeBackward0_copy"),
    C("view_copy", rand(2, 3, 4), ((6, -1),), lambda a: a.reshape(6, 4),
      lambda x: x.view(6, -1), "ViewBackward0_copy"),
    C("view_as_real_copy", rand(2, 3, dtype=np.complex64), (),
      lambda a: np.stack([a.real, a.imag], -1), lambda x: tl.view_as_real(x),
      "ViewAsRealBackward0_copy"),
    C("view_as_complex_copy", rand(2, 3, 2), (), lambda a: a[..., 0] + 1j * a[..., 1],
      None, None),
    C("view_copy", rand(2, 4), (tl.float16,), lambda a: a.view(np.float16), None, None),
    C("view_copy", rand(2, 4), (tl.complex64,), lambda a: a.view(np.complex64), None, None),
    C("view_copy", rand(3, dtype=np.complex64), (tl.int64,), lambda a: a.view(np.int64),
      None, None),
    C("view_copy", rand(2, 3), (tl.int32,), lambda a: a.view(np.int32), None, None),
]
SEVERAL = [
    C("split_copy", rand(5, 2), (2,), lambda a: [a[0:2], a[2:4], a[4:]],
      lambda x: x.split(2), "SplitBackward0_copy"),
    C("split_copy", rand(3, 6), (4, 1), lambda a: [a[:, :4], a[:, 4:]],
      lambda x: x.split(4, 1), "SplitBackward0_copy"),
    C("split_with_sizes_copy", rand(3, 6), ([1, 0, 5], -1),
      lambda a: [a[:, :1], a[:, 1:1], a[:, 1:]], lambda x: x.split_with_sizes([1, 0, 5], -1),
      "SplitWithSizesBackward0_copy"),
    C("unbind_copy", rand(2, 3), (1,), lambda a: [a[:, i] for i in range(3)],
      lambda x: x.unbind(1), "UnbindBackward0_copy"),
]


def _ids(cases):
    return [f"{c.name}-{i}" for i, c in enumerate(cases)]


def _inputs(case, requires_grad=False):
    x = tl.tensor(case.a).requires_grad_(requires_grad)
    r = torch.tensor(case.a).requires_grad_(requires_grad) if HAVE_TORCH else None
    return x, r


def _torch_args(case):
    conv = {tl.float16: "float16", tl.complex64: "complex64", tl.int64: "int64",
            tl.int32: "int32"}
    return tuple(getattr(torch, conv[a]) if isinstance(a, tl.dtype) else a
                 for a in case.args)


def _call_torch(case, r, **extra):
    return getattr(torch, case.name)(r, *_torch_args(case), **case.kwargs, **extra)


def _check_fresh(out, x):
    """``out`` is a new contiguous tensor: no base, contiguous strides, and writes to
    it and to ``x`` do not reach each other."""
    assert out._base is None
    assert out.stride() == contiguous(tuple(out.shape))
    assert out.is_contiguous()
    if out.numel() == 0:
        return
    before_x, before_out = x.detach().numpy().copy(), out.detach().numpy().copy()
    with tl.no_grad():
        out.view(-1)[0] = 1 if out.dtype is tl.bool else 17
    np.testing.assert_array_equal(x.detach().numpy(), before_x)
    with tl.no_grad():
        out.copy_(tl.tensor(before_out))
        x.view(-1)[0] = 1 if x.dtype is tl.bool else -23
    np.testing.assert_array_equal(out.detach().numpy(), before_out)


# ---------------------------------------------------------------------------
# values, dtypes, layouts, aliasing
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_values_layout_and_no_aliasing(case):
    x, r = _inputs(case)
    out = case.call("tl", x)
    expected = case.ref(case.a)
    assert tuple(out.shape) == expected.shape
    assert out.dtype.np == expected.dtype if case.name != "view_copy" or \
        not isinstance(case.args[0], tl.dtype) else out.dtype is case.args[0]
    np.testing.assert_array_equal(out.numpy(), expected)
    if HAVE_TORCH:
        ref = _call_torch(case, r)
        assert_same(out, ref, 0, 0)
        assert out.stride() == ref.stride() and ref._base is None
    _check_fresh(out, x)


@pytest.mark.parametrize("case", SEVERAL, ids=_ids(SEVERAL))
def test_several_results_are_fresh(case):
    x, r = _inputs(case)
    outs = case.call("tl", x)
    assert isinstance(outs, tuple)
    expected = case.ref(case.a)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(o.numpy(), e)
    if HAVE_TORCH:
        refs = _call_torch(case, r)
        assert isinstance(refs, tuple)
        assert_same(outs, refs, 0, 0)
        assert [o.stride() for o in outs] == [o.stride() for o in refs]
    for o in outs:
        _check_fresh(o, x)


def test_views_of_the_input_and_other_dtypes():
    """Inputs that are views themselves (the copy reads through them) and integer,
    bool and float64 inputs."""
    base = rand(4, 6)
    for fw in (["tl", "torch"] if HAVE_TORCH else ["tl"]):
        m = fw_module(fw)
        x = m.tensor(base)
        v = x.t()[1:]                               # a non-contiguous view
        out = m.permute_copy(v, (1, 0))
        np.testing.assert_array_equal(out.numpy(), base.T[1:].T)
        assert out.stride() == (5, 1) and out._base is None
        flat = m.view_copy(v, (-1,))                # view() itself would refuse
        np.testing.assert_array_equal(flat.numpy(), base.T[1:].reshape(-1))
        for dt in ("int64", "bool", "float64"):
            a = (base * 3).astype(dt)
            t = m.tensor(a)
            assert str(m.t_copy(t).dtype).split(".")[-1] == dt
            np.testing.assert_array_equal(m.t_copy(t).numpy(), a.T)
            np.testing.assert_array_equal(m.expand_copy(t[:1], (3, 6)).numpy(),
                                          np.broadcast_to(a[:1], (3, 6)))
        # as_strided_copy reads the storage of a view, from its offset by default
        s = m.arange(10.)[2:]
        np.testing.assert_array_equal(m.as_strided_copy(s, (2, 2), (2, 1)).numpy(),
                                      [[2, 3], [4, 5]])
        np.testing.assert_array_equal(m.as_strided_copy(s, (3,), (1,), 0).numpy(), [0, 1, 2])


def test_methods_only_where_pytorch_has_them():
    names = [c.name for c in CASES + SEVERAL]
    for name in set(names):
        assert callable(getattr(tl, name))
        has = name == "narrow_copy"
        assert hasattr(tl.Tensor, name) == has
        if HAVE_TORCH:
            assert hasattr(torch.Tensor, name) == has
    x = tl.tensor(rand(4, 5))
    np.testing.assert_array_equal(x.narrow_copy(1, 1, 3).numpy(), x.numpy()[:, 1:4])


# ---------------------------------------------------------------------------
# autograd
_DIFF = [c for c in CASES + SEVERAL if c.node and c.node.endswith(("_copy", "Backward0"))]


@pytest.mark.parametrize("case", _DIFF, ids=_ids(_DIFF))
def test_gradients_and_node_names(case):
    x, r = _inputs(case, requires_grad=True)
    out = case.call("tl", x)
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        assert o.requires_grad and o.grad_fn.name() == case.node
        assert repr(o.grad_fn).startswith(f"<{case.node} object")
    ws = [rand(*o.shape) for o in outs]
    loss = sum(((o.real if o.is_complex() else o) * tl.tensor(w)).sum()
               for o, w in zip(outs, ws))
    (g,) = tl.autograd.grad(loss, [x])
    # the view op's gradient (tested on its own elsewhere) is the copy's
    y = tl.tensor(case.a).requires_grad_(True)
    vouts = case.view(y)
    vouts = vouts if isinstance(vouts, tuple) else (vouts,)
    vloss = sum(((o.real if o.is_complex() else o) * tl.tensor(w)).sum()
                for o, w in zip(vouts, ws))
    (vg,) = tl.autograd.grad(vloss, [y])
    np.testing.assert_allclose(g.numpy(), vg.numpy(), rtol=1e-6, atol=1e-6)
    if HAVE_TORCH:
        ref = _call_torch(case, r)
        refs = ref if isinstance(ref, tuple) else (ref,)
        assert [type(o.grad_fn).__name__ for o in refs] == [case.node] * len(refs)
        assert [o.grad_fn.name() for o in refs] == [case.node] * len(refs)
        rloss = sum(((o.real if o.is_complex() else o) * torch.tensor(w)).sum()
                    for o, w in zip(refs, ws))
        (rg,) = torch.autograd.grad(rloss, [r])
        assert_same(g, rg, 1e-5, 1e-6)
        assert [type(n).__name__ if n is not None else None
                for n, _ in refs[0].grad_fn.next_functions] == ["AccumulateGrad"]
    assert [type(n).__name__ for n, _ in outs[0].grad_fn.next_functions] == \
        ["AccumulateGrad"]


def test_overlapping_as_strided_copy_accumulates():
    a = np.arange(6, dtype=np.float32)
    x = tl.tensor(a).requires_grad_(True)
    tl.as_strided_copy(x, (3, 3), (1, 1)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 2, 3, 2, 1, 0])


def test_detach_copy_has_no_derivative():
    """PyTorch records ``detach_copy`` with a ``NotImplemented`` node: the result
    requires grad, and a backward through it raises."""
    for fw in (["tl", "torch"] if HAVE_TORCH else ["tl"]):
        m = fw_module(fw)
        x = m.tensor(rand(2, 3)).requires_grad_(True)
        out = m.detach_copy(x)
        assert out.requires_grad and not out.is_leaf
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError,
                           match="derivative for aten::detach_copy is not implemented"):
            out.sum().backward()
        with m.no_grad():
            assert not m.detach_copy(x).requires_grad


def test_no_node_for_view_copy_dtype_and_view_as_complex_copy():
    x = tl.tensor(rand(2, 4)).requires_grad_(True)
    out = tl.view_copy(x, tl.float16)
    assert not out.requires_grad and out.grad_fn is None
    same = tl.view_copy(x, dtype=tl.float32)
    assert not same.requires_grad and same.dtype is tl.float32
    raises_in_both(lambda m: m.view_as_complex_copy(m.zeros(3, 2, requires_grad=True)),
                   RuntimeError)
    with tl.no_grad():
        c = tl.view_as_complex_copy(tl.tensor(rand(3, 2)).requires_grad_(True))
    assert c.dtype is tl.complex64 and not c.requires_grad
    raises_in_both(lambda m: m.view_as_complex_copy(m.zeros(3, 3, requires_grad=True)),
                   RuntimeError)   # the layout checks come first


def test_integer_inputs_record_no_node():
    x = tl.arange(6).reshape(2, 3)
    out = tl.permute_copy(x, (1, 0))
    assert out.grad_fn is None and not out.requires_grad


# ---------------------------------------------------------------------------
# out=
def _fws():
    return ["tl", "torch"] if HAVE_TORCH else ["tl"]


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_out_keyword(case):
    """``out`` of the right shape and dtype is filled and returned; one of the wrong
    shape is resized (with PyTorch's warning when it held elements)."""
    x, r = _inputs(case)
    expected = case.ref(case.a)
    dt = case.args[0] if case.name == "view_copy" and isinstance(case.args[0], tl.dtype) \
        else x.dtype if case.name not in ("view_as_real_copy", "view_as_complex_copy") \
        else (tl.float32 if case.name == "view_as_real_copy" else tl.complex64)
    out = tl.empty(expected.shape, dtype=dt)
    res = case.call("tl", x, out=out)
    assert res is out
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(case.call("tl", x, out=None).numpy(), expected)
    empty = tl.empty(0, dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = case.call("tl", x, out=empty)
    assert res is empty and tuple(empty.shape) == expected.shape
    assert empty.stride() == contiguous(expected.shape)
    np.testing.assert_array_equal(empty.numpy(), expected)
    wrong = tl.empty(7, dtype=dt)
    if case.name == "narrow_copy":   # its own out kernel resizes without a warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            case.call("tl", x, out=wrong)
    else:
        with pytest.warns(UserWarning, match=r"An output with one or more elements was "
                                             r"resized since it had shape \[7\], which does "
                                             r"not match the required output shape"):
            case.call("tl", x, out=wrong)
    np.testing.assert_array_equal(wrong.numpy(), expected)
    if HAVE_TORCH:
        tdt = getattr(torch, str(dt).split(".")[-1])
        rout = torch.empty(expected.shape, dtype=tdt)
        assert _call_torch(case, r, out=rout) is rout
        assert_same(out, rout, 0, 0)
        if case.name == "narrow_copy":
            return
        rwrong = torch.empty(7, dtype=tdt)
        with pytest.warns(UserWarning) as rec:
            _call_torch(case, r, out=rwrong)
        with pytest.warns(UserWarning) as mine:
            case.call("tl", x, out=tl.empty(7, dtype=dt))
        assert str(mine[0].message) == str(rec[0].message).split(" (Triggered")[0]


def test_out_keeps_a_strided_layout_and_writes_through_views():
    for fw in _fws():
        m = fw_module(fw)
        x = m.tensor(rand(2, 3))
        out = m.empty(2, 3).t()                       # shape (3, 2), strides (1, 3)
        m.permute_copy(x, (1, 0), out=out)
        assert out.stride() == (1, 3)
        np.testing.assert_array_equal(out.numpy(), x.numpy().T)
        base = m.zeros(4, 3)
        m.narrow_copy(x, 0, 0, 2, out=base[1:3])
        np.testing.assert_array_equal(base.numpy()[1:3], x.numpy())
        assert base.numpy()[0].tolist() == [0, 0, 0]


def test_out_dtype_must_match():
    for dt in ("float64", "int64", "complex64"):
        raises_in_both(lambda m: m.permute_copy(m.zeros(2, 3), (1, 0),
                                                out=m.empty(3, 2, dtype=getattr(m, dt))),
                       RuntimeError)
    raises_in_both(lambda m: m.t_copy(m.arange(6).reshape(2, 3), out=m.empty(3, 2)),
                   RuntimeError)
    raises_in_both(lambda m: m.view_copy(m.zeros(2, 3), m.int32, out=m.empty(2, 3)),
                   RuntimeError)
    raises_in_both(lambda m: m.permute_copy(m.zeros(2, 3), (1, 0), out=3), TypeError)
    # the op's own errors come first
    raises_in_both(lambda m: m.permute_copy(m.zeros(2, 3), (1,),
                                            out=m.empty(3, 2, dtype=m.float64)),
                   RuntimeError)


def test_out_and_autograd():
    """A leaf ``out`` that requires grad is refused; an input that requires grad gives
    the result PyTorch's ``NotImplemented`` node, whose backward raises."""
    for fw in _fws():
        m = fw_module(fw)
        x = m.tensor(rand(2, 3)).requires_grad_(True)
        with pytest.raises(RuntimeError, match=r"aten::permute_copy\(\): functions with "
                                               r"out=\.\.\. arguments don't support automatic "
                                               r"differentiation, but one of the arguments "
                                               r"requires grad\."):
            m.permute_copy(x.detach(), (1, 0), out=m.empty(3, 2, requires_grad=True))
        out = m.empty(3, 2)
        res = m.permute_copy(x, (1, 0), out=out)
        assert res is out and out.requires_grad
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError,
                           match="derivative for aten::permute_copy is not implemented"):
            out.sum().backward()
        with m.no_grad():
            out = m.empty(3, 2)
            m.permute_copy(x, (1, 0), out=out)
        assert not out.requires_grad and out.grad_fn is None
        with m.no_grad():   # no check without grad mode
            leaf = m.empty(3, 2, requires_grad=True)
            m.permute_copy(x, (1, 0), out=leaf)
        assert leaf.requires_grad and leaf.grad_fn is None


def test_narrow_copy_out_kernel():
    """``narrow_copy``'s own out kernel: any argument requiring grad is refused, and its
    dtype check has its own wording."""
    raises_in_both(lambda m: m.narrow_copy(m.zeros(4, 2, requires_grad=True), 0, 0, 1,
                                           out=m.empty(1, 2)), RuntimeError)
    raises_in_both(lambda m: m.narrow_copy(m.zeros(4, 2), 0, 0, 1,
                                           out=m.empty(1, 2, requires_grad=True).clone()),
                   RuntimeError)
    raises_in_both(lambda m: m.narrow_copy(m.zeros(4, 2), 0, 0, 1,
                                           out=m.empty(1, 2, dtype=m.float64)), RuntimeError)
    for fw in _fws():
        m = fw_module(fw)
        with m.no_grad():
            out = m.empty(1, 2)
            m.narrow_copy(m.ones(4, 2, requires_grad=True), 0, 0, 1, out=out)
        assert out.tolist() == [[1.0, 1.0]] and not out.requires_grad


def test_narrow_copy_method_has_no_out():
    raises_in_both(lambda m: m.zeros(3, 4).narrow_copy(0, 0, 1, out=m.empty(1, 4)), TypeError)


@pytest.mark.parametrize("case", SEVERAL, ids=_ids(SEVERAL))
def test_out_list(case):
    """The ops returning several tensors copy each into its ``out`` tensor (as
    ``copy_``: broadcasting and casting) and return None."""
    x, r = _inputs(case)
    expected = case.ref(case.a)
    outs = [tl.empty(e.shape) for e in expected]
    assert case.call("tl", x, out=outs) is None
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(o.numpy(), e)
    outs64 = tuple(tl.empty(e.shape, dtype=tl.float64) for e in expected)
    assert case.call("tl", x, out=outs64) is None
    for o, e in zip(outs64, expected):
        np.testing.assert_array_equal(o.numpy(), e.astype(np.float64))
    x.requires_grad_(True)
    outs = [tl.empty(e.shape) for e in expected]
    case.call("tl", x, out=outs)
    assert all(o.grad_fn is None and not o.requires_grad for o in outs)
    if HAVE_TORCH:
        routs = [torch.empty(e.shape) for e in expected]
        assert _call_torch(case, r, out=routs) is None
        for o, ro in zip(outs, routs):
            assert_same(o, ro, 0, 0)

    def short(m):
        args = case.args if m is tl else _torch_args(case)
        getattr(m, case.name)(m.tensor(case.a), *args, out=[m.empty(1)])
    raises_in_both(short, RuntimeError)

    def not_a_list(m):
        args = case.args if m is tl else _torch_args(case)
        getattr(m, case.name)(m.tensor(case.a), *args, out=m.empty(1))
    raises_in_both(not_a_list, TypeError)


def test_out_list_broadcasts_as_copy():
    for fw in _fws():
        m = fw_module(fw)
        x = m.arange(6.).reshape(2, 3)
        outs = [m.empty(2, 2), m.empty(2, 2)]
        m.split_copy(x, 2, 1, out=outs)
        assert outs[1].tolist() == [[2.0, 2.0], [5.0, 5.0]]
    raises_in_both(lambda m: m.split_copy(m.zeros(2, 3), 2, 1, out=[m.empty(2, 2),
                                                                    m.empty(1)]),
                   RuntimeError)


# ---------------------------------------------------------------------------
# errors: (call, PyTorch's exception type); the messages are compared with PyTorch's
ERRORS = [
    (lambda m: m.permute_copy(m.zeros(2, 3), 1, 0), TypeError),
    (lambda m: m.permute_copy(m.zeros(2, 3), (0,)), RuntimeError),
    (lambda m: m.permute_copy(m.zeros(2, 3), (0, 0)), RuntimeError),
    (lambda m: m.permute_copy(m.zeros(2, 3), (0, 2)), IndexError),
    (lambda m: m.permute_copy([1.0], (0,)), TypeError),
    (lambda m: m.detach_copy(3), TypeError),
    (lambda m: m.select_copy(m.zeros(2, 3), 0, 5), IndexError),
    (lambda m: m.select_copy(m.zeros(2, 3), 2, 0), IndexError),
    (lambda m: m.select_copy(m.tensor(1.0), 0, 0), IndexError),
    (lambda m: m.slice_copy(m.tensor(1.0)), IndexError),
    (lambda m: m.slice_copy(m.zeros(2, 3), 0, 0, 2, 0), RuntimeError),
    (lambda m: m.slice_copy(m.zeros(2, 3), 0, 0, 2, -1), RuntimeError),
    (lambda m: m.slice_copy(m.zeros(2, 3), 2), IndexError),
    (lambda m: m.split_copy(m.zeros(2, 3), [1, 2], 1), TypeError),
    (lambda m: m.split_copy(m.zeros(2, 3), -1, 1), RuntimeError),
    (lambda m: m.split_copy(m.zeros(2, 3), 0, 1), RuntimeError),
    (lambda m: m.split_copy(m.zeros(2, 3), 1, 2), IndexError),
    (lambda m: m.split_copy(m.tensor(1.0), 1), RuntimeError),
    (lambda m: m.split_with_sizes_copy(m.zeros(2, 3), [1, 1], 1), RuntimeError),
    (lambda m: m.split_with_sizes_copy(m.zeros(2, 3), [4, -1], 1), RuntimeError),
    (lambda m: m.split_with_sizes_copy(m.zeros(2, 3), 2, 1), TypeError),
    (lambda m: m.squeeze_copy(m.zeros(2, 3), 2), IndexError),
    (lambda m: m.squeeze_copy(m.tensor(1.0), 1), IndexError),
    (lambda m: m.t_copy(m.zeros(2, 2, 2)), RuntimeError),
    (lambda m: m.transpose_copy(m.zeros(2, 3), 0, 2), IndexError),
    (lambda m: m.unbind_copy(m.tensor(1.0)), IndexError),
    (lambda m: m.unbind_copy(m.zeros(2, 3), 2), IndexError),
    (lambda m: m.unfold_copy(m.zeros(2, 3), 1, 4, 1), RuntimeError),
    (lambda m: m.unfold_copy(m.zeros(2, 3), 1, 2, 0), RuntimeError),
    (lambda m: m.unfold_copy(m.zeros(2, 3), 1, -1, 0), RuntimeError),
    (lambda m: m.unfold_copy(m.zeros(2, 3), 2, 2, 1), IndexError),
    (lambda m: m.unfold_copy(m.tensor(1.0), 0, 2, 1), RuntimeError),
    (lambda m: m.unsqueeze_copy(m.zeros(2, 3), 3), IndexError),
    (lambda m: m.view_copy(m.zeros(2, 3), (4,)), RuntimeError),
    (lambda m: m.view_copy(m.zeros(2, 3), (-1, -1)), RuntimeError),
    (lambda m: m.view_copy(m.zeros(2, 3), 3, 2), TypeError),
    (lambda m: m.view_copy(m.zeros(2, 3), 6), TypeError),
    (lambda m: m.view_copy(m.zeros(2, 3), m.int64), RuntimeError),
    (lambda m: m.view_copy(m.tensor(1.0), m.float16), RuntimeError),
    (lambda m: m.view_copy(m.zeros(4, 2).t(), m.float16), RuntimeError),
    (lambda m: m.view_copy(m.zeros(3)[1:], m.float64), RuntimeError),
    (lambda m: m.view_copy(m.zeros(2, 6)[:, ::2].contiguous()[:, 1:], m.float64),
     RuntimeError),
    (lambda m: m.expand_copy(m.zeros(2, 3), (3, 3)), RuntimeError),
    (lambda m: m.expand_copy(m.zeros(2, 3), (3,)), RuntimeError),
    (lambda m: m.expand_copy(m.zeros(2, 3), 2, 3), TypeError),
    (lambda m: m.expand_copy(m.zeros(2, 3), (-1, 2, 3)), RuntimeError),
    (lambda m: m.diagonal_copy(m.zeros(2, 3), 0, 1, 1), RuntimeError),
    (lambda m: m.diagonal_copy(m.zeros(3)), IndexError),
    (lambda m: m.diagonal_copy(m.zeros(2, 3), 0, 0, 2), IndexError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), 2, 0, 1), RuntimeError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), -3, 0, 1), IndexError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), 0, 3, 1), IndexError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), 0, -3, 1), IndexError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), 0, 0, 3), RuntimeError),
    (lambda m: m.narrow_copy(m.zeros(2, 3), 0, 0, -1), RuntimeError),
    (lambda m: m.narrow_copy(m.tensor(1.0), 0, 0, 1), RuntimeError),
    (lambda m: m.view_as_real_copy(m.zeros(2, 3)), RuntimeError),
    (lambda m: m.view_as_complex_copy(m.zeros(3, 2, dtype=m.int64)), RuntimeError),
    (lambda m: m.view_as_complex_copy(m.zeros(3, 3)), RuntimeError),
    (lambda m: m.view_as_complex_copy(m.tensor(1.0)), RuntimeError),
    (lambda m: m.view_as_complex_copy(m.zeros(2, 3).t()), RuntimeError),
    (lambda m: m.view_as_complex_copy(m.zeros(7)[1:].view(3, 2)), RuntimeError),
    (lambda m: m.as_strided_copy(m.zeros(2, 3), (2,), (-1,)), RuntimeError),
    (lambda m: m.as_strided_copy(m.zeros(2, 3), (7,), (1,)), RuntimeError),
    (lambda m: m.as_strided_copy(m.zeros(2, 3), 2, (1,)), TypeError),
]


@pytest.mark.parametrize("call,exc", ERRORS, ids=[f"error-{i}" for i in range(len(ERRORS))])
def test_errors(call, exc):
    err = raises_in_both(call, exc)
    if HAVE_TORCH:   # the whole message, not only its first line
        try:
            call(torch)
        except Exception as ref:  # noqa: BLE001
            assert str(err).replace("torchlike", "torch") == str(ref)


def test_view_copy_of_a_half_view_as_complex_is_refused():
    """torchlike has no complex32: PyTorch's ComplexHalf result is refused."""
    with pytest.raises(NotImplementedError, match="complex32"):
        tl.view_as_complex_copy(tl.zeros(3, 2, dtype=tl.float16))


def test_edge_cases_against_numpy():
    a = rand(3, 4)
    x = tl.tensor(a)
    np.testing.assert_array_equal(tl.slice_copy(x, 1, -10, 10).numpy(), a)
    assert tuple(tl.slice_copy(x, 1, 2, 1).shape) == (3, 0)
    assert tuple(tl.diagonal_copy(x, 5).shape) == (0,)
    assert tuple(tl.unfold_copy(tl.tensor(1.0), 0, 0, 1).shape) == (0,)
    assert tuple(tl.unfold_copy(x, 1, 0, 1).shape) == (3, 5, 0)
    assert tuple(tl.narrow_copy(x, 0, 3, 0).shape) == (0, 4)
    np.testing.assert_array_equal(tl.squeeze_copy(tl.tensor(a[None]), [0, 1]).numpy(), a)
    np.testing.assert_array_equal(tl.expand_copy(x[:1], (2, 3, 4), implicit=True).numpy(),
                                  np.broadcast_to(a[:1], (2, 3, 4)))
    np.testing.assert_array_equal(tl.permute_copy(x, dims=[1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(tl.select_copy(x, 0, tl.tensor(2)).numpy(), a[2])
    u8 = np.array([[0, 1, 2], [3, 0, 1]], np.uint8)
    np.testing.assert_array_equal(tl.view_copy(tl.tensor(u8), tl.bool).numpy(), u8 != 0)
    np.testing.assert_array_equal(
        tl.view_copy(tl.tensor(a)[:, :2], tl.float64).numpy(),
        np.ascontiguousarray(a[:, :2]).view(np.float64))
    np.testing.assert_array_equal(tl.view_copy(tl.tensor(a).t(), tl.int32).numpy(),
                                  np.ascontiguousarray(a.T).view(np.int32))
    for fw in _fws():
        m = fw_module(fw)
        e = m.view_copy(m.zeros(0, 3), m.float16)
        assert tuple(e.shape) == (0, 6)
