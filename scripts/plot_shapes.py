#!/usr/bin/env python3
"""Plots of `triax-bench --suite shapes` JSON files: one dot per row that counts towards the bars,
per class and precision, the class's median as a bar, the bars of issue 26 as lines.

    scripts/plot_shapes.py bench/results/shapes/gpu-h100.json docs/img/shapes-gpu-h100.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    data = json.load(open(src))
    rows = [r for r in data["rows"] if r["counts"]]
    gpu = any(r["backend"] == "cuda" for r in rows)
    classes = []
    for r in rows:
        if r["shape_class"] not in classes:
            classes.append(r["shape_class"])
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for p, (precision, colour) in enumerate([("float", "tab:blue"), ("double", "tab:orange")]):
        for i, k in enumerate(classes):
            if gpu:
                # few long systems against the two-pass bound (5/9 of the copy)
                scale = 9 / 5 if k == "few_long" else 1
                vals = [r["pct_copy"] * scale for r in rows if r["shape_class"] == k and r["precision"] == precision]
            else:
                vals = [r["pct_stream"] for r in rows if r["shape_class"] == k and r["precision"] == precision]
            if not vals:
                continue
            x = i + (p - 0.5) * 0.35
            ax.scatter([x] * len(vals), vals, s=10, color=colour, alpha=0.6,
                       label=precision if i == 0 else None)
            vals.sort()
            m = vals[len(vals) // 2] if len(vals) % 2 else 0.5 * (vals[len(vals) // 2 - 1] + vals[len(vals) // 2])
            ax.hlines(m, x - 0.15, x + 0.15, color=colour, linewidth=2.5)
    ax.set_xticks(range(len(classes)))
    ax.set_xticklabels([k + ("\n(% of two-pass bound)" if gpu and k == "few_long" else "") for k in classes])
    if gpu:
        ax.axhline(90, color="green", linestyle="--", linewidth=0.8)
        ax.axhline(70, color="red", linestyle=":", linewidth=0.8)
        ax.set_ylabel("% of the in-run device copy")
    else:
        ax.axhline(80, color="green", linestyle="--", linewidth=0.8)
        ax.set_ylabel("% of the in-run stream reference")
    where = data.get("device") or data.get("host")
    ax.set_title(f"--suite shapes, {where}: rows of 64 MiB or more" if gpu else f"--suite shapes, {where}")
    ax.legend(loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
