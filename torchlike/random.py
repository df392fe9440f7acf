"""``torchlike.random``: mirrors ``torch.random``, the default generator's seeding and
state functions (Note [RNG is state] in _core/random.py)."""

from __future__ import annotations

from ._core.random import (default_generator, fork_rng, get_rng_state,  # noqa: F401
                           initial_seed, manual_seed, seed, set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "thread_safe_generator"]


def thread_safe_generator():
    """Mirrors ``torch.random.thread_safe_generator``: the generator of the DataLoader
    thread worker it is called in, else None (use the default generator). torchlike's
    DataLoader workers are processes, as PyTorch's by default, so it is always None."""
    return None
