#!/usr/bin/env bash
# Gap/overlap comparison for docs/map-quality.md: the sample's forest stands (SampleData/forest/avdelningar.shp)
# and a generated coverage (scripts/bench/make-stands.py --count 20000), each tiled at z8-14 by
#   kartpack convert            (--simplify 1 and 8)
#   tippecanoe                  (-S 1 and 8, without shared-border detection)
#   tippecanoe --detect-shared-borders
# and measured with scripts/quality/coverage_quality.py (Markdown tables on stdout, JSON rows in WORK/).
#
#   scripts/quality/compare-coverages.sh [WORK]      (default WORK: /tmp/kartpack-coverage-quality)
#
# Uses the release binary (swift build -c release --product kartpack) unless KARTPACK_BIN is set, the venv's
# tippecanoe and GDAL's ogr2ogr. Runs one tool at a time (about a minute on 2 cores).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${1:-/tmp/kartpack-coverage-quality}"
PY="$ROOT/.venv/bin/python"
TIP="$ROOT/.venv/bin/tippecanoe"
KP="${KARTPACK_BIN:-$(cd "$ROOT" && swift build -c release --show-bin-path)/kartpack}"
MINZ=8
MAXZ=14
mkdir -p "$WORK"

# Inputs: Shapefiles for kartpack, FlatGeobuf in WGS84 for tippecanoe (it reads no Shapefiles).
cp "$ROOT"/SampleData/forest/avdelningar.{shp,shx,dbf,prj,cpg} "$WORK/"
[ -f "$WORK/stands.shp" ] || "$PY" "$ROOT/scripts/bench/make-stands.py" --count 20000 --out "$WORK/stands"
for layer in avdelningar stands; do
    rm -f "$WORK/$layer.fgb"
    ogr2ogr -f FlatGeobuf -t_srs EPSG:4326 -nlt PROMOTE_TO_MULTI "$WORK/$layer.fgb" "$WORK/$layer.shp"
done

measure() {  # measure PACKAGE LAYER TITLE
    "$PY" "$ROOT/scripts/quality/coverage_quality.py" "$1" --layer "$2" --source "$WORK/$2.shp" \
        --zooms "$MINZ-$MAXZ" --json "${1%.*}.json" --title "$3"
    echo
}

for layer in avdelningar stands; do
    for s in 1 8; do
        out="$WORK/$layer-kartpack-s$s.pmtiles"
        "$KP" convert "$WORK/$layer.shp" -o "$out" --min-zoom "$MINZ" --max-zoom "$MAXZ" --simplify "$s" \
            --force --quiet --report "${out%.*}.report.json"
        measure "$out" "$layer" "$layer: kartpack convert --simplify $s"
        for mode in plain shared; do
            out="$WORK/$layer-tippecanoe-$mode-s$s.pmtiles"
            extra=()
            [ "$mode" = shared ] && extra=(--detect-shared-borders)
            "$TIP" -o "$out" --force --quiet -Z "$MINZ" -z "$MAXZ" -S "$s" --no-feature-limit \
                --no-tile-size-limit --generate-ids "${extra[@]}" -L "$layer:$WORK/$layer.fgb"
            measure "$out" "$layer" "$layer: tippecanoe -S $s ${extra[*]:-}"
        done
    done
done
