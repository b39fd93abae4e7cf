"""triax.jax.solve: the JAX custom VJP, against SciPy's banded solver and JAX's own numerical
gradients (jax.test_util.check_grads) in float64; SKIPPED without JAX."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import assert_solves, random_system

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax.test_util import check_grads  # noqa: E402

import triax.jax  # noqa: E402


@pytest.mark.parametrize("shape", [(1,), (2,), (17,), (5, 9), (3, 4, 6)])
def test_every_axis(rng, shape):
    host = random_system(rng, shape)
    for axis in range(-len(shape), len(shape)):
        x = triax.jax.solve(*(jnp.asarray(t) for t in host), axis=axis)
        assert isinstance(x, jax.Array) and x.shape == shape
        assert_solves(np.asarray(x), *host, axis % len(shape))


def test_under_jit_and_float32(rng):
    host = random_system(rng, (6, 10), np.float32)
    f = jax.jit(lambda a, b, c, d: triax.jax.solve(a, b, c, d, axis=0))
    x = f(*(jnp.asarray(t) for t in host))
    assert x.dtype == jnp.float32
    assert_solves(np.asarray(x), *host, 0)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gradients(rng, axis):
    a, b, c, d = (jnp.asarray(t) for t in random_system(rng, (4, 7)))
    check_grads(lambda a, b, c, d: triax.jax.solve(a, b, c, d, axis=axis), (a, b, c, d),
                order=2, modes=["rev"], atol=1e-6, rtol=1e-6)


def test_gradients_of_broadcast_diagonals(rng):
    # One matrix for every system along the last axis: a, b, c of shape (n,), and scalars.
    n = 9
    _, _, _, d = random_system(rng, (5, n))
    b = jnp.asarray(rng.uniform(3, 4, n))
    loss = lambda a, b, c, d: (triax.jax.solve(a, b, c, d) ** 2).sum()  # noqa: E731
    check_grads(loss, (jnp.asarray(-1.0), b, jnp.asarray(0.5), jnp.asarray(d)), order=1,
                modes=["rev"], atol=1e-6, rtol=1e-6)
    ga, gb, gc, gd = jax.grad(loss, argnums=(0, 1, 2, 3))(-1.0, b, 0.5, jnp.asarray(d))
    assert ga.shape == () and gb.shape == (n,) and gc.shape == () and gd.shape == (5, n)


def test_errors(rng):
    d = jnp.ones((3, 4))
    with pytest.raises(ValueError, match="axis = 2 is out of range"):
        triax.jax.solve(1.0, 4.0, 1.0, d, axis=2)
    with pytest.raises(ValueError, match="does not broadcast"):
        triax.jax.solve(jnp.ones(3), 4.0, 1.0, d)
