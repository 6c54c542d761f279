#!/usr/bin/env bash
# Fuzzes Kartpack's readers with libFuzzer + AddressSanitizer (docs/fuzzing.md).
#
#   scripts/fuzz-long.sh [TARGET] [SECONDS]   TARGET: shapefile, package, zip, pipeline, stylesheet, geopackage or all
#                                             (default all); SECONDS per target (60). Nightly: all 600.
#   scripts/fuzz-long.sh seeds                regenerates SampleData/fuzz-seeds/<target> (scripts/fuzz-seeds.py)
#
# The per-commit run (scripts/test.sh) does not fuzz: it replays the seeds and regressions through a normal build
# (scripts/fuzz-replay.sh). This is the random exploration, for nightly jobs and before a release.
#
# Builds the target with `-sanitize=fuzzer,address -DKARTPACK_FUZZING` in its own scratch path (.build/fuzz), then
# runs it for SECONDS on its seed corpus (SampleData/fuzz-seeds/<target>, plus the crash reproducers in
# SampleData/fuzz-seeds/regressions/<target>, both read-only) and a working corpus in .build/fuzz/corpus/<target>
# that keeps what earlier runs found. Exits non-zero when any target crashed, hung (-timeout=10), ran out of
# memory (-rss_limit_mb=2048) or leaked; the input that did it is left in .build/fuzz/findings/<target>/ and the
# log in .build/fuzz/logs/<target>.log.
#
# Environment: KARTPACK_FUZZ_JOBS (build jobs, default 2), KARTPACK_FUZZ_ARGS (extra libFuzzer flags).
set -uo pipefail
cd "$(dirname "$0")/.."

target="${1:-all}"
seconds="${2:-60}"
jobs="${KARTPACK_FUZZ_JOBS:-2}"
scratch=.build/fuzz

if [[ "$target" == "seeds" ]]; then
    set -e
    # The build scripts/test.sh makes (release with testability), so regenerating seeds reuses it.
    testing=(-c release -Xswiftc -enable-testing --scratch-path .build/testing)
    swift build "${testing[@]}" -j "$jobs" --product kartpack
    exec python3 scripts/fuzz-seeds.py "$(swift build "${testing[@]}" --show-bin-path)/kartpack"
fi

case "$target" in
    shapefile) targets=(shapefile) ;;
    package) targets=(package) ;;
    zip) targets=(zip) ;;
    pipeline) targets=(pipeline) ;;
    stylesheet) targets=(stylesheet) ;;
    geopackage) targets=(geopackage) ;;
    all) targets=(shapefile package zip pipeline stylesheet geopackage) ;;
    *) echo "usage: scripts/fuzz-long.sh [shapefile|package|zip|pipeline|stylesheet|geopackage|all|seeds] [SECONDS]" >&2; exit 64 ;;
esac
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || (( seconds < 1 )); then
    echo "scripts/fuzz-long.sh: SECONDS must be a positive integer, not '$seconds'" >&2
    exit 64
fi

product() {
    case "$1" in
        shapefile) echo FuzzShapefile ;;
        package) echo FuzzPackage ;;
        zip) echo FuzzZip ;;
        pipeline) echo FuzzPipeline ;;
        stylesheet) echo FuzzStylesheet ;;
        geopackage) echo FuzzGeoPackage ;;
    esac
}

mkdir -p "$scratch/logs"
# The targets' private folders (left behind by crashing processes, one per crash in fork mode) go here.
if [[ -w /dev/shm ]]; then tmp="/dev/shm/kartpack-fuzz-run-$$"; else tmp="$PWD/$scratch/tmp-$$"; fi
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export KARTPACK_FUZZ_TMPDIR="$tmp"
failed=()
for t in "${targets[@]}"; do
    p="$(product "$t")"
    echo "== building $p (libFuzzer + ASan, $scratch)" >&2
    started=$SECONDS
    if ! swift build -c debug -j "$jobs" --scratch-path "$scratch" --product "$p" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DKARTPACK_FUZZING >"$scratch/logs/build-$t.log" 2>&1; then
        grep -v "Cannot export local symbol" "$scratch/logs/build-$t.log" | tail -40 >&2
        echo "scripts/fuzz-long.sh: building $p failed (log: $scratch/logs/build-$t.log)" >&2
        exit 1
    fi
    echo "   built in $((SECONDS - started)) s" >&2
    bin="$scratch/debug/$p"
    corpus="$scratch/corpus/$t"
    findings="$scratch/findings/$t"
    mkdir -p "$corpus" "$findings"
    seeds=("SampleData/fuzz-seeds/$t")
    [[ -d "SampleData/fuzz-seeds/regressions/$t" ]] && seeds+=("SampleData/fuzz-seeds/regressions/$t")

    before=$(find "$findings" -type f | wc -l)
    echo "== fuzzing $p for $seconds s" >&2
    # SWIFT_BACKTRACE=enable=no: the Swift runtime's crash handler would race libFuzzer's and ASan's.
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no PROJ_NETWORK=OFF ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
        "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/" ${KARTPACK_FUZZ_ARGS:-} "$corpus" "${seeds[@]}" >"$scratch/logs/$t.log" 2>&1
    status=$?
    after=$(find "$findings" -type f | wc -l)
    # With -fork=N -ignore_crashes=1 libFuzzer exits 0 after crashes: new findings fail the run all the same.
    if (( status == 0 && after > before )); then status=1; fi
    grep -E "^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)|^#[0-9]+.*DONE" \
        "$scratch/logs/$t.log" | sed 's/^/   /' >&2
    if (( status != 0 )); then
        failed+=("$t")
        echo "!! $p failed (exit $status); log: $scratch/logs/$t.log" >&2
        grep -E "ERROR: |SUMMARY: |Fatal error|invariant broken|Test unit written to" "$scratch/logs/$t.log" | head -10 >&2
        echo "   reproduce: SWIFT_BACKTRACE=enable=no $bin <finding>   (or a normal build: swift run $p <finding>)" >&2
    else
        echo "   $p: no crash" >&2
    fi
done

if (( ${#failed[@]} > 0 )); then
    echo "scripts/fuzz-long.sh: crashes in: ${failed[*]} (inputs in $scratch/findings/)" >&2
    exit 1
fi
echo "scripts/fuzz-long.sh: ${targets[*]}: no crash in $seconds s each" >&2
