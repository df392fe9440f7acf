"""nn.functional kernels: activation (declared as table ops or built from them)."""

__all__: list = []
