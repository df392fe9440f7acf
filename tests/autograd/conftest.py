"""Fixtures shared by the autograd tests."""

from __future__ import annotations

import pytest

from torchlike.autograd import _fusion


@pytest.fixture
def fuse_after(monkeypatch):
    """``fuse_after(n)``: the engine compiles a fused backward on a graph's n-th sighting
    (Note [Fused backward]), starting from empty tables; undone after the test."""
    def set_threshold(n: int) -> None:
        monkeypatch.setattr(_fusion, "_FUSE_AFTER", n)
        monkeypatch.setattr(_fusion, "_sightings", {})
        monkeypatch.setattr(_fusion, "_fused", {})
    return set_threshold


@pytest.fixture
def fuse_early(fuse_after):
    """Compile a program on its second sighting, with fresh tables (the fused backward's
    tests use it for every test: ``pytestmark = pytest.mark.usefixtures("fuse_early")``)."""
    fuse_after(2)
