#!/usr/bin/env python3
"""The issue-34 table from a `scripts/benchmark.sh --variants --workdir DIR` run (stdlib).

Per dataset and tool: median wall, CPU (user + sys), sys/user, CPU/wall, peak RSS, output bytes and tiles of
the last good run; then the issue-34 targets, each judged on the median of the per-run ratios (runs are
interleaved, so run i of every tool saw about the same load):
  kartpack wall ≤ 0.35 × tippecanoe + shp→fgb, ≤ 0.5 × tippecanoe --detect-shared-borders + shp→fgb,
  kartpack default CPU ≤ 1.3 × kartpack --no-shared-borders --no-small-features, sys ≤ 5 % of user,
  CPU/wall ≥ 1.8 with --threads 2.

    quality-table.py --work DIR [--datasets a,b]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402

TOOLS = [
    ("kp-t2", "kartpack default, threads 2"),
    ("kp-fast", "kartpack --no-shared-borders --no-small-features, threads 2"),
    ("kp-t1", "kartpack default, threads 1"),
    ("tippecanoe+fgb", "tippecanoe + shp→fgb"),
    ("tippecanoe-dsb+fgb", "tippecanoe --detect-shared-borders + shp→fgb"),
]


def good_runs(by, tool):
    return {run: r for run, r in by.get(tool, {}).items() if r["rc"] == "0"}


def with_fgb(by, tool, name):
    """Adds NAME = TOOL + fgb run by run (like summarize's tippecanoe+fgb)."""
    a_runs, b_runs = good_runs(by, tool), good_runs(by, "fgb")
    for run in sorted(set(a_runs) & set(b_runs)):
        a, b = a_runs[run], b_runs[run]
        by[name][run] = dict(a, wall=str(float(a["wall"]) + float(b["wall"])),
                             user=str(float(a["user"]) + float(b["user"])),
                             sys=str(float(a["sys"]) + float(b["sys"])),
                             rss_kb=str(max(int(a["rss_kb"]), int(b["rss_kb"]))))


def row_stats(runs):
    if not runs:
        return None
    rs = [runs[k] for k in sorted(runs)]
    wall = statistics.median(float(r["wall"]) for r in rs)
    user = statistics.median(float(r["user"]) for r in rs)
    sys_ = statistics.median(float(r["sys"]) for r in rs)
    cpu = statistics.median(float(r["user"]) + float(r["sys"]) for r in rs)
    return {"wall": wall, "cpu": cpu, "sys_user": sys_ / user if user else 0.0,
            "cpu_wall": statistics.median((float(r["user"]) + float(r["sys"])) / max(float(r["wall"]), 1e-9)
                                          for r in rs),
            "rss": statistics.median(int(r["rss_kb"]) for r in rs) / 1024, "bytes": rs[-1]["bytes"],
            "tiles": rs[-1]["tiles"], "n": len(rs)}


def ratio(by, a, b, key):
    """Median over runs that both tools finished of a[key] / b[key] (key: wall or cpu)."""
    ra, rb = good_runs(by, a), good_runs(by, b)

    def val(r):
        return float(r["wall"]) if key == "wall" else float(r["user"]) + float(r["sys"])
    xs = [val(ra[k]) / val(rb[k]) for k in sorted(set(ra) & set(rb)) if val(rb[k]) > 0]
    return statistics.median(xs) if xs else None


def verdict(value, limit, below=True):
    if value is None:
        return "not measured"
    ok = value <= limit if below else value >= limit
    how = f"{value / limit:.2f}× the limit" if below else f"{value / limit:.2f}× the floor"
    return ("met" if ok else "**not met**") + f" ({how})"


def table(work, datasets):
    rows = summarize.load(os.path.join(work, "results.tsv"))
    info = summarize.read_datasets(os.path.join(work, "datasets.tsv"))
    out = []
    for ds in datasets:
        by = summarize.runs_by_tool(rows, ds)
        by["tippecanoe+fgb"] = {}
        with_fgb(by, "tippecanoe", "tippecanoe+fgb")
        with_fgb(by, "tippecanoe-dsb", "tippecanoe-dsb+fgb")
        i = info.get(ds, {})
        out += [f"### {ds}: {i.get('features', 0):,} features, {i.get('vertices', 0):,} vertices, zooms "
                f"{i.get('minzoom', '?')}–{i.get('maxzoom', '?')}", "",
                "| tool | runs | wall s | CPU s | sys/user | CPU/wall | peak RSS MiB | bytes | tiles |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for tool, label in TOOLS:
            s = row_stats(good_runs(by, tool))
            if s:
                out.append(f"| {label} | {s['n']} | {s['wall']:.2f} | {s['cpu']:.2f} | {s['sys_user'] * 100:.1f} % "
                           f"| {s['cpu_wall']:.2f} | {s['rss']:.0f} | {s['bytes']} | {s['tiles']} |")
        kp = row_stats(good_runs(by, "kp-t2"))
        out += ["", "| issue-34 target | value (median of per-run ratios) | verdict |", "|---|---:|---|"]
        for label, value, limit, below in [
                ("wall ≤ 0.35 × tippecanoe + shp→fgb", ratio(by, "kp-t2", "tippecanoe+fgb", "wall"), 0.35, True),
                ("wall ≤ 0.5 × tippecanoe --detect-shared-borders + shp→fgb",
                 ratio(by, "kp-t2", "tippecanoe-dsb+fgb", "wall"), 0.5, True),
                ("CPU ≤ 1.3 × --no-shared-borders --no-small-features", ratio(by, "kp-t2", "kp-fast", "cpu"), 1.3,
                 True),
                ("sys ≤ 5 % of user", kp["sys_user"] if kp else None, 0.05, True),
                ("CPU/wall ≥ 1.8 (threads 2)", kp["cpu_wall"] if kp else None, 1.8, False)]:
            shown = "–" if value is None else f"{value:.3f}"
            out.append(f"| {label} | {shown} | {verdict(value, limit, below)} |")
        # Not targets, but what survives the load: CPU seconds, and the bytes target's first half.
        cpu_tip = ratio(by, "kp-t2", "tippecanoe+fgb", "cpu")
        tip = row_stats(good_runs(by, "tippecanoe"))
        size = int(kp["bytes"]) / int(tip["bytes"]) if kp and tip and kp["bytes"].isdigit() else None
        for label, value in (("(info) CPU ÷ tippecanoe + shp→fgb CPU", cpu_tip),
                             ("(info) output bytes ÷ tippecanoe's", size)):
            out.append(f"| {label} | {'–' if value is None else f'{value:.3f}'} | – |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--datasets", help="comma-separated (default: every dataset in datasets.tsv)")
    a = ap.parse_args()
    datasets = a.datasets.split(",") if a.datasets else list(
        summarize.read_datasets(os.path.join(a.work, "datasets.tsv")))
    print(table(a.work, datasets))


if __name__ == "__main__":
    main()
