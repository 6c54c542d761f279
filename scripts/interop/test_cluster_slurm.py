"""A sharded convert, a sharded package and a sharded pipeline run on a real one-node Slurm (Debian 12 slurm-wlm +
munge, started by scripts/cluster/slurm-one-node.sh as root and stopped at the end whatever happens):
submit-convert.sh's, submit-package.sh's and submit-run.sh's plan job, requeueable shard array and afterok merge
give the one-machine package (for `package`: every region's package and the catalog) byte for byte; a shard killed mid-run and requeued still gives
it; a merge job started with a shard missing fails with exit 65 and publishes nothing. Skipped when Slurm is not
installed, not root, or it cannot start here (docs/cluster.md)."""
import hashlib
import json
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
    return submit_script(env, kartpack, "submit-convert.sh", workdir, shards, [*inputs, "-o", str(out), *OPTIONS])


def submit_script(env, kartpack, script, workdir, shards, args):
    """Runs scripts/cluster/SCRIPT from WORKDIR's parent; returns the plan, array and merge job ids it prints."""
    r = subprocess.run([str(CLUSTER / script), str(workdir), str(shards), *args],
                       env=dict(env, KARTPACK=kartpack, SHARD_CPUS="1"), capture_output=True, text=True,
                       cwd=workdir.parent)
    assert r.returncode == 0, r.stderr
    words = r.stdout.split()
    return words[1], words[3], words[5]


def wait_running(env, job: str, timeout=60):
    deadline = time.time() + timeout
    while job_state(env, job).get("JobState") != "RUNNING":
        assert time.time() < deadline, job_state(env, job)
        time.sleep(0.05)


def release(env, job: str):
    """Slurm holds a requeued job for a while (Reason=BeginTime) before it may start again; release it now."""
    deadline = time.time() + 30
    while job_state(env, job).get("JobState") != "PENDING":
        assert time.time() < deadline, job_state(env, job)
        time.sleep(0.1)
    subprocess.run(["scontrol", "update", f"JobId={job}", "StartTime=now"], env=env, check=True)


def merge_alone(env, script: str, log: pathlib.Path, **variables) -> dict:
    """Submits the merge job SCRIPT by itself (no dependency) with these environment variables; its final state."""
    r = subprocess.run(["sbatch", "--parsable", "--export=ALL", f"--output={log}", str(CLUSTER / script)],
                       env=dict(env, **variables), capture_output=True, text=True, check=True)
    return wait_done(env, r.stdout.strip())


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
    wait_running(slurm, task)
    subprocess.run(["scontrol", "requeue", task], env=slurm, check=True)
    release(slurm, task)
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED"
    assert int(job_state(slurm, task).get("Restarts", "0")) >= 1
    assert out.read_bytes() == expected

    # A merge job started with a shard's part missing fails with exit 65 and publishes nothing.
    out.unlink()
    (tmp_path / "work" / "part-2.kpart").unlink()
    s = merge_alone(slurm, "merge.sbatch", tmp_path / "work" / "merge-missing.log", KARTPACK=kartpack,
                    WORKDIR=str(tmp_path / "work"), OUT=str(out), SUBMIT_DIR=str(tmp_path))
    assert s["JobState"] == "FAILED" and s["ExitCode"] == "65:0", s
    assert "shard 2/3 is missing" in (tmp_path / "work" / "merge-missing.log").read_text()
    assert not out.exists()


def package_setup(natural_earth, folder: pathlib.Path) -> list:
    """Real regions: the countries of South America (Natural Earth, id iso_a3), packaged from the countries and the
    cities; returns package's command line without -o, run from FOLDER."""
    folder.mkdir()
    subprocess.run(["ogr2ogr", "-q", "-where", "continent = 'South America'", str(folder / "regions.shp"),
                    str(natural_earth["naturalearth_lowres"])], check=True)
    sources = [{"path": str(natural_earth[n]), "layer": n.split("_")[1]}
               for n in ("naturalearth_lowres", "naturalearth_cities")]
    (folder / "pipeline.json").write_text(json.dumps({
        "version": 1, "sources": sources, "tiles": {"minZoom": 0, "maxZoom": PACKAGE_MAX_ZOOM},
        "output": {"path": "nowhere/countries.pmtiles", "name": "Countries", "attribution": "Natural Earth"}}))
    return ["pipeline.json", "--regions", "regions.shp", "--id-field", "iso_a3", "--buffer", "1000"]


# High enough that a shard builds for seconds: the test kills one while it builds.
PACKAGE_MAX_ZOOM = 10


def packages(folder: pathlib.Path) -> dict:
    """Every region's package of FOLDER's catalog: id -> (file, SHA-256 of its bytes)."""
    catalog = json.loads((folder / "catalog.json").read_text())
    return {r["id"]: (r["file"], hashlib.sha256((folder / r["file"]).read_bytes()).hexdigest())
            for r in catalog["regions"]}


# Every job of the package test runs with this fixed build time (docs/catalog.md, *Fixed times*): the merged
# folder's catalog.json must then be the one-machine build's byte for byte, times included.
EPOCH = {"SOURCE_DATE_EPOCH": "1700000000"}


