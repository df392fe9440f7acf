"""torchlike.onnx.export: the seed's export flow (export, onnx.checker, ONNX Runtime) and
PyTorch's semantics of the exporter's arguments.

Each exported model is run with ONNX Runtime and compared with torchlike's own forward
and, where PyTorch is installed, with PyTorch's forward of the same module holding the
same weights (the seed's tolerance: rtol 1e-3, atol 1e-5)."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, torch

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _modules(T):
    nn, F = T.nn, T.nn.functional

    class Net(nn.Module):   # the seed's LeNet-style network, with BatchNorm and Dropout
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.bn = nn.BatchNorm2d(6)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.drop = nn.Dropout(0.5)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.bn(self.conv1(x))))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5)
            x = self.drop(F.relu(self.fc1(x)))
            x = F.relu(self.fc2(x))
            return F.log_softmax(self.fc3(x), dim=1)

    class SuperResolutionNet(nn.Module):   # the seed's ONNX tutorial model
        def __init__(self, upscale_factor=3):
            super().__init__()
            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
            self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
            self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.relu(self.conv2(x))
            x = self.relu(self.conv3(x))
            return self.pixel_shuffle(self.conv4(x))

    class SmallAlexNet(nn.Module):   # AlexNet's layer kinds, smaller
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 8, 11, 4, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
                nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(3, 2, ceil_mode=True))
            self.avgpool = nn.AdaptiveAvgPool2d((3, 3))
            self.classifier = nn.Sequential(nn.Dropout(), nn.Linear(16 * 9, 32),
                                            nn.ReLU(inplace=True), nn.Linear(32, 10))

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return self.classifier(T.flatten(x, 1))

    class Encoder(nn.Module):   # attention, LayerNorm, GELU, a sequence axis
        def __init__(self):
            super().__init__()
            self.emb = nn.Linear(4, 16)
            self.q, self.k, self.v = nn.Linear(16, 16), nn.Linear(16, 16), nn.Linear(16, 16)
            self.norm = nn.LayerNorm(16)
            self.ff = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))

        def forward(self, x):
            h = self.emb(x)
            att = T.softmax(self.q(h) @ self.k(h).transpose(1, 2) / 4.0, dim=-1)
            h = self.norm(h + att @ self.v(h))
            return (h + self.ff(h)).mean(dim=1), h.tanh()

    return {"lenet": (Net, (3, 32, 32)), "superres": (SuperResolutionNet, (1, 12, 12)),
            "alexnet": (SmallAlexNet, (3, 67, 67)), "encoder": (Encoder, (5, 4))}


def _make(name, seed=0):
    cls, shape = _modules(tl)[name]
    tl.manual_seed(seed)
    model = cls()
    if name == "lenet":   # running statistics that are not the initial ones
        model.bn.running_mean.copy_(tl.randn(6) * 0.1)
        model.bn.running_var.copy_(tl.rand(6) + 0.5)
    return model, shape


def _torch_twin(name, model):
    cls, _ = _modules(torch)[name]
    twin = cls()
    twin.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return twin.eval()


def _session(path_or_bytes):
    return ort.InferenceSession(path_or_bytes, providers=["CPUExecutionProvider"])


def _check(name, session, model, batches, input_name="input"):
    _, shape = _modules(tl)[name]
    model.eval()
    twin = _torch_twin(name, model) if HAVE_TORCH else None
    rng = np.random.default_rng(1)
    for b in batches:
        x = rng.standard_normal((b,) + shape).astype(np.float32)
        got = session.run(None, {input_name: x})
        with tl.no_grad():
            want = model(tl.tensor(x))
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-3, atol=1e-5)
        if twin is not None:
            with torch.no_grad():
                ref = twin(torch.tensor(x))
            ref = ref if isinstance(ref, tuple) else (ref,)
            for g, r in zip(got, ref):
                np.testing.assert_allclose(g, r.numpy(), rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("name", ["lenet", "superres", "alexnet", "encoder"])
def test_export_with_dynamic_batch_runs_in_onnxruntime(tmp_path, name):
    model, shape = _make(name)
    path = tmp_path / f"{name}.onnx"
    x = tl.randn(1, *shape)
    n_out = 2 if name == "encoder" else 1
    out_names = ["output"] if n_out == 1 else ["pooled", "hidden"]
    tl.onnx.export(model, x, str(path), export_params=True, do_constant_folding=True,
                   input_names=["input"], output_names=out_names,
                   dynamic_axes={"input": {0: "batch_size"},
                                 **{n: {0: "batch_size"} for n in out_names}})
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch_size"
    assert [d.dim_value for d in dims[1:]] == list(shape)
    assert [o.name for o in proto.graph.output] == out_names
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch_size"
    _check(name, _session(str(path)), model, (1, 3, 4))


def test_export_fixes_sizes_without_dynamic_axes():
    model, shape = _make("lenet")
    buf = io.BytesIO()
    tl.onnx.export(model, (tl.randn(2, *shape),), buf)
    proto = onnx.load_from_string(buf.getvalue())
    assert [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim] == \
        [2, *shape]
    assert proto.graph.input[0].name == "x"          # the forward's parameter name
    assert proto.graph.output[0].name == "output"
    sess = _session(buf.getvalue())
    _check("lenet", sess, model, (2,), input_name="x")
    # the batch was fixed at export
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.InvalidArgument):
        sess.run(None, {"x": np.zeros((3, *shape), np.float32)})


def test_sequence_axis_and_batch_axis_are_both_free(tmp_path):
    model, shape = _make("encoder")
    path = tmp_path / "enc.onnx"
    tl.onnx.export(model, tl.randn(2, *shape), str(path), input_names=["tokens"],
                   dynamic_axes={"tokens": {0: "batch", 1: "seq"}, "output_1": [0, 1]})
    proto = onnx.load(str(path))
    dims = [d.dim_param or d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["batch", "seq", 4]
    out1 = [d.dim_param or d.dim_value
            for d in proto.graph.output[1].type.tensor_type.shape.dim]
    assert out1 == ["output_1_dynamic_axes_1", "output_1_dynamic_axes_2", 16]
    sess = _session(str(path))
    model.eval()
    for b, s in ((1, 3), (3, 7)):
        x = np.random.default_rng(s).standard_normal((b, s, 4)).astype(np.float32)
        got = sess.run(None, {"tokens": x})
        with tl.no_grad():
            want = model(tl.tensor(x))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-3, atol=1e-5)


def test_onnx_program_runs_and_saves(tmp_path):
    model, shape = _make("superres")
    x = tl.randn(2, *shape)
    prog = tl.onnx.export(model, (x,))
    assert isinstance(prog, tl.onnx.ONNXProgram)
    (out,) = prog(x)
    model.eval()
    with tl.no_grad():
        tl.testing.assert_close(out, model(x), rtol=1e-3, atol=1e-5)
    prog.save(tmp_path / "m.onnx")
    assert onnx.load(str(tmp_path / "m.onnx")).graph.node
    assert tl.onnx.export(model, (x,), dynamo=False) is None


def test_export_restores_training_mode_and_exports_eval():
    model, shape = _make("lenet")
    model.train()
    x = tl.randn(2, *shape)
    prog = tl.onnx.export(model, (x,))
    assert model.training and all(m.training for m in model.modules())
    assert model.bn.num_batches_tracked.item() == 0   # no statistics were updated
    (a,), (b,) = prog(x), prog(x)                    # no dropout in the graph
    tl.testing.assert_close(a, b)
    assert not any(n.op_type.startswith("Random") for n in prog.model_proto.graph.node)


def test_training_mode_training_refuses_dropout_with_a_clear_error():
    model, shape = _make("lenet")
    with pytest.raises(tl.onnx.errors.UnsupportedOperatorError, match="random|threefry"):
        tl.onnx.export(model, tl.randn(2, *shape), training=tl.onnx.TrainingMode.TRAINING)


def test_verbose_prints_the_graph(capsys):
    model, shape = _make("alexnet")
    tl.onnx.export(model, tl.randn(1, *shape), verbose=True, input_names=["image"])
    printed = capsys.readouterr().out
    assert "main_graph" in printed and "Conv" in printed and "image" in printed


def _opset(prog):
    return [o.version for o in prog.model_proto.opset_import if o.domain == ""]


def test_opset_version_is_converted_where_onnx_can():
    model, shape = _make("superres")
    prog = tl.onnx.export(model, tl.randn(1, *shape), opset_version=20)
    assert _opset(prog) == [20]
    _check("superres", _session(prog.model_proto.SerializeToString()), model, (1,),
           input_name="x")
    # the seed's opset 10: ONNX's converter has no way down for these operators, so the
    # model stays at 18 with a warning, as PyTorch's exporter does
    with pytest.warns(UserWarning, match="could not be converted to opset 10"):
        prog = tl.onnx.export(model, tl.randn(1, *shape), opset_version=10)
    assert _opset(prog) == [18]
    _check("superres", _session(prog.model_proto.SerializeToString()), model, (1,),
           input_name="x")


def test_export_params_false_makes_the_weights_inputs():
    model, shape = _make("superres")
    prog = tl.onnx.export(model, tl.randn(1, *shape), export_params=False,
                          do_constant_folding=False)
    g = prog.model_proto.graph
    names = [i.name for i in g.input]
    assert names[:2] == ["conv1.weight", "conv1.bias"] and names[-1] == "x"
    assert not any(t.name.startswith("conv") for t in g.initializer)
    feeds = {k: v.numpy() for k, v in model.state_dict().items()}
    x = np.random.default_rng(0).standard_normal((1, *shape)).astype(np.float32)
    feeds["x"] = x
    (got,) = _session(prog.model_proto.SerializeToString()).run(None, feeds)
    model.eval()
    with tl.no_grad():
        np.testing.assert_allclose(got, model(tl.tensor(x)).numpy(), rtol=1e-3, atol=1e-5)


def test_keep_initializers_as_inputs():
    model, shape = _make("superres")
    prog = tl.onnx.export(model, tl.randn(1, *shape), keep_initializers_as_inputs=True,
                          do_constant_folding=False)
    names = [i.name for i in prog.model_proto.graph.input]
    assert "x" in names and "conv4.weight" in names


def test_is_in_onnx_export_inside_forward():
    seen = []

    class M(tl.nn.Module):
        def forward(self, x):
            seen.append(tl.onnx.is_in_onnx_export())
            return x * 2

    assert not tl.onnx.is_in_onnx_export()
    tl.onnx.export(M(), tl.randn(3))
    assert seen and all(seen) and not tl.onnx.is_in_onnx_export()


def test_unsupported_operator_names_it_and_writes_nothing(tmp_path):
    class Sorts(tl.nn.Module):
        def forward(self, x):
            return x.sort(dim=-1).values

    path = tmp_path / "sorts.onnx"
    with pytest.raises(tl.onnx.errors.UnsupportedOperatorError, match="'sort'") as e:
        tl.onnx.export(Sorts(), tl.randn(2, 3), str(path))
    assert isinstance(e.value, RuntimeError)
    assert isinstance(e.value, tl.onnx.errors.OnnxExporterError)
    assert not os.path.exists(path) and os.listdir(tmp_path) == []


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    model, shape = _make("superres")
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old")
    prog = tl.onnx.export(model, tl.randn(1, *shape))

    def broken(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        prog.save(path)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.onnx"]


def test_bad_arguments():
    model, shape = _make("superres")
    x = tl.randn(1, *shape)
    with pytest.raises(ValueError, match="'nope'"):
        tl.onnx.export(model, x, dynamic_axes={"nope": {0: "b"}})
    with pytest.raises(IndexError, match="axis 4 of an input of rank 4"):
        tl.onnx.export(model, x, input_names=["input"], dynamic_axes={"input": {4: "b"}})
    with pytest.raises(ValueError, match="2 input_names given for 1 tensor input"):
        tl.onnx.export(model, x, input_names=["a", "b"])
    with pytest.raises(TypeError, match="torchlike.nn.Module"):
        tl.onnx.export(lambda t: t, x)
    with pytest.raises(NotImplementedError, match="dynamic_shapes"):
        tl.onnx.export(model, x, dynamic_shapes={"x": {0: "b"}})


def test_a_size_that_is_not_linear_in_the_axis_is_refused():
    class Halves(tl.nn.Module):
        def forward(self, x):
            return x.reshape(x.shape[0] // 2, -1)

    with pytest.raises(tl.onnx.errors.OnnxExporterError, match="dynamic axis 'b'"):
        tl.onnx.export(Halves(), tl.randn(4, 3), input_names=["x"],
                       dynamic_axes={"x": {0: "b"}})


def test_elementwise_ops_dtypes_and_integer_inputs():
    class Mixed(tl.nn.Module):
        def forward(self, x, idx):
            y = (x.abs() + 1).log() * x.sigmoid() - x.clamp(-0.5, 0.5) ** 3
            y = tl.where(x > 0, y, x.exp()) / (x.square() + 1)
            z = (idx % 3).to(tl.float32) + idx.double().sqrt().float()
            return y.sum(dim=1, keepdim=True) + z.unsqueeze(1), idx.argmax(dim=0)

    x = tl.randn(4, 5)
    idx = tl.tensor([3, 7, 1, 9])
    prog = tl.onnx.export(Mixed(), (x, idx), input_names=["x", "idx"],
                          dynamic_axes={"x": {0: "n"}, "idx": {0: "n"}})
    sess = _session(prog.model_proto.SerializeToString())
    for n in (4, 6):
        xv = np.random.default_rng(n).standard_normal((n, 5)).astype(np.float32)
        iv = np.arange(n, dtype=np.int64) * 5 % 7
        got = sess.run(None, {"x": xv, "idx": iv})
        want = Mixed()(tl.tensor(xv), tl.tensor(iv))
        np.testing.assert_allclose(got[0], want[0].numpy(), rtol=1e-4, atol=1e-5)
        assert got[1].dtype == np.int64 and got[1] == want[1].item()


def test_seed_onnx_tutorial_flow(tmp_path, capsys):
    """The seed's flow: export with dynamic batch, onnx.load + checker, ONNX Runtime
    against the model's output."""
    torch = tl
    torch_model, shape = _make("superres")
    torch_model.eval()
    batch_size = 1
    x = torch.randn(batch_size, 1, 12, 12, requires_grad=True)
    torch_out = torch_model(x)
    path = str(tmp_path / "super_resolution.onnx")
    with pytest.warns(UserWarning, match="opset 10"):   # kept at 18, as PyTorch does
        torch.onnx.export(torch_model, x, path, export_params=True, opset_version=10,
                          do_constant_folding=True, input_names=["input"],
                          output_names=["output"],
                          dynamic_axes={"input": {0: "batch_size"},
                                        "output": {0: "batch_size"}})
    onnx_model = onnx.load(path)
    onnx.checker.check_model(onnx_model)
    ort_session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])

    def to_numpy(tensor):
        return tensor.detach().cpu().numpy() if tensor.requires_grad else tensor.cpu().numpy()

    ort_inputs = {ort_session.get_inputs()[0].name: to_numpy(x)}
    ort_outs = ort_session.run(None, ort_inputs)
    np.testing.assert_allclose(to_numpy(torch_out), ort_outs[0], rtol=1e-03, atol=1e-05)
    print("Exported model has been tested with ONNXRuntime, and the result looks good!")
    assert capsys.readouterr().out == \
        "Exported model has been tested with ONNXRuntime, and the result looks good!\n"


