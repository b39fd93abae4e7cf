#!/usr/bin/env python3
"""Block tridiagonal results in the form of paper 000's Figures 18-21: effective bandwidth,
effective GFLOP/s, time per block row and speed-up over the banded LAPACK solver, against the
block size M, single and double precision side by side. Reads triax-bench JSON files (the
--block-m runs; rows of the paper's sizes along axis 0 only, the 64^3 grid rows are left out).

  scripts/plot_block.py docs/img/block \\
      gpu=bench/results/block-gpu-h100.json \\
      cpu=bench/results/block/cpu-xeon-16c-regs.json \\
      gbsv=bench/results/block/cpu-xeon-16c.json

writes <prefix>-bandwidth.png, -gflops.png, -time-per-row.png and -speedup.png (matplotlib).
`gbsv=` names a file whose LAPACK rows give the baseline when the cpu file has none (a run with
--no-baseline); the speed-up plot then says so in its title.
"""
from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def paper_rows(path):
    """The rows of the paper's sizes (2-D extents, axis 0), by (algorithm, precision, M)."""
    rows = {}
    for r in json.load(open(path))["rows"]:
        if len(r["extents"]) != 2 or r["axis"] != 0 or r["algorithm"].startswith("convert"):
            continue
        rows[(r["algorithm"], r["precision"], r["block_m"])] = r
    return rows


def series(rows, value):
    """{algorithm: {precision: ([M], [value])}}."""
    out = {}
    for (alg, prec, m), r in sorted(rows.items(), key=lambda kv: kv[0][2]):
        ms, vs = out.setdefault(alg, {}).setdefault(prec, ([], []))
        ms.append(m)
        vs.append(value(r))
    return out


def figure(prefix, name, ylabel, curves, title, log=False):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=False)
    for ax, prec in zip(axes, ("float", "double")):
        for label, by_prec in curves.items():
            if prec in by_prec:
                ms, vs = by_prec[prec]
                ax.plot(ms, vs, marker="o", label=label)
        ax.set_title(f"{title} ({prec})")
        ax.set_xlabel("block size M")
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{prefix}-{name}.png", dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    prefix = argv[1]
    files = dict(a.split("=", 1) for a in argv[2:])
    tagged = {}
    for tag in ("gpu", "cpu"):
        if tag in files:
            for (alg, prec, m), r in paper_rows(files[tag]).items():
                tagged[(f"{tag}: {alg}", prec, m)] = r
    lapack = {k: r for k, r in tagged.items() if "lapacke" in k[0]}
    borrowed = False
    if not lapack and "gbsv" in files:
        lapack = {(f"cpu: {k[0]}", k[1], k[2]): r for k, r in paper_rows(files["gbsv"]).items()
                  if "lapacke" in k[0]}
        borrowed = True
    figure(prefix, "bandwidth", "effective GB/s", series(tagged, lambda r: r["gbps"]),
           "effective bandwidth")
    figure(prefix, "gflops", "effective GFLOP/s", series(tagged, lambda r: r["gflops"]),
           "effective compute")
    figure(prefix, "time-per-row", "ns per block row",
           series(tagged, lambda r: 1e6 * r["median_ms"] / (r["n"] * r["systems"])),
           "time per block row", log=True)
    # Per block row: the GPU runs the paper's sizes, the CPU rows half the systems.
    per_row = lambda r: r["median_ms"] / (r["n"] * r["systems"])  # noqa: E731
    base = {(k[1], k[2]): per_row(r) for k, r in lapack.items()}
    speed = {k: r for k, r in tagged.items() if "lapacke" not in k[0] and (k[1], k[2]) in base}
    figure(prefix, "speedup", "speed-up over ?gbsv (time per block row)",
           series(speed, lambda r: base[(r["precision"], r["block_m"])] / per_row(r)),
           "over ?gbsv" + (" (gbsv from another run)" if borrowed else ""), log=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
