"""A sharded convert on a real one-node Slurm (Debian 12 slurm-wlm + munge, started by
scripts/cluster/slurm-one-node.sh as root and stopped at the end whatever happens): submit-convert.sh's plan job,
requeueable shard array and afterok merge give the one-machine package byte for byte; a shard killed and requeued
by Slurm mid-run still gives it; a merge job started with a shard missing fails with exit 65 and publishes nothing.
Skipped when Slurm is not installed, not root, or it cannot start here (docs/cluster.md)."""
import os
import pathlib
import shutil
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "scripts" / "cluster"
OPTIONS = ["--max-zoom", "7", "--max-tile-bytes", "30000"]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    if os.geteuid() != 0 or not shutil.which("sbatch") or not os.path.exists("/usr/sbin/slurmctld"):
        pytest.skip("a one-node Slurm needs root and Debian's slurm-wlm and munge")
    d = tmp_path_factory.mktemp("slurm")
    try:
        r = subprocess.run([str(CLUSTER / "slurm-one-node.sh"), "start", str(d)], capture_output=True, text=True,
                           timeout=90)
        if r.returncode != 0:
            pytest.skip(f"Slurm cannot start here: {r.stderr.strip()[-300:]}")
        env = dict(os.environ, SLURM_CONF=r.stdout.strip())
        yield env
    finally:
        subprocess.run([str(CLUSTER / "slurm-one-node.sh"), "stop", str(d)], timeout=60)


def job_state(env, job: str) -> dict:
    out = subprocess.run(["scontrol", "show", "job", job], env=env, capture_output=True, text=True).stdout
    fields = {}
    for word in out.split():
        if "=" in word:
            k, v = word.split("=", 1)
            fields.setdefault(k, v)
    return fields


def wait_done(env, job: str, timeout=120) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        s = job_state(env, job)
        if s.get("JobState") in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
            return s
        if s.get("Reason") == "DependencyNeverSatisfied":
            return s
        time.sleep(0.3)
    pytest.fail(f"job {job} did not finish in {timeout} s: {job_state(env, job)}")


def submit(env, kartpack, workdir, shards, inputs, out):
    r = subprocess.run([str(CLUSTER / "submit-convert.sh"), str(workdir), str(shards), *inputs, "-o", str(out),
                        *OPTIONS], env=dict(env, KARTPACK=kartpack, SHARD_CPUS="1"), capture_output=True, text=True,
                       cwd=workdir.parent)
    assert r.returncode == 0, r.stderr
    words = r.stdout.split()
    return words[1], words[3], words[5]


def one_machine(kartpack, inputs, out) -> bytes:
    r = subprocess.run([kartpack, "convert", *inputs, "-o", str(out), "--quiet", *OPTIONS], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    out.unlink()
    return data


def test_three_shards_on_slurm_merge_byte_identical_also_after_a_requeue(slurm, kartpack, natural_earth, tmp_path):
    inputs = [str(natural_earth["naturalearth_lowres"])]
    out = tmp_path / "world.pmtiles"
    expected = one_machine(kartpack, inputs, out)

    plan, array, merge = submit(slurm, kartpack, tmp_path / "work", 3, inputs, out)
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED", (tmp_path / "work").glob("*.log")
    assert out.read_bytes() == expected
    out.unlink()

    # Again, and Slurm requeues shard 1 while it runs (what it does when the node fails): the task is killed, runs
    # again from the start, and the merge that waited for the array still gives the same bytes.
    plan, array, merge = submit(slurm, kartpack, tmp_path / "work", 3, inputs, out)
    task = f"{array}_1"
    deadline = time.time() + 60
    while job_state(slurm, task).get("JobState") != "RUNNING":
        assert time.time() < deadline, job_state(slurm, task)
        time.sleep(0.05)
    subprocess.run(["scontrol", "requeue", task], env=slurm, check=True)
    # Slurm holds a requeued job for a while (Reason=BeginTime) before it may start again; release it now.
    deadline = time.time() + 30
    while job_state(slurm, task).get("JobState") != "PENDING":
        assert time.time() < deadline, job_state(slurm, task)
        time.sleep(0.1)
    subprocess.run(["scontrol", "update", f"JobId={task}", "StartTime=now"], env=slurm, check=True)
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED"
    assert int(job_state(slurm, task).get("Restarts", "0")) >= 1
    assert out.read_bytes() == expected

    # A merge job started with a shard's part missing fails with exit 65 and publishes nothing.
    out.unlink()
    (tmp_path / "work" / "part-2.kpart").unlink()
    r = subprocess.run(["sbatch", "--parsable", "--export=ALL", f"--output={tmp_path}/work/merge-missing.log",
                        str(CLUSTER / "merge.sbatch")],
                       env=dict(slurm, KARTPACK=kartpack, WORKDIR=str(tmp_path / "work"), OUT=str(out),
                                SUBMIT_DIR=str(tmp_path)), capture_output=True, text=True, check=True)
    s = wait_done(slurm, r.stdout.strip())
    assert s["JobState"] == "FAILED" and s["ExitCode"] == "65:0", s
    assert "shard 2/3 is missing" in (tmp_path / "work" / "merge-missing.log").read_text()
    assert not out.exists()
