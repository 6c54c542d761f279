#!/usr/bin/env bash
# Runs the whole Swift test suite once under AddressSanitizer (docs/fuzzing.md).
#
#   scripts/asan-test.sh [swift test options, e.g. --filter ShapefileTests]
#
# Everything (Kartpack's modules, the tests, the kartpack executable the CLI tests run) is built with
# `-sanitize=address` in its own scratch path, .build/asan, so it never disturbs the normal .build. The C libraries
# from Debian (shapelib, GEOS, PROJ, SQLite, zlib) are not instrumented, but ASan still checks every heap block
# they get from malloc and every call into them through its interceptors (memcpy, strlen, …).
#
# Environment: KARTPACK_ASAN_JOBS (build jobs, default 2); ASAN_OPTIONS to override the defaults below
# (leak checking is off: the test process ends with Foundation and Swift Testing caches still allocated;
# leaks are checked per input by scripts/fuzz-long.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${KARTPACK_ASAN_JOBS:-2}"
scratch=.build/asan
# The Swift runtime's crash handler would race ASan's report; ASan prints the stack itself.
export SWIFT_BACKTRACE=enable=no
# Time budgets in tests stretch for the slower instrumented build.
export KARTPACK_TEST_TIME_SCALE="${KARTPACK_TEST_TIME_SCALE:-4}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}"

started=$SECONDS
echo "== building with -sanitize=address ($scratch)" >&2
swift build --build-tests -j "$jobs" --scratch-path "$scratch" -Xswiftc -sanitize=address
built=$SECONDS
# The CLI tests run this ASan build of kartpack, not the one in .build.
KARTPACK_BIN="$(swift build --scratch-path "$scratch" -Xswiftc -sanitize=address --show-bin-path)/kartpack"
export KARTPACK_BIN

echo "== swift test under AddressSanitizer" >&2
status=0
swift test --skip-build -j "$jobs" --scratch-path "$scratch" -Xswiftc -sanitize=address "$@" || status=$?
echo "asan-test: build $((built - started)) s, tests $((SECONDS - built)) s, exit $status" >&2
exit "$status"
