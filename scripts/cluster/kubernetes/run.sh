#!/bin/sh
# Runs a manifest of three Jobs (convert-jobs.yaml, the default, package-jobs.yaml or run-jobs.yaml) start to
# finish: deletes last night's Jobs, then applies the plan, the shards and the merge in turn, each after the one
# before completed.
# Exits non-zero (and publishes nothing) when a Job fails.
#   scripts/cluster/kubernetes/run.sh [NAMESPACE [MANIFEST]]
set -eu
ns=${1:-default}
here=$(cd "$(dirname "$0")" && pwd)
manifest=${2:-$here/convert-jobs.yaml}
k() { kubectl --namespace "$ns" "$@"; }
# The three documents of the manifest, one at a time, and their Jobs' names.
doc() { awk -v n="$1" 'BEGIN{d=1} /^---$/{d++; next} d==n' "$manifest"; }
name() { doc "$1" | awk '/^metadata:/{m=1; next} m && /^  name:/{print $2; exit}'; }
k delete job "$(name 1)" "$(name 2)" "$(name 3)" --ignore-not-found --wait
for n in 1 2 3; do
    doc "$n" | k apply -f -
    k wait --for=condition=complete --timeout=12h "job/$(name "$n")"
done
