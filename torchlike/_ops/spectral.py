"""Short-time Fourier transforms: ``stft`` and ``istft`` (functions and Tensor methods).

Each is one table op: its pure function pads, frames, windows and transforms (or
transforms back, windows and overlap-adds) in one XLA program, so a call is one cached
executable and one autograd node whose backward is ``jax.vjp`` of that function (the
gradient flows to the signal and to the window, as in PyTorch).

# Note [stft as PyTorch splits it]
# ``torch.stft`` is a Python function that pads the signal for ``center=True`` with
# ``F.pad(input.view(1, 1, L), [n_fft // 2] * 2, pad_mode)`` and then calls the C++
# kernel without ``center``. So the padding's errors come first (an unknown mode, a
# reflection pad as long as the signal, a bool signal PyTorch cannot reflect), then
# the argument parser's TypeError, then the kernel's checks, whose messages print the
# padded signal (``stft(torch.FloatTensor[28], n_fft=8, ...)``). The kernel's message
# for a bad ``n_fft`` prints ``win_length`` as ``n_fft=``; so does ours. The check
# below follows that order; the op's function does the same arithmetic: frames
# ``x[t * hop : t * hop + n_fft]`` of the padded signal, times the window zero-padded
# (centered) to ``n_fft``, each transformed (one-sided for a real signal and window,
# ``1/sqrt(n_fft)`` scaling for ``normalized``), laid out as (B?, freq, frames).
#
# Note [istft's window envelope]
# ``istft`` divides the overlap-added frames by the overlap-added squared window (the
# envelope). PyTorch refuses a window whose envelope has a value below 1e-11 inside the
# kept span (the NOLA condition), naming it "window overlap add min". The envelope
# depends only on the window and the sizes, never on the signal, so the eager check
# computes it with NumPy from the window's values (the same arithmetic, in the window's
# dtype). Inside a compiled function a traced window has no values to check: there a
# window that breaks NOLA gives inf/nan samples instead of PyTorch's error (a window
# left as None is still checked).
#
# Note [Short-time transforms' dtypes]
# ``stft`` multiplies the frames by the window, so the transform runs in the promoted
# dtype of signal and window (``promote="common"`` casts both first; the cast of the
# signal is exact, so the products are the ones PyTorch forms). float16 and bfloat16
# reach PyTorch's CPU FFT and are refused there ("MKL FFT doesn't support tensors of
# type: Half"), which torchlike mirrors on every device. ``istft`` transforms back in the
# input's precision and only then multiplies by the window, so it keeps the dtypes apart
# (``promote="none"``) and promotes each product as PyTorch does.
"""

from __future__ import annotations


import jax.numpy as jnp
import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ._common import is_int_arg, shape_str, warn_at_caller
from .bind import dtype_short_name
from .samples import S, arr
from .spec import OpSpec, register

__all__ = ["STFT_WINDOW_WARNING", "ISTFT_WINDOW_WARNING", "RETURN_COMPLEX_WARNING",
           "LENGTH_WARNING"]

STFT_WINDOW_WARNING = (
    "A window was not provided. A rectangular window will be applied,which is known to "
    "cause spectral leakage. Other windows such as torch.hann_window or "
    "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
    "warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`.")
ISTFT_WINDOW_WARNING = (
    "A window was not provided. A rectangular window will be applied.Please provide the "
    "same window used by stft to make the inversion lossless.To suppress this warning and "
    "use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
RETURN_COMPLEX_WARNING = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
    "return complex tensors for all inputs, and return_complex=False will raise an "
    "error.\nNote: you can still call torch.view_as_real on the complex output to recover "
    "the old return format.")
LENGTH_WARNING = (
    "The length of signal is shorter than the length parameter. Result is being padded "
    "with zeros in the tail. Please check your center and hop_length settings.")
_RETURN_COMPLEX_REQUIRED = (
    "stft requires the return_complex parameter be given for real inputs, and will "
    "further require that return_complex=True in a future PyTorch release.")
