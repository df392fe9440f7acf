"""Generate ``torchlike.X``, ``Tensor.X``, ``Tensor.X_`` and operator overloads from
the op table. Nothing here knows about any particular op."""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.grad_mode import _state as _grad_state
from .._core.storage import INFERENCE_INPLACE_ERROR
from .._core.tensor import Tensor
from .autocast_policy import install as install_autocast
from .autocast_policy import policies_of
from .dispatch import _plan_of, dispatch, prepare
from .entries import plain_entry
from .out_param import RULES as OUT_RULES
from .out_param import install as install_out
from .spec import OPS, OpSpec
from .torch_function import (_mode_active, _modes, _overloaded_args, _tf_state,
                             handle_torch_function)

__all__ = ["bind_all", "inplace_apply", "FUNCTIONS"]

_REFLECTED = {"__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__",
              "__rmod__", "__rpow__", "__rmatmul__", "__rand__", "__ror__", "__rxor__",
              "__rlshift__", "__rrshift__", "__rdiv__"}

FUNCTIONS: dict = {}   # public name -> function, for torchlike/__init__.py


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def check_inplace_target(self: Tensor) -> None:
    """PyTorch's ``check_inplace``: with grad enabled, no in-place write to a leaf that
    requires grad, nor to a view of one (``w[0].fill_(0)``; ``w.detach()[0]``, ``w.data[0]``
    and writes under ``no_grad`` are allowed)."""
    if (_grad_state.enabled and self._base is not None and self._base._requires_grad
            and getattr(self, "_nograd_view", False)):
        from ..autograd.inplace import NO_GRAD_VIEW_WRITTEN
        raise RuntimeError(NO_GRAD_VIEW_WRITTEN)   # Note [Views made under no_grad]
    if _grad_state.enabled and self._requires_grad:
        base = self._base
        if base is not None and base._requires_grad and base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                               "in an in-place operation.")
        if self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")


def inplace_apply(self: Tensor, out: Tensor, opname: str = "") -> Tensor:
    """Write the out-of-place result ``out`` into ``self`` with PyTorch's in-place rules:
    dtype must be castable, shape must equal self's, autograd history moves to self."""
    if isinstance(out, tuple):
        out = out[0]
    if not _dt.can_cast(out.dtype, self.dtype):
        raise RuntimeError(f"result type {_dtname(out.dtype)} can't be cast to the desired "
                           f"output type {_dtname(self.dtype)}")
    if out._shape != self._shape:
        raise RuntimeError(f"output with shape {_shape_str(self._shape)} doesn't match the "
                           f"broadcast shape {_shape_str(out._shape)}")
    if out.grad_fn is not None:
        from ..autograd.inplace import rebase_history
        rebase_history(self, out)
    else:
        self._set_value(out._value)
    if inplace_tangent is not None:
        inplace_tangent(self, out)
    return self


# Set by torchlike.autograd.forward_ad while a dual level is open: gives ``self`` the
# tangent of ``out`` (Note [Tangents over a parallel storage] in autograd/_dual.py).
inplace_tangent = None


def _dtname(d) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}[d.name]


dtype_short_name = _dtname


# The functions, methods and operators are generated per op (Note [Plain calls] in
# entries.py): they run the common positional call themselves and hand any other call
# to the op's own dispatch function (Note [Generated dispatch functions]).
def _make_function(spec: OpSpec, name: str):
    f = plain_entry(spec, "function", name)
    f.__qualname__ = name
    f.__doc__ = spec.doc or f"Mirrors ``torch.{spec.name}``."
    f.__module__ = "torchlike"
    return f


def _make_method(spec: OpSpec, name: str):
    m = plain_entry(spec, "method", name)
    m.__qualname__ = "Tensor." + name
    m.__doc__ = spec.doc or f"Mirrors ``torch.Tensor.{name}``."
    return m


def _make_binary_dunder(spec: OpSpec, name: str):
    """``t + u`` and friends: as ``_make_method``, with the operand as a parameter of its
    own, so the common call builds its argument tuple at once. Extra arguments
    (``t.__add__(u, alpha=2)``) are passed on as for any method."""
    m = plain_entry(spec, "dunder", name)
    m.__qualname__ = "Tensor." + name
    m.__doc__ = spec.doc or f"Mirrors ``torch.Tensor.{name}``."
    return m


# PyTorch evaluates ``2 + t`` as ``t.add(2)`` for commutative ops (so the graph's edges
# come in the same order); the others swap operands.
_COMMUTATIVE_REFLECTED = {"__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"}


def _make_reflected(spec: OpSpec, name: str):
    if name == "__rsub__" and "rsub" in OPS:
        # PyTorch: ``1 - t`` is ``torch.rsub(t, 1)``
        m = plain_entry(OPS["rsub"], "reflected", name)
    elif name in ("__rtruediv__", "__rdiv__") and "reciprocal" in OPS:
        return _make_rtruediv("__rdiv__")   # PyTorch's ``__rtruediv__`` is ``__rdiv__``
    elif name in _COMMUTATIVE_REFLECTED:
        m = plain_entry(spec, "reflected", name)
    else:
        m = plain_entry(spec, "swapped", name)
    m.__qualname__ = "Tensor." + name
    return m


_NUMBERS = (int, float, bool, complex)


def _make_rtruediv(name: str):
    """``2 / t``: PyTorch computes ``t.reciprocal() * 2`` (so its node is a
    ``MulBackward0`` over a ``ReciprocalBackward0``, and the result is rounded twice)."""
    recip = plain_entry(OPS["reciprocal"], "method", "reciprocal")
    mul = plain_entry(OPS["mul"], "dunder", "__mul__")

    def m(self, other):
        if (type(self) is not Tensor or type(other) not in _NUMBERS or _modes.on) and \
                not _tf_state.disabled_all:
            relevant = _overloaded_args((self, other))
            if relevant or _mode_active():
                return handle_torch_function(m, relevant, (self, other), {})
        return mul(recip(self), other)
    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    m.__doc__ = "Mirrors ``torch.Tensor.__rtruediv__``: ``self.reciprocal() * other``."
    return m


