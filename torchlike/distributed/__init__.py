"""``torchlike.distributed``: process groups and collectives over ``jax.distributed``;
mirrors ``torch.distributed`` (see Note [Collectives as programs over a one-row mesh] in
``_c10d.py``). ``DistributedDataParallel`` is in ``torchlike.nn.parallel``."""

from ._c10d import *  # noqa: F401,F403
from ._c10d import __all__  # noqa: F401
