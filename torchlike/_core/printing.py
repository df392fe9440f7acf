"""Tensor printing: a port of PyTorch's formatter (``torch/_tensor_str.py``).

``repr(t)`` prints exactly what PyTorch prints for the same tensor, with ``torchlike.``
where PyTorch writes ``torch.``. The algorithm is PyTorch's (``_Formatter``,
``_tensor_str_with_formatter``, ``get_summarized_data``, ``_str_intern``), run on NumPy
arrays read from the tensor's JAX value instead of on tensor ops, so printing is fast and
records nothing on the autograd tape.

Note [Exact values when formatting]
    PyTorch formats each element as the Python number ``item()``/``tolist()`` returns,
    i.e. the element's exact value as a double. Converting float16/bfloat16/float32 data
    to float64 is exact, so formatting the float64 copy with Python's ``format`` gives the
    same digits, and the same decisions (integer mode, scientific mode, column width).

Note [Column width from four values]
    PyTorch's ``_Formatter`` formats every element once to find the widest. For a fixed
    format (``.4f``, ``.0f``, ``.4e``) the printed width only grows with ``|x|`` within
    one sign, and for ``e`` the exponent's digit count is largest at the smallest or the
    largest ``|x|``. So the widest string is among the formatted largest and smallest
    positive and negative values: four strings instead of one per element, whatever the
    size of the tensor (``profile='full'`` on a big tensor stays quick).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from . import dtype as _dt

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions",
           "PRINT_OPTS"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """Mirrors ``torch.set_printoptions``.

    Args:
        precision: digits after the decimal point for floats (default 4).
        threshold: element count above which a tensor is summarised with ``...``
            (default 1000).
        edgeitems: items shown at each end of a summarised dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``'default'``, ``'short'`` or ``'full'``; the other arguments override it.
        sci_mode: ``True``/``False`` forces scientific notation on/off; ``None`` (the
            default, and what every call without it restores) lets the formatter choose.

    Example::

        >>> torchlike.set_printoptions(precision=2)
        >>> torchlike.tensor([1.12345])
        tensor([1.12])
        >>> torchlike.set_printoptions(profile='default')
    """
    if profile is not None:
        for k, v in _PROFILES.get(profile, {}).items():
            setattr(PRINT_OPTS, k, v)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """Mirrors ``torch.get_printoptions``: the current options, as keyword arguments
    that ``set_printoptions`` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Mirrors ``torch._tensor_str.printoptions``: set print options for a ``with`` block.

    Example::

        >>> with printoptions(precision=1):
        ...     print(torchlike.tensor([1.25]))
        tensor([1.2])
    """
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------
# element formatting
class _Formatter:
    """Chooses how the elements of one (real) array print: integer mode, scientific
    mode and the common column width. ``values`` holds the elements the formatter
    must fit (the summarised data when the tensor is summarised)."""

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        v = values.reshape(-1)
        if v.size == 0:
            return
        if not floating:
            if v.dtype == np.bool_:
                widths = [len(str(bool(b))) for b in np.unique(v)]
            else:
                widths = [len(str(int(v.min()))), len(str(int(v.max())))]
            self.max_width = max(self.max_width, *widths)
            return

        nz = v[np.isfinite(v) & (v != 0)]
        if nz.size == 0:
            return
        a = np.abs(nz)
        lo, hi = float(a.min()), float(a.max())
        self.int_mode = bool(np.all(nz == np.ceil(nz)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        # See Note [Column width from four values].
        pos, neg = nz[nz > 0], nz[nz < 0]
        cands = [float(x) for s in (pos, neg) if s.size for x in (s.min(), s.max())]
        p = PRINT_OPTS.precision
        if self.sci_mode:
            widths = [len(f"{{:.{p}e}}".format(x)) for x in cands]
        elif self.int_mode:
            widths = [len(f"{x:.0f}") + 1 for x in cands]
        else:
            widths = [len(f"{{:.{p}f}}".format(x)) for x in cands]
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{p}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{p}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _element_str(val, f1: _Formatter, f2: _Formatter | None) -> str:
    if f2 is None:
        return f1.format(val)
    real_str = f1.format(val.real)
    imag_str = (f2.format(val.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


# ---------------------------------------------------------------------------
# layout
def _vector_str(a: np.ndarray, indent: int, summarized: bool, f1, f2) -> str:
    element_length = f1.width() + 2
    if f2 is not None:
        element_length += f2.width() + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarized:
        # ``a`` holds only the first and last ``e`` items (see _summarize)
        data = ([_element_str(v, f1, f2) for v in a[:e].tolist()] + [" ..."]
                + [_element_str(v, f1, f2) for v in a[e:].tolist()])
    else:
        data = [_element_str(v, f1, f2) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a: np.ndarray, cut: tuple, indent: int, f1, f2=None) -> str:
    """``cut[d]`` tells whether dimension ``d`` of ``a`` was summarised to its edge items."""
    dim = a.ndim
    if dim == 0:
        return _element_str(a.item(), f1, f2)
    if dim == 1:
        return _vector_str(a, indent, cut[0], f1, f2)
    rows = [_tensor_str_with_formatter(a[i], cut[1:], indent + 1, f1, f2)
            for i in range(a.shape[0])]
    if cut[0]:
        e = PRINT_OPTS.edgeitems
        rows = rows[:e] + ["..."] + rows[e:]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarize(arr, on_host: bool):
    """Keep the first and last ``edgeitems`` entries of every dimension longer than
    twice that (PyTorch's ``get_summarized_data``, also used for layout). Slicing runs
    where the data lives, so only the printed part of an accelerator array is copied."""
    e = PRINT_OPTS.edgeitems
    cut = tuple(n > 2 * e for n in arr.shape)
    if on_host:
        arr = np.asarray(arr)
    for d, c in enumerate(cut):
        if c:
            n = arr.shape[d]
            lead = (slice(None),) * d
            parts = (arr[lead + (slice(0, e),)], arr[lead + (slice(n - e, n),)])
            arr = np.concatenate(parts, axis=d) if on_host else jnp.concatenate(parts, d)
    return np.asarray(arr), cut


def _as_exact(a: np.ndarray) -> np.ndarray:
    """Float data as float64, complex as complex128 (see Note [Exact values when
    formatting]); integers and bools unchanged."""
    if a.dtype.kind in "iub":
        return a
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    if a.dtype.kind != "f":  # bfloat16
        a = a.astype(np.float32)
    return a.astype(np.float64)


def _tensor_str(t, indent: int) -> str:
    value = t._value
    numel = t.numel()
    if numel == 0:
        return "[]"
    summarize = numel > PRINT_OPTS.threshold
    if summarize and not PRINT_OPTS.edgeitems and t.dim() > 0:
        return "[...]"
    on_host = t.device.type == "cpu"
    if summarize:
        a, cut = _summarize(value, on_host)
    else:
        a, cut = np.asarray(value), (False,) * t.dim()
    a = _as_exact(a)
    dt = t.dtype
    if dt.is_complex:
        f1 = _Formatter(a.real, True)
        f2 = _Formatter(a.imag, True)
        return _tensor_str_with_formatter(a, cut, indent, f1, f2)
    f1 = _Formatter(a, dt.is_floating_point)
    return _tensor_str_with_formatter(a, cut, indent, f1)


# Note [Wrapping suffixes]
#     A suffix such as ``dtype=torchlike.int16`` goes on a new line when it would pass
#     ``linewidth``. PyTorch decides this on ``dtype=torch.int16``; to print exactly what
#     PyTorch prints (with our name substituted), the decision uses PyTorch's length, so
#     a line may run up to four characters past ``linewidth``, as the substituted
#     PyTorch output does.
_OUR_PREFIX = "torchlike."
_EXTRA = len(_OUR_PREFIX) - len("torch.")


def _add_suffixes(tensor_str: str, suffixes: list, indent: int, force_newline: bool) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        # See Note [Wrapping suffixes]: measured as PyTorch spells it.
        n = len(suffix) - suffix.count(_OUR_PREFIX) * _EXTRA
        if force_newline or last_line_len + n + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += n + 2
    parts.append(")")
    return "".join(parts)


# ---------------------------------------------------------------------------
# the repr
def tensor_repr(t, *, tensor_contents: str | None = None) -> str:
    """``repr(t)`` as PyTorch's ``Tensor.__repr__`` prints it (``_str_intern``).

    ``tensor_contents`` replaces the printed data, as in PyTorch. A tensor whose value
    is a JAX tracer (inside ``jax.jit``) prints the tracer in place of the data.
    """
    from .tensor import Tensor
    cls_name = type(t).__name__
    is_parameter = cls_name == "Parameter"
    prefix = "tensor(" if type(t) is Tensor or is_parameter else f"{cls_name}("
    indent = len(prefix)
    suffixes = []
    value = t._value
    traced = isinstance(value, jax.core.Tracer)

    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")

    default = _dt.get_default_dtype()
    has_default_dtype = t.dtype in (default, _dt.default_complex(), _dt.int64, _dt.bool)
    if traced:
        if not has_default_dtype:
            suffixes.append(f"dtype={t.dtype}")
        tensor_str = str(value)
    elif t.numel() == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy.
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        # No elements show whether it is an integer tensor: the dtype is always shown.
        if t.dtype is not default:
            suffixes.append(f"dtype={t.dtype}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype={t.dtype}")
        tensor_str = None if tensor_contents is not None else _tensor_str(t, indent)
    if tensor_contents is not None:
        tensor_str = tensor_contents

    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")

    out = _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)
    if is_parameter:
        out = "Parameter containing:\n" + out
    return out
