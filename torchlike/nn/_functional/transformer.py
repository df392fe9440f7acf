"""nn.functional kernels: transformer (declared as table ops or built from them)."""

__all__: list = []
