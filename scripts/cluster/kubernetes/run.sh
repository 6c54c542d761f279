#!/bin/sh
# Runs convert-jobs.yaml start to finish: deletes last night's Jobs, then applies the plan, the shards and the merge
# in turn, each after the one before completed. Exits non-zero (and publishes nothing) when a Job fails.
#   scripts/cluster/kubernetes/run.sh [NAMESPACE]
set -eu
ns=${1:-default}
here=$(cd "$(dirname "$0")" && pwd)
k() { kubectl --namespace "$ns" "$@"; }
k delete job kartpack-plan kartpack-shards kartpack-merge --ignore-not-found --wait
# The three documents of the manifest, one at a time.
doc() { awk -v n="$1" 'BEGIN{d=1} /^---$/{d++; next} d==n' "$here/convert-jobs.yaml"; }
for step in 1:kartpack-plan 2:kartpack-shards 3:kartpack-merge; do
    doc "${step%%:*}" | k apply -f -
    k wait --for=condition=complete --timeout=12h "job/${step#*:}"
done
