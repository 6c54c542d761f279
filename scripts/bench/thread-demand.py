#!/usr/bin/env python3
"""How many threads of a command want a CPU, sampled over its run: a load-independent stand-in for CPU/wall.

On a shared machine CPU/wall says more about the other processes than about the command (at load 12 on 2 cores
every process gets a third of a core). A thread that is running *or waiting for a core* is in state R in
/proc/PID/task/TID/stat; sampling that every 20 ms gives the command's demand for cores. On an idle machine with
as many cores as the command has workers, its CPU/wall would be about the mean demand (capped by the cores).

    scripts/bench/thread-demand.py [--every SECONDS] -- COMMAND ARGS...

Prints the mean number of runnable threads over the samples where any thread was, the share of those samples with
two or more, and a timeline of the mean per twentieth of the run (where a phase keeps one core busy shows as ~1).
Exits with the command's status.
"""
import argparse
import os
import subprocess
import sys
import time


def runnable(pid: int) -> int:
    n = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The state follows the command name, which is in parentheses and may itself hold spaces or parentheses.
        if stat[stat.rindex(")") + 2] == "R":
            n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=float, default=0.02, help="seconds between samples (default 0.02)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command given")
    child = subprocess.Popen(command)
    samples = []
    while child.poll() is None:
        samples.append(runnable(child.pid))
        time.sleep(args.every)
    busy = [n for n in samples if n > 0]
    if not busy:
        print("thread-demand: no samples (the command ended at once)")
        return child.returncode
    step = max(1, len(samples) // 20)
    timeline = [sum(samples[i:i + step]) / len(samples[i:i + step]) for i in range(0, len(samples), step)]
    print(f"samples {len(samples)}; mean runnable threads {sum(busy) / len(busy):.2f}; "
          f"share with two or more {sum(1 for n in busy if n >= 2) / len(busy):.2f}")
    print("timeline (mean per twentieth of the run): " + " ".join(f"{v:.2f}" for v in timeline))
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
