"""torchlike.autograd.forward_ad against torch.autograd.forward_ad: tangents of ops of
every family (also checked by finite differences, so they are tested without PyTorch),
views and in-place writes, custom Functions' jvp, the API's errors and reverse mode
through tangents."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as tlF

from .._parity import FWS, HAVE_TORCH, raises_in_both, torch

fwAD = tl.autograd.forward_ad
RNG = np.random.default_rng(0)


def _lib(fw):
    return tl if fw == "tl" else torch


def _np(t):
    if t is None:
        return None
    if HAVE_TORCH and isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach())


def _arr(*shape, positive=False):
    a = RNG.standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


def _run(fw, fn, prims, tans):
    """``fn(lib, *duals)`` in a dual level: per output, (primal, tangent) as arrays."""
    lib = _lib(fw)
    ad = lib.autograd.forward_ad
    with ad.dual_level():
        duals = [ad.make_dual(lib.tensor(p), lib.tensor(t)) for p, t in zip(prims, tans)]
        out = fn(lib, *duals)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        res = []
        for o in outs:
            p, t = ad.unpack_dual(o)
            assert type(p) is (tl.Tensor if fw == "tl" else torch.Tensor)
            assert t is None or type(t) is (tl.Tensor if fw == "tl" else torch.Tensor)
            res.append((_np(p), p.dtype, _np(t)))
    return res


def _finite_diff(fn, prims, tans, eps=1e-6):
    """Central differences of ``fn`` along the tangents (float64, no forward AD)."""
    def ev(s):
        out = fn(tl, *[tl.tensor(p + s * t) for p, t in zip(prims, tans)])
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [np.asarray(o).astype(np.float64) for o in outs]
    prev = tl.get_default_dtype()
    tl.set_default_dtype(tl.float64)   # tensors the function makes itself too
    try:
        return [(a - b) / (2 * eps) for a, b in zip(ev(eps), ev(-eps))]
    finally:
        tl.set_default_dtype(prev)


def _check(fn, shapes, positive=False, fd=True):
    prims = [_arr(*s, positive=positive) for s in shapes]
    tans = [_arr(*s) for s in shapes]
    got = _run("tl", fn, prims, tans)
    if fd:
        for (_, dt, t), d in zip(got, _finite_diff(fn, prims, tans)):
            if dt.is_floating_point:
                np.testing.assert_allclose(0 if t is None else t, d, rtol=1e-5, atol=1e-6)
    if HAVE_TORCH:
        ref = _run("torch", fn, prims, tans)
        assert len(got) == len(ref)
        for (p, dt, t), (rp, rdt, rt) in zip(got, ref):
            assert str(dt).split(".")[-1] == str(rdt).split(".")[-1]
            np.testing.assert_allclose(p, rp, rtol=1e-6, atol=1e-9)
            assert (t is None) == (rt is None), (t, rt)
            if t is not None:
                np.testing.assert_allclose(t, rt, rtol=1e-6, atol=1e-9)
    return got


IDX = np.array([2, 0, 2])
CASES = {
    # unary
    "sin": (lambda L, a: L.sin(a), [(3, 4)], False),
    "exp": (lambda L, a: a.exp(), [(3, 4)], False),
    "tanh": (lambda L, a: L.tanh(a), [(5,)], False),
    "sqrt": (lambda L, a: a.sqrt(), [(3, 4)], True),
    "log": (lambda L, a: L.log(a), [(4,)], True),
    "sigmoid": (lambda L, a: L.sigmoid(a), [(2, 3)], False),
    "relu": (lambda L, a: L.nn.functional.relu(a), [(3, 4)], False),
    "neg_abs": (lambda L, a: -a.abs(), [(3, 4)], False),
    # binary, with broadcasting and scalars
    "add_bcast": (lambda L, a, b: a + b, [(3, 4), (4,)], False),
    "mul_bcast": (lambda L, a, b: a * b, [(2, 1, 4), (3, 1)], False),
    "div": (lambda L, a, b: a / b, [(3, 4), (3, 4)], True),
    "sub_alpha": (lambda L, a, b: L.sub(a, b, alpha=2), [(3,), (3,)], False),
    "pow_scalar": (lambda L, a: a ** 3, [(4,)], False),
    "pow_tensor": (lambda L, a, b: L.pow(a, b), [(4,), (4,)], True),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(3, 4), (3, 4)], False),
    "atan2": (lambda L, a, b: L.atan2(a, b), [(5,), (5,)], False),
    "scalar_first": (lambda L, a: 2.0 - a * 3, [(3,)], False),
    # reductions with dim
    "sum_dim": (lambda L, a: a.sum(dim=1), [(3, 4)], False),
    "mean_keepdim": (lambda L, a: a.mean(0, keepdim=True), [(3, 4)], False),
    "prod": (lambda L, a: a.prod(), [(5,)], False),
    "var_dim": (lambda L, a: a.var(dim=0), [(4, 3)], False),
    "logsumexp": (lambda L, a: L.logsumexp(a, dim=-1), [(3, 4)], False),
    "norm": (lambda L, a: L.linalg.norm(a), [(3, 4)], False),
    "amax": (lambda L, a: a.amax(dim=1), [(3, 4)], False),
    "cumsum": (lambda L, a: a.cumsum(0), [(4, 2)], False),
    # matmul
    "matmul": (lambda L, a, b: a @ b, [(3, 4), (4, 2)], False),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 5)], False),
    "linear": (lambda L, a, w, b: L.nn.functional.linear(a, w, b), [(2, 3), (4, 3), (4,)],
               False),
    # indexing and views
    "getitem": (lambda L, a: a[1, 1:], [(3, 4)], False),
    "index_tensor": (lambda L, a: a[L.tensor(IDX)], [(3, 4)], False),
    "view_t_permute": (lambda L, a: (a.view(4, 3).t(), a.permute(1, 0),
                                     a.reshape(-1).unsqueeze(0)), [(3, 4)], False),
    "expand_narrow": (lambda L, a: (a.expand(2, 3, 4), a.narrow(1, 1, 2), a.diagonal()),
                      [(3, 4)], False),
    "gather": (lambda L, a: L.gather(a, 1, L.tensor([[0, 0], [1, 0], [3, 2]])), [(3, 4)],
               False),
    # joining
    "cat_stack": (lambda L, a, b: (L.cat([a, b], 0), L.stack([a, b], 1)), [(2, 3), (2, 3)],
                  False),
    # activations and masking
    "softmax": (lambda L, a: L.nn.functional.softmax(a, dim=1), [(3, 4)], False),
    "log_softmax": (lambda L, a: L.nn.functional.log_softmax(a, dim=0), [(3, 4)], False),
    "where": (lambda L, a, b: L.where(a > 0, a, b), [(3, 4), (3, 4)], False),
    "clamp": (lambda L, a: a.clamp(-0.5, 0.5), [(3, 4)], False),
    # several outputs
    "max_dim": (lambda L, a: a.max(dim=1), [(3, 4)], False),
    "sort": (lambda L, a: L.sort(a, dim=1, descending=True), [(3, 4)], False),
    "split": (lambda L, a: a.split([1, 2], dim=0), [(3, 4)], False),
    "unbind_chunk": (lambda L, a: (*a.unbind(1), *a.chunk(2, 0)), [(4, 2)], False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_tangents(name):
    fn, shapes, positive = CASES[name]
    _check(fn, shapes, positive)


def test_integer_outputs_and_inputs():
    """Integer and boolean results have no tangent; integer tensors are constants."""
    def fn(L, a):
        i = L.arange(4)
        return (a * i, i + a, a.argmax(1), a > 0, a.long(), a.max(1).indices,
                L.sort(a, 1).indices, a * L.tensor(2))
    got = _check(fn, [(3, 4)])
    assert [t is None for _, _, t in got] == [False, False, True, True, True, True, True,
                                              False]


def test_non_differentiable_results_have_no_tangent():
    def fn(L, a):
        return L.zeros_like(a), a.detach(), L.ones(3, 4).expand_as(a), a * 0, a.clone()
    got = _check(fn, [(3, 4)], fd=False)
    assert [t is None for _, _, t in got] == [True, True, True, False, False]


def _inplace_cases(L, a, b):
    c = a.clone()
    c.add_(b)                    # dual written in place
    c.mul_(2)
    x = L.zeros(3, 4)
    x.add_(a)                    # plain tensor written with a dual
    y = L.zeros(2, 3, 4)
    y[0] = b                     # setitem of a dual into a plain base
    v = y[1]
    v.copy_(a.sin())             # write through a view of the base
    z = a.clone()
    z[1, 2] = b[0, 0] * 5        # dual scalar into a dual
    w = b.clone()
    w.t_()                       # in-place view op on a dual
    r = a.clone()
    L.nn.functional.relu(r, inplace=True)
    return c, x, y, v, z, w, r


def test_inplace_tangents():
    _check(_inplace_cases, [(3, 4), (3, 4)])


def test_views_share_tangents():
    """A view's tangent is the view of the base's tangent: writes through either are
    seen by both, as in PyTorch."""
    out = {}
    for fw in FWS:
        L = _lib(fw)
        ad = L.autograd.forward_ad
        with ad.dual_level():
            y = ad.make_dual(L.ones(2, 3), L.arange(6.).view(2, 3))
            yt, yv = y.t(), y.view(6)
            yv.mul_(2)                    # through a view: base and other views see it
            y[0, 0] = ad.make_dual(L.tensor(7.), L.tensor(-1.))
            base = L.zeros(2, 2)
            early = base[1]               # a view made before the base has a tangent
            base[0] = ad.make_dual(L.ones(2), L.tensor([3., 4.]))
            res = [ad.unpack_dual(t) for t in (y, yt, yv, base, early, early * 2)]
            out[fw] = [(_np(p), _np(t)) for p, t in res]
            assert ad.unpack_dual(yt).tangent._base is not None
    if HAVE_TORCH:
        for (p, t), (rp, rt) in zip(out["tl"], out["torch"]):
            np.testing.assert_array_equal(p, rp)
            np.testing.assert_array_equal(t, rt)
    np.testing.assert_array_equal(out["tl"][0][1], [[-1, 2, 4], [6, 8, 10]])


def test_make_dual_and_unpack_dual():
    with fwAD.dual_level() as level:
        assert level == 0 and fwAD._current_level == 0
        x = tl.ones(3)
        t = tl.arange(3.)
        d = fwAD.make_dual(x, t)
        assert isinstance(d, tl.Tensor) and d._base is x
        assert fwAD.unpack_dual(x).tangent is None          # the input stays plain
        p, tan = fwAD.unpack_dual(d)
        assert tan is t and type(p) is tl.Tensor and p._base is x
        assert isinstance(fwAD.unpack_dual(d), fwAD.UnpackedDualTensor)
        assert fwAD.UnpackedDualTensor._fields == ("primal", "tangent")
        # a tangent of another layout is copied into the primal's
        tn = tl.arange(6.).view(3, 2).t()
        dn = fwAD.make_dual(tl.ones(2, 3), tn)
        tt = fwAD.unpack_dual(dn).tangent
        assert tt is not tn and tt.stride() == (3, 1)
        np.testing.assert_array_equal(np.asarray(tt), np.asarray(tn))
        assert fwAD.unpack_dual(d, level=1).tangent is None
        with fwAD._set_fwd_grad_enabled(False):
            assert not fwAD._is_fwd_grad_enabled()
            assert fwAD.unpack_dual(d * 2).tangent is None
            assert fwAD.unpack_dual(d).tangent is None
        assert fwAD._is_fwd_grad_enabled()
        with tl.no_grad():   # reverse mode's switch does not stop forward AD
            np.testing.assert_array_equal(np.asarray(fwAD.unpack_dual(d * 2).tangent),
                                          [0, 2, 4])
        y = d * 3
    # the level's tangents are dropped when it exits, and the tensors are plain again
    assert fwAD._current_level == -1
    p, tan = fwAD.unpack_dual(y)
    assert p is y and tan is None and type(y) is tl.Tensor and type(d) is tl.Tensor
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None and fwAD.unpack_dual(d).tangent is None


def test_dual_level_as_decorator():
    @fwAD.dual_level()
    def f(x):
        return fwAD._current_level, fwAD.unpack_dual(fwAD.make_dual(x, x) ** 2).tangent

    level, tan = f(tl.tensor([1., 2.]))
    assert level == 0 and fwAD._current_level == -1
    np.testing.assert_array_equal(np.asarray(tan), [2., 8.])
    if HAVE_TORCH:
        assert torch.autograd.forward_ad.dual_level()(lambda: 0)() == 0


def test_enter_exit_levels():
    assert fwAD.enter_dual_level() == 0
    if HAVE_TORCH:
        assert torch.autograd.forward_ad.enter_dual_level() == 0
    try:
        raises_in_both(lambda L: L.autograd.forward_ad.enter_dual_level(), RuntimeError)
        raises_in_both(lambda L: L.autograd.forward_ad.exit_dual_level(level=1), RuntimeError)
    finally:
        fwAD.exit_dual_level()
        if HAVE_TORCH:
            torch.autograd.forward_ad.exit_dual_level()
    raises_in_both(lambda L: L.autograd.forward_ad.exit_dual_level(), RuntimeError)
    assert fwAD._current_level == -1


def _in_level(fn):
    def call(L):
        with L.autograd.forward_ad.dual_level():
            fn(L, L.autograd.forward_ad)
    return call


def test_api_errors():
    raises_in_both(lambda L: L.autograd.forward_ad.make_dual(L.ones(2), L.ones(2)),
                   RuntimeError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.ones(2), L.ones(3))), RuntimeError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.ones(2), L.ones(1, 2))),
                   RuntimeError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.ones(2), L.ones(2).long())),
                   ValueError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.arange(2), L.ones(2))), ValueError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.ones(2), L.ones(2), level=1)),
                   RuntimeError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(ad.make_dual(L.ones(2), L.ones(2)),
                                                        L.ones(2))), RuntimeError)
    raises_in_both(_in_level(lambda L, ad: ad.make_dual(L.ones(2), ad.make_dual(
        L.ones(2), L.ones(2)))), RuntimeError)


def test_tangent_of_another_dtype():
    """Kept as given by make_dual; the ops' tangents have the primal's dtype here
    (PyTorch computes them in the tangent's: see the module docstring)."""
    with fwAD.dual_level():
        t = tl.ones(2, dtype=tl.float64)
        d = fwAD.make_dual(tl.ones(2), t)
        assert fwAD.unpack_dual(d).tangent is t
        np.testing.assert_array_equal(np.asarray(fwAD.unpack_dual(d * 2).tangent), [2., 2.])
        with pytest.raises(NotImplementedError, match="complex tangent"):
            fwAD.make_dual(tl.ones(2), tl.ones(2, dtype=tl.complex64))


def test_repr():
    out = {}
    for fw in FWS:
        L = _lib(fw)
        ad = L.autograd.forward_ad
        with ad.dual_level():
            a = L.ones(2, requires_grad=True)
            d = ad.make_dual(L.tensor([[1., 2.], [3., 4.]]), L.eye(2))
            out[fw] = [repr(ad.make_dual(L.ones(3), L.arange(3.))), repr(d), repr(d * 2),
                       repr(ad.make_dual(a, L.ones(2)))]
    if HAVE_TORCH:
        assert out["tl"] == out["torch"]
    assert out["tl"][0] == "tensor([1., 1., 1.], tangent=tensor([0., 1., 2.]))"


# ---------------------------------------------------------------------------
# custom Functions

def _functions(L):
    class MySin(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x.sin() * k

        @staticmethod
        def backward(ctx, g):
            return None, None

        @staticmethod
        def jvp(ctx, xt, kt):
            assert kt is None
            x, = ctx.saved_tensors
            return x.cos() * xt * ctx.k

    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g1, g2):
            return None, None

        @staticmethod
        def jvp(ctx, xt, yt):
            x, y = ctx.saved_tensors
            return xt * y + x * yt, xt + yt

    class NoJvp(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class BadJvp(NoJvp):
        @staticmethod
        def jvp(ctx, xt):
            return xt, xt

    return MySin, Two, NoJvp, BadJvp


def test_custom_function_jvp():
    def fn(L, a, b):
        MySin, Two, NoJvp, _ = _functions(L)
        return (MySin.apply(a, 3.0), *Two.apply(a, b), *Two.apply(a, L.ones(3)),
                NoJvp.apply(L.ones(3)))
    got = _check(fn, [(3,), (3,)])
    assert got[-1][2] is None      # no dual input: the Function runs as usual


def test_custom_function_errors():
    def no_jvp(L, ad):
        _, _, NoJvp, _ = _functions(L)
        NoJvp.apply(ad.make_dual(L.ones(2), L.ones(2)))

    def bad_jvp(L, ad):
        *_, BadJvp = _functions(L)
        BadJvp.apply(ad.make_dual(L.ones(2), L.ones(2)))

    raises_in_both(_in_level(no_jvp), NotImplementedError)
    raises_in_both(_in_level(bad_jvp), RuntimeError)


# ---------------------------------------------------------------------------
# modules

def _model(L):
    L.manual_seed(0)

    class Net(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = L.nn.Linear(4, 5)
            self.fc2 = L.nn.Linear(5, 3)

        def forward(self, x):
            return L.nn.functional.softmax(self.fc2(L.nn.functional.relu(self.fc1(x))), -1)

    return Net()


def _copy_params(src, dst):
    with torch.no_grad():
        for (_, p), (_, q) in zip(src.named_parameters(), dst.named_parameters()):
            q.copy_(torch.tensor(np.asarray(p.detach())))


def test_module_on_dual_inputs_and_dual_parameters():
    x = _arr(2, 4).astype(np.float32)
    xt = _arr(2, 4).astype(np.float32)
    ptan = {n: _arr(*p.shape).astype(np.float32) for n, p in _model(tl).named_parameters()}
    out = {}
    for fw in FWS:
        L = _lib(fw)
        ad = L.autograd.forward_ad
        model = _model(L)
        if fw == "torch":
            _copy_params(_model(tl), model)
        with ad.dual_level():
            y = model(ad.make_dual(L.tensor(x), L.tensor(xt)))
            # the forward-AD tutorial's way of making the parameters dual
            params = {n: ad.make_dual(p, L.tensor(ptan[n])) for n, p in
                      model.named_parameters()}
            z = L.func.functional_call(model, params, (L.tensor(x),))
            res = [ad.unpack_dual(y), ad.unpack_dual(z)]
            assert res[0].tangent is not None and res[1].tangent is not None
            out[fw] = [(_np(p), _np(t)) for p, t in res]
        # the parameters themselves stay plain
        assert all(type(p) is L.nn.Parameter for p in model.parameters())
    if HAVE_TORCH:
        for (p, t), (rp, rt) in zip(out["tl"], out["torch"]):
            np.testing.assert_allclose(p, rp, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(t, rt, rtol=1e-5, atol=1e-6)
    # by finite differences along the input's tangent, in float64
    m64 = _model(tl).double()
    eps = 1e-6
    x64, xt64 = x.astype(np.float64), xt.astype(np.float64)
    fd = (np.asarray(m64(tl.tensor(x64 + eps * xt64)).detach())
          - np.asarray(m64(tl.tensor(x64 - eps * xt64)).detach())) / (2 * eps)
    np.testing.assert_allclose(out["tl"][0][1], fd, rtol=1e-3, atol=1e-5)


# ---------------------------------------------------------------------------
# with reverse mode

def test_backward_through_tangent():
    x = _arr(3)
    v = _arr(3)
    grads = {}
    for fw in FWS:
        L = _lib(fw)
        ad = L.autograd.forward_ad
        p = L.tensor(x, requires_grad=True)
        t = L.tensor(v, requires_grad=True)
        with ad.dual_level():
            d = ad.make_dual(p, t)
            y = (d.sin() * d).sum()
            primal, tangent = ad.unpack_dual(y)
            assert primal.requires_grad and tangent.requires_grad
            (tangent * 2 + primal).backward()
        grads[fw] = (_np(p.grad), _np(t.grad))
    # d/dx [2 (cos x * x + sin x) v + sin x * x]
    want_p = 2 * (-np.sin(x) * x + 2 * np.cos(x)) * v + np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(grads["tl"][0], want_p, rtol=1e-10)
    np.testing.assert_allclose(grads["tl"][1], 2 * (np.cos(x) * x + np.sin(x)), rtol=1e-10)
    if HAVE_TORCH:
        np.testing.assert_allclose(grads["tl"][0], grads["torch"][0], rtol=1e-10)
        np.testing.assert_allclose(grads["tl"][1], grads["torch"][1], rtol=1e-10)


def test_random_ops_use_the_primal_draw():
    """An op that draws random numbers gets the tangent of the same draw."""
    with fwAD.dual_level():
        d = fwAD.make_dual(tl.ones(1000), tl.ones(1000))
        y = tlF.dropout(d, 0.5)
        p, t = fwAD.unpack_dual(y)
        np.testing.assert_array_equal(np.asarray(t), np.asarray(p))


def test_tutorial_module_attributes_and_function():
    """PyTorch's forward-AD tutorial: a module's parameters replaced by dual tensors
    with delattr/setattr, and a Function whose jvp uses what forward kept on ctx."""
    x = _arr(16, 5).astype(np.float32)
    w = _arr(5, 5).astype(np.float32)
    wt, bt = _arr(5, 5).astype(np.float32), _arr(5).astype(np.float32)
    out = {}
    for fw in FWS:
        L = _lib(fw)
        ad = L.autograd.forward_ad

        class Fn(L.autograd.Function):
            @staticmethod
            def forward(ctx, foo):
                result = L.exp(foo)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx, gI):
                gO = gI * ctx.result
                del ctx.result
                return gO

        model = L.nn.Linear(5, 5)
        with L.no_grad():
            model.weight.copy_(L.tensor(w))
            model.bias.zero_()
        tangents = {"weight": L.tensor(wt), "bias": L.tensor(bt)}
        with ad.dual_level():
            for name, p in list(model.named_parameters()):
                delattr(model, name)
                setattr(model, name, ad.make_dual(p, tangents[name]))
            y = Fn.apply(model(L.tensor(x)))
            out[fw] = [_np(t) for t in ad.unpack_dual(y)]
    want_primal = np.exp(x @ w.T)
    np.testing.assert_allclose(out["tl"][0], want_primal, rtol=1e-5)
    np.testing.assert_allclose(out["tl"][1], (x @ wt.T + bt) * want_primal, rtol=1e-4,
                               atol=1e-5)
    if HAVE_TORCH:
        np.testing.assert_allclose(out["tl"][1], out["torch"][1], rtol=1e-5, atol=1e-5)


def test_copies_are_plain():
    import copy
    import pickle
    with fwAD.dual_level():
        d = fwAD.make_dual(tl.tensor([1., 2.]), tl.tensor([3., 4.]))
        for c in (copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
            assert type(c) is tl.Tensor and fwAD.unpack_dual(c).tangent is None
            np.testing.assert_array_equal(np.asarray(c), [1., 2.])
        if HAVE_TORCH:
            with torch.autograd.forward_ad.dual_level():
                td = torch.autograd.forward_ad.make_dual(torch.ones(2), torch.ones(2))
                assert torch.autograd.forward_ad.unpack_dual(copy.deepcopy(td)).tangent is None


def test_cache_reuses_compiled_tangents():
    """A repeated call compiles its tangent function once."""
    from torchlike.autograd import _dual
    with fwAD.dual_level():
        d = fwAD.make_dual(tl.ones(7, 3), tl.ones(7, 3))
        d.sin()
        n = len(_dual._CACHE)
        for _ in range(3):
            np.testing.assert_allclose(np.asarray(fwAD.unpack_dual(d.sin()).tangent),
                                       np.cos(np.ones((7, 3))), rtol=1e-6)
        assert len(_dual._CACHE) == n


def test_zero_derivatives_and_unsupported_ops():
    """floor/sign/round have zero tangents (PyTorch's zero formulas), not none; an op
    whose tangent needs a dual input's values while traced raises NotImplementedError,
    as PyTorch does for ops without a forward formula."""
    got = _check(lambda L, a: (a.floor(), a.sign(), L.round(a), a.ceil_()), [(3, 4)],
                 fd=False)
    for _, _, t in got:
        assert t is not None and not t.any()
    raises_in_both(_in_level(lambda L, ad: L.unique(ad.make_dual(L.ones(3), L.ones(3)))),
                   NotImplementedError, same_text=False)
