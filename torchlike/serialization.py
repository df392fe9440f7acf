"""``torchlike.save`` / ``torchlike.load`` in PyTorch's zip-based checkpoint format, and
safetensors files.

A file written here loads with ``torch.load`` and a file ``torch.save`` wrote loads here:
the archive holds ``data.pkl`` (a protocol-2 pickle whose tensors are
``torch._utils._rebuild_tensor_v2`` calls over persistent storage ids), one raw,
little-endian record per storage under ``data/``, and PyTorch's ``version``,
``byteorder``, ``.format_version`` and ``.storage_alignment`` records; storage records
start on 64-byte boundaries as PyTorch aligns them. Tensors that share a storage (views)
are saved once and come back sharing memory.

# Note [weights_only]
# ``load(weights_only=True)`` (the default, as in PyTorch 2.6+) unpickles with an
# allow-list: containers, numbers, strings, tensors, parameters, dtypes, devices and
# torch.Size. Any other global (``os.system``, a user class) is refused before anything
# runs, and the error names it. ``weights_only=False`` loads arbitrary pickles (whole
# pickled modules) and must only be used on trusted files.

# Note [Atomic save]
# Saving to a path writes a temporary file in the same folder, flushes and fsyncs it,
# then renames it over the target, so a crash, a full disk or a killed process never
# leaves a truncated checkpoint where the old one was.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import sys
import tempfile
import zipfile
from typing import Any, BinaryIO, Callable

import numpy as np

from ._core import dtype as _dt
from ._core.device import device as Device
from ._core.size import Size
from ._core.tensor import Tensor

__all__ = ["save", "load", "save_file", "load_file", "safe_save_file", "safe_load_file"]

_STORAGE_NAMES = {
    _dt.float32: "FloatStorage", _dt.float64: "DoubleStorage", _dt.float16: "HalfStorage",
    _dt.bfloat16: "BFloat16Storage", _dt.uint8: "ByteStorage", _dt.int8: "CharStorage",
    _dt.int16: "ShortStorage", _dt.int32: "IntStorage", _dt.int64: "LongStorage",
    _dt.bool: "BoolStorage", _dt.complex64: "ComplexFloatStorage",
    _dt.complex128: "ComplexDoubleStorage",
}
_DTYPE_OF_STORAGE = {v: k for k, v in _STORAGE_NAMES.items()}
_ALIGN = 64


# ---------------------------------------------------------------------------
# pickling stand-ins for PyTorch's globals
class _TorchGlobal:
    """An object that pickles as the global ``module.name`` without importing it."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args, **kwargs):  # pickle requires reduce functions to be callable
        raise TypeError(f"{self.module}.{self.name} is a pickling stand-in, not callable")


_REBUILD_TENSOR = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _TorchGlobal("torch._utils", "_rebuild_parameter")
_STORAGE_GLOBALS = {d: _TorchGlobal("torch", n) for d, n in _STORAGE_NAMES.items()}
_DTYPE_GLOBALS = {d: _TorchGlobal("torch", d.name) for d in _STORAGE_NAMES}
_SIZE_GLOBAL = _TorchGlobal("torch", "Size")
_DEVICE_GLOBAL = _TorchGlobal("torch", "device")


class _Pickler(pickle._Pickler):  # the Python pickler lets us write foreign GLOBALs
    def __init__(self, file, protocol, storages: dict):
        super().__init__(file, protocol)
        self._storages = storages

    def save_global(self, obj, name=None):
        if isinstance(obj, _TorchGlobal):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def reducer_override(self, obj):
        if isinstance(obj, _TorchGlobal):
            return NotImplemented
        from .nn.parameter import Parameter
        if isinstance(obj, Parameter):
            plain = obj.detach()
            return (_REBUILD_PARAMETER, (plain, obj.requires_grad, collections.OrderedDict()))
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, Size):
            return (_SIZE_GLOBAL, (tuple(obj),))
        if isinstance(obj, Device):
            return (_DEVICE_GLOBAL, (str(obj),))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        st = t._storage
        key = self._storages.get(id(st))
        if key is None:
            key = (str(len(self._storages)), st, t.dtype)
            self._storages[id(st)] = key
        pid = _StoragePid(key[0], t.dtype, st.flat_size)
        return (_REBUILD_TENSOR, (pid, t.storage_offset(), tuple(t.shape), tuple(t.stride()),
                                  t.requires_grad, collections.OrderedDict()))

    def persistent_id(self, obj):
        if isinstance(obj, _StoragePid):
            return ("storage", _STORAGE_GLOBALS[obj.dtype], obj.key, "cpu", obj.numel)
        return None

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _dt.dtype):
            obj = _DTYPE_GLOBALS[obj]  # dtypes pickle as the global torch.<name>
        if isinstance(obj, _TorchGlobal):
            memo = self.memo.get(id(obj))
            if memo is not None:
                self.write(self.get(memo[0]))
                return
            self.save_global(obj)
            return
        super().save(obj, save_persistent_id)


