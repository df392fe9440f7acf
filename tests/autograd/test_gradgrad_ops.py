"""Second-order parity over the op table: for every differentiable op, the gradient of
(a weighted sum of) the first-order gradients w.r.t. the inputs, against PyTorch's
double backward. Each op runs its first differentiable sample here (every sample runs
first order in test_op_table.py); set TORCHLIKE_ALL_SAMPLES=1 to run all of them."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS

from .._parity import HAVE_TORCH, assert_same, convert, samples_per_op, torch

PUBLIC = [s for s in OPS.values() if not s.name.startswith("_") and (s.function or s.method)
          and s.differentiable]


def _cases():
    per_op = samples_per_op(1)
    out = []
    for spec in PUBLIC:
        taken = 0
        for i, smp in enumerate(samples_of(spec)):
            if smp.grad and (per_op is None or taken < per_op):
                out.append(pytest.param(spec, smp, id=f"{spec.name}-{i}"))
                taken += 1
    return out


def _to64(x):
    if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float16):
        return x.astype(np.float64)
    if isinstance(x, (list, tuple)):
        return type(x)(_to64(y) for y in x)
    if isinstance(x, dict):
        return {k: _to64(v) for k, v in x.items()}
    return x


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _outputs(x)]
    return [out]


def _run(fw, spec, smp):
    mod = tl if fw == "tl" else torch
    leaves: list = []
    args = convert(_to64(smp.args), fw, True, leaves)
    kwargs = convert(_to64(smp.kwargs), fw, True, leaves)
    as_method = smp.method or not spec.function
    if as_method:
        name = spec.name if spec.method is True else spec.method
        out = getattr(args[0], name)(*args[1:], **kwargs)
    else:
        name = spec.name if spec.function is True else spec.function
        out = getattr(mod, name)(*args, **kwargs)
    Tcls = tl.Tensor if fw == "tl" else torch.Tensor
    outs = [o for o in _outputs(out) if isinstance(o, Tcls) and o.requires_grad
            and not o.is_complex()]
    leaves = [l for l in leaves if not l.is_complex()]
    if not outs or not leaves:
        return None
    rng = np.random.default_rng(1)
    loss = sum((o * mod.tensor(rng.uniform(0.5, 1.5, tuple(o.shape)), dtype=o.dtype)).sum()
               for o in outs)
    g1 = mod.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    terms = [(g * g).sum() for g in g1 if g is not None and g.requires_grad]
    if not terms:
        return g1, None
    g2 = mod.autograd.grad(sum(terms), leaves, allow_unused=True)
    return g1, g2


@pytest.mark.skipif(not HAVE_TORCH, reason="second-order parity needs PyTorch")
@pytest.mark.parametrize("spec,smp", _cases())
def test_gradgrad(spec, smp):
    try:
        ref = _run("torch", spec, smp)
    except Exception:  # noqa: BLE001 - torch rejects the sample: nothing to compare
        pytest.skip("torch rejects this sample")
    if ref is None:
        pytest.skip("no differentiable real output")
    got = _run("tl", spec, smp)
    g1, g2 = got
    r1, r2 = ref
    # Note [Which double-backward results require grad] (a gradient PyTorch leaves None
    # may be zeros here, as checked below)
    assert ([None if b is None else a.requires_grad for a, b in zip(g1, r1)]
            == [None if b is None else b.requires_grad for b in r1]), "requires_grad"
    for i, (a, b) in enumerate(zip(g1, r1)):
        if b is None:
            assert a is None or np.allclose(np.asarray(a.detach()), 0), f"grad[{i}]"
            continue
        assert_same(a, b, 1e-6, 1e-8, f"grad[{i}]")
    if r2 is None:
        return
    assert g2 is not None, "torchlike has no second-order graph, torch has"
    for i, (a, b) in enumerate(zip(g2, r2)):
        if b is None:
            assert a is None or np.allclose(np.asarray(a), 0), f"gradgrad[{i}]"
            continue
        assert a is not None, f"gradgrad[{i}] is None, torch has one"
        assert_same(a, b, 1e-6, 1e-8, f"gradgrad[{i}]")
