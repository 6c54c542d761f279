#!/usr/bin/env python3
"""Plots median wall time and median peak RSS against input vertices for kartpack and its peers (matplotlib).

Reads scripts/benchmark.sh's results.tsv and datasets.tsv and writes one SVG (or PNG, by the file name) with
two log-log panels. Each tool has one colour; the synthetic stands sizes are joined by solid lines, the road
networks by dashed lines, the real data sets are single points. The 512 MiB line is the issue-10 memory target.
The SVG carries no date and fixed ids, so the same numbers give the same file.

    plot.py --results WORK/results.tsv --datasets-tsv WORK/datasets.tsv --out docs/benchmarks-baseline.svg
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import all_stats, family, load, read_datasets  # noqa: E402

TOOLS = [("kp-t1", "kartpack, 1 thread", "#1f6f3f", "o"), ("kp-t2", "kartpack, 2 threads", "#49b36b", "s"),
         ("tippecanoe+fgb", "tippecanoe + shp→fgb", "#c0392b", "^"), ("ogr2ogr", "ogr2ogr MBTiles", "#2c5d9e", "D")]
STYLE = {"stands": "-", "roads": "--"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--datasets-tsv", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="Kartpack and peers: time and memory against input size")
    a = ap.parse_args()
    info = read_datasets(a.datasets_tsv)
    rows = load(a.results)
    datasets = [ds for ds in info if any(r["dataset"] == ds for r in rows)]
    st = all_stats(rows, datasets)

    plt.rcParams["svg.hashsalt"] = "kartpack-bench"
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(12, 5))
    for tool, label, color, marker in TOOLS:
        labelled = False
        groups = {}
        for ds in datasets:
            s = st[ds].get(tool)
            if s and info[ds]["vertices"] > 0:
                groups.setdefault(family(ds), []).append((info[ds]["vertices"], s["median"], s["rss"], ds))
        for fam, pts in sorted(groups.items()):
            pts.sort()
            xs = [p[0] for p in pts]
            ls = STYLE.get(fam, "none")
            for ax, k in ((ax_t, 1), (ax_m, 2)):
                ax.plot(xs, [p[k] for p in pts], linestyle=ls, marker=marker, color=color,
                        label=None if labelled or ax is ax_m else label, markersize=6, linewidth=1.5)
            labelled = True
    # Name each data set once, at kartpack's threads-1 point on the time panel.
    for ds in datasets:
        s = st[ds].get("kp-t1")
        if s and info[ds]["vertices"] > 0:
            ax_t.annotate(ds, (info[ds]["vertices"], s["median"]), textcoords="offset points", xytext=(4, -12),
                          fontsize=7, color="#444444")
    ax_m.axhline(512, color="#888888", linestyle=":", linewidth=1)
    ax_m.text(0.01, 512 * 1.03, "512 MiB target", fontsize=7, color="#666666",
              transform=blended_transform_factory(ax_m.transAxes, ax_m.transData))
    for ax, ylabel in ((ax_t, "median wall time, s"), (ax_m, "median peak RSS, MiB")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("input vertices")
        ax.set_ylabel(ylabel)
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))
        ax.grid(True, which="major", linewidth=0.4, color="#dddddd")
    ax_t.legend(fontsize=8, loc="upper left")
    ax_m.text(0.02, 0.02, "solid: synthetic stands; dashed: road network; points: real data",
              transform=ax_m.transAxes, fontsize=7, color="#666666")
    fig.suptitle(a.title, fontsize=11)
    fig.tight_layout()
    fig.savefig(a.out, metadata={"Date": None} if a.out.endswith(".svg") else None)
    print(f"plot: wrote {a.out}")


if __name__ == "__main__":
    main()
