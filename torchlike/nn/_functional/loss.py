"""nn.functional kernels: loss (declared as table ops or built from them)."""

__all__: list = []
