"""``torchlike.jit``: PyTorch's ``torch.jit`` API on torchlike.

``script`` and ``trace`` return modules and functions compiled with ``torchlike.compile``
(no TorchScript language is involved: the Python code runs while JAX traces it); ``save``
writes a script module's forward as a ``jax.export`` program that ``load`` runs without
the module's Python class; the decorators and queries (``ignore``, ``unused``,
``is_scripting``, ``fork``...) behave as they do for eager PyTorch code.
"""

from ._helpers import (Attribute as Attribute, Error as Error, Final as Final,
                       Future as Future, ScriptWarning as ScriptWarning,
                       TracerWarning as TracerWarning, TracingCheckError as TracingCheckError,
                       annotate as annotate,
                       enable_onednn_fusion as enable_onednn_fusion, export as export,
                       fork as fork, ignore as ignore, interface as interface,
                       is_scripting as is_scripting, is_tracing as is_tracing,
                       isinstance as isinstance, onednn_fusion_enabled as onednn_fusion_enabled,
                       optimized_execution as optimized_execution,
                       script_if_tracing as script_if_tracing, script_method as script_method,
                       set_fusion_strategy as set_fusion_strategy, unused as unused,
                       wait as wait)
from ._script import (RecursiveScriptModule as RecursiveScriptModule,
                      ScriptFunction as ScriptFunction, ScriptModule as ScriptModule,
                      TopLevelTracedModule as TopLevelTracedModule,
                      TracedModule as TracedModule, freeze as freeze,
                      optimize_for_inference as optimize_for_inference, script as script,
                      trace as trace, trace_module as trace_module)
from ._serialization import load as load, save as save

__all__ = ["script", "trace", "trace_module", "save", "load", "freeze",
           "optimize_for_inference", "ScriptModule", "RecursiveScriptModule", "TracedModule",
           "TopLevelTracedModule", "ScriptFunction", "ignore", "unused", "export",
           "interface", "script_if_tracing", "is_scripting", "is_tracing", "annotate",
           "Final", "Attribute", "fork", "wait", "Future", "Error", "TracerWarning",
           "TracingCheckError", "ScriptWarning", "isinstance", "optimized_execution",
           "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled", "script_method"]
