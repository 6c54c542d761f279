# Sourced by submit-convert.sh and submit-package.sh (not run on its own): the prologue both share and their
# three sbatch submissions (submit_jobs). The caller sets
#   here       its own folder (the .sbatch files are there)
#   usage      the usage line after "$0"
#   min_args   the fewest arguments it takes
#   args_file  the file under WORKDIR that receives the command line after WORKDIR and SHARDS
# and sources this file with its own arguments. After it: workdir (absolute, created), shards, kartpack, cpus,
# the command line in "$@" (WORKDIR and SHARDS shifted off) and in WORKDIR/args_file, one argument a line.
if [ $# -lt "$min_args" ]; then
    echo "usage: $0 $usage" >&2
    exit 64
fi
workdir=$1
shards=$2
shift 2
case $shards in
    '' | *[!0-9]* | 0) echo "$0: SHARDS must be a whole number from 1 up, not '$shards'" >&2; exit 64 ;;
esac
kartpack=${KARTPACK:-$(command -v kartpack || echo kartpack)}
cpus=${SHARD_CPUS:-2}
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
# The command line, one argument per line (NUL would be safer; arguments with newlines are refused).
for a in "$@"; do
    case $a in *'
'*) echo "$0: an argument holds a newline: $a" >&2; exit 64 ;; esac
done
printf '%s\n' "$@" > "$workdir/$args_file"

# submit_jobs PREFIX: submits PREFIXplan.sbatch, the array PREFIXshard.sbatch (requeued by Slurm when a node fails,
# after the plan) and PREFIXmerge.sbatch (after the whole array succeeded), with their logs in WORKDIR, and prints
# "plan ID shards ID merge ID". The caller exports what the .sbatch files read first.
submit_jobs() {
    # shellcheck disable=SC2086
    plan=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name="kartpack-${1}plan" \
        --output="$workdir/${1}plan-%j.log" "$here/${1}plan.sbatch")
    # shellcheck disable=SC2086
    array=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name="kartpack-${1}shard" --requeue \
        --array="0-$((shards - 1))" --cpus-per-task="$cpus" --dependency="afterok:$plan" \
        --output="$workdir/${1}shard-%a-%j.log" "$here/${1}shard.sbatch")
    # shellcheck disable=SC2086
    merge=$(sbatch --parsable ${SBATCH_EXTRA:-} --export=ALL --job-name="kartpack-${1}merge" \
        --dependency="afterok:$array" --output="$workdir/${1}merge-%j.log" "$here/${1}merge.sbatch")
    echo "plan $plan shards $array merge $merge"
}
