#!/usr/bin/env bash
# Rewrites the golden files (Tests/*/Golden/) from the current output: help texts, inspect and validate reports,
# the sample's convert report, and the package digests (scripts/output-digests.sh --record). Review the diff
# before committing: a change there is a change users see.
# Uses the build scripts/test.sh makes (release with testability), so recording after a test run rebuilds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=(-c release -Xswiftc -enable-testing --scratch-path .build/testing)
swift build "${build[@]}" --build-tests
bin="$(swift build "${build[@]}" --show-bin-path)"
KARTPACK_BIN="$bin/kartpack" KARTPACK_RECORD=1 swift test "${build[@]}" --skip-build --filter GoldenOutputTests
scripts/output-digests.sh --record "$bin/kartpack"
git status --short -- 'Tests/*/Golden'
