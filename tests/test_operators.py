"""Python operators with tensors and scalars (``2 ** t``, ``1 - t``, ``5 // t``,
``t == None``, NumPy scalars), the whole-tensor predicates (``equal``, ``allclose``...),
complex helpers, custom in-place variants, and ``torchlike.special`` (whose
special-only functions the op-table harness does not reach), compared with PyTorch."""

from __future__ import annotations


import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.spec import OPS

from ._parity import HAVE_TORCH, assert_same, convert, outcome, torch


def skip_comparison():
    """After torchlike's half has run: without PyTorch, nothing is left to compare."""
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the comparison is skipped "
                    "(torchlike's half ran)")


_CHECK_INPUT = np.array([1.5, -2.0, 3.0], np.float32)


def check(fn, a=_CHECK_INPUT):
    """Run ``fn(x)`` with ``x`` a torchlike and (when installed) a PyTorch tensor made from
    ``a``, and compare the outcomes."""
    out = outcome(lambda: fn(tl.tensor(a)))
    if not HAVE_TORCH:
        return
    ref = outcome(lambda: fn(torch.tensor(a)))
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"torch raised {ref!r}, torchlike gave {out!r}"
        assert type(out).__name__ == type(ref).__name__, f"{out!r} vs torch {ref!r}"
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref)


FLOAT = np.array([1.5, -2.0, 3.0], np.float32)
INT = np.array([4, -6, 3])
BOOL = np.array([True, False, True])

SCALAR_EXPRS = [
    lambda t: 2 ** t, lambda t: 1 - t, lambda t: 5 // t, lambda t: 5 % t, lambda t: 5 / t,
    lambda t: 2.5 ** t, lambda t: 1.5 - t, lambda t: 7.0 // t, lambda t: 7.0 % t,
    lambda t: True - t, lambda t: 2 & t, lambda t: 2 | t, lambda t: 2 ^ t, lambda t: 2 << t,
    lambda t: 16 >> t, lambda t: t ** -1, lambda t: t ** 2.5, lambda t: t ** 0,
    lambda t: -t, lambda t: +t, lambda t: abs(t), lambda t: ~t, lambda t: t // 0,
    lambda t: t % 0, lambda t: t.float() / 0, lambda t: 1 + t, lambda t: 3 * t, lambda t: t - True,
    lambda t: t.__rsub__(1.5), lambda t: t.__rpow__(2), lambda t: t.__rtruediv__(1),
    lambda t: t.__rfloordiv__(5), lambda t: t.__rmod__(5),
    lambda t: np.float64(2) * t, lambda t: t * np.float64(2), lambda t: t + np.float32(2),
    lambda t: np.int64(2) * t, lambda t: t * np.int64(2),
    lambda t: t + 1j,
]


@pytest.mark.parametrize("data", [FLOAT, INT, BOOL], ids=["float", "int", "bool"])
@pytest.mark.parametrize("i", range(len(SCALAR_EXPRS)))
def test_scalar_operators(data, i):
    check(SCALAR_EXPRS[i], data)
    skip_comparison()


@pytest.mark.parametrize("expr", ["t == None", "t != None", "None == t", "t == 'a'",
                                  "t == [1, 2, 3]", "t < None", "t + None", "t + 'a'",
                                  "t + [1, 2]"])
def test_comparison_with_non_numbers(expr):
    check(lambda t: eval(expr, {"t": t}))
    skip_comparison()


def test_eq_with_none_is_python_bool():
    t = tl.tensor([1.0, 2.0])
    assert (t == None) is False  # noqa: E711 - the behaviour under test
    assert (t != None) is True  # noqa: E711
    assert t not in [None]


@pytest.mark.parametrize("case", ["in-place int += float", "in-place int *= float",
                                  "in-place float += complex", "in-place bool += int"])
