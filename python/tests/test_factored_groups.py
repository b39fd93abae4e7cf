"""triax.FactoredSolver's algorithm argument and its one-matrix-per-group form (a, b, c of d's
rank, broadcast over the axes where the systems share a matrix), against SciPy's banded solver
given the same coefficients broadcast to d; GPU cases SKIPPED without a GPU."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves
from test_gpu import FRAMEWORKS, needs_cuda_build

CPU_ALGORITHMS = ["automatic", "cpu_thomas", "cpu_cr"]
GPU_ALGORITHMS = ["automatic", "cuda_thread_thomas", "cuda_block_cr_shared", "cuda_block_cr_global"]


def grouped(rng, shape, axis, group_axes, dtype):
    """a, b, c of d's rank: extent n along `axis`, d's extent along `group_axes`, 1 elsewhere.
    The groups mix a fast Toeplitz matrix, a slowly converging one and a varying one."""
    cshape = [1] * len(shape)
    cshape[axis] = shape[axis]
    for k in group_axes:
        cshape[k] = shape[k]
    a, b, c = (np.empty(cshape) for _ in range(3))
    moved = [np.moveaxis(t, axis, -1).reshape(-1, shape[axis]) for t in (a, b, c)]
    for g in range(moved[0].shape[0]):
        kind = g % 3
        if kind == 0:
            row = (0.25, 1.0 + 0.05 * g, 0.25)
            vals = [np.full(shape[axis], v) for v in row]
        elif kind == 1:
            vals = [np.full(shape[axis], -1.0), np.full(shape[axis], 2.2 + 0.01 * g),
                    np.full(shape[axis], -1.0)]
        else:
            vals = [rng.uniform(-1, 1, shape[axis]), rng.uniform(3, 4, shape[axis]),
                    rng.uniform(-1, 1, shape[axis])]
        for m, v in zip(moved, vals):
            m[g] = v
    out = []
    for t, m in zip((a, b, c), moved):
        moved_shape = list(np.moveaxis(t, axis, -1).shape)
        out.append(np.moveaxis(m.reshape(moved_shape), -1, axis).astype(dtype))
    return out


@pytest.mark.parametrize("algorithm", CPU_ALGORITHMS)
def test_algorithm_argument(rng, algorithm):
    n = 50
    a, b, c = np.full(n, 0.25), np.ones(n), np.full(n, 0.25)
    d = rng.uniform(-1, 1, (6, n))
    plan = triax.FactoredSolver(a, b, c, d, algorithm=algorithm)
    assert plan.algorithm == ("cpu_thomas" if algorithm == "automatic" else algorithm)
    assert plan.group_count == 1
    assert algorithm in repr(plan) or algorithm == "automatic"
    assert_solves(plan(d), a, b, c, d, 1)


def test_algorithm_errors(rng):
    n = 10
    a, b, c = np.full(n, 0.25), np.ones(n), np.full(n, 0.25)
    d = rng.uniform(-1, 1, (3, n))
    with pytest.raises(ValueError, match="'thomas' is not a factored algorithm"):
        triax.FactoredSolver(a, b, c, d, algorithm="thomas")
    with pytest.raises(ValueError, match="cuda_thread_thomas does not run on the cpu backend"):
        triax.FactoredSolver(a, b, c, d, algorithm="cuda_thread_thomas")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", ["cpu_thomas", "cpu_cr"])
@pytest.mark.parametrize("shape", [(5, 40), (4, 6, 33), (3, 8, 17)])
def test_groups_every_axis(rng, shape, algorithm, dtype):
    d = rng.uniform(-1, 1, shape).astype(dtype)
    nd = len(shape)
    for axis in range(nd):
        others = [k for k in range(nd) if k != axis]
        for mask in range(1, 1 << len(others)):
            group_axes = [k for j, k in enumerate(others) if mask & (1 << j)]
            a, b, c = grouped(rng, shape, axis, group_axes, dtype)
            plan = triax.FactoredSolver(a, b, c, d, axis=axis, algorithm=algorithm)
            assert plan.group_count == int(np.prod([shape[k] for k in group_axes]))
            assert plan.factor_info == 0
            x = plan(d)
            assert_solves(x, *(np.broadcast_to(t, shape) for t in (a, b, c)), d, axis)


def test_groups_modes_and_errors(rng):
    shape = (6, 30, 4)
    d = rng.uniform(-1, 1, shape)
    a, b, c = grouped(rng, shape, 1, [0], np.float64)
    full = [np.broadcast_to(t, shape) for t in (a, b, c)]
    out = np.full(shape, np.nan)
    plan = triax.FactoredSolver(a, b, c, d, axis=1)
    assert plan(d, out=out) is out
    assert_solves(out, *full, d, 1)
    inc = triax.FactoredSolver(a, b, c, d, axis=1, out=out, increment=True)
    inc(d, out=out)
    assert_solves(out / 2, *full, d, 1)
    # Constant diagonals along the axis (extent 1 there), one matrix per row of axis 0.
    b0 = np.arange(6.0).reshape(6, 1, 1) + 3.0
    plan0 = triax.FactoredSolver(np.ones((1, 1, 1)), b0, np.ones((1, 1, 1)), d, axis=1)
    assert plan0.group_count == 6
    assert_solves(plan0(d), *(np.broadcast_to(t, shape) for t in (np.ones(1), b0, np.ones(1))), d, 1)
    # A group axis whose extent is neither d's nor 1.
    with pytest.raises(ValueError, match="shape mismatch|broadcast|extent"):
        triax.FactoredSolver(a[:3], b[:3], c[:3], d, axis=1)
    # Checked mode: group 1 breaks down (pivot 1 is 0), the other groups solve.
    bad_b = b.copy()
    bad_b[1] = 1.0
    bad_a, bad_c = a.copy(), c.copy()
    bad_a[1], bad_c[1] = 1.0, 1.0
    x, info = triax.FactoredSolver(bad_a, bad_b, bad_c, d, axis=1, check="return")(d)
    info = np.asarray(info).reshape(6, 4)
    assert (info[1] == 2).all() and (info[[0, 2, 3, 4, 5]] == 0).all()
    assert np.isnan(x[1]).all() and np.isfinite(x[[0, 2, 3, 4, 5]]).all()


@needs_cuda_build
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", GPU_ALGORITHMS)
def test_gpu_groups(framework, rng, dtype, algorithm):
    fw = framework()
    shape = (6, 33, 20)
    host = rng.uniform(-1, 1, shape).astype(dtype)
    dev = fw.put(host)
    for axis in range(3):
        for group_axes in ([k for k in range(3) if k != axis][:1], [k for k in range(3) if k != axis]):
            a, b, c = grouped(rng, shape, axis, group_axes, dtype)
            plan = triax.FactoredSolver(a, b, c, dev, axis=axis, algorithm=algorithm)
            assert plan.backend == "cuda"
            assert plan.algorithm == ("cuda_thread_thomas" if algorithm == "automatic" else algorithm)
            x = plan(dev)
            assert type(x) is type(dev)
            assert_solves(fw.get(x), *(np.broadcast_to(t, shape) for t in (a, b, c)), host, axis)
