"""nn.functional kernels: rnn (declared as table ops or built from them)."""

__all__: list = []
