"""nn.functional kernels: conv (declared as table ops or built from them)."""

__all__: list = []
