#!/usr/bin/env python3
"""Turns scripts/benchmark.sh's results.tsv into the markdown report (stdlib only).

Per dataset: median wall time, min-max, the ratio to kartpack threads=1 (tool median / kartpack t=1 median;
below 1.00x means faster than kartpack on one thread), median CPU time (user + sys), median peak RSS, output
bytes and addressed tiles of the last run. The "tippecanoe + shp→fgb" row adds, run by run, the time of the
Shapefile → FlatGeobuf conversion that tippecanoe needs (peak RSS: the larger of the two processes).
"""
import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

ROWS = [
    ("kp-t1", "kartpack, threads 1"),
    ("kp-t2", "kartpack, threads 2"),
    ("tippecanoe", "tippecanoe (tiling only)"),
    ("tippecanoe+fgb", "tippecanoe + shp→fgb"),
    ("ogr2ogr", "ogr2ogr MBTiles"),
]
DESCRIPTIONS = {
    "forest": "sample forest plan (SampleData/forest), SWEREF 99 TM, Latin-1",
    "nybb": "NYC boroughs (geopandas nybb_16a.zip), NY Long Island ftUS, large multipolygons",
    "naturalearth": "Natural Earth countries + cities (geopandas), WGS84",
    "stands": "synthetic forest stands (scripts/bench/make-stands.py), SWEREF 99 TM",
}


def fnum(x, digits=2):
    return f"{x:.{digits}f}"


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def runs_by_tool(rows, ds):
    """tool -> {run: row} for one dataset, with the derived tippecanoe+fgb tool."""
    by = defaultdict(dict)
    for r in rows:
        if r["dataset"] == ds:
            by[r["tool"]][int(r["run"])] = r
    tip, fgb = by.get("tippecanoe", {}), by.get("fgb", {})
    for run in sorted(set(tip) & set(fgb)):
        a, b = tip[run], fgb[run]
        ok = a["rc"] == "0" and b["rc"] == "0"
        by["tippecanoe+fgb"][run] = {
            "wall": str(float(a["wall"]) + float(b["wall"])),
            "user": str(float(a["user"]) + float(b["user"])),
            "sys": str(float(a["sys"]) + float(b["sys"])),
            "rss_kb": str(max(int(a["rss_kb"]), int(b["rss_kb"]))),
            "bytes": a["bytes"], "tiles": a["tiles"], "rc": "0" if ok else (a["rc"] if a["rc"] != "0" else b["rc"]),
        }
    return by


def stats(runs):
    good = [r for _, r in sorted(runs.items()) if r["rc"] == "0"]
    if not good:
        return None
    walls = [float(r["wall"]) for r in good]
    last = good[-1]
    return {
        "median": statistics.median(walls), "min": min(walls), "max": max(walls),
        "cpu": statistics.median(float(r["user"]) + float(r["sys"]) for r in good),
        "rss": statistics.median(int(r["rss_kb"]) for r in good) / 1024.0,
        "bytes": last["bytes"], "tiles": last["tiles"], "n": len(good), "failed": len(runs) - len(good),
    }