def _zoo(T):
    nn = T.nn
    return {
        "embedding": lambda: nn.Sequential(nn.Embedding(10, 4), nn.Flatten(),
                                           nn.Linear(12, 3)),
        "batchnorm1d_softmax": lambda: nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6),
                                                     nn.SiLU(), nn.Softmax(dim=1)),
        "activations": lambda: nn.Sequential(nn.LeakyReLU(0.1), nn.ELU(), nn.Hardswish(),
                                             nn.Hardtanh(), nn.Softplus(), nn.Mish(),
                                             nn.PReLU(), nn.Tanh(), nn.Sigmoid()),
        "norms_upsample": lambda: nn.Sequential(
            nn.Conv2d(3, 4, 3), nn.GroupNorm(2, 4), nn.InstanceNorm2d(4, affine=True),
            nn.AvgPool2d(2), nn.Upsample(scale_factor=2, mode="nearest"),
            nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)),
        "conv_transpose": lambda: nn.Sequential(
            nn.ConvTranspose2d(3, 4, 3, stride=2),
            nn.ConvTranspose2d(4, 2, 4, stride=2, padding=1, output_padding=1),
            nn.ConvTranspose2d(2, 2, 3, padding=2, dilation=2)),
        "depthwise_conv1d": lambda: nn.Sequential(
            nn.Conv1d(4, 4, 3, groups=4, padding=1), nn.MaxPool1d(2, ceil_mode=True),
            nn.AdaptiveAvgPool1d(1), nn.Flatten()),
        "transformer_layer": lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
        "lstm": lambda: nn.LSTM(4, 3, num_layers=2, batch_first=True),
    }


