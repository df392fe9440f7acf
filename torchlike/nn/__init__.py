"""``torchlike.nn``: modules, parameters, layers, functional and init, as ``torch.nn``."""

from . import modules  # noqa: F401
from .modules import (Module, ModuleDict, ModuleList, ParameterDict, ParameterList,
                      Sequential)
from .parameter import Buffer, Parameter, UninitializedParameter

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Parameter", "Buffer", "UninitializedParameter"]
