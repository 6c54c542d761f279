#!/usr/bin/env bash
# The main job on the sample data: installs what is missing, builds Kartpack (release), describes the sample
# Swedish forest-plan export and converts it into out/forest.pmtiles (zooms 8-14).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release
bin="$(swift build -c release --show-bin-path)/kartpack"
"$bin" inspect SampleData/forest
mkdir -p out
"$bin" convert SampleData/forest/*.shp -o out/forest.pmtiles --min-zoom 8 --max-zoom 14 --force \
    --name "Skogsbruksplan (sample)" --report out/forest-report.json
"$bin" inspect out/forest.pmtiles
