"""``torchlike.nn.utils``."""
