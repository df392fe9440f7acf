"""nn.functional kernels: normalization (declared as table ops or built from them)."""

__all__: list = []
