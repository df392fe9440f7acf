"""Indexing follows PyTorch's rules, not NumPy's: ints (and 0-d integer tensors/arrays)
are ``select``s applied before advanced indexing, so they never decide where the broadcast
index dimensions go; index tensor dtypes, broadcasting, mask shapes and out-of-range
indices raise PyTorch's errors in PyTorch's order; ``index_put_`` (advanced writes)
requires the value's dtype to match unless it takes the ``masked_fill_`` path.

Every case runs in torchlike; where PyTorch is installed the outcome (result or error
type and message) is compared with it."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import torchlike as tl

from ._parity import FWS, HAVE_TORCH, assert_same, normalize_error, torch
from ._parity import fw_module as _mod


def _outcome(fn, m):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return False, fn(m)
    except Exception as e:  # noqa: BLE001 - the error itself is what is compared
        return True, e


def same_outcome(fn):
    """``fn`` gives the same result, or raises the same error type and message, in both."""
    outs = [_outcome(fn, _mod(fw)) for fw in FWS]
    if len(outs) == 2:
        (err_a, a), (err_b, b) = outs
        if err_a or err_b:
            assert err_a and err_b, f"torchlike: {a!r}, torch: {b!r}"
            assert type(a).__name__ == type(b).__name__, f"{a!r} vs {b!r}"
            assert normalize_error(str(a)).split("\n")[0] == str(b).split("\n")[0]
        else:
            assert_same(a, b)
    return outs[0]


def _key(m, spec):
    """``("T", data[, dtype])`` becomes a tensor, ``("A", data[, dtype])`` a NumPy array;
    tuples recurse; everything else is kept."""
    if isinstance(spec, tuple) and spec and spec[0] == "T":
        return m.tensor(spec[1], dtype=getattr(m, spec[2]) if len(spec) > 2 else None)
    if isinstance(spec, tuple) and spec and spec[0] == "A":
        return np.array(spec[1], dtype=spec[2] if len(spec) > 2 else None)
    if isinstance(spec, tuple):
        return tuple(_key(m, s) for s in spec)
    return spec


# ---------------------------------------------------------------------------
# the examples that motivated the rules
def test_int_slice_list_puts_index_dims_where_pytorch_does():
    def f(m):
        x = m.arange(24).reshape(2, 3, 4)
        y = m.zeros(2, 3, 4, dtype=m.long)
        y[0, :, [0, 1]] = m.arange(6).view(3, 2)
        return (x[0, :, [0, 1]], x[1, ..., m.tensor([0, 1])], x[m.tensor(0), :, [0, 1]],
                x[[0, 1], :, 1], x[:, 1, [0, 1]], x[0, [0, 1], 1:], y)
    out = same_outcome(f)[1]
    assert [tuple(t.shape) for t in out[:6]] == [(3, 2), (3, 2), (3, 2), (2, 3), (2, 2), (2, 3)]
    assert out[6][0].tolist() == [[0, 1, 0, 0], [2, 3, 0, 0], [4, 5, 0, 0]]


SCALARS = {
    "int": 1,
    "np_int8": np.int8(1),
    "tensor_int64": ("T", 1),
    "tensor_int32": ("T", 1, "int32"),
    "tensor_int8": ("T", 1, "int8"),
    "tensor_int16": ("T", -1, "int16"),
    "tensor_uint8": ("T", 1, "uint8"),       # a 0-d byte tensor indexes like a 0-d bool
    "tensor_bool": ("T", True),
    "tensor_false": ("T", False),
    "py_true": True,
    "py_false": False,
    "array_0d": ("A", 1),
    "array_0d_float": ("A", 1.5),
    "array_0d_bool": ("A", True),
    "array_0d_uint8": ("A", 1, "uint8"),
}


@pytest.mark.parametrize("name", list(SCALARS))
@pytest.mark.parametrize("where", ["first", "middle", "alone"])
def test_scalar_index_kinds(name, where):
    spec = SCALARS[name]

    def f(m):
        x = m.arange(60.0).reshape(3, 4, 5)
        s = _key(m, spec)
        key = {"first": (s, slice(None), [0, 1]), "middle": ([1, 0], s, slice(1, None)),
               "alone": s}[where]
        y = x[key]
        x[key] = -1.0
        return y, x
    same_outcome(f)


# ---------------------------------------------------------------------------
# a sweep over keys mixing every kind of index in every position
SHAPE = (3, 4, 5, 2)
SCALAR_ATOMS = [1, -1, ("T", 1), ("T", 0, "int32"), ("A", 1)]       # selects in PyTorch
ADVANCED_ATOMS = [[0, 1], [[0], [1]], ("T", [1, 0]), ("T", [1, 0], "int32"), ("A", [1, 0]),
                  "mask", ("T", True), True, False]
BASIC_ATOMS = [slice(None), slice(1, None), slice(None, None, 2), None, Ellipsis]


def _consumes(a) -> int:
    return 0 if a is None or a is Ellipsis or isinstance(a, bool) or a == ("T", True) else 1


def _rules_differ(key) -> bool:
    """A select, then a slice / None / Ellipsis, then the first advanced index: NumPy puts
    the index dimensions first, PyTorch after the slice's."""
    sel, basic = set(map(repr, SCALAR_ATOMS)), set(map(repr, BASIC_ATOMS))  # True == 1
    kinds = ["s" if repr(a) in sel else "b" if repr(a) in basic else "a" for a in key]
    first_adv = kinds.index("a")
    return "s" in kinds[:first_adv] and "b" in kinds[kinds.index("s"):first_adv]


