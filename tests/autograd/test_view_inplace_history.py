"""Views and in-place writes against PyTorch: a view whose base (or a sibling view) was
written in place after it was made gets its history anew when its ``grad_fn`` is read or
it is used (an ``AsStridedBackward0`` of the base's current history); an in-place write
to a view of a leaf that requires grad raises; ``retain_grad()`` follows the tensor's
new value after an in-place op. Each case runs in torchlike and, where PyTorch is
installed, in PyTorch too; the values asserted below are PyTorch's, so torchlike is
checked without it as well."""

from __future__ import annotations

import pytest

from .test_engine import err
from .test_parity_fixes import parity

VIEW_LEAF = ("RuntimeError", "a view of a leaf Variable that requires grad is being used in "
             "an in-place operation.")
LEAF = ("RuntimeError", "a leaf Variable that requires grad is being used in an in-place "
        "operation.")


def name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def test_base_written_after_view():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[:2]
        y.mul_(3)
        names = [name(v), v.grad_fn.next_functions[0][0].name()]
        v.sum().backward()
        return names, x.grad.tolist()
    assert parity(run) == (["AsStridedBackward0", "MulBackward0"], [6., 6., 0.])


def test_sibling_view_written():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[:2]
        y[1:].mul_(10)
        n = name(v)
        v.sum().backward()
        return n, x.grad.tolist()
    assert parity(run) == ("AsStridedBackward0", [2., 20., 0.])


def test_whole_view_and_base_add():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y.view(3)
        y.add_(x * x)
        n = name(v)
        v.sum().backward()
        return n, x.grad.tolist()
    assert parity(run) == ("AsStridedBackward0", [4., 6., 8.])


def test_views_of_views_and_chains():
    def run(torch):
        x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
        y = x * 2
        v = y.view(2, 2)
        w = v[1]
        t = v.t()
        v[0].mul_(5)
        names = [name(v), name(w), name(t)]
        u = t[0]             # a view of a stale view, made after the write
        (w.sum() + t.sum() * 3 + u.sum() * 7).backward()
        return names, name(u), x.grad.tolist()
    assert parity(run) == (["AsStridedBackward0"] * 3, "SelectBackward0",
                           [100., 30., 22., 8.])


def test_stale_view_used_without_reading_grad_fn():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[1:]
        y.mul_(x)
        (v * v).sum().backward()
        return x.grad.tolist()
    assert parity(run) == [0., 128., 432.]


def test_stale_view_backward_and_stable_node():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[:2]
        y.exp_()
        assert v.grad_fn is v.grad_fn     # made once per write
        v.backward(torch.ones(2))
        return x.grad.tolist()
    out = parity(run)
    assert out[2] == 0.


def test_base_written_under_no_grad():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[:2]
        with torch.no_grad():
            y.mul_(3)
        n = name(v)
        v.sum().backward()
        return n, x.grad.tolist()
    assert parity(run) == ("AsStridedBackward0", [2., 2., 0.])


def test_stale_view_written_in_place():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        v = y[:2]
        y.mul_(3)
        v.mul_(x[:2])
        n = name(v)
        (v.sum() + y.sum()).backward()
        return n, x.grad.tolist()
    assert parity(run) == ("AsStridedBackward0", [24., 48., 6.])


def test_base_gains_history():
    def run(torch):
        y = torch.zeros(3)
        v = y[:2]
        x = torch.ones(3, requires_grad=True)
        y.add_(x)
        return v.requires_grad, name(v)
    assert parity(run) == (True, "AsStridedBackward0")


def test_view_of_base_that_gains_history_is_recorded():
    """The view is used by an op before anything reads its ``requires_grad`` or
    ``grad_fn``: the op must be recorded (Note [Views of a base that gains history])."""
    def run(torch):
        a = torch.ones(4, requires_grad=True)
        b = torch.zeros(4)
        v = b[:2]
        w = b.view(2, 2).t()
        b.copy_(a * 2)
        out = (v * 3).sum() + (w @ w).sum()
        out.backward()
        return out.requires_grad, name(out), a.grad.tolist()
    assert parity(run) == (True, "AddBackward0", [22., 22., 16., 16.])


def test_sibling_view_write_gives_base_history():
    def run(torch):
        a = torch.tensor([1., 2.], requires_grad=True)
        b = torch.zeros(4)
        v = b[:2]
        w = v[1:]        # a view of a view: its base is ``b`` too
        u = b[2:]
        v.copy_(a * a)
        out = (w * 5).sum() + (u + 1).sum()
        out.backward()
        return [w.requires_grad, u.requires_grad, b.requires_grad], a.grad.tolist()
    assert parity(run) == ([True, True, True], [0., 20.])


def test_views_of_detached_alias_stay_without_history():
    def run(torch):
        a = torch.ones(4, requires_grad=True)
        b = torch.zeros(4)
        d = b.detach()
        dv = d[:2]
        b.copy_(a)
        return dv.requires_grad, (dv * 2).requires_grad, d.requires_grad
    assert parity(run) == (False, False, False)


def test_integer_base_views_never_tracked():
    def run(torch):
        b = torch.zeros(4, dtype=torch.int64)
        v = b[:2]
        b.add_(torch.ones(4, requires_grad=True).long())
        return v.requires_grad, (v + 1).requires_grad
    assert parity(run) == (False, False)


def test_view_version_bump_without_history_keeps_leaf():
    def run(torch):
        y = torch.zeros(3)
        v = y[:2]
        y.add_(1)
        return v.requires_grad, name(v), v.is_leaf
    assert parity(run) == (False, None, True)


