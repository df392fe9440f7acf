"""Layer parity: build the PyTorch module and the torchlike one, copy the weights
through ``state_dict`` (the keys must match one to one), then compare outputs and the
gradients w.r.t. inputs and parameters."""

from __future__ import annotations

import numpy as np

import torchlike as tl

from .._parity import HAVE_TORCH, assert_same, torch


def copy_state(tl_mod, torch_mod) -> None:
    """Load ``torch_mod``'s state_dict into ``tl_mod``; keys must match exactly."""
    tsd = torch_mod.state_dict()
    lsd = tl_mod.state_dict()
    assert list(lsd.keys()) == list(tsd.keys()), \
        f"state_dict keys differ:\n torchlike {list(lsd.keys())}\n torch     {list(tsd.keys())}"
    new = {}
    for k, v in tsd.items():
        a = v.detach().cpu()
        if a.dtype == torch.bfloat16:
            a = a.float()
        new[k] = tl.tensor(a.numpy()).to(getattr(tl, str(v.dtype).split(".")[-1]))
    tl_mod.load_state_dict(new)


def check_module(tl_mod, torch_mod, inputs, *, train: bool = True, rtol=1e-5, atol=1e-5,
                 grad: bool = True, call=None):
    """Run both modules on the same ``inputs`` (NumPy arrays or other values), compare
    outputs, then backprop a fixed random weighting of the outputs and compare the
    gradients of float inputs and of every parameter. Returns the torchlike outputs."""
    if not HAVE_TORCH:
        return _run_torchlike_only(tl_mod, inputs, train=train, grad=grad, call=call)
    copy_state(tl_mod, torch_mod)
    tl_mod.train(train)
    torch_mod.train(train)
    tl_in, t_in = [], []
    for x in inputs:
        if isinstance(x, np.ndarray):
            rg = grad and np.issubdtype(x.dtype, np.floating)
            tl_in.append(tl.tensor(x).requires_grad_(rg))
            t_in.append(torch.tensor(x).requires_grad_(rg))
        else:
            tl_in.append(x)
            t_in.append(x)
    f = call or (lambda m, *a: m(*a))
    out = f(tl_mod, *tl_in)
    ref = f(torch_mod, *t_in)
    assert_same(out, ref, rtol, atol, "output")
    if grad:
        outs = [o for o in _flat(out) if isinstance(o, tl.Tensor) and o.requires_grad]
        refs = [o for o in _flat(ref) if isinstance(o, torch.Tensor) and o.requires_grad]
        assert len(outs) == len(refs)
        if refs:
            rng = np.random.default_rng(0)
            ws = [rng.uniform(0.5, 1.5, tuple(o.shape)) for o in refs]
            sum((o.double() * torch.tensor(w)).sum() for o, w in zip(refs, ws)).backward()
            sum((o.double() * tl.tensor(w)).sum() for o, w in zip(outs, ws)).backward()
            for i, (a, b) in enumerate(zip(tl_in, t_in)):
                if isinstance(b, torch.Tensor) and b.requires_grad:
                    assert_same(a.grad, b.grad, rtol * 10, atol * 10, f"input[{i}].grad")
            tparams = dict(torch_mod.named_parameters())
            for name, p in tl_mod.named_parameters():
                tp = tparams[name]
                if tp.grad is None:
                    assert p.grad is None, f"{name}.grad should be None"
                else:
                    assert_same(p.grad, tp.grad, rtol * 10, atol * 10, f"{name}.grad")
    return out


def _run_torchlike_only(tl_mod, inputs, *, train, grad, call):
    """Without PyTorch: run the torchlike module alone, forward and (with ``grad``) the
    same weighted backward as ``check_module``, and check every gradient it gives has the
    shape and dtype of its input or parameter."""
    tl_mod.train(train)
    tl_in = []
    for x in inputs:
        if isinstance(x, np.ndarray):
            rg = grad and np.issubdtype(x.dtype, np.floating)
            tl_in.append(tl.tensor(x).requires_grad_(rg))
        else:
            tl_in.append(x)
    out = (call or (lambda m, *a: m(*a)))(tl_mod, *tl_in)
    if grad:
        outs = [o for o in _flat(out) if isinstance(o, tl.Tensor) and o.requires_grad]
        if outs:
            rng = np.random.default_rng(0)
            ws = [rng.uniform(0.5, 1.5, tuple(o.shape)) for o in outs]
            sum((o.double() * tl.tensor(w)).sum() for o, w in zip(outs, ws)).backward()
            named = [(f"input[{i}]", a) for i, a in enumerate(tl_in)
                     if isinstance(a, tl.Tensor) and a.requires_grad]
            for name, a in named + list(tl_mod.named_parameters()):
                if a.grad is not None:
                    assert tuple(a.grad.shape) == tuple(a.shape), f"{name}.grad shape"
                    assert a.grad.dtype == a.dtype, f"{name}.grad dtype"
    return out


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for z in x for y in _flat(z)]
    return [x]
