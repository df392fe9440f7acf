"""``torchlike.nn.modules``: layer classes (re-exports)."""

from . import module  # noqa: F401  (nn.modules.module.register_module_forward_hook etc.)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .module import Module

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict"]
