"""triax.VarSolver: systems of different lengths back to back and padded, against SciPy's banded
solver one system at a time; GPU cases SKIPPED without a GPU."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, random_system
from test_gpu import FRAMEWORKS, needs_cuda_build

LENGTHS = [0, 1, 2, 3, 300, 17, 0, 1024, 5]


def back_to_back(rng, lengths, dtype=np.float64, gap=0):
    offsets = np.cumsum([0] + [n + gap for n in lengths[:-1]])
    size = int(offsets[-1] + lengths[-1]) if lengths else 0
    return offsets.astype(np.int64), random_system(rng, (size + gap,), dtype)


def check_back_to_back(x, arrays, lengths, offsets):
    for n, o in zip(lengths, offsets):
        if n:
            rows = slice(o, o + n)
            assert_solves(x[rows], *(t[rows] for t in arrays), 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_back_to_back(rng, dtype):
    offsets, arrays = back_to_back(rng, LENGTHS, dtype)
    plan = triax.VarSolver(LENGTHS, *arrays)
    assert plan.system_count == len(LENGTHS) and plan.total_rows == sum(LENGTHS)
    x = plan(*arrays)
    check_back_to_back(x, arrays, LENGTHS, offsets)


def test_gaps_modes_and_check(rng):
    offsets, arrays = back_to_back(rng, LENGTHS, gap=3)
    sentinel = -7.0
    out = np.full(arrays[3].shape, sentinel)
    plan = triax.VarSolver(LENGTHS, *arrays, offsets=offsets, out=out)
    assert plan(*arrays, out=out) is out
    check_back_to_back(out, arrays, LENGTHS, offsets)
    touched = np.zeros(out.shape, bool)
    for n, o in zip(LENGTHS, offsets):
        touched[o:o + n] = True
    assert (out[~touched] == sentinel).all()  # the gaps are never written
    inc = triax.VarSolver(LENGTHS, *arrays, offsets=offsets, out=out, increment=True)
    inc(*arrays, out=out)
    check_back_to_back(out / 2, arrays, LENGTHS, offsets)
    a, b, c, d = (t.copy() for t in arrays)
    d[offsets[4] + 10] = np.nan  # system 4: row 10
    x, info = triax.VarSolver(LENGTHS, a, b, c, d, offsets=offsets, check="return")(a, b, c, d)
    assert info.shape == (len(LENGTHS),)
    assert [int(i) for i in info] == [0, 0, 0, 0, 11, 0, 0, 0, 0]


def test_padded(rng):
    lengths = np.array([[5, 0, 12], [1, 12, 7]])  # one per system: d's other axes, C order
    a, b, c, d = random_system(rng, (2, 12, 3))
    out = np.full(d.shape, np.nan)
    plan = triax.VarSolver(lengths, a, b, c, d, axis=1, out=out)
    plan(a, b, c, d, out=out)
    for i in range(2):
        for k in range(3):
            n = lengths[i, k]
            if n:
                assert_solves(out[i, :n, k], a[i, :n, k], b[i, :n, k], c[i, :n, k], d[i, :n, k], 0)
            assert np.isnan(out[i, n:, k]).all()  # padding rows neither read nor written


def test_errors(rng):
    offsets, arrays = back_to_back(rng, [4, 4])
    with pytest.raises(ValueError, match="offsets"):
        triax.VarSolver([4, 4], *arrays, offsets=[0, 2])  # overlapping systems
    with pytest.raises(ValueError, match="end at element"):
        triax.VarSolver([4, 40], *arrays)
    with pytest.raises(ValueError, match="unit stride"):
        triax.VarSolver([2, 2], *(t[::2] for t in arrays))
    with pytest.raises(ValueError):
        triax.VarSolver([-1, 4], *arrays)
    a, b, c, d = random_system(rng, (3, 8))
    with pytest.raises(ValueError):
        triax.VarSolver([9, 1, 1], a, b, c, d, axis=1)  # longer than the padded axis


@needs_cuda_build
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu(framework, rng, dtype):
    fw = framework()
    offsets, arrays = back_to_back(rng, LENGTHS, dtype)
    dev = [fw.put(t) for t in arrays]
    plan = triax.VarSolver(LENGTHS, *dev)
    assert plan.backend == "cuda"
    x = plan(*dev)
    assert type(x) is type(dev[3])
    check_back_to_back(fw.get(x), arrays, LENGTHS, offsets)
