"""Shared helpers: random diagonally dominant systems and SciPy's banded solver as the oracle."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def random_system(rng, shape, dtype=np.float64, diag_shape=None):
    """a, b, c, d with |b| >= |a| + |c| + 1: every system is well conditioned (the inverse has
    infinity norm <= 1), so the tolerance below holds for any size."""
    diag_shape = shape if diag_shape is None else diag_shape
    a = rng.uniform(-1, 1, diag_shape).astype(dtype)
    c = rng.uniform(-1, 1, diag_shape).astype(dtype)
    b = (rng.uniform(3, 4, diag_shape) * rng.choice([-1, 1], diag_shape)).astype(dtype)
    d = rng.uniform(-1, 1, shape).astype(dtype)
    return a, b, c, d


def banded_solve(a, b, c, d, axis):
    """x from scipy.linalg.solve_banded, one system at a time, in float64."""
    shape = np.shape(d)
    a, b, c, d = (np.moveaxis(np.broadcast_to(np.asarray(t, np.float64), shape), axis, -1)
                  for t in (a, b, c, d))
    x = np.empty(d.shape)
    n = d.shape[-1]
    for index in np.ndindex(d.shape[:-1]):
        ab = np.zeros((3, n))
        ab[0, 1:] = c[index][:-1]
        ab[1] = b[index]
        ab[2, :-1] = a[index][1:]
        x[index] = scipy.linalg.solve_banded((1, 1), ab, d[index])
    return np.moveaxis(x, -1, axis)


def tolerance(dtype, n):
    """Backward-stable Thomas on these systems: error <= a few n eps |x| (cond <= 5)."""
    return 10 * max(n, 2) * np.finfo(dtype).eps


def assert_solves(x, a, b, c, d, axis, reference=None):
    x = np.asarray(x)
    expected = banded_solve(a, b, c, d, axis) if reference is None else reference
    n = np.shape(d)[axis]
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    np.testing.assert_allclose(x, expected, rtol=0, atol=tolerance(x.dtype, n) * scale)
