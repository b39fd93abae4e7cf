#!/usr/bin/env python3
"""The call overhead of triax from Python: a cached-plan solve of one system of 8 rows, timed
with timeit (best of several repeats, per call). On the CPU with NumPy by default; --framework
torch|cupy --device cuda times GPU arrays (each call only queues the solve; the GPU bar counts
the host's time per call, with a synchronisation after each batch of calls)."""
from __future__ import annotations

import argparse
import os
import timeit

import numpy as np

import triax


def arrays(framework, device, n):
    host = [np.full(n, -1.0), np.full(n, 4.0), np.full(n, -1.0), np.ones(n), np.empty(n)]
    if framework == "numpy":
        return host, lambda: None
    if framework == "torch":
        import torch

        sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        return [torch.as_tensor(t, device=device) for t in host], sync
    import cupy

    return [cupy.asarray(t) for t in host], cupy.cuda.runtime.deviceSynchronize


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--framework", choices=["numpy", "torch", "cupy"], default="numpy")
    p.add_argument("--device", default="cpu")
    p.add_argument("--rows", type=int, default=8)
    p.add_argument("--number", type=int, default=20000)
    args = p.parse_args()
    (a, b, c, d, x), sync = arrays(args.framework, args.device, args.rows)
    plan = triax.Solver(a, b, c, d, out=x)
    cases = {
        "triax.solve(a, b, c, d, out=x)   (cached plan)": lambda: triax.solve(a, b, c, d, out=x),
        "triax.solve(a, b, c, d)          (cached plan, new x)": lambda: triax.solve(a, b, c, d),
        "Solver(...)(a, b, c, d, out=x)": lambda: plan(a, b, c, d, out=x),
    }
    print(f"bench_overhead: one system of {args.rows} rows, {args.framework} on {args.device}, "
          f"float64; load average {os.getloadavg()[0]:.1f}")
    for name, f in cases.items():
        def batch():
            for _ in range(args.number):
                f()
            sync()

        batch()
        best = min(timeit.repeat(batch, number=1, repeat=7)) / args.number
        print(f"  {name:55s} {1e6 * best:7.2f} us")


if __name__ == "__main__":
    main()
