#!/usr/bin/env python3
"""Plots of a multi-GPU run of triax-bench-mpi (a folder of its JSON files, named
<w|s><size>-p<P>[d]-<axis>[-<transport>].json as .deps/call_multigpu.sh writes them), in the form
of paper 003's figures: the time of each method split into local passes, communication and the
rest, per GPU count; and the scaling efficiency of the best method against GPU count, beside the
issue's bars.

  scripts/plot_multigpu.py bench/results/multigpu/h200x4 docs/img/multigpu-h200x4

writes <prefix>-methods.png and <prefix>-efficiency.png (matplotlib needed).
"""
from __future__ import annotations

import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        name = os.path.basename(path)[:-5]
        parts = name.split("-")
        kind, ptok = parts[0], parts[1]
        j = json.load(open(path))
        for r in j["results"]:
            rows.append(dict(kind=kind, P=int(ptok[1:].rstrip("d")), dist1=ptok.endswith("d"),
                             axis=j["axis"], split=j.get("split_along_axis", False),
                             transport=r.get("transport_run", "?"), prec=r["precision"],
                             method=r["method_run"], ms=r["median_ms"],
                             local=r["local_passes_ms"], comm=r["communication_ms"]))
    return rows


def single_gpu(rows, kind, axis, prec):
    t = [r["ms"] for r in rows
         if r["P"] == 1 and not r["dist1"] and r["kind"] == kind and r["axis"] == axis
         and r["prec"] == prec]
    return min(t) if t else None


def efficiency(kind, t1, tp, p):
    return t1 / tp if kind.startswith("w") else t1 / (p * tp)


def plot_methods(rows, out):
    cases = [("w256", 2, "weak 256^3 per GPU, split axis z"),
             ("s512", 2, "strong 512^3, split axis z")]
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), sharey="row")
    for i, (kind, axis, title) in enumerate(cases):
        for k, prec in enumerate(("float", "double")):
            ax = axes[i][k]
            sel = [r for r in rows if r["kind"] == kind and r["axis"] == axis and r["prec"] == prec
                   and r["split"] and r["method"] != "automatic"]
            sel.sort(key=lambda r: (r["P"], r["transport"], r["method"]))
            labels, local, comm, rest = [], [], [], []
            seen = set()
            for r in sel:
                key = (r["P"], r["transport"], r["method"])
                if key in seen:
                    continue
                seen.add(key)
                labels.append(f"P={r['P']}\n{r['transport'].replace('host_staging', 'staging')}"
                              f"\n{r['method'].replace('gather_scatter', 'g-s')}")
                local.append(r["local"])
                comm.append(r["comm"])
                rest.append(max(r["ms"] - r["local"] - r["comm"], 0))
            x = range(len(labels))
            ax.bar(x, local, label="local passes")
            ax.bar(x, comm, bottom=local, label="communication")
            ax.bar(x, rest, bottom=[a + b for a, b in zip(local, comm)],
                   label="reduced solve, rest")
            t1 = single_gpu(rows, kind, axis, prec)
            if t1:
                ax.axhline(t1, color="k", ls="--", lw=1, label="1 GPU, triax::Solver")
            ax.set_xticks(list(x))
            ax.set_xticklabels(labels, fontsize=6)
            ax.set_yscale("log")
            ax.set_title(f"{title}, {prec}", fontsize=9)
            ax.set_ylabel("ms per solve")
            if i == 0 and k == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_efficiency(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    series = [("w256", 2, "weak, split z"), ("w256", 0, "weak, unsplit x"),
              ("s512", 2, "strong 512^3, split z"), ("s512", 0, "strong 512^3, unsplit x")]
    for k, prec in enumerate(("float", "double")):
        ax = axes[k]
        for kind, axis, label in series:
            for transport, style in (("nccl", "-o"), ("host_staging", "--s")):
                t1 = single_gpu(rows, kind, axis, prec)
                if not t1:
                    continue
                ps, es = [1], [1.0]
                for p in (2, 4):
                    t = [r["ms"] for r in rows
                         if r["kind"] == kind and r["axis"] == axis and r["prec"] == prec
                         and r["P"] == p and not r["dist1"] and r["transport"] == transport]
                    if t:
                        ps.append(p)
                        es.append(efficiency(kind, t1, min(t), p))
                if len(ps) > 1:
                    ax.plot(ps, [100 * e for e in es], style,
                            label=f"{label}, {transport.replace('host_staging', 'staging')}")
        for bar, text in ((95, "weak bar, split"), (98, "weak bar, unsplit"), (85, "strong bar")):
            ax.axhline(bar, color="gray", lw=0.8, ls=":")
            ax.text(1.02, bar + 0.5, text, fontsize=6, color="gray")
        ax.set_xticks([1, 2, 4])
        ax.set_xlabel("GPUs")
        ax.set_ylabel("efficiency, % (against one GPU's triax::Solver)")
        ax.set_ylim(0, 110)
        ax.set_title(prec)
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    folder, prefix = sys.argv[1], sys.argv[2]
    rows = load(folder)
    plot_methods(rows, prefix + "-methods.png")
    plot_efficiency(rows, prefix + "-efficiency.png")


if __name__ == "__main__":
    main()