_ONESIDED_COMPLEX = "Cannot have onesided output if window or input is complex"
_STFT_OVERLOADS = (
    '(Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window '
    '= None, bool center = True, str pad_mode = "reflect", bool normalized = False, bool '
    'onesided = None, bool return_complex = None, bool align_to_window = None)',
    '(Tensor input, int n_fft, int hop_length = None, int win_length = None, Tensor window '
    '= None, bool normalized = False, bool onesided = None, bool return_complex = None, '
    'bool align_to_window = None)')
# ``torch.nn.functional.pad``'s modes, as ``jnp.pad`` names them
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}
_LEGACY_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte"}


# ---------------------------------------------------------------------------
# what PyTorch's messages print
def _type_string(t: Tensor) -> str:
    """``Tensor::toString()``: ``torch.FloatTensor`` for the legacy types, else
    ``CPUComplexFloatType`` (``cuda``/``CUDA`` on an accelerator)."""
    cuda = t.device.type == "cuda"
    legacy = _LEGACY_NAMES.get(t.dtype.name)
    if legacy is not None:
        return f"torch.{'cuda.' if cuda else ''}{legacy}Tensor"
    return f"{'CUDA' if cuda else 'CPU'}{dtype_short_name(t.dtype)}Type"


def _opt(v) -> str:
    """An optional int or bool as C++ streams it (a bool as 0/1)."""
    if v is None:
        return "None"
    return str(int(v))


def _window_repr(window) -> str:
    if window is None:
        return "None"
    return f"{_type_string(window)}{{{shape_str(window._shape)}}}"


def _type_name(v) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _defaults(n_fft: int, hop_length, win_length) -> tuple:
    return (int(n_fft) >> 2 if hop_length is None else int(hop_length),
            int(n_fft) if win_length is None else int(win_length))


def _centered_window(window, win: int, n_fft: int, dtype):
    """The window zero-padded on both sides to ``n_fft`` (ones for None; None when no
    multiplication is needed)."""
    if window is None:
        if win == n_fft:
            return None
        window = jnp.ones((win,), dtype)
    left = (n_fft - win) // 2
    return jnp.pad(window, (left, n_fft - win - left))


def _frame_index(n_frames: int, n_fft: int, hop: int) -> np.ndarray:
    return (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).astype(np.int32)


