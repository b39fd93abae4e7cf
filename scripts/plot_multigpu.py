#!/usr/bin/env python3
"""Table and plots of a multi-GPU run of triax-bench-mpi (a folder of its JSON files, named
<w|s><size>-p<P>[d]-<axis>[-<transport>][-bound].json as scripts/multigpu-run writes them), in
the form of paper 003's figures: the time of each method split into local passes, communication
and the rest, per GPU count, with the whole-solve bound where it was measured; and the scaling
efficiency of the best method against GPU count, beside the issue's bars. The table (issue 29):
per case the best method's time and efficiency, and on the split axis its % of the total bound
(local-pass bound + its messages alone, same run) and the efficiency that bound allows.

  tar -xzf multigpu.tar.gz && scripts/plot_multigpu.py multigpu docs/img/multigpu-h200x4

prints the table and writes it to <prefix>-table.txt, and <prefix>-methods.png and
<prefix>-efficiency.png (matplotlib needed for the plots; the table is written without it).
"""
from __future__ import annotations

import glob
import json
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: E402
except ImportError:  # the table needs no plots
    plt = None


def load(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        name = os.path.basename(path)[:-5]
        parts = name.split("-")
        kind, ptok = parts[0], parts[1]
        j = json.load(open(path))
        local_bound = {b["precision"]: b["bound_ms"] for b in j.get("bounds", [])}
        for r in j["results"]:
            rows.append(dict(kind=kind, P=int(ptok[1:].rstrip("d")), dist1=ptok.endswith("d"),
                             axis=j["axis"], split=j.get("split_along_axis", False),
                             transport=r.get("transport_run", "?"), prec=r["precision"],
                             method=r["method_run"], asked=r["method"], ms=r["median_ms"],
                             local=r["local_passes_ms"], comm=r["communication_ms"],
                             local_bound=local_bound.get(r["precision"]),
                             comm_bound=r.get("comm_bound_ms"),
                             total_bound=r.get("total_bound_ms"), file=name))
    return rows


def single_gpu(rows, kind, axis, prec):
    t = [r["ms"] for r in rows
         if r["P"] == 1 and not r["dist1"] and r["kind"] == kind and r["axis"] == axis
         and r["prec"] == prec]
    return min(t) if t else None


def efficiency(kind, t1, tp, p):
    return t1 / tp if kind.startswith("w") else t1 / (p * tp)


def cases(rows):
    """Rows grouped per case: (kind, axis, P, transport, precision), the P > 1 runs and the
    single-GPU distributed path (P=1d); automatic is left out where it repeats a method that
    ran by its own name."""
    out = {}
    for r in rows:
        if r["P"] == 1 and not r["dist1"]:
            continue
        out.setdefault((r["kind"], r["axis"], r["P"], r["dist1"], r["transport"], r["prec"]),
                       []).append(r)
    for key, group in out.items():
        named = [r for r in group if r["asked"] != "automatic"]
        out[key] = named or group
    return out


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def table(rows):
    """Issue 29's table: per case the best method (least median time), its efficiency against
    the one-GPU triax::Solver, and on the split axis its % of the total bound and the
    efficiency the bound allows; then the bars."""
    sizes = {"w256": 0, "w512": 1, "s512": 2, "s1024": 3}
    lines = ["eff: against the 1-GPU triax::Solver (P=1), weak T1/TP, strong T1/(P TP); "
             "eff@bound: the same with the total bound for TP.",
             "total bound = local-pass bound + the best method's messages alone (same run, same "
             "transport); % bound = 100 x total bound / median.",
             f"{'case':7} {'axis':4} {'P':>3} {'transport':13} {'prec':6} {'best method':15} "
             f"{'median ms':>9} {'eff %':>6} {'local bd':>8} {'comm bd':>8} {'total bd':>8} "
             f"{'% bound':>7} {'eff@bd %':>8}"]
    best_of = {}
    for key in sorted(cases(rows), key=lambda k: (sizes.get(k[0], 9), -k[1], k[2], k[3], k[4],
                                                  k[5])):
        kind, axis, p, dist1, transport, prec = key
        group = cases(rows)[key]
        best = min(group, key=lambda r: r["ms"])
        best_of[key] = best
        t1 = single_gpu(rows, kind, axis, prec)
        eff = 100 * efficiency(kind, t1, best["ms"], p) if t1 else None
        pct = eff_bd = None
        if best["total_bound"]:
            pct = 100 * best["total_bound"] / best["ms"]
            eff_bd = 100 * efficiency(kind, t1, best["total_bound"], p) if t1 else None
        lines.append(f"{kind:7} {'xyz'[axis]:4} {str(p) + ('d' if dist1 else ''):>3} "
                     f"{transport.replace('host_staging', 'staging'):13} {prec:6} "
                     f"{best['method']:15} {best['ms']:9.3f} {fmt(eff):>6} "
                     f"{fmt(best['local_bound'], '.3f'):>8} {fmt(best['comm_bound'], '.3f'):>8} "
                     f"{fmt(best['total_bound'], '.3f'):>8} {fmt(pct):>7} {fmt(eff_bd):>8}")
    lines.append("")
    lines.append("bars at P = 4 (best method): weak >= 95% split / >= 98% unsplit, strong 512^3 "
                 ">= 85%, NCCL >= 1.5x staging on the split axis; the bound rule: >= 90% of the "
                 "total bound")
    for (kind, axis, p, dist1, transport, prec), best in sorted(best_of.items()):
        if p != 4 or dist1:
            continue
        t1 = single_gpu(rows, kind, axis, prec)
        split = axis == 2
        bar = (95 if split else 98) if kind.startswith("w") else (85 if kind == "s512" else None)
        eff = 100 * efficiency(kind, t1, best["ms"], p) if t1 else None
        verdict = "-" if bar is None or eff is None else ("met" if eff >= bar else "not met")
        pct = 100 * best["total_bound"] / best["ms"] if best["total_bound"] else None
        bound = "-" if pct is None else ("met" if pct >= 90 else "not met")
        ratio = ""
        if split and transport == "nccl":
            other = best_of.get((kind, axis, p, dist1, "host_staging", prec))
            if other:
                x = other["ms"] / best["ms"]
                ratio = f", NCCL {x:.2f}x staging ({'met' if x >= 1.5 else 'not met'})"
        lines.append(f"  {kind} {'xyz'[axis]} {transport.replace('host_staging', 'staging')} "
                     f"{prec}: eff {fmt(eff)}% (bar {bar if bar else '-'}: {verdict}), "
                     f"{fmt(pct)}% of the total bound ({bound}){ratio}")
    return "\n".join(lines)


def plot_methods(rows, out):
    titles = [("w256", 2, "weak 256^3 per GPU, split axis z"),
              ("w512", 2, "weak 512^3 per GPU, split axis z"),
              ("s512", 2, "strong 512^3, split axis z"),
              ("s1024", 2, "strong 1024x1024x512, split axis z")]
    titles = [t for t in titles if any(r["kind"] == t[0] and r["split"] for r in rows)]
    fig, axes = plt.subplots(len(titles), 2, figsize=(13, 4 * len(titles)), sharey="row",
                             squeeze=False)
    for i, (kind, axis, title) in enumerate(titles):
        for k, prec in enumerate(("float", "double")):
            ax = axes[i][k]
            sel = [r for r in rows if r["kind"] == kind and r["axis"] == axis and r["prec"] == prec
                   and r["split"] and r["method"] != "automatic"]
            sel.sort(key=lambda r: (r["P"], r["transport"], r["method"]))
            labels, local, comm, rest, bounds = [], [], [], [], []
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
                bounds.append(r["total_bound"])
            x = range(len(labels))
            ax.bar(x, local, label="local passes")
            ax.bar(x, comm, bottom=local, label="communication")
            ax.bar(x, rest, bottom=[a + b for a, b in zip(local, comm)],
                   label="reduced solve, rest")
            marked = [(xi, b) for xi, b in zip(x, bounds) if b]
            if marked:
                ax.plot([m[0] for m in marked], [m[1] for m in marked], "k_", ms=14, mew=2,
                        label="total bound (local passes + messages alone)")
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
    series = [("w256", 2, "weak 256^3, split z"), ("w256", 0, "weak 256^3, unsplit x"),
              ("w512", 2, "weak 512^3, split z"), ("w512", 0, "weak 512^3, unsplit x"),
              ("s512", 2, "strong 512^3, split z"), ("s512", 0, "strong 512^3, unsplit x"),
              ("s1024", 2, "strong 1024^2x512, split z"),
              ("s1024", 0, "strong 1024^2x512, unsplit x")]
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
                    line, = ax.plot(ps, [100 * e for e in es], style,
                                    label=f"{label}, {transport.replace('host_staging', 'staging')}")
                # What the total bound allows (split axis): the best method's bound for TP.
                bps, bes = [], []
                for p in (2, 4):
                    b = [r["total_bound"] for r in rows
                         if r["kind"] == kind and r["axis"] == axis and r["prec"] == prec
                         and r["P"] == p and not r["dist1"] and r["transport"] == transport
                         and r["total_bound"]]
                    if b:
                        bps.append(p)
                        bes.append(100 * efficiency(kind, t1, min(b), p))
                if bps and len(ps) > 1:
                    ax.plot(bps, bes, ":", color=line.get_color(), lw=1)
        for bar, text in ((95, "weak bar, split"), (98, "weak bar, unsplit"), (85, "strong bar")):
            ax.axhline(bar, color="gray", lw=0.8, ls=":")
            ax.text(1.02, bar + 0.5, text, fontsize=6, color="gray")
        ax.set_xticks([1, 2, 4])
        ax.set_xlabel("GPUs")
        ax.set_ylabel("efficiency, % (against one GPU's triax::Solver)")
        ax.set_ylim(0, 110)
        ax.set_title(f"{prec} (dotted: what the total bound allows)")
        ax.legend(fontsize=5)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    folder, prefix = sys.argv[1], sys.argv[2]
    rows = load(folder)
    text = table(rows)
    print(text)
    with open(prefix + "-table.txt", "w") as f:
        f.write(text + "\n")
    if plt is None:
        print("plot_multigpu.py: no matplotlib; the table only", file=sys.stderr)
        return
    plot_methods(rows, prefix + "-methods.png")
    plot_efficiency(rows, prefix + "-efficiency.png")


if __name__ == "__main__":
    main()
