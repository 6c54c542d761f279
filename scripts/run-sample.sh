#!/usr/bin/env bash
# The main job on the sample data: installs what is missing, builds Kartpack (release), describes the sample
# Swedish forest-plan export, runs the sample pipeline (Pipelines/forest-plan.json → out/forest-plan.pmtiles, with
# the stylesheet SampleData/forest.kss), writes the offline client style folder next to the package (out/style.json,
# out/sprite*, out/glyphs/, out/index.html) and a preview picture at the scale MapLibre draws zoom 11, and ends by
# printing the one command that shows the map in a browser (`kartpack serve out`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release
bin="$(swift build -c release --show-bin-path)/kartpack"
"$bin" inspect SampleData/forest
mkdir -p out
"$bin" validate Pipelines/forest-plan.json
"$bin" run Pipelines/forest-plan.json --report out/forest-plan-report.json
"$bin" inspect out/forest-plan.pmtiles
"$bin" style SampleData/forest.kss --package out/forest-plan.pmtiles -o out/style.json
"$bin" preview out/forest-plan.pmtiles --style SampleData/forest.kss --bbox 19.45,63.89,19.86,64.05 --zoom 11 -o out/forest-plan.svg
echo
echo "To see the map in a browser, run:"
echo "  $bin serve out     # then open http://127.0.0.1:8080/"
