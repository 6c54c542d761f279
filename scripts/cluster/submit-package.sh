#!/bin/sh
# Submits a sharded `kartpack package` to Slurm: a plan job (`kartpack plan --package`: groups of regions), an array
# of SHARDS shard jobs (requeued by Slurm when a node fails), each building its regions into a part folder, and a
# merge job that runs only when every shard succeeded (afterok) and publishes the package folder, its catalog
# signed once (with the pipeline's or the arguments' --sign). Prints the three job ids.
#
#   scripts/cluster/submit-package.sh WORKDIR SHARDS PIPELINE.json [package options]
#
# WORKDIR is a folder every node sees (the plan, the parts, the reports and the job logs go there); the pipeline,
# its sources, the regions and the package folder must be at the same paths on every node too. Environment:
# KARTPACK (the binary, default `kartpack` on PATH), SBATCH_EXTRA (more sbatch options for every job),
# SHARD_CPUS (CPUs per shard, default 2). See docs/cluster.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage="WORKDIR SHARDS PIPELINE.json [package options]"
min_args=3
args_file=package-args
. "$here/submit-common.sh"
# Last night's parts belong to another plan: the merge would refuse them, so they go now.
rm -rf "$workdir"/package-part-* "$workdir"/package-report-*.json "$workdir/package-plan.json"
export KARTPACK="$kartpack" WORKDIR="$workdir" SHARDS="$shards" SUBMIT_DIR="$(pwd)"
submit_jobs "package-"
