"""``torchlike.nn.functional``: the functional forms of the layers (re-exports only).

Mirrors ``torch.nn.functional``; each name is implemented in ``nn/_functional/``.
"""

from ._functional.activation import *  # noqa: F401,F403
from ._functional.conv import *  # noqa: F401,F403
from ._functional.dropout import *  # noqa: F401,F403
from ._functional.fractional import *  # noqa: F401,F403
from ._functional.linear import *  # noqa: F401,F403
from ._functional.linear_cross_entropy import *  # noqa: F401,F403
from ._functional.loss import *  # noqa: F401,F403
from ._functional.normalization import *  # noqa: F401,F403
from ._functional.rnn import *  # noqa: F401,F403
from ._functional.sparse import *  # noqa: F401,F403
from ._functional.transformer import *  # noqa: F401,F403
