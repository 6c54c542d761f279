#!/bin/bash
# CPU of a sharded convert against the one-machine build (docs/benchmarks.md, "Sharded builds"): runs
# `kartpack convert` once, then plan, every shard one after the other, and merge, each under GNU time, checks that
# the merged package is byte-identical, and prints one line per step: label, user+system CPU seconds, wall seconds.
#   [SPLIT_ZOOM=Z] [WHOLE=FILE] scripts/cluster/measure-shards.sh KARTPACK SHARDS WORKDIR INPUT... -- [options]
# WHOLE: a one-machine package built before from the same inputs and options, written under the name measured.pmtiles
# (the metadata is named after the file); its build is then not run again.
# Shards run with --threads 1: give the one-machine build --threads 1 too (after --) to compare CPU alike.
set -euo pipefail
if [[ $# -lt 4 ]]; then echo "usage: $0 KARTPACK SHARDS WORKDIR INPUT... -- [convert options]" >&2; exit 64; fi
kp=$1 shards=$2 work=$3
shift 3
inputs=()
while [[ $# -gt 0 && $1 != -- ]]; do inputs+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
mkdir -p "$work"
out="$work/measured.pmtiles"
timed() { # label, command...
    local label=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" >/dev/null
    read -r user sys wall <"$work/time"
    printf '%s %.2f %.2f\n' "$label" "$(echo "$user + $sys" | bc)" "$wall"
}
rm -f "$out" "$work"/part-*.kpart
if [[ -n "${WHOLE:-}" ]]; then
    cp "$WHOLE" "$work/whole.pmtiles"
else
    timed whole "$kp" convert "${inputs[@]}" -o "$out" --quiet --report "$work/whole-report.json" "$@"
    mv "$out" "$work/whole.pmtiles"
fi
split=()
[[ -n "${SPLIT_ZOOM:-}" ]] && split=(--split-zoom "$SPLIT_ZOOM")
timed plan "$kp" plan "${inputs[@]}" -o "$out" "$@" --shards "$shards" --plan "$work/plan.json" "${split[@]}"
for ((i = 0; i < shards; i++)); do
    timed "shard-$i" "$kp" convert --plan "$work/plan.json" --shard "$i/$shards" -o "$work/part-$i.kpart" --quiet \
        --threads 1 --report "$work/report-$i.json"
done
timed merge "$kp" merge "$work"/part-*.kpart -o "$out"
cmp "$out" "$work/whole.pmtiles" && echo "byte-identical: yes"
