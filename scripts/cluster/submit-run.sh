#!/bin/sh
# Submits a sharded `kartpack run` of a pipeline to Slurm: a plan job (`kartpack plan PIPELINE.json`: ranges of the
# archive's tile order), an array of SHARDS shard jobs (requeued by Slurm when a node fails), and a merge job that
# runs only when every shard succeeded (afterok) and publishes the pipeline's output. Prints the three job ids.
#
#   scripts/cluster/submit-run.sh WORKDIR SHARDS PIPELINE.json [--set KEY=VALUE ...] [--allow-partial]
#
# WORKDIR is a folder every node sees (the plan, the parts, the reports and the job logs go there); the pipeline,
# its sources and its output must be at the same paths on every node too. Environment: KARTPACK (the binary,
# default `kartpack` on PATH), SBATCH_EXTRA (more sbatch options for every job), SHARD_CPUS (CPUs per shard,
# default 2), SPLIT_ZOOM (the plan's --split-zoom; default the max zoom). See docs/cluster.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="WORKDIR SHARDS PIPELINE.json [--set KEY=VALUE ...] [--allow-partial]"
min_args=3
args_file=run-args
. "$here/submit-common.sh"
case $1 in
    *.json | *.JSON) ;;
    *) echo "$0: the first argument after SHARDS must be the pipeline file (.json), not '$1'" >&2; exit 64 ;;
esac
# Last night's parts belong to another plan: the merge would refuse them, so they go now.
rm -f "$workdir"/run-part-*.kpart "$workdir"/run-report-*.json "$workdir/run-plan.json"
export KARTPACK="$kartpack" WORKDIR="$workdir" SHARDS="$shards" SUBMIT_DIR="$(pwd)"
submit_jobs "run-"
