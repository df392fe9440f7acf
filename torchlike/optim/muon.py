"""``Muon``: mirrors ``torch.optim.Muon``.

The update rule lives here rather than in ``_functional.py``: ``muon_update`` has the same
calling convention as the rules there (``(params, grads, state, hp)`` for one group, the
numeric hyper-parameters traced, the options that shape the computation static).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import jax
import jax.numpy as jnp

from .._core.tensor import Tensor
from .optimizer import Optimizer, ParamsT, _zeros_like

__all__ = ["Muon"]

# PyTorch's defaults (from Keller Jordan's Muon)
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5

_BF16 = jnp.bfloat16
_F32 = jnp.float32
_F64 = jnp.float64


def _adjust_lr_ratio(adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The factor PyTorch's ``_adjust_lr`` multiplies ``lr`` by for a parameter of
    ``shape``: ``sqrt(max(1, A / B))`` ("original", the default),
    ``0.2 * sqrt(max(A, B))`` ("match_rms_adamw"), and 1 for any other value (which the
    constructor refuses, but a param group may be given afterwards, as in PyTorch)."""
    A, B = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, A / B))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(A, B))
    return 1.0


def _mm(x, y):
    """A bfloat16 matrix product accumulated in float32 (not yet rounded)."""
    return jnp.matmul(x, y, preferred_element_type=_F32)


def _newton_schulz(g, a, b, c, ns_steps: int, eps):
    """PyTorch's ``_zeropower_via_newtonschulz``: the gradient is rounded to bfloat16,
    transposed when it has more rows than columns, divided by its Frobenius norm (clamped
    below by ``eps``), then ``ns_steps`` quintic iterations ``G = X X^T``,
    ``U = b G + c G G``, ``X = a X + U X`` run in bfloat16.

    Note [Muon's bfloat16 rounding]
    PyTorch's CPU kernels compute a bfloat16 ``norm``, ``div_`` and ``addmm`` in float32 and
    round the result to bfloat16 once (``addmm``'s ``beta * C + alpha * A @ B`` included).
    Each step here is written that way, with products taking bfloat16 inputs and float32
    accumulation, so the result does not depend on how XLA would round bfloat16 arithmetic
    on a given backend. For small matrices it matches PyTorch's CPU result bit for bit;
    for large ones the float32 summation order can differ, which moves a few elements by
    one bfloat16 unit.
    """
    tall = g.shape[0] > g.shape[1]
    x = g.astype(_BF16)
    if tall:
        x = x.T
    xf = x.astype(_F32)
    norm = jnp.sqrt(jnp.sum(xf * xf)).astype(_BF16)
    norm = jnp.maximum(norm, jnp.asarray(eps).astype(_BF16))
    x = (xf / norm.astype(_F32)).astype(_BF16)
    a, b, c = (jnp.asarray(v).astype(_F32) for v in (a, b, c))

    def iteration(_, x):
        gram = _mm(x, x.T).astype(_BF16)
        gram_update = (b * gram.astype(_F32) + c * _mm(gram, gram)).astype(_BF16)
        return (a * x.astype(_F32) + _mm(gram_update, x)).astype(_BF16)

    # a loop rather than ns_steps copies of the body: the same arithmetic, compiled faster
    x = jax.lax.fori_loop(0, ns_steps, iteration, x)
    return x.T if tall else x


def _opmath(dtype):
    """The dtype PyTorch's CPU kernels compute in for ``dtype``: float32 for float16 and
    bfloat16 (the result rounded back once), the dtype itself otherwise."""
    return _F32 if dtype in (jnp.bfloat16, jnp.float16) else dtype


def _fma(a, b, c):
    """``a * b + c`` rounded once, as the fused multiply-add of PyTorch's vectorised CPU
    kernels (``lerp``, ``add`` with ``alpha``) computes it.

    Note [Fused multiply-add]
    Whether XLA fuses ``a * b + c`` depends on what surrounds it (alone it does, next to
    another product it may fuse that one instead), and a direction that differs in its
    last float32 bit can round to another bfloat16 value before Newton–Schulz. So for
    float32 the product is formed exactly in float64 (two 24-bit significands fit in 53
    bits) and the sum rounded to float32, which is the fused result but for a double
    rounding that needs a tie. TPUs have no native float64; there the plain expression
    is used. float64 operands also use it (XLA fuses them as PyTorch does, or is one bit
    away)."""
    if a.dtype == _F32 and jax.default_backend() != "tpu":
        return (a.astype(_F64) * b.astype(_F64) + c.astype(_F64)).astype(_F32)
    return a * b + c


