#!/usr/bin/env python3
"""Benchmark of the incremental `kartpack run` (issue 37): wall time of a night with 1, 100 and 10,000 edited
stands, incremental and with --full, on a generated stand set (make-stands.py), byte-identity checked.

The first night is a full build (it writes the tile index). Each case then edits E stands spread evenly over the
set (their ALDER, kept in the tiles, set to another value than the night before), runs `kartpack run`
(incremental, against the night before) and `kartpack run --full` on the same inputs, and compares the packages'
SHA-256; the full build's index and piece store are the next case's night before. Prints one Markdown row per
case, with wall and CPU seconds (user + system of the child) and the features read back from the piece store.
`--edit geometry` moves each edited stand by 3 m instead (its pieces must be tiled again).

    scripts/bench/incremental-run.py --count 1000000 --edits 1,100,10000 --work /tmp/incr [--threads 2]
"""
import argparse
import hashlib
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interop"))
from shapefile_edit import ShapefileSet  # noqa: E402


def sha(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--edits", default="1,100,10000")
    ap.add_argument("--work", type=pathlib.Path, required=True)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--edit", choices=["attribute", "geometry"], default="attribute")
    ap.add_argument("--kartpack", default=os.environ.get("KARTPACK_BIN", "kartpack"))
    args = ap.parse_args()

    work = args.work
    source = work / f"stands-{args.count}"
    if not (source / "stands.shp").exists():
        source.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "make-stands.py"), "--count", str(args.count), "--out",
                        str(source / "stands")], check=True)
    night = work / "night"
    if night.exists():
        shutil.rmtree(night)
    shutil.copytree(source, night)
    (night / "out").mkdir()
    plan = night / "plan.json"
    plan.write_text(json.dumps({
        "version": 1,
        "sources": [{"path": "stands.shp", "layer": "stands", "idField": "AVDNR"}],
        "tiles": {"minZoom": 6, "maxZoom": 14},
        "output": {"format": "pmtiles", "path": "out/stands.pmtiles"},
    }))
    package = night / "out" / "stands.pmtiles"

    def run(*extra: str) -> tuple:
        report = night / "report.json"
        start = time.monotonic()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([args.kartpack, "run", str(plan), "--quiet", "--threads", args.threads, "--report",
                        str(report), *extra], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return time.monotonic() - start, json.loads(report.read_text()), cpu

    print(f"stands: {args.count} cells; threads {args.threads}", flush=True)
    print(f"edits: {args.edit}", flush=True)
    print("| edits | incremental s | full s | incremental / full | incremental CPU s | full CPU s | CPU ratio | "
          "features reused | tiled | tiles re-encoded | copied | removed | first rounds replayed | "
          "index bytes/feature | piece store bytes/feature | identical |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|", flush=True)
    seconds, first, _ = run()
    print(f"<!-- first night (full): {seconds:.1f} s, timings {first['conversion']['timings']} -->", flush=True)
    for edits in [int(e) for e in args.edits.split(",")]:
        stands = ShapefileSet.load(night / "stands.shp")
        step = max(1, len(stands.records) // edits)
        for i in range(0, step * edits, step):
            if args.edit == "geometry":
                stands.move(i, 3.0, 0.0)
            else:
                stands.set_field(i, "ALDER", "1" if stands.field(i, "ALDER") != "1" else "2")
        stands.save(night / "stands.shp")
        inc_s, inc, inc_cpu = run()
        inc_sha = sha(package)
        full_s, full, full_cpu = run("--full")
        same = sha(package) == inc_sha
        i = inc["incremental"]
        print(f"| {edits:,} | {inc_s:.1f} | {full_s:.1f} | {inc_s / full_s:.2f} | {inc_cpu:.1f} | {full_cpu:.1f} | "
              f"{inc_cpu / full_cpu:.2f} | {i.get('featuresReused', 0):,} | {i.get('featuresTiled', 0):,} | "
              f"{i['tilesReencoded']:,} | {i['tilesCopied']:,} | {i['tilesRemoved']:,} | "
              f"{i['firstRoundTilesReplayed']:,} | {full['incremental']['indexBytesPerFeature']} | "
              f"{full['incremental'].get('pieceStoreBytesPerFeature', 0)} | "
              f"{'yes' if same else 'NO'} |", flush=True)
        print(f"<!-- incremental timings {inc['conversion']['timings']}; full {full['conversion']['timings']}; "
              f"zooms encoded whole {i.get('zoomsEncodedWhole')} -->", flush=True)
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
