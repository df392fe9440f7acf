"""``torchlike.nn``: modules, parameters, layers, functional and init, as ``torch.nn``."""

from . import functional, init, modules, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import (Module, ModuleDict, ModuleList, ParameterDict, ParameterList,
                      Sequential)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .modules.flax_module import FlaxModule  # noqa: F401
from . import attention, parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
