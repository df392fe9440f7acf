"""Custom ``autograd.Function``: the seed's examples (Exp, LinearFunction in both styles,
MulConstant, MyCube, _GradReverseLayer) and every ctx feature, against PyTorch."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import torchlike as tl

from .._parity import HAVE_TORCH, assert_same, torch


def _defs(T):
    """The seed's Function subclasses, written once for framework module ``T``."""
    Function = T.autograd.Function
    once_differentiable = T.autograd.function.once_differentiable

    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    class LinearFunction(Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class LinearFunctionCtx(Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class MulConstant(Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            tensor, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class MulConstantLazy(Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            tensor, constant = inputs
            ctx.set_materialize_grads(False)
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            if grad_output is None:
                return None, None
            return grad_output * ctx.constant, None

    class MyCube(Function):
        @staticmethod
        def forward(x):
            dx = 3 * x ** 2
            result = x ** 3
            return result, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            result = grad_output * dx + grad_dx * 6 * x
            return result

    class _GradReverseLayer(Function):
        @staticmethod
        def forward(ctx, x, constant):
            assert isinstance(constant, int) and constant > 0
            ctx.constant = constant
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.neg() * ctx.constant, None

    class OnceExp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class SortLike(Function):   # a non-differentiable second output
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gidx):
            return g * 2

    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return dict(Exp=Exp, LinearFunction=LinearFunction, LinearFunctionCtx=LinearFunctionCtx,
                MulConstant=MulConstant, MulConstantLazy=MulConstantLazy, MyCube=MyCube,
                GradReverse=_GradReverseLayer, OnceExp=OnceExp, SortLike=SortLike,
                AddOneInplace=AddOneInplace)


F_TL = _defs(tl)
F_T = _defs(torch) if HAVE_TORCH else None
rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
W = rng.standard_normal((5, 4)).astype(np.float32)
B = rng.standard_normal(5).astype(np.float32)


def _both(fn):
    """torchlike's result, and PyTorch's where it is installed (else None)."""
    return fn(tl, F_TL), (fn(torch, F_T) if HAVE_TORCH else None)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got.detach()), want, rtol=rtol, atol=atol)


def _leaf(T, a, rg=True):
    return T.tensor(a, requires_grad=rg)


def test_exp():
    def run(T, F):
        x = _leaf(T, X)
        y = F["Exp"].apply(x)
        y.backward(T.ones_like(y))
        return y, x.grad, y.grad_fn.name(), type(y.grad_fn).__name__
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[:2], b[:2])
        assert a[2:] == b[2:]
    assert a[2:] == ("ExpBackward", "ExpBackward")
    _close(a[0], np.exp(X))
    _close(a[1], np.exp(X))


@pytest.mark.parametrize("name", ["LinearFunction", "LinearFunctionCtx"])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_function(name, with_bias):
    def run(T, F):
        x, w = _leaf(T, X), _leaf(T, W)
        b = _leaf(T, B) if with_bias else None
        linear = F[name].apply
        out = linear(x, w, b)
        (out * out).sum().backward()
        return out, x.grad, w.grad, (b.grad if with_bias else None), \
            len(out.grad_fn.next_functions)
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[:4], b[:4], rtol=1e-5, atol=1e-5)
        assert a[4] == b[4]
    out = X @ W.T + (B if with_bias else 0)
    _close(a[0], out, 1e-4, 1e-4)
    _close(a[1], 2 * out @ W, 1e-4, 1e-4)
    _close(a[2], 2 * out.T @ X, 1e-4, 1e-4)
    if with_bias:
        _close(a[3], 2 * out.sum(0), 1e-4, 1e-4)
    else:
        assert a[3] is None
    assert a[4] == (3 if with_bias else 2)   # an edge per tensor argument


def test_linear_function_needs_input_grad():
    def run(T, F):
        x, w, b = _leaf(T, X, False), _leaf(T, W), _leaf(T, B, False)
        seen = []

        class Spy(F["LinearFunctionCtx"]):
            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return F["LinearFunctionCtx"].backward(ctx, g)
        Spy.apply(x, w, b).sum().backward()
        return w.grad, x.grad, seen
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[:2], b[:2], rtol=1e-5, atol=1e-5)
        assert a[2] == b[2]
    assert a[2] == [(False, True, False)]
    _close(a[0], np.ones((3, 5), np.float32).T @ X, 1e-5, 1e-5)
    assert a[1] is None


@pytest.mark.parametrize("name", ["MulConstant", "MulConstantLazy"])
def test_mul_constant(name):
    def run(T, F):
        x = _leaf(T, X)
        y = F[name].apply(x, 2.5)
        y.sum().backward()
        return y, x.grad, [n is None for n, _ in y.grad_fn.next_functions]
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    _close(a[0], 2.5 * X)
    _close(a[1], np.full_like(X, 2.5))
    assert a[2] == [False]   # the constant is no tensor: no edge


def test_mul_constant_materialize_false_gets_none():
    def run(T, F):
        x = _leaf(T, X)
        y1 = F["MulConstantLazy"].apply(x, 2.0)
        z = F["SortLike"].apply(y1)[0]
        z.sum().backward()
        return x.grad
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    _close(a, np.full_like(X, 4.0))


