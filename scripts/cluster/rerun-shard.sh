#!/bin/sh
# Runs failed shards of a submitted night again and lets its merge start when they succeed. Slurm requeues a task
# by itself only when its node fails or it is preempted; a task that was killed (kill -9, the OOM killer, scancel)
# or exited non-zero stays failed, and the merge job, whose afterok dependency saw it fail, then waits forever
# (squeue: DependencyNeverSatisfied). This requeues each task ARRAY_I and sets the merge's dependency to afterok on
# every task of the array, so the merge runs once all of them, the requeued ones included, have succeeded.
#
#   scripts/cluster/rerun-shard.sh ARRAY MERGE I...     # the job ids submit-convert.sh / submit-package.sh printed
#
# A requeued task waits a little before it starts again (Slurm's requeue delay). See docs/cluster.md.
set -eu
if [ $# -lt 3 ]; then echo "usage: $0 ARRAY MERGE I..." >&2; exit 64; fi
array=$1
merge=$2
shift 2
# Every task id of the array, from its records (ArrayTaskId=3, or 4-7,9%2 while some are pending).
tasks=$(scontrol -o show job "$array" | tr ' ' '\n' | sed -n 's/^ArrayTaskId=//p' | sed 's/%.*//' | tr ',' '\n' |
    awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }' | sort -n | uniq)
if [ -z "$tasks" ]; then echo "$0: job $array is not an array Slurm knows" >&2; exit 65; fi
for i in "$@"; do
    scontrol requeue "${array}_$i"
done
dependency=$(for t in $tasks; do printf 'afterok:%s_%s,' "$array" "$t"; done)
scontrol update "JobId=$merge" "Dependency=${dependency%,}"
