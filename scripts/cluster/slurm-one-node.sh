#!/bin/sh
# A one-node Slurm (Debian 12 slurm-wlm 22.05 + munge) in a private folder, for tests and trying the scripts:
# its own munge key and socket, its own ports and state, the machine's CPUs as one node. Needs root.
#
#   scripts/cluster/slurm-one-node.sh start DIR   # prints the SLURM_CONF to export; exit 1 when it cannot start
#   scripts/cluster/slurm-one-node.sh stop DIR    # stops the daemons it started (by their pid files)
set -eu
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then echo "usage: $0 start|stop DIR" >&2; exit 64; fi

stop() {
    for name in slurmd slurmctld munged; do
        if [ -f "$dir/$name.pid" ]; then
            pid=$(cat "$dir/$name.pid")
            # Only the daemon this script started: the pid file's process must run that program.
            if [ -n "$pid" ] && grep -q "$name" "/proc/$pid/cmdline" 2>/dev/null; then
                kill "$pid" 2>/dev/null || true
                for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
                kill -9 "$pid" 2>/dev/null || true
            fi
            rm -f "$dir/$name.pid"
        fi
    done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }
for p in munged slurmctld slurmd sbatch; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || { echo "$p is not installed" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "a one-node Slurm needs root" >&2; exit 1; }
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir/munge"
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
cpus=$(nproc)
# Ports from the folder's name, so two harnesses on one machine do not meet.
base=$(( 20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000 ))
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
cat > "$dir/slurm.conf" <<CONF
ClusterName=kartpack-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobRequeue=1
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
/usr/sbin/munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" --force
export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld -f "$dir/slurm.conf" || { stop; echo "slurmctld did not start: $(tail -5 "$dir/slurmctld.log")" >&2; exit 1; }
/usr/sbin/slurmd -f "$dir/slurm.conf" || { stop; echo "slurmd did not start: $(tail -5 "$dir/slurmd.log")" >&2; exit 1; }
for _ in $(seq 1 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
        echo "$dir/slurm.conf"
        exit 0
    fi
    sleep 0.5
done
echo "the node did not come up: $(sinfo 2>&1 | tail -3)" >&2
stop
exit 1
