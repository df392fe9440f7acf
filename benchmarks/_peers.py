"""The same models and training steps written for each peer the benchmarks compare.

Every implementation of a model starts from one set of initial weights, generated here in
NumPy in PyTorch's layout and under PyTorch's parameter names (``fc1.weight`` is
``(out, in)``, a convolution's weight is ``OIHW``), so all peers run the same program
from the same point and their losses can be compared step by step. The peers:

* ``torchlike`` and ``torch``: one model definition, written against a torch-like
  namespace ``T`` (``torchlike`` or ``torch``), loaded with ``load_state_dict``.
* ``flax``: Flax NNX modules (NHWC convolutions, as Flax lays them out), trained with
  ``nnx.Optimizer`` inside a ``jax.jit`` over the split state with donation (the fast
  pattern of Flax's performance guide).
* ``jax``: parameters as a dict pytree (the PyTorch names and layouts), ``jax.nn`` and
  ``lax`` ops, ``optax``, one ``jax.jit`` with ``donate_argnums``.
* ``torchax``: the PyTorch model lowered by ``torchax.extract_jax`` into a ``jax.jit``
  step with ``optax`` (torchax's documented training pattern).

Heavy imports (jax, flax, torch) happen inside the functions that need them, so that a
script can set thread affinity and ``XLA_FLAGS`` before JAX starts.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import time
from typing import Any, Callable

import numpy as np

def add_sync_dispatch(parser) -> None:
    """The ``--sync-dispatch`` option of the timing scripts (benchmarks/README.md, "CPU
    dispatch")."""
    parser.add_argument("--sync-dispatch", action="store_true",
                        help="run every CPU program in the calling thread (JAX's "
                             "jax_cpu_enable_async_dispatch off before its backend "
                             "starts; benchmarks/README.md, CPU dispatch)")


def sync_dispatch(on: bool) -> str:
    """With ``on``, make JAX's CPU client run every program in the calling thread: only
    before JAX's backend starts, which importing torchlike does. The mode, for headers."""
    if not on:
        return "asynchronous (JAX default)"
    import jax
    jax.config.update("jax_cpu_enable_async_dispatch", False)
    return "synchronous"


# Note [Benchmark configurations]
# ``FULL`` holds the sizes the benchmark reports; ``TINY`` the same architectures shrunk
# so that the smoke test runs every implementation in seconds. The CNN keeps its 32x32
# input (the architecture fixes fc1's input to c2 * 5 * 5) and shrinks the channels.
FULL: dict[str, dict[str, Any]] = {
    "mlp": dict(batch=128, sizes=(784, 256, 256, 10), opt="sgd", lr=0.01, momentum=0.9),
    "cnn": dict(batch=64, c1=6, c2=16, f1=120, f2=84, classes=10, opt="sgd", lr=0.01,
                momentum=0.9),
    "transformer": dict(batch=16, seq=64, d_model=128, nhead=4, ff=512, layers=2,
                        classes=10, opt="adam", lr=1e-3),
}
TINY: dict[str, dict[str, Any]] = {
    "mlp": dict(FULL["mlp"], batch=4, sizes=(16, 8, 8, 4)),
    "cnn": dict(FULL["cnn"], batch=2, c1=2, c2=3, f1=8, f2=8, classes=4),
    "transformer": dict(FULL["transformer"], batch=2, seq=4, d_model=8, nhead=2, ff=16,
                        layers=1, classes=4),
}
MODELS = tuple(FULL)


# ----------------------------------------------------------------------------- weights, data

def _uniform(rng: np.random.Generator, shape: tuple, bound: float) -> np.ndarray:
    return rng.uniform(-bound, bound, shape).astype(np.float32)


def init_linear(rng, sd: dict, name: str, n_in: int, n_out: int) -> None:
    # PyTorch's default Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both.
    b = 1.0 / math.sqrt(n_in)
    sd[f"{name}.weight"] = _uniform(rng, (n_out, n_in), b)
    sd[f"{name}.bias"] = _uniform(rng, (n_out,), b)


def _conv(rng, sd: dict, name: str, c_in: int, c_out: int, k: int) -> None:
    b = 1.0 / math.sqrt(c_in * k * k)
    sd[f"{name}.weight"] = _uniform(rng, (c_out, c_in, k, k), b)
    sd[f"{name}.bias"] = _uniform(rng, (c_out,), b)


def init_weights(model: str, cfg: dict, seed: int = 0) -> dict[str, np.ndarray]:
    """Initial weights of ``model`` as PyTorch's ``state_dict`` would name and lay them."""
    rng = np.random.default_rng(seed)
    sd: dict[str, np.ndarray] = {}
    if model == "mlp":
        s = cfg["sizes"]
        for i in range(len(s) - 1):
            init_linear(rng, sd, str(2 * i), s[i], s[i + 1])
    elif model == "cnn":
        _conv(rng, sd, "conv1", 3, cfg["c1"], 5)
        _conv(rng, sd, "conv2", cfg["c1"], cfg["c2"], 5)
        init_linear(rng, sd, "fc1", cfg["c2"] * 25, cfg["f1"])
        init_linear(rng, sd, "fc2", cfg["f1"], cfg["f2"])
        init_linear(rng, sd, "fc3", cfg["f2"], cfg["classes"])
    elif model == "transformer":
        d, ff = cfg["d_model"], cfg["ff"]
        for i in range(cfg["layers"]):
            p = f"encoder.layers.{i}."
            # MultiheadAttention: xavier_uniform in_proj, zero biases (PyTorch's init).
            sd[p + "self_attn.in_proj_weight"] = _uniform(rng, (3 * d, d),
                                                          math.sqrt(6.0 / (4 * d)))
            sd[p + "self_attn.in_proj_bias"] = np.zeros(3 * d, np.float32)
            sd[p + "self_attn.out_proj.weight"] = _uniform(rng, (d, d), 1 / math.sqrt(d))
            sd[p + "self_attn.out_proj.bias"] = np.zeros(d, np.float32)
            init_linear(rng, sd, p + "linear1", d, ff)
            init_linear(rng, sd, p + "linear2", ff, d)
            for n in ("norm1", "norm2"):
                sd[p + n + ".weight"] = np.ones(d, np.float32)
                sd[p + n + ".bias"] = np.zeros(d, np.float32)
        init_linear(rng, sd, "head", d, cfg["classes"])
    else:
        raise KeyError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")
    return sd


def make_batch(model: str, cfg: dict, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """One fixed batch ``(x float32, y int64)``; the same batch is used at every step."""
    rng = np.random.default_rng(seed)
    if model == "mlp":
        shape, classes = (cfg["batch"], cfg["sizes"][0]), cfg["sizes"][-1]
    elif model == "cnn":
        shape, classes = (cfg["batch"], 3, 32, 32), cfg["classes"]
    else:
        shape, classes = (cfg["batch"], cfg["seq"], cfg["d_model"]), cfg["classes"]
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, cfg["batch"]).astype(np.int64)
    return x, y


# ----------------------------------------------------------------------------- torch-style

def torch_style_model(T, model: str, cfg: dict):
    """The model written once against a torch-like namespace (``torchlike`` or ``torch``)."""
    nn = T.nn
    if model == "mlp":
        s, layers = cfg["sizes"], []
        for i in range(len(s) - 1):
            layers += [nn.Linear(s[i], s[i + 1]), nn.ReLU()]
        return nn.Sequential(*layers[:-1])
    if model == "cnn":
        class LeNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, cfg["c1"], 5)
                self.conv2 = nn.Conv2d(cfg["c1"], cfg["c2"], 5)
                self.pool = nn.MaxPool2d(2)
                self.fc1 = nn.Linear(cfg["c2"] * 25, cfg["f1"])
                self.fc2 = nn.Linear(cfg["f1"], cfg["f2"])
                self.fc3 = nn.Linear(cfg["f2"], cfg["classes"])

            def forward(self, x):
                x = self.pool(T.relu(self.conv1(x)))
                x = self.pool(T.relu(self.conv2(x)))
                x = T.flatten(x, 1)
                x = T.relu(self.fc1(x))
                x = T.relu(self.fc2(x))
                return self.fc3(x)
        return LeNet()
    if model == "transformer":
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(
                    d_model=cfg["d_model"], nhead=cfg["nhead"], dim_feedforward=cfg["ff"],
                    dropout=0.0, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, num_layers=cfg["layers"],
                                                     enable_nested_tensor=False)
                self.head = nn.Linear(cfg["d_model"], cfg["classes"])

            def forward(self, x):
                return self.head(self.encoder(x).mean(1))
        return Encoder()
    raise KeyError(f"unknown model {model!r}; expected one of {', '.join(MODELS)}")


