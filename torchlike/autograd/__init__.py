"""``torchlike.autograd``: the tape-based automatic differentiation engine.

Mirrors ``torch.autograd``: ``backward``, ``grad``, ``Function``, grad-mode context
managers, ``gradcheck``/``gradgradcheck``, ``functional`` (jacobian, hessian, vjp, jvp,
hvp, vhp) and anomaly detection.
"""

from .._core.grad_mode import (_force_original_view_tracking, enable_grad, inference_mode,
                               is_grad_enabled, is_multithreading_enabled,
                               is_view_replay_enabled, no_grad, set_grad_enabled,
                               set_multithreading_enabled)
from .._core.tensor import Tensor as _Tensor
from . import engine as _engine  # noqa: F401  (attaches Tensor.backward & co.)
from . import forward_ad, functional, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled
from .anomaly_mode import set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction
from .function import once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node

__all__ = ["backward", "grad", "Variable", "Function", "FunctionCtx", "InplaceFunction",
           "NestedIOFunction", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "Node", "gradcheck",
           "gradgradcheck", "GradcheckError", "forward_ad", "functional", "graph",
           "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_multithreading_enabled",
           "is_multithreading_enabled", "is_view_replay_enabled"]


def Variable(data, requires_grad: bool = False, volatile: bool = False) -> _Tensor:
    """The deprecated ``torch.autograd.Variable``: returns a tensor sharing ``data``'s
    memory, without its history, requiring grad when asked (as PyTorch since 0.4)."""
    if not isinstance(data, _Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if volatile:
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)",
                      UserWarning, stacklevel=2)
    v = data.detach()
    if requires_grad:
        v.requires_grad_(True)
    return v
