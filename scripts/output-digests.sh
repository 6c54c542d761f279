#!/usr/bin/env bash
# The SHA-256 of the packages Kartpack builds from the sample, the real Debian shapefiles and the hostile corpus,
# one line per package: the proof that an engine change leaves output bytes alone, and the golden file
# Tests/CLITests/Golden/package-digests.txt that shows every change of package bytes in review.
#
#   scripts/output-digests.sh [KARTPACK_BIN]            prints the digests
#   scripts/output-digests.sh --check [KARTPACK_BIN]    compares them with the golden file (exit 1 and a diff if not)
#   scripts/output-digests.sh --record [KARTPACK_BIN]   rewrites the golden file (review the diff before committing)
#
# Uses scripts/test.sh's build by default (release with testability, in .build/testing);
# reports are left out (they hold wall times). The digests do not depend on where the checkout is: every input
# is given by a path relative to the checkout, and the pipeline runs from a copy of its folder beside a link to
# SampleData, as `Pipelines/` sits beside it in the repository. Two conversions run at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
golden=Tests/CLITests/Golden/package-digests.txt
mode=print
case "${1:-}" in
    --check) mode=check; shift ;;
    --record) mode=record; shift ;;
esac
bin="${1:-$(swift build -c release -Xswiftc -enable-testing --scratch-path .build/testing --show-bin-path)/kartpack}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
geo=/usr/lib/python3/dist-packages/geopandas/datasets
unzip -q -o "$geo/nybb_16a.zip" -d "$work/nybb"
mkdir -p "$work/out"

jobs=()
# job NAME CONVERT-ARGUMENTS…: queues one `kartpack convert` (run below, two at a time).
job() { jobs+=("$(printf '%q ' "$@")"); }

forest=(SampleData/forest/*.shp)
job forest-styled.pmtiles "${forest[@]}" --style SampleData/forest.kss --min-zoom 6 --max-zoom 14
job forest-styled-t2.pmtiles "${forest[@]}" --style SampleData/forest.kss --min-zoom 6 --max-zoom 14 --threads 2
job forest-plain.mbtiles "${forest[@]}" --min-zoom 0 --max-zoom 13
job forest-limits.pmtiles "${forest[@]}" --max-zoom 12 --max-tile-features 20 --max-tile-bytes 3000
job nybb.pmtiles "$work/nybb/nybb.shp" --max-zoom 13
job naturalearth.pmtiles "$geo/naturalearth_lowres/naturalearth_lowres.shp" \
    "$geo/naturalearth_cities/naturalearth_cities.shp" --max-zoom 6
for d in SampleData/hostile/*/; do
    n=$(basename "$d")
    [ -n "$(ls "$d"*.shp 2>/dev/null)" ] || continue
    job "hostile-$n.pmtiles" "SampleData/hostile/$n" --max-zoom 10
done

# convert NAME ARGUMENTS…: one package and its digest line, in $work/out/NAME.line.
convert() {
    local name=$1
    shift
    "$bin" convert "$@" -o "$work/out/$name" --name digest --force --quiet >/dev/null 2>&1 || true
    if [ -f "$work/out/$name" ]; then
        echo "$(sha256sum <"$work/out/$name" | cut -c1-16)  $name" >"$work/out/$name.line"
    else
        echo "(none)            $name" >"$work/out/$name.line"
    fi
    rm -f "$work/out/$name"
}
running=0
for j in "${jobs[@]}"; do
    eval "convert $j" &
    running=$((running + 1))
    if ((running >= 2)); then
        wait -n
        running=$((running - 1))
    fi
done
wait

# The nightly pipeline, run from a copy of Pipelines/ next to a link to SampleData (its paths are relative).
mkdir -p "$work/repo/Pipelines" "$work/repo/out"
ln -s "$PWD/SampleData" "$work/repo/SampleData"
cp Pipelines/forest-plan.json "$work/repo/Pipelines/"
"$bin" run "$work/repo/Pipelines/forest-plan.json" --quiet >/dev/null 2>&1 || true
pipeline_line="(none)            pipeline.pmtiles"
[ -f "$work/repo/out/forest-plan.pmtiles" ] &&
    pipeline_line="$(sha256sum <"$work/repo/out/forest-plan.pmtiles" | cut -c1-16)  pipeline.pmtiles"

digests="$work/digests.txt"
for j in "${jobs[@]}"; do
    eval "set -- $j"
    cat "$work/out/$1.line"
done >"$digests"
echo "$pipeline_line" >>"$digests"

case $mode in
    print) cat "$digests" ;;
    record)
        cp "$digests" "$golden"
        echo "scripts/output-digests.sh: wrote $(wc -l <"$golden") digests to $golden" >&2
        ;;
    check)
        if diff -u "$golden" "$digests" >&2; then
            echo "   $(wc -l <"$digests") package digests match $golden" >&2
        else
            echo "scripts/output-digests.sh: package bytes changed (above: - golden, + now). If intended, run" \
                "scripts/output-digests.sh --record and commit the golden file with the change." >&2
            exit 1
        fi
        ;;
esac