def _sweep_keys(n, seed=20240613):
    """Keys of 2-4 atoms with at least one select and one advanced index, shuffled: the
    mixes where PyTorch's placement rule and NumPy's differ (and many where they agree)."""
    rng = random.Random(seed)
    keys, seen = [], set()
    while len(keys) < n:
        size = rng.randint(2, 4)
        n_sel = rng.randint(1, size - 1)
        n_adv = rng.randint(1, size - n_sel)
        key = [rng.choice(SCALAR_ATOMS) for _ in range(n_sel)] + \
            [rng.choice(ADVANCED_ATOMS) for _ in range(n_adv)] + \
            [rng.choice(BASIC_ATOMS) for _ in range(size - n_sel - n_adv)]
        rng.shuffle(key)
        if sum(a is Ellipsis for a in key) > 1 or sum(map(_consumes, key)) > len(SHAPE):
            continue
        if not _rules_differ(key) and rng.random() < 0.92:
            continue  # favour the keys where the two rules disagree
        if repr(key) not in seen:
            seen.add(repr(key))
            keys.append(tuple(key))
    return keys


def _resolve(m, key):
    """The key for framework ``m``; "mask" becomes a bool mask over the dimension it indexes."""
    consumed = sum(map(_consumes, key))
    out, dim = [], 0
    for a in key:
        if a == "mask":
            n = SHAPE[dim]
            out.append(m.tensor([i % 2 == 0 for i in range(n)]))
        else:
            out.append(_key(m, a))
        dim += len(SHAPE) - consumed if a is Ellipsis else _consumes(a)
    return tuple(out)


KEYS = _sweep_keys(80)
SWEEP, GET_ONLY = KEYS[:24], KEYS[24:]   # writes and gradients compile more: fewer keys


@pytest.mark.parametrize("key", GET_ONLY, ids=[repr(k) for k in GET_ONLY])
def test_sweep_getitem(key):
    same_outcome(lambda m: m.arange(float(np.prod(SHAPE))).reshape(SHAPE)[_resolve(m, key)])


