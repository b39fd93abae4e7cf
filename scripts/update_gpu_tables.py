#!/usr/bin/env python3
"""Refreshes the per-axis tables of docs/performance.md, "GPU on the H100", from the recorded suite.

Each table row names an array and axis; this rewrites its numbers (the automatic pick's % of the
copy and GB/s, cuSPARSE's % of the copy and its time over the pick's, the best one-thread-per-
system kernel) from bench/results/gpu-h100.json and keeps the configuration column as written.
Run it after copying a new suite run there (scripts/plot_bench.py refreshes the generated rows of
docs/performance-results.md and the plots); the prose around the tables is edited by hand.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results", "gpu-h100.json")
DOC = os.path.join(ROOT, "docs", "performance.md")

ROW = re.compile(r"^\| (\d) \| (\d+) \| (\d+x\d+x\d+) \| (\d+) \| ([^|]+) \| [\d.]+ \| \d+ \| "
                 r"[^|]+ \| [^|]+ \| [\d.]+ \(`\w+`\) \|$")


def extents(row):
    return "x".join(str(e) for e in row["extents"])


def main():
    with open(RESULTS) as f:
        rows = json.load(f)["rows"]
    with open(DOC) as f:
        lines = f.read().split("\n")
    start = lines.index("## GPU on the H100")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("**Reading the tables.**"))
    precision = None
    changed = 0
    for i in range(start, end):
        line = lines[i]
        if line.strip() in ("**float**", "**double**"):
            precision = line.strip("* ")
        m = ROW.match(line)
        if not m or precision is None:
            continue
        axis, ext = int(m.group(1)), m.group(3)
        case = [r for r in rows if r["precision"] == precision and extents(r) == ext and
                r["axis"] == axis]
        pick = [r for r in case if r["automatic"]]
        if len(pick) != 1:
            sys.exit(f"update_gpu_tables.py: {precision} {ext} axis {axis}: "
                     f"{len(pick)} automatic rows in {RESULTS}")
        pick = pick[0]
        cusparse = [r for r in case if r["backend"] == "cusparse"]
        cus_pct, speedup = "-", "-"
        if cusparse:
            cus_pct = f"{cusparse[0]['pct_copy']:.1f}"
            speedup = f"{cusparse[0]['median_ms'] / pick['median_ms']:.2f}x"
        # On axis 0 the two transposes are one thread per system too.
        names = {"cuda_thread_thomas"}
        if axis == 0:
            names |= {"cuda_thread_thomas_shared_transpose", "cuda_thread_thomas_shuffle_transpose"}
        best = max((r for r in case if r["algorithm"] in names), key=lambda r: r["pct_copy"])
        short = best["algorithm"].replace("cuda_thread_thomas_", "").replace("cuda_", "")
        new = (f"| {axis} | {m.group(2)} | {ext} | {m.group(4)} | {m.group(5).strip()} | "
               f"{pick['pct_copy']:.1f} | {pick['gbps']:.0f} | {cus_pct} | {speedup} | "
               f"{best['pct_copy']:.1f} (`{short}`) |")
        changed += new != line
        lines[i] = new
    with open(DOC, "w") as f:
        f.write("\n".join(lines))
    print(f"update_gpu_tables.py: {changed} rows changed")


if __name__ == "__main__":
    main()
