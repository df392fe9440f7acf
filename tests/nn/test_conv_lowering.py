"""Max pooling's reshape path for windows that tile the input (Note [Pooling windows])
gives what its general path and PyTorch give: values, indices (first maximum of each
window, NaN included) and gradients. PyTorch comparisons are skipped where it is absent."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from torchlike._ops import nn_conv

from .._parity import HAVE_TORCH, torch


def _arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---------------------------------------------------------------------------
# max pooling: windows that tile the input
POOLS = [
    ((2, 3, 8, 6), 2, 2, False),
    ((2, 3, 9, 7), 2, 2, False),          # trailing row and column dropped
    ((2, 3, 9, 7), (3, 2), (3, 2), False),
    ((2, 3, 8, 6), 2, 2, True),           # ceil_mode, nothing left over: tiles
    ((2, 3, 9, 7), 2, 2, True),           # ceil_mode with a partial window: general path
    ((2, 3, 10), 3, 3, False),
    ((1, 2, 4, 6, 4), 2, 2, False),
    ((2, 3, 8, 6), 2, 1, False),          # overlapping windows: general path
]


@pytest.mark.parametrize("case", POOLS, ids=[str(i) for i in range(len(POOLS))])
def test_max_pool_tiled_windows_match_general_path_and_torch(case, monkeypatch):
    shape, k, s, ceil = case
    nd = len(shape) - 2
    x = np.round(_arr(*shape) * 2) / 2           # many ties
    x.flat[1] = np.nan
    x.flat[-1] = -0.0
    x = jnp.asarray(x)

    def run():
        def f(x):
            return nn_conv.max_pool_with_indices(x, nd, k, s, 0, 1, ceil)

        @jax.jit
        def g(x, ct):
            v, i = f(x)
            return v, i, jax.vjp(lambda x: f(x)[0], x)[1](ct)[0]
        shape = jax.eval_shape(f, x)[0].shape
        return g(x, jnp.asarray(_arr(*shape, seed=1)))
    got = run()
    monkeypatch.setattr(nn_conv, "_tiling", lambda *a: False)
    general = run()
    for a, b in zip(got, general):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    if HAVE_TORCH:
        tx = torch.tensor(np.asarray(x), requires_grad=True)
        op = getattr(torch.nn.functional, f"max_pool{nd}d")
        tv, ti = op(tx, k, s, 0, 1, ceil_mode=ceil, return_indices=True)
        tv.backward(torch.tensor(_arr(*tv.shape, seed=1)))
        np.testing.assert_array_equal(np.asarray(got[0]), tv.detach().numpy())
        np.testing.assert_array_equal(np.asarray(got[1]), ti.numpy())
        np.testing.assert_array_equal(np.asarray(got[2]), tx.grad.numpy())