def test_inplace_operator_errors(case):
    fns = {"in-place int += float": (INT, lambda t: t.__iadd__(1.5)),
           "in-place int *= float": (INT, lambda t: t.__imul__(0.5)),
           "in-place float += complex": (FLOAT, lambda t: t.__iadd__(1j)),
           "in-place bool += int": (BOOL, lambda t: t.__iadd__(2))}
    data, fn = fns[case]
    check(fn, data)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        fn(tl.tensor(data))


def test_inplace_float_error_text():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        tl.tensor([1, 2]).mul_(1.5)


# ---------------------------------------------------------------------------
# functions with special signatures or in-place rules
@pytest.mark.parametrize("fn", [
    lambda m, t: m.sub(t, t * 2, alpha=2), lambda m, t: m.add(t, 1, alpha=2),
    lambda m, t: m.true_divide(t, 2), lambda m, t: t.clone().true_divide_(2),
    lambda m, t: m.clamp(t, min=m.zeros(3), max=m.ones(3)), lambda m, t: t.clone().clip_(0, 1),
    lambda m, t: m.clip(t, -1, 1), lambda m, t: t.clone().clamp_(0.5),
    lambda m, t: m.relu(t), lambda m, t: m.relu_(t.clone()), lambda m, t: t.clone().relu_(),
    lambda m, t: t.clone().float_power_(2), lambda m, t: t.double().float_power_(2),
    lambda m, t: t.abs().polygamma_(1), lambda m, t: t.abs().polygamma(2),
    lambda m, t: m.polygamma(1, t.abs()), lambda m, t: t.clone().mvlgamma_(1),
    lambda m, t: m.frexp(t), lambda m, t: m.conj(t), lambda m, t: m.angle(t),
    lambda m, t: m.equal(t, t.clone()), lambda m, t: m.equal(t, t.double()),
    lambda m, t: m.equal(t, t[:2]), lambda m, t: m.allclose(t, t + 1e-9),
    lambda m, t: m.allclose(t, t.double()), lambda m, t: m.allclose(t, t + 1),
    lambda m, t: t.equal(t), lambda m, t: t.allclose(t),
    lambda m, t: m.is_nonzero(t[:1]), lambda m, t: m.is_nonzero(t),
    lambda m, t: m.numel(t), lambda m, t: m.is_floating_point(t), lambda m, t: m.is_complex(t),
    lambda m, t: m.real(t), lambda m, t: t.real, lambda m, t: m.imag(t),
    lambda m, t: m.atan2(t, 2), lambda m, t: t.clone().atan2_(t),
    lambda m, t: m.maximum(t, 1), lambda m, t: m.eq(2, t), lambda m, t: m.exp(2),
    lambda m, t: m.sign(t.bool()), lambda m, t: m.square(t.bool()),
    lambda m, t: t.clone().abs_(), lambda m, t: m.logical_and(t, t.bool()),
    lambda m, t: m.bitwise_and(t.bool(), True), lambda m, t: ~t.bool(),
])
@pytest.mark.parametrize("data", [FLOAT, INT, BOOL], ids=["float", "int", "bool"])
def test_functions(fn, data):
    out = outcome(lambda: fn(tl, tl.tensor(data)))
    skip_comparison()
    ref = outcome(lambda: fn(torch, torch.tensor(data)))
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"torch raised {ref!r}, torchlike gave {out!r}"
        assert type(out).__name__ == type(ref).__name__, f"{out!r} vs torch {ref!r}"
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref)


def test_predicates_return_python_values():
    t = tl.tensor([1.0, 2.0])
    assert tl.equal(t, t) is True and tl.allclose(t, t) is True
    assert tl.is_nonzero(tl.tensor([3])) is True and type(tl.numel(t)) is int


