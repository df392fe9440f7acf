"""``save`` and ``load``: a script module as one file that runs without its Python class.

# Note [The jit archive]
# A zip file (stored, not compressed) with, under ``torchlike_jit/``:
#   ``format``         the marker ``torchlike.jit archive 1``;
#   ``meta.json``      the module tree (paths, original class names, training flags), the
#                      parameters and buffers (names, dtypes, shapes, requires_grad,
#                      persistence), the output nesting, the inputs' shapes (None for a
#                      symbolic batch axis) and which buffers the program updates;
#   ``program.bin``    the ``jax.export`` program, serialized with its VJP
#                      (Note [The saved program] in _export.py);
#   ``state/<i>``      the raw bytes of parameter or buffer ``i``;
#   ``extra/<name>``   the ``_extra_files``.
# It is written to a temporary file renamed into place, so a failed save leaves nothing.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._core.random import default_generator
from .._core.tensor import Tensor
from ..autograd.function import Function
from ._export import export_forward, state_arrays, unflatten_out
from ._script import RecursiveScriptModule, ScriptModule, _deprecated

__all__ = ["save", "load", "write"]

_ROOT = "torchlike_jit"
_MARKER = b"torchlike.jit archive 1"


def _archive_bytes(m: ScriptModule, extra: dict | None) -> bytes:
    ex = export_forward(m)
    orig = m.__dict__["_orig"]
    persistent = set(orig.state_dict(keep_vars=True))
    modules = [[path, type(mod).__name__, bool(mod.training)]
               for path, mod in orig.named_modules()]
    values = state_arrays(ex)
    state = []
    for i, (name, t, v) in enumerate(zip(ex.state_names, ex.state, values)):
        state.append({"name": name, "dtype": str(v.dtype), "shape": list(v.shape),
                      "param": i < ex.n_params, "requires_grad": bool(t.requires_grad),
                      "persistent": name in persistent})
    meta = {"modules": modules, "state": state, "out": ex.out_desc, "n_out": ex.n_out,
            "mutated": ex.mutated, "symbolic": ex.symbolic, "inputs": ex.input_shapes,
            "input_dtypes": [str(np.dtype(d)) for d in ex.input_dtypes],
            "static": ex.static,
            "platforms": list(ex.exported.platforms)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(f"{_ROOT}/format", _MARKER)
        zf.writestr(f"{_ROOT}/meta.json", json.dumps(meta))
        zf.writestr(f"{_ROOT}/program.bin", bytes(ex.exported.serialize(vjp_order=1)))
        for i, v in enumerate(values):
            zf.writestr(f"{_ROOT}/state/{i}", np.ascontiguousarray(v).tobytes())
        for name, content in (extra or {}).items():
            data = content.encode() if isinstance(content, str) else bytes(content)
            zf.writestr(f"{_ROOT}/extra/{name}", data)
    return buf.getvalue()


def save(m: Any, f: Any, _extra_files: dict | None = None) -> None:
    """Mirrors ``torch.jit.save``: write script module ``m`` (from ``script`` or
    ``trace``) to ``f`` (a path, written atomically through a temporary file, or a
    writable binary file object), as a file that ``load`` runs without ``m``'s Python
    class. ``_extra_files`` ({name: str or bytes}) are stored beside it.

    The forward is written as a ``jax.export`` program of (parameters and buffers,
    inputs) -> outputs, with its VJP, so the loaded module can be trained: a traced
    module at its example inputs' shapes, a scripted one at those of its last call (a
    ``RuntimeError`` if it was never called). The leading (batch) axis is kept symbolic
    where the forward allows, so other batch sizes load and run, as with TorchScript.
    The module's mode (train/eval) is fixed in the file, as in a TorchScript trace;
    buffers the forward updates (BatchNorm statistics in training mode) are updated by
    the loaded module too.

    Random numbers the forward draws (dropout in training mode) come from torchlike's
    default generator on every call of the loaded module.

    Differences from PyTorch: only ``forward`` is saved (not other methods, nor
    submodules' own forwards); the program runs on the backend it was saved on (as JAX's exported
    programs do); the file is torchlike's own format, not TorchScript's. Emits PyTorch's
    ``DeprecationWarning``.
    """
    _deprecated("save", "Please switch to `torch.export`.")
    write(m, f, _extra_files)


def write(m: Any, f: Any, _extra_files: dict | None = None) -> None:
    """``save`` without its warning (what ``ScriptModule.save`` calls)."""
    if not isinstance(m, ScriptModule):
        raise AttributeError(f"'{type(m).__name__}' object has no attribute 'save' "
                             "(torchlike.jit.save takes a module made by torchlike.jit.script "
                             "or torchlike.jit.trace)")
    data = _archive_bytes(m, _extra_files)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    from ..serialization import atomic_write
    atomic_write(path, lambda out: out.write(data))


# --------------------------------------------------------------------------- loading
class _RunExported(Function):
    """The loaded program on the autograd tape: forward runs it, backward its VJP
    (computed again from the saved inputs and random state)."""

    @staticmethod
    def forward(ctx, prog, *tensors):
        key, counter = default_generator._state_leaves()
        rng = [key, np.uint32(counter) if isinstance(counter, int) else counter]
        ctx.prog, ctx.rng = prog, rng
        ctx.save_for_backward(*tensors)
        arrays = [t._value for t in tensors]
        outs = prog.fwd(arrays[:prog.n_state], arrays[prog.n_state:], rng)
        new = outs[-1]
        if new is not rng[1]:
            default_generator._set_state_leaves(
                key, int(new) if isinstance(counter, int) else new)
        ctx.out_meta = [(o.shape, o.dtype) for o in outs[:-1]]
        result = tuple(Tensor._wrap(o) for o in outs[:-1])
        ctx.mark_non_differentiable(*[r for r, d in zip(result, prog.out_diff) if not d])
        return result

    @staticmethod
    def backward(ctx, *grads):
        prog = ctx.prog
        arrays = [t._value for t in ctx.saved_tensors]
        cts = [jnp.zeros(shape, dtype) if g is None else g._value
               for g, d, (shape, dtype) in zip(grads, prog.out_diff, ctx.out_meta) if d]
        g_state, g_in = prog.bwd(arrays[:prog.n_state], arrays[prog.n_state:], ctx.rng, cts)
        out = [None]
        for g in list(g_state) + list(g_in):
            out.append(None if g.dtype == jax.dtypes.float0 else Tensor._wrap(g))
        return tuple(out)


class _Program:
    """A deserialized program and the calling convention the file describes."""

    def __init__(self, exported, meta: dict, source: str):
        self.exported = exported
        self.meta = meta
        self.source = source
        self.n_state = len(meta["state"])
        self.n_out = meta["n_out"]
        # the forward's outputs, then the buffers it updates (no gradient), then the
        # generator's counter (Note [The saved program] in _export.py)
        self.out_diff = [jnp.issubdtype(a.dtype, jnp.inexact) for a in exported.out_avals]
        self.out_diff[self.n_out:] = [False] * (len(self.out_diff) - self.n_out)
        self.fwd = jax.jit(exported.call)
        diff = self.out_diff

        def bwd(s, i, rng, cts):
            outs, vjp = jax.vjp(lambda s, i: exported.call(s, i, rng), s, i)
            it = iter(cts)
            full = [next(it) if d else np.zeros(o.shape, jax.dtypes.float0)
                    for o, d in zip(outs, diff)]
            return vjp(full)
        self.bwd = jax.jit(bwd)

    def check(self, inputs: list, static: list) -> None:
        if static != self.meta["static"]:
            raise RuntimeError(
                f"forward() of the module loaded from {self.source} was saved with the "
                f"non-tensor arguments ({', '.join(self.meta['static'])}) fixed into the "
                f"program, but got ({', '.join(static)}); save it again from a module "
                "called with these")
        want = self.meta["inputs"]
        if len(inputs) != len(want):
            raise RuntimeError(f"forward() of the module loaded from {self.source} expects "
                               f"{len(want)} tensor input(s), got {len(inputs)}")
        for k, (t, shape, dt) in enumerate(zip(inputs, want, self.meta["input_dtypes"])):
            given = tuple(t.shape)
            ok = len(given) == len(shape) and all(
                w is None or w == g for w, g in zip(shape, given))
            if not ok:
                shown = "(" + ", ".join("batch" if w is None else str(w) for w in shape) \
                    + ("," if len(shape) == 1 else "") + ")"
                raise RuntimeError(
                    f"forward() of the module loaded from {self.source}: input {k} has "
                    f"shape {given}, but the saved program expects {shown}; the forward "
                    "was saved at fixed shapes (its code needs concrete sizes), so save it "
                    "again from a module traced at these shapes")
            if str(t._value.dtype) != dt:
                raise RuntimeError(f"forward() of the module loaded from {self.source}: "
                                   f"input {k} has dtype {t.dtype}, but the saved program "
                                   f"expects {dt}")

    def __call__(self, module: ScriptModule, args: tuple, kwargs: dict):
        leaves = jax.tree_util.tree_leaves((args, kwargs),
                                           is_leaf=lambda x: isinstance(x, Tensor))
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        self.check(inputs, [repr(x) for x in leaves if not isinstance(x, Tensor)])
        state = [module.get_parameter(s["name"]) if s["param"] else
                 module.get_buffer(s["name"]) for s in self.meta["state"]]
        outs = _RunExported.apply(self, *state, *inputs)
        from .. import no_grad
        with no_grad():
            for j, i in enumerate(self.meta["mutated"]):
                state[i].copy_(outs[self.n_out + j])
        return unflatten_out(self.meta["out"], list(outs[:self.n_out]))


def _not_ours(source: str, names: list) -> RuntimeError:
    if any(n.endswith("constants.pkl") for n in names):
        what = ("a TorchScript archive written by PyTorch; torchlike cannot run TorchScript "
                "code: load the weights into a torchlike module instead")
    elif any(n.endswith("data.pkl") for n in names):
        what = ("a checkpoint written by torch.save/torchlike.save, not a saved script "
                "module: read it with torchlike.load and load_state_dict it into the module")
    else:
        what = "a zip archive without a saved torchlike.jit module"
    return RuntimeError(f"torchlike.jit.load: {source} is {what}")


def _read(zf: zipfile.ZipFile, name: str, source: str) -> bytes:
    try:
        return zf.read(f"{_ROOT}/{name}")
    except (KeyError, zipfile.BadZipFile, OSError, EOFError) as e:
        raise RuntimeError(f"torchlike.jit.load: {source} is truncated or corrupt "
                           f"(record {name}: {e})") from None


def _build(zf: zipfile.ZipFile, source: str, map_location) -> RecursiveScriptModule:
    from ..nn.parameter import Parameter
    try:
        meta = json.loads(_read(zf, "meta.json", source))
        exported = jax.export.deserialize(bytearray(_read(zf, "program.bin", source)))
    except (ValueError, TypeError) as e:
        raise RuntimeError(f"torchlike.jit.load: {source} is truncated or corrupt ({e})") \
            from None
    mods: dict = {}
    for path, cls_name, training in meta["modules"]:
        mod = RecursiveScriptModule()
        mod.__dict__["_original_name"] = cls_name
        mod.__dict__["_training"] = training
        mod.__dict__["_loaded_sub"] = bool(path)
        mods[path] = mod
        if path:
            parent, _, leaf = path.rpartition(".")
            mods[parent]._modules[leaf] = mod
    from .. import tensor as _tensor
    for i, s in enumerate(meta["state"]):
        raw = _read(zf, f"state/{i}", source)
        arr = np.frombuffer(raw, dtype=jnp.dtype(s["dtype"])).reshape(s["shape"]).copy()
        t = _tensor(arr)
        if map_location is not None and not str(map_location).startswith("cpu"):
            t = t.to(map_location)
        owner, _, leaf = s["name"].rpartition(".")
        if s["param"]:
            mods[owner].register_parameter(leaf, Parameter(t, requires_grad=s["requires_grad"]))
        else:
            mods[owner].register_buffer(leaf, t, persistent=s["persistent"])
    root = mods[""]
    root.__dict__["_program"] = _Program(exported, meta, source)
    return root


def load(f: Any, map_location: Any = None, _extra_files: dict | None = None,
         _restore_shapes: bool = False) -> RecursiveScriptModule:
    """Mirrors ``torch.jit.load``: read a module written by ``torchlike.jit.save`` from a
    path or a readable binary file object, without its Python class.

    Returns a ``RecursiveScriptModule`` with the saved module tree (same ``repr``,
    ``state_dict()`` keys and ``named_parameters()`` as the saved module) whose forward
    runs the saved program; gradients reach its parameters (``requires_grad`` as saved)
    and inputs through torchlike autograd, so it can be fine-tuned. The mode it was saved
    in is fixed: ``train()``/``eval()`` change the flags only, as for a TorchScript
    trace. Inputs of another batch size run where the batch axis was saved symbolic;
    otherwise other shapes raise a ``RuntimeError`` naming both. ``map_location`` moves
    the parameters and buffers (the program runs on JAX's default backend). Names in
    ``_extra_files`` are filled with the stored bytes.

    Errors as PyTorch's: a path that does not exist raises ``ValueError("The provided
    filename ... does not exist")``, a directory ``ValueError("... is a directory")``;
    a file that is not a torchlike jit archive (garbage, a ``torch.save`` checkpoint, a
    TorchScript file written by PyTorch) raises ``RuntimeError`` saying what it is.
    Emits PyTorch's ``DeprecationWarning``.
    """
    _deprecated("load", "Please switch to `torch.export`.")
    if isinstance(f, (str, os.PathLike)):
        source = os.fspath(f)
        if not os.path.exists(source):
            raise ValueError(f"The provided filename {source} does not exist")
        if os.path.isdir(source):
            raise ValueError(f"The provided filename {source} is a directory")
        with open(source, "rb") as fh:
            data = fh.read()
    else:
        source = getattr(f, "name", repr(f))
        data = f.read()
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError(f"torchlike.jit.load: {source} is not a torchlike.jit archive "
                           "(not a zip file: truncated, corrupt, or another format); it "
                           "must be written by torchlike.jit.save") from None
    with zf:
        names = zf.namelist()
        if f"{_ROOT}/format" not in names:
            raise _not_ours(source, names)
        marker = _read(zf, "format", source)
        if marker != _MARKER:
            raise RuntimeError(f"torchlike.jit.load: {source} is a torchlike.jit archive of "
                               f"an unknown version ({marker.decode(errors='replace')!r}); "
                               "it was written by a newer torchlike")
        module = _build(zf, source, map_location)
        if _extra_files is not None:
            for name in list(_extra_files):
                if f"{_ROOT}/extra/{name}" in names:
                    _extra_files[name] = _read(zf, f"extra/{name}", source)
    return module