def _make_inplace_view(spec: OpSpec, name: str):
    """``t.transpose_(0, 1)`` and friends change this tensor's metadata, not its data."""
    def m(self, *args, **kwargs):
        if self._storage.inference and not _grad_state.inference:
            raise RuntimeError(INFERENCE_INPLACE_ERROR)   # Note [Inference tensors]
        handled = _tf_state.handled
        out = dispatch(spec, m, (self,) + args, kwargs)
        if _tf_state.handled != handled:
            return out   # an override's result (its call of ``m`` changed ``self``)
        self._shape, self._stride, self._offset = out._shape, out._stride, out._offset
        self._direct, self._idx = out._direct, None
        self._cache, self._cache_gen = out._cache, out._cache_gen
        if self.grad_fn is not None or out.grad_fn is not None:
            self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
        return self
    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    m.__doc__ = f"In-place (metadata) version of ``Tensor.{spec.name}``."
    return m


def _make_inplace(spec: OpSpec, name: str, api=None):
    """``Tensor.<name>``, the in-place form of ``spec``; ``api``: what overrides receive
    as ``func`` (the method itself by default; ``Tensor.add_`` for ``t += u``)."""
    if spec.view is not None:
        return _make_inplace_view(spec, name)

    run = _plan_of(spec).run

    def m(self, *args, **kwargs):
        check_inplace_target(self)
        handled = _tf_state.handled
        out = run(target, (self,) + args, kwargs)
        if out is NotImplemented or _tf_state.handled != handled:
            return out   # an override's result (its call of ``m`` wrote ``self``)
        return inplace_apply(self, out, name)
    target = m if api is None else api
    m.__name__ = name
    m.__qualname__ = "Tensor." + name
    m.__doc__ = f"In-place version of ``Tensor.{spec.name}``."
    return m


# The in-place ops PyTorch also offers as functions: ``torch.exp_(t)`` is ``t.exp_()``.
INPLACE_FUNCTIONS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_",
    "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_",
    "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_",
    "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "zero_")


def _make_inplace_function(name: str):
    """``torchlike.<name>(input, ...)``: the Tensor method ``input.<name>(...)`` (looked up
    on the argument, so subclasses' overrides apply), with PyTorch's error for a
    non-tensor ``input``."""
    def f(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Mirrors ``torch.{name}``: ``input.{name}(...)``."
    f.__module__ = "torchlike"
    return f


def bind_all() -> None:
    for spec in OPS.values():
        if spec.binder is None:
            prepare(spec)
        fname = spec.name if spec.function is True else spec.function
        if fname in OUT_RULES and not spec.extra.get("out"):
            install_out(spec, fname)   # Note [out= of table functions]
        spec.autocast = policies_of(spec.name)
        if spec.autocast:
            install_autocast(spec)     # Note [Autocast]
        if fname:
            f = _make_function(spec, fname)
            spec.api = f
            FUNCTIONS[fname] = f
            for a in spec.aliases:
                FUNCTIONS[a] = f
        mname = spec.name if spec.method is True else spec.method
        if mname:
            m = _make_method(spec, mname)
            spec.method_api = m
            setattr(Tensor, mname, m)
            if not fname:
                spec.api = m
            for a in spec.aliases:
                setattr(Tensor, a, m)
        if spec.api is None:
            spec.api = _make_function(spec, spec.name)
        iname = (spec.name + "_") if spec.inplace is True else spec.inplace
        if iname:
            setattr(Tensor, iname, _make_inplace(spec, iname))
            for a in spec.aliases:
                setattr(Tensor, a + "_", _make_inplace(spec, a + "_"))
        for d in spec.dunders:
            if d in _REFLECTED:
                setattr(Tensor, d, _make_reflected(spec, d))
            elif d.startswith("__i") and d not in ("__invert__", "__index__"):
                # PyTorch hands overrides ``Tensor.add_`` for ``t += u``, but the bitwise
                # and shift forms as themselves (``Tensor.__iand__``)
                api = Tensor.__dict__.get(iname) if d in _INPLACE_OPERATOR_APIS else None
                setattr(Tensor, d, _make_inplace(spec, d, api))
            elif len(spec.params) >= 2:
                setattr(Tensor, d, _make_binary_dunder(spec, d))
            else:
                setattr(Tensor, d, _make_method(spec, d))
    for name in INPLACE_FUNCTIONS:
        if name not in FUNCTIONS:
            FUNCTIONS[name] = _make_inplace_function(name)
    for d, name in _OPERATOR_APIS.items():
        op, method = Tensor.__dict__.get(d), Tensor.__dict__.get(name)
        if method is not None and getattr(op, "__globals__", {}).get("api") is op:
            op.__globals__["api"] = method


# The method PyTorch hands ``__torch_function__`` overrides and modes for an operator
# (``t + u`` is seen as ``Tensor.add``, ``2 * t`` as ``Tensor.mul``); the others pass
# the operator itself (``Tensor.__and__``, ``Tensor.__rsub__``).
_OPERATOR_APIS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul",
    "__rmul__": "mul", "__truediv__": "div", "__mod__": "remainder", "__pow__": "pow",
    "__matmul__": "matmul", "__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor"}
_INPLACE_OPERATOR_APIS = ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__imod__",
                          "__ipow__", "__ifloordiv__")
