"""``torchlike.overrides``: modes and the helpers of ``__torch_function__``.

Mirrors ``torch.overrides``. A ``TorchFunctionMode`` used as a context manager receives
every torchlike function, Tensor method, operator and indexing call made on its thread,
factories included, before any tensor subclass does; the helpers let Python functions
take part in ``__torch_function__`` as PyTorch's own do. The machinery is in
``_ops/torch_function.py`` (Note [Torch function modes]).

>>> import torchlike as torch
>>> from torchlike.overrides import TorchFunctionMode
>>> class Log(TorchFunctionMode):
...     def __torch_function__(self, func, types, args=(), kwargs=None):
...         print(func.__name__)
...         return func(*args, **(kwargs or {}))
>>> with Log():
...     _ = torch.zeros(2) + 1
zeros
add
"""

from __future__ import annotations

import collections
import contextlib
import functools
import types as _types
import warnings
from typing import Any, Callable, Iterable

from ._core.tensor import Tensor
from ._ops.torch_function import DisableTorchFunction as DisableTorchFunction
from ._ops.torch_function import DisableTorchFunctionSubclass as DisableTorchFunctionSubclass
from ._ops.torch_function import (_call_mode, _call_override, _is_overloaded, _mode_active,
                                  _tf_state)
from ._ops.torch_function import _pop_mode as _pop_mode
from ._ops.torch_function import _pop_mode_temporarily as _pop_mode_temporarily
from ._ops.torch_function import _push_mode as _push_mode

