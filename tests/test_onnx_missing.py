"""Without the onnx package, torchlike.onnx.export says what to install (the rest of the
exporter's tests need onnx and ONNX Runtime and are skipped without them)."""

from __future__ import annotations

import sys

import pytest

import torchlike as tl


def test_export_without_onnx_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)   # import onnx raises ImportError
    with pytest.raises(ImportError, match="pip install onnx"):
        tl.onnx.export(tl.nn.Linear(2, 2), tl.randn(1, 2), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()
    assert not tl.onnx.is_in_onnx_export()
