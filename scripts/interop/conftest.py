"""Shared fixtures for the interop tests: where the kartpack binary and the real data sets are."""
import os
import pathlib
import shutil
import subprocess
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GEOPANDAS_DATA = pathlib.Path("/usr/lib/python3/dist-packages/geopandas/datasets")


def kartpack_bin() -> str:
    path = os.environ.get("KARTPACK_BIN")
    if not path:
        out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        path = os.path.join(out, "kartpack")
    if not os.path.exists(path):
        pytest.fail(f"kartpack binary not found at {path}; run `swift build` first")
    return path


@pytest.fixture(scope="session")
def kartpack():
    return kartpack_bin()


@pytest.fixture(scope="session")
def nyc_boroughs(tmp_path_factory) -> pathlib.Path:
    """The NYC boroughs shapefile (US-feet state plane) extracted from Debian's geopandas zip."""
    z = GEOPANDAS_DATA / "nybb_16a.zip"
    if not z.exists():
        pytest.fail(f"{z} missing: install python3-geopandas (scripts/bootstrap.sh does)")
    d = tmp_path_factory.mktemp("nybb")
    with zipfile.ZipFile(z) as f:
        f.extractall(d)
    return d / "nybb.shp"


@pytest.fixture(scope="session")
def natural_earth() -> dict:
    out = {}
    for name in ("naturalearth_lowres", "naturalearth_cities"):
        p = GEOPANDAS_DATA / name / f"{name}.shp"
        if not p.exists():
            pytest.fail(f"{p} missing: install python3-geopandas (scripts/bootstrap.sh does)")
        out[name] = p
    return out


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} not on PATH; scripts/bootstrap.sh installs it")
    return path
