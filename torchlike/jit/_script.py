"""``script`` and ``trace``: PyTorch's TorchScript entry points, compiled with
``torchlike.compile``.

# Note [A script module shares the original's state]
# ``script(m)`` and ``trace(m, x)`` build a tree of wrappers that mirrors ``m``'s module
# tree: each wrapper holds the very ``_parameters``/``_buffers`` dicts of the module it
# wraps (so ``state_dict()`` keys, parameter objects and in-place updates are the
# original's, as in PyTorch) and wrappers of its children. A wrapper's forward calls
# ``torchlike.compile`` of the wrapped module's ``__call__``: the Python forward runs only
# while JAX traces it, and every later call with the same input signature runs the XLA
# program. ``training`` reads and writes the wrapped module's flag, so ``train()`` and
# ``eval()`` reach the original. Nothing of TorchScript's language is involved: there is
# no parsing of Python source and no ``.code``; ``graph`` is the forward's jaxpr.
#
# Note [Shapes a script module is saved at]
# ``save`` writes the forward as a ``jax.export`` program, which is traced at given
# shapes. A traced module keeps the shapes (and non-tensor arguments) of its example
# inputs; a scripted one those of its last call (or of ``script``'s ``example_inputs``).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable

import jax
import numpy as np

from .._compile.compile import CompiledFunction
from .._core.tensor import Tensor
from ..nn.modules.module import Module
from ._helpers import Attribute, TracerWarning, TracingCheckError, _TracingFlag

__all__ = ["ScriptModule", "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule",
           "ScriptFunction", "script", "trace", "trace_module", "freeze",
           "optimize_for_inference", "CallSpec"]


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _deprecated(name: str, instead: str = "Please switch to `torch.compile` or "
                "`torch.export`.") -> None:
    # PyTorch's own wording (2.5 and later), so ported code sees the same warning
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", DeprecationWarning,
                  stacklevel=3)


class CallSpec:
    """The structure of one call: its arguments with every tensor replaced by a
    ``jax.ShapeDtypeStruct`` (Note [Shapes a script module is saved at])."""

    __slots__ = ("treedef", "leaves", "tensor_pos")

    def __init__(self, args: tuple, kwargs: dict) -> None:
        leaves, self.treedef = jax.tree_util.tree_flatten((tuple(args), dict(kwargs)),
                                                          is_leaf=_is_tensor)
        self.tensor_pos = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
        self.leaves = [jax.ShapeDtypeStruct(tuple(x.shape), x._value.dtype)
                       if isinstance(x, Tensor) else x for x in leaves]

    @classmethod
    def of(cls, spec) -> "CallSpec | None":
        """``spec``, or the CallSpec of positional tensors described by (shape, dtype)."""
        if spec is None or isinstance(spec, CallSpec):
            return spec
        new = cls.__new__(cls)
        new.leaves = [jax.ShapeDtypeStruct(tuple(shape), dtype.np) for shape, dtype in spec]
        new.tensor_pos = list(range(len(spec)))
        new.treedef = jax.tree_util.tree_structure((tuple(new.leaves), {}))
        return new

    @property
    def input_avals(self) -> list:
        return [self.leaves[i] for i in self.tensor_pos]

    def rebuild(self, tensors: list) -> tuple:
        """``(args, kwargs)`` with the tensor leaves taken from ``tensors``."""
        leaves = list(self.leaves)
        for i, t in zip(self.tensor_pos, tensors):
            leaves[i] = t
        return jax.tree_util.tree_unflatten(self.treedef, leaves)


# --------------------------------------------------------------------------- modules
class ScriptModule(Module):
    """Mirrors ``torch.jit.ScriptModule``: the base of what ``script``, ``trace`` and
    ``load`` return. A ``torchlike.nn.Module``; see ``RecursiveScriptModule`` and
    ``TopLevelTracedModule`` for how each kind behaves."""

    _orig: Module | None = None

    def __init__(self) -> None:
        super().__init__()
        d = self.__dict__
        d["_compiled"] = None
        d["_spec"] = None
        d["_original_name"] = type(self).__name__

    # -- the wrapped module's flag (Note [A script module shares the original's state])
    @property
    def training(self) -> bool:  # type: ignore[override]
        orig = self.__dict__.get("_orig")
        if orig is not None:
            return orig.training
        return self.__dict__.get("_training", True)

    @training.setter
    def training(self, mode: bool) -> None:
        orig = self.__dict__.get("_orig")
        if orig is not None:
            orig.training = mode
        else:
            self.__dict__["_training"] = mode

    @property
    def original_name(self) -> str:
        """Mirrors ``ScriptModule.original_name``: the class name of the wrapped module."""
        return self.__dict__["_original_name"]

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            orig = self.__dict__.get("_orig")
            if orig is None:
                raise
            value = getattr(orig, name)
            return value.value if type(value) is Attribute else value

    def __setattr__(self, name: str, value) -> None:
        # a ``ScriptModule`` subclass declares typed attributes as in TorchScript
        super().__setattr__(name, value.value if type(value) is Attribute else value)

    def __deepcopy__(self, memo: dict) -> "ScriptModule":
        d = self.__dict__
        orig = d.get("_orig")
        if orig is not None:
            sub = TracedModule if isinstance(self, TracedModule) else type(self)
            new = _wrap_tree(copy.deepcopy(orig, memo), type(self), sub, {})
            new.__dict__["_spec"] = d["_spec"]
            memo[id(self)] = new
            return new
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for k, v in d.items():   # a loaded program is immutable: shared by the copies
            new.__dict__[k] = v if k in ("_program", "_compiled") else copy.deepcopy(v, memo)
        return new

    def extra_repr(self) -> str:
        return f"original_name={self.original_name}"

    def forward(self, *args, **kwargs):
        """Runs the wrapped module (its ``__call__``, hooks included) as a
        ``torchlike.compile`` program."""
        d = self.__dict__
        compiled = d["_compiled"]
        if compiled is None:
            orig = d.get("_orig")
            if orig is None:
                program = d.get("_program")
                if program is not None:
                    return program(self, args, kwargs)
                if d.get("_loaded_sub"):
                    raise RuntimeError(
                        f"{self.original_name}: this submodule of a module made by "
                        "torchlike.jit.load has no forward of its own (only the top-level "
                        "forward is saved); call the loaded top-level module")
                raise NotImplementedError(f"{type(self).__name__} has no forward: define "
                                          "forward in the ScriptModule subclass")
            compiled = d["_compiled"] = CompiledFunction(orig.__call__)
        if self._record_calls:
            if not kwargs and all([type(a) is Tensor for a in args]):
                # the common call: only shapes and dtypes, made into a CallSpec by save
                d["_spec"] = tuple([(a._shape, a.dtype) for a in args])
            else:
                d["_spec"] = CallSpec(args, kwargs)
        return compiled(*args, **kwargs)

    _record_calls = False

    @property
    def graph(self) -> str:
        """The forward as JAX sees it: the jaxpr text of the program ``save`` would write,
        over (parameters and buffers, tensor inputs). Difference from PyTorch: a jaxpr,
        not a TorchScript ``Graph``; there is no ``.code``."""
        from ._export import forward_jaxpr
        return str(forward_jaxpr(self))

    def save(self, f: Any, _extra_files: dict | None = None) -> None:
        """Mirrors ``ScriptModule.save``: the same as ``torchlike.jit.save(self, f)``
        (without its ``DeprecationWarning``, as in PyTorch)."""
        from ._serialization import write
        write(self, f, _extra_files)


def _wrap_tree(orig: Module, top: type, sub: type, memo: dict) -> ScriptModule:
    w = memo.get(id(orig))
    if w is not None:
        return w
    w = top.__new__(top)
    ScriptModule.__init__(w)
    d = w.__dict__
    d["_parameters"] = orig._parameters
    d["_buffers"] = orig._buffers
    d["_non_persistent_buffers_set"] = orig._non_persistent_buffers_set
    d["_original_name"] = type(orig).__name__
    d.pop("_training", None)
    d["_orig"] = orig
    memo[id(orig)] = w
    for name, child in orig._modules.items():
        w._modules[name] = None if child is None else _wrap_tree(child, sub, sub, memo)
    return w


class RecursiveScriptModule(ScriptModule):
    """Mirrors ``torch.jit.RecursiveScriptModule``: what ``script(module)`` and ``load``
    return.

    Made by ``script``, it shares the original module's parameters, buffers and (wrapped)
    submodules (Note [A script module shares the original's state]); calling it, or any
    of its submodules, runs the original's forward as a ``torchlike.compile`` program;
    ``train()``/``eval()`` set the original's flags; attributes it lacks are read from the
    original. Indexing works as on the original container (``s[0]``).

    Made by ``load``, it runs the saved program (see ``torchlike.jit.load``).
    """

    _record_calls = True

    def _get_name(self) -> str:
        return "RecursiveScriptModule"

    def __getitem__(self, idx):
        mods = self._modules
        if isinstance(idx, str):
            return mods[idx]
        values = list(mods.values())
        if isinstance(idx, slice):
            raise NotImplementedError("slicing a script module is not supported; index "
                                      "one submodule at a time")
        return values[idx]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class TracedModule(ScriptModule):
    """Mirrors ``torch.jit.TracedModule``: a submodule of what ``trace(module)`` returns.
    Prints as the original class (``Linear(original_name=Linear)``), as in PyTorch."""

    def _get_name(self) -> str:
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """Mirrors ``torch.jit.TopLevelTracedModule``: what ``trace(module, inputs)`` returns.

    Shares the original's parameters, buffers and submodules (``state_dict()`` has the
    original's keys; ``traced._modules['0'].weight is model[0].weight``); its forward runs
    the original's as a ``torchlike.compile`` program; ``save`` writes it at the example
    inputs' shapes.

    Differences from PyTorch: the forward is the original Python forward compiled per
    input signature, not a recorded graph, so Python branches follow the inputs (on
    values: a clear error while tracing), and ``train()``/``eval()`` (which reach the
    original module) change what later calls compute, where a PyTorch trace keeps the
    mode it was traced in.
    """


class ScriptFunction:
    """Mirrors ``torch.jit.ScriptFunction``: what ``script``/``trace`` of a function
    return. Calling it runs the function as a ``torchlike.compile`` program; ``name``
    is the function's name. Difference: it cannot be saved (``save`` takes modules)."""

    def __init__(self, fn: Callable, spec: CallSpec | None = None) -> None:
        self._fn = fn
        self._compiled = CompiledFunction(fn)
        self._spec = spec
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self.qualified_name = getattr(fn, "__qualname__", self.name)
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    @property
    def graph(self) -> str:
        """The function's jaxpr at its example (or last traced) inputs."""
        if self._spec is None:
            raise RuntimeError(f"{self.name}: graph needs example inputs (use trace, or "
                               "script(fn, example_inputs=[(...)]))")
        from ._export import function_jaxpr
        return str(function_jaxpr(self._fn, self._spec))

    def __repr__(self) -> str:
        return f"<torchlike.jit.ScriptFunction object at {hex(id(self))}>"


for _c in (ScriptModule, RecursiveScriptModule, TracedModule, TopLevelTracedModule,
           ScriptFunction):
    _c.__module__ = "torchlike.jit"


# --------------------------------------------------------------------------- script
def script(obj: Any, optimize: None = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: list | dict | None = None) -> Any:
    """Mirrors ``torch.jit.script``: returns ``obj`` made ready to compile and save.

    * an ``nn.Module``: a ``RecursiveScriptModule`` sharing its state (see there); a
      ``ScriptModule`` is returned as it is, as PyTorch does;
    * a function: a ``ScriptFunction``;
    * anything else (a class, a list): returned unchanged.

    ``example_inputs`` (PyTorch's type-profiling inputs: a list of argument tuples, or a
    dict from the module/function to such a list) give the shapes ``save`` writes before
    the first call; otherwise it writes those of the last call. ``optimize`` is
    deprecated in PyTorch and ignored here, as are ``_frames_up`` and ``_rcb``.

    Differences from PyTorch: no TorchScript language is involved. The Python code is not
    parsed or type-checked, so code TorchScript would reject runs; it is compiled with
    ``torchlike.compile`` on each new input signature (code that needs tensor values in
    Python, such as ``if x.sum() > 0:``, raises there). Emits PyTorch's
    ``DeprecationWarning``.
    """
    _deprecated("script")
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(example_inputs, dict):
        example_inputs = example_inputs.get(obj)
    spec = None
    if example_inputs:
        first = example_inputs[0]
        spec = CallSpec(first if isinstance(first, tuple) else (first,), {})
    if isinstance(obj, Module):
        sm = _wrap_tree(obj, RecursiveScriptModule, RecursiveScriptModule, {})
        sm.__dict__["_spec"] = spec
        return sm
    if isinstance(obj, type) or not callable(obj):
        return obj
    return ScriptFunction(obj, spec)


# --------------------------------------------------------------------------- trace
def _as_args(example_inputs) -> tuple:
    if example_inputs is None:
        return ()
    if isinstance(example_inputs, Tensor):
        return (example_inputs,)
    if isinstance(example_inputs, list):
        return tuple(example_inputs)
    if isinstance(example_inputs, tuple):
        return example_inputs
    return (example_inputs,)


def _leaves(out) -> list:
    return [x for x in jax.tree_util.tree_leaves(out, is_leaf=_is_tensor)
            if isinstance(x, Tensor)]


def _check(compiled_out, fn, args, kwargs, tol: float) -> None:
    """``check_trace``: compare the compiled result with the Python function's."""
    from .. import no_grad
    with no_grad(), _TracingFlag():   # PyTorch's check traces again: is_tracing() holds
        eager_out = fn(*args, **kwargs)
    got, want = _leaves(compiled_out), _leaves(eager_out)
    if len(got) != len(want):
        raise TracingCheckError(None, f"the compiled function returned {len(got)} tensors "
                                      f"and the Python function {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        a = np.asarray(g.detach().cpu().numpy(), dtype=np.float64) if g.is_floating_point() \
            else g.detach().cpu().numpy()
        b = np.asarray(w.detach().cpu().numpy(), dtype=np.float64) if w.is_floating_point() \
            else w.detach().cpu().numpy()
        if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
            warnings.warn(f"Output nr {i + 1}. of the traced function does not match the "
                          "corresponding output of the Python function. Detailed error:\n"
                          f"Tensor-likes are not close! (shapes {a.shape} and {b.shape})",
                          TracerWarning, stacklevel=4)


def trace(func: Callable, example_inputs: Any = None, optimize: Any = None,
          check_trace: bool = True, check_inputs: list | None = None,
          check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class: Any = None, _compilation_unit: Any = None,
          example_kwarg_inputs: dict | None = None, _store_inputs: bool = True) -> Any:
    """Mirrors ``torch.jit.trace``: runs ``func`` once on the example inputs and returns
    it compiled.

    ``func`` an ``nn.Module``: a ``TopLevelTracedModule`` sharing its state; a function:
    a ``ScriptFunction``; a ``ScriptModule``/``ScriptFunction`` is returned as it is.
    ``example_inputs`` is a tensor or a tuple of positional arguments;
    ``example_kwarg_inputs`` a dict of keyword arguments (used instead, as PyTorch does,
    when given). The first run is the compiled program's: it traces the Python code
    (``is_tracing()`` is True there) and runs it, so a BatchNorm in training mode updates
    its statistics, as in PyTorch.

    Other arguments, as PyTorch's:

    * ``check_trace`` (default True): after the traced run, the Python function runs
      again eagerly on each of ``check_inputs`` (argument tuples; default: the example
      inputs) and is compared with the compiled result at ``check_tolerance``; a mismatch
      warns ``TracerWarning`` (as PyTorch does for differing outputs); a different
      number of outputs raises ``TracingCheckError``.
    * ``strict``: accepted; outputs may be any nesting of tuples, lists and dicts.
    * ``optimize``, ``_force_outplace``, ``_module_class``, ``_compilation_unit``,
      ``_store_inputs``: accepted and ignored.

    Differences from PyTorch: no graph is recorded; the compiled forward is the Python
    forward, traced again for each new input signature, so data-dependent Python
    branches follow the inputs instead of being frozen (a branch on tensor values raises
    while tracing). Emits PyTorch's ``DeprecationWarning``.
    """
    _deprecated("trace")
    if isinstance(func, (ScriptModule, ScriptFunction)):
        return func
    if example_kwarg_inputs is not None:
        if not isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        args, kwargs = (), dict(example_kwarg_inputs)
    else:
        if example_inputs is None:
            raise RuntimeError("example_kwarg_inputs and example_inputs can't both be None")
        args, kwargs = _as_args(example_inputs), {}
    spec = CallSpec(args, kwargs)
    if isinstance(func, Module):
        traced = _wrap_tree(func, TopLevelTracedModule, TracedModule, {})
        traced.__dict__["_spec"] = spec
        run, eager = traced, func
    elif callable(func):
        traced = ScriptFunction(func, spec)
        run, eager = traced, func
    else:
        raise RuntimeError(f"torchlike.jit.trace: expected an nn.Module or a function, got "
                           f"{type(func).__name__}")
    with _TracingFlag():
        out = run(*args, **kwargs)
    if check_trace:
        for inp in (check_inputs or [None]):
            if inp is None:
                c_args, c_kwargs, c_out = args, kwargs, out
            else:
                c_args = _as_args(inp) if not isinstance(inp, dict) else ()
                c_kwargs = inp if isinstance(inp, dict) else {}
                c_out = run(*c_args, **c_kwargs)
            _check(c_out, eager, c_args, c_kwargs, check_tolerance)
    return traced


def trace_module(mod: Module, inputs: dict, optimize: Any = None, check_trace: bool = True,
                 check_inputs: list | None = None, check_tolerance: float = 1e-5,
                 strict: bool = True, _force_outplace: bool = False,
                 _module_class: Any = None, _compilation_unit: Any = None,
                 example_inputs_is_kwarg: bool = False,
                 _store_inputs: bool = True) -> TopLevelTracedModule:
    """Mirrors ``torch.jit.trace_module``: ``inputs`` maps method names to example
    inputs. Difference: only ``forward`` can be traced (another method name raises
    ``NotImplementedError``)."""
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    other = [k for k in inputs if k != "forward"]
    if other:
        raise NotImplementedError(f"torchlike.jit.trace_module traces only 'forward', not "
                                  f"{other}")
    _deprecated("trace_method")   # PyTorch's wording for trace_module
    ex = inputs["forward"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return trace(mod, None if example_inputs_is_kwarg else ex, check_trace=check_trace,
                     check_inputs=check_inputs, check_tolerance=check_tolerance,
                     strict=strict,
                     example_kwarg_inputs=ex if example_inputs_is_kwarg else None)


# --------------------------------------------------------------------------- freezing
def freeze(mod: ScriptModule, preserved_attrs: list[str] | None = None,
           optimize_numerics: bool = True) -> RecursiveScriptModule:
    """Mirrors ``torch.jit.freeze``: a copy of ``mod`` whose parameters and buffers are
    constants of the program, so it has no parameters and an empty ``state_dict()``
    and prints as ``RecursiveScriptModule(original_name=...)``, as in PyTorch.

    ``mod`` must be a ``ScriptModule`` in eval mode (PyTorch's ``RuntimeError``s
    otherwise). ``preserved_attrs`` names attributes kept readable on the result;
    ``optimize_numerics`` is accepted (XLA optimises anyway). Emits PyTorch's
    ``DeprecationWarning``.

    Difference: the copy's tensors are detached copies of the module's (gradients flow
    to the inputs only, as in PyTorch); its submodules are not listed.
    """
    _deprecated("freeze", "Please use `torch.compile` instead.")
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval "
                           "mode. Please call .eval() on your module before freezing.")
    orig = mod.__dict__.get("_orig")
    if orig is None:
        raise RuntimeError("torchlike.jit.freeze: a module made by torchlike.jit.load is "
                           "frozen already (its mode was fixed when it was saved)")
    copied = copy.deepcopy(orig)
    copied.requires_grad_(False)
    frozen = RecursiveScriptModule()
    d = frozen.__dict__
    d.pop("_training", None)
    d["_orig"] = copied
    d["_original_name"] = mod.original_name
    d["_spec"] = mod.__dict__.get("_spec")
    for name in preserved_attrs or []:
        d[name] = copy.deepcopy(getattr(mod, name))
    return frozen


def optimize_for_inference(mod: ScriptModule, other_methods: list[str] | None = None
                           ) -> ScriptModule:
    """Mirrors ``torch.jit.optimize_for_inference``: puts ``mod`` in eval mode and
    freezes it (``freeze``). Like PyTorch, a module in training mode is switched to eval
    mode rather than refused; a module that is not a ``ScriptModule`` raises PyTorch's
    ``RuntimeError``. Emits PyTorch's ``DeprecationWarning``. Difference: no
    backend-specific rewriting (XLA chooses its own kernels)."""
    _deprecated("optimize_for_inference", "Please use `torch.compile` instead.")
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please "
                           "use torch.jit.script or torch.jit.trace to script your "
                           "'nn.Module'.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return freeze(mod.eval(), preserved_attrs=other_methods)
