"""``torchlike.quasirandom.SobolEngine`` against PyTorch: the direction numbers and the
unscrambled draws bit for bit, fast_forward/reset/draw_base2/out=, the errors; the
scrambling kernel against ATen's on the same matrices, and scrambled points' net
(stratification) properties."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchlike as tl
from tests._parity import HAVE_TORCH, same_error, torch, torchify_repr
from torchlike import quasirandom as qr

requires_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch not installed")


def _engines(*args, **kw):
    return tl.quasirandom.SobolEngine(*args, **kw), (
        torch.quasirandom.SobolEngine(*args, **kw) if HAVE_TORCH else None)


def test_first_points_as_pytorch_documents():
    e = tl.quasirandom.SobolEngine(dimension=5)
    out = e.draw(3)
    assert out.dtype == tl.float32 and tuple(out.shape) == (3, 5)
    np.testing.assert_array_equal(out.numpy(), [[0] * 5, [0.5] * 5,
                                                [0.75, 0.25, 0.25, 0.25, 0.75]])
    assert e.num_generated == 3


@requires_torch
def test_direction_numbers_equal_atens():
    ref = torch.zeros(qr.SobolEngine.MAXDIM, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(ref, qr.SobolEngine.MAXDIM)
    np.testing.assert_array_equal(qr._initial_state(qr.SobolEngine.MAXDIM), ref.numpy())


def test_packed_table_is_scipys():
    """The committed file is SciPy's Joe-Kuo table, packed (Note [Sobol direction
    numbers]); the first dimensions' numbers are also checked by value."""
    poly, degree, vinit = qr._direction_numbers()
    assert poly.shape == (21201,) and vinit.shape == (21201, 18)
    np.testing.assert_array_equal(poly[:6], [1, 3, 7, 11, 13, 19])
    np.testing.assert_array_equal(degree[:6], [0, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(vinit[3, :4], [1, 3, 1, 0])
    scipy_qmc = pytest.importorskip("scipy.stats._sobol")
    path = os.path.join(os.path.dirname(scipy_qmc.__file__), "_sobol_direction_numbers.npz")
    if not os.path.exists(path):
        pytest.skip("SciPy's table not found")
    with np.load(path) as z:
        np.testing.assert_array_equal(poly, z["poly"])
        np.testing.assert_array_equal(vinit[1:], z["vinit"][1:])


@pytest.mark.parametrize("dim", [1, 3, 40, 1111])
def test_unscrambled_draws_bit_for_bit(dim):
    e, r = _engines(dim)
    steps = [("draw", 1), ("draw", 6), ("draw", 0), ("ff", 11), ("draw", 33),
             ("draw64", 5), ("reset", None), ("ff", 3), ("draw", 4), ("ff", 0),
             ("draw", 1)]
    outs = []
    for op, n in steps:
        for eng, fw in ((e, tl), (r, torch)):
            if eng is None:
                continue
            if op == "draw":
                outs.append(eng.draw(n))
            elif op == "draw64":
                outs.append(eng.draw(n, dtype=fw.float64))
            elif op == "ff":
                assert eng.fast_forward(n) is eng
            else:
                assert eng.reset() is eng
    if HAVE_TORCH:
        for a, b in zip(outs[::2], outs[1::2]):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert e.num_generated == r.num_generated
        np.testing.assert_array_equal(e.quasi.numpy(), r.quasi.numpy())
    for out in outs[:: 2 if HAVE_TORCH else 1]:
        assert ((out.numpy() >= 0) & (out.numpy() < 1)).all()


def test_sequence_is_consistent_however_drawn():
    whole = tl.quasirandom.SobolEngine(7).draw(64)
    e = tl.quasirandom.SobolEngine(7)
    parts = [e.draw(1), e.draw(10), e.fast_forward(5) and None, e.draw(48)]
    np.testing.assert_array_equal(parts[0].numpy(), whole[:1].numpy())
    np.testing.assert_array_equal(parts[1].numpy(), whole[1:11].numpy())
    np.testing.assert_array_equal(parts[3].numpy(), whole[16:].numpy())
    assert len(np.unique(whole.numpy(), axis=0)) == 64


def test_draw_base2_out_and_dtypes():
    e, r = _engines(4)
    a = e.draw_base2(3)
    assert tuple(a.shape) == (8, 4)
    out = tl.empty(0, dtype=tl.float64)
    assert e.draw_base2(3, out=out) is out and tuple(out.shape) == (8, 4)
    assert out.dtype == tl.float64
    first = tl.quasirandom.SobolEngine(2).draw(1, dtype=tl.int64)
    assert first.dtype == tl.int64 and first.tolist() == [[0, 0]]
    if HAVE_TORCH:
        np.testing.assert_array_equal(a.numpy(), r.draw_base2(3).numpy())
        ro = torch.empty(0, dtype=torch.float64)
        r.draw_base2(3, out=ro)
        np.testing.assert_array_equal(out.numpy(), ro.numpy())
    tl.set_default_dtype(tl.float64)
    assert tl.quasirandom.SobolEngine(2).draw(3).dtype == tl.float64


def test_errors():
    def call(fw, f):
        return (lambda: f(fw.quasirandom.SobolEngine)) if fw is not None else None

    cases = [
        (ValueError, lambda S: S(0)),
        (ValueError, lambda S: S(21202)),
        (RuntimeError, lambda S: S(3).draw(0)),
        (RuntimeError, lambda S: S(3).reset().fast_forward(2).draw(-1)),
        (NotImplementedError, lambda S: S(3).draw(3, dtype=_fw(S).float16)),
        (NotImplementedError, lambda S: S(3).draw(2, dtype=_fw(S).int64)),
        (ValueError, lambda S: S(2).fast_forward(3).draw_base2(2)),
    ]
    for exc, f in cases:
        same_error(call(tl, f), call(torch, f) if HAVE_TORCH else None, exc,
                   match_text=True)


def _fw(S):
    return tl if S is tl.quasirandom.SobolEngine else torch


def test_repr():
    for kw in (dict(dimension=3), dict(dimension=3, seed=4),
               dict(dimension=3, scramble=True, seed=4)):
        e, r = _engines(**kw)
        if HAVE_TORCH:
            assert torchify_repr(repr(e)) == repr(r)
    assert repr(tl.quasirandom.SobolEngine(3, scramble=True)) == \
        "SobolEngine(dimension=3, scramble=True)"


@requires_torch
def test_scramble_kernel_equals_atens():
    ref = torch.zeros(60, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(ref, 60)
    ltm = torch.randint(2, (60, 30, 30), generator=torch.Generator().manual_seed(3)).tril()
    mine = qr._scramble_state(ref.numpy(), ltm.numpy())
    torch._sobol_engine_scramble_(ref, ltm, 60)
    np.testing.assert_array_equal(mine, ref.numpy())


def _assert_net(points: np.ndarray, m: int, dims=(0, 1)):
    """Each elementary interval of volume 2^-m over ``dims`` holds exactly one of the
    2^m points (a (0, m, 2)-net), and each coordinate alone is stratified."""
    ints = np.floor(points * 2 ** m).astype(np.int64)
    for d in range(points.shape[1]):
        assert sorted(ints[:, d]) == list(range(2 ** m))
    a, b = dims
    for k in range(m + 1):
        cells = (ints[:, a] >> (m - k)) * 2 ** (m - k) + (ints[:, b] >> k)
        assert len(np.unique(cells)) == 2 ** m


def test_scrambled_points_are_nets_and_seeded():
    m = 8
    e = tl.quasirandom.SobolEngine(5, scramble=True, seed=11)
    pts = e.draw_base2(m).numpy()
    assert ((pts >= 0) & (pts < 1)).all()
    _assert_net(pts, m)
    _assert_net(tl.quasirandom.SobolEngine(5).draw_base2(m).numpy(), m)
    again = tl.quasirandom.SobolEngine(5, scramble=True, seed=11).draw_base2(m).numpy()
    np.testing.assert_array_equal(pts, again)
    other = tl.quasirandom.SobolEngine(5, scramble=True, seed=12).draw_base2(m).numpy()
    assert not np.array_equal(pts, other)
    assert not np.array_equal(pts, tl.quasirandom.SobolEngine(5).draw_base2(m).numpy())
    # the first point is the digital shift; the next block continues the sequence
    np.testing.assert_array_equal(pts[0], e.shift.numpy().astype(np.float32) / 2 ** 30)
    _assert_net(e.draw_base2(m).numpy(), m)
    assert e.sobolstate.dtype == tl.int64 and tuple(e.sobolstate.shape) == (5, 30)
    # unseeded scrambling draws from the default generator
    tl.manual_seed(0)
    u1 = tl.quasirandom.SobolEngine(2, scramble=True).draw(4).numpy()
    tl.manual_seed(0)
    np.testing.assert_array_equal(u1, tl.quasirandom.SobolEngine(2, scramble=True)
                                  .draw(4).numpy())


def test_scrambled_mean_integrates():
    e = tl.quasirandom.SobolEngine(3, scramble=True, seed=0)
    pts = e.draw(1024, dtype=tl.float64).numpy()
    np.testing.assert_allclose(pts.mean(0), 0.5, atol=2e-3)
    np.testing.assert_allclose((pts ** 2).mean(0), 1 / 3, atol=2e-3)
