"""Differentiable solves in JAX: ``triax.jax.solve(a, b, c, d, axis=-1)``, a ``jax.custom_vjp``.

The forward pass is :func:`triax.solve`; JAX reaches it through ``jax.pure_callback``, so it runs
on the host (JAX arrays on a GPU are copied there and back) and works under ``jax.jit``. For
``A x = d`` with A tridiagonal and an upstream gradient ``g`` of x, the backward pass is one more
triax solve with the transposed matrix (sub-diagonal ``c`` moved down one row, super-diagonal
``a`` moved up one row) for ``grad_d = A^-T g``, then ``grad_a[i] = -grad_d[i] x[i-1]``,
``grad_b = -grad_d x``, ``grad_c[i] = -grad_d[i] x[i+1]``, each summed over the dimensions its
input was broadcast along (the rules of :mod:`triax.autograd` for PyTorch). The backward solve
is itself differentiable, so higher derivatives work.

>>> import jax, jax.numpy as jnp, triax.jax
>>> d = jnp.ones((4, 16))
>>> g = jax.grad(lambda d: triax.jax.solve(-1.0, 4.0, -1.0, d).sum())(d)
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from . import _api


def _host_solve(a, b, c, d, axis):
    return _api.solve(np.asarray(a), np.asarray(b), np.asarray(c), np.asarray(d), axis=axis)


def _forward(a, b, c, d, axis):
    result = jax.ShapeDtypeStruct(d.shape, d.dtype)
    return jax.pure_callback(functools.partial(_host_solve, axis=axis), result, a, b, c, d,
                             vmap_method="sequential")


def _aligned(t, ndim):
    """t with leading dimensions of extent 1 up to ndim (NumPy's broadcasting alignment)."""
    return t.reshape((1,) * (ndim - t.ndim) + t.shape)


def _shifted(t, shift, axis, ndim):
    """t moved `shift` rows along the axis; the row that wraps around lands where the solve
    never reads (a[0] or c[n-1]), and a diagonal broadcast along the axis stays as it is."""
    t = _aligned(t, ndim)
    return t if t.shape[axis] == 1 else jnp.roll(t, shift, axis)


def _sum_to(t, shape):
    """t summed over the dimensions an operand of `shape` was broadcast along."""
    lead = t.ndim - len(shape)
    t = t.sum(axis=tuple(range(lead))) if lead > 0 else t
    keep = tuple(k for k, n in enumerate(shape) if n == 1 and t.shape[k] != 1)
    return t.sum(axis=keep, keepdims=True) if keep else t


@functools.partial(jax.custom_vjp, nondiff_argnums=(4,))
def _solve(a, b, c, d, axis):
    return _forward(a, b, c, d, axis)


def _solve_fwd(a, b, c, d, axis):
    # Through _solve itself, not the callback: differentiating this rule again (reverse over
    # reverse) then goes through _solve's own rule, where a callback has none.
    x = _solve(a, b, c, d, axis)
    return x, (a, b, c, x, d.shape)


def _solve_bwd(axis, residuals, g):
    a, b, c, x, d_shape = residuals
    ndim = x.ndim
    grad_d = _solve(_shifted(c, 1, axis, ndim), b, _shifted(a, -1, axis, ndim), g, axis)
    n = x.shape[axis]
    zero = jnp.zeros(tuple(1 if k == axis else s for k, s in enumerate(x.shape)), x.dtype)
    take = functools.partial(jax.lax.slice_in_dim, axis=axis)
    grad_a = jnp.concatenate([zero, -take(grad_d, 1, n) * take(x, 0, n - 1)], axis)
    grad_c = jnp.concatenate([-take(grad_d, 0, n - 1) * take(x, 1, n), zero], axis)
    return (_sum_to(grad_a, a.shape), _sum_to(-grad_d * x, b.shape), _sum_to(grad_c, c.shape),
            _sum_to(grad_d, d_shape))


_solve.defvjp(_solve_fwd, _solve_bwd)


def solve(a, b, c, d, axis: int = -1):
    """:func:`triax.solve` for JAX arrays, differentiable in a, b, c and d (reverse mode).

    a, b, c broadcast to d's shape as in :func:`triax.solve` (NumPy's rule); float32 or float64
    (float64 needs ``jax.config.update("jax_enable_x64", True)``). Returns x, a JAX array.
    """
    d = jnp.asarray(d)
    if d.ndim == 0:
        raise ValueError("triax: d has 0 dimensions; triax solves arrays of 1 to 8")
    if not -d.ndim <= axis < d.ndim:
        raise ValueError(f"triax: axis = {axis} is out of range for d with {d.ndim} dimensions")
    a, b, c = (jnp.asarray(t, d.dtype) for t in (a, b, c))
    for name, t in (("a", a), ("b", b), ("c", c)):
        try:
            fits = jnp.broadcast_shapes(t.shape, d.shape) == d.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"triax: {name} has shape {t.shape}, which does not broadcast to "
                             f"d's shape {d.shape}")
    return _solve(a, b, c, d, axis % d.ndim)
