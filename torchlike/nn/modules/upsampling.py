"""nn layers: upsampling."""

__all__: list = []
