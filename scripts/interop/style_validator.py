"""MapLibre's own style validator (validateStyleMin in maplibre-gl.js) run with node on style files."""
import json
import pathlib
import shutil
import subprocess

import pytest

from browser import maplibre_builds

SCRIPT = pathlib.Path(__file__).with_name("validate_style.js")


def validate_styles(paths, version: str = "5.24.0") -> dict:
    """{path: [error messages]} from validateStyleMin of maplibre-gl `version`."""
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        pytest.fail("node not on PATH; scripts/bootstrap.sh installs Debian's nodejs")
    gl, _ = maplibre_builds()[version]
    proc = subprocess.run([node, str(SCRIPT), str(gl), *map(str, paths)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        r = json.loads(line)
        out[r["file"]] = r["errors"]
    return out
