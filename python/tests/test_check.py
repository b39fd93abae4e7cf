"""check=True / 'return': the per-system info of the library's checked mode."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, random_system


def singular(rng, shape, axis, broken):
    """A system batch where each system index in `broken` has b = a = c = 0 on the row given."""
    a, b, c, d = random_system(rng, shape)
    for index, row in broken.items():
        full = list(index)
        full.insert(axis, row)
        full = tuple(full)
        a[full] = b[full] = c[full] = 0.0
    return a, b, c, d


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_raise_carries_info(rng, axis):
    shape = (4, 5, 6)
    batch = shape[:axis] + shape[axis + 1:]
    broken = {(1, 2): 3, (0, 0): 0}
    a, b, c, d = singular(rng, shape, axis, broken)
    out = np.zeros_like(d)
    with pytest.raises(triax.BreakdownError) as e:
        triax.solve(a, b, c, d, axis=axis, out=out, check=True)
    assert isinstance(e.value, ArithmeticError)
    info = e.value.info
    assert info.shape == batch and info.dtype == np.int32
    expected = np.zeros(batch, np.int32)
    for index, row in broken.items():
        expected[index] = row + 1
    np.testing.assert_array_equal(info, expected)
    count = int(np.prod(batch))
    assert f"2 of {count} systems broke down; the first is system (0, 0)" in str(e.value)
    assert "at row 0" in str(e.value)
    # The healthy systems are solved all the same.
    healthy = np.moveaxis(out, axis, -1)[expected == 0]
    assert np.isfinite(healthy).all()


def test_return_mode(rng):
    a, b, c, d = singular(rng, (3, 7), 1, {(2,): 6})
    x, info = triax.solve(a, b, c, d, axis=1, check="return")
    np.testing.assert_array_equal(info, [0, 0, 7])
    assert not np.isfinite(x[2]).all()
    assert_solves(x[:2], a[:2], b[:2], c[:2], d[:2], 1)


def test_clean_systems(rng):
    a, b, c, d = random_system(rng, (5, 9))
    x = triax.solve(a, b, c, d, axis=0, check=True)
    assert_solves(x, a, b, c, d, 0)
    x, info = triax.solve(a, b, c, d, axis=0, check="return")
    np.testing.assert_array_equal(info, np.zeros(9, np.int32))
    # 'raise' is the same as True; any false value is no checking.
    assert_solves(triax.solve(a, b, c, d, axis=0, check=np.False_), a, b, c, d, 0)
    assert_solves(triax.solve(a, b, c, d, axis=0, check="raise"), a, b, c, d, 0)


def test_non_finite_input(rng):
    a, b, c, d = random_system(rng, (2, 8))
    d[1, 4] = np.nan
    with pytest.raises(triax.BreakdownError) as e:
        triax.solve(a, b, c, d, check=True)
    assert e.value.info[0] == 0 and e.value.info[1] > 0
