"""Per-op autograd facts that PyTorch's generated nodes encode: which tensors a node
saves for backward (so modifying them in place raises, see Note [Saved tensors and
versions] in graph.py) and which arguments get an edge in ``next_functions``.

The tables are keyed by op name and use the op's parameter names from its signature.
"""

from __future__ import annotations

import re

from .._core.tensor import Tensor

__all__ = ["edge_info", "save_plan", "entries", "camel"]


def camel(name: str) -> str:
    """``'add'`` -> ``'Add'``, ``'logical_not'`` -> ``'LogicalNot'``."""
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"_+", name.strip("_")))


# What PyTorch's node saves. An entry is a tensor argument's name, "result" (every
# output) or "resultN"; "a|b" saves ``a`` only when ``b`` requires grad.
SAVES: dict = {
    **{n: ("input",) for n in (
        "abs", "acos", "asin", "atan", "acosh", "asinh", "atanh", "cos", "sin", "cosh",
        "sinh", "log", "log10", "log1p", "log2", "lgamma", "digamma", "erf", "erfc",
        "erfinv", "i0", "sinc", "logit", "nan_to_num", "square")},
    **{n: ("result",) for n in (
        "tan", "tanh", "exp", "exp2", "expm1", "sigmoid", "sqrt", "rsqrt", "reciprocal")},
    **{n: () for n in (
        "sign", "ceil", "floor", "round", "trunc", "frac", "deg2rad", "rad2deg", "neg",
        "positive", "add", "sub", "rsub", "sum", "mean", "clone", "trace")},
    "sgn": ("input", "result"),
    "mul": ("other|input", "input|other"),
    # MmBackward0 saves mat2 when self requires grad, self when mat2 does (in that order)
    "mm": ("mat2|input", "input|mat2"),
    "matmul": ("other|input", "input|other"),
    "relu": ("result",),
    "div": ("other", "input|other"),
    "true_divide": ("other", "input|other"),
    "pow": ("input", "exponent", "result|exponent"),
    "float_power": ("input", "exponent", "result|exponent"),
    "atan2": ("input", "other"),
    "hypot": ("input", "other", "result"),
    "logaddexp": ("input", "other"),
    "logaddexp2": ("input", "other"),
    "xlogy": ("input", "other"),
    "copysign": ("input", "result"),
    "fmod": ("input|other", "other|other"),
    "remainder": ("input|other", "other|other"),
    "maximum": ("input", "other"),
    "minimum": ("input", "other"),
    "fmax": ("input", "other"),
    "fmin": ("input", "other"),
    "clamp": ("input", "min", "max"),
    "clamp_min": ("input", "min"),
    "clamp_max": ("input", "max"),
    "lerp": ("weight", "input|weight", "end|weight"),
    "addcmul": ("tensor2|tensor1", "tensor1|tensor2"),
    "addcdiv": ("tensor2", "tensor1|tensor2"),
    "where": ("condition",),
    "_index": ("indices",),
    "_index_put": ("indices",),
    "polar": ("result",),   # PolarBackward0 saves only the result (not abs/angle)
    # PyTorch composes these from ops that save intermediates, never the inputs
    "trapezoid": (),
    "trapz": (),
    "cumulative_trapezoid": (),
    "vander": (),
}

# How a tensor argument appears in ``next_functions``: 0 never (non-differentiable
# arguments such as a condition or indices), 1 for tensors only (PyTorch's Scalar
# overloads take Python numbers without an edge), 2 for tensors and Python numbers
# (wrapped into tensors, an edge ``(None, 0)``). Unlisted arguments are 2.
EDGES: dict = {
    "where": {"condition": 0},
    "pow": {"input": 1, "exponent": 1},
    "float_power": {"input": 1, "exponent": 1},
    "clamp": {"min": 1, "max": 1},
    "clamp_min": {"min": 1},
    "clamp_max": {"max": 1},
    "rsub": {"other": 1, "input": 1, "alpha": 0},
    "add": {"alpha": 0},
    "sub": {"alpha": 0},
    "addcmul": {"value": 0},
    "addcdiv": {"value": 0},
    "select": {"index": 0},
    "_basic_index": {"ints": 0},
    "lerp": {"weight": 1},
    "fmod": {"other": 1},
    "remainder": {"other": 1, "input": 1},
    "xlogy": {"input": 1, "other": 1},
    "copysign": {"other": 1},
    "_index": {"indices": 0},
    "_index_put": {"indices": 0},
    # ``other`` gives only its shape: PyTorch's graph has no edge to it
    "view_as": {"other": 0},
    "reshape_as": {"other": 0},
    "expand_as": {"other": 0},
}