def test_real_of_real_tensor_is_itself_and_complex_parts():
    t = tl.tensor([1.0, 2.0])
    assert tl.real(t) is t and t.real is t and tl.conj(t) is t
    z = tl.tensor([1 + 2j, -3j])
    assert z.dtype is tl.complex64
    assert z.real.dtype is z.imag.dtype is abs(z).dtype is tl.float32
    assert z.real.tolist() == [1.0, 0.0] and z.imag.tolist() == [2.0, -3.0]
    assert tl.conj(z).dtype is tl.complex64 and tl.conj(z).tolist() == [1 - 2j, 3j]
    np.testing.assert_allclose(abs(z).tolist(), [5 ** 0.5, 3.0], rtol=1e-6)
    if HAVE_TORCH:
        assert_same(z.real, torch.tensor([1 + 2j, -3j]).real)
        assert_same(z.imag, torch.tensor([1 + 2j, -3j]).imag)
        assert_same(tl.conj(z), torch.conj(torch.tensor([1 + 2j, -3j])).resolve_conj())
        assert_same(abs(z), abs(torch.tensor([1 + 2j, -3j])))
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        _ = t.imag


def test_float_power_inplace_error_text():
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but "
                                           "the operation's result requires dtype Double"):
        tl.tensor([1.0]).float_power_(2)


# ---------------------------------------------------------------------------
# torchlike.special
SPECIAL_ONLY = sorted(s.extra["special"] for s in OPS.values() if "special" in s.extra)


def test_special_namespace_is_complete():
    missing = [n for n in tl.special.__all__ if not hasattr(tl.special, n)]
    assert not missing
    for n in tl.special.__all__:
        if HAVE_TORCH:
            assert hasattr(torch.special, n), n
        assert getattr(tl.special, n).__module__ == "torchlike.special"


def _special_cases():
    cases = []
    for name in SPECIAL_ONLY:
        spec = OPS["special_" + name]
        for i, smp in enumerate(spec.samples()):
            cases.append(pytest.param(name, smp, id=f"{name}-{i}"))
    return cases


@pytest.mark.parametrize("name,smp", _special_cases())
def test_special_only_functions(name, smp):
    """The op-table harness for the ``special_<name>`` ops: values, dtypes, gradients."""
    def run(fw):
        leaves: list = []
        mod = tl.special if fw == "tl" else torch.special
        args = convert(smp.args, fw, smp.grad, leaves)
        return outcome(lambda: getattr(mod, name)(*args, **smp.kwargs)), leaves
    out, leaves = run("tl")
    if not HAVE_TORCH:
        # torchlike's half, gradients included, still runs
        if isinstance(out, tl.Tensor) and smp.grad and leaves and out.requires_grad:
            tl.autograd.grad(out.sum(), leaves, allow_unused=True)
        skip_comparison()
    ref, rleaves = run("torch")
    if isinstance(ref, Exception):
        assert isinstance(out, Exception) and type(out).__name__ == type(ref).__name__
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref, smp.rtol, max(smp.atol, 1e-5))
    if smp.grad and rleaves and ref.requires_grad:
        rg = torch.autograd.grad(ref.sum(), rleaves, allow_unused=True)
        g = tl.autograd.grad(out.sum(), leaves, allow_unused=True)
        for a, b in zip(g, rg):
            if b is not None:
                assert_same(a, b, 1e-4, 1e-5)


ALIASES = ["expit", "logit", "erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "i0",
           "sinc", "round", "exp2", "expm1", "log1p"]


@pytest.mark.parametrize("name", ALIASES)
def test_special_aliases(name):
    a = np.array([0.3, 0.7, 1.5], np.float32)
    check(lambda t: getattr(tl.special if isinstance(t, tl.Tensor) else torch.special, name)(t),
          a)
    skip_comparison()


@pytest.mark.parametrize("name,args", [("xlogy", (2.0,)), ("multigammaln", (2,)),
                                       ("polygamma", (1,)), ("gammainc", ()),
                                       ("gammaincc", ())])
def test_special_multi_argument(name, args):
    a = np.array([2.3, 2.7, 3.5], np.float32)

    def fn(t):
        mod = tl.special if isinstance(t, tl.Tensor) else torch.special
        if name == "xlogy":
            return mod.xlogy(args[0], t)
        if name == "multigammaln":
            return mod.multigammaln(t, *args)
        if name == "polygamma":
            return mod.polygamma(args[0], t)
        return getattr(mod, name)(t, t * 0.5)
    check(fn, a)
    skip_comparison()