def torch_style_optimizer(T, params, cfg: dict):
    if cfg["opt"] == "sgd":
        return T.optim.SGD(params, lr=cfg["lr"], momentum=cfg["momentum"])
    return T.optim.Adam(params, lr=cfg["lr"])


def torch_style_setup(T, model: str, cfg: dict, weights: dict, wrap=None):
    """Model (loaded with ``weights``), optimizer and the un-compiled train step; the step
    calls ``wrap(model)`` when given (``DistributedDataParallel``)."""
    T.manual_seed(0)
    net = torch_style_model(T, model, cfg)
    net.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
    opt = torch_style_optimizer(T, net.parameters(), cfg)
    F = T.nn.functional
    call = net if wrap is None else wrap(net)

    def train_step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(call(x), y)
        loss.backward()
        opt.step()
        return loss
    return net, opt, train_step


# ----------------------------------------------------------------------------- plain JAX

def _optax_tx(cfg: dict):
    import optax
    if cfg["opt"] == "sgd":
        # optax.trace is PyTorch's momentum rule (buf = m * buf + g; p -= lr * buf).
        return optax.sgd(cfg["lr"], momentum=cfg["momentum"])
    return optax.adam(cfg["lr"])  # PyTorch's Adam defaults: betas (0.9, 0.999), eps 1e-8


