#!/bin/sh
# Submits a sharded `kartpack convert` to Slurm: a plan job, an array of SHARDS shard jobs (requeued by Slurm when
# a node fails), and a merge job that runs only when every shard succeeded (afterok). Prints the three job ids.
#
#   scripts/cluster/submit-convert.sh WORKDIR SHARDS INPUT.shp... -o OUT.pmtiles [convert options]
#
# WORKDIR is a folder every node sees (the plan, the parts, the reports and the job logs go there); the inputs and
# OUT must be at the same paths on every node too. Environment: KARTPACK (the binary, default `kartpack` on PATH),
# SBATCH_EXTRA (more sbatch options for every job, e.g. "--partition=batch --account=maps"),
# SHARD_CPUS (CPUs per shard, default 2), SPLIT_ZOOM (the plan's --split-zoom; default the max zoom). See
# docs/cluster.md.
set -eu
if [ $# -lt 4 ]; then
    echo "usage: $0 WORKDIR SHARDS INPUT.shp... -o OUT.pmtiles [convert options]" >&2
    exit 64
fi
workdir=$1
shards=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
kartpack=${KARTPACK:-$(command -v kartpack || echo kartpack)}
cpus=${SHARD_CPUS:-2}
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
# The convert command line, one argument per line (NUL would be safer; file names with newlines are refused).
for a in "$@"; do
    case $a in *'
'*) echo "$0: an argument holds a newline: $a" >&2; exit 64 ;; esac
done
printf '%s\n' "$@" > "$workdir/convert-args"
# Last night's parts belong to another plan: the merge would refuse them, so they go now.
rm -f "$workdir"/part-*.kpart "$workdir"/report-*.json "$workdir/plan.json"
# The merge publishes -o: find it in the arguments.
out=""
prev=""
for a in "$@"; do
    if [ "$prev" = "-o" ] || [ "$prev" = "--output" ]; then out=$a; fi
    case $a in --output=*) out=${a#--output=} ;; esac
    prev=$a
done
if [ -z "$out" ]; then echo "$0: the convert arguments need -o OUT" >&2; exit 64; fi
export KARTPACK="$kartpack" WORKDIR="$workdir" SHARDS="$shards" OUT="$out" SUBMIT_DIR="$(pwd)"
# shellcheck disable=SC2086
plan=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-plan \
    --output="$workdir/plan-%j.log" "$here/plan.sbatch")
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-shard --requeue \
    --array="0-$((shards - 1))" --cpus-per-task="$cpus" --dependency="afterok:$plan" \
    --output="$workdir/shard-%a-%j.log" "$here/shard.sbatch")
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-merge \
    --dependency="afterok:$array" --output="$workdir/merge-%j.log" "$here/merge.sbatch")
echo "plan $plan shards $array merge $merge"