def _lerp(start, end, weight):
    """``start.lerp(end, weight)`` for a scalar weight, as PyTorch's vectorised kernel:
    ``fma(weight, end - start, start)`` while ``|weight| < 0.5``, else
    ``fma(weight - 1, end - start, end)``, in the compute dtype."""
    ct = _opmath(start.dtype)
    s, e, w = start.astype(ct), end.astype(ct), jnp.asarray(weight).astype(ct)
    small = jnp.abs(w) < 0.5
    coeff = jnp.where(small, w, w - 1)
    base = jnp.where(small, s, e)
    return _fma(jnp.broadcast_to(coeff, s.shape), e - s, base).astype(start.dtype)


@functools.partial(jax.jit, static_argnames=("nesterov", "ns_steps", "adjust_lr_fn",
                                             "lr_dtype"))
def muon_update(params, grads, state, hp, *, nesterov, ns_steps, adjust_lr_fn,
                lr_dtype=None):
    """``torch.optim.Muon``'s rule (its single-tensor implementation, the only one):
    ``buf = lerp(buf, g, 1 - momentum)``; the direction ``lerp(g, buf, momentum)`` (Nesterov)
    or ``buf``, orthogonalised by Newton–Schulz in bfloat16; then
    ``p = p * (1 - lr * weight_decay)`` and ``p = p - adjusted_lr * O`` with the bfloat16
    ``O`` promoted to the parameter's dtype. ``hp`` holds ``lr``, ``weight_decay``,
    ``momentum``, ``eps`` and the coefficients ``a``, ``b``, ``c``.

    Note [Muon's scalars]
    With a Python float ``lr`` PyTorch computes ``1 - lr * weight_decay`` and
    ``lr * ratio`` in double precision; with a tensor ``lr`` (``lr_dtype``: its dtype)
    they are tensor arithmetic in that dtype. ``mul_`` takes the decay in the parameter's
    compute dtype (float32 for float16 and bfloat16); ``add_`` first rounds its ``alpha``
    to the dtype of the sum (bfloat16 for a bfloat16 parameter, float32 for a float16 one,
    as float16 plus bfloat16 is float32) and computes ``fma(alpha, O, p)`` in that
    dtype's compute dtype.

    Note [Muon's bfloat16 parameters]
    For a bfloat16 parameter PyTorch's CPU ``add_`` rounds differently by memory layout:
    its vectorised loop computes ``p + alpha * O`` in float32 and rounds once, while its
    element-by-element loop, taken where ``O`` is not contiguous (the transposed result
    of a tall matrix) and for the last few elements of each chunk it vectorises, rounds
    ``alpha * O`` to bfloat16 first. Here a tall matrix takes the second rule and any
    other the first, so only those trailing elements can differ from PyTorch, by one
    bfloat16 unit."""
    lr, wd, mom = hp["lr"], hp["weight_decay"], hp["momentum"]
    if lr_dtype is not None:
        lr = jnp.asarray(lr).astype(lr_dtype)
        decay = 1 - lr * jnp.asarray(wd).astype(lr_dtype)
    else:
        decay = 1 - lr * wd
    out_p, out_buf = [], []
    for p, g, buf in zip(params, grads, state["momentum_buffer"]):
        buf = _lerp(buf, g, 1 - mom)
        direction = _lerp(g, buf, mom) if nesterov else buf
        ortho = _newton_schulz(direction, hp["a"], hp["b"], hp["c"], ns_steps, hp["eps"])
        adjusted_lr = lr * _adjust_lr_ratio(adjust_lr_fn, p.shape)
        dtype, ct = p.dtype, _opmath(p.dtype)
        p = (p.astype(ct) * jnp.asarray(decay).astype(ct)).astype(dtype)
        common = jnp.promote_types(dtype, ortho.dtype)
        ct = _opmath(common)
        alpha = jnp.asarray(-adjusted_lr).astype(common).astype(ct)
        if common != ct and p.shape[0] > p.shape[1]:
            # Note [Muon's bfloat16 parameters]
            p = p.astype(ct) + (alpha * ortho.astype(ct)).astype(common).astype(ct)
        else:
            p = _fma(jnp.broadcast_to(alpha, p.shape), ortho.astype(ct), p.astype(ct))
        out_p.append(p.astype(dtype))
        out_buf.append(buf)
    return out_p, {"momentum_buffer": out_buf}


