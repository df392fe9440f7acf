"""``out=`` of the table's functions (Note [out= of table functions]).

Every table function is called over its first sample inputs (all of them with
TORCHLIKE_ALL_SAMPLES=1) with ``out=``: those PyTorch
gives ``out`` must write the result into it and return it (same values, dtype and
shape as PyTorch); with ``out`` of another dtype, both accept or both refuse with the
same exception type; the others refuse ``out`` with a TypeError, as PyTorch's do.
Without PyTorch, torchlike's own results stand in for the oracle (``out`` receives
exactly the result of the call without it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.out_param import RULES
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS

from ._parity import (HAVE_TORCH, assert_same, convert, outcome, parity, raises_in_both,
                      same_first_error, samples_per_op, torch)


def _fname(spec):
    return spec.name if spec.function is True else spec.function


# the function of every public op with a function (``torchlike.linalg``'s as
# "linalg.<name>"), and its samples called as functions
FUNCS = {}
for _spec in OPS.values():
    _n = _fname(_spec) or _spec.extra.get("public")
    if _n and not _spec.name.startswith("_") and _n not in FUNCS:
        FUNCS[_n] = [s for s in samples_of(_spec) if not s.method]

# copy variants have their own out= (Note [out= of the copy variants]); tested there
_OWN = {n for n in FUNCS if OPS.get(n) is not None and OPS[n].extra.get("out")}
WITH_OUT = sorted(n for n in FUNCS if n in RULES and n not in _OWN)
WITHOUT_OUT = sorted(n for n in FUNCS if n not in RULES and n not in _OWN and FUNCS[n])

# the dtype an ``out`` of another dtype gets, by the result's dtype
_OTHER = {"float32": "float64", "float64": "float32", "float16": "float32",
          "bfloat16": "float32", "int64": "float32", "int32": "int64", "int16": "int64",
          "int8": "int64", "uint8": "int64", "bool": "float32", "complex64": "complex128",
          "complex128": "complex64"}


def _function(fw, name):
    f = tl if fw == "tl" else torch
    for part in name.split("."):
        f = getattr(f, part)
    return f


def _call(fw, name, smp, out=None, with_out=False):
    args, kwargs = convert(smp.args, fw), convert(smp.kwargs, fw)
    if with_out:
        kwargs["out"] = out

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _function(fw, name)(*args, **kwargs)
    return outcome(run)


def _empty_like_results(fw, res, dtype_of=lambda t: t.dtype):
    mod = tl if fw == "tl" else torch
    if isinstance(res, (tuple, list)):
        return tuple(mod.empty(0, dtype=dtype_of(t)) for t in res)
    return mod.empty(0, dtype=dtype_of(res))


def _is_result(res):
    if isinstance(res, (tuple, list)):
        return len(res) > 0 and all(isinstance(t, (tl.Tensor,) + ((torch.Tensor,) if
                                                                  HAVE_TORCH else ()))
                                    for t in res)
    return isinstance(res, (tl.Tensor,) + ((torch.Tensor,) if HAVE_TORCH else ()))


def _returned_out(got, out):
    if isinstance(out, tuple):
        return isinstance(got, tuple) and all(a is b for a, b in zip(got, out))
    return got is out


# Samples where PyTorch's out= kernel fails by a bug of its own, left out of the parity
# runs (torchlike's behaviour there is tested below): ``diff_out`` raises IndexError
# ("start out of range") for an input with no elements along ``dim``; ``ldexp`` of a
# float32 input and an int64 exponent into a float64 ``out`` fails an internal assert
# (``needs_dynamic_casting``) where every other dtype pair casts.
_PYTORCH_BUGS = {("diff", 9)}
_PYTORCH_BUGS_OTHER_DTYPE = {("ldexp", 0), ("ldexp", 1), ("ldexp", 4)}


def _cases(names, bugs=frozenset(), most=None):
    """The first ``most`` samples of each function (all: None)."""
    return [pytest.param(n, i, id=f"{n}-{i}") for n in names
            for i in range(min(len(FUNCS[n]), most or len(FUNCS[n])))
            if (n, i) not in _PYTORCH_BUGS | bugs]


def test_ldexp_of_a_float_by_int_exponent_into_float64():
    out = tl.empty(0, dtype=tl.float64)
    tl.ldexp(tl.tensor([1.5, 2.0]), tl.tensor([1, 2]), out=out)
    assert out.dtype == tl.float64 and out.tolist() == [3.0, 8.0]


def test_diff_of_an_empty_input_into_out():
    out = tl.empty(0)
    assert tl.diff(tl.empty(0), out=out) is out and tuple(out.shape) == (0,)


@pytest.mark.parametrize("name,i", _cases(WITH_OUT, most=samples_per_op(3)))
def test_out_of_the_result_dtype(name, i):
    """``out`` of the result's dtype (and no elements) receives the result."""
    smp = FUNCS[name][i]
    plain = _call("tl", name, smp)
    ref_plain = _call("torch", name, smp) if HAVE_TORCH else plain
    if isinstance(ref_plain, Exception) or not _is_result(ref_plain):
        pytest.skip("PyTorch rejects this sample or returns no tensors")
    if isinstance(plain, Exception):
        raise plain
    out = _empty_like_results("tl", plain)
    got = _call("tl", name, smp, out, True)
    rout = ref = None
    if HAVE_TORCH:
        rout = _empty_like_results("torch", ref_plain)
        ref = _call("torch", name, smp, rout, True)
    # PyTorch may refuse: an overload without out= (``torch.sum(x, out=...)``)
    _check(name, smp, got, out, ref, rout, plain)


