"""Pure per-group update rules of the optimizers, on JAX arrays and optax.

Each ``*_update`` function takes, for the parameters of one group that have a gradient,
``(params, grads, state, hp)`` where ``params``/``grads`` are lists of arrays, ``state`` a
dict of lists of arrays (the per-parameter state tensors, keyed as in PyTorch's
``optimizer.state[p]``) and ``hp`` a dict of hyper-parameters, and returns
``(new_params, new_state)``. Options that change the shape of the computation (``maximize``,
``nesterov``, ``amsgrad``, whether weight decay is zero...) are static keyword arguments; the
numeric hyper-parameters are traced, so changing ``param_groups[i]['lr']`` between steps
reuses the compiled function, and a whole step can be traced inside an outer ``jax.jit``.

Note [Hyper-parameters are Python doubles]
PyTorch computes scalar expressions such as ``lr / (1 - beta1 ** step)`` in Python double
precision and hands the result to a float32 kernel, which rounds it once. The hyper-parameters
arrive here as Python floats, which ``jax.jit`` traces as weakly typed float64 scalars, and
the step counters are upcast to float64 before such expressions; ``_s(x, like)`` then rounds
the finished scalar to the parameter dtype exactly where PyTorch's kernel would.

Note [Matching PyTorch's rounding]
Each rule below follows the order of operations of PyTorch's single-tensor (``foreach=False``)
implementation, which is what PyTorch runs on CPU by default: ``lerp`` for first moments,
``addcmul``/``addcdiv`` as ``self + value * a * b`` and ``self + value * a / b``. Where optax
has the same rule (``optax.trace`` for heavy-ball momentum without dampening,
``optax.add_decayed_weights`` for L2 weight decay, ``optax.scale_by_adam`` for Adam's moments
and direction) it is used; its rounding may differ from PyTorch's in the last bit, never in
the formula. Where optax's formula differs, or its rounding drifts measurably (RMSprop), the
PyTorch formula is written out and a note says why.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax

from .._ops.arithmetic import lerp_kernel

__all__ = ["sgd_update", "adam_update", "adamax_update", "nadam_update", "radam_update",
           "rmsprop_update", "adagrad_update", "adadelta_update", "asgd_update",
           "rprop_update", "adafactor_update"]

_F64 = jnp.float64


def _s(x, like):
    """A scalar hyper-parameter rounded to ``like``'s dtype, as a PyTorch kernel does."""
    return jnp.asarray(x).astype(like.dtype)


def _step64(step):
    return jnp.asarray(step).astype(_F64)


def _lerp(a, b, w):
    """``torch.lerp(a, b, w)`` with a scalar weight."""
    return lerp_kernel(a, b, _s(w, a))


def _maybe_neg(grads, maximize):
    return [-g for g in grads] if maximize else list(grads)


def _l2(grads, params, weight_decay):
    """Coupled (L2) weight decay ``g + wd * p``: exactly ``optax.add_decayed_weights``."""
    wd = [_s(weight_decay, p) for p in params]
    out = []
    for g, p, w in zip(grads, params, wd):
        upd, _ = optax.add_decayed_weights(w).update([g], optax.EmptyState(), [p])
        out.append(upd[0])
    return out


def _jit(*static):
    return functools.partial(jax.jit, static_argnames=static)


# --------------------------------------------------------------------------- SGD
@_jit("maximize", "nesterov", "has_wd", "has_momentum", "has_dampening")
def sgd_update(params, grads, state, hp, *, maximize, nesterov, has_wd, has_momentum,
               has_dampening):
    """``torch.optim.SGD``'s rule. ``state['momentum_buffer']`` holds ``None`` for a
    parameter whose buffer does not exist yet: PyTorch then starts it as a copy of the
    (decayed) gradient, which needs no dampening."""
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    new_state = {}
    if has_momentum:
        new_bufs, directions = [], []
        for g, buf in zip(grads, state["momentum_buffer"]):
            m = _s(hp["momentum"], g)
            if buf is None:
                nb = g
            elif not has_dampening:
                # buf * momentum + g, heavy-ball momentum: optax.trace.
                _, tr = optax.trace(decay=m).update([g], optax.TraceState(trace=[buf]))
                nb = tr.trace[0]
            else:
                nb = buf * m + _s(1 - hp["dampening"], g) * g
            new_bufs.append(nb)
            directions.append(g + m * nb if nesterov else nb)
        grads = directions
        new_state["momentum_buffer"] = new_bufs
    new_params = [p + _s(-hp["lr"], p) * d for p, d in zip(params, grads)]
    return new_params, new_state


