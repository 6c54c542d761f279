#!/usr/bin/env bash
# Before/after previews of docs/map-quality.md (issue 14), drawn by `kartpack preview` (SVG, then PNG by
# rsvg-convert) into docs/images/quality-*.png:
#
#   quality-borders-{shared,independent}.png   a generated stand coverage (scripts/bench/make-stands.py
#                                              --count 400) at --simplify 8, with and without --no-shared-borders
#   quality-thinning-{spacing,random}.png      5,000 clustered + 200 sparse points, --max-tile-features 100,
#                                              --thinning spacing (the default) and random (as before issue 14)
#   quality-small-{on,off}.png                 3,000 lakes of 10-60 m, small features on (default) and
#                                              --no-small-features --no-shared-borders (as before issue 14)
#   quality-coalesce-{on,off}.png              a 2,000-stand coverage with --max-tile-features 200, with and
#                                              without --coalesce
#
# Each conversion covers more zooms than are shown (nothing is thinned or reduced at the max zoom); `kartpack
# extract --max-zoom` keeps the zooms up to the one shown, and the view box is the centre of the data's bounds
# (scripts/quality/preview_data.py bbox). The borders and small features are drawn from lower-zoom tiles at a
# higher --zoom (a client overzooms the same way), so one tile unit becomes one pixel and sub-pixel slivers and
# squares can be seen; the captions in docs/map-quality.md say which.
#
#   scripts/quality/make-previews.sh [WORK]     (default WORK: /tmp/kartpack-previews)
#
# Uses KARTPACK_BIN, else the debug build (swift build --product kartpack); needs ogr2ogr, rsvg-convert and the
# venv's numpy (make-stands.py). Deterministic: the same binary gives the same PNG bytes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${1:-/tmp/kartpack-previews}"
PY="$ROOT/.venv/bin/python"
KP="${KARTPACK_BIN:-$(cd "$ROOT" && swift build --show-bin-path)/kartpack}"
export KARTPACK_BIN="$KP"
IMAGES="$ROOT/docs/images"
DATA="$ROOT/scripts/quality/preview_data.py"
mkdir -p "$WORK" "$IMAGES"

# draw NAME SHEET ZOOM_SHOWN TILE_ZOOM SIZE CONVERT_ARGS...: converts, keeps tiles up to TILE_ZOOM, and draws the
# SIZE (WxH px) box at the centre of the data at --zoom ZOOM_SHOWN into docs/images/NAME.png.
draw() {
    local name="$1" sheet="$2" shown="$3" tiles="$4" size="$5"
    shift 5
    "$KP" convert "$@" -o "$WORK/$name-full.pmtiles" --force --quiet
    local bounds
    bounds=$("$PY" "$DATA" bounds "$WORK/$name-full.pmtiles")
    "$KP" extract "$WORK/$name-full.pmtiles" --bbox "$bounds" --max-zoom "$tiles" -o "$WORK/$name.pmtiles" \
        --force --quiet
    local box
    box=$("$PY" "$DATA" bbox "$WORK/$name.pmtiles" --zoom "$shown" --size "$size")
    "$KP" preview "$WORK/$name.pmtiles" --style "$sheet" --bbox "$box" --zoom "$shown" --no-legend \
        -o "$WORK/$name.svg"
    rsvg-convert "$WORK/$name.svg" -o "$IMAGES/$name.png"
    echo "$name: z$tiles tiles drawn at z$shown, box $box, $(stat -c %s "$IMAGES/$name.png") bytes"
}

# 1. Shared borders: semi-transparent fills without outlines, so an overlap is darker and a gap white.
"$PY" "$ROOT/scripts/bench/make-stands.py" --count 400 --out "$WORK/stands" > /dev/null
cat > "$WORK/stands.kss" <<'EOF'
@map { background: #ffffff; }
stands { fill: #1b5e20; fill-opacity: 0.4; }
EOF
for mode in shared independent; do
    extra=()
    [ "$mode" = independent ] && extra=(--no-shared-borders)
    draw "quality-borders-$mode" "$WORK/stands.kss" 13 10 360x360 "$WORK/stands.shp" --min-zoom 8 --max-zoom 14 \
        --simplify 8 "${extra[@]}"
done

# 2. Thinning: every point drawn, sparse ones in red; z7 tiles at z7.
"$PY" "$DATA" points "$WORK/points.shp"
cat > "$WORK/points.kss" <<'EOF'
@map { background: #ffffff; }
points { fill: #1565c0; stroke: #ffffff; stroke-width: 0.5; }
points[kind = "sparse"] { fill: #c62828; }
EOF
for mode in spacing random; do
    draw "quality-thinning-$mode" "$WORK/points.kss" 7 7 560x440 "$WORK/points.shp" --min-zoom 4 --max-zoom 12 \
        --max-tile-features 100 --thinning "$mode"
done

# 3. Small features: lakes in blue; z7 tiles drawn at z10 (a 2 x 2-unit square is 2 x 2 pixels).
"$PY" "$DATA" lakes "$WORK/lakes.shp"
cat > "$WORK/lakes.kss" <<'EOF'
@map { background: #ffffff; }
lakes { fill: #0d47a1; }
EOF
draw quality-small-on "$WORK/lakes.kss" 10 7 480x320 "$WORK/lakes.shp" --min-zoom 3 --max-zoom 12
draw quality-small-off "$WORK/lakes.kss" 10 7 480x320 "$WORK/lakes.shp" --min-zoom 3 --max-zoom 12 \
    --no-small-features --no-shared-borders

# 4. Coalescing: 2,000 stands thinned to 200 features a tile, z9 tiles at z11, white outlines show each feature.
"$PY" "$ROOT/scripts/bench/make-stands.py" --count 2000 --out "$WORK/stands2k" > /dev/null
cat > "$WORK/stands2k.kss" <<'EOF2'
@map { background: #ffffff; }
stands2k { fill: #2e7d32; stroke: #ffffff; stroke-width: 1; }
EOF2
for mode in on off; do
    extra=()
    [ "$mode" = on ] && extra=(--coalesce)
    draw "quality-coalesce-$mode" "$WORK/stands2k.kss" 11 9 480x360 "$WORK/stands2k.shp" --min-zoom 8 \
        --max-zoom 12 --max-tile-features 200 "${extra[@]}"
done
