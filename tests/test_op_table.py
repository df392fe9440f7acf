"""Every public op in the table, run over its sample inputs and compared with PyTorch:
values, dtypes and shapes of the results, gradients w.r.t. floating-point inputs, and
the in-place variant. An op without samples fails here.

Which samples PyTorch rejects, and with which exception type, is also recorded in
``tests/data/op_table_errors.json``, so that without PyTorch torchlike is still held to
raising there and nowhere else. With PyTorch the record is checked against it; after
adding or changing samples, rewrite it with ``python -m tests.test_op_table --record``."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS

from ._parity import HAVE_TORCH, assert_same, check_gradient_shapes, convert, torch

PUBLIC = [s for s in OPS.values() if not s.name.startswith("_") and (s.function or s.method)]


def _cases():
    cases = []
    for spec in PUBLIC:
        samples = samples_of(spec)
        for i, smp in enumerate(samples):
            cases.append(pytest.param(spec, smp, f"{spec.name}-{i}", id=f"{spec.name}-{i}"))
    return cases


CASES = _cases()
ERRORS_FILE = pathlib.Path(__file__).parent / "data" / "op_table_errors.json"
_RECORD_HINT = "the record of PyTorch's errors is stale: python -m tests.test_op_table --record"


def _recorded() -> dict:
    if not ERRORS_FILE.exists():
        return {"forward": {}, "inplace": {}}
    return json.loads(ERRORS_FILE.read_text())


RECORDED = _recorded()


def _expect_error(out, kind: str, case_id: str) -> bool:
    """Without PyTorch: torchlike must raise where PyTorch's recorded run raised (the same
    exception type) and nowhere else. True when the sample is an error case."""
    expected = RECORDED[kind].get(case_id)
    if expected is None:
        if isinstance(out, Exception):
            raise out
        return False
    assert isinstance(out, Exception), f"PyTorch raises {expected}, torchlike returned {out!r}"
    assert expected in [c.__name__ for c in type(out).__mro__], \
        f"PyTorch raises {expected}; torchlike {type(out).__name__}: {out}"
    return True


def _check_record(ref, kind: str, case_id: str) -> None:
    """With PyTorch: the recorded error (or its absence) is what PyTorch does."""
    got = type(ref).__name__ if isinstance(ref, Exception) else None
    assert RECORDED[kind].get(case_id) == got, _RECORD_HINT


def test_every_public_op_has_samples():
    missing = [s.name for s in PUBLIC if not s.samples or not s.samples()]
    assert not missing, f"ops without sample inputs: {missing}"


def _call(fw_mod, spec, smp, args, kwargs):
    as_method = smp.method or not spec.function
    if as_method:
        name = spec.name if spec.method is True else spec.method
        return getattr(args[0], name)(*args[1:], **kwargs)
    name = spec.name if spec.function is True else spec.function
    return getattr(fw_mod, name)(*args, **kwargs)


def _run(fw, spec, smp, grad):
    leaves: list = []
    args = convert(smp.args, fw, grad, leaves)
    kwargs = convert(smp.kwargs, fw, grad, leaves)
    mod = tl if fw == "tl" else torch
    try:
        out = _call(mod, spec, smp, args, kwargs)
    except Exception as e:  # noqa: BLE001 - compared across frameworks below
        return e, leaves
    return out, leaves


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _outputs(x)]
    return [out]


@pytest.mark.parametrize("spec,smp,case_id", CASES)
def test_forward(spec, smp, case_id):
    out, _ = _run("tl", spec, smp, grad=False)
    if not HAVE_TORCH:
        _expect_error(out, "forward", case_id)
        return
    ref, _ = _run("torch", spec, smp, grad=False)
    _check_record(ref, "forward", case_id)
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"torch raised {ref!r}, torchlike returned {out!r}"
        assert type(out).__name__ == type(ref).__name__ or isinstance(out, type(ref)), \
            f"torch raised {type(ref).__name__}: {ref}; torchlike {type(out).__name__}: {out}"
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref, smp.rtol, smp.atol)


@pytest.mark.parametrize("spec,smp,case_id", [c for c in CASES if c.values[0].differentiable
                                              and c.values[1].grad])
def test_gradient(spec, smp, case_id):
    if not HAVE_TORCH:
        # torchlike's gradients still run: one per input, of the input's shape
        out, leaves = _run("tl", spec, smp, grad=True)
        if not _expect_error(out, "forward", case_id):
            check_gradient_shapes(_outputs(out), leaves)
        return
    ref, tleaves = _run("torch", spec, smp, grad=True)
    if isinstance(ref, Exception) or not tleaves:
        pytest.skip("no differentiable inputs")
    routs = [o for o in _outputs(ref) if isinstance(o, torch.Tensor) and o.requires_grad]
    if not routs:
        pytest.skip("output does not require grad")
    out, leaves = _run("tl", spec, smp, grad=True)
    if isinstance(out, Exception):
        raise out
    outs = [o for o in _outputs(out) if isinstance(o, tl.Tensor) and o.requires_grad]
    assert len(outs) == len(routs), "different number of differentiable outputs"
    rng = np.random.default_rng(0)
    weights = [rng.uniform(0.5, 1.5, tuple(o.shape)).astype(np.float64) for o in routs]
    rloss = sum((o.to(torch.float64) * torch.tensor(w)).sum() for o, w in zip(routs, weights))
    loss = sum((o.to(tl.float64) * tl.tensor(w)).sum() for o, w in zip(outs, weights))
    rgrads = torch.autograd.grad(rloss, tleaves, allow_unused=True)
    grads = tl.autograd.grad(loss, leaves, allow_unused=True)
    for i, (g, rg) in enumerate(zip(grads, rgrads)):
        if rg is None:
            assert g is None or np.allclose(np.asarray(g), 0), f"grad[{i}] should be None"
            continue
        assert g is not None, f"grad[{i}] is None, torch has one"
        assert_same(g, rg, max(smp.rtol, 1e-4), max(smp.atol, 1e-5), f"grad[{i}]")


INPLACE = [c for c in CASES if c.values[0].inplace and not c.values[1].method]


@pytest.mark.parametrize("spec,smp,case_id", INPLACE)
def test_inplace_variant(spec, smp, case_id):
    if not isinstance(smp.args[0], np.ndarray):
        pytest.skip("first argument is not a tensor")
    iname = spec.name + "_" if spec.inplace is True else spec.inplace

    def run(fw):
        args = convert(smp.args, fw)
        kwargs = convert(smp.kwargs, fw)
        target = args[0]
        try:
            res = getattr(target, iname)(*args[1:], **kwargs)
        except Exception as e:  # noqa: BLE001
            return e, target
        assert res is target, f"{iname} must return self"
        return res, target
    out, _ = run("tl")
    if not HAVE_TORCH:
        _expect_error(out, "inplace", case_id)
        return
    ref, _ = run("torch")
    _check_record(ref, "inplace", case_id)
    if isinstance(ref, Exception):
        assert isinstance(out, Exception), f"torch raised {ref!r} but torchlike did not"
        assert type(out).__name__ == type(ref).__name__, f"{type(out)} vs {type(ref)}: {ref}"
        return
    if isinstance(out, Exception):
        raise out
    assert_same(out, ref, smp.rtol, smp.atol)


def _record_errors() -> dict:
    """PyTorch's exception type per sample that it rejects (forward and in-place)."""
    rec: dict = {"forward": {}, "inplace": {}}
    for spec, smp, case_id in (c.values for c in CASES):
        ref, _ = _run("torch", spec, smp, grad=False)
        if isinstance(ref, Exception):
            rec["forward"][case_id] = type(ref).__name__
    for spec, smp, case_id in (c.values for c in INPLACE):
        if not isinstance(smp.args[0], np.ndarray):
            continue
        iname = spec.name + "_" if spec.inplace is True else spec.inplace
        args = convert(smp.args, "torch")
        kwargs = convert(smp.kwargs, "torch")
        try:
            getattr(args[0], iname)(*args[1:], **kwargs)
        except Exception as e:  # noqa: BLE001
            rec["inplace"][case_id] = type(e).__name__
    return rec


if __name__ == "__main__" and "--record" in sys.argv:
    if not HAVE_TORCH:
        raise SystemExit("recording PyTorch's errors needs PyTorch")
    ERRORS_FILE.parent.mkdir(exist_ok=True)
    ERRORS_FILE.write_text(json.dumps(_record_errors(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {ERRORS_FILE}")
