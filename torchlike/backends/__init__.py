"""``torchlike.backends``: what PyTorch reports about its compute libraries, answered for
the JAX/XLA backends torchlike runs on."""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