def test_my_cube_first_and_second_order():
    def run(T, F):
        x = _leaf(T, X.astype(np.float64))
        result, dx = F["MyCube"].apply(x)
        g, = T.autograd.grad(result.sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        return result, dx, g, gg
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    x = X.astype(np.float64)
    for got, want in zip(a, (x ** 3, 3 * x ** 2, 3 * x ** 2, 6 * x)):
        _close(got, want, 1e-12, 1e-12)


def test_grad_reverse():
    def run(T, F):
        x = _leaf(T, X)
        y = F["GradReverse"].apply(x, 3)
        (y * y).sum().backward()
        return y, x.grad, y.grad_fn.name(), x.is_leaf, y.is_leaf
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[:2], b[:2])
        assert a[2:] == b[2:]
    _close(a[0], X)
    _close(a[1], -6 * X)
    assert a[2:] == ("_GradReverseLayerBackward", True, False)


def test_double_backward_through_function():
    def run(T, F):
        x = _leaf(T, X.astype(np.float64))
        y = F["Exp"].apply(x)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        gg, = T.autograd.grad((g * g).sum(), x)
        return g, gg
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    x = X.astype(np.float64)
    _close(a[0], np.exp(x), 1e-12, 1e-12)
    _close(a[1], 2 * np.exp(2 * x), 1e-12, 1e-12)


def test_once_differentiable():
    def run(T, F):
        x = _leaf(T, X.astype(np.float64))
        y = F["OnceExp"].apply(x)
        g, = T.autograd.grad((y * y).sum(), x, create_graph=True)
        try:
            g.sum().backward()
        except RuntimeError as e:
            return g, str(e)
        return g, None
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[0], b[0])
        assert a[1] == b[1]
    _close(a[0], 2 * np.exp(2 * X.astype(np.float64)), 1e-12, 1e-12)
    assert a[1] == ("trying to differentiate twice a function that was marked with "
                            "@once_differentiable")


def test_non_differentiable_output_and_mark_dirty():
    def run(T, F):
        x = _leaf(T, X)
        y, idx = F["SortLike"].apply(x)
        y.sum().backward()
        x2 = _leaf(T, X)
        z = x2 * 1
        w = F["AddOneInplace"].apply(z)
        (w * w).sum().backward()
        return y, idx, idx.requires_grad, x.grad, w is z, x2.grad, w.grad_fn.name()
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a, b)
    _close(a[0], 2 * X)
    np.testing.assert_array_equal(np.asarray(a[1]), (X > 0).astype(np.int64))
    assert a[1].dtype == tl.int64
    _close(a[3], np.full_like(X, 2.0))
    _close(a[5], 2 * (X + 1))
    assert (a[2], a[4], a[6]) == (False, True, "AddOneInplaceBackward")


def test_wrong_number_of_gradients_and_extra_nones():
    def run(T, F):
        class Extra(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, None, None

        class TooMany(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, g
        x = _leaf(T, X)
        Extra.apply(x).sum().backward()
        try:
            TooMany.apply(x).sum().backward()
        except RuntimeError as e:
            return x.grad, str(e)
    a, b = _both(run)
    if HAVE_TORCH:
        assert_same(a[0], b[0])
        assert a[1] == b[1]
    _close(a[0], np.full_like(X, 2.0))
    assert a[1] == ("function TooManyBackward returned an incorrect number of gradients "
                    "(expected 1, got 2)")


def test_saved_tensor_modified_raises():
    def run(T, F):
        x = _leaf(T, X)
        y = F["Exp"].apply(x)
        y.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return str(e).replace("torchlike", "torch")
    a, b = _both(run)
    if HAVE_TORCH:
        assert a == b
    assert a.startswith("one of the variables needed for gradient computation has been "
                        "modified by an inplace operation")
    assert "which is output 0 of Exp, is at version 1; expected version 0" in a


def test_traced_function_uses_user_backward():
    """Under jax.grad, the Function's own backward (not JAX's derivative of forward)."""
    class Weird(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 10 + x * 0

    def f(a):
        return Weird.apply(tl.Tensor._wrap(a)).sum()._value
    g = jax.grad(f)(jnp.ones(3))
    np.testing.assert_allclose(np.asarray(g), 10.0)
    g2 = jax.jit(jax.grad(f))(jnp.ones(3))
    np.testing.assert_allclose(np.asarray(g2), 10.0)
    # setup_context style under jit too
    def h(a):
        return F_TL["MulConstant"].apply(tl.Tensor._wrap(a), 3.0).sum()._value
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(h))(jnp.ones(2))), 3.0)


def test_gradcheck_on_seed_functions():
    x = tl.tensor(X.astype(np.float64), requires_grad=True)
    assert tl.autograd.gradcheck(F_TL["Exp"].apply, (x,))
    w = tl.tensor(W.astype(np.float64), requires_grad=True)
    b = tl.tensor(B.astype(np.float64), requires_grad=True)
    assert tl.autograd.gradcheck(F_TL["LinearFunction"].apply, (x, w, b))
    assert tl.autograd.gradgradcheck(F_TL["Exp"].apply, (x,))
