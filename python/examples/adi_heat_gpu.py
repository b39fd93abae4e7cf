#!/usr/bin/env python3
"""The 3-D ADI heat equation of adi_heat_numpy.py on the GPU, with PyTorch or CuPy arrays:
the same steps and report, every array on the device, every triax solve on the library's
current stream. ``--framework torch --device cpu`` runs it on PyTorch CPU tensors."""
from __future__ import annotations

import sys

import numpy as np

from adi_heat_numpy import arguments, check_order, report, run


def conversions(framework: str, device: str):
    """put, get and sync for the array library."""
    if framework == "torch":
        import torch

        sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
        return dict(put=lambda x: torch.as_tensor(np.ascontiguousarray(x), device=device),
                    get=lambda x: x.cpu().numpy(), sync=sync)
    import cupy

    return dict(put=cupy.asarray, get=cupy.asnumpy,
                sync=cupy.cuda.get_current_stream().synchronize)


def main(argv=None) -> int:
    import argparse

    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--framework", choices=["torch", "cupy"], default="torch")
    pre.add_argument("--device", default="cuda", help="PyTorch device (cuda, cuda:1, cpu)")
    known, rest = pre.parse_known_args(argv)
    args = arguments(__doc__.splitlines()[0], rest)
    where = f"{known.framework} on {known.device if known.framework == 'torch' else 'cuda'}"
    conv = conversions(known.framework, known.device)
    if args.check_order:
        return check_order(where, **conv)
    result = run(args.n, args.steps, args.dt, args.precision, **conv)
    report(args.n, args.steps, args.precision, where, result)
    if not result[0] < 1:
        print(f"adi_heat: error {result[0]:.3e}: the solution is wrong", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