def test_four_package_shards_on_slurm_merge_byte_identical_also_after_a_kill(slurm, kartpack, natural_earth,
                                                                              tmp_path):
    command = package_setup(natural_earth, tmp_path / "night")
    night = tmp_path / "night"
    r = subprocess.run([kartpack, "package", *command, "-o", "whole", "--quiet"], cwd=night, capture_output=True,
                       text=True, env=dict(os.environ, **EPOCH))
    assert r.returncode == 0, r.stderr
    expected = packages(night / "whole")
    assert len(expected) > 8, expected
    work = night / "work"
    out = night / "merged"

    plan, array, merge = submit_script(dict(slurm, **EPOCH), kartpack, "submit-package.sh", work, 4,
                                       [*command, "-o", "merged"])
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED", sorted(work.glob("*.log"))
    assert packages(out) == expected
    assert (out / "catalog.json").read_bytes() == (night / "whole" / "catalog.json").read_bytes()
    shards = [json.loads((work / f"package-part-{i}" / "shard.json").read_text())["shard"] for i in range(4)]
    assert shards == [0, 1, 2, 3]
    shutil.rmtree(out)

    # Again, and shard 2 is killed (SIGKILL, as the OOM killer would) while it builds its regions: Slurm does not
    # requeue it, and the merge waits. The operator's rerun-shard.sh (docs/cluster.md) requeues it and re-arms the
    # merge; the shard builds its part again over what the killed attempt left, and the merge still gives the same
    # bytes.
    plan, array, merge = submit_script(dict(slurm, **EPOCH), kartpack, "submit-package.sh", work, 4,
                                       [*command, "-o", "merged"])
    task = f"{array}_2"
    part = work / "package-part-2"
    wait_running(slurm, task)
    deadline = time.time() + 60
    # Killed once it has built a region into tonight's staging generation, before it published any.
    while not any(part.glob(".generations/*.tmp-*/*.pmtiles")):
        assert time.time() < deadline and not (part / "shard.json").exists(), job_state(slurm, task)
        time.sleep(0.02)
    subprocess.run(["scancel", "--signal=KILL", task], env=slurm, check=True)
    killed = wait_done(slurm, task)
    # Slurm names a task it signalled itself CANCELLED (FAILED after a kill -9 from elsewhere): not requeued.
    assert killed["JobState"] in ("CANCELLED", "FAILED"), killed
    assert not (part / "shard.json").exists()
    deadline = time.time() + 30
    while job_state(slurm, merge).get("Reason") != "DependencyNeverSatisfied":
        assert time.time() < deadline and job_state(slurm, merge).get("JobState") == "PENDING", job_state(slurm, merge)
        time.sleep(0.1)
    subprocess.run([str(CLUSTER / "rerun-shard.sh"), array, merge, "2"], env=slurm, check=True)
    release(slurm, task)
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED", job_state(slurm, merge)
    assert int(job_state(slurm, task).get("Restarts", "0")) >= 1
    assert not list(part.glob(".generations/*.tmp-*")), "the killed attempt's staging generation is still there"
    assert packages(out) == expected
    assert (out / "catalog.json").read_bytes() == (night / "whole" / "catalog.json").read_bytes()

    # A merge job started with a shard's part missing fails with exit 65 and publishes nothing: the folder keeps
    # the catalog it had.
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    shutil.rmtree(work / "package-part-3")
    s = merge_alone(slurm, "package-merge.sbatch", work / "merge-missing.log", KARTPACK=kartpack,
                    WORKDIR=str(work), SUBMIT_DIR=str(night))
    assert s["JobState"] == "FAILED" and s["ExitCode"] == "65:0", s
    assert "shard 3/4 is missing" in (work / "merge-missing.log").read_text()
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_two_run_shards_on_slurm_merge_byte_identical(slurm, kartpack, natural_earth, tmp_path):
    """submit-run.sh: a pipeline's `run` planned, sharded and merged by Slurm gives the bytes one-machine `run`
    publishes at the pipeline's output; a merge job with a shard's part missing fails with 65."""
    night = tmp_path / "night"
    (night / "out").mkdir(parents=True)
    (night / "pipeline.json").write_text(json.dumps({
        "version": 1, "sources": [{"path": str(natural_earth["naturalearth_lowres"]), "layer": "countries"}],
        "tiles": {"minZoom": 0, "maxZoom": 7, "maxTileBytes": 30000},
        "output": {"path": "out/countries.pmtiles", "name": "Countries", "attribution": "Natural Earth"}}))
    out = night / "out" / "countries.pmtiles"
    r = subprocess.run([kartpack, "run", "pipeline.json", "--quiet"], cwd=night, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    expected = out.read_bytes()
    for published in (night / "out").iterdir():
        published.unlink()

    work = night / "work"
    plan, array, merge = submit_script(slurm, kartpack, "submit-run.sh", work, 2, ["pipeline.json"])
    assert wait_done(slurm, merge)["JobState"] == "COMPLETED", [p.read_text() for p in work.glob("*.log")]
    assert json.loads((work / "run-plan.json").read_text())["command"] == "run"
    assert out.read_bytes() == expected
    assert [json.loads((work / f"run-report-{i}.json").read_text())["published"] for i in range(2)] == [True, True]

    out.unlink()
    (work / "run-part-1.kpart").unlink()
    s = merge_alone(slurm, "run-merge.sbatch", work / "merge-missing.log", KARTPACK=kartpack, WORKDIR=str(work),
                    SUBMIT_DIR=str(night))
    assert s["JobState"] == "FAILED" and s["ExitCode"] == "65:0", s
    assert "shard 1/2 is missing" in (work / "merge-missing.log").read_text()
    assert not out.exists()
