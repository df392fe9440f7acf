"""``torchlike.onnx.errors``: the exporter's errors, as ``torch.onnx.errors``."""

from ._errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["OnnxExporterError", "UnsupportedOperatorError"]
