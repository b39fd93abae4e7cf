#!/usr/bin/env python3
"""triax.solve on NumPy arrays against scipy.linalg.solve_banded looped over the systems, on an
N^3 grid (default 128^3) along every axis, in the same process.

Every system has its own diagonals (full a, b, c, d arrays, diagonally dominant). triax's time
is the median of repeated cached-plan solves into a preallocated output; SciPy's is one pass
over all N^2 systems of an axis, each a banded matrix assembled from the system's diagonals and
solved with check_finite=False (its fastest form). Both results are compared.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import scipy.linalg

import triax


def scipy_loop(a, b, c, d, axis):
    a, b, c, d = (np.moveaxis(t, axis, -1) for t in (a, b, c, d))
    n = d.shape[-1]
    x = np.empty(d.shape)
    ab = np.empty((3, n))
    for index in np.ndindex(d.shape[:-1]):
        ab[0, 1:] = c[index][:-1]
        ab[1] = b[index]
        ab[2, :-1] = a[index][1:]
        x[index] = scipy.linalg.solve_banded((1, 1), ab, d[index], overwrite_ab=False,
                                             check_finite=False)
    return np.moveaxis(x, -1, axis)


def timed(f):
    """(wall seconds, CPU seconds of every thread of the process) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w0, time.process_time() - c0


def median_seconds(f, repeats):
    f()  # the plan is made (and cached) here
    runs = [timed(f) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=128)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--dtype", choices=["float32", "float64"], default="float64")
    args = p.parse_args()
    n, dtype = args.n, np.dtype(args.dtype)
    rng = np.random.default_rng(1)
    shape = (n, n, n)
    a = rng.uniform(-1, 1, shape).astype(dtype)
    c = rng.uniform(-1, 1, shape).astype(dtype)
    b = rng.uniform(3, 4, shape).astype(dtype)
    d = rng.uniform(-1, 1, shape).astype(dtype)
    x = np.empty_like(d)
    print(f"bench_numpy: {n}^3 {dtype}, {n * n} systems of {n} rows per axis; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("  wall: elapsed time; cpu: CPU time of all the process's threads (triax's OpenMP\n"
          "  threads summed), which a busy machine disturbs less")
    print(f"  {'axis':>4s}  {'triax wall ms':>13s}  {'cpu ms':>7s}  {'GB/s':>6s}  "
          f"{'scipy wall ms':>13s}  {'cpu ms':>7s}  {'speed-up wall':>13s}  {'cpu':>5s}  "
          f"{'max |diff|':>10s}")
    ratios = []
    for axis in range(3):
        wall, cpu = median_seconds(lambda: triax.solve(a, b, c, d, axis=axis, out=x),
                                   args.repeats)
        ref_box = []
        scipy_wall, scipy_cpu = timed(lambda: ref_box.append(scipy_loop(a, b, c, d, axis)))
        triax.solve(a, b, c, d, axis=axis, out=x)
        diff = float(np.abs(x - ref_box[0]).max())
        gbps = 5 * d.nbytes / wall / 1e9  # read a, b, c, d; write x
        ratios.append(scipy_wall / wall)
        print(f"  {axis:>4d}  {1e3 * wall:13.3f}  {1e3 * cpu:7.2f}  {gbps:6.2f}  "
              f"{1e3 * scipy_wall:13.1f}  {1e3 * scipy_cpu:7.0f}  {ratios[-1]:12.0f}x  "
              f"{scipy_cpu / cpu:4.0f}x  {diff:10.2e}")
    print(f"  smallest speed-up (wall) {min(ratios):.0f}x (bar: >= 20x)")


if __name__ == "__main__":
    main()