# ---------------------------------------------------------------------------
# stft
def _pad_check(input: Tensor, pad: int, mode) -> tuple:
    """``F.pad(input.view(1, 1, L), [pad, pad], mode)``'s errors; the padded shape, as
    ``torch.stft`` hands it to the kernel."""
    shape = input._shape
    nd = len(shape)
    ext = (1,) * max(0, 3 - nd) + shape
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not "
                        f"{type(mode).__name__}")
    if mode != "constant":
        if mode not in _PAD_MODES:
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        if len(ext) != 3:
            raise NotImplementedError(
                f"Padding size 2 is not supported for {len(ext)}D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        if mode == "circular":
            if pad > ext[2]:
                raise RuntimeError("Padding value causes wrapping around more than once.")
        else:
            if ext[1] == 0 or ext[2] == 0:
                raise RuntimeError("Expected 2D or 3D (batch mode) tensor with possibly 0 "
                                   "batch size and other non-zero dimensions for input, but "
                                   f"got: {shape_str(ext)}")
            if mode == "reflect" and pad >= ext[2]:
                raise RuntimeError(f"Argument #4: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({pad}, "
                                   f"{pad}) at dimension 2 of input {shape_str(ext)}")
            if input.dtype is _dt.bool:
                kernel = "reflection_pad1d" if mode == "reflect" else "replication_pad1d"
                raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    padded = ext[:-1] + (ext[-1] + 2 * pad,)
    return padded[len(ext) - nd:] if nd else padded


def _stft_types(input, n_fft, hop_length, win_length, window, normalized, onesided,
                return_complex, align_to_window) -> None:
    """The argument parser of PyTorch's C++ ``stft``."""
    vals = (input, n_fft, hop_length, win_length, window, normalized, onesided,
            return_complex, align_to_window)
    ok = (isinstance(input, Tensor) and is_int_arg(n_fft)
          and all(v is None or is_int_arg(v) for v in (hop_length, win_length))
          and (window is None or isinstance(window, Tensor))
          and isinstance(normalized, (bool, np.bool_))
          and all(v is None or isinstance(v, (bool, np.bool_))
                  for v in (onesided, return_complex, align_to_window)))
    if not ok:
        lines = "\n".join(f" * {o}" for o in _STFT_OVERLOADS)
        raise TypeError(f"stft() received an invalid combination of arguments - got "
                        f"({', '.join(_type_name(v) for v in vals)}), but expected one "
                        f"of:\n{lines}\n")


def _stft_check(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
                pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
                align_to_window=None):
    """PyTorch's errors and warnings, in its order (Note [stft as PyTorch splits it])."""
    if center and not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'dim'")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    shape = _pad_check(input, int(n_fft // 2), pad_mode) if center else None
    _stft_types(input, n_fft, hop_length, win_length, window, normalized, onesided,
                return_complex, align_to_window)
    if shape is None:
        shape = input._shape
    n_fft = int(n_fft)
    hop, win = _defaults(n_fft, hop_length, win_length)

    def fail(what: str):
        raise RuntimeError(
            f"stft({_type_string(input)}{shape_str(shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_window_repr(window)}, normalized={int(normalized)}, "
            f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
            f"align_to_window={_opt(align_to_window)}) : {what}")

    if window is None:
        warn_at_caller(STFT_WINDOW_WARNING)
    complex_input = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if not (complex_input if return_complex is None else return_complex):
        if return_complex is None:
            raise RuntimeError(_RETURN_COMPLEX_REQUIRED)
        warn_at_caller(RETURN_COMPLEX_WARNING)
    dt = input.dtype
    if not (dt.is_floating_point or dt.is_complex):
        fail("expected a tensor of floating point or complex values")
    if len(shape) not in (1, 2):
        fail("expected a 1D or 2D tensor")
    length = shape[-1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window._shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window "
             f"with size {shape_str(window._shape)}")
    if not center and align_to_window:
        # PyTorch frames the padded signal with ``as_strided`` and refuses frames that
        # would read past its storage
        n_frames = 1 + (length - win) // hop
        padded = length + 2 * ((n_fft - win) // 2)
        batch = shape[0] if len(shape) == 2 else 1
        need = (batch - 1) * padded + (n_frames - 1) * hop + n_fft
        if need > batch * padded:
            item = dt.itemsize
            raise RuntimeError(
                f"setStorage: sizes [{batch}, {n_frames}, {n_fft}], strides [{padded}, {hop}, "
                f"1], storage offset 0, and itemsize {item} requiring a storage size of "
                f"{need * item} are out of bounds for storage of size {batch * padded * item}")
    work = dt if window is None else _dt.promote_types(dt, window.dtype)
    if work is _dt.float16 or work is _dt.bfloat16:
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: "
                           f"{dtype_short_name(work)}")
    if work.is_complex and onesided:
        raise RuntimeError(_ONESIDED_COMPLEX)


def _stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
          onesided, return_complex, align_to_window):
    hop, win = _defaults(n_fft, hop_length, win_length)
    x = input
    if center:
        pad = n_fft // 2
        if x.ndim == 0:   # PyTorch pads the view (1, 1, 1) and keeps all three dims
            x = x.reshape(1, 1, 1)
        x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(pad, pad)], mode=_PAD_MODES[pad_mode])
    batched = x.ndim == 2
    if not batched:
        x = x[None]
    length = x.shape[-1]
    w = _centered_window(window, win, n_fft, x.dtype)
    if not center and align_to_window:
        n_frames = 1 + (length - win) // hop
        side = (n_fft - win) // 2
        x = jnp.pad(x, [(0, 0), (side, side)])
    else:
        n_frames = 1 + (length - n_fft) // hop
    frames = x[:, _frame_index(n_frames, n_fft, hop)]        # (B, frames, n_fft)
    if w is not None:
        frames = frames * w
    norm = "ortho" if normalized else "backward"
    if jnp.iscomplexobj(frames):
        out = jnp.fft.fft(frames, axis=-1, norm=norm)
    elif onesided is None or onesided:
        out = jnp.fft.rfft(frames, axis=-1, norm=norm)
    else:
        ctype = jnp.complex128 if frames.dtype == jnp.float64 else jnp.complex64
        out = jnp.fft.fft(frames.astype(ctype), axis=-1, norm=norm)
    out = jnp.swapaxes(out, 1, 2)                            # (B, freq, frames)
    if not batched:
        out = out[0]
    if return_complex is False:
        out = jnp.stack([out.real, out.imag], axis=-1)
    return out


