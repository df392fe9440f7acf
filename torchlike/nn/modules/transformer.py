"""nn layers: transformer."""

__all__: list = []
