#!/usr/bin/env bash
# KartpackKit benchmark (docs/benchmarks.md, "KartpackKit query"): open + query at most 1,000 of 1M points in a
# view, through `kartpack query` (release build, `nice`): wall time and peak RSS of three runs per view.
#   scripts/bench/kit-query.sh [WORKDIR]     (default /tmp/kartpack-kit-bench; ~1.5 min to convert once)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-/tmp/kartpack-kit-bench}"
mkdir -p "$work"
swift build -c release --product kartpack >/dev/null
bin="$(swift build -c release --show-bin-path)/kartpack"
py="${PYTHON:-.venv/bin/python}"
if [ ! -f "$work/points.pmtiles" ]; then
    nice "$py" scripts/bench/make-points.py --count 1000000 --out "$work/points" --box 19,63.5,20,64.5
    nice "$bin" convert "$work/points.shp" -o "$work/points.pmtiles" --min-zoom 10 --max-zoom 12 --force --quiet
fi
echo "points at zoom 12: $("$bin" query "$work/points.pmtiles" --bbox 19,63.5,20,64.5 --zoom 12 --format text | wc -l)"
for view in 19,63.5,20,64.5 19.4,63.9,19.65,64.0; do
    for run in 1 2 3; do
        /usr/bin/time -f "view $view run $run: %e s, peak RSS %M KB" \
            nice "$bin" query "$work/points.pmtiles" --bbox "$view" --zoom 12 --max 1000 --format text >/dev/null
    done
done