# --------------------------------------------------------------------------- Adam / AdamW
@_jit("maximize", "amsgrad", "has_wd", "decoupled")
def adam_update(params, grads, state, hp, *, maximize, amsgrad, has_wd, decoupled):
    """``torch.optim.Adam``/``AdamW``'s rule (``decoupled`` selects AdamW's decay).

    Note [Adam on optax]
    Without amsgrad, the moments and the direction ``m_hat / (sqrt(v_hat) + eps)`` come from
    ``optax.scale_by_adam``: the same formula as PyTorch's
    ``m / (sqrt(v) / sqrt(bc2) + eps) * lr / bc1``. With amsgrad PyTorch keeps the running
    maximum of the *raw* second moment and bias-corrects it afterwards, whereas
    ``optax.scale_by_amsgrad`` takes the maximum of the bias-corrected one; so that branch
    is written out here in PyTorch's form.
    """
    grads = _maybe_neg(grads, maximize)
    lr, b1, b2, eps = hp["lr"], hp["beta1"], hp["beta2"], hp["eps"]
    new_steps = [s + 1 for s in state["step"]]
    if has_wd:
        if decoupled:
            params = [p * _s(1 - lr * hp["weight_decay"], p) for p in params]
        else:
            grads = _l2(grads, params, hp["weight_decay"])
    out_p, out_m, out_v, out_vmax = [], [], [], []
    for i, (p, g, m, v, st) in enumerate(zip(params, grads, state["exp_avg"],
                                             state["exp_avg_sq"], new_steps)):
        step = _step64(st)
        if not amsgrad:
            tx = optax.scale_by_adam(b1=_s(b1, p), b2=_s(b2, p), eps=_s(eps, p))
            s0 = tx.init([p])._replace(count=(st - 1).astype(jnp.int32), mu=[m], nu=[v])
            direction, s1 = tx.update([g], s0)
            out_p.append(p + _s(-lr, p) * direction[0])
            out_m.append(s1.mu[0])
            out_v.append(s1.nu[0])
            continue
        m = _lerp(m, g, 1 - b1)
        v = v * _s(b2, v) + _s(1 - b2, v) * g * g
        bc1 = 1 - b1 ** step
        bc2_sqrt = (1 - b2 ** step) ** 0.5
        vmax = jnp.maximum(state["max_exp_avg_sq"][i], v)
        denom = jnp.sqrt(vmax) / _s(bc2_sqrt, p) + _s(eps, p)
        out_p.append(p + _s(-(lr / bc1), p) * m / denom)
        out_m.append(m)
        out_v.append(v)
        out_vmax.append(vmax)
    new_state = {"step": new_steps, "exp_avg": out_m, "exp_avg_sq": out_v}
    if amsgrad:
        new_state["max_exp_avg_sq"] = out_vmax
    return out_p, new_state


# --------------------------------------------------------------------------- Adamax
@_jit("maximize", "has_wd")
def adamax_update(params, grads, state, hp, *, maximize, has_wd):
    """``torch.optim.Adamax``'s rule. Note [Adamax eps]: PyTorch adds ``eps`` to ``|g|``
    inside the infinity norm (``max(b2 * u, |g| + eps)``) where ``optax.scale_by_adamax``
    adds it to the denominator afterwards, so this is written out."""
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    lr, b1, b2, eps = hp["lr"], hp["beta1"], hp["beta2"], hp["eps"]
    new_steps = [s + 1 for s in state["step"]]
    out_p, out_m, out_u = [], [], []
    for p, g, m, u, st in zip(params, grads, state["exp_avg"], state["exp_inf"], new_steps):
        m = _lerp(m, g, 1 - b1)
        u = jnp.maximum(u * _s(b2, u), jnp.abs(g) + _s(eps, g))
        clr = lr / (1 - b1 ** _step64(st))
        out_p.append(p + _s(-clr, p) * m / u)
        out_m.append(m)
        out_u.append(u)
    return out_p, {"step": new_steps, "exp_avg": out_m, "exp_inf": out_u}


