"""triax.solve_block and triax.BlockSolver: block tridiagonal systems (M x M blocks) along every
axis of a grid, against a dense float64 solve of each system; GPU cases are SKIPPED without a
GPU (or a CUDA build)."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from test_gpu import FRAMEWORKS, needs_cuda_build


def random_blocks(rng, grid, m, dtype=np.float64, block_grid=None):
    """a, b, c of shape (*block_grid, m, m) and d of shape (*grid, m), block diagonally dominant
    (the diagonal of b outweighs every other entry of its row in a, b, c by at least 1), so the
    unpivoted block LU of the CPU and CUDA backends is stable and the inverse is bounded."""
    block_grid = grid if block_grid is None else block_grid
    shape = tuple(block_grid) + (m, m)
    a = rng.uniform(-1, 1, shape)
    c = rng.uniform(-1, 1, shape)
    b = rng.uniform(-1, 1, shape)
    off = np.abs(a).sum(-1) + np.abs(c).sum(-1) + np.abs(b).sum(-1)
    idx = np.arange(m)
    b[..., idx, idx] = (off + 1 + rng.uniform(0, 1, off.shape)) * rng.choice([-1, 1], off.shape)
    d = rng.uniform(-1, 1, tuple(grid) + (m,))
    return [t.astype(dtype) for t in (a, b, c, d)]


def dense_solve(a, b, c, d, axis):
    """u from numpy.linalg.solve on each assembled (n m) x (n m) system, in float64."""
    grid = d.shape[:-1]
    m = d.shape[-1]
    axis %= len(grid)  # a grid axis (a negative one counts from the grid's end, not d's)
    a, b, c = (np.broadcast_to(np.asarray(t, np.float64), grid + (m, m)) for t in (a, b, c))
    a, b, c = (np.moveaxis(t, axis, -3) for t in (a, b, c))
    dd = np.moveaxis(np.asarray(d, np.float64), axis, -2)
    u = np.empty(dd.shape)
    n = dd.shape[-2]
    for index in np.ndindex(dd.shape[:-2]):
        big = np.zeros((n * m, n * m))
        for i in range(n):
            rows = slice(i * m, (i + 1) * m)
            big[rows, rows] = b[index][i]
            if i > 0:
                big[rows, (i - 1) * m:i * m] = a[index][i]
            if i < n - 1:
                big[rows, (i + 1) * m:(i + 2) * m] = c[index][i]
        u[index] = np.linalg.solve(big, dd[index].reshape(-1)).reshape(n, m)
    return np.moveaxis(u, -2, axis)


def assert_block_solves(u, a, b, c, d, axis, expected=None):
    u = np.asarray(u)
    expected = dense_solve(a, b, c, d, axis) if expected is None else expected
    n = d.shape[:-1][axis]
    m = d.shape[-1]
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    tol = 20 * max(n, 2) * m * np.finfo(u.dtype).eps * scale
    np.testing.assert_allclose(u, expected, rtol=0, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("grid", [(1,), (17,), (4, 9), (3, 4, 5)])
def test_every_axis(rng, grid, m, dtype):
    a, b, c, d = random_blocks(rng, grid, m, dtype)
    for axis in range(-len(grid), len(grid)):
        d_before = d.copy()
        u = triax.solve_block(a, b, c, d, axis=axis)
        assert u.shape == d.shape and u.dtype == dtype
        np.testing.assert_array_equal(d, d_before)  # d is read only
        assert_block_solves(u, a, b, c, d, axis)


def test_modes_and_views(rng):
    a, b, c, d = random_blocks(rng, (6, 11, 7), 3)
    # Views with odd strides, including a block layout whose rows and columns are swapped in
    # memory (a transposed view of every block is still a valid strided operand).
    va, vb, vc, vd = (t[1::2, ::3] for t in (a, b, c, d))
    bt = np.ascontiguousarray(np.swapaxes(vb, -1, -2))
    vb_swapped = np.swapaxes(bt, -1, -2)  # same values as vb, column-major blocks
    expected = dense_solve(va, vb, vc, vd, 1)
    assert_block_solves(triax.solve_block(va, vb_swapped, vc, vd, axis=1), va, vb, vc, vd, 1,
                        expected)
    out = np.full(vd.shape, np.nan)
    assert triax.solve_block(va, vb, vc, vd, axis=1, out=out) is out
    assert_block_solves(out, va, vb, vc, vd, 1, expected)
    triax.solve_block(va, vb, vc, vd, axis=1, out=out, increment=True)
    assert_block_solves(out, va, vb, vc, vd, 1, 2 * expected)
    inplace = vd.copy()
    triax.solve_block(va, vb, vc, inplace, axis=1, out=inplace)
    assert_block_solves(inplace, va, vb, vc, vd, 1, expected)


def test_broadcast_blocks(rng):
    # One set of blocks for every system along the last grid axis: (n, m, m) against a
    # (5, n) grid; and one block for every row of every system: (m, m).
    a, b, c, d = random_blocks(rng, (5, 9), 4, block_grid=(9,))
    assert_block_solves(triax.solve_block(a, b, c, d, axis=1), a, b, c, d, 1)
    a1, b1, c1, _ = random_blocks(rng, (1,), 4)
    a1, b1, c1 = (t[0] for t in (a1, b1, c1))
    for axis in (0, 1):
        assert_block_solves(triax.solve_block(a1, b1, c1, d, axis=axis), a1, b1, c1, d, axis)


def test_checked(rng):
    a, b, c, d = random_blocks(rng, (4, 6), 2)
    b[1, 0] = 0  # system 1 along axis 1: its first pivot block is singular
    d[2, 3, 1] = np.nan  # system 2: the eliminated right-hand side of block row 3 is not finite
    u, info = triax.solve_block(a, b, c, d, axis=1, check="return")
    assert info.shape == (4,) and info.dtype == np.int32
    assert list(info) == [0, 1, 4, 0]
    good = [0, 3]
    assert_block_solves(u[good], a[good], b[good], c[good], d[good], 1)
    assert not np.isfinite(u[1]).all() and not np.isfinite(u[2]).all()
    with pytest.raises(triax.BreakdownError):
        triax.solve_block(a, b, c, d, axis=1, check=True)


def test_block_solver(rng):
    a, b, c, d = random_blocks(rng, (8, 5), 3)
    plan = triax.BlockSolver(a, b, c, d, axis=0)
    assert plan.block_size == 3 and plan.system_length == 8 and plan.system_count == 5
    assert "BlockSolver" in repr(plan)
    for _ in range(2):
        a, b, c, d = random_blocks(rng, (8, 5), 3)
        assert_block_solves(plan(a, b, c, d), a, b, c, d, 0)
    with pytest.raises(ValueError, match="block size M = 2, the plan 3"):
        plan(*random_blocks(rng, (8, 5), 2))
    with pytest.raises(ValueError, match="grid shape"):
        plan(*random_blocks(rng, (8, 6), 3))


def test_errors(rng):
    a, b, c, d = random_blocks(rng, (4, 5), 3)
    with pytest.raises(ValueError, match="1 to 6 dimensions"):
        triax.solve_block(a, b, c, d[0, 0])
    with pytest.raises(ValueError, match=r"does not broadcast to the blocks' shape \(4, 5, 3, 3\)"):
        triax.solve_block(a[..., :2], b, c, d)
    with pytest.raises(ValueError, match="axis = 2 is out of range for d's grid"):
        triax.solve_block(a, b, c, d, axis=2)
    with pytest.raises(ValueError, match="out has shape"):
        triax.solve_block(a, b, c, d, out=np.empty((4, 5, 2)))
    with pytest.raises(TypeError, match="dtype"):
        triax.solve_block(a.astype(np.float32), b, c, d)
    a_before = a.copy()
    with pytest.raises(ValueError, match="overlap"):
        triax.solve_block(a, b, c, d, out=a[..., 0])
    np.testing.assert_array_equal(a, a_before)  # the refused call wrote nothing


@needs_cuda_build
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu(framework, rng, dtype):
    fw = framework()
    for m in (1, 3, 8):
        host = random_blocks(rng, (6, 33), m, dtype)
        dev = [fw.put(t) for t in host]
        for axis in (0, 1):
            u = triax.solve_block(*dev, axis=axis)
            assert type(u) is type(dev[3])
            assert_block_solves(fw.get(u), *host, axis)
    u, info = triax.solve_block(*dev, axis=1, check="return")
    assert int(fw.get(info).max()) == 0