def _check(name, smp, got, out, ref, rout, plain):
    """torchlike's ``got`` (written into ``out``) against PyTorch's ``ref`` (into
    ``rout``; None without PyTorch): both refuse alike, or both write (``_compare``)."""
    if isinstance(ref, Exception):
        assert isinstance(got, Exception), f"torch raised {ref!r}; torchlike wrote {out}"
        assert type(got).__name__ == type(ref).__name__, (got, ref)
        return
    if isinstance(got, Exception):
        raise got
    assert _returned_out(got, out), f"{name}(out=) must return out, got {type(got)}"
    _compare(name, out, rout, plain, smp)


def _phase_free(name):
    """Decompositions whose factors PyTorch may give with other signs or phases (their
    values are compared with PyTorch in the linalg tests, in a phase-free form)."""
    return name.startswith("linalg.") or name == "svd"


def _compare(name, out, rout, plain, smp):
    """``out`` holds what the call without ``out`` gives, cast to ``out``'s dtypes; with
    PyTorch, the same dtypes and shapes as PyTorch's ``out`` and (where the values are
    unique) the same values."""
    outs = out if isinstance(out, tuple) else (out,)
    plains = tuple(plain) if isinstance(plain, (tuple, list)) else (plain,)
    for o, p in zip(outs, plains):
        assert tuple(o.shape) == tuple(p.shape)
        want = np.asarray(p.to(o.dtype)) if p.dtype != o.dtype else np.asarray(p)
        np.testing.assert_allclose(np.asarray(o), want, rtol=1e-6, equal_nan=True)
    if rout is None:
        return
    if _phase_free(name):
        routs = rout if isinstance(rout, tuple) else (rout,)
        for o, r in zip(outs, routs):
            assert str(o.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
            assert tuple(o.shape) == tuple(r.shape)
        return
    assert_same(out, rout, max(smp.rtol, 1e-4), max(smp.atol, 1e-5))


@pytest.mark.skipif(not HAVE_TORCH, reason="which dtypes an out may have is PyTorch's rule")
@pytest.mark.parametrize("name,i", _cases(WITH_OUT, _PYTORCH_BUGS_OTHER_DTYPE,
                                             most=samples_per_op(1)))
def test_out_of_another_dtype(name, i):
    """``out`` of another dtype: both accept (equal values) or both refuse alike."""
    smp = FUNCS[name][i]
    ref_plain = _call("torch", name, smp)
    if isinstance(ref_plain, Exception) or not _is_result(ref_plain):
        pytest.skip("PyTorch rejects this sample or returns no tensors")
    first = ref_plain[0] if isinstance(ref_plain, (tuple, list)) else ref_plain
    other = _OTHER[str(first.dtype).split(".")[-1]]

    def dtype_of(fw):
        seen = []

        def pick(t):
            d = str(t.dtype).split(".")[-1] if not seen else None
            seen.append(1)
            name_ = other if d is not None else str(t.dtype).split(".")[-1]
            return getattr(tl if fw == "tl" else torch, name_)
        return pick
    rout = _empty_like_results("torch", ref_plain, dtype_of("torch"))
    ref = _call("torch", name, smp, rout, True)
    tl_plain = _call("tl", name, smp)
    if isinstance(tl_plain, Exception):
        raise tl_plain
    out = _empty_like_results("tl", tl_plain, dtype_of("tl"))
    got = _call("tl", name, smp, out, True)
    _check(name, smp, got, out, ref, rout, tl_plain)


@pytest.mark.parametrize("name", WITHOUT_OUT)
def test_functions_without_out_refuse_it(name):
    """PyTorch's function has no ``out``: a TypeError, as there."""
    for smp in FUNCS[name]:
        ref_plain = _call("torch", name, smp) if HAVE_TORCH else None
        plain = _call("tl", name, smp)
        if isinstance(plain, Exception) or isinstance(ref_plain, Exception) or \
                not _is_result(plain):
            continue
        got = _call("tl", name, smp, _empty_like_results("tl", plain), True)
        assert isinstance(got, TypeError), f"{name} took out=: {got!r}"
        if HAVE_TORCH:
            ref = _call("torch", name, smp, _empty_like_results("torch", ref_plain), True)
            assert isinstance(ref, TypeError), f"torch.{name} takes out=; add it to RULES"
        return
    pytest.skip("no sample PyTorch accepts")


def test_the_list_holds_only_table_functions():
    public = set(FUNCS) | {"linalg." + n for n in tl.linalg.__all__} | \
        {"special." + n for n in tl.special.__all__}
    assert not set(RULES) - public, sorted(set(RULES) - public)


# ------------------------------------------------------------------- behaviour
def test_returns_out_writes_values_and_moves_the_version():
    def run(m):
        a, b = m.tensor([1., 2., 3.]), m.tensor([10., 20., 30.])
        c = m.empty(3)
        v = c._version
        r = m.add(a, b, alpha=2, out=c)
        assert r is c and c._version == v + 1
        return c
    parity(run)


def test_resizes_with_the_warning_when_out_held_elements():
    def run(m):
        c = m.empty(2)
        with pytest.warns(UserWarning, match=r"had shape \[2\], which does not match the "
                                             r"required output shape \[3\]"):
            m.mul(m.ones(3), 2, out=c)
        e = m.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m.mul(m.ones(3), 3, out=e)    # no elements: resized silently
        return c, e
    parity(run)


def test_a_view_out_writes_into_its_base():
    def run(m):
        base = m.zeros(2, 3)
        r = m.exp(m.zeros(3), out=base[1])
        assert r._base is base
        m.add(m.ones(2), 5, out=base[:, 0])
        return base
    parity(run)


def test_dtype_rules():
    def run(m):
        i = m.tensor([1, 2, 3])
        f64 = m.empty(3, dtype=m.float64)
        m.add(i, i, out=f64)                      # int into float64: cast
        s = m.empty((), dtype=m.int64)
        m.sum(m.tensor([0.6, 0.6]), 0, out=s)     # computed in out's dtype: 0
        b = m.empty(3)
        m.eq(i, 2, out=b)                         # bool into float
        return f64, s, b
    parity(run)
    raises_in_both(lambda m: m.add(m.ones(3), 1, out=m.empty(3, dtype=m.int64)), RuntimeError)
    raises_in_both(lambda m: m.mm(m.ones(2, 2), m.ones(2, 2),
                                  out=m.empty(2, 2, dtype=m.float64)), RuntimeError)
    raises_in_both(lambda m: m.floor(m.ones(2), out=m.empty(2, dtype=m.float64)),
                   RuntimeError)
    raises_in_both(lambda m: m.cat([m.ones(2), m.ones(2)], out=m.empty(4, dtype=m.int64)),
                   TypeError)
    raises_in_both(lambda m: m.sum(m.ones(2, 2), 0, dtype=m.float64,
                                   out=m.empty(2, dtype=m.float32)), RuntimeError,
                   same_text=False)


def test_a_refused_out_is_left_as_it_was():
    o = tl.full((3,), 7)
    v = o._version
    with pytest.raises(RuntimeError):
        tl.add(tl.ones(3), 0.5, out=o)
    assert o.tolist() == [7, 7, 7] and o._version == v


def test_several_results():
    def run(m):
        x = m.tensor([[3., 1., 2.], [0., 5., 4.]])
        vals, idx = m.empty(0), m.empty(0, dtype=m.int64)
        r = m.max(x, 1, out=(vals, idx))
        assert r.values is vals and r.indices is idx
        assert type(r).__name__ == "max_out"
        s = m.sort(x, out=[m.empty(0), m.empty(0, dtype=m.int64)])
        return r, s
    parity(run)
    raises_in_both(lambda m: m.max(m.ones(2, 3), 0, out=(m.empty(3), m.empty(3))),
                   RuntimeError, same_text=False)
    raises_in_both(lambda m: m.max(m.ones(2, 3), 0, out=m.empty(3)), TypeError,
                   same_text=False)
    assert repr(tl.max(tl.ones(2), 0, out=(tl.empty(0), tl.empty(0, dtype=tl.int64)))) \
        .startswith("torchlike.return_types.max_out(")


def test_autograd_refuses_out():
    same_first_error(lambda m: m.add(m.ones(3, requires_grad=True), 1, out=m.empty(3)),
                     RuntimeError, "add(): functions with out=... arguments don't support "
                                   "automatic differentiation")
    same_first_error(lambda m: m.mul(m.ones(3), 1, out=m.empty(3, requires_grad=True)),
                     RuntimeError)

    def allowed(m):
        x = m.ones(3, requires_grad=True)
        b = m.empty(3, dtype=m.bool)
        m.eq(x, 1, out=b)                      # not differentiable: allowed
        y = m.empty(3)
        with m.no_grad():
            m.mul(x, 2, out=y)
        assert not y.requires_grad
        return b, y
    parity(allowed)


def test_bad_out_arguments():
    raises_in_both(lambda m: m.add(m.ones(2), 1, out="x"), TypeError, same_text=False)
    raises_in_both(lambda m: m.ones(2).add(1, out=m.empty(2)), TypeError)
    raises_in_both(lambda m: m.transpose(m.ones(2, 3), 0, 1, out=m.empty(3, 2)), TypeError)
    raises_in_both(lambda m: m.sum(m.ones(2), out=m.empty(())), TypeError, same_text=False)
    assert tl.add(tl.ones(2), 1, out=None).tolist() == [2.0, 2.0]


def test_out_is_seen_by_torch_function_overrides():
    seen = []

    class Spy(tl.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(sorted((kwargs or {}).keys()))
            return super().__torch_function__(func, types, args, kwargs)

    x = tl.ones(2).as_subclass(Spy)
    out = tl.empty(2)
    r = tl.add(x, 1, out=out)
    assert seen and seen[0] == ["out"]
    # as in PyTorch, the default __torch_function__ returns ``out`` as the subclass
    assert type(r) is Spy and out.tolist() == [2.0, 2.0] and r.tolist() == [2.0, 2.0]


def test_linalg_functions_of_other_ops_take_out():
    """``linalg.inv`` is the op of ``inverse``, ``linalg.det`` of ``det``: both publics
    take ``out``; ``Tensor.inverse`` does not, as in PyTorch."""
    def run(m):
        a = m.tensor([[2., 1.], [1., 3.]])
        inv, det = m.empty(0), m.empty(0)
        assert m.linalg.inv(a, out=inv) is inv and m.linalg.det(a, out=det) is det
        q, r = m.empty(0), m.empty(0)
        res = m.linalg.qr(a, out=(q, r))
        assert res.Q is q and res.R is r
        return inv, det, q, r
    parity(run)
    raises_in_both(lambda m: m.ones(2, 2).inverse(out=m.empty(2, 2)), TypeError,
                   same_text=False)
    raises_in_both(lambda m: m.linalg.matrix_exp(m.ones(2, 2), out=m.empty(2, 2)),
                   TypeError, same_text=False)


def test_svd_and_lu_take_out():
    def run(m):
        a = m.tensor([[3., 1.], [1., 2.], [0., 1.]])
        u, s, v = m.empty(0), m.empty(0), m.empty(0)
        res = m.svd(a, out=(u, s, v))
        assert res[1] is s
        lu, piv = m.empty(0), m.empty(0, dtype=m.int32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.lu(a[:2], out=(lu, piv))
        return s, lu, piv
    parity(run)
    raises_in_both(lambda m: m.svd(m.ones(2, 2), out=m.empty(2)), TypeError, same_text=False)


def test_where_and_special_take_out():
    def run(m):
        a, b = m.tensor([1., -2., 3.]), m.zeros(3)
        w = m.empty(0)
        assert m.where(a > 0, a, b, out=w) is w
        e = m.empty(0)
        assert m.special.expit(a, out=e) is e
        r = m.empty(0)
        m.special.erfcx(a, out=r)
        return w, e, r
    parity(run)
    raises_in_both(lambda m: m.where(m.ones(2) > 0, out=m.empty(2)), TypeError,
                   same_text=False)
    raises_in_both(lambda m: m.where(m.ones(2) > 0, m.ones(2), m.ones(2),
                                     out=m.empty(2, dtype=m.float64)), RuntimeError,
                   same_text=False)
    raises_in_both(lambda m: m.special.round(m.ones(2), out=m.empty(2, dtype=m.float64)),
                   RuntimeError)
    raises_in_both(lambda m: m.special.expit(m.ones(2), out=m.empty(2, dtype=m.int64)),
                   RuntimeError)


def test_normalize_takes_out():
    def run(m):
        out = m.empty(2, 2)
        r = m.nn.functional.normalize(m.tensor([[3., 4.], [1., 0.]]), out=out)
        assert r is out
        return out
    parity(run)
