"""Compiling stateful PyTorch-style functions into XLA programs (``torchlike.compile``).

``state`` finds and flattens the mutable state a function reaches; ``compile`` traces,
caches and runs the program and writes the state back; ``module`` wraps a compiled
``nn.Module``; ``_tracing`` is what the rest of the library consults while tracing.
"""
