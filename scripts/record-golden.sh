#!/usr/bin/env bash
# Rewrites the golden files (Tests/*/Golden/) from the current output: help texts, inspect and validate reports,
# the sample's convert report. Review the diff before committing: a change there is a change users see.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
KARTPACK_RECORD=1 swift test --filter GoldenOutputTests
git status --short -- 'Tests/*/Golden'