class _StoragePid:
    __slots__ = ("key", "dtype", "numel")

    def __init__(self, key, dtype, numel):
        self.key, self.dtype, self.numel = key, dtype, numel


# ---------------------------------------------------------------------------
# save
def _storage_bytes(storage, dtype) -> bytes:
    a = np.asarray(storage.array).reshape(-1)
    if a.dtype.byteorder == ">":
        a = a.byteswap().view(a.dtype.newbyteorder("<"))
    return a.tobytes()


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes, align: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    if align:
        # Pad the local header's extra field so the payload starts on a 64-byte boundary.
        offset = zf.fp.tell() if hasattr(zf.fp, "tell") else 0
        header = 30 + len(name.encode("utf-8"))
        pad = (-(offset + header + 4)) % _ALIGN
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, data)


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f))
        stem = os.path.splitext(base)[0]
        return stem or "archive"
    return "archive"


def _serialize(obj, dest: BinaryIO, archive: str, pickle_protocol: int) -> None:
    storages: dict = {}
    buf = io.BytesIO()
    _Pickler(buf, pickle_protocol, storages).dump(obj)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, f"{archive}/data.pkl", buf.getvalue(), align=True)
        _write_record(zf, f"{archive}/.format_version", b"1", align=True)
        _write_record(zf, f"{archive}/.storage_alignment", b"64", align=True)
        _write_record(zf, f"{archive}/byteorder", b"little", align=True)
        for key, st, dtype in sorted(storages.values(), key=lambda k: int(k[0])):
            _write_record(zf, f"{archive}/data/{key}", _storage_bytes(st, dtype), align=True)
        _write_record(zf, f"{archive}/version", b"3\n", align=True)
        _write_record(zf, f"{archive}/.data/serialization_id",
                      os.urandom(20).hex().encode(), align=True)