def _stft_grad_name(input, n_fft, hop_length=None, win_length=None, window=None,
                    center=True, pad_mode="reflect", normalized=False, onesided=None,
                    return_complex=None, align_to_window=None) -> str:
    if return_complex is False:
        return "ViewAsRealBackward0"
    return "SqueezeBackward4" if input.dim() == 1 else "TransposeBackward1"


# ---------------------------------------------------------------------------
# istft
def _istft_types(input, n_fft, hop_length, win_length, window, center, normalized,
                 onesided, length, return_complex) -> None:
    """The argument parser of PyTorch's C++ ``istft``."""
    def bad(name: str, kind: str, v, pos: int | None = None):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"istft(): argument '{name}'{where} must be {kind}, not "
                        f"{type(v).__name__}")
    if not isinstance(input, Tensor):
        bad("input", "Tensor", input, 1)
    if not is_int_arg(n_fft):
        bad("n_fft", "int", n_fft, 2)
    for name, v in (("hop_length", hop_length), ("win_length", win_length)):
        if v is not None and not is_int_arg(v):
            bad(name, "int", v)
    if window is not None and not isinstance(window, Tensor):
        bad("window", "Tensor", window)
    for name, v in (("center", center), ("normalized", normalized)):
        if not isinstance(v, (bool, np.bool_)):
            bad(name, "bool", v)
    if onesided is not None and not isinstance(onesided, (bool, np.bool_)):
        bad("onesided", "bool", onesided)
    if length is not None and not is_int_arg(length):
        bad("length", "int", length)
    if not isinstance(return_complex, (bool, np.bool_)):
        bad("return_complex", "bool", return_complex)


def _envelope(window, n_fft: int, win: int, hop: int, n_frames: int, start: int, end):
    """The squared window overlap-added over ``n_frames`` frames, cut to [start:end]
    (Note [istft's window envelope]); None when the window's values are not known."""
    if window is None:
        w = np.ones((win,), np.float32)
    else:
        import jax
        if isinstance(window._value, jax.core.Tracer):
            return None
        w = np.asarray(window._value)
    left = (n_fft - win) // 2
    w = np.pad(w, (left, n_fft - win - left))
    env = np.zeros((n_fft + hop * (n_frames - 1),), w.dtype)
    np.add.at(env, _frame_index(n_frames, n_fft, hop), np.broadcast_to(w * w, (n_frames, n_fft)))
    return env[start:end]


def _istft_end(n_fft: int, center: bool, length) -> tuple:
    start = n_fft // 2 if center else 0
    if length is not None:
        return start, start + int(length)
    return start, (-(n_fft // 2) if center else None)


def _istft_check(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
                 normalized=False, onesided=None, length=None, return_complex=False):
    _istft_types(input, n_fft, hop_length, win_length, window, center, normalized, onesided,
                 length, return_complex)
    n_fft = int(n_fft)
    hop, win = _defaults(n_fft, hop_length, win_length)

    def message(what: str) -> str:
        return (f"istft({_type_string(input)}{shape_str(input._shape)}, n_fft={n_fft}, "
                f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
                f"center={int(center)}, normalized={int(normalized)}, "
                f"onesided={_opt(onesided)}, length={_opt(length)}, "
                f"return_complex={int(return_complex)}) {what}")

    def fail(what: str):
        raise RuntimeError(message(": " + what))

    if window is None:
        warn_at_caller(ISTFT_WINDOW_WARNING)
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    shape = input._shape
    real_dims = len(shape) + 1          # PyTorch works on ``view_as_real(input)``
    for d in (-2, -3):
        if real_dims < -d:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-real_dims}, {real_dims - 1}], but got {d})")
    n_frames, fft_size = shape[-1], shape[-2]
    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if real_dims not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {real_dims}")
    sided = (fft_size != n_fft) if onesided is None else onesided
    if sided and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to "
             f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to "
             f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window._shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex:
        if sided:
            raise RuntimeError(_ONESIDED_COMPLEX)
    elif window is not None and window.dtype.is_complex:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    start, end = _istft_end(n_fft, center, length)
    env = _envelope(window, n_fft, win, hop, n_frames, start, end)
    if env is not None:
        if env.size == 0:
            raise RuntimeError("min(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the "
                               "'dim' argument.")
        if np.abs(env).min() < 1e-11:
            raise RuntimeError(message("window overlap add min: 1\n[ CPUBoolType{} ]"))
    if end is not None and end > n_fft + hop * (n_frames - 1):
        warn_at_caller(LENGTH_WARNING)


