"""Private implementations behind ``torchlike.nn.functional``."""
