"""nn layers: activation."""

__all__: list = []
