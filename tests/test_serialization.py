"""``torchlike.save``/``load``: PyTorch's zip format in both directions, shared storages,
weights_only refusal of foreign globals, truncated files, atomic writes, map_location,
and safetensors files."""

from __future__ import annotations

import collections
import io
import os
import pickle
import subprocess
import sys
import textwrap
import zipfile

import ml_dtypes
import numpy as np
import pytest

import torchlike as tl

from ._parity import HAVE_TORCH, torch

DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32",
          "int64", "bool", "complex64", "complex128"]


def _array(dtype: str, shape=(2, 3)) -> np.ndarray:
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("complex"):
        return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)
    if dtype == "bfloat16":
        return rng.random(shape).astype(ml_dtypes.bfloat16)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.random(shape).astype(dtype)


def _np(t) -> np.ndarray:
    if HAVE_TORCH and isinstance(t, torch.Tensor):
        if t.dtype == torch.bfloat16:
            return t.float().numpy().astype(ml_dtypes.bfloat16)
        return t.detach().numpy()
    return np.asarray(t.detach())


@pytest.mark.parametrize("dtype", DTYPES)
def test_roundtrip_every_dtype(tmp_path, dtype):
    a = _array(dtype)
    t = tl.tensor(a)
    tl.save({"t": t, "v": t[1]}, tmp_path / "x.pt")
    back = tl.load(tmp_path / "x.pt")
    assert back["t"].dtype is t.dtype
    np.testing.assert_array_equal(_np(back["t"]), a)
    np.testing.assert_array_equal(_np(back["v"]), a[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_torchlike_file_loads_in_pytorch(tmp_path, dtype):
    a = _array(dtype)
    t = tl.tensor(a)
    tl.save({"t": t, "view": t[:, 1:], "epoch": 3}, tmp_path / "x.pt")
    # the file loads back in torchlike, the view still sharing the tensor's storage
    b = tl.load(tmp_path / "x.pt")
    assert b["t"].dtype.name == dtype and b["epoch"] == 3
    np.testing.assert_array_equal(_np(b["view"]), a[:, 1:])
    assert b["view"].data_ptr() == b["t"].data_ptr() + b["t"].element_size()
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: loading the file in PyTorch is "
                    "skipped")
    r = torch.load(tmp_path / "x.pt")  # weights_only=True in PyTorch too
    assert str(r["t"].dtype) == "torch." + dtype
    np.testing.assert_array_equal(_np(r["t"]), a)
    np.testing.assert_array_equal(_np(r["view"]), a[:, 1:])
    assert r["view"].untyped_storage().data_ptr() == r["t"].untyped_storage().data_ptr()
    assert r["epoch"] == 3


@pytest.mark.parametrize("dtype", DTYPES)
def test_pytorch_file_loads_in_torchlike(tmp_path, dtype):
    """A file PyTorch wrote (without PyTorch: the same objects written by torchlike)."""
    a = _array(dtype)
    if HAVE_TORCH:
        t = torch.tensor(a.astype(np.float32)).to(torch.bfloat16) if dtype == "bfloat16" \
            else torch.tensor(a)
        save = torch.save
    else:
        t, save = tl.tensor(a), tl.save
    save({"t": t, "view": t[1], "nested": [t[:, :2], (t.t(),)]}, tmp_path / "y.pt")
    r = tl.load(tmp_path / "y.pt")
    assert r["t"].dtype.name == dtype
    np.testing.assert_array_equal(_np(r["t"]), a)
    np.testing.assert_array_equal(_np(r["nested"][1][0]), a.T)
    assert r["nested"][1][0].stride() == t.t().stride()
    # views of one storage share memory after loading, as in PyTorch
    assert r["view"].data_ptr() == r["t"].data_ptr() + t.shape[1] * t.element_size()
    r["t"][1, 0] = r["t"][0, 0]
    np.testing.assert_array_equal(_np(r["view"])[0], _np(r["t"])[0, 0])


def _checkpoint():
    w = tl.nn.Parameter(tl.tensor([[1.0, 2.0], [3.0, 4.0]]))
    sd = collections.OrderedDict([("fc.weight", w.detach()), ("fc.bias", tl.zeros(2)),
                                  ("bn.num_batches_tracked", tl.tensor(7))])
    return {"epoch": 5, "arch": "resnet18", "state_dict": sd,
            "optimizer": {"state": {0: {"step": tl.tensor(3.0), "momentum_buffer": tl.ones(2)}},
                          "param_groups": [{"lr": 0.1, "momentum": 0.9, "params": [0, 1]}]},
            "prec1": 76.5, "param": w, "dtype": tl.float16, "size": tl.Size([2, 3])}


def test_checkpoint_dict_roundtrip(tmp_path):
    ck = _checkpoint()
    tl.save(ck, tmp_path / "ck.pth.tar")
    r = tl.load(tmp_path / "ck.pth.tar")
    assert r["epoch"] == 5 and r["arch"] == "resnet18" and r["prec1"] == 76.5
    assert list(r["state_dict"]) == ["fc.weight", "fc.bias", "bn.num_batches_tracked"]
    assert isinstance(r["state_dict"], collections.OrderedDict)
    assert r["state_dict"]["bn.num_batches_tracked"].dtype is tl.int64
    assert r["optimizer"]["param_groups"][0]["params"] == [0, 1]
    assert type(r["param"]).__name__ == "Parameter" and r["param"].requires_grad
    assert r["dtype"] is tl.float16 and r["size"] == tl.Size([2, 3])


def test_checkpoint_dict_interop(tmp_path):
    tl.save(_checkpoint(), tmp_path / "ck.pt")
    if not HAVE_TORCH:
        pytest.skip("PyTorch (test oracle) not installed: the PyTorch round trip is skipped "
                    "(test_checkpoint_dict_roundtrip loads the file in torchlike)")
    r = torch.load(tmp_path / "ck.pt")
    assert isinstance(r["param"], torch.nn.Parameter)
    assert r["dtype"] is torch.float16 and r["size"] == torch.Size([2, 3])
    torch.save(r, tmp_path / "ck2.pt")
    back = tl.load(tmp_path / "ck2.pt")
    assert back["state_dict"]["fc.weight"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert back["optimizer"]["state"][0]["step"].item() == 3.0


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    tl.save([tl.ones(3)], buf)
    buf.seek(0)
    assert tl.load(buf)[0].tolist() == [1.0, 1.0, 1.0]


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_weights_only_refuses_foreign_globals_without_running_them(tmp_path):
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.pt"
    tl.save({"x": tl.ones(1), "evil": Evil()}, path)
    with pytest.raises(pickle.UnpicklingError,
                       match="Unsupported global: GLOBAL (io|builtins).open"):
        tl.load(path)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system"):
        tl.save({"e": _Evil()}, tmp_path / "e.pt")
        tl.load(tmp_path / "e.pt")
    # trusted files can still be loaded with weights_only=False
    r = tl.load(path, weights_only=False)
    r["evil"].close() if hasattr(r["evil"], "close") else None
    assert marker.exists()


def test_whole_module_needs_weights_only_false(tmp_path):
    m = tl.nn.Sequential()
    m.register_buffer("b", tl.ones(2))
    tl.save(m, tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError, match="Sequential"):
        tl.load(tmp_path / "m.pt")
    m2 = tl.load(tmp_path / "m.pt", weights_only=False)
    assert type(m2) is tl.nn.Sequential and m2.b.tolist() == [1.0, 1.0]


def test_truncated_and_corrupt_files_name_the_file(tmp_path):
    path = tmp_path / "ok.pt"
    tl.save({"w": tl.ones(100)}, path)
    data = path.read_bytes()
    bad = tmp_path / "truncated.pt"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="truncated.pt"):
        tl.load(bad)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(RuntimeError, match="junk.pt"):
        tl.load(junk)
    with pytest.raises(FileNotFoundError):
        tl.load(tmp_path / "missing.pt")


def test_save_is_atomic_when_the_writer_is_killed(tmp_path):
    path = tmp_path / "model.pt"
    tl.save({"version": 1, "w": tl.zeros(4)}, path)
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, signal
        import torchlike as tl
        import torchlike.serialization as s
        real = s._serialize
        def dying(obj, dest, archive, proto):
            real(obj, dest, archive, proto)
            dest.flush()
            os.kill(os.getpid(), signal.SIGKILL)   # killed after writing, before rename
        s._serialize = dying
        tl.save({{"version": 2, "w": tl.ones(1000)}}, {str(path)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert proc.returncode != 0
    assert path.read_bytes() == before
    assert tl.load(path)["version"] == 1
    leftovers = [p for p in os.listdir(tmp_path) if p != "model.pt"]
    assert all(p.startswith(".tmp-") for p in leftovers)


def test_save_error_leaves_old_file(tmp_path):
    path = tmp_path / "model.pt"
    tl.save({"version": 1}, path)

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("cannot pickle this")

    with pytest.raises(RuntimeError, match="cannot pickle"):
        tl.save({"version": 2, "bad": Unpicklable()}, path)
    assert tl.load(path)["version"] == 1
    assert os.listdir(tmp_path) == ["model.pt"]


def test_map_location_forms(tmp_path):
    path = tmp_path / "m.pt"
    tl.save({"w": tl.ones(2)}, path)
    assert tl.load(path, map_location="cpu")["w"].device == tl.device("cpu")
    assert tl.load(path, map_location=tl.device("cpu"))["w"].device.type == "cpu"
    assert tl.load(path, map_location={"cuda:0": "cpu"})["w"].tolist() == [1.0, 1.0]
    seen = []
    out = tl.load(path, map_location=lambda storage, loc: (seen.append(loc), storage)[1])
    assert seen == ["cpu"] and out["w"].tolist() == [1.0, 1.0]


def test_cuda_checkpoint_needs_map_location_without_accelerator(tmp_path):
    from torchlike._core.device import accelerator_devices
    if accelerator_devices():
        pytest.skip("an accelerator is present")
    path = tmp_path / "cuda.pt"
    tl.save({"w": tl.ones(2)}, path)
    # rewrite the storage location as PyTorch writes tensors saved from a GPU
    with zipfile.ZipFile(path) as z:
        records = {n: z.read(n) for n in z.namelist()}
    pkl = [n for n in records if n.endswith("data.pkl")][0]
    records[pkl] = records[pkl].replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    with zipfile.ZipFile(path, "w") as z:
        for n, d in records.items():
            z.writestr(n, d)
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        tl.load(path)
    assert tl.load(path, map_location="cpu")["w"].tolist() == [1.0, 1.0]


def test_safetensors_roundtrip(tmp_path):
    ts = {"a": tl.arange(6.0).view(2, 3), "b": tl.ones(2, dtype=tl.bfloat16),
          "c": tl.tensor([1, 2], dtype=tl.int64)}
    tl.serialization.save_file(ts, tmp_path / "m.safetensors", metadata={"format": "pt"})
    r = tl.serialization.load_file(tmp_path / "m.safetensors")
    assert r["a"].tolist() == ts["a"].tolist() and r["b"].dtype is tl.bfloat16
    if HAVE_TORCH:
        from safetensors.torch import load_file as torch_load_file
        tr = torch_load_file(str(tmp_path / "m.safetensors"))
        assert tr["a"].tolist() == ts["a"].tolist() and tr["b"].dtype == torch.bfloat16
    (tmp_path / "bad.safetensors").write_bytes(b"\x00" * 10)
    with pytest.raises(RuntimeError, match="bad.safetensors"):
        tl.serialization.load_file(tmp_path / "bad.safetensors")
