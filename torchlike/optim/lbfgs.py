"""``LBFGS``: mirrors ``torch.optim.LBFGS``.

Unlike the other optimizers, L-BFGS is a control loop (line search, history updates, stopping
tests that branch on values), so it runs eagerly over one flat JAX vector, following PyTorch's
algorithm line by line so that the iterates match. Scalars such as ``gtd``, ``ys`` and the
first step length stay 0-d arrays of the parameter dtype, as they stay 0-d tensors in PyTorch,
and parameters are written in place through ``Tensor._set_value``. State entries are stored as
tensors (``d``, ``old_dirs``...), as in PyTorch.
"""

from __future__ import annotations

from typing import Any, Callable

import jax.numpy as jnp

from .._core.grad_mode import enable_grad, no_grad
from .._core.tensor import Tensor
from .optimizer import Optimizer, ParamsT, _to_scalar

__all__ = ["LBFGS"]


def _arr(x):
    """State read back: tensors become arrays (lists elementwise)."""
    if isinstance(x, Tensor):
        return x._value
    if isinstance(x, list):
        return [_arr(v) for v in x]
    return x


def _tensor(x):
    """State stored: arrays become tensors (lists elementwise)."""
    if isinstance(x, list):
        return [_tensor(v) for v in x]
    if isinstance(x, jnp.ndarray):
        return Tensor._wrap(x)
    return x


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    # Minimum of the cubic interpolating (x1, f1, g1), (x2, f2, g2), clipped to ``bounds``.
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = jnp.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """PyTorch's strong-Wolfe line search (bracketing then zoom), on flat tensors."""
    d_norm = jnp.abs(d).max()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = jnp.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = jnp.dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos] = t
            bracket_f[high_pos] = f_new
            bracket_g[high_pos] = g_new
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = t
            bracket_f[low_pos] = f_new
            bracket_g[low_pos] = g_new
            bracket_gtd[low_pos] = gtd_new
    t = bracket[low_pos]
    f_new = bracket_f[low_pos]
    g_new = bracket_g[low_pos]
    return f_new, g_new, t, ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS, mirroring ``torch.optim.LBFGS``: one parameter group, ``step(closure)``
    required (the closure clears grads, computes the loss, calls ``backward`` and returns
    the loss), ``history_size``, ``max_iter``, ``max_eval``, tolerances and
    ``line_search_fn=None | 'strong_wolfe'``. State (of the first parameter): ``func_evals``,
    ``n_iter``, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``,
    ``prev_flat_grad``, ``prev_loss`` (and ``al``)."""

    def __init__(self, params: ParamsT, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(jnp.zeros(p.numel(), p.dtype.np))
            else:
                views.append(p.grad._value.reshape(-1))
        return jnp.concatenate(views, 0)

    def _add_grad(self, step_size, update) -> None:
        # p.add_(update, alpha=step_size): the step rounded to the parameter dtype.
        offset = 0
        for p in self._params:
            numel = p.numel()
            alpha = jnp.asarray(step_size).astype(p.dtype.np)
            p._set_value(p._value + alpha * update[offset:offset + numel].reshape(p._shape))
            offset += numel

    def _clone_param(self):
        return [p._value for p in self._params]

    def _set_param(self, params_data) -> None:
        for p, pdata in zip(self._params, params_data):
            p._set_value(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]):  # noqa: C901 - PyTorch's algorithm, kept whole
        """Performs one L-BFGS step (up to ``max_iter`` iterations) and returns the loss of
        the first closure evaluation."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        def closure_with_grad():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure_with_grad()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = jnp.abs(flat_grad).max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d = _arr(state.get("d"))
        t = _arr(state.get("t"))
        old_dirs = _arr(state.get("old_dirs"))
        old_stps = _arr(state.get("old_stps"))
        ro = _arr(state.get("ro"))
        H_diag = _arr(state.get("H_diag"))
        prev_flat_grad = _arr(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * jnp.asarray(t).astype(d.dtype)
                ys = jnp.dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / jnp.dot(y, y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = jnp.dot(old_stps[i], q) * ro[i]
                    q = q + (-al[i]) * old_dirs[i]
                r = q * H_diag
                for i in range(num_old):
                    be_i = jnp.dot(old_dirs[i], r) * ro[i]
                    r = r + (al[i] - be_i) * old_stps[i]
                d = r

            prev_flat_grad = flat_grad
            prev_loss = loss

            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / jnp.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = jnp.dot(flat_grad, d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure_with_grad, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = jnp.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(closure_with_grad())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = jnp.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            if opt_cond:
                break
            if jnp.abs(d * jnp.asarray(t).astype(d.dtype)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _tensor(d)
        state["t"] = _tensor(t)
        state["old_dirs"] = _tensor(old_dirs)
        state["old_stps"] = _tensor(old_stps)
        state["ro"] = _tensor(ro)
        state["H_diag"] = _tensor(H_diag)
        state["prev_flat_grad"] = _tensor(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss
