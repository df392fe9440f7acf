"""nn layers: pixelshuffle."""

__all__: list = []
