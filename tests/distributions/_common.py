"""Shared helpers: evaluate a distribution's deterministic quantities and their
gradients in one framework, so that torchlike's can be compared with PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np

from tests._parity import convert

# the deterministic quantities compared with PyTorch; a quantity the family does not
# define must raise NotImplementedError in both
VALUE_METHODS = ("log_prob", "cdf")
PROPERTIES = ("mean", "mode", "variance", "stddev")
TOLS = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _quantity(d, name, value, unit):
    if name in VALUE_METHODS:
        return getattr(d, name)(value)
    if name == "icdf":
        return d.icdf(unit)
    if name in ("entropy", "perplexity"):
        return getattr(d, name)()
    return getattr(d, name)


def evaluate(M, build, params: dict, value: np.ndarray | None = None,
             unit: np.ndarray | None = None, names=None, grads: bool = True) -> dict:
    """Build ``build(M.distributions, **params)`` in framework ``M`` (torchlike or torch)
    from NumPy ``params`` (floating ones require grad) and return its shapes, dtypes and
    every quantity in ``names`` with the gradients of its sum w.r.t. the parameters (or
    the name of the exception a quantity raised)."""
    fw = "tl" if M.__name__ == "torchlike" else "torch"
    leaves: list = []
    p = {k: convert(v, fw, grad=grads, leaves=leaves) for k, v in params.items()}
    d = build(M.distributions, **p)
    v = convert(value, fw) if value is not None else None
    u = convert(unit, fw) if unit is not None else None
    out: dict = {"batch_shape": tuple(d.batch_shape), "event_shape": tuple(d.event_shape),
                 "has_rsample": d.has_rsample}
    names = names or (VALUE_METHODS + ("icdf", "entropy", "perplexity") + PROPERTIES)
    for name in names:
        if name in VALUE_METHODS and v is None or name == "icdf" and u is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = _quantity(d, name, v, u)
        except NotImplementedError:
            out[name] = "NotImplementedError"
            continue
        out[name] = r
        if grads and r.requires_grad and leaves:
            try:
                g = M.autograd.grad(r.sum(), leaves, allow_unused=True, retain_graph=True)
                out[name + ".grad"] = list(g)
            except NotImplementedError as e:   # e.g. Gamma.cdf w.r.t. the concentration
                out[name + ".grad"] = str(e).replace("torchlike", "torch")
    return out
