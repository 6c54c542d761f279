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
if [ $# -lt 3 ]; then
    echo "usage: $0 WORKDIR SHARDS PIPELINE.json [package options]" >&2
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
for a in "$@"; do
    case $a in *'
'*) echo "$0: an argument holds a newline: $a" >&2; exit 64 ;; esac
done
printf '%s\n' "$@" > "$workdir/package-args"
# Last night's parts belong to another plan: the merge would refuse them, so they go now.
rm -rf "$workdir"/package-part-* "$workdir"/package-report-*.json "$workdir/package-plan.json"
export KARTPACK="$kartpack" WORKDIR="$workdir" SHARDS="$shards" SUBMIT_DIR="$(pwd)"
# shellcheck disable=SC2086
plan=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-package-plan \
    --output="$workdir/package-plan-%j.log" "$here/package-plan.sbatch")
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-package-shard --requeue \
    --array="0-$((shards - 1))" --cpus-per-task="$cpus" --dependency="afterok:$plan" \
    --output="$workdir/package-shard-%a-%j.log" "$here/package-shard.sbatch")
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name=kartpack-package-merge \
    --dependency="afterok:$array" --output="$workdir/package-merge-%j.log" "$here/package-merge.sbatch")
echo "plan $plan shards $array merge $merge"
