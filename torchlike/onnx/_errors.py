"""The exporter's errors, as ``torch.onnx.errors`` names them."""

from __future__ import annotations

__all__ = ["OnnxExporterError", "UnsupportedOperatorError"]


class OnnxExporterError(RuntimeError):
    """Mirrors ``torch.onnx.errors.OnnxExporterError``: the model cannot be exported."""


class UnsupportedOperatorError(OnnxExporterError):
    """Mirrors ``torch.onnx.errors.UnsupportedOperatorError``: the forward uses an
    operation the exporter cannot write as ONNX."""
