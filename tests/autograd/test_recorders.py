"""The generated recorders (Note [Generated recorders] in
torchlike/autograd/_recorders.py) build the same nodes as ``record_op``: over the op
table's samples, a call recorded by the generated code and the same call with every op
recorded by ``record_op`` give graphs whose nodes agree field by field (names, edges,
masks, saved inputs and versions, shapes kept by linear ops) and outputs with the same
autograd fields."""

from __future__ import annotations

import contextlib

import jax
import numpy as np
import pytest

import torchlike as tl
from torchlike._ops.samples import samples_of
from torchlike._ops.spec import OPS
from torchlike.autograd._recorders import fast_recorder
from torchlike.autograd.graph import AccumulateGrad, OpNode, record_op

from .._parity import convert, samples_per_op

PUBLIC = [s for s in OPS.values() if not s.name.startswith("_") and (s.function or s.method)
          and s.differentiable]


def _cases():
    out = []
    per_op = samples_per_op(1)
    for spec in PUBLIC:
        taken = 0
        for i, smp in enumerate(samples_of(spec)):
            if smp.grad and (per_op is None or taken < per_op):
                out.append(pytest.param(spec, smp, id=f"{spec.name}-{i}"))
                taken += 1
    return out


@contextlib.contextmanager
def _generic_recording():
    """Every op recorded by ``record_op`` (the generated recorders set aside)."""
    saved = {name: spec.extra.get("_fast_recorder") for name, spec in OPS.items()}
    for spec in OPS.values():
        spec.extra["_fast_recorder"] = record_op
    try:
        yield
    finally:
        for name, spec in OPS.items():
            if saved[name] is None:
                spec.extra.pop("_fast_recorder", None)
            else:
                spec.extra["_fast_recorder"] = saved[name]


def _call(spec, smp, args, kwargs):
    if smp.method or not spec.function:
        name = spec.name if spec.method is True else spec.method
        return getattr(args[0], name)(*args[1:], **kwargs)
    name = spec.name if spec.function is True else spec.function
    return getattr(tl, name)(*args, **kwargs)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _flat(x)]
    return [out]


def _same_value(a, b, path):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            _same_value(x, y, f"{path}[{k}]")
    elif isinstance(a, jax.Array):
        assert isinstance(b, jax.Array), path
        assert (a.shape, a.dtype) == (b.shape, b.dtype), path
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=path)
    elif isinstance(a, tl.Tensor):
        assert type(a) is type(b), path
        assert (a.shape, a.dtype, a.requires_grad) == (b.shape, b.dtype, b.requires_grad), path
    else:
        assert a == b, path


def _same_node(a, b, path, seen):
    assert type(a) is type(b), path
    if a is None or (id(a), id(b)) in seen:
        return
    seen.add((id(a), id(b)))
    assert a.name() == b.name(), path
    if isinstance(a, AccumulateGrad):
        assert a.variable is b.variable, path
        return
    assert isinstance(a, OpNode), path
    for f in ("_spec", "_statics", "_cast", "_mask", "_edge_pos", "_freed", "_nout",
              "_zavals", "_pre_hooks", "_hooks", "_tensor_pre_hooks", "_retain",
              "_metadata", "_anomaly"):
        assert getattr(a, f) == getattr(b, f), f"{path}.{f}"
    assert (a._vjp is None) == (b._vjp is None), path
    _same_value(a._dyn, b._dyn, f"{path}._dyn")
    _same_value(a._dyn_t, b._dyn_t, f"{path}._dyn_t")
    assert (a._saved is None) == (b._saved is None), f"{path}._saved"
    for k, (x, y) in enumerate(zip(a._saved or (), b._saved or ())):
        vc_a, v_a, dt_a, shape_a, owner_a, nr_a = x
        vc_b, v_b, dt_b, shape_b, owner_b, nr_b = y
        assert (vc_a.v, v_a, dt_a, shape_a, nr_a) == (vc_b.v, v_b, dt_b, shape_b, nr_b), \
            f"{path}._saved[{k}]"
        _same_value(owner_a, owner_b, f"{path}._saved[{k}].owner")
    assert len(a._saved or ()) == len(b._saved or ()), f"{path}._saved"
    assert len(a.next_functions) == len(b.next_functions), path
    for k, ((na, ia), (nb, ib)) in enumerate(zip(a.next_functions, b.next_functions)):
        assert ia == ib, f"{path}.next_functions[{k}]"
        _same_node(na, nb, f"{path}.next_functions[{k}]", seen)


@pytest.mark.parametrize("spec,smp", _cases())
def test_generated_recorder_builds_record_ops_nodes(spec, smp):
    leaves: list = []
    args = convert(smp.args, "tl", True, leaves)
    kwargs = convert(smp.kwargs, "tl", True, leaves)
    try:
        fast = _flat(_call(spec, smp, args, kwargs))
    except Exception as e:   # an error sample: the generic recording must raise it too
        with _generic_recording(), pytest.raises(type(e)):
            _call(spec, smp, args, kwargs)
        return
    with _generic_recording():
        generic = _flat(_call(spec, smp, args, kwargs))
    assert len(fast) == len(generic)
    for k, (a, b) in enumerate(zip(fast, generic)):
        if not isinstance(a, tl.Tensor):
            continue
        assert (a.requires_grad, a.is_leaf, a.output_nr if a.grad_fn else 0) == \
            (b.requires_grad, b.is_leaf, b.output_nr if b.grad_fn else 0), f"output {k}"
        _same_node(a.grad_fn, b.grad_fn, f"output {k}.grad_fn", set())


def test_generated_recorders_serve_the_common_ops():
    x = tl.ones(3, requires_grad=True)
    for out in (x * 2.0, x + x, x.exp(), x.sum(), x.matmul(x)):
        assert out.grad_fn is not None
    for name in ("mul", "add", "exp", "sum", "matmul"):
        rec = fast_recorder(OPS[name])
        assert rec is not record_op and rec.__name__ == f"record_{name}"


def test_generated_recorder_hands_tracers_to_record_op(monkeypatch):
    # (lists of tensors never reach it: the dispatcher's general path records them)
    calls = []

    def counting(*a):
        calls.append(a[0].name)
        return record_op(*a)
    monkeypatch.setitem(fast_recorder(OPS["mul"]).__globals__, "record_op", counting)
    x = tl.ones(3, requires_grad=True)
    (x * 2.0).sum().backward()
    assert calls == []

    def f(a):
        t = tl.from_jax(a).requires_grad_()
        return (t * t).sum().jax()
    jax.jit(f)(np.ones(3, np.float32))
    assert calls == ["mul"]
