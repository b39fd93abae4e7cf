"""triax.Solver (a plan of one's own) and the cache of triax.solve."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, random_system


def test_reuse(rng):
    a, b, c, d = random_system(rng, (8, 16))
    plan = triax.Solver(a, b, c, d, axis=0)
    assert plan.backend == "cpu"
    assert plan.algorithm.startswith("cpu_")
    assert (plan.system_length, plan.system_count, plan.axis) == (8, 16, 0)
    assert plan.workspace_bytes > 0
    assert "cpu" in repr(plan)
    for _ in range(3):
        a, b, c, d = random_system(rng, (8, 16))
        assert_solves(plan(a, b, c, d), a, b, c, d, 0)
    out = np.empty_like(d)
    assert plan(a, b, c, d, out=out) is out
    assert_solves(out, a, b, c, d, 0)


def test_modes(rng):
    a, b, c, d = random_system(rng, (6, 5))
    x = triax.solve(a, b, c, d)
    u = np.ones_like(d)
    inc = triax.Solver(a, b, c, d, out=u, increment=True)
    inc(a, b, c, d, out=u)
    np.testing.assert_allclose(u, 1 + x, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="out is None"):
        inc(a, b, c, d)
    in_place = triax.Solver(a, b, c, d, out=d)
    assert in_place(a, b, c, d, out=d) is d
    np.testing.assert_allclose(d, x, rtol=0, atol=1e-13)


def test_checked(rng):
    a, b, c, d = random_system(rng, (3, 4))
    plan = triax.Solver(a, b, c, d, check="return")
    b[1, 0] = 0.0
    a[1, 0] = c[1, 0] = 0.0
    x, info = plan(a, b, c, d)
    np.testing.assert_array_equal(info, [0, 1, 0])
    with pytest.raises(triax.BreakdownError):
        triax.Solver(a, b, c, d, check=True)(a, b, c, d)


def test_broadcast_and_negative_strides(rng):
    d = rng.uniform(-1, 1, (5, 7))
    a, b, c = np.array(-1.0), np.array(3.0), np.array(-1.0)
    plan = triax.Solver(a, b, c, d, axis=1)
    assert_solves(plan(a, b, c, d), a, b, c, d, 1)
    # A reversed d is copied (contiguous, as the plan's d is) and fits the plan.
    assert_solves(plan(a, b, c, d[::-1]), a, b, c, d[::-1], 1)


def test_arrays_that_do_not_fit(rng):
    a, b, c, d = random_system(rng, (4, 6))
    plan = triax.Solver(a, b, c, d, axis=1)
    out = np.zeros_like(d)
    with pytest.raises(ValueError, match=r"do not fit the plan: d's shape \(6, 4\), the plan "
                                         r"\(4, 6\)"):
        plan(a.T, b.T, c.T, d.T.copy(), out=out.T.copy())
    with pytest.raises(ValueError, match="dtype float32, the plan float64"):
        plan(*(t.astype(np.float32) for t in (a, b, c, d)))
    with pytest.raises(ValueError, match=r"a's element strides \(0, 0\) \(0 = broadcast\), "
                                         r"the plan \(6, 1\)"):
        plan(np.array(1.0), b, c, d, out=out)
    with pytest.raises(ValueError, match=r"out's element strides \(1, 4\)"):
        plan(a, b, c, d, out=np.zeros((6, 4)).T)
    assert (out == 0).all()


def test_bad_layout_at_construction(rng):
    a, b, c, d = random_system(rng, (4, 6))
    with pytest.raises(ValueError, match="overlaps input a"):
        triax.Solver(a, b, c, d, out=a)(a, b, c, d, out=a)
    with pytest.raises(TypeError, match="b has dtype float32"):
        triax.Solver(a, b.astype(np.float32), c, d)


def test_cache(rng):
    triax.clear_cache()
    assert triax.cache_size() == 0
    a, b, c, d = random_system(rng, (4, 6))
    triax.solve(a, b, c, d)
    triax.solve(a, b, c, d)
    triax.solve(*(t.copy() for t in (a, b, c, d)))  # other data, same layout: same plan
    assert triax.cache_size() == 1
    triax.solve(a, b, c, d, axis=0)
    triax.solve(a, b, c, d, check="return")
    triax.solve(a.astype(np.float32), b.astype(np.float32), c.astype(np.float32),
                d.astype(np.float32))
    triax.solve(a[:, ::2], b[:, ::2], c[:, ::2], d[:, ::2])
    assert triax.cache_size() == 5
    # Broadcast operands with NumPy's arbitrary strides on extent-1 dimensions share a key.
    triax.solve(a[:1], b, c, d)
    triax.solve(np.ones((1, 6))[:, :], b, c, d)
    assert triax.cache_size() == 6
    # The cache is bounded: the oldest plans go.
    for n in range(2, 80):
        e = np.ones(n)
        triax.solve(e, e * 3, e, e)
    assert triax.cache_size() == 64
    triax.clear_cache()
    assert triax.cache_size() == 0


def test_empty_plan():
    e = np.zeros((0, 4))
    plan = triax.Solver(e, e + 1, e, e, axis=0, check="return")
    assert (plan.system_length, plan.system_count, plan.algorithm) == (0, 4, "none")
    x, info = plan(e, e + 1, e, e)
    assert x.shape == (0, 4) and (info == 0).all() and info.shape == (4,)