__all__ = ["TorchFunctionMode", "BaseTorchFunctionMode", "DisableTorchFunction",
           "DisableTorchFunctionSubclass", "enable_reentrant_dispatch",
           "get_ignored_functions", "get_overridable_functions", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function"]


class TorchFunctionMode:
    """Mirrors ``torch.overrides.TorchFunctionMode``: subclass it, define
    ``__torch_function__(self, func, types, args=(), kwargs=None)`` and enter an
    instance with ``with``. Inside, every overridable call on this thread reaches it
    first (``func`` is the public function or method called, ``types`` the types of the
    overriding arguments, empty for plain Tensors); while it runs the mode is off the
    stack, so ``func(*args, **kwargs)`` runs the next mode down, or the op. Modes stack
    per thread; the innermost sees a call first."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        """Mirrors ``TorchFunctionMode.push``: PyTorch's deprecated spelling of ``cls(...)``."""
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """Mirrors ``torch.overrides.BaseTorchFunctionMode``: a mode that runs every call
    unchanged, a base for modes that override a few functions."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        return func(*args, **kwargs)


def _len_torch_function_stack() -> int:
    """Mirrors ``torch._C._len_torch_function_stack``: the modes on this thread's stack."""
    return len(_tf_state.modes)


def _get_function_stack_at(i: int):
    """Mirrors ``torch._C._get_function_stack_at``: the ``i``-th mode, outermost first."""
    return _tf_state.modes[i]


def _get_current_function_mode_stack() -> list:
    """Mirrors ``torch.overrides._get_current_function_mode_stack``: this thread's modes,
    outermost first (a copy)."""
    return list(_tf_state.modes)


def _get_current_function_mode():
    """Mirrors ``torch.overrides._get_current_function_mode``: the innermost mode, or
    None."""
    return _tf_state.modes[-1] if _tf_state.modes else None


def _is_torch_function_mode_enabled() -> bool:
    """Mirrors ``torch._C._is_torch_function_mode_enabled``: a mode is on this thread's
    stack and ``DisableTorchFunction`` is not active."""
    return _mode_active()


def _get_overloaded_args(relevant_args: Iterable[Any]) -> list:
    """Mirrors ``torch.overrides._get_overloaded_args``: the arguments whose type defines
    an enabled ``__torch_function__`` (plain Tensors included, as PyTorch's Python path
    counts them), one per type, subclasses before their parents."""
    found: list = []
    for arg in relevant_args:
        t = type(arg)
        if t in [type(a) for a in found]:
            continue
        if t is Tensor or _is_overloaded(arg):
            found.append(arg)
    ordered: list = []
    for a in found:
        idx = len(ordered)
        for i, b in enumerate(ordered):
            if issubclass(type(a), type(b)) and type(a) is not type(b):
                idx = i
                break
        ordered.insert(idx, a)
    return ordered


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args,
                          **kwargs) -> Any:
    """Mirrors ``torch.overrides.handle_torch_function``, the Python path of PyTorch's
    own Python functions: call the innermost mode (if one is active), then the
    ``__torch_function__`` of each argument among ``relevant_args`` that defines one
    (plain Tensors included, as PyTorch does: theirs runs ``public_api`` with subclass
    overrides off) until one returns something other than ``NotImplemented``; PyTorch's
    TypeError when all decline."""
    overloaded = _get_overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    _tf_state.handled += 1
    if _mode_active():
        _, result = _call_mode(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for a in overloaded:
        result = _call_override(a, public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    msg = (f"no implementation found for '{public_api.__module__}.{public_api.__name__}' "
           f"on types that implement __torch_function__: {list(types)}")
    if _mode_active():
        msg += f" nor in mode {_get_current_function_mode()}"
    raise TypeError(msg)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Mirrors ``torch.overrides.has_torch_function``: whether some element of
    ``relevant_args`` overrides (a subclass or duck type with an enabled
    ``__torch_function__``), or, with a mode active, whether there is any element."""
    if _tf_state.disabled_all:
        return False
    mode = _mode_active()
    for a in relevant_args:
        if mode or _is_overloaded(a):
            return True
    return False


def has_torch_function_unary(input: Any) -> bool:
    """Mirrors ``torch.overrides.has_torch_function_unary``: ``has_torch_function((input,))``
    without building the tuple."""
    if _tf_state.disabled_all:
        return False
    return _mode_active() or _is_overloaded(input)


def has_torch_function_variadic(*args: Any) -> bool:
    """Mirrors ``torch.overrides.has_torch_function_variadic``: ``has_torch_function(args)``."""
    return has_torch_function(args)


def is_tensor_like(inp: Any) -> bool:
    """Mirrors ``torch.overrides.is_tensor_like``: a Tensor, or an object whose type
    defines ``__torch_function__``.

    >>> import torchlike as torch
    >>> torch.overrides.is_tensor_like(torch.ones(1)), torch.overrides.is_tensor_like(6)
    (True, False)
    """
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


@functools.lru_cache(None)
def _get_tensor_methods() -> frozenset:
    return frozenset(v for k, v in vars(Tensor).items() if callable(v))


def is_tensor_method_or_property(func: Callable) -> bool:
    """Mirrors ``torch.overrides.is_tensor_method_or_property``: whether ``func`` is a
    method of ``Tensor`` (or a property's ``__get__``), as passed to overrides.

    >>> import torchlike as torch
    >>> from torchlike.overrides import is_tensor_method_or_property
    >>> is_tensor_method_or_property(torch.Tensor.add), is_tensor_method_or_property(torch.add)
    (True, False)
    """
    try:
        if func in _get_tensor_methods():
            return True
    except TypeError:   # unhashable
        pass
    return getattr(func, "__name__", None) == "__get__"


def wrap_torch_function(dispatcher: Callable) -> Callable:
    """Mirrors ``torch.overrides.wrap_torch_function``: a decorator making a function
    overridable; ``dispatcher`` (the function's signature) returns the arguments that
    may override it.

    >>> import torchlike as torch
    >>> @torch.overrides.wrap_torch_function(lambda a: (a,))
    ... def double(a):
    ...     return a * 2
    >>> double(torch.ones(1))
    tensor([2.])
    """
    def inner(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant_args = dispatcher(*args, **kwargs)
            if has_torch_function(relevant_args):
                return handle_torch_function(wrapped, relevant_args, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Mirrors ``torch.overrides.enable_reentrant_dispatch``. PyTorch restores its
    ``__torch_dispatch__`` state inside; torchlike has no dispatch-level modes, so the
    block runs as it is."""
    yield


# Note [Ignored functions]
# PyTorch's ``get_ignored_functions`` lists the public callables that tensor arguments
# cannot override: factories (which modes still see), queries of global state, the
# serialization and compilation entry points, and Tensor methods that are plain
# attribute access. These are the names of that set torchlike has.
_IGNORED_NAMES = (
    "typename", "is_tensor", "is_storage", "set_default_tensor_type", "set_default_device",
    "get_default_device", "set_rng_state", "get_rng_state", "manual_seed", "initial_seed",
    "seed", "save", "load", "set_printoptions", "fork", "get_default_dtype",
    "get_num_interop_threads", "get_num_threads", "init_num_threads", "import_ir_module",
    "import_ir_module_from_buffer", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "is_grad_enabled", "merge_type_from_type_comment", "parse_ir", "parse_schema",
    "parse_type_comment", "set_anomaly_enabled", "set_flush_denormal",
    "set_num_interop_threads", "set_num_threads", "wait", "as_tensor", "from_numpy",
    "get_device", "tensor", "default_generator", "has_cuda", "has_cudnn", "has_lapack",
    "device", "dtype", "finfo", "has_mkl", "has_mps", "has_mkldnn", "has_openmp", "iinfo",
    "memory_format", "qscheme", "set_grad_enabled", "no_grad", "enable_grad",
    "inference_mode", "is_inference_mode_enabled", "layout", "align_tensors", "arange",
    "as_strided", "bartlett_window", "blackman_window", "broadcast_shapes", "can_cast",
    "compile", "cudnn_affine_grid_generator", "cudnn_batch_norm", "cudnn_convolution",
    "cudnn_convolution_transpose", "cudnn_convolution_relu",
    "cudnn_convolution_add_relu", "cudnn_grid_sampler", "cudnn_is_acceptable", "empty",
    "empty_permuted", "empty_strided", "empty_quantized", "export", "eye", "fft",
    "from_file", "full", "frombuffer", "hamming_window", "hann_window", "kaiser_window",
    "linspace", "logspace", "mkldnn_adaptive_avg_pool2d", "mkldnn_convolution",
    "mkldnn_max_pool2d", "mkldnn_max_pool3d", "mkldnn_linear_backward_weights",
    "normal", "ones", "promote_types", "rand", "randn", "randint", "randperm", "range",
    "result_type", "scalar_tensor", "sparse_coo_tensor", "sparse_compressed_tensor",
    "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor", "sparse_bsc_tensor",
    "sym_constrain_range", "sym_constrain_range_for_size", "tril_indices",
    "triu_indices", "vander", "zeros", "asarray", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_default_dtype", "get_rng_state",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "unify_type_list", "is_warn_always_enabled",
    "set_warn_always", "vitals_enabled", "set_vital", "read_vitals", "vmap", "cond",
    "while_loop", "autocast", "is_autocast_enabled", "get_autocast_dtype",
    "set_autocast_enabled", "clear_autocast_cache")
_IGNORED_NN_FUNCTIONAL = ("has_torch_function", "has_torch_function_unary",
                          "has_torch_function_variadic", "handle_torch_function",
                          "boolean_dispatch")
_IGNORED_TENSOR = ("__delattr__", "__dir__", "__getattribute__", "__init__",
                   "__iter__", "__init_subclass__", "__delitem__", "__new__",
                   "__subclasshook__", "__hash__", "as_subclass", "__reduce__",
                   "__reduce_ex__", "__setattr__", "__setstate__", "__class__",
                   "_make_subclass", "_wrap", "data_ptr", "storage_offset",
                   "__torch_function__", "__format__", "__deepcopy__", "_is_view",
                   "is_shared", "share_memory_", "__dlpack__", "__dlpack_device__",
                   "__array__", "__array_wrap__", "__len__")


def get_ignored_functions() -> set:
    """Mirrors ``torch.overrides.get_ignored_functions``: the public torchlike callables
    that ``__torch_function__`` arguments cannot override (Note [Ignored functions]).
    Factories among them are still seen by modes, as in PyTorch."""
    import torchlike
    from torchlike.nn import functional as F
    out: set = set()
    for mod, names in ((torchlike, _IGNORED_NAMES), (F, _IGNORED_NN_FUNCTIONAL),
                       (Tensor, _IGNORED_TENSOR)):
        for n in names:
            f = (vars(Tensor).get(n) if mod is Tensor else getattr(mod, n, None))
            if f is None or isinstance(f, _types.ModuleType):
                continue
            try:
                hash(f)
            except TypeError:
                continue
            out.add(f)
    return out


def get_overridable_functions() -> dict:
    """Mirrors ``torch.overrides.get_overridable_functions``: a dict from namespace
    (``torchlike``, ``torchlike.nn.functional``, ``torchlike.Tensor``) to the list of
    its public functions that overrides and modes can take. Difference: Tensor
    properties are not included, as torchlike does not route property access through
    ``__torch_function__``."""
    import torchlike
    from torchlike.nn import functional as F
    ignored = get_ignored_functions()
    result: dict = collections.defaultdict(list)
    for ns in (torchlike, F):
        for name in dir(ns):
            if name.startswith("_") or name == "overrides":
                continue
            f = getattr(ns, name)
            if (not isinstance(f, (_types.FunctionType, _types.BuiltinFunctionType))
                    or f in ignored or f in result[ns]):
                continue
            result[ns].append(f)
    for name, f in vars(Tensor).items():
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(f, _types.FunctionType) and f not in ignored:
            result[Tensor].append(f)
    return result

