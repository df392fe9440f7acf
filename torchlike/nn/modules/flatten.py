"""nn layers: flatten."""

__all__: list = []
