"""Writes through views whose elements share memory (``expand``, ``unfold``,
``as_strided`` with overlapping strides), against PyTorch: the write lands on the shared
element, and every view of the storage (the writing one included) reads it back."""

from __future__ import annotations

import numpy as np
import pytest

from ._parity import HAVE_TORCH, assert_same, both


def _expand_write(m, op):
    x = m.zeros(3)
    y = x.expand(2, 3)
    op(m, y)
    return x, y.clone()


WRITES = {
    "setitem_one": lambda m, y: y.__setitem__((0, 0), 5.0),
    "setitem_row": lambda m, y: y.__setitem__(1, m.tensor([1.0, 2.0, 3.0])),
    "fill_": lambda m, y: y.fill_(2.0),
    "zero_": lambda m, y: y.zero_(),
    "select_fill_": lambda m, y: y[1].fill_(4.0),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_write_through_an_expanded_view(name):
    (x, y), ref = both(lambda m: _expand_write(m, WRITES[name]))
    # every row of the expanded view is the base
    np.testing.assert_array_equal(y.numpy(), np.stack([x.numpy()] * 2))
    if HAVE_TORCH:
        assert_same((x, y), ref)


def test_write_through_an_unfolded_view():
    def run(m):
        x = m.arange(5.0)
        u = x.unfold(0, 2, 1)      # windows overlap: u[0, 1] is u[1, 0] is x[1]
        u[0, 1] = 99.0
        return x, u.clone()
    (x, u), ref = both(run)
    np.testing.assert_array_equal(x.numpy(), [0, 99, 2, 3, 4])
    assert u.numpy()[1, 0] == 99
    if HAVE_TORCH:
        assert_same((x, u), ref)


def test_write_of_an_unchanged_value_through_an_overlapping_view_keeps_it():
    def run(m):
        x = m.tensor([1.0, float("nan"), 3.0])
        y = x.expand(2, 3)
        y[1, 0] = 1.0              # the same value: nothing to see
        y[0, 2] = 4.0
        return x
    x, ref = both(run)
    np.testing.assert_array_equal(x.numpy(), [1, np.nan, 4])
    if HAVE_TORCH:
        assert_same(x, ref)
