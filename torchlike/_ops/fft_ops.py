"""Discrete Fourier transforms: the ops behind ``torchlike.fft`` (``fft_fft``,
``fft_rfft2``, ``fft_ihfftn``...), named as PyTorch's ATen names them.

Each op is declared once here with ``function=False, method=False``; the public functions
of ``torchlike/fft/__init__.py`` call them through the dispatcher, so
``__torch_function__``, autocast (PyTorch's CPU list names the ``fft_*`` ops) and
autograd apply as for every table op. The transforms are ``jax.numpy.fft`` calls.

# Note [FFT families]
# PyTorch computes every transform with one of three kernels, which decide its errors,
# its dtypes and the name of its autograd node:
#   c2c  complex to complex: fft, ifft, fft2, ifft2, fftn, ifftn (a real input is first
#        made complex; 1-D ``fft``/``ifft`` of a real input use r2c instead, and
#        ``ifft`` conjugates its result, whence ``ConjBackward0``);
#   r2c  real to one-sided complex: rfft, rfft2, rfftn and ihfft, ihfft2, ihfftn
#        (``ihfftn(x) = conj(rfftn(x)) / N``, the last transformed dim one-sided);
#   c2r  one-sided complex to real: irfft, irfft2, irfftn and hfft, hfft2, hfftn
#        (``hfftn(x) = irfftn(conj(x)) * N``); the output has ``n`` (default
#        ``2 * (m - 1)`` for ``m`` input points) points along the last transformed dim,
#        the input is cut or zero-padded to ``n // 2 + 1`` there, and the imaginary parts
#        of its zero-frequency (and, for even ``n``, Nyquist) terms are ignored.
# ``n``/``s`` cut or zero-pad the input along the transformed dims before the transform;
# ``-1`` in ``s`` keeps a dim's size. ``norm`` scales by ``1/n`` the backward transform
# ("backward", the default), the forward one ("forward"), or both by ``1/sqrt(n)``
# ("ortho").
#
# Note [FFT dtypes]
# Integer and bool inputs become the default float dtype first (the dispatcher's "float"
# promotion); float32/float64 give complex64/complex128 results (float32/float64 for
# c2r). PyTorch's CPU kernels refuse float16 and bfloat16 ("Unsupported dtype Half"), and
# so does torchlike on every device: under ``autocast("cpu")`` PyTorch's list casts the
# inputs of the ops it names (all but hfft2, hfftn, ihfft2 and ihfftn) to float32 first,
# which the table's autocast policies reproduce. r2c transforms refuse complex inputs
# with PyTorch's messages.
#
# Note [FFT gradients]
# Every transform is linear over the reals (the complex cast of a real input and ``conj``
# included), so autograd's ``jax.vjp`` of the op's function is its adjoint: for c2c
# ``ifft``/``fft`` of the gradient, for r2c the one-sided gradient zero-padded to a full
# spectrum, transformed back and made real, and for c2r the ``rfft`` of the gradient with
# the terms that stand for two (all but zero frequency and Nyquist) doubled. These are
# the formulas of PyTorch's ``fft_r2c_backward``/``fft_c2r_backward``; the tests compare
# every op's gradient with ``torch.autograd`` on real and complex inputs. No op saves a
# tensor for backward (``saves=False``), as PyTorch's FFT nodes save none.
#
# Note [FFT of empty batches]
# A transform over dims of size 0 is refused by PyTorch and here alike ("Invalid number of
# data points (0) specified"). A transform over non-empty dims of a tensor with another
# dim of size 0 gives an empty result here (as PyTorch does with its pocketfft and CUDA
# backends); PyTorch's x86 CPU builds use MKL, which raises "MKL FFT error: Intel oneMKL
# DFTI ERROR: Inconsistent configuration parameters" there.
"""

from __future__ import annotations


import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import is_int_arg
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["FFT_OPS", "check_arg_types", "out_kind_error", "out_plan"]

_NORMS = (None, "backward", "forward", "ortho")
# hfftn and ihfftn are irfftn and rfftn run in the other direction, so a norm mode names
# the other one of theirs ("backward" leaves hfftn unscaled and scales irfftn by 1/n)
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _short(d) -> str:
    from .bind import dtype_short_name
    return dtype_short_name(d)


# ---------------------------------------------------------------------------
# argument types (PyTorch's argument parser)
def _where(pos: int | None) -> str:
    return f" (position {pos})" if pos else ""


def _int_type(fname: str, name: str, v, pos: int | None, optional: bool) -> None:
    if (optional and v is None) or is_int_arg(v):
        return
    raise TypeError(f"{fname}(): argument '{name}'{_where(pos)} must be int, not "
                    f"{type(v).__name__}")


