"""``torchlike.nn.modules``: layer classes (re-exports)."""

from . import module  # noqa: F401  (nn.modules.module.register_module_forward_hook etc.)
from .activation import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .linear_cross_entropy import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .module import Module
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
