"""Sharded `run` of a pipeline file (docs/cluster.md, *Pipelines*): `kartpack plan PIPELINE.json`, `kartpack run
--plan --shard I/N` and `kartpack merge`, through the real binary, give the bytes one-machine `run` publishes."""
import json
import pathlib
import shutil
import subprocess

import pytest

from conftest import ROOT


def run(kartpack, *args, cwd):
    return subprocess.run([kartpack, *map(str, args)], cwd=cwd, capture_output=True, text=True)


@pytest.fixture()
def pipeline(tmp_path):
    """The sample pipeline at tmp/Pipelines/forest-plan.json, reading the repository's sample data; its output is
    tmp/out/forest-plan.pmtiles."""
    (tmp_path / "Pipelines").mkdir()
    shutil.copy(ROOT / "Pipelines" / "forest-plan.json", tmp_path / "Pipelines")
    (tmp_path / "SampleData").symlink_to(ROOT / "SampleData")
    (tmp_path / "out").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path


def test_sharded_run_is_the_one_machine_run(kartpack, pipeline):
    out = pipeline / "out" / "forest-plan.pmtiles"
    whole = run(kartpack, "run", "Pipelines/forest-plan.json", "--quiet", cwd=pipeline)
    assert whole.returncode == 0, whole.stderr
    expected = out.read_bytes()
    for sidecar in pipeline.glob("out/*"):
        sidecar.unlink()

    for shards in (1, 2, 3):
        plan = pipeline / "work" / f"plan-{shards}.json"
        p = run(kartpack, "plan", "Pipelines/forest-plan.json", "--shards", shards, "--plan", plan, cwd=pipeline)
        assert p.returncode == 0, p.stderr
        assert json.loads(plan.read_text())["command"] == "run"
        parts = []
        for i in range(shards):
            part = pipeline / "work" / f"part-{shards}-{i}.kpart"
            report = pipeline / "work" / f"report-{shards}-{i}.json"
            # From another folder: the shard reads the plan's.
            s = run(kartpack, "run", "--plan", plan, "--shard", f"{i}/{shards}", "-o", part, "--quiet",
                    "--threads", "1", "--report", report, cwd="/")
            assert s.returncode == 0, s.stderr
            r = json.loads(report.read_text())
            assert r["published"] is True and r["conversion"]["featuresRead"] > 0
            parts.append(part)
        m = run(kartpack, "merge", *parts, "-o", out, "--force", cwd=pipeline)
        assert m.returncode == 0, m.stderr
        assert out.read_bytes() == expected, f"{shards} shard(s): the merge is not the one-machine run's bytes"

    # The merged package holds the nightly fingerprint: one-machine `run` finds it up to date.
    again = run(kartpack, "run", "Pipelines/forest-plan.json", cwd=pipeline)
    assert again.returncode == 0, again.stderr
    assert "is up to date" in again.stderr


def test_sharded_run_refusals(kartpack, pipeline):
    plan = pipeline / "work" / "plan.json"
    p = run(kartpack, "plan", "Pipelines/forest-plan.json", "--shards", 2, "--plan", plan, cwd=pipeline)
    assert p.returncode == 0, p.stderr
    part = pipeline / "work" / "part.kpart"
    # A run shard takes no pipeline options of its own (64), a convert shard no run plan (65).
    stray = run(kartpack, "run", "--plan", plan, "--shard", "0/2", "-o", part, "--set", "tiles.maxZoom=12",
                cwd=pipeline)
    assert stray.returncode == 64, stray.stderr
    other = run(kartpack, "convert", "--plan", plan, "--shard", "0/2", "-o", part, cwd=pipeline)
    assert other.returncode == 65 and "not `convert`" in other.stderr, other.stderr
    # The inputs changed since the plan: refused before anything is built.
    text = (pipeline / "Pipelines" / "forest-plan.json").read_text()
    (pipeline / "Pipelines" / "forest-plan.json").write_text(text.replace('"maxZoom": 14', '"maxZoom": 13'))
    changed = run(kartpack, "run", "--plan", plan, "--shard", "1/2", "-o", part, cwd=pipeline)
    assert changed.returncode == 65 and "changed since" in changed.stderr, changed.stderr
    assert not part.exists()
    # A max zoom chosen when built cannot be split ahead.
    auto = run(kartpack, "plan", "Pipelines/forest-plan.json", "--set", "tiles.maxZoom=auto", "--shards", 2,
               "--plan", plan, cwd=pipeline)
    assert auto.returncode == 65 and "maxZoom" in auto.stderr, auto.stderr
