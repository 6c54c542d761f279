#!/usr/bin/env bash
# Replays every committed fuzz seed and saved regression through the six fuzz entry points of a normal (non-ASan)
# build: each input runs once through the same `LLVMFuzzerTestOneInput` and the same invariant checks as under
# libFuzzer, so nothing fuzzing found stops being checked (docs/fuzzing.md). Random exploration is
# scripts/fuzz-long.sh.
#
#   scripts/fuzz-replay.sh BIN_DIR     BIN_DIR holds FuzzShapefile … (e.g. `swift build -c release --show-bin-path`)
#
# Each target runs under `timeout` (a hang fails the step); the replay log is .build/test-logs/fuzz-replay-*.log.
set -uo pipefail
cd "$(dirname "$0")/.."
bin="${1:?usage: scripts/fuzz-replay.sh BIN_DIR}"
logs=.build/test-logs
mkdir -p "$logs"
if [[ -w /dev/shm ]]; then tmp=$(mktemp -d /dev/shm/kartpack-fuzz-replay-XXXXXX); else tmp=$(mktemp -d); fi
trap 'rm -rf "$tmp"' EXIT
export KARTPACK_FUZZ_TMPDIR="$tmp"

failed=()
for t in shapefile package zip pipeline stylesheet geopackage; do
    case "$t" in
        shapefile) p=FuzzShapefile ;;
        package) p=FuzzPackage ;;
        zip) p=FuzzZip ;;
        pipeline) p=FuzzPipeline ;;
        stylesheet) p=FuzzStylesheet ;;
        geopackage) p=FuzzGeoPackage ;;
    esac
    inputs=("SampleData/fuzz-seeds/$t")
    [[ -d "SampleData/fuzz-seeds/regressions/$t" ]] && inputs+=("SampleData/fuzz-seeds/regressions/$t")
    log="$logs/fuzz-replay-$t.log"
    SWIFT_BACKTRACE=enable=no PROJ_NETWORK=OFF timeout 300 "$bin/$p" "${inputs[@]}" >"$log" 2>&1
    status=$?
    if ((status != 0)); then
        failed+=("$t")
        echo "!! $p failed (exit $status); log: $log" >&2
        tail -5 "$log" >&2
    else
        echo "   $(tail -1 "$log")" >&2
    fi
done
if ((${#failed[@]})); then
    echo "scripts/fuzz-replay.sh: failures in: ${failed[*]}" >&2
    exit 1
fi
