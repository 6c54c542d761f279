#!/bin/bash
# CPU of a sharded convert (or package) against the one-machine build (docs/benchmarks.md, "Sharded builds"): runs
# the one-machine build once, then plan, every shard one after the other, and merge, each under GNU time, checks that
# the merged output is byte-identical, and prints one line per step: label, user+system CPU seconds, wall seconds.
#   [SPLIT_ZOOM=Z] [WHOLE=FILE] scripts/cluster/measure-shards.sh KARTPACK SHARDS WORKDIR INPUT... -- [options]
#   [WHOLE=DIR] scripts/cluster/measure-shards.sh --package KARTPACK SHARDS WORKDIR PIPELINE.json -- [options]
# SPLIT_ZOOM: the plan's --split-zoom, a zoom or auto (unset: the max zoom; docs/cluster.md "Choosing Z").
# WHOLE: a one-machine package built before from the same inputs and options, written under the name measured.pmtiles
# (the metadata is named after the file); its build is then not run again. With --package: a one-machine package
# folder; every region's package must be the same bytes and the catalog the same but for its times.
# Shards run with --threads 1: give the one-machine build --threads 1 too (after --) to compare CPU alike.
set -euo pipefail
package=false
if [[ ${1:-} == --package ]]; then package=true; shift; fi
if [[ $# -lt 4 ]]; then echo "usage: $0 [--package] KARTPACK SHARDS WORKDIR INPUT... -- [options]" >&2; exit 64; fi
kp=$1 shards=$2 work=$3
shift 3
inputs=()
while [[ $# -gt 0 && $1 != -- ]]; do inputs+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
mkdir -p "$work"
timed() { # label, command...
    local label=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" >/dev/null
    read -r user sys wall <"$work/time"
    printf '%s %.2f %.2f\n' "$label" "$(echo "$user + $sys" | bc)" "$wall"
}

if $package; then
    out="$work/merged"
    rm -rf "$out" "$work"/part-*
    if [[ -n "${WHOLE:-}" ]]; then
        rm -rf "$work/whole" && cp -a "$WHOLE" "$work/whole"
    else
        rm -rf "$work/whole"
        timed whole "$kp" package "${inputs[@]}" -o "$work/whole" --quiet --report "$work/whole-report.json" "$@"
    fi
    timed plan "$kp" plan --package "${inputs[@]}" -o "$out" "$@" --shards "$shards" --plan "$work/plan.json"
    for ((i = 0; i < shards; i++)); do
        timed "shard-$i" "$kp" package --plan "$work/plan.json" --shard "$i/$shards" -o "$work/part-$i" --quiet \
            --threads 1 --report "$work/report-$i.json"
    done
    timed merge "$kp" package --plan "$work/plan.json" --merge "$work"/part-* --quiet
    python3 - "$work/whole" "$out" <<'PY' && echo "byte-identical: yes"
import hashlib, json, pathlib, re, sys
def folder(d):
    d = pathlib.Path(d)
    text = (d / "catalog.json").read_text()
    files = {r["id"]: hashlib.sha256((d / r["file"]).read_bytes()).hexdigest() for r in json.loads(text)["regions"]}
    return files, re.sub(r'"(created|built)": "[^"]*"', "TIME", text)
sys.exit(0 if folder(sys.argv[1]) == folder(sys.argv[2]) else 1)
PY
    exit
fi

out="$work/measured.pmtiles"
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
