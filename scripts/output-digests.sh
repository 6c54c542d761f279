#!/usr/bin/env bash
# Prints the SHA-256 of the packages Kartpack builds from the sample, the real Debian shapefiles and the hostile
# corpus, one line per package: the proof that an engine change leaves output bytes alone.
#   scripts/output-digests.sh [KARTPACK_BIN] > before.txt; …change…; scripts/output-digests.sh > after.txt; diff
# Uses the debug binary by default (`swift build`); reports are left out (they hold wall times).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-$(swift build --show-bin-path)/kartpack}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
geo=/usr/lib/python3/dist-packages/geopandas/datasets
unzip -q -o "$geo/nybb_16a.zip" -d "$work/nybb"

run() { # name, then convert arguments
    local name=$1
    shift
    "$bin" convert "$@" -o "$work/$name" --name digest --force --quiet >/dev/null 2>&1 || true
    if [ -f "$work/$name" ]; then
        echo "$(sha256sum <"$work/$name" | cut -c1-16)  $name"
    else
        echo "(none)            $name"
    fi
}

forest=(SampleData/forest/*.shp)
run forest-styled.pmtiles "${forest[@]}" --style SampleData/forest.kss --min-zoom 6 --max-zoom 14
run forest-styled-t2.pmtiles "${forest[@]}" --style SampleData/forest.kss --min-zoom 6 --max-zoom 14 --threads 2
run forest-plain.mbtiles "${forest[@]}" --min-zoom 0 --max-zoom 13
run forest-limits.pmtiles "${forest[@]}" --max-zoom 12 --max-tile-features 20 --max-tile-bytes 3000
run nybb.pmtiles "$work/nybb/nybb.shp" --max-zoom 13
run naturalearth.pmtiles "$geo/naturalearth_lowres/naturalearth_lowres.shp" \
    "$geo/naturalearth_cities/naturalearth_cities.shp" --max-zoom 6
for d in SampleData/hostile/*/; do
    n=$(basename "$d")
    [ -n "$(ls "$d"*.shp 2>/dev/null)" ] || continue
    run "hostile-$n.pmtiles" "$d" --max-zoom 10
done
cp Pipelines/forest-plan.json "$work/"
sed -i "s#\"\.\./#\"$PWD/#g; s#$PWD/out/forest-plan.pmtiles#$work/pipeline.pmtiles#" "$work/forest-plan.json"
"$bin" run "$work/forest-plan.json" --quiet >/dev/null 2>&1 || true
[ -f "$work/pipeline.pmtiles" ] && echo "$(sha256sum <"$work/pipeline.pmtiles" | cut -c1-16)  pipeline.pmtiles"