@pytest.mark.parametrize("key", SWEEP, ids=[repr(k) for k in SWEEP])
def test_sweep_getitem_setitem_grad(key):
    def f(m):
        k = _resolve(m, key)
        base = m.arange(float(np.prod(SHAPE))).reshape(SHAPE)
        leaf = base.clone().requires_grad_()
        y = leaf[k]
        w = m.arange(float(y.numel())).reshape(y.shape) + 1
        val = w.clone().requires_grad_()
        z = leaf * 1
        z[k] = val * 3   # distinct values: a write in the wrong layout shows
        ((y * w).sum() + (z * base).sum()).backward()
        return y.detach(), z.detach(), leaf.grad, val.grad
    same_outcome(f)


def test_none_and_empty_ellipsis_separate_like_pytorch():
    def f(m):
        x = m.arange(24).reshape(2, 3, 4)
        return (x[[0, 1], None, [0, 1]], x[:, [0, 1], ..., [0, 1]], x[[0, 1], ..., None, [0, 1]],
                x[0, True, :, [0, 1]], x[m.tensor([[True, False, True], [False, True, True]]), 0],
                m.arange(6).reshape(2, 3)[[1, 0], ..., [0, 2]])
    same_outcome(f)


def test_compiled_scalar_tensor_index_is_a_select():
    def f(x, i):
        y = x.clone()
        y[i, :, [0, 1]] = y[i, :, [0, 1]] * 10
        return y[i, :, [0, 1]], y

    x = tl.arange(24.0).reshape(2, 3, 4)
    got = tl.compile(f)(x, tl.tensor(1))
    want = f(x, tl.tensor(1))
    assert tuple(got[0].shape) == (3, 2)
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))


# ---------------------------------------------------------------------------
# index dtypes and index errors
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool",
                                   "float32", "float64"])
@pytest.mark.parametrize("form", ["alone", "with_slice", "pair"])
def test_index_tensor_dtypes(dtype, form):
    def f(m):
        x = m.arange(24.0).reshape(2, 3, 4)
        i = m.tensor([1, 0], dtype=getattr(m, dtype))
        return {"alone": lambda: x[i], "with_slice": lambda: x[:, :, i],
                "pair": lambda: x[m.tensor([1, 1]), i]}[form]()
    same_outcome(f)


@pytest.mark.parametrize("spec", [[1.7], [[0.5, 1]], [True, 0], ("A", [1, 0], "int16"),
                                  ("A", [1, 0], "uint8"), ("A", [1, 0], "uint64"),
                                  ("A", [0.5, 1.0]), ("A", [True, False])],
                         ids=repr)
def test_list_and_array_indices_convert_like_pytorch(spec):
    def f(m):
        x = m.arange(24.0).reshape(2, 3, 4)
        return x[_key(m, spec)], x[:, _key(m, spec)]
    same_outcome(f)


