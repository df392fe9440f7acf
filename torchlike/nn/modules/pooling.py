"""nn layers: pooling."""

__all__: list = []
