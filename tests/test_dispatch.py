"""The dispatcher's fast path (Note [Eager fast path] in torchlike/_ops/dispatch.py)
gives what the general path gives: same values, dtypes, grad_fns, errors; Python
numbers cached as device scalars keep their sign, dtype and weak typing; ``Parameter``
is not an overloaded argument, as in PyTorch."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import torchlike as tl
from torchlike._core.tensor import Tensor
from torchlike._ops import dispatch as D
from torchlike._ops import scalars as SC
from torchlike._ops.spec import OPS

from ._parity import HAVE_TORCH, assert_same, torch

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((2, 3)).astype(np.float32)
I = np.array([[1, -2, 3], [4, 5, -6]], np.int64)


def _general(name, *args, **kwargs):
    """The op through the general path only (the reference for the fast path)."""
    spec = OPS[name]
    return D._dispatch_general(spec, spec.api, args, kwargs, spec.binder(*args, **kwargs))


def _fields(t: Tensor) -> dict:
    st = t._storage
    return dict(shape=t._shape, stride=t._stride, offset=t._offset, direct=t._direct,
                cache=t._cache, cache_gen=t._cache_gen, idx=t._idx, version=t._vc.v,
                requires_grad=t._requires_grad, grad=t._grad, grad_fn=t.grad_fn,
                retains_grad=t._retains_grad, hooks=t._hooks,
                post_acc_hooks=t._post_acc_hooks, output_nr=t._output_nr, base=t._base,
                node_ref=t._node_ref, array=st.array, gen=st.gen, dtype=st.dtype,
                dict=getattr(t, "__dict__", {}))


def test_inlined_construction_matches_wrap():
    a = jax.numpy.asarray(A)
    fast, ref = D._tensor_of(a), Tensor._wrap(a)
    # every slot the constructor sets must be set by the inlined copy, and alike
    for k in Tensor.__slots__:
        if k in ("__dict__", "__weakref__"):
            continue
        assert hasattr(fast, k) == hasattr(ref, k), k
    assert _fields(fast) == _fields(ref)
    assert fast._storage is not ref._storage and fast._vc is not ref._vc
    assert fast._storage.uid != ref._storage.uid   # distinct data_ptr()s


@pytest.mark.parametrize("name,args,kwargs", [
    ("add", (A, B), {}), ("add", (A, B), {"alpha": 2.0}), ("add", (A, 1.5), {}),
    ("add", (I, 2), {}), ("add", (I, True), {}), ("mul", (I, 0.5), {}),
    ("div", (I, 2), {}), ("div", (A, B), {"rounding_mode": "floor"}),
    ("exp", (I,), {}), ("clamp", (A, -0.5), {}), ("sum", (A, 1), {}),
    ("sum", (A,), {"dim": 0, "keepdim": True}), ("matmul", (A, B.T), {}),
])
def test_fast_path_matches_general_path(name, args, kwargs):
    conv = [tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    fast = OPS[name].api(*conv, **kwargs)
    ref = _general(name, *conv, **kwargs)
    assert fast.dtype is ref.dtype and fast.shape == ref.shape
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(ref))
    if HAVE_TORCH:
        targs = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        assert_same(fast, getattr(torch, name)(*targs, **kwargs))


def test_positional_defaults_and_keyword_only_parameters():
    a, b = tl.tensor(A), tl.tensor(B)
    np.testing.assert_array_equal(np.asarray(tl.add(a, b)), A + B)
    np.testing.assert_allclose(np.asarray(tl.add(a, b, alpha=3)), A + 3 * B, rtol=1e-6)
    with pytest.raises(TypeError, match="positional"):
        tl.add(a, b, 3)      # alpha is keyword-only, as in PyTorch
    with pytest.raises(TypeError):
        tl.add(a)
    if HAVE_TORCH:
        ta, tb = torch.tensor(A), torch.tensor(B)
        with pytest.raises(TypeError):
            torch.add(ta, tb, 3)
        with pytest.raises(TypeError):
            torch.add(ta)


def test_errors_match_pytorch():
    a = tl.tensor(A)
    with pytest.raises(RuntimeError, match="must match the size"):
        a + tl.ones(4)
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.exp(1.0)
    with pytest.raises(RuntimeError, match="alpha must not be"):
        tl.tensor(I).add(1, alpha=0.5)
    if HAVE_TORCH:
        with pytest.raises(RuntimeError, match="must match the size"):
            torch.tensor(A) + torch.ones(4)
        with pytest.raises(RuntimeError, match="alpha must not be"):
            torch.tensor(I).add(1, alpha=0.5)


def test_device_scalars_keep_sign_dtype_and_weak_type():
    x = tl.tensor(np.array([1.0, -2.0], np.float32))
    xi = tl.tensor(np.array([3, 4], np.int64))
    outs = []
    for _ in range(3):    # the second and third calls use the cached device scalars
        outs.append([x * 0.0, x * -0.0, x * 2.5, xi * 2, xi + True, xi * 2.5,
                     x + (1 + 2j), xi // 2])
    for row in outs:
        assert [o.dtype for o in row] == [tl.float32, tl.float32, tl.float32, tl.int64,
                                          tl.int64, tl.float32, tl.complex64, tl.int64]
        assert np.signbit(np.asarray(row[0])).tolist() == [False, True]
        assert np.signbit(np.asarray(row[1])).tolist() == [True, False]
        for o, r in zip(row, outs[0]):
            np.testing.assert_array_equal(np.asarray(o), np.asarray(r))
    if HAVE_TORCH:
        t, ti = torch.tensor([1.0, -2.0]), torch.tensor([3, 4])
        ref = [t * 0.0, t * -0.0, t * 2.5, ti * 2, ti + True, ti * 2.5, t + (1 + 2j),
               ti // 2]
        assert_same(outs[-1], ref)
    for table in SC.SCALARS.values():
        for a in table.values():
            assert not isinstance(a, jax.core.Tracer)


def test_scalar_table_is_bounded(monkeypatch):
    monkeypatch.setattr(SC, "SCALAR_CACHE_MAX", 4)
    x = tl.tensor(np.array([1.0], np.float32))
    for k in range(12):   # more numbers than the table holds, each used twice
        for _ in range(2):
            assert float(x * (k + 0.125)) == k + 0.125
    assert 0 < len(SC.SCALARS[float]) <= 4 and len(SC.SCALARS_SEEN[float]) <= 4
    for _ in range(3):   # few enough to be kept
        assert float(x * 0.375) == 0.375 and float(x * 0.625) == 0.625
    assert 0.375 in SC.SCALARS[float] and 0.625 in SC.SCALARS[float]


def test_numbers_beyond_int64_raise_as_before():
    x = tl.tensor(np.array([1], np.int64))
    for _ in range(3):
        with pytest.raises(OverflowError):
            x + 2 ** 70


def test_traced_calls_cache_no_tracer():
    x = tl.tensor(np.array([1.0, 2.0], np.float32))

    def f(a):
        t = Tensor._wrap(a)
        return (t * 0.25 + 7.0 - t.sub(3.5, alpha=2))._value

    ref = np.asarray(f(x._value))
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(jax.jit(f)(x._value)), ref)
    for table in SC.SCALARS.values():
        for a in table.values():
            assert not isinstance(a, jax.core.Tracer)


def test_parameter_is_not_an_overloaded_argument():
    p = tl.nn.Parameter(tl.tensor(A))
    with tl.no_grad():
        p.add_(1.0)
    assert p._version == 1
    q = p * 2
    assert type(q) is Tensor and q.grad_fn.name() == "MulBackward0"
    if HAVE_TORCH:
        tp = torch.nn.Parameter(torch.tensor(A))
        with torch.no_grad():
            tp.add_(1.0)
        assert tp._version == 1
        assert_same(q, tp * 2)
        assert type(tp * 2) is torch.Tensor


def test_subclass_override_sees_no_parameter_type():
    def make(fw):
        seen = []

        class Logged(fw.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(sorted(t.__name__ for t in types))
                return super().__torch_function__(func, types, args, kwargs or {})

        p = fw.nn.Parameter(fw.ones(2))
        s = fw.ones(2).as_subclass(Logged) if fw is torch else Logged(fw.ones(2))
        out = fw.add(p, s)
        return seen, type(out).__name__

    seen, kind = make(tl)
    assert seen == [["Logged"]] and kind == "Logged"
    if HAVE_TORCH:
        assert make(torch) == (seen, kind)


def test_generated_fast_functions_are_shared_per_layout():
    assert len(D._FAST_CODE) < len(OPS) / 2
    assert OPS["add"].extra["plan"].run.__name__ == "dispatch_add"


def _torch_or_none(a):
    return torch.tensor(a) if HAVE_TORCH and isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("name,args,kwargs", [
    ("add", (A, B), {}), ("add", (A, B), {"alpha": 1}), ("add", (A, B), {"alpha": 1.0}),
    ("add", (np.array([True, False]), np.array([False, False])), {"alpha": True}),
    ("add", (I, 3), {"alpha": 1}),
    ("add", (np.array([True, False]), np.array([True, True])), {}),
    ("sub", (A, B), {}), ("sub", (I, 2), {"alpha": 1}), ("rsub", (A, 2.0), {}),
    ("add", (np.array([complex(np.inf, 0), 1 + 1j], np.complex64),
             np.zeros(2, np.complex64)), {}),
    ("add", (np.zeros(2, np.complex64),
             np.array([complex(np.inf, 0), complex(1, np.inf)], np.complex64)), {}),
    ("sub", (np.zeros(2, np.complex64),
             np.array([complex(np.inf, 0), complex(1, np.inf)], np.complex64)), {}),
])
def test_neutral_alpha_gives_what_the_value_gives(name, args, kwargs):
    conv = [tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    for _ in range(3):   # the first call makes the executables, later ones reuse them
        fast = OPS[name].api(*conv, **kwargs)
        ref = _general(name, *conv, **kwargs)
        assert fast.dtype is ref.dtype and fast.shape == ref.shape
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(ref))
    if HAVE_TORCH:
        assert_same(fast, getattr(torch, name)(*[_torch_or_none(a) for a in args], **kwargs))


def test_neutral_alpha_skips_the_argument_for_real_results_only():
    a, b = tl.tensor(A), tl.tensor(B)
    plan = OPS["add"].extra["plan"]
    a + b
    ent = [e for k, e in plan.entries.items() if k[0] is tl.float32 and k[2] is tl.float32]
    assert ent and ent[0][2] is not None
    c = tl.tensor(np.ones(2, np.complex64))
    c + c
    ent = [e for k, e in plan.entries.items() if k[0] is tl.complex64]
    assert ent and ent[0][2] is None    # (1+0j) * inf is not inf: keep alpha


def test_alpha_and_bool_errors_match_pytorch():
    x = tl.tensor(I)
    for alpha in (1.0, 0.5):
        with pytest.raises(RuntimeError, match="alpha must not be"):
            x.add(x, alpha=alpha)
        with pytest.raises(RuntimeError, match="alpha must not be"):
            x.sub(1, alpha=alpha)
    cases = [(x, x, True), (tl.tensor(A), 2, False), (tl.tensor(A), 1.0, 1j), (x, 1, 1j)]
    for a, b, alpha in cases:
        with pytest.raises(RuntimeError) as ours:
            tl.add(a, b, alpha=alpha)
        if HAVE_TORCH:
            with pytest.raises(RuntimeError) as theirs:
                torch.add(torch.tensor(np.asarray(a)),
                          torch.tensor(np.asarray(b)) if isinstance(b, Tensor) else b,
                          alpha=alpha)
            assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool"):
        tl.tensor(np.array([True])) - tl.tensor(np.array([False]))
    with pytest.raises(RuntimeError, match="with a bool tensor"):
        x - True


def test_autograd_and_fast_path_share_executables():
    a = tl.tensor(A, requires_grad=True)
    b = tl.tensor(B)
    plan = OPS["mul"].extra["plan"]
    plan.exes.clear()
    plan.entries.clear()
    with tl.no_grad():
        a * b
    out = a * b          # recorded: autograd runs spec.jitted(statics, cast, ...)
    assert out.grad_fn.name() == "MulBackward0"
    assert len(plan.exes) == 1
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(a.grad), B)


def test_static_values_key_their_own_executables():
    x = tl.tensor(A)
    for dim in (0, 1, 0, 1):
        np.testing.assert_allclose(np.asarray(x.sum(dim)), A.sum(dim), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(x.sum(dim=1, keepdim=True)),
                               A.sum(1, keepdims=True), rtol=1e-6)
    statics = {k[0] for k in OPS["sum"].extra["plan"].exes}
    assert {(0, False, None), (1, False, None), (1, True, None)} <= statics


def test_executable_table_is_bounded(monkeypatch):
    monkeypatch.setattr(D, "_EXES_MAX", 3)
    x = tl.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    plan = OPS["sum"].extra["plan"]
    plan.exes.clear()
    plan.entries.clear()
    for dim in (0, 1, 2, -1, (0, 1), (1, 2)):
        np.testing.assert_array_equal(np.asarray(x.sum(dim)),
                                      np.arange(24, dtype=np.float32).reshape(2, 3, 4)
                                      .sum(dim))
        assert len(plan.exes) <= 3


def test_binary_operators_take_extra_arguments_as_methods_do():
    a, b = tl.tensor(A), tl.tensor(B)
    np.testing.assert_allclose(np.asarray(a.__add__(b, alpha=2)), A + 2 * B, rtol=1e-6)
    with pytest.raises(TypeError):
        a.__mul__()
    with pytest.raises(TypeError):
        a.__mul__(b, b)
    if HAVE_TORCH:
        ta, tb = torch.tensor(A), torch.tensor(B)
        assert_same(a.__add__(b, alpha=2), ta.__add__(tb, alpha=2))


# Note [Plain calls]: the entry points' own code for positional calls gives what ``run``
# gives, on the first call (which ``run`` serves) and on the later ones (their own code)
def _run(name, *args):
    spec = OPS[name]
    return spec.extra["plan"].run(spec.api, args, {})


_P = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]], np.float32)
_PLAIN_CALLS = [   # (op, call(module, *args), args): module is torchlike or torch
    ("add", lambda m, a, b: a + b, (A, B)), ("add", lambda m, a, b: a + b, (A, 2.5)),
    ("add", lambda m, a, b: b + a, (A, 3.5)), ("add", lambda m, a, b: a + b, (I, True)),
    ("add", lambda m, a, b: a + b, (I, A)), ("add", lambda m, a, b: a + b, (A, A[0])),
    ("sub", lambda m, a, b: a - b, (A, B)), ("rsub", lambda m, a, b: b - a, (A, 1.25)),
    ("mul", lambda m, a, b: a * b, (I, 0.5)), ("mul", lambda m, a, b: b * a, (I, 7)),
    ("div", lambda m, a, b: a / b, (A, B)), ("mul", lambda m, a, b: b / a, (_P, 2.0)),
    ("pow", lambda m, a, b: a ** b, (_P, 2)), ("pow", lambda m, a, b: b ** a, (_P, 2.0)),
    ("eq", lambda m, a, b: a == b, (I, 3)), ("lt", lambda m, a, b: a < b, (A, B)),
    ("matmul", lambda m, a, b: a @ b.T, (A, B)),
    ("matmul", lambda m, a, b: m.matmul(a, b), (A, B.T)),
    ("exp", lambda m, a: a.exp(), (A,)), ("exp", lambda m, a: m.exp(a), (I,)),
    ("sum", lambda m, a: a.sum(), (A,)), ("sum", lambda m, a, d: a.sum(d), (A, 1)),
    ("sum", lambda m, a, d: a.sum(d, True), (A, -1)), ("mean", lambda m, a: m.mean(a), (A,)),
    ("linear", lambda m, a, b: m.nn.functional.linear(a, b), (A, B)),
    ("linear", lambda m, a, b, c: m.nn.functional.linear(a, b, c),
     (A, B, np.float32([1.0, 2.0]))),
    ("linear", lambda m, a, b: m.nn.functional.linear(a, b, None), (A, B)),
]


def _floats_requiring_grad(fw, args):
    return [fw.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) and
            a.dtype.kind == "f" else fw.tensor(a) if isinstance(a, np.ndarray) else a
            for a in args]


@pytest.mark.parametrize("name,call,args", _PLAIN_CALLS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_PLAIN_CALLS)])
def test_plain_calls_give_what_run_gives(name, call, args):
    conv = [tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    OPS[name].extra["plan"].entries.clear()   # the first call goes through run
    ref = call(tl, *conv)
    for _ in range(2):      # then the entry points' own code
        out = call(tl, *conv)
        assert type(out) is Tensor and out.dtype is ref.dtype and out.shape == ref.shape
        np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))
    if HAVE_TORCH:
        assert_same(out, call(torch, *[_torch_or_none(a) for a in args]))
    # recorded: the node and gradients of the general path and of PyTorch
    fl = _floats_requiring_grad(tl, args)
    for _ in range(2):
        got = call(tl, *fl)
    if got.requires_grad:
        leaves = [c for c in fl if isinstance(c, Tensor) and c.requires_grad]
        grads = tl.autograd.grad(got.sum(), leaves)
        if HAVE_TORCH:
            tfl = _floats_requiring_grad(torch, args)
            tgot = call(torch, *tfl)
            assert got.grad_fn.name() == tgot.grad_fn.name()
            tleaves = [t for t in tfl if isinstance(t, torch.Tensor) and t.requires_grad]
            for g, tg in zip(grads, torch.autograd.grad(tgot.sum(), tleaves)):
                assert_same(g, tg)


def test_plain_calls_fall_back_for_what_they_do_not_take():
    a, b = tl.tensor(A), tl.tensor(B)
    p = tl.nn.Parameter(tl.tensor(B))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(a + p), A + B)         # a subclass
        np.testing.assert_array_equal(np.asarray(tl.add(a, b, alpha=2)), A + 2 * B)
        np.testing.assert_array_equal(np.asarray(a.add(b, alpha=1)), A + B)
        np.testing.assert_array_equal(np.asarray(tl.add(input=a, other=b)), A + B)
        np.testing.assert_array_equal(np.asarray(a.sum(dim=[0, 1])), A.sum())
    seen = []

    class Logging(Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return NotImplemented if func is None else super().__torch_function__(
                func, types, args, kwargs or {})
    x = tl.tensor(A).as_subclass(Logging)
    x + 1.0
    x.exp()
    tl.matmul(x, tl.tensor(B.T))
    assert seen == ["add", "exp", "matmul"]   # ``x + 1.0`` is seen as Tensor.add


def test_plain_calls_raise_what_the_general_path_raises():
    a, i = tl.tensor(A), tl.tensor(I)
    t, f = tl.tensor(np.array([True])), tl.tensor(np.array([False]))
    bad = [("add", lambda x, y: x + y, (a, tl.tensor(A[:, :2]))),   # broadcast
           ("sub", lambda x, y: x - y, (t, f)), ("matmul", tl.matmul, (a, a)),
           ("sum", lambda x, d: x.sum(d), (a, 5)), ("exp", tl.exp, ("x",)),
           ("bitwise_and", lambda x, y: x & y, (i, 1.5))]
    for name, call, args in bad:
        with pytest.raises(Exception) as ref:
            _general(name, *args)
        for _ in range(2):
            with pytest.raises(type(ref.value)) as got:
                call(*args)
            assert str(got.value) == str(ref.value)


def test_entry_points_have_plain_code_for_common_calls():
    assert Tensor.__add__.__code__.co_filename == "<entry add dunder>"
    assert Tensor.__radd__.__code__.co_filename == "<entry add reflected>"
    assert Tensor.__rsub__.__code__.co_filename == "<entry rsub reflected>"
    assert Tensor.__rfloordiv__.__code__.co_filename.endswith("swapped>")
    assert tl.matmul.__code__.co_filename == "<entry matmul function>"
    assert Tensor.exp.__code__.co_filename == "<entry exp method>"
    assert tl.matmul.__name__ == "matmul" and Tensor.exp.__qualname__ == "Tensor.exp"


def test_check_warnings_name_the_callers_line_once_per_call():
    a = tl.tensor(np.eye(3, dtype=np.float32))
    for call in (lambda: tl.cross(a, a), lambda: tl.chain_matmul(a, a),
                 lambda: a.cross(a)):
        OPS["cross"].extra["plan"].entries.clear()
        for _ in range(3):   # through run (a new entry), then through the entry point's code
            with pytest.warns(UserWarning) as rec:
                call()
            assert len(rec) == 1 and rec[0].filename == __file__
