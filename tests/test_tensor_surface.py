"""The rest of ``Tensor``'s surface against PyTorch: ``in`` and ``reversed``, the Python
callbacks ``apply_``/``map_``/``map2_``, ``new``, ``set_``/``is_set_to``, ``dim_order``,
the deprecated ``resize``/``resize_as``, backend flags, storage queries,
``Tensor._make_subclass`` and the hook dictionaries. Each case runs in torchlike; where
PyTorch is installed it runs there too and the results are compared, and the values
asserted are PyTorch's, so torchlike is held to them without it as well."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops import tensor_surface

from ._parity import (HAVE_TORCH, first_error, parity,
                      same_first_error, torch)

X = np.arange(6.0, dtype=np.float32).reshape(2, 3)


err = first_error
same_error = same_first_error


# ----------------------------------------------------------------------- __contains__
@pytest.mark.parametrize("element,expected", [
    (3.0, True), (3, True), (7, False), (True, True), (1 + 0j, True), (2.5, False)])
def test_contains_numbers(element, expected):
    assert parity(lambda m: element in m.tensor(X)) is expected


def test_contains_tensors():
    got = parity(lambda m: (m.tensor(3.0) in m.tensor(X), m.tensor([0.0, 1, 2]) in
                            m.tensor(X), m.tensor([9.0, 1, 9]) in m.tensor(X),
                            7 in m.tensor([]), True in m.tensor([1, 2])))
    assert got == (True, True, True, False, True)


@pytest.mark.parametrize("element", ["a", None, [1]], ids=["str", "None", "list"])
def test_contains_other_types_raise(element):
    same_error(lambda m: element in m.tensor(X), RuntimeError,
               "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
               f"{type(element)}.")


# ----------------------------------------------------------------------- __reversed__
def test_reversed():
    rows = parity(lambda m: list(reversed(m.tensor(X))))
    assert [r.tolist() for r in rows] == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert parity(lambda m: reversed(m.tensor(X))).tolist() == X[::-1].tolist()
    for m in (tl, torch) if HAVE_TORCH else (tl,):
        s = m.tensor(3.0)
        assert reversed(s) is s
        a = m.tensor([1.0, 2.0], requires_grad=True)
        assert reversed(a).grad_fn.name() == "FlipBackward0"


# --------------------------------------------------------------- apply_ / map_ / map2_
def _seen(m, dtype, values):
    """The Python types ``apply_`` hands to the callable, and the result."""
    t = m.tensor(values, dtype=getattr(m, dtype))
    kinds = []
    out = t.apply_(lambda v: kinds.append(type(v).__name__) or v)
    return sorted(set(kinds)), out


@pytest.mark.parametrize("dtype,values,kind", [
    ("int64", [1, 2], "int"), ("uint8", [1, 2], "int"), ("float32", [1.5, 2], "float"),
    ("float16", [1.5, 2], "float"), ("float64", [1.5, 2], "float"),
    ("bfloat16", [1.5, 2], "float"), ("bool", [True, False], "bool"),
    ("complex64", [1 + 2j, 3], "complex")])
def test_apply_hands_python_numbers(dtype, values, kind):
    kinds, out = parity(lambda m: _seen(m, dtype, values))
    assert kinds == [kind]


@pytest.mark.parametrize("dtype,fn,expected", [
    ("int64", lambda v: v * 10, [10, 20, 30]),
    ("int64", lambda v: v / 2, [0, 1, 1]),                 # floats truncate
    ("int64", lambda v: 300.7, [300, 300, 300]),
    ("uint8", lambda v: -1, [255, 255, 255]),
    ("float32", lambda v: 1e300, [np.inf] * 3),             # no range check
    ("float16", lambda v: v * 1e5, [np.inf] * 3),
    ("bool", lambda v: 1j, [True, True, True]), ("bool", lambda v: 0.0, [False] * 3),
    ("float32", lambda v: 2, [2.0, 2.0, 2.0]),
    ("complex64", lambda v: v * 1j, [1j, 2j, 3j])])
def test_apply_converts_results(dtype, fn, expected):
    out = parity(lambda m: m.tensor([1, 2, 3], dtype=getattr(m, dtype)).apply_(fn))
    np.testing.assert_array_equal(out.numpy(), np.array(expected))


@pytest.mark.parametrize("dtype,fn,exc", [
    ("uint8", lambda v: 300, RuntimeError), ("int64", lambda v: "a", TypeError),
    ("int64", lambda v: None, TypeError), ("float32", lambda v: 1j, TypeError),
    ("float32", lambda v: "a", TypeError), ("int64", lambda v: 2 ** 70, ValueError),
    ("int64", lambda v: 1j, TypeError), ("float32", lambda: 3, TypeError)])
def test_apply_errors(dtype, fn, exc):
    same_error(lambda m: m.tensor([1, 2, 3], dtype=getattr(m, dtype)).apply_(fn), exc)


def test_apply_writes_through_a_view_and_bumps_the_version():
    def run(m):
        base = m.arange(6.0)
        base[::2].apply_(lambda v: -v)
        return base
    out = parity(run)
    assert out.tolist() == [-0.0, 1.0, -2.0, 3.0, -4.0, 5.0]
    # difference from PyTorch (documented): the version counter is bumped, so autograd
    # sees the change of a tensor it saved
    t = tl.arange(3.0)
    t.apply_(lambda v: v)
    assert t._version == 1
    w = tl.ones(3, requires_grad=True)
    y = (w * t).sum()
    t.apply_(lambda v: v + 1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_callbacks_refuse_tensors_that_require_grad():
    same_error(lambda m: m.ones(3, requires_grad=True).apply_(lambda v: v), RuntimeError,
               "Can't call apply_() on Variable that requires grad. Use "
               "var.detach().apply_() instead.")
    same_error(lambda m: (m.ones(3, requires_grad=True) * 2).apply_(lambda v: v),
               RuntimeError)
    same_error(lambda m: m.ones(3).map_(m.ones(3, requires_grad=True), lambda a, b: a),
               RuntimeError, "Can't call map_() on Variable that requires grad.")
    same_error(lambda m: m.ones(3).map2_(m.ones(3), m.ones(3, requires_grad=True),
                                         lambda a, b, c: a), RuntimeError,
               "Can't call map2_() on Variable that requires grad.")

    def under_no_grad(m):
        with m.no_grad():
            m.ones(3, requires_grad=True).apply_(lambda v: v)
    same_error(under_no_grad, RuntimeError)


def test_map_and_map2():
    out = parity(lambda m: (m.tensor([1.0, 2, 3]).map_(m.ones(1), lambda a, b: a + b),
                            m.tensor([1.0, 2, 3]).map_(m.tensor([10.0, 20, 30]),
                                                       lambda a, b: a * b),
                            m.tensor([1.0, 2, 3]).map2_(m.ones(1), m.ones(3) * 2,
                                                        lambda a, b, c: a + b * c),
                            m.zeros(2, 2).map_(m.tensor([1.0, 2]), lambda a, b: b)))
    assert [o.tolist() for o in out] == [[2.0, 3.0, 4.0], [10.0, 40.0, 90.0],
                                         [3.0, 4.0, 5.0], [[1.0, 2.0], [1.0, 2.0]]]


@pytest.mark.parametrize("case,exc", [
    (lambda m: m.ones(3).map_(m.ones(3, dtype=m.int64), lambda a, b: a), TypeError),
    (lambda m: m.ones(3).map_(3, lambda a, b: a), TypeError),
    (lambda m: m.ones(3).map_(m.ones(2), lambda a, b: a), RuntimeError),
    (lambda m: m.ones(3).map2_(m.ones(3, dtype=m.float64), m.ones(3),
                               lambda a, b, c: a), TypeError),
    (lambda m: m.ones(3).map2_(m.ones(3), m.ones(3, dtype=m.int64),
                               lambda a, b, c: a), TypeError),
], ids=["map-dtype", "map-not-tensor", "map-shape", "map2-x-dtype", "map2-y-dtype"])
def test_map_errors(case, exc):
    same_error(case, exc)


# ------------------------------------------------------------------------ dtype, layout
def test_chalf_raises_naming_the_missing_dtype():
    with pytest.raises(NotImplementedError, match="complex32"):
        tl.ones(2).chalf()
    if HAVE_TORCH:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert torch.ones(2).chalf().dtype == torch.complex32


LAYOUTS = [
    lambda m: m.empty(2, 3),
    lambda m: m.empty(2, 3).t(),
    lambda m: m.empty(2, 1, 3),
    lambda m: m.empty(2, 3, 4, 5).permute(0, 2, 3, 1),
    lambda m: m.empty(2, 3, 4, 5).permute(3, 1, 0, 2),
    lambda m: m.empty(2, 3, 4, 5, 6).permute(0, 2, 3, 4, 1),
    lambda m: m.empty(2, 3)[:, ::2],
    lambda m: m.empty(2, 3).expand(4, 2, 3),
    lambda m: m.empty(2, 3).as_strided((2, 3), (1, 1)),
    lambda m: m.empty(3, 3).as_strided((3, 3), (1, 3))[:, :1],
    lambda m: m.tensor(1.0),
    lambda m: m.empty(5),
    lambda m: m.empty(0, 3).t(),
]


@pytest.mark.parametrize("make", LAYOUTS, ids=[str(i) for i in range(len(LAYOUTS))])
@pytest.mark.parametrize("check", [False, True])
def test_dim_order(make, check):
    out = parity(lambda m: err(lambda: make(m).dim_order(ambiguity_check=check)) or
                 make(m).dim_order(ambiguity_check=check))
    if not check:
        assert isinstance(out, tuple)


def test_dim_order_values_and_argument_errors():
    assert parity(lambda m: m.empty(2, 3, 4, 5).permute(0, 2, 3, 1).dim_order()) == \
        (0, 3, 1, 2)
    assert parity(lambda m: m.empty(2, 3, 5, 7).transpose(1, 2).dim_order()) == (0, 2, 1, 3)
    same_error(lambda m: m.empty(1, 2).dim_order(ambiguity_check=True), RuntimeError,
               "The tensor does not have unique dim order")
    same_error(lambda m: m.empty(1, 2).dim_order(ambiguity_check="ILLEGAL"), TypeError,
               "The ambiguity_check argument must be a bool or a list of memory formats.")


def test_to_dense_and_const_data_ptr():
    t = tl.tensor(X)
    assert t.to_dense() is t and t.to_dense(masked_grad=True) is t
    assert t.to_dense(tl.float32) is t
    out = parity(lambda m: m.tensor(X).to_dense(dtype=m.float64))
    assert out.dtype == tl.float64
    assert parity(lambda m: (lambda u: u.const_data_ptr() == u.data_ptr())(m.tensor(X)[1:]))


def test_backend_flags_are_false():
    names = ["is_nested", "is_mps", "is_xpu", "is_xla", "is_ipu", "is_maia", "is_mtia",
             "is_vulkan", "is_mkldnn"]
    assert parity(lambda m: [getattr(m.tensor(X), n) for n in names]) == [False] * len(names)


def test_shared_memory_and_streams():
    t = tl.tensor(X)
    assert t.share_memory_() is t
    assert t.is_shared() is False     # XLA buffers are never in shared memory
    assert parity(lambda m: m.tensor(X).is_shared()) is False
    assert t.record_stream(object()) is None
    same_error(lambda m: m.tensor(X).record_stream(None), RuntimeError)


def test_storage_type():
    tensor_surface._TYPED_STORAGE_WARNED[0] = False
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        st = tl.tensor(X).storage_type()
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # once per process, as PyTorch
        tl.tensor([1]).storage_type()

    def names(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [repr(m.tensor(X, dtype=getattr(m, d)).storage_type()).replace(
                "torchlike.", "torch.") for d in ("float32", "int64", "bool", "float16")]
    assert parity(names) == ["<class 'torch.FloatStorage'>", "<class 'torch.LongStorage'>",
                             "<class 'torch.BoolStorage'>", "<class 'torch.HalfStorage'>"]
    assert isinstance(tl.tensor(X).storage(), st)
    assert not isinstance(tl.tensor([1]).storage(), st)


# ----------------------------------------------------------------------------- new
@pytest.mark.parametrize("args", [(), (2, 3), ([1.5, 2],), ((1, 2),), ([[1, 2]],),
                                  (np.array([1.5, 2.5]),)],
                         ids=["empty", "sizes", "list", "tuple", "nested", "ndarray"])
def test_new(args):
    def run(m):
        out = m.arange(6).reshape(2, 3).new(*args)
        # new(*sizes) is uninitialised memory in PyTorch (zeros here): compare its layout
        return (str(out.dtype).split(".")[1], tuple(out.shape)) if len(args) == 2 else out
    out = parity(run)
    if len(args) == 2:
        assert out == ("int64", (2, 3))
    else:
        assert out.dtype == tl.int64


def test_new_of_a_tensor_is_an_alias():
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x.new(x)
        return y._base is x, y.grad_fn.name(), y.data_ptr() == x.data_ptr()
    assert parity(run) == (True, "AliasBackward0", True)


def test_new_errors():
    same_error(lambda m: m.ones(2).new(m.ones(2, dtype=m.int64)), TypeError,
               "expected TensorOptions(dtype=float, device=cpu, layout=Strided, ")
    same_error(lambda m: m.ones(2).new(3.0), TypeError, "new(): data must be a sequence")
    same_error(lambda m: m.ones(2).new(2, 3.0), TypeError)
    same_error(lambda m: m.ones(2).new(-1), RuntimeError)
    same_error(lambda m: m.ones(2).new(2, dtype=m.float64), TypeError, exact=False)
    assert tl.ones(2).new(2, device="cpu").device == tl.device("cpu")
    assert err(lambda: tl.ones(2).new(2, device="cuda")) == (
        "RuntimeError", "legacy constructor expects device type: cpu but device type: cuda "
                        "was passed")


# ------------------------------------------------------------------- resize, resize_as
def test_resize_out_of_place():
    def run(m):
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = m.arange(6.0).reshape(2, 3).resize(3, 2)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            s = m.arange(6.0).reshape(2, 3).resize_as(m.ones(6))
        a = m.ones(2, 3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = a.resize(3, 2)
        (b * m.arange(6.0).reshape(3, 2)).sum().backward()
        return r, s, b.grad_fn.name(), a.grad
    r, s, name, grad = parity(run)
    assert name == "ResizeBackward"
    assert grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize("case", [
    lambda m: m.ones(2, 3).resize(4), lambda m: m.ones(2, 3).resize((3, 2)),
    lambda m: m.ones(2).resize_as(m.ones(3))], ids=["numel", "tuple", "as"])
def test_resize_errors(case):
    got = same_error(case, RuntimeError, "requested resize to ")
    assert "autograd's resize can only change the shape" in got[1]


# ---------------------------------------------------------------------- set_, is_set_to
def test_set_to_a_tensor_shares_its_memory():
    def run(m):
        a, b = m.zeros(3), m.arange(6.0).reshape(2, 3)
        v0 = a._version
        same = a.set_(b) is a
        a[0, 0] = 7.0
        b[1, 2] = -1.0
        return (same, a._version - v0, a.is_set_to(b), b.is_set_to(a), a, b,
                a.data_ptr() == b.data_ptr(), b.is_set_to(b[:]), b.is_set_to(b.view(6)),
                b.is_set_to(b.t()), b.is_set_to(m.zeros(2, 3)), b._version)
    out = parity(run)
    assert out[:4] == (True, 2, True, True)
    assert out[4].tolist() == [[7.0, 1.0, 2.0], [3.0, 4.0, -1.0]]
    assert out[7:11] == (True, False, False, False)


def test_set_with_offset_size_and_stride():
    def run(m):
        b = m.arange(6.0).reshape(2, 3)
        outs = [m.zeros(1).set_(b.untyped_storage()),
                m.zeros(1).set_(b.untyped_storage(), 1, (2, 2), (1, 2)),
                m.zeros(1).set_(b, 1, (2, 2), (1, 2)),
                m.zeros(1).set_(b.storage(), 1, (2, 2)),
                m.zeros(1).set_(source=b, storage_offset=1, size=(2,), stride=(2,)),
                m.zeros(1).set_()]
        return outs, [(o.stride(), o.storage_offset()) for o in outs]
    outs, layouts = parity(run)
    assert outs[1].tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert outs[5].shape == (0,)
    # a view set_ to another storage writes there, no longer into its old base
    base, src = tl.zeros(4), tl.arange(3.0)
    v = base[1:]
    v.set_(src)
    v.fill_(9.0)
    assert base.tolist() == [0.0] * 4 and src.tolist() == [9.0] * 3


def test_set_grows_a_storage_too_small():
    b = tl.arange(6.0)
    c = tl.zeros(1).set_(b.untyped_storage(), 2, (3, 2))
    assert c.shape == (3, 2)
    assert c[:2].tolist() == [[2.0, 3.0], [4.0, 5.0]]   # the rest zeros (PyTorch: garbage)
    c.fill_(1.0)
    assert b.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    assert c.untyped_storage().size() == 8 * 4


@pytest.mark.parametrize("case,exc", [
    (lambda m: m.zeros(2, dtype=m.int64).set_(m.ones(2)), RuntimeError),
    (lambda m: m.zeros(2, dtype=m.int64).set_(m.ones(2).storage()), RuntimeError),
    (lambda m: m.zeros(2).set_(m.ones(2).untyped_storage(), -1, (2,)), RuntimeError),
    (lambda m: m.zeros(2).set_(m.ones(2), 0, (2,), (1, 2)), RuntimeError),
    (lambda m: m.zeros(2).set_(m.ones(2), 0, (2,), (-1,)), RuntimeError),
    (lambda m: m.zeros(2).set_(m.ones(2), 1), TypeError),
    (lambda m: m.zeros(2).set_(3), TypeError),
    (lambda m: m.zeros(2, requires_grad=True).set_(m.ones(2)), RuntimeError),
    (lambda m: m.zeros(2).is_set_to(3), TypeError),
], ids=["dtype", "typed-storage", "offset", "lengths", "stride", "combination", "int",
        "leaf", "is_set_to"])
def test_set_errors(case, exc):
    same_error(case, exc)


def test_set_what_torchlike_cannot_carry_over_raises():
    with pytest.raises(NotImplementedError, match="reinterpret its bytes"):
        tl.zeros(2, dtype=tl.int64).set_(tl.ones(2).untyped_storage())
    with pytest.raises(NotImplementedError, match="derivative for 'set_'"):
        tl.zeros(2).set_(tl.ones(2, requires_grad=True))
    with tl.no_grad():
        t = tl.zeros(2).set_(tl.ones(2, requires_grad=True))
    assert not t.requires_grad
    with tl.inference_mode():
        inf = tl.zeros(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        inf.set_(tl.ones(2))


# ---------------------------------------------------------------------- _make_subclass
def test_make_subclass():
    def run(m):
        class P(m.Tensor):
            def __init__(self, *args, **kwargs):
                raise AssertionError("__init__ must not run")

        d = m.arange(3.0)
        p = m.Tensor._make_subclass(P, d, True)
        q = m.Tensor._make_subclass(P, (m.ones(2, requires_grad=True) * 2))
        p.data.add_(1)
        return (type(p).__name__, p.requires_grad, p.is_leaf, p.data_ptr() == d.data_ptr(),
                d.tolist(), q.requires_grad, q.grad_fn, repr(p).split("(")[0])
    assert parity(run) == ("P", True, True, True, [1.0, 2.0, 3.0], False, None, "P")


@pytest.mark.parametrize("case,exc", [
    (lambda m: m.Tensor._make_subclass(int, m.ones(2)), TypeError),
    (lambda m: m.Tensor._make_subclass(3, m.ones(2)), TypeError),
    (lambda m: m.Tensor._make_subclass(type("P", (m.Tensor,), {}), [1, 2]), TypeError),
    (lambda m: m.Tensor._make_subclass(type("P", (m.Tensor,), {}), m.tensor([1]), True),
     RuntimeError),
    (lambda m: m.Tensor._make_subclass(type("P", (m.Tensor,), {}), m.ones(2), 1), TypeError),
], ids=["not-tensor-class", "not-type", "data", "int-grad", "flag"])
def test_make_subclass_errors(case, exc):
    same_error(case, exc)


class _MyParam(tl.Tensor):
    """A Parameter-like subclass, built the way user code builds them."""

    def __new__(cls, data, requires_grad=True):
        return tl.Tensor._make_subclass(cls, data, requires_grad)


def test_make_subclass_builds_parameter_like_classes():
    p = _MyParam(tl.ones(3))      # Python calls Tensor.__init__(p, data) next: a no-op
    assert p.requires_grad and p.tolist() == [1.0, 1.0, 1.0]
    (p * 2).sum().backward()
    assert isinstance(p, _MyParam) and p.grad.tolist() == [2.0, 2.0, 2.0]
    p.tag = "w"
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is _MyParam and q.requires_grad and q.tag == "w"
        assert q.tolist() == [1.0, 1.0, 1.0] and q.data_ptr() != p.data_ptr()
    assert tl.Tensor([1, 2]).dtype == tl.float32     # the legacy constructor still runs


# --------------------------------------------------------------------- hook dictionaries
def test_hook_dictionaries():
    def run(m):
        x = m.ones(2)
        y = m.ones(2, requires_grad=True)
        before = (x._backward_hooks, y._backward_hooks, y._post_accumulate_grad_hooks)
        h = y.register_hook(lambda g: g * 2)
        y.register_post_accumulate_grad_hook(lambda t: None)
        z = y * 3
        z.register_hook(lambda g: g + 1)
        sizes = (len(y._backward_hooks), len(z._backward_hooks),
                 len(y._post_accumulate_grad_hooks))
        z.sum().backward()
        g1 = y.grad.clone()
        h.remove()
        after_remove = len(y._backward_hooks)
        y.grad = None
        z = y * 3
        z.register_hook(lambda g: g + 1)
        z._backward_hooks = None          # a non-leaf's node keeps running its hooks
        z.sum().backward()
        g2 = y.grad.clone()
        y.grad = None
        y.register_hook(lambda g: g * 5)
        y._backward_hooks = None          # a leaf's hooks are replaced
        (y * 3).sum().backward()
        return before, sizes, g1, after_remove, g2, z._backward_hooks, y.grad
    before, sizes, g1, after_remove, g2, attr, g3 = parity(run)
    assert before == (None, None, None) and sizes == (1, 1, 1) and after_remove == 0
    assert g1.tolist() == [12.0, 12.0] and g2.tolist() == [6.0, 6.0] and attr is None
    assert g3.tolist() == [3.0, 3.0]


# ------------------------------------------------------------------ __torch_function__
def test_python_methods_reach_torch_function_overrides():
    def run(m):
        seen = []

        class Logged(m.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        t = m.tensor([1.0, 2.0]).as_subclass(Logged)
        seen.clear()
        _ = 2.0 in t
        r = reversed(t)
        t.dim_order()
        return [s for s in seen if s in ("__contains__", "__reversed__", "dim_order")], \
            type(r).__name__
    assert parity(run) == (["__contains__", "__reversed__", "dim_order"], "Logged")


@pytest.mark.parametrize("dtypes", [("int64", "int64", "int64"), ("float32", "int64", "int32"),
                                    ("float32", "bool", "int64")])
def test_addcdiv_refuses_integer_division(dtypes):
    """PyTorch refuses ``addcdiv`` when both divisor operands are integral (or bool),
    whatever the input's dtype, with a message that shows the replacements."""
    def case(m):
        a, b, c = (m.ones(3, dtype=getattr(m, d)) for d in dtypes)
        return m.addcdiv(a, b, c)

    def case_(m):
        a, b, c = (m.ones(3, dtype=getattr(m, d)) for d in dtypes)
        return a.addcdiv_(b, c)

    for c in (case, case_):
        same_first_error(c, RuntimeError, "Integer division with addcdiv is no longer "
                                          "supported, and in a future  release")
    x = tl.ones(3)
    assert tl.addcdiv(x, tl.ones(3), tl.full((3,), 2, dtype=tl.int64)).tolist() == [1.5] * 3
