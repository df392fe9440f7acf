"""nn layers: fold."""

__all__: list = []
