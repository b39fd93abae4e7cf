#!/usr/bin/env python3
"""triax.solve on PyTorch or CuPy CUDA arrays: the median time of a cached-plan solve on an N^3
grid (default 256^3) along every axis, timed with CUDA events on the library's current stream,
to compare with triax-bench's C++ solve of the same case (issue 33's bar: within 5%).

Two timings per axis: `alone`, events around one call (the GPU idles while Python prepares the
call, so the per-call host cost shows in full), and `loop`, events around --launches calls back
to back divided by their number (the steady state of a loop of solves, as in ADI: each call's
host work overlaps the previous solve). Compare `loop` with triax-bench's `--launches` rows.

Every operand is a full array (a, b, c, d read, x written into a separate output), the case of
  triax-bench --backend cuda --extents 256x256x256 --precision float --mode separate
(triax-bench's axes 0..2 are NumPy's axes 2..0 here)."""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import triax


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--framework", choices=["torch", "cupy"], default="torch")
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    p.add_argument("--repeats", type=int, default=50)
    p.add_argument("--launches", type=int, default=10, help="calls per `loop` sample")
    args = p.parse_args()
    shape = (args.n,) * 3
    rng = np.random.default_rng(3)
    host = [rng.uniform(-1, 1, shape), rng.uniform(3, 4, shape), rng.uniform(-1, 1, shape),
            rng.uniform(-1, 1, shape)]
    if args.framework == "torch":
        import torch

        arrays = [torch.as_tensor(t.astype(args.dtype), device="cuda") for t in host]

        def event():
            return torch.cuda.Event(enable_timing=True)

        def elapsed(e0, e1):
            e1.synchronize()
            return e0.elapsed_time(e1)
    else:
        import cupy

        arrays = [cupy.asarray(t.astype(args.dtype)) for t in host]

        def event():
            return cupy.cuda.Event()

        def elapsed(e0, e1):
            e1.synchronize()
            return cupy.cuda.get_elapsed_time(e0, e1)
    a, b, c, d = arrays
    x = arrays[3] * 0
    nbytes = 5 * host[0].size * np.dtype(args.dtype).itemsize
    print(f"bench_gpu: {args.framework}, {args.n}^3 {args.dtype}, median of {args.repeats}")
    for axis in (2, 1, 0):
        triax.solve(a, b, c, d, axis=axis, out=x)  # the plan is made and cached here

        def timed(calls):
            e0, e1 = event(), event()
            e0.record()
            for _ in range(calls):
                triax.solve(a, b, c, d, axis=axis, out=x)
            e1.record()
            return elapsed(e0, e1) / calls

        alone = statistics.median(timed(1) for _ in range(args.repeats))
        loop = statistics.median(timed(args.launches) for _ in range(args.repeats))
        print(f"  numpy axis {axis} (triax axis {2 - axis}): alone {alone:8.3f} ms  "
              f"loop {loop:8.3f} ms  {nbytes / loop / 1e6:8.1f} GB/s")


if __name__ == "__main__":
    main()
