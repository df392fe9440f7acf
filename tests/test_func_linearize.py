"""torchlike.func.linearize, functionalize, replace_all_batch_norm_modules_ and
debug_unwrap against torch.func's."""

from __future__ import annotations

import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

FWS = ["tl", "torch"] if HAVE_TORCH else ["tl"]
X = np.array([0.5, -1.0, 2.0], np.float32)


def _lib(fw):
    return tl if fw == "tl" else torch


def test_linearize_matches_torch():
    out = {}
    for fw in FWS:
        lib = _lib(fw)
        x = lib.tensor(X)
        o1, f1 = lib.func.linearize(lambda a: a.sin() * a, x)
        o2, f2 = lib.func.linearize(lambda a, b: (a * b, a + b.exp()), x, x * 2)
        o3, f3 = lib.func.linearize(lambda d: d["a"].pow(3).sum(), {"a": x})
        t = lib.tensor([1.0, 0.5, -2.0])
        out[fw] = [o1, f1(t), f1(t * 3), *o2, *f2(t, lib.ones(3)), o3, f3({"a": t})]
    for i, got in enumerate(out["tl"]):
        assert isinstance(got, tl.Tensor)
        if HAVE_TORCH:
            np.testing.assert_allclose(got.numpy(), out["torch"][i].numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=str(i))
    # the JVP of sin(a) * a is (cos(a) * a + sin(a)) * t, and linear in t
    ref = (np.cos(X) * X + np.sin(X)) * np.array([1.0, 0.5, -2.0], np.float32)
    np.testing.assert_allclose(out["tl"][1].numpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(out["tl"][2].numpy(), 3 * ref, rtol=1e-5)


def test_linearize_random_ops_see_the_same_numbers():
    tl.manual_seed(0)
    x = tl.tensor(X)
    _, f = tl.func.linearize(lambda a: a * tl.rand(3), x)
    t = tl.ones(3)
    assert np.array_equal(f(t).numpy(), f(t).numpy())


@pytest.mark.parametrize("fw", FWS)
def test_linearize_errors(fw):
    lib = _lib(fw)
    x = lib.tensor(X)
    _, f = lib.func.linearize(lambda a, b: a * b, x, x)
    with pytest.raises(RuntimeError, match=r"tangent:0 with shape .*Size\(\[4\]\) in "
                                           r"flattened pytree doesn't match the shape"):
        f(lib.ones(4), lib.ones(3))
    with pytest.raises(RuntimeError, match=r"tangent:1 with dtype .*float64 in flattened "
                                           r"pytree doesn't match the dtype .*float32"):
        f(lib.ones(3), lib.ones(3, dtype=lib.float64))
    with pytest.raises(RuntimeError, match="Expected the tangents .* to have the same argspec "
                                           "as the primals"):
        f(lib.ones(3))
    with pytest.raises(AttributeError):
        lib.func.linearize(lambda a, b: a * b, x, 2.0)


@pytest.mark.parametrize("fw", FWS)
def test_functionalize_keeps_results_and_input_writes(fw):
    lib = _lib(fw)

    def f(x):
        y = x.view(-1)
        y.add_(1)
        return x * 2

    x = lib.zeros(2, 2)
    out = lib.func.functionalize(f)(x)
    assert out.tolist() == [[2.0, 2.0], [2.0, 2.0]] and x.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    out = lib.func.functionalize(f, remove="mutations_and_views")(x)
    assert out.tolist() == [[4.0, 4.0], [4.0, 4.0]]
    with pytest.raises(RuntimeError, match="received invalid argument for remove=views"):
        lib.func.functionalize(f, remove="views")


@pytest.mark.parametrize("fw", FWS)
def test_replace_all_batch_norm_modules_and_debug_unwrap(fw):
    lib = _lib(fw)
    m = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 2),
                          lib.nn.Sequential(lib.nn.BatchNorm2d(2)))
    assert lib.func.replace_all_batch_norm_modules_(m) is m
    for bn in (m[0], m[2][0]):
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and bn.track_running_stats is False
    assert sorted(m.state_dict()) == ["0.bias", "0.weight", "1.bias", "1.weight",
                                      "2.0.bias", "2.0.weight"]
    x = lib.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = m[0](x)     # normalised with the batch's own statistics, even in eval mode
    m.eval()
    assert np.allclose(m[0](x).detach().numpy(), y.detach().numpy())
    assert abs(float(y.detach().mean())) < 1e-5
    t = lib.ones(2)
    assert lib.func.debug_unwrap(t) is t and lib.func.debug_unwrap(t, recurse=False) is t