def _layer_norm(x, w, b, eps=1e-5):
    from jax import lax
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + eps) * w + b


def jax_forward(model: str, cfg: dict) -> Callable:
    """``apply(params, x)`` for a params dict in PyTorch's names and layouts."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def lin(p, name, x):
        return x @ p[name + ".weight"].T + p[name + ".bias"]

    if model == "mlp":
        n = len(cfg["sizes"]) - 1

        def apply(p, x):
            for i in range(n):
                x = lin(p, str(2 * i), x)
                if i < n - 1:
                    x = jax.nn.relu(x)
            return x
        return apply

    if model == "cnn":
        def conv(p, name, x):
            y = lax.conv_general_dilated(x, p[name + ".weight"], (1, 1), "VALID",
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return y + p[name + ".bias"][None, :, None, None]

        def pool(x):
            return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        def apply(p, x):
            x = pool(jax.nn.relu(conv(p, "conv1", x)))
            x = pool(jax.nn.relu(conv(p, "conv2", x)))
            x = x.reshape(x.shape[0], -1)
            x = jax.nn.relu(lin(p, "fc1", x))
            x = jax.nn.relu(lin(p, "fc2", x))
            return lin(p, "fc3", x)
        return apply

    d, h = cfg["d_model"], cfg["nhead"]

    def attention(p, pre, x):
        b, s, _ = x.shape
        qkv = x @ p[pre + "in_proj_weight"].T + p[pre + "in_proj_bias"]
        q, k, v = (t.reshape(b, s, h, d // h) for t in jnp.split(qkv, 3, axis=-1))
        o = jax.nn.dot_product_attention(q, k, v).reshape(b, s, d)
        return lin(p, pre + "out_proj", o)

    def apply(p, x):
        for i in range(cfg["layers"]):
            pre = f"encoder.layers.{i}."
            x = _layer_norm(x + attention(p, pre + "self_attn.", x),
                            p[pre + "norm1.weight"], p[pre + "norm1.bias"])
            ff = lin(p, pre + "linear2", jax.nn.relu(lin(p, pre + "linear1", x)))
            x = _layer_norm(x + ff, p[pre + "norm2.weight"], p[pre + "norm2.bias"])
        return lin(p, "head", x.mean(1))
    return apply


def _ce(logits, y):
    import optax
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def jax_setup(model: str, cfg: dict, weights: dict):
    """Plain JAX: returns ``(step, state)``; ``step(state, x, y) -> (loss, state)``."""
    import jax
    import jax.numpy as jnp
    import optax

    apply = jax_forward(model, cfg)
    tx = _optax_tx(cfg)
    params = {k: jnp.asarray(v) for k, v in weights.items()}
    opt_state = tx.init(params)

    def step(state, x, y):
        params, opt_state = state
        loss, grads = jax.value_and_grad(lambda p: _ce(apply(p, x), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, (optax.apply_updates(params, updates), opt_state)
    return jax.jit(step, donate_argnums=0), (params, opt_state)


# ----------------------------------------------------------------------------- Flax NNX

def flax_model(model: str, cfg: dict, weights: dict):
    """Flax NNX modules holding ``weights`` (converted to Flax's layouts).

    The modules are built under ``nnx.eval_shape`` (their random initialisers only
    traced, never compiled or run), then each ``load`` sets the given weights."""
    import jax.numpy as jnp
    from flax import nnx

    def set_linear(m, name):
        m.kernel.set_value(jnp.asarray(weights[name + ".weight"].T))
        m.bias.set_value(jnp.asarray(weights[name + ".bias"]))

    def lin(n_in, n_out, rngs):
        return nnx.Linear(n_in, n_out, rngs=rngs)

    if model == "mlp":
        s = cfg["sizes"]

        class MLP(nnx.Module):
            def __init__(self, rngs):
                self.layers = nnx.List([lin(s[i], s[i + 1], rngs) for i in range(len(s) - 1)])

            def load(self):
                for i, layer in enumerate(self.layers):
                    set_linear(layer, str(2 * i))

            def __call__(self, x):
                for i, layer in enumerate(self.layers):
                    x = layer(x)
                    if i < len(self.layers) - 1:
                        x = nnx.relu(x)
                return x
        cls = MLP

    elif model == "cnn":
        c1, c2 = cfg["c1"], cfg["c2"]

        def set_conv(m, name):  # OIHW -> HWIO
            m.kernel.set_value(jnp.asarray(weights[name + ".weight"].transpose(2, 3, 1, 0)))
            m.bias.set_value(jnp.asarray(weights[name + ".bias"]))

        class LeNet(nnx.Module):
            def __init__(self, rngs):
                self.conv1 = nnx.Conv(3, c1, (5, 5), padding="VALID", rngs=rngs)
                self.conv2 = nnx.Conv(c1, c2, (5, 5), padding="VALID", rngs=rngs)
                self.fc1 = lin(c2 * 25, cfg["f1"], rngs)
                self.fc2 = lin(cfg["f1"], cfg["f2"], rngs)
                self.fc3 = lin(cfg["f2"], cfg["classes"], rngs)

            def load(self):
                set_conv(self.conv1, "conv1")
                set_conv(self.conv2, "conv2")
                for n in ("fc1", "fc2", "fc3"):
                    set_linear(getattr(self, n), n)
                # PyTorch flattens (C, H, W); NHWC flattens (H, W, C): permute fc1's rows.
                k = self.fc1.kernel[...].reshape(c2, 5, 5, -1).transpose(1, 2, 0, 3)
                self.fc1.kernel.set_value(k.reshape(c2 * 25, -1))

            def __call__(self, x):  # x: NHWC
                x = nnx.max_pool(nnx.relu(self.conv1(x)), (2, 2), (2, 2))
                x = nnx.max_pool(nnx.relu(self.conv2(x)), (2, 2), (2, 2))
                x = x.reshape(x.shape[0], -1)
                x = nnx.relu(self.fc1(x))
                x = nnx.relu(self.fc2(x))
                return self.fc3(x)
        cls = LeNet

    else:
        d, h = cfg["d_model"], cfg["nhead"]

        class Block(nnx.Module):
            def __init__(self, rngs):
                self.attn = nnx.MultiHeadAttention(h, d, d, d, dropout_rate=0.0,
                                                   deterministic=True, decode=False,
                                                   rngs=rngs)
                self.linear1, self.linear2 = lin(d, cfg["ff"], rngs), lin(cfg["ff"], d, rngs)
                self.norm1 = nnx.LayerNorm(d, epsilon=1e-5, rngs=rngs)
                self.norm2 = nnx.LayerNorm(d, epsilon=1e-5, rngs=rngs)

            def load(self, pre):
                w_in = weights[pre + "self_attn.in_proj_weight"]
                b_in = weights[pre + "self_attn.in_proj_bias"]
                # PyTorch's packed (3d, d) in-projection -> per-head (d, heads, d/heads).
                for j, proj in enumerate((self.attn.query, self.attn.key, self.attn.value)):
                    rows = slice(j * d, (j + 1) * d)
                    proj.kernel.set_value(jnp.asarray(w_in[rows].T.reshape(d, h, d // h)))
                    proj.bias.set_value(jnp.asarray(b_in[rows].reshape(h, d // h)))
                w_o = weights[pre + "self_attn.out_proj.weight"]
                self.attn.out.kernel.set_value(jnp.asarray(w_o.T.reshape(h, d // h, d)))
                self.attn.out.bias.set_value(jnp.asarray(weights[pre + "self_attn.out_proj.bias"]))
                set_linear(self.linear1, pre + "linear1")
                set_linear(self.linear2, pre + "linear2")
                for n in ("norm1", "norm2"):
                    getattr(self, n).scale.set_value(jnp.asarray(weights[pre + n + ".weight"]))
                    getattr(self, n).bias.set_value(jnp.asarray(weights[pre + n + ".bias"]))

            def __call__(self, x):  # post-norm, as PyTorch's default norm_first=False
                x = self.norm1(x + self.attn(x))
                return self.norm2(x + self.linear2(nnx.relu(self.linear1(x))))

        class Encoder(nnx.Module):
            def __init__(self, rngs):
                self.blocks = nnx.List([Block(rngs) for _ in range(cfg["layers"])])
                self.head = lin(d, cfg["classes"], rngs)

            def load(self):
                for i, blk in enumerate(self.blocks):
                    blk.load(f"encoder.layers.{i}.")
                set_linear(self.head, "head")

            def __call__(self, x):
                for blk in self.blocks:
                    x = blk(x)
                return self.head(x.mean(1))
        cls = Encoder

    net = nnx.eval_shape(lambda: cls(nnx.Rngs(0)))
    net.load()
    return net


def flax_setup(model: str, cfg: dict, weights: dict):
    """Flax NNX: returns ``(step, state)``; ``step(state, x, y) -> (loss, state)``.

    The model and its ``nnx.Optimizer`` are split once; the step merges them inside a
    ``jax.jit`` with the state donated, so no Python graph walk happens per call."""
    import jax
    from flax import nnx

    net = flax_model(model, cfg, weights)
    opt = nnx.Optimizer(net, _optax_tx(cfg), wrt=nnx.Param)
    graphdef, state = nnx.split((net, opt))

    def step(state, x, y):
        net, opt = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(lambda m: _ce(m(x), y))(net)
        opt.update(net, grads)
        return loss, nnx.state((net, opt))
    return jax.jit(step, donate_argnums=0), state


# ----------------------------------------------------------------------------- torchax

def _import_torchax(torch):
    """``import torchax``. torchax 0.0.13 names Dimname overloads that torch 2.13 no
    longer has (``aten.prod.dim_Dimname``, ``aten.all.dimname``, ...) in its autocast and
    decomposition tables, and importing those modules fails on them; while they are
    imported, a missing overload is given a placeholder object (the models here use no
    named dimensions), then the lookup is restored."""
    import sys
    if "torchax" in sys.modules:
        return sys.modules["torchax"]
    import torch._ops as ops
    lookup = ops.OpOverloadPacket.__getattr__

    def lenient(self, key):
        try:
            return lookup(self, key)
        except AttributeError:
            if key.startswith("__"):
                raise
            return object()
    ops.OpOverloadPacket.__getattr__ = lenient
    try:
        import torchax
        import torchax.decompositions  # noqa: F401  (imported lazily by torchax otherwise)
        import torchax.export  # noqa: F401
    finally:
        ops.OpOverloadPacket.__getattr__ = lookup
    return torchax


def torchax_setup(model: str, cfg: dict, weights: dict):
    """torchax: the PyTorch model lowered by ``torchax.extract_jax`` into a jitted step.

    Raises whatever importing or lowering raises; callers report it instead of a time."""
    import jax
    import optax
    import torch
    torchax = _import_torchax(torch)

    net = torch_style_model(torch, model, cfg)
    net.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
    states, forward = torchax.extract_jax(net)
    tx = _optax_tx(cfg)

    def step(state, x, y):
        params, opt_state = state
        loss, grads = jax.value_and_grad(lambda p: _ce(forward(p, (x,)), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, (optax.apply_updates(params, updates), opt_state)
    return jax.jit(step, donate_argnums=0), (states, tx.init(states))


# ----------------------------------------------------------------------------- measuring

class Runner:
    """One implementation ready to train: ``run()`` does a step and returns its loss
    handle, ``sync(handle)`` waits for that step and the state it wrote, ``value(handle)``
    reads the loss as a float, ``traces()`` says how often a compiled step traced and
    why it last did (``(count, reason)``; None where not known)."""

    def __init__(self, run: Callable[[], Any], sync: Callable[[Any], None],
                 value: Callable[[Any], float], traces: Callable[[], Any] = lambda: None):
        self.run, self.sync, self.value, self.traces = run, sync, value, traces


def state_runner(step, state, x, y) -> Runner:
    """Runner for a pure ``step(state, x, y) -> (loss, state)`` (flax, jax, torchax)."""
    import jax
    holder = [state]

    def run():
        loss, holder[0] = step(holder[0], x, y)
        return loss
    return Runner(run, lambda loss: jax.block_until_ready((loss, holder[0])), float)


def torchlike_runner(tl, fn, opt, x, y, compiled: bool) -> Runner:
    """Runner for a torchlike step ``fn(x, y) -> loss`` (compiled or not)."""
    import jax
    X, Y = tl.tensor(x), tl.tensor(y)
    params = [p for g in opt.param_groups for p in g["params"]]
    # The arrays behind the loss and the parameters: waiting for them waits for the whole
    # step, optimizer update included (torchlike has no public "wait" for this).
    sync = lambda loss: jax.block_until_ready([loss._value] + [p._value for p in params])
    traces = (lambda: (fn.stats.traces, fn.stats.last_trace_reason)) if compiled else \
        (lambda: None)
    return Runner(lambda: fn(X, Y), sync, lambda loss: loss.item(), traces)


def _status_mib(field: str) -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:  # pragma: no cover - not Linux
        pass
    return float("nan")


def rss_mib() -> float:
    """Current resident set size of this process in MiB (``VmRSS``, Linux)."""
    return _status_mib("VmRSS")


def peak_rss_mib() -> float:
    """Peak resident set size of this process in MiB (``VmHWM``, Linux).

    Not ``getrusage``'s ``ru_maxrss``: a child started by ``fork`` + ``exec`` inherits its
    parent's high-water mark there, so every worker would report at least the parent's
    size. ``VmHWM`` belongs to the process's own address space, which ``exec`` replaces."""
    hwm = _status_mib("VmHWM")
    if math.isnan(hwm):  # pragma: no cover - not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return hwm


def time_steps(run: Callable[[], Any], sync: Callable[[Any], None], steps: int,
               repeat: int) -> tuple[float, list[float]]:
    """Median over ``repeat`` runs of ``steps`` back-to-back calls, synced after each run.

    Returns (seconds per step, every run's seconds per step). Calls are not synced one by
    one: asynchronous dispatch overlapping Python with computation is part of what a
    compiled step offers, as in a real training loop."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(steps):
            r = run()
        sync(r)
        runs.append((time.perf_counter() - t0) / steps)
    return statistics.median(runs), runs


def pin_threads(threads: int) -> str:
    """Restrict this process (and the threads it starts later) to ``threads`` CPUs.

    Call before JAX creates its CPU client. XLA's CPU runtime sizes its thread pools from
    the CPUs it may use, and (checked with jax 0.10) ``--xla_cpu_multi_thread_eigen=false``
    alone does not keep its work on one thread, so affinity is the setting that holds;
    the Eigen flag is added for ``threads == 1`` as well. ``threads <= 0`` leaves the
    process as it is (the smoke test runs the scripts inside pytest). Returns a
    description."""
    if threads <= 0:
        return "threads not pinned"
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    note = ""
    if allowed and threads < len(allowed):
        os.sched_setaffinity(0, allowed[:threads])
    elif allowed and threads > len(allowed):
        note = f" (only {len(allowed)} CPUs available)"
    if threads == 1:
        flags = os.environ.get("XLA_FLAGS", "")
        if "xla_cpu_multi_thread_eigen" not in flags:
            os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()
    cpus = sorted(os.sched_getaffinity(0)) if allowed else "?"
    return f"{threads} thread(s) on CPUs {cpus}{note}"
