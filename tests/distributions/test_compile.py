"""Distributions inside ``torchlike.compile``: a step that samples and takes a
``log_prob`` loss gives the eager step's losses, gradients and parameters, and the RNG
state moves on between calls (a key captured as a constant would repeat the draws)."""

from __future__ import annotations

import numpy as np

import torchlike as tl
import torchlike.nn as nn

D = tl.distributions


def _build():
    tl.manual_seed(0)
    net = nn.Linear(3, 2)
    log_scale = nn.Parameter(tl.zeros(2))
    conc = nn.Parameter(tl.tensor([1.5, 2.5]))
    opt = tl.optim.SGD(list(net.parameters()) + [log_scale, conc], lr=0.05)
    obs = tl.tensor([[0.1, -0.2, 0.3], [1.0, 0.5, -0.5]])

    def step(x):
        opt.zero_grad()
        policy = D.Normal(net(x), log_scale.exp())
        action = policy.sample()                          # no gradient through the draw
        z = D.Gamma(conc, 1.0).rsample((4,))              # reparameterized draw
        choice = D.Categorical(logits=net(x)).sample((3,))
        loss = (-policy.log_prob(action).sum() + z.mean()
                + D.kl_divergence(policy, D.Normal(0.0, 1.0)).sum())
        loss.backward()
        opt.step()
        return loss, action, z, choice

    return step, obs, (net, log_scale, conc)


def test_compiled_step_matches_eager_and_advances_the_rng():
    runs = {}
    for mode in ("eager", "compiled"):
        step, obs, state = _build()
        tl.manual_seed(1)
        fn = tl.compile(step) if mode == "compiled" else step
        outs = [[t.detach().numpy().copy() for t in fn(obs)] for _ in range(3)]
        params = [p.detach().numpy().copy() for p in state[0].parameters()] + \
                 [state[1].detach().numpy(), state[2].detach().numpy()]
        runs[mode] = (outs, params, tl.get_rng_state().numpy().copy(), fn)
    (oe, pe, re, _), (oc, pc, rc, fc) = runs["eager"], runs["compiled"]
    for a, b in zip(oe, oc):
        for x, y in zip(a, b):
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-6)
    for x, y in zip(pe, pc):
        np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(rc, re)            # the same number of draws
    # the draws differ from call to call, eagerly and compiled
    assert not np.array_equal(oc[0][1], oc[1][1]) and not np.array_equal(oc[1][2], oc[2][2])
    assert fc.stats.calls == 3 and fc.stats.traces <= 2


def _every_family(r):
    """Draws and log densities of every family from a positive parameter vector ``r``
    (shape (2,)); Python branches on tensor values in any of them would fail to trace."""
    c = tl.eye(2) * r
    p = r / 4
    fams = [D.Normal(r, r), D.Uniform(-r, r), D.Bernoulli(probs=p), D.Categorical(logits=r),
            D.OneHotCategorical(probs=p), D.Exponential(r), D.Laplace(r, r), D.Gamma(r, r),
            D.Beta(r, r), D.Dirichlet(r), D.Chi2(r), D.StudentT(r), D.LogNormal(r, r),
            D.HalfNormal(r), D.Gumbel(r, r), D.Cauchy(r, r), D.Poisson(r),
            D.Geometric(probs=p), D.Pareto(r, r), D.Weibull(r, r),
            D.MultivariateNormal(r, covariance_matrix=c),
            D.MultivariateNormal(r, precision_matrix=c),
            D.LowRankMultivariateNormal(r, c, r),
            D.Independent(D.Normal(r, r), 1),
            D.MixtureSameFamily(D.Categorical(logits=r), D.Normal(r, r)),
            D.RelaxedBernoulli(r[0], probs=p), D.RelaxedOneHotCategorical(r[0], probs=p),
            D.TransformedDistribution(D.Normal(r, r), [D.transforms.TanhTransform()])]
    out = []
    for d in fams:
        x = d.rsample() if d.has_rsample else d.sample()
        out += [x, d.log_prob(x)]
    return out


def test_every_family_samples_and_scores_when_compiled():
    # (eager equality of compiled draws is checked above; here, that every family traces)
    r = tl.tensor([0.7, 1.6])
    fn = tl.compile(_every_family)
    first = [t.numpy() for t in fn(r)]
    for x, lp in zip(first[::2], first[1::2]):
        assert np.isfinite(x).all() and np.isfinite(lp).all()
    again = [t.numpy() for t in fn(r)]
    assert not np.array_equal(again[0], first[0])   # the RNG state moved on
    assert fn.stats.traces <= 2   # a second trace once the RNG state is a traced array
