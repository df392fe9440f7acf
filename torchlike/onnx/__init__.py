"""``torchlike.onnx``: export a module's forward as an ONNX model, as ``torch.onnx`` does.

``export(model, args, "model.onnx", input_names=[...], output_names=[...],
dynamic_axes={...})`` writes a file that ONNX Runtime (or any ONNX consumer) runs without
torchlike or JAX. The forward is traced with JAX and its primitives are written as ONNX
operators (Note [From jaxpr to ONNX] in ``_emit.py``); dynamic axes come from traces at
other sizes (Note [Dynamic axes by tracing at other sizes] in ``_trace.py``). Writing
needs the ``onnx`` package (``pip install onnx``); ``ONNXProgram.__call__`` needs
``onnxruntime``.
"""

from __future__ import annotations

import contextlib
import enum
import io
import os
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from .._core import xla
from .._core.tensor import Tensor
from . import errors
from ._errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["export", "ONNXProgram", "TrainingMode", "OperatorExportTypes",
           "is_in_onnx_export", "errors", "OnnxExporterError", "UnsupportedOperatorError"]

_OPSET = 18          # the opset the graph is written in (PyTorch's dynamo exporter's too)
_IR_VERSION = 8      # the oldest IR that opset 18 allows, for older runtimes
_MAX_PROTO = 2 ** 31 - 1


class TrainingMode(enum.IntEnum):
    """Mirrors ``torch.onnx.TrainingMode``: the mode the model is exported in."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """Mirrors ``torch.onnx.OperatorExportTypes``; only ``ONNX`` is written."""
    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


_exporting = [False]


def is_in_onnx_export() -> bool:
    """Mirrors ``torch.onnx.is_in_onnx_export``: True while ``export`` traces a model."""
    return _exporting[0]


class ONNXProgram:
    """Mirrors the part of ``torch.onnx.ONNXProgram`` that holds the exported model:
    ``model_proto``, ``save(destination)`` and calling it (with ONNX Runtime) on tensors."""

    def __init__(self, model_proto):
        self.model_proto = model_proto
        self._session = None

    def save(self, destination: str | os.PathLike | io.IOBase) -> None:
        """Write the model to ``destination`` (a path, written to a temporary file and
        renamed, or a binary file object)."""
        _write(self.model_proto, destination)

    def __call__(self, *args, **kwargs) -> Sequence[Tensor]:
        """Run the model with ONNX Runtime on ``args`` (tensors), as PyTorch's does."""
        try:
            import onnxruntime
        except ImportError as e:   # pragma: no cover - depends on the environment
            raise ImportError("running an ONNXProgram needs onnxruntime "
                              "(pip install onnxruntime)") from e
        if self._session is None:
            self._session = onnxruntime.InferenceSession(
                self.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
        flat = [a for a in args if isinstance(a, Tensor)] + \
            [v for v in kwargs.values() if isinstance(v, Tensor)]
        names = [i.name for i in self._session.get_inputs()]
        feeds = {n: t.detach().cpu().numpy() for n, t in zip(names, flat)}
        from .. import tensor
        return [tensor(o) for o in self._session.run(None, feeds)]

    def __repr__(self) -> str:
        g = self.model_proto.graph
        return (f"ONNXProgram(inputs={[i.name for i in g.input]}, "
                f"outputs={[o.name for o in g.output]}, nodes={len(g.node)})")


def _onnx():
    try:
        import onnx
        import onnx.printer  # noqa: F401  (verbose's text form)
    except ImportError as e:
        raise ImportError("torchlike.onnx.export needs the onnx package "
                          "(pip install onnx)") from e
    return onnx


def _write(model_proto, f) -> None:
    data = model_proto.SerializeToString()
    if hasattr(f, "write"):
        f.write(data)
        return
    from ..serialization import atomic_write
    atomic_write(os.fspath(f), lambda out: out.write(data))


def _axes_of(spec, name: str) -> dict:
    """``dynamic_axes[name]`` as {axis: symbol name} (a list gets PyTorch's names)."""
    if isinstance(spec, Mapping):
        return {int(a): str(n) for a, n in spec.items()}
    if isinstance(spec, (list, tuple)):
        return {int(a): f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(spec)}
    raise TypeError(f"dynamic_axes[{name!r}] must be a dict of axis -> name or a list of "
                    f"axes, not {type(spec).__name__}")


@contextlib.contextmanager
def _mode(model, training: TrainingMode):
    modes = [(m, m.training) for m in model.modules()]
    if training == TrainingMode.EVAL:
        model.train(False)
    elif training == TrainingMode.TRAINING:
        model.train(True)
    try:
        yield
    finally:
        for m, t in modes:
            m.training = t


def export(model, args: Any = (), f: str | os.PathLike | io.IOBase | None = None, *,
           kwargs: dict | None = None, verbose: bool | None = None,
           input_names: Sequence[str] | None = None,
           output_names: Sequence[str] | None = None, opset_version: int | None = None,
           dynamo: bool = True, external_data: bool = True, dynamic_shapes=None,
           custom_translation_table=None, report: bool = False, optimize: bool = True,
           verify: bool = False, profile: bool = False, dump_exported_program: bool = False,
           artifacts_dir: str | os.PathLike = ".", export_params: bool = True,
           keep_initializers_as_inputs: bool = False,
           dynamic_axes: Mapping[str, Any] | None = None,
           training: TrainingMode = TrainingMode.EVAL,
           operator_export_type: OperatorExportTypes = OperatorExportTypes.ONNX,
           do_constant_folding: bool = True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining: bool = True):
    """Mirrors ``torch.onnx.export``: trace ``model(*args)`` and write it as ONNX to ``f``.

    Inputs are the tensors among ``args`` (a tensor or a tuple; a trailing dict holds
    keyword arguments) and ``kwargs``; other values are fixed into the graph, as
    PyTorch's exporters do. Parameters and buffers become initializers named by their
    state-dict keys (``export_params=False``: graph inputs instead). Graph inputs are
    named ``input_names`` or the forward's parameter names, outputs ``output_names`` or
    ``output``/``output_<i>``. ``dynamic_axes`` (``{"input": {0: "batch_size"}}``, or a
    list of axes) leaves those axes free. ``training`` picks the mode exported (EVAL by
    default, restored afterwards). ``verbose=True`` prints the graph. Returns an
    ``ONNXProgram`` (``dynamo=True``, the default) or None (``dynamo=False``), writing
    ``f`` when given.

    Differences from PyTorch: both exporters' arguments are accepted and give the same
    file: the graph is written at opset 18 and converted to ``opset_version`` with ONNX's
    version converter when another one is asked for (kept at 18, with a warning, where
    that fails, as PyTorch's dynamo exporter does); weights are stored in the file itself
    (``external_data`` is honoured only for models over ONNX's 2 GB limit); the node and
    intermediate value names differ; ``dynamic_shapes``, ``custom_translation_table``,
    ``custom_opsets``, ``export_modules_as_functions`` and operator export types other
    than ONNX raise ``NotImplementedError``; ``report``, ``profile``,
    ``dump_exported_program`` and ``optimize`` are ignored; ``verify=True`` runs the
    model with ONNX Runtime and compares it with torchlike's outputs.
    """
    api = "torchlike.onnx.export"
    onnx = _onnx()
    for flag, given in (("dynamic_shapes", dynamic_shapes is not None),
                        ("custom_translation_table", custom_translation_table is not None),
                        ("custom_opsets", bool(custom_opsets)),
                        ("export_modules_as_functions", bool(export_modules_as_functions)),
                        ("operator_export_type",
                         operator_export_type != OperatorExportTypes.ONNX)):
        if given:
            raise NotImplementedError(f"{api}: {flag} is not supported (use dynamic_axes "
                                      "for free input sizes)")
    from ..nn import Module
    if not isinstance(model, Module):
        raise TypeError(f"{api}: model must be a torchlike.nn.Module, not "
                        f"{type(model).__name__}")
    from ._trace import _split_args, default_input_names, input_positions, trace
    args, kwargs = _split_args(args, kwargs)
    n_in = len(input_positions(args, kwargs))
    names_in = list(input_names) if input_names is not None else []
    names_in += default_input_names(model, args, kwargs)[len(names_in):]
    if len(names_in) > n_in:
        raise ValueError(f"{api}: {len(names_in)} input_names given for {n_in} tensor "
                         "input(s)")
    axes_in: dict = {}
    out_axes: dict = {}
    for name, spec in (dynamic_axes or {}).items():
        if name in names_in:
            axes_in[names_in.index(name)] = _axes_of(spec, name)
        else:
            out_axes[name] = _axes_of(spec, name)

    tensors = [args[k] if w == "arg" else kwargs[k] for w, k in input_positions(args, kwargs)]
    for i, ax in list(axes_in.items()):
        rank = tensors[i].dim()
        bad = [a for a in ax if not -rank <= a < rank]
        if bad:
            raise IndexError(f"{api}: dynamic_axes[{names_in[i]!r}] names axis {bad[0]} of "
                             f"an input of rank {rank}")
        axes_in[i] = {a % rank: n for a, n in ax.items()}

    from .. import no_grad
    _exporting[0] = True
    try:
        with _mode(model, training), no_grad(), xla.portable_lowering():
            tr = trace(model, args, kwargs, axes_in, api)
            proto = _build(onnx, tr, names_in, output_names, out_axes, export_params,
                           keep_initializers_as_inputs, do_constant_folding, api)
    finally:
        _exporting[0] = False
    if opset_version is not None and opset_version != _OPSET:
        proto = _convert(onnx, proto, opset_version)
    if proto.ByteSize() < _MAX_PROTO:
        onnx.checker.check_model(proto)
    if verbose:
        print(onnx.printer.to_text(proto.graph))
    program = ONNXProgram(proto)
    if verify:
        _verify(program, model, args, kwargs, training)
    if f is not None:
        program.save(f)
    return program if dynamo else None


def _convert(onnx, proto, target: int):
    from onnx import version_converter
    try:
        return version_converter.convert_version(proto, int(target))
    except Exception as e:   # ONNX's converter lacks an adapter for some operator
        warnings.warn(f"torchlike.onnx.export: the model could not be converted to opset "
                      f"{target} ({type(e).__name__}: {e}); it is written at opset {_OPSET}",
                      stacklevel=3)
        return proto


def _build(onnx, tr, names_in, output_names, out_axes, export_params, keep_inits, fold,
           api):
    from ._emit import GraphBuilder, onnx_dtype
    from ._rules import RULES
    helper = onnx.helper
    n_out = len(tr.base.jaxpr.outvars)
    if output_names is not None and len(output_names) > n_out:
        raise ValueError(f"{api}: {len(output_names)} output_names given for {n_out} "
                         "output(s)")
    names_out = list(output_names or [])
    names_out += (["output"] if n_out == 1 else
                  [f"output_{i}" for i in range(n_out)])[len(names_out):]
    unknown = [n for n in out_axes if n not in names_out]
    if unknown:
        raise ValueError(f"{api}: dynamic_axes names {unknown[0]!r}, which is neither an "
                         f"input ({names_in}) nor an output ({names_out})")
    b = GraphBuilder(names_in, fold, RULES)
    b.used_names.update(names_out)
    state_names = [b.const(v, name=n) if export_params else n
                   for n, v in zip(tr.state_names, tr.state_values)]
    if not export_params:   # the state is read from inputs, so nothing folds into it
        b.used_names.update(tr.state_names)
    outs = b.emit_jaxpr([tr.base.jaxpr] + [o.jaxpr for o in tr.others],
                        b.closed_consts([tr.base] + tr.others, tr),
                        state_names + names_in, tr)
    b.name_outputs(outs, names_out)

    def info(name, dtype, dims):
        return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)

    sym_of = {(i, a): n for n, places, _ in tr.symbols for i, a in places}
    inputs = []
    for i, (name, aval) in enumerate(zip(names_in, tr.input_avals)):
        dims = [sym_of.get((i, a), d) for a, d in enumerate(aval.shape)]
        inputs.append(info(name, aval.dtype, dims))
    if not export_params:
        inputs = [info(n, v.dtype, list(v.shape))
                  for n, v in zip(tr.state_names, tr.state_values)] + inputs
    outputs = []
    for k, (name, v) in enumerate(zip(names_out, tr.base.jaxpr.outvars)):
        declared = out_axes.get(name, {})
        dims = list(tr.out_shapes[k])
        for a, sym in declared.items():
            if not -len(dims) <= a < len(dims):
                raise IndexError(f"{api}: dynamic_axes[{name!r}] names axis {a} of an "
                                 f"output of rank {len(dims)}")
            dims[a] = sym
        dims = [f"{name}_dim_{a}" if d is None else d for a, d in enumerate(dims)]
        outputs.append(info(name, v.aval.dtype, dims))
    inits = b.used_inits(names_out)
    if keep_inits:
        inputs += [info(t.name, onnx.helper.tensor_dtype_to_np_dtype(t.data_type),
                        list(t.dims)) for t in inits if t.name in tr.state_names]
    graph = helper.make_graph(b.nodes, "main_graph", inputs, outputs, initializer=inits)
    from .. import __version__
    model = helper.make_model(graph, producer_name="torchlike", producer_version=__version__,
                              opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = _IR_VERSION
    return model


def _verify(program: ONNXProgram, model, args, kwargs, training) -> None:
    from .. import no_grad
    from ._trace import _flatten_out
    with _mode(model, training), no_grad():
        expected = _flatten_out(model(*args, **kwargs), "torchlike.onnx.export")
    got = program(*args, **kwargs)
    for i, (e, g) in enumerate(zip(expected, got)):
        np.testing.assert_allclose(g.numpy(), e.detach().cpu().numpy(), rtol=1e-3, atol=1e-5,
                                   err_msg=f"torchlike.onnx.export(verify=True): output {i} "
                                           "differs between ONNX Runtime and torchlike")