# --------------------------------------------------------------------------- NAdam
@_jit("maximize", "has_wd", "decoupled")
def nadam_update(params, grads, state, hp, *, maximize, has_wd, decoupled):
    """``torch.optim.NAdam``'s rule, with PyTorch's momentum schedule
    ``mu_t = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))`` and its float32 running
    product ``mu_product`` (optax's nadam has neither)."""
    grads = _maybe_neg(grads, maximize)
    lr, b1, b2, eps, md = hp["lr"], hp["beta1"], hp["beta2"], hp["eps"], hp["momentum_decay"]
    new_steps = [s + 1 for s in state["step"]]
    out = {"step": new_steps, "mu_product": [], "exp_avg": [], "exp_avg_sq": []}
    out_p = []
    for p, g, m, v, mp, st in zip(params, grads, state["exp_avg"], state["exp_avg_sq"],
                                  state["mu_product"], new_steps):
        step = _step64(st)
        bc2 = 1 - b2 ** step
        if has_wd:
            if decoupled:
                p = p * _s(1 - lr * hp["weight_decay"], p)
            else:
                g = g + _s(hp["weight_decay"], p) * p
        mu = b1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        mp = mp * _s(mu, mp)
        m = _lerp(m, g, 1 - b1)
        v = v * _s(b2, v) + _s(1 - b2, v) * g * g
        denom = jnp.sqrt(v / _s(bc2, v)) + _s(eps, v)
        mp64 = mp.astype(_F64)
        mu_product_next = mp64 * mu_next
        p = p + _s(-lr * (1.0 - mu) / (1.0 - mp64), p) * g / denom
        p = p + _s((-lr * mu_next) / (1.0 - mu_product_next), p) * m / denom
        out_p.append(p)
        out["mu_product"].append(mp)
        out["exp_avg"].append(m)
        out["exp_avg_sq"].append(v)
    return out_p, out


# --------------------------------------------------------------------------- RAdam
@_jit("maximize", "has_wd", "decoupled")
def radam_update(params, grads, state, hp, *, maximize, has_wd, decoupled):
    """``torch.optim.RAdam``'s rule: the rectified step when ``rho_t > 5``, else an
    un-normalised momentum step (PyTorch's thresholds, not optax's)."""
    grads = _maybe_neg(grads, maximize)
    lr, b1, b2, eps = hp["lr"], hp["beta1"], hp["beta2"], hp["eps"]
    new_steps = [s + 1 for s in state["step"]]
    out_p, out_m, out_v = [], [], []
    for p, g, m, v, st in zip(params, grads, state["exp_avg"], state["exp_avg_sq"],
                              new_steps):
        step = _step64(st)
        if has_wd:
            if decoupled:
                p = p * _s(1 - lr * hp["weight_decay"], p)
            else:
                g = g + _s(hp["weight_decay"], p) * p
        m = _lerp(m, g, 1 - b1)
        v = v * _s(b2, v) + _s(1 - b2, v) * g * g
        bc1 = 1 - b1 ** step
        bc2 = 1 - b2 ** step
        corrected = m / _s(bc1, m)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        rect = jnp.sqrt(jnp.maximum(
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.0))
        adaptive = _s(bc2 ** 0.5, p) / (jnp.sqrt(v) + _s(eps, v))
        rectified = corrected * _s(lr, p) * adaptive * _s(rect, p)
        plain = corrected * _s(lr, p)
        out_p.append(p - jnp.where(rho_t > 5.0, rectified, plain))
        out_m.append(m)
        out_v.append(v)
    return out_p, {"step": new_steps, "exp_avg": out_m, "exp_avg_sq": out_v}


# --------------------------------------------------------------------------- RMSprop
@_jit("maximize", "has_wd", "centered", "has_momentum")
def rmsprop_update(params, grads, state, hp, *, maximize, has_wd, centered, has_momentum):
    """``torch.optim.RMSprop``'s rule; momentum is ``optax.trace`` over ``g / avg``.

    Note [RMSprop denominator]
    ``optax.scale_by_rms(eps_in_sqrt=False)`` has PyTorch's formula (``eps`` after the square
    root) but multiplies by ``1 / (sqrt(v) + eps)`` instead of dividing, and weighs the moment
    as ``(1 - a) * g**2 + a * v``; with momentum and a small ``eps`` those last-bit
    differences grow past 1e-5 in 100 steps. So the moments and the division are written in
    PyTorch's order here (``v * a + (1 - a) * g * g``, ``lerp`` for the centred mean).
    """
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    lr, alpha, eps = hp["lr"], hp["alpha"], hp["eps"]
    new_steps = [s + 1 for s in state["step"]]
    out = {"step": new_steps, "square_avg": []}
    if has_momentum:
        out["momentum_buffer"] = []
    if centered:
        out["grad_avg"] = []
    out_p = []
    for i, (p, g) in enumerate(zip(params, grads)):
        sq = state["square_avg"][i]
        sq = sq * _s(alpha, sq) + _s(1 - alpha, sq) * g * g
        out["square_avg"].append(sq)
        if centered:
            ga = _lerp(state["grad_avg"][i], g, 1 - alpha)
            out["grad_avg"].append(ga)
            avg = jnp.sqrt(sq + _s(-1, sq) * ga * ga) + _s(eps, sq)
        else:
            avg = jnp.sqrt(sq) + _s(eps, sq)
        if has_momentum:
            _, tr = optax.trace(decay=_s(hp["momentum"], p)).update(
                [g / avg], optax.TraceState(trace=[state["momentum_buffer"][i]]))
            buf = tr.trace[0]
            out["momentum_buffer"].append(buf)
            out_p.append(p + _s(-lr, p) * buf)
        else:
            out_p.append(p + _s(-lr, p) * g / avg)
    return out_p, out


