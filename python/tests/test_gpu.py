"""CUDA arrays from PyTorch and CuPy. Every test here is SKIPPED without a GPU (or without the
library it uses); on a GPU machine they need a triax built with its CUDA backend."""
from __future__ import annotations

import numpy as np
import pytest

import triax
from conftest import assert_solves, banded_solve, random_system


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _cupy():
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no CuPy, no driver, no device
        return None


torch = _torch()
cupy = _cupy()
no_gpu = torch is None and cupy is None
needs_cuda_build = pytest.mark.skipif(
    no_gpu or not triax.cuda_available(),
    reason="no GPU (PyTorch with CUDA, or CuPy)" if no_gpu else "this triax was built without CUDA")


class Torch:
    name = "torch"

    def put(self, x, device=0):
        return torch.as_tensor(np.ascontiguousarray(x), device=f"cuda:{device}")

    def get(self, x):
        return x.cpu().numpy()

    def new_stream(self):
        return torch.cuda.Stream()

    def on(self, stream):
        return torch.cuda.stream(stream)

    def delay(self):
        torch.cuda._sleep(200_000_000)  # a kernel that spins ~0.1 s on the current stream

    def sync(self):
        torch.cuda.synchronize()


class CuPy:
    name = "cupy"

    def put(self, x, device=0):
        with cupy.cuda.Device(device):
            return cupy.asarray(x)

    def get(self, x):
        return cupy.asnumpy(x)

    def new_stream(self):
        return cupy.cuda.Stream(non_blocking=True)

    def on(self, stream):
        return stream

    def delay(self):
        spin = cupy.RawKernel(
            'extern "C" __global__ void spin(long long cycles) {'
            '  long long t0 = clock64(); while (clock64() - t0 < cycles) {} }', "spin")
        spin((1,), (1,), (np.int64(200_000_000),))

    def sync(self):
        cupy.cuda.runtime.deviceSynchronize()


FRAMEWORKS = [
    pytest.param(Torch, marks=pytest.mark.skipif(torch is None, reason="no PyTorch with CUDA")),
    pytest.param(CuPy, marks=pytest.mark.skipif(cupy is None, reason="no CuPy with a GPU")),
]


@pytest.fixture(params=FRAMEWORKS)
def fw(request):
    return request.param()


@pytest.mark.skipif(triax.cuda_available(), reason="this triax has CUDA")
def test_cuda_arrays_without_the_cuda_backend(fw):
    # A GPU and a build without CUDA: the library's not_compiled error, as RuntimeError.
    d = fw.put(np.ones(4))
    with pytest.raises(RuntimeError, match="cuda"):
        triax.solve(d, d, d, d)


@needs_cuda_build
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (300,), (5, 33), (4, 6, 7), (2, 3, 4, 5)])
def test_every_axis(fw, rng, shape, dtype):
    host = random_system(rng, shape, dtype)
    dev = [fw.put(t) for t in host]
    for axis in range(len(shape)):
        x = triax.solve(*dev, axis=axis)
        assert type(x) is type(dev[3])
        assert_solves(fw.get(x), *host, axis)


@needs_cuda_build
def test_views_broadcast_and_modes(fw, rng):
    host = random_system(rng, (8, 10, 12))
    dev = [fw.put(t) for t in host]
    views = [t[::2, 1::3, 2:] for t in dev]
    host_views = [t[::2, 1::3, 2:] for t in host]
    for axis in range(3):
        assert_solves(fw.get(triax.solve(*views, axis=axis)), *host_views, axis)
    # Broadcast diagonals: a constant matrix as 0-d arrays, a (n,) main diagonal.
    b_row = rng.uniform(3, 4, 12)
    x = triax.solve(fw.put(np.array(-1.0)), fw.put(b_row), fw.put(np.array(-1.0)), dev[3])
    assert_solves(fw.get(x), -1.0, b_row, -1.0, host[3], -1)
    # out, increment, in place.
    expected = banded_solve(*host, 1)
    out = fw.put(np.zeros(host[3].shape))
    triax.solve(*dev, axis=1, out=out)
    triax.solve(*dev, axis=1, out=out, increment=True)
    np.testing.assert_allclose(fw.get(out), 2 * expected, rtol=0, atol=1e-12)
    triax.solve(*dev, axis=1, out=dev[3])
    np.testing.assert_allclose(fw.get(dev[3]), expected, rtol=0, atol=1e-12)


