"""The op table: the one place ops are declared.

Each ``OpSpec`` holds a pure ``jax.numpy``/``lax`` function and its metadata. From the
table, ``bind.py`` generates ``torchlike.X``, ``Tensor.X``, ``Tensor.X_`` and operator
overloads; ``dispatch.py`` does promotion, view bookkeeping, autograd recording and
caching of compiled executables for every op the same way.

# Note [Op function convention]
# ``fn`` receives the op's parameters in the order of ``signature``. Parameters named in
# ``tensor_args`` are dynamic: JAX arrays (or Python scalars, None, or lists of arrays)
# already cast by the dispatcher. All others are static, hashable Python values (lists
# become tuples); a change in them compiles a new executable, a change in shapes or
# dtypes reuses JAX's cache. A dynamic parameter named in ``neutral`` may also arrive as
# None, meaning its neutral value (Note [Neutral scalar arguments] in dispatch.py). A
# dynamic parameter named in ``scalars`` arrives as a ``Scalar`` when the caller passed a
# Python number (Note [Scalar overloads]).
#
# Note [Scalar overloads]
# Some PyTorch kernels behave differently for a Python number than for a tensor holding
# the same value: ``pow(Tensor, Scalar)`` computes ``x ** 2`` as ``x * x`` and ``x ** 0.5``
# as ``sqrt(x)``, which differ from ``pow`` at -0.0 and -inf and in the last bit, while
# ``pow(Tensor, Tensor)`` always calls ``pow``. The dispatcher passes a number to the
# executable as a device scalar (Note [Python numbers as device scalars]), so its value
# is not known when ``fn`` is traced, but its kind is: a number's array is weakly typed
# and a tensor's never is, and the weak type is part of the executable's key. For the
# parameters in ``scalars`` the runner therefore hands ``fn`` the cast value wrapped in
# ``Scalar``, and ``fn`` may choose its computation by the value at run time. Kernels
# that test TensorIterator's ``is_scalar`` instead (``mul``, ``div``) treat a 0-d tensor
# as they treat a number; ops declared with ``zero_dim_scalars`` get a ``Scalar`` for
# those too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["OpSpec", "Scalar", "register", "OPS", "get"]

OPS: dict[str, "OpSpec"] = {}


class Scalar:
    """A dynamic argument the caller passed as a Python number (Note [Scalar overloads]):
    ``value`` is the array ``fn`` would otherwise have received (cast as the op's
    promotion says), ``raw`` the number as it came (a Python number or its device
    scalar, in double precision)."""

    __slots__ = ("value", "raw")

    def __init__(self, value, raw):
        self.value = value
        self.raw = raw


@dataclass(eq=False)
class OpSpec:
    name: str
    fn: Callable
    signature: str
    tensor_args: tuple = ("input",)
    # How tensor arguments are cast before ``fn`` runs:
    #   "common": all promote_args to PyTorch's result type
    #   "float":  as "common", then integral/bool to the default float dtype
    #   "self":   promote_args cast to the first argument's dtype
    #   "none":   untouched
    promote: str = "common"
    promote_args: tuple | None = None  # default: all tensor_args
    method: str | bool = True          # Tensor method name (True: same as name)
    function: str | bool = True        # torchlike.<name> (True: same as name)
    inplace: str | bool = False        # Tensor.<name>_ (True: name + "_")
    dunders: tuple = ()                # e.g. ("__add__", "__radd__")
    aliases: tuple = ()                # extra function/method names
    view: Callable | None = None       # (vals) -> (shape, stride, offset) | list | None
    differentiable: bool = True
    convolution: bool = False          # holds an XLA convolution (see _core/xla.py)
    grad_name: str | Callable | None = None  # "AddBackward0" or fn(vals)->name
    saves: bool = True                 # PyTorch saves tensors for backward (freed after)
    # {device type: "lower" | "fp32" | "fp32_opt" | "promote"}: PyTorch's autocast
    # policies, filled in from autocast_policy.POLICIES when the table is bound
    autocast: dict | None = None
    check: Callable | None = None      # eager validation, raises PyTorch's errors
    out_names: tuple | None = None     # return a named tuple with these fields
    nondiff_outputs: tuple = ()        # output indices that never require grad
    int_to_float_inplace_ok: bool = False
    samples: Callable | None = None    # () -> list[Sample] for the parity tests
    # dynamic scalar parameters and the Python value that leaves a real-valued result
    # bit for bit unchanged when left out ({"alpha": 1}); ``fn`` must accept None for
    # them, meaning that value (Note [Neutral scalar arguments] in dispatch.py)
    neutral: dict | None = None
    scalars: tuple = ()                # dynamic parameters that may arrive as ``Scalar``
    zero_dim_scalars: bool = False     # ... for a 0-d tensor too, not only a number
    doc: str | None = None
    extra: dict = field(default_factory=dict)

    # filled in by dispatch.prepare()
    params: tuple = ()
    tensor_pos: tuple = ()
    binder: Any = None
    jitted: Any = None
    api: Any = None
    method_api: Any = None

    def __repr__(self) -> str:
        return f"OpSpec({self.name!r})"


def register(spec: OpSpec) -> OpSpec:
    if spec.name in OPS:
        raise ValueError(f"op {spec.name!r} declared twice")
    OPS[spec.name] = spec
    return spec


def op(name: str, signature: str, **kw):
    """Decorator form: ``@op("add", "input, other, *, alpha=1", tensor_args=(...))``."""
    def deco(fn):
        register(OpSpec(name=name, fn=fn, signature=signature, **kw))
        return fn
    return deco


def get(name: str) -> OpSpec:
    return OPS[name]