def test_retain_grad_then_inplace():
    def run(torch):
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        return y.grad.tolist(), x.grad.tolist()
    assert parity(run) == ([12., 24., 36.], [72., 144., 216.])


def test_retain_grad_view_then_inplace():
    def run(torch):
        out = []
        for write_view in (False, True):
            x = torch.tensor([1., 2., 3.], requires_grad=True)
            y = x * 2
            v = y[:2]
            v.retain_grad()
            if write_view:
                v.mul_(3)
            else:
                y.mul_(3)
            (v * v).sum().backward()
            out.append((v.grad.tolist(), x.grad.tolist()))
        return out
    assert parity(run) == [([12., 24.], [72., 144., 0.])] * 2


@pytest.mark.parametrize("case", [
    "linear_fill", "view_mul", "select_zero", "slice_add", "slice_copy", "slice_relu"])
def test_inplace_on_view_of_leaf_raises(case):
    def run(torch):
        x = torch.ones(3, requires_grad=True)
        f = {"linear_fill": lambda: torch.nn.Linear(2, 2).weight[0].fill_(0.),
             "view_mul": lambda: x.view(3).mul_(2),
             "select_zero": lambda: x[0].zero_(),
             "slice_add": lambda: x[:2].add_(torch.ones(2)),
             "slice_copy": lambda: x[:2].copy_(torch.ones(2)),
             "slice_relu": lambda: x[:2].relu_()}[case]
        return err(f), x.is_leaf, x.grad_fn is None
    assert parity(run) == (VIEW_LEAF, True, True)


def test_inplace_on_leaf_raises():
    def run(torch):
        x = torch.ones(3, requires_grad=True)
        return err(lambda: x.mul_(2)), err(lambda: x.__setitem__([0], 1.))
    assert parity(run) == (LEAF, LEAF)


def test_inplace_on_view_of_leaf_allowed():
    def run(torch):
        m = torch.nn.Linear(2, 2)
        with torch.no_grad():
            m.weight[0].fill_(0.)
        w = m.weight
        w.data[1].fill_(1.)
        w.detach()[:, 1].fill_(2.)
        x = torch.ones(3, requires_grad=True)
        with torch.no_grad():
            x[:2].mul_(3)
        y = torch.ones(3)
        y[:2].mul_(x[:2])      # a view of a leaf that does not require grad
        return (w.tolist(), w.is_leaf, x.tolist(), x.is_leaf, y.requires_grad)
    assert parity(run) == ([[0., 2.], [1., 2.]], True, [3., 3., 1.], True, True)


NO_GRAD_REBASED = ("RuntimeError", "A view was created in no_grad mode and its base or "
                   "another view of its base has been modified inplace with grad mode enabled.")
NO_GRAD_WRITTEN = ("RuntimeError", "A view was created in no_grad mode and is being "
                   "modified inplace with grad mode enabled.")


def _no_grad_view_cases(torch):
    def base_gains_history():
        a = torch.ones(4, requires_grad=True)
        b = torch.zeros(4)
        with torch.no_grad():
            v = b[:2]
        b.copy_(a * 2)
        return v * 3

    def base_with_history_written():
        a = torch.ones(4, requires_grad=True)
        b = a * 1
        with torch.no_grad():
            v = b[:2]
        b.mul_(2)
        return v * 3

    def written_under_no_grad_then_used():
        a = torch.ones(4, requires_grad=True)
        b = a * 1
        with torch.no_grad():
            v = b[:2]
            b.mul_(2)
        return v.grad_fn

    def view_written_with_history():
        a = torch.ones(2, requires_grad=True)
        b = torch.zeros(4)
        with torch.no_grad():
            v = b[:2]
        v.copy_(a)

    def view_of_history_written():
        a = torch.ones(4, requires_grad=True)
        b = a * 1
        with torch.no_grad():
            v = b[:2]
        v.mul_(2)

    return {"base_gains_history": (base_gains_history, NO_GRAD_REBASED),
            "base_with_history_written": (base_with_history_written, NO_GRAD_REBASED),
            "written_under_no_grad": (written_under_no_grad_then_used, NO_GRAD_REBASED),
            "view_written_with_history": (view_written_with_history, NO_GRAD_WRITTEN),
            "view_of_history_written": (view_of_history_written, NO_GRAD_WRITTEN)}


@pytest.mark.parametrize("case", list(_no_grad_view_cases(None)))
def test_view_made_under_no_grad_refuses_history(case):
    """Note [Views made under no_grad] (torchlike/autograd/inplace.py)."""
    def run(torch):
        fn, _ = _no_grad_view_cases(torch)[case]
        return err(fn)
    got = parity(run)
    assert got[0] == _no_grad_view_cases(None)[case][1][0]
    assert got[1].startswith(_no_grad_view_cases(None)[case][1][1])


def test_view_made_under_no_grad_allowed_uses():
    def run(torch):
        out = []
        b = torch.zeros(4)                       # no history anywhere: allowed
        with torch.no_grad():
            v = b[:2]
        b.add_(1)
        v.mul_(2)
        out.append(((v * 3).requires_grad, v.tolist()))
        a = torch.ones(4, requires_grad=True)    # written under no_grad: no history
        b = torch.zeros(4)
        with torch.no_grad():
            v = b[:2]
            b.copy_(a * 2)
        out.append(((v * 3).requires_grad, v.tolist()))
        b = a * 1                                # requires grad like its base
        with torch.no_grad():
            v = b[:2]
        out.append((v.requires_grad, v.grad_fn is None, v.is_leaf, (v * 3).requires_grad))
        return out
    assert parity(run) == [(False, [2.0, 2.0]), (False, [2.0, 2.0]),
                           (True, True, True, True)]