# --------------------------------------------------------------------------- Adagrad
@_jit("maximize", "has_wd")
def adagrad_update(params, grads, state, hp, *, maximize, has_wd):
    """``torch.optim.Adagrad``'s rule. Note [Adagrad eps]: PyTorch divides by
    ``sqrt(sum) + eps`` and decays the lr as ``lr / (1 + (t - 1) * lr_decay)``;
    ``optax.scale_by_rss`` uses ``rsqrt(sum + eps)``, so this is written out."""
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    new_steps = [s + 1 for s in state["step"]]
    out_p, out_sum = [], []
    for p, g, acc, st in zip(params, grads, state["sum"], new_steps):
        clr = hp["lr"] / (1 + (_step64(st) - 1) * hp["lr_decay"])
        acc = acc + g * g
        std = jnp.sqrt(acc) + _s(hp["eps"], acc)
        out_p.append(p + _s(-clr, p) * g / std)
        out_sum.append(acc)
    return out_p, {"step": new_steps, "sum": out_sum}


# --------------------------------------------------------------------------- Adadelta
@_jit("maximize", "has_wd")
def adadelta_update(params, grads, state, hp, *, maximize, has_wd):
    """``torch.optim.Adadelta``'s rule (with PyTorch's ``lr`` factor, which
    ``optax.scale_by_adadelta`` leaves to a later ``scale``)."""
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    rho, eps = hp["rho"], hp["eps"]
    new_steps = [s + 1 for s in state["step"]]
    out_p, out_sq, out_acc = [], [], []
    for p, g, sq, acc in zip(params, grads, state["square_avg"], state["acc_delta"]):
        sq = sq * _s(rho, sq) + _s(1 - rho, sq) * g * g
        std = jnp.sqrt(sq + _s(eps, sq))
        delta = jnp.sqrt(acc + _s(eps, acc)) / std * g
        acc = acc * _s(rho, acc) + _s(1 - rho, acc) * delta * delta
        out_p.append(p + _s(-hp["lr"], p) * delta)
        out_sq.append(sq)
        out_acc.append(acc)
    return out_p, {"step": new_steps, "square_avg": out_sq, "acc_delta": out_acc}


# --------------------------------------------------------------------------- ASGD
@_jit("maximize", "has_wd")
def asgd_update(params, grads, state, hp, *, maximize, has_wd):
    """``torch.optim.ASGD``'s rule: decay by ``1 - lambd * eta``, step by ``eta``, update
    the average ``ax`` (a copy of the parameter while ``mu == 1``), then the new
    ``eta = lr / (1 + lambd * lr * t) ** alpha`` and ``mu = 1 / max(1, t - t0)``, stored as
    float32 0-d tensors like PyTorch's."""
    grads = _maybe_neg(grads, maximize)
    if has_wd:
        grads = _l2(grads, params, hp["weight_decay"])
    lr, lambd, alpha, t0 = hp["lr"], hp["lambd"], hp["alpha"], hp["t0"]
    new_steps = [s + 1 for s in state["step"]]
    out = {"step": new_steps, "eta": [], "mu": [], "ax": []}
    out_p = []
    for p, g, eta, mu, ax, st in zip(params, grads, state["eta"], state["mu"], state["ax"],
                                     new_steps):
        eta64 = eta.astype(_F64)
        p = p * _s(1 - lambd * eta64, p)
        p = p + _s(-eta64, p) * g
        ax = jnp.where(mu != 1, ax + (p - ax) * _s(mu, ax), p)
        step = _step64(st)
        out["eta"].append(_s(lr / ((1 + lambd * lr * step) ** alpha), eta))
        out["mu"].append(_s(1 / jnp.maximum(1.0, step - t0), mu))
        out["ax"].append(ax)
        out_p.append(p)
    return out_p, out