def dataset_line(work, ds):
    parts = [DESCRIPTIONS.get(ds, ds)]
    indir = os.path.join(work, "in", ds)
    try:
        names = sorted(os.listdir(indir))
        layers = [n[:-4] for n in names if n.endswith(".shp")]
        size = sum(os.path.getsize(os.path.join(indir, n)) for n in names)
        parts.append(f"{len(layers)} layer{'s' if len(layers) != 1 else ''} ({', '.join(layers)})")
        parts.append(f"{size / 1e6:.1f} MB of Shapefiles")
    except OSError:
        pass
    try:
        with open(os.path.join(work, "out", ds, "t1", "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
        zooms = [z["zoom"] for z in rep.get("zooms", [])]
        parts.append(f"{rep['featuresRead']:,} features")
        if zooms:
            parts.append(f"zooms {min(zooms)}–{max(zooms)}")
        timings = rep.get("timings")
        if isinstance(timings, dict) and timings:
            parts.append("kartpack threads 1 stages (last run): "
                         + ", ".join(f"{k} {float(v):.2f} s" for k, v in timings.items()))
        dropped = sum(sum(z.get("dropped", {}).values()) for z in rep.get("zooms", []))
        if dropped:
            parts.append(f"kartpack thinned {dropped:,} feature-zooms to fit the tile limits")
    except (OSError, ValueError, KeyError):
        pass
    try:
        with open(os.path.join(work, "out", ds, "kp-identical.txt"), encoding="utf-8") as f:
            same = f.read().strip() == "same"
        parts.append("kartpack threads 1 and 2 outputs byte-identical" if same
                     else "**kartpack threads 1 and 2 outputs differ**")
    except OSError:
        pass
    return "; ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--env")
    ap.add_argument("--extra")
    ap.add_argument("--datasets", required=True)
    a = ap.parse_args()
    rows = load(a.results)
    datasets = [d for d in a.datasets.split(",") if d]
    out = []
    out.append("## Kartpack benchmark")
    out.append("")
    if a.env and os.path.exists(a.env):
        with open(a.env, encoding="utf-8") as f:
            out.extend(f"- {line.rstrip()}" for line in f if line.strip())
        out.append("")

    # Overview: median wall per dataset and tool, with the ratio to kartpack threads 1.
    allstats = {ds: {tool: stats(runs) for tool, runs in runs_by_tool(rows, ds).items()} for ds in datasets}
    out.append("Median wall time in seconds (ratio to kartpack threads 1; below 1.00x = faster than it):")
    out.append("")
    out.append("| Dataset | " + " | ".join(label for _, label in ROWS) + " |")
    out.append("|---|" + "---:|" * len(ROWS))
    for ds in datasets:
        base = allstats[ds].get("kp-t1")
        cells = []
        for tool, _ in ROWS:
            s = allstats[ds].get(tool)
            if s is None:
                cells.append("failed" if tool in allstats[ds] else "–")
            elif base:
                cells.append(f"{fnum(s['median'])} ({s['median'] / base['median']:.2f}x)")
            else:
                cells.append(fnum(s["median"]))
        out.append(f"| {ds} | " + " | ".join(cells) + " |")
    out.append("")

    for ds in datasets:
        out.append(f"### {ds}")
        out.append("")
        out.append(dataset_line(a.work, ds))
        out.append("")
        out.append("| Tool | Median wall s | Min–max s | vs kartpack t1 | Median CPU s | Median peak RSS MiB "
                   "| Output bytes | Tiles |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        base = allstats[ds].get("kp-t1")
        for tool, label in ROWS:
            s = allstats[ds].get(tool)
            if s is None:
                if tool in allstats[ds]:
                    out.append(f"| {label} | failed | | | | | | |")
                continue
            ratio = f"{s['median'] / base['median']:.2f}x" if base else "–"
            note = f" ({s['failed']} failed)" if s["failed"] else ""
            bytes_ = f"{int(s['bytes']):,}" if s["bytes"].isdigit() else s["bytes"]
            out.append(f"| {label}{note} | {fnum(s['median'])} | {fnum(s['min'])}–{fnum(s['max'])} | {ratio} | "
                       f"{fnum(s['cpu'])} | {s['rss']:.0f} | {bytes_} | {s['tiles']} |")
        fgb = stats(runs_by_tool(rows, ds).get("fgb", {}))
        if fgb:
            out.append("")
            out.append(f"The Shapefile → FlatGeobuf conversion alone: median {fnum(fgb['median'])} s, "
                       f"{fgb['rss']:.0f} MiB.")
        out.append("")
    if a.extra and os.path.exists(a.extra):
        with open(a.extra, encoding="utf-8") as f:
            extra = f.read().strip()
        if extra:
            out.append(extra)
            out.append("")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
