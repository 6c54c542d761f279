#!/usr/bin/env bash
# Example nightly wrapper for cron: runs one pipeline, keeps a JSON report and a log per night, and exits with
# Kartpack's own exit code (0 ok or up to date, 65 data rejected or night refused, 75 another run holds the lock,
# 74 I/O, …).
#
#   nightly.sh [run|package] PIPELINE.json [options...]      (run is the default)
#
#   crontab:  15 2 * * *  /opt/kartpack/scripts/nightly.sh /opt/kartpack/Pipelines/forest-plan.json
#             45 2 * * *  /opt/kartpack/scripts/nightly.sh package /opt/kartpack/Pipelines/regions.json
#
# `run` publishes one package, `package` the region packages and their catalog of the pipeline's `regions` section
# (docs/regions.md). Both publish complete or nothing: a failed night exits non-zero and leaves yesterday's files.
# The log is JSON lines for `run` (`--log-format json`), text for `package`. Every night leaves its report, failed
# ones too (a held lock, a refused or failed night, SIGTERM); a published `package` night's report says what a tablet
# downloads (`night`: regions added, rebuilt, unchanged, removed, and downloadBytes; docs/regions.md).
#
# Environment: KARTPACK (binary; default: the release build of this checkout), KARTPACK_LOG_DIR (default: logs/
# next to the pipeline). PROJ_NETWORK is unset: Kartpack never uses the network, and says so to PROJ too.
set -uo pipefail
command=run
case "${1:-}" in
    run | package)
        command=$1
        shift
        ;;
esac
pipeline="${1:?usage: nightly.sh [run|package] PIPELINE.json [kartpack options...]}"
shift
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${KARTPACK:-$here/.build/release/kartpack}"
logs="${KARTPACK_LOG_DIR:-$(dirname "$pipeline")/logs}"
mkdir -p "$logs"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
unset PROJ_NETWORK
if [[ $command == run ]]; then
    log="$logs/kartpack-$stamp.jsonl"
    "$bin" run "$pipeline" --log-format json --report "$logs/report-$stamp.json" "$@" 2>>"$log"
else
    log="$logs/kartpack-package-$stamp.log"
    "$bin" package "$pipeline" --quiet --report "$logs/report-package-$stamp.json" "$@" 2>>"$log"
fi
status=$?
case $status in
    0) ;;
    75) echo "kartpack: $pipeline is already running (lock held); skipped" >&2 ;;
    *) echo "kartpack: $command $pipeline failed with exit $status; see $log" >&2 ;;
esac
exit $status
