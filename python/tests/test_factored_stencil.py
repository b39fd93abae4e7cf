"""triax.FactoredSolver.solve_stencil and triax.Stencil: x = A^{-1} (B f) along every axis
against B f formed here by stencil.hpp's rule (float64) and SciPy's banded solver; the Pade
derivative of a cubic; views, out, checked mode, argument checks (output untouched); GPU and
PyTorch cases SKIPPED without them."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, banded_solve, tolerance
from test_factored import along, matrix
from test_gpu import FRAMEWORKS, needs_cuda_build


def random_stencil(rng):
    """Every one of the 25 weights drawn from [-1, 1]: each tap of each row matters."""
    return triax.Stencil(rng.uniform(-1, 1, 5), rng.uniform(-1, 1, (2, 5)),
                         rng.uniform(-1, 1, (2, 5)))


def pade_stencil(h):
    """The fourth-order Pade first derivative's right-hand side (stencil.hpp's example)."""
    q, e = 3 / (4 * h), 1 / (2 * h)
    return triax.Stencil(interior=[0, -q, 0, q, 0],
                         first=[[-5 * e, 4 * e, e, 0, 0], [-q, 0, q, 0, 0]],
                         last=[[5 * e, -4 * e, -e, 0, 0], [q, 0, -q, 0, 0]])


def apply_stencil(B, f, axis, dtype):
    """B f along axis by the rule (the weights rounded to dtype, sums in float64)."""
    w = np.array(B.weights()).astype(dtype).astype(np.float64)
    interior, first, last = w[:5], w[5:15].reshape(2, 5), w[15:].reshape(2, 5)
    g = np.moveaxis(np.asarray(f, np.float64), axis, -1)
    n = g.shape[-1]
    out = np.zeros(g.shape)
    for i in range(n):
        if 2 <= i <= n - 3:
            out[..., i] = sum(interior[k + 2] * g[..., i + k] for k in range(-2, 3))
        elif i <= n - 1 - i:
            out[..., i] = sum(first[i][t] * g[..., t] for t in range(min(5, n)))
        else:
            r = n - 1 - i
            out[..., i] = sum(last[r][t] * g[..., n - 1 - t] for t in range(min(5, n)))
    return np.moveaxis(out, -1, axis)


def check_against_oracle(B, f, axis, x, a, b, c, dtype):
    """x against SciPy's solve of B f (formed here): the solve's tolerance, widened by B f's
    own rounding (a few eps of its terms, |f| <= 1 and |w| <= 1 or the Pade weights)."""
    nd = f.ndim
    rhs = apply_stencil(B, f, axis % nd, dtype)
    want = banded_solve(*(along(t, axis % nd, nd) for t in (a, b, c)), rhs, axis % nd)
    terms = 1 + np.abs(np.asarray(B.weights())).sum()
    scale = max(np.abs(want).max(initial=0.0), 1.0) * terms
    np.testing.assert_allclose(np.asarray(x, np.float64), want, rtol=0,
                               atol=tolerance(dtype, f.shape[axis]) * scale)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["toeplitz", "varying"])
@pytest.mark.parametrize("shape", [(1,), (2,), (3,), (4,), (5,), (7, 64), (5, 6, 31)])
def test_every_axis(rng, shape, kind, dtype):
    f = rng.uniform(-1, 1, shape).astype(dtype)
    B = random_stencil(rng)
    for axis in range(-len(shape), len(shape)):
        a, b, c = matrix(rng, shape[axis], kind, dtype)
        plan = triax.FactoredSolver(a, b, c, f, axis=axis)
        assert plan.fuses_stencil is False  # the host backend goes through its workspace
        f_before = f.copy()
        x = plan.solve_stencil(B, f)
        np.testing.assert_array_equal(f, f_before)
        assert x.dtype == dtype and x.shape == f.shape
        check_against_oracle(B, f, axis, x, a, b, c, dtype)


def test_pade_differentiates_cubics(rng):
    n = 65
    t = np.linspace(0, 1, n)
    a, b, c = np.full(n, 0.25), np.ones(n), np.full(n, 0.25)
    c[0] = a[-1] = 2
    f = np.stack([(1 + 2 * t - 3 * t**2 + 0.5 * t**3) * s for s in (1, -2, 0.5)])
    x = triax.FactoredSolver(a, b, c, f).solve_stencil(pade_stencil(t[1] - t[0]), f)
    want = np.stack([(2 - 6 * t + 1.5 * t**2) * s for s in (1, -2, 0.5)])
    np.testing.assert_allclose(x, want, rtol=0, atol=1e-11)


def test_views_out_and_reuse(rng):
    n = 40
    a, b, c = matrix(rng, n, "varying")
    f = rng.uniform(-1, 1, (9, n, 8))[::2, :, 1::3]  # odd strides
    B = random_stencil(rng)
    out = np.full(f.shape, np.nan)
    plan = triax.FactoredSolver(a, b, c, f, axis=1, out=out)
    assert plan.solve_stencil(B, f, out=out) is out
    check_against_oracle(B, f, 1, out, a, b, c, np.float64)
    # The same plan solves A x = d as before, and another stencil after (B is per call).
    assert_solves(plan(f, out=np.empty(f.shape)), *(along(t, 1, 3) for t in (a, b, c)), f, 1)
    B2 = pade_stencil(0.1)
    check_against_oracle(B2, f, 1, plan.solve_stencil(B2, f, out=out), a, b, c, np.float64)


def test_checked_mode(rng):
    n = 16
    a, b, c = matrix(rng, n, "toeplitz")
    f = rng.uniform(-1, 1, (5, n))
    f[3, 7] = np.nan
    x, info = triax.FactoredSolver(a, b, c, f, check="return").solve_stencil(random_stencil(rng), f)
    assert info.shape == (5,) and info[3] > 0 and list(np.delete(info, 3)) == [0] * 4
    assert np.isfinite(np.delete(x, 3, axis=0)).all()
    with pytest.raises(triax.BreakdownError):
        triax.FactoredSolver(a, b, c, f, check=True).solve_stencil(random_stencil(rng), f)


def test_errors_leave_out_untouched(rng):
    n = 10
    a, b, c = matrix(rng, n, "varying")
    f = rng.uniform(-1, 1, (4, n))
    plan = triax.FactoredSolver(a, b, c, f)
    B = random_stencil(rng)
    out = np.full(f.shape, -7.0)
    with pytest.raises(ValueError, match=r"solve_stencil: these arrays do not fit the plan: f's shape"):
        plan.solve_stencil(B, rng.uniform(-1, 1, (5, n)))
    with pytest.raises(ValueError, match="do not fit the plan: dtype float32"):
        plan.solve_stencil(B, f.astype(np.float32), out=out.astype(np.float32))
    with pytest.raises(ValueError, match="x shares elements with f"):
        plan.solve_stencil(B, f, out=f)
    with pytest.raises(TypeError, match="takes a triax.Stencil"):
        plan.solve_stencil([0, 1, 0], f, out=out)
    with pytest.raises(TypeError, match="f is None"):
        plan.solve_stencil(B, None, out=out)
    with pytest.raises(ValueError, match="increment=True"):
        triax.FactoredSolver(a, b, c, f, out=out, increment=True).solve_stencil(B, f, out=out)
    with pytest.raises(ValueError, match=r"Stencil first has shape \(5,\); it takes \(2, 5\)"):
        triax.Stencil(first=np.ones(5))
    np.testing.assert_array_equal(out, -7.0)


def test_stencil_object():
    B = triax.Stencil(interior=[1, 2, 3, 4, 5])
    assert B.weights() == [1, 2, 3, 4, 5] + [0] * 20
    B.last = [[0] * 4 + [9], [0] * 5]  # reassigned weights are checked when used
    assert B.weights()[19] == 9
    B.first = [1, 2]
    with pytest.raises(ValueError, match="first has shape"):
        B.weights()
    assert "interior=[1.0, 2.0, 3.0, 4.0, 5.0]" in repr(triax.Stencil(interior=[1, 2, 3, 4, 5]))


def test_torch_cpu_tensors(rng):
    torch = pytest.importorskip("torch")
    n = 33
    a, b, c = matrix(rng, n, "toeplitz")
    f = torch.as_tensor(rng.uniform(-1, 1, (6, n)))
    B = random_stencil(rng)
    x = triax.FactoredSolver(a, b, c, f).solve_stencil(B, f)
    assert isinstance(x, torch.Tensor)
    check_against_oracle(B, f.numpy(), 1, x.numpy(), a, b, c, np.float64)


@needs_cuda_build
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu(framework, rng, dtype):
    fw = framework()
    host = rng.uniform(-1, 1, (6, 64, 20)).astype(dtype)
    dev = fw.put(host)
    B = random_stencil(rng)
    for axis in range(3):
        a, b, c = matrix(rng, host.shape[axis], "toeplitz", dtype)
        plan = triax.FactoredSolver(a, b, c, dev, axis=axis)
        assert plan.backend == "cuda"
        x = plan.solve_stencil(B, dev)
        assert type(x) is type(dev)
        if axis == 1:  # 64 dominant rows: a chunk table, B f formed inside the solve
            assert plan.fuses_stencil, plan.algorithm
        check_against_oracle(B, host, axis, fw.get(x), a, b, c, dtype)
        np.testing.assert_array_equal(fw.get(dev), host)
