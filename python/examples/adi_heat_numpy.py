#!/usr/bin/env python3
"""The 3-D heat equation with Douglas-Gunn ADI, one batched triax solve per axis per step, in
NumPy: the Python twin of apps/adi_heat, printing the same report and error check.

u_t = u_xx + u_yy + u_zz on the unit cube, u = 0 on the boundary,
u(0) = sin(pi x) sin(pi y) sin(pi z), exactly u = exp(-3 pi^2 t) u(0). Each step, in delta form
(Crank-Nicolson weights: second order in time and space):

    (1 - dt/2 Lx) D1 = dt (Lx + Ly + Lz) u
    (1 - dt/2 Ly) D2 = D1
    (1 - dt/2 Lz) D3 = D2,   u += D3

Every system has the same constant matrix, so a, b and c are 0-d arrays that triax broadcasts.
The grid is u[k, j, i] (x fastest, as in the C++ app): x is axis 2, y axis 1, z axis 0.

``run()`` takes the array library's conversions, so adi_heat_gpu.py runs the same steps on
PyTorch or CuPy arrays.
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

import triax

AXES = [("x", 2, "in place"), ("y", 1, "into d2"), ("z", 0, "increment u")]


def sine_mode(n: int) -> np.ndarray:
    """sin(pi x) sin(pi y) sin(pi z) at the interior points, in float64."""
    s = np.sin(np.pi * np.arange(1, n + 1) / (n + 1))
    return s[:, None, None] * s[None, :, None] * s[None, None, :]


def dt_laplacian(u, out, scale: float) -> None:
    """out = dt (Lx + Ly + Lz) u with u = 0 outside the grid; scale = dt / h^2. Only slicing and
    arithmetic, so NumPy, PyTorch and CuPy arrays all work."""
    out[...] = u
    out *= -6
    for axis in range(3):
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(1, None), slice(None, -1)
        out[tuple(lo)] += u[tuple(hi)]
        out[tuple(hi)] += u[tuple(lo)]
    out *= scale


def run(n=128, steps=20, dt=0.0, precision="double", put=np.asarray, get=np.asarray,
        sync=lambda: None):
    """Advances the sine mode; returns (max error, dt, t_end, per-axis seconds, first-step
    seconds, loop seconds). put/get move NumPy arrays to the array library and back; sync
    waits for its queued work (the GPU's), so that the clock brackets the solves."""
    dtype = np.float32 if precision == "float" else np.float64
    h = 1.0 / (n + 1)
    dt = dt if dt > 0 else h
    mu = dt / (h * h)
    u0 = sine_mode(n)
    u = put(u0.astype(dtype))
    d1, d2 = put(np.zeros((n, n, n), dtype)), put(np.zeros((n, n, n), dtype))
    a, b, c = (put(np.array(v, dtype)) for v in (-mu / 2, 1 + mu, -mu / 2))
    # Plans made once, before the loop, as in the C++ app.
    solve_x = triax.Solver(a, b, c, d1, axis=2, out=d1)
    solve_y = triax.Solver(a, b, c, d1, axis=1, out=d2)
    solve_z = triax.Solver(a, b, c, d2, axis=0, out=u, increment=True)
    seconds, first = [0.0] * 3, [0.0] * 3
    untimed = 1 if steps > 1 else 0
    start = time.perf_counter()
    for step in range(steps):
        dt_laplacian(u, d1, mu)
        sync()
        marks = [time.perf_counter()]
        solve_x(a, b, c, d1, out=d1)
        sync()
        marks.append(time.perf_counter())
        solve_y(a, b, c, d1, out=d2)
        sync()
        marks.append(time.perf_counter())
        solve_z(a, b, c, d2, out=u)
        sync()
        marks.append(time.perf_counter())
        target = first if step < untimed else seconds
        for k in range(3):
            target[k] += marks[k + 1] - marks[k]
    total = time.perf_counter() - start
    t_end = dt * steps
    err = np.abs(get(u).astype(np.float64) - math.exp(-3 * math.pi ** 2 * t_end) * u0)
    max_error = float(err.max()) if np.isfinite(err).all() else math.inf
    return max_error, dt, t_end, seconds, first, total


def report(n, steps, precision, where, result) -> None:
    """The C++ app's report (apps/adi_heat/report.cpp), line for line."""
    max_error, dt, t_end, seconds, first, total = result
    print(f"adi_heat: {n}^3 interior points, {steps} steps of dt = {dt:.4g} to t = {t_end:.4g}, "
          f"{precision}, {where}")
    print("  bytes counted per solve: d read + x written (+ u read in increment mode);\n"
          "  a, b, c are broadcast (one value each) and not counted")
    timed = steps - (1 if steps > 1 else 0)
    cell = n ** 3 * (4 if precision == "float" else 8)
    for k, (name, _, mode) in enumerate(AXES):
        moved = (3 if k == 2 else 2) * cell * timed
        gbps = moved / seconds[k] / 1e9 if seconds[k] > 0 else 0.0
        per_step = 1e3 * seconds[k] / timed if timed else 0.0
        print(f"  axis {name} ({mode:<11s}): {1e3 * seconds[k]:9.3f} ms total, "
              f"{per_step:8.3f} ms/step, {gbps:8.2f} GB/s")
    if timed < steps:
        print(f"  timed: steps 2-{steps}; step 1 took {1e3 * first[0]:.3f} / {1e3 * first[1]:.3f}"
              f" / {1e3 * first[2]:.3f} ms (x / y / z)")
    print(f"  time loop {total:.3f} s (explicit operator included)")
    print(f"  max error against exp(-3 pi^2 t) sin sin sin at t = {t_end:.4g}: {max_error:.3e}")


def check_order(where, **conversions) -> int:
    """N = 15 and 31 to t = 0.05 with dt ~ h: the error must fall by the scheme's second order."""
    errors = []
    for n, steps in ((15, 8), (31, 16)):
        result = run(n, steps, 0.05 / steps, "double", **conversions)
        report(n, steps, "double", where, result)
        errors.append(result[0])
    order = math.log2(errors[0] / errors[1]) if errors[1] > 0 else math.nan
    print(f"adi_heat: error {errors[0]:.3e} (h = 1/16) -> {errors[1]:.3e} (h = 1/32): ratio "
          f"{errors[0] / errors[1]:.2f}, observed order {order:.2f}")
    ok = 1.8 < order < 2.3
    print(f"adi_heat: second order {'confirmed' if ok else 'NOT confirmed'}")
    return 0 if ok else 1


def arguments(description: str, argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--n", type=int, default=128, help="interior points per dimension")
    p.add_argument("--steps", type=int, default=20, help="time steps")
    p.add_argument("--dt", type=float, default=0.0, help="time step (default h = 1/(n+1))")
    p.add_argument("--precision", choices=["float", "double"], default="double")
    p.add_argument("--check-order", action="store_true",
                   help="N = 15 and 31 to t = 0.05: exit 1 unless the error falls as h^2")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv)
    if args.check_order:
        return check_order("cpu (NumPy)")
    result = run(args.n, args.steps, args.dt, args.precision)
    report(args.n, args.steps, args.precision, "cpu (NumPy)", result)
    if not result[0] < 1:  # the mode only decays: an error >= 1 (or NaN) means a wrong run
        print(f"adi_heat: error {result[0]:.3e}: the solution is wrong", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
