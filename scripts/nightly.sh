#!/usr/bin/env bash
# Example nightly wrapper for cron: runs one pipeline, keeps a JSON report and JSON log per night, and exits with
# Kartpack's own exit code (0 ok or up to date, 65 data rejected, 75 another run holds the lock, 74 I/O, …).
#
#   crontab:  15 2 * * *  /opt/kartpack/scripts/nightly.sh /opt/kartpack/Pipelines/forest-plan.json
#
# Environment: KARTPACK (binary; default: the release build of this checkout), KARTPACK_LOG_DIR (default: logs/
# next to the pipeline). PROJ_NETWORK is unset: Kartpack never uses the network, and says so to PROJ too.
set -uo pipefail
pipeline="${1:?usage: nightly.sh PIPELINE.json [kartpack run options...]}"
shift
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${KARTPACK:-$here/.build/release/kartpack}"
logs="${KARTPACK_LOG_DIR:-$(dirname "$pipeline")/logs}"
mkdir -p "$logs"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
unset PROJ_NETWORK
"$bin" run "$pipeline" --log-format json --report "$logs/report-$stamp.json" "$@" 2>> "$logs/kartpack-$stamp.jsonl"
status=$?
case $status in
    0) ;;
    75) echo "kartpack: $pipeline is already running (lock held); skipped" >&2 ;;
    *) echo "kartpack: $pipeline failed with exit $status; see $logs/kartpack-$stamp.jsonl" >&2 ;;
esac
exit $status