def atomic_write(path: str, write: Callable[[Any], Any]) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then rename it to
    ``path``: a failure leaves ``path`` as it was and no temporary file behind."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path) + "-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save(obj: Any, f, pickle_module: Any = pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False
         ) -> None:
    """Mirrors ``torch.save``: writes ``obj`` in PyTorch's zip format to a path (atomically,
    through a temporary file in the same folder) or to a writable binary file object.
    Difference: only the zip format exists (``_use_new_zipfile_serialization=False`` is
    refused)."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("torchlike.save writes only PyTorch's zip format; the "
                                  "legacy format is not supported")
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise RuntimeError(f"Parent directory {folder} does not exist.")
        atomic_write(path, lambda out: _serialize(obj, out, _archive_name(path),
                                                   pickle_protocol))
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"expected 'f' to be string, path, or a file-like object with a "
                             f"'write' attribute, got {type(f).__name__}")
    _serialize(obj, f, "archive", pickle_protocol)


# ---------------------------------------------------------------------------
# load
class _LoadedStorage:
    """A storage read from the archive: a flat NumPy array, where it was saved, and the
    base tensor that every tensor over it views (created on first use)."""

    __slots__ = ("array", "dtype", "location", "map_location", "tensor")

    def __init__(self, array, dtype, location, map_location):
        self.array, self.dtype, self.location = array, dtype, location
        self.map_location = map_location
        self.tensor = None


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    from ._core.storage import contiguous_strides, strided_index
    size, stride = tuple(size), tuple(stride)
    numel = int(np.prod(size, dtype=np.int64))
    whole = (storage_offset == 0 and numel == storage.array.size and
             (numel <= 1 or stride == contiguous_strides(size)))
    if storage.tensor is None:
        # The first tensor over a storage owns it in its own shape when it covers it.
        base_arr = storage.array.reshape(size) if whole else storage.array
        storage.tensor = _materialise(base_arr, storage.location, storage.map_location)
        if whole:
            t = storage.tensor
            return t.detach().requires_grad_(True) if requires_grad else t
    base = storage.tensor
    if whole and size == tuple(base.shape):
        t = base.detach()
    else:
        idx = strided_index(size, stride, storage_offset)
        flat = np.asarray(storage.array).reshape(-1)
        value = flat[idx] if numel else np.zeros(size, storage.array.dtype)
        import jax
        arr = jax.device_put(value, next(iter(base._value.devices())))
        t = base._make_view(arr, size, stride, storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


def _torch_size(*args):
    return Size(*args)


_DTYPES_BY_NAME = {d.name: d for d in _STORAGE_NAMES}

_SAFE_BUILTINS = {("collections", "OrderedDict"): collections.OrderedDict,
                  ("collections", "defaultdict"): collections.defaultdict,
                  ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
                  ("builtins", "slice"): slice, ("builtins", "complex"): complex,
                  ("builtins", "bytearray"): bytearray, ("builtins", "range"): range,
                  ("_codecs", "encode"): __import__("codecs").encode}


def _torch_global(module: str, name: str):
    """PyTorch globals that a checkpoint may name, mapped to torchlike's."""
    if module == "torch._utils" and name == "_rebuild_tensor_v2":
        return _rebuild_tensor_v2
    if module == "torch._utils" and name == "_rebuild_parameter":
        return _rebuild_parameter
    if module == "torch._utils" and name == "_rebuild_parameter_with_state":
        return _rebuild_parameter_with_state
    if module == "torch" and name in _DTYPE_OF_STORAGE:
        return _StorageType(_DTYPE_OF_STORAGE[name])
    if module == "torch" and name in _DTYPES_BY_NAME:
        return _DTYPES_BY_NAME[name]
    if module == "torch" and name == "Size":
        return _torch_size
    if module == "torch" and name == "device":
        return Device
    if module == "torch.storage" and name == "UntypedStorage":
        return _StorageType(_dt.uint8)
    return None