_ZOO_INPUTS = {
    "embedding": lambda r, b: r.integers(0, 10, (b, 3)),
    "batchnorm1d_softmax": lambda r, b: r.standard_normal((b, 5)),
    "activations": lambda r, b: r.standard_normal((b, 5)),
    "norms_upsample": lambda r, b: r.standard_normal((b, 3, 9, 9)),
    "conv_transpose": lambda r, b: r.standard_normal((b, 3, 5, 4)),
    "depthwise_conv1d": lambda r, b: r.standard_normal((b, 4, 7)),
    "transformer_layer": lambda r, b: r.standard_normal((b, 5, 8)),
    "lstm": lambda r, b: r.standard_normal((b, 5, 4)),
}


@pytest.mark.parametrize("name", sorted(_ZOO_INPUTS))
def test_layer_kinds_export(name):
    tl.manual_seed(3)
    model = _zoo(tl)[name]().eval()
    r = np.random.default_rng(0)

    def sample(b):
        v = _ZOO_INPUTS[name](r, b)
        return v.astype(np.float32) if v.dtype.kind == "f" else v.astype(np.int64)

    prog = tl.onnx.export(model, (tl.tensor(sample(2)),), input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    sess = _session(prog.model_proto.SerializeToString())
    twin = None
    if HAVE_TORCH:
        twin = _zoo(torch)[name]()
        twin.load_state_dict({k: torch.tensor(v.numpy())
                              for k, v in model.state_dict().items()})
        twin.eval()
    for b in (1, 3):
        xv = sample(b)
        got = sess.run(None, {"x": xv})[0]
        with tl.no_grad():
            want = model(tl.tensor(xv))
        want = want[0] if isinstance(want, tuple) else want
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-3, atol=1e-5)
        if twin is not None:
            with torch.no_grad():
                ref = twin(torch.tensor(xv))
            ref = ref[0] if isinstance(ref, tuple) else ref
            np.testing.assert_allclose(got, ref.numpy(), rtol=1e-3, atol=1e-5)