ERRORS = {
    "broadcast_1d": lambda x, m: x[m.tensor([0, 1]), m.tensor([0, 1, 2])],
    "broadcast_lists": lambda x, m: x[[0, 1], [0, 1, 2]],
    "broadcast_separated": lambda x, m: x[m.tensor([0, 1]), :, m.tensor([0, 1, 2])],
    "broadcast_three": lambda x, m: x[[[0], [1]], [0, 1, 2], [0, 1]],
    "broadcast_2d": lambda x, m: x[[[0], [1]], [[0, 1, 2]], [[0, 1], [0, 1]]],
    "broadcast_mask": lambda x, m: x[:, m.tensor([True, False, True]), [0, 1, 2]],
    "broadcast_false": lambda x, m: x[False, [0, 1]],
    "broadcast_uint8_0d": lambda x, m: x[m.tensor(0, dtype=m.uint8), :, [0, 1]],
    "dtype_before_broadcast": lambda x, m: x[m.tensor([0, 5], dtype=m.int8), [0, 1, 2]],
    "dtype_before_mask": lambda x, m: x[m.tensor([0, 1], dtype=m.int8), m.ones(2, dtype=m.bool)],
    "float_0d_tensor": lambda x, m: x[m.tensor(0.5)],
    "mask_after_select": lambda x, m: x[0, m.tensor([True, False])],
    "mask_after_slice": lambda x, m: x[1:, :, m.tensor([True, False])],
    "mask_before_bounds": lambda x, m: x[m.tensor([0, 5]), m.ones(2, dtype=m.bool)],
    "mask_after_adv": lambda x, m: x[m.ones(3, dtype=m.bool), 1, m.tensor([7, 1])],
    "select_before_dtype": lambda x, m: x[m.tensor([0, 5], dtype=m.int8), 7],
    "select_before_bounds": lambda x, m: x[m.tensor([0, 5]), 7],
    "bounds_after_select": lambda x, m: x[0, :, [7]],
    "bounds_second": lambda x, m: x[0, [1], [7]],
    "bounds_after_b0": lambda x, m: x[True, [7]],
    "bounds_after_list_b0": lambda x, m: x[[0], True, [7]],
    "bounds_after_mask": lambda x, m: x[m.ones(2, 3, dtype=m.bool), [7]],
    "bounds_order_elementwise": lambda x, m: x[[0, 7], [9, 0]],
    "bounds_order_elementwise2": lambda x, m: x[[0, 7], [0, 9]],
    "bounds_order_broadcast": lambda x, m: x[[[0], [7]], [9, 0]],
    "np_bool_scalar": lambda x, m: x[np.bool_(True)],
    "np_bool_in_tuple": lambda x, m: x[np.bool_(True), :, [0, 1]],
    "np_float_scalar": lambda x, m: x[np.float64(0.5)],
    "zero_dim_select": lambda x, m: m.tensor(5)[m.tensor(0)],
    "zero_dim_array_select": lambda x, m: m.tensor(5)[np.array(0)],
    "setitem_bounds_after_dtype": lambda x, m: x.__setitem__(m.tensor([7]), m.tensor(3)),
    "setitem_shape_before_dtype": lambda x, m: x.__setitem__([0], m.ones(2, 3, dtype=m.long)),
    "setitem_broadcast": lambda x, m: x.__setitem__((0, [0, 1], [0, 1, 2]), 1.0),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_index_errors_like_pytorch(name):
    fn = ERRORS[name]
    err, e = same_outcome(lambda m: fn(m.arange(24.0).reshape(2, 3, 4), m))
    assert err, f"no error raised, got {e!r}"


def test_empty_result_skips_range_check():
    def f(m):
        x = m.zeros(2, 0)
        y = x[[5]]
        x[[5]] = 1.0
        return y, x, m.zeros(2, 3)[[5], []]
    same_outcome(f)


def test_uint8_mask_warns_deprecated():
    for fw in FWS:
        m = _mod(fw)
        with pytest.warns(UserWarning, match="indexing with dtype .*uint8 is now deprecated"):
            y = m.arange(3.0)[m.tensor([1, 0, 1], dtype=m.uint8)]
        assert y.tolist() == [0.0, 2.0]


# ---------------------------------------------------------------------------
# the value's dtype in writes
def _bmask(m):
    return m.tensor([[True, False, True], [False, False, True]])


PUTS = {
    "adv_long": (("T", [0, 1]), ("T", [1, 2, 3])),
    "adv_0d_long": (("T", [0, 1]), ("T", 1)),
    "adv_0d_double": (("T", [0, 1]), ("T", 1.0, "float64")),
    "adv_half": (("T", [0, 1]), ("T", [1.0, 2.0, 3.0], "float16")),
    "adv_bool": (("T", [0]), ("T", [True, False, True])),
    "slice_adv_long": ((slice(None), [0, 1]), ("T", [1, 2])),
    "int_adv_long": ((0, [0, 1]), ("T", [1, 2])),
    "list_long": ([0], ("T", [1, 2, 3])),
    "empty_index_long": (("T", [], "int64"), ("T", [1, 2, 3])),
    "slice_long": (slice(0, 2), ("T", [1, 2, 3])),
    "int_long": (0, ("T", [1, 2, 3])),
    "tensor_0d_long": (("T", 1), ("T", [1, 2, 3])),
    "ellipsis_long": (Ellipsis, ("T", 3)),
    "none_long": (None, ("T", 3)),
    "true_long": (True, ("T", [1, 2, 3])),
    "true_shape": (True, ("T", [1.0, 2.0, 3.0, 4.0])),
    "true_tuple_shape": ((True,), ("T", [1.0, 2.0, 3.0, 4.0])),
    "true_tuple_long": ((True,), ("T", 3)),
    "false_long": (False, ("T", [1, 2, 3])),
    "false_any_shape": (False, ("T", [[1.0] * 7] * 7)),
    "false_tuple_long": ((False,), ("T", 3)),
    "false_tuple_float": ((False,), ("T", 3.0)),
    "false_tensor_float": (("T", False), ("T", 3.0)),
    "bool_tensor_long": (("T", True), ("T", [1, 2, 3])),
    "mask_1d_long": (("T", [True, False]), ("T", [1, 2, 3])),
    "mask_2d_long": ("bmask", ("T", [1, 2, 3])),
    "mask_2d_0d_long": ("bmask", ("T", 1)),
    "mask_2d_0d_double": ("bmask", ("T", 2.5, "float64")),
    "mask_2d_1elem_double": ("bmask", ("T", [[2.5]], "float64")),
    "mask_2d_0d_bool": ("bmask", ("T", True)),
    "mask_2d_double": ("bmask", ("T", [1.0, 2.0, 3.0], "float64")),
    "mask_list_0d_long": ([True, False], ("T", 1)),
    "mask_array_0d_long": (("A", [True, False]), ("T", 1)),
    "mask_none_0d_long": ((("T", [True, False]), None), ("T", 1)),
    "none_mask_0d_long": ((None, ("T", [True, False])), ("T", 1)),
    "slice_mask_0d_long": ((slice(None), ("T", [True, False, True])), ("T", 1)),
    "int_mask_0d_long": ((0, ("T", [True, False, True])), ("T", 1)),
    "mask_list_0d_long_pair": ((("T", [True, False]), [0]), ("T", 1)),
    "mask_true_0d_long": ((("T", [True, False]), True), ("T", 3)),
    "uint8_mask_0d": (("T", [1, 0], "uint8"), ("T", 5.0)),
    "uint8_mask_scalar": (("T", [1, 0], "uint8"), 5.0),
    "uint8_mask_vector": (("T", [1, 0], "uint8"), ("T", [5.0, 6.0, 7.0])),
    "uint8_mask_long_vector": (("T", [1, 0], "uint8"), ("T", [5, 6, 7])),
    "adv_python_int": (("T", [0]), 1),
    "adv_python_bool": (("T", [0]), True),
    "adv_np_float": (("T", [0]), np.float64(2.0)),
    "list_value": (("T", [0]), [1.0, 2.0]),
}


@pytest.mark.parametrize("name", list(PUTS))
def test_setitem_value_dtype_rules(name):
    kspec, vspec = PUTS[name]

    def f(m):
        x = m.zeros(2, 3)
        key = _bmask(m) if kspec == "bmask" else _key(m, kspec)
        x[key] = _key(m, vspec)
        return x, x._version
    same_outcome(f)


@pytest.mark.parametrize("dest", ["int64", "bool"])
def test_setitem_mask_fill_casts_to_destination(dest):
    def f(m):
        x = m.zeros(3, dtype=getattr(m, dest))
        x[m.tensor([True, False, True])] = m.tensor(2.7)
        y = m.zeros(3, dtype=getattr(m, dest))
        y[m.tensor([0])] = m.tensor([1.5])
        return x, y
    same_outcome(f)


INDEX_PUTS = {
    "long": ((("T", [0]),), ("T", [1, 2, 3]), False),
    "long_0d": ((("T", [0]),), ("T", 1), False),
    "double": ((("T", [0]),), ("T", [1.0, 2.0, 3.0], "float64"), False),
    "mask_0d_long": ((("T", [True, False]),), ("T", 5), False),
    "mask_0d_long_accumulate": ((("T", [True, False]),), ("T", 5), True),
    "mask_0d_float_accumulate": ((("T", [True, False]),), ("T", 5.0), True),
    "uint8_mask_0d": ((("T", [1, 0], "uint8"),), ("T", 5.0), False),
    "scalar_tensor_indices": ((("T", 0), ("T", [0, 2])), ("T", 1.0), False),
    "scalar_tensor_accumulate": ((("T", 1), ("T", [2, 2])), ("T", [1.0, 2.0]), True),
    "int8_index": ((("T", [0], "int8"),), ("T", 1.0), False),
    "broadcast": ((("T", [0, 1]), ("T", [0, 1, 2])), ("T", 1.0), False),
    "out_of_range": ((("T", [0]), ("T", [3])), ("T", 1.0), False),
}


@pytest.mark.parametrize("name", list(INDEX_PUTS))
def test_index_put_value_dtype_rules(name):
    ispec, vspec, acc = INDEX_PUTS[name]

    def f(m):
        x = m.zeros(2, 3)
        y = x.index_put(_key(m, ispec), _key(m, vspec), accumulate=acc)
        x.index_put_(_key(m, ispec), _key(m, vspec), accumulate=acc)
        return x, y
    same_outcome(f)


LEAF_KEYS = [0, slice(None), slice(None, 5), slice(1, None), slice(-3, None), Ellipsis, None,
             True, False, (True,), (False,), [0], (0, [0]), (slice(None), [0]), (None, [0]),
             (slice(1, None), [0]), ([0], 0), ("T", 1), (("T", [0]), 5), (("T", [0], "int8"), 0),
             (("T", [0], "int8"),)]


@pytest.mark.parametrize("spec", LEAF_KEYS, ids=repr)
def test_setitem_on_a_leaf_that_requires_grad(spec):
    # PyTorch writes into its sliced tensor: a view of the leaf unless the key leaves it whole
    def f(m):
        x = m.zeros(3, 2, requires_grad=True)
        x[_key(m, spec)] = 1.0
        return x.detach()
    same_outcome(f)


def test_int_value_into_float_through_copy_paths():
    def f(m):
        xf = m.zeros(3, 4)
        xf[0:2] = m.tensor([1, 2, 3, 4])
        xf[2] = m.tensor(7)
        xf[..., 1] = m.tensor([True, False, True])
        xf[None] = m.tensor(9, dtype=m.int8)[None]
        return xf
    same_outcome(f)


def test_iadd_through_advanced_index_and_grad():
    def f(m):
        leaf = m.arange(24.0).reshape(2, 3, 4).requires_grad_()
        x = leaf * 1
        x[1, :, [0, 3]] += m.arange(6.0).view(3, 2)
        x[m.tensor(0), 1:, m.tensor([2, 1])] *= 2
        (x * m.arange(24.0).reshape(2, 3, 4)).sum().backward()
        return x.detach(), leaf.grad
    same_outcome(f)


def test_torchlike_answers_without_the_oracle():
    # torchlike's own answers, checked with or without PyTorch installed
    x = tl.arange(24).reshape(2, 3, 4)
    assert tuple(x[0, :, [0, 1]].shape) == (3, 2)
    assert tuple(x[tl.tensor(1), ..., tl.tensor([0, 1])].shape) == (3, 2)
    with pytest.raises(IndexError, match=r"could not be broadcast together with shapes \[2\], "
                                         r"\[3\]"):
        x[tl.tensor([0, 1]), tl.tensor([0, 1, 2])]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte"):
        x[tl.tensor([0], dtype=tl.int8)]
    xf = tl.zeros(2)
    with pytest.raises(RuntimeError, match="got Float for the destination and Long for the "
                                           "source"):
        xf[tl.tensor([0, 1])] = tl.tensor([1, 2])
    xf[0:2] = tl.tensor([1, 2])
    assert xf.tolist() == [1.0, 2.0]


# PyTorch's words for these errors (the message checked without PyTorch too)
_MESSAGES = [
    (lambda m: m.arange(12.).reshape(3, 4)[::0], ValueError, "slice step cannot be zero"),
    (lambda m: m.arange(12.).reshape(3, 4).index_select(1, m.tensor([4])), RuntimeError,
     "INDICES element is out of DATA bounds, id=4 axis_dim=4"),
    (lambda m: m.arange(12.).reshape(3, 4).index_select(0, m.tensor([3])), IndexError,
     "index out of range in self"),
    (lambda m: m.zeros(3, 4).scatter_add(1, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
     RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([0]), m.ones(1, 3)), RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. "
     "Got self.shape = [3, 4] source.shape = [1, 3]"),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([0]), m.ones(1, 4, 1)), RuntimeError,
     "source tensor shape must match self tensor shape"),
    (lambda m: m.zeros(3, 4).index_add(0, m.tensor([0]), m.ones(4)), RuntimeError,
     "index_add_(): Number of indices (1) should be equal to source.size(dim): (4), for dim: 0"),
    (lambda m: m.zeros(3, 4).index_copy(0, m.tensor([0]), m.ones(1, 4, 1)), IndexError,
     "index_copy_(): When source and destination are not scalars, their dimensionality must "
     "match. Source dimensionality (3), destination dimensionality (2)"),
    (lambda m: m.zeros(2, 3, 4).index_copy(0, m.tensor([0]), m.ones(1, 3, 5)), RuntimeError,
     "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
     "slice shape: 3 4 at dimension 0 and source slice shape: 3 5 at dimension 0."),
    (lambda m: m.zeros(2, 3).index_copy(0, m.tensor([0], dtype=m.int32), m.ones(1, 3)),
     RuntimeError, "index_copy_(): Expected a long tensor for index, but got Int"),
    (lambda m: m.zeros(2, 3).index_fill(0, m.tensor([0], dtype=m.int32), 1.0), IndexError,
     "index_fill_(): Expected dtype int64 for index."),
    (lambda m: m.zeros(3, 4).masked_fill(m.ones(3, 4, dtype=m.uint8), 0.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
    (lambda m: m.zeros(3, 4).unflatten(1, (3, -1)), RuntimeError,
     "unflatten: Provided sizes [3, -1] don't multiply up to the size of dim 1 (4) in the "
     "input tensor"),
    (lambda m: m.zeros(3, 4).unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda m: m.zeros(3, 4).movedim((0, 1), (0, 0)), RuntimeError,
     "movedim: repeated dim in `destination` ([0, 0])"),
    (lambda m: m.zeros(3, 4).movedim((0, -2), (0, 1)), RuntimeError,
     "movedim: repeated dim in `source` ([0, -2])"),
    (lambda m: m.tensor(1.0).size(0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda m: m.tensor(1.0).stride(-1), IndexError,
     "Dimension specified as -1 but tensor has no dimensions"),
]


@pytest.mark.parametrize("case", range(len(_MESSAGES)))
def test_errors_in_pytorchs_words(case):
    fn, exc, text = _MESSAGES[case]
    with pytest.raises(exc) as got:
        fn(tl)
    assert str(got.value) == text or str(got.value).startswith(text)
    if HAVE_TORCH:
        with pytest.raises(exc) as ref:
            fn(torch)
        assert str(got.value) == str(ref.value).split("\n")[0]
