"""nn.functional kernels: dropout (declared as table ops or built from them)."""

__all__: list = []
