"""Linear algebra beyond the generic op-table harness: parity of the ``torchlike.linalg``
namespace (values, and gradients through gauge-invariant functions for svd/eigh/qr/eig),
error paths with exception type and message text, ``LinAlgError``, and the seed notes'
``torch.dot`` / ``torch.mv`` / ``torch.mm`` examples."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.spec import OPS

from ._parity import (HAVE_TORCH, assert_same, check_gradient_shapes, convert, error_like_torch,
                      normalize_error, torch)

LINALG = [s for s in OPS.values() if "public" in s.extra]


def _fn(mod, public: str):
    obj = mod
    for part in public.split("."):
        obj = getattr(obj, part)
    return obj


def _cases():
    out = []
    for spec in LINALG:
        for i, smp in enumerate(spec.samples()):
            out.append(pytest.param(spec, smp, id=f"{spec.extra['public']}-{i}"))
    return out


CASES = _cases()


def test_every_linalg_op_has_samples():
    assert not [s.name for s in LINALG if not s.samples()]


def _run(fw, spec, smp, grad=False):
    leaves: list = []
    args = convert(smp.args, fw, grad, leaves)
    kwargs = convert(smp.kwargs, fw, grad, leaves)
    mod = tl if fw == "tl" else torch
    try:
        out = _fn(mod, spec.extra["public"])(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared across frameworks
        return e, leaves
    inv = spec.extra.get("invariant")
    if inv is not None:
        out = inv(*out)
    return out, leaves


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _flat(x)]
    return [out]


@pytest.mark.parametrize("spec,smp", CASES)
def test_linalg_forward(spec, smp):
    out, _ = _run("tl", spec, smp)
    if not HAVE_TORCH:
        if isinstance(out, Exception) and smp.grad:
            raise out
        return
    ref, _ = _run("torch", spec, smp)
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"torch raised {ref!r}, torchlike returned {out!r}"
        assert type(out).__name__ == type(ref).__name__, (out, ref)
        assert normalize_error(str(out)) == str(ref)
        return
    if isinstance(out, Exception):
        raise out
    tol = dict(rtol=max(smp.rtol, 1e-4), atol=max(smp.atol, 1e-4))
    if spec.extra.get("invariant") is None:
        assert_same(out, ref, **tol)
    else:
        for i, (a, b) in enumerate(zip(_flat(out), _flat(ref))):
            assert_same(a, b, path=f"invariant[{i}]", **tol)


@pytest.mark.parametrize("spec,smp", [c for c in CASES if c.values[0].differentiable
                                      and c.values[1].grad])
def test_linalg_gradient(spec, smp):
    if not HAVE_TORCH:
        # torchlike's gradients still run (a gradient sample does not raise, as in the
        # forward test): one per input, of the input's shape
        out, leaves = _run("tl", spec, smp, grad=True)
        if isinstance(out, Exception):
            raise out
        check_gradient_shapes(_flat(out), leaves)
        return
    ref, rleaves = _run("torch", spec, smp, grad=True)
    if isinstance(ref, Exception) or not rleaves:
        pytest.skip("no differentiable inputs")
    routs = [o for o in _flat(ref) if isinstance(o, torch.Tensor) and o.requires_grad]
    out, leaves = _run("tl", spec, smp, grad=True)
    if isinstance(out, Exception):
        raise out
    outs = [o for o in _flat(out) if isinstance(o, tl.Tensor) and o.requires_grad]
    assert len(outs) == len(routs)
    rng = np.random.default_rng(0)
    ws = [rng.uniform(0.5, 1.5, tuple(o.shape)) for o in routs]
    rloss = sum((o.real if o.is_complex() else o).to(torch.float64).mul(torch.tensor(w)).sum()
                for o, w in zip(routs, ws))
    loss = sum((o.real if o.is_complex() else o).to(tl.float64).mul(tl.tensor(w)).sum()
               for o, w in zip(outs, ws))
    rgrads = torch.autograd.grad(rloss, rleaves, allow_unused=True)
    grads = tl.autograd.grad(loss, leaves, allow_unused=True)
    for i, (g, rg) in enumerate(zip(grads, rgrads)):
        if rg is None:
            continue
        assert_same(g, rg, 2e-3, 2e-3, f"grad[{i}]")


# ---------------------------------------------------------------------------
# the seed notes: torch.dot (vector dot product), torch.mv, torch.mm
def test_seed_dot_mv_mm():
    v = tl.tensor([1.0, 2.0, 3.0])
    w = tl.tensor([4.0, 5.0, 6.0])
    assert tl.dot(v, w).item() == 32.0
    assert tl.dot(tl.tensor([2, 3]), tl.tensor([2, 1])).item() == 7
    m = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(np.asarray(tl.mv(m, v)), [14.0, 32.0])
    np.testing.assert_array_equal(np.asarray(tl.mm(m, m.t())), [[14.0, 32.0], [32.0, 77.0]])
    assert repr(tl.dot(v, w)) == "tensor(32.)"
    np.testing.assert_array_equal(np.asarray(m @ v), [14.0, 32.0])
    np.testing.assert_array_equal(np.asarray(v @ m.t()), [14.0, 32.0])
    if HAVE_TORCH:
        assert repr(torch.dot(torch.tensor([1.0, 2, 3]), torch.tensor([4.0, 5, 6]))) == \
            repr(tl.dot(v, w))


def test_linalg_namespace_aliases():
    a = tl.tensor([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(np.asarray(tl.linalg.det(a)), 5.0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tl.linalg.inv(a)), np.asarray(tl.inverse(a)))
    np.testing.assert_allclose(np.asarray(tl.linalg.matmul(a, a)), np.asarray(a @ a))
    np.testing.assert_allclose(np.asarray(tl.linalg.diagonal(a)), [2.0, 3.0])
    np.testing.assert_allclose(np.asarray(tl.linalg.matrix_exp(tl.zeros(2, 2))), np.eye(2))
    assert tl.linalg.svd(a).__class__.__name__ == "linalg_svd"
    assert tl.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert tl.ger is tl.outer
    assert a.det().item() == pytest.approx(5.0)


def test_integer_matmul_like_torch():
    a = tl.tensor([[1, 2], [3, 4]])
    out = a @ a
    assert out.dtype is tl.int64
    np.testing.assert_array_equal(np.asarray(out), [[7, 10], [15, 22]])
    if HAVE_TORCH:
        assert_same(out, torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1, 2], [3, 4]]))


def test_matmul_gradient_names():
    x = tl.ones(2, 3, requires_grad=True)
    assert tl.mm(x, tl.ones(3, 2)).grad_fn.name() == "MmBackward0"
    assert (x @ tl.ones(3)).grad_fn.name() == "MvBackward0"
    assert tl.dot(tl.ones(3, requires_grad=True), tl.ones(3)).grad_fn.name() == "DotBackward0"


def test_tensordot_tuple_of_lists():
    out = tl.tensordot(tl.ones(2, 3), tl.ones(3, 2), dims=([1, 0], [0, 1]))
    assert out.item() == 6.0


# ---------------------------------------------------------------------------
# errors, compared with torch
ERRORS = [
    lambda m: m.mm(m.randn(2, 3), m.randn(4, 5)),
    lambda m: m.matmul(m.randn(2, 3), m.randn(4, 5)),
    lambda m: m.randn(2, 3) @ m.randn(4, 5),
    lambda m: m.matmul(m.randn(3), m.randn(4)),
    lambda m: m.dot(m.randn(3), m.randn(4)),
    lambda m: m.dot(m.randn(3, 1), m.randn(3)),
    lambda m: m.dot(m.randn(3), m.randn(3).double()),
    lambda m: m.mm(m.randn(3, 3), m.randn(3, 3).double()),
    lambda m: m.mm(m.randn(3), m.randn(3, 3)),
    lambda m: m.mv(m.randn(2, 3), m.randn(4)),
    lambda m: m.mv(m.randn(2, 3), m.randn(4, 1)),
    lambda m: m.bmm(m.randn(2, 2, 3), m.randn(2, 4, 5)),
    lambda m: m.bmm(m.randn(2, 3), m.randn(3, 3, 5)),
    lambda m: m.matmul(m.randn(2, 2, 3), m.randn(2, 4, 5)),
    lambda m: m.matmul(m.randn(2, 2, 3), m.randn(3, 3, 5)),
    lambda m: m.matmul(m.tensor(1.0), m.randn(3)),
    lambda m: m.matmul(m.randn(3), m.randn(4, 5)),
    lambda m: m.matmul(m.randn(4, 5), m.randn(3)),
    lambda m: m.matmul(m.randn(2, 3, 4), m.randn(5, 6)),
    lambda m: m.matmul(m.randn(2, 3, 4), m.randn(5)),
    lambda m: m.matmul(m.randn(3, 4), m.randn(2, 5, 6)),
    lambda m: m.matmul(m.randn(4), m.randn(2, 5, 6)),
    lambda m: m.matmul(m.randn(2, 1, 3, 4), m.randn(5, 6, 7)),
    lambda m: m.mm(m.ones(2, 2, dtype=m.bool), m.ones(2, 2, dtype=m.bool)),
    lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.long)),
    lambda m: m.inverse(m.ones(2, 2, dtype=m.long)),
    lambda m: m.det(m.ones(2, 2, dtype=m.long)),
    lambda m: m.linalg.inv(m.tensor([[1.0, 2], [2, 4]])),
    lambda m: m.linalg.inv(m.tensor([[[1.0, 0], [0, 1]], [[1.0, 2], [2, 4]]])),
    lambda m: m.linalg.inv(m.randn(2, 3)),
    lambda m: m.linalg.inv(m.randn(3)),
    lambda m: m.linalg.solve(m.tensor([[1.0, 2], [2, 4]]), m.randn(2)),
    lambda m: m.linalg.solve(m.tensor([[[1.0, 0], [0, 1]], [[1.0, 2], [2, 4]]]), m.ones(2, 2)),
    lambda m: m.linalg.solve(m.randn(3, 3), m.randn(4)),
    lambda m: m.linalg.cholesky(m.tensor([[1.0, 2], [2, 1]])),
    lambda m: m.linalg.cholesky(m.tensor([[[1.0, 0], [0, 1]], [[1.0, 2], [2, 1]]])),
    lambda m: m.outer(m.randn(3, 1), m.randn(4)),
    lambda m: m.einsum("i,i->", m.randn(3), m.randn(3).double()),
    lambda m: m.einsum("ij,jk->ik", m.randn(2, 3), m.randn(4, 5)),
    lambda m: m.einsum("ij,jk->ik", m.randn(2, 3)),
    lambda m: m.tensordot(m.randn(2, 3), m.randn(4, 5), dims=1),
    lambda m: m.addmm(m.randn(2, 5), m.randn(2, 3), m.randn(4, 5)),
    lambda m: m.addmm(m.randn(3, 5), m.randn(2, 3), m.randn(3, 5)),
    lambda m: m.addmm(m.ones(2, 2, dtype=m.double), m.ones(2, 2), m.ones(2, 2)),
    lambda m: m.det(m.randn(2, 3)), lambda m: m.det(m.randn(3)),
    lambda m: m.matrix_power(m.ones(2, 2, dtype=m.long), -1),
    lambda m: m.matrix_power(m.ones(2, 3), 2),
    lambda m: m.matrix_exp(m.ones(2, 2, dtype=m.long)),
    lambda m: m.linalg.vector_norm(m.ones(3, dtype=m.long)),
    lambda m: m.linalg.norm(m.ones(3, dtype=m.long)),
    lambda m: m.linalg.matrix_norm(m.ones(3)),
    lambda m: m.linalg.matrix_norm(m.ones(3, 3), ord=3),
    lambda m: m.linalg.norm(m.ones(3, 3, 3), ord=2),
    lambda m: m.cdist(m.randn(3, 2), m.randn(4, 3)),
    lambda m: m.linalg.multi_dot([m.randn(2, 3)]),
    lambda m: m.linalg.svd(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.eigh(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.eigh(m.randn(3, 3), UPLO="X"),
    lambda m: m.linalg.qr(m.randn(3, 3), mode="x"),
    lambda m: m.linalg.cross(m.randn(4, 4), m.randn(4, 4)),
    lambda m: m.cross(m.randn(4, 4), m.randn(4, 4), dim=1),
    lambda m: m.linalg.vecdot(m.randn(3), m.randn(4)),
    lambda m: m.linalg.vecdot(m.ones(2, 3), m.ones(3, dtype=m.double)),
    lambda m: m.linalg.solve(m.ones(2, 2), m.ones(2, dtype=m.double)),
    lambda m: m.logdet(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.slogdet(m.ones(3, 3, dtype=m.long)),
    lambda m: m.pinverse(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.lstsq(m.ones(3, 3), m.ones(3, 1), driver="foo"),
    lambda m: m.linalg.cond(m.ones(2, 3), "fro"),
    lambda m: m.inner(m.ones(2, 3), m.ones(4, 2)),
    lambda m: m.linalg.solve_triangular(m.ones(3, 3), m.ones(2, 2), upper=True),
    lambda m: m.linalg.lu_factor(m.ones(3, 3, dtype=m.long)),
    lambda m: m.linalg.eig(m.ones(3, 3, dtype=m.long)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_like_torch(i):
    error_like_torch(ERRORS[i])


def test_linalg_error_type():
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    with pytest.raises(tl.linalg.LinAlgError, match="The diagonal element 2 is zero"):
        tl.linalg.inv(tl.tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(RuntimeError):
        tl.linalg.solve(tl.zeros(2, 2), tl.ones(2))
    info = tl.linalg.inv_ex(tl.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    assert info.item() == 2 and info.dtype is tl.int32
    assert tl.linalg.cholesky_ex(tl.tensor([[1.0, 2.0], [2.0, 1.0]])).info.item() == 2
