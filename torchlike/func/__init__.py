"""``torchlike.func``: composable function transforms, mirroring ``torch.func``.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` differentiate with torchlike's
autograd (Note [Reverse mode rides the tape]); ``jvp``, ``jacfwd`` and ``hessian`` use
``jax.jvp``; ``vmap`` uses ``jax.vmap``. All of them run on tensors wrapping JAX tracers
too, so they compose with ``jax.jit``/``jax.grad`` and ``torchlike.compile``.
``functional_call`` runs a module with given parameters and buffers; ``linearize`` gives
a function of the tangents at fixed primals.
"""

from ._forward import hessian as hessian
from ._forward import jacfwd as jacfwd
from ._forward import jvp as jvp
from ._forward import linearize as linearize
from ._functional_call import functional_call as functional_call
from ._functional_call import stack_module_state as stack_module_state
from ._reverse import grad as grad
from ._reverse import grad_and_value as grad_and_value
from ._reverse import jacrev as jacrev
from ._reverse import vjp as vjp
from ._utilities import debug_unwrap as debug_unwrap
from ._utilities import functionalize as functionalize
from ._utilities import replace_all_batch_norm_modules_ as replace_all_batch_norm_modules_
from ._vmap import vmap as vmap

__all__ = ["functional_call", "stack_module_state", "grad", "grad_and_value", "vjp", "jvp",
           "vmap", "jacrev", "jacfwd", "hessian", "linearize", "functionalize",
           "replace_all_batch_norm_modules_", "debug_unwrap"]