class _StorageType:
    def __init__(self, dtype):
        self.dtype = dtype


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, reader, archive, map_location, weights_only, source):
        super().__init__(file)
        self._reader, self._archive = reader, archive
        self._map_location, self._weights_only = map_location, weights_only
        self._source = source
        self._loaded: dict = {}

    def find_class(self, module, name):
        g = _torch_global(module, name)
        if g is not None:
            return g
        if (module, name) in _SAFE_BUILTINS:
            return _SAFE_BUILTINS[(module, name)]
        if module in ("torchlike._core.dtype",) and name == "_dtype_by_name":
            return _dt._dtype_by_name
        if module == "torchlike._core.size" and name == "Size":
            return Size
        if self._weights_only:
            raise pickle.UnpicklingError(
                f"Weights only load failed. This file can still be loaded, to do so you have "
                f"two options, do those steps only if you trust the source of the checkpoint.\n"
                f"\t(1) In torchlike.load, re-running with `weights_only` set to `False` will "
                f"likely succeed, but it can result in arbitrary code execution. Do it only if "
                f"you got the file from a trusted source.\n"
                f"\t(2) WeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was "
                f"not an allowed global by default. (file: {self._source})")
        if module.startswith("torch.") or module == "torch":
            raise pickle.UnpicklingError(
                f"{self._source}: the checkpoint refers to PyTorch's {module}.{name}, which "
                "torchlike cannot load (save a state_dict instead of the whole object).")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
            raise pickle.UnpicklingError(f"{self._source}: unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if key in self._loaded:
            return self._loaded[key]
        dtype = storage_type.dtype if isinstance(storage_type, _StorageType) else storage_type
        name = f"{self._archive}/data/{key}"
        try:
            raw = self._reader.read(name)
        except KeyError:
            raise RuntimeError(f"{self._source}: the checkpoint is missing the storage record "
                               f"'{name}' (truncated or corrupt file)") from None
        arr = np.frombuffer(raw, dtype=dtype.np.newbyteorder("<")).astype(dtype.np)
        if arr.size != numel:
            raise RuntimeError(f"{self._source}: storage '{key}' holds {arr.size} elements "
                               f"but the checkpoint says {numel} (corrupt file)")
        st = _LoadedStorage(arr, dtype, location, self._map_location)
        self._loaded[key] = st
        return st


def _target_device(location: str, map_location):
    if map_location is None:
        return location
    if callable(map_location) and not isinstance(map_location, (str, Device)):
        return None  # handled by the caller
    if isinstance(map_location, dict):
        return map_location.get(location, location)
    return str(map_location) if isinstance(map_location, Device) else map_location


def _materialise(arr, location, map_location) -> Tensor:
    from ._ops.creation import place
    if callable(map_location) and not isinstance(map_location, (str, Device, dict)):
        t = place(arr, "cpu")
        res = map_location(t, location)
        if res is None:
            return _to_location(t, location)
        return res
    dev = _target_device(location, map_location)
    return _to_location(place(arr, "cpu"), dev)


def _to_location(t: Tensor, location) -> Tensor:
    loc = str(location)
    if loc.startswith("cpu"):
        return t
    try:
        return t.to(loc)
    except RuntimeError as e:
        raise RuntimeError(
            f"Attempting to deserialize object on device '{loc}' but it is not available "
            f"({e}). If you are running on a CPU-only machine, please use "
            "torchlike.load with map_location='cpu' to map your storages to the CPU.") from None


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool = True,
         mmap: bool | None = None, **pickle_load_args) -> Any:
    """Mirrors ``torch.load``: reads PyTorch's zip checkpoints (written by torchlike or by
    PyTorch). ``weights_only=True`` (default) refuses any global outside the allow-list
    (see Note [weights_only]); ``map_location`` may be 'cpu', a device, a dict
    ``{'cuda:0': 'cpu'}`` or ``callable(storage, location)``. Truncated or corrupt files
    raise ``RuntimeError`` naming the file."""
    source = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", repr(f))
    opened = None
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(source):
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{source}'")
        opened = f = open(source, "rb")
    try:
        try:
            zf = zipfile.ZipFile(f)
        except zipfile.BadZipFile:
            raise RuntimeError(
                f"PytorchStreamReader failed reading zip archive: failed finding central "
                f"directory ({source} is not a PyTorch zip checkpoint, or it is truncated or "
                "corrupt)") from None
        with zf:
            names = zf.namelist()
            pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
            if not pkl:
                raise RuntimeError(f"{source}: not a PyTorch checkpoint (no data.pkl record)")
            archive = pkl[0][: -len("/data.pkl")] if "/" in pkl[0] else ""
            try:
                data = zf.read(pkl[0])
            except (zipfile.BadZipFile, OSError, EOFError) as e:
                raise RuntimeError(f"{source}: corrupt checkpoint ({e})") from None
            reader = _ZipReader(zf, source)
            up = _Unpickler(io.BytesIO(data), reader, archive, map_location, weights_only,
                            source)
            try:
                return up.load()
            except (pickle.UnpicklingError, RuntimeError):
                raise
            except (EOFError, ValueError, struct.error) as e:
                raise RuntimeError(f"{source}: corrupt checkpoint ({e})") from None
    finally:
        if opened is not None:
            opened.close()


class _ZipReader:
    def __init__(self, zf, source):
        self.zf, self.source = zf, source

    def read(self, name):
        try:
            return self.zf.read(name)
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"{self.source}: corrupt checkpoint record '{name}' ({e})") \
                from None


# ---------------------------------------------------------------------------
# safetensors
def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Mirrors ``safetensors.torch.save_file`` (atomically, like ``save``)."""
    from safetensors.numpy import save as _st_save
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise TypeError(f"Key `{k}` is invalid, expected torchlike.Tensor but received "
                            f"{type(v)}")
    arrays = {k: np.ascontiguousarray(np.asarray(v.detach()._value)) for k, v in
              tensors.items()}
    blob = _st_save(arrays, metadata=metadata)
    atomic_write(os.fspath(filename), lambda out: out.write(blob))


def load_file(filename, device="cpu") -> dict:
    """Mirrors ``safetensors.torch.load_file``: a dict of tensors on ``device``."""
    from safetensors.numpy import load_file as _st_load_file
    from ._ops.creation import place
    path = os.fspath(filename)
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such file or directory: {path}")
    try:
        arrays = _st_load_file(path)
    except Exception as e:  # noqa: BLE001 - re-raised with the file name
        raise RuntimeError(f"{path}: not a valid safetensors file ({e})") from None
    return {k: place(np.array(a), device) for k, a in arrays.items()}


safe_save_file = save_file
safe_load_file = load_file
_ = sys
