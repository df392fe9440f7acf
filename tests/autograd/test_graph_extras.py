"""``torch.autograd.graph``'s other names (``register_multi_grad_hook``,
``GradientEdge``/``get_gradient_edge``, ``increment_version``, ``Node``'s methods) and
``torch.utils.hooks``, against PyTorch."""

from __future__ import annotations

import pickle
import warnings
from collections import OrderedDict

import pytest

import torchlike as tl

from .._parity import FWS, HAVE_TORCH, equal_in_both, error_of, fw_module, torch

fws = pytest.mark.parametrize("fw", FWS)


def _vals(t):
    return None if t is None else [round(float(v), 5) for v in t.detach().reshape(-1)]


# ---------------------------------------------------------------------------
# register_multi_grad_hook
def _multi_all(T):
    G = T.autograd.graph
    a = T.tensor([1., 2., 3.], requires_grad=True)
    b = T.tensor([4., 5., 6.], requires_grad=True)
    c = a * b
    d = a * b
    seen = []
    h = G.register_multi_grad_hook((a, b, c, d),
                                   lambda gs: seen.append([_vals(g) for g in gs]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    seen.append(error_of(lambda: T.autograd.grad((c * d).sum(), (a, b), retain_graph=True)))
    h.remove()
    e = c * 2       # non-leaves only: autograd.grad may ask about them
    h2 = G.register_multi_grad_hook((c, e), lambda gs: seen.append([_vals(g) for g in gs]))
    T.autograd.grad((e * d).sum(), (a,), retain_graph=True)
    h2.remove()
    c.sum().backward(retain_graph=True)
    return seen


def test_multi_grad_hook_all():
    seen = equal_in_both(_multi_all)
    assert seen[0] == [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], None]
    assert seen[1][1] is None and "A leaf node" in seen[2][1] and len(seen) == 4


def _multi_any(T):
    G = T.autograd.graph
    a = T.tensor([1., 2.], requires_grad=True)
    b = T.tensor([3., 4.], requires_grad=True)
    n = T.tensor([1., 1.])          # does not require grad: left out
    seen = []
    h = G.register_multi_grad_hook((a, b, n), lambda g: seen.append(_vals(g)), mode="any")
    (a * 2 + b * 3).sum().backward()
    (a * 5).sum().backward()
    with h:
        pass
    (a * 7 + b).sum().backward()
    return seen


def test_multi_grad_hook_any():
    seen = equal_in_both(_multi_any)
    assert len(seen) == 2 and seen[1] == [5.0, 5.0]


@fws
def test_multi_grad_hook_bad_mode(fw):
    T = fw_module(fw)
    a = T.ones(2, requires_grad=True)
    err = error_of(lambda: T.autograd.graph.register_multi_grad_hook((a,), print,
                                                                     mode="some"))
    assert err == ("ValueError",
                   "Expects mode to be one of ('all', 'any') but got some")


# ---------------------------------------------------------------------------
# GradientEdge
def _edges(T):
    G = T.autograd.graph
    x = T.tensor([1., 2., 3.], requires_grad=True)
    y = x * 2
    z = y.exp()
    e = G.get_gradient_edge(y)
    ex = G.get_gradient_edge(x)
    # (PyTorch names a leaf's node "torch::autograd::AccumulateGrad")
    out = [e.node.name(), e.output_nr, e.ownership_token,
           ex.node.name().replace("torch::autograd::", ""),
           isinstance(e, tuple), e.node is y.grad_fn]
    gy, gx = T.autograd.grad(z.sum(), [e, x], retain_graph=True)
    out += [_vals(gy), _vals(gx)]
    out.append(_vals(T.autograd.grad(z.sum(), ex, retain_graph=True)[0]))
    # an output given as an edge, with its gradient
    out.append(_vals(T.autograd.grad(G.get_gradient_edge(z), x,
                                     grad_outputs=T.ones(3))[0]))
    w = T.tensor([1., -1.], requires_grad=True)
    (w * 3).sum().backward(inputs=[G.get_gradient_edge(w)])
    out.append(_vals(w.grad))
    v = T.tensor([2., 2.], requires_grad=True)
    u = v * 4
    T.autograd.backward([G.get_gradient_edge(u)], grad_tensors=[T.ones(2)])
    out.append(_vals(v.grad))
    out.append(error_of(lambda: G.get_gradient_edge(T.ones(2))))
    unused = T.ones(2, requires_grad=True)
    out.append(T.autograd.grad((v * 2).sum(), [G.get_gradient_edge(unused)],
                               allow_unused=True))
    out.append(error_of(lambda: T.autograd.grad((v * 2).sum(), [G.get_gradient_edge(unused)],
                                              materialize_grads=True)))
    return out


def test_gradient_edge():
    out = equal_in_both(_edges)
    assert out[0] == "MulBackward0" and out[3] == "AccumulateGrad"
    assert out[10] == [3.0, 3.0] and out[11] == [4.0, 4.0]


def test_accumulate_grad_names():
    """A leaf's node is named ``torch::autograd::AccumulateGrad``; its class and repr say
    ``AccumulateGrad``."""
    def names(T):
        x = T.ones(2, requires_grad=True)
        node = (x * 2).grad_fn.next_functions[0][0]
        return node.name(), type(node).__name__, repr(node).split(" object at ")[0]
    assert equal_in_both(names) == ("torch::autograd::AccumulateGrad", "AccumulateGrad",
                               "<AccumulateGrad")


def test_gradient_edge_output_needs_gradient():
    x = tl.ones(3, requires_grad=True)
    e = tl.autograd.graph.get_gradient_edge((x * 2).sum())
    with pytest.raises(RuntimeError, match="needs its gradient in grad_outputs"):
        tl.autograd.grad(e, x)


# ---------------------------------------------------------------------------
# increment_version
def _versions(T):
    G = T.autograd.graph
    t = T.ones(2)
    out = [t._version]
    G.increment_version(t)
    out.append(t._version)
    G.increment_version([t, t])
    out.append(t._version)
    out.append(error_of(lambda: G.increment_version(3)))
    x = T.tensor([1., 2.], requires_grad=True)
    a = x * 1
    y = a.sin()
    G.increment_version(a)
    out.append(error_of(lambda: y.sum().backward()))
    with T.inference_mode():
        i = T.ones(2)
    G.increment_version(i)
    return out


def test_increment_version():
    out = equal_in_both(_versions)
    assert out[:3] == [0, 1, 3]
    assert "modified by an inplace operation" in out[4][1]


# ---------------------------------------------------------------------------
# Node
def _node_api(T):
    x = T.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    n = y.grad_fn
    seen = []
    h1 = n.register_prehook(lambda go: seen.append(("pre", _vals(go[0]))))
    h2 = n.register_hook(lambda gi, go: seen.append(("post", _vals(gi[0]))))
    n.metadata["k"] = 1
    y.sum().backward(retain_graph=True)
    h1.remove()
    h2.remove()
    y.sum().backward()
    return [n.name(), n.metadata, isinstance(n, T.autograd.graph.Node),
            n.next_functions[0][0].name().replace("torch::autograd::", ""), seen,
            type(h1).__name__]


def test_node_api():
    out = equal_in_both(_node_api)
    assert out[4] == [("pre", [1.0, 1.0]), ("post", [2.71828, 7.38906])]


def test_node_public_names():
    names = {"name", "metadata", "register_hook", "register_prehook", "next_functions"}
    assert names <= set(dir(tl.autograd.graph.Node))
    if HAVE_TORCH:
        assert names <= set(dir(torch.autograd.graph.Node))
        mine = set(tl.autograd.graph.__all__)
        assert {"saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
                "register_multi_grad_hook", "Node", "GradientEdge", "get_gradient_edge",
                "increment_version", "allow_mutation_on_saved_tensors"} <= \
            mine & set(torch.autograd.graph.__all__)


# ---------------------------------------------------------------------------
# torch.utils.hooks
def _handles(T):
    H = T.utils.hooks
    d = OrderedDict()
    extra = OrderedDict()
    h = H.RemovableHandle(d, extra_dict=extra)
    d[h.id] = "f"
    extra[h.id] = "g"
    out = [h.hooks_dict_ref() is d, len(h.extra_dict_ref)]
    with h as same:
        out.append(same is h)
    out += [len(d), len(extra)]
    h2 = H.RemovableHandle(d, extra_dict=[extra, OrderedDict()])
    out.append(len(h2.extra_dict_ref))
    out.append(h2.id > h.id)
    out.append(error_of(lambda: H.RemovableHandle({})))
    # pickled with its dict; unpickling moves next_id past its id
    h3 = H.RemovableHandle(d)
    d[h3.id] = 1
    state = h3.__getstate__()
    out.append((state[0] is d, state[1] == h3.id, state[2]))
    h4 = pickle.loads(pickle.dumps(h3))
    out.append((h4.id == h3.id, h4.hooks_dict_ref() is None))
    fresh = H.RemovableHandle.__new__(H.RemovableHandle)
    fresh.__setstate__((d, 10 ** 6))
    out.append(H.RemovableHandle.next_id > 10 ** 6)
    fresh.remove()
    return out


def test_removable_handle():
    out = equal_in_both(_handles)
    assert out[:5] == [True, 1, True, 0, 0]


def test_one_handle_class():
    Handle = tl.utils.hooks.RemovableHandle
    x = tl.ones(2, requires_grad=True)
    y = x * 2
    m = tl.nn.Linear(2, 2)
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    handles = [x.register_hook(lambda g: g), y.register_hook(lambda g: g),
               y.grad_fn.register_hook(lambda gi, go: None),
               y.grad_fn.register_prehook(lambda go: None),
               x.register_post_accumulate_grad_hook(lambda t: None),
               m.register_forward_hook(lambda *a: None),
               m.register_full_backward_hook(lambda *a: None),
               opt.register_step_pre_hook(lambda *a: None),
               tl.autograd.graph.register_multi_grad_hook((x,), print)]
    assert all(isinstance(h, Handle) for h in handles)
    assert tl.autograd.graph.RemovableHandle is Handle
    assert tl.nn.modules.module.RemovableHandle is Handle
    for h in handles:
        h.remove()
    assert not x._hooks and not m._forward_hooks


def _serial_warnings(T):
    H = T.utils.hooks
    x = T.ones(2, requires_grad=True)

    def plain(g):
        return g

    x.register_hook(plain)
    x.register_hook(H.unserializable_hook(lambda g: g))
    y = x * 2
    y.register_hook(plain)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        H.warn_if_has_hooks(x)
        H.warn_if_has_hooks(y)
        H.warn_if_has_hooks(T.ones(2))
    return [str(m.message).split(" on tensor")[1] for m in w], \
        H.unserializable_hook(plain) is plain


def test_unserializable_hook_and_warnings():
    msgs, same = equal_in_both(_serial_warnings)
    assert len(msgs) == 2 and same
