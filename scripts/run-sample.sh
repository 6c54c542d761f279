#!/usr/bin/env bash
# The main job on the sample data: installs what is missing, builds Kartpack (release) and runs it on
# SampleData/forest (the Swedish forest-plan export).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release
"$(swift build -c release --show-bin-path)/kartpack" inspect SampleData/forest