# --------------------------------------------------------------------------- Rprop
@_jit("maximize",)
def rprop_update(params, grads, state, hp, *, maximize):
    """``torch.optim.Rprop``'s rule (PyTorch's: the gradient is zeroed where its sign
    flipped and that zero is what ``prev`` remembers; optax's rprop keeps no such memory)."""
    grads = _maybe_neg(grads, maximize)
    etaminus, etaplus = hp["etaminus"], hp["etaplus"]
    new_steps = [s + 1 for s in state["step"]]
    out = {"step": new_steps, "prev": [], "step_size": []}
    out_p = []
    for p, g, prev, ss in zip(params, grads, state["prev"], state["step_size"]):
        sign = jnp.sign(g * prev)
        em, ep = _s(etaminus, g), _s(etaplus, g)
        factor = jnp.where(sign > 0, ep, jnp.where(sign < 0, em, jnp.ones_like(g)))
        ss = jnp.clip(ss * factor, _s(hp["step_size_min"], ss), _s(hp["step_size_max"], ss))
        g = jnp.where(factor == em, jnp.zeros_like(g), g)
        out_p.append(p - jnp.sign(g) * ss)
        out["prev"].append(g)
        out["step_size"].append(ss)
    return out_p, out


# --------------------------------------------------------------------------- Adafactor
def _norm64(x):
    """``x.norm(2).item()``: the 2-norm in ``x``'s dtype, then read as a Python double."""
    return jnp.sqrt(jnp.sum(x * x)).astype(_F64)


def _mean_sq(g, axis):
    """``norm(g, dim=axis, keepdim=True).square_().div_(g.size(axis))``."""
    n = jnp.sqrt(jnp.sum(g * g, axis=axis, keepdims=True))
    return n * n / _s(g.shape[axis], g)


@_jit("maximize", "has_wd")
def adafactor_update(params, grads, state, hp, *, maximize, has_wd):
    """``torch.optim.Adafactor``'s rule. A parameter of two or more dimensions keeps
    factored second moments (``row_var``: the mean of ``g**2`` over the last dimension,
    ``col_var``: over the one before), combined as ``row_var @ col_var / max(mean(row_var),
    eps1)``; a vector or a scalar keeps ``variance``. The entries a parameter does not have
    are ``None`` in ``state`` and in the result.

    Note [Adafactor's host scalars]
    PyTorch reads the step, ``param.norm()`` and ``update.norm()`` with ``.item()`` and
    computes ``step ** beta2_decay``, ``rho = min(lr, 1 / sqrt(step))``, the relative step
    ``alpha = max(eps2, rms(param)) * rho`` and the clipping denominator
    ``max(1, rms(update) / d)`` in Python doubles. Here they stay on the device in float64
    (so a compiled step never syncs) and are rounded to the parameter dtype where
    PyTorch's kernels take them. ``rsqrt`` is written ``1 / sqrt``, as PyTorch's CPU kernel
    computes it (XLA's ``rsqrt`` may round differently).
    """
    grads = _maybe_neg(grads, maximize)
    lr, decay, d, wd = hp["lr"], hp["beta2_decay"], hp["d"], hp["weight_decay"]
    eps1, eps2 = hp["eps1"], hp["eps2"]
    new_steps = [s + 1 for s in state["step"]]
    out = {"step": new_steps, "row_var": [], "col_var": [], "variance": []}
    out_p = []
    for i, (p, g, st) in enumerate(zip(params, grads, new_steps)):
        step = _step64(st)
        one_minus_beta2 = step ** decay
        rho = jnp.minimum(lr, 1 / step ** 0.5)
        alpha = jnp.maximum(eps2, _norm64(p) / p.size ** 0.5) * rho
        if has_wd:
            p = p * _s(1 - lr * wd, p)
        if g.ndim > 1:
            row_var = _lerp(state["row_var"][i], _mean_sq(g, -1), one_minus_beta2)
            col_var = _lerp(state["col_var"][i], _mean_sq(g, -2), one_minus_beta2)
            var = jnp.matmul(row_var, col_var)
            var = var / jnp.maximum(jnp.mean(row_var, axis=-2, keepdims=True),
                                    _s(eps1, row_var))
            out["row_var"].append(row_var)
            out["col_var"].append(col_var)
            out["variance"].append(None)
        else:
            variance = _lerp(state["variance"][i], g * g, one_minus_beta2)
            var = variance
            out["row_var"].append(None)
            out["col_var"].append(None)
            out["variance"].append(variance)
        update = 1 / jnp.sqrt(jnp.maximum(var, _s(eps1 * eps1, var))) * g
        denom = jnp.maximum(1.0, _norm64(update) / (update.size ** 0.5 * d))
        out_p.append(p + _s(-alpha / denom, p) * update)
    return out_p, out