def _np_to_dt(d) -> _dt.dtype:
    return _dt.from_np(np.dtype(d))


def _istft(input, n_fft, hop_length, win_length, window, center, normalized, onesided,
           length, return_complex):
    hop, win = _defaults(n_fft, hop_length, win_length)
    x = input
    batched = x.ndim == 3
    if not batched:
        x = x[None]
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    sided = (fft_size != n_fft) if onesided is None else onesided
    real = jnp.float64 if x.dtype == jnp.complex128 else jnp.float32
    w = _centered_window(window if window is not None else jnp.ones((win,), real),
                         win, n_fft, real)
    x = jnp.swapaxes(x, 1, 2)                                # (B, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        y = jnp.fft.ifft(x, axis=-1, norm=norm)
    else:
        if not sided:
            x = x[..., :n_fft // 2 + 1]
        y = jnp.fft.irfft(x, n=n_fft, axis=-1, norm=norm)
    dt = _dt.promote_types(_np_to_dt(y.dtype), _np_to_dt(w.dtype)).np
    y = y.astype(dt) * w.astype(dt)
    expected = n_fft + hop * (n_frames - 1)
    idx = _frame_index(n_frames, n_fft, hop)
    y = jnp.zeros((y.shape[0], expected), dt).at[:, idx].add(y)
    env = jnp.zeros((expected,), w.dtype).at[idx].add(jnp.broadcast_to(w * w, idx.shape))
    start, end = _istft_end(n_fft, center, length)
    y = y[:, start:end] / env[start:end].astype(dt)
    if not batched:
        y = y[0]
    if end is not None and end > expected:
        y = jnp.pad(y, [(0, 0)] * (y.ndim - 1) + [(0, end - expected)])
    return y


def _istft_grad_name(input, n_fft, hop_length=None, win_length=None, window=None,
                     center=True, normalized=False, onesided=None, length=None,
                     return_complex=False) -> str:
    hop, _ = _defaults(n_fft, hop_length, win_length)
    start, end = _istft_end(int(n_fft), center, length)
    if end is not None and end > n_fft + hop * (input._shape[-1] - 1):
        return "ConstantPadNdBackward0"
    return "SqueezeBackward1" if input.dim() == 2 else "DivBackward0"


# ---------------------------------------------------------------------------
# samples: a few small shapes (each compiles its executables); errors are tested with
# their messages in tests/test_signal_ops.py
def _stft_samples():
    win = arr(8, positive=True)
    return [
        S(arr(20), 8, return_complex=True),
        S(arr(2, 20), 8, hop_length=3, window=win, return_complex=True),
        S(arr(20, dtype="float64"), 8, win_length=5, window=arr(5, dtype="float64",
                                                              positive=True),
          normalized=True, return_complex=True),
        S(arr(20), 8, center=False, onesided=False, return_complex=True),
        S(arr(20), 8, pad_mode="constant", return_complex=False),
        S(arr(2, 20), 8, pad_mode="replicate", window=win, return_complex=True, grad=False),
        S(arr(20), 8, pad_mode="circular", return_complex=True, grad=False),
        S(arr(20, dtype="complex64"), 8, hop_length=4, window=win),
        S(arr(20), 8, window=arr(8, dtype="complex64"), return_complex=True, grad=False),
        S(arr(20), 8, hop_length=4, win_length=4, center=False, align_to_window=True,
          return_complex=True, grad=False),
        S(arr(20), 8, hop_length=2, return_complex=True, method=True, grad=False),
    ]


def _istft_samples():
    win = arr(8, low=0.5, high=1.5)
    return [
        S(arr(5, 11, dtype="complex64"), 8),
        S(arr(2, 5, 11, dtype="complex64"), 8, window=win),
        S(arr(5, 11, dtype="complex128"), 8, hop_length=4, window=arr(8, dtype="float64",
                                                                      low=0.5, high=1.5),
          normalized=True),
        S(arr(8, 11, dtype="complex64"), 8, window=win, return_complex=True),
        S(arr(8, 11, dtype="complex64"), 8, onesided=False),
        S(arr(5, 11, dtype="complex64"), 8, center=False, length=20),
        S(arr(5, 11, dtype="complex64"), 8, win_length=6, hop_length=2, length=18,
          grad=False),
        S(arr(5, 11, dtype="complex64"), 8, length=30, grad=False),
        S(arr(5, 11, dtype="complex64"), 8, window=win, method=True, grad=False),
    ]


register(OpSpec(
    "stft", _stft,
    "input, n_fft, hop_length=None, win_length=None, window=None, center=True, "
    "pad_mode='reflect', normalized=False, onesided=None, return_complex=None, "
    "align_to_window=None",
    tensor_args=("input", "window"), promote="common", check=_stft_check,
    grad_name=_stft_grad_name, samples=_stft_samples,
    doc="""Mirrors ``torch.stft`` / ``Tensor.stft``: the short-time Fourier transform of a
    1-D signal or a batch (2-D) of them. Frames of ``n_fft`` samples every ``hop_length``
    (default ``n_fft // 4``), multiplied by ``window`` (``win_length`` samples, default
    ``n_fft``, zero-padded on both sides to ``n_fft``; None: all ones), transformed;
    ``center`` pads the signal by ``n_fft // 2`` on both sides with ``pad_mode``
    (``torch.nn.functional.pad``'s modes); ``normalized`` scales by ``n_fft ** -0.5``;
    ``onesided`` (default for a real signal and window) keeps ``n_fft // 2 + 1``
    frequencies. Result: (B?, freq, frames), complex. As in PyTorch 2.x, a real signal
    needs ``return_complex`` (RuntimeError without it), ``return_complex=False`` returns
    the deprecated real view (..., 2) with a UserWarning, and a missing window warns.
    Errors are PyTorch's, in its order (Note [stft as PyTorch splits it] in
    ``_ops/spectral.py``).

    Differences: the result is a contiguous tensor (PyTorch's is a transposed view,
    with other strides); a signal with an empty batch gives an empty result where
    PyTorch's MKL backend raises; the C++ parser's TypeError has its first lines but not
    the line marking the mismatched arguments.

    >>> import torchlike as torch
    >>> tuple(torch.stft(torch.ones(8), 4, window=torch.ones(4), return_complex=True).shape)
    (3, 9)
    """))

register(OpSpec(
    "istft", _istft,
    "input, n_fft, hop_length=None, win_length=None, window=None, center=True, "
    "normalized=False, onesided=None, length=None, return_complex=False",
    tensor_args=("input", "window"), promote="none", check=_istft_check,
    grad_name=_istft_grad_name, samples=_istft_samples,
    doc="""Mirrors ``torch.istft`` / ``Tensor.istft``: the inverse of ``stft`` for a
    complex (freq, frames) input or a batch of them. Each frame is transformed back
    (``irfft`` of a one-sided spectrum, the real part of a two-sided one; the full complex
    ``ifft`` with ``return_complex=True``), multiplied by the window (zero-padded to
    ``n_fft``), overlap-added every ``hop_length`` samples and divided by the overlap-added
    squared window. ``center`` drops ``n_fft // 2`` samples at both ends; ``length``
    trims the result, or pads it with zeros (with PyTorch's warning). A window whose
    envelope falls below 1e-11 raises PyTorch's "window overlap add min" error, so
    ``istft(stft(x, ...), ...)`` returns ``x`` (up to rounding) whenever it returns.

    Difference: inside a compiled function a traced window is not checked for that
    condition (Note [istft's window envelope] in ``_ops/spectral.py``).

    >>> import torchlike as torch
    >>> x = torch.arange(16.)
    >>> w = torch.hann_window(8)
    >>> y = torch.istft(torch.stft(x, 8, window=w, return_complex=True), 8, window=w)
    >>> bool((y - x).abs().max() < 1e-4)
    True
    """))
