"""nn.functional kernels: linear (declared as table ops or built from them)."""

__all__: list = []