@needs_cuda_build
def test_negative_strides(fw, rng):
    host = random_system(rng, (6, 9))
    dev = [fw.put(t) for t in host]
    if fw.name == "torch":
        pytest.skip("PyTorch has no negative strides")
    x = triax.solve(dev[0][::-1], dev[1], dev[2], dev[3][:, ::-1])
    assert_solves(fw.get(x), host[0][::-1], host[1], host[2], host[3][:, ::-1], -1)


@needs_cuda_build
def test_check(fw, rng):
    a, b, c, d = random_system(rng, (3, 8))
    a[2, 5] = b[2, 5] = c[2, 5] = 0
    dev = [fw.put(t) for t in (a, b, c, d)]
    x, info = triax.solve(*dev, check="return")
    assert type(info) is type(dev[3])  # on the device, nothing copied back
    np.testing.assert_array_equal(fw.get(info), [0, 0, 6])
    with pytest.raises(triax.BreakdownError) as e:
        triax.solve(*dev, check=True)
    np.testing.assert_array_equal(e.value.info, [0, 0, 6])


@needs_cuda_build
def test_mixed_devices(fw, rng):
    a, b, c, d = random_system(rng, (3, 8))
    with pytest.raises(TypeError, match="a is on cuda:0 but d is on cpu"):
        triax.solve(fw.put(a), b, c, d)
    with pytest.raises(TypeError, match="out is on cpu but d is on cuda:0"):
        triax.solve(*(fw.put(t) for t in (a, b, c, d)), out=np.zeros_like(d))


@needs_cuda_build
@pytest.mark.parametrize("use_solver", [False, True])
def test_stream_ordering(fw, rng, use_solver):
    # On a non-blocking stream: a long kernel, then d written, then the solve, then a kernel
    # reading x. A solve on any other stream would read d before it is written, or its x would
    # be read before it is solved.
    shape = (64, 64, 64)
    a, b, c, d = random_system(rng, shape, np.float64)
    dev = [fw.put(t) for t in (a, b, c)]
    d_src = fw.put(d)
    d_dev = fw.put(np.zeros(shape))
    x = fw.put(np.zeros(shape))
    stream = fw.new_stream()
    fw.sync()
    with fw.on(stream):
        plan = triax.Solver(*dev, d_dev, axis=1, out=x) if use_solver else None
        fw.delay()
        d_dev[...] = d_src
        if use_solver:
            plan(*dev, d_dev, out=x)
        else:
            triax.solve(*dev, d_dev, axis=1, out=x)
        y = x * 2
    fw.sync()
    assert_solves(fw.get(y) / 2, a, b, c, d, 1)


@needs_cuda_build
def test_solver_on_the_gpu(fw, rng):
    host = random_system(rng, (16, 40))
    dev = [fw.put(t) for t in host]
    plan = triax.Solver(*dev, axis=1)
    assert plan.backend == "cuda" and plan.algorithm.startswith("cuda_")
    assert_solves(fw.get(plan(*dev)), *host, 1)


@needs_cuda_build
def test_second_device(fw, rng):
    count = torch.cuda.device_count() if fw.name == "torch" else \
        cupy.cuda.runtime.getDeviceCount()
    if count < 2:
        pytest.skip("one GPU")
    host = random_system(rng, (4, 50))
    dev = [fw.put(t, device=1) for t in host]
    x = triax.solve(*dev)  # while device 0 is current
    assert_solves(fw.get(x), *host, -1)


@needs_cuda_build
@pytest.mark.skipif(torch is None, reason="no PyTorch with CUDA")
def test_gradcheck_cuda(rng):
    arrays = [torch.tensor(t, device="cuda", requires_grad=True)
              for t in random_system(rng, (3, 6))]
    assert torch.autograd.gradcheck(lambda a, b, c, d: triax.solve(a, b, c, d, axis=1), arrays)
