#!/bin/bash
# CPU of a sharded convert against the one-machine build (docs/benchmarks.md, "Sharded builds"): runs
# `kartpack convert` once, then plan, every shard one after the other, and merge, each under GNU time, checks that
# the merged package is byte-identical, and prints one line per step: label, user+system CPU seconds, wall seconds.
#   scripts/cluster/measure-shards.sh KARTPACK SHARDS WORKDIR INPUT... -- [convert options]
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
timed whole "$kp" convert "${inputs[@]}" -o "$out" --quiet --report "$work/whole-report.json" "$@"
mv "$out" "$work/whole.pmtiles"
timed plan "$kp" plan "${inputs[@]}" -o "$out" "$@" --shards "$shards" --plan "$work/plan.json"
for ((i = 0; i < shards; i++)); do
    timed "shard-$i" "$kp" convert --plan "$work/plan.json" --shard "$i/$shards" -o "$work/part-$i.kpart" --quiet
done
timed merge "$kp" merge "$work"/part-*.kpart -o "$out"
cmp "$out" "$work/whole.pmtiles" && echo "byte-identical: yes"
