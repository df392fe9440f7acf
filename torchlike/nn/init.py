"""``torchlike.nn.init``: in-place initialisers mirroring ``torch.nn.init``."""

__all__: list = []
