"""PyTorch CPU tensors (DLPack) and the autograd Function; skipped without PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, random_system

torch = pytest.importorskip("torch")


def tensors(rng, shape, dtype=torch.float64, requires_grad=False, diag_shape=None):
    arrays = random_system(rng, shape, np.float64, diag_shape)
    return [torch.tensor(t, dtype=dtype, requires_grad=requires_grad) for t in arrays]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_every_axis(rng, dtype):
    a, b, c, d = tensors(rng, (3, 4, 5), dtype)
    for axis in range(3):
        x = triax.solve(a, b, c, d, axis=axis)
        assert isinstance(x, torch.Tensor) and x.dtype == dtype and x.shape == d.shape
        assert_solves(x.numpy(), *(t.numpy() for t in (a, b, c, d)), axis)


def test_views_out_increment(rng):
    a, b, c, d = tensors(rng, (6, 8))
    at, bt, ct, dt = (t.t() for t in (a, b, c, d))  # transposed views
    ref = triax.solve(*(t.numpy() for t in (at, bt, ct, dt)), axis=0)
    out = torch.zeros(8, 6)
    out = out.double()
    assert triax.solve(at, bt, ct, dt, axis=0, out=out) is out
    np.testing.assert_allclose(out.numpy(), ref, rtol=0, atol=1e-13)
    triax.solve(at, bt, ct, dt, axis=0, out=out, increment=True)
    np.testing.assert_allclose(out.numpy(), 2 * ref, rtol=0, atol=1e-13)
    d2 = dt.clone()
    triax.solve(at, bt, ct, d2, axis=0, out=d2)
    np.testing.assert_allclose(d2.numpy(), ref, rtol=0, atol=1e-13)


def test_broadcast_with_expand(rng):
    d = torch.tensor(rng.uniform(-1, 1, (4, 7)))
    a = torch.tensor(-1.0, dtype=torch.float64).expand(4, 7)
    b = torch.tensor(rng.uniform(3, 4, 7))
    x = triax.solve(a, b, torch.tensor(-1.0, dtype=torch.float64), d)
    assert_solves(x.numpy(), -1.0, b.numpy(), -1.0, d.numpy(), -1)


def test_mixed_dtypes_and_no_grad(rng):
    a, b, c, d = tensors(rng, (2, 5))
    with pytest.raises(TypeError, match="b has dtype float32 but d has float64"):
        triax.solve(a, b.float(), c, d)
    # Tensors that require grad, solved outside autograd, are read as they are.
    a.requires_grad_(True)
    with torch.no_grad():
        x = triax.solve(a, b, c, d)
    assert not x.requires_grad
    assert_solves(x.numpy(), *(t.detach().numpy() for t in (a, b, c, d)), -1)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gradcheck_every_axis(rng, axis):
    a, b, c, d = tensors(rng, (3, 4, 5), requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b, c, d: triax.solve(a, b, c, d, axis=axis),
                                    (a, b, c, d))


def test_gradcheck_broadcast(rng):
    # One matrix for every system along the last axis, a constant b, a right-hand side per
    # system: the gradients of a, c and b are sums over the systems.
    n = 6
    a = torch.tensor(rng.uniform(-1, 1, n), requires_grad=True)
    c = torch.tensor(rng.uniform(-1, 1, (1, n)), requires_grad=True)
    b = torch.tensor(3.5, dtype=torch.float64, requires_grad=True)
    d = torch.tensor(rng.uniform(-1, 1, (4, n)), requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b, c, d: triax.solve(a, b, c, d), (a, b, c, d))
    # Broadcast along the solve axis too (axis 0 of d, a of shape (1, n) is constant on it).
    assert torch.autograd.gradcheck(lambda a, b, c, d: triax.solve(a, b, c, d, axis=0),
                                    (a, b, c, d))


def test_gradients_match_dense_autograd(rng):
    # The same gradients as PyTorch's dense solve of the assembled matrix.
    a, b, c, d = tensors(rng, (7,), requires_grad=True)
    x = triax.solve(a, b, c, d)
    g = torch.tensor(rng.uniform(-1, 1, 7))
    grads = torch.autograd.grad(x, (a, b, c, d), g)
    a2, b2, c2, d2 = (t.detach().clone().requires_grad_(True) for t in (a, b, c, d))
    A = torch.diag(b2) + torch.diag(a2[1:], -1) + torch.diag(c2[:-1], 1)
    x2 = torch.linalg.solve(A, d2)
    dense = torch.autograd.grad(x2, (a2, b2, c2, d2), g)
    for mine, theirs in zip(grads, dense):
        torch.testing.assert_close(mine, theirs, rtol=0, atol=1e-13)
    assert grads[0][0] == 0 and grads[2][-1] == 0  # a[0], c[n-1] are never read


def test_gradgradcheck(rng):
    a, b, c, d = tensors(rng, (2, 5), requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda a, b, c, d: triax.solve(a, b, c, d),
                                        (a, b, c, d))


def test_autograd_only_some_inputs(rng):
    a, b, c, d = tensors(rng, (3, 5))
    d.requires_grad_(True)
    x = triax.solve(a, b, c, d, axis=1)
    assert x.requires_grad
    assert torch.autograd.gradcheck(lambda d: triax.solve(a, b, c, d, axis=1), (d,))


def test_autograd_out_increment_check(rng):
    a, b, c, d = tensors(rng, (3, 5), requires_grad=True)
    u = torch.ones(3, 5, dtype=torch.float64)
    r = triax.solve(a, b, c, d, out=u, increment=True)
    assert r is u and u.requires_grad
    u.sum().backward()
    assert d.grad is not None and a.grad is not None
    x, info = triax.solve(a, b, c, d, check="return")
    assert x.requires_grad and not info.requires_grad and (info == 0).all()
    with torch.no_grad():
        b[1, 2] = 0
        a[1, 2] = 0
    with pytest.raises(triax.BreakdownError) as e:
        triax.solve(a, b, c, d, check=True)
    np.testing.assert_array_equal(e.value.info, [0, 3, 0])
    with pytest.raises(ValueError, match="out is None"):
        triax.solve(a, b, c, d, increment=True)


def test_torch_function_directly(rng):
    from triax.autograd import TridiagonalSolve

    a, b, c, d = tensors(rng, (4, 3), requires_grad=True)
    x, info = TridiagonalSolve.apply(a, b, c, d, 0, True)
    assert (info == 0).all()
    x.sum().backward()
    assert b.grad.shape == b.shape