def _int_list_type(fname: str, name: str, v, pos: int | None) -> None:
    """An ``int[]?`` parameter: None, an int, or a sequence of ints (bools pass as
    elements, as PyTorch's parser lets them)."""
    if v is None or is_int_arg(v):
        return
    if isinstance(v, (tuple, list)):
        for i, e in enumerate(v):
            if is_int_arg(e) or isinstance(e, (bool, np.bool_)):
                continue
            t = type(e).__name__
            if i > 0:
                raise TypeError(f"{fname}(): argument '{name}' failed to unpack the object at "
                                f"pos {i + 1} with error \"type must be tuple of ints,but got "
                                f"{t}\"")
            if pos:
                raise TypeError(f"{fname}(): argument '{name}'{_where(pos)} must be tuple of "
                                f"ints, but found element of type {t} at pos 0")
            break
        else:
            return
    raise TypeError(f"{fname}(): argument '{name}'{_where(pos)} must be tuple of ints, not "
                    f"{type(v).__name__}")


def check_arg_types(spec: OpSpec, vals, npos: int = 0) -> None:
    """PyTorch's TypeErrors for the arguments ``vals`` of transform ``spec``; the first
    ``npos`` were given by position (the messages then name it)."""
    fname = spec.name
    info = spec.extra["fft"]
    if not isinstance(vals[0], Tensor):
        raise TypeError(f"{fname}(): argument 'input'{_where(1 if npos else None)} must be "
                        f"Tensor, not {type(vals[0]).__name__}")
    if info["nd"] == 1:
        _int_type(fname, "n", vals[1], 2 if npos > 1 else None, True)
        _int_type(fname, "dim", vals[2], 3 if npos > 2 else None, False)
    else:
        _int_list_type(fname, "s", vals[1], 2 if npos > 1 else None)
        _int_list_type(fname, "dim", vals[2], 3 if npos > 2 else None)
    norm = vals[3]
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"{fname}(): argument 'norm'{_where(4 if npos > 3 else None)} must "
                        f"be str, not {type(norm).__name__}")


