"""``torchlike.func``: composable function transforms, mirroring ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` differentiate with torchlike's
autograd (Note [Reverse mode rides the tape]); ``jvp``, ``jacfwd`` and ``hessian`` use
``jax.jvp``; ``vmap`` uses ``jax.vmap``. All of them run on tensors wrapping JAX tracers
too, so they compose with ``jax.jit``/``jax.grad`` and ``torchlike.compile``.
``functional_call`` runs a module with given parameters and buffers.
"""

from ._forward import hessian as hessian
from ._forward import jacfwd as jacfwd
from ._forward import jvp as jvp
from ._functional_call import functional_call as functional_call
from ._functional_call import stack_module_state as stack_module_state
from ._reverse import grad as grad
from ._reverse import grad_and_value as grad_and_value
from ._reverse import jacrev as jacrev
from ._reverse import vjp as vjp
from ._vmap import vmap as vmap

__all__ = ["functional_call", "stack_module_state", "grad", "grad_and_value", "vjp", "jvp",
           "vmap", "jacrev", "jacfwd", "hessian"]