class Muon(Optimizer):
    """Muon (MomentUm Orthogonalized by Newton–Schulz) for 2-D parameters, mirroring
    ``torch.optim.Muon``: momentum kept as ``buf = lerp(buf, g, 1 - momentum)``, Nesterov's
    direction ``lerp(g, buf, momentum)`` (or ``buf`` with ``nesterov=False``), orthogonalised
    by ``ns_steps`` quintic Newton–Schulz iterations with ``ns_coefficients`` run in
    bfloat16 as PyTorch does (Note [Muon's bfloat16 rounding]), decoupled weight decay
    ``p *= 1 - lr * weight_decay``, and the step ``lr`` scaled per parameter by
    ``adjust_lr_fn``: ``"original"`` (the default, ``None``) ``sqrt(max(1, A / B))``,
    ``"match_rms_adamw"`` ``0.2 * sqrt(max(A, B))`` for an ``A x B`` parameter.

    Per-parameter state: ``momentum_buffer`` (zeros like the gradient on the first step).
    ``param_groups`` hold exactly PyTorch's options: ``lr``, ``weight_decay``,
    ``momentum``, ``nesterov``, ``ns_coefficients``, ``eps``, ``ns_steps``,
    ``adjust_lr_fn``. A compiled step (``torchlike.compile``) traces ``lr``,
    ``weight_decay``, ``momentum``, ``eps`` and the coefficients; ``ns_steps`` is part of
    its cache key.

    Raises, as PyTorch: ``ValueError`` for a negative ``lr``, ``momentum`` or
    ``weight_decay``, a tensor ``lr`` of more than one element, an ``adjust_lr_fn`` other
    than ``"original"``/``"match_rms_adamw"``, and a parameter that is not 2-D; in
    ``step``, ``RuntimeError`` for complex parameters and sparse gradients, ``ValueError``
    for ``ns_steps >= 100`` or ``ns_coefficients`` not of length 3. Difference: those
    ``step`` errors are raised before anything is updated, whereas PyTorch has already
    updated the first parameter's momentum buffer when it finds them.

    Rounding follows PyTorch's CPU kernels: float32 and float64 parameters (with a float or
    a tensor ``lr``, Note [Muon's scalars]) and the momentum buffers come out as PyTorch's
    for the small matrices of the tests; for large ones the float32 sums inside the
    bfloat16 products may be ordered differently, moving an update element by one
    bfloat16 unit. bfloat16 parameters may also differ in the few elements PyTorch
    updates outside its vectorised loop (Note [Muon's bfloat16 parameters]). On an
    accelerator the same CPU rounding is computed, which PyTorch's CUDA kernels need not
    share.

    Example::

        >>> import torchlike as torch
        >>> w = torch.nn.Parameter(torch.ones(3, 2))
        >>> opt = torch.optim.Muon([w], lr=0.02)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> list(opt.state[w])
        ['momentum_buffer']
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B,
                                                                DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                        nesterov=nesterov, ns_coefficients=ns_coefficients, eps=eps,
                        ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_group(self, group: dict[str, Any]) -> list[Tensor]:
        """The group's parameters with a gradient, their ``momentum_buffer`` created on
        first use."""
        params = []
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            if getattr(p.grad, "is_sparse", False):
                raise RuntimeError("Muon does not support sparse gradients")
            params.append(p)
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = _zeros_like(p.grad)
        return params

    def step(self, closure: Callable[[], Any] | None = None):
        """Performs one step; ``closure`` (re-evaluating the loss) is optional."""
        loss = self._eval_closure(closure)
        for group in self.param_groups:
            params = self._init_group(group)
            if not params:
                continue
            if any(p.grad.ndim != 2 for p in params):
                raise ValueError("Param gradient must be a 2D matrix")
            ns_steps = group["ns_steps"]
            if ns_steps >= 100:
                raise ValueError("Number of steps must be less than 100 for computational "
                                 "efficiency")
            coefficients = group["ns_coefficients"]
            if len(coefficients) != 3:
                raise ValueError("Coefficients must be a tuple of exactly 3 values")
            a, b, c = coefficients
            self._apply_update(
                muon_update, params, ("momentum_buffer",),
                dict(lr=group["lr"], weight_decay=group["weight_decay"],
                     momentum=group["momentum"], eps=group["eps"], a=a, b=b, c=c),
                nesterov=bool(group["nesterov"]), ns_steps=ns_steps,
                adjust_lr_fn=group["adjust_lr_fn"],
                lr_dtype=group["lr"].dtype.np if isinstance(group["lr"], Tensor) else None)
        return loss