# ---------------------------------------------------------------------------
# shapes and dims (PyTorch's canonicalize_fft_shape_and_dim_args)
def _wrap(d: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def _points(n: int) -> None:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _as_ints(v) -> tuple | None:
    if v is None:
        return None
    if is_int_arg(v):
        return (int(v),)
    return tuple(int(e) for e in v)


def _shape_and_dims(sizes: tuple, s, dim) -> tuple:
    """``(shape, dims)``: the transformed dims (wrapped) and the signal size along each."""
    ndim = len(sizes)
    s, dim = _as_ints(s), _as_ints(dim)
    if dim is not None:
        dims = tuple(_wrap(d, ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dim is None:
            dims = tuple(range(ndim - len(s), ndim))
        shape = tuple(sizes[d] if n == -1 else n for n, d in zip(s, dims))
    elif dim is None:
        dims, shape = tuple(range(ndim)), tuple(sizes)
    else:
        shape = tuple(sizes[d] for d in dims)
    for n in shape:
        _points(n)
    return shape, dims


def _c2r_shape_and_dims(fname: str, sizes: tuple, s, dim) -> tuple:
    """``_shape_and_dims`` of a c2r transform: the last entry of the shape is the output
    size ``n`` of the last transformed dim."""
    shape, dims = _shape_and_dims(sizes, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    s = _as_ints(s)
    last = 2 * (sizes[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _points(last)
    return shape[:-1] + (last,), dims


def _one_dim(sizes: tuple, n, dim, c2r: bool) -> tuple:
    """``((n,), (dim,))`` of a 1-D transform."""
    d = _wrap(int(dim), len(sizes))
    if n is None:
        n = 2 * (sizes[d] - 1) if c2r else sizes[d]
    n = int(n)
    _points(n)
    return (n,), (d,)


def _plan(info: dict, sizes: tuple, n_or_s, dim) -> tuple:
    """``(shape, dims)`` of a call: the signal sizes (the output sizes, for c2r) and the
    transformed dims."""
    c2r = info["family"] == "c2r"
    if info["nd"] == 1:
        return _one_dim(sizes, n_or_s, dim, c2r)
    if c2r:
        return _c2r_shape_and_dims(info["kernel"], sizes, n_or_s, dim)
    shape, dims = _shape_and_dims(sizes, n_or_s, dim)
    if not shape and info["family"] == "r2c":
        raise RuntimeError(f"{info['kernel']} must transform at least one axis")
    return shape, dims


def _check_norm(norm) -> None:
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _supported(dt) -> None:
    """PyTorch's CPU kernels compute in float32/float64 (and their complex types)."""
    if dt is _dt.float16 or dt is _dt.bfloat16:
        raise RuntimeError(f"Unsupported dtype {_short(dt)}")


# ---------------------------------------------------------------------------
# the checks, in PyTorch's order (SpectralOps.cpp)
def _make_check(spec_name: str, info: dict):
    family, nd, kernel = info["family"], info["nd"], info["kernel"]

    def check(input, n_or_s=None, dim=-1, norm=None):
        check_arg_types(_SPECS[spec_name], (input, n_or_s, dim, norm))
        dt = input.dtype
        if family == "r2c" and dt.is_complex and kernel != "ihfftn":
            if nd == 1:
                raise RuntimeError(f"{kernel} expects a real input tensor, but got "
                                   f"{_short(dt)}")
            raise RuntimeError(f"rfftn expects a real-valued input tensor, but got "
                               f"{_short(dt)}")
        if nd == 1:
            _supported(dt)
            _plan(info, input._shape, n_or_s, dim)
        else:
            _plan(info, input._shape, n_or_s, dim)
            _supported(dt)
        _check_norm(norm)
        if kernel == "ihfftn" and dt.is_complex:
            raise RuntimeError(f"Only supports floating-point dtypes, but found: "
                               f"{_short(dt)}")
    return check


# ---------------------------------------------------------------------------
# the transforms
def _complex(x):
    if jnp.iscomplexobj(x):
        return x
    return x.astype(jnp.complex128 if x.dtype == jnp.float64 else jnp.complex64)


def _transform(info: dict, x, n_or_s, dim, norm):
    shape, dims = _plan(info, x.shape, n_or_s, dim)
    family, inverse = info["family"], info["inverse"]
    norm = "backward" if norm is None else norm
    if family == "c2c":
        x = _complex(x)
        if not dims:
            return x
        f = jnp.fft.ifftn if inverse else jnp.fft.fftn
        return f(x, s=shape, axes=dims, norm=norm)
    if family == "r2c":   # rfftn, or ihfftn = conj(rfftn) with the norm of the other way
        if inverse:
            return jnp.conj(jnp.fft.rfftn(x, s=shape, axes=dims, norm=_SWAP[norm]))
        return jnp.fft.rfftn(x, s=shape, axes=dims, norm=norm)
    x = _complex(x)       # irfftn, or hfftn = irfftn(conj) with the norm of the other way
    if inverse:
        return jnp.fft.irfftn(x, s=shape, axes=dims, norm=norm)
    return jnp.fft.irfftn(jnp.conj(x), s=shape, axes=dims, norm=_SWAP[norm])


def _grad_name(info: dict):
    family, nd, inverse = info["family"], info["nd"], info["inverse"]

    def name(input, n_or_s=None, dim=-1, norm=None):
        if family == "c2r":
            return "FftC2RBackward0"
        if family == "r2c":
            if not inverse:
                return "FftR2CBackward0"
            # ihfftn over one dim conjugates the r2c result; over more, its last step is c2c
            if nd == 1 or len(_plan(info, input._shape, n_or_s, dim)[1]) == 1:
                return "ConjBackward0"
            return "FftC2CBackward0"
        if nd == 1 and not input.dtype.is_complex:
            return "ConjBackward0" if inverse else "FftR2CBackward0"
        return "FftC2CBackward0"
    return name


# ---------------------------------------------------------------------------
# out= (the public functions take it; see torchlike/fft/__init__.py)
def out_plan(spec: OpSpec, vals) -> tuple:
    """``(kernel, rule)`` of an ``out=`` call of ``spec`` with arguments ``vals`` (already
    checked): the kernel PyTorch names when it refuses autograd, and the dtype rule of
    the write ("same": exactly the result's dtype, where PyTorch's last step is
    ``conj_physical``; "cast": any complex, or floating, dtype)."""
    info = spec.extra["fft"]
    family, nd, inverse = info["family"], info["nd"], info["inverse"]
    input = vals[0]
    if family == "c2r":
        return "_fft_c2r", "cast"
    if family == "r2c":
        if not inverse:
            return "_fft_r2c", "cast"
        if nd == 1 or len(_plan(info, input._shape, vals[1], vals[2])[1]) == 1:
            return "aten::conj_physical", "same"
        return "_fft_c2c", "cast"
    if nd == 1 and not input.dtype.is_complex:
        return ("aten::conj_physical", "same") if inverse else ("_fft_r2c", "cast")
    return "_fft_c2c", "cast"


def out_kind_error(spec: OpSpec, out: Tensor) -> RuntimeError | None:
    """PyTorch's error for an ``out`` whose dtype is of the wrong kind (real for a
    complex result, or not floating for a real one), or None."""
    info = spec.extra["fft"]
    dt = out.dtype
    if info["family"] == "c2r":
        if not dt.is_floating_point:
            return RuntimeError(f"{info['kernel']} expects a floating point output tensor, but "
                                f"got {_short(dt)}")
    elif not dt.is_complex:
        return RuntimeError(f"{info['kernel']} expects a complex output tensor, but got "
                            f"{_short(dt)}")
    return None


# ---------------------------------------------------------------------------
# samples
def _E(*args, **kwargs) -> S:
    """A sample PyTorch refuses (the tests compare the exception and its message)."""
    return S(*args, grad=False, note="raises", **kwargs)


def _1d_samples(info: dict):
    """Real, integer and (but for r2c) complex inputs; ``n`` shorter and longer than the
    input, negative dims, each norm, a 0-size input padded by ``n``; the error paths.
    Gradients on a real and complex selection (each costs a compiled backward)."""
    family = info["family"]
    out = [
        S(arr(8)), S(arr(3, 5), n=4, norm="forward"),
        S(arr(2, 3, 4, dtype="float64"), 9, -2, "ortho"),
        S(arr(0, 4), n=3, dim=0, grad=False), S(arr(6, dtype="int64")),
    ]
    if family == "r2c":
        out += [S(arr(2, 6), norm="forward"), S(arr(1, 9), n=16, norm="ortho", grad=False)]
    else:
        out += [S(arr(7, dtype="complex64")),
                S(arr(3, 4, dtype="complex128"), n=6, dim=0, norm="ortho"),
                S(arr(2, 5, dtype="complex64"), n=3, norm="backward", grad=False)]
    if family == "c2r":   # odd output sizes
        out += [S(arr(3, 5, dtype="complex64"), n=9, grad=False), S(arr(2, 5), n=7, grad=False)]
    errors = [
        _E(arr(3, 4), n=0), _E(arr(3, 4), n=-2), _E(arr(3, 4), dim=2), _E(arr(3, 4), dim=-3),
        _E(arr(3, 4), norm="bad"), _E(arr()), _E(arr(4, dtype="float16")),
        _E(arr(4, dtype="bfloat16")), _E(arr(0)),
    ]
    if family == "c2r":
        errors.append(_E(arr(3, 1, dtype="complex64")))   # n = 2 * (1 - 1)
    if family == "r2c":
        errors += [_E(arr(4, dtype="complex64")), _E(arr(3, 4, dtype="complex128"), n=0)]
    return out + errors


def _nd_samples(info: dict, two: bool):
    """As ``_1d_samples``, with ``s`` and ``dim`` (``-1`` in ``s``, dims in any order,
    more than three dims)."""
    family = info["family"]
    out = [
        S(arr(4, 5)), S(arr(2, 3, 4), s=(3, 6)),
        S(arr(3, 4, 5, dtype="float64"), dim=(0, 2), norm="ortho"),
        S(arr(2, 3, 4), s=(5, -1), dim=(-1, 0), norm="forward", grad=False),
        S(arr(3, 4, dtype="int64")), S(arr(0, 4), s=(3, 4), grad=False),
        S(arr(3, 4, dtype="float64"), (4, 7), (1, 0), "backward", grad=False),
    ]
    if family != "r2c":
        out += [S(arr(3, 4, dtype="complex64")),
                S(arr(2, 3, 5, dtype="complex128"), s=(4, 4), norm="ortho")]
    if family == "c2r":
        out.append(S(arr(3, 5), s=(3, 9), grad=False))
    errors = [
        _E(arr(3, 4), s=(0, 2)), _E(arr(3, 4), s=(-2, 2)), _E(arr(3, 4), dim=(0, 0)),
        _E(arr(3, 4), dim=(0, -2)), _E(arr(3, 4), dim=(0, 2)), _E(arr(3, 4), s=(2,), dim=(0, 1)),
        _E(arr(3, 4), norm="bad"), _E(arr(3, 4, dtype="float16")), _E(arr(4, 0)),
        _E(arr(3, 4), s=(1, 2, 3)),
    ]
    if two:
        out.append(S(arr(3, 4), dim=1, grad=False))
        errors += [_E(arr(3, 4), s=()), _E(arr(4)), _E(arr())]
    else:
        out += [S(arr(2, 2, 3, 2, 2)), S(arr(3, 4), s=4, grad=False)]
        if family == "c2c":
            out += [S(arr()), S(arr(3, 4, dtype="complex64"), s=())]
        else:
            errors += [_E(arr(3, 4), dim=()), _E(arr())]
    if family == "r2c":
        errors += [_E(arr(3, 4, dtype="complex64")), _E(arr(3, 4, dtype="complex64"), s=(0, 2))]
    if family == "c2r":
        errors.append(_E(arr(3, 1, dtype="complex64")))
    return out + errors


# ---------------------------------------------------------------------------
# the ops
_SPECS: dict = {}
FFT_OPS: dict = {}   # public name (``fft``, ``rfft2``...) -> op name (``fft_fft``...)

# public name -> (family, nd, inverse, kernel): ``inverse`` runs the backward direction of
# the family's transform (ifft, ihfft as conj(rfft), irfft; hfft is irfft of the conjugate
# run forward); ``kernel`` is the name PyTorch's messages give (the n-D functions share
# the ``*n`` one)
_TABLE = {
    "fft": ("c2c", 1, False, "fft"), "ifft": ("c2c", 1, True, "ifft"),
    "fft2": ("c2c", 2, False, "fftn"), "ifft2": ("c2c", 2, True, "fftn"),
    "fftn": ("c2c", "n", False, "fftn"), "ifftn": ("c2c", "n", True, "fftn"),
    "rfft": ("r2c", 1, False, "rfft"), "ihfft": ("r2c", 1, True, "ihfft"),
    "rfft2": ("r2c", 2, False, "rfftn"), "ihfft2": ("r2c", 2, True, "ihfftn"),
    "rfftn": ("r2c", "n", False, "rfftn"), "ihfftn": ("r2c", "n", True, "ihfftn"),
    "irfft": ("c2r", 1, True, "irfft"), "hfft": ("c2r", 1, False, "hfft"),
    "irfft2": ("c2r", 2, True, "irfftn"), "hfft2": ("c2r", 2, False, "hfftn"),
    "irfftn": ("c2r", "n", True, "irfftn"), "hfftn": ("c2r", "n", False, "hfftn"),
}

_DOC = {
    "fft": "the 1-D discrete Fourier transform",
    "ifft": "the 1-D inverse discrete Fourier transform",
    "fft2": "the 2-D discrete Fourier transform",
    "ifft2": "the 2-D inverse discrete Fourier transform",
    "fftn": "the N-D discrete Fourier transform",
    "ifftn": "the N-D inverse discrete Fourier transform",
    "rfft": "the one-sided 1-D Fourier transform of a real input",
    "irfft": "the inverse of ``rfft``: a real signal from its one-sided spectrum",
    "rfft2": "the one-sided 2-D Fourier transform of a real input",
    "irfft2": "the inverse of ``rfft2``",
    "rfftn": "the one-sided N-D Fourier transform of a real input",
    "irfftn": "the inverse of ``rfftn``",
    "hfft": "the 1-D Fourier transform of a Hermitian-symmetric signal (real result)",
    "ihfft": "the inverse of ``hfft``: the one-sided spectrum of a real input",
    "hfft2": "the 2-D Fourier transform of a Hermitian-symmetric signal",
    "ihfft2": "the inverse of ``hfft2``",
    "hfftn": "the N-D Fourier transform of a Hermitian-symmetric signal",
    "ihfftn": "the inverse of ``hfftn``",
}


def _declare(public: str) -> None:
    family, nd, inverse, kernel = _TABLE[public]
    info = {"family": family, "nd": 1 if nd == 1 else 2, "inverse": inverse,
            "kernel": kernel}
    name = "fft_" + public
    if nd == 1:
        sig, size = "input, n=None, dim=-1, norm=None", "n"
    elif nd == 2:
        sig, size = "input, s=None, dim=(-2, -1), norm=None", "s"
    else:
        sig, size = "input, s=None, dim=None, norm=None", "s"

    def fn(input, n_or_s, dim, norm):
        return _transform(info, input, n_or_s, dim, norm)
    fn.__name__ = fn.__qualname__ = name
    samples = (lambda: _1d_samples(info)) if nd == 1 else (lambda: _nd_samples(info, nd == 2))
    _SPECS[name] = register(OpSpec(
        name, fn, sig, promote="float", function=False, method=False, saves=False,
        check=_make_check(name, info), grad_name=_grad_name(info), samples=samples,
        extra={"fft": info, "fft_public": public},
        doc=f"Mirrors ``torch.fft.{public}``: {_DOC[public]} along ``dim`` (signal size "
            f"``{size}``), normalized by ``norm``."))
    FFT_OPS[public] = name


for _public in _TABLE:
    _declare(_public)
