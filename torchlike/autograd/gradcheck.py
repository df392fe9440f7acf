"""Finite-difference checks of gradients: ``gradcheck`` and ``gradgradcheck``.

Mirrors ``torch.autograd.gradcheck``: the Jacobian from backward passes is compared
with central finite differences, element by element. Differences from PyTorch: only the
slow (full Jacobian) mode exists (``fast_mode`` is accepted and ignored), forward-mode
and batched checks are not run.
"""

from __future__ import annotations

import warnings
from typing import Callable, Sequence

import jax.numpy as jnp
import numpy as np

from .._core.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Mirrors ``torch.autograd.gradcheck.GradcheckError``."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_outputs(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o._requires_grad]


def _flat_outputs(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor)]


def _numerical(func, inputs, diff_idx, n_out_elems, eps):
    """Per differentiable input: an (numel_in, numel_outputs...) list of arrays."""
    from .._core.grad_mode import no_grad
    res = []
    for i in diff_idx:
        x = inputs[i]
        base = np.array(x.detach()._value)
        flat = base.reshape(-1)
        cols = []
        for k in range(flat.size):
            vals = []
            for sign in (1, -1):
                pert = flat.copy()
                pert[k] = pert[k] + sign * eps
                xt = Tensor._wrap(jnp.asarray(pert.reshape(base.shape)))
                xt._requires_grad = x._requires_grad
                args = list(inputs)
                args[i] = xt
                with no_grad() if not _needs_grad_inside(func) else _Null():
                    outs = _flat_outputs(func(*args))
                vals.append([np.asarray(o.detach()._value, dtype=np.float64).reshape(-1)
                             if not o.dtype.is_complex else np.asarray(o.detach()._value)
                             .reshape(-1) for o in outs])
            cols.append([(p - m) / (2 * eps) for p, m in zip(*vals)])
        # rows: input element; per output: numel_out columns
        per_out = []
        for j in range(n_out_elems):
            per_out.append(np.stack([c[j] for c in cols]) if cols else
                           np.zeros((0, 0)))
        res.append(per_out)
    return res


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return None


def _needs_grad_inside(func) -> bool:
    return getattr(func, "_needs_grad_inside", False)


def _analytical(func, inputs, diff_idx):
    from .engine import grad
    outs = _flat_outputs(func(*inputs))
    diff_inputs = [inputs[i] for i in diff_idx]
    per_in = [[None] * len(outs) for _ in diff_idx]
    for j, o in enumerate(outs):
        n = o.numel()
        rows = [np.zeros((inputs[i].numel(), n), dtype=np.float64 if not o.dtype.is_complex
                         else np.complex128) for i in diff_idx]
        if o._requires_grad:
            for m in range(n):
                g = np.zeros(n, dtype=o.dtype.np)
                g[m] = 1
                gt = Tensor._wrap(jnp.asarray(g.reshape(o._shape)))
                gs = grad(o, diff_inputs, gt, retain_graph=True, allow_unused=True)
                for k, gi in enumerate(gs):
                    if gi is not None:
                        rows[k][:, m] = np.asarray(gi._value).reshape(-1)
        for k in range(len(diff_idx)):
            per_in[k][j] = rows[k]
    return per_in, outs


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Mirrors ``torch.autograd.gradcheck``: True when the backward of ``func`` at
    ``inputs`` matches finite differences; otherwise raises ``GradcheckError`` (or returns
    False with ``raise_exception=False``)."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                          "floating point or complex. This check will likely fail if all "
                          "the inputs are not of double precision floating point or complex. ",
                          UserWarning, stacklevel=2)
    analytical, outs = _analytical(func, inputs, diff_idx)
    numerical = _numerical(func, inputs, diff_idx, len(outs), eps)
    for j, o in enumerate(outs):
        if not o._requires_grad:
            continue
        for k, i in enumerate(diff_idx):
            a = analytical[k][j]
            n = numerical[k][j]
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                dt = inputs[i].dtype.np
                at = Tensor._wrap(jnp.asarray(a.astype(dt if not np.iscomplexobj(a) else a.dtype)))
                nt = Tensor._wrap(jnp.asarray(n.astype(dt if not np.iscomplexobj(n) else n.dtype)))
                raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input "
                                     f"{k},\nnumerical:{nt}\nanalytical:{at}\n")
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs: Sequence | None = None, *,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """Mirrors ``torch.autograd.gradgradcheck``: ``gradcheck`` of the backward of
    ``func`` (second derivatives), with random ``grad_outputs`` when none are given."""
    from .engine import grad
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _diff_outputs(func(*inputs))
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outs:
            a = rng.uniform(-1, 1, o._shape).astype(o.dtype.np)
            g = Tensor._wrap(jnp.asarray(a))
            g._requires_grad = True
            grad_outputs.append(g)
    grad_outputs = _as_tuple(grad_outputs)
    n_go = len(grad_outputs)

    def new_func(*args):
        ins = args[:len(args) - n_go]
        gos = args[len(args) - n_go:]
        outputs = _diff_outputs(func(*ins))
        diff_ins = tuple(x for x in ins if isinstance(x, Tensor) and x._requires_grad)
        gis = grad(outputs, diff_ins, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gis if g is not None)
    new_func._needs_grad_inside = True
    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
