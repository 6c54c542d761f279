"""The Kubernetes manifests of scripts/cluster/kubernetes (docs/cluster.md), parsed by a real YAML parser (PyYAML
of Debian's python3-yaml, as the venv has none): three Jobs each, the shards an Indexed Job whose shard count
agrees everywhere and whose pods take their shard from JOB_COMPLETION_INDEX, every pod on the same shared volume;
and run.sh, against a stand-in kubectl, applies the three in order and waits for each before the next."""
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

KUBERNETES = ROOT / "scripts" / "cluster" / "kubernetes"
MANIFESTS = {"convert-jobs.yaml": ("convert", "merge"), "package-jobs.yaml": ("package", "package"),
             "run-jobs.yaml": ("run", "merge")}


def load(path) -> list:
    r = subprocess.run(["/usr/bin/python3", "-c", "import json, sys, yaml; "
                        "json.dump(list(yaml.safe_load_all(sys.stdin)), sys.stdout)"],
                       stdin=open(path), capture_output=True, text=True)
    assert r.returncode == 0, f"{path.name} is not valid YAML (or python3-yaml is missing): {r.stderr}"
    return json.loads(r.stdout)


def command(job) -> str:
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"][:2] == ["sh", "-c"], container["command"]
    return container["command"][2]


@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_manifest_is_a_plan_an_indexed_shard_job_and_a_merge_on_one_volume(name):
    plan, shards, merge = load(KUBERNETES / name)
    shard_command, merge_command = MANIFESTS[name]
    for job in (plan, shards, merge):
        assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job", job
        pod = job["spec"]["template"]["spec"]
        assert pod["restartPolicy"] == "Never"
        assert pod["volumes"] == plan["spec"]["template"]["spec"]["volumes"]
        assert pod["volumes"][0]["persistentVolumeClaim"]["claimName"]
        (container,) = pod["containers"]
        assert {"name": "data", "mountPath": "/data"} in container["volumeMounts"]
        assert container["workingDir"] == "/data"
    spec = shards["spec"]
    assert spec["completionMode"] == "Indexed"
    n = spec["completions"]
    assert n == spec["parallelism"] and n > 1
    text = command(shards)
    assert f'--shard "$JOB_COMPLETION_INDEX/{n}"' in text, text
    assert re.search(rf"kartpack {shard_command} --plan /data/work/\S*plan.json", text), text
    assert f"--shards {n} " in command(plan) + " ", command(plan)
    assert "kartpack plan" in command(plan) and "rm -" in command(plan)
    assert f"kartpack {merge_command} " in command(merge)
    # The shards read the plan the plan Job writes, and the merge reads the parts the shards write, which the plan
    # Job removes first (last night's parts belong to another plan).
    written = re.search(r"--plan (\S+)", command(plan)).group(1)
    assert f"--plan {written}" in text
    prefix, suffix = re.search(r'-o "(\S+)\$JOB_COMPLETION_INDEX(\S*)"', text).groups()
    assert f"{prefix}*{suffix}" in command(merge), command(merge)
    assert re.search(rf"rm -r?f {re.escape(prefix)}\*", command(plan)), command(plan)


@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_run_sh_applies_the_three_jobs_in_turn(name, tmp_path):
    log = tmp_path / "kubectl.log"
    fake = tmp_path / "kubectl"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\n[ "$3" = apply ] && cat > /dev/null\nexit 0\n')
    fake.chmod(0o755)
    r = subprocess.run([str(KUBERNETES / "run.sh"), "nightly", str(KUBERNETES / name)], capture_output=True,
                       text=True, env=dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}"))
    assert r.returncode == 0, r.stderr
    names = [job["metadata"]["name"] for job in load(KUBERNETES / name)]
    calls = log.read_text().splitlines()
    assert calls[0] == f"--namespace nightly delete job {' '.join(names)} --ignore-not-found --wait"
    expected = []
    for job in names:
        expected += ["--namespace nightly apply -f -",
                     f"--namespace nightly wait --for=condition=complete --timeout=12h job/{job}"]
    assert calls[1:] == expected