def test_a_loop_over_a_dynamic_axis_is_refused():
    lstm = tl.nn.LSTM(4, 3, batch_first=True)
    with pytest.raises(tl.onnx.errors.OnnxExporterError, match="dynamic sequence length"):
        tl.onnx.export(lstm, tl.randn(2, 5, 4), input_names=["x"],
                       dynamic_axes={"x": {0: "batch", 1: "seq"}})


def test_tensors_made_from_an_input_size_follow_the_dynamic_axis():
    class M(tl.nn.Module):
        def forward(self, x):
            n = x.size(0)
            return x * tl.tensor(float(n)) + tl.ones(n, 3) / x.shape[1]

    prog = tl.onnx.export(M(), tl.randn(2, 3), input_names=["x"],
                          dynamic_axes={"x": {0: "b"}})
    sess = _session(prog.model_proto.SerializeToString())
    for n in (1, 5):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(sess.run(None, {"x": x})[0], M()(tl.tensor(x)).numpy(),
                                   rtol=1e-6)

    class Positions(tl.nn.Module):
        def forward(self, x):
            return x + tl.arange(x.size(0)).unsqueeze(1)

    with pytest.raises(tl.onnx.errors.OnnxExporterError, match="not one value repeated"):
        tl.onnx.export(Positions(), tl.randn(2, 3), input_names=["x"],
                       dynamic_axes={"x": {0: "b"}})
    # without the dynamic axis the same model exports, its size fixed
    (out,) = tl.onnx.export(Positions(), tl.zeros(2, 3))(tl.zeros(2, 3))
    assert out.tolist() == [[0.0] * 3, [1.0] * 3]


