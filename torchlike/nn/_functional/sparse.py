"""nn.functional kernels: sparse (declared as table ops or built from them)."""

__all__: list = []
