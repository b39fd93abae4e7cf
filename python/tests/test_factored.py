"""triax.FactoredSolver: one matrix, many right-hand sides, along every axis, against SciPy's
banded solver; near-Toeplitz compression; breakdown reports; GPU cases SKIPPED without a GPU."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves
from test_gpu import FRAMEWORKS, needs_cuda_build


def along(v, axis, ndim):
    """The 1-D diagonal v shaped to broadcast along `axis` of an ndim-D array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(v, shape)


def matrix(rng, n, kind, dtype=np.float64):
    """a, b, c of one n-row system: Toeplitz (constant interior, different boundary rows),
    slowly converging (|b| close to |a| + |c|), or varying (never converges)."""
    if kind == "toeplitz":
        # The Pade interior (1/4, 1, 1/4) with boundary rows of their own.
        a, b, c = np.full(n, 0.25), np.ones(n), np.full(n, 0.25)
        b[0] = b[-1] = 1.5
        c[0] = a[-1] = 0.5
    elif kind == "slow":
        a, b, c = np.full(n, -1.0), np.full(n, 2.2), np.full(n, -1.0)
    else:
        a, c = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
        b = rng.uniform(3, 4, n)
    return [t.astype(dtype) for t in (a, b, c)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["toeplitz", "slow", "varying"])
@pytest.mark.parametrize("shape", [(1,), (2,), (3,), (33,), (7, 64), (5, 6, 31)])
def test_every_axis(rng, shape, kind, dtype):
    d = rng.uniform(-1, 1, shape).astype(dtype)
    for axis in range(-len(shape), len(shape)):
        n = shape[axis]
        a, b, c = matrix(rng, n, kind, dtype)
        plan = triax.FactoredSolver(a, b, c, d, axis=axis)
        assert plan.factor_info == 0 and plan.system_length == n
        d_before = d.copy()
        x = plan(d)
        np.testing.assert_array_equal(d, d_before)
        nd = len(shape)
        assert_solves(x, *(along(t, axis % nd, nd) for t in (a, b, c)), d, axis % nd)


def test_compression(rng):
    n = 4096
    a, b, c = matrix(rng, n, "toeplitz")
    d = rng.uniform(-1, 1, (3, n))
    plan = triax.FactoredSolver(a, b, c, d)
    assert plan.compressed and plan.stored_rows < 100, plan
    assert_solves(plan(d), a, b, c, d, 1)
    varying = triax.FactoredSolver(*matrix(rng, n, "varying"), d)
    assert not varying.compressed and varying.stored_rows >= n  # every row kept


def test_modes_and_views(rng):
    n = 40
    a, b, c = matrix(rng, n, "varying")
    d = rng.uniform(-1, 1, (9, n, 8))[::2, :, 1::3]  # odd strides
    plan = triax.FactoredSolver(a, b, c, d, axis=1)
    ab = [along(t, 1, 3) for t in (a, b, c)]
    x = plan(d)
    assert_solves(x, *ab, d, 1)
    out = np.full(d.shape, np.nan)
    assert plan(d, out=out) is out
    assert_solves(out, *ab, d, 1)
    inc = triax.FactoredSolver(a, b, c, d, axis=1, out=out, increment=True)
    inc(d, out=out)
    assert_solves(out / 2, *ab, d, 1)
    inplace = np.ascontiguousarray(d)
    expected = plan(d)
    triax.FactoredSolver(a, b, c, inplace, axis=1, out=inplace)(inplace, out=inplace)
    np.testing.assert_allclose(inplace, expected, rtol=0, atol=1e-14)
    # Reversed d is copied; the plan is made for d's strides, so a fresh plan takes it.
    rev = d[:, ::-1]
    assert_solves(triax.FactoredSolver(a[::-1], b[::-1], c[::-1], rev, axis=1)(rev),
                  *(along(t[::-1], 1, 3) for t in (a, b, c)), rev, 1)


def test_breakdown_and_check(rng):
    n = 6
    a, b, c = np.full(n, 1.0), np.full(n, 1.0), np.full(n, 1.0)
    d = rng.uniform(-1, 1, (4, n))
    plan = triax.FactoredSolver(a, b, c, d, check="return")
    assert plan.factor_info == 2  # m1 = b1 - a1 c0 / b0 = 0
    x, info = plan(d)
    assert list(info) == [2] * 4 and np.isnan(x).all()
    with pytest.raises(triax.BreakdownError):
        triax.FactoredSolver(a, b, c, d, check=True)(d)
    unchecked = triax.FactoredSolver(a, b, c, d)
    assert np.isnan(unchecked(d)).all()


def test_errors(rng):
    d = rng.uniform(-1, 1, (4, 10))
    a, b, c = matrix(rng, 10, "varying")
    with pytest.raises(ValueError, match="a has 9 values but the systems along the axis have 10"):
        triax.FactoredSolver(a[:9], b, c, d)
    with pytest.raises(ValueError, match="must be 1-D"):
        triax.FactoredSolver(np.ones((2, 10)), b, c, d)
    plan = triax.FactoredSolver(a, b, c, d)
    with pytest.raises(ValueError, match="do not fit the plan"):
        plan(rng.uniform(-1, 1, (5, 10)))
    with pytest.raises(ValueError, match="axis"):
        triax.FactoredSolver(a, b, c, d, axis=2)


@needs_cuda_build
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu(framework, rng, dtype):
    fw = framework()
    host = rng.uniform(-1, 1, (6, 33, 20)).astype(dtype)
    dev = fw.put(host)
    for axis in range(3):
        n = host.shape[axis]
        a, b, c = matrix(rng, n, "toeplitz", dtype)
        plan = triax.FactoredSolver(a, b, c, dev, axis=axis)
        assert plan.backend == "cuda"
        x = plan(dev)
        assert type(x) is type(dev)
        assert_solves(fw.get(x), *(along(t, axis, 3) for t in (a, b, c)), host, axis)
