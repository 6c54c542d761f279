#!/usr/bin/env bash
# Benchmarks Kartpack's GeoPackage reader beside its Shapefile reader (issue 39): the same data — a generated
# forest-stand coverage (scripts/bench/make-stands.py) and random points (make-points.py) — converted from the
# Shapefile and from the GeoPackage GDAL writes of it (`ogr2ogr -f GPKG`), interleaved (shp gpkg shp gpkg …) to
# spread machine noise. Prints a markdown table of medians: wall, CPU (user+sys), peak RSS, CPU per million input
# vertices, and the GeoPackage/Shapefile ratios, and says whether the two packages hold the same tiles.
#
#   scripts/benchmark-geopackage.sh [--stands N] [--points N] [--runs R] [--quick] [--kartpack BIN]
#                                   [--workdir DIR] [--out FILE.md] [--report-only]
#
# Defaults: 1,000,000 stands and 1,000,000 points, 3 runs (--quick: 20,000 stands, 100,000 points, 1 run).
# Inputs are cached in --workdir while their size is unchanged. --report-only prints the table of the runs already
# in --workdir (results.tsv) without running anything. Installs nothing: exits 69 naming what is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="$ROOT/scripts/bench"
STANDS=1000000
POINTS=1000000
RUNS=3
KP=""
WORK=""
OUT=""
REPORT_ONLY=0
while (($#)); do
    case "$1" in
        --stands) STANDS="$2"; shift 2 ;;
        --points) POINTS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --quick) STANDS=20000; POINTS=100000; RUNS=1; shift ;;
        --kartpack) KP="$2"; shift 2 ;;
        --workdir) WORK="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --report-only) REPORT_ONLY=1; shift ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "benchmark-geopackage.sh: unknown option $1" >&2; exit 64 ;;
    esac
done

PY="$ROOT/.venv/bin/python"
[ -x "$PY" ] || PY=python3
missing=()
command -v ogr2ogr >/dev/null || missing+=("ogr2ogr (apt-get install gdal-bin)")
[ -x /usr/bin/time ] || missing+=("GNU time at /usr/bin/time (apt-get install time)")
"$PY" -c 'import numpy' 2>/dev/null || missing+=("numpy for $PY (scripts/bootstrap.sh)")
if ((${#missing[@]})); then
    printf 'benchmark-geopackage.sh: missing: %s\n' "${missing[@]}" >&2
    exit 69
fi
if ((REPORT_ONLY)); then
    [ -n "$WORK" ] && [ -s "$WORK/results.tsv" ] || { echo "--report-only needs --workdir with results" >&2; exit 64; }
else
    if [ -z "$KP" ]; then
        (cd "$ROOT" && swift build -c release --product kartpack >&2)
        KP="$ROOT/.build/release/kartpack"
    fi
    if [ -z "$WORK" ]; then
        WORK="$(mktemp -d)"
        trap 'rm -rf "$WORK"' EXIT
    fi
    mkdir -p "$WORK/in" "$WORK/out" "$WORK/log"

    # prepare NAME GENERATOR ARGS…: NAME.shp from the generator and NAME.gpkg (table NAME) from ogr2ogr, cached.
    prepare() {
        local name="$1" gen="$2"
        shift 2
        local stamp="$WORK/in/$name.args"
        if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$gen $*" ] || [ ! -f "$WORK/in/$name.gpkg" ]; then
            rm -f "$WORK/in/$name".*
            "$PY" "$BENCH/$gen" "$@" --out "$WORK/in/$name" >&2
            local t0=$SECONDS
            ogr2ogr -f GPKG "$WORK/in/$name.gpkg" "$WORK/in/$name.shp" -nln "$name" >&2
            echo "$((SECONDS - t0))" >"$WORK/in/$name.ogr2ogr-seconds"
            "$PY" "$BENCH/shpstats.py" "$WORK/in/$name.shp" >"$WORK/in/$name.stats"
            echo "$gen $*" >"$stamp"
        fi
    }

    prepare stands make-stands.py --count "$STANDS"
    prepare points make-points.py --count "$POINTS" --box 19,63.5,20,64.5

    : >"$WORK/results.tsv"
    for run in $(seq 1 "$RUNS"); do
        for name in stands points; do
            for format in shp gpkg; do
                out="$WORK/out/$name-$format.pmtiles"
                tf="$WORK/log/time-$name-$format-$run"
                rm -f "$out"
                /usr/bin/time -o "$tf" -f '%e %M %U %S' "$KP" convert "$WORK/in/$name.$format" -o "$out" \
                    --quiet --force >"$WORK/log/$name-$format-$run.log" 2>&1 ||
                    { echo "kartpack failed on $name.$format (log: $WORK/log/$name-$format-$run.log)" >&2; exit 70; }
                printf '%s\t%s\t%s\t%s\n' "$name" "$format" "$run" "$(tail -1 "$tf")" >>"$WORK/results.tsv"
            done
        done
    done
fi

report() {
    "$PY" - "$WORK" <<'EOF'
import hashlib
import statistics
import sys
from pathlib import Path

work = Path(sys.argv[1])
rows = {}
for line in (work / "results.tsv").read_text().splitlines():
    name, fmt, _, times = line.split("\t")
    wall, rss, user, sys_ = (float(x) for x in times.split())
    rows.setdefault((name, fmt), []).append((wall, user + sys_, rss / 1024))


def tiles(path):
    """One digest of every tile's z/x/y and bytes, read with the independent `pmtiles` package when present (the
    archives' headers differ in the inputs' names), else of the whole file."""
    try:
        from pmtiles.reader import MmapSource, Reader, all_tiles
    except ImportError:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    with open(path, "rb") as f:
        reader = Reader(MmapSource(f))
        return hashlib.sha256(b"".join(b"%d/%d/%d:" % zxy + hashlib.sha256(t).digest()
                                       for zxy, t in sorted(all_tiles(reader.get_bytes)))).hexdigest()


print("| input | features | vertices | format | wall (s) | CPU (s) | peak RSS (MiB) | CPU s per M vertices |"
      " GPKG/SHP CPU | same tiles |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|---|")
for name in ("stands", "points"):
    features, vertices = (int(x) for x in (work / "in" / f"{name}.stats").read_text().split())
    med = {fmt: [statistics.median(col) for col in zip(*rows[(name, fmt)])] for fmt in ("shp", "gpkg")}
    outs = [work / "out" / f"{name}-{fmt}.pmtiles" for fmt in ("shp", "gpkg")]
    same = (tiles(outs[0]) == tiles(outs[1])) if all(o.exists() for o in outs) else None
    for fmt in ("shp", "gpkg"):
        wall, cpu, rss = med[fmt]
        ratio = f"{med['gpkg'][1] / med['shp'][1]:.2f}" if fmt == "gpkg" else ""
        print(f"| {name} | {features:,} | {vertices:,} | {fmt} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | "
              f"{cpu / vertices * 1e6:.2f} | {ratio} | {'—' if same is None else 'yes' if same else 'no'} |")
print()
print(f"Medians of {len(rows[('stands', 'shp')])} run(s) each, interleaved; ogr2ogr -f GPKG took "
      + ", ".join(f"{(work / 'in' / f'{n}.ogr2ogr-seconds').read_text().strip()} s for {n}" for n in ("stands", "points"))
      + " (not counted).")
EOF
}
if [ -n "$OUT" ]; then report | tee "$OUT"; else report; fi