def test_verify_compares_onnxruntime_with_torchlike():
    model, shape = _make("lenet")
    prog = tl.onnx.export(model, tl.randn(2, *shape), verify=True)
    assert prog.model_proto.graph.node


def test_a_parameter_that_follows_a_dynamic_axis_is_refused():
    class PadsBySize(tl.nn.Module):
        def forward(self, x):
            return tl.nn.functional.pad(x, (0, x.size(0)))

    with pytest.raises(tl.onnx.errors.OnnxExporterError,
                       match="padding_config changes with a dynamic axis"):
        tl.onnx.export(PadsBySize(), tl.randn(2, 3), input_names=["x"],
                       dynamic_axes={"x": {0: "b"}})


def test_export_leaves_the_ops_executables_as_they_were():
    """Ops trace in their portable forms during export with executables of their own
    (Note [Portable lowering]); afterwards the eager ones are those from before."""
    from torchlike._ops.spec import OPS
    model, shape = _make("lenet")
    x = tl.randn(2, *shape)
    model.eval()
    with tl.no_grad():
        before = model(x)
    plans = {n: OPS[n].extra["plan"] for n in ("conv2d", "max_pool2d")}
    exes = {n: dict(p.exes) for n, p in plans.items()}
    assert all(exes.values())
    tl.onnx.export(model, x)
    assert {n: dict(p.exes) for n, p in plans.items()} == exes
    with tl.no_grad():
        tl.testing.assert_close(model(x), before, rtol=0, atol=0)