def _clamp_name(input, min=None, max=None):
    return "ClampBackward0" if isinstance(min, Tensor) or isinstance(max, Tensor) \
        else "ClampBackward1"


def _rsub_name(input, other, alpha=1):
    return "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1"


def _clamp_min_name(input, min):
    return "ClampMinBackward1" if isinstance(min, Tensor) else "ClampMinBackward0"


def _clamp_max_name(input, max):
    return "ClampMaxBackward1" if isinstance(max, Tensor) else "ClampMaxBackward0"


# PyTorch's node names where they depend on the overload, for ops that declare none.
NAMES: dict = {"clamp": _clamp_name, "rsub": _rsub_name, "clamp_min": _clamp_min_name,
               "clamp_max": _clamp_max_name}


def _clamp_edges(edges: list, pos: list, input, min=None, max=None) -> None:
    # clamp.Tensor takes ``Tensor? min, Tensor? max``: a bound not given is still an
    # edge, (None, 0); clamp (Scalar) has an edge for ``input`` only (EDGES above)
    if min is None and isinstance(max, Tensor):
        edges.insert(1, (None, 0))
        for i, p in enumerate(pos):
            if p >= 1:
                pos[i] = p + 1
    elif max is None and isinstance(min, Tensor):
        edges.append((None, 0))


# Ops whose overloads differ in more edges than EDGES can say: ``fn(edges, pos,
# *args)`` completes the node's edges (and the positions of those that get a gradient)
# in place. Only consulted for ops named per call (NAMES), off the common path.
OVERLOAD_EDGES: dict = {"clamp": _clamp_edges}


def edge_info(spec) -> tuple:
    info = spec.extra.get("_edge_info")
    if info is None:
        table = EDGES.get(spec.name, {})
        info = spec.extra["_edge_info"] = tuple(table.get(a, 2) for a in spec.tensor_args)
    return info


def save_plan(spec) -> tuple:
    """Parsed SAVES entry: tuple of (is_output, index, cond_index); index None for
    every output, cond_index None when unconditional."""
    plan = spec.extra.get("_save_plan")
    if plan is not None:
        return plan
    entries = SAVES.get(spec.name)
    if entries is None:
        entries = spec.tensor_args if spec.saves else ()
    args = spec.tensor_args
    plan = []
    for e in entries:
        what, _, cond = e.partition("|")
        ci = args.index(cond) if cond and cond in args else None
        if what.startswith("result"):
            plan.append((True, int(what[6:]) if what[6:] else None, ci))
        elif what in args:
            plan.append((False, args.index(what), ci))
    plan = spec.extra["_save_plan"] = tuple(plan)
    return plan


def entries(plan, dyn_t, outs, name):
    """Version-check entries ``(version counter, version, dtype, shape, owner,
    output_nr)`` for the tensors a node saves, following its ``save_plan``. ``owner``:
    the saved input tensor itself (PyTorch names its grad_fn at the time of the error)
    with output_nr None, or, for a saved output, the name of the node that made it."""
    res = []
    for is_out, i, ci in plan:
        if ci is not None:
            c = dyn_t[ci]
            if not (isinstance(c, Tensor) and c._requires_grad):
                continue
        if is_out:
            for k, t in enumerate(outs):
                if i is None or i == k:
                    vc = t._vc
                    res.append((vc, vc.v, t._storage.dtype, t._shape, name, k))
            continue
        v = dyn_t[i]
        if isinstance(v, Tensor):
            st = v._storage
            if st.inference:
                raise RuntimeError(INFERENCE_SAVED_ERROR)
            vc = v._vc
            res.append((vc, vc.v, st.dtype, v._shape, v, None))
        elif isinstance(v, (list, tuple)):
            for t in v:
                if isinstance(t, Tensor):
                    if t._storage.inference:
                        raise RuntimeError(INFERENCE_SAVED_ERROR)
                    vc = t._vc
                    res.append((vc, vc.v, t._storage.dtype, t._shape, t, None))
    return res or None


# Note [Inference tensors] (in _core/storage.py): a node may not save one.
INFERENCE_SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make "
    "a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` "
    "instead of `torch.inference_mode()`.")
