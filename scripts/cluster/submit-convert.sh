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
here=$(cd "$(dirname "$0")" && pwd)
usage="WORKDIR SHARDS INPUT.shp... -o OUT.pmtiles [convert options]"
min_args=4
args_file=convert-args
. "$here/submit-common.sh"
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
submit_jobs ""
