"""``nn.Module`` and containers: registration, iteration, state_dict, printing and hooks,
including the seed notes' examples, compared with PyTorch."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torchlike as tl
from torchlike import nn

from .._parity import HAVE_TORCH, both, torch


def _replace(s: str) -> str:
    return s.replace("torchlike.", "torch.")


# --------------------------------------------------------------------- registration
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tl.ones(2, 2))
        self.register_buffer("running", tl.zeros(2))
        self.register_buffer("scratch", tl.zeros(1), persistent=False)
        self.child = nn.Module()
        self.child.register_parameter("bias", nn.Parameter(tl.zeros(2)))
        self.plain = 3


def test_setattr_routes_parameters_buffers_modules():
    b = Block()
    assert list(b._parameters) == ["w"] and list(b._buffers) == ["running", "scratch"]
    assert list(b._modules) == ["child"] and b.plain == 3
    assert [n for n, _ in b.named_parameters()] == ["w", "child.bias"]
    assert [n for n, _ in b.named_buffers()] == ["running", "scratch"]
    assert list(b.state_dict()) == ["w", "running", "child.bias"]
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'w'"):
        b.w = 3
    b.w = None
    assert b.w is None and "w" in b._parameters
    del b.running
    assert "running" not in b._buffers
    with pytest.raises(AttributeError, match="'Block' object has no attribute 'nope'"):
        _ = b.nope
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        b.register_buffer("plain", tl.ones(1))


def test_parameter_basics():
    p = nn.Parameter(tl.ones(2))
    assert p.requires_grad and p.is_leaf and isinstance(p, tl.Tensor)
    assert type(p * 2) is tl.Tensor
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    d = tl.zeros(3)
    q = nn.Parameter(d)
    q.data.add_(1)
    assert d.tolist() == [1.0, 1.0, 1.0]  # a Parameter aliases its data, as in PyTorch
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' object to parameter"):
        nn.Module().register_parameter("x", tl.ones(1))


def test_named_modules_children_dedup_and_prefixes():
    shared = nn.Module()
    root = nn.Module()
    root.stage_1 = nn.Sequential(nn.Module(), shared)
    root.again = shared
    names = [n for n, _ in root.named_modules()]
    assert names == ["", "stage_1", "stage_1.0", "stage_1.1"]
    assert [n for n, _ in root.named_children()] == ["stage_1", "again"]
    assert len(list(root.modules())) == 4
    assert len(list(root.named_modules(remove_duplicate=False))) == 5
    assert root.get_submodule("stage_1.1") is shared
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        root.get_submodule("stage_1.nope")


def test_train_eval_apply_requires_grad_zero_grad():
    b = Block()
    assert b.training and b.child.training
    b.eval()
    assert not b.training and not b.child.training
    seen = []
    b.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Module", "Block"]
    b.requires_grad_(False)
    assert not b.w.requires_grad
    b.requires_grad_(True)
    (b.w.sum() * 2).backward()
    assert b.w.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    b.zero_grad()
    assert b.w.grad is None


def test_to_dtype_keeps_parameter_identity():
    b = Block()
    w = b.w
    b.double()
    assert b.w is w and w.dtype is tl.float64 and b.running.dtype is tl.float64
    b.to(tl.float32)
    assert w.dtype is tl.float32
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        b.to(tl.int64)


# --------------------------------------------------------------------- state dict
def test_load_state_dict_reports_every_problem_and_changes_nothing():
    b = Block()
    sd = {"w": tl.full((3, 3), 7.0), "extra": tl.ones(1), "child.bias": tl.ones(2)}
    with pytest.raises(RuntimeError) as ei:
        b.load_state_dict(sd)
    msg = str(ei.value)
    assert msg.startswith("Error(s) in loading state_dict for Block:\n\t")
    assert 'Missing key(s) in state_dict: "running".' in msg
    assert 'Unexpected key(s) in state_dict: "extra".' in msg
    assert ("size mismatch for w: copying a param with shape torchlike.Size([3, 3]) from "
            "checkpoint, the shape in current model is torchlike.Size([2, 2]).") in msg
    assert b.child.bias.tolist() == [0.0, 0.0]  # nothing was written
    res = b.load_state_dict({"w": tl.full((2, 2), 5.0), "zzz": tl.ones(1)}, strict=False)
    assert res.missing_keys == ["running", "child.bias"] and res.unexpected_keys == ["zzz"]
    assert b.w.tolist() == [[5.0, 5.0], [5.0, 5.0]]
    ok = b.load_state_dict(b.state_dict())
    assert repr(ok) == "<All keys matched successfully>"


def test_load_state_dict_assign():
    b = Block()
    new = tl.full((2, 2), 3.0)
    b.load_state_dict({"w": new, "running": tl.ones(2), "child.bias": tl.ones(2)}, assign=True)
    assert isinstance(b.w, nn.Parameter) and b.w.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_load_state_dict_error_text_matches_torch():
    def make(lib):
        m = lib.nn.Module()
        m.register_parameter("weight", lib.nn.Parameter(lib.ones(3, 2)))
        m.register_parameter("bias", lib.nn.Parameter(lib.ones(3)))
        return m

    def err(lib):
        with pytest.raises(RuntimeError) as ei:
            make(lib).load_state_dict({"weight": lib.zeros(4, 4), "x": lib.zeros(1)})
        return str(ei.value)
    out, ref = both(err)
    assert out.startswith("Error(s) in loading state_dict for Module:\n\t")
    assert 'Unexpected key(s) in state_dict: "x".' in out
    assert 'Missing key(s) in state_dict: "bias".' in out
    assert "size mismatch for weight: copying a param with shape torchlike.Size([4, 4])" in out
    if HAVE_TORCH:
        assert _replace(out) == ref


# --------------------------------------------------------------------- printing
def test_repr_nesting_and_containers():
    out, ref = both(lambda lib: repr(lib.nn.Sequential(OrderedDict([
        ("block", lib.nn.Sequential(lib.nn.Module(), lib.nn.Module())),
        ("list", lib.nn.ModuleList([lib.nn.Module() for _ in range(3)])),
        ("dict", lib.nn.ModuleDict({"a": lib.nn.Module()}))]))))
    if HAVE_TORCH:
        assert out == ref


# --------------------------------------------------------------------- containers
def test_sequential_indexing_slicing_and_mutation():
    mods = [nn.Module() for _ in range(4)]
    s = nn.Sequential(*mods)
    assert s[0] is mods[0] and s[-1] is mods[3] and len(s) == 4
    assert isinstance(s[1:3], nn.Sequential) and list(s[1:3]) == mods[1:3]
    extra = nn.Module()
    s.append(extra)
    s.insert(0, nn.Module())
    assert len(s) == 6 and s[5] is extra
    del s[0]
    assert list(s._modules) == ["0", "1", "2", "3", "4"]
    with pytest.raises(IndexError, match="index 9 is out of range"):
        s[9]


def test_sequential_runs_in_order():
    class AddOne(nn.Module):
        def forward(self, x):
            return x + 1

    class Double(nn.Module):
        def forward(self, x):
            return x * 2
    s = nn.Sequential(OrderedDict([("a", AddOne()), ("b", Double())]))
    assert s(tl.tensor([1.0])).tolist() == [4.0]
    assert [n for n, _ in s.named_children()] == ["a", "b"]


def test_parameter_list_and_dict_seed_examples():
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.params = nn.ParameterList([nn.Parameter(tl.randn(10, 10)) for i in range(10)])

        def forward(self, x):
            for i, p in enumerate(self.params):
                x = self.params[i // 2].mm(x) + p.mm(x)
            return x

    m = MyModule()
    assert m(tl.ones(10, 1)).shape == (10, 1)
    assert len(list(m.parameters())) == 10

    class MyDict(nn.Module):
        def __init__(self):
            super().__init__()
            self.params = nn.ParameterDict({
                'left': nn.Parameter(tl.randn(5, 10)),
                'right': nn.Parameter(tl.randn(5, 10))
            })

        def forward(self, x, choice):
            x = self.params[choice].mm(x)
            return x

    d = MyDict()
    assert d(tl.ones(10, 1), "right").shape == (5, 1)
    assert [n for n, _ in d.named_parameters()] == ["params.left", "params.right"]


# --------------------------------------------------------------------- hooks
class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = nn.Parameter(tl.tensor(float(k)))

    def forward(self, x, *, bias=0.0):
        return x * self.k + bias


def test_forward_pre_and_post_hooks_can_replace():
    m = Scale(2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.tolist()) or out * 10)
    h3 = m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs.get("bias", 0),
                                 with_kwargs=True)
    out = m(tl.tensor([1.0]), bias=5.0)
    assert calls == [[9.0]] and out.tolist() == [95.0]
    for h in (h1, h2, h3):
        h.remove()
    assert m(tl.tensor([1.0])).tolist() == [2.0]


def test_global_forward_hook():
    seen = []
    h = nn.modules.module.register_module_forward_hook(
        lambda mod, args, out: seen.append(type(mod).__name__))
    try:
        Scale(1)(tl.ones(1))
    finally:
        h.remove()
    Scale(1)(tl.ones(1))
    assert seen == ["Scale"]


def test_seed_forward_hooks_collect_features_per_child():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Scale(2)
            self.b = Scale(3)

        def forward(self, x):
            return self.b(self.a(x))

    total_feature_out, total_feature_in = [], []

    def hook_fn_forward(module, input, output):
        total_feature_out.append(output)
        total_feature_in.append(input)
    model = Model()
    for _name, module in model.named_children():
        module.register_forward_hook(hook_fn_forward)
    x = tl.Tensor([[1.0, 1.0, 1.0]]).requires_grad_()
    o = model(x).sum()
    o.backward()
    assert [t.tolist() for t in total_feature_out] == [[[2.0] * 3], [[6.0] * 3]]
    assert isinstance(total_feature_in[0], tuple) and total_feature_in[0][0] is x


def backward_hook(module, grad_input, grad_output):
    output_grad_input = - grad_input[0]
    return (output_grad_input,)


class negGradient(nn.Module):
    def __init__(self):
        super(negGradient, self).__init__()
        self.register_full_backward_hook(backward_hook)

    def forward(self, x):
        return x


def test_seed_gradient_negating_full_backward_hook():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (negGradient()(x * 3) ** 2).sum()
    y.backward()
    assert x.grad.tolist() == [-18.0, -36.0]
    if HAVE_TORCH:
        class TNeg(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_full_backward_hook(backward_hook)

            def forward(self, x):
                return x
        tx = torch.tensor([1.0, 2.0], requires_grad=True)
        (TNeg()(tx * 3) ** 2).sum().backward()
        assert tx.grad.tolist() == x.grad.tolist()


def test_seed_grad_reverse_layer():
    from torchlike.autograd import Function

    class _GradReverseLayer(Function):
        @staticmethod
        def forward(ctx, x, constant):
            assert isinstance(constant, int) and constant > 0
            ctx.constant = constant
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.neg() * ctx.constant, None

    class GradReverseLayer(nn.Module):
        def __init__(self, weight):
            super(GradReverseLayer, self).__init__()
            self.weight = weight

        def forward(self, x):
            return _GradReverseLayer.apply(x, self.weight)

    x = tl.tensor([1.0, -2.0], requires_grad=True)
    (GradReverseLayer(3)(x) * 2).sum().backward()
    assert x.grad.tolist() == [-6.0, -6.0]


def test_backward_pre_hook_and_order():
    events = []
    m = Scale(2)
    m.register_full_backward_pre_hook(lambda mod, go: events.append(("pre", go[0].tolist())))
    m.register_full_backward_hook(
        lambda mod, gi, go: events.append(("full", gi[0].tolist(), go[0].tolist())))
    x = tl.tensor([1.0, 1.0], requires_grad=True)
    m(x).sum().backward()
    assert events == [("pre", [1.0, 1.0]), ("full", [2.0, 2.0], [1.0, 1.0])]


def test_backward_hook_without_grad_inputs_gets_none():
    seen = []
    m = Scale(2)
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    m(tl.ones(2)).sum().backward()
    assert seen == [(None,)]
    assert m.k.grad.item() == 2.0


def test_deprecated_backward_hook_sees_last_node_and_warns():
    seen = []
    m = Scale(2)
    m.register_backward_hook(lambda mod, gi, go: seen.append((len(gi), go[0].tolist())))
    x = tl.tensor([1.0, 1.0], requires_grad=True)
    with pytest.warns(FutureWarning, match="non-full backward hook"):
        out = m(x)          # forward has two nodes (mul, add): PyTorch warns
    out.sum().backward()
    assert seen and seen[0][1] == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
        m.register_full_backward_hook(lambda *a: None)
    _ = (np, warnings)


SEED_BACKWARD_HOOK = '''
class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.fc1 = nn.Linear(3, 4)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(4, 1)
        self.initialize()

    def initialize(self):
        with torch.no_grad():
            self.fc1.weight = torch.nn.Parameter(
                torch.Tensor([[1., 2., 3.],
                              [-4., -5., -6.],
                              [7., 8., 9.],
                              [-10., -11., -12.]]))

            self.fc1.bias = torch.nn.Parameter(torch.Tensor([1.0, 2.0, 3.0, 4.0]))
            self.fc2.weight = torch.nn.Parameter(torch.Tensor([[1.0, 2.0, 3.0, 4.0]]))
            self.fc2.bias = torch.nn.Parameter(torch.Tensor([1.0]))

    def forward(self, x):
        o = self.fc1(x)
        o = self.relu1(o)
        o = self.fc2(o)
        return o
total_grad_out = []
total_grad_in = []

model = Model()

def hook_fn_backward(module, grad_input, grad_output):
    print(module)
    print('grad_output', grad_output)
    print('grad_input', grad_input)
    total_grad_out.append(grad_output)
    total_grad_in.append(grad_input)
for name, module in model.named_children():
    module.register_backward_hook(hook_fn_backward)

x = torch.Tensor([[1.0, 1.0, 1.0]]).requires_grad_()
o = model(x)
o.backward()

print('==========Saved inputs and outputs==========')
for idx in range(len(total_grad_in)):
    print('input: ', total_grad_in[idx])
    print('output: ', total_grad_out[idx])
'''


def _run_source(src, lib):
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        exec(src, {"torch": lib, "nn": lib.nn})  # noqa: S102 - the seed's own snippet
    return buf.getvalue()


def test_seed_register_backward_hook_example_prints_like_pytorch():
    out = _run_source(SEED_BACKWARD_HOOK, tl)
    assert "grad_input (tensor([1.]), tensor([[1., 2., 3., 4.]])" in out
    if HAVE_TORCH:
        assert out == _run_source(SEED_BACKWARD_HOOK, torch)


SEED_NET = '''
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5, bias=False)
        self.pool = nn.MaxPool2d(2, 2) # run after each conv (hence the 5x5 FC layer)
        self.conv2 = nn.Conv2d(6, 16, 5, bias=False)
        self.fc1 = nn.Linear(16 * 5 * 5, 120, bias=False)
        self.fc2 = nn.Linear(120, 84, bias=False)
        self.fc3 = nn.Linear(84, 10, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x)) #输入是列向量
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

device = 'cpu'
net = Net().to(device)
print(net)
for name, param in net.named_parameters():
    print(name, tuple(param.shape), param.requires_grad)
print([type(m).__name__ for m in net.modules()])
print([n for n, _ in net.named_children()])
'''


def test_seed_lenet_prints_and_runs_like_pytorch():
    out = _run_source(SEED_NET.replace("F.relu", "nn.functional.relu"), tl)
    if HAVE_TORCH:
        ref = _run_source(SEED_NET.replace("F.relu", "nn.functional.relu"), torch)
        assert out == ref
    ns = {"torch": tl, "nn": tl.nn, "F": tl.nn.functional}
    exec(SEED_NET.replace("print(", "(lambda *a: None)("), ns)  # noqa: S102
    net = ns["net"]
    y = net(tl.randn(2, 3, 32, 32))
    assert y.shape == (2, 10)
    y.sum().backward()
    assert net.conv1.weight.grad.shape == (6, 3, 5, 5)


def test_parameter_list_and_dict_print_like_pytorch():
    def make(lib):
        lst = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))])
        dct = lib.nn.ParameterDict({"a": lib.nn.Parameter(lib.ones(2, 3)), "b": lib.ones(1)})
        return repr(lst) + "\n" + repr(dct)
    out, ref = both(make)
    if HAVE_TORCH:
        assert _replace(out) == ref


def test_seed_container_examples_run():
    class MyList(nn.Module):
        def __init__(self):
            super().__init__()
            self.linears = nn.ModuleList([nn.Linear(10, 10) for i in range(10)])

        def forward(self, x):
            for i, l in enumerate(self.linears):
                x = self.linears[i // 2](x) + l(x)
            return x

    class MyDict(nn.Module):
        def __init__(self):
            super().__init__()
            self.choices = nn.ModuleDict({
                'conv': nn.Conv2d(10, 10, 3),
                'pool': nn.MaxPool2d(3)
            })
            self.activations = nn.ModuleDict([
                ['lrelu', nn.LeakyReLU()],
                ['prelu', nn.PReLU()]
            ])

        def forward(self, x, choice, act):
            x = self.choices[choice](x)
            x = self.activations[act](x)
            return x

    assert MyList()(tl.randn(2, 10)).shape == (2, 10)
    d = MyDict()
    assert d(tl.randn(1, 10, 8, 8), "conv", "prelu").shape == (1, 10, 6, 6)
    assert d(tl.randn(1, 10, 9, 9), "pool", "lrelu").shape == (1, 10, 3, 3)
    seq = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.Conv2d(20, 64, 5), nn.ReLU())
    seq2 = nn.Sequential(OrderedDict([
        ('conv1', nn.Conv2d(1, 20, 5)), ('relu1', nn.ReLU()),
        ('conv2', nn.Conv2d(20, 64, 5)), ('relu2', nn.ReLU())]))
    x = tl.randn(1, 1, 12, 12)
    assert seq(x).shape == seq2(x).shape == (1, 64, 4, 4)
    if HAVE_TORCH:
        ref = torch.nn.Sequential(OrderedDict([
            ('conv1', torch.nn.Conv2d(1, 20, 5)), ('relu1', torch.nn.ReLU()),
            ('conv2', torch.nn.Conv2d(20, 64, 5)), ('relu2', torch.nn.ReLU())]))
        assert repr(seq2) == repr(ref)
        assert repr(MyDict()) == repr(_torch_mydict())


def _torch_mydict():
    class MyDict(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.choices = torch.nn.ModuleDict({'conv': torch.nn.Conv2d(10, 10, 3),
                                                'pool': torch.nn.MaxPool2d(3)})
            self.activations = torch.nn.ModuleDict([['lrelu', torch.nn.LeakyReLU()],
                                                    ['prelu', torch.nn.PReLU()]])
    return MyDict()
